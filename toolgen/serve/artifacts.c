/* artifacts.c — the files tool calls wrote, kept as resources (artifacts.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "serve/artifacts.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/json.h"
#include "emit/artifact.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* rm -r; symlinks are removed, never followed (FTW_PHYS). */
static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Deletes the files of the oldest call while more calls than the store keeps have files. */
static void evict(tg_serve_artifacts *a)
{
    size_t keep = a->keep_calls ? a->keep_calls : TG_SERVE_KEEP_CALLS;
    while (a->n && a->calls - a->v[0].call >= keep) {
        unsigned old = a->v[0].call;
        char *dir = xasprintf("%s/%u", a->root, old);
        remove_tree(dir);
        free(dir);
        size_t k = 0;
        while (k < a->n && a->v[k].call == old) {
            free(a->v[k].uri);
            free(a->v[k].name);
            free(a->v[k].file);
            k++;
        }
        memmove(a->v, a->v + k, (a->n - k) * sizeof *a->v);
        a->n -= k;
    }
}

/* 128 random bits as 32 hex digits into out[33]: a file's URI is a capability. */
static int draw_token(char out[33], tg_err *err)
{
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return tg_err_set(err, "no random bytes for the URI of a call's files: %s",
                          strerror(errno));
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(out + 2 * i, 3, "%02x", rnd[i]);
    return 0;
}

bool tg_serve_artifact_listed(const tg_serve_artifact *f, uint64_t client)
{
    return client != 0 && f->client == client;
}

bool tg_serve_artifact_readable(const tg_serve_artifact *f, uint64_t client)
{
    return f->client == 0 || f->client == client;
}

int tg_serve_artifacts_keep(tg_serve_artifacts *a, const tg_call_result *r, uint64_t client,
                            char **base, tg_err *err)
{
    *base = NULL;
    if (!r->sb.n_files)
        return 0;
    char token[33];
    if (draw_token(token, err) != 0)
        return -1;
    if (!a->root) {
        const char *tmp = getenv("TMPDIR");
        char *tmpl = xasprintf("%s/toolgen-serve-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(tmpl)) {
            tg_err_set(err, "cannot create a folder for the files of calls: %s", strerror(errno));
            free(tmpl);
            return -1;
        }
        a->root = tmpl;
    }
    unsigned call = ++a->calls;
    char *dir = xasprintf("%s/%u", a->root, call);
    if (tg_call_result_copy_files(r, dir, err) < 0) {
        free(dir);
        return -1;
    }
    a->v = xrealloc(a->v, (a->n + r->sb.n_files) * sizeof *a->v);
    for (size_t i = 0; i < r->sb.n_files; i++) {
        const tg_artifact *f = &r->sb.files[i];
        tg_err bad_name = {0};
        char *file = tg_path_join(dir, f->path);
        if (access(file, R_OK) != 0 || /* not a regular file: not copied */
            tg_utf8_validate(f->path, strlen(f->path), &bad_name) != 0) {
            free(file);
            continue;
        }
        a->v[a->n++] = (tg_serve_artifact){
            .uri = xasprintf(TG_SERVE_ARTIFACT_PREFIX "%s/%s", token, f->path),
            .name = xstrdup(f->path),
            .file = file,
            .mime = tg_emit_artifact_mime(f->path),
            .size = f->size,
            .call = call,
            .client = client,
        };
    }
    free(dir);
    *base = xasprintf(TG_SERVE_ARTIFACT_PREFIX "%s/", token);
    evict(a);
    return 0;
}

const tg_serve_artifact *tg_serve_artifacts_find(const tg_serve_artifacts *a, const char *uri)
{
    for (size_t i = 0; a && i < a->n; i++)
        if (strcmp(a->v[i].uri, uri) == 0)
            return &a->v[i];
    return NULL;
}

void tg_serve_artifacts_free(tg_serve_artifacts *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].uri);
        free(a->v[i].name);
        free(a->v[i].file);
    }
    free(a->v);
    if (a->root)
        remove_tree(a->root);
    free(a->root);
    *a = (tg_serve_artifacts){0};
}

char *tg_serve_base64(const unsigned char *data, size_t n)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = xmalloc((n + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)data[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)data[i + 1] << 8;
        if (i + 2 < n)
            v |= data[i + 2];
        *o++ = alphabet[(v >> 18) & 63];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}
