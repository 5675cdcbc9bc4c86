/* stdio.c — newline-delimited JSON-RPC over stdin/stdout (stdio.h). */
#include "serve/stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "serve/declared.h"
#include "serve/servelog.h"

int tg_serve_stdio_claim_stdout(tg_err *err)
{
    int proto = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (proto < 0)
        return tg_err_set(err, "cannot duplicate stdout: %s", strerror(errno)), -1;
    if (dup2(2, 1) < 0) {
        close(proto);
        return tg_err_set(err, "cannot point stdout at stderr: %s", strerror(errno)), -1;
    }
    return proto;
}

/* ---- writing -------------------------------------------------------------------------------- */

static int write_all(int fd, const char *s, size_t n)
{
    return tg_serve_write_all(fd, s, n);
}

/* One message on one line (compact JSON never holds a raw newline); out_mu keeps the reader
 * thread's progress notifications and the main thread's replies from interleaving. */
static int send_line(int fd, pthread_mutex_t *out_mu, const cJSON *msg)
{
    char *s = tg_json_print_compact(msg);
    size_t n = strlen(s);
    s[n] = '\n'; /* replaces the NUL: written as n + 1 bytes, not used as a string again */
    pthread_mutex_lock(out_mu);
    int rc = write_all(fd, s, n + 1);
    pthread_mutex_unlock(out_mu);
    free(s);
    return rc;
}

/* ---- the reader thread ---------------------------------------------------------------------- */

/* What the reader thread, the main thread and the calls' sinks share; mu guards all of it but
 * out_mu and what the dispatch owns. */
typedef struct inbox {
    pthread_mutex_t mu;
    pthread_cond_t more;  /* bytes arrived, or stdin ended */
    pthread_cond_t space; /* the main thread consumed bytes */
    pthread_mutex_t out_mu;
    const tg_serve_stdio *io;
    const tg_serve_config *c;
    tg_serve_dispatch *d;
    tg_serve_session session; /* guarded by the core lock */
    tg_buf data;          /* bytes read and not yet taken */
    size_t start;         /* data.data[start..len) is pending */
    size_t scanned;       /* pending lines before this offset were checked for cancellation */
    size_t high_water;    /* the reader waits while more than this is pending */
    bool eof, quit;
    bool quiet;           /* the reader found nothing to read since the last data */
    int broken;           /* errno of a failed write by a call's end or an announcement */
} inbox;

/* memmem, which POSIX lacks */
static bool contains(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, k) == 0)
            return true;
    return false;
}

/* Checks the complete pending lines not yet scanned for a notifications/cancelled naming a
 * call in flight, and for the client's response to a request a call waits for: the main thread
 * may be waiting for a free worker, and a queued call must not wait for it to be cancelled,
 * nor a call for its answer. Only lines holding the method name or one of our request ids are
 * parsed. With mu held. */
static void scan_for_cancel(inbox *in)
{
    if (in->scanned < in->start)
        in->scanned = in->start;
    if (in->scanned >= in->data.len || !tg_serve_dispatch_in_flight(in->d))
        return;
    while (in->scanned < in->data.len) {
        char *line = in->data.data + in->scanned;
        char *nl = memchr(line, '\n', in->data.len - in->scanned);
        if (!nl)
            return;
        size_t n = (size_t)(nl - line);
        in->scanned += n + 1;
        bool cancel = contains(line, n, "notifications/cancelled");
        if (cancel || contains(line, n, "toolgen-ask-")) {
            tg_err err = {0};
            cJSON *msg =
                tg_json_parse(line, n, NULL, NULL, &tg_serve_message_limits, &err);
            if (cancel)
                tg_serve_dispatch_cancel_named(in->d, NULL, msg);
            else
                tg_serve_dispatch_answer(in->d, &in->session, msg);
            cJSON_Delete(msg);
        }
    }
}

/*
 * The end of stdin. When it comes after the input had gone quiet, the client closed stdin to
 * shut us down, or it is gone (MCP stdio transport, "Shutdown"): the calls in flight are
 * stopped, unless complete messages still wait — a client that wrote more requests before
 * closing wants their replies. When it follows the data at once (a file: `toolgen serve <
 * requests.jsonl`), it is just where the requests end, and every call is answered. Deciding by
 * what the reader saw, not by how far the workers got, keeps this free of races. With mu held.
 */
static void at_eof(inbox *in)
{
    in->eof = true;
    bool waiting = in->data.len > in->start &&
                   memchr(in->data.data + in->start, '\n', in->data.len - in->start);
    if (!in->quiet || waiting || !tg_serve_dispatch_in_flight(in->d))
        return;
    tg_serve_dispatch_cancel_all(in->d);
    if (in->io->cancel)
        *in->io->cancel = 1;
}

static void append(inbox *in, const char *chunk, size_t n)
{
    if (in->start > 0) { /* keep the buffer from creeping forward */
        memmove(in->data.data, in->data.data + in->start, in->data.len - in->start);
        tg_buf_truncate(&in->data, in->data.len - in->start);
        in->scanned = in->scanned > in->start ? in->scanned - in->start : 0;
        in->start = 0;
    }
    tg_buf_append(&in->data, chunk, n);
    scan_for_cancel(in);
}

static void *reader_main(void *arg)
{
    inbox *in = arg;
    char chunk[65536];
    for (;;) {
        pthread_mutex_lock(&in->mu);
        while ((in->data.len - in->start > in->high_water || in->eof) && !in->quit) {
            struct timespec until = tg_deadline_ms(50); /* a quitting main thread is noticed */
            pthread_cond_timedwait(&in->space, &in->mu, &until);
        }
        bool quit = in->quit;
        pthread_mutex_unlock(&in->mu);
        if (quit)
            return NULL;
        /* poll with a timeout so that a quitting main thread is noticed; nothing ready at once
         * means the input has gone quiet (at_eof) */
        struct pollfd p = {.fd = in->io->in_fd, .events = POLLIN};
        int pr = poll(&p, 1, 0);
        if (pr == 0) {
            pthread_mutex_lock(&in->mu);
            in->quiet = true;
            pthread_mutex_unlock(&in->mu);
            pr = poll(&p, 1, 50);
        }
        if (pr == 0 || (pr < 0 && errno == EINTR))
            continue;
        ssize_t n = pr < 0 ? -1 : read(in->io->in_fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        pthread_mutex_lock(&in->mu);
        if (n <= 0) {
            at_eof(in);
        } else {
            in->quiet = false;
            append(in, chunk, (size_t)n);
        }
        pthread_cond_signal(&in->more);
        pthread_mutex_unlock(&in->mu);
    }
}

typedef enum take_status { TAKE_LINE, TAKE_TOO_LONG, TAKE_END } take_status;

/*
 * The next message (without its newline) into line, or TAKE_TOO_LONG once per message past the
 * cap (its bytes are dropped up to the newline), or TAKE_END when stdin ended with no complete
 * message left or *stop was set. With mu held.
 */
static take_status take_locked(inbox *in, size_t cap, tg_buf *line, bool *dropping)
{
    for (;;) {
        if (in->io->stop && *in->io->stop)
            return TAKE_END;
        size_t avail = in->data.len - in->start;
        char *p = avail ? in->data.data + in->start : NULL;
        char *nl = avail ? memchr(p, '\n', avail) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - p);
            in->start += n + 1;
            pthread_cond_signal(&in->space);
            if (*dropping || n > cap) {
                *dropping = false;
                return TAKE_TOO_LONG;
            }
            tg_buf_truncate(line, 0);
            tg_buf_append(line, p, n);
            return TAKE_LINE;
        }
        if (in->eof && avail && !*dropping) {
            /* the last line may lack its newline (a file written without one): it is a
             * message all the same, once, when it fits the cap */
            in->start = in->data.len;
            if (avail > cap)
                return TAKE_TOO_LONG;
            tg_buf_truncate(line, 0);
            tg_buf_append(line, p, avail);
            return TAKE_LINE;
        }
        if (in->eof)
            return TAKE_END;
        if (avail > cap) { /* no newline within the cap: drop what came, then up to the newline */
            *dropping = true;
            in->start = in->data.len;
            pthread_cond_signal(&in->space);
        }
        struct timespec until = tg_deadline_ms(200);
        pthread_cond_timedwait(&in->more, &in->mu, &until);
    }
}

/* ---- calls and replies ---------------------------------------------------------------------- */

static void log_line(const tg_serve_stdio *io, const tg_serve_log *lg, const char *status, double ms)
{
    tg_serve_log_line(io->log_fd, lg, status, ms);
}

static void note_broken(inbox *in)
{
    pthread_mutex_lock(&in->mu);
    in->broken = errno ? errno : EPIPE;
    pthread_mutex_unlock(&in->mu);
}

/* A call's progress (the dispatch's sink). */
static void call_notify(void *ctx, const cJSON *msg)
{
    inbox *in = ctx;
    (void)send_line(in->io->out_fd, &in->out_mu, msg); /* a broken stream shows at a reply */
}

/* A call's end: its reply, unless it was cancelled or the server stops. */
static void call_end(void *ctx, cJSON *reply, tg_serve_end how, const tg_serve_log *lg)
{
    (void)lg;
    inbox *in = ctx;
    if (how == TG_SERVE_REPLIED && reply && send_line(in->io->out_fd, &in->out_mu, reply) != 0)
        note_broken(in);
    cJSON_Delete(reply);
}

/* The lists that changed, announced to the client (the dispatch's announce, with the core lock
 * held: the session's subscriptions are read under it). */
static void announce(void *ctx, unsigned what)
{
    inbox *in = ctx;
    cJSON *all = tg_serve_changed(in->session.subs, in->session.initialized, what);
    if ((what & TG_CHANGED_CONTENT) && in->c->declared) { /* and the watched resources' */
        cJSON *up = tg_serve_updated(in->session.subs, in->session.res_subs,
                                     in->c->declared->changed);
        while (cJSON_GetArraySize(up))
            cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(up, 0));
        cJSON_Delete(up);
    }
    for (cJSON *n = all ? all->child : NULL; n; n = n->next) {
        tg_serve_log lg = {.notification = true};
        snprintf(lg.method, sizeof lg.method, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(n, "method")));
        if (send_line(in->io->out_fd, &in->out_mu, n) != 0) {
            note_broken(in);
            break;
        }
        log_line(in->io, &lg, "sent", 0);
    }
    cJSON_Delete(all);
}

/* true for what the workers run: a tools/call with an id; anything else is answered at once,
 * on the main thread. */
static bool is_call(const cJSON *msg)
{
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    return m && strcmp(m, "tools/call") == 0 && cJSON_GetObjectItemCaseSensitive(msg, "id");
}

/* Hands msg (owned) to the workers; then a cancellation already waiting in the buffer finds
 * it. NULL, or the error reply when a request with its id is still in flight. */
static cJSON *submit_call(inbox *in, cJSON *msg, tg_serve_log *lg)
{
    tg_serve_sink sink = {.notify = call_notify, .end = call_end, .ctx = in, .requests = true};
    if (!tg_serve_dispatch_submit(in->d, msg, tg_serve_progress_token(msg), &in->session, NULL,
                                  &sink)) {
        lg->rpc_error = TG_RPC_INVALID_REQUEST;
        snprintf(lg->method, sizeof lg->method, "tools/call");
        cJSON *r = tg_serve_error_reply(cJSON_GetObjectItemCaseSensitive(msg, "id"),
                                        TG_RPC_INVALID_REQUEST,
                                        "Invalid Request: a request with this id is still in "
                                        "flight; give each request of a session its own id");
        cJSON_Delete(msg);
        return r;
    }
    pthread_mutex_lock(&in->mu);
    in->scanned = in->start;
    scan_for_cancel(in);
    pthread_mutex_unlock(&in->mu);
    return NULL;
}

/* Parses and answers one line: a call goes to the workers, anything else is answered here.
 * Returns -1 when the reply stream broke, 0 to go on. */
static int serve_line(inbox *in, const tg_buf *line, tg_err *err)
{
    double t0 = tg_now_ms();
    tg_serve_log lg = {0};
    tg_err perr = {0};
    cJSON *reply;
    cJSON *msg =
        tg_json_parse(line->data, line->len, NULL, NULL, &tg_serve_message_limits, &perr);
    if (!msg) {
        lg.rpc_error = TG_RPC_PARSE_ERROR;
        char *text = xasprintf("Parse error: line %d, column %d: %s", perr.line, perr.col, perr.msg);
        reply = tg_serve_error_reply(NULL, TG_RPC_PARSE_ERROR, text);
        free(text);
    } else if (is_call(msg)) {
        reply = submit_call(in, msg, &lg);
        if (!reply)
            return 0;
        msg = NULL;
    } else {
        /* a notifications/cancelled the reader did not see in time, or the answer a call waits
         * for (serve/mrtr.h) */
        tg_serve_dispatch_cancel_named(in->d, NULL, msg);
        tg_serve_dispatch_answer(in->d, &in->session, msg);
        reply = tg_serve_dispatch_handle(in->d, &in->session, msg, &lg);
    }
    int rc = 0;
    if (reply && send_line(in->io->out_fd, &in->out_mu, reply) != 0)
        rc = tg_err_set(err, "the client closed the reply stream: %s", strerror(errno));
    log_line(in->io, &lg, NULL, tg_now_ms() - t0);
    cJSON_Delete(reply);
    cJSON_Delete(msg);
    return rc;
}

static bool blank(const tg_buf *line)
{
    for (size_t i = 0; i < line->len; i++)
        if (!strchr(" \t\r", line->data[i]))
            return false;
    return true;
}

static int serve_loop(inbox *in, tg_err *err)
{
    size_t cap = in->io->max_message ? in->io->max_message : TG_SERVE_MAX_MESSAGE;
    tg_buf line = TG_BUF_INIT;
    bool dropping = false;
    int rc = 0;
    for (;;) {
        tg_serve_dispatch_check(in->d); /* the lists may have changed since the last message */
        pthread_mutex_lock(&in->mu);
        take_status st = in->broken ? TAKE_END : take_locked(in, cap, &line, &dropping);
        pthread_mutex_unlock(&in->mu);
        if (st == TAKE_END)
            break;
        if (st == TAKE_TOO_LONG) {
            char text[160];
            snprintf(text, sizeof text, "Invalid Request: message longer than %zu bytes", cap);
            tg_serve_log lg = {.rpc_error = TG_RPC_INVALID_REQUEST};
            cJSON *reply = tg_serve_error_reply(NULL, TG_RPC_INVALID_REQUEST, text);
            rc = send_line(in->io->out_fd, &in->out_mu, reply) == 0
                     ? 0 : tg_err_set(err, "the client closed the reply stream: %s", strerror(errno));
            log_line(in->io, &lg, NULL, 0);
            cJSON_Delete(reply);
        } else if (!blank(&line)) {
            rc = serve_line(in, &line, err);
        }
        if (rc != 0)
            break;
    }
    /* a signal stops every call; otherwise the calls in flight finish (the end of stdin has
     * already stopped them when nothing else waited) */
    tg_serve_dispatch_drain(in->d);
    pthread_mutex_lock(&in->mu);
    int broken = in->broken;
    pthread_mutex_unlock(&in->mu);
    if (rc == 0 && broken)
        rc = tg_err_set(err, "the client closed the reply stream: %s", strerror(broken));
    tg_buf_free(&line);
    return rc < 0 ? -1 : 0;
}

int tg_serve_stdio_run(const tg_serve_config *c, const tg_serve_stdio *io, tg_err *err)
{
    inbox in = {.io = io, .c = c};
    in.session.client = tg_serve_new_client(); /* one client: the process at the other end */
    size_t cap = io->max_message ? io->max_message : TG_SERVE_MAX_MESSAGE;
    size_t workers = io->max_concurrency ? io->max_concurrency : TG_SERVE_CONCURRENCY;
    in.high_water = cap + 65536;
    pthread_mutex_init(&in.mu, NULL);
    pthread_mutex_init(&in.out_mu, NULL);
    pthread_cond_init(&in.more, NULL);
    pthread_cond_init(&in.space, NULL);
    tg_serve_dispatch_opts o = {.workers = workers, .queue_max = workers + TG_SERVE_QUEUE,
                                .progress_ms = io->progress_ms, .log_fd = io->log_fd,
                                .stop = io->stop, .check = io->check, .check_ctx = io->check_ctx,
                                .check_ms = io->check_ms, .announce = announce,
                                .announce_ctx = &in};
    pthread_t reader;
    int rc = -1;
    in.d = tg_serve_dispatch_start(c, &o, err);
    if (!in.d) {
        /* err is set */
    } else if (pthread_create(&reader, NULL, reader_main, &in) != 0) {
        tg_err_set(err, "cannot start the stdin reader thread");
    } else {
        rc = serve_loop(&in, err);
        pthread_mutex_lock(&in.mu);
        in.quit = true;
        pthread_cond_signal(&in.space);
        pthread_mutex_unlock(&in.mu);
        pthread_join(reader, NULL);
    }
    tg_serve_dispatch_stop(in.d);
    tg_serve_session_release(&in.session);
    pthread_cond_destroy(&in.space);
    pthread_cond_destroy(&in.more);
    pthread_mutex_destroy(&in.out_mu);
    pthread_mutex_destroy(&in.mu);
    tg_buf_free(&in.data);
    return rc;
}
