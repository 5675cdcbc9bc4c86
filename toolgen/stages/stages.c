/* stages.c — load (manifest → canonical IR), emit (per-tool files), aggregate (repository files).
 */
#include "stages/stages.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "emit/emit.h"
#include "base/json.h"
#include "model/lint.h"
#include "model/manifest.h"

char *tg_manifest_path(const tg_config *cfg, const char *tool)
{
    return xasprintf("%s/%s/tool.manifest.yaml", cfg->manifests_dir, tool);
}

char *tg_ir_path(const char *tool)
{
    return xasprintf(TG_STATE_DIR "/ir/%s.json", tool);
}

char *tg_report_path(const char *tool)
{
    return xasprintf(TG_STATE_DIR "/reports/%s.json", tool);
}

char *tg_validation_report_path(const char *tool)
{
    return xasprintf(TG_STATE_DIR "/reports/%s.validation.json", tool);
}

char *tg_static_out_path(const char *tool)
{
    return xasprintf(TG_STATE_DIR "/out/%s.static.json", tool);
}

bool tg_tool_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64 || name[0] < 'a' || name[0] > 'z')
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '_'))
            return false;
    return true;
}

/*
 * The IR back into a bound manifest. Messages name the manifest (what the user edits), not the
 * IR file; there are no positions, as the IR's lines are not the manifest's.
 */
static int ir_manifest(tg_stage_run *r, const char *tool, tg_manifest *m, tg_err *err)
{
    size_t len = 0;
    char *ir = tg_stage_read_upstream(r, "load", tool, &len, err);
    if (!ir)
        return -1;
    *m = (tg_manifest){0};
    cJSON *root = tg_json_parse(ir, len, NULL, NULL, NULL, err);
    free(ir);
    char *path = tg_manifest_path(tg_stage_config(r), tool);
    if (!root) {
        tg_err_prefix(err, "%s (the IR of %s)", TG_STATE_DIR "/ir", path);
        free(path);
        return -1;
    }
    m->doc.root = root;
    m->doc.file = path;
    const char *slash = strrchr(path, '/');
    m->dir = xstrndup(path, (size_t)(slash - path));
    tg_manifest_bind(m);
    return 0;
}

int tg_stage_manifest(tg_stage_run *r, tg_manifest *m, tg_err *err)
{
    return ir_manifest(r, tg_stage_tool(r), m, err);
}

/* ---- load ----------------------------------------------------------------------------------- */

static void load_inputs(const tg_config *cfg, const char *tool, tg_strv *out)
{
    tg_strv_push_owned(out, tg_manifest_path(cfg, tool));
}

static void dep_file(tg_stage_run *r, const tg_manifest *m, const char *file)
{
    if (!file || file[0] == '/' || strstr(file, ".."))
        return;
    char *p = tg_path_join(m->dir, file);
    /* lint checks only that the file is there: its content is the static and test stages'
     * business, so editing tool.py must not rerun load */
    tg_stage_dep_exists(r, p);
    free(p);
}

static int load_run(tg_stage_run *r, tg_err *err)
{
    const char *tool = tg_stage_tool(r);
    tg_schemaset *ss = tg_stage_schemaset(r, err);
    if (!ss)
        return -1;
    char *path = tg_manifest_path(tg_stage_config(r), tool);
    /* The lint checks are the load's checks: a manifest that lint refuses does not build. */
    tg_problems probs = {0};
    tg_lint_stats stats = {0};
    const char *paths[1] = {path};
    int rc = -1;
    if (tg_lint_paths(ss, paths, 1, &probs, &stats, err) != 0)
        goto out;
    if (probs.n) {
        tg_problems_sort(&probs);
        for (size_t i = 0; i < probs.n; i++) {
            const tg_problem *p = &probs.v[i];
            if (p->line > 0)
                tg_stage_problem(r, "%s:%d:%d: %s", p->file, p->line, p->col > 0 ? p->col : 1,
                                 p->msg);
            else
                tg_stage_problem(r, "%s: %s", p->file, p->msg);
        }
        tg_err_setpos(err, path, 0, 0, "%zu problem%s (see `toolgen lint %s`)", probs.n,
                      probs.n == 1 ? "" : "s", path);
        goto out;
    }
    tg_manifest m;
    if (tg_manifest_load(path, &m, err) != 0)
        goto out;
    tg_manifest_bind(&m);
    /* Files next to the manifest that lint looked at: their presence is part of the verdict. */
    dep_file(r, &m, m.impl_file);
    dep_file(r, &m, tg_json_get_string(m.reference, "file"));
    char *ir = tg_json_print(m.doc.root);
    tg_stage_output(r, tg_ir_path(tool), ir, strlen(ir));
    tg_manifest_free(&m);
    rc = 0;
out:
    tg_problems_free(&probs);
    free(path);
    return rc;
}

/* ---- emit ----------------------------------------------------------------------------------- */

static const char *const up_load[] = {"load", NULL};
static const char *const emit_config[] = {"/paths/generated", NULL};

static char *report_json(const tg_config *cfg, const tg_manifest *m, const tg_emit_files *files)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "tool", m->name ? m->name : "");
    cJSON_AddStringToObject(r, "manifest", m->doc.file);
    tg_openai_mode mode = tg_emit_openai_mode(m);
    cJSON *o = cJSON_AddObjectToObject(r, "openai");
    cJSON_AddBoolToObject(o, "strict", mode.strict);
    char *comment;
    if (mode.strict)
        comment = mode.relaxed[0]
                      ? xasprintf("strict mode; restated in descriptions, enforced by toolgen: %s",
                                  mode.relaxed)
                      : xstrdup("strict mode");
    else
        comment = xasprintf("not strict: %s", mode.reason);
    cJSON_AddStringToObject(o, "comment", comment);
    free(comment);
    if (mode.strict && mode.relaxed[0])
        cJSON_AddStringToObject(o, "relaxed", mode.relaxed);
    cJSON *outs = cJSON_AddArrayToObject(r, "outputs");
    for (size_t i = 0; i < files->n; i++) {
        char *p = tg_path_join(cfg->generated_dir, files->v[i].path);
        cJSON_AddItemToArray(outs, cJSON_CreateString(p));
        free(p);
    }
    char *text = tg_json_print(r);
    cJSON_Delete(r);
    return text;
}

static int emit_run(tg_stage_run *r, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *tool = tg_stage_tool(r);
    tg_manifest m;
    if (ir_manifest(r, tool, &m, err) != 0)
        return -1;
    tg_emit_files files = {0};
    if (tg_emit_tool(&m, &files, err) != 0) {
        tg_manifest_free(&m);
        return -1;
    }
    char *report = report_json(cfg, &m, &files);
    tg_openai_mode mode = tg_emit_openai_mode(&m);
    if (mode.strict)
        tg_stage_note(r, "openai.json: strict");
    else
        tg_stage_note(r, "openai.json: not strict: %s", mode.reason);
    for (size_t i = 0; i < files.n; i++) {
        tg_stage_output(r, tg_path_join(cfg->generated_dir, files.v[i].path), files.v[i].data,
                        files.v[i].len);
        files.v[i].data = NULL;
    }
    tg_stage_output(r, tg_report_path(tool), report, strlen(report));
    tg_emit_files_free(&files);
    tg_manifest_free(&m);
    return 0;
}

/* ---- aggregate ------------------------------------------------------------------------------ */

static const char *const aggregate_config[] = {"/paths/generated", "/project", NULL};

static int aggregate_run(tg_stage_run *r, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    tg_manifest *ms = xcalloc(n ? n : 1, sizeof *ms);
    const tg_manifest **pm = xcalloc(n ? n : 1, sizeof *pm);
    int rc = -1;
    size_t loaded = 0;
    for (; loaded < n; loaded++) {
        if (ir_manifest(r, tools[loaded], &ms[loaded], err) != 0)
            goto out;
        pm[loaded] = &ms[loaded];
    }
    tg_emit_files files = {0};
    if (tg_emit_aggregate(pm, n, &cfg->project, &files, err) != 0)
        goto out;
    for (size_t i = 0; i < files.n; i++) {
        tg_stage_output(r, tg_path_join(cfg->generated_dir, files.v[i].path), files.v[i].data,
                        files.v[i].len);
        files.v[i].data = NULL;
    }
    tg_emit_files_free(&files);
    rc = 0;
out:
    for (size_t i = 0; i < loaded; i++)
        tg_manifest_free(&ms[i]);
    free(ms);
    free(pm);
    return rc;
}

/* ---- the table ------------------------------------------------------------------------------ */

static const char *const load_data[] = {"schemas/tool.manifest.schema.json", NULL};

static const tg_stage_def stage_load = {
    .id = "load",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .data = load_data,
    .inputs = load_inputs,
    .run = load_run,
    .summary = "manifest → canonical IR (.toolgen/ir/<tool>.json), with every lint check",
};

static const tg_stage_def stage_emit = {
    .id = "emit",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .upstream = up_load,
    .config = emit_config,
    .run = emit_run,
    .summary = "IR → generated/<tool>/ (schemas, MCP tool, OpenAI, Anthropic, fixtures) + report",
};

static const tg_stage_def stage_aggregate = {
    .id = "aggregate",
    .version = "1",
    .scope = TG_STAGE_REPO,
    .upstream = up_load,
    .config = aggregate_config,
    .run = aggregate_run,
    .summary = "every IR → generated/mcp/, generated/adapters/, generated/skill/",
};

/* stage_gates.c */
extern const tg_stage_def tg_stage_static, tg_stage_test;

const tg_stage_def *const tg_stages[] = {&stage_load,      &stage_emit, &tg_stage_static,
                                         &tg_stage_test,   &stage_aggregate, NULL};

const tg_stage_def *tg_stage_find(const char *id)
{
    for (size_t i = 0; tg_stages[i]; i++)
        if (strcmp(tg_stages[i]->id, id) == 0)
            return tg_stages[i];
    return NULL;
}
