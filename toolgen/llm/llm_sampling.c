/*
 * llm_sampling.c — the sampling provider (llm.h): the MCP client's own model answers, through
 * the questions of a served call (docs/code-edit.md#providers). A request the client has not
 * answered yet becomes a question in the client's pending list; the work is then run again
 * with the answers, and asks the same requests, which find their answers by key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "llm/llm_int.h"

/* The question's key: the request's cache key, so that a rerun asks the same one. */
static void key_of(tg_hash key, char out[40])
{
    snprintf(out, 40, "model_%016llx", (unsigned long long)key.hi);
}

/* The text of a CreateMessageResult's content: one block or an array of blocks. */
static char *result_text(const cJSON *result)
{
    const cJSON *content = tg_json_get(result, "content");
    tg_buf b = TG_BUF_INIT;
    const char *t = tg_json_get_string(content, "text");
    if (t)
        tg_buf_puts(&b, t);
    for (const cJSON *c = cJSON_IsArray(content) ? content->child : NULL; c; c = c->next)
        if ((t = tg_json_get_string(c, "text")) != NULL)
            tg_buf_puts(&b, t);
    return tg_buf_steal(&b);
}

static cJSON *question(const tg_llm_config *cfg, const tg_llm_request *rq, const char *key)
{
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "key", key);
    cJSON_AddStringToObject(q, "method", "sampling/createMessage");
    cJSON *p = cJSON_AddObjectToObject(q, "params");
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "role", "user");
    cJSON *content = cJSON_AddObjectToObject(msg, "content");
    cJSON_AddStringToObject(content, "type", "text");
    cJSON_AddStringToObject(content, "text", rq->user);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "messages"), msg);
    if (rq->system)
        cJSON_AddStringToObject(p, "systemPrompt", rq->system);
    cJSON_AddNumberToObject(p, "maxTokens", cfg->max_tokens);
    cJSON_AddNumberToObject(p, "temperature", cfg->temperature);
    if (cfg->model) { /* a hint: the client picks its model */
        cJSON *hint = cJSON_CreateObject();
        cJSON_AddStringToObject(hint, "name", cfg->model);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_AddObjectToObject(p, "modelPreferences"),
                                                    "hints"), hint);
    }
    return q;
}

tg_llm_status tg_llm_sampled(tg_llm_client *c, const tg_llm_request *rq, tg_hash key,
                             tg_llm_reply *out, tg_err *err)
{
    char k[40];
    key_of(key, k);
    const cJSON *a = tg_json_get(c->sampled, k);
    if (a) {
        out->text = result_text(a);
        const char *model = tg_json_get_string(a, "model");
        out->model = xasprintf("sampling/%s", model ? model : "unknown");
        out->tokens_in = out->tokens_out = -1;
        if (*out->text)
            return TG_LLM_OK;
        tg_err_set(err, "sampling: the client's model answered with no text");
        return TG_LLM_BAD_ANSWER;
    }
    if (!c->pending)
        c->pending = cJSON_CreateArray();
    bool asked = false;
    for (const cJSON *q = c->pending->child; q && !asked; q = q->next)
        asked = strcmp(tg_json_get_string(q, "key"), k) == 0;
    if (!asked)
        cJSON_AddItemToArray(c->pending, question(c->cfg, rq, k));
    tg_err_set(err, "sampling: waiting for the client's model to answer (%s)", k);
    return TG_LLM_SAMPLE;
}
