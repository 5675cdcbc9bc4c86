/* runtime.c — the table of runtimes (runtime.h): the built-in entries and registration. */
#include "model/runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static const tg_runtime_desc python = {
    .name = "python",
    .language = "Python",
    .code_file = true,
    .extensions = (const char *const[]){".py", NULL},
    .sandboxed = true,
    .code_analysis = true,
    .runner_files = (const char *const[]){"runner.py", "runner_warm.py", "toolgen_helpers.py", NULL},
    .summary = TG_RUNTIME_SUMMARY_LANGUAGE,
};

static const tg_runtime_desc node = {
    .name = "node",
    .language = "Node.js",
    .code_file = true,
    .extensions = (const char *const[]){".js", ".mjs", NULL},
    .sandboxed = true,
    .static_skip = "no static check of JavaScript yet (static_check.node in toolgen.yaml is not "
                   "enforced); the sandbox still confines it",
    .runner_files = (const char *const[]){"runner.js", "runner_channels.js", NULL},
    .summary = TG_RUNTIME_SUMMARY_LANGUAGE,
};

static const tg_runtime_desc command = {
    .name = "command",
    .templates = (const char *const[]){"argv", "env", "cwd", NULL},
    .sandboxed = true,
    .static_skip = "no code of its own to check (an argv template)",
    .summary = TG_RUNTIME_SUMMARY_ARGV,
};

static const tg_runtime_desc http = {
    .name = "http",
    .templates = (const char *const[]){"request", NULL},
    .network = true,
    .auth = true,
    .static_skip = "no code runs locally",
    .summary = TG_RUNTIME_SUMMARY_REQUEST,
};

/* Runs the call's `code` argument as a program in implementation.language (docs/code.md). */
static const tg_runtime_desc code = {
    .name = "code",
    .sandboxed = true,
    .static_skip = "the program is the call's `code` argument, which the sandbox confines; there "
                   "is no tool code to check",
    .runner_files = (const char *const[]){"runner_code.py", "runner_code.js", "runner.py",
                                          "runner_session.py", "runner_session.js",
                                          "runner_channels.js", NULL},
    .program_arg = "code",
    .summary = TG_RUNTIME_SUMMARY_PROGRAM,
};

/* A prompt template sent to a model; the code of its answer is checked in the sandbox before
 * it is returned (docs/code-edit.md). Not sandboxed as a whole: the model is remote, so the
 * build's test stage does not call it. */
static const tg_runtime_desc llm = {
    .name = "llm",
    .network = true,
    .static_skip = "its code is the model's answer, checked by every call",
    .runner_files = (const char *const[]){"checker/check_snippet.py", "runner.py",
                                          "runner_warm.py", "toolgen_helpers.py", NULL},
    .prompts = (const char *const[]){"prompt", "repair_prompt", NULL},
    .language_arg = "language",
    .code_member = "code",
    .summary = TG_RUNTIME_SUMMARY_PROMPT,
};

/* Indexed by kind. An entry is written before n_kinds grows past it (release), and readers see
 * only the entries below the n_kinds they loaded (acquire). */
static const tg_runtime_desc *table[TG_RUNTIME_MAX] = {
    [TG_RUNTIME_PYTHON] = &python,
    [TG_RUNTIME_NODE] = &node,
    [TG_RUNTIME_COMMAND] = &command,
    [TG_RUNTIME_HTTP] = &http,
    [TG_RUNTIME_CODE] = &code,
    [TG_RUNTIME_LLM] = &llm,
};
static atomic_int n_kinds = TG_RUNTIME_BUILTIN;
static pthread_mutex_t register_mu = PTHREAD_MUTEX_INITIALIZER; /* one registration at a time */

const tg_runtime_desc *tg_runtime_info(tg_runtime kind)
{
    int n = atomic_load_explicit(&n_kinds, memory_order_acquire);
    return (int)kind >= 0 && (int)kind < n ? table[kind] : NULL;
}

tg_runtime tg_runtime_parse(const char *name)
{
    int n = atomic_load_explicit(&n_kinds, memory_order_acquire);
    for (int i = 0; name && i < n; i++)
        if (strcmp(table[i]->name, name) == 0)
            return (tg_runtime)i;
    return TG_RUNTIME_UNKNOWN;
}

const char *tg_runtime_name(tg_runtime kind)
{
    const tg_runtime_desc *d = tg_runtime_info(kind);
    return d ? d->name : "unknown";
}

int tg_runtime_register(const tg_runtime_desc *desc, tg_runtime *kind, tg_err *err)
{
    if (!desc->name || !*desc->name) {
        tg_err_set(err, "a runtime needs a name");
        return -1;
    }
    int rc = -1;
    pthread_mutex_lock(&register_mu);
    int n = atomic_load_explicit(&n_kinds, memory_order_relaxed);
    if (tg_runtime_parse(desc->name) != TG_RUNTIME_UNKNOWN) {
        tg_err_set(err, "runtime %s is already in the table", desc->name);
    } else if (n >= TG_RUNTIME_MAX) {
        tg_err_set(err, "the table of runtimes is full (%d)", TG_RUNTIME_MAX);
    } else {
        table[n] = desc;
        atomic_store_explicit(&n_kinds, n + 1, memory_order_release);
        *kind = (tg_runtime)n;
        rc = 0;
    }
    pthread_mutex_unlock(&register_mu);
    return rc;
}
