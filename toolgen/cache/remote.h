/*
 * remote.h — a client of a Bazel HTTP remote cache (docs/cache.md): GET, PUT and HEAD on
 * URL/ac/<sha256> for action results (REAPI ActionResult, cache/actionres.h) and URL/cas/<sha256>
 * for the blobs they name, through net/ (timeouts, retries, secrets kept out of messages).
 *
 * What it promises its callers:
 *   - every blob is checked against its SHA-256 (and size) on the way in; one that does not
 *     match is never handed out: the lookup is TG_REMOTE_REJECTED (a miss), counted;
 *   - an action result whose blob is gone (404) is a miss;
 *   - blobs are uploaded before the action result that names them (a blob the server already
 *     holds, as HEAD says, is not sent again), so no reader sees a result without its blobs;
 *   - a server that is down, slow or refusing (a connection that fails, a timeout, 401, 403,
 *     5xx after the retries) makes the first call that meets it TG_REMOTE_DOWN with the reason,
 *     and every later call a quiet miss without a request: one warning, then local work;
 *   - a read-only client (upload false) never sends a PUT;
 *   - the bearer token is read from the environment variable the config names when the client
 *     opens, goes into one header, and never into a message.
 *
 * Thread-safe: any number of threads may call a client at once.
 */
#ifndef TG_REMOTE_H
#define TG_REMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hash.h"
#include "base/util.h"
#include "cache/actionres.h"

typedef struct tg_remote_config {
    const char *url;       /* http://HOST:PORT[/PREFIX] (https too); a trailing '/' is dropped */
    const char *token_env; /* the NAME of the variable holding a bearer token; NULL: none */
    bool upload;           /* false: read-only (pull-request CI) */
    long timeout_ms;       /* one request; 0: 10 s */
} tg_remote_config;

typedef struct tg_remote tg_remote;

/* -1 with err on a URL that is not http(s), or a token variable that is named but unset. */
int tg_remote_open(const tg_remote_config *cfg, tg_remote **out, tg_err *err);
void tg_remote_close(tg_remote *rc);

typedef enum tg_remote_status {
    TG_REMOTE_HIT = 0,
    TG_REMOTE_MISS,     /* not there (or a blob it names is gone), or the client is down */
    TG_REMOTE_REJECTED, /* a blob failed its SHA-256 check, or the result is not an
                           ActionResult: a miss; err says which */
    TG_REMOTE_DOWN,     /* the first failure to reach the server: err says why; a miss */
    TG_REMOTE_STORED,   /* put: uploaded */
    TG_REMOTE_SKIPPED,  /* put: a read-only client or a client that is down sent nothing */
} tg_remote_status;

/* A fetched action result: its files' bytes, each checked, in the order of ar.files. */
typedef struct tg_remote_action {
    tg_action_result ar;
    char **data; /* data[i]: ar.files[i]'s bytes (NUL-terminated), ar.files[i].size of them */
} tg_remote_action;

/* The action result at URL/ac/<key> and every blob it names. HIT fills out (release it with
 * tg_remote_action_free). key: 64 lower-case hex digits. */
tg_remote_status tg_remote_get(tg_remote *rc, const char *key, tg_remote_action *out,
                               tg_err *err);
void tg_remote_action_free(tg_remote_action *a);

/* Uploads the blobs of ar (blobs[i]: the bytes of ar->files[i]), then ar at URL/ac/<key>. */
tg_remote_status tg_remote_put(tg_remote *rc, const char *key, const tg_action_result *ar,
                               const tg_span *blobs, tg_err *err);

/* Blobs rejected and action results uploaded so far. */
int tg_remote_rejected(const tg_remote *rc);
int tg_remote_uploads(const tg_remote *rc);
/* The server's URL made safe for a message (net/redact.h). */
const char *tg_remote_url(const tg_remote *rc);

/* The wire key of a local key: lower-case hex SHA-256 of "<kind>\0<the key in hex>". */
void tg_remote_key(const char *kind, const char *local_hex, char out[TG_SHA256_HEX]);

#endif
