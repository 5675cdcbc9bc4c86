/*
 * http.h — the Streamable HTTP transport of toolgen serve: one endpoint, /mcp, for both protocol
 * eras (docs/mcp.md, "Streamable HTTP"). libmicrohttpd does the HTTP; this file is its only
 * user (docs/architecture.md).
 *
 *   - POST carries one JSON-RPC message. A notification or response gets 202 (a response may
 *     answer a request a call of the session sent its client); a request gets its reply as
 *     application/json, or — a tools/call with a progressToken from a client that accepts it,
 *     or one that sends a notification or a request to its client before its reply — as a
 *     text/event-stream carrying them and then the reply. Closing a 2026-07-28 call's stream
 *     cancels the call.
 *   - 2026-07-28 requests (params._meta names the version) are stateless: no session, and the
 *     MCP-Protocol-Version, Mcp-Method and Mcp-Name headers (and the Mcp-Param-* of the tool's
 *     x-mcp-header parameters) must match the body (400 and HeaderMismatch -32020 otherwise).
 *   - legacy-era clients get a session: initialize's reply carries Mcp-Session-Id, later
 *     requests must send it back (400 without, 404 for an unknown one), DELETE ends it, and
 *     so does session_idle_ms without a request; at most 1024 are open at once (initialize
 *     beyond is refused with 503). The id is a random nonce and the session's state (the
 *     core's tg_serve_session_state) signed with the core's mrtr key, in hex; logging/setLevel
 *     reissues it with the new level. Behind a load balancer, with a key the instances share
 *     (docs/scale.md), an instance continues a session another one started from its id,
 *     hands a client's response to a request of another instance's call to that instance,
 *     relays a code session's call to the instance that holds the session, and hands a
 *     cancel on to the instance that runs the call (serve/forward.h).
 *     GET with the session's id opens its stream of server messages (one per session): the
 *     list changes and resource updates; a session without one open gets them with its next
 *     response that can be an event stream. A session's event streams are resumable: their
 *     events carry ids, and GET with Last-Event-ID replays the rest of the stream it names
 *     (serve/replay.h), so losing a call's stream does not cancel the call; behind a load
 *     balancer the ids name this instance, and a GET with one of another instance's is
 *     relayed there (serve/forward.h). GET without a session is 405.
 *   - a 2026-07-28 subscriptions/listen is answered with an event stream that starts with the
 *     acknowledgement and stays open, carrying the notifications it asked for, until the
 *     client closes it (or the server stops: then the listen request's result ends it).
 *   - Host (when bound to loopback) and Origin are checked against DNS rebinding: 403.
 *   - with a token, every request must carry `Authorization: Bearer TOKEN`: 401 otherwise, with
 *     `WWW-Authenticate: Bearer` (the CLI requires one when binding beyond loopback).
 *   - a body over max_message bytes is refused with 413.
 *   - up to 4096 connections at once (within the descriptors the process may open), 1024 from
 *     one address; one that sends nothing for 30 s is closed, but for event streams.
 *
 * Requests other than tools/call are answered on libmicrohttpd's thread; calls go to the
 * dispatch's max_concurrency workers with a queue (serve/dispatch.h), so a slow tool blocks
 * nothing else.
 * The server runs until *stop is set (a signal handler does that); then calls in flight are
 * cancelled (their process groups killed), their clients get 503, and the listener closes.
 */
#ifndef TG_SERVE_HTTP_H
#define TG_SERVE_HTTP_H

#include <signal.h>
#include <stddef.h>

#include "base/util.h"
#include "serve/core.h"
#include "serve/forward.h"

typedef struct tg_serve_http {
    const char *host;              /* address or name to bind; NULL: 127.0.0.1 */
    unsigned port;                 /* 0: any free port (reported through ready) */
    size_t max_message;            /* request body cap; 0: TG_SERVE_MAX_MESSAGE (stdio.h) */
    size_t max_concurrency;        /* tools/call in flight at once; 0: TG_SERVE_CONCURRENCY */
    long progress_ms;              /* between progress notifications; 0: TG_SERVE_PROGRESS_MS */
    int log_fd;                    /* one JSON line per request; -1: none */
    const char *const *allowed_origins; /* Origins accepted besides loopback; NULL-terminated */
    const char *token;             /* the bearer token every request must carry; NULL: none */
    volatile sig_atomic_t *stop;   /* set to end serving (required) */
    /* The tool source's change check (serve/devwatch.h), run with the core lock held every
     * check_ms and after each tools/call (so a promotion through the workflow tools is
     * announced before its reply); the lists it says changed (TG_CHANGED_*) are announced on
     * the open streams. Requests in flight keep their snapshot (serve/toolset.h), so the
     * check runs while calls do. NULL: the lists never change. */
    unsigned (*check)(void *ctx);
    void *check_ctx;
    long check_ms;                 /* 0: TG_SERVE_IDLE_MS (serve/dispatch.h) */
    long session_idle_ms;          /* a legacy session unused this long ends; 0: 30 minutes */
    /* Behind a load balancer with a shared state key (docs/scale.md#legacy-sessions): the URL
     * the other instances reach this one at, named (signed) in the ids of the requests a
     * legacy call sends its client, so that an instance the client's response reaches hands
     * it on here. NULL: http://HOST:PORT/mcp of the bound address, unless that is a wildcard
     * (0.0.0.0, ::), which names no instance: then nothing is forwarded here. */
    const char *advertise;
    /* Sends a message that belongs to another instance there (serve/forward.h): a client's
     * response to another instance's call, a tools/call of a code session another instance
     * holds (relayed, its reply streamed back), a cancel of a call another instance runs.
     * Called on threads of the transport's own. NULL: nothing is ever handed on, and a code
     * session's call that reaches another instance is refused there. */
    tg_serve_fwd_fn forward;
    void *forward_ctx;
    /* The other instances' URLs (NULL-terminated; NULL: none), --peer: a legacy
     * notifications/cancelled that names no call this instance runs or relayed goes to each
     * of them, so that it reaches the call wherever it runs (docs/scale.md#the-rest). */
    const char *const *peers;
    /* Called once the socket listens, with this instance's route (serve/forward.h): the code
     * session handles made from then on carry it (run/session.h: tg_sessions_set_route), so
     * that any instance relays their calls here. Only with a shared state key, forward set
     * and a URL (advertise, or the bound address). May be NULL. */
    void (*routed)(void *ctx, const char *route);
    void *routed_ctx;
    /* called once the socket listens, with the port bound (cli prints it); may be NULL */
    void (*ready)(void *ctx, const char *host, unsigned port);
    void *ready_ctx;
} tg_serve_http;

/* Serves c over HTTP until *o->stop is set. 0 on a clean end, -1 with err when the server
 * could not start (address in use, bad address, no thread). */
int tg_serve_http_run(const tg_serve_config *c, const tg_serve_http *o, tg_err *err);

#endif
