/*
 * llm_http.h — one HTTP POST of a JSON body, the only door to libcurl (docs/generate.md#providers).
 *
 * The providers (llm/provider.c) build the request and decide about retries; this module only
 * moves bytes, under a timeout and a size cap, and reports what came back: the status, the body
 * and the Retry-After header. Header values (an API key among them) never appear in err.
 *
 * Thread-safe: curl's global state is set up once (pthread_once); each call has its own handle.
 */
#ifndef TG_LLM_HTTP_H
#define TG_LLM_HTTP_H

#include <stddef.h>

#include "base/util.h"

typedef enum tg_http_result {
    TG_HTTP_OK = 0,      /* an answer arrived (any status); see reply.status */
    TG_HTTP_TIMEOUT,     /* no complete answer within the timeout */
    TG_HTTP_CONNECT,     /* could not connect, or the connection broke (retryable) */
    TG_HTTP_TOO_BIG,     /* the body exceeded max_bytes */
    TG_HTTP_ERROR,       /* anything else (bad URL, TLS, ...): err says */
} tg_http_result;

typedef struct tg_http_reply {
    long status;           /* HTTP status code */
    char *body;            /* NUL-terminated, heap; owned by the reply */
    size_t len;
    double retry_after_s;  /* the Retry-After header in seconds (delta form); -1 when absent */
} tg_http_reply;

/*
 * POSTs body (JSON) to url with the extra headers ("Name: value", nheaders of them). Fills out
 * (release with tg_http_reply_release) on TG_HTTP_OK; otherwise out is all zero and err names
 * the URL and the transport problem.
 */
tg_http_result tg_http_post_json(const char *url, const char *const *headers, size_t nheaders,
                                 const char *body, long timeout_ms, size_t max_bytes,
                                 tg_http_reply *out, tg_err *err);

void tg_http_reply_release(tg_http_reply *r);

#endif
