/*
 * retry.h — a request sent again when sending it again can help (docs/architecture.md).
 *
 * What is retried: a connection that could not be made (nothing was sent); and, for a request
 * that may be sent twice (an idempotent method, or a POST/PATCH marked repeatable), a timeout,
 * a broken connection, and the statuses 408, 429 and 5xx. Nothing else: a 4xx does not get
 * better, and a POST that a server may have acted on is not sent again unless its caller says
 * that is harmless.
 *
 * The wait before retry i (0-based) is base_ms * 2^i capped at max_ms, with "equal jitter"
 * (half of it fixed, half random, so clients that failed together do not retry together); a
 * server's Retry-After that asks for longer wins, up to retry_after_cap_ms.
 *
 * Thread-safe as net/httpreq.h is; the jitter's state is the caller's.
 */
#ifndef TG_RETRY_H
#define TG_RETRY_H

#include <stdbool.h>

#include "net/httpreq.h"

#define TG_RETRY_AFTER_CAP_MS 300000 /* 5 minutes */

typedef struct tg_retry_policy {
    int max_retries;        /* attempts after the first; 0: one attempt */
    int base_ms, max_ms;    /* the backoff (above) */
    int retry_after_cap_ms; /* the longest wait a Retry-After gets; 0: TG_RETRY_AFTER_CAP_MS */
    /* The wait between attempts. NULL sleeps; a caller with its own clock or a way to be
     * cancelled passes its own, which returns nonzero to stop retrying. */
    int (*wait)(double ms, void *ud);
    void *wait_ud;
} tg_retry_policy;

typedef struct tg_retry_report {
    int attempts;   /* requests sent */
    bool gave_up;   /* the last answer called for a retry, and no retry was left */
    bool cancelled; /* the policy's wait said stop */
} tg_retry_report;

/* Whether the outcome of one attempt of rq (a status only with TG_HTTP_OK) calls for a retry. */
bool tg_retry_wanted(const tg_http_request *rq, tg_http_result r, long status);

/* The wait before retry attempt (0-based), given the server's Retry-After in seconds (-1:
 * none); advances *rng, the jitter's state. */
double tg_retry_delay_ms(const tg_retry_policy *p, int attempt, double retry_after_s,
                         unsigned *rng);

/*
 * Sends rq (tg_http_request_send) until an attempt's outcome calls for no retry, the retries
 * are used up, or the wait is cancelled, and returns the last attempt's outcome exactly as
 * tg_http_request_send does: on TG_HTTP_OK out holds the last answer (whatever its status; the
 * caller releases it), otherwise err holds the last attempt's message. rep (NULL: not wanted)
 * says how it went, so the caller can word it ("gave up after N attempts"). rng is the
 * jitter's state (NULL: seeded from the clock for this call).
 */
tg_http_result tg_http_send(const tg_http_request *rq, const tg_retry_policy *p, unsigned *rng,
                            tg_http_response *out, tg_retry_report *rep, tg_err *err);

#endif
