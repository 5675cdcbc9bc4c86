/*
 * llm_sampling.c — the sampling provider (llm.h): the MCP client's own model answers, through
 * the questions of a served call (docs/code-edit.md#providers). A request the client has not
 * answered yet becomes a question in the client's pending list; the work is then run again
 * with the answers, and asks the same requests, which find their answers by key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/sampling.h"
#include "llm/llm_int.h"

/* The question's key: the request's cache key, so that a rerun asks the same one. */
static void key_of(tg_hash key, char out[40])
{
    snprintf(out, 40, "model_%016llx", (unsigned long long)key.hi);
}

tg_llm_status tg_llm_sampled(tg_llm_client *c, const tg_llm_request *rq, tg_hash key,
                             tg_llm_reply *out, tg_err *err)
{
    char k[40];
    key_of(key, k);
    const cJSON *a = tg_json_get(c->sampled, k);
    if (a) {
        out->text = tg_sampling_text(a);
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
        cJSON_AddItemToArray(c->pending,
                             tg_sampling_question(k, rq->system, rq->user, c->cfg->max_tokens,
                                                  c->cfg->temperature, c->cfg->model));
    tg_err_set(err, "sampling: waiting for the client's model to answer (%s)", k);
    return TG_LLM_SAMPLE;
}
