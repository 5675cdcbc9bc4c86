/*
 * rt_node.c — the node runtime's operations (runtime_ops.h): node runs toolgen's runner.js,
 * which calls the tool's exported entry function with the arguments as one object. No warm
 * sandbox: its calls run cold. The code runtime's one-shot programs have a Node.js pool worker
 * (a node started ahead for one call, rt_code.c); a tool's does not yet: runner.js calls its
 * tool as it loads, and the test stage's warm sandbox serves many cases in one sandbox
 * (docs/sandbox.md#nodejs-programs-in-the-pool).
 */
#include "run/rt_int.h"

static tg_call_status node_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                   const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                   tg_err *err)
{
    const char *node = tg_sandbox_node();
    if (!node) {
        tg_err_set(err, "Node.js is not installed (/usr/bin/node): install it with `sudo "
                        "apt-get install nodejs` (or `make deps`)");
        return TG_CALL_ENV;
    }
    tg_call_status st = rt_runner_command(ctx, m, args, answers, c, err);
    if (st != TG_CALL_DONE)
        return st;
    tg_strv_push(&c->argv, node);
    tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner.js");
    return TG_CALL_DONE;
}

static const tg_runtime_words node_words = {
    .language = "JavaScript",
    .param_kind = "destructured key of the argument object",
    .not_exported = " or not exported (module.exports)",
    .memory_note = " (Node.js alone reserves about 700 MB of address space)",
};

const tg_runtime_ops rt_node = {
    .command = node_command,
    .read_result = rt_runner_read,
    .words = &node_words,
};
