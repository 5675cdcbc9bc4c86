/* toolrun.c — one call of a tool: validate, run in the sandbox, check, classify, report; what
 * depends on the runtime is asked of its operations (runtime_ops.h). */
#define _GNU_SOURCE
#include "run/toolrun.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"
#include "base/strvec.h"
#include "net/ratelimit.h"
#include "run/rt_int.h"
#include "run/session.h"
#include "run/toolrun_int.h"

#define VIZ_FILE "visualization_manifest.json"
#define VIZ_MAX_BYTES (1 << 20)

int tg_toolrun_env_open(tg_toolrun_env *env, const tg_repo *repo, const cJSON *config,
                        tg_err *err)
{
    *env = (tg_toolrun_env){0};
    if (tg_sandbox_config_init(&env->sandbox, repo->path, config, err) != 0)
        return -1;
    env->reg = js_registry_new();
    const char *data = tg_datadir();
    if (data) {
        char *path = tg_path_join(data, "schemas/visualization_manifest.schema.json");
        tg_err ignored = {0};
        /* Missing or broken: visualization manifests are then reported unchecked. */
        if (tg_doc_load(path, NULL, &env->visualization_doc, &ignored) == 0)
            env->visualization = js_compile(env->reg, env->visualization_doc.root,
                                            &(js_options){0}, &ignored);
        free(path);
    }
    const cJSON *sc = tg_json_get(config, "static_check");
    const cJSON *ss = tg_json_get(tg_json_get(config, "code"), "sessions");
    env->sessions = tg_sessions_new(&env->sandbox, (size_t)tg_json_get_number(ss, "max", 0),
                                    (size_t)tg_json_get_number(ss, "per_client", 0),
                                    (long)(tg_json_get_number(ss, "idle_minutes", 0) * 60000.0));
    /* one limit for the whole program (a server: all its clients), docs/web.md#limits */
    const cJSON *web = tg_json_get(config, "web");
    env->web_rate = tg_ratelimit_new((int)tg_json_get_number(web, "requests_per_minute",
                                                             TG_WEB_PER_MINUTE_DEFAULT), 60000.0);
    env->ctx = (tg_toolrun_ctx){
        .sandbox = &env->sandbox,
        .visualization = env->visualization,
        .allowed_imports = tg_json_get(sc, "allowed_imports"),
        .code = tg_json_get(config, "code"),
        .sessions = env->sessions,
        .web = web,
        .web_rate = env->web_rate,
    };
    return 0;
}

void tg_toolrun_env_close(tg_toolrun_env *env)
{
    tg_sessions_free(env->sessions);
    tg_ratelimit_free(env->web_rate);
    js_schema_free(env->visualization);
    js_registry_free(env->reg);
    tg_doc_free(&env->visualization_doc);
    tg_sandbox_config_free(&env->sandbox);
    *env = (tg_toolrun_env){0};
}

cJSON *tg_apply_defaults(const cJSON *input_schema, const cJSON *args)
{
    cJSON *out = cJSON_IsObject(args) ? cJSON_Duplicate(args, true) : cJSON_CreateObject();
    const cJSON *props = tg_json_get(input_schema, "properties"), *p;
    cJSON_ArrayForEach(p, props)
    {
        const cJSON *def = tg_json_get(p, "default");
        if (def && !tg_json_get(out, p->string))
            cJSON_AddItemToObject(out, p->string, cJSON_Duplicate(def, true));
    }
    return out;
}

/* ---- reading what came back ----------------------------------------------------------------- */

static char *first_error(const js_errors *errs)
{
    if (!errs->n)
        return xstrdup("invalid");
    return xasprintf("%s: %s", errs->v[0].instance_location[0] ? errs->v[0].instance_location : "(root)",
                     errs->v[0].message);
}

static char *all_errors(const js_errors *errs)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < errs->n; i++)
        tg_buf_printf(&b, "%s%s: %s", i ? "; " : "",
                      errs->v[i].instance_location[0] ? errs->v[i].instance_location : "(root)",
                      errs->v[i].message);
    return b.len ? tg_buf_steal(&b) : xstrdup("invalid");
}

static bool has_artifact(const tg_sandbox_result *sb, const char *path)
{
    for (size_t i = 0; i < sb->n_files; i++)
        if (strcmp(sb->files[i].path, path) == 0)
            return true;
    return false;
}

static cJSON *read_visualizations(const tg_toolrun_ctx *ctx, const tg_sandbox_result *sb)
{
    if (!has_artifact(sb, VIZ_FILE))
        return NULL;
    cJSON *out = cJSON_CreateObject();
    cJSON *errors = cJSON_CreateArray();
    char *text = NULL;
    int fd = -1;
    int dfd = tg_sandbox_result_open_work(sb);
    if (dfd >= 0)
        fd = openat(dfd, VIZ_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= VIZ_MAX_BYTES) {
        text = xmalloc((size_t)st.st_size + 1);
        ssize_t n = read(fd, text, (size_t)st.st_size);
        text[n > 0 ? n : 0] = '\0';
        tg_err err = {0};
        cJSON *doc = tg_json_parse(text, n > 0 ? (size_t)n : 0, NULL, NULL, NULL, &err);
        if (!doc) {
            cJSON_AddItemToArray(errors, cJSON_CreateString(
                                             err.msg[0] ? err.msg : "not valid JSON"));
        } else {
            js_errors errs = {0};
            if (ctx->visualization && !js_validate(ctx->visualization, doc, &errs)) {
                for (size_t i = 0; i < errs.n; i++) {
                    char *m = xasprintf("%s: %s", errs.v[i].instance_location[0]
                                                      ? errs.v[i].instance_location : "(root)",
                                        errs.v[i].message);
                    cJSON_AddItemToArray(errors, cJSON_CreateString(m));
                    free(m);
                }
            }
            js_errors_free(&errs);
            const cJSON *outs = tg_json_get(doc, "outputs"), *o;
            cJSON_ArrayForEach(o, outs)
            {
                const char *data = tg_json_get_string(o, "dataFile");
                if (data && !has_artifact(sb, data)) {
                    char *m = xasprintf("/outputs/%s: dataFile '%s' is not among the files the "
                                        "tool wrote", tg_json_get_string(o, "id") ? tg_json_get_string(o, "id") : "?", data);
                    cJSON_AddItemToArray(errors, cJSON_CreateString(m));
                    free(m);
                }
            }
            cJSON_AddItemToObject(out, "manifest", doc);
        }
    } else {
        cJSON_AddItemToArray(errors, cJSON_CreateString("visualization_manifest.json is not a "
                                                        "readable regular file of at most 1 MiB"));
    }
    if (fd >= 0)
        close(fd);
    if (dfd >= 0)
        close(dfd);
    free(text);
    cJSON_AddBoolToObject(out, "valid", cJSON_GetArraySize(errors) == 0);
    if (cJSON_GetArraySize(errors))
        cJSON_AddItemToObject(out, "errors", errors);
    else
        cJSON_Delete(errors);
    return out;
}

/* ---- the call ------------------------------------------------------------------------------- */

static void finish(const tg_toolrun_ctx *ctx, tg_run_facts *f, tg_call_result *out)
{
    f->limits = out->limits;
    f->max = ctx->sandbox->max;
    /* static_check.allowed_imports judges the imports of code the static check reads (python's);
     * another runtime's failed import is a module that is not installed */
    const tg_runtime_desc *rt = tg_runtime_info(tg_runtime_parse(f->runtime));
    f->allowed_imports = rt && !rt->static_skip ? ctx->allowed_imports : NULL;
    double t0 = tg_now_ms();
    out->ok = !tg_classify(f, &out->guidance);
    tg_resources_analyze(f, out->ok ? NULL : &out->guidance, &out->resources);
    out->analysis_us = (tg_now_ms() - t0) * 1e3;
}

/*
 * The one place where the statuses of the layer below become this layer's: the sandbox's
 * status a call status, a path verdict an error class (docs/sandbox.md#error-classes).
 */
static tg_call_status call_status_of(tg_sandbox_status s)
{
    switch (s) {
    case TG_SANDBOX_OK: return TG_CALL_DONE;
    case TG_SANDBOX_ENV: return TG_CALL_ENV;
    case TG_SANDBOX_INTERNAL: break;
    }
    return TG_CALL_INTERNAL;
}

static tg_error_class class_of_path(tg_path_verdict v)
{
    return v == TG_PATH_NOT_FOUND ? TG_CLASS_PATH_NOT_FOUND : TG_CLASS_PATH_FORBIDDEN;
}

/* A call refused before anything ran: classified like any failure, so out is complete. */
static tg_call_status refuse(const tg_toolrun_ctx *ctx, tg_run_facts *f, tg_error_class cls,
                             const char *message, tg_call_result *out)
{
    f->pre = cls;
    f->pre_message = message;
    finish(ctx, f, out);
    return TG_CALL_DONE;
}

/* A command's message carries the last line of its stderr (docs/manifest.md#command). */
static void append_stderr_line(const tg_sandbox_result *sb, tg_guidance *g)
{
    if (g->cls != TG_CLASS_COMMAND_FAILED || !sb->err.len)
        return;
    const char *s = sb->err.data;
    size_t end = sb->err.len;
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start && s[start - 1] != '\n' && end - start < 300)
        start--;
    size_t used = strlen(g->message);
    snprintf(g->message + used, sizeof g->message - used, ": %.*s", (int)(end - start), s + start);
}

/* A call that ended with a question is not a failure of the tool: say what it needs. Only an
 * MCP client can answer (toolgen serve asks it and calls again). */
static void explain_ask(const cJSON *ask, tg_guidance *g)
{
    *g = (tg_guidance){.cls = g->cls, .code = tg_errcode_name(TG_ERR_INVALID_INPUT),
                       .doc = "docs/sandbox.md#asking-for-input"};
    const cJSON *q = ask->child; /* the first question stands for them all */
    const char *method = tg_json_get_string(q, "method");
    const char *message = tg_json_get_string(tg_json_get(q, "params"), "message");
    snprintf(g->message, sizeof g->message, "the tool needs an answer it was not given: %s",
             message ? message : strcmp(method, "roots/list") == 0 ? "the client's roots"
                                                                   : "a model's answer (sampling)");
    snprintf(g->what, sizeof g->what, "The tool asked for input ('%s'%s) instead of guessing.",
             tg_json_get_string(q, "key"), q->next ? " and more" : "");
    snprintf(g->cause, sizeof g->cause, "The arguments leave a choice open that the tool will "
                                        "not make on its own.");
    snprintf(g->fix[0], sizeof g->fix[0], "Call it through toolgen serve from an MCP client "
                                          "that supports %s, which asks the user.",
             strcmp(method, "elicitation/create") == 0 ? "elicitation"
             : strcmp(method, "roots/list") == 0       ? "roots"
                                                       : "sampling");
    g->n_fix = 1;
}

/* The result a runtime assembles itself (tg_runtime_ops.report), held to output_schema like any
 * other. */
static void report(const tg_tool_call *call, const tg_runtime_ops *ops, const tg_run_facts *f,
                   tg_call_result *out)
{
    ops->report(call->m, f, out);
    js_errors oe = {0};
    if (out->result && !js_validate(call->output, out->result, &oe)) {
        char *msg = first_error(&oe);
        out->ok = false;
        tg_classify_result_schema(msg, &out->guidance);
        free(msg);
    }
    js_errors_free(&oe);
}

/* After the sandbox ran: the facts, the result and its checks, the classification. */
static void judge(const tg_toolrun_ctx *ctx, const tg_tool_call *call, const tg_runtime_ops *ops,
                  tg_run_facts *f, tg_call_result *out)
{
    const tg_sandbox_result *sb = &out->sb;
    /* a runtime that makes the call itself may not send it: no credential, unusable arguments */
    out->ran = f->ran = !f->credential_missing && f->pre == TG_CLASS_NONE;
    f->exit_code = sb->exit_code;
    f->signal = sb->signal;
    f->signal_inferred = sb->signal_inferred;
    f->killed_by = sb->killed_by;
    f->overflow_stream = sb->overflow_stream;
    f->wall_ms = sb->wall_ms;
    f->cpu_ms = sb->user_ms + sb->sys_ms;
    f->max_rss_kb = sb->max_rss_kb;
    f->output_bytes = (long long)(sb->out.total > sb->err.total ? sb->out.total : sb->err.total);
    if (sb->err.len)
        f->stderr_tail = sb->err.len > 2000 ? sb->err.data + sb->err.len - 2000 : sb->err.data;
    cJSON *reply = NULL;
    char *problem = NULL, *schema_msg = NULL;
    if (ops->read_result) { /* else execute() set the facts and the result */
        ops->read_result(call->m, sb, f, out, &reply, &problem);
        f->result_problem = problem;
    }
    if (out->result) {
        js_errors oe = {0};
        if (!js_validate(call->output, out->result, &oe))
            f->output_schema_message = schema_msg = first_error(&oe);
        js_errors_free(&oe);
    }
    out->visualizations = read_visualizations(ctx, sb);
    finish(ctx, f, out);
    if (out->ask)
        explain_ask(out->ask, &out->guidance);
    else if (!out->ok)
        append_stderr_line(sb, &out->guidance);
    if (ops->report)
        report(call, ops, f, out);
    cJSON_Delete(reply);
    free(problem);
    free(schema_msg);
}

/* The operations of m's runtime, or NULL with err: the runtime is unknown, or this version does
 * not run it (model/runtime.h, not_run). */
static const tg_runtime_ops *runnable(const tg_manifest *m, tg_err *err)
{
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    const tg_runtime_ops *ops = tg_runtime_ops_of(m->runtime);
    const char *name = m->name ? m->name : "tool";
    if (!rt)
        tg_err_set(err, "%s: unknown implementation.runtime; run `toolgen lint`", name);
    else if (rt->not_run)
        tg_err_set(err, "%s: %s", name, rt->not_run);
    else if (!ops)
        tg_err_set(err, "%s: runtime %s has no operations in this build of toolgen", name, rt->name);
    return rt && !rt->not_run ? ops : NULL;
}

/* Step 1: the arguments against input_schema; NULL when they fit, else the message (heap). */
static char *input_errors(const tg_tool_call *call)
{
    if (!cJSON_IsObject(call->args))
        return xstrdup("arguments do not fit input_schema: (root): the arguments must be a "
                       "JSON object");
    js_errors errs = {0};
    char *full = NULL;
    if (!js_validate(call->input, call->args, &errs)) {
        char *msg = all_errors(&errs);
        full = xasprintf("arguments do not fit input_schema: %s", msg);
        free(msg);
    }
    js_errors_free(&errs);
    return full;
}

tg_call_status tr_prepare(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                          tg_call_result *out, tr_call *p, bool *ready, tg_err *err)
{
    *out = (tg_call_result){0};
    *p = (tr_call){0};
    *ready = false;
    const tg_manifest *m = call->m;
    p->f.runtime = tg_runtime_name(m->runtime);
    tg_limits_resolve(m->constraints, m->timeout_ms, &ctx->sandbox->max, &out->limits);
    if (!(p->ops = runnable(m, err)))
        return TG_CALL_UNSUPPORTED;
    char *bad_input = call->args_valid ? NULL : input_errors(call);
    if (bad_input) {
        out->args = cJSON_IsObject(call->args) ? cJSON_Duplicate(call->args, true) : cJSON_CreateObject();
        refuse(ctx, &p->f, TG_CLASS_INPUT_SCHEMA, bad_input, out);
        free(bad_input);
        return TG_CALL_DONE;
    }
    out->args = tg_apply_defaults(m->input_schema, call->args);

    tg_path_verdict v = tg_sandbox_check_paths(ctx->sandbox, m->input_schema, out->args,
                                               tg_json_get(m->constraints, "allowed_paths"),
                                               &p->paths, err);
    if (v == TG_PATH_ERROR)
        return TG_CALL_INTERNAL;
    if (v != TG_PATH_OK) {
        refuse(ctx, &p->f, class_of_path(v), err->msg, out);
        tg_err_clear(err);
        return TG_CALL_DONE;
    }

    tg_runtime_cmd *c = &p->c;
    c->cmd = (tg_sandbox_cmd){.limits = out->limits, .paths = &p->paths, .cancel = call->cancel};
    tg_call_status st = p->ops->command ? p->ops->command(ctx, m, out->args, call->answers, c, err)
                                        : TG_CALL_DONE;
    out->limits = c->cmd.limits; /* as the runtime narrowed them from the arguments */
    if (st == TG_CALL_DONE && c->request)
        rt_runner_context(c, call); /* a runner's command: the client's facts, its events */
    if (st == TG_CALL_DONE && p->ops->direct && p->ops->direct(ctx, call, p, out, &st, err))
        return st; /* answered without a sandbox of its own (a code session's call) */
    if (st == TG_CALL_DONE) {
        c->cmd.cwd = c->cwd;
        c->cmd.argv = (const char *const *)c->argv.v;
        c->cmd.env = (const char *const *)c->env.v;
        *ready = true;
    }
    return st;
}

void tr_judge(const tg_toolrun_ctx *ctx, const tg_tool_call *call, tr_call *p, tg_call_result *out)
{
    judge(ctx, call, p->ops, &p->f, out);
}

/* See toolrun_int.h. */
char *tr_exec_request(const tg_runtime_cmd *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *argv = cJSON_AddArrayToObject(o, "exec_argv");
    cJSON *env = cJSON_AddArrayToObject(o, "exec_env");
    for (size_t i = 0; i < c->argv.n; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(c->argv.v[i]));
    for (size_t i = 0; i < c->env.n; i++)
        cJSON_AddItemToArray(env, cJSON_CreateString(c->env.v[i]));
    if (c->cwd && *c->cwd)
        cJSON_AddStringToObject(o, "exec_cwd", c->cwd);
    char *text = tg_json_print_compact(o);
    cJSON_Delete(o);
    return text;
}

void tr_call_free(tr_call *p)
{
    tg_path_args_free(&p->paths);
    tg_runtime_cmd_free(&p->c);
}

tg_call_status tr_status_of(tg_sandbox_status s)
{
    return call_status_of(s);
}

tg_call_status tg_tool_call_run(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                                tg_call_result *out, tg_err *err)
{
    tr_call p;
    bool ready;
    tg_call_status st = tr_prepare(ctx, call, out, &p, &ready, err);
    if (st == TG_CALL_DONE && ready && p.ops->execute) {
        st = p.ops->execute(ctx, call, &p.c, &p.f, out, err); /* no process: toolgen calls */
        if (st == TG_CALL_DONE)
            tr_judge(ctx, call, &p, out);
    } else if (st == TG_CALL_DONE && ready) {
        st = call_status_of(tg_sandbox_run(ctx->sandbox, &p.c.cmd, &out->sb, err));
        if (st == TG_CALL_DONE)
            tr_judge(ctx, call, &p, out);
    }
    tr_call_free(&p);
    return st;
}

void tg_call_result_free(tg_call_result *r)
{
    cJSON_Delete(r->args);
    cJSON_Delete(r->result);
    cJSON_Delete(r->reply_error);
    cJSON_Delete(r->ask);
    cJSON_Delete(r->visualizations);
    cJSON_Delete(r->session);
    tg_sandbox_result_free(&r->sb);
    *r = (tg_call_result){0};
}

/* ---- the envelope --------------------------------------------------------------------------- */

static cJSON *limits_json(const tg_limits *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "cpu_s", (double)l->cpu_s);
    cJSON_AddNumberToObject(o, "memory_mb", (double)l->memory_mb);
    cJSON_AddNumberToObject(o, "wall_s", (double)l->wall_ms / 1000.0);
    cJSON_AddNumberToObject(o, "output_kb", (double)l->output_kb);
    cJSON_AddNumberToObject(o, "files", (double)l->files);
    cJSON_AddNumberToObject(o, "processes", (double)l->processes);
    return o;
}

static double round1(double x) { return round(x * 10) / 10; }

/* The start of a UTF-8 sequence at or after i (a cut there keeps whole characters). */
static size_t char_start(const char *s, size_t len, size_t i)
{
    while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

char *tg_stream_text(const tg_stream *s, size_t keep, bool *elided)
{
    const char *text = s->data ? s->data : "";
    tg_buf b = TG_BUF_INIT;
    *elided = keep > 0 && s->len > keep;
    if (*elided) {
        size_t head = char_start(text, s->len, keep / 4 * 3);
        size_t tail = char_start(text, s->len, s->len - keep / 4);
        tg_buf_append(&b, text, head);
        tg_buf_printf(&b, "\n[... %zu bytes left out ...]\n", tail - head);
        tg_buf_append(&b, text + tail, s->len - tail);
    } else {
        tg_buf_append(&b, text, s->len);
    }
    tg_err e = {0};
    /* Output cut at the cap may end inside a UTF-8 sequence; JSON needs valid text. */
    if (tg_utf8_validate(b.data ? b.data : "", b.len, &e) != 0)
        for (size_t i = 0; i < b.len; i++)
            if ((unsigned char)b.data[i] >= 0x80)
                b.data[i] = '?';
    return tg_buf_steal(&b);
}

static void add_stream(cJSON *o, const char *name, const tg_stream *s)
{
    bool elided;
    char *text = tg_stream_text(s, 0, &elided);
    cJSON_AddStringToObject(o, name, text);
    free(text);
    char key[40];
    snprintf(key, sizeof key, "%s_truncated", name);
    cJSON_AddBoolToObject(o, key, s->truncated);
}

cJSON *tg_call_files_json(const tg_sandbox_result *sb)
{
    cJSON *files = cJSON_CreateArray();
    for (size_t i = 0; i < sb->n_files; i++) {
        const tg_artifact *a = &sb->files[i];
        cJSON *f = cJSON_CreateObject();
        const char *base = strrchr(a->path, '/');
        cJSON_AddStringToObject(f, "filename", base ? base + 1 : a->path);
        cJSON_AddStringToObject(f, "path", a->path);
        cJSON_AddStringToObject(f, "type", tg_file_type_name(a->type));
        cJSON_AddNumberToObject(f, "size", (double)a->size);
        cJSON_AddItemToArray(files, f);
    }
    return files;
}

cJSON *tg_call_result_json(const tg_call_result *r, const tg_manifest *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tool", m->name ? m->name : "");
    if (m->version)
        cJSON_AddStringToObject(o, "version", m->version);
    cJSON_AddBoolToObject(o, "success", r->ok);
    cJSON_AddItemToObject(o, "arguments", r->args ? cJSON_Duplicate(r->args, true) : cJSON_CreateObject());
    cJSON_AddItemToObject(o, "result", r->result ? cJSON_Duplicate(r->result, true) : cJSON_CreateNull());
    if (r->ok) {
        cJSON_AddNullToObject(o, "error");
    } else {
        cJSON *e = tg_guidance_json(&r->guidance);
        if (r->reply_error) {
            cJSON *d = cJSON_AddObjectToObject(e, "details");
            static const char *const keep[] = {"type", "phase", "errno_name", "filename", "key",
                                               "missing_module", "lineno", "tool_line",
                                               "problems", "traceback"};
            for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
                const cJSON *v = tg_json_get(r->reply_error, keep[i]);
                if (v)
                    cJSON_AddItemToObject(d, keep[i], cJSON_Duplicate(v, true));
            }
        }
        cJSON_AddItemToObject(o, "error", e);
    }
    cJSON_AddBoolToObject(o, "ran", r->ran);
    if (r->ran) {
        cJSON_AddNumberToObject(o, "exit_status", r->sb.exit_code);
        if (r->sb.signal)
            cJSON_AddNumberToObject(o, "signal", r->sb.signal);
        else
            cJSON_AddNullToObject(o, "signal");
        const char *killed = r->sb.killed_by == TG_LIMIT_WALL     ? "wall_clock"
                             : r->sb.killed_by == TG_LIMIT_OUTPUT ? "output_limit"
                             : r->sb.killed_by == TG_LIMIT_DISK   ? "disk_limit"
                             : r->sb.killed_by == TG_LIMIT_CANCEL ? "cancelled"
                                                                  : NULL;
        if (killed)
            cJSON_AddStringToObject(o, "killed_by", killed);
        else
            cJSON_AddNullToObject(o, "killed_by");
    } else {
        cJSON_AddNullToObject(o, "exit_status");
        cJSON_AddNullToObject(o, "signal");
        cJSON_AddNullToObject(o, "killed_by");
    }
    add_stream(o, "stdout", &r->sb.out);
    add_stream(o, "stderr", &r->sb.err);
    cJSON_AddItemToObject(o, "files", tg_call_files_json(&r->sb));
    cJSON_AddBoolToObject(o, "files_truncated", r->sb.files_truncated);
    cJSON_AddItemToObject(o, "visualizations",
                          r->visualizations ? cJSON_Duplicate(r->visualizations, true) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "execution_time_ms", round1(r->sb.wall_ms));
    cJSON *u = cJSON_AddObjectToObject(o, "resource_usage");
    cJSON_AddNumberToObject(u, "wall_ms", round1(r->sb.wall_ms));
    cJSON_AddNumberToObject(u, "cpu_user_ms", round1(r->sb.user_ms));
    cJSON_AddNumberToObject(u, "cpu_system_ms", round1(r->sb.sys_ms));
    cJSON_AddNumberToObject(u, "max_rss_kb", (double)r->sb.max_rss_kb);
    cJSON_AddItemToObject(o, "resources", tg_resources_json(&r->resources));
    cJSON_AddItemToObject(o, "limits", limits_json(&r->limits));
    const tg_runtime_ops *ops = tg_runtime_ops_of(m->runtime);
    /* remote: toolgen sent a request itself (http); no process ran, confined or not */
    cJSON_AddStringToObject(o, "isolation", !r->ran                ? "not_run"
                                            : ops && ops->execute ? "remote"
                                            : r->sb.isolated      ? "bwrap"
                                                                  : "none");
    cJSON_AddNumberToObject(o, "analysis_us", round1(r->analysis_us));
    return o;
}

int tg_call_result_copy_files(const tg_call_result *r, const char *dir, tg_err *err)
{
    if (!r->sb.workdir && !r->sb.has_work_fd)
        return 0;
    if (tg_mkdirs(dir, err) != 0)
        return -1;
    int src_dir = tg_sandbox_result_open_work(&r->sb);
    if (src_dir < 0)
        return tg_err_set(err, "the call's work directory: %s", strerror(errno));
    int copied = 0;
    for (size_t i = 0; i < r->sb.n_files; i++) {
        const char *rel = r->sb.files[i].path;
        /* Walk the relative path component by component without following symlinks. */
        int d = dup(src_dir);
        char *copy = xstrdup(rel), *save = NULL, *part = strtok_r(copy, "/", &save), *next;
        int fd = -1;
        while (d >= 0 && part) {
            next = strtok_r(NULL, "/", &save);
            int nd = openat(d, part, (next ? O_DIRECTORY : 0) | O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            close(d);
            if (next)
                d = nd;
            else {
                d = -1;
                fd = nd;
            }
            part = next;
        }
        if (d >= 0)
            close(d);
        free(copy);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        char *dst = tg_path_join(dir, rel);
        char *slash = strrchr(dst, '/');
        *slash = '\0';
        tg_err ignored = {0};
        tg_mkdirs(dst, &ignored);
        *slash = '/';
        int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (out < 0) {
            int e = errno;
            close(fd);
            tg_err_set(err, "cannot write %s: %s", dst, strerror(e));
            free(dst);
            close(src_dir);
            return -1;
        }
        char buf[65536];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            if (tg_write_all(out, buf, (size_t)n) != 0)
                break;
        close(out);
        close(fd);
        free(dst);
        copied++;
    }
    close(src_dir);
    return copied;
}

void tg_model_answer_release(tg_model_answer *a)
{
    free(a->text);
    free(a->model);
    memset(a, 0, sizeof *a);
}
