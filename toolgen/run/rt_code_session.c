/*
 * rt_code_session.c — the code runtime's sessions and listings (docs/code.md#sessions): the
 * programs of a session (a `session_id` argument) run in the session's sandbox
 * (run/session.h) instead of a fresh one; create_session and close_session answer from the
 * store; list_runtimes and list_available_packages run runner_code.py in describe mode.
 *
 * What is answered without a program is answered as a runner would answer: a reply on the
 * result's reply stream ({"ok": true, "result"} or {"ok": false, "error": {phase "session",
 * type SESSION_EXPIRED, ...}}), judged by toolrun like any call, so a refusal gets the same
 * classification, error code and guidance (run/codeguide.c) as a program's failure.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "run/rt_int.h"
#include "run/session.h"
#include "run/toolrun_int.h"

void rt_code_answer(const tg_toolrun_ctx *ctx, const tg_tool_call *call, tr_call *p,
                    tg_call_result *out, cJSON *reply)
{
    tg_sandbox_result *sb = &out->sb;
    bool ok = cJSON_IsTrue(tg_json_get(reply, "ok"));
    sb->out.data = xstrdup("");
    sb->err.data = xstrdup("");
    sb->reply.data = tg_json_print_compact(reply);
    sb->reply.len = sb->reply.total = strlen(sb->reply.data);
    sb->exit_code = ok ? 0 : 1;
    sb->isolated = true;
    cJSON_Delete(reply);
    tr_judge(ctx, call, p, out);
}

cJSON *rt_code_refusal(const char *phase, const char *type, const char *message)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "ok", false);
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddStringToObject(e, "phase", phase);
    cJSON_AddStringToObject(e, "type", type);
    cJSON *mro = cJSON_AddArrayToObject(e, "mro");
    cJSON_AddItemToArray(mro, cJSON_CreateString(type));
    cJSON_AddStringToObject(e, "message", message);
    return r;
}

static cJSON *refusal(const char *type, const char *message)
{
    return rt_code_refusal("session", type, message);
}

cJSON *rt_code_success(cJSON *result)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "ok", true);
    cJSON_AddItemToObject(r, "result", result);
    return r;
}

static const char *interpreter(tg_code_lang lang, tg_err *err)
{
    const char *path = lang == TG_CODE_NODE ? tg_sandbox_node() : tg_sandbox_python();
    if (!path)
        tg_err_set(err, "%s is not installed (%s): install it with `sudo apt-get install %s`",
                   lang == TG_CODE_NODE ? "Node.js" : "python3",
                   lang == TG_CODE_NODE ? "/usr/bin/node" : "/usr/bin/python3",
                   lang == TG_CODE_NODE ? "nodejs" : "python3");
    return path;
}

/* The sandbox command of a session of lang: runner_session.py supervising the interpreter. */
static tg_call_status session_command(tg_code_lang lang, const tg_limits *limits,
                                      tg_runtime_cmd *c, tg_err *err)
{
    const char *python = interpreter(TG_CODE_PYTHON, err);
    const char *interp = python ? interpreter(lang, err) : NULL;
    if (!interp)
        return TG_CALL_ENV;
    tg_strv_push(&c->argv, python);
    tg_strv_push(&c->argv, "-B");
    tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner_session.py");
    tg_strv_push(&c->argv, interp);
    if (lang == TG_CODE_NODE) {
        /* as rt_code.c: V8's heap below the address-space limit (docs/code.md#memory) */
        tg_strv_pushf(&c->argv, "--max-old-space-size=%ld", limits->memory_mb / 2);
        tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner_session.js");
    } else {
        tg_strv_push(&c->argv, "-B");
        tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner_session.py");
        tg_strv_push(&c->argv, "--interp");
    }
    rt_python_env(&c->env);
    c->cmd.argv = (const char *const *)c->argv.v;
    c->cmd.env = (const char *const *)c->env.v;
    c->cmd.mount_runtime = true;
    c->cmd.matplotlib_cache = lang == TG_CODE_PYTHON;
    c->cmd.limits = *limits;
    c->cmd.limits.processes += 2; /* the supervisor and the interpreter */
    return TG_CALL_DONE;
}

/* The repository's data directories, read-only at /work/s/<dir> in a session's sandbox, so that
 * its programs (and file_system) read data/x.csv as a path relative to where they run. */
static void data_mounts(const tg_sandbox_config *c, tg_path_args *out)
{
    out->v = xcalloc(c->n_data_dirs ? c->n_data_dirs : 1, sizeof *out->v);
    for (size_t i = 0; i < c->n_data_dirs; i++) {
        char *rel = xstrdup(c->data_dirs[i]);
        while (tg_str_startswith(rel, "./"))
            memmove(rel, rel + 2, strlen(rel + 2) + 1);
        size_t n = strlen(rel);
        while (n && rel[n - 1] == '/')
            rel[--n] = '\0';
        char *joined = tg_path_join(c->root, rel);
        char *host = n && rel[0] != '/' && !strstr(rel, "..") ? realpath(joined, NULL) : NULL;
        if (host && tg_is_dir(host))
            out->v[out->n++] = (tg_path_arg){.name = xstrdup("data_dir"), .value = xstrdup(rel),
                                             .host = host,
                                             .inside = xasprintf(TG_SANDBOX_WORK "/s/%s", rel),
                                             .is_dir = true};
        else
            free(host);
        free(joined);
        free(rel);
    }
}

/* A program of session id: run in the session's sandbox, judged as any program. */
static tg_call_status run_in_session(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                                     tr_call *p, tg_call_result *out, const char *id, tg_err *err)
{
    tg_code_lang lang = tg_code_lang_parse(tg_json_get_string(call->m->implementation, "language"));
    /* file_system acts on the directory of a session of either language */
    const char *lang_name = rt_code_action(call->m) == RT_CODE_FILE_SYSTEM ? NULL
                            : lang == TG_CODE_NODE                         ? "node"
                                                                           : "python";
    bool restarted = false;
    tg_sandbox_status sbst = TG_SANDBOX_OK;
    tg_session_status ss = !ctx->sessions ? TG_SESSION_UNKNOWN
                           : tg_session_run(ctx->sessions, id, call->client_id, lang_name,
                                            &p->c.cmd, &out->sb, &restarted, &sbst, err);
    if (!ctx->sessions)
        tg_err_set(err, "unknown session %s: sessions are kept by a running server", id);
    if (ss != TG_SESSION_OK) {
        cJSON *r = refusal(tg_session_type(ss), err->msg);
        tg_err_clear(err);
        rt_code_answer(ctx, call, p, out, r);
        return TG_CALL_DONE;
    }
    if (sbst != TG_SANDBOX_OK)
        return tr_status_of(sbst);
    out->session = cJSON_CreateObject();
    cJSON_AddStringToObject(out->session, "session_id", id);
    cJSON_AddBoolToObject(out->session, "restarted", restarted);
    tr_judge(ctx, call, p, out);
    return TG_CALL_DONE;
}

/* create_session's packages loaded into the new session (preload): NULL when they loaded
 * (*loaded: the slow imports it did, *ms: how long it took), else the runner's refusal. */
static cJSON *preload(const tg_toolrun_ctx *ctx, const tg_tool_call *call, const char *id,
                      tg_code_lang lang, const cJSON *packages, const tg_limits *limits,
                      cJSON **loaded, double *ms)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "code", "");
    cJSON_AddItemToObject(req, "packages", cJSON_Duplicate(packages, true));
    cJSON_AddItemToObject(req, "allowed", rt_code_allowed(ctx, lang));
    cJSON_AddBoolToObject(req, "preload", true);
    char *text = tg_json_print_compact(req);
    cJSON_Delete(req);
    tg_sandbox_cmd cmd = {.request = text, .request_len = strlen(text), .limits = *limits,
                          .cancel = call->cancel};
    tg_sandbox_result res = {0};
    bool restarted = false, garbled = false;
    tg_sandbox_status sbst;
    tg_err err = {0};
    tg_session_status ss = tg_session_run(ctx->sessions, id, call->client_id,
                                          lang == TG_CODE_NODE ? "node" : "python", &cmd, &res,
                                          &restarted, &sbst, &err);
    free(text);
    cJSON *reply = ss == TG_SESSION_OK && sbst == TG_SANDBOX_OK ? rt_runner_parse(&res, &garbled)
                                                                : NULL;
    cJSON *refused = NULL;
    if (!reply || !cJSON_IsTrue(tg_json_get(reply, "ok"))) {
        const cJSON *e = tg_json_get(reply, "error");
        refused = e ? cJSON_CreateObject() : NULL;
        if (refused) {
            cJSON_AddBoolToObject(refused, "ok", false);
            cJSON_AddItemToObject(refused, "error", cJSON_Duplicate(e, true));
            cJSON_AddItemToObject(refused, "available",
                                  cJSON_Duplicate(tg_json_get(reply, "available"), true));
        } else {
            refused = refusal("SESSION_START_FAILED",
                              "the session's interpreter could not load the packages "
                              "(it ended or ran out of time); try fewer packages");
        }
    } else {
        *loaded = cJSON_Duplicate(tg_json_get(reply, "imports"), true);
        *ms = res.wall_ms;
    }
    cJSON_Delete(reply);
    tg_sandbox_result_free(&res);
    return refused;
}

static tg_call_status create(const tg_toolrun_ctx *ctx, const tg_tool_call *call, tr_call *p,
                             tg_call_result *out, tg_err *err)
{
    const char *lang_name = tg_json_get_string(out->args, "runtime");
    tg_code_lang lang = tg_code_lang_parse(lang_name);
    lang_name = lang == TG_CODE_NODE ? "node" : "python";
    tg_runtime_cmd sc = {0};
    tg_path_args data = {0};
    tg_call_status st = session_command(lang, &out->limits, &sc, err);
    data_mounts(ctx->sandbox, &data);
    sc.cmd.paths = &data;
    char id[TG_SESSION_ID_MAX];
    tg_sandbox_status sbst = TG_SANDBOX_OK;
    tg_session_status ss = st != TG_CALL_DONE ? TG_SESSION_START
                           : tg_session_create(ctx->sessions, lang_name, &sc.cmd,
                                               call->client_id, id, &sbst, err);
    tg_runtime_cmd_free(&sc);
    tg_path_args_free(&data);
    if (st != TG_CALL_DONE || (ss == TG_SESSION_START && sbst == TG_SANDBOX_ENV))
        return st != TG_CALL_DONE ? st : TG_CALL_ENV;
    if (ss != TG_SESSION_OK) {
        cJSON *r = refusal(tg_session_type(ss), err->msg);
        tg_err_clear(err);
        rt_code_answer(ctx, call, p, out, r);
        return TG_CALL_DONE;
    }
    const cJSON *packages = tg_json_get(out->args, "packages");
    cJSON *loaded = NULL;
    double ms = 0;
    if (cJSON_GetArraySize(packages) > 0) {
        cJSON *refused = preload(ctx, call, id, lang, packages, &out->limits, &loaded, &ms);
        if (refused) {
            tg_err ignored = {0};
            tg_session_close(ctx->sessions, id, call->client_id, &ignored);
            rt_code_answer(ctx, call, p, out, refused);
            return TG_CALL_DONE;
        }
    }
    cJSON *info = tg_session_info(ctx->sessions, id, call->client_id);
    cJSON_AddItemToObject(info, "preloaded", loaded ? loaded : cJSON_CreateArray());
    cJSON_AddNumberToObject(info, "preload_ms", (double)(long)(ms * 10) / 10);
    rt_code_answer(ctx, call, p, out, rt_code_success(info));
    return TG_CALL_DONE;
}

static tg_call_status close_session(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                                    tr_call *p, tg_call_result *out, tg_err *err)
{
    const char *id = tg_json_get_string(out->args, "session_id");
    tg_session_status ss = tg_session_close(ctx->sessions, id ? id : "", call->client_id, err);
    if (ss == TG_SESSION_BUSY) {
        cJSON *r = refusal(tg_session_type(ss), err->msg);
        tg_err_clear(err);
        rt_code_answer(ctx, call, p, out, r);
        return TG_CALL_DONE;
    }
    /* closing what is not open is no error (the tool is idempotent): the result says why */
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "session_id", id);
    cJSON_AddBoolToObject(res, "closed", ss == TG_SESSION_OK);
    cJSON_AddStringToObject(res, "message", ss == TG_SESSION_OK ? "closed: its interpreter and "
                                            "files are gone" : err->msg);
    tg_err_clear(err);
    rt_code_answer(ctx, call, p, out, rt_code_success(res));
    return TG_CALL_DONE;
}

bool rt_code_direct(const tg_toolrun_ctx *ctx, const tg_tool_call *call, tr_call *p,
                    tg_call_result *out, tg_call_status *st, tg_err *err)
{
    tg_code_action a = rt_code_action(call->m);
    if (a == RT_CODE_WEB_FETCH) {
        *st = rt_web_fetch(ctx, call, p, out, err);
        return true;
    }
    if (a == RT_CODE_LIST_RUNTIMES || a == RT_CODE_LIST_PACKAGES)
        return false;
    if (a == RT_CODE_FILE_SYSTEM && !tg_json_get_string(out->args, "session_id")) {
        data_mounts(ctx->sandbox, &p->paths); /* a one-off sandbox sees the data, read-only */
        return false;
    }
    if (a == RT_CODE_EXECUTE || a == RT_CODE_FILE_SYSTEM) {
        const char *id = tg_json_get_string(out->args, "session_id");
        if (!id)
            return false;
        *st = run_in_session(ctx, call, p, out, id, err);
        return true;
    }
    if (!ctx->sessions) {
        rt_code_answer(ctx, call, p, out, refusal("SESSION_START_FAILED",
                                                  "sessions are not available in this program"));
        *st = TG_CALL_DONE;
        return true;
    }
    *st = a == RT_CODE_CREATE_SESSION ? create(ctx, call, p, out, err)
                                      : close_session(ctx, call, p, out, err);
    return true;
}

void rt_code_session_report(cJSON *o, const cJSON *info, const tg_run_facts *f, cJSON *guidance,
                            tg_guidance *g)
{
    cJSON *s = cJSON_Duplicate(info, true);
    cJSON *first = cJSON_Duplicate(tg_json_get(f->reply, "imports"), true);
    cJSON *cached = cJSON_Duplicate(tg_json_get(f->reply, "cached_imports"), true);
    cJSON_AddItemToObject(s, "first_imports", first ? first : cJSON_CreateArray());
    cJSON_AddItemToObject(s, "cached_imports", cached ? cached : cJSON_CreateArray());
    cJSON_AddItemToObject(o, "session", s);
    if (!cJSON_IsTrue(tg_json_get(info, "restarted")))
        return;
    static const char note[] =
        "The session's interpreter was stopped and replaced: its variables and imports are "
        "gone, the files in its working directory are kept. Run the setup code (imports, "
        "loading data) again in this session before continuing.";
    if (guidance)
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(guidance, "actionable_guidance"),
                             cJSON_CreateString(note));
    if (g && g->n_fix < TG_GUIDANCE_FIXES)
        snprintf(g->fix[g->n_fix++], TG_GUIDANCE_TEXT, "%s", note);
}

/* file_system's request: the action on the session's directory, or on the data directories
 * (mounted below /work/s) of a one-off sandbox. */
static cJSON *fs_request(const cJSON *args)
{
    cJSON *req = cJSON_CreateObject();
    cJSON *fs = cJSON_AddObjectToObject(req, "fs");
    static const char *const keep[] = {"action", "path", "content"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
        const cJSON *v = tg_json_get(args, keep[i]);
        if (v)
            cJSON_AddItemToObject(fs, keep[i], cJSON_Duplicate(v, true));
    }
    cJSON_AddStringToObject(req, "root", TG_SANDBOX_WORK "/s");
    return req;
}

tg_call_status rt_code_listing_command(const tg_toolrun_ctx *ctx, tg_code_action action,
                                       const cJSON *args, tg_runtime_cmd *c, tg_err *err)
{
    const char *python = interpreter(TG_CODE_PYTHON, err);
    if (!python)
        return TG_CALL_ENV;
    cJSON *req = action == RT_CODE_FILE_SYSTEM ? fs_request(args) : cJSON_CreateObject();
    if (action != RT_CODE_FILE_SYSTEM)
        cJSON_AddStringToObject(req, "describe",
                                action == RT_CODE_LIST_RUNTIMES ? "runtimes" : "packages");
    cJSON *allowed = cJSON_AddObjectToObject(req, "allowed");
    cJSON_AddItemToObject(allowed, "python", rt_code_allowed(ctx, TG_CODE_PYTHON));
    cJSON_AddItemToObject(allowed, "node", rt_code_allowed(ctx, TG_CODE_NODE));
    if (ctx->sessions) {
        cJSON *ss = cJSON_AddObjectToObject(req, "sessions");
        cJSON_AddNumberToObject(ss, "max", (double)tg_sessions_max(ctx->sessions));
        cJSON_AddNumberToObject(ss, "idle_timeout_s",
                                (double)(tg_sessions_idle_ms(ctx->sessions) / 1000));
    }
    const char *node = tg_sandbox_node();
    if (node)
        cJSON_AddStringToObject(req, "node", node);
    c->request = tg_json_print_compact(req);
    cJSON_Delete(req);
    c->cmd.request = c->request;
    c->cmd.request_len = strlen(c->request);
    c->cmd.reply_channel = true;
    c->cmd.mount_runtime = true;
    tg_strv_push(&c->argv, python);
    tg_strv_push(&c->argv, "-B");
    tg_strv_push(&c->argv, TG_SANDBOX_RUNTIME "/runner_code.py");
    rt_python_env(&c->env);
    return TG_CALL_DONE;
}
