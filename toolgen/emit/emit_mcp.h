/*
 * emit_mcp.h — the MCP side of generated/ (specification revision 2025-11-25): the Tool object
 * (mcp.tool.json), the tools/list result (mcp/tools.json), the CallToolResult of a call and the
 * golden response around it, and the MCP Bundle manifest (mcp/manifest.json).
 *
 * Built on common.h only. toolgen serve answers with these same functions, so that its replies
 * are byte for byte what the golden fixtures say. Inputs are bound manifests; every function
 * returns a new cJSON tree the caller owns. docs/emit.md, "mcp.tool.json" and
 * "mcp/manifest.json", explains each member.
 */
#ifndef TG_EMIT_MCP_H
#define TG_EMIT_MCP_H

#include "emit/artifact.h"
#include "emit/common.h"

/* The MCP Tool object. */
cJSON *tg_emit_mcp_tool(const tg_manifest *m);
/* {"tools": [the Tool of each manifest, in the order given]} */
cJSON *tg_emit_mcp_tools_list(const tg_manifest *const *ms, size_t n);
/*
 * The CallToolResult of a successful call that returned output: content holds the output's
 * summary_markdown (when it has one) as a text block, then the serialised JSON of the output as
 * another (MCP asks tools with structured results to return both); structuredContent is the
 * output, whole.
 */
cJSON *tg_emit_call_result(const cJSON *output);
/*
 * The same for a call whose files are handed out under a->base (a may be NULL, or have no
 * base: then exactly tg_emit_call_result): the summary's links to them point there, and each
 * file gets a resource_link block (uri, name = its path, mimeType) after the text. The JSON
 * block and structuredContent keep the tool's own values, which outputSchema describes. This
 * is the seam for toolgen serve's resources (docs/emit.md, "Artifacts").
 */
cJSON *tg_emit_call_result_for(const cJSON *output, const tg_emit_artifacts *a);
/* {"jsonrpc":"2.0","id":1,"result":<tg_emit_call_result(output)>}: a golden response. */
cJSON *tg_emit_call_response(const cJSON *output);
/* {"name", "description"}: a tool as the MCP Bundle manifest lists it. */
cJSON *tg_emit_mcp_bundle_tool(const tg_manifest *m);
/* The MCP Bundle manifest (0.4) that runs toolgen serve, as the file's bytes (heap), for tools
 * given as fragments sorted by name (their NAME, BUNDLE_TOOL and AUTH_ENV pieces). pos: as for
 * tg_emit_skill_md, the BUNDLE_TOOL pieces' offsets. */
char *tg_emit_mcp_bundle(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                         size_t *pos);

#endif
