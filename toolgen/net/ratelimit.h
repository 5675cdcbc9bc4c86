/*
 * ratelimit.h — a sliding-window request limit: at most `max` requests in any `window_ms`
 * (web_fetch's web.requests_per_minute, docs/web.md#limits). A request is admitted when fewer
 * than max were admitted in the window before it, and is then counted; a refused one is not.
 * The clock is the caller's (now_ms, e.g. tg_now_ms()), so tests step it rather than sleep.
 *
 * Thread-safe: one mutex per limiter; any number of threads may take from it.
 */
#ifndef TG_RATELIMIT_H
#define TG_RATELIMIT_H

#include <stdbool.h>

typedef struct tg_ratelimit tg_ratelimit;

/* A limiter of max requests per window_ms (max >= 1, window_ms > 0; otherwise NULL). */
tg_ratelimit *tg_ratelimit_new(int max, double window_ms);
void tg_ratelimit_free(tg_ratelimit *r); /* NULL is fine */

/* Admits and counts one request at now_ms (true), or refuses it (false) with *retry_ms, how
 * long until the oldest counted request leaves the window. */
bool tg_ratelimit_take(tg_ratelimit *r, double now_ms, double *retry_ms);

int tg_ratelimit_max(const tg_ratelimit *r);

#endif
