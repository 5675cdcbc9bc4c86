/*
 * pack.h — `toolgen pack`: the repository and the server that runs it as one MCP Bundle
 * (.mcpb), the ZIP archive MCP clients install with one click (docs/mcp.md#pack).
 *
 * The bundle mirrors an installed toolgen next to the repository:
 *
 *   manifest.json                 generated/mcp/manifest.json (what `toolgen build` emitted),
 *                                 its server section pointing into the bundle
 *   bin/toolgen                   this executable
 *   share/toolgen/schemas/...     toolgen's schemas, share/toolgen/runtime/ the runners
 *   repo/toolgen.yaml, repo/<manifests>/..., repo/prompts/..., repo/<data dirs>/...
 *
 * and the client starts `${__dirname}/bin/toolgen -C ${__dirname}/repo serve --dev`. Files are
 * read through the repository's root fd; hidden files and symbolic links are left out. A
 * repository whose tools reach an external service (http tools, network: true) must name the
 * services' privacy policies (project.privacy_policies in toolgen.yaml).
 */
#ifndef TG_SERVE_PACK_H
#define TG_SERVE_PACK_H

#include <stddef.h>

#include "base/util.h"
#include "model/repo.h"

typedef struct tg_pack_info {
    size_t files;  /* in the bundle */
    size_t bytes;  /* the bundle's size */
} tg_pack_info;

/*
 * Writes the bundle of repo (opened with its config) to out (a path under out_dirfd, written
 * atomically). -1 with err naming what is missing and the fix: generated/mcp/manifest.json not
 * built, toolgen's data files not found, privacy policies missing, a ZIP limit passed.
 */
int tg_serve_pack(const tg_repo *repo, int out_dirfd, const char *out, tg_pack_info *info,
                  tg_err *err);

#endif
