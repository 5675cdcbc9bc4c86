/*
 * complete.h — completion/complete of toolgen serve: suggestions for a prompt's arguments and
 * for the {tool} of the resource templates (docs/mcp.md#completion).
 *
 * What an argument completes to is the template's choice (tg_prompt_complete, serve/prompts.h):
 * the names of the served tools, or the files under the data directories (sandbox.data_dirs of
 * toolgen.yaml) as a tool's path argument takes them ("data/iris.csv"). The data directories
 * are read at each request (files come and go), through the repository's root fd, without
 * following symbolic links, at most TG_COMPLETE_MAX_DEPTH folders deep and
 * TG_COMPLETE_MAX_SCAN entries in all, so a huge folder cannot stall the server.
 *
 * A value matches when it starts with what the user typed, or its last path component does;
 * matches are sorted, and at most 100 are returned with the total and hasMore, as MCP caps it.
 */
#ifndef TG_SERVE_COMPLETE_H
#define TG_SERVE_COMPLETE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "serve/prompts.h"
#include "serve/tools.h"

#define TG_COMPLETE_MAX_VALUES 100 /* per reply (MCP's cap) */
#define TG_COMPLETE_MAX_DEPTH 8
#define TG_COMPLETE_MAX_SCAN 20000

/* Where suggestions come from; everything is borrowed and only read. */
typedef struct tg_serve_completion {
    const tg_serve_tools *tools;
    const tg_serve_prompts *prompts;   /* NULL: no prompts */
    int root_fd;                       /* the repository (data directories are relative to it) */
    char *const *data_dirs;            /* sandbox.data_dirs as written ("data/") */
    size_t n_data_dirs;
    const char *resource_prefix;       /* the resource templates' URIs start with it */
} tg_serve_completion;

/*
 * The CompleteResult of completion/complete with params {ref: {type: "ref/prompt", name} |
 * {type: "ref/resource", uri}, argument: {name, value}, context?}. NULL when params do not fit
 * (a missing or malformed ref or argument, an unknown prompt, template or argument), with why
 * (for a -32602 reply) in msg. An argument that completes to nothing gets an empty list.
 */
cJSON *tg_serve_complete(const tg_serve_completion *c, const cJSON *params, char *msg,
                         size_t msg_size);

#endif
