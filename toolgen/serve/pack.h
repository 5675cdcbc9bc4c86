/*
 * pack.h — `toolgen pack`: the repository and the server that runs it as one MCP Bundle
 * (.mcpb), the ZIP archive MCP clients install with one click (docs/mcp.md#pack).
 *
 * The bundle mirrors an installed toolgen next to the repository:
 *
 *   manifest.json                 the MCP Bundle manifest of the tools the bundle serves,
 *                                 emitted as `toolgen build` emits generated/mcp/manifest.json,
 *                                 its server section pointing into the bundle
 *   bin/toolgen                   this executable
 *   share/toolgen/schemas/...     toolgen's schemas, share/toolgen/runtime/ the runners
 *   repo/toolgen.yaml, repo/prompts/..., repo/<data dirs>/..., and what the server reads:
 *   repo/<active registry>/...    by default: the promoted tools, as `toolgen serve` serves them
 *   repo/<staging registry>/...   --staging (and the workflow): the candidates under review
 *   repo/<manifests>/...          --dev (and the workflow): the working tree's manifests
 *
 * and the client starts `${__dirname}/bin/toolgen -C ${__dirname}/repo serve [--staging|--dev]`,
 * with --no-workflow unless the workflow was asked for: what a user installs is what the user
 * approved, unless the packer said otherwise. Files are read through the repository's root fd;
 * hidden files and symbolic links are left out. A bundle whose tools reach an external service
 * (http tools, network: true) must name the services' privacy policies (project.privacy_policies
 * in toolgen.yaml).
 */
#ifndef TG_SERVE_PACK_H
#define TG_SERVE_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/sha256.h"
#include "base/strvec.h"
#include "base/util.h"
#include "model/repo.h"
#include "serve/tools.h"

typedef struct tg_pack_opts {
    tg_serve_source source; /* what the bundle serves: the promoted tools by default */
    bool workflow;          /* keep the workflow tools toolgen.yaml turns on (serve.workflow) */
} tg_pack_opts;

typedef struct tg_pack_info {
    size_t files;  /* in the bundle */
    size_t bytes;  /* the bundle's size */
    char sha256[TG_SHA256_HEX]; /* the bundle's SHA-256: server.json's fileSha256 */
    tg_strv tools; /* what it serves: "NAME vVERSION", "NAME vVERSION (STAGED)" for a candidate */
    tg_strv skipped; /* "WHERE: why" of each tool its source holds but the server leaves out */
} tg_pack_info;

/*
 * Writes the bundle of repo (opened with its config) to out (a path under out_dirfd, written
 * atomically), filling info (release it with tg_pack_info_release, also after a failure). -1
 * with err naming what is wrong and the fix: nothing to serve (no promoted tool), the workflow
 * asked for but not turned on, toolgen's data files not found, privacy policies missing, a ZIP
 * limit passed.
 */
int tg_serve_pack(const tg_repo *repo, const tg_pack_opts *opts, int out_dirfd, const char *out,
                  tg_pack_info *info, tg_err *err);
void tg_pack_info_release(tg_pack_info *info);

#endif
