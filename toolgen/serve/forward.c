/* forward.c — messages handed on to another instance (forward.h, docs/scale.md). */
#include "serve/forward.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strvec.h"
#include "serve/servelog.h"

#define ROUTE_DOMAIN "route" /* what the signature of a code session handle's route is for */
/* POSTs under way at once (relayed calls and hand-overs); one beyond is refused: a relayed
 * call gets a tool error, a hand-over is lost as if the client never sent it (logged) */
#define MAX_THREADS 256

/* A call being relayed: where a cancel of it goes. */
typedef struct relay {
    char *nonce;                   /* its legacy session's; NULL: a 2026-07-28 call */
    cJSON *id;                     /* its request id */
    char *url;
    volatile sig_atomic_t *cancel; /* the caller's; set when the server stops */
    struct relay *next;
} relay;

struct tg_serve_fwd {
    tg_serve_fwd_fn fn;
    void *ctx;
    int log_fd;
    char *self;
    tg_strv peers;
    pthread_mutex_t mu; /* guards what follows */
    pthread_cond_t idle;
    size_t threads;     /* POSTs under way */
    relay *relays;
    bool stopping;
};

/* One POST on its thread. */
typedef struct job {
    tg_serve_fwd *f;
    char *url, *body, *label;
    tg_strv headers;
    relay *r; /* a relayed call's; NULL: a hand-over */
    tg_serve_relay_sink sink;
    tg_serve_log lg;
} job;

tg_serve_fwd *tg_serve_fwd_new(tg_serve_fwd_fn fn, void *ctx, int log_fd,
                               const char *const *peers)
{
    tg_serve_fwd *f = xcalloc(1, sizeof *f);
    f->fn = fn;
    f->ctx = ctx;
    f->log_fd = log_fd;
    for (size_t i = 0; peers && peers[i]; i++)
        tg_strv_push(&f->peers, peers[i]);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->idle, NULL);
    return f;
}

void tg_serve_fwd_set_self(tg_serve_fwd *f, const char *self_url)
{
    pthread_mutex_lock(&f->mu);
    free(f->self);
    f->self = self_url ? xstrdup(self_url) : NULL;
    pthread_mutex_unlock(&f->mu);
}

void tg_serve_fwd_stop(tg_serve_fwd *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->stopping = true;
    for (relay *r = f->relays; r; r = r->next)
        *r->cancel = 1; /* net/ stops within about a second */
    while (f->threads)
        pthread_cond_wait(&f->idle, &f->mu);
    pthread_mutex_unlock(&f->mu);
}

void tg_serve_fwd_free(tg_serve_fwd *f)
{
    if (!f)
        return;
    tg_serve_fwd_stop(f);
    free(f->self);
    tg_strv_free(&f->peers);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->idle);
    free(f);
}

/* ---- routes --------------------------------------------------------------------------------- */

char *tg_serve_route_make(const tg_serve_mrtr *m, const char *url)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "u", url);
    char *route = tg_serve_mrtr_sign_hex(m, ROUTE_DOMAIN, p);
    cJSON_Delete(p);
    return route;
}

char *tg_serve_route_of(const tg_serve_mrtr *m, const cJSON *msg, const char *self_url)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const char *id = tg_json_get_string(cJSON_GetObjectItemCaseSensitive(params, "arguments"),
                                        "session_id");
    const char *dot = id && tg_str_startswith(id, "sess_") ? strchr(id, '.') : NULL;
    return dot ? tg_serve_route_url(m, dot + 1, self_url) : NULL;
}

char *tg_serve_route_url(const tg_serve_mrtr *m, const char *route, const char *self_url)
{
    if (!m || !m->shared) /* a key of this process alone: no other instance signed anything */
        return NULL;
    /* only a URL an instance of the pool signed: a client cannot make this one send anywhere */
    cJSON *p = tg_serve_mrtr_open_hex(m, ROUTE_DOMAIN, route);
    const char *url = tg_json_get_string(p, "u");
    bool other = url && (!self_url || strcmp(url, self_url) != 0) &&
                 (tg_str_startswith(url, "http://") || tg_str_startswith(url, "https://"));
    char *owner = other ? xstrdup(url) : NULL;
    cJSON_Delete(p);
    return owner;
}

/* ---- threads -------------------------------------------------------------------------------- */

static void job_free(job *j)
{
    free(j->url);
    free(j->body);
    free(j->label);
    tg_strv_free(&j->headers);
    free(j);
}

static job *job_new(tg_serve_fwd *f, const char *url, const cJSON *msg, const char *const *headers)
{
    job *j = xcalloc(1, sizeof *j);
    j->f = f;
    j->url = xstrdup(url);
    j->body = msg ? tg_json_print_compact(msg) : NULL;
    for (size_t i = 0; headers && headers[i] && headers[i + 1]; i += 2) {
        tg_strv_push(&j->headers, headers[i]);
        tg_strv_push(&j->headers, headers[i + 1]);
    }
    return j;
}

/* The thread's last act: f may be freed once the count is 0. */
static void thread_done(tg_serve_fwd *f)
{
    pthread_mutex_lock(&f->mu);
    if (--f->threads == 0)
        pthread_cond_broadcast(&f->idle);
    pthread_mutex_unlock(&f->mu);
}

/* Runs main(j) on a detached thread, counted; false when the server stops, too many run, or
 * no thread starts (j is then the caller's). With r, j's relay joins the list at once, so a
 * cancel that comes while the POST is being made finds it. */
static bool spawn(tg_serve_fwd *f, job *j, void *(*main_fn)(void *))
{
    pthread_mutex_lock(&f->mu);
    bool room = !f->stopping && f->threads < MAX_THREADS;
    if (room) {
        f->threads++;
        if (j->r) {
            j->r->next = f->relays;
            f->relays = j->r;
        }
    }
    pthread_mutex_unlock(&f->mu);
    if (!room)
        return false;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    bool ok = pthread_create(&t, &attr, main_fn, j) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) {
        pthread_mutex_lock(&f->mu);
        for (relay **p = &f->relays; j->r && *p; p = &(*p)->next)
            if (*p == j->r) {
                *p = j->r->next;
                break;
            }
        pthread_mutex_unlock(&f->mu);
        thread_done(f);
    }
    return ok;
}

static void log_handover(const tg_serve_fwd *f, const char *label, bool ok, double ms)
{
    tg_serve_log lg = {.era = TG_ERA_LEGACY, .notification = true};
    snprintf(lg.method, sizeof lg.method, "%s", label);
    tg_serve_log_line(f->log_fd, &lg, ok ? "forwarded" : "forward_failed", ms);
}

static void *post_main(void *arg)
{
    job *j = arg;
    tg_serve_fwd *f = j->f;
    tg_serve_fwd_req rq = {.url = j->url, .body = j->body,
                           .headers = (const char *const *)j->headers.v};
    char why[256] = "";
    double t0 = tg_now_ms();
    long status = f->fn(f->ctx, &rq, why, sizeof why);
    log_handover(f, j->label, status >= 200 && status < 300, tg_now_ms() - t0);
    job_free(j);
    thread_done(f);
    return NULL;
}

void tg_serve_fwd_post(tg_serve_fwd *f, const char *url, const cJSON *msg,
                       const char *const *headers, const char *label)
{
    job *j = job_new(f, url, msg, headers);
    j->label = xstrdup(label);
    if (!spawn(f, j, post_main)) {
        log_handover(f, label, false, 0);
        job_free(j);
    }
}

/* ---- relayed calls -------------------------------------------------------------------------- */

static void relay_free(relay *r)
{
    free(r->nonce);
    cJSON_Delete(r->id);
    free(r->url);
    free(r);
}

static void *relay_main(void *arg)
{
    job *j = arg;
    tg_serve_fwd *f = j->f;
    tg_serve_fwd_req rq = {.url = j->url, .body = j->body,
                           .headers = (const char *const *)j->headers.v, .relay = true,
                           .cancel = j->r->cancel, .head = j->sink.head, .data = j->sink.data,
                           .ud = j->sink.ctx};
    char why[256] = "";
    double t0 = tg_now_ms();
    long status = f->fn(f->ctx, &rq, why, sizeof why);
    tg_serve_log_line(f->log_fd, &j->lg, status >= 0 ? "forwarded" : "forward_failed",
                      tg_now_ms() - t0);
    pthread_mutex_lock(&f->mu); /* no cancel goes there from now on */
    for (relay **p = &f->relays; *p; p = &(*p)->next)
        if (*p == j->r) {
            *p = j->r->next;
            break;
        }
    pthread_mutex_unlock(&f->mu);
    j->sink.end(j->sink.ctx, status, why); /* last: the caller may free what it lent */
    relay_free(j->r);
    job_free(j);
    thread_done(f);
    return NULL;
}

int tg_serve_fwd_relay(tg_serve_fwd *f, const char *url, const cJSON *msg,
                       const char *const *headers, const char *nonce,
                       volatile sig_atomic_t *cancel, const tg_serve_relay_sink *sink,
                       const tg_serve_log *lg)
{
    job *j = job_new(f, url, msg, headers);
    j->sink = *sink;
    j->lg = *lg;
    j->r = xcalloc(1, sizeof *j->r);
    j->r->nonce = nonce ? xstrdup(nonce) : NULL;
    j->r->id = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(msg, "id"), true);
    j->r->url = xstrdup(url);
    j->r->cancel = cancel;
    if (spawn(f, j, relay_main))
        return 0;
    relay_free(j->r);
    job_free(j);
    return -1;
}

void tg_serve_fwd_cancel(tg_serve_fwd *f, const char *nonce, const cJSON *msg,
                         const char *const *headers, bool found_here)
{
    if (!nonce)
        return;
    tg_strv to = {0};
    pthread_mutex_lock(&f->mu);
    for (relay *r = f->relays; r && !to.n; r = r->next)
        if (r->nonce && strcmp(r->nonce, nonce) == 0 && tg_serve_cancels(msg, r->id))
            tg_strv_push(&to, r->url); /* the call this instance relayed: its owner runs it */
    bool relayed = to.n > 0;
    for (size_t i = 0; !relayed && !found_here && i < f->peers.n; i++)
        if (!f->self || strcmp(f->peers.v[i], f->self) != 0)
            tg_strv_push(&to, f->peers.v[i]); /* one round robin sent elsewhere: whoever runs it */
    pthread_mutex_unlock(&f->mu);
    for (size_t i = 0; i < to.n; i++) /* outside the lock: spawning takes it */
        tg_serve_fwd_post(f, to.v[i], msg, headers, "notifications/cancelled");
    tg_strv_free(&to);
}
