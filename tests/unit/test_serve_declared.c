/*
 * test_serve_declared.c — the resources a repository declares (serve/declared.h): serve.resources
 * read from toolgen.yaml and every way an entry can be wrong, plain files and templates read
 * through the protocol core in both eras (text, blob, a template's variables, values that would
 * climb out refused), resources/subscribe and subscriptions/listen with resourceSubscriptions,
 * and the notifications/resources/updated a change brings — each message checked against the
 * MCP schema of its revision.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "model/repo.h"
#include "serve/core.h"
#include "serve/declared.h"
#include "serve/notify.h"
#include "serve/toolprov.h"
#include "testlib.h"
#include "mcp_schemas.h"

static rev_schemas legacy_s, modern_s;
static char root[64];

static void put(const char *path, const char *text)
{
    char *full = tg_path_join(root, path);
    char *dir = xstrdup(full);
    *strrchr(dir, '/') = '\0';
    tg_err err = {0};
    SETUP(tg_mkdirs(dir, &err) == 0, "%s: %s", dir, err.msg);
    SETUP(tg_write_file_atomic(full, text, strlen(text), &err) == 0, "%s: %s", path, err.msg);
    free(dir);
    free(full);
}

/* Loads serve.resources from a toolgen.yaml holding yaml; -1 with err when it is refused. */
static int load(const char *yaml, tg_serve_declared *d, tg_repo *repo, tg_err *err)
{
    put("toolgen.yaml", yaml);
    if (tg_repo_open(repo, root, err) != 0)
        return -2;
    return tg_serve_declared_load(d, repo, err);
}

static void expect_refused(const char *entry, const char *needle)
{
    char *yaml = xasprintf("serve:\n  resources:\n    - %s\n", entry);
    tg_serve_declared d;
    tg_repo repo;
    tg_err err = {0};
    int rc = load(yaml, &d, &repo, &err);
    CHECK(rc == -1, "refused: %s (%d)", entry, rc);
    CHECK_CONTAINS(err.msg, needle);
    if (rc == 0)
        tg_serve_declared_free(&d);
    if (rc != -2)
        tg_repo_release(&repo);
    free(yaml);
}

static void test_load(void)
{
    expect_refused("{file: a.txt}", "uri (or uri_template) and file");
    expect_refused("{uri: x://a, uri_template: 'x://{a}', file: a.txt}", "uri (or uri_template)");
    expect_refused("{uri: x://a, file: ../a.txt}", "inside the repository");
    expect_refused("{uri: x://a, file: .git/config}", "inside the repository");
    expect_refused("{uri: toolgen://mine, file: a.txt}", "toolgen's own");
    expect_refused("{uri: 'x://{a}', file: a.txt}", "use uri_template");
    expect_refused("{uri_template: 'x://{a}', file: b.txt}", "same {variables}");
    expect_refused("{uri_template: 'x://{a}/{b}', file: '{a}.txt'}", "same {variables}");
    expect_refused("{uri: x://a, file: a.txt, colour: red}", "'colour'");
    char *two = "serve:\n  resources:\n    - {uri: x://a, file: a.txt}\n    - {uri: x://a, file: b.txt}\n";
    tg_serve_declared d;
    tg_repo repo;
    tg_err err = {0};
    CHECK(load(two, &d, &repo, &err) == -1 && strstr(err.msg, "declared twice"), "%s", err.msg);
    tg_repo_release(&repo);
}

static tg_serve_config cfg;

static cJSON *rpc(tg_serve_session *s, const char *text, tg_serve_log *log)
{
    cJSON *msg = tg_json_parse(text, strlen(text), NULL, NULL, NULL, NULL);
    SETUP(msg, "parse %s", text);
    cJSON *r = tg_serve_handle(&cfg, s, msg, log);
    cJSON_Delete(msg);
    if (r) {
        rev_schemas *rev = log->era == TG_ERA_MODERN ? &modern_s : &legacy_s;
        const cJSON *res = cJSON_GetObjectItem(r, "result");
        const char *def = cJSON_GetObjectItem(r, "method") ? "SubscriptionsAcknowledgedNotification"
                          : !res ? "JSONRPCErrorResponse"
                          : cJSON_GetObjectItem(res, "contents")          ? "ReadResourceResult"
                          : cJSON_GetObjectItem(res, "resources")         ? "ListResourcesResult"
                          : cJSON_GetObjectItem(res, "resourceTemplates") ? "ListResourceTemplatesResult"
                                                                          : NULL;
        expect_def(rev, def ? def : "JSONRPCResultResponse", res && def ? res : r, text);
    }
    return r;
}

static const cJSON *content0(const cJSON *r)
{
    return cJSON_GetArrayItem(tg_json_get(tg_json_get(r, "result"), "contents"), 0);
}

static void test_read(tg_serve_session *s)
{
    tg_serve_log log;
    cJSON *r = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"docs://notes\"}}", &log);
    CHECK(strcmp(tg_json_get_string(content0(r), "text"), "hello\n") == 0 &&
              strcmp(tg_json_get_string(content0(r), "mimeType"), "text/markdown") == 0,
          "a declared markdown file reads as text");
    cJSON_Delete(r);
    r = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"data://tables/x.v1\"}}", &log);
    CHECK(tg_json_get_string(content0(r), "text") &&
              strcmp(tg_json_get_string(content0(r), "mimeType"), "text/csv") == 0,
          "a template's variable picks the file");
    cJSON_Delete(r);
    const char *bad[] = {"data://tables/..", "data://tables/.x", "data://tables/a/b", "data://tables/",
                         "data://tables/none", "docs://other"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *t = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}", bad[i]);
        r = rpc(s, t, &log);
        CHECK(tg_json_get_number(tg_json_get(r, "error"), "code", 0) == -32002 &&
                  strcmp(tg_json_get_string(tg_json_get(tg_json_get(r, "error"), "data"), "uri"), bad[i]) == 0,
              "not found, with the uri in data: %s", bad[i]);
        cJSON_Delete(r);
        free(t);
    }
    r = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\"}", &log);
    char *text = tg_json_print_compact(r);
    CHECK(strstr(text, "\"uri\":\"docs://notes\",\"name\":\"notes\",\"title\":\"Notes\"") &&
              !strstr(text, "data://tables"), "plain ones are listed, templates not: %s", text);
    free(text);
    cJSON_Delete(r);
    r = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/templates/list\"}", &log);
    text = tg_json_print_compact(r);
    CHECK_CONTAINS(text, "\"uriTemplate\":\"data://tables/{table}\"");
    free(text);
    cJSON_Delete(r);
}

/* The notifications due on session s now that the watched files changed. */
static cJSON *due(tg_serve_session *s, tg_serve_declared *d)
{
    CHECK(tg_serve_declared_poll(d) >= 1, "the change is seen");
    return tg_serve_updated(s->subs, s->res_subs, d->changed);
}

static void test_subscribe(tg_serve_session *legacy, tg_serve_declared *d)
{
    tg_serve_log log;
    cJSON *r = rpc(legacy, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"docs://notes\"}}", &log);
    CHECK(cJSON_GetObjectItem(r, "result"), "subscribed");
    cJSON_Delete(r);
    r = rpc(legacy, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"docs://none\"}}", &log);
    CHECK(tg_json_get_number(tg_json_get(r, "error"), "code", 0) == -32002, "an unknown one: -32002");
    cJSON_Delete(r);
    tg_serve_session modern = {0};
    r = rpc(&modern, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"subscriptions/listen\",\"params\":{" META26
                     ",\"notifications\":{\"resourceSubscriptions\":[\"docs://notes\",\"docs://none\"]}}}", &log);
    char *text = tg_json_print_compact(r);
    CHECK_CONTAINS(text, "\"resourceSubscriptions\":[\"docs://notes\"]");
    free(text);
    cJSON_Delete(r);
    CHECK(tg_serve_declared_poll(d) == 0, "nothing changed yet");
    put("docs/notes.md", "hello again, a longer text\n");
    cJSON *n = due(legacy, d);
    text = tg_json_print_compact(n);
    CHECK(strcmp(text, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":"
                       "{\"uri\":\"docs://notes\"}}]") == 0, "the legacy session hears of it: %s", text);
    free(text);
    expect_def(&legacy_s, "ResourceUpdatedNotification", cJSON_GetArrayItem(n, 0), "updated");
    cJSON_Delete(n);
    n = tg_serve_updated(modern.subs, NULL, d->changed);
    CHECK(cJSON_GetArraySize(n) == 1, "and the listen stream");
    expect_def(&modern_s, "ResourceUpdatedNotification", cJSON_GetArrayItem(n, 0), "updated 2026");
    cJSON_Delete(n);
    r = rpc(legacy, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"docs://notes\"}}", &log);
    cJSON_Delete(r);
    put("docs/notes.md", "hello\n");
    n = due(legacy, d);
    CHECK(cJSON_GetArraySize(n) == 0, "unsubscribed: no more");
    cJSON_Delete(n);
    tg_serve_session_release(&modern);
}

int main(void)
{
    open_rev(&legacy_s, "2025-11-25");
    open_rev(&modern_s, "2026-07-28");
    snprintf(root, sizeof root, "/tmp/tg-declared-XXXXXX");
    SETUP(mkdtemp(root), "mkdtemp");
    test_load();
    put("docs/notes.md", "hello\n");
    put("data/x.v1.csv", "a,b\n");
    put("secret.csv", "s\n");
    tg_serve_declared d;
    tg_repo repo;
    tg_err err = {0};
    int rc = load("serve:\n  resources:\n    - {uri: docs://notes, file: docs/notes.md, name: notes, "
                  "title: Notes}\n    - {uri_template: 'data://tables/{table}', file: 'data/{table}.csv'}\n",
                  &d, &repo, &err);
    CHECK(rc == 0 && d.n == 2, "loaded: %s", err.msg);
    tg_serve_tools none = {0};
    tg_serve_resources generated = {0};
    /* no list changes: resourceSubscriptions alone make subscriptions/listen worth offering */
    cfg = (tg_serve_config){.tools = &none, .providers = &tg_serve_tools_provider, .n_providers = 1,
                            .resources = &generated, .declared = &d, .list_ttl_ms = 1000};
    tg_serve_session s = {0};
    cJSON *init = tg_json_parse("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                                "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
                                "{\"name\":\"t\",\"version\":\"1\"}}}", strlen("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"), NULL, NULL, NULL, NULL);
    tg_serve_log log;
    cJSON *r = tg_serve_handle(&cfg, &s, init, &log);
    CHECK(cJSON_IsTrue(tg_json_get(tg_json_get(tg_json_get(tg_json_get(r, "result"), "capabilities"),
                                              "resources"), "subscribe")), "subscribe: true");
    cJSON_Delete(r);
    cJSON_Delete(init);
    test_read(&s);
    test_subscribe(&s, &d);
    tg_serve_session_release(&s);
    tg_serve_declared_free(&d);
    tg_repo_release(&repo);
    char *rm = xasprintf("rm -rf '%s'", root);
    SETUP(system(rm) == 0, "cleanup");
    free(rm);
    js_registry_free(legacy_s.reg);
    js_registry_free(modern_s.reg);
    return tl_finish("test_serve_declared");
}
