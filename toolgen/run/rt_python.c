/*
 * rt_python.c — the python runtime's operations (runtime_ops.h): python3 runs toolgen's
 * runner.py, which calls the tool's entry function with keyword arguments; a warm sandbox is
 * runner.py --warm (run/runtime/runner_warm.py, docs/sandbox.md#warm-sandboxes).
 */
#include "base/json.h"
#include "run/rt_int.h"

void rt_python_env(tg_strv *env)
{
    static const char *const py_env[] = {
        "PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1",
        "PYTHONIOENCODING=utf-8", "MPLBACKEND=Agg", "OPENBLAS_NUM_THREADS=1",
        "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", "NUMEXPR_MAX_THREADS=1"};
    for (size_t i = 0; i < sizeof py_env / sizeof *py_env; i++)
        tg_strv_push(env, py_env[i]);
}

static tg_call_status py_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                 const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                 tg_err *err)
{
    const char *python = tg_sandbox_python();
    if (!python) {
        tg_err_set(err, "python3 is not installed at /usr/bin/python3: install it with `sudo "
                        "apt-get install python3 python3-pandas python3-numpy "
                        "python3-matplotlib` (or `make deps`)");
        return TG_CALL_ENV;
    }
    tg_call_status st = rt_runner_command(ctx, m, args, answers, c, err);
    if (st != TG_CALL_DONE)
        return st;
    tg_strv_push(&c->argv, python);
    tg_strv_push(&c->argv, "-B");
    tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner.py");
    rt_python_env(&c->env);
    tg_strv_push(&c->env, "PYTHONPATH=" TG_SANDBOX_RUNTIME); /* toolgen_helpers */
    const cJSON *deps = tg_json_get(m->implementation, "dependencies");
    c->cmd.matplotlib_cache = tg_json_array_has_string(deps, "matplotlib") ||
                              tg_json_array_has_string(deps, "seaborn");
    return TG_CALL_DONE;
}

/* runner.py --warm FILE (a batch), or --warm - MODULE... (a pool worker: m's dependencies). */
static void py_warm_argv(const tg_manifest *m, const tg_runtime_cmd *cold, const char *file,
                         tg_strv *argv)
{
    for (size_t i = 0; i < cold->argv.n; i++)
        tg_strv_push(argv, cold->argv.v[i]);
    tg_strv_push(argv, "--warm");
    if (file) {
        tg_strv_push(argv, file);
        return;
    }
    tg_strv_push(argv, "-");
    const cJSON *d;
    cJSON_ArrayForEach(d, tg_json_get(m->implementation, "dependencies"))
    {
        if (cJSON_IsString(d))
            tg_strv_push(argv, d->valuestring);
    }
}

static const tg_runtime_words py_words = {
    .language = "Python",
    .param_kind = "keyword parameter",
    .not_exported = "",
};

const tg_runtime_ops rt_python = {
    .command = py_command,
    .read_result = rt_runner_read,
    .warm_argv = py_warm_argv,
    .words = &py_words,
};
