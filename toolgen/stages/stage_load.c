/*
 * stage_load.c — load T: the manifest, with every check of `toolgen lint`, into the canonical
 * IR (.toolgen/ir/T.json), which every later stage reads instead of the YAML (docs/build.md
 * "The stage graph").
 */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "model/lint.h"
#include "stages/stages_int.h"

static void load_inputs(const tg_config *cfg, const char *tool, tg_strv *out)
{
    tg_strv_push_owned(out, tg_manifest_path(cfg, tool)); /* the tool's marker */
}

static void load_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    (void)cfg;
    (void)shared;
    tg_strv_push(own, TG_IR_DIR);
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

static void report_problems(tg_stage_run *r, tg_problems *probs)
{
    tg_problems_sort(probs);
    for (size_t i = 0; i < probs->n; i++) {
        const tg_problem *p = &probs->v[i];
        if (p->line > 0)
            tg_stage_problem(r, "%s:%d:%d: %s", p->file, p->line, p->col > 0 ? p->col : 1, p->msg);
        else
            tg_stage_problem(r, "%s: %s", p->file, p->msg);
    }
}

static tg_stage_status load_run(tg_stage_run *r, tg_err *err)
{
    const char *tool = tg_stage_tool(r);
    tg_schemaset *ss = tg_stage_schemaset(r, err);
    if (!ss)
        return TG_STAGE_FAILED;
    char *path = tg_manifest_path(tg_stage_config(r), tool);
    /* The lint checks are the load's checks: a manifest that lint refuses does not build. */
    tg_problems probs = {0};
    tg_lint_stats stats = {0};
    const char *paths[1] = {path};
    tg_stage_status rc = TG_STAGE_FAILED;
    if (tg_lint_paths(ss, paths, 1, &probs, &stats, err) != 0)
        goto out;
    if (probs.n) {
        report_problems(r, &probs);
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
    rc = TG_STAGE_DONE;
out:
    tg_problems_free(&probs);
    free(path);
    return rc;
}

static const char *const load_data[] = {"schemas/tool.manifest.schema.json", NULL};

const tg_stage_def tgs_load = {
    .id = "load",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .data = load_data,
    .inputs = load_inputs,
    .roots = load_roots,
    .run = load_run,
    .summary = "manifest → canonical IR (.toolgen/ir/<tool>.json), with every lint check",
};
