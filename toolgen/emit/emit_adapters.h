/*
 * emit_adapters.h — the tool definitions of other clients: OpenAI (Chat Completions and
 * Responses API function tools, strict mode when the schema allows it) and Anthropic.
 *
 * Built on common.h only. docs/emit.md, "openai.json", "anthropic.json" and "OpenAI strict
 * mode", explains the shapes and the strict-mode transformation. Every function returning cJSON
 * returns a new tree the caller owns.
 */
#ifndef TG_EMIT_ADAPTERS_H
#define TG_EMIT_ADAPTERS_H

#include "emit/common.h"

/* ---- OpenAI strict mode --------------------------------------------------------------------- */

typedef struct tg_openai_mode {
    bool strict;
    char reason[256];  /* why not strict; empty when strict */
    char relaxed[256]; /* strict only: keywords moved into descriptions ("minLength, default") */
} tg_openai_mode;

/* Whether the tool's openai.json is strict, and why not (for the build report). */
tg_openai_mode tg_emit_openai_mode(const tg_manifest *m);

/*
 * The strict-mode transformation of an input schema (docs/emit.md, "OpenAI strict mode"):
 * every object gets additionalProperties false and all its properties in required; optional
 * properties become nullable; annotations and constraints strict mode rejects are dropped or
 * moved into the description. Returns a new schema, or NULL with mode->reason set when the
 * schema uses something strict mode cannot express. schema should be a client schema
 * (tg_emit_client_schema). mode may be NULL.
 */
cJSON *tg_emit_openai_strict_schema(const cJSON *schema, tg_openai_mode *mode);

/*
 * The other direction, for whoever forwards a strict call to toolgen: in strict mode the model
 * sends null for an optional argument it leaves out, which the tool's input_schema would refuse.
 * Removes, recursively, every null-valued member whose property is optional in input_schema
 * (local $refs followed). Strict mode is refused for schemas where that null is ambiguous.
 */
void tg_emit_openai_drop_nulls(const cJSON *input_schema, cJSON *args);

/* Chat Completions: {"type":"function","function":{name, description, parameters, strict}};
 * the description cut to 1024 characters, every section kept. mode may be NULL. */
cJSON *tg_emit_openai_tool(const tg_manifest *m, tg_openai_mode *mode);
/* Responses API: {"type":"function", name, description, parameters, strict, output_schema},
 * the same members flat, plus the client output schema of the result's JSON text. */
cJSON *tg_emit_openai_responses_tool(const tg_manifest *m);
/* {"name", "description", "input_schema", "input_examples"}: the full description, the client
 * input schema and every example's input. */
cJSON *tg_emit_anthropic_tool(const tg_manifest *m);

#endif
