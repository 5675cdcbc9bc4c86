/* sampling.c — questions for the client's model and its answers' text (sampling.h). */
#include "base/sampling.h"

#include "base/buf.h"
#include "base/json.h"

cJSON *tg_sampling_question(const char *key, const char *system, const char *user,
                            int max_tokens, double temperature, const char *model_hint)
{
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "key", key);
    cJSON_AddStringToObject(q, "method", "sampling/createMessage");
    cJSON *p = cJSON_AddObjectToObject(q, "params");
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "role", "user");
    cJSON *content = cJSON_AddObjectToObject(msg, "content");
    cJSON_AddStringToObject(content, "type", "text");
    cJSON_AddStringToObject(content, "text", user);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "messages"), msg);
    if (system)
        cJSON_AddStringToObject(p, "systemPrompt", system);
    cJSON_AddNumberToObject(p, "maxTokens", max_tokens);
    if (temperature >= 0)
        cJSON_AddNumberToObject(p, "temperature", temperature);
    if (model_hint && *model_hint) { /* a hint: the client picks its model */
        cJSON *hint = cJSON_CreateObject();
        cJSON_AddStringToObject(hint, "name", model_hint);
        cJSON *prefs = cJSON_AddObjectToObject(p, "modelPreferences");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(prefs, "hints"), hint);
    }
    return q;
}

char *tg_sampling_text(const cJSON *result)
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
