/*
 * test_serve_notify.c — list changes (serve/notify.h): subscriptions/listen through the
 * protocol core, its acknowledgement and filter, the limits, cancellation, and the
 * notifications due per era — each message checked against the MCP schema of its revision.
 */
#include <stdlib.h>
#include <string.h>

#include "base/doc.h"
#include "base/json.h"
#include "schema/jsonschema.h"
#include "serve/core.h"
#include "serve/toolprov.h"
#include "serve/notify.h"
#include "testlib.h"
#include "mcp_schemas.h"

static rev_schemas legacy_s, modern_s; /* the schemas of both revisions (mcp_schemas.h) */

static tg_serve_tools tools; /* empty */
static tg_serve_config cfg;

static cJSON *handle(tg_serve_session *s, const char *text)
{
    cJSON *msg = tg_json_parse(text, strlen(text), NULL, NULL, NULL, NULL);
    SETUP(msg, "parse %s", text);
    tg_serve_log log;
    cJSON *r = msg ? tg_serve_handle(&cfg, s, msg, &log) : NULL;
    cJSON_Delete(msg);
    return r;
}

static char *listen_req(const char *id, const char *filter)
{
    return xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"subscriptions/listen\","
                     "\"params\":{" META26 "%s%s}}", id, filter ? ",\"notifications\":" : "",
                     filter ? filter : "");
}

static void test_listen(void)
{
    tg_serve_session s = {0};
    char *t = listen_req("7", "{\"toolsListChanged\":true,\"resourcesListChanged\":true,"
                              "\"promptsListChanged\":true}");
    cJSON *ack = handle(&s, t);
    free(t);
    expect_def(&modern_s, "SubscriptionsAcknowledgedNotification", ack, "ack");
    expect_def(&modern_s, "JSONRPCNotification", ack, "ack");
    char *text = tg_json_print_compact(ack);
    CHECK(strstr(text, "\"notifications\":{\"toolsListChanged\":true,\"resourcesListChanged\":true}") &&
              strstr(text, "\"io.modelcontextprotocol/subscriptionId\":7"),
          "honoured: tools and resources (prompts do not change): %s", text);
    free(text);
    cJSON_Delete(ack);
    t = listen_req("7", "{}");
    cJSON *dup = handle(&s, t);
    free(t);
    CHECK(cJSON_GetObjectItem(dup, "error"), "an id in use is refused");
    cJSON_Delete(dup);
    t = listen_req("8", NULL);
    cJSON *bad = handle(&s, t);
    free(t);
    CHECK(cJSON_GetObjectItem(bad, "error") &&
              strstr(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(bad, "error"),
                                                              "message")), "params.notifications"),
          "a listen without a filter says what is missing");
    cJSON_Delete(bad);
    for (int i = 0; i < TG_SERVE_MAX_SUBS; i++) {
        char id[16];
        snprintf(id, sizeof id, "\"s%d\"", i);
        t = listen_req(id, "{\"toolsListChanged\":false}");
        cJSON *r = handle(&s, t);
        CHECK((i < TG_SERVE_MAX_SUBS - 1) == (cJSON_GetObjectItem(r, "error") == NULL),
              "subscription %d of at most %d", i + 2, TG_SERVE_MAX_SUBS);
        cJSON_Delete(r);
        free(t);
    }
    CHECK(tg_serve_subs_count(s.subs) == TG_SERVE_MAX_SUBS, "full");

    /* a change: one notification on subscription 7 per list it asked for, none for the
     * others (they asked for nothing); legacy ones only once initialized */
    cJSON *due = tg_serve_changed(s.subs, false, TG_CHANGED_TOOLS | TG_CHANGED_RESOURCES);
    CHECK(cJSON_GetArraySize(due) == 2, "two notifications due (%d)", cJSON_GetArraySize(due));
    cJSON *n;
    cJSON_ArrayForEach(n, due) {
        expect_def(&modern_s, "JSONRPCNotification", n, "list_changed");
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(n, "method"));
        expect_def(&modern_s, strstr(m, "tools") ? "ToolListChangedNotification"
                                                 : "ResourceListChangedNotification", n, m);
    }
    cJSON_Delete(due);
    due = tg_serve_changed(NULL, true, TG_CHANGED_TOOLS);
    CHECK(cJSON_GetArraySize(due) == 1, "legacy: one");
    expect_def(&legacy_s, "ToolListChangedNotification", cJSON_GetArrayItem(due, 0), "legacy");
    cJSON_Delete(due);

    /* cancelled: no more notifications on it, and a cancellation of nothing is ignored */
    cJSON *none = handle(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":7}}");
    CHECK(!none, "a notification gets no reply");
    CHECK(tg_serve_subs_count(s.subs) == TG_SERVE_MAX_SUBS - 1, "cancelled");
    due = tg_serve_changed(s.subs, false, TG_CHANGED_TOOLS);
    CHECK(cJSON_GetArraySize(due) == 0, "nothing due after the cancellation");
    cJSON_Delete(due);
    CHECK(!tg_serve_unlisten(s.subs, cJSON_GetArrayItem(NULL, 0)), "NULL id");
    tg_serve_session_release(&s);
    CHECK(!s.subs, "released");
}

static void test_legacy_refused(void)
{
    tg_serve_session s = {0};
    cJSON *r = handle(&s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                          "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
                          "{\"name\":\"t\",\"version\":\"1\"}}}");
    char *text = tg_json_print_compact(r);
    CHECK(strstr(text, "\"tools\":{\"listChanged\":true}"), "legacy announces listChanged: %s", text);
    free(text);
    cJSON_Delete(r);
    r = handle(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\","
                   "\"params\":{\"notifications\":{}}}");
    CHECK(cJSON_GetObjectItem(r, "error"), "subscriptions/listen is not a legacy method");
    cJSON_Delete(r);
    tg_serve_session_release(&s);
}

int main(void)
{
    open_rev(&legacy_s, "2025-11-25");
    open_rev(&modern_s, "2026-07-28");
    cfg = (tg_serve_config){.tools = &tools, .providers = &tg_serve_tools_provider, .n_providers = 1,
                            .list_changed = TG_CHANGED_TOOLS | TG_CHANGED_RESOURCES};
    test_listen();
    test_legacy_refused();
    js_registry_free(legacy_s.reg);
    js_registry_free(modern_s.reg);
    return tl_finish("test_serve_notify");
}
