/* resources.c — the Agent Skill and the contract schemas as MCP resources (resources.h). */
#include "serve/resources.h"

#include <stdlib.h>
#include <string.h>

#include "emit/emit.h"

/* Which emitted files are resources, and what they are. NULL: not one. */
static const char *describe(const char *path, const char **mime)
{
    if (tg_str_startswith(path, "skill/") && tg_str_endswith(path, "/SKILL.md")) {
        *mime = "text/markdown";
        return "The Agent Skill of these tools: when to use each one, how to call it, what its "
               "errors mean.";
    }
    if (tg_str_startswith(path, "skill/") && strstr(path, "/references/")) {
        *mime = "text/markdown";
        return "Reference page of one tool: arguments, result, errors, examples.";
    }
    if (tg_str_endswith(path, "/input.schema.json")) {
        *mime = "application/schema+json";
        return "JSON Schema (2020-12) of the tool's arguments.";
    }
    if (tg_str_endswith(path, "/output.schema.json")) {
        *mime = "application/schema+json";
        return "JSON Schema (2020-12) of the tool's result.";
    }
    return NULL;
}

static void take(tg_serve_resources *r, tg_emit_files *files)
{
    for (size_t i = 0; i < files->n; i++) {
        const char *mime = NULL;
        const char *what = describe(files->v[i].path, &mime);
        if (!what)
            continue;
        r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
        tg_serve_resource *res = &r->v[r->n++];
        res->uri = xasprintf(TG_SERVE_RESOURCE_PREFIX "%s", files->v[i].path);
        res->name = xstrdup(files->v[i].path);
        res->description = xstrdup(what);
        res->mime = mime;
        res->text = files->v[i].data;
        files->v[i].data = NULL;
        if (tg_str_endswith(res->name, "/SKILL.md") && !r->skill_dir)
            r->skill_dir = xstrndup(res->name, strlen(res->name) - strlen("/SKILL.md"));
    }
}

static int cmp_uri(const void *a, const void *b)
{
    return strcmp(((const tg_serve_resource *)a)->uri, ((const tg_serve_resource *)b)->uri);
}

int tg_serve_resources_build(tg_serve_resources *r, const tg_serve_tools *t,
                             const tg_project_info *p, tg_err *err)
{
    *r = (tg_serve_resources){0};
    const tg_manifest **ms = xcalloc(t->n ? t->n : 1, sizeof *ms);
    tg_emit_files files = {0};
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++) {
        ms[i] = &t->v[i].m;
        rc = tg_emit_tool(ms[i], &files, err);
    }
    if (rc == 0 && t->n)
        rc = tg_emit_aggregate(ms, t->n, p, &files, err);
    if (rc == 0)
        take(r, &files);
    tg_emit_files_free(&files);
    free(ms);
    if (rc != 0) {
        tg_serve_resources_free(r);
        return -1;
    }
    if (r->n)
        qsort(r->v, r->n, sizeof *r->v, cmp_uri);
    return 0;
}

void tg_serve_resources_free(tg_serve_resources *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].uri);
        free(r->v[i].name);
        free(r->v[i].description);
        free(r->v[i].text);
    }
    free(r->v);
    free(r->skill_dir);
    *r = (tg_serve_resources){0};
}

const tg_serve_resource *tg_serve_resources_find(const tg_serve_resources *r, const char *uri)
{
    size_t lo = 0, hi = r ? r->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->v[mid].uri, uri);
        if (c == 0)
            return &r->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
