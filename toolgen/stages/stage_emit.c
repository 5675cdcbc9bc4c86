/*
 * stage_emit.c — emit T: the IR of T into generated/T/ (schemas, MCP tool, OpenAI, Anthropic,
 * fixtures; docs/emit.md), the build report .toolgen/reports/T.json, and T's fragment of the
 * repository-wide files, .toolgen/out/T.fragment, which the aggregate concatenates
 * (docs/build.md, "The aggregate").
 */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "emit/emit.h"
#include "stages/stages_int.h"

static void emit_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    tgs_root_generated(cfg, shared);
    tg_strv_push(own, TG_REPORTS_DIR);
    tg_strv_push(own, TG_OUT_DIR);
}

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

static tg_stage_status emit_run(tg_stage_run *r, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *tool = tg_stage_tool(r);
    tg_manifest m;
    if (tgs_manifest(r, tool, &m, err) != 0)
        return TG_STAGE_FAILED;
    tg_emit_files files = {0};
    if (tg_emit_tool(&m, &files, err) != 0) {
        tg_manifest_free(&m);
        return TG_STAGE_FAILED;
    }
    size_t flen;
    char *fragment = tg_emit_tool_fragment(&m, &flen, err);
    if (!fragment) {
        tg_emit_files_free(&files);
        tg_manifest_free(&m);
        return TG_STAGE_FAILED;
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
    tg_stage_output(r, tgs_fragment_path(tool), fragment, flen);
    tg_emit_files_free(&files);
    tg_manifest_free(&m);
    return TG_STAGE_DONE;
}

static const char *const emit_config[] = {"/paths/generated", NULL};

const tg_stage_def tgs_emit = {
    .id = "emit",
    .version = "2",
    .scope = TG_STAGE_TOOL,
    .upstream = tgs_up_load,
    .config = emit_config,
    .roots = emit_roots,
    .run = emit_run,
    .summary = "IR → generated/<tool>/ (schemas, MCP tool, OpenAI, Anthropic, fixtures), report, fragment",
};
