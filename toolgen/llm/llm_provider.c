/*
 * llm_provider.c — the two wire dialects: OpenAI-compatible chat completions and Anthropic
 * messages (docs/generate.md#providers). Bodies are built with cJSON, answers are parsed with the
 * bounded JSON parser of base/, and every way an answer can be unusable is its own message.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "llm/llm_int.h"

static cJSON *message(const char *role, const char *content)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", role);
    cJSON_AddStringToObject(m, "content", content);
    return m;
}

char *tg_llm_body(tg_llm_provider p, const tg_llm_config *cfg, const char *model,
                  const tg_llm_request *rq)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "model", model);
    cJSON_AddNumberToObject(b, "max_tokens", cfg->max_tokens);
    cJSON_AddNumberToObject(b, "temperature", cfg->temperature);
    cJSON_AddNumberToObject(b, "top_p", cfg->top_p);
    cJSON *msgs = cJSON_AddArrayToObject(b, "messages");
    if (p == TG_LLM_ANTHROPIC) {
        if (rq->system)
            cJSON_AddStringToObject(b, "system", rq->system);
    } else if (rq->system) {
        cJSON_AddItemToArray(msgs, message("system", rq->system));
    }
    cJSON_AddItemToArray(msgs, message("user", rq->user));
    char *s = tg_json_print_compact(b);
    cJSON_Delete(b);
    return s;
}

char *tg_llm_endpoint(tg_llm_provider p, const tg_llm_config *cfg)
{
    if (p == TG_LLM_ANTHROPIC) { /* a base_url written the OpenAI way, ".../v1", is the same */
        size_t n = strlen(cfg->base_url);
        bool v1 = n >= 3 && strcmp(cfg->base_url + n - 3, "/v1") == 0;
        return xasprintf("%s%s/messages", cfg->base_url, v1 ? "" : "/v1");
    }
    return xasprintf("%s/chat/completions", cfg->base_url);
}

size_t tg_llm_headers(tg_llm_provider p, const char *key, tg_http_header *h, char **owned)
{
    size_t n = 0;
    *owned = NULL;
    h[n++] = (tg_http_header){"Content-Type", "application/json", false};
    if (p == TG_LLM_ANTHROPIC) {
        h[n++] = (tg_http_header){"anthropic-version", "2023-06-01", false};
        if (key)
            h[n++] = (tg_http_header){"x-api-key", key, true};
    } else if (key) {
        *owned = xasprintf("Bearer %s", key);
        h[n++] = (tg_http_header){"Authorization", *owned, true};
    }
    return n;
}

/* The start of what came back, quoted on one line, for messages. */
static void quote_start(const char *body, size_t len, char *out, size_t n)
{
    char tmp[161];
    size_t k = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
    memcpy(tmp, body, k);
    tmp[k] = 0;
    tg_json_quote_for_message(tmp, out, n);
}

static char *openai_text(const cJSON *root, const char *name, tg_err *err)
{
    const cJSON *choices = tg_json_get(root, "choices");
    const cJSON *c0 = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    const cJSON *msg = c0 ? tg_json_get(c0, "message") : NULL;
    if (!msg) {
        tg_err_set(err, "%s: the answer has no choices[0].message", name);
        return NULL;
    }
    const char *refusal = tg_json_get_string(msg, "refusal");
    if (refusal) {
        tg_err_set(err, "%s refused: %.300s", name, refusal);
        return NULL;
    }
    const char *finish = tg_json_get_string(c0, "finish_reason");
    if (finish && strcmp(finish, "length") == 0) {
        tg_err_set(err, "%s: the answer was truncated at max_tokens (finish_reason length); "
                        "raise llm.max_tokens", name);
        return NULL;
    }
    if (finish && strcmp(finish, "content_filter") == 0) {
        tg_err_set(err, "%s refused: the answer was stopped by its content filter", name);
        return NULL;
    }
    const char *text = tg_json_get_string(msg, "content");
    if (!text) {
        tg_err_set(err, "%s: choices[0].message.content is missing or not a string", name);
        return NULL;
    }
    return xstrdup(text);
}

static char *anthropic_text(const cJSON *root, const char *name, tg_err *err)
{
    const char *stop = tg_json_get_string(root, "stop_reason");
    if (stop && strcmp(stop, "max_tokens") == 0) {
        tg_err_set(err, "%s: the answer was truncated at max_tokens (stop_reason max_tokens); "
                        "raise llm.max_tokens", name);
        return NULL;
    }
    if (stop && strcmp(stop, "refusal") == 0) {
        tg_err_set(err, "%s refused to answer (stop_reason refusal)", name);
        return NULL;
    }
    const cJSON *content = tg_json_get(root, "content");
    if (!cJSON_IsArray(content)) {
        tg_err_set(err, "%s: the answer has no content array", name);
        return NULL;
    }
    tg_buf b = TG_BUF_INIT;
    const cJSON *part;
    cJSON_ArrayForEach(part, content) {
        const char *type = tg_json_get_string(part, "type");
        const char *text = tg_json_get_string(part, "text");
        if (type && strcmp(type, "text") == 0 && text)
            tg_buf_puts(&b, text);
    }
    return tg_buf_steal(&b);
}

/* usage's token counts: prompt_tokens / completion_tokens (OpenAI), input_tokens /
 * output_tokens (Anthropic); -1 each when the answer reports none. */
static void usage_of(const cJSON *root, int tokens[2])
{
    const cJSON *u = tg_json_get(root, "usage");
    const cJSON *in = tg_json_get(u, "prompt_tokens"), *out = tg_json_get(u, "completion_tokens");
    if (!in && !out) {
        in = tg_json_get(u, "input_tokens");
        out = tg_json_get(u, "output_tokens");
    }
    tokens[0] = cJSON_IsNumber(in) && in->valuedouble >= 0 ? (int)in->valuedouble : -1;
    tokens[1] = cJSON_IsNumber(out) && out->valuedouble >= 0 ? (int)out->valuedouble : -1;
}

char *tg_llm_parse_answer(tg_llm_provider p, const char *body, size_t len, int tokens[2],
                          tg_err *err)
{
    const char *name = tg_llm_provider_name(p);
    tg_err perr = {0};
    cJSON *root = tg_json_parse(body, len, NULL, NULL, NULL, &perr);
    if (!root || !cJSON_IsObject(root)) {
        char q[200];
        quote_start(body, len, q, sizeof q);
        tg_err_set(err, "%s: the answer is not a JSON object (%s at %d:%d); it began %s", name,
                   root ? "not an object" : perr.msg, perr.line, perr.col, q);
        cJSON_Delete(root);
        return NULL;
    }
    char *text = p == TG_LLM_ANTHROPIC ? anthropic_text(root, name, err)
                                       : openai_text(root, name, err);
    usage_of(root, tokens);
    cJSON_Delete(root);
    if (text && !*text) {
        free(text);
        tg_err_set(err, "%s: the answer is empty", name);
        return NULL;
    }
    return text;
}
