/* declared.c — the resources a repository declares (declared.h). */
#include "serve/declared.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/confine.h"
#include "base/json.h"
#include "base/strvec.h"
#include "emit/artifact.h"
#include "serve/content.h"

struct tg_serve_watched {
    char *uri;
    char state[96]; /* size, modification time and inode of its file; "" when missing */
};

/* ---- loading ----------------------------------------------------------------------------- */

static bool var_char(char c, bool first)
{
    return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

/* The {variables} of s in order, into vars (NULL: only checked); false when a brace is not
 * a well-formed {name}. */
static bool variables(const char *s, tg_strv *vars)
{
    for (const char *p = s; *p; p++) {
        if (*p == '}')
            return false;
        if (*p != '{')
            continue;
        const char *q = p + 1;
        while (var_char(*q, q == p + 1))
            q++;
        if (*q != '}' || q == p + 1)
            return false;
        if (vars)
            tg_strv_pushf(vars, "%.*s", (int)(q - p - 1), p + 1);
        p = q;
    }
    return true;
}

static char *opt_string(const cJSON *o, const char *key)
{
    const char *v = tg_json_get_string(o, key);
    return v ? xstrdup(v) : NULL;
}

/* Both sides name the same variables (each side's set). */
static bool same_variables(const char *uri, const char *file)
{
    tg_strv a = TG_STRV_INIT, b = TG_STRV_INIT;
    bool ok = variables(uri, &a) && variables(file, &b) && a.n > 0 && b.n > 0;
    for (size_t i = 0; ok && i < a.n; i++)
        ok = tg_strlist_has((const char *const *)b.v, a.v[i]);
    for (size_t i = 0; ok && i < b.n; i++)
        ok = tg_strlist_has((const char *const *)a.v, b.v[i]);
    tg_strv_free(&a);
    tg_strv_free(&b);
    return ok;
}

/* One entry of serve.resources; why says what is wrong with it. */
static bool parse_entry(const cJSON *e, tg_serve_declared_res *r, char *why, size_t n)
{
    static const char *const keys[] = {"uri", "uri_template", "file", "name", "title",
                                       "description", "mime_type", NULL};
    for (const cJSON *k = cJSON_IsObject(e) ? e->child : NULL; k; k = k->next)
        if (!tg_strlist_has(keys, k->string) || !cJSON_IsString(k))
            return snprintf(why, n, "'%s' is not one of the keys (uri or uri_template, file, "
                                    "name, title, description, mime_type: strings)", k->string),
                   false;
    const char *uri = tg_json_get_string(e, "uri"), *tpl = tg_json_get_string(e, "uri_template");
    const char *file = tg_json_get_string(e, "file");
    if (!cJSON_IsObject(e) || !uri == !tpl || !file)
        return snprintf(why, n, "an entry is a mapping with uri (or uri_template) and file"), false;
    const char *u = uri ? uri : tpl;
    if (tg_str_startswith(u, "toolgen:"))
        return snprintf(why, n, "the URI scheme toolgen: is toolgen's own; choose another"), false;
    if (!tg_path_is_plain(file, 1024) || !variables(file, NULL))
        return snprintf(why, n, "file must be a path inside the repository (relative, without "
                                "'..' or hidden folders)"), false;
    if (tpl ? !same_variables(tpl, file) : strchr(uri, '{') || strchr(file, '{'))
        return snprintf(why, n, tpl ? "uri_template and file must name the same {variables}"
                                    : "a plain uri and its file hold no {variables}; use "
                                      "uri_template"), false;
    *r = (tg_serve_declared_res){.uri = xstrdup(u), .is_template = tpl != NULL,
                                 .file = xstrdup(file), .title = opt_string(e, "title"),
                                 .description = opt_string(e, "description"),
                                 .mime = opt_string(e, "mime_type")};
    r->name = tg_json_get_string(e, "name") ? xstrdup(tg_json_get_string(e, "name")) : xstrdup(u);
    return true;
}

int tg_serve_declared_load(tg_serve_declared *d, const tg_repo *repo, tg_err *err)
{
    *d = (tg_serve_declared){.root_fd = repo->root_fd, .changed = cJSON_CreateArray()};
    const cJSON *list = repo->cfg.doc.root ? tg_json_pointer_get(repo->cfg.doc.root,
                                                                 "/serve/resources") : NULL;
    if (!list)
        return 0;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > TG_SERVE_DECLARED_MAX)
        return tg_err_set(err, "toolgen.yaml: serve.resources must be a list of at most %d "
                               "entries (docs/config.md#serve)", TG_SERVE_DECLARED_MAX);
    d->v = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *d->v);
    for (const cJSON *e = list->child; e; e = e->next) {
        char why[256];
        if (!parse_entry(e, &d->v[d->n], why, sizeof why)) {
            tg_err_set(err, "toolgen.yaml: serve.resources[%zu]: %s (docs/config.md#serve)",
                       d->n, why);
            tg_serve_declared_free(d);
            return -1;
        }
        for (size_t i = 0; i < d->n; i++)
            if (strcmp(d->v[i].uri, d->v[d->n].uri) == 0) {
                tg_err_set(err, "toolgen.yaml: serve.resources[%zu]: %s is declared twice",
                           d->n, d->v[d->n].uri);
                d->n++;
                tg_serve_declared_free(d);
                return -1;
            }
        d->n++;
    }
    return 0;
}

void tg_serve_declared_free(tg_serve_declared *d)
{
    for (size_t i = 0; i < d->n; i++) {
        tg_serve_declared_res *r = &d->v[i];
        free(r->uri);
        free(r->file);
        free(r->name);
        free(r->title);
        free(r->description);
        free(r->mime);
    }
    free(d->v);
    for (size_t i = 0; i < d->nw; i++)
        free(d->w[i].uri);
    free(d->w);
    cJSON_Delete(d->changed);
    *d = (tg_serve_declared){0};
}

/* ---- listing -------------------------------------------------------------------------------- */

static const char *mime_of(const tg_serve_declared_res *r)
{
    return r->mime ? r->mime : tg_emit_artifact_mime(r->file);
}

static cJSON *object_of(const tg_serve_declared_res *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, r->is_template ? "uriTemplate" : "uri", r->uri);
    cJSON_AddStringToObject(o, "name", r->name);
    if (r->title)
        cJSON_AddStringToObject(o, "title", r->title);
    if (r->description)
        cJSON_AddStringToObject(o, "description", r->description);
    cJSON_AddStringToObject(o, "mimeType", mime_of(r));
    return o;
}

size_t tg_serve_declared_count(const tg_serve_declared *d)
{
    size_t n = 0;
    for (size_t i = 0; d && i < d->n; i++)
        n += !d->v[i].is_template;
    return n;
}

cJSON *tg_serve_declared_resource(const tg_serve_declared *d, size_t i)
{
    for (size_t k = 0; k < d->n; k++)
        if (!d->v[k].is_template && i-- == 0)
            return object_of(&d->v[k]);
    return NULL;
}

void tg_serve_declared_list(const tg_serve_declared *d, cJSON *list, cJSON *templates)
{
    for (size_t i = 0; d && i < d->n; i++)
        if (d->v[i].is_template ? templates != NULL : list != NULL)
            cJSON_AddItemToArray(d->v[i].is_template ? templates : list, object_of(&d->v[i]));
}

/* ---- reading -------------------------------------------------------------------------------- */

/* A template variable's value: letters, digits, '_', '-', '.' (not first), nothing else. */
static bool value_char(char c, bool first)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || (!first && c == '.');
}

/* The file of template r for uri (heap), or NULL when uri is no instance of it. */
static char *instance_file(const tg_serve_declared_res *r, const char *uri)
{
    tg_strv names = TG_STRV_INIT, values = TG_STRV_INIT;
    const char *t = r->uri, *u = uri;
    bool ok = true;
    while (ok && *t) {
        if (*t != '{') {
            ok = *u++ == *t++;
            continue;
        }
        const char *close = strchr(t, '}');
        tg_strv_pushf(&names, "%.*s", (int)(close - t - 1), t + 1);
        t = close + 1;
        const char *start = u;
        while (value_char(*u, u == start) && *u != *t)
            u++;
        ok = u > start;
        tg_strv_pushf(&values, "%.*s", (int)(u - start), start);
    }
    char *file = NULL;
    if (ok && !*u) {
        tg_buf b = TG_BUF_INIT;
        for (const char *f = r->file; *f; f++) {
            const char *close = *f == '{' ? strchr(f, '}') : NULL;
            if (!close) {
                tg_buf_putc(&b, *f);
                continue;
            }
            for (size_t i = 0; i < names.n; i++)
                if (strlen(names.v[i]) == (size_t)(close - f - 1) &&
                    strncmp(names.v[i], f + 1, (size_t)(close - f - 1)) == 0)
                    tg_buf_puts(&b, values.v[i]);
            f = close;
        }
        file = tg_buf_steal(&b);
    }
    tg_strv_free(&names);
    tg_strv_free(&values);
    return file;
}

/* The declared resource uri names and its file (heap); NULL when none. */
static const tg_serve_declared_res *find(const tg_serve_declared *d, const char *uri, char **file)
{
    for (size_t i = 0; d && i < d->n; i++) {
        const tg_serve_declared_res *r = &d->v[i];
        *file = r->is_template ? instance_file(r, uri)
                               : strcmp(r->uri, uri) == 0 ? xstrdup(r->file) : NULL;
        if (*file)
            return r;
    }
    return NULL;
}

bool tg_serve_declared_has(const tg_serve_declared *d, const char *uri)
{
    char *file = NULL;
    bool has = find(d, uri, &file) != NULL;
    free(file);
    return has;
}

int tg_serve_declared_read(const tg_serve_declared *d, const char *uri, cJSON **out, char *why,
                           size_t why_size)
{
    char *file = NULL;
    const tg_serve_declared_res *r = find(d, uri, &file);
    if (!r)
        return 0;
    int fd = tg_serve_open_beneath(d->root_fd, file);
    struct stat st;
    int rc = -1;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(why, why_size, "%s cannot be read (%s)", file,
                 fd < 0 ? strerror(errno) : "not a regular file");
    else if (st.st_size > (off_t)TG_SERVE_DECLARED_READ_MAX)
        snprintf(why, why_size, "%s is larger than %u bytes", file, TG_SERVE_DECLARED_READ_MAX);
    else
        rc = 1;
    if (rc == 1) {
        char *data = xmalloc((size_t)st.st_size + 1);
        ssize_t got = read(fd, data, (size_t)st.st_size);
        size_t len = got > 0 ? (size_t)got : 0;
        data[len] = '\0';
        cJSON *block = tg_serve_embedded_block(uri, mime_of(r), data, len);
        *out = cJSON_DetachItemFromObject(block, "resource");
        cJSON_Delete(block);
        free(data);
    }
    if (fd >= 0)
        close(fd);
    free(file);
    return rc;
}

/* ---- watching -------------------------------------------------------------------------------- */

/* The state of uri's file: its size, modification time and inode ("" when missing). */
static void state_of(const tg_serve_declared *d, const char *uri, char *out, size_t n)
{
    char *file = NULL;
    out[0] = '\0';
    if (!find(d, uri, &file))
        return;
    int fd = tg_serve_open_beneath(d->root_fd, file);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0)
        snprintf(out, n, "%lld.%lld.%ld.%llu", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
    if (fd >= 0)
        close(fd);
    free(file);
}

bool tg_serve_declared_watch(tg_serve_declared *d, const char *uri)
{
    if (!tg_serve_declared_has(d, uri))
        return false;
    for (size_t i = 0; i < d->nw; i++)
        if (strcmp(d->w[i].uri, uri) == 0)
            return true;
    if (d->nw == TG_SERVE_WATCHED_MAX)
        return false;
    d->w = xrealloc(d->w, (d->nw + 1) * sizeof *d->w);
    d->w[d->nw].uri = xstrdup(uri);
    state_of(d, uri, d->w[d->nw].state, sizeof d->w[d->nw].state);
    d->nw++;
    return true;
}

size_t tg_serve_declared_poll(tg_serve_declared *d)
{
    cJSON_Delete(d->changed);
    d->changed = cJSON_CreateArray();
    size_t n = 0;
    for (size_t i = 0; i < d->nw; i++) {
        char now[sizeof d->w[i].state];
        state_of(d, d->w[i].uri, now, sizeof now);
        if (strcmp(now, d->w[i].state) != 0) {
            snprintf(d->w[i].state, sizeof d->w[i].state, "%s", now);
            cJSON_AddItemToArray(d->changed, cJSON_CreateString(d->w[i].uri));
            n++;
        }
    }
    return n;
}
