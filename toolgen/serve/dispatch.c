/* dispatch.c — the core lock, the workers, the calls in flight (dispatch.h). */
#include "serve/dispatch.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/pool.h"
#include "serve/servelog.h"

#define TICK_MS 50 /* how often the ticker looks at the calls in flight */

/* A request a call sent its client (tg_serve_call_ask) and the response, once it came. */
typedef struct ask_slot {
    char id[TG_SERVE_ASK_ID_MAX];
    cJSON *response;
} ask_slot;

/* A call in flight: queued for a worker or running. */
struct tg_serve_call_slot {
    tg_serve_dispatch *d;
    cJSON *msg;                   /* the request (owned) */
    const cJSON *id;              /* in msg */
    cJSON *token;                 /* its progressToken (owned); NULL: no progress */
    tg_serve_session *session;
    const void *owner;
    tg_serve_pinned pin;          /* the tool set current when it was submitted */
    tg_serve_sink sink;
    volatile sig_atomic_t cancel; /* the sandbox watches it */
    bool by_client;               /* a notifications/cancelled named it */
    bool tool_reports;            /* its tool reports its own progress: no periodic reports */
    double start, next_tick;
    double sent;                  /* the last progress value sent; -1: none yet */
    ask_slot *asks;               /* requests sent to the client, waiting for responses */
    size_t n_asks;
    tg_serve_call_slot *next;
};

struct tg_serve_dispatch {
    pthread_mutex_t core;       /* the core lock */
    double last_check;          /* when the change check last ran (under the core lock) */
    const tg_serve_config *c;
    tg_serve_dispatch_opts o;
    tg_serve_pool *pool;
    pthread_mutex_t mu;         /* guards everything below */
    pthread_cond_t ended;       /* a call ended */
    pthread_cond_t wake;        /* the ticker should look again (quit) */
    pthread_cond_t answered;    /* a response to a call's request came */
    tg_serve_call_slot *calls;  /* in flight, ticking */
    atomic_size_t n_calls;      /* in flight, including those ending; changed under mu, read
                                 * without it (a transport asks under its own lock) */
    bool closing;               /* cancel_all was called: new calls start stopped */
    bool quit;                  /* the ticker ends */
    pthread_t ticker;
    bool ticker_started;
    char *ask_tag;              /* after the ids of requests to clients; NULL: none */
};

static bool stopping(const tg_serve_dispatch *d)
{
    return d->o.stop && *d->o.stop;
}

/* ---- the core lock -------------------------------------------------------------------------- */

void tg_serve_lock(tg_serve_dispatch *d)
{
    pthread_mutex_lock(&d->core);
}

void tg_serve_unlock(tg_serve_dispatch *d)
{
    pthread_mutex_unlock(&d->core);
}

void tg_serve_unlocked(tg_serve_dispatch *d, void (*fn)(void *ctx), void *ctx)
{
    if (!d) {
        fn(ctx);
        return;
    }
    pthread_mutex_unlock(&d->core);
    fn(ctx);
    pthread_mutex_lock(&d->core);
}

cJSON *tg_serve_dispatch_handle(tg_serve_dispatch *d, tg_serve_session *s, const cJSON *msg,
                                tg_serve_log *log)
{
    tg_serve_reqctx rq = {.dispatch = d, .client = s ? s->client : 0};
    pthread_mutex_lock(&d->core);
    cJSON *reply = tg_serve_handle_in(d->c, s, msg, log, &rq);
    pthread_mutex_unlock(&d->core);
    return reply;
}

/* With the core lock held. */
static void check_locked(tg_serve_dispatch *d)
{
    if (!d->o.check)
        return;
    d->last_check = tg_now_ms();
    unsigned what = d->o.check(d->o.check_ctx);
    if (what && d->o.announce)
        d->o.announce(d->o.announce_ctx, what);
}

void tg_serve_dispatch_check(tg_serve_dispatch *d)
{
    if (!d->o.check)
        return;
    pthread_mutex_lock(&d->core);
    check_locked(d);
    pthread_mutex_unlock(&d->core);
}

/* ---- progress ------------------------------------------------------------------------------- */

/* The progress notification due to k (at once, then every progress_ms), so a client that
 * resets its timeout on progress keeps waiting for a long call. With d->mu held. */
static void tick(tg_serve_dispatch *d, tg_serve_call_slot *k, double now)
{
    if (!k->token || k->cancel || k->tool_reports || now < k->next_tick)
        return;
    long period = d->o.progress_ms > 0 ? d->o.progress_ms : TG_SERVE_PROGRESS_MS;
    k->next_tick = now + (double)period;
    char text[64];
    snprintf(text, sizeof text, k->sent >= 0 ? "running for %.0f s" : "started",
             (now - k->start) / 1e3);
    k->sent = k->sent >= 0 ? floor(k->sent) + 1 : 0;
    cJSON *n = tg_serve_progress_notification(k->token, k->sent, text);
    k->sink.notify(k->sink.ctx, n);
    cJSON_Delete(n);
}

void tg_serve_call_notify(tg_serve_call_slot *k, const cJSON *msg)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->d->mu);
    if (!k->cancel)
        k->sink.notify(k->sink.ctx, msg);
    pthread_mutex_unlock(&k->d->mu);
}

void tg_serve_call_progress(tg_serve_call_slot *k, double progress, double total,
                            const char *message)
{
    if (!k || !k->token || !isfinite(progress))
        return;
    pthread_mutex_lock(&k->d->mu);
    k->tool_reports = true;
    if (!k->cancel && progress > k->sent) {
        k->sent = progress;
        cJSON *n = tg_serve_progress_notification(k->token, progress, message);
        if (total > 0 && isfinite(total))
            cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(n, "params"), "total", total);
        k->sink.notify(k->sink.ctx, n);
        cJSON_Delete(n);
    }
    pthread_mutex_unlock(&k->d->mu);
}

/* The change check when none ran for check_ms (a transport runs it before each message, or
 * after each call): so it runs about once per check_ms while the server is idle, and costs
 * nothing extra while it is busy. Returns when the next one is due. */
static double check_if_due(tg_serve_dispatch *d, double check_ms)
{
    pthread_mutex_lock(&d->core);
    if (tg_now_ms() - d->last_check >= check_ms)
        check_locked(d);
    double next = d->last_check + check_ms;
    pthread_mutex_unlock(&d->core);
    return next;
}

static void *ticker_main(void *arg)
{
    tg_serve_dispatch *d = arg;
    double check_ms = d->o.check_ms > 0 ? (double)d->o.check_ms : TG_SERVE_IDLE_MS;
    double next_check = tg_now_ms() + check_ms;
    pthread_mutex_lock(&d->mu);
    while (!d->quit) {
        struct timespec until = tg_deadline_ms(TICK_MS);
        pthread_cond_timedwait(&d->wake, &d->mu, &until);
        double now = tg_now_ms();
        for (tg_serve_call_slot *k = d->calls; k; k = k->next)
            tick(d, k, now);
        if (d->o.check && now >= next_check && !d->quit) {
            pthread_mutex_unlock(&d->mu); /* the core lock comes first */
            next_check = check_if_due(d, check_ms);
            pthread_mutex_lock(&d->mu);
        }
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* ---- calls ---------------------------------------------------------------------------------- */

static void slot_free(tg_serve_call_slot *k)
{
    cJSON_Delete(k->msg);
    cJSON_Delete(k->token);
    free(k);
}

/* Takes k off the ticking list and says how it ended; the last progress goes out before a
 * reply. With d->mu held. */
static tg_serve_end leave(tg_serve_dispatch *d, tg_serve_call_slot *k, const cJSON *reply)
{
    for (tg_serve_call_slot **p = &d->calls; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    tg_serve_end how = k->by_client                    ? TG_SERVE_CANCELLED
                       : k->cancel || stopping(d)      ? TG_SERVE_STOPPED
                                                       : TG_SERVE_REPLIED;
    if (how == TG_SERVE_REPLIED && reply && k->token && !k->tool_reports) {
        k->sent = floor(k->sent) + 1;
        cJSON *n = tg_serve_progress_notification(k->token, k->sent, "finished");
        k->sink.notify(k->sink.ctx, n);
        cJSON_Delete(n);
    }
    return how;
}

/* One call on a worker. */
static void call_job(void *arg)
{
    tg_serve_call_slot *k = arg;
    tg_serve_dispatch *d = k->d;
    tg_serve_log lg = {0};
    cJSON *reply = NULL;
    if (!k->cancel) {
        tg_serve_reqctx rq = {.dispatch = d, .cancel = &k->cancel,
                              .client = k->session ? k->session->client : 0, .slot = k};
        pthread_mutex_lock(&d->core);
        reply = tg_serve_handle_in(&k->pin.c, k->session, k->msg, &lg, &rq);
        if (d->o.check_after_call)
            check_locked(d);
        pthread_mutex_unlock(&d->core);
    } else { /* cancelled while it waited for a worker: never started */
        tg_serve_log_unstarted(&lg, k->msg);
    }
    tg_serve_unpin(&k->pin);
    pthread_mutex_lock(&d->mu);
    tg_serve_end how = leave(d, k, reply);
    pthread_mutex_unlock(&d->mu);
    tg_serve_log_line(d->o.log_fd, &lg, how == TG_SERVE_REPLIED ? NULL : "cancelled",
                      tg_now_ms() - k->start);
    if (how != TG_SERVE_REPLIED) {
        cJSON_Delete(reply);
        reply = NULL;
    }
    k->sink.end(k->sink.ctx, reply, how, &lg);
    pthread_mutex_lock(&d->mu);
    d->n_calls--;
    pthread_cond_broadcast(&d->ended);
    pthread_mutex_unlock(&d->mu);
    slot_free(k);
}

/* ---- requests to the client --------------------------------------------------------------- */

typedef struct ask_wait {
    tg_serve_call_slot *k;
    double deadline;
    bool all;
} ask_wait;

/* Waits, without the core lock, for every response of w->k's requests (or its stop). */
static void wait_answers(void *arg)
{
    ask_wait *w = arg;
    tg_serve_dispatch *d = w->k->d;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        w->all = true;
        for (size_t i = 0; i < w->k->n_asks; i++)
            w->all = w->all && w->k->asks[i].response;
        if (w->all || w->k->cancel || stopping(d) || tg_now_ms() >= w->deadline)
            break;
        struct timespec until = tg_deadline_ms(200); /* a cancel flag is set without a signal */
        pthread_cond_timedwait(&d->answered, &d->mu, &until);
    }
    pthread_mutex_unlock(&d->mu);
}

int tg_serve_call_ask(tg_serve_call_slot *k, const char *const *methods, const cJSON *const *params,
                      cJSON **responses, size_t n, long timeout_ms, char *why, size_t why_size)
{
    static atomic_ulong counter;
    if (!k || !k->sink.requests) {
        snprintf(why, why_size, "this connection cannot carry a request to the client (over "
                                "HTTP its Accept must take text/event-stream)");
        return -1;
    }
    tg_serve_dispatch *d = k->d;
    pthread_mutex_lock(&d->mu);
    k->asks = xcalloc(n + 1, sizeof *k->asks);
    k->n_asks = n;
    for (size_t i = 0; i < n && !k->cancel; i++) {
        snprintf(k->asks[i].id, sizeof k->asks[i].id, "toolgen-ask-%lu%s%s",
                 atomic_fetch_add(&counter, 1) + 1, d->ask_tag ? "." : "",
                 d->ask_tag ? d->ask_tag : "");
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "jsonrpc", "2.0");
        cJSON_AddStringToObject(r, "id", k->asks[i].id);
        cJSON_AddStringToObject(r, "method", methods[i]);
        cJSON_AddItemToObject(r, "params", cJSON_Duplicate(params[i], true));
        k->sink.notify(k->sink.ctx, r);
        cJSON_Delete(r);
    }
    pthread_mutex_unlock(&d->mu);
    ask_wait w = {.k = k, .deadline = tg_now_ms() + (double)timeout_ms};
    tg_serve_unlocked(d, wait_answers, &w);
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < n; i++)
        responses[i] = w.all ? k->asks[i].response : (cJSON_Delete(k->asks[i].response), NULL);
    free(k->asks);
    k->asks = NULL;
    k->n_asks = 0;
    pthread_mutex_unlock(&d->mu);
    if (!w.all)
        snprintf(why, why_size, k->cancel ? "the call was cancelled while the client was asked"
                                          : "the client did not answer within %ld s",
                 timeout_ms / 1000);
    return w.all ? 0 : -1;
}

void tg_serve_dispatch_set_ask_tag(tg_serve_dispatch *d, const char *tag)
{
    pthread_mutex_lock(&d->mu);
    free(d->ask_tag);
    d->ask_tag = tag && strlen(tag) < TG_SERVE_ASK_ID_MAX - 40 ? xstrdup(tag) : NULL;
    pthread_mutex_unlock(&d->mu);
}

bool tg_serve_dispatch_answer(tg_serve_dispatch *d, const tg_serve_session *s, const cJSON *msg)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "id"));
    if (!id || cJSON_GetObjectItemCaseSensitive(msg, "method"))
        return false;
    bool found = false;
    pthread_mutex_lock(&d->mu);
    for (tg_serve_call_slot *k = d->calls; k && !found; k = k->next)
        for (size_t i = 0; k->session == s && i < k->n_asks && !found; i++)
            if (!k->asks[i].response && strcmp(k->asks[i].id, id) == 0) {
                k->asks[i].response = cJSON_Duplicate(msg, true);
                found = true;
            }
    if (found)
        pthread_cond_broadcast(&d->answered);
    pthread_mutex_unlock(&d->mu);
    return found;
}

/* With d->mu held. */
static bool busy_id(const tg_serve_dispatch *d, const tg_serve_session *s, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (!id || !cJSON_GetObjectItemCaseSensitive(msg, "method")) /* a response: no request id */
        return false;
    for (const tg_serve_call_slot *k = d->calls; k; k = k->next)
        if (k->session == s && cJSON_GetObjectItemCaseSensitive(k->msg, "method") &&
            cJSON_Compare(k->id, id, true))
            return true;
    return false;
}

bool tg_serve_dispatch_busy_id(tg_serve_dispatch *d, const tg_serve_session *s, const cJSON *msg)
{
    pthread_mutex_lock(&d->mu);
    bool busy = busy_id(d, s, msg);
    pthread_mutex_unlock(&d->mu);
    return busy;
}

static tg_serve_call_slot *enqueue(tg_serve_dispatch *d, cJSON *msg, const cJSON *token,
                                   tg_serve_session *s, const void *owner,
                                   const tg_serve_sink *sink, bool wait);

tg_serve_call_slot *tg_serve_dispatch_submit(tg_serve_dispatch *d, cJSON *msg,
                                             const cJSON *token, tg_serve_session *s,
                                             const void *owner, const tg_serve_sink *sink)
{
    return enqueue(d, msg, token, s, owner, sink, true);
}

tg_serve_call_slot *tg_serve_dispatch_spawn(tg_serve_dispatch *d, cJSON *msg,
                                            const tg_serve_sink *sink)
{
    return enqueue(d, msg, NULL, NULL, NULL, sink, false);
}

static tg_serve_call_slot *enqueue(tg_serve_dispatch *d, cJSON *msg, const cJSON *token,
                                   tg_serve_session *s, const void *owner,
                                   const tg_serve_sink *sink, bool wait)
{
    pthread_mutex_lock(&d->mu);
    bool busy = busy_id(d, s, msg);
    pthread_mutex_unlock(&d->mu);
    if (busy)
        return NULL;
    tg_serve_call_slot *k = xcalloc(1, sizeof *k);
    k->d = d;
    k->msg = msg;
    k->id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    k->token = token ? cJSON_Duplicate(token, true) : NULL;
    k->session = s;
    k->owner = owner;
    k->sink = *sink;
    tg_serve_pin(d->c, &k->pin); /* the call keeps the tool set it arrived with */
    pthread_mutex_lock(&d->mu);
    while (wait && d->o.queue_max && d->n_calls >= d->o.queue_max && !stopping(d)) {
        struct timespec until = tg_deadline_ms(200);
        pthread_cond_timedwait(&d->ended, &d->mu, &until);
    }
    k->start = k->next_tick = tg_now_ms();
    k->sent = -1;
    if (d->closing)
        k->cancel = 1;
    k->next = d->calls;
    d->calls = k;
    d->n_calls++;
    tick(d, k, k->start);
    pthread_mutex_unlock(&d->mu);
    tg_serve_pool_submit(d->pool, call_job, k);
    return k;
}

void tg_serve_dispatch_cancel(tg_serve_call_slot *k)
{
    k->cancel = 1;
}

bool tg_serve_dispatch_cancel_named(tg_serve_dispatch *d, const void *owner, const cJSON *msg)
{
    bool found = false;
    pthread_mutex_lock(&d->mu);
    for (tg_serve_call_slot *k = d->calls; k; k = k->next)
        if (k->owner == owner && tg_serve_cancels(msg, k->id)) {
            found = true;
            if (!k->by_client) {
                k->by_client = true;
                k->cancel = 1;
            }
        }
    pthread_mutex_unlock(&d->mu);
    return found;
}

void tg_serve_dispatch_cancel_all(tg_serve_dispatch *d)
{
    pthread_mutex_lock(&d->mu);
    d->closing = true;
    for (tg_serve_call_slot *k = d->calls; k; k = k->next)
        k->cancel = 1;
    pthread_mutex_unlock(&d->mu);
}

size_t tg_serve_dispatch_in_flight(tg_serve_dispatch *d)
{
    return atomic_load(&d->n_calls);
}

void tg_serve_dispatch_drain(tg_serve_dispatch *d)
{
    pthread_mutex_lock(&d->mu);
    while (d->n_calls) {
        if (stopping(d))
            for (tg_serve_call_slot *k = d->calls; k; k = k->next)
                k->cancel = 1;
        struct timespec until = tg_deadline_ms(100);
        pthread_cond_timedwait(&d->ended, &d->mu, &until);
    }
    pthread_mutex_unlock(&d->mu);
}

/* ---- start and stop ------------------------------------------------------------------------- */

static void destroy(tg_serve_dispatch *d)
{
    pthread_cond_destroy(&d->wake);
    pthread_cond_destroy(&d->answered);
    pthread_cond_destroy(&d->ended);
    pthread_mutex_destroy(&d->mu);
    pthread_mutex_destroy(&d->core);
    free(d->ask_tag);
    free(d);
}

tg_serve_dispatch *tg_serve_dispatch_start(const tg_serve_config *c,
                                           const tg_serve_dispatch_opts *o, tg_err *err)
{
    tg_serve_dispatch *d = xcalloc(1, sizeof *d);
    d->c = c;
    d->o = *o;
    d->last_check = tg_now_ms();
    pthread_mutex_init(&d->core, NULL);
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->ended, NULL);
    pthread_cond_init(&d->wake, NULL);
    pthread_cond_init(&d->answered, NULL);
    d->pool = tg_serve_pool_start(o->workers ? o->workers : TG_SERVE_CONCURRENCY, err);
    if (!d->pool) {
        destroy(d);
        return NULL;
    }
    if (pthread_create(&d->ticker, NULL, ticker_main, d) != 0) {
        tg_serve_pool_stop(d->pool);
        destroy(d);
        tg_err_set(err, "cannot start the server's ticker thread");
        return NULL;
    }
    d->ticker_started = true;
    return d;
}

void tg_serve_dispatch_stop(tg_serve_dispatch *d)
{
    if (!d)
        return;
    tg_serve_dispatch_cancel_all(d);
    tg_serve_pool_stop(d->pool); /* runs what is queued (stopped at once) and joins */
    tg_serve_dispatch_drain(d);
    pthread_mutex_lock(&d->mu);
    d->quit = true;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->mu);
    if (d->ticker_started)
        pthread_join(d->ticker, NULL);
    destroy(d);
}
