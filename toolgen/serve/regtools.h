/*
 * regtools.h — the registry's snapshots as the tool set of toolgen serve
 * (docs/mcp.md#tool-sources).
 */
#ifndef TG_SERVE_REGTOOLS_H
#define TG_SERVE_REGTOOLS_H

#include <stdbool.h>

#include "base/util.h"
#include "model/repo.h"
#include "serve/tools.h"

/*
 * The registry (lifecycle/registry.h): each promoted tool served from its snapshot — spec.json,
 * the IR the user approved, and the code beside it — never from the working tree. Each snapshot
 * is checked against its recorded SHA-256 first; a tampered or incomplete one is left out and
 * listed in t->skipped with the problem and the fix. With staging, every STAGED or APPROVED
 * candidate is served too — beside the promoted version of the same tool, as NAME_staged, so
 * that it hides nothing —: its title and description say it is a candidate and whether the
 * user approved it, and its _meta carries "dev.toolgen/lifecycle": {state, version}. -1 with err only when a metadata file cannot be
 * read (the registry's paths or schemas are wrong).
 */
int tg_serve_tools_load_registry(tg_serve_tools *t, const tg_repo *repo, bool staging,
                                 tg_err *err);
/* tg_serve_tools_load_dev or tg_serve_tools_load_registry, by source. */
int tg_serve_tools_load(tg_serve_tools *t, const tg_repo *repo, tg_serve_source source,
                        tg_err *err);

#endif
