/* gen_example.c — a generated tool's example output from a real call (gen_example.h). */
#include "gen/gen_example.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "model/manifest.h"
#include "run/toolrun.h"
#include "schema/jsonschema.h"

typedef struct example_run {
    tg_manifest m;
    js_registry *reg;
    js_schema *in, *out;
    tg_toolrun_env env;
    bool have_env;
    cJSON *args;
    tg_call_result r;
} example_run;

static void example_free(example_run *x)
{
    tg_call_result_free(&x->r);
    if (x->have_env)
        tg_toolrun_env_close(&x->env);
    cJSON_Delete(x->args);
    js_schema_free(x->in);
    js_schema_free(x->out);
    if (x->reg)
        js_registry_free(x->reg);
    tg_manifest_free(&x->m);
}

static int prepare(example_run *x, const tg_repo *repo, const char *path, const char *input,
                   bool *env_problem, tg_err *err)
{
    if (tg_manifest_load(repo, path, &x->m, err) != 0)
        return -1;
    tg_manifest_bind(&x->m);
    x->args = tg_json_parse(input, strlen(input), NULL, NULL, NULL, err);
    if (!x->args)
        return tg_err_prefix(err, "%s: the example's input", path);
    x->reg = js_registry_new();
    tg_err merr = {0};
    js_registry_add_metaschemas(x->reg, &merr); /* only schemas that reference it need it */
    x->in = x->m.input_schema ? js_compile(x->reg, x->m.input_schema, &(js_options){0}, err) : NULL;
    x->out = x->in && x->m.output_schema
                 ? js_compile(x->reg, x->m.output_schema, &(js_options){0}, err) : NULL;
    if (!x->in || !x->out)
        return tg_err_prefix(err, "%s: a schema does not compile", path);
    if (tg_toolrun_env_open(&x->env, repo, repo->cfg.doc.root, err) != 0) {
        *env_problem = true;
        return -1;
    }
    x->have_env = true;
    return 0;
}

char *tg_gen_run_example(const tg_repo *repo, const char *manifest_path, const char *input_json,
                         bool *env_problem, tg_err *err)
{
    *env_problem = false;
    example_run x = {0};
    char *result = NULL;
    if (prepare(&x, repo, manifest_path, input_json, env_problem, err) == 0) {
        tg_tool_call call = {.m = &x.m, .input = x.in, .output = x.out, .args = x.args};
        tg_call_status st = tg_tool_call_run(&x.env.ctx, &call, &x.r, err);
        if (st != TG_CALL_DONE)
            *env_problem = true;
        else if (!x.r.ok)
            tg_err_set(err, "%s: the example call failed: %s: %s", manifest_path,
                       x.r.guidance.code ? x.r.guidance.code : "ERROR", x.r.guidance.message);
        else
            result = tg_json_print_compact(x.r.result);
    }
    example_free(&x);
    return result;
}
