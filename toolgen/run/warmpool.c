/*
 * warmpool.c — warm workers, one per dependency set, each used for one call (pool.h). A worker's
 * command is a cold call's runner command with `--warm - MODULE...`, its mounts the tools'
 * folder and the data directories (docs/sandbox.md#the-warm-pool).
 */
#define _GNU_SOURCE
#include "run/warmpool.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "run/toolrun_int.h"
#include "run/warm.h"

typedef struct pool_slot {
    char *key;
    tg_warm *w;          /* the ready (or starting) worker; NULL while none */
    tg_strv argv, env;
    tg_path_args mounts; /* the tools' folder and the roots */
    tg_strv roots;       /* real paths of what a call may be given: mounted at TG_WARM_DATA/<i> */
    tg_sandbox_cmd cmd;  /* the worker's command (borrows the above) */
    char *tools_dir;     /* real path of the folder holding the tools' folders */
} pool_slot;

struct tg_pool {
    const tg_toolrun_ctx *ctx;
    pthread_mutex_t mu;
    pool_slot **v;
    size_t n;
    tg_strv data_real; /* the data directories' real paths */
    tg_warm **retired; /* used workers whose sandboxes are ending */
    size_t n_retired;
    size_t warm_calls;
};

tg_pool *tg_pool_new(const tg_toolrun_ctx *ctx)
{
    tg_pool *p = xcalloc(1, sizeof *p);
    p->ctx = ctx;
    pthread_mutex_init(&p->mu, NULL);
    const tg_sandbox_config *c = ctx->sandbox;
    for (size_t i = 0; i < c->n_data_dirs; i++) {
        char *dir = c->data_dirs[i][0] == '/' ? xstrdup(c->data_dirs[i])
                                              : tg_path_join(c->root, c->data_dirs[i]);
        char real[PATH_MAX];
        if (realpath(dir, real))
            tg_strv_push(&p->data_real, real);
        free(dir);
    }
    return p;
}

size_t tg_pool_warm_calls(const tg_pool *p)
{
    return p ? p->warm_calls : 0;
}

static bool poolable(const tg_pool *p, const tg_manifest *m)
{
    return p->ctx->sandbox->isolation == TG_ISOLATION_BWRAP && m->runtime == TG_RUNTIME_PYTHON &&
           m->impl_file && m->entrypoint;
}

static bool within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/*
 * What a worker for m mounts for path arguments: the data directories, or, when the manifest
 * has constraints.allowed_paths, their intersection with those (the host check allows no more),
 * as real paths.
 */
static void roots_for(const tg_pool *p, const tg_manifest *m, tg_strv *out)
{
    const cJSON *allowed = tg_json_get(m->constraints, "allowed_paths"), *a;
    if (!cJSON_IsArray(allowed) || cJSON_GetArraySize(allowed) == 0) {
        for (size_t i = 0; i < p->data_real.n; i++)
            tg_strv_push(out, p->data_real.v[i]);
        return;
    }
    cJSON_ArrayForEach(a, allowed)
    {
        if (!cJSON_IsString(a))
            continue;
        char *path = a->valuestring[0] == '/' ? xstrdup(a->valuestring)
                                              : tg_path_join(p->ctx->sandbox->root, a->valuestring);
        char real[PATH_MAX];
        for (size_t d = 0; realpath(path, real) && d < p->data_real.n; d++) {
            if (within(real, p->data_real.v[d])) {
                tg_strv_push(out, real);
                break;
            }
            if (within(p->data_real.v[d], real))
                tg_strv_push(out, p->data_real.v[d]);
        }
        free(path);
    }
    tg_strv_sort(out);
}

/* The dependency set and everything else a worker is made for: one key, one worker. */
static char *key_of(const tg_pool *p, const tg_manifest *m, const call_cmd *c)
{
    tg_buf b = TG_BUF_INIT;
    tg_strv roots = TG_STRV_INIT;
    roots_for(p, m, &roots);
    for (size_t i = 0; i < roots.n; i++)
        tg_buf_printf(&b, "%s:", roots.v[i]);
    tg_strv_free(&roots);
    tg_buf_putc(&b, '|');
    const cJSON *deps = tg_json_get(m->implementation, "dependencies"), *d;
    tg_strv names = TG_STRV_INIT;
    cJSON_ArrayForEach(d, deps)
    {
        if (cJSON_IsString(d))
            tg_strv_push(&names, d->valuestring);
    }
    tg_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++)
        tg_buf_printf(&b, "%s,", names.v[i]);
    tg_strv_free(&names);
    char *slash = strrchr(c->tool_dir, '/');
    const tg_limits *l = &c->cmd.limits;
    tg_buf_printf(&b, "|%.*s|%ld,%ld,%ld,%ld,%ld,%ld|%d", (int)(slash ? slash - c->tool_dir : 0),
                  c->tool_dir, l->cpu_s, l->memory_mb, l->wall_ms, l->output_kb, l->files,
                  l->processes, c->cmd.matplotlib_cache);
    return tg_buf_steal(&b);
}

static void add_mount(tg_path_args *a, const char *host, const char *inside)
{
    a->v = xrealloc(a->v, (a->n + 1) * sizeof *a->v);
    a->v[a->n++] = (tg_path_arg){.name = xstrdup("mount"), .value = xstrdup(inside),
                                 .host = xstrdup(host), .inside = xstrdup(inside), .is_dir = true};
}

/* A slot for key, its worker's command built from the cold command c of a call of m. */
static pool_slot *slot_new(const tg_pool *p, const tg_manifest *m, const call_cmd *c, char *key)
{
    pool_slot *s = xcalloc(1, sizeof *s);
    s->key = key;
    for (size_t i = 0; c->argv.v[i]; i++)
        tg_strv_push(&s->argv, c->argv.v[i]);
    tg_strv_push(&s->argv, "--warm");
    tg_strv_push(&s->argv, "-");
    const cJSON *d;
    cJSON_ArrayForEach(d, tg_json_get(m->implementation, "dependencies"))
    {
        if (cJSON_IsString(d))
            tg_strv_push(&s->argv, d->valuestring);
    }
    for (size_t i = 0; i < c->env.n; i++)
        tg_strv_push(&s->env, c->env.v[i]);
    char *slash = strrchr(c->tool_dir, '/');
    s->tools_dir = slash && slash != c->tool_dir ? xstrndup(c->tool_dir, (size_t)(slash - c->tool_dir))
                                                 : xstrdup("/");
    add_mount(&s->mounts, s->tools_dir, TG_WARM_TOOLS);
    roots_for(p, m, &s->roots);
    for (size_t i = 0; i < s->roots.n; i++) {
        char *inside = xasprintf("%s/%zu", TG_WARM_DATA, i);
        add_mount(&s->mounts, s->roots.v[i], inside);
        free(inside);
    }
    s->cmd = (tg_sandbox_cmd){
        .argv = (const char *const *)s->argv.v, .env = (const char *const *)s->env.v,
        .tool_link = TG_WARM_TOOL_LINK, .mount_runtime = true,
        .matplotlib_cache = c->cmd.matplotlib_cache, .paths = &s->mounts,
        .limits = c->cmd.limits};
    s->cmd.limits.processes += 1; /* the worker's runner itself */
    return s;
}

static void slot_free(pool_slot *s)
{
    tg_warm_stop(s->w);
    tg_strv_free(&s->argv);
    tg_strv_free(&s->env);
    tg_path_args_free(&s->mounts);
    tg_strv_free(&s->roots);
    free(s->tools_dir);
    free(s->key);
    free(s);
}

/* Frees the used workers whose sandboxes have ended (never waits). */
static void reap_retired(tg_pool *p)
{
    pthread_mutex_lock(&p->mu);
    size_t keep = 0;
    for (size_t i = 0; i < p->n_retired; i++)
        if (!tg_warm_try_stop(p->retired[i]))
            p->retired[keep++] = p->retired[i];
    p->n_retired = keep;
    pthread_mutex_unlock(&p->mu);
}

/* A used worker: its runner is told to end now, its sandbox freed once it has (reap_retired). */
static void retire(tg_pool *p, tg_warm *w)
{
    tg_warm_close(w);
    pthread_mutex_lock(&p->mu);
    p->retired = xrealloc(p->retired, (p->n_retired + 1) * sizeof *p->retired);
    p->retired[p->n_retired++] = w;
    pthread_mutex_unlock(&p->mu);
}

/* Starts a worker for s unless it has one; the import runs on while the caller goes on. */
static void slot_fill(tg_pool *p, pool_slot *s)
{
    pthread_mutex_lock(&p->mu);
    bool need = s->w == NULL;
    pthread_mutex_unlock(&p->mu);
    if (!need)
        return;
    tg_warm *w = NULL;
    tg_err e = {0};
    if (tg_warm_spawn(p->ctx->sandbox, &s->cmd, &w, &e) != TG_SANDBOX_OK)
        return; /* calls run cold; the next call tries again */
    pthread_mutex_lock(&p->mu);
    if (!s->w) {
        s->w = w;
        w = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    tg_warm_stop(w);
}

/* The slot of key (made from m and c when new); the pool's lock must be held. */
static pool_slot *slot_find(tg_pool *p, const tg_manifest *m, const call_cmd *c, char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i]->key, key) == 0) {
            free(key);
            return p->v[i];
        }
    p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
    return p->v[p->n++] = slot_new(p, m, c, key);
}

/* A call of m with no arguments: enough for the worker's command (not run). */
static pool_slot *slot_for_manifest(tg_pool *p, const tg_manifest *m)
{
    if (!poolable(p, m))
        return NULL;
    call_cmd c = {0};
    tg_limits_resolve(m->constraints, m->timeout_ms, &p->ctx->sandbox->max, &c.cmd.limits);
    cJSON *none = cJSON_CreateObject();
    tg_err e = {0};
    pool_slot *s = NULL;
    if (tr_runner_command(p->ctx, m, none, NULL, &c, &e) == TG_CALL_DONE) {
        pthread_mutex_lock(&p->mu);
        s = slot_find(p, m, &c, key_of(p, m, &c));
        pthread_mutex_unlock(&p->mu);
    }
    cJSON_Delete(none);
    tr_call_cmd_free(&c);
    return s;
}

void tg_pool_prepare(tg_pool *p, const tg_manifest *m)
{
    pool_slot *s = slot_for_manifest(p, m);
    if (s)
        slot_fill(p, s);
}

void tg_pool_wait(tg_pool *p, const tg_manifest *m)
{
    reap_retired(p);
    pool_slot *s = slot_for_manifest(p, m);
    pthread_mutex_lock(&p->mu);
    tg_warm *w = s ? s->w : NULL;
    pthread_mutex_unlock(&p->mu);
    tg_err e = {0};
    if (w)
        tg_warm_wait(w, &e);
}

/*
 * The symlinks that put the call's path arguments where a cold call mounts them (pairs, heap);
 * NULL when one cannot be placed so (an absolute path, a path outside the data directories).
 */
static tg_strv *links_for(const pool_slot *s, const tg_path_args *a)
{
    tg_strv *l = xcalloc(1, sizeof *l);
    for (size_t i = 0; i < a->n; i++) {
        const char *inside = a->v[i].inside, *host = a->v[i].host;
        size_t d = 0;
        while (d < s->roots.n && !within(host, s->roots.v[d]))
            d++;
        if (!tg_str_startswith(inside, TG_SANDBOX_WORK "/") || d == s->roots.n) {
            tg_strv_free(l);
            free(l);
            return NULL;
        }
        tg_strv_push(l, inside + strlen(TG_SANDBOX_WORK "/"));
        tg_strv_pushf(l, "%s/%zu%s", TG_WARM_DATA, d, host + strlen(s->roots.v[d]));
    }
    return l;
}

/* The call in worker w (which it ends); false: it broke, run the call cold. */
static bool run_in(tg_pool *p, const pool_slot *s, tg_warm *w, const tg_tool_call *call,
                   tr_call *pc, tg_call_result *out)
{
    tg_strv *links = links_for(s, &pc->paths);
    bool ran = false;
    if (links) {
        const char *tool = strrchr(pc->c.tool_dir, '/');
        tg_warm_call wc = {.request = pc->c.request, .request_len = strlen(pc->c.request),
                           .subdir = "c0", .paths = &pc->paths, .tool = tool ? tool + 1 : "",
                           .links = (const char *const *)links->v, .limits = pc->c.cmd.limits,
                           .cancel = call->cancel};
        tg_err e = {0};
        ran = tg_warm_run(w, &wc, &out->sb, &e) == TG_SANDBOX_OK;
        tg_strv_free(links);
        free(links);
    }
    retire(p, w);
    if (ran)
        tr_judge(p->ctx, call, pc, out);
    return ran;
}

tg_call_status tg_pool_call_run(tg_pool *p, const tg_tool_call *call, tg_call_result *out,
                                tg_err *err)
{
    if (!poolable(p, call->m))
        return tg_tool_call_run(p->ctx, call, out, err);
    reap_retired(p);
    tr_call pc;
    bool ready = false;
    tg_call_status st = tr_prepare(p->ctx, call, out, &pc, &ready, err);
    if (st != TG_CALL_DONE || !ready) {
        tr_call_free(&pc);
        return st;
    }
    pthread_mutex_lock(&p->mu);
    pool_slot *s = slot_find(p, call->m, &pc.c, key_of(p, call->m, &pc.c));
    tg_warm *w = s->w;
    s->w = NULL;
    pthread_mutex_unlock(&p->mu);
    bool ran = w && run_in(p, s, w, call, &pc, out);
    tr_call_free(&pc);
    slot_fill(p, s); /* the replacement: one worker, one call */
    if (ran) {
        pthread_mutex_lock(&p->mu);
        p->warm_calls++;
        pthread_mutex_unlock(&p->mu);
        return TG_CALL_DONE;
    }
    tg_call_result_free(out);
    return tg_tool_call_run(p->ctx, call, out, err);
}

void tg_pool_free(tg_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        slot_free(p->v[i]);
    free(p->v);
    for (size_t i = 0; i < p->n_retired; i++)
        tg_warm_stop(p->retired[i]);
    free(p->retired);
    tg_strv_free(&p->data_real);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
