/*
 * emit_registry.h — generated/mcp/server.json: the repository's server as the official MCP
 * registry describes one (server.json, schema 2025-12-11), its package the MCP Bundle that
 * `toolgen pack` writes, run over stdio.
 *
 * Built on common.h only; it depends on toolgen.yaml's project section alone, never on the
 * tools. docs/emit.md, "mcp/server.json", explains each member and what the registry's own
 * checks add (a namespace the publisher owns, the bundle's download URL and SHA-256).
 */
#ifndef TG_EMIT_REGISTRY_H
#define TG_EMIT_REGISTRY_H

#include <stddef.h>

#include "emit/common.h"

/* The $schema of the file, also the schema tests/testdata/mcp-registry/ holds. */
#define TG_REGISTRY_SCHEMA                                                                         \
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
/* The registry's limit on a server's description, in characters. */
#define TG_REGISTRY_DESCRIPTION_MAX 100

/* server.json for repo (a valid name and version, as tg_emit_aggregate checks), as the file's
 * bytes (heap). */
char *tg_emit_registry_server(const tg_project_info *repo);

/* The server's name in the registry, "namespace/name" (heap): project.registry_name when it
 * has that form, else io.github.OWNER/NAME (or io.gitlab.OWNER/NAME) of a repository on
 * GitHub (GitLab), else the home page's host reversed (com.example/NAME), else
 * local.toolgen/NAME, which no namespace check accepts. */
char *tg_emit_registry_name(const tg_project_info *repo);

/* text as a description of at most max characters (heap): itself when it fits, else its first
 * sentence when that fits, else cut after the last whole word that fits, with "…". */
char *tg_emit_registry_shorten(const char *text, size_t max);

#endif
