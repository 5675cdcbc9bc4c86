/*
 * rt_code.c — the code runtime's operations (runtime_ops.h, docs/code.md): a call's `code`
 * argument runs as a program in implementation.language, under toolgen's runner_code.py or
 * runner_code.js, in the work directory (or its `workingDir` subfolder). The runner first checks
 * `packages` against code.allowed_packages of toolgen.yaml and what the interpreter can import;
 * it replies on fd 3 whether the program raised (the exception's facts), never what it printed,
 * and exits with the program's status. After the classification, report() assembles the result:
 * the program's streams (capped), return code, files, visualization manifest and time, with the
 * error guidance and resource analysis of codeguide.h.
 *
 * implementation.action picks the tool: `execute` (the default: python_execute, node_execute),
 * or one of the session tools and listings of rt_code_session.c, which also runs the programs
 * of a session (the `session_id` argument) in the session's own sandbox.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "run/codeguide.h"
#include "run/rt_int.h"

/* How much of stdout and of stderr the result carries: a model reads it, and the files carry
 * the bulk. */
#define CODE_STREAM_KEEP (32 * 1024)

/* code.allowed_packages' defaults (schemas/toolgen.config.schema.json). */
static const char *const default_python[] = {
    "pandas", "numpy", "scipy", "matplotlib", "seaborn", "plotly", "requests", "beautifulsoup4",
    "scikit-learn", "openpyxl", NULL};

tg_code_action rt_code_action(const tg_manifest *m)
{
    const char *a = tg_json_get_string(m->implementation, "action");
    static const char *const names[] = {[RT_CODE_EXECUTE] = "execute",
                                        [RT_CODE_CREATE_SESSION] = "create_session",
                                        [RT_CODE_CLOSE_SESSION] = "close_session",
                                        [RT_CODE_LIST_RUNTIMES] = "list_runtimes",
                                        [RT_CODE_LIST_PACKAGES] = "list_packages",
                                        [RT_CODE_FILE_SYSTEM] = "file_system",
                                        [RT_CODE_WEB_FETCH] = "web_fetch"};
    for (size_t i = 0; a && i < sizeof names / sizeof *names; i++)
        if (strcmp(a, names[i]) == 0)
            return (tg_code_action)i;
    return RT_CODE_EXECUTE;
}

cJSON *rt_code_allowed(const tg_toolrun_ctx *ctx, tg_code_lang lang)
{
    const char *key = lang == TG_CODE_NODE ? "node" : "python";
    const cJSON *list = tg_json_get(tg_json_get(ctx->code, "allowed_packages"), key);
    if (cJSON_IsArray(list))
        return cJSON_Duplicate(list, true);
    cJSON *out = cJSON_CreateArray();
    for (size_t i = 0; lang == TG_CODE_PYTHON && default_python[i]; i++)
        cJSON_AddItemToArray(out, cJSON_CreateString(default_python[i]));
    return out;
}

/* The runner's request on fd 4: {code, packages, allowed, workingDir}. */
static char *code_request(const tg_toolrun_ctx *ctx, tg_code_lang lang, const cJSON *args)
{
    cJSON *req = cJSON_CreateObject();
    static const char *const keep[] = {"code", "packages", "workingDir"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
        const cJSON *v = tg_json_get(args, keep[i]);
        if (v)
            cJSON_AddItemToObject(req, keep[i], cJSON_Duplicate(v, true));
    }
    cJSON_AddItemToObject(req, "allowed", rt_code_allowed(ctx, lang));
    cJSON_AddStringToObject(req, "runner", "code"); /* a pool worker's child runs runner_code */
    char *text = tg_json_print_compact(req);
    cJSON_Delete(req);
    return text;
}

static tg_call_status code_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                   const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                   tg_err *err)
{
    (void)answers;
    tg_code_action action = rt_code_action(m);
    if (action == RT_CODE_CREATE_SESSION || action == RT_CODE_CLOSE_SESSION ||
        action == RT_CODE_WEB_FETCH)
        return TG_CALL_DONE; /* answered by rt_code_direct, without a sandbox of its own */
    if (action == RT_CODE_LIST_RUNTIMES || action == RT_CODE_LIST_PACKAGES ||
        action == RT_CODE_FILE_SYSTEM)
        return rt_code_listing_command(ctx, action, args, c, err);
    tg_code_lang lang = tg_code_lang_parse(tg_json_get_string(m->implementation, "language"));
    const char *interp = lang == TG_CODE_NODE ? tg_sandbox_node() : tg_sandbox_python();
    if (!interp) {
        tg_err_set(err, "%s is not installed (%s): install it with `sudo apt-get install %s` (or "
                        "`make deps`)", lang == TG_CODE_NODE ? "Node.js" : "python3",
                   lang == TG_CODE_NODE ? "/usr/bin/node" : "/usr/bin/python3",
                   lang == TG_CODE_NODE ? "nodejs" : "python3");
        return TG_CALL_ENV;
    }
    c->request = code_request(ctx, lang, args);
    c->cmd.request = c->request;
    c->cmd.request_len = strlen(c->request);
    c->cmd.reply_channel = true;
    c->cmd.mount_runtime = true;
    tg_strv_push(&c->argv, interp);
    if (lang == TG_CODE_NODE) {
        /* V8's heap limit below the address-space limit, so that a growing heap ends in V8's
         * own "heap out of memory" rather than a failed mmap anywhere (docs/code.md#memory) */
        tg_strv_pushf(&c->argv, "--max-old-space-size=%ld", c->cmd.limits.memory_mb / 2);
        tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner_code.js");
    } else {
        tg_strv_push(&c->argv, "-B");
        tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner_code.py");
        rt_python_env(&c->env);
        c->cmd.matplotlib_cache = true; /* any program may plot */
    }
    /* `timeout` (seconds) shortens the wall clock; the tool's own limit caps it */
    const cJSON *t = tg_json_get(args, "timeout");
    if (cJSON_IsNumber(t) && t->valuedouble > 0 && t->valuedouble * 1000.0 < (double)c->cmd.limits.wall_ms)
        c->cmd.limits.wall_ms = (long)ceil(t->valuedouble * 1000.0);
    return TG_CALL_DONE;
}

/* The reply is read in report(): the result is assembled after the classification. */
static void code_read(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                      tg_call_result *out, cJSON **reply, char **problem)
{
    if (rt_code_action(m) != RT_CODE_EXECUTE) { /* a session tool or listing: its result */
        rt_runner_read(m, sb, f, out, reply, problem);
        return;
    }
    (void)problem;
    *reply = rt_runner_parse(sb, &f->reply_garbled);
    f->reply = *reply;
}

static void add_stream(cJSON *o, const char *name, const tg_stream *s)
{
    bool elided;
    char *text = tg_stream_text(s, CODE_STREAM_KEEP, &elided);
    if (s->truncated) {
        char *cut = xasprintf("%s\n[... cut at the output cap; the program was stopped ...]\n",
                              text);
        free(text);
        text = cut;
    }
    cJSON_AddStringToObject(o, name, text);
    free(text);
    char key[32];
    snprintf(key, sizeof key, "%sTruncated", name);
    cJSON_AddBoolToObject(o, key, elided || s->truncated);
}

/* The visualization manifest the program wrote: as it is when it is valid, else why not. */
static void add_visualizations(cJSON *o, const cJSON *viz)
{
    if (!viz)
        return;
    if (cJSON_IsTrue(tg_json_get(viz, "valid"))) {
        cJSON_AddItemToObject(o, "visualizations", cJSON_Duplicate(tg_json_get(viz, "manifest"), true));
        return;
    }
    cJSON *notes = cJSON_AddArrayToObject(o, "visualizationErrors");
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(viz, "errors"))
    {
        char *m = xasprintf("visualization_manifest.json: %s", cJSON_IsString(e) ? e->valuestring : "invalid");
        cJSON_AddItemToArray(notes, cJSON_CreateString(m));
        free(m);
    }
}

/* Whether the program started: not when the runner refused its packages or working folder. */
static bool program_started(const tg_run_facts *f)
{
    const char *phase = tg_json_get_string(tg_json_get(f->reply, "error"), "phase");
    return f->ran && !(phase && (strcmp(phase, "packages") == 0 || strcmp(phase, "setup") == 0 ||
                                 strcmp(phase, "session") == 0));
}

static void code_report(const tg_manifest *m, const tg_run_facts *f, tg_call_result *out)
{
    tg_code_lang lang = tg_code_lang_parse(tg_json_get_string(m->implementation, "language"));
    tg_limits cap;
    tg_limits_resolve(m->constraints, m->timeout_ms, &f->max, &cap);
    if (rt_code_action(m) != RT_CODE_EXECUTE) { /* the tool's result as it came; on failure,
                                                 * the guidance in a program's terms */
        if (!out->ok)
            cJSON_Delete(tg_code_guidance(lang, f, &cap, &out->guidance));
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "success", out->ok);
    add_stream(o, "stdout", &out->sb.out);
    add_stream(o, "stderr", &out->sb.err);
    if (program_started(f))
        cJSON_AddNumberToObject(o, "returnCode", out->sb.exit_code);
    else
        cJSON_AddNullToObject(o, "returnCode");
    cJSON_AddItemToObject(o, "files", tg_call_files_json(&out->sb));
    add_visualizations(o, out->visualizations);
    cJSON_AddNumberToObject(o, "executionTime", round(out->sb.wall_ms * 10) / 10);
    cJSON *guidance = out->ok ? NULL : tg_code_guidance(lang, f, &cap, &out->guidance);
    if (out->session)
        rt_code_session_report(o, out->session, f, guidance, &out->guidance);
    if (guidance)
        cJSON_AddItemToObject(o, "error_guidance", guidance);
    cJSON_AddItemToObject(o, "resource_analysis", tg_code_resources(lang, f, &out->resources, &cap));
    cJSON_Delete(out->result);
    out->result = o;
}

/* The pool serves one-shot programs (runtime_ops.h, warm_ok; docs/sandbox.md#the-warm-pool):
 * Python's in a worker that imported the usual heavy packages, so that a pandas program does
 * not pay its import; Node.js's in a worker whose node started ahead, which needs python3 for
 * the worker's runner (runner_warm.py: node cannot fork, receive descriptors or set rlimits).
 * Sessions have their own interpreter. */
static bool code_warm_ok(const tg_manifest *m)
{
    if (rt_code_action(m) != RT_CODE_EXECUTE)
        return false;
    tg_code_lang lang = tg_code_lang_parse(tg_json_get_string(m->implementation, "language"));
    return lang == TG_CODE_PYTHON || (lang == TG_CODE_NODE && tg_sandbox_python());
}

/* The worker. Python: runner.py --warm - and the modules it imports ahead, those of the
 * packages a program most often pays for (only what imports here; an import that fails is
 * skipped). Node.js: runner.py --warm-node and the cold call's node command (its flags: the
 * heap limit) with runner_warm.js, which loads runner_code.js, in place of runner_code.js. */
static void code_warm_argv(const tg_manifest *m, const tg_runtime_cmd *cold, const char *file,
                           tg_strv *argv)
{
    (void)file;
    tg_code_lang lang = tg_code_lang_parse(tg_json_get_string(m->implementation, "language"));
    if (lang == TG_CODE_NODE) {
        tg_strv_push(argv, tg_sandbox_python());
        tg_strv_push(argv, "-B");
        tg_strv_push(argv, "-s");
        tg_strv_push(argv, TG_SANDBOX_RUNTIME "/runner.py");
        tg_strv_push(argv, "--warm-node");
        for (size_t i = 0; i + 1 < cold->argv.n; i++) /* node and its flags */
            tg_strv_push(argv, cold->argv.v[i]);
        tg_strv_push(argv, TG_SANDBOX_RUNTIME "/runner_warm.js");
        return;
    }
    static const char *const preload[] = {"numpy", "pandas", "matplotlib.pyplot", NULL};
    tg_strv_push(argv, cold->argv.v[0]); /* the interpreter */
    tg_strv_push(argv, "-B");
    tg_strv_push(argv, TG_SANDBOX_RUNTIME "/runner.py");
    tg_strv_push(argv, "--warm");
    tg_strv_push(argv, "-");
    for (size_t i = 0; preload[i]; i++)
        tg_strv_push(argv, preload[i]);
}

const tg_runtime_ops rt_code = {
    .warm_argv = code_warm_argv,
    .warm_ok = code_warm_ok,
    .command = code_command,
    .read_result = code_read,
    .report = code_report,
    .direct = rt_code_direct,
    .exit_status = true,
};
