/* toolcall.c — one tools/call of a served tool turned into a CallToolResult (toolcall.h). */
#include "serve/toolcall.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"
#include "emit/common.h"
#include "emit/emit_mcp.h"
#include "run/guidance.h"
#include "serve/clientlog.h"
#include "serve/content.h"
#include "serve/dispatch.h"

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
static cJSON *fit_error(const js_schema *output, cJSON *r)
{
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(r, "structuredContent");
    if (sc && output && !js_validate(output, sc, NULL))
        cJSON_DeleteItemFromObjectCaseSensitive(r, "structuredContent");
    return r;
}

cJSON *tg_serve_error_result(const js_schema *output, const char *code, const char *message)
{
    return fit_error(output, simple_error(code, message));
}

cJSON *tg_serve_input_error_result(const js_schema *output, const js_errors *errs)
{
    return fit_error(output, input_error(errs));
}

/* Blocks that carry this call's files (serve/content.h): images and audio, and small text
 * files embedded, so a client can show or read them at once; the resource_link blocks stay. */
static void add_file_blocks(const tg_serve_artifacts *a, const char *base, cJSON *result)
{
    cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    for (size_t i = 0; i < a->n; i++) {
        const tg_serve_artifact *f = &a->v[i];
        cJSON *block = tg_str_startswith(f->uri, base)
                           ? tg_serve_file_block(f->file, f->uri, f->mime, f->size) : NULL;
        if (block)
            cJSON_AddItemToArray(content, block);
    }
}

/* A successful call's result; its files are kept and linked when the server keeps files. */
static cJSON *success_result(const tg_serve_call *how, const tg_call_result *res)
{
    char *base = NULL;
    tg_err err = {0};
    if (how->artifacts && tg_serve_artifacts_keep(how->artifacts, res, how->client, &base, &err) != 0)
        base = NULL; /* the result still stands; only its files cannot be read back */
    if (!base)
        return tg_emit_call_result_for(res->result, NULL);
    /* the files kept (serve/artifacts.h): a name that is not UTF-8 has no URI */
    const char **paths = xcalloc(res->sb.n_files + 1, sizeof *paths);
    size_t n = 0;
    for (size_t i = 0; i < res->sb.n_files; i++) {
        tg_err bad = {0};
        const char *p = res->sb.files[i].path;
        if (tg_utf8_validate(p, strlen(p), &bad) == 0)
            paths[n++] = p;
    }
    tg_emit_artifacts a = {paths, n, base};
    cJSON *r = tg_emit_call_result_for(res->result, &a);
    add_file_blocks(how->artifacts, base, r);
    free(paths);
    free(base);
    return r;
}

/*
 * A failed call that still reports a result fitting the tool's output schema — a code tool's
 * program that failed: its output, error guidance and resource analysis (docs/code.md). The
 * model gets all of it, as for a success (structuredContent, the files it wrote kept and
 * linked), marked isError, with the guidance's code and message read first.
 */
static cJSON *failed_with_result(const tg_serve_call *how, const tg_call_result *res)
{
    cJSON *r = success_result(how, res);
    cJSON_ReplaceItemInObjectCaseSensitive(r, "isError", cJSON_CreateBool(true));
    char *text = xasprintf("%s: %s", res->guidance.code ? res->guidance.code : "INTERNAL_ERROR",
                           res->guidance.message);
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "text");
    cJSON_AddStringToObject(block, "text", text);
    cJSON_InsertItemInArray(cJSON_GetObjectItemCaseSensitive(r, "content"), 0, block);
    free(text);
    return r;
}

/* The run of one call, handed to tg_serve_unlocked: the tool's process works while the core
 * answers other requests. */
typedef struct run_job {
    const tg_serve_call *how;
    const tg_tool_call *call;
    tg_call_result *res;
    tg_err *err;
    tg_call_status st;
} run_job;

static void run_unlocked(void *arg)
{
    run_job *j = arg;
    j->st = j->how->run(j->how->run_ctx, j->call, j->res, j->err);
}

/* A log message of toolgen's own (logger "toolgen") about a call, when the client wants it. */
static void log_call(const tg_serve_call *how, int level, const char *fmt, ...) TG_PRINTF(3, 4);

static void log_call(const tg_serve_call *how, int level, const char *fmt, ...)
{
    if (!how->slot || level < how->log_level)
        return;
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cJSON *data = cJSON_CreateString(text);
    cJSON *n = tg_serve_log_message(level, "toolgen", data);
    tg_serve_call_notify(how->slot, n);
    cJSON_Delete(n);
    cJSON_Delete(data);
}

/* What the tool reported while it ran (toolgen_helpers.log, progress): a log message at or
 * above the client's level (logger: the tool's own, else the tool's name), or its progress. */
typedef struct events_ctx {
    const tg_serve_call *how;
    const char *tool;
} events_ctx;

static void on_event(void *arg, const cJSON *e)
{
    const events_ctx *ec = arg;
    const char *kind = tg_json_get_string(e, "event");
    if (strcmp(kind, "progress") == 0) {
        tg_serve_call_progress(ec->how->slot, tg_json_get_number(e, "progress", -1),
                               tg_json_get_number(e, "total", 0), tg_json_get_string(e, "message"));
        return;
    }
    int level = tg_serve_log_level(tg_json_get_string(e, "level"));
    if (strcmp(kind, "log") != 0 || level < 0 || level < ec->how->log_level)
        return;
    const char *logger = tg_json_get_string(e, "logger");
    cJSON *n = tg_serve_log_message(level, logger ? logger : ec->tool, tg_json_get(e, "data"));
    tg_serve_call_notify(ec->how->slot, n);
    cJSON_Delete(n);
}

/* What the tool may know of its client (tg_tool_call.client). */
static cJSON *client_facts(const tg_serve_call *how)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddBoolToObject(c, "elicitation", how->client_can & TG_CLIENT_ELICITS);
    cJSON_AddBoolToObject(c, "sampling", how->client_can & TG_CLIENT_SAMPLES);
    cJSON_AddBoolToObject(c, "roots", how->client_can & TG_CLIENT_ROOTS);
    const char *level = how->slot ? tg_serve_log_level_name(how->log_level) : NULL;
    if (level)
        cJSON_AddStringToObject(c, "log_level", level);
    return c;
}

static cJSON *tool_call(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                        const cJSON *answers, cJSON **ask, const char **code)
{
    /* the core checked args against tool->input: the runner need not do it again */
    cJSON *client = client_facts(how);
    events_ctx ec = {.how = how, .tool = tool->m.name};
    tg_tool_call call = {.m = &tool->m, .input = tool->input, .output = tool->output,
                         .args = args, .args_valid = true, .cancel = how->cancel,
                         .answers = answers, .client = client, .client_id = how->client,
                         .on_event = how->slot ? on_event : NULL, .event_ctx = &ec};
    tg_call_result res = {0};
    tg_err err = {0};
    run_job job = {.how = how, .call = &call, .res = &res, .err = &err};
    log_call(how, TG_LOG_DEBUG, "%s: running in the sandbox", tool->m.name);
    double t0 = tg_now_ms();
    tg_serve_unlocked(how->dispatch, run_unlocked, &job);
    cJSON_Delete(client);
    cJSON *r;
    if (job.st != TG_CALL_DONE) {
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
        r = res.result && js_validate(tool->output, res.result, NULL)
                ? failed_with_result(how, &res)
                : run_error(&res);
    }
    if (*code)
        log_call(how, TG_LOG_WARNING, "%s failed: %s: %.400s", tool->m.name, *code,
                 job.st != TG_CALL_DONE ? err.msg : res.guidance.message);
    else
        log_call(how, TG_LOG_DEBUG, "%s: %s after %.0f ms", tool->m.name,
                 r ? "finished" : "asked a question", tg_now_ms() - t0);
    tg_call_result_free(&res);
    return r;
}

cJSON *tg_serve_tool_call(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                          const char **code)
{
    cJSON *r = tool_call(how, tool, args, NULL, NULL, code);
    return *code ? fit_error(tool->output, r) : r;
}

cJSON *tg_serve_tool_call_answered(const tg_serve_call *how, const tg_serve_tool *tool,
                                   const cJSON *args, const cJSON *answers, cJSON **ask,
                                   const char **code)
{
    cJSON *r = tool_call(how, tool, args, answers, ask, code);
    return r && *code ? fit_error(tool->output, r) : r;
}
