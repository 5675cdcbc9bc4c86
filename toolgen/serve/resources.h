/*
 * resources.h — what toolgen serve offers as MCP resources: the Agent Skill (SKILL.md and one
 * reference page per tool) and each tool's input and output JSON Schemas, exactly as
 * generated/ holds them.
 *
 * They are emitted in memory from the served tools with emit/ (the same functions `toolgen
 * build` writes generated/ with), so in --dev they always match the working tree's manifests,
 * built or not. A resource's URI is "toolgen://generated/" followed by its path under
 * generated/ (docs/mcp.md, "Resources"); the set is built once and then only read. Sorted by
 * URI, which is the order of resources/list.
 */
#ifndef TG_SERVE_RESOURCES_H
#define TG_SERVE_RESOURCES_H

#include <stddef.h>

#include "base/util.h"
#include "model/config.h"
#include "serve/tools.h"

#define TG_SERVE_RESOURCE_PREFIX "toolgen://generated/"

typedef struct tg_serve_resource {
    char *uri;         /* TG_SERVE_RESOURCE_PREFIX + path */
    char *name;        /* the path under generated/ */
    char *description;
    const char *mime;  /* static: text/markdown, application/schema+json */
    char *text;        /* the content (UTF-8) */
} tg_serve_resource;

typedef struct tg_serve_resources {
    tg_serve_resource *v; /* sorted by uri */
    size_t n;
    char *skill_dir;      /* "skill/<name>", the folder of SKILL.md; NULL without tools */
} tg_serve_resources;

/* The resources of the tools in t for the project p. -1 with err when emitting failed. */
int tg_serve_resources_build(tg_serve_resources *r, const tg_serve_tools *t,
                             const tg_project_info *p, tg_err *err);
void tg_serve_resources_free(tg_serve_resources *r);
/* The resource with that URI, or NULL. */
const tg_serve_resource *tg_serve_resources_find(const tg_serve_resources *r, const char *uri);

#endif
