/*
 * stage_aggregate.c — aggregate: every tool's IR into the repository-wide files
 * (generated/mcp/, generated/adapters/, generated/skill/; docs/emit.md).
 */
#include <stdlib.h>

#include "emit/emit.h"
#include "stages/stages_int.h"

static void aggregate_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    (void)own;
    tgs_root_generated(cfg, shared);
}

static const char *const aggregate_config[] = {"/paths/generated", "/project", NULL};

static tg_stage_status aggregate_run(tg_stage_run *r, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    tg_manifest *ms = xcalloc(n ? n : 1, sizeof *ms);
    const tg_manifest **pm = xcalloc(n ? n : 1, sizeof *pm);
    tg_stage_status rc = TG_STAGE_FAILED;
    size_t loaded = 0;
    for (; loaded < n; loaded++) {
        if (tgs_manifest(r, tools[loaded], &ms[loaded], err) != 0)
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
    rc = TG_STAGE_DONE;
out:
    for (size_t i = 0; i < loaded; i++)
        tg_manifest_free(&ms[i]);
    free(ms);
    free(pm);
    return rc;
}

const tg_stage_def tgs_aggregate = {
    .id = "aggregate",
    .version = "1",
    .scope = TG_STAGE_REPO,
    .upstream = tgs_up_load,
    .config = aggregate_config,
    .roots = aggregate_roots,
    .run = aggregate_run,
    .summary = "every IR → generated/mcp/, generated/adapters/, generated/skill/",
};
