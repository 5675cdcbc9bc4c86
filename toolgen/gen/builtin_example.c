/*
 * builtin_example.c — runs a generated tool's example through run/ (the same call as
 * `toolgen run` and the test stage) and writes its result into the manifest.
 */
#include "gen/builtin_example.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/json.h"
#include "model/manifest.h"
#include "run/toolrun.h"
#include "schema/jsonschema.h"

static int call_example(const tg_repo *repo, const tg_manifest *m, const cJSON *args,
                        tg_builtin_tool *t, tg_err *err)
{
    js_registry *reg = js_registry_new();
    js_schema *in = js_compile(reg, m->input_schema, &(js_options){0}, err);
    js_schema *out = in ? js_compile(reg, m->output_schema, &(js_options){0}, err) : NULL;
    tg_toolrun_env env;
    int rc = -1;
    if (out && tg_toolrun_env_open(&env, repo, repo->have_config ? repo->cfg.doc.root : NULL,
                                   err) == 0) {
        tg_tool_call call = {.m = m, .input = in, .output = out, .args = args};
        tg_call_result r = {0};
        if (tg_tool_call_run(&env.ctx, &call, &r, err) == TG_CALL_DONE) {
            if (r.ok) {
                char *text = tg_json_print_compact(r.result);
                rc = tg_builtin_set_example_output(t, text, err);
                free(text);
            } else {
                tg_err_set(err, "%s: the example %s failed: %s", t->name, t->example_input,
                           r.guidance.message[0] ? r.guidance.message : "no result");
            }
        }
        tg_call_result_free(&r);
        tg_toolrun_env_close(&env);
    }
    js_schema_free(in);
    js_schema_free(out);
    js_registry_free(reg);
    return rc;
}

int tg_builtin_run_example(const tg_repo *repo, const char *tool_dir, tg_builtin_tool *t,
                           tg_err *err)
{
    char *path = tg_path_join(tool_dir, "tool.manifest.yaml");
    tg_manifest m;
    int rc = tg_manifest_parse(t->manifest_yaml, strlen(t->manifest_yaml), path, NULL, &m, err);
    free(path);
    if (rc != 0)
        return -1;
    tg_manifest_bind(&m);
    cJSON *args = cJSON_Parse(t->example_input);
    rc = args ? call_example(repo, &m, args, t, err)
              : tg_err_set(err, "%s: the example input is not JSON", t->name);
    cJSON_Delete(args);
    tg_manifest_free(&m);
    return rc;
}
