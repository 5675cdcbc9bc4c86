/*
 * pool.h — several tools/call requests in flight at once (docs/mcp.md, "Concurrency").
 *
 * A call spends nearly all its time waiting for its sandboxed process; everything else the core
 * does (parsing, lists, reads, building a result) is short. So the transports answer other
 * requests at once, on their own thread, and hand each tools/call to a fixed pool of workers —
 * as many as the concurrency bound, never one thread per request — with a FIFO queue in front
 * of it. A slow tool therefore holds one worker, and nothing else.
 *
 * The core itself is not thread-safe (the store of kept files, the legacy sessions), and it does
 * not need to be: a tg_serve_gate is one lock around it that is released only while a call's
 * process runs. The transports take the gate around every tg_serve_handle, and install
 * tg_serve_gate_run as the config's runner so the lock is let go for the run and taken back
 * for what follows it (validating the result, keeping its files).
 */
#ifndef TG_SERVE_POOL_H
#define TG_SERVE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "serve/tools.h"

#define TG_SERVE_CONCURRENCY 4 /* calls in flight at once, by default */

typedef struct tg_serve_pool tg_serve_pool;
typedef void (*tg_serve_job_fn)(void *arg);

/* Starts workers threads (>= 1). NULL with err when a thread could not start. */
tg_serve_pool *tg_serve_pool_start(size_t workers, tg_err *err);
/* Queues fn(arg); it runs on a worker as soon as one is free, in submission order. */
void tg_serve_pool_submit(tg_serve_pool *p, tg_serve_job_fn fn, void *arg);
/* Jobs queued or running. */
size_t tg_serve_pool_busy(tg_serve_pool *p);
/* Runs what is queued, waits for every job, joins the workers and frees p. NULL is a no-op. */
void tg_serve_pool_stop(tg_serve_pool *p);

/* The lock around the core, let go while a call's process runs. */
typedef struct tg_serve_gate {
    pthread_mutex_t mu;
    tg_serve_run_fn run; /* the real runner (tg_serve_run_sandbox in the server) */
    void *run_ctx;
} tg_serve_gate;

void tg_serve_gate_init(tg_serve_gate *g, tg_serve_run_fn run, void *run_ctx);
void tg_serve_gate_destroy(tg_serve_gate *g);
void tg_serve_gate_lock(tg_serve_gate *g);
void tg_serve_gate_unlock(tg_serve_gate *g);
/* A tg_serve_run_fn whose ctx is a tg_serve_gate, held by the caller: runs g->run unlocked. */
tg_call_status tg_serve_gate_run(void *gate, const tg_tool_call *call, tg_call_result *out,
                                 tg_err *err);

#endif
