/*
 * rt_int.h — the built-in runtimes' operations (one file each) and what the two runners share
 * (rt_runner.c), private to run/.
 */
#ifndef TG_RT_INT_H
#define TG_RT_INT_H

#include "base/buf.h"
#include "run/runtime_ops.h"

extern const tg_runtime_ops rt_python, rt_node, rt_command, rt_code, rt_http, rt_llm;

/* A command worker's argv with runner.py as its runner rather than toolgen's own (run/cmdrunner.h),
 * which a pool falls back to when the latter cannot start; false (nothing pushed): no python3. */
bool tg_command_warm_argv_py(tg_strv *argv);

/* The templates of command and http (docs/manifest.md#templates), rt_command.c: one argument's
 * value as text appended to b (a string as is, a number in its shortest form, true/false,
 * anything else as compact JSON); one template string rendered into out, false when a
 * placeholder names an absent argument (out then holds a part). */
void rt_render_value(tg_buf *b, const cJSON *v);
bool rt_render_template(const char *t, const cJSON *args, tg_buf *out);

/* Python's environment in the sandbox (deterministic hashing, no bytecode files or user site,
 * UTF-8 streams, matplotlib's Agg backend, one BLAS/OpenMP thread), for runner.py and
 * runner_code.py alike. */
void rt_python_env(tg_strv *env);

/*
 * The part of a runner's command (runner.py, runner.js) the runtimes share: the tool's folder
 * (c->tool_dir, mounted at /tool), the request on fd 4 (file, entry point, args, input_schema,
 * answers), the reply channel and the runtime files. The caller adds the interpreter's argv and
 * environment. TG_CALL_UNSUPPORTED when m names no file or entry point.
 */
tg_call_status rt_runner_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                 const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                 tg_err *err);
/*
 * The call's context for a runner's command c (once the runtime made it): the client's facts
 * (call->client) join the request, and with call->on_event set the reply channel is watched
 * for the runner's events — JSON lines before the reply — each handed to on_event as it
 * arrives. The runner writes at most a quarter of output_kb of events.
 */
void rt_runner_context(tg_runtime_cmd *c, const tg_tool_call *call);
/* The runner's reply object in sb (*garbled: something else arrived), or NULL; the caller owns
 * it. */
cJSON *rt_runner_parse(const tg_sandbox_result *sb, bool *garbled);
/* A runner's reply: the result, a question, or the error object the classifier reads
 * (tg_runtime_ops.read_result). */
void rt_runner_read(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                    tg_call_result *out, cJSON **reply, char **problem);

/* ---- the code runtime (rt_code.c, rt_code_session.c; docs/code.md) ---- */

#include "run/codeguide.h"

/* implementation.action of a code tool. */
typedef enum tg_code_action {
    RT_CODE_EXECUTE = 0, /* the default: the `code` argument is the program */
    RT_CODE_CREATE_SESSION,
    RT_CODE_CLOSE_SESSION,
    RT_CODE_LIST_RUNTIMES,
    RT_CODE_LIST_PACKAGES,
    RT_CODE_FILE_SYSTEM, /* the files toolset's file_system (docs/toolsets.md#files) */
    RT_CODE_WEB_FETCH,   /* the web toolset's web_fetch (rt_web.c, docs/web.md) */
} tg_code_action;
tg_code_action rt_code_action(const tg_manifest *m);
/* The allowlist of lang: toolgen.yaml's code.allowed_packages.<lang>, else the default (a new
 * array). */
cJSON *rt_code_allowed(const tg_toolrun_ctx *ctx, tg_code_lang lang);
/* The command of list_runtimes / list_available_packages (runner_code.py describing what the
 * sandbox has) and of file_system (runner_code.py acting on the data directories; args: the
 * call's). */
tg_call_status rt_code_listing_command(const tg_toolrun_ctx *ctx, tg_code_action action,
                                       const cJSON *args, tg_runtime_cmd *c, tg_err *err);
/* tg_runtime_ops.direct of the code runtime: a session's program, create_session,
 * close_session. */
bool rt_code_direct(const tg_toolrun_ctx *ctx, const tg_tool_call *call, struct tr_call *p,
                    tg_call_result *out, tg_call_status *st, tg_err *err);
/*
 * What a code tool answers without a program, answered as a runner would: out->sb as a run that
 * printed nothing and replied reply (taken), judged by tr_judge like any call, so that a
 * refusal gets the classification, error code and guidance of codeguide.c. The replies:
 * rt_code_success {"ok": true, "result": result (taken)}; rt_code_refusal {"ok": false,
 * "error": {phase, type, mro, message}} (codeguide.c's rules match on phase and type).
 */
void rt_code_answer(const tg_toolrun_ctx *ctx, const tg_tool_call *call, struct tr_call *p,
                    tg_call_result *out, cJSON *reply);
cJSON *rt_code_success(cJSON *result);
cJSON *rt_code_refusal(const char *phase, const char *type, const char *message);
/* toolgen.yaml's web section's defaults (schemas/toolgen.config.schema.json, docs/web.md). */
#define TG_WEB_PER_MINUTE_DEFAULT 60
#define TG_WEB_MAX_MB_DEFAULT 50
#define TG_WEB_TIMEOUT_S_DEFAULT 30
#define TG_WEB_MAX_REDIRECTS_DEFAULT 5
/* web_fetch (rt_web.c): the request made by toolgen itself through net/, checked against
 * toolgen.yaml's web section (ctx->web), answered with rt_code_answer. */
tg_call_status rt_web_fetch(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                            struct tr_call *p, tg_call_result *out, tg_err *err);
/* A session call's part of the result o: "session" from info; when the call restarted the
 * interpreter, guidance (may be NULL) and g say that its variables are gone. */
void rt_code_session_report(cJSON *o, const cJSON *info, const tg_run_facts *f, cJSON *guidance,
                            tg_guidance *g);

/* ---- the llm runtime (rt_llm.c, rt_llm_check.c; docs/code-edit.md) ---- */

/* A prompt template of a tool (tmpl.h's format) and where it was read. */
typedef struct rt_llm_tmpl {
    char *path, *system, *user;
} rt_llm_tmpl;
/* The template implementation.<member> names: prompts/<name>.md of the tool's repository (the
 * nearest folder above the tool's with a toolgen.yaml), else of toolgen's data directory. -1
 * with err naming what is missing. */
int rt_llm_template(const tg_manifest *m, const char *member, rt_llm_tmpl *t, tg_err *err);
void rt_llm_template_free(rt_llm_tmpl *t);
/* value between a begin and an end line that name it and carry a digest of it (heap): data
 * for the model, which the prompt tells to read as data only. */
char *rt_llm_fence(const char *name, const char *value);
/* The canonical name of a language ("py" -> "python"), a lower-cased copy in out for one
 * toolgen does not know, or NULL when given is not a name (empty, too long, other characters). */
const char *rt_llm_language(const char *given, char *out, size_t cap);
/* Whether toolgen has a checker for lang (a canonical name). */
bool rt_llm_checkable(const char *lang);
/* The checks of code in lang (check_snippet.py in the sandbox, limits lowered to 20 s of wall
 * clock): the array of {check, tool, outcome, message?}, or NULL with err when the checker
 * could not run. context: code the snippet goes with (names it defines), may be NULL. */
cJSON *rt_llm_check(const tg_toolrun_ctx *ctx, const tg_limits *limits,
                    const volatile sig_atomic_t *cancel, const char *lang, const char *code,
                    const char *context, tg_err *err);

#endif
