/*
 * test_serve_tasks.c — the tasks extension (serve/tasks.h) through the protocol core and a real
 * dispatch, with a fake provider: a task's CreateTaskResult and its polling to the inlined
 * result, input_required answered in two tasks/update, cancellation of a run that waits for
 * its cancel flag, a JSON-RPC error failing a task, the gates (-32021), unknown tasks
 * (-32602), and a store without a dispatch. Under SANITIZE=1 it also shows that tasks, their
 * runs and the store leak nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/util.h"
#include "serve/core.h"
#include "serve/dispatch.h"
#include "serve/tasks.h"
#include "testlib.h"

#define CAPS_EXT "{\"elicitation\":{},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"

/* ---- the fake provider: quick, asks, slow (until cancelled), broken ---------------------------- */

static const char *const tool_defs[] = {
    "{\"name\":\"quick\",\"inputSchema\":{\"type\":\"object\"},"
    "\"execution\":{\"taskSupport\":\"optional\"}}",
    "{\"name\":\"asks\",\"inputSchema\":{\"type\":\"object\"},"
    "\"execution\":{\"taskSupport\":\"optional\"}}",
    "{\"name\":\"slow\",\"inputSchema\":{\"type\":\"object\"},"
    "\"execution\":{\"taskSupport\":\"required\"}}",
    "{\"name\":\"broken\",\"inputSchema\":{\"type\":\"object\"},"
    "\"execution\":{\"taskSupport\":\"optional\"}}",
    "{\"name\":\"plain\",\"inputSchema\":{\"type\":\"object\"}}",
};
#define N_TOOLS (sizeof tool_defs / sizeof *tool_defs)
static cJSON *tool_objs[N_TOOLS];

static void fake_list(void *self, const tg_serve_rx *rx, tg_serve_add_fn add, void *ud)
{
    (void)self;
    (void)rx;
    for (size_t i = 0; i < N_TOOLS; i++)
        add(ud, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tool_objs[i], "name")),
            tool_objs[i]);
}

static bool fake_find(void *self, const tg_serve_rx *rx, const char *name, tg_serve_entry *out)
{
    (void)self;
    (void)rx;
    for (size_t i = 0; i < N_TOOLS; i++)
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tool_objs[i], "name")),
                   name) == 0) {
            *out = (tg_serve_entry){.tool = tool_objs[i], .name = name};
            return true;
        }
    return false;
}

static cJSON *text_result(const char *text)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "text");
    cJSON_AddStringToObject(block, "text", text);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "content"), block);
    cJSON_AddBoolToObject(r, "isError", false);
    return r;
}

/* "asks": two questions, then the answers' names joined. */
static cJSON *asks_result(const cJSON *params)
{
    const cJSON *ans = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
    if (!ans) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "resultType", "input_required");
        cJSON *q = cJSON_AddObjectToObject(r, "inputRequests");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(q, "a"), "method", "elicitation/create");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(q, "b"), "method", "elicitation/create");
        cJSON_AddStringToObject(r, "requestState", "opaque-state");
        return r;
    }
    const char *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "requestState"));
    char *text = xasprintf("%s %s %s", state ? state : "-",
                           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ans, "a")),
                           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ans, "b")));
    cJSON *r = text_result(text);
    free(text);
    return r;
}

/* "slow": waits, without the core lock, until its cancel flag is set (at most 10 s). */
static void wait_cancel(void *ctx)
{
    const volatile sig_atomic_t *cancel = ctx;
    for (int i = 0; i < 1000 && !(cancel && *cancel); i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
}

static void fake_call(void *self, const tg_serve_rx *rx, const tg_serve_entry *e,
                      const cJSON *args, tg_serve_outcome *out)
{
    (void)self;
    (void)args;
    *out = (tg_serve_outcome){0};
    if (strcmp(e->name, "asks") == 0) {
        out->result = asks_result(rx->params);
    } else if (strcmp(e->name, "slow") == 0) {
        tg_serve_unlocked(rx->how.dispatch, wait_cancel, (void *)rx->how.cancel);
        out->result = text_result("slow done");
    } else if (strcmp(e->name, "broken") == 0) {
        out->rpc_error = TG_RPC_INTERNAL_ERROR;
        snprintf(out->msg, sizeof out->msg, "broken on purpose");
    } else {
        out->result = text_result(e->name);
    }
}

static const tg_serve_provider fake = {
    .name = "fake", .list = fake_list, .find = fake_find, .call = fake_call};

/* ---- helpers ---------------------------------------------------------------------------------- */

static tg_serve_dispatch *dp;

static cJSON *ask(const char *method, const char *params, const char *caps)
{
    char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"%s\",\"params\":{%s%s"
                           "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                           "\"io.modelcontextprotocol/clientCapabilities\":%s}}}",
                           method, params, *params ? "," : "", caps);
    cJSON *msg = tg_json_parse(text, strlen(text), NULL, NULL, NULL, NULL);
    SETUP(msg, "parse %s", text);
    free(text);
    tg_serve_log log;
    cJSON *r = tg_serve_dispatch_handle(dp, NULL, msg, &log);
    cJSON_Delete(msg);
    return r;
}

static const char *str_at(const cJSON *r, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(r, a);
    return cJSON_GetStringValue(b ? cJSON_GetObjectItemCaseSensitive(o, b) : o);
}

static int error_code(const cJSON *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "error"),
                                                      "code");
    return c ? c->valueint : 0;
}

/* A task's tools/call: its id (heap), NULL when the reply is not a CreateTaskResult. */
static char *create(const char *tool, const char *caps)
{
    char *params = xasprintf("\"name\":\"%s\",\"arguments\":{}", tool);
    cJSON *r = ask("tools/call", params, caps);
    free(params);
    const char *type = str_at(r, "result", "resultType");
    char *id = type && strcmp(type, "task") == 0 ? xstrdup(str_at(r, "result", "taskId")) : NULL;
    CHECK(id, "%s: a CreateTaskResult", tool);
    cJSON_Delete(r);
    return id;
}

/* tasks/get until status is not "working" (5 s at most); the reply's result, heap. */
static cJSON *settled(const char *id)
{
    char *params = xasprintf("\"taskId\":\"%s\"", id ? id : "");
    cJSON *res = NULL;
    for (int i = 0; i < 500; i++) {
        cJSON *r = ask("tasks/get", params, CAPS_EXT);
        res = cJSON_DetachItemFromObjectCaseSensitive(r, "result");
        cJSON_Delete(r);
        const char *st = str_at(res, "status", NULL);
        if (!st || strcmp(st, "working") != 0)
            break;
        cJSON_Delete(res);
        res = NULL;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    free(params);
    return res;
}

/* ---- the tests -------------------------------------------------------------------------------- */

static void test_complete(void)
{
    cJSON *r = ask("server/discover", "", "{}");
    CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
              cJSON_GetObjectItemCaseSensitive(r, "result"), "capabilities"), "extensions"),
          "discover offers extensions");
    cJSON_Delete(r);
    char *id = create("quick", CAPS_EXT);
    cJSON *t = settled(id);
    CHECK(str_at(t, "status", NULL) && strcmp(str_at(t, "status", NULL), "completed") == 0,
          "quick completes");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(t, "result"), "content");
    CHECK(content && strcmp(str_at(content->child, "text", NULL), "quick") == 0,
          "the result is inlined");
    CHECK(!cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "result"),
                                            "resultType"), "without the envelope's resultType");
    cJSON_Delete(t);
    free(id);
    /* without the extension: the plain result; a required tool refused */
    r = ask("tools/call", "\"name\":\"quick\",\"arguments\":{}", "{}");
    CHECK(strcmp(str_at(r, "result", "resultType"), "complete") == 0, "quick, plainly");
    cJSON_Delete(r);
    r = ask("tools/call", "\"name\":\"slow\",\"arguments\":{}", "{}");
    CHECK(error_code(r) == TG_RPC_MISSING_CAPABILITY, "slow needs the extension");
    cJSON_Delete(r);
    r = ask("tools/call", "\"name\":\"plain\",\"arguments\":{}", CAPS_EXT);
    CHECK(strcmp(str_at(r, "result", "resultType"), "complete") == 0, "plain is never a task");
    cJSON_Delete(r);
}

static void test_input(void)
{
    char *id = create("asks", CAPS_EXT);
    cJSON *t = settled(id);
    CHECK(strcmp(str_at(t, "status", NULL), "input_required") == 0, "asks: input_required");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "inputRequests")) == 2,
          "both questions");
    CHECK(!cJSON_GetObjectItemCaseSensitive(t, "requestState"), "no requestState shown");
    cJSON_Delete(t);
    char *p = xasprintf("\"taskId\":\"%s\",\"inputResponses\":{\"a\":\"A\",\"zz\":1}", id);
    cJSON *r = ask("tasks/update", p, CAPS_EXT);
    free(p);
    CHECK(strcmp(str_at(r, "result", "resultType"), "complete") == 0 &&
              !cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "result"),
                                                "status"), "the ack");
    cJSON_Delete(r);
    t = settled(id);
    const cJSON *left = cJSON_GetObjectItemCaseSensitive(t, "inputRequests");
    CHECK(cJSON_GetArraySize(left) == 1 && cJSON_GetObjectItemCaseSensitive(left, "b"),
          "b is left");
    cJSON_Delete(t);
    p = xasprintf("\"taskId\":\"%s\",\"inputResponses\":{\"b\":\"B\"}", id);
    cJSON_Delete(ask("tasks/update", p, CAPS_EXT));
    free(p);
    t = settled(id);
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(t, "result"), "content");
    CHECK(content && strcmp(str_at(content->child, "text", NULL), "opaque-state A B") == 0,
          "the run got both answers and the state: %s",
          content ? str_at(content->child, "text", NULL) : "(none)");
    cJSON_Delete(t);
    free(id);
}

static void test_cancel_and_fail(void)
{
    char *id = create("slow", CAPS_EXT);
    char *p = xasprintf("\"taskId\":\"%s\"", id);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    cJSON *r = ask("tasks/cancel", p, CAPS_EXT);
    CHECK(strcmp(str_at(r, "result", "resultType"), "complete") == 0, "cancel acks");
    cJSON_Delete(r);
    cJSON *t = settled(id);
    CHECK(strcmp(str_at(t, "status", NULL), "cancelled") == 0, "slow: cancelled");
    cJSON_Delete(t);
    tg_serve_dispatch_drain(dp); /* its run ended: the cancel flag reached it */
    CHECK(tg_serve_dispatch_in_flight(dp) == 0, "no run left");
    r = ask("tasks/cancel", p, CAPS_EXT);
    CHECK(strcmp(str_at(r, "result", "resultType"), "complete") == 0, "cancel again: a no-op");
    cJSON_Delete(r);
    r = ask("tasks/get", p, "{}");
    CHECK(error_code(r) == TG_RPC_MISSING_CAPABILITY, "tasks/get needs the extension");
    cJSON_Delete(r);
    free(p);
    free(id);
    id = create("broken", CAPS_EXT);
    t = settled(id);
    CHECK(strcmp(str_at(t, "status", NULL), "failed") == 0 &&
              strcmp(str_at(t, "error", "message"), "broken on purpose") == 0 &&
              !cJSON_GetObjectItemCaseSensitive(t, "result"), "broken: failed, the error inlined");
    cJSON_Delete(t);
    free(id);
    r = ask("tasks/get", "\"taskId\":\"0123456789abcdef0123456789abcdef\"", CAPS_EXT);
    CHECK(error_code(r) == TG_RPC_INVALID_PARAMS, "unknown task");
    cJSON_Delete(r);
    r = ask("tasks/update", "\"taskId\":\"x\"", CAPS_EXT);
    CHECK(error_code(r) == TG_RPC_INVALID_PARAMS, "tasks/update without inputResponses");
    cJSON_Delete(r);
    r = ask("tasks/list", "", CAPS_EXT);
    CHECK(error_code(r) == TG_RPC_METHOD_NOT_FOUND, "tasks/list removed");
    cJSON_Delete(r);
}

/* A store without a dispatch (a core driven directly): a task cannot run, and says so. */
static void test_no_dispatch(void)
{
    tg_serve_tasks *t = tg_serve_tasks_new();
    cJSON *params = cJSON_CreateObject();
    cJSON *c = tg_serve_tasks_start(t, NULL, params);
    CHECK(c && strcmp(str_at(c, "resultType", NULL), "task") == 0, "created");
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "taskId", str_at(c, "taskId", NULL));
    tg_serve_outcome o;
    CHECK(tg_serve_tasks_request(t, NULL, "tasks/get", q, &o) && o.result &&
              strcmp(str_at(o.result, "status", NULL), "failed") == 0, "failed at once");
    cJSON_Delete(o.result);
    CHECK(!tg_serve_tasks_request(t, NULL, "tasks/result", q, &o), "not a method of the store");
    CHECK(!tg_serve_tasks_is_run(t, cJSON_GetObjectItemCaseSensitive(q, "taskId")),
          "a task id is not a run id");
    cJSON_Delete(q);
    cJSON_Delete(c);
    cJSON_Delete(params);
    tg_serve_tasks_free(t);
}

int main(void)
{
    for (size_t i = 0; i < N_TOOLS; i++)
        SETUP(tool_objs[i] = cJSON_Parse(tool_defs[i]), "tool %zu", i);
    tg_serve_tasks *tasks = tg_serve_tasks_new();
    tg_serve_config cfg = {.providers = &fake, .n_providers = 1, .tasks = tasks};
    tg_err err = {0};
    dp = tg_serve_dispatch_start(&cfg, &(tg_serve_dispatch_opts){.workers = 2, .log_fd = -1}, &err);
    SETUP(dp, "dispatch: %s", err.msg);
    test_complete();
    test_input();
    test_cancel_and_fail();
    tg_serve_dispatch_stop(dp);
    tg_serve_tasks_free(tasks);
    test_no_dispatch();
    for (size_t i = 0; i < N_TOOLS; i++)
        cJSON_Delete(tool_objs[i]);
    return tl_finish("test_serve_tasks");
}
