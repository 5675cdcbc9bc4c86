/* retry.c — the retry policy: which outcomes, how long to wait, the loop (retry.h). */
#include "net/retry.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

bool tg_retry_wanted(const tg_http_request *rq, tg_http_result r, long status)
{
    if (r == TG_HTTP_CONNECT)
        return true; /* nothing reached the server */
    if (!tg_http_method_idempotent(rq->method) && !rq->repeatable)
        return false;
    if (r == TG_HTTP_TIMEOUT || r == TG_HTTP_DROPPED)
        return true;
    return r == TG_HTTP_OK && (status == 429 || status == 408 || status >= 500);
}

double tg_retry_delay_ms(const tg_retry_policy *p, int attempt, double retry_after_s,
                         unsigned *rng)
{
    double d = (double)p->base_ms;
    for (int i = 0; i < attempt && d < p->max_ms; i++)
        d *= 2;
    if (d > p->max_ms)
        d = p->max_ms;
    *rng = *rng * 1103515245u + 12345u;
    d = d / 2 + (d / 2) * (double)((*rng >> 8) & 0xffff) / 65535.0;
    double cap = p->retry_after_cap_ms > 0 ? p->retry_after_cap_ms : TG_RETRY_AFTER_CAP_MS;
    if (retry_after_s >= 0 && retry_after_s * 1000 > d)
        d = retry_after_s * 1000 > cap ? cap : retry_after_s * 1000;
    return d;
}

static int sleep_ms(double ms, void *ud)
{
    (void)ud;
    struct timespec ts = {(time_t)(ms / 1000),
                          (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
    return 0;
}

tg_http_result tg_http_send(const tg_http_request *rq, const tg_retry_policy *p, unsigned *rng,
                            tg_http_response *out, tg_retry_report *rep, tg_err *err)
{
    tg_retry_report dummy;
    if (!rep)
        rep = &dummy;
    memset(rep, 0, sizeof *rep);
    unsigned seed = (unsigned)(unsigned long long)tg_now_ms() ^ (unsigned)(uintptr_t)&seed;
    if (!rng)
        rng = &seed;
    int (*wait)(double, void *) = p->wait ? p->wait : sleep_ms;
    for (int attempt = 0;; attempt++) {
        tg_err aerr = {0};
        rep->attempts++;
        tg_http_result r = tg_http_request_send(rq, out, &aerr);
        bool ok = r == TG_HTTP_OK;
        if (tg_retry_wanted(rq, r, ok ? out->status : 0)) {
            double ra = ok ? out->retry_after_s : -1;
            if (attempt >= p->max_retries) {
                rep->gave_up = true;
            } else if (wait(tg_retry_delay_ms(p, attempt, ra, rng), p->wait_ud) != 0) {
                rep->cancelled = true;
            } else {
                if (ok)
                    tg_http_response_release(out);
                continue;
            }
        }
        if (!ok && err)
            *err = aerr;
        return r;
    }
}
