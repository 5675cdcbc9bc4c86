/* promptparts.c — image, audio, resource and text parts of prompt templates (promptparts.h). */
#include "serve/promptparts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/confine.h"
#include "base/json.h"
#include "base/strvec.h"
#include "emit/artifact.h"
#include "serve/content.h"

int tg_serve_fm_fail(const char *file, const tg_doc *d, const cJSON *node, tg_err *err,
                     const char *fmt, ...)
{
    tg_pos pos = tg_doc_pos(d, node);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tg_err_setpos(err, file, pos.line ? pos.line + 1 : 2, pos.col, "%s", msg);
}

static const char *const kinds[] = {"text", "image", "audio", "resource", NULL};

/* The one kind key of item, or -1 (*key: the offending node) when there is none or several. */
static int kind_of(const cJSON *item, const cJSON **key)
{
    int kind = -1;
    for (const cJSON *k = item->child; k; k = k->next)
        for (int i = 0; kinds[i]; i++)
            if (strcmp(k->string, kinds[i]) == 0) {
                *key = k;
                if (kind >= 0)
                    return -1;
                kind = i;
            }
    return kind;
}

/* One item: {role?, text | image | audio | resource, uri?, mime_type?}. */
static int parse_part(const char *file, const tg_doc *d, const cJSON *item, const char *name,
                      tg_serve_prompt_part *p, tg_err *err)
{
    const cJSON *key = item;
    int kind = cJSON_IsObject(item) ? kind_of(item, &key) : -1;
    if (kind < 0)
        return tg_serve_fm_fail(file, d, key, err, "each item of messages has exactly one of "
                                                   "text, image, audio or resource");
    static const char *const allowed[] = {"role", "text", "image", "audio", "resource", "uri",
                                          "mime_type", NULL};
    for (const cJSON *k = item->child; k; k = k->next)
        if (!tg_strlist_has(allowed, k->string) ||
            (strcmp(k->string, "uri") == 0 && kind != TG_PART_RESOURCE) ||
            (strcmp(k->string, "mime_type") == 0 && kind == TG_PART_TEXT))
            return tg_serve_fm_fail(file, d, k, err, "messages: '%s' does not belong in a %s "
                                                     "item", k->string, kinds[kind]);
    const char *role = tg_json_get_string(item, "role");
    if (tg_json_get(item, "role") && (!role || (strcmp(role, "user") && strcmp(role, "assistant"))))
        return tg_serve_fm_fail(file, d, tg_json_get(item, "role"), err,
                                "messages: role is user or assistant");
    if (!cJSON_IsString(key) ||
        (kind != TG_PART_TEXT && !tg_path_is_plain(key->valuestring, 512)))
        return tg_serve_fm_fail(file, d, key, err, kind == TG_PART_TEXT
                                    ? "messages: text is a string"
                                    : "messages: %s names a file under the prompts folder "
                                      "(relative, without '..' or hidden folders)", kinds[kind]);
    const cJSON *uri = tg_json_get(item, "uri"), *mime = tg_json_get(item, "mime_type");
    if ((uri && !cJSON_IsString(uri)) || (mime && !cJSON_IsString(mime)))
        return tg_serve_fm_fail(file, d, uri && !cJSON_IsString(uri) ? uri : mime, err,
                                "messages: uri and mime_type are strings");
    *p = (tg_serve_prompt_part){.kind = (tg_prompt_part_kind)kind,
                                .assistant = role && *role == 'a'};
    if (kind == TG_PART_TEXT) {
        p->text = xstrdup(key->valuestring);
        return 0;
    }
    p->file = xstrdup(key->valuestring);
    p->mime = xstrdup(mime ? mime->valuestring : tg_emit_artifact_mime(p->file));
    if (kind == TG_PART_RESOURCE)
        p->text = uri ? xstrdup(uri->valuestring)
                      : xasprintf("toolgen://prompts/%s/%s", name, p->file);
    const char *k = tg_serve_content_kind(p->mime);
    if (kind != TG_PART_RESOURCE && (!k || strcmp(k, kinds[kind]) != 0))
        return tg_serve_fm_fail(file, d, key, err, "messages: %s is %s, not an %s file (set "
                                                   "mime_type if its extension misleads)",
                                p->file, p->mime, kinds[kind]);
    return 0;
}

int tg_serve_prompt_parts_parse(const char *file, const tg_doc *d, const cJSON *list,
                                const char *name, tg_serve_prompt_part **parts, size_t *n,
                                tg_err *err)
{
    *parts = NULL;
    *n = 0;
    if (!cJSON_IsArray(list))
        return tg_serve_fm_fail(file, d, list, err, "messages must be a list of mappings "
                                                    "(- image: FILE, - text: TEXT, ...)");
    *parts = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof **parts);
    for (const cJSON *it = list->child; it; it = it->next) {
        if (parse_part(file, d, it, name, &(*parts)[*n], err) != 0) {
            (*n)++; /* what it holds is freed with the rest */
            return -1;
        }
        (*n)++;
    }
    return 0;
}

int tg_serve_prompt_parts_read(tg_serve_prompt_part *parts, size_t n, int root_fd,
                               const char *dir, tg_err *err)
{
    for (size_t i = 0; i < n; i++) {
        tg_serve_prompt_part *p = &parts[i];
        if (!p->file)
            continue;
        char *shown = tg_path_join(dir, p->file);
        char *path = xasprintf("%s/%s", dir, p->file);
        int fd = tg_serve_open_beneath(root_fd, path);
        struct stat st;
        int rc = 0;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
            rc = tg_err_set(err, "%s: cannot read it (%s); a part's file must be a regular file "
                                 "under the prompts folder, reached without symbolic links",
                            shown, fd < 0 ? strerror(errno) : "not a regular file");
        else if (st.st_size > (off_t)TG_SERVE_PART_MAX)
            rc = tg_err_set(err, "%s: larger than %u bytes", shown, TG_SERVE_PART_MAX);
        if (rc == 0) {
            p->data = xmalloc((size_t)st.st_size + 1);
            ssize_t got = read(fd, p->data, (size_t)st.st_size);
            p->len = got > 0 ? (size_t)got : 0;
            p->data[p->len] = '\0';
        }
        if (fd >= 0)
            close(fd);
        free(path);
        free(shown);
        if (rc != 0)
            return -1;
    }
    return 0;
}

void tg_serve_prompt_parts_free(tg_serve_prompt_part *parts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(parts[i].text);
        free(parts[i].file);
        free(parts[i].mime);
        free(parts[i].data);
    }
    free(parts);
}

cJSON *tg_serve_prompt_part_message(const tg_serve_prompt_part *p, const char *text)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", p->assistant ? "assistant" : "user");
    cJSON *c;
    if (p->kind == TG_PART_TEXT) {
        c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "type", "text");
        cJSON_AddStringToObject(c, "text", text);
    } else if (p->kind == TG_PART_RESOURCE) {
        c = tg_serve_embedded_block(text, p->mime, p->data ? p->data : "", p->len);
    } else {
        c = tg_serve_media_block(p->kind == TG_PART_IMAGE ? "image" : "audio", p->mime,
                                 p->data ? p->data : "", p->len);
    }
    cJSON_AddItemToObject(m, "content", c);
    return m;
}
