/*
 * tools.h — the set of tools toolgen serve offers from manifests: the working tree's (here) or
 * the registry's snapshots (serve/regtools.h). Calls are serve/toolcall.h; the set is offered to
 * clients by a provider (serve/toolprov.h).
 *
 * A tool set is loaded once and then only read: each tool keeps its bound manifest, its
 * compiled input and output schemas and its MCP Tool object (built by emit/'s
 * tg_emit_mcp_tool, so tools/list shows exactly what generated/<tool>/mcp.tool.json shows).
 * Tools are sorted by name, which is the deterministic order of tools/list (docs/mcp.md).
 */
#ifndef TG_SERVE_TOOLS_H
#define TG_SERVE_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "model/manifest.h"
#include "schema/jsonschema.h"
#include "model/repo.h"

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

#endif
