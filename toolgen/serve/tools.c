/* tools.c — the tool set of toolgen serve: building, the working tree as a source, lookup
 * (tools.h). */
#include "serve/tools.h"
#include "serve/tools_int.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"
#include "emit/common.h"
#include "emit/emit_mcp.h"
#include "model/lint.h"
#include "run/guidance.h"
#include "schema/schemaset.h"

/* ---- loading -------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tool folders of dir (those holding tool.manifest.yaml; dir and the paths relative to the
 * repository's root), sorted. */
static size_t list_tool_dirs(const tg_repo *repo, const char *dir, char ***out, tg_err *err)
{
    DIR *d = tg_opendir_at(repo->root_fd, dir);
    if (!d) {
        tg_err_set(err, "%s: cannot open the manifests folder", dir);
        return (size_t)-1;
    }
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = tg_path_join(dir, e->d_name);
        char *file = tg_path_join(sub, "tool.manifest.yaml");
        if (tg_is_file_at(repo->root_fd, file)) {
            if (n == cap)
                v = xrealloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
            v[n++] = file;
        } else {
            free(file);
        }
        free(sub);
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

void tg_serve_tools_skip(tg_serve_tools *t, const char *path, const char *why)
{
    t->skipped = xrealloc(t->skipped, (t->n_skipped + 1) * sizeof *t->skipped);
    t->skipped[t->n_skipped++] = xasprintf("%s: %s", path, why);
}

/* Lints one manifest; NULL when clean, else its first problem (heap string). */
static char *lint_problem(const tg_repo *repo, tg_schemaset *ss, const char *path)
{
    tg_problems probs = {0};
    tg_lint_stats stats = {0};
    tg_err err = {0};
    char *why = NULL;
    if (tg_lint_paths(repo, ss, &path, 1, &probs, &stats, &err) != 0) {
        why = xstrdup(err.msg);
    } else if (probs.n) {
        tg_problems_sort(&probs);
        why = probs.v[0].line > 0 ? xasprintf("line %d: %s", probs.v[0].line, probs.v[0].msg)
                                  : xstrdup(probs.v[0].msg);
    }
    tg_problems_free(&probs);
    return why;
}

bool tg_serve_tools_add(tg_serve_tools *t, const char *path, tg_manifest *m)
{
    tg_err err = {0};
    t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
    tg_serve_tool *tool = &t->v[t->n];
    *tool = (tg_serve_tool){.m = *m};
    *m = (tg_manifest){0};
    tg_manifest_bind(&tool->m);
    tool->input = js_compile(t->reg, tool->m.input_schema, &(js_options){0}, &err);
    if (tool->input)
        tool->output = js_compile(t->reg, tool->m.output_schema, &(js_options){0}, &err);
    if (!tool->m.name || !tool->input || !tool->output) {
        tg_serve_tools_skip(t, path, tool->m.name ? err.msg : "no name");
        js_schema_free(tool->input);
        js_schema_free(tool->output);
        tg_manifest_free(&tool->m);
        return false;
    }
    tool->tool = tg_emit_mcp_tool(&tool->m);
    /* a manifest's task.support is MCP's execution.taskSupport (serve/tasks.h) */
    const char *support = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tool->m.doc.root, "task"), "support"));
    if (support)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(tool->tool, "execution"), "taskSupport",
                                support);
    t->n++;
    return true;
}

static int cmp_tool(const void *a, const void *b)
{
    return strcmp(((const tg_serve_tool *)a)->m.name, ((const tg_serve_tool *)b)->m.name);
}

void tg_serve_tools_begin(tg_serve_tools *t)
{
    *t = (tg_serve_tools){0};
    t->reg = js_registry_new();
    tg_err ignored = {0};
    js_registry_add_metaschemas(t->reg, &ignored); /* only for schemas naming the meta-schema */
}

void tg_serve_tools_finish(tg_serve_tools *t)
{
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, cmp_tool);
}

int tg_serve_tools_load_dev(tg_serve_tools *t, const tg_repo *repo, tg_err *err)
{
    *t = (tg_serve_tools){0};
    char **paths = NULL;
    size_t n = list_tool_dirs(repo, repo->cfg.manifests_dir, &paths, err);
    if (n == (size_t)-1)
        return -1;
    tg_schemaset ss;
    if (tg_schemaset_open(&ss, err) != 0) {
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
        return -1;
    }
    tg_serve_tools_begin(t);
    for (size_t i = 0; i < n; i++) {
        char *why = lint_problem(repo, &ss, paths[i]);
        tg_manifest m;
        tg_err lerr = {0};
        if (why)
            tg_serve_tools_skip(t, paths[i], why);
        else if (tg_manifest_load(repo, paths[i], &m, &lerr) != 0)
            tg_serve_tools_skip(t, paths[i], lerr.msg);
        else
            tg_serve_tools_add(t, paths[i], &m);
        free(why);
        free(paths[i]);
    }
    free(paths);
    tg_schemaset_close(&ss);
    tg_serve_tools_finish(t);
    return 0;
}

static void free_tool(tg_serve_tool *tool)
{
    js_schema_free(tool->input);
    js_schema_free(tool->output);
    cJSON_Delete(tool->tool);
    tg_manifest_free(&tool->m);
}

void tg_serve_tools_free_last(tg_serve_tools *t)
{
    if (t->n)
        free_tool(&t->v[--t->n]);
}

void tg_serve_tools_free(tg_serve_tools *t)
{
    for (size_t i = 0; i < t->n; i++)
        free_tool(&t->v[i]);
    free(t->v);
    for (size_t i = 0; i < t->n_skipped; i++)
        free(t->skipped[i]);
    free(t->skipped);
    js_registry_free(t->reg);
    *t = (tg_serve_tools){0};
}

const tg_serve_tool *tg_serve_tools_find(const tg_serve_tools *t, const char *name)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->v[mid].m.name, name);
        if (c == 0)
            return &t->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
