/* approval.c — the person's reply to the workflow's questions, through elicitation
 * (approval.h). */
#include "serve/approval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "lifecycle/decide.h"
#include "serve/core.h"
#include "serve/mrtr.h"

#define WHO "submit_tool_feedback"

static void refuse(tg_serve_outcome *out, const char *message)
{
    out->code = "REFUSED";
    out->result = tg_serve_error_result(NULL, out->code, message);
}

/* The form of the question: one text field, the reply. */
static cJSON *question(const char *tool, bool decision)
{
    char *message = decision
        ? xasprintf("Should the tool %s be saved as a reusable tool? Reply \"Approve\" to save "
                    "it, or \"Reject\" and what should change.", tool)
        : xasprintf("Is the output of the staged tool %s correct (its staged run, as the "
                    "assistant showed it)? Reply \"yes\", or say what is wrong.", tool);
    cJSON *qs = cJSON_CreateArray();
    cJSON *q = cJSON_CreateObject();
    cJSON_AddItemToArray(qs, q);
    cJSON_AddStringToObject(q, "key", decision ? "decision" : "output");
    cJSON_AddStringToObject(q, "method", "elicitation/create");
    cJSON *p = cJSON_AddObjectToObject(q, "params");
    cJSON_AddStringToObject(p, "message", message);
    cJSON *rs = cJSON_AddObjectToObject(p, "requestedSchema");
    cJSON *f = cJSON_AddObjectToObject(cJSON_AddObjectToObject(rs, "properties"), "reply");
    cJSON_AddStringToObject(f, "type", "string");
    cJSON_AddStringToObject(f, "title", "Your answer");
    cJSON_AddNumberToObject(f, "maxLength", 4000);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rs, "required"), cJSON_CreateString("reply"));
    cJSON_AddStringToObject(q, "field", "reply");
    free(message);
    return qs;
}

/* The refusal for a client that cannot show the person a form: the command they run. */
static void cannot_ask(tg_serve_outcome *out, const char *tool, bool decision)
{
    char *msg = xasprintf(
        "the user's %s about %s is taken only from the user, through the client's form (MCP "
        "elicitation), and this client cannot show one; nothing written in tool arguments "
        "counts. Ask the user to answer on the command line in the repository: toolgen feedback "
        "%s %s \"THEIR WORDS\"%s", decision ? "decision" : "judgement of the output", tool, tool,
        decision ? "--decision" : "--output", decision ? ", then toolgen promote " : "");
    char *full = decision ? xasprintf("%s%s (or promote_tool here once it is APPROVED)", msg, tool)
                          : xstrdup(msg);
    refuse(out, full);
    free(full);
    free(msg);
}

char *tg_serve_approval_reply(const tg_serve_rx *rx, const tg_registry *g, const char *tool,
                              bool decision, const cJSON *args, tg_serve_outcome *out)
{
    tg_err err = {0};
    if (tg_decide_check(g, tool, decision, &err) != 0) { /* before the user is asked in vain */
        refuse(out, err.msg);
        return NULL;
    }
    if (!(rx->how.client_can & TG_CLIENT_ELICITS) || !rx->c->mrtr) {
        cannot_ask(out, tool, decision);
        return NULL;
    }
    cJSON *qs = question(tool, decision), *answers;
    if (rx->era == TG_ERA_MODERN) {
        answers = tg_serve_mrtr_retry_answers(rx->c->mrtr, WHO, NULL, args, rx->params, out);
        if (answers && !tg_json_get_string(answers, decision ? "decision" : "output"))
            tg_serve_mrtr_need(rx->c->mrtr, WHO, rx->how.client_can, args, answers, qs, out);
    } else {
        answers = cJSON_CreateObject();
        if (tg_serve_mrtr_ask_now(&rx->how, WHO, NULL, qs, answers, out) != 0) {
            cJSON_Delete(answers);
            answers = NULL;
        }
    }
    const char *reply = tg_json_get_string(answers, decision ? "decision" : "output");
    char *r = reply && !out->result && !out->rpc_error ? xstrdup(reply) : NULL;
    cJSON_Delete(answers);
    cJSON_Delete(qs);
    return r;
}
