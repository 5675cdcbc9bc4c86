/* server.c — `toolgen serve` composed (server.h). */
#include "app/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/generate.h"
#include "app/modelport.h"
#include "app/refine.h"
#include "base/json.h"
#include "base/strvec.h"
#include "net/httpreq.h"
#include "run/session.h"
#include "run/toolrun.h"
#include "run/warmpool.h"
#include "serve/artifacts.h"
#include "serve/builtins.h"
#include "serve/complete.h"
#include "serve/declared.h"
#include "serve/core.h"
#include "serve/devwatch.h"
#include "serve/http.h"
#include "serve/mrtr.h"
#include "serve/notify.h"
#include "serve/resources.h"
#include "serve/stdio.h"
#include "serve/tasks.h"
#include "serve/toolprov.h"
#include "serve/workflow.h"

#define INSTRUCTIONS                                                                          \
    "Tools built by toolgen from this repository. Each tool's description says when to use " \
    "it; failed calls return an error code and guidance. The "                                \
    "resources hold the Agent Skill (SKILL.md), a reference page per tool and the tools' "    \
    "JSON Schemas; the prompts are the repository's templates (prompts/)."
#define WORKFLOW_INSTRUCTIONS                                                                 \
    " When no tool answers the user's request, generate_tool makes one from the request and "  \
    "a data file: show the user each presentation, then call submit_tool_feedback, which asks " \
    "the user its questions through the client's form; promote_tool only after the user "     \
    "approved there; when the user rejects a candidate, reject_tool with their notes "        \
    "(refine: true to try again)."

/* What the server serves, opened once, and the configuration that ties it together. */
typedef struct server {
    const tg_repo *repo;
    tg_serve_devwatch watch;      /* the tool set, read again when its source changes */
    tg_serve_prompts prompts;
    tg_toolrun_env env;           /* the sandbox */
    tg_app_model_port model;      /* what prompt tools ask (docs/code-edit.md) */
    tg_serve_mrtr mrtr;
    tg_serve_tasks *tasks;        /* the tasks extension's (serve/tasks.h) */
    tg_serve_declared declared;   /* serve.resources: the repository's own resources */
    tg_warmpool *pool;            /* warm workers, one call each (docs/sandbox.md) */
    tg_serve_artifacts kept;      /* the files calls wrote */
    tg_serve_completion completion;
    tg_serve_workflow wf;
    tg_strv set_names;            /* the built-in toolsets served, in order */
    tg_serve_tools *sets;         /* their tools, one set each */
    tg_serve_provider *providers; /* the workflow's, the toolsets', the source's */
    tg_serve_config c;
    const char *token;            /* HTTP: the bearer token, which the other instances share */
} server;

static void push_once(tg_strv *v, const char *name)
{
    if (!v->n || !tg_strlist_has((const char *const *)v->v, name))
        tg_strv_push(v, name);
}

/* The toolsets of serve.toolsets, then those of o (--toolset), each once, loaded. */
static int open_sets(server *s, const tg_repo *repo, const tg_app_serve_opts *o, tg_err *err)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, repo->cfg.serve_toolsets)
        push_once(&s->set_names, v->valuestring);
    for (size_t i = 0; i < o->n_toolsets; i++)
        push_once(&s->set_names, o->toolsets[i]);
    s->sets = xcalloc(s->set_names.n + 1, sizeof *s->sets);
    for (size_t i = 0; i < s->set_names.n; i++)
        if (tg_builtin_set_load(&s->sets[i], s->set_names.v[i], err) != 0)
            return -1;
    return 0;
}

static void close_sets(server *s)
{
    for (size_t i = 0; s->sets && i < s->set_names.n; i++)
        tg_serve_tools_free(&s->sets[i]);
    free(s->sets);
    s->sets = NULL;
    tg_strv_free(&s->set_names);
}

/* The tool set, the toolsets, the prompts, the sandbox and the question key; on failure
 * nothing is left open. */
static tg_app_serve_status open_parts(server *s, const tg_repo *repo, const tg_app_serve_opts *o,
                                      tg_err *err)
{
    s->repo = repo;
    if (tg_serve_devwatch_open(&s->watch, repo, o->source, err) != 0)
        return o->source == TG_SERVE_SOURCE_DEV ? TG_APP_SERVE_ENV : TG_APP_SERVE_CONFIG;
    if (tg_serve_prompts_load(&s->prompts, repo->root_fd, TG_SERVE_PROMPTS_DIR, err) != 0) {
        tg_serve_devwatch_close(&s->watch);
        return TG_APP_SERVE_ENV;
    }
    tg_app_serve_status st = TG_APP_SERVE_OK;
    if (open_sets(s, repo, o, err) != 0 || tg_serve_declared_load(&s->declared, repo, err) != 0)
        st = TG_APP_SERVE_CONFIG;
    else if (tg_toolrun_env_open(&s->env, repo, repo->cfg.doc.root, err) != 0)
        st = TG_APP_SERVE_CONFIG;
    else if (o->state_key && tg_serve_mrtr_init_shared(&s->mrtr, o->state_key, err) != 0)
        st = TG_APP_SERVE_CONFIG;
    else if (!o->state_key && tg_serve_mrtr_init(&s->mrtr, err) != 0)
        st = TG_APP_SERVE_ENV;
    if (st == TG_APP_SERVE_OK) {
        tg_app_model_port_open(&s->model, repo);
        s->env.ctx.model = &s->model.port;
    }
    if (st == TG_APP_SERVE_OK && o->opened) {
        tg_serve_toolset *set = tg_serve_live_get(&s->watch.live);
        tg_app_serve_report r = {.tools = &set->tools, .prompts = &s->prompts,
                                 .set_names = (const char *const *)s->set_names.v,
                                 .sets = s->sets, .n_sets = s->set_names.n,
                                 .instance = tg_sessions_instance(s->env.sessions)};
        o->opened(o->ud, &r);
        tg_serve_toolset_unref(set);
    }
    if (st != TG_APP_SERVE_OK) {
        tg_serve_declared_free(&s->declared);
        tg_toolrun_env_close(&s->env);
        close_sets(s);
        tg_serve_prompts_free(&s->prompts);
        tg_serve_devwatch_close(&s->watch);
    }
    return st;
}

/* A client's HTTP session ended: so do its code sessions (docs/code.md#limits-and-expiry). */
static void client_gone(void *ctx, uint64_t client)
{
    server *s = ctx;
    tg_sessions_end_client(s->env.sessions, client);
}

/* The warm pool, the workflow, the providers and the core's configuration. */
static void wire(server *s, const tg_app_serve_opts *o)
{
    const tg_repo *repo = s->repo;
    /* the tools of completion and of the config come from the live set, per request */
    s->completion = (tg_serve_completion){
        .prompts = &s->prompts, .root_fd = repo->root_fd,
        .data_dirs = s->env.sandbox.data_dirs, .n_data_dirs = s->env.sandbox.n_data_dirs,
        .resource_prefix = TG_SERVE_RESOURCE_PREFIX};
    s->pool = tg_warmpool_new(&s->env.ctx);
    s->env.ctx.pool = s->pool; /* the snippet checker's calls go through it (docs/code-edit.md) */
    s->tasks = tg_serve_tasks_new();
    tg_serve_toolset *first = tg_serve_live_get(&s->watch.live);
    tg_serve_tools_prepare_pool(&first->tools, s->pool);
    tg_serve_toolset_unref(first);
    for (size_t i = 0; i < s->set_names.n; i++)
        tg_serve_tools_prepare_pool(&s->sets[i], s->pool);
    /* serve.workflow: the lifecycle as tools (docs/mcp.md#the-workflow-over-mcp); a promotion
     * makes the watch read the tool set again at once */
    s->wf = (tg_serve_workflow){.repo = repo, .generate = tg_generate_and_build,
                                .generate_ud = &s->watch.live, /* REUSE names served tools only */
                                .refine = tg_refine_and_build,
                                .changed = tg_serve_devwatch_force, .changed_ctx = &s->watch,
                                .user = o->user};
    /* the workflow's tools first, then the built-in toolsets', then the source's: a tool of
     * the same name as an earlier one is hidden */
    size_t n = 0;
    s->providers = xcalloc(s->set_names.n + 2, sizeof *s->providers);
    if (repo->cfg.serve_workflow) {
        tg_serve_workflow_init(&s->wf);
        s->providers[n++] = tg_serve_workflow_provider(&s->wf);
    }
    for (size_t i = 0; i < s->set_names.n; i++)
        s->providers[n++] = tg_serve_set_provider(s->set_names.v[i], &s->sets[i]);
    s->providers[n++] = tg_serve_tools_provider;
    s->c = (tg_serve_config){
        .live = &s->watch.live,
        .providers = s->providers,
        .n_providers = n,
        .prompts = &s->prompts,
        .completion = &s->completion,
        .declared = &s->declared,
        .mrtr = &s->mrtr,
        .tasks = s->tasks,
        .list_changed = TG_CHANGED_TOOLS | TG_CHANGED_RESOURCES,
        .call = {.run = tg_serve_run_pool, .run_ctx = s->pool, .read_only = o->read_only,
                 .cancel = o->cancel, .artifacts = &s->kept},
        .page_size = o->page_size,
        .list_ttl_ms = 60000,
        .instructions = repo->cfg.serve_workflow ? INSTRUCTIONS WORKFLOW_INSTRUCTIONS
                                                 : INSTRUCTIONS,
        .client_gone = client_gone,
        .client_gone_ctx = s,
    };
}

/* The change check of the transports: the tool source (a reload), then the files of the
 * resources clients subscribed to. With the core lock held. */
static unsigned check(void *ctx)
{
    server *s = ctx;
    unsigned what = tg_serve_devwatch_check(&s->watch);
    tg_sessions_sweep(s->env.sessions); /* idle code sessions end (docs/code.md#sessions) */
    if (tg_serve_declared_poll(&s->declared))
        what |= TG_CHANGED_CONTENT;
    return what;
}

/* A streamed reply's head and pieces, handed to the transport's relay (serve/forward.h). */
typedef struct relay_ctx {
    const tg_serve_fwd_req *rq;
    bool head_sent;
} relay_ctx;

static void relay_head(void *ud, long status, const tg_http_field *fields, size_t n)
{
    relay_ctx *r = ud;
    const char *type = NULL, *sid = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(fields[i].name, "content-type") == 0)
            type = fields[i].value;
        else if (strcmp(fields[i].name, "mcp-session-id") == 0)
            sid = fields[i].value;
    }
    r->head_sent = true;
    r->rq->head(r->rq->ud, status, type, sid);
}

static bool relay_data(void *ud, const char *data, size_t n)
{
    relay_ctx *r = ud;
    return r->rq->data(r->rq->ud, data, n);
}

/*
 * A message handed on to another instance (serve/forward.h, docs/scale.md): a legacy client's
 * response to a request another instance's call sent it, a cancel, a code session's call
 * relayed to the instance that holds it (its reply streamed back as it comes), or a GET that
 * resumes an event stream that instance keeps. One POST (or that GET) with
 * the client's MCP headers and the bearer token all instances share. On a thread of the
 * transport's own.
 */
static long forward(void *ctx, const tg_serve_fwd_req *rq, char *why, size_t why_size)
{
    const server *s = ctx;
    char *auth = s->token ? xasprintf("Bearer %s", s->token) : NULL;
    size_t given = 0;
    while (rq->headers && rq->headers[given] && rq->headers[given + 1])
        given += 2;
    tg_http_header *h = xcalloc(given / 2 + 4, sizeof *h);
    size_t n = 0;
    bool accept = false;
    for (size_t i = 0; i < given; i += 2) {
        accept = accept || strcasecmp(rq->headers[i], "accept") == 0;
        h[n++] = (tg_http_header){rq->headers[i], rq->headers[i + 1], false};
    }
    if (rq->body)
        h[n++] = (tg_http_header){"Content-Type", "application/json", false};
    if (!accept)
        h[n++] = (tg_http_header){"Accept", "application/json, text/event-stream", false};
    h[n++] = (tg_http_header){TG_SERVE_FORWARDED_HEADER, "1", false};
    if (auth)
        h[n++] = (tg_http_header){"Authorization", auth, true};
    static const char *const keep[] = {"content-type", "mcp-session-id", NULL};
    relay_ctx rc = {.rq = rq};
    /* a relayed call runs as long as it runs, stopped by its cancel flag; a hand-over is one
     * short POST */
    tg_http_request hr = {.method = rq->body ? TG_HTTP_POST : TG_HTTP_GET, .url = rq->url,
                          .headers = h, .nheaders = n,
                          .body = rq->body, .body_len = rq->body ? strlen(rq->body) : 0,
                          .timeout_ms = rq->relay ? 0 : 10000, .connect_timeout_ms = 3000,
                          .max_bytes = rq->relay ? 0 : 1 << 16, .keep_headers = keep,
                          .cancel = rq->cancel,
                          .on_head = rq->relay ? relay_head : NULL,
                          .on_data = rq->relay ? relay_data : NULL, .stream_ud = &rc};
    tg_http_response r = {0};
    tg_err err = {0};
    long status = -1;
    if (tg_http_request_send(&hr, &r, &err) == TG_HTTP_OK) {
        status = r.status;
        if (rq->relay && !rc.head_sent) /* no body: the head alone */
            rq->head(rq->ud, r.status, tg_http_response_header(&r, "content-type"),
                     tg_http_response_header(&r, "mcp-session-id"));
    } else {
        snprintf(why, why_size, "%s", err.msg);
    }
    tg_http_response_release(&r);
    free(h);
    if (auth) {
        memset(auth, 0, strlen(auth)); /* as net/ wipes its header lines */
        free(auth);
    }
    return status;
}

/* This instance's route, in the handles of the code sessions it makes from now on
 * (docs/scale.md#code-sessions). */
static void routed(void *ctx, const char *route)
{
    server *s = ctx;
    tg_sessions_set_route(s->env.sessions, route);
}

static int run_transport(server *s, const tg_app_serve_opts *o, tg_err *err)
{
    if (o->http_host) {
        tg_serve_http h = {.host = o->http_host, .port = o->http_port,
                           .max_message = o->max_message, .max_concurrency = o->max_concurrency,
                           .log_fd = o->log_fd, .allowed_origins = o->allowed_origins,
                           .token = o->http_token,
                           .stop = o->stop, .progress_ms = o->progress_ms,
                           .session_idle_ms = o->session_idle_ms,
                           .advertise = o->advertise, .forward = forward, .forward_ctx = s,
                           .peers = o->peers, .routed = routed, .routed_ctx = s,
                           .check = check, .check_ctx = s,
                           .ready = o->listening, .ready_ctx = o->ud};
        return tg_serve_http_run(&s->c, &h, err);
    }
    tg_serve_stdio io = {.in_fd = 0, .out_fd = o->proto_fd, .log_fd = o->log_fd,
                         .max_message = o->max_message, .progress_ms = o->progress_ms,
                         .max_concurrency = o->max_concurrency, .cancel = o->cancel,
                         .stop = o->stop, .check = check, .check_ctx = s};
    return tg_serve_stdio_run(&s->c, &io, err);
}

tg_app_serve_status tg_app_serve(const tg_repo *repo, const tg_app_serve_opts *o, tg_err *err)
{
    server *s = xcalloc(1, sizeof *s);
    tg_app_serve_status st = open_parts(s, repo, o, err);
    if (st == TG_APP_SERVE_OK) {
        wire(s, o);
        s->token = o->http_token;
        if (run_transport(s, o, err) != 0)
            st = TG_APP_SERVE_ENV;
        tg_serve_tasks_free(s->tasks); /* the transport stopped its dispatch: no run is left */
        tg_serve_artifacts_free(&s->kept);
        tg_serve_workflow_release(&s->wf);
        tg_warmpool_free(s->pool);
        free(s->providers);
        close_sets(s);
        tg_toolrun_env_close(&s->env);
        tg_app_model_port_close(&s->model);
        tg_serve_prompts_free(&s->prompts);
        tg_serve_declared_free(&s->declared);
        tg_serve_devwatch_close(&s->watch);
    }
    free(s);
    return st;
}
