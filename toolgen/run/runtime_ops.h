/*
 * runtime_ops.h — what each runtime does in a call, as a table of operations beside
 * model/runtime.h's table of facts: its command for the sandbox, how its result is read, whether
 * and how it runs warm, and the words guidance uses for its code. toolrun.c, toolbatch.c,
 * warmpool.c and guidance.c call through these and never test a kind; each built-in runtime's
 * operations are one file (rt_python.c, rt_node.c, rt_command.c; the two runners' shared
 * protocol is rt_runner.c; http, which sends a request instead of running a process, is
 * rt_http.c). A runtime whose entry says it is not run has none.
 *
 * A call goes: tr_prepare (toolrun.c) refuses a runtime without operations or with not_run,
 * validates the arguments and checks the paths, fills the command's limits, paths and cancel
 * flag, then asks ops->command for the rest; the sandbox (or a warm one) runs it; ops->read_result
 * reads what came back; guidance classifies it (docs/sandbox.md).
 *
 * Threads: as model/runtime.h — lookups from any thread, registration (tests) before the first
 * call of the kind; ops are borrowed and must outlive the process's last call (a static). The
 * operations themselves keep no state and are called from any number of threads.
 */
#ifndef TG_RUNTIME_OPS_H
#define TG_RUNTIME_OPS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "base/strvec.h"
#include "model/runtime.h"
#include "run/toolrun.h"

struct tr_call;

/* The command of one call being assembled for the sandbox, and the strings it borrows. */
typedef struct tg_runtime_cmd {
    tg_sandbox_cmd cmd; /* argv, env and cwd point into the members below once it is ready */
    tg_strv argv, env;
    char *cwd;      /* relative to the work directory; NULL: the work directory */
    char *request;  /* a runner's request (cmd.request) */
    char *tool_dir; /* the tool's folder on the host (cmd.tool_dir); a warm pool keys on it */
    void *events;   /* the runner's events being read (rt_runner.c), for cmd.reply_watch */
    char *problem;  /* a runtime that runs the call itself (execute): the text one of the
                     * facts points to (f->result_problem, remote_problem or http_excerpt) */
} tg_runtime_cmd;

/* Frees what c owns (not c); c is zeroed and may be reused. */
void tg_runtime_cmd_free(tg_runtime_cmd *c);

/* How guidance speaks of a runtime's code when its runner reports an error (run/guidance.c);
 * a member left NULL says nothing runtime-specific. */
typedef struct tg_runtime_words {
    const char *language;     /* "Python": "Invalid Python syntax" */
    const char *param_kind;   /* what an input_schema property is in the entry function */
    const char *not_exported; /* how else an entry function can be missing */
    const char *memory_note;  /* added to the cause of an out-of-memory death */
} tg_runtime_words;

typedef struct tg_runtime_ops {
    /*
     * The rest of c for a call of m with args (defaults applied; answers: the tool's earlier
     * questions answered, may be NULL): c->argv, c->env, c->cwd and whatever of c->cmd the
     * runtime needs (a runner's request and reply channel, the tool's folder, the runtime
     * files). c->cmd's limits, paths and cancel flag are already set; a runtime may lower the
     * limits from the arguments (the code runtime's `timeout`), and the call's limits are then
     * c->cmd.limits. The caller points c->cmd.argv/env/cwd at the members afterwards.
     * TG_CALL_ENV: something to install is missing, TG_CALL_UNSUPPORTED: the manifest cannot
     * run as written; err says which. NULL: nothing to prepare (a runtime with execute).
     */
    tg_call_status (*command)(const tg_toolrun_ctx *ctx, const tg_manifest *m, const cJSON *args,
                              const cJSON *answers, tg_runtime_cmd *c, tg_err *err);
    /*
     * What the call left in sb, into out (result, ask or reply_error) and the facts guidance
     * reads (f->reply, f->reply_garbled, f->mapped_code, ...). *reply: an object f points into,
     * freed by the caller after classification (NULL: none); *problem: why the result is
     * unusable (heap), else left NULL.
     */
    void (*read_result)(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                        tg_call_result *out, cJSON **reply, char **problem);
    /*
     * The call made by toolgen itself instead of a process in the sandbox (http: a request
     * built from the manifest; no code of the tool runs, so there is nothing to confine). With
     * c as command() left it, fills what a sandbox would report of a run (out->sb: wall_ms,
     * killed_by TG_LIMIT_WALL when the call's time ran out, TG_LIMIT_OUTPUT past output_kb,
     * TG_LIMIT_CANCEL; its streams empty), out->result, and the facts guidance reads (f->remote,
     * f->http_status, f->mapped_code, f->remote_problem, f->result_problem; strings kept in c).
     * A runtime with execute has no read_result. NULL: the call runs in the sandbox.
     */
    tg_call_status (*execute)(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                              tg_runtime_cmd *c, tg_run_facts *f, tg_call_result *out,
                              tg_err *err);
    /*
     * The argv of a warm sandbox (run/warm.h) from a cold call's command: with file (the tool
     * file as the sandbox sees it) one that loads that tool for a batch of its calls; with
     * file NULL a pool worker that imports m's dependencies but no tool. NULL: the runtime
     * runs cold only.
     */
    void (*warm_argv)(const tg_manifest *m, const tg_runtime_cmd *cold, const char *file,
                      tg_strv *argv);
    /* Whether m's calls may go through a pool worker (run/warmpool.h), given warm_argv. NULL:
     * when m has a code file and an entry point (a tool's code). The code runtime's one-shot
     * programs say yes: a Python worker preloads packages and each call's child runs the
     * program; a Node.js worker's node starts ahead (docs/sandbox.md#the-warm-pool). */
    bool (*warm_ok)(const tg_manifest *m);
    /* A pool worker's child execs the call's own argv (with the call's env and cwd, which the
     * worker therefore does not fix) in place of runner code: the command runtime, whose
     * program is the call (docs/sandbox.md#commands-in-the-pool). */
    bool warm_exec;
    /*
     * The result assembled by the runtime itself, after classification and the resource
     * analysis (the code runtime: the program's streams, files and exit status with its error
     * guidance, docs/code.md): sets out->result from f (its reply still readable) and out, and
     * may restate out->guidance in the runtime's own terms (its code and texts; the class
     * stays). toolrun.c then checks out->result against output_schema. NULL: read_result
     * produces the result.
     */
    void (*report)(const tg_manifest *m, const tg_run_facts *f, tg_call_result *out);
    /*
     * A call the runtime answers without a sandbox of its own, after command (the code
     * runtime: a program of a session, which runs in the session's sandbox, and the session
     * tools): returns true when it did, with *st set and, for TG_CALL_DONE, out complete (the
     * sandbox's result in out->sb judged by tr_judge, run/toolrun_int.h). NULL, or false: the
     * call runs in the sandbox as usual.
     */
    bool (*direct)(const tg_toolrun_ctx *ctx, const tg_tool_call *call, struct tr_call *p,
                   tg_call_result *out, tg_call_status *st, tg_err *err);
    const tg_runtime_words *words; /* NULL: none */
    /* Without a reply error, guidance judges the exit status: a non-zero one is a failure of
     * the program (a command's stdout and exit status, implementation.exit_codes; a code
     * runtime's program that exited). */
    bool exit_status;
} tg_runtime_ops;

/* The operations of kind; NULL when it has none (unknown, or not run by this version). */
const tg_runtime_ops *tg_runtime_ops_of(tg_runtime kind);

/* Gives kind (registered with tg_runtime_register) its operations; -1 with err when kind has
 * no entry or already has operations. */
int tg_runtime_ops_register(tg_runtime kind, const tg_runtime_ops *ops, tg_err *err);

#endif
