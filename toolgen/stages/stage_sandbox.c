/*
 * stage_sandbox.c — what the two gate stages (static, test) share: running toolgen's runtime
 * scripts in the sandbox, the warning of a run without isolation, code paths
 * (docs/build.md "Validation gates", docs/sandbox.md).
 */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "stages/stages_int.h"

char *tgs_code_path(const tg_manifest *m, const char *file)
{
    if (!file || file[0] == '/' || strstr(file, ".."))
        return NULL;
    return tg_path_join(m->dir, file);
}

void tgs_warn_isolation(tg_stage_run *r, const char *stage, const tg_sandbox_config *sc)
{
    if (sc->isolation == TG_ISOLATION_NONE)
        tg_stage_warning(r,
                         "sandbox.isolation is none in toolgen.yaml: %s runs the code of %s "
                         "WITHOUT isolation (only rlimits and the timeout apply); use this only "
                         "for code you trust; see docs/sandbox.md#isolation-none",
                         stage, tg_stage_tool(r));
}

const char *const tgs_env_sandbox[] = {"python", "node", "bwrap", "runners", NULL};

void tgs_env_packages(tg_stage_run *r, const tg_manifest *m)
{
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    const cJSON *d;
    cJSON_ArrayForEach(d, tg_json_get(m->implementation, "dependencies"))
    {
        if (!rt || !cJSON_IsString(d))
            continue;
        char *fact = xasprintf("%s-package:%s", rt->name, d->valuestring);
        tg_stage_env(r, fact);
        free(fact);
    }
}

/*
 * The runtime scripts read their request on stdin; the sandbox hands a request over on fd 4
 * (stdin is /dev/null there), so this shim rebinds stdin and runs the script as __main__.
 */
static const char py_stdin_shim[] = "import io, os, runpy, sys\n"
                                    "sys.stdin = io.TextIOWrapper(os.fdopen(4, 'rb'), "
                                    "encoding='utf-8')\n"
                                    "path = sys.argv[1]\n"
                                    "sys.argv = sys.argv[1:]\n"
                                    "runpy.run_path(path, run_name='__main__')\n";

tg_stage_status tgs_run_script(const tg_sandbox_config *sc, const char *script,
                               const cJSON *req, cJSON **reply, tg_err *err)
{
    *reply = NULL;
    const char *py = tg_sandbox_python();
    if (!py) {
        tg_err_set(err, "python3 is not installed at /usr/bin/python3 (needed to run "
                        "toolgen/run/runtime/%s): install it with `sudo apt-get install "
                        "python3` (or `make deps`)",
                   script);
        return TG_STAGE_NO_ENVIRONMENT;
    }
    char *inside = xasprintf(TG_SANDBOX_RUNTIME "/%s", script);
    const char *argv[] = {py, "-I", "-B", "-c", py_stdin_shim, inside, NULL};
    char *text = tg_json_print_compact(req);
    tg_sandbox_cmd cmd = {.argv = argv,
                          .mount_runtime = true,
                          .request = text,
                          .request_len = strlen(text)};
    tg_limits_resolve(NULL, 0, &sc->max, &cmd.limits);
    tg_sandbox_result res = {0};
    int src = tg_sandbox_run(sc, &cmd, &res, err);
    tg_stage_status rc = TG_STAGE_FAILED;
    if (src == TG_SANDBOX_ENV) {
        rc = TG_STAGE_NO_ENVIRONMENT;
        goto out;
    }
    if (src != 0)
        goto out;
    if (res.exit_code != 0 || res.killed_by != TG_LIMIT_NONE) {
        const char *e = res.err.data;
        size_t n = strlen(e);
        tg_err_set(err, "toolgen/run/runtime/%s failed in the sandbox (exit status %d%s): %s", script,
                   res.exit_code, res.killed_by ? ", killed by a limit" : "",
                   n > 400 ? e + n - 400 : e);
        goto out;
    }
    tg_err perr = {0};
    *reply = tg_json_parse(res.out.data, res.out.len, NULL, NULL, NULL, &perr);
    if (!cJSON_IsObject(*reply)) {
        cJSON_Delete(*reply);
        *reply = NULL;
        tg_err_set(err, "toolgen/run/runtime/%s printed no JSON object: %s", script, perr.msg);
        goto out;
    }
    rc = TG_STAGE_DONE;
out:
    if (src == 0)
        tg_sandbox_result_free(&res);
    free(text);
    free(inside);
    return rc;
}

