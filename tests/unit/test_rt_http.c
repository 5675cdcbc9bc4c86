/*
 * test_rt_http.c — the http runtime (run/rt_http.c, docs/manifest.md#http) against a scripted
 * loopback server (httpfake.h): the request built from the manifest (path arguments encoded as
 * one segment, query values encoded, headers, the bearer token), the answer read at
 * response.pointer and held to output_schema, error statuses mapped to their codes
 * (status_codes first), a hang ended by the call's wall clock as TIMEOUT, retries only for an
 * idempotent tool, redirects not followed (the token never leaves the manifest's host), the
 * token masked in what comes back, the size cap, a missing credential, the origin override,
 * cancellation, and a POST (its body template, a header credential, a text answer, no retry).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "run/toolrun.h"
#include "testlib.h"
#include "probe_fixture.h"
#include "httpfake.h"

#define TOKEN "tok-5ecret-value-42"

static const char manifest_fmt[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Look up an item\n"
    "description: Look up an item of a loopback service, for the http runtime's tests.\n"
    "status: draft\n"
    "risk: low\n"
    "idempotency: idempotent\n"
    "timeout_ms: 1500\n"
    "docs:\n"
    "  when_to_use: To see the http runtime at work.\n"
    "  what_it_does: Sends GET /items/{id}.\n"
    "  returns: 'The item.'\n"
    "  prerequisites: TG_TEST_HTTP_TOKEN.\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  required: [id]\n"
    "  properties:\n"
    "    id: {type: string, description: The item.}\n"
    "    q: {type: string, description: A filter.}\n"
    "output_schema:\n"
    "  type: object\n"
    "  required: [name]\n"
    "  properties:\n"
    "    name: {type: string, description: Its name.}\n"
    "    echo: {type: string, description: What the service saw.}\n"
    "constraints:\n"
    "  network: true\n"
    "  limits: {wall_s: 10, output_kb: 4}\n"
    "implementation:\n"
    "  runtime: http\n"
    "  request:\n"
    "    method: GET\n"
    "    url: http://127.0.0.1:%d/v1/items/{id}\n"
    "    query: {filter: '{q}', fixed: 'a b&c'}\n"
    "    headers: {Accept: application/json, X-Item: 'item {id}'}\n"
    "  auth: {type: bearer, env: TG_TEST_HTTP_TOKEN}\n"
    "  response: {format: json, pointer: /data}\n"
    "  retry: {max_attempts: 3, backoff_ms: 10}\n"
    "  status_codes: {'418': CONFLICT}\n";

/* A POST whose body is a template, authenticated by a header (auth.type header). */
static const char post_fmt[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Create an item\n"
    "description: Create an item on a loopback service, for the http runtime's tests.\n"
    "status: draft\n"
    "risk: medium\n"
    "idempotency: idempotent\n"
    "timeout_ms: 1500\n"
    "docs:\n"
    "  when_to_use: To see the http runtime at work.\n"
    "  what_it_does: Sends POST /items.\n"
    "  returns: 'The item.'\n"
    "  prerequisites: TG_TEST_HTTP_TOKEN.\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  required: [id, tags]\n"
    "  properties:\n"
    "    id: {type: string, description: The item.}\n"
    "    tags: {type: array, items: {type: string}, description: Its tags.}\n"
    "    count: {type: integer, description: How many.}\n"
    "output_schema:\n"
    "  type: object\n"
    "  properties:\n"
    "    text: {type: string, description: The answer.}\n"
    "constraints:\n"
    "  network: true\n"
    "implementation:\n"
    "  runtime: http\n"
    "  request:\n"
    "    method: POST\n"
    "    url: http://127.0.0.1:%d/v1/items\n"
    "    body: {item: {name: '{id}', tags: '{tags}', count: '{count}'}, note: 'id {id}'}\n"
    "  auth: {type: header, env: TG_TEST_HTTP_TOKEN, header: X-Api-Key}\n"
    "  response: {format: text}\n"
    "  retry: {max_attempts: 3, backoff_ms: 10}\n";

static char repo_dir[64];
static hf_server srv;
static fixture fx;

/* One call with args (JSON text); the caller frees r. */
static void call(const char *args_json, tg_call_result *r)
{
    cJSON *args = cJSON_Parse(args_json);
    tg_tool_call c = {.m = &fx.m, .input = fx.in, .output = fx.out, .args = args};
    tg_err err = {0};
    tg_call_status st = tg_tool_call_run(&fx.env.ctx, &c, r, &err);
    CHECK(st == TG_CALL_DONE, "call %s: status %d: %s", args_json, (int)st, err.msg);
    cJSON_Delete(args);
}

static const char *code_of(const tg_call_result *r)
{
    return r->ok ? "ok" : r->guidance.code ? r->guidance.code : "?";
}

/* Neither the envelope nor the guidance holds the token. */
static void check_no_token(const tg_call_result *r, const char *what)
{
    cJSON *env = tg_call_result_json(r, &fx.m);
    char *text = cJSON_PrintUnformatted(env);
    CHECK(!strstr(text, TOKEN) && !strstr(text, "5ecret"), "%s: the token is not in the "
          "envelope", what);
    free(text);
    cJSON_Delete(env);
}

static void test_success_and_request(void)
{
    hf_answer a[] = {{.headers = "Content-Type: application/json\r\n",
                      .body = "{\"data\": {\"name\": \"widget\"}, \"other\": 1}"}};
    hf_script(&srv, a, 1);
    tg_call_result r;
    call("{\"id\": \"42\", \"q\": \"x y/z\"}", &r);
    CHECK(r.ok && strcmp(tg_json_get_string(r.result, "name"), "widget") == 0,
          "the result is the object at response.pointer: %s", r.guidance.message);
    CHECK(r.ran && hf_count(&srv) == 1, "one request");
    hf_seen *s = &srv.seen[0];
    CHECK(strcmp(s->method, "GET") == 0 && strcmp(s->target, "/v1/items/42?filter=x%20y%2Fz&fixed=a%20b%26c") == 0,
          "method, path and encoded query: %s %s", s->method, s->target);
    const char *auth = hf_header(s, "Authorization");
    CHECK(auth && strcmp(auth, "Bearer " TOKEN) == 0, "the bearer token is sent to the host");
    CHECK(hf_header(s, "X-Item") && strcmp(hf_header(s, "X-Item"), "item 42") == 0,
          "a header template");
    cJSON *env = tg_call_result_json(&r, &fx.m);
    CHECK(strcmp(tg_json_get_string(env, "isolation"), "remote") == 0, "isolation: remote");
    cJSON_Delete(env);
    check_no_token(&r, "success");
    tg_call_result_free(&r);

    /* an absent optional argument leaves its query parameter out */
    hf_script(&srv, a, 1);
    call("{\"id\": \"7\"}", &r);
    CHECK(r.ok && strcmp(srv.seen[0].target, "/v1/items/7?fixed=a%20b%26c") == 0,
          "absent q: no filter: %s", srv.seen[0].target);
    tg_call_result_free(&r);
}

/* A path argument is one segment: it cannot climb, add segments, a query or a fragment. */
static void test_path_injection(void)
{
    static const struct {
        const char *id, *target;
    } cases[] = {
        {"../../admin", "/v1/items/%2E%2E%2F%2E%2E%2Fadmin?fixed=a%20b%26c"},
        {"..", "/v1/items/%2E%2E?fixed=a%20b%26c"},
        {"a?admin=1#x", "/v1/items/a%3Fadmin%3D1%23x?fixed=a%20b%26c"},
        {"@evil.example:80", "/v1/items/%40evil%2Eexample%3A80?fixed=a%20b%26c"},
        {"%2e%2e", "/v1/items/%252e%252e?fixed=a%20b%26c"},
    };
    hf_answer a[] = {{.body = "{\"data\": {\"name\": \"n\"}}"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hf_script(&srv, a, 1);
        char *args = xasprintf("{\"id\": \"%s\"}", cases[i].id);
        tg_call_result r;
        call(args, &r);
        CHECK(hf_count(&srv) == 1 && strcmp(srv.seen[0].target, cases[i].target) == 0,
              "%s stays in its segment: %s", cases[i].id, srv.seen[0].target);
        tg_call_result_free(&r);
        free(args);
    }
    /* a line break in a header value: INVALID_INPUT, nothing sent */
    hf_script(&srv, a, 1);
    tg_call_result r;
    call("{\"id\": \"1\\r\\nX-Evil: 1\"}", &r);
    CHECK(!r.ok && !r.ran && r.guidance.cls == TG_CLASS_INPUT_SCHEMA &&
              strcmp(code_of(&r), "INVALID_INPUT") == 0 && hf_count(&srv) == 0,
          "a CR LF in a header: %s, nothing sent (%s)", code_of(&r), r.guidance.message);
    CHECK_CONTAINS(r.guidance.message, "header X-Item");
    tg_call_result_free(&r);
}

static void test_statuses(void)
{
    static const struct {
        int status;
        const char *code;
        size_t attempts; /* idempotent, 3 attempts: 429 and 5xx are retried */
    } cases[] = {
        {404, "NOT_FOUND", 1}, {401, "UNAUTHORIZED", 1}, {403, "FORBIDDEN", 1},
        {429, "RATE_LIMITED", 3}, {500, "UPSTREAM_ERROR", 3}, {503, "UPSTREAM_ERROR", 3},
        {400, "INVALID_INPUT", 1}, {418, "CONFLICT", 1}, {302, "UPSTREAM_ERROR", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hf_answer a[] = {{.status = cases[i].status,
                          .body = "{\"error\": \"no: " TOKEN "\"}"}};
        hf_script(&srv, a, 1);
        tg_call_result r;
        call("{\"id\": \"1\"}", &r);
        CHECK(!r.ok && strcmp(code_of(&r), cases[i].code) == 0, "HTTP %d: %s, expected %s (%s)",
              cases[i].status, code_of(&r), cases[i].code, r.guidance.message);
        CHECK(hf_count(&srv) == cases[i].attempts, "HTTP %d: %zu attempts, expected %zu",
              cases[i].status, hf_count(&srv), cases[i].attempts);
        check_no_token(&r, "an error status");
        if (cases[i].status != 302)
            CHECK(strstr(r.guidance.message, ": {\"error\": \"no: ***\"}") != NULL,
                  "HTTP %d: the message quotes the answer, the token masked: %s",
                  cases[i].status, r.guidance.message);
        tg_call_result_free(&r);
    }
    /* a 503 then a success: the retry answers */
    hf_answer a[] = {{.status = 503}, {.body = "{\"data\": {\"name\": \"late\"}}"}};
    hf_script(&srv, a, 2);
    tg_call_result r;
    call("{\"id\": \"1\"}", &r);
    CHECK(r.ok && hf_count(&srv) == 2, "503 then 200: ok after a retry (%s)", code_of(&r));
    tg_call_result_free(&r);
}

static void test_not_idempotent(void)
{
    const char *was = fx.m.idempotency;
    fx.m.idempotency = "non_idempotent";
    hf_answer a[] = {{.status = 503}};
    hf_script(&srv, a, 1);
    tg_call_result r;
    call("{\"id\": \"1\"}", &r);
    CHECK(!r.ok && strcmp(code_of(&r), "UPSTREAM_ERROR") == 0 && hf_count(&srv) == 1,
          "non_idempotent: one attempt only (%zu)", hf_count(&srv));
    tg_call_result_free(&r);
    fx.m.idempotency = was;
}

/* A server that never answers: TIMEOUT at the call's wall clock (1.5 s), retries included. */
static void test_hang(void)
{
    hf_answer a[] = {{.delay_ms = 20000, .body = "{}"}};
    hf_script(&srv, a, 1);
    tg_call_result r;
    double t0 = tg_now_ms();
    call("{\"id\": \"1\"}", &r);
    double ms = tg_now_ms() - t0;
    CHECK(!r.ok && strcmp(code_of(&r), "TIMEOUT") == 0 && r.guidance.cls == TG_CLASS_TIMEOUT,
          "a hang: %s (%s)", code_of(&r), r.guidance.message);
    CHECK(ms >= 1400 && ms < 3000, "ends at the call's timeout (1.5 s): %.0f ms", ms);
    tg_call_result_free(&r);
}

static volatile sig_atomic_t cancel_flag;

static void *cancel_soon(void *ud)
{
    (void)ud;
    usleep(200 * 1000);
    cancel_flag = 1;
    return NULL;
}

/* A call cancelled while its request waits stops at once, not at its timeout. */
static void test_cancel(void)
{
    hf_answer a[] = {{.delay_ms = 20000, .body = "{}"}};
    hf_script(&srv, a, 1);
    cancel_flag = 0;
    long was = fx.m.timeout_ms;
    fx.m.timeout_ms = 8000; /* well past when the cancel must have stopped it */
    cJSON *args = cJSON_Parse("{\"id\": \"1\"}");
    tg_tool_call c = {.m = &fx.m, .input = fx.in, .output = fx.out, .args = args,
                      .cancel = &cancel_flag};
    tg_call_result r;
    tg_err err = {0};
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, NULL);
    double t0 = tg_now_ms();
    CHECK(tg_tool_call_run(&fx.env.ctx, &c, &r, &err) == TG_CALL_DONE, "cancel: %s", err.msg);
    double ms = tg_now_ms() - t0;
    pthread_join(th, NULL);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_CANCELLED, "cancelled: %s",
          tg_error_class_name(r.guidance.cls));
    /* curl looks at the flag at least once a second while it waits */
    CHECK(ms < 3000, "stops soon after the cancel, not at the 8 s timeout: %.0f ms", ms);
    fx.m.timeout_ms = was;
    tg_call_result_free(&r);
    cJSON_Delete(args);
}

/* A redirect to another host is not followed: the other host sees nothing, token or not. */
static void test_redirect(void)
{
    hf_server other;
    SETUP(hf_start(&other) == 0, "a second server");
    hf_answer fine[] = {{.body = "{\"data\": {\"name\": \"elsewhere\"}}"}};
    hf_script(&other, fine, 1);
    char loc[128];
    snprintf(loc, sizeof loc, "Location: http://localhost:%d/steal\r\n", other.port);
    hf_answer a[] = {{.status = 302, .headers = loc}};
    hf_script(&srv, a, 1);
    tg_call_result r;
    call("{\"id\": \"1\"}", &r);
    CHECK(!r.ok && strcmp(code_of(&r), "UPSTREAM_ERROR") == 0 &&
              r.guidance.cls == TG_CLASS_HTTP_FAILED, "a redirect: %s", r.guidance.message);
    CHECK(hf_count(&other) == 0, "the other host got no request (and no token)");
    tg_call_result_free(&r);
    hf_stop(&other);
}

static void test_echo_masked_and_cap(void)
{
    hf_answer a[] = {{.body = "{\"data\": {\"name\": \"n\", \"echo\": \"Bearer " TOKEN "\"}}"}};
    hf_script(&srv, a, 1);
    tg_call_result r;
    call("{\"id\": \"1\"}", &r);
    CHECK(r.ok && strcmp(tg_json_get_string(r.result, "echo"), "Bearer ***") == 0,
          "an echoed token is masked: %s", r.ok ? tg_json_get_string(r.result, "echo") : "");
    check_no_token(&r, "an echo");
    tg_call_result_free(&r);

    hf_answer big[] = {{.big = 64 * 1024}};
    hf_script(&srv, big, 1);
    call("{\"id\": \"1\"}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_OUTPUT_LIMIT, "64 KiB over output_kb 4: %s",
          r.guidance.message);
    tg_call_result_free(&r);

    hf_answer notobj[] = {{.body = "{\"data\": [1, 2]}"}};
    hf_script(&srv, notobj, 1);
    call("{\"id\": \"1\"}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_INVALID_RESULT, "no object at /data: %s",
          r.guidance.message);
    tg_call_result_free(&r);

    hf_answer badout[] = {{.body = "{\"data\": {\"name\": 3}}"}};
    hf_script(&srv, badout, 1);
    call("{\"id\": \"1\"}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_OUTPUT_SCHEMA, "held to output_schema: %s",
          r.guidance.message);
    tg_call_result_free(&r);
}

static void test_credential_and_origin(void)
{
    unsetenv("TG_TEST_HTTP_TOKEN");
    hf_answer a[] = {{.body = "{\"data\": {\"name\": \"n\"}}"}};
    hf_script(&srv, a, 1);
    tg_call_result r;
    call("{\"id\": \"1\"}", &r);
    CHECK(!r.ok && strcmp(code_of(&r), "UNAUTHORIZED") == 0 &&
              r.guidance.cls == TG_CLASS_CREDENTIAL_MISSING && hf_count(&srv) == 0,
          "no token: UNAUTHORIZED, nothing sent (%s)", r.guidance.message);
    CHECK_CONTAINS(r.guidance.message, "TG_TEST_HTTP_TOKEN");
    CHECK(!r.ran, "no token: the envelope says nothing ran");
    tg_call_result_free(&r);
    setenv("TG_TEST_HTTP_TOKEN", TOKEN, 1);

    /* the operator's origin override sends the call (and the token) to another service */
    hf_server other;
    SETUP(hf_start(&other) == 0, "a second server");
    hf_script(&other, a, 1);
    hf_script(&srv, a, 1);
    char origin[64];
    snprintf(origin, sizeof origin, "http://127.0.0.1:%d", other.port);
    setenv("TOOLGEN_HTTP_ORIGIN_PROBE", origin, 1);
    call("{\"id\": \"9\"}", &r);
    CHECK(r.ok && hf_count(&other) == 1 && hf_count(&srv) == 0 &&
              strncmp(other.seen[0].target, "/v1/items/9", 11) == 0,
          "TOOLGEN_HTTP_ORIGIN_PROBE: the path goes to the override (%s)", r.guidance.message);
    tg_call_result_free(&r);
    static const char *const refused[] = {"http://example.com", "http://localhost.example.com",
                                          "http://127.0.0.1.example.com:80", "ftp://127.0.0.1",
                                          "https://host/path", "https://user@host"};
    cJSON *args = cJSON_Parse("{\"id\": \"1\"}");
    tg_tool_call c = {.m = &fx.m, .input = fx.in, .output = fx.out, .args = args};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        setenv("TOOLGEN_HTTP_ORIGIN_PROBE", refused[i], 1);
        tg_err err = {0};
        CHECK(tg_tool_call_run(&fx.env.ctx, &c, &r, &err) == TG_CALL_UNSUPPORTED &&
                  strstr(err.msg, "TOOLGEN_HTTP_ORIGIN_PROBE"),
              "override %s is refused: %s", refused[i], err.msg);
        tg_call_result_free(&r);
    }
    CHECK(hf_count(&srv) == 0 && hf_count(&other) == 1, "nothing sent for a refused override");
    cJSON_Delete(args);
    unsetenv("TOOLGEN_HTTP_ORIGIN_PROBE");
    hf_stop(&other);
}

/* POST: the body from its template (values of any type where a string is one placeholder, an
 * absent one left out), the credential in its own header, the text answer, and no retry. */
static void test_post(void)
{
    fixture pf = {0};
    char dir[80];
    snprintf(dir, sizeof dir, "%s-post", repo_dir);
    char *manifest = xasprintf(post_fmt, srv.port);
    if (fixture_open(&pf, dir, manifest, "") != 0) {
        free(manifest);
        return;
    }
    hf_answer a[] = {{.status = 201, .body = "created"}};
    hf_script(&srv, a, 1);
    cJSON *args = cJSON_Parse("{\"id\": \"w\\\"1\", \"tags\": [\"a\", \"b\"]}");
    tg_tool_call c = {.m = &pf.m, .input = pf.in, .output = pf.out, .args = args};
    tg_call_result r;
    tg_err err = {0};
    CHECK(tg_tool_call_run(&pf.env.ctx, &c, &r, &err) == TG_CALL_DONE, "post: %s", err.msg);
    CHECK(r.ok && strcmp(tg_json_get_string(r.result, "text"), "created") == 0,
          "201 with a text answer: %s", r.guidance.message);
    hf_seen *s = &srv.seen[0];
    CHECK(strcmp(s->method, "POST") == 0 && strcmp(s->target, "/v1/items") == 0, "%s %s",
          s->method, s->target);
    CHECK(strcmp(s->body, "{\"item\":{\"name\":\"w\\\"1\",\"tags\":[\"a\",\"b\"]},"
                          "\"note\":\"id w\\\"1\"}") == 0,
          "the body: values as JSON, the absent count left out: %s", s->body);
    CHECK(hf_header(s, "Content-Type") && strcmp(hf_header(s, "Content-Type"),
                                                 "application/json") == 0, "JSON body");
    CHECK(hf_header(s, "X-Api-Key") && strcmp(hf_header(s, "X-Api-Key"), TOKEN) == 0 &&
              !hf_header(s, "Authorization"), "auth.type header: the secret in X-Api-Key");
    tg_call_result_free(&r);

    hf_answer down[] = {{.status = 503}};
    hf_script(&srv, down, 1);
    CHECK(tg_tool_call_run(&pf.env.ctx, &c, &r, &err) == TG_CALL_DONE && !r.ok &&
              hf_count(&srv) == 1, "POST is not retried, idempotent tool or not (%zu)",
          hf_count(&srv));
    tg_call_result_free(&r);
    cJSON_Delete(args);
    fixture_close(&pf);
    free(manifest);
    char *cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    free(cmd);
}

int main(void)
{
    snprintf(repo_dir, sizeof repo_dir, "/tmp/tg-rthttp-%ld", (long)getpid());
    SETUP(hf_start(&srv) == 0, "the loopback server");
    setenv("TG_TEST_HTTP_TOKEN", TOKEN, 1);
    char *manifest = xasprintf(manifest_fmt, srv.port);
    if (fixture_open(&fx, repo_dir, manifest, "") == 0) {
        test_success_and_request();
        test_path_injection();
        test_statuses();
        test_not_idempotent();
        test_hang();
        test_cancel();
        test_redirect();
        test_echo_masked_and_cap();
        test_credential_and_origin();
        fixture_close(&fx);
        test_post();
    }
    free(manifest);
    hf_stop(&srv);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", repo_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", repo_dir);
    return tl_finish("rt_http");
}
