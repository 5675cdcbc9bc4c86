/* remote.c — the Bazel HTTP cache client (remote.h; docs/cache.md). */
#include "cache/remote.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strmap.h"
#include "base/strvec.h"
#include "net/redact.h"
#include "net/retry.h"

#define AC_MAX_BYTES ((size_t)16 << 20)
#define BLOB_MAX_BYTES ((size_t)1 << 30)
#define CONNECT_TIMEOUT_MS 2000
#define DEFAULT_TIMEOUT_MS 10000

struct tg_remote {
    char *url;        /* without a trailing '/' */
    char safe[512];   /* the URL for messages */
    char *auth;       /* "Bearer <token>", or NULL */
    bool upload;
    long timeout_ms;
    atomic_bool down; /* met a failure: no more requests */
    atomic_int rejected, uploads;
    /* blobs that failed their check: uploaded again without asking HEAD, which would say the
     * server holds them (it holds the bad bytes) */
    pthread_mutex_t mu;
    tg_strmap bad;
    tg_strv bad_keys;
};

int tg_remote_open(const tg_remote_config *cfg, tg_remote **out, tg_err *err)
{
    *out = NULL;
    const char *u = cfg->url;
    if (!u || (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0))
        return tg_err_set(err, "the remote cache's URL must start with http:// or https://");
    const char *token = NULL;
    if (cfg->token_env) {
        token = getenv(cfg->token_env);
        if (!token || !*token)
            return tg_err_set(err, "the environment variable %s (cache.remote_token_env) is not "
                                   "set; export it with the cache's token",
                              cfg->token_env);
    }
    tg_remote *rc = xcalloc(1, sizeof *rc);
    size_t n = strlen(u);
    while (n > 0 && u[n - 1] == '/')
        n--;
    rc->url = xstrndup(u, n);
    tg_url_redact(rc->url, rc->safe, sizeof rc->safe);
    rc->auth = token ? xasprintf("Bearer %s", token) : NULL;
    rc->upload = cfg->upload;
    rc->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS;
    pthread_mutex_init(&rc->mu, NULL);
    *out = rc;
    return 0;
}

void tg_remote_close(tg_remote *rc)
{
    if (!rc)
        return;
    if (rc->auth) { /* the token's only copy */
        memset(rc->auth, 0, strlen(rc->auth));
        free(rc->auth);
    }
    free(rc->url);
    tg_strmap_free(&rc->bad);
    tg_strv_free(&rc->bad_keys);
    pthread_mutex_destroy(&rc->mu);
    free(rc);
}

static void mark_bad(tg_remote *rc, const char *hash)
{
    pthread_mutex_lock(&rc->mu);
    if (!tg_strmap_get(&rc->bad, hash)) {
        tg_strv_push(&rc->bad_keys, hash);
        tg_strmap_put(&rc->bad, rc->bad_keys.v[rc->bad_keys.n - 1], (void *)1);
    }
    pthread_mutex_unlock(&rc->mu);
}

static bool is_bad(tg_remote *rc, const char *hash)
{
    pthread_mutex_lock(&rc->mu);
    bool bad = tg_strmap_get(&rc->bad, hash) != NULL;
    pthread_mutex_unlock(&rc->mu);
    return bad;
}

int tg_remote_rejected(const tg_remote *rc)
{
    return atomic_load(&rc->rejected);
}

int tg_remote_uploads(const tg_remote *rc)
{
    return atomic_load(&rc->uploads);
}

const char *tg_remote_url(const tg_remote *rc)
{
    return rc->safe;
}

void tg_remote_key(const char *kind, const char *local_hex, char out[TG_SHA256_HEX])
{
    tg_sha256_ctx s;
    tg_sha256_init(&s);
    tg_sha256_update(&s, kind, strlen(kind) + 1);
    tg_sha256_update(&s, local_hex, strlen(local_hex));
    tg_sha256_final_hex(&s, out);
}

/* ---- one request ---------------------------------------------------------------------------- */

typedef enum answer { A_OK, A_NOT_FOUND, A_FAILED } answer;

/*
 * One request to URL/<kind>/<hash> with the retries of net/retry.h. A_OK: a 2xx, *resp filled
 * (released by the caller); A_NOT_FOUND: 404; A_FAILED: anything else, err says what (the
 * server is then down for this client).
 */
static answer request(tg_remote *rc, tg_http_method m, const char *kind, const char *hash,
                      const void *body, size_t len, size_t max_bytes, tg_http_response *resp,
                      tg_err *err)
{
    char *url = xasprintf("%s/%s/%s", rc->url, kind, hash);
    tg_http_header h[2] = {{"Content-Type", "application/octet-stream", false},
                           {"Authorization", rc->auth ? rc->auth : "", true}};
    tg_http_request rq = {.method = m, .url = url, .headers = h, .nheaders = rc->auth ? 2 : 1,
                          .body = body, .body_len = len, .timeout_ms = rc->timeout_ms,
                          .connect_timeout_ms = CONNECT_TIMEOUT_MS, .max_bytes = max_bytes};
    tg_retry_policy policy = {.max_retries = 2, .base_ms = 100, .max_ms = 1000,
                              .retry_after_cap_ms = 2000};
    unsigned rng = (unsigned)getpid() ^ (unsigned)(size_t)resp;
    tg_http_response r;
    tg_err herr = {0};
    tg_http_result hr = tg_http_send(&rq, &policy, &rng, &r, NULL, &herr);
    free(url);
    if (hr != TG_HTTP_OK) {
        tg_err_set(err, "%s", herr.msg); /* the URL in it is redacted by net/ */
        return A_FAILED;
    }
    if (r.status >= 200 && r.status < 300) {
        *resp = r;
        return A_OK;
    }
    long status = r.status;
    tg_http_response_release(&r);
    if (status == 404)
        return A_NOT_FOUND;
    tg_err_set(err, "%s/%s/%.12s...: HTTP %ld%s", rc->safe, kind, hash, status,
               status == 401 || status == 403 ? " (is the token right?)" : "");
    return A_FAILED;
}

/* The client met a failure: the first to get here reports it (DOWN), the others miss. */
static tg_remote_status went_down(tg_remote *rc, tg_err *err)
{
    bool was = atomic_exchange(&rc->down, true);
    if (was)
        return TG_REMOTE_MISS;
    tg_err_prefix(err, "the remote cache %s cannot be used (%s); building locally", rc->safe,
                  "the rest of this build asks it nothing more");
    return TG_REMOTE_DOWN;
}

/* ---- get ------------------------------------------------------------------------------------ */

/* File i's bytes into a->data[i], checked against its digest. */
static tg_remote_status fetch_blob(tg_remote *rc, tg_remote_action *a, size_t i, tg_err *err)
{
    const tg_ar_file *f = &a->ar.files[i];
    char *data;
    size_t len;
    if (f->inline_data) {
        data = xmalloc(f->inline_len + 1);
        memcpy(data, f->inline_data, f->inline_len);
        len = f->inline_len;
    } else {
        tg_http_response r;
        /* no cap from the digest's size: a longer blob is a bad blob (rejected), not a
         * server that failed */
        answer an = request(rc, TG_HTTP_GET, "cas", f->hash, NULL, 0, BLOB_MAX_BYTES, &r, err);
        if (an == A_NOT_FOUND)
            return TG_REMOTE_MISS; /* the result's blob is gone: a miss */
        if (an == A_FAILED)
            return went_down(rc, err);
        data = r.body; /* taken from the response */
        len = r.len;
        r.body = NULL;
        tg_http_response_release(&r);
    }
    data[len] = '\0';
    char got[TG_SHA256_HEX];
    tg_sha256_hex(data, len, got);
    if ((int64_t)len != f->size || strcmp(got, f->hash) != 0) {
        free(data);
        atomic_fetch_add(&rc->rejected, 1);
        mark_bad(rc, f->hash);
        tg_err_set(err, "the remote cache's blob %.12s... (%s) failed its SHA-256 check: "
                        "rejected, built locally", f->hash, f->path);
        return TG_REMOTE_REJECTED;
    }
    a->data[i] = data;
    return TG_REMOTE_HIT;
}

tg_remote_status tg_remote_get(tg_remote *rc, const char *key, tg_remote_action *out,
                               tg_err *err)
{
    memset(out, 0, sizeof *out);
    if (atomic_load(&rc->down))
        return TG_REMOTE_MISS;
    tg_http_response r;
    answer an = request(rc, TG_HTTP_GET, "ac", key, NULL, 0, AC_MAX_BYTES, &r, err);
    if (an == A_NOT_FOUND)
        return TG_REMOTE_MISS;
    if (an == A_FAILED)
        return went_down(rc, err);
    tg_err derr = {0};
    int drc = tg_ar_decode(r.body, r.len, &out->ar, &derr);
    tg_http_response_release(&r);
    if (drc != 0) {
        atomic_fetch_add(&rc->rejected, 1);
        tg_err_set(err, "the remote cache's action result %.12s... is not usable (%s): "
                        "rejected, built locally", key, derr.msg);
        return TG_REMOTE_REJECTED;
    }
    out->data = xcalloc(out->ar.nfiles + 1, sizeof *out->data);
    tg_remote_status st = TG_REMOTE_HIT;
    for (size_t i = 0; i < out->ar.nfiles && st == TG_REMOTE_HIT; i++)
        st = fetch_blob(rc, out, i, err);
    if (st != TG_REMOTE_HIT)
        tg_remote_action_free(out);
    return st;
}

void tg_remote_action_free(tg_remote_action *a)
{
    for (size_t i = 0; a->data && i < a->ar.nfiles; i++)
        free(a->data[i]);
    free(a->data);
    tg_ar_free(&a->ar);
    memset(a, 0, sizeof *a);
}

/* ---- put ------------------------------------------------------------------------------------ */

/* One blob, unless the server holds it already. */
static bool put_blob(tg_remote *rc, const char *hash, const tg_span *blob, tg_err *err)
{
    tg_http_response r;
    answer an = is_bad(rc, hash) ? A_NOT_FOUND
                                 : request(rc, TG_HTTP_HEAD, "cas", hash, NULL, 0, 0, &r, err);
    if (an == A_OK) {
        tg_http_response_release(&r);
        return true;
    }
    if (an == A_FAILED)
        return false;
    an = request(rc, TG_HTTP_PUT, "cas", hash, blob->data ? blob->data : "", blob->len, 0, &r,
                 err);
    if (an == A_OK)
        tg_http_response_release(&r);
    else if (an == A_NOT_FOUND)
        tg_err_set(err, "%s/cas/: PUT answered 404 (does the server accept uploads?)",
                   rc->safe);
    return an == A_OK;
}

tg_remote_status tg_remote_put(tg_remote *rc, const char *key, const tg_action_result *ar,
                               const tg_span *blobs, tg_err *err)
{
    if (!rc->upload || atomic_load(&rc->down))
        return TG_REMOTE_SKIPPED;
    for (size_t i = 0; i < ar->nfiles; i++)
        if (!put_blob(rc, ar->files[i].hash, &blobs[i], err))
            return went_down(rc, err);
    size_t len = 0;
    unsigned char *msg = tg_ar_encode(ar, &len);
    tg_http_response r;
    answer an = request(rc, TG_HTTP_PUT, "ac", key, msg, len, 0, &r, err);
    free(msg);
    if (an == A_OK) {
        tg_http_response_release(&r);
        atomic_fetch_add(&rc->uploads, 1);
        return TG_REMOTE_STORED;
    }
    if (an == A_NOT_FOUND)
        tg_err_set(err, "%s/ac/: PUT answered 404 (does the server accept uploads?)", rc->safe);
    return went_down(rc, err);
}
