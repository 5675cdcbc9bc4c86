/*
 * sampling.h — a request for the MCP client's own model (sampling/createMessage) as a question
 * of a call, and the text of its answer (docs/code-edit.md#providers). The llm runtime
 * (run/rt_llm.c) and the sampling provider of generation (llm/llm_sampling.c) ask the same way.
 */
#ifndef TG_SAMPLING_H
#define TG_SAMPLING_H

#include <cjson/cJSON.h>

/*
 * {key, method "sampling/createMessage", params: {messages: [one user message, user],
 * systemPrompt (system, when not NULL), maxTokens, temperature (when >= 0), modelPreferences
 * {hints: [{name: model_hint}]} (when model_hint is not NULL or "")}}: a question as
 * tg_call_result.ask holds them (run/toolrun.h). A new object.
 */
cJSON *tg_sampling_question(const char *key, const char *system, const char *user,
                            int max_tokens, double temperature, const char *model_hint);

/* The text of a CreateMessageResult's content, one block or an array of blocks: its text
 * blocks joined ("" when it has none). Heap. */
char *tg_sampling_text(const cJSON *result);

#endif
