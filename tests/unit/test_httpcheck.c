/* test_httpcheck.c — the socket-free checks of Streamable HTTP (serve/httpcheck.h), the routes
 * of instances behind a load balancer (serve/forward.h) and the worker pool (serve/pool.h). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/json.h"
#include "serve/forward.h"
#include "serve/httpcheck.h"
#include "serve/pool.h"
#include "serve/replay.h"
#include "testlib.h"

static cJSON *parse(const char *text)
{
    tg_err err = {0};
    cJSON *v = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    SETUP(v, "parses: %s: %s", text, err.msg);
    return v;
}

static void test_host_origin(void)
{
    const char *yes[] = {"localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:443"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        CHECK(tg_http_host_is_loopback(yes[i]), "loopback host %s", yes[i]);
    const char *no[] = {"evil.example.com", "localhost.evil.com", "127.0.0.1.nip.io", "127.0.0.1:",
                        "127.0.0.1:80x", "[::1", "", "10.0.0.1:80"};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        CHECK(!tg_http_host_is_loopback(no[i]), "not a loopback host: %s", no[i]);
    CHECK(!tg_http_host_is_loopback(NULL), "no Host header");

    const char *allowed[] = {"https://app.example.com", NULL};
    CHECK(tg_http_origin_allowed(NULL, NULL), "no Origin: not a browser");
    CHECK(tg_http_origin_allowed("http://localhost:3000", NULL), "a loopback origin");
    CHECK(tg_http_origin_allowed("https://127.0.0.1", NULL), "https loopback");
    CHECK(tg_http_origin_allowed("http://[::1]:8080/", NULL), "v6 loopback, trailing slash");
    CHECK(tg_http_origin_allowed("https://app.example.com", allowed), "an allowed origin");
    CHECK(!tg_http_origin_allowed("https://app.example.com.evil.com", allowed), "prefix only");
    CHECK(!tg_http_origin_allowed("http://evil.example.com", allowed), "a foreign origin");
    CHECK(!tg_http_origin_allowed("null", NULL), "the opaque origin");
    CHECK(!tg_http_origin_allowed("file://localhost", NULL), "another scheme");
}

#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
             "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* checks headers against a tools/call of "get_weather"; want: NULL (accepted) or a substring of
 * the HeaderMismatch message */
static void headers_case(const char *version, const char *method, const char *name, const char *want)
{
    cJSON *msg = parse("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"get_weather\"," META "}}");
    cJSON *bad = tg_http_check_headers(msg, version, method, name);
    if (!want) {
        CHECK(!bad, "accepted: %s / %s / %s", version, method, name);
    } else {
        const cJSON *e = cJSON_GetObjectItem(bad, "error");
        CHECK(e && cJSON_GetObjectItem(e, "code")->valueint == TG_RPC_HEADER_MISMATCH,
              "HeaderMismatch for %s / %s / %s", version, method, name);
        CHECK(cJSON_GetObjectItem(bad, "id") && cJSON_GetObjectItem(bad, "id")->valueint == 3,
              "the error carries the request's id");
        CHECK_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")), want);
    }
    cJSON_Delete(bad);
    cJSON_Delete(msg);
}

static void test_headers(void)
{
    headers_case("2026-07-28", "tools/call", "get_weather", NULL);
    headers_case(" 2026-07-28 ", "tools/call ", " get_weather", NULL);
    headers_case("2026-07-28", "tools/call", "=?base64?Z2V0X3dlYXRoZXI=?=", NULL);
    headers_case(NULL, "tools/call", "get_weather", "MCP-Protocol-Version header is required");
    headers_case("2025-11-25", "tools/call", "get_weather", "does not match body value '2026-07-28'");
    headers_case("2026-07-28", NULL, "get_weather", "Mcp-Method header is required");
    headers_case("2026-07-28", "tools/list", "get_weather", "Mcp-Method header value 'tools/list'");
    headers_case("2026-07-28", "TOOLS/CALL", "get_weather", "Mcp-Method header value");
    headers_case("2026-07-28", "tools/call", NULL, "Mcp-Name header is required");
    headers_case("2026-07-28", "tools/call", "other", "Mcp-Name header value 'other'");
    headers_case("2026-07-28", "tools/call", "=?base64?b3RoZXI=?=", "does not match");
    headers_case("2026-07-28", "tools/call", "=?base64?!!!?=", "does not match");

    /* methods without a name need no Mcp-Name; resources/read compares the uri */
    cJSON *list = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META "}}");
    cJSON *bad = tg_http_check_headers(list, "2026-07-28", "tools/list", NULL);
    CHECK(!bad, "tools/list needs no Mcp-Name");
    cJSON_Delete(bad);
    cJSON_Delete(list);
    cJSON *read = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{"
                        "\"uri\":\"toolgen://x\"," META "}}");
    bad = tg_http_check_headers(read, "2026-07-28", "resources/read", "toolgen://x");
    CHECK(!bad, "resources/read: Mcp-Name is the uri");
    cJSON_Delete(bad);
    bad = tg_http_check_headers(read, "2026-07-28", "resources/read", "toolgen://y");
    CHECK(bad, "resources/read: another uri is refused");
    cJSON_Delete(bad);
    CHECK(tg_http_is_modern(read), "a request with the _meta version is 2026-07-28");
    cJSON_Delete(read);
    /* the tasks extension's methods compare the taskId */
    for (const char *const *m = (const char *const[]){"tasks/get", "tasks/update", "tasks/cancel",
                                                       NULL}; *m; m++) {
        char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{"
                               "\"taskId\":\"t1\"," META "}}", *m);
        cJSON *task = parse(text);
        free(text);
        bad = tg_http_check_headers(task, "2026-07-28", *m, "t1");
        CHECK(!bad, "%s: Mcp-Name is the taskId", *m);
        cJSON_Delete(bad);
        bad = tg_http_check_headers(task, "2026-07-28", *m, "t2");
        CHECK(bad, "%s: another taskId is refused", *m);
        cJSON_Delete(bad);
        bad = tg_http_check_headers(task, "2026-07-28", *m, NULL);
        CHECK(bad, "%s: Mcp-Name is required", *m);
        cJSON_Delete(bad);
        cJSON_Delete(task);
    }
    cJSON *legacy = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK(!tg_http_is_modern(legacy), "a request without it is legacy");
    cJSON_Delete(legacy);
}

/* Mcp-Param-{Name}: the header a parameter marked x-mcp-header needs, compared with the body
 * after strict Base64 decoding; bad characters, broken Base64, a missing or a stray header
 * are HeaderMismatch. */
typedef struct hdrs {
    const char *name, *value;
} hdrs;

static const char *get_header(void *ctx, const char *name)
{
    const hdrs *h = ctx;
    return h->name && strcasecmp(h->name, name) == 0 ? h->value : NULL;
}

static void param_case(const char *args, const char *value, const char *needle)
{
    char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                           "\"name\":\"t\",\"arguments\":%s}}", args);
    cJSON *msg = tg_json_parse(text, strlen(text), NULL, NULL, NULL, NULL);
    cJSON *specs = parse("[{\"header\":\"Region\",\"path\":[\"where\",\"region\"]}]");
    hdrs h = {value ? "mcp-param-region" : NULL, value};
    cJSON *bad = tg_http_check_params(msg, specs, get_header, &h);
    const char *m = cJSON_GetStringValue(tg_json_get(tg_json_get(bad, "error"), "message"));
    if (needle)
        CHECK(bad && tg_json_get_number(tg_json_get(bad, "error"), "code", 0) == -32020 &&
                  m && strstr(m, needle), "%s / %s: expected '%s', got %s", args,
              value ? value : "(none)", needle, m ? m : "no error");
    else
        CHECK(!bad, "%s / %s: accepted, got %s", args, value ? value : "(none)", m);
    cJSON_Delete(bad);
    cJSON_Delete(specs);
    cJSON_Delete(msg);
    free(text);
}

static void test_params(void)
{
    param_case("{\"where\":{\"region\":\"us-west1\"}}", "us-west1", NULL);
    param_case("{\"where\":{\"region\":\"Hello\"}}", "=?base64?SGVsbG8=?=", NULL);
    param_case("{\"where\":{\"region\":\"SGVsbG8=\"}}", "SGVsbG8=", NULL); /* literal */
    param_case("{\"where\":{\"region\":\"=?base64?SGVsbG8=\"}}", "=?base64?SGVsbG8=", NULL);
    param_case("{\"where\":{\"region\":\"Hello\"}}", "=?base64?SGVsbG8?=", "broken Base64");
    param_case("{\"where\":{\"region\":\"Hello\"}}", "=?base64?SGVs!!!bG8=?=", "broken Base64");
    param_case("{\"where\":{\"region\":\"a\"}}", "a\x01", "characters");
    param_case("{\"where\":{\"region\":\"us-west1\"}}", NULL, "is required");
    param_case("{\"where\":{\"region\":\"us-west1\"}}", "eu-west1", "does not match");
    param_case("{\"where\":{}}", "eu-west1", "does not match");
    param_case("{\"where\":{}}", NULL, NULL);
    param_case("{\"where\":{\"region\":7}}", "7", NULL);
    param_case("{\"where\":{\"region\":true}}", "true", NULL);
}

/* The events kept for resuming a legacy stream (serve/replay.h): ids per stream, the events
 * after one, streams giving way when too many are kept, a stream over its bytes lost. */
/* A route names an instance's URL only under the key the instances share; altered, signed under
 * another key, or by a process of its own, it names nothing (so nothing is sent anywhere). */
static void test_route(void)
{
    tg_serve_mrtr m = {0}, other = {0}, alone = {0};
    tg_err err = {0};
    SETUP(tg_serve_mrtr_init_shared(&m, "a-shared-secret-of-more-than-32-characters", &err) == 0 &&
              tg_serve_mrtr_init_shared(&other, "another-secret-of-more-than-32-characters", &err) == 0 &&
              tg_serve_mrtr_init(&alone, &err) == 0, "keys: %s", err.msg);
    const char *url = "http://10.0.0.11:8080/mcp";
    char *route = tg_serve_route_make(&m, url);
    char *got = tg_serve_route_url(&m, route, NULL);
    CHECK(got && strcmp(got, url) == 0, "the URL a route names: %s", got ? got : "(none)");
    free(got);
    CHECK(!tg_serve_route_url(&m, route, url), "its own URL: nothing to relay");
    CHECK(!tg_serve_route_url(&other, route, NULL), "another key: no URL");
    char *alone_route = tg_serve_route_make(&alone, url);
    CHECK(!tg_serve_route_url(&alone, alone_route, NULL), "a key of one process: no URL");
    free(alone_route);
    char *tampered = xstrdup(route);
    size_t n = strlen(tampered);
    tampered[n - 4] = tampered[n - 4] == '0' ? '1' : '0'; /* a digit of the URL */
    CHECK(!tg_serve_route_url(&m, tampered, NULL), "an altered route: no URL");
    free(tampered);
    char *file = tg_serve_route_make(&m, "file:///etc/passwd");
    CHECK(!tg_serve_route_url(&m, file, NULL), "a signed URL of another scheme: none");
    free(file);
    char *text = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                           "{\"name\":\"python_execute\",\"arguments\":{\"session_id\":"
                           "\"sess_3fa2c1d0_5b1f0000000000000000000000000000.%s\"}}}", route);
    cJSON *msg = parse(text);
    got = tg_serve_route_of(&m, msg, "http://10.0.0.12:8080/mcp");
    CHECK(got && strcmp(got, url) == 0, "a call whose handle names another instance");
    free(got);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "params"), "arguments"),
                              "session_id", cJSON_CreateString("sess_3fa2c1d0_5b1f"));
    CHECK(!tg_serve_route_of(&m, msg, NULL), "a handle without a route: this instance's");
    cJSON_Delete(msg);
    free(text);
    free(route);
}

static void test_replay(void)
{
    tg_replays rs = {0};
    tg_replay_stream *a = tg_replay_open(&rs, true), *b = tg_replay_open(&rs, false);
    cJSON *m = parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}");
    char *t1 = tg_replay_event(a, m), *t2 = tg_replay_event(a, m), *t3 = tg_replay_event(b, m);
    CHECK(strncmp(t1, "id: 1-1\nevent: message\ndata: {", 30) == 0 && strncmp(t2, "id: 1-2\n", 8) == 0 &&
              strncmp(t3, "id: 2-1\n", 8) == 0, "ids per stream: %s", t1);
    char *after = NULL;
    CHECK(tg_replay_find(&rs, "1-1", &after) == a && strcmp(after, t2) == 0,
          "the events after an id, on its stream");
    free(after);
    CHECK(tg_replay_find(&rs, "1-2", &after) == a && strcmp(after, "") == 0, "none after the last");
    free(after);
    CHECK(!tg_replay_find(&rs, "1-3", &after) && !tg_replay_find(&rs, "9-1", &after) &&
              !tg_replay_find(&rs, "x", &after) && !tg_replay_find(&rs, "1-1x", &after),
          "unknown ids");
    CHECK(tg_replay_is_call(a) && !tg_replay_is_call(b) && !tg_replay_ended(a), "kinds");
    free(t1);
    free(t2);
    free(t3);
    /* a stream past its bytes can no longer be resumed */
    char *big = xmalloc(TG_REPLAY_BYTES);
    memset(big, 'a', TG_REPLAY_BYTES - 1);
    big[TG_REPLAY_BYTES - 1] = '\0';
    cJSON *bm = cJSON_CreateString(big);
    free(tg_replay_event(b, bm));
    CHECK(!tg_replay_find(&rs, "2-1", &after), "lost past its bytes");
    cJSON_Delete(bm);
    free(big);
    /* at most TG_REPLAY_STREAMS: ended ones nobody holds give way; held ones do not */
    tg_replay_end(a);
    tg_replay_release(a);
    for (int i = 2; i < TG_REPLAY_STREAMS; i++)
        CHECK(tg_replay_open(&rs, false), "stream %d", i);
    CHECK(tg_replay_open(&rs, false) && !tg_replay_find(&rs, "1-1", &after),
          "the oldest ended stream gave way");
    CHECK(!tg_replay_open(&rs, false), "every other one held: no room");
    tg_replays_free(&rs);
    /* behind a load balancer the ids carry the instance's route; whose it is, the caller says */
    tg_replays tagged = {.tag = "9c4e"};
    tg_replay_stream *c = tg_replay_open(&tagged, true);
    char *t4 = tg_replay_event(c, m);
    CHECK(strncmp(t4, "id: 1-1.9c4e\nevent: message\n", 28) == 0, "a tagged id: %s", t4);
    CHECK(tg_replay_find(&tagged, "1-1.9c4e", &after) == c && strcmp(after, "") == 0,
          "found by its tagged id");
    free(after);
    CHECK(!tg_replay_find(&tagged, "1-1x9c4e", &after), "no other tail");
    free(t4);
    tg_replays_free(&tagged);
    cJSON_Delete(m);
}

static void test_status(void)
{
    struct { int code; tg_serve_era era; unsigned want; } v[] = {
        {TG_RPC_PARSE_ERROR, TG_ERA_NONE, 400},          {TG_RPC_INVALID_REQUEST, TG_ERA_LEGACY, 400},
        {TG_RPC_HEADER_MISMATCH, TG_ERA_MODERN, 400},    {TG_RPC_UNSUPPORTED_VERSION, TG_ERA_MODERN, 400},
        {TG_RPC_METHOD_NOT_FOUND, TG_ERA_MODERN, 404},   {TG_RPC_METHOD_NOT_FOUND, TG_ERA_LEGACY, 200},
        {TG_RPC_INVALID_PARAMS, TG_ERA_MODERN, 200},     {TG_RPC_INTERNAL_ERROR, TG_ERA_LEGACY, 200},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        cJSON *e = tg_serve_error_reply(NULL, v[i].code, "x");
        CHECK(tg_http_status_of(e, v[i].era) == v[i].want, "status of %d", v[i].code);
        cJSON_Delete(e);
    }
    cJSON *ok = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    CHECK(tg_http_status_of(ok, TG_ERA_MODERN) == 200, "a result is 200");
    cJSON_Delete(ok);
}

/* ---- the pool: jobs overlap up to the bound, and all of them run ------------------------------ */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int running, peak, done;
static bool release;

static void job(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    running++;
    if (running > peak)
        peak = running;
    pthread_cond_broadcast(&cv);
    while (!release) /* held until the test has seen the bound reached */
        pthread_cond_wait(&cv, &mu);
    running--;
    done++;
    pthread_mutex_unlock(&mu);
}

static void test_pool(void)
{
    tg_err err = {0};
    tg_serve_pool *p = tg_serve_pool_start(3, &err);
    CHECK(p, "pool: %s", err.msg);
    if (!p)
        return;
    for (int i = 0; i < 10; i++)
        tg_serve_pool_submit(p, job, NULL);
    pthread_mutex_lock(&mu);
    while (running < 3)
        pthread_cond_wait(&cv, &mu);
    CHECK(running == 3, "three jobs run at once (%d)", running);
    pthread_mutex_unlock(&mu);
    CHECK(tg_serve_pool_busy(p) == 10, "ten jobs queued or running (%zu)", tg_serve_pool_busy(p));
    pthread_mutex_lock(&mu);
    release = true;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    tg_serve_pool_stop(p);
    CHECK(done == 10, "every job ran (%d)", done);
    CHECK(peak == 3, "never more than the bound (%d)", peak);
}

/* The bearer token: exact, scheme in any case, nothing else; loopback binds. */
static void test_auth(void)
{
    const char *tok = "0123456789abcdef-token";
    CHECK(tg_http_bearer_ok("Bearer 0123456789abcdef-token", tok), "the token");
    CHECK(tg_http_bearer_ok("bearer  0123456789abcdef-token", tok), "scheme in any case, spaces");
    CHECK(!tg_http_bearer_ok("Bearer 0123456789abcdef-tokeN", tok), "one character off");
    CHECK(!tg_http_bearer_ok("Bearer 0123456789abcdef-toke", tok), "a prefix");
    CHECK(!tg_http_bearer_ok("Bearer 0123456789abcdef-token2", tok), "longer");
    CHECK(!tg_http_bearer_ok("Bearer ", tok), "empty");
    CHECK(!tg_http_bearer_ok("Basic 0123456789abcdef-token", tok), "another scheme");
    CHECK(!tg_http_bearer_ok("0123456789abcdef-token", tok), "no scheme");
    CHECK(!tg_http_bearer_ok(NULL, tok), "no header");
    CHECK(tg_http_bind_is_loopback(NULL) && tg_http_bind_is_loopback("127.0.0.1") &&
              tg_http_bind_is_loopback("::1") && tg_http_bind_is_loopback("localhost"),
          "loopback binds");
    CHECK(!tg_http_bind_is_loopback("0.0.0.0") && !tg_http_bind_is_loopback("::") &&
              !tg_http_bind_is_loopback("192.168.1.5") && !tg_http_bind_is_loopback("example.org"),
          "binds others can reach");
}

int main(void)
{
    test_auth();
    test_host_origin();
    test_headers();
    test_params();
    test_replay();
    test_route();
    test_status();
    test_pool();
    return tl_finish("test_httpcheck");
}
