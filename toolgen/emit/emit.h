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
 *
 * This header is the whole public API: the two entry points below, and the building blocks of
 * the emitters they call (common.h at the bottom; emit_mcp.h, emit_adapters.h and emit_skill.h
 * on top of it, independent of each other), which toolgen serve reuses to answer like the
 * fixtures.
 */
#ifndef TG_EMIT_H
#define TG_EMIT_H

#include "emit/common.h"
#include "emit/emit_adapters.h"
#include "emit/emit_mcp.h"
#include "emit/emit_skill.h"

/* ---- the two entry points ------------------------------------------------------------------- */

/*
 * Per-tool outputs, all under "<tool>/":
 *   input.schema.json, output.schema.json   the contract schemas ($schema 2020-12, $id urn)
 *   mcp.tool.json                           the MCP Tool object, as tools/list returns it
 *   openai.json, openai.responses.json      OpenAI tool definitions (Chat Completions, Responses)
 *   anthropic.json                          the Anthropic tool definition
 *   golden/<example>.request.json           JSON-RPC tools/call request of each example
 *   golden/<example>.response.json          the JSON-RPC response with the expected result
 * Appended to out in that order; nothing is appended when it fails.
 */
int tg_emit_tool(const tg_manifest *m, tg_emit_files *out, tg_err *err);

/*
 * Repository-wide outputs:
 *   mcp/tools.json                     the tools/list result {"tools": [...]}
 *   mcp/manifest.json                  MCP Bundle manifest (0.4) that runs toolgen serve
 *   adapters/openai.tools.json         array of the OpenAI tool definitions (Chat Completions)
 *   adapters/openai.responses.tools.json  the same for the Responses API
 *   adapters/anthropic.tools.json      array of the Anthropic tool definitions
 *   skill/<name>/SKILL.md              Agent Skills entry point
 *   skill/<name>/references/<tool>.md  one reference page per tool
 *   mcp/server.json                    the server's entry for the official MCP registry (it
 *                                      depends on the project alone: emit_registry.h)
 * Manifests may come in any order (output is sorted by tool name); two with one name fail.
 * The caller decides which tools to publish (e.g. only promoted ones) by what it passes.
 * The same as tg_emit_tool_fragment of each, then tg_emit_aggregate_fragments.
 */
int tg_emit_aggregate(const tg_manifest *const *ms, size_t n, const tg_project_info *repo,
                      tg_emit_files *out, tg_err *err);

/*
 * What the tool contributes to the repository-wide files, as a fragment file (common.h,
 * "per-tool fragments"; heap, *len bytes): depends on the tool alone, so a build re-renders
 * only the fragments of the tools that changed. NULL with err when the tool fails the checks.
 */
char *tg_emit_tool_fragment(const tg_manifest *m, size_t *len, tg_err *err);
/*
 * The repository-wide outputs above from the tools' fragments (parsed, sorted by name, names
 * unique: anything else fails), appended to out in that order: pieces are copied, never
 * parsed, so this costs about the bytes it writes. Nothing is appended when it fails.
 */
int tg_emit_aggregate_fragments(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                                tg_emit_files *out, tg_err *err);
/* The same without the reference pages and server.json (every file listed above but the last
 * two), for a caller that knows which tools' pages are unchanged: a page is its tool's
 * TG_PIECE_REFERENCE, whole; server.json is tg_emit_registry_server's. pos (NULL, or
 * n * TG_PIECE_COUNT entries) receives where each piece went (common.h, TG_EMIT_NOWHERE). */
int tg_emit_aggregate_shared(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                             tg_emit_files *out, size_t *pos, tg_err *err);
/* Where the registry's server.json goes, under generated/. */
#define TG_EMIT_SERVER_JSON "mcp/server.json"
/* "skill/<repo name>/references/<tool>.md" (heap): where a tool's reference page goes. */
char *tg_emit_reference_path(const tg_project_info *repo, const char *tool);

/* input.schema.json / output.schema.json content (output == false: input). */
cJSON *tg_emit_contract_schema(const tg_manifest *m, bool output);

#endif
