/* artifact.c — references to the files a call wrote; artifact.h says when they are rewritten. */
#include "emit/artifact.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/util.h"

char *tg_emit_artifact_ref(const char *base, const char *path)
{
    if (!base || !*base)
        return xstrdup(path);
    if (path[0] == '.' && path[1] == '/')
        path += 2;
    bool slash = base[strlen(base) - 1] == '/';
    return xasprintf("%s%s%s", base, slash ? "" : "/", path);
}

/* The artifact whose path is s[0..len) (a leading "./" ignored). */
static const char *named_n(const tg_emit_artifacts *a, const char *s, size_t len)
{
    if (!a || !s)
        return NULL;
    if (len >= 2 && s[0] == '.' && s[1] == '/') {
        s += 2;
        len -= 2;
    }
    for (size_t i = 0; i < a->n; i++)
        if (strlen(a->paths[i]) == len && memcmp(a->paths[i], s, len) == 0)
            return a->paths[i];
    return NULL;
}

const char *tg_emit_artifact_named(const tg_emit_artifacts *a, const char *s)
{
    return s ? named_n(a, s, strlen(s)) : NULL;
}

/* A link target as CommonMark reads it: <...> when it would otherwise end early. */
static void put_target(tg_buf *b, const char *ref)
{
    bool wrap = strpbrk(ref, " ()") != NULL;
    tg_buf_printf(b, wrap ? "<%s>" : "%s", ref);
}

char *tg_emit_artifact_relink_markdown(const char *md, const tg_emit_artifacts *a)
{
    tg_buf b = TG_BUF_INIT;
    const char *p = md;
    if (a && a->base) {
        const char *open;
        while ((open = strstr(p, "](")) != NULL) {
            const char *t = open + 2;
            bool angle = *t == '<';
            const char *start = t + angle;
            /* the target ends at '>' (angle form), else at a space (a title follows) or ')' */
            size_t len = strcspn(start, angle ? ">\n" : " )\n");
            const char *hit = named_n(a, start, len);
            tg_buf_append(&b, p, (size_t)(t - p));
            if (hit) {
                char *ref = tg_emit_artifact_ref(a->base, hit);
                put_target(&b, ref);
                free(ref);
                p = start + len + (angle && start[len] == '>');
            } else {
                p = t;
            }
        }
    }
    tg_buf_puts(&b, p);
    return tg_buf_steal(&b);
}

static void relink_in_place(cJSON *v, const tg_emit_artifacts *a, int depth)
{
    if (depth > 256)
        return;
    if (cJSON_IsString(v)) {
        const char *hit = tg_emit_artifact_named(a, v->valuestring);
        char *text = hit ? tg_emit_artifact_ref(a->base, hit)
                         : tg_emit_artifact_relink_markdown(v->valuestring, a);
        /* cJSON_SetValuestring would not grow the buffer of a longer string: swap it. */
        free(v->valuestring);
        v->valuestring = text;
        return;
    }
    cJSON *e;
    cJSON_ArrayForEach(e, v) relink_in_place(e, a, depth + 1);
}

cJSON *tg_emit_artifact_relink(const cJSON *result, const tg_emit_artifacts *a)
{
    cJSON *copy = cJSON_Duplicate(result, true);
    if (a && a->base && a->n)
        relink_in_place(copy, a, 0);
    return copy;
}

const char *tg_emit_artifact_mime(const char *path)
{
    static const char *const map[][2] = {
        {".png", "image/png"},         {".jpg", "image/jpeg"},     {".jpeg", "image/jpeg"},
        {".gif", "image/gif"},         {".svg", "image/svg+xml"},  {".webp", "image/webp"},
        {".csv", "text/csv"},          {".tsv", "text/tab-separated-values"},
        {".json", "application/json"}, {".txt", "text/plain"},     {".md", "text/markdown"},
        {".html", "text/html"},        {".pdf", "application/pdf"},
        {".wav", "audio/wav"},         {".mp3", "audio/mpeg"},     {".ogg", "audio/ogg"},
        {".flac", "audio/flac"},       {".m4a", "audio/mp4"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (tg_str_endswith(path, map[i][0]))
            return map[i][1];
    return "application/octet-stream";
}
