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

/* ---- the reader thread ---------------------------------------------------------------------- */

typedef struct inbox {
    pthread_mutex_t mu;
    pthread_cond_t more;  /* bytes arrived, or stdin ended */
    pthread_cond_t space; /* the main thread consumed bytes */
    tg_buf data;          /* bytes read and not yet taken */
    size_t start;         /* data.data[start..len) is pending */
    size_t high_water;    /* the reader waits while more than this is pending */
    bool eof, quit;
    bool busy;            /* the main thread is answering a message */
    int fd;
    volatile sig_atomic_t *cancel;
} inbox;

static void *reader_main(void *arg)
{
    inbox *in = arg;
    char chunk[65536];
    for (;;) {
        pthread_mutex_lock(&in->mu);
        while (in->data.len - in->start > in->high_water && !in->quit)
            pthread_cond_wait(&in->space, &in->mu);
        bool quit = in->quit;
        pthread_mutex_unlock(&in->mu);
        if (quit)
            return NULL;
        /* poll with a timeout so that a quitting main thread is noticed */
        struct pollfd p = {.fd = in->fd, .events = POLLIN};
        int pr = poll(&p, 1, 200);
        if (pr == 0 || (pr < 0 && errno == EINTR))
            continue;
        ssize_t n = pr < 0 ? -1 : read(in->fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        pthread_mutex_lock(&in->mu);
        if (n <= 0) {
            /* The client closed stdin: it asks us to shut down, or it is gone (MCP stdio
             * transport, "Shutdown"). A call in flight is stopped, unless complete messages
             * still wait: a client that wrote more requests before closing wants their
             * replies, so they are all answered first. */
            in->eof = true;
            bool waiting = in->data.len > in->start &&
                           memchr(in->data.data + in->start, '\n', in->data.len - in->start);
            if (in->busy && !waiting && in->cancel)
                *in->cancel = 1;
        } else {
            if (in->start > 0) { /* keep the buffer from creeping forward */
                memmove(in->data.data, in->data.data + in->start, in->data.len - in->start);
                tg_buf_truncate(&in->data, in->data.len - in->start);
                in->start = 0;
            }
            tg_buf_append(&in->data, chunk, (size_t)n);
        }
        pthread_cond_signal(&in->more);
        pthread_mutex_unlock(&in->mu);
        if (n <= 0)
            return NULL;
    }
}

typedef enum take_status { TAKE_LINE, TAKE_TOO_LONG, TAKE_END } take_status;

/*
 * The next message (without its newline) into line, or TAKE_TOO_LONG once per message past the
 * cap (its bytes are dropped up to the newline), or TAKE_END when stdin ended or *stop was set.
 * Called with in->mu held.
 */
static take_status take_locked(inbox *in, const tg_serve_stdio *io, size_t cap, tg_buf *line,
                               bool *dropping)
{
    for (;;) {
        if (io->stop && *io->stop)
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
                in->busy = true;
                return TAKE_TOO_LONG;
            }
            tg_buf_truncate(line, 0);
            tg_buf_append(line, p, n);
            in->busy = true;
            return TAKE_LINE;
        }
        if (in->eof) /* a last line without its newline is not a message */
            return TAKE_END;
        if (avail > cap) { /* no newline within the cap: drop what came, then up to the newline */
            *dropping = true;
            in->start = in->data.len;
            pthread_cond_signal(&in->space);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&in->more, &in->mu, &until);
    }
}

/* ---- writing -------------------------------------------------------------------------------- */

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One reply on one line: compact JSON never holds a raw newline. */
static int send_reply(const tg_serve_stdio *io, const cJSON *reply)
{
    char *s = tg_json_print_compact(reply);
    size_t n = strlen(s);
    s[n] = '\n'; /* replaces the NUL: written as n + 1 bytes, not used as a string again */
    int rc = write_all(io->out_fd, s, n + 1);
    free(s);
    return rc;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The log line of one message (docs/mcp.md, "Logs"). */
static void log_line(const tg_serve_stdio *io, const tg_serve_log *lg, double ms)
{
    if (io->log_fd < 0)
        return;
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "time", stamp);
    cJSON_AddItemToObject(o, "id", lg->id ? cJSON_Duplicate(lg->id, true) : cJSON_CreateNull());
    if (lg->method[0])
        cJSON_AddStringToObject(o, "method", lg->method);
    if (lg->tool[0])
        cJSON_AddStringToObject(o, "tool", lg->tool);
    if (lg->era != TG_ERA_NONE)
        cJSON_AddStringToObject(o, "era", tg_serve_era_name(lg->era));
    cJSON_AddNumberToObject(o, "duration_ms", (double)(long long)(ms * 1000) / 1000);
    const char *status = lg->notification ? "notification"
                         : lg->rpc_error  ? "error"
                         : lg->tool_error ? "tool_error"
                                          : "ok";
    cJSON_AddStringToObject(o, "status", status);
    if (lg->rpc_error)
        cJSON_AddNumberToObject(o, "error_code", lg->rpc_error);
    else if (lg->tool_error)
        cJSON_AddStringToObject(o, "error_code", lg->tool_error);
    char *s = tg_json_print_compact(o);
    size_t n = strlen(s);
    s[n] = '\n';
    (void)write_all(io->log_fd, s, n + 1); /* a lost log line must not stop serving */
    free(s);
    cJSON_Delete(o);
}

/* ---- the loop ------------------------------------------------------------------------------- */

/* The reply to one line (NULL: none due); fills lg. */
static cJSON *answer(const tg_serve_config *c, tg_serve_session *s, const tg_buf *line,
                     tg_serve_log *lg, cJSON **msg)
{
    tg_err err = {0};
    *msg = tg_json_parse(line->data, line->len, NULL, NULL, NULL, &err);
    if (!*msg) {
        *lg = (tg_serve_log){.rpc_error = TG_RPC_PARSE_ERROR};
        char *text = xasprintf("Parse error: line %d, column %d: %s", err.line, err.col, err.msg);
        cJSON *r = tg_serve_error_reply(NULL, TG_RPC_PARSE_ERROR, text);
        free(text);
        return r;
    }
    return tg_serve_handle(c, s, *msg, lg);
}

static bool blank(const tg_buf *line)
{
    for (size_t i = 0; i < line->len; i++)
        if (!strchr(" \t\r", line->data[i]))
            return false;
    return true;
}

static int serve_loop(const tg_serve_config *c, const tg_serve_stdio *io, inbox *in, tg_err *err)
{
    size_t cap = io->max_message ? io->max_message : TG_SERVE_MAX_MESSAGE;
    tg_serve_session session = {0};
    tg_buf line = TG_BUF_INIT;
    bool dropping = false;
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&in->mu);
        take_status st = take_locked(in, io, cap, &line, &dropping);
        pthread_mutex_unlock(&in->mu);
        if (st == TAKE_END)
            break;
        if (st == TAKE_LINE && blank(&line)) {
            pthread_mutex_lock(&in->mu);
            in->busy = false;
            pthread_mutex_unlock(&in->mu);
            continue;
        }
        double t0 = now_ms();
        tg_serve_log lg = {0};
        cJSON *msg = NULL, *reply;
        if (st == TAKE_TOO_LONG) {
            char text[160];
            snprintf(text, sizeof text, "Invalid Request: message longer than %zu bytes", cap);
            lg.rpc_error = TG_RPC_INVALID_REQUEST;
            reply = tg_serve_error_reply(NULL, TG_RPC_INVALID_REQUEST, text);
        } else {
            reply = answer(c, &session, &line, &lg, &msg);
        }
        bool cancelled = io->cancel && *io->cancel;
        if (reply && !cancelled && send_reply(io, reply) != 0) {
            rc = tg_err_set(err, "the client closed the reply stream: %s", strerror(errno));
            cancelled = true;
        }
        log_line(io, &lg, now_ms() - t0);
        cJSON_Delete(reply);
        cJSON_Delete(msg);
        pthread_mutex_lock(&in->mu);
        in->busy = false;
        pthread_mutex_unlock(&in->mu);
        if (cancelled)
            break;
    }
    tg_buf_free(&line);
    return rc;
}

int tg_serve_stdio_run(const tg_serve_config *c, const tg_serve_stdio *io, tg_err *err)
{
    inbox in = {.fd = io->in_fd, .cancel = io->cancel};
    size_t cap = io->max_message ? io->max_message : TG_SERVE_MAX_MESSAGE;
    in.high_water = cap + 65536;
    pthread_mutex_init(&in.mu, NULL);
    pthread_cond_init(&in.more, NULL);
    pthread_cond_init(&in.space, NULL);
    pthread_t reader;
    int rc = -1;
    if (pthread_create(&reader, NULL, reader_main, &in) != 0) {
        tg_err_set(err, "cannot start the stdin reader thread");
    } else {
        rc = serve_loop(c, io, &in, err);
        pthread_mutex_lock(&in.mu);
        in.quit = true;
        pthread_cond_signal(&in.space);
        pthread_mutex_unlock(&in.mu);
        pthread_join(reader, NULL);
    }
    pthread_cond_destroy(&in.space);
    pthread_cond_destroy(&in.more);
    pthread_mutex_destroy(&in.mu);
    tg_buf_free(&in.data);
    return rc;
}
