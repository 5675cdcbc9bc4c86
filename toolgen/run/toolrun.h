/*
 * toolrun.h — one call of a tool, end to end: arguments checked against input_schema (defaults
 * applied), path arguments checked and mounted, the implementation run in the sandbox through
 * toolgen's runner, the result checked against output_schema, files and the visualization
 * manifest collected, the outcome classified with guidance and a resource analysis.
 *
 * This is what `toolgen run` prints and what the build's test stage runs for every example and
 * test. Thread-safe in the same way as the sandbox: a context is read-only and may be shared by
 * worker threads; compiled schemas (js_schema) are immutable.
 */
#ifndef TG_TOOLRUN_H
#define TG_TOOLRUN_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "run/guidance.h"
#include "schema/jsonschema.h"
#include "base/doc.h"
#include "model/manifest.h"
#include "run/sandbox.h"

/*
 * The model a prompt tool (the llm runtime, docs/code-edit.md) sends its prompt to. run/ knows
 * no provider: the program that runs calls provides the port (app/modelport.h wires the
 * repository's llm configuration). The port is shared by threads: both functions may run in
 * several at once.
 */
typedef enum tg_model_route {
    TG_MODEL_HOSTED = 0, /* complete() asks a provider toolgen is configured for */
    TG_MODEL_CLIENT,     /* the calling MCP client's own model answers (sampling/createMessage) */
} tg_model_route;

typedef struct tg_model_pick {
    tg_model_route route;
    char provider[32];   /* "openai", "anthropic", "replay", "sampling" */
    char model[128];     /* the model asked for; "" with the client route: the client's choice */
} tg_model_pick;

typedef struct tg_model_answer {
    char *text;          /* heap */
    char *model;         /* who answered, "provider/model" (heap) */
    int tokens_in, tokens_out; /* -1: not reported (a cached answer) */
    bool cached;
} tg_model_answer;

typedef struct tg_model_port {
    /*
     * The route of a call that asks for provider and model (NULL or "": the configured ones);
     * client_samples: the client offers sampling. -1 with err, a sentence for the caller, when
     * the request names a provider or model that is not configured (err names those that
     * are), when the provider writes no free-form code (the built-in generator), or when the
     * configuration keeps code away from it (snippets.allow_external).
     */
    int (*resolve)(void *ud, const char *provider, const char *model, bool client_samples,
                   tg_model_pick *pick, tg_err *err);
    /* One answer on the hosted route of pick. Every complete answer is one (and cached), one
     * without a code block too: the runtime judges it.
     * 0 with a (tg_model_answer_release), -1 with err (the provider's message, no secret). */
    int (*complete)(void *ud, const tg_model_pick *pick, const char *system, const char *user,
                    tg_model_answer *a, tg_err *err);
    void *ud;
    int max_rounds; /* answers a call may ask for, the first and its repairs (1..5) */
} tg_model_port;

void tg_model_answer_release(tg_model_answer *a);

typedef struct tg_toolrun_ctx {
    const tg_sandbox_config *sandbox;
    const js_schema *visualization; /* schemas/visualization_manifest.schema.json; NULL: unchecked */
    const cJSON *allowed_imports;   /* static_check.allowed_imports; NULL: not judged */
    const cJSON *code;              /* toolgen.yaml's code section (docs/code.md); NULL: defaults */
    struct tg_sessions *sessions;   /* the code runtime's sessions (run/session.h); NULL: none
                                     * can be made */
    const tg_model_port *model;     /* what prompt tools ask; NULL: they fail, saying so */
    /* warm workers a runtime may run toolgen's own helper tools through (the llm runtime's
     * snippet checker); NULL: they run cold. The pool's own calls see it too. */
    struct tg_warmpool *pool;
    const cJSON *web;               /* toolgen.yaml's web section (docs/web.md); NULL: no host
                                     * is allowed */
    struct tg_ratelimit *web_rate;  /* web_fetch's requests per minute (net/ratelimit.h);
                                     * NULL: the default limit, per call site */
} tg_toolrun_ctx;

/*
 * What a program sets up once to run calls: the sandbox configuration from toolgen.yaml (config
 * may be NULL) for the repository repo (the sandbox binds its absolute path), and the compiled
 * visualization-manifest schema.
 * env->ctx is ready to use afterwards and may be shared by threads; close after the last call.
 */
typedef struct tg_toolrun_env {
    tg_sandbox_config sandbox;
    js_registry *reg;
    js_schema *visualization;
    tg_doc visualization_doc;
    struct tg_sessions *sessions; /* code.sessions: every session ends with the env */
    struct tg_ratelimit *web_rate; /* web.requests_per_minute, for every call of the env */
    tg_toolrun_ctx ctx;
} tg_toolrun_env;

int tg_toolrun_env_open(tg_toolrun_env *env, const tg_repo *repo, const cJSON *config,
                        tg_err *err);
void tg_toolrun_env_close(tg_toolrun_env *env);

typedef struct tg_tool_call {
    const tg_manifest *m;
    const js_schema *input, *output; /* the manifest's compiled schemas */
    const cJSON *args;               /* the arguments as given (an object) */
    bool args_valid;                 /* the caller checked args against input (the server does,
                                      * once, before the call): not checked again */
    const volatile sig_atomic_t *cancel; /* see tg_sandbox_cmd.cancel; may be NULL */
    /* Answers to the questions the tool asked in earlier attempts of this call ({key: value}),
     * handed to the runner, where toolgen_helpers.ask(key, ...) returns them; NULL: none.
     * docs/sandbox.md#asking-for-input */
    const cJSON *answers;
    /* What the tool may know of the client that called it ({"elicitation", "sampling",
     * "roots": bool, "log_level": the lowest level it wants}), handed to the runner, where
     * toolgen_helpers.client_can and log read it; NULL: none (a call outside toolgen serve). */
    const cJSON *client;
    /* What the tool reports while it runs (toolgen_helpers.log and progress): each event, a
     * JSON object {"event": "log" | "progress", ...}, from the thread that runs the call.
     * NULL: the events are not looked at. docs/sandbox.md#the-runner */
    void (*on_event)(void *ctx, const cJSON *event);
    void *event_ctx;
    /* Who calls (serve's client identity, serve/core.h): a code session is usable only by the
     * client that created it (run/session.h); 0: not known. */
    uint64_t client_id;
} tg_tool_call;

#define TG_ASK_MAX 16 /* questions a tool may ask at once */

typedef struct tg_call_result {
    bool ok;                 /* result is set and fits output_schema */
    bool ran;                /* the implementation was started */
    cJSON *args;             /* the arguments with input_schema's top-level defaults applied */
    cJSON *result;           /* the tool's result (also when it broke output_schema) */
    cJSON *reply_error;      /* the runner's structured error (type, message, traceback, ...) */
    cJSON *ask;              /* the tool asked for input it lacks: [{key, method, params,
                              * field?}, ...] (MCP requests for the client: elicitation/create,
                              * sampling/createMessage, roots/list); the call is then not ok (an
                              * MCP server asks its client and calls again with the answers in
                              * tg_tool_call.answers) */
    tg_guidance guidance;    /* when !ok */
    tg_resources resources;
    tg_limits limits;
    tg_sandbox_result sb;    /* exit status, output, files, usage */
    cJSON *visualizations;   /* {"valid": bool, "manifest"?: ..., "errors"?: [...]}, or NULL */
    cJSON *session;          /* a code session's call: {session_id, restarted, ...}, or NULL */
    double analysis_us;      /* time spent classifying + analysing resources */
} tg_call_result;

typedef enum tg_call_status {
    TG_CALL_DONE = 0,        /* out is filled: ok, or a classified failure */
    TG_CALL_ENV = 1,         /* no sandbox / no interpreter here: err says what to install */
    TG_CALL_UNSUPPORTED = 2, /* a runtime this version cannot run (http) */
    TG_CALL_INTERNAL = 3,    /* toolgen itself failed (err) */
} tg_call_status;

tg_call_status tg_tool_call_run(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                                tg_call_result *out, tg_err *err);
void tg_call_result_free(tg_call_result *r);

/*
 * A batch: calls of ONE tool (one manifest, one pair of compiled schemas) run one after another,
 * each with the same result as tg_tool_call_run. A tool whose runtime runs warm (its
 * tg_runtime_ops.warm_argv, run/runtime_ops.h: python's) under bubblewrap with two calls or
 * more runs them in one warm sandbox (run/warm.h): the tool and its imports load once and each
 * call is a forked child with its own work subdirectory, limits and wall clock
 * (docs/sandbox.md#warm-sandboxes). Anything else, or a warm sandbox that cannot start or breaks,
 * runs the call cold, so a batch never answers differently from single calls (through a pool,
 * tg_tool_batch_use_pool: as the pool's calls answer, warmpool.h).
 *
 * calls (and what they point to) are borrowed until tg_tool_batch_free; the batch starts its
 * sandbox on the first tg_tool_batch_run. One thread at a time per batch.
 */
typedef struct tg_tool_batch tg_tool_batch;

tg_tool_batch *tg_tool_batch_new(const tg_toolrun_ctx *ctx, const tg_tool_call *calls, size_t n);
/*
 * Runs the batch's calls through pool first (borrowed; run/warmpool.h) when the batch would
 * run them warm itself (the same working folders, /work/c<i>): a call a worker takes runs there,
 * as the pool's calls do (the worker's imports shared with other tools' calls), and only the
 * calls it would run cold go to the batch's own warm sandbox or run cold. Before the first
 * tg_tool_batch_run.
 */
void tg_tool_batch_use_pool(tg_tool_batch *b, struct tg_warmpool *pool);
/* Runs calls[i] (each at most once, in any order); as tg_tool_call_run. */
tg_call_status tg_tool_batch_run(tg_tool_batch *b, size_t i, tg_call_result *out, tg_err *err);
/* How many calls ran warm (for tests and benchmarks). */
size_t tg_tool_batch_warm_runs(const tg_tool_batch *b);
void tg_tool_batch_free(tg_tool_batch *b);

/*
 * The full envelope: success, result, error (+ guidance), stdout, stderr, exit status, files,
 * visualizations, execution time, resource usage and analysis, limits. Schema:
 * schemas/run_result.schema.json.
 */
cJSON *tg_call_result_json(const tg_call_result *r, const tg_manifest *m);

/* The files a call wrote: [{filename, path, type, size}], path relative to its work directory
 * (the envelope's "files"). */
cJSON *tg_call_files_json(const tg_sandbox_result *sb);

/*
 * Copies the call's files into dir (created), keeping their relative paths; symlinks are never
 * followed. Returns the number copied, or -1 with err.
 */
int tg_call_result_copy_files(const tg_call_result *r, const char *dir, tg_err *err);

/*
 * A captured stream as valid UTF-8 text (heap; bytes of broken sequences, e.g. where the cap cut
 * one, become '?'; a NUL ends it). With keep > 0 and more than keep bytes, the first three
 * quarters and the last quarter of keep around a line "[... N bytes left out ...]"; *elided says
 * whether that happened.
 */
char *tg_stream_text(const tg_stream *s, size_t keep, bool *elided);

/* Applies top-level `default`s of input_schema to a copy of args. */
cJSON *tg_apply_defaults(const cJSON *input_schema, const cJSON *args);

#endif
