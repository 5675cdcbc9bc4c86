/* actionres.c — REAPI ActionResult through protobuf-c (actionres.h). */
#include "cache/actionres.h"

#include <stdlib.h>
#include <string.h>

#include "cache/reapi.pb-c.h"

typedef Build__Bazel__Remote__Execution__V2__ActionResult pb_result;
typedef Build__Bazel__Remote__Execution__V2__OutputFile pb_file;
typedef Build__Bazel__Remote__Execution__V2__Digest pb_digest;

#define MAX_FILES 100000

void tg_ar_add_file(tg_action_result *ar, const char *path, const void *data, size_t len,
                    bool inline_too)
{
    ar->files = xrealloc(ar->files, (ar->nfiles + 1) * sizeof *ar->files);
    tg_ar_file *f = &ar->files[ar->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    tg_sha256_hex(data, len, f->hash);
    f->size = (int64_t)len;
    if (inline_too) {
        f->inline_data = xmalloc(len + 1);
        memcpy(f->inline_data, data, len);
        f->inline_len = len;
    }
}

unsigned char *tg_ar_encode(const tg_action_result *ar, size_t *len)
{
    pb_result r = BUILD__BAZEL__REMOTE__EXECUTION__V2__ACTION_RESULT__INIT;
    pb_file *files = xcalloc(ar->nfiles + 1, sizeof *files);
    pb_digest *digests = xcalloc(ar->nfiles + 1, sizeof *digests);
    pb_file **ptrs = xcalloc(ar->nfiles + 1, sizeof *ptrs);
    for (size_t i = 0; i < ar->nfiles; i++) {
        build__bazel__remote__execution__v2__digest__init(&digests[i]);
        digests[i].hash = (char *)ar->files[i].hash;
        digests[i].size_bytes = ar->files[i].size;
        build__bazel__remote__execution__v2__output_file__init(&files[i]);
        files[i].path = ar->files[i].path;
        files[i].digest = &digests[i];
        files[i].contents.data = ar->files[i].inline_data;
        files[i].contents.len = ar->files[i].inline_data ? ar->files[i].inline_len : 0;
        ptrs[i] = &files[i];
    }
    r.n_output_files = ar->nfiles;
    r.output_files = ptrs;
    r.exit_code = ar->exit_code;
    r.stdout_raw.data = ar->out;
    r.stdout_raw.len = ar->out ? ar->outlen : 0;
    *len = build__bazel__remote__execution__v2__action_result__get_packed_size(&r);
    unsigned char *buf = xmalloc(*len + 1);
    build__bazel__remote__execution__v2__action_result__pack(&r, buf);
    free(files);
    free(digests);
    free(ptrs);
    return buf;
}

static bool hex_digest_ok(const char *h)
{
    if (!h || strlen(h) != TG_SHA256_HEX - 1)
        return false;
    for (; *h; h++)
        if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')))
            return false;
    return true;
}

/* One OutputFile into f; -1 with err when it is not usable. */
static int take_file(const pb_file *pf, tg_ar_file *f, tg_err *err)
{
    memset(f, 0, sizeof *f);
    const pb_digest *d = pf->digest;
    if (!pf->path || !pf->path[0] || !d || !hex_digest_ok(d->hash) || d->size_bytes < 0)
        return tg_err_set(err, "an output file without a path or a SHA-256 digest");
    f->path = xstrdup(pf->path);
    memcpy(f->hash, d->hash, TG_SHA256_HEX);
    f->size = d->size_bytes;
    if (pf->contents.len) {
        f->inline_data = xmalloc(pf->contents.len + 1);
        memcpy(f->inline_data, pf->contents.data, pf->contents.len);
        f->inline_len = pf->contents.len;
    }
    return 0;
}

int tg_ar_decode(const void *data, size_t len, tg_action_result *ar, tg_err *err)
{
    memset(ar, 0, sizeof *ar);
    pb_result *r = build__bazel__remote__execution__v2__action_result__unpack(NULL, len, data);
    if (!r)
        return tg_err_set(err, "not an ActionResult protobuf");
    int rc = 0;
    if (r->n_output_files > MAX_FILES)
        rc = tg_err_set(err, "%zu output files", r->n_output_files);
    ar->exit_code = r->exit_code;
    ar->files = xcalloc(r->n_output_files + 1, sizeof *ar->files);
    for (size_t i = 0; rc == 0 && i < r->n_output_files; i++) {
        rc = take_file(r->output_files[i], &ar->files[i], err);
        ar->nfiles += rc == 0;
    }
    ar->out = xmalloc(r->stdout_raw.len + 1);
    if (r->stdout_raw.len)
        memcpy(ar->out, r->stdout_raw.data, r->stdout_raw.len);
    ar->out[r->stdout_raw.len] = '\0';
    ar->outlen = r->stdout_raw.len;
    build__bazel__remote__execution__v2__action_result__free_unpacked(r, NULL);
    if (rc != 0)
        tg_ar_free(ar);
    return rc;
}

void tg_ar_free(tg_action_result *ar)
{
    for (size_t i = 0; i < ar->nfiles; i++) {
        free(ar->files[i].path);
        free(ar->files[i].inline_data);
    }
    free(ar->files);
    free(ar->out);
    memset(ar, 0, sizeof *ar);
}
