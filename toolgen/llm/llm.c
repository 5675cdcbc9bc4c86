/*
 * llm.c — one answer from a model: the cache first, then the provider with retries, backoff and
 * the fallback model (llm.h; docs/generate.md#providers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/strvec.h"
#include "llm/llm_http.h"
#include "llm/llm_int.h"

#define ANSWER_MAX_BYTES (16u << 20)

void tg_llm_client_init(tg_llm_client *c, const tg_llm_config *cfg, int root_fd, bool frozen)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->root_fd = root_fd;
    c->frozen = frozen;
    c->rng = (unsigned)getpid() ^ (unsigned)tg_now_ms();
}

static tg_llm_provider dialect(const tg_llm_config *cfg)
{
    return cfg->provider == TG_LLM_REPLAY ? cfg->replay_of : cfg->provider;
}

char *tg_llm_canonical_request(const tg_llm_config *cfg, const tg_llm_request *rq)
{
    /* Everything that changes the answer, and nothing that does not (the URL, the key, the
     * timeout): a server moved to another port still answers from the cache. */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "provider", tg_llm_provider_name(dialect(cfg)));
    cJSON_AddStringToObject(o, "model", cfg->model ? cfg->model : "");
    cJSON_AddNumberToObject(o, "temperature", cfg->temperature);
    cJSON_AddNumberToObject(o, "top_p", cfg->top_p);
    cJSON_AddNumberToObject(o, "max_tokens", cfg->max_tokens);
    cJSON_AddStringToObject(o, "system", rq->system ? rq->system : "");
    cJSON_AddStringToObject(o, "user", rq->user);
    cJSON_AddNumberToObject(o, "sample", rq->sample);
    char *s = tg_json_print_compact(o);
    cJSON_Delete(o);
    return s;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Exponential backoff with "equal jitter": half the delay fixed, half random, so clients that
 * failed together do not retry together; a server's Retry-After wins when it asks for more. */
static double backoff_ms(tg_llm_client *c, int attempt, double retry_after_s)
{
    double d = (double)c->cfg->retry_base_ms;
    for (int i = 0; i < attempt && d < c->cfg->retry_max_ms; i++)
        d *= 2;
    if (d > c->cfg->retry_max_ms)
        d = c->cfg->retry_max_ms;
    c->rng = c->rng * 1103515245u + 12345u;
    d = d / 2 + (d / 2) * (double)((c->rng >> 8) & 0xffff) / 65535.0;
    if (retry_after_s >= 0 && retry_after_s * 1000 > d)
        d = retry_after_s * 1000 > 300000 ? 300000 : retry_after_s * 1000;
    return d;
}

static bool retryable(tg_http_result hr, long status)
{
    if (hr == TG_HTTP_TIMEOUT || hr == TG_HTTP_CONNECT)
        return true;
    return hr == TG_HTTP_OK && (status == 429 || status == 408 || status >= 500);
}

typedef struct attempt_ctx {
    const char *url;
    const char *body;
    const char *key; /* to mask in what comes back; may be NULL */
    tg_strv headers;
} attempt_ctx;

static void scrub(char *msg, const char *key);

/* One model, every retry. TG_LLM_OK with *text, or an error status with err. */
static tg_llm_status ask_model(tg_llm_client *c, const attempt_ctx *a, int *attempts,
                               char **text, tg_err *err)
{
    const tg_llm_config *cfg = c->cfg;
    tg_llm_provider p = dialect(cfg);
    for (int attempt = 0;; attempt++) {
        tg_http_reply r;
        tg_err herr = {0};
        c->requests++;
        (*attempts)++;
        tg_http_result hr = tg_http_post_json(a->url, (const char *const *)a->headers.v,
                                              a->headers.n, a->body, cfg->timeout_s * 1000L,
                                              ANSWER_MAX_BYTES, &r, &herr);
        if (hr == TG_HTTP_OK) { /* whatever comes back, the key never goes further */
            scrub(r.body, a->key);
            r.len = strlen(r.body);
        }
        if (hr == TG_HTTP_OK && r.status >= 200 && r.status < 300) {
            *text = tg_llm_parse_answer(p, r.body, r.len, err);
            tg_http_reply_release(&r);
            return *text ? TG_LLM_OK : TG_LLM_BAD_ANSWER;
        }
        if (hr == TG_HTTP_OK) {
            char q[200];
            char head[121] = {0};
            memcpy(head, r.body, r.len < 120 ? r.len : 120);
            tg_json_quote_for_message(head, q, sizeof q);
            tg_err_set(err, "%s: %s answered HTTP %ld: %s", tg_llm_provider_name(p), a->url,
                       r.status, q);
        } else {
            tg_err_set(err, "%s: %s", tg_llm_provider_name(p), herr.msg);
        }
        bool again = retryable(hr, hr == TG_HTTP_OK ? r.status : 0);
        double ra = hr == TG_HTTP_OK ? r.retry_after_s : -1;
        tg_http_reply_release(&r);
        if (!again)
            return TG_LLM_UNAVAILABLE;
        if (attempt >= cfg->max_retries) {
            tg_err_prefix(err, "gave up after %d attempts", attempt + 1);
            return TG_LLM_UNAVAILABLE;
        }
        sleep_ms(backoff_ms(c, attempt, ra));
    }
}

/* The API key, or NULL (a local server needs none); TG_LLM_CONFIG when the config names a
 * variable that is unset. The message names the variable, never a value. */
static tg_llm_status api_key(const tg_llm_config *cfg, const char **key, tg_err *err)
{
    *key = getenv(cfg->api_key_env);
    if (*key && !**key)
        *key = NULL;
    if (!*key && cfg->api_key_required) {
        tg_err_set(err, "%s: the environment variable %s (llm.api_key_env) is not set; export "
                        "it with the API key", tg_llm_provider_name(cfg->provider),
                   cfg->api_key_env);
        return TG_LLM_CONFIG;
    }
    return TG_LLM_OK;
}

/* A server may echo what it was sent (a proxy's error page quoting the request): no message
 * ever carries the key, whatever came back. */
static void scrub(char *msg, const char *key)
{
    size_t n = key ? strlen(key) : 0;
    for (char *p; n >= 4 && (p = strstr(msg, key)) != NULL;) {
        memset(p, '*', 3);
        memmove(p + 3, p + n, strlen(p + n) + 1);
    }
}

static void wipe_headers(tg_strv *h)
{
    for (size_t i = 0; i < h->n; i++)
        memset(h->v[i], 0, strlen(h->v[i])); /* the key header */
    tg_strv_free(h);
}

static tg_llm_status ask_provider(tg_llm_client *c, const tg_llm_request *rq, tg_llm_reply *out,
                                  tg_err *err)
{
    const tg_llm_config *cfg = c->cfg;
    const char *key;
    tg_llm_status st = api_key(cfg, &key, err);
    if (st != TG_LLM_OK)
        return st;
    attempt_ctx a = {0};
    char *url = tg_llm_endpoint(cfg->provider, cfg);
    a.url = url;
    a.key = key;
    tg_llm_headers(cfg->provider, key, &a.headers);
    const char *models[2] = {cfg->model, cfg->fallback_model};
    char *text = NULL;
    for (int m = 0; m < 2 && models[m]; m++) {
        char *body = tg_llm_body(cfg->provider, cfg, models[m], rq);
        a.body = body;
        tg_err merr = {0};
        st = ask_model(c, &a, &out->attempts, &text, &merr);
        free(body);
        if (st == TG_LLM_OK) {
            out->model = xasprintf("%s/%s", tg_llm_provider_name(cfg->provider), models[m]);
            break;
        }
        if (m == 0)
            *err = merr;
        else
            tg_err_set(err, "%s; the fallback model %s: %s", err->msg, models[m], merr.msg);
    }
    if (st != TG_LLM_OK)
        scrub(err->msg, key);
    wipe_headers(&a.headers);
    free(url);
    out->text = text;
    return st;
}

tg_llm_status tg_llm_complete(tg_llm_client *c, const tg_llm_request *rq, tg_llm_reply *out,
                              tg_err *err)
{
    memset(out, 0, sizeof *out);
    const tg_llm_config *cfg = c->cfg;
    if (cfg->provider == TG_LLM_BUILTIN) {
        tg_err_set(err, "the builtin provider answers no requests (it is the offline generator)");
        return TG_LLM_CONFIG;
    }
    char *canon = tg_llm_canonical_request(cfg, rq);
    out->key = tg_hash_bytes(canon, strlen(canon));
    if (tg_llm_cache_get(c->root_fd, cfg->cache_dir, out->key, &out->text, &out->model) == 0) {
        free(canon);
        c->cache_hits++;
        out->cached = true;
        out->response = tg_hash_bytes(out->text, strlen(out->text));
        return TG_LLM_OK;
    }
    tg_llm_status st;
    if (c->frozen || cfg->provider == TG_LLM_REPLAY) {
        tg_err_set(err, "%s: the answer is not in the cache (%s) and %s", 
                   tg_llm_provider_name(cfg->provider), cfg->cache_dir,
                   c->frozen ? "--frozen allows no requests" : "replay sends no requests");
        st = TG_LLM_FROZEN;
    } else {
        st = ask_provider(c, rq, out, err);
    }
    if (st == TG_LLM_OK) {
        out->response = tg_hash_bytes(out->text, strlen(out->text));
        tg_err cerr = {0};
        if (tg_llm_cache_put(c->root_fd, cfg->cache_dir, out->key, canon, out->text, out->model,
                             &cerr) != 0) {
            *err = cerr;
            st = TG_LLM_UNAVAILABLE;
        }
    }
    free(canon);
    if (st != TG_LLM_OK)
        tg_llm_reply_release(out);
    return st;
}

void tg_llm_reply_release(tg_llm_reply *r)
{
    free(r->text);
    free(r->model);
    memset(r, 0, sizeof *r);
}
