/* toolrun_int.h — the steps of one call (toolrun.c), shared with batches (toolbatch.c). */
#ifndef TG_TOOLRUN_INT_H
#define TG_TOOLRUN_INT_H

#include "run/guidance.h"
#include "run/runtime_ops.h"
#include "run/toolrun.h"

/* One call between its preparation and its judgement. */
typedef struct tr_call {
    tg_run_facts f;
    const tg_runtime_ops *ops; /* the manifest's runtime's (set once the call is not refused) */
    tg_runtime_cmd c;
    tg_path_args paths; /* c.cmd.paths points here */
} tr_call;

/*
 * Everything before the sandbox: limits, the runtime (refused when it has no operations),
 * input_schema (defaults applied), path arguments, the command (p->ops->command). TG_CALL_DONE
 * with *ready: p->c.cmd is ready to run; TG_CALL_DONE without: the call was refused and out is
 * complete; anything else: err. Free p with tr_call_free in every case.
 */
tg_call_status tr_prepare(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                          tg_call_result *out, tr_call *p, bool *ready, tg_err *err);
/* Everything after the sandbox filled out->sb: the reply, the result's checks, classification. */
void tr_judge(const tg_toolrun_ctx *ctx, const tg_tool_call *call, tr_call *p, tg_call_result *out);
void tr_call_free(tr_call *p);
/* A command's call for a warm runner whose child execs it (tg_runtime_ops.warm_exec): the
 * argv, the call's own environment and its folder below the call's directory (heap JSON;
 * runner_warm.py's docstring and run/cmdrunner.h have the protocol). */
char *tr_exec_request(const tg_runtime_cmd *c);
/* The sandbox's status as a call status (the one translation, toolrun.c). */
tg_call_status tr_status_of(tg_sandbox_status s);

#endif
