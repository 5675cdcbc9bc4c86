/*
 * rt_int.h — the built-in runtimes' operations (one file each) and what the two runners share
 * (rt_runner.c), private to run/.
 */
#ifndef TG_RT_INT_H
#define TG_RT_INT_H

#include "run/runtime_ops.h"

extern const tg_runtime_ops rt_python, rt_node, rt_command, rt_code;

/* Python's environment in the sandbox (deterministic hashing, no bytecode files or user site,
 * UTF-8 streams, matplotlib's Agg backend, one BLAS/OpenMP thread), for runner.py and
 * runner_code.py alike. */
void rt_python_env(tg_strv *env);

/*
 * The part of a runner's command (runner.py, runner.js) the runtimes share: the tool's folder
 * (c->tool_dir, mounted at /tool), the request on fd 4 (file, entry point, args, input_schema,
 * answers), the reply channel and the runtime files. The caller adds the interpreter's argv and
 * environment. TG_CALL_UNSUPPORTED when m names no file or entry point.
 */
tg_call_status rt_runner_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                 const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                 tg_err *err);
/*
 * The call's context for a runner's command c (once the runtime made it): the client's facts
 * (call->client) join the request, and with call->on_event set the reply channel is watched
 * for the runner's events — JSON lines before the reply — each handed to on_event as it
 * arrives. The runner writes at most a quarter of output_kb of events.
 */
void rt_runner_context(tg_runtime_cmd *c, const tg_tool_call *call);
/* The runner's reply object in sb (*garbled: something else arrived), or NULL; the caller owns
 * it. */
cJSON *rt_runner_parse(const tg_sandbox_result *sb, bool *garbled);
/* A runner's reply: the result, a question, or the error object the classifier reads
 * (tg_runtime_ops.read_result). */
void rt_runner_read(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                    tg_call_result *out, cJSON **reply, char **problem);

#endif
