/* ratelimit.c — a sliding window of the admitted requests' times (ratelimit.h). */
#include "net/ratelimit.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/util.h"

struct tg_ratelimit {
    pthread_mutex_t mu;
    int max;
    double window_ms;
    double *t;   /* a ring of the last max admissions' times */
    int n, head; /* how many are in it; where the oldest is */
};

tg_ratelimit *tg_ratelimit_new(int max, double window_ms)
{
    if (max < 1 || !(window_ms > 0))
        return NULL;
    tg_ratelimit *r = xcalloc(1, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    r->max = max;
    r->window_ms = window_ms;
    r->t = xcalloc((size_t)max, sizeof *r->t);
    return r;
}

void tg_ratelimit_free(tg_ratelimit *r)
{
    if (!r)
        return;
    pthread_mutex_destroy(&r->mu);
    free(r->t);
    free(r);
}

bool tg_ratelimit_take(tg_ratelimit *r, double now_ms, double *retry_ms)
{
    pthread_mutex_lock(&r->mu);
    while (r->n && now_ms - r->t[r->head] >= r->window_ms) { /* left the window */
        r->head = (r->head + 1) % r->max;
        r->n--;
    }
    bool ok = r->n < r->max;
    if (ok) {
        r->t[(r->head + r->n) % r->max] = now_ms;
        r->n++;
        *retry_ms = 0;
    } else {
        *retry_ms = r->t[r->head] + r->window_ms - now_ms;
    }
    pthread_mutex_unlock(&r->mu);
    return ok;
}

int tg_ratelimit_max(const tg_ratelimit *r)
{
    return r->max;
}
