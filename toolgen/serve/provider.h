/*
 * provider.h — where served tools come from: a table of providers, each {list, find, call}
 * (docs/mcp.md#tool-providers).
 *
 * The core answers tools/list and tools/call by looping over the config's providers in order,
 * knowing none of them: the workflow tools (serve/workflow.h), the tool set of the registry or
 * of the working tree (serve/toolprov.h), and the built-in toolsets next. A tool of an earlier
 * provider hides a later provider's tool of the same name, in the list and for calls.
 *
 * The core checks a call before it reaches the provider, once for every kind of tool: the tool
 * exists, read-only mode admits it, and the arguments fit the entry's compiled inputSchema. A
 * provider never validates them again. call runs with the core's lock held (serve/dispatch.h);
 * long work — a tool's process, a generation, a build — goes through tg_serve_unlocked with
 * rx->how.dispatch, so that the server answers other requests meanwhile.
 */
#ifndef TG_SERVE_PROVIDER_H
#define TG_SERVE_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "schema/jsonschema.h"
#include "serve/toolcall.h"

struct tg_serve_config;
struct tg_serve_session;

typedef enum tg_serve_era {
    TG_ERA_NONE = 0, /* not decided: malformed, or refused before the era was known */
    TG_ERA_LEGACY,
    TG_ERA_MODERN,
} tg_serve_era;

/* One request as a provider sees it. Everything is borrowed for the length of the call. */
typedef struct tg_serve_rx {
    const struct tg_serve_config *c; /* pinned to the tool set the request began with */
    struct tg_serve_session *s;      /* the legacy session; NULL in the 2026-07-28 era */
    const cJSON *id;                 /* the request's id */
    const cJSON *params;             /* the request's params (an object, or NULL) */
    tg_serve_era era;
    tg_serve_call how; /* c->call with this request's cancel flag and dispatch */
} tg_serve_rx;

/* What a tools/call comes to. Exactly one of result, rpc_error is set. */
typedef struct tg_serve_outcome {
    cJSON *result;    /* a CallToolResult, or an InputRequiredResult (2026-07-28) */
    int rpc_error;    /* a JSON-RPC error code, message in msg */
    cJSON *rpc_data;  /* with rpc_error: the error's data (taken); NULL: none */
    char msg[512];
    const char *code; /* a tool error's code for the log (static); NULL on success */
} tg_serve_outcome;

/* One tool of a provider: what the core needs to list, check and call it. */
typedef struct tg_serve_entry {
    const cJSON *tool;        /* the MCP Tool object tools/list shows */
    const char *name;
    const js_schema *input;   /* the arguments must fit it; NULL: any object */
    const js_schema *output;  /* an error result keeps structuredContent only when it fits;
                               * NULL: the tool has no outputSchema */
    bool writes;              /* not read-only: refused when the server is read-only */
    bool task_asks_first;     /* a task-supporting tool (tool's execution.taskSupport) whose
                               * questions are asked in the tools/call itself, and whose retry
                               * with the answers becomes the task (serve/tasks.h) */
    const void *impl;         /* the provider's own */
} tg_serve_entry;

/* Receives the tools of list in the order tools/list shows them. */
typedef void (*tg_serve_add_fn)(void *ud, const char *name, const cJSON *tool);

typedef struct tg_serve_provider {
    const char *name; /* for logs and docs: "workflow", "tools", ... */
    void *self;
    /* Hands add every tool offered now (the Tool objects stay valid while rx does). */
    void (*list)(void *self, const tg_serve_rx *rx, tg_serve_add_fn add, void *ud);
    /* The tool called name into *out; false when the provider has none of that name. */
    bool (*find)(void *self, const tg_serve_rx *rx, const char *name, tg_serve_entry *out);
    /* Calls e (found by find in this request) with args (checked, an object); fills *out. */
    void (*call)(void *self, const tg_serve_rx *rx, const tg_serve_entry *e, const cJSON *args,
                 tg_serve_outcome *out);
} tg_serve_provider;

#endif
