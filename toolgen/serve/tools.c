/* tools.c — the tool set of toolgen serve and tools/call as a CallToolResult (tools.h). */
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

int tg_serve_tools_load(tg_serve_tools *t, const tg_repo *repo, tg_serve_source source,
                        tg_err *err)
{
    if (source == TG_SERVE_SOURCE_DEV)
        return tg_serve_tools_load_dev(t, repo, err);
    return tg_serve_tools_load_registry(t, repo, source == TG_SERVE_SOURCE_STAGING, err);
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

/* ---- calls ---------------------------------------------------------------------------------- */

tg_call_status tg_serve_run_sandbox(void *ctx, const tg_tool_call *call, tg_call_result *out,
                                    tg_err *err)
{
    return tg_tool_call_run((const tg_toolrun_ctx *)ctx, call, out, err);
}

tg_call_status tg_serve_run_pool(void *ctx, const tg_tool_call *call, tg_call_result *out,
                                 tg_err *err)
{
    return tg_warmpool_call_run((tg_warmpool *)ctx, call, out, err);
}

void tg_serve_tools_prepare_pool(const tg_serve_tools *t, tg_warmpool *pool)
{
    for (size_t i = 0; i < t->n; i++)
        tg_warmpool_prepare(pool, &t->v[i].m);
}

/*
 * A failed call: structuredContent is {"error": error}; the content holds a readable text
 * first (what a model reads), then the serialised JSON, as for a successful call. Takes error.
 */
static cJSON *error_result(cJSON *error, const char *text)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddItemToObject(sc, "error", error);
    char *json = tg_json_print_compact(sc);
    const char *texts[2] = {text, json};
    for (int i = 0; i < 2; i++) {
        cJSON *block = cJSON_CreateObject();
        cJSON_AddStringToObject(block, "type", "text");
        cJSON_AddStringToObject(block, "text", texts[i]);
        cJSON_AddItemToArray(content, block);
    }
    free(json);
    cJSON_AddItemToObject(r, "structuredContent", sc);
    cJSON_AddBoolToObject(r, "isError", true);
    return r;
}

static cJSON *simple_error(const char *code, const char *message)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    char *text = xasprintf("%s: %s", code, message);
    cJSON *r = error_result(e, text);
    free(text);
    return r;
}

/* Arguments that do not fit inputSchema: one {pointer, message} per problem, so a model can
 * correct exactly those. */
static cJSON *input_error(const js_errors *errs)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "code", tg_errcode_name(TG_ERR_INVALID_INPUT));
    char *msg = xasprintf("the arguments do not fit the tool's inputSchema (%zu problem%s)", errs->n,
                          errs->n == 1 ? "" : "s");
    cJSON_AddStringToObject(e, "message", msg);
    cJSON *problems = cJSON_AddArrayToObject(e, "problems");
    tg_buf text = TG_BUF_INIT;
    tg_buf_printf(&text, "%s: %s:", tg_errcode_name(TG_ERR_INVALID_INPUT), msg);
    for (size_t i = 0; i < errs->n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "pointer", errs->v[i].instance_location);
        cJSON_AddStringToObject(p, "message", errs->v[i].message);
        cJSON_AddItemToArray(problems, p);
        tg_buf_printf(&text, "\n- at \"%s\": %s", errs->v[i].instance_location, errs->v[i].message);
    }
    tg_buf_puts(&text, "\nFix these arguments and call the tool again.");
    cJSON *r = error_result(e, text.data);
    tg_buf_free(&text);
    free(msg);
    return r;
}

/* A call that ran (or was refused by the runner) and failed: code, message, class, guidance,
 * and the resource analysis. */
static cJSON *run_error(const tg_call_result *res)
{
    const tg_guidance *g = &res->guidance;
    cJSON *e = tg_guidance_json(g);
    cJSON_AddItemToObject(e, "resources", tg_resources_json(&res->resources));
    tg_buf text = TG_BUF_INIT;
    tg_buf_printf(&text, "%s: %s\nWhat happened: %s\nLikely cause: %s", g->code, g->message, g->what,
                  g->cause);
    for (int i = 0; i < g->n_fix; i++)
        tg_buf_printf(&text, "\n%s %s", i == 0 ? "How to fix:" : "  or:", g->fix[i]);
    cJSON *r = error_result(e, text.data);
    tg_buf_free(&text);
    return r;
}

/*
 * MCP requires structuredContent to conform to the tool's outputSchema, and the official SDK
 * clients check that on error results too (a mismatch becomes a protocol error the model never
 * sees). So the error object stays in structuredContent only when the output schema admits it;
 * otherwise the serialised JSON text block alone carries it (docs/mcp.md, "Tool errors").
 */
static cJSON *fit_error(const tg_serve_tool *tool, cJSON *r)
{
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(r, "structuredContent");
    if (sc && !js_validate(tool->output, sc, NULL))
        cJSON_DeleteItemFromObjectCaseSensitive(r, "structuredContent");
    return r;
}

#define TG_SERVE_IMAGE_MAX (1 << 20) /* larger images are only linked */

/* PNG and JPEG files of this call as image content, so a client can show them at once. */
static void add_images(const tg_serve_artifacts *a, const char *base, cJSON *result)
{
    cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    for (size_t i = 0; i < a->n; i++) {
        const tg_serve_artifact *f = &a->v[i];
        bool image = strcmp(f->mime, "image/png") == 0 || strcmp(f->mime, "image/jpeg") == 0;
        if (!image || f->size > TG_SERVE_IMAGE_MAX || !tg_str_startswith(f->uri, base))
            continue;
        size_t len = 0;
        tg_err err = {0};
        char *data = tg_read_file(f->file, TG_SERVE_IMAGE_MAX, &len, &err);
        if (!data)
            continue;
        cJSON *block = cJSON_CreateObject();
        cJSON_AddStringToObject(block, "type", "image");
        char *b64 = tg_serve_base64((const unsigned char *)data, len);
        cJSON_AddStringToObject(block, "data", b64);
        cJSON_AddStringToObject(block, "mimeType", f->mime);
        cJSON_AddItemToArray(content, block);
        free(b64);
        free(data);
    }
}

/* A successful call's result; its files are kept and linked when the server keeps files. */
static cJSON *success_result(const tg_serve_call *how, const tg_call_result *res)
{
    char *base = NULL;
    tg_err err = {0};
    if (how->artifacts && tg_serve_artifacts_keep(how->artifacts, res, &base, &err) != 0)
        base = NULL; /* the result still stands; only its files cannot be read back */
    if (!base)
        return tg_emit_call_result_for(res->result, NULL);
    const char **paths = xcalloc(res->sb.n_files, sizeof *paths);
    for (size_t i = 0; i < res->sb.n_files; i++)
        paths[i] = res->sb.files[i].path;
    tg_emit_artifacts a = {paths, res->sb.n_files, base};
    cJSON *r = tg_emit_call_result_for(res->result, &a);
    add_images(how->artifacts, base, r);
    free(paths);
    free(base);
    return r;
}

static cJSON *tool_call(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                        const cJSON *answers, cJSON **ask, const char **code)
{
    const tg_manifest *m = &tool->m;
    if (how->read_only && tg_emit_refused_in_read_only(m)) {
        *code = tg_errcode_name(TG_ERR_FORBIDDEN);
        char *msg = xasprintf("%s is not read-only and the server runs in read-only mode "
                              "(--read-only or READ_ONLY=1); use a read-only tool, or ask the "
                              "user to restart the server without read-only mode", m->name);
        cJSON *r = simple_error(*code, msg);
        free(msg);
        return r;
    }
    js_errors errs = {0};
    if (!js_validate(tool->input, args, &errs)) {
        *code = tg_errcode_name(TG_ERR_INVALID_INPUT);
        cJSON *r = input_error(&errs);
        js_errors_free(&errs);
        return r;
    }
    js_errors_free(&errs);

    tg_tool_call call = {.m = m, .input = tool->input, .output = tool->output, .args = args,
                         .cancel = how->cancel, .answers = answers};
    tg_call_result res = {0};
    tg_err err = {0};
    tg_call_status st = how->run(how->run_ctx, &call, &res, &err);
    cJSON *r;
    if (st != TG_CALL_DONE) {
        /* No sandbox or interpreter here, or a runtime this version cannot run: the server's
         * environment, not the arguments, so the model should not retry. */
        *code = tg_errcode_name(TG_ERR_INTERNAL_ERROR);
        r = simple_error(*code, err.msg[0] ? err.msg : "the tool could not be run");
    } else if (res.ask && ask) {
        *code = NULL;
        *ask = res.ask;
        res.ask = NULL;
        r = NULL;
    } else if (res.ok) {
        *code = NULL;
        r = success_result(how, &res);
    } else {
        *code = res.guidance.code ? res.guidance.code : tg_errcode_name(TG_ERR_INTERNAL_ERROR);
        r = run_error(&res);
    }
    tg_call_result_free(&res);
    return r;
}

cJSON *tg_serve_tool_call(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                          const char **code)
{
    cJSON *r = tool_call(how, tool, args, NULL, NULL, code);
    return *code ? fit_error(tool, r) : r;
}

cJSON *tg_serve_tool_error(const tg_serve_tool *tool, const char *code, const char *message)
{
    return fit_error(tool, simple_error(code, message));
}

cJSON *tg_serve_tool_call_answered(const tg_serve_call *how, const tg_serve_tool *tool,
                                   const cJSON *args, const cJSON *answers, cJSON **ask,
                                   const char **code)
{
    cJSON *r = tool_call(how, tool, args, answers, ask, code);
    return r && *code ? fit_error(tool, r) : r;
}
