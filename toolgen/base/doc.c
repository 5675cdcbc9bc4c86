/* doc.c — loading a YAML or JSON document with positions (the YAML loader is in yaml.c). */
#include "base/doc.h"
#include "base/doc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tg_doc_max_bytes(const tg_doc_limits *lim)
{
    return lim && lim->max_bytes ? lim->max_bytes : TG_DOC_MAX_BYTES;
}

int tg_doc_max_depth(const tg_doc_limits *lim)
{
    return lim && lim->max_depth > 0 ? lim->max_depth : TG_JSON_MAX_DEPTH;
}

int tg_doc_begin(const char **text, size_t *len, const char **name, const tg_doc_limits *lim,
                 tg_doc *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    if (!*name)
        *name = "";
    size_t max_bytes = tg_doc_max_bytes(lim);
    if (*len > max_bytes)
        return tg_err_setpos(err, *name, 0, 0,
                             "input is %zu bytes, over the limit of %zu bytes for one document; "
                             "split it (see docs/manifest.md#limits)",
                             *len, max_bytes);
    /* Editors on Windows add a byte order mark; it is not content, so skip it. */
    if (*len >= 3 && !memcmp(*text, "\xEF\xBB\xBF", 3))
        *text += 3, *len -= 3;
    return 0;
}

int tg_doc_end(cJSON *root, tg_posmap *pos, const char *name, tg_doc *out, tg_err *err)
{
    if (!root) {
        tg_posmap_free(pos);
        if (err)
            snprintf(err->file, sizeof err->file, "%s", name);
        return -1;
    }
    out->root = root;
    out->pos = pos;
    out->file = xstrdup(name);
    return 0;
}

int tg_doc_parse_json(const char *text, size_t len, const char *name, const tg_doc_limits *lim,
                      tg_doc *out, tg_err *err)
{
    if (tg_doc_begin(&text, &len, &name, lim, out, err) != 0)
        return -1;
    tg_json_limits jl = {.max_depth = tg_doc_max_depth(lim)};
    tg_posmap *pos = tg_posmap_new();
    cJSON *root = tg_json_parse(text, len, NULL, pos, &jl, err);
    return tg_doc_end(root, pos, name, out, err);
}

/* JSON when the first character that is not whitespace (or a BOM) opens an object or array. */
static bool looks_like_json(const char *text, size_t len)
{
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    return i < len && (text[i] == '{' || text[i] == '[');
}

int tg_doc_load(const char *path, const tg_doc_limits *lim, tg_doc *out, tg_err *err)
{
    return tg_doc_load_at(AT_FDCWD, path, lim, out, err);
}

int tg_doc_load_at(int dirfd, const char *path, const tg_doc_limits *lim, tg_doc *out,
                   tg_err *err)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *text = tg_read_file_at(dirfd, path, tg_doc_max_bytes(lim), &len, err);
    if (!text)
        return -1; /* tg_read_file names the file and the limit */
    bool json;
    if (tg_str_endswith(path, ".json"))
        json = true;
    else if (tg_str_endswith(path, ".yaml") || tg_str_endswith(path, ".yml"))
        json = false;
    else
        json = looks_like_json(text, len);
    int rc = json ? tg_doc_parse_json(text, len, path, lim, out, err)
                  : tg_doc_parse_yaml(text, len, path, lim, out, err);
    free(text);
    return rc;
}

void tg_doc_free(tg_doc *d)
{
    if (!d)
        return;
    cJSON_Delete(d->root);
    free(d->file);
    tg_posmap_free(d->pos);
    memset(d, 0, sizeof *d);
}

tg_pos tg_doc_pos(const tg_doc *d, const cJSON *node)
{
    return d ? tg_posmap_get(d->pos, node) : (tg_pos){0, 0};
}

tg_pos tg_doc_pointer_pos(const tg_doc *d, const char *pointer)
{
    if (!d || !d->root)
        return (tg_pos){0, 0};
    const cJSON *best = d->root;
    if (pointer && pointer[0] == '/') {
        /* Resolve ever longer prefixes; pointers are short, so the repeated walk is cheap. */
        size_t n = strlen(pointer);
        char *buf = xstrndup(pointer, n);
        for (size_t i = 1; i <= n; i++) {
            if (i < n && buf[i] != '/')
                continue;
            char save = buf[i];
            buf[i] = '\0';
            const cJSON *c = tg_json_pointer_get(d->root, buf);
            buf[i] = save;
            if (!c)
                break;
            best = c;
        }
        free(buf);
    }
    return tg_posmap_get(d->pos, best);
}
