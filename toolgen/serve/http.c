/* http.c — Streamable HTTP over libmicrohttpd (http.h). */
#include "serve/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "serve/declared.h"
#include "serve/dispatch.h"
#include "serve/httpcheck.h"
#include "serve/mhdload.h"
#include "serve/replay.h"
#include "serve/servelog.h"
#include "serve/stdio.h"

#define ENDPOINT "/mcp"
#define SESSION_HEADER "Mcp-Session-Id"
#define MAX_STREAMS 128       /* notification streams open at once (GET and subscriptions/listen) */
#define KEEPALIVE_MS 15000.0  /* an SSE comment on a quiet stream: a gone client shows */
#define MAX_SESSIONS 1024     /* legacy sessions at once; initialize beyond is refused (503) */
#define STOP_WAIT_MS 10000    /* at stop, the longest wait for requests to be answered */
#define SESSION_IDLE_MS (30 * 60 * 1000.0) /* a session unused this long ends, by default */
#define SWEEP_MS 10000.0      /* how often ended and idle sessions are freed */
#define SESSION_DOMAIN "session" /* what a session id's signature is for (serve/mrtr.h) */
#define TOMBS 1024            /* sessions ended by DELETE, remembered so that they stay 404 */
#define ASK_DOMAIN "ask"      /* what the signature in the ids of requests to clients is for */
#define ASK_PREFIX "toolgen-ask-" /* serve/dispatch.h */
/* Connections: enough that idle and slow ones (a browser page opens up to 256) cannot take
 * the server from its clients; one that sends nothing for CONN_IDLE_S is closed. */
#define MAX_CONNECTIONS 4096u
#define MAX_PER_IP 1024u
#define CONN_IDLE_S 30u

/* A legacy-era session. Guarded by the core lock, but holds: every request of the session
 * holds it while the request lives (a call may outlive a DELETE), so an ended or idle session
 * is freed only once no request holds it (sessions_sweep). */
typedef struct session {
    char *id;           /* heap; NULL until initialize succeeded (session_issue); replaced
                         * under the core lock on libmicrohttpd's thread, the only one that
                         * reads it (the replies' header) */
    char nonce[33];     /* what names the session whatever id it is presented with: its
                         * random part (an id reissued for a new log level keeps it) */
    unsigned level_seq; /* how many times logging/setLevel reissued the id */
    bool ended;
    double last_used;   /* tg_now_ms of its last request */
    atomic_int holds;   /* requests holding it; taken under the core lock, dropped anywhere */
    cJSON *owed;        /* the notifications it missed without a GET stream open, due with its
                         * next response that can carry them (an array; NULL: none) */
    tg_replays replays; /* its event streams' events, for resumption (under replay_mu) */
    tg_serve_session s;
    struct session *next;
} session;

typedef struct hreq hreq;

typedef struct server {
    const tg_serve_config *c;
    const tg_serve_http *o;
    tg_serve_dispatch *dp;   /* the core lock, the calls (serve/dispatch.h) */
    struct MHD_Daemon *d;
    session *sessions;
    size_t n_sessions;
    size_t cap;
    volatile bool stopping;
    atomic_size_t open_requests; /* requests MHD has not completed yet (on_completed) */
    pthread_mutex_t streams_mu; /* guards streams and each hreq's in_streams */
    hreq *streams;           /* the open notification streams, each holding a reference */
    size_t n_streams;
    /* guards the sessions' replays (serve/replay.h) and which request follows a stream; taken
     * last: with it held, only a follower's mu may be taken */
    pthread_mutex_t replay_mu;
    /* the nonces of sessions DELETE ended (a ring; under the core lock): with a shared state
     * key an id that verifies is otherwise continued here (docs/scale.md) */
    char *tombs[TOMBS];
    size_t next_tomb;
    char *self_url;          /* where the other instances reach this one; NULL: unknown */
    tg_serve_fwd *fwd;       /* what goes to other instances (serve/forward.h); NULL: nothing */
    char *route;             /* this instance's route (serve/forward.h), in the ids of the
                              * sessions' events; NULL: none (set under the core lock) */
} server;

/* One HTTP request. Shared by libmicrohttpd (until the request completes), its call in the
 * dispatch (until the call ends) and an SSE response (until it is freed): refs counts them. */
struct hreq {
    server *sv;
    pthread_mutex_t mu; /* guards everything below but body, msg and lg */
    int refs;
    struct MHD_Connection *conn; /* NULL once libmicrohttpd is done with the request */
    tg_buf body;
    bool too_big, started, sse, suspended, done;
    bool takes_sse;  /* its Accept has text/event-stream: a call may answer on a stream */
    bool sse_queued; /* the event stream's response was queued */
    bool meta_invalid; /* refused for its _meta (or lack of one): 400, as 2026-07-28 asks */
    bool client_cancelled; /* a notifications/cancelled named it: no reply is sent */
    bool stream;    /* a notification stream: a legacy session's GET, or subscriptions/listen */
    bool in_streams; /* on sv->streams (guarded by streams_mu) */
    tg_buf out;     /* SSE bytes not yet taken by libmicrohttpd */
    size_t out_off;
    cJSON *reply;   /* the reply of a call answered as application/json */
    unsigned status;
    cJSON *msg;
    session *sess;  /* NULL: a 2026-07-28 request */
    tg_serve_session scratch; /* the session of a stateless request: a listen stream's
                               * subscription lives in it */
    tg_serve_call_slot *slot; /* its call while in the dispatch; NULL before and after */
    tg_serve_log lg;
    hreq *stream_next;
    tg_replay_stream *rp;     /* a legacy session's stream: its events kept for resumption */
    tg_replay_stream *following; /* a GET that resumed a call's stream: that stream */
    /* a call relayed to the instance that holds its code session, or a GET to the one that
     * keeps the stream it resumes (serve/forward.h) */
    bool relay, relay_head;   /* relayed; its reply's head came */
    long relay_status;
    char *relay_type, *relay_sid; /* the reply's Content-Type and Mcp-Session-Id; NULL: none */
    volatile sig_atomic_t relay_cancel; /* the client went away, or the server stops */
};

static void hreq_unref(hreq *h)
{
    pthread_mutex_lock(&h->mu);
    int left = --h->refs;
    pthread_mutex_unlock(&h->mu);
    if (left)
        return;
    if (h->rp) {
        pthread_mutex_lock(&h->sv->replay_mu);
        tg_replay_release(h->rp);
        pthread_mutex_unlock(&h->sv->replay_mu);
    }
    if (h->sess)
        atomic_fetch_sub(&h->sess->holds, 1);
    pthread_mutex_destroy(&h->mu);
    tg_buf_free(&h->body);
    tg_buf_free(&h->out);
    cJSON_Delete(h->reply);
    cJSON_Delete(h->msg);
    free(h->relay_type);
    free(h->relay_sid);
    tg_serve_session_release(&h->scratch);
    free(h);
}

/* ---- responses ------------------------------------------------------------------------------ */

static enum MHD_Result send_json(hreq *h, unsigned status, const cJSON *body)
{
    char *s = body ? tg_json_print_compact(body) : xstrdup("");
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
    if (body)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (h->sess && h->sess->s.initialized)
        MHD_add_response_header(r, SESSION_HEADER, h->sess->id);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST, DELETE");
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"toolgen serve\"");
    enum MHD_Result rc = MHD_queue_response(h->conn, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* An error with no id (the request was refused before its message counted). */
static enum MHD_Result send_error(hreq *h, unsigned status, int code, const char *text)
{
    cJSON *e = tg_serve_error_reply(NULL, code, text);
    enum MHD_Result rc = send_json(h, status, e);
    cJSON_Delete(e);
    return rc;
}

/* Wakes a connection parked for want of data. With h->mu held. */
static void wake(hreq *h)
{
    if (h->conn && h->suspended) {
        h->suspended = false;
        MHD_resume_connection(h->conn);
    }
}

/* Appends one SSE event holding msg. A resumable stream's event gets its id and is kept, and
 * goes to the request that resumed the stream too (serve/replay.h). With h->mu held. */
static void push_event(hreq *h, const cJSON *msg)
{
    char *text;
    if (h->rp) {
        pthread_mutex_lock(&h->sv->replay_mu);
        text = tg_replay_event(h->rp, msg);
        hreq *f = tg_replay_follower(h->rp);
        if (f) {
            pthread_mutex_lock(&f->mu);
            tg_buf_puts(&f->out, text);
            wake(f);
            pthread_mutex_unlock(&f->mu);
        }
        pthread_mutex_unlock(&h->sv->replay_mu);
    } else {
        char *s = tg_json_print_compact(msg);
        text = xasprintf("event: message\ndata: %s\n\n", s);
        free(s);
    }
    tg_buf_puts(&h->out, text);
    free(text);
    wake(h);
}

/* The stream h's call answered on has sent its last event: it ends, also for the request that
 * resumed it. */
static void end_replay(hreq *h)
{
    if (!h->rp)
        return;
    pthread_mutex_lock(&h->sv->replay_mu);
    tg_replay_end(h->rp);
    hreq *f = tg_replay_follower(h->rp);
    if (f) {
        pthread_mutex_lock(&f->mu);
        f->done = true;
        wake(f);
        pthread_mutex_unlock(&f->mu);
    }
    pthread_mutex_unlock(&h->sv->replay_mu);
}

/* Keeps h's stream's events for resumption: a legacy session's (2026-07-28 streams are not
 * resumable). call: the stream carries a call's reply. */
static void make_resumable(hreq *h, bool call)
{
    if (!h->sess)
        return;
    pthread_mutex_lock(&h->sv->replay_mu);
    h->rp = tg_replay_open(&h->sess->replays, call);
    pthread_mutex_unlock(&h->sv->replay_mu);
}

/* A resumable stream starts with its priming event (an id, empty data), as the legacy
 * revisions advise. */
static void prime(hreq *h)
{
    if (!h->rp)
        return;
    pthread_mutex_lock(&h->mu);
    pthread_mutex_lock(&h->sv->replay_mu);
    char *text = tg_replay_event(h->rp, NULL);
    pthread_mutex_unlock(&h->sv->replay_mu);
    tg_buf_puts(&h->out, text);
    free(text);
    pthread_mutex_unlock(&h->mu);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    hreq *h = cls;
    pthread_mutex_lock(&h->mu);
    size_t avail = h->out.len - h->out_off;
    ssize_t n;
    if (avail) {
        size_t k = avail < max ? avail : max;
        memcpy(buf, h->out.data + h->out_off, k);
        h->out_off += k;
        if (h->out_off == h->out.len) {
            tg_buf_truncate(&h->out, 0);
            h->out_off = 0;
        }
        n = (ssize_t)k;
    } else if (h->done) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else { /* nothing yet: park the connection until the call has more (wake) */
        h->suspended = true;
        MHD_suspend_connection(h->conn);
        n = 0;
    }
    pthread_mutex_unlock(&h->mu);
    return n;
}

static void sse_free(void *cls)
{
    hreq_unref(cls);
}

/* A response that streams h->out as sse_read hands it out, holding a reference to h; the
 * caller adds its own headers and queues it. */
static struct MHD_Response *stream_response(hreq *h)
{
    /* a stream's events come on their own schedule (progress every progress_ms, keep-alives):
     * the idle timeout of connections that send nothing must not close it */
    MHD_set_connection_option(h->conn, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
    pthread_mutex_lock(&h->mu);
    h->refs++; /* the response's */
    h->sse_queued = true;
    pthread_mutex_unlock(&h->mu);
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read,
                                                               h, sse_free);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    return r;
}

static enum MHD_Result start_sse(hreq *h)
{
    struct MHD_Response *r = stream_response(h);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    if (h->sess)
        MHD_add_response_header(r, SESSION_HEADER, h->sess->id);
    enum MHD_Result rc = MHD_queue_response(h->conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---- calls in the dispatch ----------------------------------------------------------------- */

/* A call's progress or log message, on its event stream (the dispatch's sink). A call parked
 * for a JSON reply turns to an event stream at its first notification when the client takes
 * one (the parked connection, woken, queues it: answer_parked); else the notification is
 * dropped, as there is nowhere to send it. */
static void call_notify(void *ctx, const cJSON *msg)
{
    hreq *h = ctx;
    pthread_mutex_lock(&h->mu);
    if (!h->done && !h->sse && h->takes_sse)
        h->sse = true;
    if (!h->done && h->sse)
        push_event(h, msg);
    pthread_mutex_unlock(&h->mu);
}

/* A call's end: its reply on the event stream, or kept for the parked connection; a call
 * stopped by the server or a closed stream gets 503, one the client cancelled nothing. */
static void call_end(void *ctx, cJSON *reply, tg_serve_end how, const tg_serve_log *lg)
{
    hreq *h = ctx;
    if (how != TG_SERVE_REPLIED) {
        cJSON_Delete(reply);
        reply = tg_serve_error_reply(cJSON_GetObjectItemCaseSensitive(h->msg, "id"),
                                     TG_RPC_INTERNAL_ERROR, "Cancelled: the server is stopping "
                                                            "or the client closed the stream");
    }
    pthread_mutex_lock(&h->mu);
    h->slot = NULL;
    h->client_cancelled = how == TG_SERVE_CANCELLED;
    if (h->sse) {
        if (how == TG_SERVE_REPLIED)
            push_event(h, reply);
        cJSON_Delete(reply);
    } else {
        h->reply = reply;
        h->status = how != TG_SERVE_REPLIED ? MHD_HTTP_SERVICE_UNAVAILABLE
                                            : tg_http_status_of(reply, lg->era);
    }
    h->done = true;
    wake(h);
    pthread_mutex_unlock(&h->mu);
    end_replay(h);
    hreq_unref(h);
}

static bool accepts(struct MHD_Connection *conn, const char *type)
{
    const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    return a && (strstr(a, type) || strstr(a, "*/*"));
}

/* Hands a tools/call to the dispatch: on an SSE stream when it asked for progress and the
 * client takes one, else parked until the reply is ready (answer_parked). The dispatch gets a
 * copy of the message; h keeps its own for the reply's id. */
static void pay_owed(hreq *h, cJSON *owed);

static enum MHD_Result start_call(hreq *h, cJSON *owed)
{
    tg_serve_session *s = h->sess ? &h->sess->s : &h->scratch;
    if (tg_serve_dispatch_busy_id(h->sv->dp, s, h->msg)) { /* only this thread submits */
        cJSON *e = tg_serve_error_reply(cJSON_GetObjectItemCaseSensitive(h->msg, "id"),
                                        TG_RPC_INVALID_REQUEST,
                                        "Invalid Request: a request with this id is still in "
                                        "flight in this session; give each request its own id");
        enum MHD_Result rc = send_json(h, MHD_HTTP_BAD_REQUEST, e);
        cJSON_Delete(e);
        cJSON_Delete(owed);
        return rc;
    }
    const cJSON *token = tg_serve_progress_token(h->msg);
    h->started = true;
    h->refs++; /* the call's */
    h->takes_sse = accepts(h->conn, "text/event-stream");
    if (h->takes_sse) { /* whether it answers on a stream is known only later */
        make_resumable(h, true);
        prime(h);
    }
    if (owed) /* what the session missed goes first, on the call's event stream */
        pay_owed(h, owed);
    /* requests to the client go on the call's event stream; their responses come in the
     * session's later POSTs (a legacy client's: 2026-07-28 clients are never sent one) */
    tg_serve_sink sink = {.notify = call_notify, .end = call_end, .ctx = h,
                          .requests = h->takes_sse && h->sess};
    h->sse = h->sse || (token && h->takes_sse);
    enum MHD_Result rc = MHD_YES;
    if (h->sse) {
        rc = start_sse(h);
    } else {
        pthread_mutex_lock(&h->mu);
        h->suspended = true;
        MHD_suspend_connection(h->conn);
        pthread_mutex_unlock(&h->mu);
    }
    /* not refused: its id was checked above, and no other thread submits */
    tg_serve_call_slot *k = tg_serve_dispatch_submit(h->sv->dp, cJSON_Duplicate(h->msg, true),
                                                     h->sse ? token : NULL, s, h->sess, &sink);
    pthread_mutex_lock(&h->mu);
    if (!h->done)
        h->slot = k; /* valid until call_end, which clears it under h->mu */
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static enum MHD_Result answer_parked(hreq *h)
{
    pthread_mutex_lock(&h->mu);
    if (h->sse && !h->sse_queued) { /* a notification turned the call to an event stream */
        pthread_mutex_unlock(&h->mu);
        return start_sse(h);
    }
    if (!h->done) {
        h->suspended = true;
        MHD_suspend_connection(h->conn);
        pthread_mutex_unlock(&h->mu);
        return MHD_YES;
    }
    bool silent = h->client_cancelled;
    pthread_mutex_unlock(&h->mu);
    if (!silent)
        return send_json(h, h->status, h->reply);
    /* MCP sends no reply to a cancelled request: an event stream without events */
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    enum MHD_Result rc = MHD_queue_response(h->conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---- notification streams ------------------------------------------------------------------- */

/* Appends an SSE comment (": text"), which clients ignore. With h->mu held. */
static void push_comment(hreq *h, const char *text)
{
    tg_buf_puts(&h->out, ": ");
    tg_buf_puts(&h->out, text);
    tg_buf_puts(&h->out, "\n\n");
    wake(h);
}

/* Puts h on the list of open streams, after the checks; an error response is sent otherwise.
 * For a legacy session's GET, one stream per session. */
static bool stream_add(hreq *h, enum MHD_Result *rc)
{
    server *sv = h->sv;
    pthread_mutex_lock(&sv->streams_mu);
    /* stopping is set before stop() ends the streams under this lock: a stream added after
     * that would stay open past the end */
    bool busy = sv->stopping || sv->n_streams >= MAX_STREAMS, taken = false;
    for (hreq *o = sv->streams; o && h->sess; o = o->stream_next)
        taken = taken || o->sess == h->sess;
    if (!busy && !taken) {
        h->stream = h->in_streams = true;
        h->refs++; /* the list's */
        h->stream_next = sv->streams;
        sv->streams = h;
        sv->n_streams++;
    }
    pthread_mutex_unlock(&sv->streams_mu);
    if (taken)
        *rc = send_error(h, MHD_HTTP_CONFLICT, TG_RPC_INVALID_REQUEST,
                         "Conflict: this session's GET stream is already open; close it first");
    else if (busy)
        *rc = send_error(h, MHD_HTTP_SERVICE_UNAVAILABLE, TG_RPC_INVALID_REQUEST,
                         "Service Unavailable: too many notification streams are open, or the "
                         "server is stopping");
    return !busy && !taken;
}

/* Takes h off the list when it is on it (the client went away, or the server stops). */
static void stream_remove(server *sv, hreq *h)
{
    pthread_mutex_lock(&sv->streams_mu);
    bool was = h->in_streams;
    for (hreq **p = &sv->streams; was && *p; p = &(*p)->stream_next)
        if (*p == h) {
            *p = h->stream_next;
            break;
        }
    if (was) {
        h->in_streams = false;
        sv->n_streams--;
    }
    pthread_mutex_unlock(&sv->streams_mu);
    if (was)
        hreq_unref(h);
}

/* Ends the streams of sess (DELETE), or every stream (sess NULL: the server stops; a
 * subscription then gets its graceful end, the listen request's result). */
static void streams_end(server *sv, const session *sess)
{
    pthread_mutex_lock(&sv->streams_mu);
    for (hreq *h = sv->streams; h; h = h->stream_next) {
        if (sess && h->sess != sess)
            continue;
        pthread_mutex_lock(&h->mu);
        if (!h->sess && !h->done) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(h->msg, "id");
            cJSON *r = cJSON_CreateObject();
            cJSON_AddStringToObject(r, "jsonrpc", "2.0");
            cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, true));
            cJSON *res = cJSON_AddObjectToObject(r, "result");
            cJSON_AddStringToObject(res, "resultType", "complete");
            cJSON_AddItemToObject(cJSON_AddObjectToObject(res, "_meta"),
                                  "io.modelcontextprotocol/subscriptionId",
                                  cJSON_Duplicate(id, true));
            push_event(h, r);
            cJSON_Delete(r);
        }
        h->done = true;
        wake(h);
        pthread_mutex_unlock(&h->mu);
    }
    pthread_mutex_unlock(&sv->streams_mu);
}

/* The notifications a legacy session without a GET stream missed, kept for its next response
 * (at most OWED_MAX; a list change is owed once). With the core lock and streams_mu held. */
#define OWED_MAX 64
static void owe(server *sv, unsigned what)
{
    for (session *s = sv->sessions; s; s = s->next) {
        bool streaming = false;
        for (hreq *h = sv->streams; h && !streaming; h = h->stream_next)
            streaming = h->sess == s;
        if (s->ended || !s->s.initialized || streaming)
            continue;
        cJSON *due = tg_serve_changed(NULL, true, what);
        if ((what & TG_CHANGED_CONTENT) && sv->c->declared) {
            cJSON *up = tg_serve_updated(NULL, s->s.res_subs, sv->c->declared->changed);
            while (cJSON_GetArraySize(up))
                cJSON_AddItemToArray(due, cJSON_DetachItemFromArray(up, 0));
            cJSON_Delete(up);
        }
        if (!s->owed && cJSON_GetArraySize(due))
            s->owed = cJSON_CreateArray();
        for (cJSON *n; (n = cJSON_DetachItemFromArray(due, 0));) {
            bool have = false;
            const cJSON *o;
            cJSON_ArrayForEach(o, s->owed)
                have = have || cJSON_Compare(o, n, true);
            if (have || cJSON_GetArraySize(s->owed) >= OWED_MAX)
                cJSON_Delete(n);
            else
                cJSON_AddItemToArray(s->owed, n);
        }
        cJSON_Delete(due);
    }
}

/* Sends each open stream the notifications due when the lists in `what` changed: a legacy
 * session's GET stream the list_changed ones, a subscription those it asked for; a legacy
 * session without a GET stream is owed them (owe). With the core lock held. */
static void broadcast(server *sv, unsigned what)
{
    pthread_mutex_lock(&sv->streams_mu);
    for (hreq *h = sv->streams; h; h = h->stream_next) {
        cJSON *all = tg_serve_changed(h->sess ? NULL : h->scratch.subs, h->sess != NULL, what);
        if ((what & TG_CHANGED_CONTENT) && sv->c->declared) { /* the watched resources' */
            cJSON *up = tg_serve_updated(h->sess ? NULL : h->scratch.subs,
                                         h->sess ? h->sess->s.res_subs : NULL,
                                         sv->c->declared->changed);
            while (cJSON_GetArraySize(up))
                cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(up, 0));
            cJSON_Delete(up);
        }
        pthread_mutex_lock(&h->mu);
        for (cJSON *n = all->child; n && !h->done; n = n->next) {
            push_event(h, n);
            tg_serve_log lg = {.notification = true,
                               .era = h->sess ? TG_ERA_LEGACY : TG_ERA_MODERN};
            snprintf(lg.method, sizeof lg.method, "%s",
                     cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, "method")));
            tg_serve_log_line(sv->o->log_fd, &lg, "sent", 0);
        }
        pthread_mutex_unlock(&h->mu);
        cJSON_Delete(all);
    }
    owe(sv, what);
    pthread_mutex_unlock(&sv->streams_mu);
}

/* Takes what h's session is owed when h's response can carry it: an event stream the client
 * accepts. With the core lock held. NULL: nothing. */
static cJSON *take_owed(hreq *h)
{
    if (!h->sess || !h->sess->owed || !accepts(h->conn, "text/event-stream"))
        return NULL;
    cJSON *owed = h->sess->owed;
    h->sess->owed = NULL;
    return owed;
}

/* The owed notifications first on h's event stream (which they turn h's response into); each
 * logged as sent. Takes owed. */
static void pay_owed(hreq *h, cJSON *owed)
{
    pthread_mutex_lock(&h->mu);
    h->sse = true;
    for (const cJSON *n = owed ? owed->child : NULL; n; n = n->next) {
        push_event(h, n);
        tg_serve_log lg = {.notification = true, .era = TG_ERA_LEGACY};
        snprintf(lg.method, sizeof lg.method, "%s",
                 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(n, "method")));
        tg_serve_log_line(h->sv->o->log_fd, &lg, "sent", 0);
    }
    pthread_mutex_unlock(&h->mu);
    cJSON_Delete(owed);
}

/* A comment on each quiet stream, so that a client that went away is noticed (the write
 * fails and libmicrohttpd ends the request) and idle timeouts of proxies do not fire. */
static void keepalive(server *sv)
{
    pthread_mutex_lock(&sv->streams_mu);
    for (hreq *h = sv->streams; h; h = h->stream_next) {
        pthread_mutex_lock(&h->mu);
        if (h->out.len == h->out_off && !h->done)
            push_comment(h, "keep-alive");
        pthread_mutex_unlock(&h->mu);
    }
    pthread_mutex_unlock(&sv->streams_mu);
}

/* What the tool source's change check found, announced on the open streams (the dispatch's
 * announce, with the core lock held). */
static void announce(void *ctx, unsigned what)
{
    broadcast(ctx, what);
}

/* ---- sessions ------------------------------------------------------------------------------- */

static double idle_ms(const server *sv)
{
    return sv->o->session_idle_ms > 0 ? (double)sv->o->session_idle_ms : SESSION_IDLE_MS;
}

/* h holds s while h lives (hreq_unref lets go): s is not freed under it. With the core lock. */
static session *hold(hreq *h, session *s)
{
    h->sess = s;
    if (s) {
        atomic_fetch_add(&s->holds, 1);
        s->last_used = tg_now_ms();
    }
    return s;
}

/* Frees the sessions that ended, or were not used for their idle time, and that no request
 * holds. With the core lock held. */
static void sessions_sweep(server *sv)
{
    double now = tg_now_ms();
    for (session **p = &sv->sessions; *p;) {
        session *s = *p;
        if (atomic_load(&s->holds) == 0 && (s->ended || now - s->last_used > idle_ms(sv))) {
            *p = s->next;
            sv->n_sessions--;
            if (sv->c->client_gone && s->s.client)
                sv->c->client_gone(sv->c->client_gone_ctx, s->s.client);
            tg_serve_session_release(&s->s);
            cJSON_Delete(s->owed);
            pthread_mutex_lock(&sv->replay_mu);
            tg_replays_free(&s->replays);
            pthread_mutex_unlock(&sv->replay_mu);
            free(s->id);
            free(s);
        } else {
            p = &s->next;
        }
    }
}

/* The live session of that nonce; one idle past its idle time has ended. With the core lock. */
static session *session_find(server *sv, const char *nonce)
{
    double now = tg_now_ms();
    for (session *s = sv->sessions; s; s = s->next) {
        if (s->ended || !s->id || strcmp(s->nonce, nonce) != 0)
            continue;
        if (now - s->last_used > idle_ms(sv)) {
            s->ended = true;
            return NULL;
        }
        return s;
    }
    return NULL;
}

/* A new session, or NULL when MAX_SESSIONS are live. With the core lock held. */
static session *session_new(server *sv)
{
    if (sv->n_sessions >= MAX_SESSIONS)
        sessions_sweep(sv);
    if (sv->n_sessions >= MAX_SESSIONS)
        return NULL;
    session *s = xcalloc(1, sizeof *s);
    s->s.client = tg_serve_new_client();
    s->replays.tag = sv->route; /* a GET that resumes a stream elsewhere is relayed here */
    s->last_used = tg_now_ms();
    s->next = sv->sessions;
    sv->sessions = s;
    sv->n_sessions++;
    return s;
}

/* 32 random hex digits into out. */
static void random_hex(char out[33])
{
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) /* cannot fail for 16 bytes */
        memset(rnd, 0, sizeof rnd);
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(out + 2 * i, 3, "%02x", rnd[i]);
}

/*
 * Gives s, just initialized or given a new log level, its id: its nonce and what the core
 * needs to continue the session (tg_serve_session_state) with the count of log level changes,
 * signed with the state key, so that another instance holding the same key continues it
 * (docs/scale.md); without a key, the nonce alone. With the core lock held.
 */
static void session_issue(server *sv, session *s)
{
    if (!s->nonce[0])
        random_hex(s->nonce);
    free(s->id);
    if (!sv->c->mrtr) {
        s->id = xstrdup(s->nonce);
        return;
    }
    cJSON *st = tg_serve_session_state(&s->s);
    cJSON_AddStringToObject(st, "n", s->nonce);
    cJSON_AddNumberToObject(st, "q", s->level_seq);
    s->id = tg_serve_mrtr_sign_hex(sv->c->mrtr, SESSION_DOMAIN, st);
    cJSON_Delete(st);
}

static bool tombstoned(const server *sv, const char *nonce)
{
    for (size_t i = 0; i < TOMBS; i++)
        if (sv->tombs[i] && strcmp(sv->tombs[i], nonce) == 0)
            return true;
    return false;
}

static void bury(server *sv, const char *nonce)
{
    free(sv->tombs[sv->next_tomb]);
    sv->tombs[sv->next_tomb] = xstrdup(nonce);
    sv->next_tomb = (sv->next_tomb + 1) % TOMBS;
}

/* The nonce id names (into nonce) and, with a key, the state it carries (*state, caller
 * frees); false when id is not a session id this server could have issued. */
static bool session_key(const server *sv, const char *id, char nonce[33], cJSON **state)
{
    *state = NULL;
    const char *n = id;
    if (sv->c->mrtr) {
        *state = tg_serve_mrtr_open_hex(sv->c->mrtr, SESSION_DOMAIN, id);
        n = tg_json_get_string(*state, "n");
    }
    if (!n || strlen(n) != 32) {
        cJSON_Delete(*state);
        *state = NULL;
        return false;
    }
    memcpy(nonce, n, 33);
    return true;
}

/* A session id a client presents carries a later log level than s has here (logging/setLevel
 * answered by another instance): s takes it, and the id, which its replies then carry (a
 * client that takes up the id of any reply must not be handed back an older one). */
static void session_sync(session *s, const char *id, const cJSON *state)
{
    double q = tg_json_get_number(state, "q", 0);
    tg_serve_session later = {0};
    if (q > s->level_seq && q < 1e9 && tg_serve_session_restore(&later, state)) {
        memcpy(s->s.log_level, later.log_level, sizeof later.log_level);
        s->level_seq = (unsigned)q;
        free(s->id);
        s->id = xstrdup(id);
    }
}

/* A session rebuilt from the state its id carries, or NULL (full, or a state this server
 * cannot continue). With the core lock held. */
static session *session_adopt(server *sv, const char *id, const char *nonce, const cJSON *state)
{
    session *s = session_new(sv);
    if (s && tg_serve_session_restore(&s->s, state)) {
        s->id = xstrdup(id);
        memcpy(s->nonce, nonce, sizeof s->nonce);
        double q = tg_json_get_number(state, "q", 0);
        s->level_seq = q > 0 && q < 1e9 ? (unsigned)q : 0;
        return s;
    }
    if (s)
        s->ended = true; /* 404, as an unknown id */
    return NULL;
}

/* The session of id: the one here, or — with a key the instances share — one rebuilt from the
 * state its id carries (a session another instance behind the same load balancer started, or
 * one whose state here idled away; docs/scale.md). Without a shared key an id not found here
 * is one that ended. With the core lock held. */
static session *session_get(server *sv, const char *id)
{
    char nonce[33];
    cJSON *state;
    if (!session_key(sv, id, nonce, &state))
        return NULL;
    session *s = session_find(sv, nonce);
    if (s && state)
        session_sync(s, id, state);
    else if (!s && state && sv->c->mrtr->shared && !tombstoned(sv, nonce))
        s = session_adopt(sv, id, nonce, state);
    cJSON_Delete(state);
    return s;
}

/* The session a legacy request belongs to, set in h->sess; otherwise an error response sent.
 * initialize gets a new session (kept only when it succeeds). With the core lock held. */
static bool legacy_session(hreq *h, const char *method, enum MHD_Result *rc)
{
    const char *id = MHD_lookup_connection_value(h->conn, MHD_HEADER_KIND, SESSION_HEADER);
    if (method && strcmp(method, "initialize") == 0) {
        if (hold(h, session_new(h->sv)))
            return true;
        *rc = send_error(h, MHD_HTTP_SERVICE_UNAVAILABLE, TG_RPC_INVALID_REQUEST,
                         "Service Unavailable: too many sessions are open; end unused ones "
                         "(DELETE) or retry later");
        return false;
    }
    if (!id) { /* no session: the core answers ping, and refuses the rest with -32602 */
        h->meta_invalid = true;
        return true;
    }
    if (!hold(h, session_get(h->sv, id))) {
        *rc = send_error(h, MHD_HTTP_NOT_FOUND, -32001,
                         "Session not found: it ended or the server restarted; send initialize "
                         "again");
        return false;
    }
    return true;
}

static bool legacy_version_ok(const char *v)
{
    if (!v)
        return true; /* clients before 2025-06-18 send none */
    for (size_t i = 0; tg_serve_legacy_versions[i]; i++)
        if (strcmp(v, tg_serve_legacy_versions[i]) == 0)
            return true;
    return false;
}

/* ---- the requests --------------------------------------------------------------------------- */

static const char *header(hreq *h, const char *name)
{
    return MHD_lookup_connection_value(h->conn, MHD_HEADER_KIND, name);
}

static const char *header_of(void *ctx, const char *name)
{
    return header(ctx, name);
}

/* The core's answer to h's message. With the core lock held. */
static cJSON *handle(hreq *h)
{
    tg_serve_session *s = h->sess ? &h->sess->s : &h->scratch; /* scratch: client 0 */
    tg_serve_reqctx rq = {.dispatch = h->sv->dp, .client = s->client};
    return tg_serve_handle_in(h->sv->c, s, h->msg, &h->lg, &rq);
}

/* Answers msg on this thread (anything but tools/call). With the core lock held. */
static enum MHD_Result answer_now(hreq *h)
{
    double t0 = tg_now_ms();
    char level[sizeof h->sess->s.log_level] = "";
    if (h->sess)
        memcpy(level, h->sess->s.log_level, sizeof level);
    cJSON *reply = handle(h);
    if (h->sess && !h->sess->s.initialized) {
        h->sess->ended = true; /* initialize failed: no session */
    } else if (h->sess && (!h->sess->id || strcmp(level, h->sess->s.log_level) != 0)) {
        /* a new session's id; a new log level, in a new id the reply carries, which any
         * instance continues with that level (docs/scale.md#legacy-sessions) */
        h->sess->level_seq += h->sess->id != NULL;
        session_issue(h->sv, h->sess);
    }
    tg_serve_log_line(h->sv->o->log_fd, &h->lg, NULL, tg_now_ms() - t0);
    unsigned status = tg_http_status_of(reply, h->lg.era);
    if (h->meta_invalid && cJSON_GetObjectItemCaseSensitive(reply, "error"))
        status = MHD_HTTP_BAD_REQUEST;
    cJSON *owed = reply && status == MHD_HTTP_OK ? take_owed(h) : NULL;
    enum MHD_Result rc;
    if (owed) { /* what the session missed, then the reply, on one event stream */
        pay_owed(h, owed);
        pthread_mutex_lock(&h->mu);
        push_event(h, reply);
        h->done = true;
        pthread_mutex_unlock(&h->mu);
        rc = start_sse(h);
    } else {
        rc = reply ? send_json(h, status, reply) : send_json(h, MHD_HTTP_ACCEPTED, NULL);
    }
    cJSON_Delete(reply);
    return rc;
}

/* Answers a 2026-07-28 subscriptions/listen: an event stream that begins with the
 * acknowledgement and stays open for the notifications (or the error, as answer_now). With
 * the core lock held. */
static enum MHD_Result open_listen(hreq *h)
{
    double t0 = tg_now_ms();
    cJSON *reply = handle(h); /* h->sess is NULL: the scratch session */
    tg_serve_log_line(h->sv->o->log_fd, &h->lg, NULL, tg_now_ms() - t0);
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(reply, "method"));
    enum MHD_Result rc = MHD_YES;
    if (!m) { /* refused: no filter, or the era's checks */
        rc = send_json(h, tg_http_status_of(reply, h->lg.era), reply);
    } else {
        pthread_mutex_lock(&h->mu);
        push_event(h, reply); /* the acknowledgement comes first, before any notification */
        pthread_mutex_unlock(&h->mu);
        if (stream_add(h, &rc))
            rc = start_sse(h);
    }
    cJSON_Delete(reply);
    return rc;
}

static bool is_listen(const hreq *h)
{
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h->msg, "method"));
    return m && strcmp(m, "subscriptions/listen") == 0 && !h->sess && !h->meta_invalid &&
           tg_http_is_modern(h->msg) && cJSON_GetObjectItemCaseSensitive(h->msg, "id") &&
           tg_serve_listens(h->sv->c);
}

static bool is_call(const cJSON *msg)
{
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    return m && strcmp(m, "tools/call") == 0 && cJSON_GetObjectItemCaseSensitive(msg, "id") &&
           cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(msg, "params"));
}

/* Header and session checks of a parsed message; an error response is sent when they fail. */
static bool admit(hreq *h, enum MHD_Result *rc)
{
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h->msg, "method"));
    const char *version = header(h, "MCP-Protocol-Version");
    if (tg_http_is_modern(h->msg)) {
        cJSON *bad = tg_http_check_headers(h->msg, version, header(h, "Mcp-Method"),
                                           header(h, "Mcp-Name"));
        if (!bad && method && strcmp(method, "tools/call") == 0) { /* x-mcp-header parameters */
            cJSON *specs = tg_serve_header_params(h->sv->c, cJSON_GetStringValue(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h->msg, "params"),
                                                 "name")));
            bad = specs ? tg_http_check_params(h->msg, specs, header_of, h) : NULL;
            cJSON_Delete(specs);
        }
        if (bad) {
            *rc = send_json(h, MHD_HTTP_BAD_REQUEST, bad);
            cJSON_Delete(bad);
            return false;
        }
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(h->msg, "params"), "_meta");
        h->meta_invalid = !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
            meta, "io.modelcontextprotocol/clientCapabilities"));
        return true;
    }
    if (version && strcmp(version, TG_SERVE_MODERN_VERSION) == 0) {
        h->meta_invalid = true; /* a 2026-07-28 request without its _meta: the core says so */
        return true;
    }
    if (!legacy_version_ok(version) && !(method && strcmp(method, "initialize") == 0)) {
        char text[200];
        snprintf(text, sizeof text, "Bad Request: unsupported MCP-Protocol-Version '%.60s'", version);
        *rc = send_error(h, MHD_HTTP_BAD_REQUEST, TG_RPC_INVALID_REQUEST, text);
        return false;
    }
    return legacy_session(h, method, rc);
}

/* ---- messages that belong to another instance (serve/forward.h) ---------------------------- */

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    tg_strv *v = cls;
    if (key && value && (strncasecmp(key, "mcp-", 4) == 0 || strcasecmp(key, "accept") == 0 ||
                         strcasecmp(key, "last-event-id") == 0)) {
        tg_strv_push(v, key);
        tg_strv_push(v, value);
    }
    return MHD_YES;
}

/* The headers of h another instance needs to take its message as the client sent it — the
 * session's id, the protocol version, Mcp-Method, Mcp-Name, Mcp-Param-*, Accept, Last-Event-ID
 * —, name and value in turn (the bearer token is the sender's own: the instances share it). */
static void mcp_headers(hreq *h, tg_strv *v)
{
    MHD_get_connection_values(h->conn, MHD_HEADER_KIND, collect_header, v);
}

static bool forwarded(hreq *h)
{
    return header(h, TG_SERVE_FORWARDED_HEADER) != NULL;
}

/* The instance a client's response in h belongs to, when another instance sharing the state
 * key sent the request it answers (its id names that instance's URL, signed; serve/dispatch.h)
 * and h was not forwarded already: the URL (heap). NULL otherwise. */
static char *owner_of(hreq *h)
{
    const tg_serve_mrtr *m = h->sv->c->mrtr;
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h->msg, "id"));
    const char *dot = id && tg_str_startswith(id, ASK_PREFIX) ? strchr(id, '.') : NULL;
    if (!dot || !m || !m->shared || !h->sv->fwd || forwarded(h) ||
        cJSON_GetObjectItemCaseSensitive(h->msg, "method"))
        return NULL;
    cJSON *p = tg_serve_mrtr_open_hex(m, ASK_DOMAIN, dot + 1);
    const char *url = tg_json_get_string(p, "u");
    char *owner = url && (!h->sv->self_url || strcmp(url, h->sv->self_url) != 0) ? xstrdup(url)
                                                                                   : NULL;
    cJSON_Delete(p);
    return owner;
}

/* Hands h's message to the instance at url (a response, a cancel), on a thread of forward.c:
 * libmicrohttpd's thread serves every connection and must not wait for another server. */
static void hand_on(hreq *h, const char *url, const char *label)
{
    tg_strv hs = {0};
    mcp_headers(h, &hs);
    tg_serve_fwd_post(h->sv->fwd, url, h->msg, (const char *const *)hs.v, label);
    tg_strv_free(&hs);
}

/* A legacy notifications/cancelled that h carries, after the calls here had it (found_here):
 * to the instance that runs the call it names (serve/forward.h). */
static void cancel_elsewhere(hreq *h, bool found_here)
{
    const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h->msg, "method"));
    if (!h->sv->fwd || !h->sess || forwarded(h) || !m || strcmp(m, "notifications/cancelled") != 0)
        return;
    tg_strv hs = {0};
    mcp_headers(h, &hs);
    tg_serve_fwd_cancel(h->sv->fwd, h->sess->nonce, h->msg, (const char *const *)hs.v,
                        found_here);
    tg_strv_free(&hs);
}

/* The instance a tools/call in h is to be relayed to: the one its code session lives in
 * (docs/scale.md#code-sessions), when not this one and h was not relayed already. */
static char *relay_to(hreq *h)
{
    if (!h->sv->fwd || forwarded(h))
        return NULL; /* relayed here: this instance answers, or refuses naming both */
    return tg_serve_route_of(h->sv->c->mrtr, h->msg, h->sv->self_url);
}

/* The instance that keeps the event stream Last-Event-ID last names, when its id carries the
 * route of another instance (serve/replay.h) and h was not relayed already: its URL (heap). */
static char *event_owner(hreq *h, const char *last)
{
    const char *dot = strchr(last, '.');
    if (!dot || !h->sv->fwd || forwarded(h))
        return NULL;
    return tg_serve_route_url(h->sv->c->mrtr, dot + 1, h->sv->self_url);
}

/* ---- calls (and resumed streams) relayed to another instance -------------------------------- */

/* The reply of a relayed call whose owner could not be reached: a tool error saying what to do
 * (the session is likely gone with its instance). */
static cJSON *unreachable(const hreq *h)
{
    const char *sid = tg_json_get_string(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(h->msg, "params"), "arguments"), "session_id");
    int n = sid ? (int)strcspn(sid, ".") : 0;
    char text[700];
    snprintf(text, sizeof text,
             "session %.*s lives in another instance of this server (instance %.*s), which could "
             "not be reached: it stopped, or is too busy to take the call. If it stopped, the "
             "session's interpreter, variables and files are gone with it: call create_session "
             "for a new session and run its setup again (imports, loading data)",
             n, sid ? sid : "", n > 13 ? 8 : 0, sid && n > 13 ? sid + 5 : "");
    cJSON *res = tg_serve_error_result(NULL, "UNAVAILABLE", text);
    /* the tool's outputSchema is the owner's business: the error travels as text alone */
    cJSON_DeleteItemFromObjectCaseSensitive(res, "structuredContent");
    if (tg_http_is_modern(h->msg))
        cJSON_AddStringToObject(res, "resultType", "complete");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddItemToObject(r, "id",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(h->msg, "id"), true));
    cJSON_AddItemToObject(r, "result", res);
    return r;
}

/* What the client of a relay that got no reply is answered; its status into h->status. */
static cJSON *relay_failed(hreq *h)
{
    h->status = MHD_HTTP_OK;
    if (h->sv->stopping) { /* it stopped the relay: 503, as a call of its own gets */
        h->status = MHD_HTTP_SERVICE_UNAVAILABLE;
        return tg_serve_error_reply(cJSON_GetObjectItemCaseSensitive(h->msg, "id"),
                                    TG_RPC_INTERNAL_ERROR, "the server is stopping");
    }
    if (!h->msg) { /* a resumed GET: as a stream no longer kept */
        h->status = MHD_HTTP_NOT_FOUND;
        return tg_serve_error_reply(NULL, TG_RPC_INVALID_REQUEST,
                                    "Not Found: the instance that sent the stream named by "
                                    "Last-Event-ID cannot be reached; open a new GET stream");
    }
    return unreachable(h);
}

/* The head of the owner's reply: an event stream goes out as it comes (relay_stream), JSON once
 * it is whole. On forward.c's thread, as relay_data and relay_end. */
static void relay_head(void *ctx, long status, const char *type, const char *sid)
{
    hreq *h = ctx;
    pthread_mutex_lock(&h->mu);
    h->relay_status = status;
    h->relay_type = type ? xstrdup(type) : NULL;
    h->relay_sid = sid ? xstrdup(sid) : NULL;
    h->relay_head = true;
    h->sse = type && tg_str_startswith(type, "text/event-stream");
    wake(h);
    pthread_mutex_unlock(&h->mu);
}

static bool relay_data(void *ctx, const char *bytes, size_t n)
{
    hreq *h = ctx;
    pthread_mutex_lock(&h->mu);
    bool open = h->conn != NULL; /* the client went away: the relay stops */
    if (open) {
        tg_buf_append(&h->out, bytes, n);
        if (h->sse)
            wake(h);
    }
    pthread_mutex_unlock(&h->mu);
    return open;
}

/* The relay ended. No reply came (the owner is gone, or broke off): the client gets a tool
 * error, as the last event of a stream already under way, or as the reply. */
static void relay_end(void *ctx, long status, const char *why)
{
    (void)why; /* the operator's: the log line says forward_failed */
    hreq *h = ctx;
    pthread_mutex_lock(&h->mu);
    /* a resumed stream that broke off just ends, as the owner's own would */
    if (status < 0 && h->conn && !(h->sse && h->relay_head && !h->msg)) {
        cJSON *r = relay_failed(h);
        if (h->sse && h->relay_head) {
            push_event(h, r);
            cJSON_Delete(r);
        } else {
            tg_buf_truncate(&h->out, 0);
            h->out_off = 0;
            h->reply = r;
        }
    }
    h->done = true;
    wake(h);
    pthread_mutex_unlock(&h->mu);
    hreq_unref(h);
}

/* Relays h's tools/call to the instance at url (taken), which holds its code session, or h's
 * GET (h->msg NULL) to the one that keeps the stream it resumes; the connection waits for the
 * reply's head. */
static enum MHD_Result start_relay(hreq *h, char *url)
{
    tg_strv hs = {0};
    mcp_headers(h, &hs);
    tg_serve_log lg = {.era = TG_ERA_LEGACY, .notification = true, .method = "(resume)"};
    if (h->msg) {
        tg_serve_log_unstarted(&lg, h->msg);
        lg.era = h->sess ? TG_ERA_LEGACY : TG_ERA_MODERN;
    }
    tg_serve_relay_sink sink = {.head = relay_head, .data = relay_data, .end = relay_end,
                                .ctx = h};
    h->started = h->relay = true;
    /* the relay's thread waits for h->mu: the connection is parked before it can wake it */
    pthread_mutex_lock(&h->mu);
    h->refs++; /* the relay's, dropped by relay_end */
    bool ok = tg_serve_fwd_relay(h->sv->fwd, url, h->msg, (const char *const *)hs.v,
                                 h->sess ? h->sess->nonce : NULL, &h->relay_cancel, &sink,
                                 &lg) == 0;
    if (ok) {
        h->suspended = true;
        MHD_suspend_connection(h->conn);
    } else {
        h->refs--;
    }
    pthread_mutex_unlock(&h->mu);
    tg_strv_free(&hs);
    free(url);
    if (ok)
        return MHD_YES;
    tg_serve_log_line(h->sv->o->log_fd, &lg, "forward_failed", 0);
    cJSON *r = relay_failed(h);
    enum MHD_Result rc = send_json(h, h->status, r);
    cJSON_Delete(r);
    return rc;
}

/* Sends r with the owner's status, content type and session id (what the client would have had
 * from the owner itself), and releases it. */
static enum MHD_Result queue_relayed(hreq *h, struct MHD_Response *r)
{
    if (h->relay_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, h->relay_type);
    if (h->relay_sid)
        MHD_add_response_header(r, SESSION_HEADER, h->relay_sid);
    enum MHD_Result rc = MHD_queue_response(h->conn, (unsigned)h->relay_status, r);
    MHD_destroy_response(r);
    return rc;
}

/* The owner's event stream, event by event, with its status and headers. */
static enum MHD_Result relay_stream(hreq *h)
{
    return queue_relayed(h, stream_response(h));
}

/* A relayed call's connection, woken: its stream starts, its whole reply goes out, or it waits
 * on. */
static enum MHD_Result answer_relay(hreq *h)
{
    pthread_mutex_lock(&h->mu);
    bool stream = h->relay_head && h->sse && !h->reply;
    if (!h->done && !stream) {
        h->suspended = true;
        MHD_suspend_connection(h->conn);
        pthread_mutex_unlock(&h->mu);
        return MHD_YES;
    }
    pthread_mutex_unlock(&h->mu); /* done, or a stream whose reader takes h->mu itself */
    if (h->reply)
        return send_json(h, h->status, h->reply);
    if (stream)
        return relay_stream(h);
    return queue_relayed(h, MHD_create_response_from_buffer(h->out.len, h->out.data,
                                                            MHD_RESPMEM_MUST_COPY));
}

static enum MHD_Result on_post(hreq *h)
{
    if (h->too_big) {
        char text[120];
        snprintf(text, sizeof text, "Invalid Request: message longer than %zu bytes", h->sv->cap);
        return send_error(h, MHD_HTTP_CONTENT_TOO_LARGE, TG_RPC_INVALID_REQUEST, text);
    }
    tg_err perr = {0};
    h->msg = tg_json_parse(h->body.data ? h->body.data : "", h->body.len, NULL, NULL,
                           &tg_serve_message_limits, &perr);
    if (!h->msg) {
        char text[300];
        snprintf(text, sizeof text, "Parse error: line %d, column %d: %.200s", perr.line, perr.col,
                 perr.msg);
        tg_serve_log lg = {.rpc_error = TG_RPC_PARSE_ERROR};
        tg_serve_log_line(h->sv->o->log_fd, &lg, NULL, 0);
        return send_error(h, MHD_HTTP_BAD_REQUEST, TG_RPC_PARSE_ERROR, text);
    }
    enum MHD_Result rc = MHD_YES;
    tg_serve_lock(h->sv->dp);
    bool ok = admit(h, &rc);
    bool call = ok && !h->meta_invalid && is_call(h->msg);
    char *route = call ? relay_to(h) : NULL; /* its code session lives in another instance */
    cJSON *owed = call && !route ? take_owed(h) : NULL;
    bool cancelled = false; /* a legacy client's notifications/cancelled, in its own session */
    if (ok && !call)
        cancelled = tg_serve_dispatch_cancel_named(h->sv->dp, h->sess, h->msg);
    char *owner = NULL; /* or the response a call of its session waits for, here or elsewhere */
    if (ok && !call && h->sess && !tg_serve_dispatch_answer(h->sv->dp, &h->sess->s, h->msg))
        owner = owner_of(h);
    if (ok && !call)
        rc = is_listen(h) ? open_listen(h) : answer_now(h);
    tg_serve_unlock(h->sv->dp);
    if (owner)
        hand_on(h, owner, "(response)");
    free(owner);
    if (ok && !call)
        cancel_elsewhere(h, cancelled);
    if (route)
        return start_relay(h, route);
    if (!call)
        return rc;
    if (h->sv->stopping) {
        cJSON_Delete(owed);
        return send_error(h, MHD_HTTP_SERVICE_UNAVAILABLE, TG_RPC_INTERNAL_ERROR,
                          "the server is stopping");
    }
    return start_call(h, owed);
}

static enum MHD_Result on_delete(hreq *h)
{
    const char *id = header(h, SESSION_HEADER);
    if (!id)
        return send_error(h, MHD_HTTP_METHOD_NOT_ALLOWED, TG_RPC_INVALID_REQUEST,
                          "Method Not Allowed: DELETE ends a legacy session and needs its "
                          SESSION_HEADER);
    tg_serve_lock(h->sv->dp);
    char nonce[33];
    cJSON *st;
    bool ours = session_key(h->sv, id, nonce, &st);
    session *s = ours ? session_find(h->sv, nonce) : NULL;
    if (s)
        s->ended = true;
    /* another instance's session, or one whose state here idled away, ends here too */
    bool foreign = !s && st && h->sv->c->mrtr->shared && !tombstoned(h->sv, nonce);
    if (s || foreign)
        bury(h->sv, nonce);
    tg_serve_unlock(h->sv->dp);
    cJSON_Delete(st);
    if (foreign)
        return send_json(h, MHD_HTTP_OK, NULL);
    if (!s)
        return send_error(h, MHD_HTTP_NOT_FOUND, -32001, "Session not found");
    streams_end(h->sv, s);
    return send_json(h, MHD_HTTP_OK, NULL);
}

/* GET with Last-Event-ID naming an event of a call's stream: the events after it, then the
 * rest of the stream as the call sends it (h follows the stream; serve/replay.h). Takes after. */
static enum MHD_Result resume(hreq *h, tg_replay_stream *rp, char *after)
{
    pthread_mutex_lock(&h->sv->replay_mu);
    hreq *old = tg_replay_follower(rp);
    if (old) { /* a second resumption: the first reader's stream ends */
        pthread_mutex_lock(&old->mu);
        old->done = true;
        wake(old);
        pthread_mutex_unlock(&old->mu);
    }
    tg_replay_set_follower(rp, h);
    tg_replay_hold(rp);
    h->following = rp;
    pthread_mutex_lock(&h->mu);
    tg_buf_puts(&h->out, after);
    h->done = tg_replay_ended(rp);
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_unlock(&h->sv->replay_mu);
    free(after);
    return start_sse(h);
}

/* GET with a legacy session's id opens its stream of server messages (the list changes);
 * one per session. 2026-07-28 has no GET stream (subscriptions/listen instead): 405 without a
 * session id. */
static enum MHD_Result on_get(hreq *h)
{
    const char *id = header(h, SESSION_HEADER);
    if (!id)
        return send_error(h, MHD_HTTP_METHOD_NOT_ALLOWED, TG_RPC_INVALID_REQUEST,
                          "Method Not Allowed: GET opens the stream of a legacy session and needs "
                          "its " SESSION_HEADER "; 2026-07-28 clients send subscriptions/listen");
    if (!legacy_version_ok(header(h, "MCP-Protocol-Version")))
        return send_error(h, MHD_HTTP_BAD_REQUEST, TG_RPC_INVALID_REQUEST,
                          "Bad Request: unsupported MCP-Protocol-Version for a GET stream");
    if (!accepts(h->conn, "text/event-stream"))
        return send_error(h, MHD_HTTP_NOT_ACCEPTABLE, TG_RPC_INVALID_REQUEST,
                          "Not Acceptable: the GET stream is text/event-stream; send it in Accept");
    const char *last = header(h, "Last-Event-ID");
    char *owner = last ? event_owner(h, last) : NULL;
    if (owner) /* a stream another instance sent: resumed there (docs/scale.md#the-rest) */
        return start_relay(h, owner);
    /* found and added under the core lock, so a DELETE either comes first (404) or ends it */
    enum MHD_Result rc = MHD_YES;
    char *after = NULL;
    tg_serve_lock(h->sv->dp);
    bool added = hold(h, session_get(h->sv, id));
    tg_replay_stream *rp = NULL;
    if (added && last) {
        pthread_mutex_lock(&h->sv->replay_mu);
        rp = tg_replay_find(&h->sess->replays, last, &after);
        pthread_mutex_unlock(&h->sv->replay_mu);
    }
    bool resume_call = rp && tg_replay_is_call(rp);
    if (added && !resume_call && !(last && !rp))
        added = stream_add(h, &rc);
    tg_serve_unlock(h->sv->dp);
    if (!h->sess)
        return send_error(h, MHD_HTTP_NOT_FOUND, -32001,
                          "Session not found: it ended or the server restarted; send initialize "
                          "again");
    if (last && !rp)
        return send_error(h, MHD_HTTP_NOT_FOUND, TG_RPC_INVALID_REQUEST,
                          "Not Found: no stream of this session has the event named by "
                          "Last-Event-ID, or its events are no longer kept");
    if (resume_call)
        return resume(h, rp, after);
    if (!added) {
        free(after);
        return rc;
    }
    make_resumable(h, false);
    prime(h); /* the headers go out at once: with the priming event, or a comment */
    pthread_mutex_lock(&h->mu);
    if (!h->rp)
        push_comment(h, "stream open");
    if (after) /* the events the last GET stream sent after the client's last */
        tg_buf_puts(&h->out, after);
    pthread_mutex_unlock(&h->mu);
    free(after);
    return start_sse(h);
}

/* DNS rebinding: a browser page of another site must not reach this server (403). */
static bool origin_ok(hreq *h)
{
    const char *host = header(h, MHD_HTTP_HEADER_HOST);
    if (tg_http_bind_is_loopback(h->sv->o->host) && !tg_http_host_is_loopback(host))
        return false;
    return tg_http_origin_allowed(header(h, "Origin"), h->sv->o->allowed_origins);
}

static enum MHD_Result route(hreq *h, const char *url, const char *method)
{
    if (strcmp(url, ENDPOINT) != 0)
        return send_error(h, MHD_HTTP_NOT_FOUND, TG_RPC_INVALID_REQUEST,
                          "Not Found: the MCP endpoint is " ENDPOINT);
    if (!origin_ok(h))
        return send_error(h, MHD_HTTP_FORBIDDEN, TG_RPC_INVALID_REQUEST,
                          "Forbidden: Host or Origin is not this machine's loopback (DNS "
                          "rebinding protection); start serve with --allow-origin ORIGIN");
    if (h->sv->o->token &&
        !tg_http_bearer_ok(header(h, MHD_HTTP_HEADER_AUTHORIZATION), h->sv->o->token))
        return send_error(h, MHD_HTTP_UNAUTHORIZED, TG_RPC_INVALID_REQUEST,
                          "Unauthorized: this server takes requests with the header "
                          "'Authorization: Bearer TOKEN', TOKEN the value of TOOLGEN_SERVE_TOKEN "
                          "it was started with");
    if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        return on_post(h);
    if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
        return on_delete(h);
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return on_get(h);
    return send_error(h, MHD_HTTP_METHOD_NOT_ALLOWED, TG_RPC_INVALID_REQUEST,
                      "Method Not Allowed: POST JSON-RPC messages to " ENDPOINT);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    server *sv = cls;
    hreq *h = *con_cls;
    if (!h) {
        h = xcalloc(1, sizeof *h);
        h->sv = sv;
        h->refs = 1;
        h->conn = conn;
        pthread_mutex_init(&h->mu, NULL);
        *con_cls = h;
        atomic_fetch_add(&sv->open_requests, 1);
        return MHD_YES;
    }
    if (*upload_size) {
        if (h->body.len + *upload_size > sv->cap)
            h->too_big = true; /* read on and drop, then refuse */
        else
            tg_buf_append(&h->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (h->started)
        return h->relay ? answer_relay(h) : answer_parked(h);
    return route(h, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    hreq *h = *con_cls;
    if (!h)
        return;
    atomic_fetch_sub(&h->sv->open_requests, 1);
    stream_remove(h->sv, h);
    if (h->following) { /* a resumed stream's reader went away */
        pthread_mutex_lock(&h->sv->replay_mu);
        if (tg_replay_follower(h->following) == h)
            tg_replay_set_follower(h->following, NULL);
        tg_replay_release(h->following);
        h->following = NULL;
        pthread_mutex_unlock(&h->sv->replay_mu);
    }
    pthread_mutex_lock(&h->mu);
    h->conn = NULL;
    if (h->relay && !h->done)
        h->relay_cancel = 1; /* the owner sees its stream close, as if the client closed it */
    /* the client closed the stream: the call stops — unless it is a legacy session's event
     * stream, which the client may resume (GET with Last-Event-ID), as its revisions ask */
    if (!h->done && h->slot && !(h->rp && h->sse))
        tg_serve_dispatch_cancel(h->slot);
    pthread_mutex_unlock(&h->mu);
    hreq_unref(h);
    *con_cls = NULL;
}

/* ---- start and stop ------------------------------------------------------------------------- */

static int resolve(const char *host, unsigned port, struct sockaddr_storage *ss, tg_err *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE};
    struct addrinfo *ai = NULL;
    int e = getaddrinfo(host, NULL, &hints, &ai);
    if (e != 0)
        return tg_err_set(err, "--http %s: %s", host, gai_strerror(e));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
    return 0;
}

/* As many connections as MAX_CONNECTIONS, within the descriptors the process may open (its
 * soft limit raised to the hard one), keeping a quarter of them for sandboxes and files. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 256;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (want > rl.rlim_cur) {
            struct rlimit raised = {.rlim_cur = want, .rlim_max = rl.rlim_max};
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
                rl.rlim_cur = want;
        }
    }
    rlim_t usable = rl.rlim_cur / 4 * 3;
    return usable < 64 ? 64 : usable > MAX_CONNECTIONS ? MAX_CONNECTIONS : (unsigned)usable;
}

/* Where the other instances behind the load balancer reach this one (tg_serve_http.advertise),
 * named in the ids of the requests calls send their clients, signed with the shared key, so
 * that the client's response comes back here from whichever instance it reaches. */
static void name_self(server *sv, const char *host, unsigned port)
{
    const tg_serve_mrtr *m = sv->c->mrtr;
    bool wildcard = strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0 || !*host;
    if (sv->o->advertise)
        sv->self_url = xstrdup(sv->o->advertise);
    else if (!wildcard)
        sv->self_url = strchr(host, ':') ? xasprintf("http://[%s]:%u" ENDPOINT, host, port)
                                         : xasprintf("http://%s:%u" ENDPOINT, host, port);
    if (!sv->self_url || !m || !m->shared || !sv->fwd)
        return;
    tg_serve_fwd_set_self(sv->fwd, sv->self_url);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "u", sv->self_url);
    char *tag = tg_serve_mrtr_sign_hex(m, ASK_DOMAIN, p);
    tg_serve_dispatch_set_ask_tag(sv->dp, tag);
    free(tag);
    cJSON_Delete(p);
    /* and in the handles of the code sessions made here (docs/scale.md#code-sessions) */
    char *route = tg_serve_route_make(m, sv->self_url);
    if (sv->o->routed)
        sv->o->routed(sv->o->routed_ctx, route);
    tg_serve_lock(sv->dp); /* and in the ids of the events of the sessions from now on */
    sv->route = route;
    tg_serve_unlock(sv->dp);
}

static int start(server *sv, tg_err *err)
{
    const char *host = sv->o->host ? sv->o->host : "127.0.0.1";
    struct sockaddr_storage ss;
    if (resolve(host, sv->o->port, &ss, err) != 0)
        return -1;
    /* epoll: thousands of open connections cost the loop nothing while they are quiet */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    unsigned limit = connection_limit();
    sv->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, sv,
                             MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                             MHD_OPTION_NOTIFY_COMPLETED, on_completed, sv,
                             MHD_OPTION_CONNECTION_LIMIT, limit,
                             MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                             limit < MAX_PER_IP ? limit : MAX_PER_IP,
                             MHD_OPTION_CONNECTION_TIMEOUT, CONN_IDLE_S,
                             MHD_OPTION_END);
    if (!sv->d)
        return tg_err_set(err, "--http %s:%u: cannot listen there (address in use, or not an "
                               "address of this machine?)", host, sv->o->port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(sv->d, MHD_DAEMON_INFO_BIND_PORT);
    name_self(sv, host, info ? info->port : sv->o->port);
    if (sv->o->ready)
        sv->o->ready(sv->o->ready_ctx, host, info ? info->port : sv->o->port);
    return 0;
}

/* Stops the calls in flight (their process groups are killed) and waits for them, so that no
 * connection stays parked when the listener closes. */
static void stop(server *sv)
{
    MHD_socket listen_fd = MHD_quiesce_daemon(sv->d); /* no new connections; the socket is ours */
    sv->stopping = true;
    tg_serve_dispatch_cancel_all(sv->dp);
    streams_end(sv, NULL);
    tg_serve_fwd_stop(sv->fwd); /* relayed calls stopped, their connections woken */
    tg_serve_dispatch_drain(sv->dp);
    /* Every request answered (a call stopped here takes its 503) before the connections close:
     * waited for as an event, not a pause a loaded machine may outlast. The bound only guards
     * against a hang: nothing is left that could hold a request open. */
    struct timespec pause = {0, 5 * 1000000L};
    for (int waited = 0; atomic_load(&sv->open_requests) > 0 && waited < STOP_WAIT_MS; waited += 5)
        nanosleep(&pause, NULL);
    MHD_stop_daemon(sv->d);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
}

/* Until *stop: a keep-alive on quiet streams, ended and idle sessions freed (the dispatch
 * sends progress and runs the change checks). */
static void serve_loop(server *sv)
{
    struct timespec pause = {0, 50 * 1000000L};
    double next_alive = tg_now_ms() + KEEPALIVE_MS, next_sweep = tg_now_ms() + SWEEP_MS;
    while (!*sv->o->stop) {
        double now = tg_now_ms();
        if (now >= next_alive) {
            keepalive(sv);
            next_alive = now + KEEPALIVE_MS;
        }
        if (now >= next_sweep) {
            tg_serve_lock(sv->dp);
            sessions_sweep(sv);
            tg_serve_unlock(sv->dp);
            next_sweep = now + SWEEP_MS;
        }
        nanosleep(&pause, NULL);
    }
}

int tg_serve_http_run(const tg_serve_config *c, const tg_serve_http *o, tg_err *err)
{
    if (!tg_mhd_load(err))
        return -1;
    server sv = {.c = c, .o = o};
    sv.cap = o->max_message ? o->max_message : TG_SERVE_MAX_MESSAGE;
    pthread_mutex_init(&sv.streams_mu, NULL);
    pthread_mutex_init(&sv.replay_mu, NULL);
    int rc = -1;
    /* a promotion through the workflow tools changes the tool set: the check after each call
     * reloads and announces it before the reply goes out, so the client's next request sees
     * the new set */
    tg_serve_dispatch_opts dopts = {.workers = o->max_concurrency, .progress_ms = o->progress_ms,
                                    .log_fd = o->log_fd, .stop = o->stop, .check = o->check,
                                    .check_ctx = o->check_ctx, .check_ms = o->check_ms,
                                    .check_after_call = true, .announce = announce,
                                    .announce_ctx = &sv};
    sv.dp = tg_serve_dispatch_start(c, &dopts, err);
    if (o->forward) /* before the socket listens: requests may come at once */
        sv.fwd = tg_serve_fwd_new(o->forward, o->forward_ctx, o->log_fd, o->peers);
    if (sv.dp && start(&sv, err) == 0) {
        serve_loop(&sv);
        stop(&sv);
        rc = 0;
    }
    tg_serve_dispatch_stop(sv.dp);
    tg_serve_fwd_free(sv.fwd);
    while (sv.streams) /* left by a stop that found a connection gone without its callback */
        stream_remove(&sv, sv.streams);
    while (sv.sessions) {
        session *next = sv.sessions->next;
        tg_serve_session_release(&sv.sessions->s);
        cJSON_Delete(sv.sessions->owed);
        tg_replays_free(&sv.sessions->replays);
        free(sv.sessions->id);
        free(sv.sessions);
        sv.sessions = next;
    }
    for (size_t i = 0; i < TOMBS; i++)
        free(sv.tombs[i]);
    free(sv.self_url);
    free(sv.route);
    pthread_mutex_destroy(&sv.streams_mu);
    pthread_mutex_destroy(&sv.replay_mu);
    return rc;
}
