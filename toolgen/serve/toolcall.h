/*
 * toolcall.h — one tools/call of a served tool (serve/tools.h) turned into a CallToolResult, and
 * the error results every provider's calls share.
 *
 * A call is run through a tg_serve_run_fn: in the server that is the warm pool over the sandbox
 * (tg_serve_run_pool, run/warmpool.h; tg_serve_run_sandbox is the plain path `toolgen run`
 * takes); unit tests pass a fake so the protocol can be driven without processes. The run lets
 * go of the server's core lock while the tool's process works (tg_serve_unlocked,
 * serve/dispatch.h). Whatever happens in the tool, the outcome is a CallToolResult: failures
 * are results with isError true carrying {"error": {code, message, guidance, resources}} — for
 * arguments that do not fit inputSchema {code, message, problems: [{pointer, message}]} — as a
 * readable text block and as serialised JSON, and in structuredContent when the tool's
 * outputSchema admits it (MCP requires structuredContent to conform to outputSchema, error
 * results included, and the SDK clients enforce it).
 */
#ifndef TG_SERVE_TOOLCALL_H
#define TG_SERVE_TOOLCALL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "run/toolrun.h"
#include "run/warmpool.h"
#include "schema/jsonschema.h"
#include "serve/artifacts.h"
#include "serve/tools.h"

struct tg_serve_dispatch;
struct tg_serve_call_slot;

/* What a client can be asked (its capabilities), as tg_serve_call.client_can bits. */
enum { TG_CLIENT_ELICITS = 1, TG_CLIENT_SAMPLES = 2, TG_CLIENT_ROOTS = 4 };

/* Runs one validated call; the same contract as tg_tool_call_run (run/toolrun.h). */
typedef tg_call_status (*tg_serve_run_fn)(void *ctx, const tg_tool_call *call,
                                          tg_call_result *out, tg_err *err);
/* The plain runner: ctx is a tg_toolrun_ctx (tg_toolrun_env.ctx). */
tg_call_status tg_serve_run_sandbox(void *ctx, const tg_tool_call *call, tg_call_result *out,
                                    tg_err *err);
/* The server's runner: ctx is a tg_warmpool (run/warmpool.h) over the same tg_toolrun_ctx; a
 * call has the same result as through tg_serve_run_sandbox, from a warm worker when one is
 * ready. */
tg_call_status tg_serve_run_pool(void *ctx, const tg_tool_call *call, tg_call_result *out,
                                 tg_err *err);
/* Starts a pool worker for each tool's dependency set ahead of the first call. */
void tg_serve_tools_prepare_pool(const tg_serve_tools *t, tg_warmpool *pool);

/* How calls run. The server's config holds one; the core hands each request a copy with the
 * request's own cancel flag and dispatch. */
typedef struct tg_serve_call {
    tg_serve_run_fn run;
    void *run_ctx;
    bool read_only;                      /* refuse tools that are not read-only (FORBIDDEN) */
    const volatile sig_atomic_t *cancel; /* handed to the runner; may be NULL */
    tg_serve_artifacts *artifacts;       /* keeps the files calls write; NULL: dropped */
    uint64_t client;                     /* who asked: the files the call writes are theirs
                                          * (serve/artifacts.h); 0: no one known */
    struct tg_serve_dispatch *dispatch;  /* whose core lock the caller holds and the run lets
                                          * go of (serve/dispatch.h); NULL: none */
    const char *revision;                /* the client's protocol revision (a legacy one, or
                                          * "2026-07-28"); NULL: not known */
    unsigned client_can;                 /* TG_CLIENT_* the client declared */
    int log_level;                       /* the lowest level of log message the client wants
                                          * (serve/clientlog.h); TG_LOG_OFF: none */
    struct tg_serve_call_slot *slot;     /* the call in flight, for its notifications
                                          * (serve/dispatch.h); NULL: none can be sent */
} tg_serve_call;

/*
 * The CallToolResult of calling tool with args, an object the caller checked against the
 * tool's inputSchema (the core does, once, for every provider). The files a successful call
 * wrote are kept in how->artifacts (when set): the result gets a resource_link block per file,
 * its summary's links point at them, and images, audio and small text files also come as
 * image, audio and embedded resource blocks (serve/content.h).
 * *code is set to the error code of a failed call ("INTERNAL_ERROR", "TIMEOUT", ...) or NULL
 * on success; it points to static or tool-owned storage. Never NULL.
 */
cJSON *tg_serve_tool_call(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                          const char **code);
/*
 * tg_serve_tool_call for a tool that may ask for input (serve/mrtr.h): answers ({key: value},
 * may be NULL) are handed to the runner; when the tool asks again, NULL is returned and *ask
 * gets its question {key, message, schema} (the caller's). With ask NULL a question is a tool
 * error, as in tg_serve_tool_call.
 */
cJSON *tg_serve_tool_call_answered(const tg_serve_call *how, const tg_serve_tool *tool,
                                   const cJSON *args, const cJSON *answers, cJSON **ask,
                                   const char **code);

/* A tool error result {"error": {code, message}} (isError true); structuredContent only when
 * output (the tool's compiled outputSchema; NULL: none) admits it. */
cJSON *tg_serve_error_result(const js_schema *output, const char *code, const char *message);
/* The INVALID_INPUT result for arguments that do not fit inputSchema: one {pointer, message}
 * per problem, so a model can correct exactly those; fitted to output as above. */
cJSON *tg_serve_input_error_result(const js_schema *output, const js_errors *errs);

#endif
