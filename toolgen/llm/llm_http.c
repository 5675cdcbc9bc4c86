/* llm_http.c — libcurl behind one function (llm_http.h); docs/generate.md#providers. */
#include "llm/llm_http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_setup(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

typedef struct sink {
    tg_buf body;
    size_t max;
    int too_big;
    double retry_after;
} sink;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->body.len + len > s->max) {
        s->too_big = 1;
        return 0; /* aborts the transfer */
    }
    tg_buf_append(&s->body, data, len);
    return len;
}

/* Retry-After in its delta-seconds form; the HTTP-date form is rare for APIs and is ignored
 * (the caller's backoff applies). */
static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    static const char name[] = "retry-after:";
    if (len > sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0) {
        char tmp[64];
        size_t vl = len - (sizeof name - 1);
        if (vl >= sizeof tmp)
            vl = sizeof tmp - 1;
        memcpy(tmp, data + sizeof name - 1, vl);
        tmp[vl] = 0;
        char *end;
        double v = strtod(tmp, &end);
        if (end != tmp && v >= 0)
            s->retry_after = v;
    }
    return len;
}

static tg_http_result classify(CURLcode rc, const sink *s, const char *url, tg_err *err)
{
    if (s->too_big) {
        tg_err_set(err, "%s: the answer is larger than %zu bytes", url, s->max);
        return TG_HTTP_TOO_BIG;
    }
    tg_err_set(err, "%s: %s", url, curl_easy_strerror(rc));
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        return TG_HTTP_TIMEOUT;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
        return TG_HTTP_CONNECT;
    default:
        return TG_HTTP_ERROR;
    }
}

tg_http_result tg_http_post_json(const char *url, const char *const *headers, size_t nheaders,
                                 const char *body, long timeout_ms, size_t max_bytes,
                                 tg_http_reply *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    pthread_once(&curl_once, curl_setup);
    CURL *h = curl_easy_init();
    if (!h) {
        tg_err_set(err, "%s: cannot start an HTTP client", url);
        return TG_HTTP_ERROR;
    }
    struct curl_slist *hl = curl_slist_append(NULL, "Content-Type: application/json");
    for (size_t i = 0; i < nheaders; i++)
        hl = curl_slist_append(hl, headers[i]);
    sink s = {.max = max_bytes, .retry_after = -1};
    tg_buf_init(&s.body, 4096);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "toolgen");
    CURLcode rc = curl_easy_perform(h);
    tg_http_result res = TG_HTTP_OK;
    if (rc != CURLE_OK) {
        res = classify(rc, &s, url, err);
        tg_buf_free(&s.body);
    } else {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
        out->len = s.body.len;
        out->body = tg_buf_steal(&s.body);
        out->retry_after_s = s.retry_after;
    }
    curl_slist_free_all(hl);
    curl_easy_cleanup(h);
    return res;
}

void tg_http_reply_release(tg_http_reply *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}
