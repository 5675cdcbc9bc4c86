/*
 * stage_aggregate.c — aggregate: every tool's fragment (written by emit) concatenated into the
 * repository-wide files (generated/mcp/, generated/adapters/, generated/skill/; docs/emit.md).
 * It reads no IR and builds no JSON: an edit of one tool re-renders that tool's fragment only
 * (docs/build.md, "The aggregate").
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
/* emit writes the fragments; load is listed too, so that the graph shows (and the key holds)
 * what the repository-wide files ultimately come from. */
static const char *const aggregate_upstream[] = {"load", "emit", NULL};

/* A tool's reference page is its fragment's reference piece, whole: when the fragment is the
 * one the last run saw, the page on disk is already right and is handed over without its bytes
 * (docs/build.md, "The aggregate"). */
static void reference_pages(tg_stage_run *r, const tg_emit_fragment *f, size_t n)
{
    const tg_config *cfg = tg_stage_config(r);
    for (size_t i = 0; i < n; i++) {
        const char *tool = f[i].p[TG_PIECE_NAME].data;
        char *rel = tg_emit_reference_path(&cfg->project, tool);
        char *path = tg_path_join(cfg->generated_dir, rel);
        free(rel);
        if (tg_stage_upstream_unchanged(r, "emit", tool) &&
            tg_stage_output_unchanged(r, xstrdup(path))) {
            free(path);
            continue;
        }
        const tg_emit_piece *page = &f[i].p[TG_PIECE_REFERENCE];
        tg_stage_output(r, path, xstrdup(page->data), page->len);
    }
}

static tg_stage_status aggregate_run(tg_stage_run *r, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    char **texts = xcalloc(n + 1, sizeof *texts);
    tg_emit_fragment *f = xcalloc(n + 1, sizeof *f);
    tg_stage_status rc = TG_STAGE_FAILED;
    size_t loaded = 0;
    for (; loaded < n; loaded++) {
        char *path = tgs_fragment_path(tools[loaded]);
        size_t len = 0;
        texts[loaded] = tg_stage_read_upstream_file(r, "emit", tools[loaded], path, &len, err);
        int prc = texts[loaded] ? tg_emit_fragment_parse(texts[loaded], len, &f[loaded], err) : -1;
        if (prc != 0 && texts[loaded])
            tg_err_prefix(err, "%s", path);
        free(path);
        if (prc != 0) {
            loaded++;
            goto out;
        }
    }
    tg_emit_files files = {0};
    if (tg_emit_aggregate_shared(f, n, &cfg->project, &files, err) != 0)
        goto out;
    for (size_t i = 0; i < files.n; i++) {
        tg_stage_output(r, tg_path_join(cfg->generated_dir, files.v[i].path), files.v[i].data,
                        files.v[i].len);
        files.v[i].data = NULL;
    }
    tg_emit_files_free(&files);
    reference_pages(r, f, n);
    rc = TG_STAGE_DONE;
out:
    for (size_t i = 0; i < loaded; i++)
        free(texts[i]);
    free(texts);
    free(f);
    return rc;
}

const tg_stage_def tgs_aggregate = {
    .id = "aggregate",
    .version = "2",
    .scope = TG_STAGE_REPO,
    .upstream = aggregate_upstream,
    .config = aggregate_config,
    .roots = aggregate_roots,
    .run = aggregate_run,
    .summary = "every tool's fragment → generated/mcp/, generated/adapters/, generated/skill/",
};
