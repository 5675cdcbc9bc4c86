/*
 * test_mrtr.c — SHA-256 and HMAC-SHA-256 against their published test vectors (FIPS 180-2,
 * RFC 4231), and the requestState of serve/mrtr.h: sealed and opened, refused when altered,
 * foreign, expired or not ours; the argument digest independent of member order.
 */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/sha256.h"
#include "serve/mrtr.h"
#include "serve/toolcall.h"
#include "testlib.h"

static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void expect_sha(const char *in, size_t len, const char *want)
{
    unsigned char d[TG_SHA256_LEN];
    char h[65];
    tg_sha256(in, len, d);
    hex(d, sizeof d, h);
    CHECK(strcmp(h, want) == 0, "sha256(%.20s...) = %s", in, h);
}

static void expect_hmac(const void *key, size_t klen, const char *data, const char *want)
{
    unsigned char d[TG_SHA256_LEN];
    char h[65];
    tg_hmac_sha256(key, klen, data, strlen(data), d);
    hex(d, sizeof d, h);
    CHECK(strcmp(h, want) == 0, "hmac(%.20s) = %s", data, h);
}

static void test_vectors(void)
{
    expect_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    expect_sha(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    expect_sha(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
    /* RFC 4231 test cases 1, 2 and 6 (a key longer than the block) */
    unsigned char k1[20];
    memset(k1, 0x0b, sizeof k1);
    expect_hmac(k1, sizeof k1, "Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    expect_hmac("Jefe", 4, "what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    unsigned char k6[131];
    memset(k6, 0xaa, sizeof k6);
    expect_hmac(k6, sizeof k6, "Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    CHECK(tg_mem_equal_ct("abc", "abc", 3) && !tg_mem_equal_ct("abc", "abd", 3), "compare");
}

static cJSON *parse(const char *text)
{
    return tg_json_parse(text, strlen(text), NULL, NULL, NULL, NULL);
}

static void expect_refused(const tg_serve_mrtr *m, const char *state, time_t now, const char *why)
{
    char msg[256] = "";
    cJSON *p = tg_serve_mrtr_open(m, state, now, msg, sizeof msg);
    CHECK(!p, "refused: %s", state);
    CHECK(strstr(msg, why), "expected \"%s\" in \"%s\"", why, msg);
    cJSON_Delete(p);
}

static void test_state(void)
{
    tg_serve_mrtr m, other;
    tg_err err = {0};
    CHECK(tg_serve_mrtr_init(&m, &err) == 0 && tg_serve_mrtr_init(&other, &err) == 0, "%s", err.msg);
    CHECK(memcmp(m.key, other.key, sizeof m.key) != 0, "each server draws its own key");
    cJSON *payload = parse("{\"tool\":\"t\",\"answers\":{\"k\":\"v\"},\"exp\":2000}");
    char *state = tg_serve_mrtr_seal(&m, payload);
    char msg[256] = "";
    cJSON *back = tg_serve_mrtr_open(&m, state, 1000, msg, sizeof msg);
    CHECK(back && cJSON_Compare(back, payload, true), "a sealed state opens: %s", msg);
    cJSON_Delete(back);
    expect_refused(&other, state, 1000, "failed verification");
    expect_refused(&m, state, 2001, "expired");
    size_t n = strlen(state);
    for (size_t i = 4; i < n; i += 7) { /* every 7th character altered, MAC and payload */
        char *t = xstrdup(state);
        if (t[i] != '.') {
            t[i] = t[i] == 'a' ? 'b' : 'a';
            expect_refused(&m, t, 1000, "");
        }
        free(t);
    }
    expect_refused(&m, "", 1000, "not one this server issued");
    expect_refused(&m, "tg1.zz", 1000, "not one this server issued");
    char *shorter = xstrndup(state, n - 2); /* a truncated payload */
    expect_refused(&m, shorter, 1000, "failed verification");
    free(shorter);
    char *odd = xstrndup(state, n - 1);
    expect_refused(&m, odd, 1000, "failed verification");
    free(odd);
    free(state);
    cJSON_Delete(payload);

    cJSON *a = parse("{\"b\":1,\"a\":{\"y\":[1,\"x\"],\"x\":null}}");
    cJSON *b = parse("{\"a\":{\"x\":null,\"y\":[1,\"x\"]},\"b\":1}");
    cJSON *c = parse("{\"a\":{\"x\":null,\"y\":[\"x\",1]},\"b\":1}");
    char *da = tg_serve_mrtr_digest(a), *db = tg_serve_mrtr_digest(b), *dc = tg_serve_mrtr_digest(c);
    CHECK(strlen(da) == 64 && strcmp(da, db) == 0, "the digest ignores member order");
    CHECK(strcmp(da, dc) != 0, "the digest sees array order");
    free(da);
    free(db);
    free(dc);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
}

/* Questions (serve/mrtr.h's parts): what the client is shown is rebuilt from the tool's
 * question with only what MCP defines; a client without the capabilities gets -32021 naming
 * them; the retry's answers: an accepted form's field or content, the sampling result, the
 * roots; a declined form is a tool error; an unanswered question stays unanswered. */
static void test_questions(void)
{
    tg_serve_mrtr m;
    tg_err err = {0};
    CHECK(tg_serve_mrtr_init(&m, &err) == 0, "%s", err.msg);
    cJSON *qs = parse("[{\"key\":\"who\",\"field\":\"who\",\"method\":\"elicitation/create\","
                      "\"params\":{\"message\":\"Who?\",\"extra\":1,\"requestedSchema\":{\"type\":\"object\","
                      "\"properties\":{\"who\":{\"type\":\"string\",\"pattern\":\"x\",\"default\":\"me\"}},"
                      "\"required\":[\"who\",\"ghost\"]}}},"
                      "{\"key\":\"s\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],"
                      "\"maxTokens\":5,\"includeContext\":\"allServers\"}},"
                      "{\"key\":\"r\",\"method\":\"roots/list\",\"params\":{\"x\":1}}]");
    cJSON *args = parse("{\"a\":1}"), *none = parse("{}");
    tg_serve_outcome o = {0};
    tg_serve_mrtr_need(&m, "t", TG_CLIENT_ELICITS, args, none, qs, &o);
    char *data = o.rpc_data ? tg_json_print_compact(o.rpc_data) : xstrdup("");
    CHECK(o.rpc_error == -32021 && !o.result &&
              strcmp(data, "{\"requiredCapabilities\":{\"sampling\":{},\"roots\":{}}}") == 0,
          "missing capabilities: -32021 naming them (%s)", data);
    CHECK_CONTAINS(o.msg, "sampling and roots");
    free(data);
    cJSON_Delete(o.rpc_data);
    o = (tg_serve_outcome){0};
    tg_serve_mrtr_need(&m, "t", TG_CLIENT_ELICITS | TG_CLIENT_SAMPLES | TG_CLIENT_ROOTS, args, none,
                       qs, &o);
    char *got = tg_json_print_compact(tg_json_get(o.result, "inputRequests"));
    CHECK(strcmp(got, "{\"who\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\","
                      "\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":"
                      "{\"who\":{\"type\":\"string\",\"default\":\"me\"}},\"required\":[\"who\"]}}},"
                      "\"s\":{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],"
                      "\"maxTokens\":5}},\"r\":{\"method\":\"roots/list\",\"params\":{}}}") == 0,
          "the requests hold only what MCP defines: %s", got);
    free(got);
    const char *state = tg_json_get_string(o.result, "requestState");
    char *text = xasprintf("{\"requestState\":\"%s\",\"inputResponses\":{"
                           "\"who\":{\"action\":\"accept\",\"content\":{\"who\":\"Ann\"}},"
                           "\"s\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hi\"},"
                           "\"model\":\"m\"}}}", state);
    cJSON *params = parse(text);
    tg_serve_outcome o2 = {0};
    cJSON *answers = tg_serve_mrtr_retry_answers(&m, "t", NULL, args, params, &o2);
    CHECK(answers && strcmp(tg_json_get_string(answers, "who"), "Ann") == 0 &&
              strcmp(tg_json_get_string(tg_json_get(tg_json_get(answers, "s"), "content"), "text"), "hi") == 0 &&
              !tg_json_get(answers, "r"),
          "the answers: a form's field, the sampling result; roots unanswered");
    cJSON_Delete(answers);
    cJSON_Delete(params);
    free(text);
    text = xasprintf("{\"requestState\":\"%s\",\"inputResponses\":{\"who\":{\"action\":\"decline\"}}}", state);
    params = parse(text);
    o2 = (tg_serve_outcome){0};
    answers = tg_serve_mrtr_retry_answers(&m, "t", NULL, args, params, &o2);
    char *declined = tg_json_print_compact(o2.result);
    CHECK(!answers && o2.code && strstr(declined, "declined the question \\\"Who?\\\""),
          "a declined form is a tool error: %s", declined);
    free(declined);
    cJSON_Delete(o2.result);
    cJSON_Delete(params);
    free(text);
    o2 = (tg_serve_outcome){0};
    params = parse("{\"requestState\":\"tg1.00\"}");
    CHECK(!tg_serve_mrtr_retry_answers(&m, "t", NULL, args, params, &o2) && o2.rpc_error == -32602,
          "a state not ours is -32602");
    cJSON_Delete(params);
    cJSON_Delete(o.result);
    cJSON_Delete(args);
    cJSON_Delete(none);
    cJSON_Delete(qs);
}

/* A key the instances behind a load balancer share (TOOLGEN_SERVE_STATE_KEY): each derives
 * the same; what one signs, the others open; bad secrets are refused, saying why. */
static void test_shared(void)
{
    const char *secret = "0123456789abcdefghijABCDEFGHIJ+/==";
    tg_serve_mrtr a, b, c, mine;
    tg_err err = {0};
    CHECK(tg_serve_mrtr_init_shared(&a, secret, &err) == 0 && a.shared, "%s", err.msg);
    CHECK(tg_serve_mrtr_init_shared(&b, secret, &err) == 0, "%s", err.msg);
    CHECK(tg_serve_mrtr_init_shared(&c, "another-secret-of-enough-characters!", &err) == 0, "%s",
          err.msg);
    CHECK(tg_serve_mrtr_init(&mine, &err) == 0 && !mine.shared, "a random key is not shared");
    CHECK(memcmp(a.key, b.key, sizeof a.key) == 0, "one secret, one key");
    cJSON *payload = parse("{\"tool\":\"t\",\"exp\":2000}");
    char *state = tg_serve_mrtr_seal(&a, payload);
    char msg[256] = "";
    cJSON *back = tg_serve_mrtr_open(&b, state, 1000, msg, sizeof msg);
    CHECK(back && cJSON_Compare(back, payload, true), "another instance opens it: %s", msg);
    cJSON_Delete(back);
    expect_refused(&c, state, 1000, "TOOLGEN_SERVE_STATE_KEY");
    free(state);

    char *tok = tg_serve_mrtr_sign_hex(&a, "session", payload);
    CHECK(strspn(tok, "0123456789abcdef") == strlen(tok), "a token is lowercase hex: %s", tok);
    back = tg_serve_mrtr_open_hex(&b, "session", tok);
    CHECK(back && cJSON_Compare(back, payload, true), "a token opens under the shared key");
    cJSON_Delete(back);
    CHECK(!tg_serve_mrtr_open_hex(&b, "other", tok), "... for its own use only");
    CHECK(!tg_serve_mrtr_open_hex(&c, "session", tok), "... and under its key only");
    CHECK(!tg_serve_mrtr_open_hex(&mine, "session", tok), "... not a random one");
    for (size_t i = 0; tok[i]; i += 5) {
        char *t = xstrdup(tok);
        t[i] = t[i] == 'a' ? 'b' : 'a';
        cJSON *p = tg_serve_mrtr_open_hex(&b, "session", t);
        CHECK(!p, "an altered token is refused (at %zu)", i);
        cJSON_Delete(p);
        free(t);
    }
    CHECK(!tg_serve_mrtr_open_hex(&b, "session", "0123") && !tg_serve_mrtr_open_hex(&b, "session", ""),
          "short tokens are refused");
    free(tok);
    cJSON_Delete(payload);

    CHECK(tg_serve_mrtr_init_shared(&a, "short", &err) != 0 && strstr(err.msg, "fewer than 32"),
          "a short secret: %s", err.msg);
    CHECK(tg_serve_mrtr_init_shared(&a, "0123456789abcdefghij 0123456789abcdefghij", &err) != 0 &&
              strstr(err.msg, "printable ASCII") && !strstr(err.msg, "0123"),
          "a secret with a space (and never its value): %s", err.msg);
}

int main(void)
{
    test_vectors();
    test_state();
    test_shared();
    test_questions();
    return tl_finish("test_mrtr");
}
