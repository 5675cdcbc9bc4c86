/*
 * stdio.h — the stdio transport of toolgen serve: newline-delimited JSON-RPC, one message per
 * line on stdin, one reply per line on the protocol descriptor (docs/mcp.md, "Transport").
 *
 * stdout carries protocol messages only. tg_serve_stdio_claim_stdout keeps the real stdout for
 * the protocol and points fd 1 at stderr, so a stray printf — ours, a library's, a child's —
 * lands in the log instead of corrupting the stream. Call it first thing at start-up.
 *
 * A reader thread takes stdin into a bounded buffer while the main thread serves, so the end of
 * stdin is seen even in the middle of a call: when it comes after the input had gone quiet and
 * no other complete message waits, the calls' process groups are killed (through the cancel
 * flags the sandbox watches), no reply is sent for them and the loop ends. An end that follows
 * the data at once (a file) only marks where the requests stop: everything received is
 * answered, so `toolgen serve < requests.jsonl` works. Messages longer than the cap are refused
 * with -32600 and skipped up to their newline; text that is not JSON (or not UTF-8) gets -32700;
 * serving goes on after both.
 *
 * Calls run concurrently (docs/mcp.md, "Concurrency"): a tools/call goes to the dispatch's
 * max_concurrency workers (serve/dispatch.h) while the main thread answers everything else at
 * once, so a slow tool blocks no other request; replies go out as they are ready, each on its
 * own line. At most max_concurrency + TG_SERVE_QUEUE calls are in flight (running or queued);
 * past that the main thread stops taking messages until one ends. The loop ends once every
 * call received is answered or stopped.
 *
 * The dispatch sends a call's notifications/progress when it carries a progressToken (at the
 * start, every progress_ms, and "finished" just before the reply). The reader thread watches
 * the input for notifications/cancelled even while the main thread waits: the call it names is
 * stopped (also before it started) and gets no reply, as MCP asks, and serving goes on. Each
 * message gets one JSON log line on the log descriptor: time, request id, method, tool, era,
 * duration, status, error code — never arguments.
 */
#ifndef TG_SERVE_STDIO_H
#define TG_SERVE_STDIO_H

#include <signal.h>
#include <stddef.h>

#include "base/util.h"
#include "serve/core.h"
#include "serve/dispatch.h"

#define TG_SERVE_MAX_MESSAGE (4u << 20) /* bytes per message by default (4 MiB) */
#define TG_SERVE_QUEUE 256              /* calls queued beyond the workers before reading pauses */

typedef struct tg_serve_stdio {
    int in_fd;                     /* the client's requests (0) */
    int out_fd;                    /* replies: what tg_serve_stdio_claim_stdout returned */
    int log_fd;                    /* log lines (2); -1: none */
    size_t max_message;            /* 0: TG_SERVE_MAX_MESSAGE */
    long progress_ms;              /* between progress notifications; 0: TG_SERVE_PROGRESS_MS */
    size_t max_concurrency;        /* calls running at once; 0: TG_SERVE_CONCURRENCY */
    volatile sig_atomic_t *cancel; /* set when stdin ends mid-call (each call has its own flag;
                                    * the config's call.cancel is not used) */
    volatile sig_atomic_t *stop;   /* set (by a signal handler) to end the loop; may be NULL */
    /* The tool source's change check (serve/devwatch.h), run before each message and every
     * check_ms, with the core lock held; the lists it says changed (TG_CHANGED_*) are
     * announced to the client (serve/notify.h). A call in flight keeps the snapshot it
     * started with (serve/toolset.h). NULL: the lists never change. */
    unsigned (*check)(void *ctx);
    void *check_ctx;
    long check_ms;                 /* 0: TG_SERVE_IDLE_MS (serve/dispatch.h) */
} tg_serve_stdio;

/* Returns a close-on-exec duplicate of fd 1 for the protocol and makes fd 1 a copy of fd 2;
 * -1 with err on failure. */
int tg_serve_stdio_claim_stdout(tg_err *err);

/* Serves until stdin ends or *stop is set. 0 on a clean end, -1 with err when the transport
 * failed (the reply stream broke, a thread could not start). */
int tg_serve_stdio_run(const tg_serve_config *c, const tg_serve_stdio *io, tg_err *err);

#endif
