/*
 * test_net.c — the HTTP client of net/ against a scripted server on loopback (httpfake.h):
 * methods, statuses and headers, the size cap, timeouts, redirects, the retry policy (which
 * outcomes, how many attempts, the waits asked for, Retry-After in both forms and its cap,
 * idempotency), failures classified, and secrets kept out of every message
 * (docs/architecture.md).
 *
 * The waits between attempts go through the policy's wait hook, which records them and returns
 * at once: the tests count attempts and compare the waits asked for, never the clock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httpfake.h"
#include "net/httpreq.h"
#include "net/redact.h"
#include "net/retry.h"
#include "testlib.h"

static hf_server srv;
static char base[64]; /* http://127.0.0.1:PORT */

static char *url(const char *path)
{
    static char u[256];
    snprintf(u, sizeof u, "%s%s", base, path);
    return u;
}

/* The waits a retry loop asked for, recorded instead of slept. */
static double waits[16];
static int nwaits;

static int record_wait(double ms, void *ud)
{
    (void)ud;
    if (nwaits < 16)
        waits[nwaits] = ms;
    nwaits++;
    return 0;
}

static tg_retry_policy fast_policy(int max_retries)
{
    nwaits = 0;
    return (tg_retry_policy){.max_retries = max_retries, .base_ms = 1, .max_ms = 4,
                             .wait = record_wait};
}

static void test_get_and_headers(void)
{
    hf_answer a[] = {{.headers = "X-Thing: one\r\nX-Other:  two  \r\n", .body = "hello"}};
    hf_script(&srv, a, 1);
    const char *keep[] = {"x-thing", NULL};
    tg_http_header h[] = {{"X-Req", "1", false}, {"X-Empty", "", false}};
    tg_http_request rq = {.method = TG_HTTP_GET, .url = url("/get?a=1"), .headers = h,
                          .nheaders = 2, .timeout_ms = 5000, .keep_headers = keep};
    tg_http_response r;
    tg_err err = {0};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "GET: %s", err.msg);
    CHECK(r.status == 200 && r.len == 5 && strcmp(r.body, "hello") == 0, "GET body: %ld %s",
          r.status, r.body);
    CHECK(r.nheaders == 1, "only the header asked for: %zu", r.nheaders);
    const char *v = tg_http_response_header(&r, "X-THING");
    CHECK(v && strcmp(v, "one") == 0, "case-insensitive lookup: %s", v ? v : "(null)");
    CHECK(r.retry_after_s == -1, "no Retry-After");
    tg_http_response_release(&r);
    CHECK(hf_count(&srv) == 1, "one request");
    hf_seen *s = &srv.seen[0];
    CHECK(strcmp(s->method, "GET") == 0 && strcmp(s->target, "/get?a=1") == 0, "%s %s",
          s->method, s->target);
    CHECK(hf_header(s, "X-Req") && strcmp(hf_header(s, "X-Req"), "1") == 0, "header sent");
    CHECK(hf_header(s, "X-Empty") && !*hf_header(s, "X-Empty"), "an empty header is sent empty");
    CHECK(strcmp(hf_header(s, "User-Agent"), "toolgen") == 0, "user agent");

    hf_script(&srv, a, 1);
    rq.keep_headers = NULL;
    rq.all_headers = true;
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "GET all: %s", err.msg);
    v = tg_http_response_header(&r, "x-other");
    CHECK(v && strcmp(v, "two") == 0, "values trimmed: '%s'", v ? v : "(null)");
    v = tg_http_response_header(&r, "content-length");
    CHECK(v && strcmp(v, "5") == 0, "every header kept");
    CHECK(strcmp(r.headers[0].name, "x-thing") == 0, "names in lower case, in order: %s",
          r.headers[0].name);
    tg_http_response_release(&r);
}

static void test_methods(void)
{
    hf_answer a[] = {{.status = 201, .body = "made"}};
    hf_script(&srv, a, 1);
    tg_http_header h[] = {{"Content-Type", "application/json", false}};
    tg_http_request rq = {.method = TG_HTTP_POST, .url = url("/post"), .headers = h,
                          .nheaders = 1, .body = "{\"a\":1}", .body_len = 7, .timeout_ms = 5000};
    tg_http_response r;
    tg_err err = {0};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK && r.status == 201, "POST: %s",
          err.msg);
    tg_http_response_release(&r);
    hf_seen *s = &srv.seen[0];
    CHECK(strcmp(s->method, "POST") == 0 && s->body_len == 7 &&
              memcmp(s->body, "{\"a\":1}", 7) == 0, "POST body: %s %.*s", s->method,
          (int)s->body_len, s->body);
    CHECK(strcmp(hf_header(s, "Content-Type"), "application/json") == 0, "caller's type");

    /* PUT of bytes with a NUL, no Content-Type given */
    hf_script(&srv, a, 1);
    rq = (tg_http_request){.method = TG_HTTP_PUT, .url = url("/cas/ab"), .body = "x\0y",
                           .body_len = 3, .timeout_ms = 5000};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "PUT: %s", err.msg);
    tg_http_response_release(&r);
    s = &srv.seen[0];
    CHECK(strcmp(s->method, "PUT") == 0 && s->body_len == 3 && memcmp(s->body, "x\0y", 3) == 0,
          "PUT body: %s %zu", s->method, s->body_len);
    CHECK(strcmp(hf_header(s, "Content-Type"), "application/octet-stream") == 0, "bytes");

    /* HEAD: the length of what a GET would send, no body */
    hf_answer big[] = {{.body = "twelve bytes"}};
    hf_script(&srv, big, 1);
    const char *keep[] = {"content-length", NULL};
    rq = (tg_http_request){.method = TG_HTTP_HEAD, .url = url("/cas/ab"), .timeout_ms = 5000,
                           .keep_headers = keep};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "HEAD: %s", err.msg);
    CHECK(r.status == 200 && r.len == 0 && r.body && !*r.body, "HEAD has no body: %zu", r.len);
    CHECK(strcmp(tg_http_response_header(&r, "Content-Length"), "12") == 0, "HEAD length");
    CHECK(strcmp(srv.seen[0].method, "HEAD") == 0, "sent as HEAD");
    tg_http_response_release(&r);

    hf_script(&srv, a, 1);
    rq = (tg_http_request){.method = TG_HTTP_DELETE, .url = url("/x"), .timeout_ms = 5000};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "DELETE: %s", err.msg);
    CHECK(strcmp(srv.seen[0].method, "DELETE") == 0, "sent as DELETE: %s", srv.seen[0].method);
    tg_http_response_release(&r);

    rq = (tg_http_request){.method = TG_HTTP_GET, .url = url("/"), .body = "b", .body_len = 1};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_ERROR, "a GET with a body");
    CHECK_CONTAINS(err.msg, "a GET request has no body");
}

static void test_size_cap(void)
{
    tg_http_request rq = {.method = TG_HTTP_GET, .url = url("/big"), .timeout_ms = 5000,
                          .max_bytes = 1000};
    tg_http_response r;
    tg_err err = {0};
    hf_answer a[] = {{.big = 1000}, {.big = 1001}, {.big = 200000, .no_length = true}};
    hf_script(&srv, a, 3);
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK && r.len == 1000,
          "exactly the cap: %s", err.msg);
    tg_http_response_release(&r);
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_TOO_BIG, "one byte over (by length)");
    CHECK_CONTAINS(err.msg, "the answer is larger than 1000 bytes");
    CHECK(r.body == NULL && r.status == 0, "nothing kept");
    err.msg[0] = 0;
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_TOO_BIG, "over, no length given");
    CHECK_CONTAINS(err.msg, "/big: the answer is larger than 1000 bytes");

    /* headers kept count too: 110 KB of them is too much, whatever the body */
    char *pad = malloc(1000 * 110 + 1), *p = pad;
    for (int i = 0; i < 1000; i++)
        p += sprintf(p, "X-Pad-%04d: %0*d\r\n", i, 94, 0);
    hf_answer padded[] = {{.headers = pad, .body = "small"}};
    hf_script(&srv, padded, 1);
    rq.all_headers = true;
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_TOO_BIG, "headers too big");
    CHECK_CONTAINS(err.msg, "the answer's headers are larger than 65536 bytes");
    hf_script(&srv, padded, 1);
    rq.all_headers = false;
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK && r.nheaders == 0,
          "headers not kept do not count: %s", err.msg);
    tg_http_response_release(&r);
    free(pad);
}

static void test_timeout_and_failures(void)
{
    hf_answer slow[] = {{.delay_ms = 10000, .body = "late"}};
    hf_script(&srv, slow, 1);
    tg_http_request rq = {.method = TG_HTTP_GET, .url = url("/slow"), .timeout_ms = 300};
    tg_http_response r;
    tg_err err = {0};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_TIMEOUT, "timeout: %s", err.msg);
    CHECK_CONTAINS(err.msg, "Timeout was reached");

    char refused[64];
    snprintf(refused, sizeof refused, "http://127.0.0.1:%d/x", hf_closed_port());
    rq = (tg_http_request){.method = TG_HTTP_GET, .url = refused, .timeout_ms = 5000};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_CONNECT, "refused: %s", err.msg);
    CHECK_CONTAINS(err.msg, "Couldn't connect to server");
    CHECK_CONTAINS(err.msg, refused);

    hf_answer drop[] = {{.drop = true}};
    hf_script(&srv, drop, 1);
    rq.url = url("/drop");
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_DROPPED, "dropped: %s", err.msg);

    rq.url = "ftp://127.0.0.1/x";
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_ERROR, "ftp is not spoken");

    tg_http_header bad[] = {{"X-Bad", "a\r\nInjected: yes", true}};
    rq = (tg_http_request){.method = TG_HTTP_GET, .url = url("/"), .headers = bad,
                           .nheaders = 1};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_ERROR, "a header with a line break");
    CHECK_CONTAINS(err.msg, "request header X-Bad");
    CHECK(!strstr(err.msg, "Injected"), "the value is not quoted: %s", err.msg);
}

static void test_redirects(void)
{
    hf_answer a[] = {{.status = 302, .headers = "Location: /final\r\n"},
                     {.headers = "X-Final: yes\r\n", .body = "landed"}};
    hf_script(&srv, a, 2);
    tg_http_request rq = {.method = TG_HTTP_GET, .url = url("/start"), .timeout_ms = 5000,
                          .all_headers = true};
    tg_http_response r;
    tg_err err = {0};
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "not followed: %s", err.msg);
    CHECK(r.status == 302 && tg_http_status_class(r.status) == TG_HTTP_CLASS_REDIRECT,
          "the 3xx is the answer");
    CHECK(strcmp(tg_http_response_header(&r, "location"), "/final") == 0, "Location kept");
    tg_http_response_release(&r);

    hf_script(&srv, a, 2);
    rq.max_redirects = 2;
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK, "followed: %s", err.msg);
    CHECK(r.status == 200 && strcmp(r.body, "landed") == 0, "the final answer: %ld", r.status);
    CHECK(tg_http_response_header(&r, "location") == NULL, "the redirect's headers forgotten");
    CHECK(tg_http_response_header(&r, "x-final") != NULL, "the final headers kept");
    CHECK(hf_count(&srv) == 2 && strcmp(srv.seen[1].target, "/final") == 0, "two requests");
    tg_http_response_release(&r);
}

static void test_retry(void)
{
    tg_http_request rq = {.method = TG_HTTP_GET, .url = url("/r"), .timeout_ms = 5000};
    tg_http_response r;
    tg_retry_report rep;
    tg_err err = {0};
    unsigned rng = 1;

    hf_answer a503[] = {{.status = 503}, {.body = "fine"}};
    hf_script(&srv, a503, 2);
    tg_retry_policy p = fast_policy(3);
    CHECK(tg_http_send(&rq, &p, &rng, &r, &rep, &err) == TG_HTTP_OK, "503 then ok: %s", err.msg);
    CHECK(r.status == 200 && rep.attempts == 2 && !rep.gave_up, "retried once: %ld after %d",
          r.status, rep.attempts);
    CHECK(nwaits == 1 && waits[0] >= 0.5 && waits[0] <= 1, "the backoff: %d waits, %f ms",
          nwaits, waits[0]);
    tg_http_response_release(&r);

    hf_answer after[] = {{.status = 429, .headers = "Retry-After: 2\r\n"}, {.body = "fine"}};
    hf_script(&srv, after, 2);
    p = fast_policy(3);
    CHECK(tg_http_send(&rq, &p, &rng, &r, &rep, &err) == TG_HTTP_OK && r.status == 200,
          "429 then ok: %s", err.msg);
    CHECK(rep.attempts == 2 && nwaits == 1 && waits[0] == 2000,
          "Retry-After (seconds) honoured: %d attempts, waited %f ms", rep.attempts, waits[0]);
    tg_http_response_release(&r);

    /* the HTTP-date form: a date 1000 s ahead is a wait of at most 1000 s; the lower bound
     * leaves 500 s between writing the date and reading it, a bound against a hang only */
    char hdr[128];
    time_t later = time(NULL) + 1000;
    struct tm tm;
    gmtime_r(&later, &tm);
    strftime(hdr, sizeof hdr, "Retry-After: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
    hf_answer dated[] = {{.status = 503, .headers = hdr}, {.body = "fine"}};
    hf_script(&srv, dated, 2);
    p = fast_policy(3);
    p.retry_after_cap_ms = 2000 * 1000;
    CHECK(tg_http_send(&rq, &p, &rng, &r, &rep, &err) == TG_HTTP_OK && rep.attempts == 2,
          "date then ok: %s", err.msg);
    CHECK(nwaits == 1 && waits[0] >= 500 * 1000 && waits[0] <= 1000 * 1000,
          "Retry-After (HTTP-date) honoured: %f ms", waits[0]);
    tg_http_response_release(&r);

    hf_answer forever[] = {{.status = 503, .headers = "Retry-After: 86400\r\n"}};
    hf_script(&srv, forever, 1);
    p = fast_policy(2);
    p.retry_after_cap_ms = 5000;
    CHECK(tg_http_send(&rq, &p, &rng, &r, &rep, &err) == TG_HTTP_OK && r.status == 503,
          "503 to the end: %s", err.msg);
    CHECK(rep.attempts == 3 && rep.gave_up, "gave up after 3: %d", rep.attempts);
    CHECK(nwaits == 2 && waits[0] == 5000 && waits[1] == 5000, "the wait is capped: %f",
          waits[0]);
    tg_http_response_release(&r);

    hf_answer nf[] = {{.status = 404}, {.body = "never"}};
    hf_script(&srv, nf, 2);
    p = fast_policy(3);
    CHECK(tg_http_send(&rq, &p, &rng, &r, &rep, &err) == TG_HTTP_OK && r.status == 404,
          "404: %s", err.msg);
    CHECK(rep.attempts == 1 && !rep.gave_up && nwaits == 0, "a 4xx is not retried: %d",
          rep.attempts);
    CHECK(tg_http_status_class(r.status) == TG_HTTP_CLASS_CLIENT_ERROR, "404 class");
    tg_http_response_release(&r);

    hf_answer drop[] = {{.drop = true}, {.body = "fine"}};
    hf_script(&srv, drop, 2);
    p = fast_policy(3);
    CHECK(tg_http_send(&rq, &p, &rng, &r, &rep, &err) == TG_HTTP_OK && rep.attempts == 2,
          "a dropped GET is retried: %d", rep.attempts);
    tg_http_response_release(&r);
}

static void test_retry_post(void)
{
    tg_http_request rq = {.method = TG_HTTP_POST, .url = url("/p"), .body = "{}", .body_len = 2,
                          .timeout_ms = 5000};
    tg_http_response r;
    tg_retry_report rep;
    tg_err err = {0};
    hf_answer a[] = {{.status = 503}, {.body = "fine"}};
    hf_script(&srv, a, 2);
    tg_retry_policy p = fast_policy(3);
    CHECK(tg_http_send(&rq, &p, NULL, &r, &rep, &err) == TG_HTTP_OK, "POST: %s", err.msg);
    CHECK(r.status == 503 && rep.attempts == 1 && !rep.gave_up,
          "a POST is not sent twice: %ld after %d", r.status, rep.attempts);
    tg_http_response_release(&r);

    hf_answer drop[] = {{.drop = true}, {.body = "fine"}};
    hf_script(&srv, drop, 2);
    CHECK(tg_http_send(&rq, &p, NULL, &r, &rep, &err) == TG_HTTP_DROPPED && rep.attempts == 1,
          "nor after a broken connection: %d", rep.attempts);

    hf_script(&srv, a, 2);
    rq.repeatable = true;
    CHECK(tg_http_send(&rq, &p, NULL, &r, &rep, &err) == TG_HTTP_OK, "POST: %s", err.msg);
    CHECK(r.status == 200 && rep.attempts == 2, "unless the caller allows it: %d", rep.attempts);
    CHECK(hf_count(&srv) == 2 && srv.seen[1].body_len == 2, "the body sent again");
    tg_http_response_release(&r);

    /* nothing reached a server: a POST may be tried again */
    char refused[64];
    snprintf(refused, sizeof refused, "http://127.0.0.1:%d/p", hf_closed_port());
    rq.url = refused;
    rq.repeatable = false;
    p = fast_policy(2);
    CHECK(tg_http_send(&rq, &p, NULL, &r, &rep, &err) == TG_HTTP_CONNECT, "refused POST");
    CHECK(rep.attempts == 3 && rep.gave_up, "retried while nothing was sent: %d", rep.attempts);
    CHECK_CONTAINS(err.msg, "Couldn't connect to server");
}

static int cancel_wait(double ms, void *ud)
{
    (void)ms;
    (*(int *)ud)++;
    return 1;
}

static void test_retry_policy(void)
{
    tg_retry_policy p = {.base_ms = 100, .max_ms = 1000};
    unsigned rng = 7;
    for (int i = 0; i < 50; i++) {
        double d0 = tg_retry_delay_ms(&p, 0, -1, &rng);
        double d5 = tg_retry_delay_ms(&p, 5, -1, &rng);
        if (d0 < 50 || d0 > 100 || d5 < 500 || d5 > 1000) {
            CHECK(0, "equal jitter out of range: %f %f", d0, d5);
            break;
        }
    }
    CHECK(tg_retry_delay_ms(&p, 0, 3, &rng) == 3000, "a longer Retry-After wins");
    double d = tg_retry_delay_ms(&p, 3, 0.01, &rng);
    CHECK(d >= 400 && d <= 800, "a shorter one does not: %f", d);
    CHECK(tg_retry_delay_ms(&p, 0, 1e6, &rng) == TG_RETRY_AFTER_CAP_MS, "the default cap");

    tg_http_request get = {.method = TG_HTTP_GET}, post = {.method = TG_HTTP_POST};
    CHECK(tg_retry_wanted(&get, TG_HTTP_OK, 500) && tg_retry_wanted(&get, TG_HTTP_OK, 408) &&
              tg_retry_wanted(&get, TG_HTTP_OK, 429) && tg_retry_wanted(&get, TG_HTTP_TIMEOUT, 0),
          "retryable outcomes");
    CHECK(!tg_retry_wanted(&get, TG_HTTP_OK, 200) && !tg_retry_wanted(&get, TG_HTTP_OK, 400) &&
              !tg_retry_wanted(&get, TG_HTTP_TOO_BIG, 0) &&
              !tg_retry_wanted(&get, TG_HTTP_ERROR, 0), "final outcomes");
    CHECK(!tg_retry_wanted(&post, TG_HTTP_TIMEOUT, 0) && tg_retry_wanted(&post, TG_HTTP_CONNECT, 0),
          "a POST: only when nothing was sent");
    CHECK(tg_http_method_idempotent(TG_HTTP_PUT) && tg_http_method_idempotent(TG_HTTP_DELETE) &&
              !tg_http_method_idempotent(TG_HTTP_PATCH), "idempotent methods");

    /* a wait that says stop ends the retries with the last answer */
    int calls = 0;
    hf_answer a[] = {{.status = 503}, {.body = "fine"}};
    hf_script(&srv, a, 2);
    tg_http_request rq = {.method = TG_HTTP_GET, .url = url("/c"), .timeout_ms = 5000};
    tg_retry_policy pc = {.max_retries = 3, .base_ms = 1, .max_ms = 1, .wait = cancel_wait,
                          .wait_ud = &calls};
    tg_http_response r;
    tg_retry_report rep;
    tg_err err = {0};
    CHECK(tg_http_send(&rq, &pc, NULL, &r, &rep, &err) == TG_HTTP_OK && r.status == 503,
          "cancelled: %s", err.msg);
    CHECK(rep.cancelled && !rep.gave_up && rep.attempts == 1 && calls == 1, "stopped at once");
    tg_http_response_release(&r);
}

static void test_retry_after_forms(void)
{
    time_t t = 784111777; /* Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example */
    CHECK(tg_http_retry_after("120", t) == 120, "delta-seconds");
    CHECK(tg_http_retry_after(" 1.5", t) == 1.5, "a fraction, as servers send them");
    CHECK(tg_http_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", t - 5) == 5, "IMF-fixdate");
    CHECK(tg_http_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", t - 5) == 5, "RFC 850 form");
    CHECK(tg_http_retry_after("Sun Nov  6 08:49:37 1994", t - 5) == 5, "asctime form");
    CHECK(tg_http_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", t + 60) == 0, "a past date");
    CHECK(tg_http_retry_after("soon", t) == -1, "neither form");
    CHECK(tg_http_retry_after("-3", t) == -1, "negative");
}

static void test_status_classes(void)
{
    CHECK(tg_http_status_class(100) == TG_HTTP_CLASS_INFO, "1xx");
    CHECK(tg_http_status_class(204) == TG_HTTP_CLASS_SUCCESS, "2xx");
    CHECK(tg_http_status_class(304) == TG_HTTP_CLASS_REDIRECT, "3xx");
    CHECK(tg_http_status_class(404) == TG_HTTP_CLASS_CLIENT_ERROR, "4xx");
    CHECK(tg_http_status_class(599) == TG_HTTP_CLASS_SERVER_ERROR, "5xx");
    CHECK(tg_http_status_class(0) == TG_HTTP_CLASS_INVALID &&
              tg_http_status_class(600) == TG_HTTP_CLASS_INVALID, "invalid");
    CHECK(strcmp(tg_http_method_name(TG_HTTP_OPTIONS), "OPTIONS") == 0, "method names");
}

static void test_secrets(void)
{
    char u[256];
    /* a refused connection, a timeout and a too-big answer: no message holds a secret */
    int closed = hf_closed_port();
    snprintf(u, sizeof u, "http://alice:pw-SECRET-1@127.0.0.1:%d/v1?token=tok-SECRET-2&q=x#frag",
             closed);
    tg_http_header h[] = {{"Authorization", "Bearer sk-SECRET-3", false},
                          {"X-Custom-Key", "hush-SECRET-4", true},
                          {"x-api-key", "sk-SECRET-5", false}};
    tg_http_request rq = {.method = TG_HTTP_GET, .url = u, .headers = h, .nheaders = 3,
                          .timeout_ms = 300};
    tg_http_response r;
    tg_err err = {0};
    tg_retry_policy p = fast_policy(1);
    CHECK(tg_http_send(&rq, &p, NULL, &r, NULL, &err) == TG_HTTP_CONNECT, "refused");
    char want[128];
    snprintf(want, sizeof want, "http://***@127.0.0.1:%d/v1?token=***&q=***: Couldn't connect",
             closed);
    CHECK_CONTAINS(err.msg, want);
    CHECK(!strstr(err.msg, "SECRET") && !strstr(err.msg, "alice") && !strstr(err.msg, "frag"),
          "a secret in %s", err.msg);

    hf_answer slow[] = {{.delay_ms = 10000}, {.big = 5000}};
    hf_script(&srv, slow, 2);
    snprintf(u, sizeof u, "http://alice:pw-SECRET-1@127.0.0.1:%d/v1?token=tok-SECRET-2", srv.port);
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_TIMEOUT, "timeout: %s", err.msg);
    CHECK(!strstr(err.msg, "SECRET"), "a secret in %s", err.msg);
    CHECK(strcmp(hf_header(&srv.seen[0], "Authorization"), "Bearer sk-SECRET-3") == 0 &&
              strcmp(hf_header(&srv.seen[0], "X-Custom-Key"), "hush-SECRET-4") == 0 &&
              strcmp(hf_header(&srv.seen[0], "x-api-key"), "sk-SECRET-5") == 0,
          "the secrets were sent");
    rq.max_bytes = 100;
    rq.timeout_ms = 5000;
    CHECK(tg_http_request_send(&rq, &r, &err) == TG_HTTP_TOO_BIG, "too big: %s", err.msg);
    CHECK(!strstr(err.msg, "SECRET"), "a secret in %s", err.msg);

    /* what a server echoes: masked, the scheme left to say what it was */
    char echo[] = "rejected Bearer sk-SECRET-3 with hush-SECRET-4, sk-SECRET-5 and pw-SECRET-1";
    tg_http_mask_secrets(&rq, echo);
    CHECK(strcmp(echo, "rejected Bearer *** with ***, *** and ***") == 0, "masked: %s", echo);
}

static void test_redact(void)
{
    char out[256];
    CHECK(strcmp(tg_url_redact("https://api.openai.com/v1/chat/completions", out, sizeof out),
                 "https://api.openai.com/v1/chat/completions") == 0, "a plain URL unchanged");
    CHECK(strcmp(tg_url_redact("http://u:p@h:1/a?k=v&flag&x=&y=2#f", out, sizeof out),
                 "http://***@h:1/a?k=***&flag&x=***&y=***") == 0, "redacted: %s", out);
    CHECK(strcmp(tg_url_redact("http://a@b@h/", out, sizeof out), "http://***@h/") == 0,
          "the last @ ends the userinfo: %s", out);
    CHECK(strcmp(tg_url_redact("h/p?u=http://x:y@z", out, sizeof out), "h/p?u=***") == 0,
          "a URL in the query is a value: %s", out);
    CHECK(strcmp(tg_url_redact("http://h/p@q", out, sizeof out), "http://h/p@q") == 0,
          "an @ in the path is no userinfo: %s", out);
    CHECK(strcmp(tg_url_redact("http://host/abcdef", out, 12), "http://host") == 0,
          "truncated to fit: %s", out);
    char t[] = "key sk-1234 and sk-1234 but not abc";
    tg_secret_mask(t, "sk-1234");
    tg_secret_mask(t, "abc"); /* too short to mask */
    CHECK(strcmp(t, "key *** and *** but not abc") == 0, "masked: %s", t);
}

static void *many_gets(void *ud)
{
    int *ok = ud;
    for (int i = 0; i < 5; i++) {
        tg_http_request rq = {.method = TG_HTTP_GET, .url = base, .timeout_ms = 10000};
        tg_http_response r;
        tg_err err = {0};
        if (tg_http_request_send(&rq, &r, &err) == TG_HTTP_OK && r.status == 200 &&
            strcmp(r.body, "same") == 0)
            (*ok)++;
        tg_http_response_release(&r);
    }
    return NULL;
}

static void test_threads(void)
{
    hf_answer a[] = {{.body = "same"}};
    hf_script(&srv, a, 1);
    pthread_t th[4];
    int ok[4] = {0};
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, many_gets, &ok[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(ok[0] + ok[1] + ok[2] + ok[3] == 20, "20 requests from 4 threads: %d",
          ok[0] + ok[1] + ok[2] + ok[3]);
}

int main(void)
{
    if (hf_start(&srv) != 0) {
        CHECK(0, "cannot listen on loopback");
        return tl_finish("test_net");
    }
    snprintf(base, sizeof base, "http://127.0.0.1:%d", srv.port);
    test_threads(); /* first: the requests race to set curl up */
    test_get_and_headers();
    test_methods();
    test_size_cap();
    test_timeout_and_failures();
    test_redirects();
    test_retry();
    test_retry_post();
    test_retry_policy();
    test_retry_after_forms();
    test_status_classes();
    test_secrets();
    test_redact();
    hf_stop(&srv);
    return tl_finish("test_net");
}
