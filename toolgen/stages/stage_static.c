/*
 * stage_static.c — static T: the static check of T's code (runtime/static_check.py, Python's
 * own ast) run in the sandbox; a finding fails the stage with file:line:col, and the findings
 * go to .toolgen/out/T.static.json for the test stage (docs/build.md "Validation gates").
 */
#include <stdlib.h>
#include <string.h>

#include "base/confine.h"
#include "base/json.h"
#include "quality/metrics.h"
#include "stages/stages_int.h"

static void static_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    (void)cfg;
    (void)shared;
    tg_strv_push(own, TG_OUT_DIR);
}

/* Why m's code is not checked (heap), or NULL: it is (model/runtime.h, static_skip). */
static char *static_skip_reason(const tg_manifest *m, const char *code_path)
{
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    if (rt && rt->static_skip)
        return xasprintf("runtime %s: %s", rt->name, rt->static_skip);
    return rt && code_path ? NULL : xstrdup("no implementation file");
}

static tg_stage_status static_run(tg_stage_run *r, tg_err *err)
{
    const char *tool = tg_stage_tool(r);
    tg_manifest m;
    if (tgs_manifest(r, tool, &m, err) != 0)
        return TG_STAGE_FAILED;
    char *code_path = tgs_code_path(&m, m.impl_file);
    cJSON *out = NULL;
    char *code = NULL;
    cJSON *req = NULL;
    tg_sandbox_config sc = {0};
    bool have_sc = false;
    tg_stage_status rc = TG_STAGE_FAILED;
    char *why = static_skip_reason(&m, code_path);
    if (why) {
        out = cJSON_CreateObject();
        cJSON_AddBoolToObject(out, "ok", true);
        cJSON_AddStringToObject(out, "skipped", why);
        cJSON_AddStringToObject(out, "file", code_path ? code_path : m.doc.file);
        cJSON_AddArrayToObject(out, "findings");
        cJSON_AddArrayToObject(out, "warnings");
        tg_stage_note(r, "static check skipped: %s", why);
        rc = TG_STAGE_DONE;
        goto emit;
    }
    tg_stage_dep(r, code_path);
    size_t len = 0;
    /* a link out of the repository would be read with toolgen's rights (base/confine.h) */
    const tg_repo *repo = tg_stage_repo(r);
    if (tg_confine_repo_in(repo->path, code_path, m.dir, "tool code", err) != 0 ||
        !(code = tg_read_file_at(repo->root_fd, code_path, TGS_CODE_MAX_BYTES, &len, err)))
        goto done;
    if (tg_sandbox_config_init(&sc, repo->path, tg_stage_config(r)->doc.root, err) != 0)
        goto done;
    have_sc = true;
    tgs_warn_isolation(r, "the static stage", &sc);
    req = tg_static_check_request(code, code_path, tg_config_get(tg_stage_config(r), "/static_check"));
    rc = tgs_run_script(&sc, "static_check.py", req, &out, err);
    if (rc != TG_STAGE_DONE)
        goto done;
    rc = TG_STAGE_FAILED;
    const cJSON *findings = tg_json_get(out, "findings"), *f;
    if (!cJSON_IsArray(findings) || !cJSON_IsArray(tg_json_get(out, "warnings"))) {
        tg_err_set(err, "toolgen/run/runtime/static_check.py replied without findings/warnings");
        goto done;
    }
    int nfind = cJSON_GetArraySize(findings);
    cJSON_ArrayForEach(f, findings)
    {
        tg_stage_problem(r, "%s:%d:%d: %s (%s)", code_path,
                         (int)tg_json_get_number(f, "line", 1), (int)tg_json_get_number(f, "col", 1),
                         tg_json_get_string(f, "message") ? tg_json_get_string(f, "message") : "?",
                         tg_json_get_string(f, "rule") ? tg_json_get_string(f, "rule") : "?");
    }
    cJSON_ArrayForEach(f, tg_json_get(out, "warnings"))
    {
        tg_stage_note(r, "%s:%d:%d: warning: %s (%s)", code_path,
                      (int)tg_json_get_number(f, "line", 1), (int)tg_json_get_number(f, "col", 1),
                      tg_json_get_string(f, "message") ? tg_json_get_string(f, "message") : "?",
                      tg_json_get_string(f, "rule") ? tg_json_get_string(f, "rule") : "?");
    }
    if (nfind || !cJSON_IsTrue(tg_json_get(out, "ok"))) {
        tg_err_setpos(err, code_path, 0, 0,
                      "static check: %d finding%s; the gate static_check fails and %s stays "
                      "draft (rules: toolgen.yaml static_check, docs/metrics.md#static-check)",
                      nfind, nfind == 1 ? "" : "s", tool);
        goto done;
    }
    tg_stage_note(r, "static check: ok (%d warning%s)", cJSON_GetArraySize(tg_json_get(out, "warnings")),
                  cJSON_GetArraySize(tg_json_get(out, "warnings")) == 1 ? "" : "s");
    rc = TG_STAGE_DONE;
emit:
    if (rc == TG_STAGE_DONE) {
        /* deterministic (no timings): the test stage reads it, and early cut-off works */
        char *text = tg_json_print(out);
        tg_stage_output(r, tg_static_out_path(tool), text, strlen(text));
    }
done:
    cJSON_Delete(out);
    cJSON_Delete(req);
    free(code);
    free(code_path);
    free(why);
    if (have_sc)
        tg_sandbox_config_free(&sc);
    tg_manifest_free(&m);
    return rc;
}

static const char *const static_config[] = {"/static_check", "/sandbox", NULL};

const tg_stage_def tgs_static = {
    .id = "static",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .upstream = tgs_up_load,
    .config = static_config,
    .env = tgs_env_sandbox,
    .roots = static_roots,
    .run = static_run,
    .gate = true,
    .summary = "static check of the tool's Python code in the sandbox (ast: forbidden calls and "
               "modules, import allowlist) → .toolgen/out/<tool>.static.json",
};
