/*
 * tools.h — the tools toolgen serve offers, and one tools/call turned into a CallToolResult.
 *
 * A tool set is loaded once at start-up and then only read: each tool keeps its bound manifest,
 * its compiled input and output schemas and its MCP Tool object (built by emit/'s
 * tg_emit_mcp_tool, so tools/list shows exactly what generated/<tool>/mcp.tool.json shows).
 * Tools are sorted by name, which is the deterministic order of tools/list (docs/mcp.md).
 *
 * A call is run through a tg_serve_run_fn: in the server that is the sandbox
 * (tg_serve_run_sandbox over run/toolrun.h, the path `toolgen run` takes); unit tests pass a
 * fake so the protocol can be driven without processes. Whatever happens in the tool, the
 * outcome is a CallToolResult: failures are results with isError true carrying
 * {"error": {code, message, guidance, resources}} — for arguments that do not fit inputSchema
 * {code, message, problems: [{pointer, message}]} — as a readable text block and as serialised
 * JSON, and in structuredContent when the tool's outputSchema admits it (MCP requires
 * structuredContent to conform to outputSchema, error results included, and the SDK clients
 * enforce it).
 */
#ifndef TG_SERVE_TOOLS_H
#define TG_SERVE_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "model/manifest.h"
#include "run/warmpool.h"
#include "run/toolrun.h"
#include "schema/jsonschema.h"
#include "serve/artifacts.h"

typedef struct tg_serve_tool {
    tg_manifest m;             /* loaded and bound */
    js_schema *input, *output; /* compiled from m's schemas */
    cJSON *tool;               /* the MCP Tool object */
} tg_serve_tool;

typedef struct tg_serve_tools {
    tg_serve_tool *v; /* sorted by name */
    size_t n;
    js_registry *reg; /* owns what the schemas reference */
    char **skipped;   /* "NAME: why" for each manifest left out, in name order */
    size_t n_skipped;
} tg_serve_tools;

/* Where the tools come from (docs/mcp.md#tool-sources). */
typedef enum tg_serve_source {
    TG_SERVE_SOURCE_REGISTRY, /* the promoted tools: the active registry's snapshots */
    TG_SERVE_SOURCE_STAGING,  /* those, and the STAGED and APPROVED candidates, marked */
    TG_SERVE_SOURCE_DEV,      /* the working tree's manifests */
} tg_serve_source;

/*
 * The registry (lifecycle/registry.h): each promoted tool served from its snapshot — spec.json,
 * the IR the user approved, and the code beside it — never from the working tree. Each snapshot
 * is checked against its recorded SHA-256 first; a tampered or incomplete one is left out and
 * listed in t->skipped with the problem and the fix. With staging, every STAGED or APPROVED
 * candidate is served too, in place of the active version of the same tool: its title and
 * description say it is a staged candidate awaiting approval and its _meta carries
 * "dev.toolgen/lifecycle": {state, version}. -1 with err only when a metadata file cannot be
 * read (the registry's paths or schemas are wrong).
 */
int tg_serve_tools_load_registry(tg_serve_tools *t, const tg_repo *repo, bool staging,
                                 tg_err *err);
/* tg_serve_tools_load_dev or tg_serve_tools_load_registry, by source. */
int tg_serve_tools_load(tg_serve_tools *t, const tg_repo *repo, tg_serve_source source,
                        tg_err *err);

/*
 * --dev: every tool of the repository's paths.manifests (one folder per tool holding
 * tool.manifest.yaml) that lints cleanly; the others are listed in t->skipped with their first
 * problem. The repository is opened with its config (model/repo.h); paths are relative to its
 * root, whatever the working directory. -1 with err only when nothing could be read (no such
 * folder, toolgen's own schemas missing).
 */
int tg_serve_tools_load_dev(tg_serve_tools *t, const tg_repo *repo, tg_err *err);
void tg_serve_tools_free(tg_serve_tools *t);
/* The tool of that name, or NULL. */
const tg_serve_tool *tg_serve_tools_find(const tg_serve_tools *t, const char *name);

/* Runs one validated call; the same contract as tg_tool_call_run (run/toolrun.h). */
typedef tg_call_status (*tg_serve_run_fn)(void *ctx, const tg_tool_call *call,
                                          tg_call_result *out, tg_err *err);
/* The real runner: ctx is a tg_toolrun_ctx (tg_toolrun_env.ctx). */
tg_call_status tg_serve_run_sandbox(void *ctx, const tg_tool_call *call, tg_call_result *out,
                                    tg_err *err);
/* The server's runner: ctx is a tg_warmpool (run/warmpool.h) over the same tg_toolrun_ctx; a call has
 * the same result as through tg_serve_run_sandbox, from a warm worker when one is ready. */
tg_call_status tg_serve_run_pool(void *ctx, const tg_tool_call *call, tg_call_result *out,
                                 tg_err *err);
/* Starts a pool worker for each tool's dependency set ahead of the first call. */
void tg_serve_tools_prepare_pool(const tg_serve_tools *t, tg_warmpool *pool);

typedef struct tg_serve_call {
    tg_serve_run_fn run;
    void *run_ctx;
    bool read_only;                      /* refuse tools that are not read-only (FORBIDDEN) */
    const volatile sig_atomic_t *cancel; /* handed to the runner; may be NULL */
    tg_serve_artifacts *artifacts;       /* keeps the files calls write; NULL: dropped */
} tg_serve_call;

/*
 * The CallToolResult of calling tool with args (an object). The files a successful call wrote
 * are kept in how->artifacts (when set): the result gets a resource_link block per file, its
 * summary's links point at them, and PNG/JPEG files up to 1 MiB also come as image blocks. *code is set to the error code of a
 * failed call ("INVALID_INPUT", "FORBIDDEN", ...) or NULL on success; it points to static or
 * tool-owned storage. Never NULL.
 */
cJSON *tg_serve_tool_call(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                          const char **code);
/*
 * tg_serve_tool_call for a tool that may ask for input (serve/mrtr.h): answers ({key: value},
 * may be NULL) are handed to the runner; when the tool asks again, NULL is returned and *ask
 * gets its question {key, message, schema} (the caller's). With ask NULL a question is a tool
 * error, as in tg_serve_tool_call.
 */
/* A tool error result {"error": {code, message}} of tool (isError true). */
cJSON *tg_serve_tool_error(const tg_serve_tool *tool, const char *code, const char *message);
cJSON *tg_serve_tool_call_answered(const tg_serve_call *how, const tg_serve_tool *tool,
                                   const cJSON *args, const cJSON *answers, cJSON **ask,
                                   const char **code);

#endif
