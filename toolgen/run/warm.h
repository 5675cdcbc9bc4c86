/*
 * warm.h — a warm sandbox: one bubblewrap sandbox whose runner has imported a tool (and so its
 * dependencies) once and then runs calls one at a time, each in a forked child with its own work
 * subdirectory, descriptors, rlimits and wall clock (docs/sandbox.md#warm-sandboxes).
 *
 * A call through a warm sandbox fills the same tg_sandbox_result as tg_sandbox_run: its own
 * stdout, stderr and reply under output_kb, the exit status (a signal reported as 128+N with
 * signal_inferred, as bwrap reports it for a cold call), its CPU time and peak RSS from wait4
 * (for a child the runner forked ahead, a pool worker's, the CPU time it used before the call
 * is left out: docs/sandbox.md#the-warm-pool),
 * the files of its own subdirectory, and killed_by when toolgen's wall clock, output cap, disk
 * budget or cancel flag stopped it. The runner is runner_warm.py, whose children are Python
 * forks, or, for the code runtime's Node.js pool workers, a node process it started ahead
 * (runner_warm.js, docs/sandbox.md#nodejs-programs-in-the-pool); a command worker's is
 * toolgen's own (run/cmdrunner.h), which speaks the same protocol.
 *
 * Isolation between calls: each child is a fork of the runner after the import (or a node
 * process of its own), so module globals and interpreter state die with it; its files go to
 * /work/<subdir>; the runner kills every process a call left and empties /tmp and /dev/shm after
 * each call. The kernel boundary around the whole sandbox is the same as a cold call's; between
 * calls of one warm sandbox the boundary is the fork (same uid), and for a pool worker that
 * serves several calls also Landlock (tg_warm_reusable).
 *
 * Threads: a tg_warm is used by one thread at a time; different ones may run in parallel.
 */
#ifndef TG_WARM_H
#define TG_WARM_H

#include <signal.h>
#include <stddef.h>

#include "run/sandbox.h"

typedef struct tg_warm tg_warm;

/* One call through a warm sandbox. */
typedef struct tg_warm_call {
    const char *request;      /* the runner's request (runner.py, fd 4 of a cold call) */
    size_t request_len;
    const char *subdir;       /* the call's directory below /work, one path component ("c3") */
    const tg_path_args *paths;/* the call's path arguments as mounted (inside /work/<subdir>/),
                                 left out of its files; may be NULL */
    const char *tool;         /* with a sandbox whose /tool is a link (pool workers): the tool's
                                 folder, one component below TG_WARM_TOOLS; NULL: none */
    const char *const *links; /* pairs (path relative to /work/<subdir>, target), NULL-ended: the
                                 symlinks the child makes before the call (a pool worker's path
                                 arguments); may be NULL */
    tg_limits limits;         /* at most the limits the warm sandbox was started with */
    const volatile sig_atomic_t *cancel; /* see tg_sandbox_cmd.cancel; may be NULL */
    tg_reply_watch reply_watch; /* see tg_sandbox_cmd.reply_watch */
    bool keep_dir;            /* a session's call (run/session.h): /work/<subdir> stays where it
                                 is for the next call, and res gets no files and no workdir (the
                                 caller collects what the call changed) */
} tg_warm_call;

/*
 * Starts a warm sandbox for cmd, whose argv runs `runner.py --warm FILE`, whose paths are every
 * mount any of its calls will need, and whose limits are the largest of its calls' (plus one
 * process, for the runner itself); cmd->request must be NULL and cmd->reply_channel false.
 * Waits until the runner has imported the tool, at most cmd->limits.wall_ms. TG_SANDBOX_OK with
 * *out set; otherwise nothing is left running and err says why (TG_SANDBOX_ENV: as for
 * tg_sandbox_run). cmd and the config must outlive the warm sandbox.
 */
tg_sandbox_status tg_warm_start(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                                tg_warm **out, tg_err *err);

/*
 * As tg_warm_start, but returns once the sandbox is started, without waiting for the import:
 * the first tg_warm_run (or tg_warm_wait) waits. A pool starts its replacements so.
 */
tg_sandbox_status tg_warm_spawn(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                                tg_warm **out, tg_err *err);
/* Waits until the runner is ready (at most the start's wall_ms). TG_SANDBOX_OK, or the warm
 * sandbox is unusable (err; stop it). */
tg_sandbox_status tg_warm_wait(tg_warm *w, tg_err *err);

/* Where a pool worker mounts the tools' parent folder, and data directory i (/…/<i>). */
#define TG_WARM_TOOLS "/.toolgen-tools"
#define TG_WARM_DATA "/.toolgen-data"
#define TG_WARM_TOOL_LINK "/work/.tool"

/*
 * Runs one call (first waiting for the runner's import, which call->cancel interrupts).
 * TG_SANDBOX_OK: res is filled (free it with tg_sandbox_result_free, which removes its work
 * directory). TG_SANDBOX_INTERNAL: the warm sandbox broke (its runner ended) or the call was
 * cancelled before it started; res is empty, the call must be run cold (which reports a
 * cancel at once), and the warm sandbox only stopped.
 */
tg_sandbox_status tg_warm_run(tg_warm *w, const tg_warm_call *call, tg_sandbox_result *res,
                              tg_err *err);

/* Whether it broke before its runner ever said ready: the runner could not start (rather than
 * a call ending it). */
bool tg_warm_never_ready(const tg_warm *w);

/* Whether the runner had imported the tool (false: each call imports it again, and fails). */
bool tg_warm_preloaded(const tg_warm *w);

/*
 * Whether a pool worker may serve another call (each in its own /work subdirectory): its runner
 * confines every call's child to that subdirectory with Landlock (ABI 3 or later) and the
 * sandbox refuses the system calls whose objects outlive a call (sandbox_filter.c), so a call
 * sees nothing an earlier one left (docs/sandbox.md#the-warm-pool). False also once it broke.
 */
bool tg_warm_reusable(const tg_warm *w);

/* Whether the last call's status line said "restarted" (runner_session.py: the call ended the
 * session's interpreter, and a new one took its place). */
bool tg_warm_restarted(const tg_warm *w);

/* A path by which toolgen reaches the warm sandbox's /work, its tmpfs (/proc/self/fd/N of the
 * descriptor the holder passed back; borrowed, valid until tg_warm_stop). */
const char *tg_warm_workdir(tg_warm *w);

/* Ends the sandbox (its runner sees EOF and exits) and removes its directories; NULL is fine. */
void tg_warm_stop(tg_warm *w);

/*
 * Tells the runner to end (EOF) without waiting for it; the warm sandbox takes no more calls.
 * tg_warm_try_stop then frees it once bwrap has exited (true), without blocking (false: not yet;
 * call it again later, or tg_warm_stop, which waits).
 */
void tg_warm_close(tg_warm *w);
bool tg_warm_try_stop(tg_warm *w);

#endif
