/*
 * test_serve.c — the MCP protocol core (serve/core.h) driven directly, without pipes, plus the
 * stdio transport over pipes: both eras, every error path, pagination, tool errors, and 10,000
 * requests without a leak (run under ASan with make test SANITIZE=1). Every reply is checked
 * against the JSON schema of the revision it speaks (tests/testdata/mcp-schema/).
 *
 * Tool calls go through a fake runner, so no sandbox is needed: it returns the manifest's first
 * example output, or a classified failure for csv_column_stats.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/doc.h"
#include "base/json.h"
#include "model/config.h"
#include "schema/jsonschema.h"
#include "serve/artifacts.h"
#include "serve/clientlog.h"
#include "serve/core.h"
#include "serve/toolprov.h"
#include "serve/tools_int.h"
#include "serve/servelog.h"
#include "serve/stdio.h"
#include "serve/tools.h"
#include "testlib.h"
#include "mcp_schemas.h"

static rev_schemas legacy_s, modern_s; /* the schemas of both revisions (mcp_schemas.h) */

/* Checks a reply against the schema of the era it speaks: the envelope, then the result type
 * its method returns. */
static void check_reply(tg_serve_era era, const char *method, const cJSON *reply)
{
    rev_schemas *r = era == TG_ERA_MODERN ? &modern_s : &legacy_s;
    const cJSON *result = cJSON_GetObjectItem(reply, "result");
    if (!result) {
        expect_def(r, "JSONRPCErrorResponse", reply, method);
        const cJSON *code = cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code");
        if (era == TG_ERA_MODERN && cJSON_IsNumber(code) && code->valueint == -32022)
            expect_def(r, "UnsupportedProtocolVersionError", reply, method);
        return;
    }
    expect_def(r, "JSONRPCResultResponse", reply, method);
    const char *def = strcmp(method, "initialize") == 0        ? "InitializeResult"
                      : strcmp(method, "server/discover") == 0 ? "DiscoverResult"
                      : strcmp(method, "tools/list") == 0      ? "ListToolsResult"
                      : strcmp(method, "tools/call") == 0      ? "CallToolResult"
                      : strcmp(method, "resources/list") == 0  ? "ListResourcesResult"
                      : strcmp(method, "resources/read") == 0  ? "ReadResourceResult"
                      : strcmp(method, "resources/templates/list") == 0 ? "ListResourceTemplatesResult"
                                                               : "Result";
    if (era == TG_ERA_LEGACY && strcmp(def, "Result") == 0)
        def = "EmptyResult";
    expect_def(r, def, result, method);
}

/* ---- a core with a fake runner ---------------------------------------------------------------- */

static int runs;
static const tg_manifest *last_run; /* the manifest of the last call run */

/* The fake runner's waits are for events (a cancellation, progress sent to the client), polled
 * every 5 ms; this bound only protects against a hang. */
enum { HANG_POLLS = 120 * 1000 / 5 };

/* The stdio test's output, which a slow call peeks at (MSG_PEEK) to see its progress; -1 else. */
static int progress_peek_fd = -1;

/* A slow call: it runs until the client has been sent n progress notifications for token 88. */
static void wait_for_progress(int n)
{
    static char buf[65536];
    for (int i = 0; i < HANG_POLLS; i++) {
        ssize_t got = recv(progress_peek_fd, buf, sizeof buf - 1, MSG_PEEK | MSG_DONTWAIT);
        buf[got > 0 ? got : 0] = 0;
        int seen = 0;
        for (const char *p = buf; (p = strstr(p, "\"progressToken\":88")); p++)
            seen++;
        if (seen >= n)
            return;
        usleep(5000);
    }
}

static tg_call_status fake_run(void *ctx, const tg_tool_call *call, tg_call_result *out, tg_err *err)
{
    (void)ctx;
    (void)err;
    runs++;
    last_run = call->m;
    *out = (tg_call_result){0};
    if (strcmp(call->m->name, "csv_column_stats") == 0) {
        out->guidance.cls = TG_CLASS_FILE_NOT_FOUND;
        out->guidance.code = "NOT_FOUND";
        snprintf(out->guidance.message, sizeof out->guidance.message, "no such file: data/x.csv");
        snprintf(out->guidance.what, sizeof out->guidance.what, "the tool opened a missing file");
        snprintf(out->guidance.cause, sizeof out->guidance.cause, "a wrong file_path");
        snprintf(out->guidance.fix[0], sizeof out->guidance.fix[0], "pass a file under data/");
        out->guidance.n_fix = 1;
        out->guidance.doc = "docs/sandbox.md#file-not-found";
        return TG_CALL_DONE;
    }
    if (strcmp(call->m->name, "load_and_analyze_csv") == 0) { /* runs until cancelled */
        for (int i = 0; i < HANG_POLLS && !(call->cancel && *call->cancel); i++)
            usleep(5000);
        out->guidance.cls = TG_CLASS_CANCELLED;
        out->guidance.code = "INTERNAL_ERROR";
        return TG_CALL_DONE;
    }
    if (strcmp(call->m->name, "group_and_count_by_columns") == 0 && progress_peek_fd >= 0)
        wait_for_progress(3); /* "started" and two periodic ones */
    if (strcmp(call->m->name, "get_exchange_rate") == 0) {
        tg_err_set(err, "get_exchange_rate: the manifest cannot be sent as written");
        return TG_CALL_UNSUPPORTED;
    }
    out->ok = true;
    const cJSON *ex = cJSON_GetArrayItem(call->m->examples, 0);
    out->result = cJSON_Duplicate(cJSON_GetObjectItem(ex, "output"), true);
    return TG_CALL_DONE;
}

static tg_serve_tools tools;
static tg_serve_resources resources;
static tg_serve_config cfg;

static cJSON *ask(tg_serve_session *s, const char *text, tg_serve_log *log)
{
    tg_err err = {0};
    cJSON *msg = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    SETUP(msg, "test message does not parse: %s: %s", text, err.msg);
    cJSON *reply = msg ? tg_serve_handle(&cfg, s, msg, log) : NULL;
    cJSON_Delete(msg);
    return reply;
}

/* Sends text, checks the reply against its revision's schema, returns it. */
static cJSON *rpc(tg_serve_session *s, const char *text)
{
    tg_serve_log log;
    cJSON *reply = ask(s, text, &log);
    CHECK(reply, "no reply to %s", text);
    if (reply)
        check_reply(log.era == TG_ERA_NONE ? TG_ERA_LEGACY : log.era, log.method, reply);
    return reply;
}

static int error_code(const cJSON *reply)
{
    const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code");
    return cJSON_IsNumber(c) ? c->valueint : 0;
}

static void expect_error(tg_serve_session *s, const char *text, int code, const char *needle)
{
    cJSON *r = rpc(s, text);
    CHECK(error_code(r) == code, "%s: expected error %d, got %d", text, code, error_code(r));
    if (needle)
        CHECK_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"),
                                                                "message")), needle);
    cJSON_Delete(r);
}

static void initialize(tg_serve_session *s, const char *version)
{
    char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                           "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":"
                           "{\"name\":\"t\",\"version\":\"1\"}}}", version);
    cJSON *r = rpc(s, text);
    CHECK(cJSON_GetObjectItem(r, "result"), "initialize failed");
    cJSON_Delete(r);
    free(text);
}

/* ---- legacy era ----------------------------------------------------------------------------- */

static void test_legacy_handshake(void)
{
    tg_serve_session s = {0};
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", -32602,
                 "initialize first");
    cJSON *r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(r, "result")), "ping before initialize is answered");
    cJSON_Delete(r);
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{}}", -32602,
                 "protocolVersion");

    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(res, "protocolVersion")), "2025-06-18") == 0,
          "a supported version is echoed");
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "capabilities"), "tools"), "tools capability");
    CHECK(!cJSON_GetObjectItem(res, "resultType"), "legacy results carry no resultType");
    cJSON_Delete(r);
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                     "\"2025-06-18\"}}", -32600, "already");

    /* what another instance needs to continue it (docs/scale.md#legacy-sessions) */
    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"logging/setLevel\",\"params\":"
                "{\"level\":\"debug\"}}");
    cJSON_Delete(r);
    cJSON *state = tg_serve_session_state(&s);
    tg_serve_session t = {0};
    CHECK(tg_serve_session_restore(&t, state) && t.initialized &&
              strcmp(t.version, "2025-06-18") == 0 && strcmp(t.client_name, "t") == 0 &&
              strcmp(t.client_version, "1") == 0 && strcmp(t.log_level, "debug") == 0 &&
              t.client_can == s.client_can,
          "a session's state restores it elsewhere");
    r = rpc(&t, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
    CHECK(cJSON_GetObjectItem(r, "result"), "the restored session is served");
    cJSON_Delete(r);
    cJSON_ReplaceItemInObject(state, "v", cJSON_CreateString("2099-01-01"));
    tg_serve_session u = {0};
    CHECK(!tg_serve_session_restore(&u, state) && !u.initialized,
          "a state of a version this server does not speak is refused");
    cJSON_Delete(state);

    tg_serve_log log;
    r = ask(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &log);
    CHECK(!r && log.notification, "notifications get no reply");

    tg_serve_session s2 = {0};
    r = rpc(&s2, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                 "\"1999-01-01\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"),
                                                          "protocolVersion")), "2025-11-25") == 0,
          "an unknown version gets the newest legacy one");
    cJSON_Delete(r);

    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}");
    CHECK(cJSON_GetObjectItem(r, "result") && strcmp(s.log_level, "debug") == 0, "setLevel");
    cJSON_Delete(r);
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}",
                 -32602, "level");
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"prompts/list\"}", -32601, "prompts/list");
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"server/discover\"}", -32601, NULL);
}

/* Lists every page (page size 2) in the given era; the names come in tool-set order. */
static void list_all(tg_serve_session *s, const char *meta)
{
    char cursor[64] = "";
    size_t seen = 0, pages = 0;
    for (;;) {
        char *text = cursor[0]
            ? xasprintf("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":{%s%s\"cursor\":\"%s\"}}",
                        meta, meta[0] ? "," : "", cursor)
            : xasprintf("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"%s%s%s}",
                        meta[0] ? ",\"params\":{" : "", meta, meta[0] ? "}" : "");
        cJSON *r = rpc(s, text);
        free(text);
        const cJSON *res = cJSON_GetObjectItem(r, "result");
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(res, "tools")) {
            CHECK(seen < tools.n && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")),
                                           tools.v[seen].m.name) == 0, "tool %zu out of order", seen);
            seen++;
        }
        pages++;
        if (meta[0]) {
            CHECK(cJSON_GetObjectItem(res, "ttlMs") && cJSON_GetObjectItem(res, "cacheScope"),
                  "2026-07-28 list results are cacheable");
            CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(res, "resultType")), "complete") == 0,
                  "resultType");
        }
        const char *next = cJSON_GetStringValue(cJSON_GetObjectItem(res, "nextCursor"));
        bool more = next != NULL;
        if (next)
            snprintf(cursor, sizeof cursor, "%s", next);
        cJSON_Delete(r);
        if (!more || pages > 100)
            break;
    }
    CHECK(seen == tools.n, "listed %zu of %zu tools", seen, tools.n);
    CHECK(pages == (tools.n + 1) / 2, "%zu pages for %zu tools", pages, tools.n);
}

static void test_pagination(void)
{
    tg_serve_session s = {0};
    initialize(&s, "2025-11-25");
    list_all(&s, "");
    list_all(&s, META26);
    CHECK(tools.n >= 2, "the repository has tools");
    for (size_t i = 1; i < tools.n; i++)
        CHECK(strcmp(tools.v[i - 1].m.name, tools.v[i].m.name) < 0, "sorted by name");
    const char *bad[] = {"x", "tg1.", "tg1.0", "tg1.-1", "tg1.999", "tg1.1x", "tg1.99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"%s\"}}", bad[i]);
        expect_error(&s, text, -32602, "cursor");
        free(text);
    }
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":3}}", -32602, "cursor");
}

/* ---- tools/call ------------------------------------------------------------------------------ */

static const cJSON *call_result(const cJSON *reply)
{
    return cJSON_GetObjectItem(reply, "result");
}

/* The {"error": ...} of a failed call, from its JSON text block (the last one); checks that
 * structuredContent is there exactly when the tool's output schema admits it. Caller frees. */
static cJSON *error_json(const cJSON *res, bool structured)
{
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "isError")), "isError");
    const cJSON *content = cJSON_GetObjectItem(res, "content");
    const cJSON *last = cJSON_GetArrayItem(content, cJSON_GetArraySize(content) - 1);
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(last, "text"));
    tg_err err = {0};
    cJSON *j = text ? tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err) : NULL;
    CHECK(j && cJSON_GetObjectItem(j, "error"), "the last text block is the error as JSON");
    const cJSON *sc = cJSON_GetObjectItem(res, "structuredContent");
    if (structured)
        CHECK(cJSON_Compare(sc, j, true), "structuredContent is the error");
    else
        CHECK(!sc, "no structuredContent that would break outputSchema");
    return j ? j : cJSON_CreateObject();
}

static void test_calls(const char *meta)
{
    tg_serve_session s = {0};
    if (!meta[0])
        initialize(&s, "2025-11-25");
    const char *sep = meta[0] ? "," : "";
    /* a successful call: structuredContent is the output, the last text block its JSON */
    char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{%s%s"
                           "\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":\"data/iris.csv\"}}}",
                           meta, sep);
    cJSON *r = rpc(&s, text);
    free(text);
    const cJSON *res = call_result(r);
    const tg_serve_tool *pfl = tg_serve_tools_find(&tools, "preview_file_lines");
    const cJSON *expected = cJSON_GetObjectItem(cJSON_GetArrayItem(pfl->m.examples, 0), "output");
    CHECK(cJSON_Compare(cJSON_GetObjectItem(res, "structuredContent"), expected, true),
          "structuredContent is the output");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(res, "isError")), "isError false");
    const cJSON *content = cJSON_GetObjectItem(res, "content");
    const cJSON *last = cJSON_GetArrayItem(content, cJSON_GetArraySize(content) - 1);
    tg_err err = {0};
    const char *lt = cJSON_GetStringValue(cJSON_GetObjectItem(last, "text"));
    cJSON *parsed = lt ? tg_json_parse(lt, strlen(lt), NULL, NULL, NULL, &err) : NULL;
    CHECK(cJSON_Compare(parsed, expected, true), "the last text block is the JSON of the output");
    cJSON_Delete(parsed);
    if (meta[0])
        CHECK(cJSON_GetObjectItem(res, "resultType"), "2026-07-28 call results carry resultType");
    cJSON_Delete(r);

    /* arguments that do not fit: a tool error naming each problem by its JSON Pointer */
    int before = runs;
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{%s%s"
                     "\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":7,\"extra\":true}}}",
                     meta, sep);
    r = rpc(&s, text);
    free(text);
    res = call_result(r);
    cJSON *ej = error_json(res, false);
    const cJSON *e = cJSON_GetObjectItem(ej, "error");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")), "INVALID_INPUT") == 0, "code");
    const cJSON *probs = cJSON_GetObjectItem(e, "problems");
    CHECK(cJSON_GetArraySize(probs) == 2, "two problems, got %d", cJSON_GetArraySize(probs));
    bool fp = false, ex = false;
    const cJSON *p;
    cJSON_ArrayForEach(p, probs) {
        const char *ptr = cJSON_GetStringValue(cJSON_GetObjectItem(p, "pointer"));
        fp |= ptr && strcmp(ptr, "/file_path") == 0;
        ex |= ptr && strcmp(ptr, "/extra") == 0;
    }
    CHECK(fp && ex, "the problems name /file_path and /extra");
    CHECK(runs == before, "invalid arguments never reach the runner");
    cJSON_Delete(ej);
    cJSON_Delete(r);

    /* a failure in the tool: code, guidance and resources */
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{%s%s"
                     "\"name\":\"csv_column_stats\",\"arguments\":{\"file_path\":\"data/tips.csv\",\"column\":\"tip\"}}}",
                     meta, sep);
    r = rpc(&s, text);
    free(text);
    res = call_result(r);
    ej = error_json(res, false);
    e = cJSON_GetObjectItem(ej, "error");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")), "NOT_FOUND") == 0, "its code");
    CHECK(cJSON_GetObjectItem(e, "guidance") && cJSON_GetObjectItem(e, "resources"),
          "guidance and resource analysis");
    CHECK_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(
                       cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0), "text")),
                   "How to fix: pass a file under data/");
    cJSON_Delete(ej);
    cJSON_Delete(r);

    /* a call the runtime cannot make as written (TG_CALL_UNSUPPORTED) */
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{%s%s"
                     "\"name\":\"get_exchange_rate\",\"arguments\":{\"base\":\"USD\",\"target\":\"EUR\"}}}",
                     meta, sep);
    r = rpc(&s, text);
    free(text);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(call_result(r), "isError")), "unsupported runtime: isError");
    cJSON_Delete(r);

    /* protocol errors */
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{%s%s\"name\":\"nope\"}}", meta, sep);
    expect_error(&s, text, -32602, "Unknown tool: nope");
    free(text);
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{%s%s\"arguments\":{}}}", meta, sep);
    expect_error(&s, text, -32602, "name");
    free(text);
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{%s%s"
                     "\"name\":\"preview_file_lines\",\"arguments\":[1]}}", meta, sep);
    expect_error(&s, text, -32602, "arguments");
    free(text);
}

static void test_read_only(void)
{
    tg_serve_session s = {0};
    initialize(&s, "2025-11-25");
    /* every example tool is read-only: make one that is not */
    tg_serve_tool *t = (tg_serve_tool *)tg_serve_tools_find(&tools, "preview_file_lines");
    cJSON *constraints = (cJSON *)t->m.constraints;
    cJSON *saved = cJSON_DetachItemFromObject(constraints, "read_only");
    cJSON_AddBoolToObject(constraints, "read_only", false);
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":\"data/iris.csv\"}}}";
    cfg.call.read_only = true;
    int before = runs;
    cJSON *r = rpc(&s, call);
    cJSON *ej = error_json(call_result(r), false);
    const cJSON *e = cJSON_GetObjectItem(ej, "error");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "code")), "FORBIDDEN") == 0,
          "read-only mode refuses a tool that writes with FORBIDDEN");
    CHECK(runs == before, "a refused tool does not run");
    cJSON_Delete(ej);
    cJSON_Delete(r);

    /* an output schema that admits the error object gets it in structuredContent too */
    js_schema *strict = t->output;
    cJSON *any = cJSON_CreateObject();
    tg_err err = {0};
    t->output = js_compile(tools.reg, any, &(js_options){0}, &err);
    cfg.call.read_only = true;
    r = rpc(&s, call);
    cJSON_Delete(error_json(call_result(r), true));
    cJSON_Delete(r);
    js_schema_free(t->output);
    cJSON_Delete(any);
    t->output = strict;
    cfg.call.read_only = false;
    r = rpc(&s, call);
    CHECK(!cJSON_IsTrue(cJSON_GetObjectItem(call_result(r), "isError")), "allowed otherwise");
    cJSON_Delete(r);
    cJSON_DeleteItemFromObject(constraints, "read_only");
    if (saved)
        cJSON_AddItemToObject(constraints, "read_only", saved);
}

/* ---- 2026-07-28 ----------------------------------------------------------------------------- */

static void test_modern(void)
{
    tg_serve_session s = {0};
    cJSON *r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{" META26 "}}");
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "supportedVersions"), 0)),
                 "2026-07-28") == 0, "supportedVersions");
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "_meta"), "io.modelcontextprotocol/serverInfo"),
          "serverInfo in _meta");
    CHECK(!s.initialized, "stateless: the session is untouched");
    cJSON_Delete(r);

    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                "{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    const cJSON *data = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "data");
    CHECK(error_code(r) == -32022, "unsupported version: -32022");
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(data, "requested")), "2025-11-25") == 0 &&
              cJSON_GetArraySize(cJSON_GetObjectItem(data, "supported")) == 1,
          "data names the requested and the supported versions");
    cJSON_Delete(r);
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                     "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}", -32602, "clientCapabilities");
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                     "{\"io.modelcontextprotocol/protocolVersion\":2026}}}", -32602, "string");
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":[]}}",
                 -32602, NULL);
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\"}", -32602, "_meta");
    const char *removed[] = {"initialize", "ping", "logging/setLevel", "prompts/list", "nope/nope"};
    for (size_t i = 0; i < sizeof removed / sizeof *removed; i++) {
        char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"%s\",\"params\":{" META26 "}}", removed[i]);
        expect_error(&s, text, -32601, removed[i]);
        free(text);
    }
    /* a legacy session on the same connection is served alongside */
    initialize(&s, "2025-11-25");
    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":{" META26 "}}");
    CHECK(cJSON_GetObjectItem(call_result(r), "resultType"), "a 2026 request stays 2026 after initialize");
    cJSON_Delete(r);
}

/* Log levels (serve/clientlog.h): the names, the message that carries one, and a 2026-07-28
 * request's level in _meta (an unknown one is -32602, as the revision asks). */
static void test_logging(void)
{
    CHECK(tg_serve_log_level("debug") == 0 && tg_serve_log_level("emergency") == 7 &&
              tg_serve_log_level("loud") == -1 && tg_serve_log_level(NULL) == -1 &&
              strcmp(tg_serve_log_level_name(3), "warning") == 0 && !tg_serve_log_level_name(8),
          "the eight levels");
    cJSON *data = cJSON_CreateString("hello");
    cJSON *n = tg_serve_log_message(TG_LOG_WARNING, "toolgen", data);
    expect_def(&legacy_s, "LoggingMessageNotification", n, "log message");
    expect_def(&modern_s, "LoggingMessageNotification", n, "log message, 2026-07-28");
    cJSON_Delete(n);
    cJSON_Delete(data);
    tg_serve_session s = {0};
    expect_error(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                     "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
                     "clientCapabilities\":{},\"io.modelcontextprotocol/logLevel\":\"loud\"}}}", -32602,
                 "logLevel");
    cJSON *r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                       "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
                       "clientCapabilities\":{},\"io.modelcontextprotocol/logLevel\":\"debug\"}}}");
    CHECK(call_result(r), "a known level is served");
    cJSON_Delete(r);
}

/* ---- resources ------------------------------------------------------------------------------ */

/* Every page of resources/list; each resource reads back with its mimeType, and the schemas
 * are the generated/ files byte for byte. */
static void test_resources(const char *meta)
{
    tg_serve_session s = {0};
    if (!meta[0])
        initialize(&s, "2025-11-25");
    const char *sep = meta[0] ? "," : "";
    char cursor[64] = "";
    size_t seen = 0, skills = 0, schemas = 0;
    for (int pages = 0; pages < 100; pages++) {
        char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\",\"params\":{%s%s%s%s%s}}",
                               meta, cursor[0] ? sep : "", cursor[0] ? "\"cursor\":\"" : "", cursor,
                               cursor[0] ? "\"" : "");
        cJSON *r = rpc(&s, text);
        free(text);
        const cJSON *res = cJSON_GetObjectItem(r, "result"), *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItem(res, "resources")) {
            const char *uri = cJSON_GetStringValue(cJSON_GetObjectItem(item, "uri"));
            const char *mime = cJSON_GetStringValue(cJSON_GetObjectItem(item, "mimeType"));
            seen++;
            skills += tg_str_endswith(uri, ".md") && strcmp(mime, "text/markdown") == 0;
            schemas += tg_str_endswith(uri, ".schema.json") && strcmp(mime, "application/schema+json") == 0;
            char *req = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{%s%s\"uri\":\"%s\"}}",
                                  meta, sep, uri);
            cJSON *rr = rpc(&s, req);
            free(req);
            const cJSON *content = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(rr, "result"), "contents"), 0);
            CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(content, "uri")), uri) == 0, "read %s", uri);
            const char *body = cJSON_GetStringValue(cJSON_GetObjectItem(content, "text"));
            char *path = xasprintf("generated/%s", uri + strlen(TG_SERVE_RESOURCE_PREFIX));
            tg_err err = {0};
            char *file = tg_read_file(path, 1 << 22, NULL, &err);
            CHECK(file && body && strcmp(file, body) == 0, "%s is %s byte for byte", uri, path);
            free(file);
            free(path);
            cJSON_Delete(rr);
        }
        const char *next = cJSON_GetStringValue(cJSON_GetObjectItem(res, "nextCursor"));
        snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        cJSON_Delete(r);
        if (!next)
            break;
    }
    CHECK(seen == resources.n && seen == 3 * tools.n + 1, "listed %zu resources", seen);
    CHECK(skills == tools.n + 1 && schemas == 2 * tools.n, "SKILL.md, references and schemas");

    char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/templates/list\"%s%s%s}",
                           meta[0] ? ",\"params\":{" : "", meta, meta[0] ? "}" : "");
    cJSON *r = rpc(&s, text);
    free(text);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "resourceTemplates")) == 3,
          "three templates");
    cJSON_Delete(r);
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{%s%s\"uri\":\"toolgen://nope\"}}",
                     meta, sep);
    expect_error(&s, text, meta[0] ? -32602 : -32002, "Resource not found");
    free(text);
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\"%s%s%s}",
                     meta[0] ? ",\"params\":{" : "", meta, meta[0] ? "}" : "");
    expect_error(&s, text, -32602, "uri");
    free(text);
    text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/list\",\"params\":{%s%s\"cursor\":\"tg1.0\"}}",
                     meta, sep);
    expect_error(&s, text, -32602, "cursor");
    free(text);
}

/* ---- malformed messages --------------------------------------------------------------------- */

static void test_invalid(void)
{
    tg_serve_session s = {0};
    initialize(&s, "2025-11-25");
    const char *invalid[] = {
        "[]", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "42", "\"x\"", "null", "{}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
        "{\"jsonrpc\":\"2.0\",\"id\":1}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}",
    };
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++)
        expect_error(&s, invalid[i], -32600, NULL);
    /* the id of an invalid request is echoed when it is usable */
    cJSON *r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":\"k\",\"method\":\"ping\",\"params\":5}");
    const char *kept = cJSON_GetStringValue(cJSON_GetObjectItem(r, "id"));
    CHECK(kept && strcmp(kept, "k") == 0, "id kept");
    cJSON_Delete(r);
    const char *silent[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":[]}",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":1,\"message\":\"x\"}}",
    };
    for (size_t i = 0; i < sizeof silent / sizeof *silent; i++) {
        tg_serve_log log;
        r = ask(&s, silent[i], &log);
        CHECK(!r, "no reply to %s", silent[i]);
        cJSON_Delete(r);
    }
}

/* ---- the stdio transport over pipes --------------------------------------------------------- */

static void test_stdio(void)
{
    int in[2], out[2];
    SETUP(pipe(in) == 0 && pipe(out) == 0, "pipes");
    char big[600];
    memset(big, ' ', sizeof big);
    memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", 38);
    big[sizeof big - 2] = '}';
    big[sizeof big - 1] = '\n';
    const char *lines = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
                        "not json\n"
                        "\n"
                        "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}\n"
                        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n";
    SETUP(write(in[1], lines, strlen(lines)) == (ssize_t)strlen(lines), "write");
    SETUP(write(in[1], big, sizeof big) == (ssize_t)sizeof big, "write big");
    /* the last line lacks its newline: a message all the same */
    const char *tail = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}";
    SETUP(write(in[1], tail, strlen(tail)) == (ssize_t)strlen(tail), "write tail");
    close(in[1]);
    volatile sig_atomic_t cancel = 0;
    tg_serve_stdio io = {.in_fd = in[0], .out_fd = out[1], .log_fd = -1, .max_message = 500,
                         .cancel = &cancel};
    tg_err err = {0};
    CHECK(tg_serve_stdio_run(&cfg, &io, &err) == 0, "stdio run: %s", err.msg);
    close(out[1]);
    close(in[0]);
    char buf[8192];
    ssize_t n = read(out[0], buf, sizeof buf - 1);
    close(out[0]);
    buf[n > 0 ? n : 0] = 0;
    /* ping, parse error, invalid UTF-8 (parse error), ping, too long, ping, the unended ping */
    const char *want[] = {"\"id\":1,\"result\":{}", "-32700", "-32700", "\"id\":2,\"result\":{}",
                          "-32600", "\"id\":3,\"result\":{}", "\"id\":4,\"result\":{}"};
    char *save = NULL, *line = strtok_r(buf, "\n", &save);
    size_t i = 0;
    for (; line && i < sizeof want / sizeof *want; i++, line = strtok_r(NULL, "\n", &save)) {
        CHECK_CONTAINS(line, want[i]);
        tg_err perr = {0};
        cJSON *reply = tg_json_parse(line, strlen(line), NULL, NULL, NULL, &perr);
        CHECK(reply, "a reply line is JSON: %s", line);
        if (reply)
            check_reply(TG_ERA_LEGACY, "ping", reply);
        cJSON_Delete(reply);
    }
    CHECK(i == sizeof want / sizeof *want && !line, "seven replies, one per line (%zu)", i);
}

/* A call cancelled before a worker started it is logged with its id, method and tool. */
static void test_log_unstarted(void)
{
    static const char msg_text[] = "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\","
                                   "\"params\":{\"name\":\"slow_tool\",\"arguments\":{}}}";
    tg_err err = {0};
    cJSON *msg = tg_json_parse(msg_text, strlen(msg_text), NULL, NULL, NULL, &err);
    int p[2];
    CHECK(msg && pipe(p) == 0, "message and pipe");
    tg_serve_log lg = {0};
    tg_serve_log_unstarted(&lg, msg);
    tg_serve_log_line(p[1], &lg, "cancelled", 1);
    close(p[1]);
    char buf[1024];
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    buf[n > 0 ? n : 0] = 0;
    CHECK(strstr(buf, "\"id\":12,\"method\":\"tools/call\",\"tool\":\"slow_tool\"") &&
              strstr(buf, "\"status\":\"cancelled\""),
          "the unstarted call's log line: %s", buf);
    cJSON_Delete(msg);
}

/* A call with a progressToken gets notifications/progress while it runs; a call the client
 * cancels is stopped and gets no reply; serving goes on. */
static void test_stdio_progress_cancel(void)
{
    int in[2], out[2];
    /* the output is a socket, so that the slow call can peek at the progress sent so far */
    SETUP(pipe(in) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, out) == 0, "pipe and socket pair");
    progress_peek_fd = out[0];
    const char *lines =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
        "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":\"p7\"},"
        "\"name\":\"load_and_analyze_csv\",\"arguments\":{\"file_path\":\"data/tips.csv\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"t\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"progressToken\":88},"
        "\"name\":\"group_and_count_by_columns\",\"arguments\":{\"file_path\":\"data/tips.csv\",\"group_by_columns\":[\"day\"]}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n";
    SETUP(write(in[1], lines, strlen(lines)) == (ssize_t)strlen(lines), "write");
    close(in[1]);
    volatile sig_atomic_t cancel = 0;
    tg_serve_stdio io = {.in_fd = in[0], .out_fd = out[1], .log_fd = -1, .progress_ms = 100,
                         .cancel = &cancel};
    cfg.call.cancel = &cancel;
    tg_err err = {0};
    CHECK(tg_serve_stdio_run(&cfg, &io, &err) == 0, "stdio run: %s", err.msg);
    cfg.call.cancel = NULL;
    progress_peek_fd = -1;
    close(out[1]);
    close(in[0]);
    char buf[16384];
    ssize_t n = read(out[0], buf, sizeof buf - 1);
    close(out[0]);
    buf[n > 0 ? n : 0] = 0;
    int p7 = 0, p88 = 0;
    double last88 = -1;
    bool r7 = false, r8 = false, r9 = false, order = true;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        tg_err perr = {0};
        cJSON *m = tg_json_parse(line, strlen(line), NULL, NULL, NULL, &perr);
        CHECK(m, "a line is JSON: %s", line);
        if (!m)
            continue;
        const cJSON *params = cJSON_GetObjectItem(m, "params");
        const cJSON *token = cJSON_GetObjectItem(params, "progressToken");
        const cJSON *id = cJSON_GetObjectItem(m, "id");
        if (cJSON_GetObjectItem(m, "method")) {
            expect_def(&legacy_s, "ProgressNotification", m, "progress");
            if (cJSON_IsString(token) && strcmp(token->valuestring, "p7") == 0)
                p7++;
            if (cJSON_IsNumber(token) && token->valueint == 88) {
                double v = cJSON_GetObjectItem(params, "progress")->valuedouble;
                order &= v > last88 && !r8;
                last88 = v;
                p88++;
            }
        } else {
            check_reply(TG_ERA_LEGACY, id && id->valueint == 8 ? "tools/call" : "ping", m);
            r7 |= id && id->valueint == 7;
            r8 |= id && id->valueint == 8;
            r9 |= id && id->valueint == 9;
        }
        cJSON_Delete(m);
    }
    CHECK(p7 <= 1, "a cancelled call stops ticking (%d)", p7);
    CHECK(!r7, "a cancelled call gets no reply");
    CHECK(p88 >= 4, "progress at the start, while the call runs and at its end (%d)", p88);
    CHECK(order, "progress grows and comes before the result");
    CHECK(r8 && r9, "serving goes on after a cancellation");
    CHECK(cancel == 0, "the cancel flag is reset for the next call");
}

/* A second request with the id of one still in flight is refused (-32600): replies and
 * cancellations could not tell them apart. The first runs on and gets its reply. */
static void test_stdio_duplicate_id(void)
{
    int in[2], out[2];
    SETUP(pipe(in) == 0 && pipe(out) == 0, "pipes");
    /* load_and_analyze_csv runs until cancelled (3 s at most, fake_run): still in flight when
     * the second line is read, whatever the machine's speed */
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{" META26
                       ",\"name\":\"load_and_analyze_csv\",\"arguments\":{\"file_path\":\"data/tips.csv\"}}}\n";
    char *lines = xasprintf("%s%s{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":{"
                            META26 "}}\n", call, call);
    SETUP(write(in[1], lines, strlen(lines)) == (ssize_t)strlen(lines), "write");
    free(lines);
    close(in[1]);
    tg_serve_stdio io = {.in_fd = in[0], .out_fd = out[1], .log_fd = -1};
    tg_err err = {0};
    CHECK(tg_serve_stdio_run(&cfg, &io, &err) == 0, "stdio run: %s", err.msg);
    close(out[1]);
    close(in[0]);
    char buf[65536];
    ssize_t n = read(out[0], buf, sizeof buf - 1);
    close(out[0]);
    buf[n > 0 ? n : 0] = 0;
    int refused = 0, answered = 0, listed = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *m = cJSON_Parse(line);
        const cJSON *id = cJSON_GetObjectItem(m, "id");
        if (id && id->valueint == 5 && error_code(m) == TG_RPC_INVALID_REQUEST)
            refused++;
        else if (id && id->valueint == 5 && cJSON_GetObjectItem(m, "result"))
            answered++;
        listed += id && id->valueint == 6 && cJSON_GetObjectItem(m, "result") != NULL;
        cJSON_Delete(m);
    }
    CHECK(refused == 1 && answered == 1, "the duplicate refused, the first answered (%d, %d)",
          refused, answered);
    CHECK(listed == 1, "serving goes on");
}

/* ---- kept files ----------------------------------------------------------------------------- */

static void test_artifacts(void)
{
    const char *vec[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < 5; i++) {
        char *b = tg_serve_base64((const unsigned char *)vec[i][0], strlen(vec[i][0]));
        CHECK(strcmp(b, vec[i][1]) == 0, "base64(%s) = %s, got %s", vec[i][0], vec[i][1], b);
        free(b);
    }
    /* a work directory as the sandbox leaves it: two files, one in a subfolder */
    char work[] = "/tmp/test_serve_work_XXXXXX";
    SETUP(mkdtemp(work) != NULL, "mkdtemp");
    char *sub = tg_path_join(work, "out");
    tg_err err = {0};
    tg_mkdirs(sub, &err);
    char *f1 = tg_path_join(work, "chart.png"), *f2 = tg_path_join(sub, "data.csv");
    tg_write_file_atomic(f1, "PNG", 3, &err);
    tg_write_file_atomic(f2, "a,b\n1,2\n", 8, &err);
    tg_artifact files[] = {{"chart.png", TG_FILE_IMAGE, 3}, {"out/data.csv", TG_FILE_CSV, 8}};
    tg_call_result r = {0};
    r.sb.workdir = work;
    r.sb.files = files;
    r.sb.n_files = 2;
    tg_serve_artifacts kept = {.keep_calls = 2};
    char *bases[3] = {0};
    for (int i = 0; i < 3; i++)
        CHECK(tg_serve_artifacts_keep(&kept, &r, 7, &bases[i], &err) == 0, "keep: %s", err.msg);
    /* a URI is a capability: 128 random bits, not a count another client could guess */
    size_t plen = strlen(TG_SERVE_ARTIFACT_PREFIX);
    for (int i = 0; i < 3; i++)
        CHECK(bases[i] && strlen(bases[i]) == plen + 33 &&
                  strspn(bases[i] + plen, "0123456789abcdef") == 32 && bases[i][plen + 32] == '/',
              "base %d is the prefix and 32 hex digits: %s", i, bases[i]);
    CHECK(strcmp(bases[0], bases[1]) != 0 && strcmp(bases[1], bases[2]) != 0, "each call its own");
    char *old_png = xasprintf("%schart.png", bases[0]), *png = xasprintf("%schart.png", bases[1]);
    char *csv = xasprintf("%sout/data.csv", bases[2]);
    CHECK(!tg_serve_artifacts_find(&kept, old_png), "call 1 is evicted");
    const tg_serve_artifact *a = tg_serve_artifacts_find(&kept, csv);
    CHECK(a && strcmp(a->mime, "text/csv") == 0 && a->size == 8, "call 3's csv is kept");
    char *text = a ? tg_read_file(a->file, 100, NULL, &err) : NULL;
    CHECK(text && strcmp(text, "a,b\n1,2\n") == 0, "the copy has the bytes");
    free(text);
    CHECK(kept.n == 4, "two calls of two files (%zu)", kept.n);
    char *root = xstrdup(kept.root);
    char *gone = xasprintf("%s/1", root);
    CHECK(!tg_is_dir(gone), "the files of an evicted call are deleted");

    /* resources/read gives the kept files back to their client: text for CSV, base64 for the
     * rest; another client neither lists nor reads them */
    tg_serve_session s = {.client = 7}, other = {.client = 8};
    initialize(&s, "2025-11-25");
    initialize(&other, "2025-11-25");
    cfg.call.artifacts = &kept;
    char *req = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}", png);
    cJSON *rr = rpc(&s, req);
    const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(rr, "result"), "contents"), 0);
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c0, "blob")), "UE5H") == 0, "PNG as a blob");
    cJSON_Delete(rr);
    expect_error(&other, req, -32002, "Resource not found"); /* another client's file */
    free(req);
    char *page = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/list\",\"params\":{\"cursor\":\"tg1.%zu\"}}",
                           resources.n);
    rr = rpc(&s, page);
    const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(rr, "result"), "resources");
    const char *first = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 0), "uri"));
    CHECK(cJSON_GetArraySize(list) == 2 && first && strcmp(first, png) == 0,
          "the listing goes on with the client's kept files");
    cJSON_Delete(rr);
    /* no files of its own: its listing ends with the resources */
    expect_error(&other, page, -32602, "invalid cursor");
    free(page);
    req = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}", old_png);
    expect_error(&s, req, -32002, "older calls");
    free(req);

    /* a call of no known client (a stateless request): listed to no one, read by its URI */
    char *anon = NULL;
    CHECK(tg_serve_artifacts_keep(&kept, &r, 0, &anon, &err) == 0, "keep: %s", err.msg);
    char *anon_png = xasprintf("%schart.png", anon);
    req = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}", anon_png);
    rr = rpc(&other, req);
    CHECK(cJSON_GetObjectItem(rr, "result") != NULL, "whoever holds the URI reads it");
    cJSON_Delete(rr);
    free(req);
    CHECK(!tg_serve_artifact_listed(&kept.v[kept.n - 1], 0) &&
              !tg_serve_artifact_listed(&kept.v[kept.n - 1], 8),
          "an anonymous file is listed to no one");
    cfg.call.artifacts = NULL;
    free(anon);
    free(anon_png);
    free(old_png);
    free(png);
    free(csv);
    tg_serve_session_release(&s);
    tg_serve_session_release(&other);

    tg_serve_artifacts_free(&kept);
    CHECK(!tg_is_dir(root), "freeing the store deletes its folder");
    for (int i = 0; i < 3; i++)
        free(bases[i]);
    unlink(f1);
    unlink(f2);
    rmdir(sub);
    rmdir(work);
    free(f1);
    free(f2);
    free(sub);
    free(gone);
    free(root);
}

/* ---- many requests -------------------------------------------------------------------------- */

static void test_many(void)
{
    tg_serve_session s = {0};
    initialize(&s, "2025-11-25");
    const char *msgs[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"preview_file_lines\","
        "\"arguments\":{\"file_path\":\"data/iris.csv\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"preview_file_lines\","
        "\"arguments\":{\"file_path\":1}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"csv_column_stats\","
        "\"arguments\":{\"file_path\":\"data/tips.csv\",\"column\":\"tip\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{" META26 "}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"nope\"}",
        "[1]",
    };
    size_t n_msgs = sizeof msgs / sizeof *msgs, replies = 0;
    cJSON *parsed[sizeof msgs / sizeof *msgs];
    for (size_t i = 0; i < n_msgs; i++) {
        tg_err err = {0};
        parsed[i] = tg_json_parse(msgs[i], strlen(msgs[i]), NULL, NULL, NULL, &err);
    }
    for (int i = 0; i < 10000; i++) {
        tg_serve_log log;
        cJSON *r = tg_serve_handle(&cfg, &s, parsed[i % n_msgs], &log);
        replies += r != NULL;
        cJSON_Delete(r);
    }
    for (size_t i = 0; i < n_msgs; i++)
        cJSON_Delete(parsed[i]);
    CHECK(replies == 10000, "10,000 requests, 10,000 replies (%zu)", replies);
}

/* Mutated messages (a fixed-seed generator: the same run every time): whatever parses is
 * handled without a crash (ASan watches), and every request with a usable id gets a reply. */
static void test_mutations(void)
{
    const char *seeds[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":\"data/iris.csv\",\"lines\":3}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\",\"params\":{" META26 ",\"cursor\":\"tg1.2\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{" META26 ",\"uri\":\"toolgen://generated/skill/toolgen-examples/SKILL.md\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}",
    };
    const char alphabet[] = "{}[]\",:0123456789.-eEtrufalsn \\/_abcxyz\x01\xc3\xa9";
    unsigned long long state = 42;
    size_t parsed = 0, missing = 0;
    tg_serve_session s = {0};
    for (int i = 0; i < 20000; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const char *seed = seeds[(state >> 33) % (sizeof seeds / sizeof *seeds)];
        char buf[512];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + (int)((state >> 40) % 4);
        for (int e = 0; e < edits && n > 1; e++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(state >> 33) % n;
            char ch = alphabet[(state >> 20) % (sizeof alphabet - 1)];
            switch ((state >> 50) % 3) {
            case 0: buf[at] = ch; break;                                           /* replace */
            case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;      /* delete */
            default:                                                              /* insert */
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = ch;
                    n++;
                }
            }
        }
        tg_err err = {0};
        cJSON *msg = tg_json_parse(buf, n, NULL, NULL, NULL, &err);
        if (!msg)
            continue;
        parsed++;
        tg_serve_log log;
        cJSON *reply = tg_serve_handle(&cfg, &s, msg, &log);
        const cJSON *id = cJSON_GetObjectItem(msg, "id");
        bool request = cJSON_IsObject(msg) && cJSON_IsString(cJSON_GetObjectItem(msg, "method")) &&
                       (cJSON_IsString(id) || (cJSON_IsNumber(id) && id->valuedouble == (double)(long long)id->valuedouble));
        missing += request && !reply;
        cJSON_Delete(reply);
        cJSON_Delete(msg);
        if (i % 1000 == 0)
            s = (tg_serve_session){0}; /* now and then a fresh connection */
    }
    CHECK(parsed > 1000, "enough mutants parse (%zu)", parsed);
    CHECK(missing == 0, "%zu requests got no reply", missing);
}

/* Several providers: an earlier one's tool hides a later one's of the same name, in the list
 * and for calls; the core checks the arguments once, before any provider runs the call. */
static void test_providers(const tg_repo *repo)
{
    tg_err err = {0};
    tg_serve_tools extra;
    SETUP(tg_serve_tools_load_dev(&extra, repo, &err) == 0 && extra.n == 6, "a second set: %s",
          err.msg);
    tg_serve_tools_free_last(&extra); /* preview_file_lines: only the later provider has it */
    tg_serve_provider two[2] = {tg_serve_set_provider("extra", &extra), tg_serve_tools_provider};
    tg_serve_config saved = cfg;
    cfg.providers = two;
    cfg.n_providers = 2;
    cfg.page_size = 100;
    tg_serve_session s = {0};
    cJSON *r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META26 "}}");
    const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "tools");
    CHECK(cJSON_GetArraySize(list) == 6, "each name listed once (%d)", cJSON_GetArraySize(list));
    cJSON_Delete(r);
    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" META26
                ",\"name\":\"bar_chart_by_group\",\"arguments\":{\"file_path\":\"data/tips.csv\","
                "\"category_column\":\"day\"}}}");
    CHECK(last_run == &tg_serve_tools_find(&extra, "bar_chart_by_group")->m,
          "the earlier provider runs the tool both have");
    cJSON_Delete(r);
    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" META26
                ",\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":\"data/x.csv\"}}}");
    CHECK(last_run == &tg_serve_tools_find(&tools, "preview_file_lines")->m,
          "a tool only the later provider has is its to run");
    cJSON_Delete(r);
    int before = runs;
    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" META26
                ",\"name\":\"bar_chart_by_group\",\"arguments\":{\"file_path\":3}}}");
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "isError")) && runs == before,
          "arguments that do not fit are refused by the core, before any provider runs them");
    cJSON_Delete(r);
    tg_serve_session_release(&s);
    cfg = saved;
    tg_serve_tools_free(&extra);
}

int main(void)
{
    tg_err err = {0};
    open_rev(&legacy_s, "2025-11-25");
    open_rev(&modern_s, "2026-07-28");
    tg_repo repo;
    SETUP(tg_repo_open(&repo, ".", &err) == 0, "repository: %s", err.msg);
    SETUP(tg_serve_tools_load_dev(&tools, &repo, &err) == 0, "load: %s", err.msg);
    CHECK(tools.n == 6 && tools.n_skipped == 0, "the six example tools load (%zu, %zu skipped)",
          tools.n, tools.n_skipped);
    SETUP(tg_serve_resources_build(&resources, &tools, &repo.cfg.project, &err) == 0, "resources: %s",
          err.msg);
    cfg = (tg_serve_config){.tools = &tools, .providers = &tg_serve_tools_provider, .n_providers = 1,
                            .resources = &resources, .call = {.run = fake_run},
                            .page_size = 2, .list_ttl_ms = 1000};
    if (tools.n == 6) {
        test_legacy_handshake();
        test_pagination();
        test_calls("");
        test_calls(META26);
        test_read_only();
        test_modern();
        test_logging();
        test_resources("");
        test_resources(META26);
        test_invalid();
        test_stdio();
        test_stdio_progress_cancel();
        test_stdio_duplicate_id();
        test_log_unstarted();
        test_artifacts();
        test_many();
        test_mutations();
        test_providers(&repo);
    }
    tg_serve_resources_free(&resources);
    tg_serve_tools_free(&tools);
    tg_repo_release(&repo);
    js_registry_free(legacy_s.reg);
    js_registry_free(modern_s.reg);
    return tl_finish("test_serve");
}
