/* runtime_ops.c — the table of the runtimes' operations (runtime_ops.h). */
#include "run/runtime_ops.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "run/rt_int.h"

/* Indexed by kind; a registered kind's slot goes from NULL to its operations once. */
static _Atomic(const tg_runtime_ops *) table[TG_RUNTIME_MAX] = {
    [TG_RUNTIME_PYTHON] = &rt_python,
    [TG_RUNTIME_NODE] = &rt_node,
    [TG_RUNTIME_COMMAND] = &rt_command,
    [TG_RUNTIME_CODE] = &rt_code,
    [TG_RUNTIME_HTTP] = &rt_http,
    [TG_RUNTIME_LLM] = &rt_llm,
};

const tg_runtime_ops *tg_runtime_ops_of(tg_runtime kind)
{
    if (!tg_runtime_info(kind))
        return NULL;
    return atomic_load_explicit(&table[kind], memory_order_acquire);
}

int tg_runtime_ops_register(tg_runtime kind, const tg_runtime_ops *ops, tg_err *err)
{
    const tg_runtime_desc *rt = tg_runtime_info(kind);
    const tg_runtime_ops *none = NULL;
    if (!rt) {
        tg_err_set(err, "runtime kind %d has no entry in the table (tg_runtime_register)", (int)kind);
        return -1;
    }
    if (!atomic_compare_exchange_strong_explicit(&table[kind], &none, ops, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        tg_err_set(err, "runtime %s already has its operations", rt->name);
        return -1;
    }
    return 0;
}

void tg_runtime_cmd_free(tg_runtime_cmd *c)
{
    tg_strv_free(&c->argv);
    tg_strv_free(&c->env);
    free(c->cwd);
    free(c->request);
    free(c->tool_dir);
    free(c->events);
    free(c->problem);
    *c = (tg_runtime_cmd){0};
}
