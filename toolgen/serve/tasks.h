/*
 * tasks.h — the tasks extension of 2026-07-28, io.modelcontextprotocol/tasks (SEP-2663;
 * docs/mcp.md#tasks): a long tools/call becomes a task the client polls (tasks/get), answers
 * (tasks/update) and cancels (tasks/cancel), so that no request has to stay open while a tool,
 * a generation or a build works.
 *
 * Which calls: a tool whose Tool object says execution.taskSupport "optional" or "required"
 * (a manifest's task.support), called by a client whose request declares the extension in its
 * clientCapabilities. The server decides, the client sends no hint: such a call is answered at
 * once with a CreateTaskResult (resultType "task", the task's fields at the top level) and runs
 * on the dispatch's workers as a tools/call of its own (tg_serve_dispatch_spawn, id
 * "toolgen-task-<taskId>-<run>"), which the core runs in the foreground. A client without the
 * extension gets the plain result ("optional"), or MissingRequiredClientCapability (-32021)
 * ("required").
 *
 * A run's reply decides the task's status: a CallToolResult (isError or not) completes it, the
 * result inlined in tasks/get; a JSON-RPC error fails it, the error inlined; an
 * InputRequiredResult (the tool asked, serve/mrtr.h) parks it in input_required with the
 * questions in inputRequests — tasks/update answers them, one or several at a time, and once
 * every question of the round is answered the next run starts with the answers and the
 * round's requestState (which never leaves the server). tasks/cancel stops the run and settles
 * the task as cancelled at once; on a finished task it is a no-op.
 *
 * Task ids are 128 random bits: whoever knows one may poll it (2026-07-28 has no sessions).
 * A task is kept TG_TASKS_TTL_MS after it ends, or after it began to wait for answers; at most
 * TG_TASKS_MAX are kept, beyond which a call runs in the foreground instead. Thread-safe (one leaf mutex); the dispatch's calls end
 * through it, so the store must outlive the dispatch.
 */
#ifndef TG_SERVE_TASKS_H
#define TG_SERVE_TASKS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "serve/provider.h"

#define TG_TASKS_EXTENSION "io.modelcontextprotocol/tasks"
#define TG_TASKS_TTL_MS 3600000L  /* a finished task is kept an hour (its ttlMs) */
#define TG_TASKS_POLL_MS 1000L    /* pollIntervalMs: how often a client should ask */
#define TG_TASKS_MAX 1024         /* tasks kept at once */

struct tg_serve_dispatch;
typedef struct tg_serve_tasks tg_serve_tasks;

/* NULL when no random source is available. */
tg_serve_tasks *tg_serve_tasks_new(void);
/* After the dispatch stopped (no run can end any more). NULL is a no-op. */
void tg_serve_tasks_free(tg_serve_tasks *t);

/* Whether a request's clientCapabilities declare the extension. */
bool tg_serve_tasks_declared(const cJSON *caps);
/* A Tool object's execution.taskSupport: 0 none ("forbidden" or absent), 1 "optional",
 * 2 "required". */
int tg_serve_task_support(const cJSON *tool);
/* The data of MissingRequiredClientCapability for a client without the extension (heap). */
cJSON *tg_serve_tasks_required_data(void);

/* Whether id is that of a task's run in flight: the core then runs the call itself. */
bool tg_serve_tasks_is_run(tg_serve_tasks *t, const cJSON *id);

/*
 * A task for tools/call params (copied: name, arguments, _meta, and inputResponses and
 * requestState of a retry), its first run spawned on d (whose core lock the caller holds).
 * Returns the CreateTaskResult (heap), or NULL when TG_TASKS_MAX tasks are kept.
 */
cJSON *tg_serve_tasks_start(tg_serve_tasks *t, struct tg_serve_dispatch *d, const cJSON *params);

/*
 * tasks/get, tasks/update or tasks/cancel (method) with params, for a client that declared the
 * extension: out->result is the reply's result (DetailedTask, or the empty ack), or
 * out->rpc_error is set (-32602 for an unknown task or bad params). False when method is none
 * of the three.
 */
bool tg_serve_tasks_request(tg_serve_tasks *t, struct tg_serve_dispatch *d, const char *method,
                            const cJSON *params, tg_serve_outcome *out);

#endif
