/* fuzz_rpc.c — libFuzzer harness: the MCP protocol core (serve/core.h, tg_serve_handle) with
 * the repository's example tools and a fake runner (no sandbox). Each input is a session:
 * lines of JSON-RPC, handled one after another in one session, so that a handshake the fuzzer
 * finds opens the methods behind it. Every message gets a reply or (a notification, a
 * response) none, and every reply is a JSON-RPC 2.0 object that prints — never a crash, a
 * leak or an abort. Run from the repository root (make fuzz does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "model/repo.h"
#include "serve/core.h"
#include "serve/resources.h"
#include "serve/toolprov.h"
#include "serve/tools.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tg_repo repo;
static tg_serve_tools tools;
static tg_serve_resources resources;
static tg_serve_config cfg;

/* A call's result without running anything: the tool's first example output, or a failure. */
static tg_call_status fake_run(void *ctx, const tg_tool_call *call, tg_call_result *out,
                               tg_err *err)
{
    (void)ctx;
    *out = (tg_call_result){0};
    if (strcmp(call->m->name, "get_exchange_rate") == 0) {
        tg_err_set(err, "http tools are not run by this version");
        return TG_CALL_UNSUPPORTED;
    }
    if (strcmp(call->m->name, "csv_column_stats") == 0) {
        out->guidance.cls = TG_CLASS_FILE_NOT_FOUND;
        out->guidance.code = "NOT_FOUND";
        snprintf(out->guidance.message, sizeof out->guidance.message, "no such file");
        out->guidance.doc = "docs/sandbox.md#file-not-found";
        return TG_CALL_DONE;
    }
    out->ok = true;
    const cJSON *ex = cJSON_GetArrayItem(call->m->examples, 0);
    out->result = cJSON_Duplicate(cJSON_GetObjectItem(ex, "output"), true);
    return TG_CALL_DONE;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    tg_err err = {0};
    if (tg_repo_open(&repo, ".", &err) != 0 || tg_serve_tools_load_dev(&tools, &repo, &err) != 0 ||
        tg_serve_resources_build(&resources, &tools, &repo.cfg.project, &err) != 0) {
        fprintf(stderr, "fuzz_rpc: run it from the repository root: %s\n", err.msg);
        exit(2);
    }
    cfg = (tg_serve_config){.tools = &tools, .providers = &tg_serve_tools_provider,
                            .n_providers = 1, .resources = &resources,
                            .call = {.run = fake_run}, .page_size = 2, .list_ttl_ms = 1000};
    return 0;
}

static void handle_line(tg_serve_session *s, const char *line, size_t len)
{
    tg_err err = {0};
    cJSON *msg = tg_json_parse(line, len, NULL, NULL, NULL, &err);
    if (!msg)
        return; /* the transport answers a parse error itself */
    tg_serve_log log;
    cJSON *reply = tg_serve_handle(&cfg, s, msg, &log);
    if (reply) {
        const cJSON *version = cJSON_GetObjectItem(reply, "jsonrpc");
        if (!cJSON_IsObject(reply) || !cJSON_IsString(version) ||
            strcmp(version->valuestring, "2.0") != 0 ||
            (!cJSON_GetObjectItem(reply, "result") && !cJSON_GetObjectItem(reply, "error")))
            abort(); /* not a JSON-RPC 2.0 reply */
        char *text = tg_json_print_compact(reply);
        free(text);
        cJSON_Delete(reply);
    }
    cJSON_Delete(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tg_serve_session s = {0};
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        handle_line(&s, p, len);
        p += len + 1;
    }
    tg_serve_session_release(&s);
    return 0;
}
