/*
 * emit.h — the emitters: IR (bound manifests) → the bytes of every file under generated/.
 *
 * Pure in-memory functions: they never touch the disk, print or exit; the build engine writes
 * the files (atomically). Everything is deterministic: the same manifests give byte-identical
 * output (keys in a fixed order, two-space JSON with a trailing newline, no timestamps, no
 * absolute paths, nothing from the host). docs/emit.md documents every file and choice.
 *
 * Manifests must have been loaded and bound (tg_manifest_load + tg_manifest_bind); the
 * emitters assume a document that passed the manifest schema but still check what they rely on
 * (names that become file names, schema roots, examples) and fail with a tg_err naming the
 * manifest file and place instead of writing something wrong.
 */
#ifndef TG_EMIT_H
#define TG_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "model/config.h"
#include "model/manifest.h"
#include "base/util.h"

/* ---- the output list ------------------------------------------------------------------------ */

typedef struct tg_emit_file {
    char *path; /* relative to generated/, '/'-separated, never absolute, never ".." */
    char *data; /* NUL-terminated (the NUL is not part of len) */
    size_t len;
} tg_emit_file;

typedef struct tg_emit_files {
    tg_emit_file *v;
    size_t n, cap;
} tg_emit_files;

void tg_emit_files_free(tg_emit_files *f);
/* Appends a file; takes ownership of data (a heap string). */
void tg_emit_files_add(tg_emit_files *f, const char *path, char *data);
/* NULL when no file has that path. */
const tg_emit_file *tg_emit_files_find(const tg_emit_files *f, const char *path);

/* ---- the two entry points ------------------------------------------------------------------- */

/*
 * Per-tool outputs, all under "<tool>/":
 *   input.schema.json, output.schema.json   the contract schemas ($schema 2020-12, $id urn)
 *   mcp.tool.json                           the MCP Tool object, as tools/list returns it
 *   openai.json, anthropic.json             the adapters' tool definitions
 *   golden/<example>.request.json           JSON-RPC tools/call request of each example
 *   golden/<example>.response.json          the JSON-RPC response with the expected result
 * Appended to out in that order; nothing is appended when it fails.
 */
int tg_emit_tool(const tg_manifest *m, tg_emit_files *out, tg_err *err);

/*
 * Repository-wide outputs:
 *   mcp/tools.json                     the tools/list result {"tools": [...]}
 *   mcp/manifest.json                  MCP Bundle manifest (0.3) that runs toolgen serve
 *   adapters/openai.tools.json         array of the OpenAI tool definitions
 *   adapters/anthropic.tools.json      array of the Anthropic tool definitions
 *   skill/<name>/SKILL.md              Agent Skills entry point
 *   skill/<name>/references/<tool>.md  one reference page per tool
 * Manifests may come in any order (output is sorted by tool name); two with one name fail.
 * The caller decides which tools to publish (e.g. only promoted ones) by what it passes.
 */
int tg_emit_aggregate(const tg_manifest *const *ms, size_t n, const tg_project_info *repo,
                      tg_emit_files *out, tg_err *err);

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

/* ---- building blocks (also used by toolgen serve, so that it answers like the fixtures) ------ */

/* The description every client sees: the one-line description, then WHEN TO USE, WHEN NOT TO
 * USE, WHAT IT DOES, RETURNS and PREREQUISITES sections as plain text. Heap string. */
char *tg_emit_description(const tg_manifest *m);
/* The same within max characters (0: no limit): a section that does not fit is left out whole
 * (the one-line description always stays; the manifest schema caps it at 1024). */
char *tg_emit_description_max(const tg_manifest *m, size_t max);
/* Deep copy of a tool schema for clients: without x-toolgen-* keywords, and without the root's
 * $schema / $id (the clients' formats define the dialect). */
cJSON *tg_emit_client_schema(const cJSON *schema);
/* input.schema.json / output.schema.json content (output == false: input). */
cJSON *tg_emit_contract_schema(const tg_manifest *m, bool output);
/* The MCP (2025-11-25) Tool object. */
cJSON *tg_emit_mcp_tool(const tg_manifest *m);
/* {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}} */
cJSON *tg_emit_call_request(const char *tool, const cJSON *args);
/* The CallToolResult of a successful call that returned output. */
cJSON *tg_emit_call_result(const cJSON *output);
/* {"type":"function","function":{name, description, parameters, strict}}; mode may be NULL. */
cJSON *tg_emit_openai_tool(const tg_manifest *m, tg_openai_mode *mode);
/* {"name", "description", "input_schema"} */
cJSON *tg_emit_anthropic_tool(const tg_manifest *m);

/* constraints with their schema defaults: read_only true, network false (true for http). */
bool tg_emit_read_only(const tg_manifest *m);
bool tg_emit_network(const tg_manifest *m);
/* Refused with FORBIDDEN when READ_ONLY=1: not read-only, or risk high. */
bool tg_emit_refused_in_read_only(const tg_manifest *m);
/* The environment variable an http tool reads its credential from; NULL when none. */
const char *tg_emit_auth_env(const tg_manifest *m);
/* The distinct credential variables of the tools, sorted. *out is a heap array of borrowed
 * strings (free the array only); returns the count. */
size_t tg_emit_auth_envs(const tg_manifest *const *ms, size_t n, const char ***out);
/* The deterministic error codes of the tool: its error_codes in the fixed order of the error
 * model, plus INVALID_INPUT and INTERNAL_ERROR, which every call can return. Heap array of static
 * strings; returns the count. */
size_t tg_emit_error_codes(const tg_manifest *m, const char ***out);
/* repo->description, or a generic sentence when it has none. */
const char *tg_emit_repo_description(const tg_project_info *repo);

/*
 * SKILL.md and references/<tool>.md for manifests already sorted by name and unique (as
 * tg_emit_aggregate passes them).
 */
int tg_emit_skill(const tg_manifest *const *sorted, size_t n, const tg_project_info *repo,
                  tg_emit_files *out, tg_err *err);

#endif
