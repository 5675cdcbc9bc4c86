/*
 * stage_aggregate.c — aggregate: every tool's fragment (written by emit) concatenated into the
 * repository-wide files (generated/mcp/, generated/adapters/, generated/skill/; docs/emit.md),
 * and the registry's server.json, which is the project's alone.
 * It reads no IR and builds no JSON. After an edit it starts from its own previous outputs:
 * the index it wrote when it last made the files anew and the edits listed since
 * (emit/aggindex.h) say where each tool's pieces lie in the previous files. An edit that keeps
 * the text around the pieces replaces the edited tools' pieces in place; another one makes the
 * files again from the previous files' pieces and the changed tools' fragments. The reference
 * pages of unchanged tools are handed over without their bytes (docs/build.md, "The
 * aggregate"). Any doubt (no index, a damaged output, a piece found nowhere) falls back to
 * every fragment.
 */
#include <stdlib.h>
#include <string.h>

#include "emit/aggindex.h"
#include "emit/emit.h"
#include "emit/emit_registry.h"
#include "stages/stages_int.h"

#define INDEX_PATH TG_OUT_DIR "/aggregate.index"
#define EDITS_PATH TG_OUT_DIR "/aggregate.edits"
/* Past this many edits, the files and the index are made anew (the list is read whole by every
 * edit; making them anew costs about what it did before the index existed). */
#define MAX_EDITS 4096

static void aggregate_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    tgs_root_generated(cfg, shared);
    tg_strv_push(own, TG_OUT_DIR);
}

static const char *const aggregate_config[] = {"/paths/generated", "/project", NULL};
/* emit writes the fragments; load is listed too, so that the graph shows (and the key holds)
 * what the repository-wide files ultimately come from. */
static const char *const aggregate_upstream[] = {"load", "emit", NULL};

/* The previous run's index, edits and files, as the engine vouches for them. */
typedef struct previous {
    const char *index; /* mapped by the engine until run() returns, as are the files */
    size_t index_len;
    tg_aggindex hdr; /* the index's header only: paths, count (tg_aggindex_peek) */
    tg_hash names;   /* the tool names it records (tg_aggindex_names_hash) */
    char *hdr_keep;
    tg_aggindex_edits ed;
    const char *bytes[TG_AGGINDEX_FILES];
    size_t lens[TG_AGGINDEX_FILES];
    bool ok;
    char *all_text; /* the whole index parsed, for views of every tool (previous_parse_all) */
    tg_aggindex all;
} previous;

static void previous_load(tg_stage_run *r, previous *pv)
{
    const tg_config *cfg = tg_stage_config(r);
    tg_err err = {0};
    size_t elen = 0;
    pv->index = tg_stage_map_previous_output(r, INDEX_PATH, &pv->index_len, &err);
    char *edits = pv->index ? tg_stage_read_previous_output(r, EDITS_PATH, &elen, &err) : NULL;
    bool ok = edits && tg_aggindex_edits_parse(edits, elen, &pv->ed, &err) == 0 &&
              tg_aggindex_peek(pv->index, pv->index_len, NULL, 0, &pv->hdr, &pv->names,
                               &pv->hdr_keep, &err) == 0;
    free(edits);
    for (int j = 0; ok && j < TG_AGGINDEX_FILES; j++) {
        char *path = tg_path_join(cfg->generated_dir, pv->hdr.paths[j]);
        pv->bytes[j] = tg_stage_map_previous_output(r, path, &pv->lens[j], &err);
        free(path);
        ok = pv->bytes[j] != NULL;
    }
    pv->ok = ok;
}

/* The whole index, for views of every tool; false when it does not parse. */
static bool previous_parse_all(previous *pv)
{
    if (!pv->ok)
        return false;
    if (!pv->all_text) {
        tg_err err = {0};
        pv->all_text = xmalloc(pv->index_len + 1);
        memcpy(pv->all_text, pv->index, pv->index_len);
        pv->all_text[pv->index_len] = '\0';
        if (tg_aggindex_parse(pv->all_text, pv->index_len, &pv->all, &err) != 0)
            pv->ok = false;
    }
    return pv->ok;
}

static void previous_free(previous *pv)
{
    if (pv->all_text)
        tg_aggindex_free(&pv->all);
    free(pv->all_text);
    tg_aggindex_free(&pv->hdr);
    free(pv->hdr_keep);
    tg_aggindex_edits_free(&pv->ed);
}

/* Tool i's fragment, from emit's output file; texts[i] keeps the bytes. */
static int read_fragment(tg_stage_run *r, const char *tool, char **text, tg_emit_fragment *f,
                         tg_err *err)
{
    char *path = tgs_fragment_path(tool);
    size_t len = 0;
    *text = tg_stage_read_upstream_file(r, "emit", tool, path, &len, err);
    int rc = *text ? tg_emit_fragment_parse(*text, len, f, err) : -1;
    if (rc != 0 && *text)
        tg_err_prefix(err, "%s", path);
    free(path);
    return rc;
}

/* Whether every piece the files need is at hand (a view's piece found nowhere is NULL): all
 * but the reference page and the SKILL.md forms not in use. */
static bool pieces_complete(const tg_emit_fragment *f, size_t n, const tg_project_info *repo)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < TG_PIECE_COUNT; k++)
            if (!f[i].p[k].data && k != TG_PIECE_REFERENCE && k != TG_PIECE_SKILL_TOOL_FULL &&
                k != TG_PIECE_SKILL_TOOL_COMPACT && k != TG_PIECE_SKILL_TOOL_MINIMAL)
                return false;
    tg_emit_piece_kind form = tg_emit_skill_form(f, n, repo);
    for (size_t i = 0; i < n; i++)
        if (!f[i].p[form].data)
            return false;
    return true;
}

/*
 * The fragments of every tool: views into the previous files for the tools whose fragment the
 * last run saw (from_index[i]), read from emit's output for the others (unless already read:
 * texts[i]), or for all of them when the previous files cannot serve.
 */
static int gather(tg_stage_run *r, previous *pv, char **texts, tg_emit_fragment *f,
                  bool *from_index, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    size_t viewed = 0;
    bool have = previous_parse_all(pv);
    for (size_t i = 0; i < n; i++) {
        if (texts[i])
            continue;
        const tg_aggindex_tool *found = have ? tg_aggindex_find(&pv->all, tools[i]) : NULL;
        tg_aggindex_tool t = found ? *found : (tg_aggindex_tool){0};
        if (found)
            tg_aggindex_edits_apply(&pv->ed, &t);
        if (found && tg_stage_upstream_unchanged(r, "emit", tools[i]) &&
            tg_aggindex_view(&t, pv->bytes, pv->lens, &f[i])) {
            from_index[i] = true;
            viewed++;
        } else if (read_fragment(r, tools[i], &texts[i], &f[i], err) != 0) {
            return -1;
        }
    }
    if (viewed && !pieces_complete(f, n, &cfg->project)) {
        tg_stage_note(r, "the index lacks pieces now needed: every fragment read");
        for (size_t i = 0; i < n; i++)
            if (from_index[i]) {
                from_index[i] = false;
                if (read_fragment(r, tools[i], &texts[i], &f[i], err) != 0)
                    return -1;
            }
        viewed = 0;
    }
    tg_stage_note(r, "%zu of %zu tools' pieces taken from the previous files", viewed, n);
    return 0;
}

/* A tool's reference page is its fragment's reference piece, whole: when the fragment is the
 * one the last run saw, the page on disk is already right and is handed over without its
 * bytes. A tool whose fragment was not read (texts[i] NULL) has no reference piece at hand:
 * should the engine not vouch for its page, the page is read from the fragment after all. */
static int reference_pages(tg_stage_run *r, char **texts, tg_emit_fragment *f, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    /* the paths of tg_emit_reference_path, without a printf per tool */
    char *rel = tg_emit_reference_path(&cfg->project, "");
    char *dir = tg_path_join(cfg->generated_dir, rel);
    free(rel);
    size_t dlen = strlen(dir) - strlen(".md");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t tlen = strlen(tools[i]);
        char *path = xmalloc(dlen + tlen + 4);
        memcpy(path, dir, dlen);
        memcpy(path + dlen, tools[i], tlen);
        memcpy(path + dlen + tlen, ".md", 4);
        if ((!texts[i] || tg_stage_upstream_unchanged(r, "emit", tools[i])) &&
            tg_stage_output_unchanged(r, xstrdup(path))) {
            free(path);
            continue;
        }
        if (!texts[i] && read_fragment(r, tools[i], &texts[i], &f[i], err) != 0) {
            free(path);
            rc = -1;
            break;
        }
        const tg_emit_piece *page = &f[i].p[TG_PIECE_REFERENCE];
        tg_stage_output(r, path, xstrdup(page->data), page->len);
    }
    free(dir);
    return rc;
}

/* Hands over an output (path taken) as the bytes the last run wrote, old[0..len): without them
 * when the engine vouches for the file, else as a copy. */
static void keep_output(tg_stage_run *r, char *path, const char *old, size_t len)
{
    if (tg_stage_output_unchanged(r, xstrdup(path))) {
        free(path);
        return;
    }
    char *copy = xmalloc(len + 1);
    memcpy(copy, old, len);
    copy[len] = '\0';
    tg_stage_output(r, path, copy, len);
}

/* The edited tools (upstream changed) of the tools named as the index names them: their line
 * numbers in the index, ascending; false when the index describes other tools. */
static bool edited_tools(tg_stage_run *r, const previous *pv, size_t **edit, size_t *ne)
{
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    if (!pv->ok || pv->hdr.n != n || pv->ed.n > MAX_EDITS ||
        !tg_hash_eq(tg_aggindex_names_hash(tools, n), pv->names) ||
        !tg_stage_own_inputs_unchanged(r))
        return false;
    *edit = xcalloc(n + 1, sizeof **edit);
    *ne = 0;
    for (size_t i = 0; i < n; i++)
        if (!tg_stage_upstream_unchanged(r, "emit", tools[i]))
            (*edit)[(*ne)++] = i;
    return true;
}

/* The new files (as parts: out's keep blocks are taken) and edits handed over; the index is
 * unchanged (the base stays). */
static void splice_outputs(tg_stage_run *r, previous *pv, tg_aggindex_out *out)
{
    const tg_config *cfg = tg_stage_config(r);
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        char *path = tg_path_join(cfg->generated_dir, pv->hdr.paths[j]);
        if (out[j].spans) {
            tg_stage_output_spans(r, path, out[j].spans, out[j].n, out[j].keep);
            out[j].keep = NULL;
        } else {
            keep_output(r, path, pv->bytes[j], pv->lens[j]);
        }
        tg_aggindex_out_free(&out[j]);
    }
    keep_output(r, xstrdup(INDEX_PATH), pv->index, pv->index_len);
    size_t elen = 0;
    char *edits = tg_aggindex_edits_format(&pv->ed, &elen);
    tg_stage_output(r, xstrdup(EDITS_PATH), edits, elen);
}

/*
 * The common edit: the same tools as last time, the same repository settings, and the changed
 * tools' fragments replaceable in place (tg_aggindex_replaceable): the files are their previous
 * bytes with those tools' pieces replaced, the index stays and the edits list the replacements.
 * Only the edited tools' lines of the index are read. Returns 1 when done, 0 when another way
 * is needed (the fragments read stay in texts/f), -1 on an error.
 */
static int splice(tg_stage_run *r, previous *pv, char **texts, tg_emit_fragment *f, tg_err *err)
{
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools), *edit = NULL, ne = 0;
    if (!edited_tools(r, pv, &edit, &ne))
        return 0;
    tg_aggindex base;
    tg_hash names;
    char *keep = NULL;
    tg_err ierr = {0};
    int rc = tg_aggindex_peek(pv->index, pv->index_len, edit, ne, &base, &names, &keep, &ierr)
                 ? 0
                 : 1;
    tg_aggindex_tool *cur = xcalloc(ne + 1, sizeof *cur);
    tg_emit_fragment *nf = xcalloc(ne + 1, sizeof *nf);
    for (size_t e = 0; e < ne && rc == 1; e++) {
        size_t i = edit[e];
        cur[e] = base.v[e];
        tg_aggindex_edits_apply(&pv->ed, &cur[e]);
        if (strcmp(base.v[e].name, tools[i]) != 0)
            rc = 0;
        else if (read_fragment(r, tools[i], &texts[i], &f[i], err) != 0)
            rc = -1;
        else if (!tg_aggindex_replaceable(&cur[e], &f[i]))
            rc = 0;
        else
            nf[e] = f[i];
    }
    tg_aggindex_out out[TG_AGGINDEX_FILES];
    if (rc == 1 && !tg_aggindex_splice(cur, base.v, nf, ne, pv->bytes, pv->lens, &pv->ed, out))
        rc = 0;
    if (rc == 1) {
        splice_outputs(r, pv, out);
        tg_stage_note(r, "%zu of %zu tools' pieces replaced in the previous files", ne, n);
    }
    tg_aggindex_free(&base);
    free(keep);
    free(edit);
    free(cur);
    free(nf);
    return rc;
}

/* Every file from every tool's pieces (views or fragments), and an index made anew. */
static int concatenate(tg_stage_run *r, previous *pv, char **texts, tg_emit_fragment *f,
                       bool *from_index, tg_err *err)
{
    const tg_config *cfg = tg_stage_config(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    tg_emit_files files = {0};
    size_t *pos = xcalloc(n * TG_PIECE_COUNT + 1, sizeof *pos);
    int rc = -1;
    if (gather(r, pv, texts, f, from_index, err) == 0 &&
        tg_emit_aggregate_shared(f, n, &cfg->project, &files, pos, err) == 0) {
        size_t ilen = 0;
        char *index = tg_aggindex_build(f, n, &files, pos, &ilen);
        for (size_t i = 0; i < files.n; i++) {
            tg_stage_output(r, tg_path_join(cfg->generated_dir, files.v[i].path),
                            files.v[i].data, files.v[i].len);
            files.v[i].data = NULL;
        }
        tg_stage_output(r, xstrdup(INDEX_PATH), index, ilen);
        tg_aggindex_edits none = {0};
        char *edits = tg_aggindex_edits_format(&none, &ilen);
        tg_stage_output(r, xstrdup(EDITS_PATH), edits, ilen);
        rc = 0;
    }
    tg_emit_files_free(&files);
    free(pos);
    return rc;
}

static tg_stage_status aggregate_run(tg_stage_run *r, tg_err *err)
{
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    char **texts = xcalloc(n + 1, sizeof *texts);
    tg_emit_fragment *f = xcalloc(n + 1, sizeof *f);
    bool *from_index = xcalloc(n + 1, sizeof *from_index);
    previous pv = {0};
    previous_load(r, &pv);
    tg_stage_status rc = TG_STAGE_FAILED;
    int spliced = splice(r, &pv, texts, f, err);
    if (spliced < 0 || (!spliced && concatenate(r, &pv, texts, f, from_index, err) != 0))
        goto out;
    if (reference_pages(r, texts, f, err) == 0) {
        /* the registry's entry depends on the project alone, and costs less than a lookup */
        const tg_config *cfg = tg_stage_config(r);
        char *server = tg_emit_registry_server(&cfg->project);
        tg_stage_output(r, tg_path_join(cfg->generated_dir, TG_EMIT_SERVER_JSON), server,
                        strlen(server));
        rc = TG_STAGE_DONE;
    }
out:
    previous_free(&pv);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(f);
    free(from_index);
    return rc;
}

const tg_stage_def tgs_aggregate = {
    .id = "aggregate",
    .version = "6",
    .scope = TG_STAGE_REPO,
    .upstream = aggregate_upstream,
    .config = aggregate_config,
    .roots = aggregate_roots,
    .run = aggregate_run,
    .summary = "every tool's fragment → generated/mcp/, generated/adapters/, generated/skill/",
};
