/*
 * toolbatch.c — the calls of one tool through one warm sandbox (toolrun.h, tg_tool_batch), with
 * a cold call wherever the warm one cannot answer exactly as a cold call would.
 *
 * The sandbox's mounts are fixed when bwrap starts, so the batch prepares every call first: each
 * call's path arguments are mounted below its own subdirectory /work/c<i>, where its child runs.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "run/cmdrunner.h"
#include "run/toolrun.h"
#include "run/toolrun_int.h"
#include "run/warm.h"
#include "run/warmpool.h"

struct tg_tool_batch {
    const tg_toolrun_ctx *ctx;
    const tg_tool_call *calls;
    size_t n;
    bool tried;          /* the warm sandbox was started (or found impossible) */
    tg_warm *warm;
    bool have_first;
    tr_call first;       /* the first runnable call: the warm sandbox's command is built from it */
    tg_strv argv;        /* the warm runner's argv */
    tg_path_args mounts; /* every call's path arguments, where its child sees them */
    tg_strv subdirs;     /* c0 ... c<n-1>: each call's directory, a tmpfs of its own */
    tg_sandbox_cmd cmd;  /* the warm sandbox's command (borrows the above) */
    bool exec;           /* the runtime's warm_exec: each call's child execs the call's argv */
    struct tg_warmpool *pool; /* tried first (tg_tool_batch_use_pool); NULL: none */
    size_t warm_runs;
};

tg_tool_batch *tg_tool_batch_new(const tg_toolrun_ctx *ctx, const tg_tool_call *calls, size_t n)
{
    tg_tool_batch *b = xcalloc(1, sizeof *b);
    b->ctx = ctx;
    b->calls = calls;
    b->n = n;
    return b;
}

void tg_tool_batch_use_pool(tg_tool_batch *b, struct tg_warmpool *pool)
{
    b->pool = pool;
}

size_t tg_tool_batch_warm_runs(const tg_tool_batch *b)
{
    return b ? b->warm_runs : 0;
}

/* Where call i's child sees a path argument: below /work/c<i> (absolute ones stay). */
static char *inside_for(const char *inside, size_t i)
{
    if (!tg_str_startswith(inside, TG_SANDBOX_WORK "/"))
        return xstrdup(inside);
    return xasprintf("%s/c%zu/%s", TG_SANDBOX_WORK, i, inside + strlen(TG_SANDBOX_WORK "/"));
}

/* The mount of a path argument at inside, or NULL. */
static const tg_path_arg *mounted(const tg_tool_batch *b, const char *inside)
{
    for (size_t i = 0; i < b->mounts.n; i++)
        if (strcmp(b->mounts.v[i].inside, inside) == 0)
            return &b->mounts.v[i];
    return NULL;
}

static void add_mounts(tg_tool_batch *b, const tg_path_args *p, size_t i)
{
    for (size_t j = 0; j < p->n; j++) {
        char *inside = inside_for(p->v[j].inside, i);
        if (mounted(b, inside)) { /* an absolute path two calls share */
            free(inside);
            continue;
        }
        b->mounts.v = xrealloc(b->mounts.v, (b->mounts.n + 1) * sizeof *b->mounts.v);
        b->mounts.v[b->mounts.n++] = (tg_path_arg){
            .name = xstrdup(p->v[j].name), .value = xstrdup(p->v[j].value),
            .host = xstrdup(p->v[j].host), .inside = inside, .is_dir = p->v[j].is_dir};
    }
}

/* Prepares every call for its mounts; false when no call would run at all. */
static bool plan_mounts(tg_tool_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        tg_call_result tmp;
        tr_call p;
        bool ready = false;
        tg_err e = {0};
        tg_call_status st = tr_prepare(b->ctx, &b->calls[i], &tmp, &p, &ready, &e);
        if (st == TG_CALL_DONE && ready)
            add_mounts(b, &p.paths, i);
        if (st == TG_CALL_DONE && ready && !b->have_first) {
            b->first = p;
            b->have_first = true;
        } else {
            tr_call_free(&p);
        }
        tg_call_result_free(&tmp);
    }
    return b->have_first;
}

/* Whether the tool's calls may run warm: a tool's code that a runner imports (not the code
 * runtime's programs, whose working folder a warm call would change), or a command with
 * toolgen's own runner, which is cheaper than their cold runs. */
static bool warmable(const tg_tool_batch *b)
{
    const tg_manifest *m = b->calls[0].m;
    const tg_runtime_ops *ops = tg_runtime_ops_of(m->runtime);
    bool exec = ops && ops->warm_exec;
    return b->ctx->sandbox->isolation == TG_ISOLATION_BWRAP && ops && ops->warm_argv &&
           (exec ? tg_cmdrunner_exe() != NULL : m->impl_file != NULL);
}

static void start_warm(tg_tool_batch *b)
{
    b->tried = true;
    const tg_manifest *m = b->calls[0].m;
    const tg_runtime_ops *ops = tg_runtime_ops_of(m->runtime);
    bool exec = ops && ops->warm_exec;
    if (b->n < 2 || !warmable(b) || !plan_mounts(b))
        return;
    const tg_runtime_cmd *c = &b->first.c;
    char *file = m->impl_file ? xasprintf("%s/%s", TG_SANDBOX_TOOL, m->impl_file) : NULL;
    ops->warm_argv(m, c, file, &b->argv);
    free(file);
    b->cmd = c->cmd;
    if (exec) {
        b->exec = true;
        b->cmd.env = NULL; /* each call's own travels in its request */
        b->cmd.runner_exe = tg_cmdrunner_exe();
    }
    b->cmd.argv = (const char *const *)b->argv.v;
    b->cmd.request = NULL;
    b->cmd.request_len = 0;
    b->cmd.reply_channel = false;
    b->cmd.cwd = NULL;
    b->cmd.cancel = NULL;
    b->cmd.paths = &b->mounts;
    for (size_t i = 0; i < b->n; i++)
        tg_strv_pushf(&b->subdirs, "c%zu", i);
    b->cmd.work_subdirs = (const char *const *)b->subdirs.v;
    b->cmd.limits.processes += 1; /* the warm runner itself */
    tg_err e = {0};
    /* A warm sandbox that cannot start is no error: every call then runs cold and reports what a
     * cold call reports (a missing bwrap included). */
    if (tg_warm_start(b->ctx->sandbox, &b->cmd, &b->warm, &e) != TG_SANDBOX_OK)
        b->warm = NULL;
}

static bool limits_fit(const tg_limits *l, const tg_limits *max)
{
    return l->cpu_s <= max->cpu_s && l->memory_mb <= max->memory_mb &&
           l->output_kb <= max->output_kb && l->files <= max->files &&
           l->processes < max->processes;
}

/* Moves call i's path arguments below /work/c<i>; false when one is not mounted there. */
static bool place_paths(const tg_tool_batch *b, tg_path_args *p, size_t i)
{
    for (size_t j = 0; j < p->n; j++) {
        char *inside = inside_for(p->v[j].inside, i);
        const tg_path_arg *m = mounted(b, inside);
        if (!m || strcmp(m->host, p->v[j].host) != 0) {
            free(inside);
            return false;
        }
        free(p->v[j].inside);
        p->v[j].inside = inside;
    }
    return true;
}

/* DONE with *ran: out is complete. *ran false: run the call cold (out is empty again). */
static tg_call_status run_warm(tg_tool_batch *b, size_t i, tg_call_result *out, bool *ran,
                               tg_err *err)
{
    const tg_tool_call *call = &b->calls[i];
    tr_call p;
    bool ready = false;
    *ran = false;
    tg_call_status st = tr_prepare(b->ctx, call, out, &p, &ready, err);
    if (st != TG_CALL_DONE || !ready) {
        tr_call_free(&p);
        *ran = true;
        return st;
    }
    char subdir[32];
    snprintf(subdir, sizeof subdir, "c%zu", i);
    char *exec_req = b->exec ? tr_exec_request(&p.c) : NULL;
    const char *req = exec_req ? exec_req : p.c.request;
    if (req && limits_fit(&p.c.cmd.limits, &b->cmd.limits) && place_paths(b, &p.paths, i)) {
        tg_warm_call wc = {.request = req, .request_len = strlen(req),
                           .subdir = subdir, .paths = &p.paths, .limits = p.c.cmd.limits,
                           .cancel = call->cancel};
        tg_err e = {0};
        if (tg_warm_run(b->warm, &wc, &out->sb, &e) == TG_SANDBOX_OK) {
            b->warm_runs++;
            tr_judge(b->ctx, call, &p, out);
            *ran = true;
        } else {
            tg_warm_stop(b->warm); /* it broke: the rest runs cold */
            b->warm = NULL;
        }
    }
    free(exec_req);
    tr_call_free(&p);
    if (!*ran)
        tg_call_result_free(out);
    return TG_CALL_DONE;
}

tg_call_status tg_tool_batch_run(tg_tool_batch *b, size_t i, tg_call_result *out, tg_err *err)
{
    if (b->pool && warmable(b)) {
        bool done = false, warm = false;
        tg_call_status st = tg_warmpool_call_try(b->pool, &b->calls[i], out, &done, &warm, err);
        b->warm_runs += warm;
        if (done)
            return st;
    }
    if (!b->tried)
        start_warm(b);
    if (b->warm) {
        bool ran = false;
        tg_call_status st = run_warm(b, i, out, &ran, err);
        if (ran)
            return st;
    }
    return tg_tool_call_run(b->ctx, &b->calls[i], out, err);
}

void tg_tool_batch_free(tg_tool_batch *b)
{
    if (!b)
        return;
    tg_warm_stop(b->warm);
    if (b->have_first)
        tr_call_free(&b->first);
    tg_strv_free(&b->argv);
    tg_strv_free(&b->subdirs);
    tg_path_args_free(&b->mounts);
    free(b);
}
