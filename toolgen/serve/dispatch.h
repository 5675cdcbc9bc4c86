/*
 * dispatch.h — the one place that owns the server's concurrency (docs/mcp.md#concurrency): the
 * core lock, the worker pool, the calls in flight, their cancellation and progress, and the
 * tool source's change checks. The transports (serve/stdio.h, serve/http.h) keep framing and
 * I/O only: they hand messages in and say how replies and notifications reach the client.
 *
 * The core (serve/core.h) is not thread-safe — the legacy sessions, the store of kept files,
 * the change check all live under one lock — and does not need to be: everything it does is
 * short, except the long work a call does. Such work runs through tg_serve_unlocked, which lets
 * go of the lock for its length and takes it back after: a tool's process, a generation, a
 * build, a promotion. So tools/list, ping and other calls are answered while generate_tool
 * works.
 *
 * A tools/call (or a client's response that resumes one) is submitted: it joins the calls in
 * flight at once — its first progress notification goes out, a notifications/cancelled finds
 * it — and a worker of a fixed pool (max concurrency, never a thread per request) handles it
 * in submission order. A ticker thread sends each call's progress every progress_ms while it
 * is in flight, and runs the change check when none ran for check_ms. Each call ends exactly
 * once, through its sink: with its reply, or cancelled (no reply is due).
 *
 * Lock order: the core lock, then the list of calls; a sink's notify runs with the list
 * locked and may take only its transport's own leaf locks.
 */
#ifndef TG_SERVE_DISPATCH_H
#define TG_SERVE_DISPATCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "serve/core.h"

#define TG_SERVE_CONCURRENCY 4     /* calls running at once, by default */
#define TG_SERVE_PROGRESS_MS 10000 /* between progress notifications of a long call, by default */
#define TG_SERVE_IDLE_MS 1000      /* between change checks, by default */

typedef struct tg_serve_dispatch tg_serve_dispatch;

/* How a call ended. */
typedef enum tg_serve_end {
    TG_SERVE_REPLIED,   /* its reply is due to the client */
    TG_SERVE_CANCELLED, /* the client cancelled it (notifications/cancelled): no reply */
    TG_SERVE_STOPPED,   /* the server stops, or the client went away: no reply */
} tg_serve_end;

/* How a call's messages reach its client; set by the transport for each call. */
typedef struct tg_serve_sink {
    /* A notification for the call's client (its progress), with the list of calls locked. */
    void (*notify)(void *ctx, const cJSON *msg);
    /* The end, once: reply (taken; NULL when how is not TG_SERVE_REPLIED, or when the message
     * needed none) and what the core noted about the message (its era, for a status). The call
     * leaves the calls in flight after this returns. */
    void (*end)(void *ctx, cJSON *reply, tg_serve_end how, const tg_serve_log *lg);
    void *ctx;
    /* notify can carry a request to the client (elicitation/create, ...) whose response comes
     * back through tg_serve_dispatch_answer: stdio, and an HTTP call whose client takes an
     * event stream */
    bool requests;
} tg_serve_sink;

typedef struct tg_serve_dispatch_opts {
    size_t workers;     /* calls running at once; 0: TG_SERVE_CONCURRENCY */
    size_t queue_max;   /* calls in flight (running or queued) before submit waits; 0: no bound */
    long progress_ms;   /* 0: TG_SERVE_PROGRESS_MS */
    int log_fd;         /* one JSON line per call (serve/servelog.h); -1: none */
    volatile sig_atomic_t *stop; /* once set, every call ends TG_SERVE_STOPPED; may be NULL */
    /* The tool source's change check (serve/devwatch.h), run with the core lock held whenever
     * a transport asks (tg_serve_dispatch_check), when none ran for check_ms, and, with
     * check_after_call, after each call before its reply goes out (so that a promotion through
     * the workflow is announced first). The lists it says changed (TG_CHANGED_*) go to
     * announce, still under the lock. NULL: the lists never change. */
    unsigned (*check)(void *ctx);
    void *check_ctx;
    long check_ms;      /* 0: TG_SERVE_IDLE_MS */
    bool check_after_call;
    void (*announce)(void *ctx, unsigned what);
    void *announce_ctx;
} tg_serve_dispatch_opts;

/* Starts the workers and the ticker for the core c (which must outlive the dispatch). NULL
 * with err when a thread could not start. */
tg_serve_dispatch *tg_serve_dispatch_start(const tg_serve_config *c,
                                           const tg_serve_dispatch_opts *o, tg_err *err);
/* Ends every call in flight (TG_SERVE_STOPPED), waits for them, stops the threads, frees d.
 * NULL is a no-op. */
void tg_serve_dispatch_stop(tg_serve_dispatch *d);

/* The core lock, for a transport's own state that the core's requests also touch (HTTP
 * sessions). */
void tg_serve_lock(tg_serve_dispatch *d);
void tg_serve_unlock(tg_serve_dispatch *d);

/*
 * Lets go of the core lock for fn(ctx) and takes it back after: long work inside a request.
 * The calling thread must hold the lock (every provider's call does); d NULL (the core driven
 * without a dispatch, as unit tests do) just calls fn.
 */
void tg_serve_unlocked(tg_serve_dispatch *d, void (*fn)(void *ctx), void *ctx);

/* Answers msg at once under the core lock: anything but a call. The reply (NULL: none due) is
 * the caller's. */
cJSON *tg_serve_dispatch_handle(tg_serve_dispatch *d, tg_serve_session *s, const cJSON *msg,
                                tg_serve_log *log);

/* The change check now, with what it found announced. */
void tg_serve_dispatch_check(tg_serve_dispatch *d);

typedef struct tg_serve_call_slot tg_serve_call_slot;

/*
 * Submits msg for a worker: a tools/call with an id, or a client's response that may resume
 * one. It is served with session s (the core's, guarded by the lock) and the tool set current
 * now. token (copied; NULL: none) is the progressToken to report under. owner tells whose
 * notifications/cancelled may name it (a legacy HTTP session; NULL for everyone else). Waits
 * first while queue_max calls are in flight. Returns the call's slot, valid until its sink's
 * end returns, having taken msg; or NULL, leaving msg to the caller, when a request of s with
 * the same id is still in flight (tg_serve_dispatch_busy_id): JSON-RPC ids must be unique
 * among a client's requests in flight, or replies and cancellations could not name one.
 */
tg_serve_call_slot *tg_serve_dispatch_submit(tg_serve_dispatch *d, cJSON *msg,
                                             const cJSON *token, tg_serve_session *s,
                                             const void *owner, const tg_serve_sink *sink);
/*
 * Submits msg, a tools/call the server runs on its own account (a task's run, serve/tasks.h),
 * with no session, owner or progress token. Unlike tg_serve_dispatch_submit it never waits for
 * room: it is called with the core lock held, which the calls it would wait for need. The slot
 * is valid until the sink's end returns; NULL (msg left to the caller) when its id is in flight.
 */
tg_serve_call_slot *tg_serve_dispatch_spawn(tg_serve_dispatch *d, cJSON *msg,
                                            const tg_serve_sink *sink);
/*
 * What a call in flight sends its client besides its reply, through its sink, from any thread
 * while it runs: a notification (a log message, serve/clientlog.h), and progress its tool
 * reported (toolgen_helpers.progress), sent as notifications/progress for the call's token when
 * it is above the last progress sent (MCP requires progress to grow; total <= 0: none) — from
 * the first such report on, the dispatch's own periodic reports stop. k NULL, a call without a
 * token (for progress), or one being stopped: nothing is sent.
 */
void tg_serve_call_notify(tg_serve_call_slot *k, const cJSON *msg);
void tg_serve_call_progress(tg_serve_call_slot *k, double progress, double total,
                            const char *message);
/*
 * Asks the client of call k n requests at once — methods[i] with params[i] (borrowed), ids
 * "toolgen-ask-N" — through its sink, and waits without the core lock (which the caller holds,
 * as a provider's call does) until each has its response, the call is stopped, or timeout_ms
 * pass; meanwhile the call's progress goes on and a cancellation reaches it. 0 with
 * responses[i] each a JSON-RPC response message (the caller's: its "result", or the client's
 * "error"); -1 with why when the sink carries no requests, or the call was stopped or timed
 * out.
 */
int tg_serve_call_ask(tg_serve_call_slot *k, const char *const *methods, const cJSON *const *params,
                      cJSON **responses, size_t n, long timeout_ms, char *why, size_t why_size);
#define TG_SERVE_ASK_ID_MAX 640 /* bytes of a request id, its tag included */
/* From now on the ids of requests to clients are "toolgen-ask-N.TAG" (tag copied; NULL or
 * longer than TG_SERVE_ASK_ID_MAX - 40: no tag): over HTTP the tag says which instance behind a
 * load balancer waits for the response (docs/scale.md#legacy-sessions). */
void tg_serve_dispatch_set_ask_tag(tg_serve_dispatch *d, const char *tag);
/* A client's JSON-RPC response msg: true when it answers a request a call of session s asked
 * (tg_serve_call_ask), which then goes on; false when it answers none (it is ignored). */
bool tg_serve_dispatch_answer(tg_serve_dispatch *d, const tg_serve_session *s, const cJSON *msg);
/* Whether a request of session s with msg's id is in flight (a request: msg has a method). */
bool tg_serve_dispatch_busy_id(tg_serve_dispatch *d, const tg_serve_session *s, const cJSON *msg);
/* Stops one call: it ends TG_SERVE_STOPPED (the client's stream closed). Takes no lock, so a
 * transport may call it under its own. */
void tg_serve_dispatch_cancel(tg_serve_call_slot *k);
/* Stops the calls of owner that msg, a notifications/cancelled, names: they end
 * TG_SERVE_CANCELLED, also those still waiting for a worker. Whether one was found (behind a
 * load balancer, a cancel found nowhere here is handed on: serve/forward.h). */
bool tg_serve_dispatch_cancel_named(tg_serve_dispatch *d, const void *owner, const cJSON *msg);
/* Stops every call in flight, and every call submitted from now on (TG_SERVE_STOPPED). */
void tg_serve_dispatch_cancel_all(tg_serve_dispatch *d);
/* Calls in flight: submitted and not yet ended. Takes no lock. */
size_t tg_serve_dispatch_in_flight(tg_serve_dispatch *d);
/* Waits until no call is in flight; once *stop is set, those left are stopped first. */
void tg_serve_dispatch_drain(tg_serve_dispatch *d);

#endif
