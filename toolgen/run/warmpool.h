/*
 * warmpool.h — warm workers for long-running callers (`toolgen serve`): sandboxes started ahead of
 * time, one per runtime and dependency set, with the dependencies imported, each call in a child
 * forked from the worker's runner. A worker serves up to 32 calls in turn, each in its own tmpfs,
 * when it keeps them apart (tg_warm_reusable: Landlock confines each call to its folder, the
 * system call filter refuses objects that outlive a call, the runner kills what a call left
 * running and empties /tmp and /dev/shm); otherwise exactly ONE call, and is then replaced. Either
 * way no state passes from one call to the next (docs/sandbox.md#the-warm-pool).
 *
 * A worker is a warm sandbox (run/warm.h) that imported its dependency set (pandas, matplotlib,
 * ...) but no tool: it sees the tools' folder read-only at TG_WARM_TOOLS and each data
 * directory read-only at TG_WARM_DATA/<i>; the call's child points /tool at its tool's folder
 * and links its path arguments where a cold call would mount them. A call through the pool has
 * the same result as tg_tool_call_run (the same runner code, limits, classification); it runs
 * cold instead when no worker is ready yet (the first call of a dependency set starts one), when
 * the tool's runtime does not run warm (run/runtime_ops.h: python tools, command tools — whose
 * child execs the call's program — and the code runtime's one-shot Python and Node.js programs
 * do) or the isolation is
 * not bubblewrap, when the manifest restricts its paths (constraints.allowed_paths: a worker
 * sees whole data directories), or when a path argument lies outside the data directories' real
 * paths.
 *
 * Before a call arrives, a worker has also forked and warmed up the call's child and compiled the
 * tool files of the tools its dependency set was last used for; the reported CPU time is the
 * call's, without that warm-up (docs/sandbox.md#the-warm-pool).
 *
 * Threads: any number of threads may call tg_warmpool_call_run at once; a worker goes to one call.
 * The pool has one thread of its own (started with the first used worker, joined by
 * tg_warmpool_free), which starts replacements and frees used workers off the calls' path.
 */
#ifndef TG_WARMPOOL_H
#define TG_WARMPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "run/toolrun.h"

typedef struct tg_warmpool tg_warmpool;

/* A pool for the calls of ctx (borrowed; it must outlive the pool). Starts nothing yet. */
tg_warmpool *tg_warmpool_new(const tg_toolrun_ctx *ctx);

/* Starts a worker for m's dependency set now, unless one is there or m cannot use the pool
 * (a server calls it for each tool it offers, so that even the first call is warm). */
void tg_warmpool_prepare(tg_warmpool *p, const tg_manifest *m);

/* Waits until the worker for m's dependency set (if any; also one being started) finished
 * importing; for benchmarks and tests, which must not time a worker's start. */
void tg_warmpool_wait(tg_warmpool *p, const tg_manifest *m);

/*
 * Makes the pool's calls wait, when no worker of their dependency set is ready, for the one
 * being started or out on another call, instead of running cold — for a caller whose calls
 * may queue and would otherwise each import the dependencies again (the build's test stage,
 * docs/build.md#the-test-stage). A new worker starts for a set that has none, or when as many
 * calls already wait as the set has workers (up to idle_max per set; one when idle_max is 0 or
 * 1). A call still runs cold when its worker cannot start or breaks. Worth it only where a
 * worker serves several calls (tg_warmpool_reuse_possible): otherwise every call waits for a
 * fresh worker's import. idle_max also bounds the interpreters kept ready across all
 * dependency sets (0: no bound; command workers, which hold none, are not counted): one more
 * retires the one ready the longest, so that a build over many dependency sets holds a few
 * interpreters, not one per set. Set before the first call.
 */
void tg_warmpool_set_waiting(tg_warmpool *p, bool waiting, size_t idle_max);

/* Whether workers on this machine can serve several calls each: what tg_warm_reusable will say
 * of a started one (the kernel's Landlock ABI is 3 or later, and the system call filter is
 * there), asked of the kernel without starting any. */
bool tg_warmpool_reuse_possible(void);

/* One call, as tg_tool_call_run. A worker that keeps calls apart goes back to the pool for the
 * next call (its replacement starts as its last call begins); otherwise a fresh worker replaces
 * it, started by the pool's thread after the call returns, so a call right after it may find
 * none ready and run cold. */
tg_call_status tg_warmpool_call_run(tg_warmpool *p, const tg_tool_call *call, tg_call_result *out,
                                tg_err *err);

/* As tg_warmpool_call_run, but a call the pool would run cold is left to the caller: DONE with
 * *done false and out empty (a batch then runs it in its own warm sandbox, run/toolrun.h).
 * *done true: out is complete, as tg_tool_call_run's would be — *warm true when it ran in a
 * worker, false when its arguments were refused before any run. */
tg_call_status tg_warmpool_call_try(tg_warmpool *p, const tg_tool_call *call,
                                    tg_call_result *out, bool *done, bool *warm, tg_err *err);

/* How many calls ran in a pool worker (the rest ran cold). */
size_t tg_warmpool_warm_calls(const tg_warmpool *p);
/*
 * How many workers the pool started (or tried to). A slot whose workers end before they are
 * ready starts none for a while after two in a row (its calls run cold), and a command slot
 * whose worker could not start toolgen's own runner changes to runner.py
 * (docs/sandbox.md#the-warm-pool).
 */
size_t tg_warmpool_workers_started(tg_warmpool *p);

/* Stops every worker. NULL is fine. */
void tg_warmpool_free(tg_warmpool *p);

#endif
