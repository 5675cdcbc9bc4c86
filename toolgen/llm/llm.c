/*
 * llm.c — one answer from a model: the cache first, then the provider with retries (net/retry.h)
 * and the fallback model (llm.h; docs/generate.md#providers).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llm/llm_int.h"
#include "net/redact.h"
#include "net/retry.h"

#define ANSWER_MAX_BYTES (16u << 20)

void tg_llm_client_init(tg_llm_client *c, const tg_llm_config *cfg, int root_fd, bool frozen)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->root_fd = root_fd;
    c->frozen = frozen;
    c->rng = (unsigned)getpid() ^ (unsigned)(unsigned long long)tg_now_ms();
}

void tg_llm_client_release(tg_llm_client *c)
{
    cJSON_Delete(c->pending);
    c->pending = NULL;
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

/* One model, every retry (net/retry.h, configured from llm.*). TG_LLM_OK with *text, or an
 * error status with err. */
static tg_llm_status ask_model(tg_llm_client *c, const tg_http_request *rq, const char *url,
                               int *attempts, char **text, int tokens[2], tg_err *err)
{
    const tg_llm_config *cfg = c->cfg;
    tg_llm_provider p = dialect(cfg);
    tg_retry_policy policy = {.max_retries = cfg->max_retries, .base_ms = cfg->retry_base_ms,
                              .max_ms = cfg->retry_max_ms};
    tg_http_response r;
    tg_retry_report rep;
    tg_err herr = {0};
    tg_http_result hr = tg_http_send(rq, &policy, &c->rng, &r, &rep, &herr);
    c->requests += rep.attempts;
    *attempts += rep.attempts;
    if (hr == TG_HTTP_OK) { /* whatever comes back, the key never goes further */
        tg_http_mask_secrets(rq, r.body);
        r.len = strlen(r.body);
    }
    if (hr == TG_HTTP_OK && r.status >= 200 && r.status < 300) {
        *text = tg_llm_parse_answer(p, r.body, r.len, tokens, err);
        tg_http_response_release(&r);
        return *text ? TG_LLM_OK : TG_LLM_BAD_ANSWER;
    }
    if (hr == TG_HTTP_OK) {
        char q[200];
        char head[121] = {0};
        memcpy(head, r.body, r.len < 120 ? r.len : 120);
        tg_json_quote_for_message(head, q, sizeof q);
        tg_err_set(err, "%s: %s answered HTTP %ld: %s", tg_llm_provider_name(p), url, r.status,
                   q);
        tg_http_response_release(&r);
    } else {
        tg_err_set(err, "%s: %s", tg_llm_provider_name(p), herr.msg);
    }
    if (rep.gave_up)
        tg_err_prefix(err, "gave up after %d attempts", rep.attempts);
    return TG_LLM_UNAVAILABLE;
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

static tg_llm_status ask_provider(tg_llm_client *c, const tg_llm_request *rq, tg_llm_reply *out,
                                  tg_err *err)
{
    const tg_llm_config *cfg = c->cfg;
    const char *key;
    tg_llm_status st = api_key(cfg, &key, err);
    if (st != TG_LLM_OK)
        return st;
    char *endpoint = tg_llm_endpoint(cfg->provider, cfg);
    char url[1024];
    tg_url_redact(endpoint, url, sizeof url);
    tg_http_header headers[TG_LLM_MAX_HEADERS];
    char *auth;
    /* a completion may be asked for twice: retried like an idempotent request */
    tg_http_request hrq = {.method = TG_HTTP_POST, .url = endpoint, .headers = headers,
                           .timeout_ms = cfg->timeout_s * 1000L, .max_bytes = ANSWER_MAX_BYTES,
                           .repeatable = true};
    hrq.nheaders = tg_llm_headers(cfg->provider, key, headers, &auth);
    const char *models[2] = {cfg->model, cfg->fallback_model};
    out->tokens_in = out->tokens_out = -1; /* until an answer reports its usage */
    char *text = NULL;
    for (int m = 0; m < 2 && models[m]; m++) {
        char *body = tg_llm_body(cfg->provider, cfg, models[m], rq);
        hrq.body = body;
        hrq.body_len = strlen(body);
        tg_err merr = {0};
        int tokens[2] = {-1, -1};
        st = ask_model(c, &hrq, url, &out->attempts, &text, tokens, &merr);
        if (tokens[0] >= 0 && tokens[1] >= 0) { /* every attempt's answer is paid for */
            out->tokens_in = (out->tokens_in > 0 ? out->tokens_in : 0) + tokens[0];
            out->tokens_out = (out->tokens_out > 0 ? out->tokens_out : 0) + tokens[1];
        }
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
        tg_secret_mask(err->msg, key);
    if (auth) { /* the key's header */
        memset(auth, 0, strlen(auth));
        free(auth);
    }
    free(endpoint);
    out->text = text;
    return st;
}

/* Whether text is an answer the caller can use (rq->block): what may be cached. */
static bool usable(const tg_llm_request *rq, const char *text)
{
    if (!rq->block)
        return true;
    char *block = tg_llm_code_block(text, rq->block);
    bool ok = block != NULL;
    if (ok && strcmp(rq->block, "json") == 0) {
        cJSON *j = cJSON_Parse(block);
        ok = cJSON_IsObject(j);
        cJSON_Delete(j);
    }
    free(block);
    return ok;
}

/* The usable answer from the shared cache (c->remote), kept in the local cache as well; -1:
 * none (an unusable one is neither used nor copied). */
static int remote_get(tg_llm_client *c, const tg_llm_request *rq, tg_hash key, char **text,
                      char **model)
{
    size_t len = 0;
    char *entry = c->remote ? c->remote->get(c->remote->ud, key, &len) : NULL;
    if (!entry || tg_llm_cache_parse(entry, len, key, text, model) != 0) {
        free(entry);
        return -1;
    }
    if (!usable(rq, *text)) {
        free(entry);
        free(*text);
        free(*model);
        *text = *model = NULL;
        return -1;
    }
    tg_err err = {0}; /* a local copy that cannot be written is asked of the remote again */
    if (tg_llm_cache_write(c->root_fd, c->cfg->cache_dir, key, entry, len, &err) != 0) {
    }
    free(entry);
    return 0;
}

/* A usable cached answer, local first, then shared: 0 with text and model, or -1. An unusable
 * one (stored before answers were checked) counts as none: it is asked again. */
static int cached(tg_llm_client *c, const tg_llm_request *rq, tg_hash key, char **text,
                  char **model)
{
    if (c->no_cache)
        return -1;
    if (tg_llm_cache_get(c->root_fd, c->cfg->cache_dir, key, text, model) == 0) {
        if (usable(rq, *text))
            return 0;
        free(*text);
        free(*model);
        *text = *model = NULL;
    }
    return remote_get(c, rq, key, text, model);
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
    if (cached(c, rq, out->key, &out->text, &out->model) == 0) {
        free(canon);
        c->cache_hits++;
        out->cached = true;
        out->tokens_in = out->tokens_out = -1; /* paid for when it was asked */
        out->response = tg_hash_bytes(out->text, strlen(out->text));
        return TG_LLM_OK;
    }
    tg_llm_status st;
    if (cfg->provider == TG_LLM_SAMPLING) {
        st = tg_llm_sampled(c, rq, out->key, out, err);
    } else if (c->frozen || cfg->provider == TG_LLM_REPLAY) {
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
        size_t len = 0;
        /* an unusable answer is reported to the caller, never cached: the next run asks again */
        char *entry = usable(rq, out->text)
                          ? tg_llm_cache_entry(out->key, canon, out->text, out->model, &len)
                          : NULL;
        if (entry &&
            tg_llm_cache_write(c->root_fd, cfg->cache_dir, out->key, entry, len, &cerr) != 0) {
            *err = cerr;
            st = TG_LLM_UNAVAILABLE;
        } else if (entry && c->remote) {
            c->remote->put(c->remote->ud, out->key, entry, len);
        }
        free(entry);
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
