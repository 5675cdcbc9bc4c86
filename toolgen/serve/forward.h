/*
 * forward.h — what one `serve --http` instance behind a load balancer hands on to another
 * (docs/scale.md): nothing else passes between instances at run time.
 *
 *   - a client's response to a request another instance's call sent it (the ids of such
 *     requests name that instance, serve/dispatch.h, docs/scale.md#legacy-sessions): one POST;
 *   - a tools/call whose code session lives in another instance: the handle carries a route,
 *     the owner's URL signed with the key the instances share (tg_serve_route_make, appended
 *     to handles by run/session.h), and the call is relayed there — the request as the client
 *     sent it, the reply (JSON, or an event stream, event by event) back to the client
 *     (docs/scale.md#code-sessions);
 *   - a legacy notifications/cancelled for a call another instance runs: to the instance this
 *     one relayed that call to, or else to the operator's peers (--peer), so that a cancel
 *     reaches the call wherever round robin sends it;
 *   - a GET whose Last-Event-ID names an event another instance sent (event ids carry its
 *     route, serve/replay.h): relayed there, which resumes the stream.
 *
 * Every URL an instance sends to is either signed with the shared key (a client cannot point
 * an instance at an address of its choosing: no request forgery) or the operator's. Every
 * message handed on carries TG_SERVE_FORWARDED_HEADER and is never handed on again.
 *
 * serve may not use net/ (docs/architecture.md): the POST itself is the caller's tg_serve_fwd_fn
 * (app/server.c, over net/httpreq.h, with the bearer token the instances share). This module
 * owns the threads the POSTs run on (libmicrohttpd's one thread must never wait for another
 * server), the calls relayed while they run (for their cancels), and the log lines.
 */
#ifndef TG_SERVE_FORWARD_H
#define TG_SERVE_FORWARD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "serve/core.h"
#include "serve/mrtr.h"

/* Marks a message one instance forwarded to another: never forwarded again. */
#define TG_SERVE_FORWARDED_HEADER "Toolgen-Forwarded"

/* One POST to another instance. */
typedef struct tg_serve_fwd_req {
    const char *url;
    const char *body;           /* one JSON-RPC message; NULL: a GET (a resumed event stream) */
    const char *const *headers; /* name, value, name, value, ..., NULL: the client's MCP headers
                                 * (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, ...) */
    /* a relayed call: no time limit (a call runs as long as it runs), stopped when *cancel is
     * set; its reply goes to head, once, then to data in pieces as they arrive (false: stop) */
    bool relay;
    const volatile sig_atomic_t *cancel;
    void (*head)(void *ud, long status, const char *content_type, const char *session_id);
    bool (*data)(void *ud, const char *bytes, size_t n);
    void *ud;
} tg_serve_fwd_req;

/* Sends rq: POST (GET without a body) with rq's headers, Content-Type, the bearer token and
 * TG_SERVE_FORWARDED_HEADER. The reply's status, or -1 with why (no connection, a broken one,
 * cancelled). */
typedef long (*tg_serve_fwd_fn)(void *ctx, const tg_serve_fwd_req *rq, char *why, size_t why_size);

typedef struct tg_serve_fwd tg_serve_fwd;

/* fn with ctx sends; lines go to log_fd (-1: none); peers (NULL-terminated; NULL: none) are
 * copied: a cancel found nowhere else goes to each of them but this instance. */
tg_serve_fwd *tg_serve_fwd_new(tg_serve_fwd_fn fn, void *ctx, int log_fd,
                               const char *const *peers);
/* This instance's URL, once known (the socket listens): a cancel is never sent to it. */
void tg_serve_fwd_set_self(tg_serve_fwd *f, const char *self_url);
/* Stops the calls being relayed (their cancel flags set) and waits for every thread; from
 * then on nothing is sent (a relay is refused, a hand-over dropped). NULL is a no-op. */
void tg_serve_fwd_stop(tg_serve_fwd *f);
/* Stops f, then frees it. NULL is a no-op. */
void tg_serve_fwd_free(tg_serve_fwd *f);

/* The route of the instance at url: {"u": url} signed under m in hex (heap). */
char *tg_serve_route_make(const tg_serve_mrtr *m, const char *url);
/* The URL route names, when it verifies under m (a key the instances share) and is not
 * self_url: heap. NULL otherwise. */
char *tg_serve_route_url(const tg_serve_mrtr *m, const char *route, const char *self_url);
/* When msg is a tools/call whose arguments.session_id is a handle with a route that verifies
 * under m (a key the instances share) and names a URL other than self_url: that URL (heap).
 * NULL otherwise: the call is this instance's to run (or refuse). */
char *tg_serve_route_of(const tg_serve_mrtr *m, const cJSON *msg, const char *self_url);

/* Hands msg to the instance at url on a thread of its own, logged as label ("(response)",
 * "notifications/cancelled") with "forwarded" or "forward_failed"; headers as in
 * tg_serve_fwd_req (copied). */
void tg_serve_fwd_post(tg_serve_fwd *f, const char *url, const cJSON *msg,
                       const char *const *headers, const char *label);

/* How a relayed call's reply reaches its client: head and data as in tg_serve_fwd_req, then
 * end once, last (status -1: it failed, why says how, possibly after head). */
typedef struct tg_serve_relay_sink {
    void (*head)(void *ctx, long status, const char *content_type, const char *session_id);
    bool (*data)(void *ctx, const char *bytes, size_t n);
    void (*end)(void *ctx, long status, const char *why);
    void *ctx;
} tg_serve_relay_sink;

/*
 * Relays msg, a tools/call of session nonce (NULL: a 2026-07-28 request), or with msg NULL a GET
 * that resumes an event stream (Last-Event-ID among the headers), to url on a thread of
 * its own, with headers (copied) and until *cancel (the caller's, valid until end) is set. lg
 * (copied; its id borrowed from msg, which must outlive end) makes its log line: "forwarded",
 * or "forward_failed" when no reply came. While it runs, a cancel of session nonce naming
 * its id goes to url (tg_serve_fwd_cancel). -1 when no thread could take it (too many relays
 * at once): nothing was sent and sink is not called.
 */
int tg_serve_fwd_relay(tg_serve_fwd *f, const char *url, const cJSON *msg,
                       const char *const *headers, const char *nonce,
                       volatile sig_atomic_t *cancel, const tg_serve_relay_sink *sink,
                       const tg_serve_log *lg);

/* A legacy notifications/cancelled msg of session nonce that cancelled no call here
 * (found_here false) or did: handed on to the instance a call of that session with the id it
 * names was relayed to; else, when nothing here had it, to every peer. */
void tg_serve_fwd_cancel(tg_serve_fwd *f, const char *nonce, const cJSON *msg,
                         const char *const *headers, bool found_here);

#endif
