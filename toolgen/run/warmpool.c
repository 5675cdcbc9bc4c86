/*
 * warmpool.c — warm workers, one per dependency set, each used for one call, or for up to
 * WORKER_CALLS_MAX calls in turn when it keeps them apart (warmpool.h). A
 * worker's command is a cold call's made warm by its runtime (tg_runtime_ops.warm_argv: python's
 * `--warm - MODULE...`) plus `TOOLFILE...` (the tool files it compiles ahead), its mounts the
 * tools' folder and the data directories. A filler thread
 * starts the replacement of a used worker and frees the used ones, off the calls' path
 * (docs/sandbox.md#the-warm-pool).
 */
#define _GNU_SOURCE
#include "run/warmpool.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "run/cmdrunner.h"
#include "run/cmdrunner_int.h"
#include "run/rt_int.h"
#include "run/sandbox_int.h"
#include "run/toolrun_int.h"
#include "run/warm.h"

/* Tool files a new worker compiles ahead: the most recently offered or called tools of its slot. */
#define HINTS_MAX 16
/* A slot whose workers end this many times in a row before they are ready (their runner cannot
 * start) starts none for REST_MS: its calls run cold instead of paying a dead start each. */
#define DEAD_STARTS_MAX 2
#define REST_MS 30000.0

/* The calls one worker may serve when it keeps them apart (tg_warm_reusable), each in its own
 * tmpfs below /work; then it is replaced. One call when it cannot. */
#define WORKER_CALLS_MAX 32
static const char *const call_dirs[WORKER_CALLS_MAX + 1] = {
    "c0",  "c1",  "c2",  "c3",  "c4",  "c5",  "c6",  "c7",  "c8",  "c9",  "c10",
    "c11", "c12", "c13", "c14", "c15", "c16", "c17", "c18", "c19", "c20", "c21",
    "c22", "c23", "c24", "c25", "c26", "c27", "c28", "c29", "c30", "c31", NULL};

/* One worker: a warm sandbox and the command it was started with (which it borrows). */
typedef struct pool_worker {
    tg_warm *w;
    tg_strv argv; /* the slot's argv and the tool files to compile */
    tg_sandbox_cmd cmd;
    size_t calls; /* calls served so far; the next one goes to call_dirs[calls] */
    double idle_since; /* tg_now_ms when it last became ready */
} pool_worker;

/* Workers a slot may hold at once (ready, starting or out on a call): one interpreter with a
 * dependency set's imports (pandas: ~100 MB) per slot; a command worker imports nothing, so a
 * server's calls in flight each find one (docs/sandbox.md#commands-in-the-pool). */
#define SLOT_WORKERS_MAX 8

typedef struct pool_slot {
    char *key;
    pool_worker *ready[SLOT_WORKERS_MAX]; /* ready (or starting) workers, the newest last */
    size_t n_ready;
    size_t busy;         /* workers out on a call (not one on its last call) */
    size_t cap;          /* at most this many ready and busy workers: 1 (a waiting pool: its
                          * idle_max), or SLOT_WORKERS_MAX */
    size_t wants;        /* workers the filler thread is to start */
    size_t waiters;      /* calls of a waiting pool waiting for a worker (take_worker) */
    bool filling;        /* the filler thread is starting one */
    tg_strv hints;       /* tool files in a worker (TG_WARM_TOOLS/<tool>/<file>), newest first */
    tg_strv argv, env;
    tg_path_args mounts; /* the tools' folder and the roots */
    tg_strv roots;       /* real paths of what a call may be given: mounted at TG_WARM_DATA/<i> */
    tg_sandbox_cmd cmd;  /* the worker's command (borrows the above) */
    char *tools_dir;     /* real path of the folder holding the tools' folders */
    bool exec;           /* the runtime's warm_exec: each call's child execs the call's argv */
    unsigned dead_starts; /* workers in a row that ended before they were ready */
    double rest_until;   /* tg_now_ms() until which it starts no worker (0: none) */
} pool_slot;

struct tg_warmpool {
    const tg_toolrun_ctx *ctx;
    pthread_mutex_t mu;
    pthread_cond_t wake;   /* the filler thread has work (or is to stop) */
    pthread_cond_t filled; /* a slot's filling ended, or a worker came back or became ready */
    pthread_t filler;
    bool filler_on, stopping;
    bool waiting; /* calls wait for a worker rather than run cold (tg_warmpool_set_waiting) */
    size_t idle_max; /* a waiting pool's bound on idle interpreters, and on workers per
                      * slot; 0: none */
    pool_slot **v;
    size_t n;
    tg_strv data_real; /* the data directories' real paths */
    pool_worker **retired; /* used workers whose sandboxes are ending */
    size_t n_retired;
    size_t warm_calls;
    size_t started; /* workers spawned or tried */
};

tg_warmpool *tg_warmpool_new(const tg_toolrun_ctx *ctx)
{
    tg_warmpool *p = xcalloc(1, sizeof *p);
    p->ctx = ctx;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->filled, NULL);
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

void tg_warmpool_set_waiting(tg_warmpool *p, bool waiting, size_t idle_max)
{
    p->waiting = waiting;
    p->idle_max = idle_max;
}

bool tg_warmpool_reuse_possible(void)
{
    return cr_landlock_abi() >= CR_LANDLOCK_ABI_NEEDED && sb_filter_available();
}

size_t tg_warmpool_warm_calls(const tg_warmpool *p)
{
    return p ? p->warm_calls : 0;
}

size_t tg_warmpool_workers_started(tg_warmpool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->mu);
    size_t n = p->started;
    pthread_mutex_unlock(&p->mu);
    return n;
}

/* The operations of m's runtime when it can use a worker, else NULL. */
static const tg_runtime_ops *poolable(const tg_warmpool *p, const tg_manifest *m)
{
    const tg_runtime_ops *ops = tg_runtime_ops_of(m->runtime);
    bool warm = p->ctx->sandbox->isolation == TG_ISOLATION_BWRAP && ops && ops->warm_argv &&
                (ops->warm_ok ? ops->warm_ok(m) : m->impl_file && m->entrypoint);
    return warm ? ops : NULL;
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
static void roots_for(const tg_warmpool *p, const tg_manifest *m, tg_strv *out)
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

/* A worker's limits: the manifest's, which a call may only lower (the code runtime's `timeout`
 * shortens its wall clock), so that one worker serves every call of a tool. */
static void worker_limits(const tg_warmpool *p, const tg_manifest *m, const tg_runtime_cmd *c,
                          tg_limits *out)
{
    tg_limits_resolve(m->constraints, m->timeout_ms, &p->ctx->sandbox->max, out);
    if (c->cmd.limits.wall_ms > out->wall_ms) /* never below what the call may use */
        out->wall_ms = c->cmd.limits.wall_ms;
}

/* The dependency set and everything else a worker is made for: one key, one worker. */
static char *key_of(const tg_warmpool *p, const tg_runtime_ops *ops, const tg_manifest *m,
                    const tg_runtime_cmd *c)
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
    const char *dir = c->tool_dir ? c->tool_dir : "";
    const char *slash = strrchr(dir, '/');
    tg_limits lim;
    worker_limits(p, m, c, &lim);
    const tg_limits *l = &lim;
    tg_buf_printf(&b, "|%.*s|%ld,%ld,%ld,%ld,%ld,%ld|%d|%s", (int)(slash ? slash - dir : 0), dir,
                  l->cpu_s, l->memory_mb, l->wall_ms, l->output_kb, l->files, l->processes,
                  c->cmd.matplotlib_cache,
                  /* a command's argv is its call's: every call of the runtime shares a worker */
                  ops->warm_exec || !c->argv.n ? "" : c->argv.v[c->argv.n - 1]);
    return tg_buf_steal(&b);
}

static void add_mount(tg_path_args *a, const char *host, const char *inside)
{
    a->v = xrealloc(a->v, (a->n + 1) * sizeof *a->v);
    a->v[a->n++] = (tg_path_arg){.name = xstrdup("mount"), .value = xstrdup(inside),
                                 .host = xstrdup(host), .inside = xstrdup(inside), .is_dir = true};
}

/* A slot for key, its worker's command built by ops (m's runtime's) from the cold command c of
 * a call of m. */
static pool_slot *slot_new(const tg_warmpool *p, const tg_runtime_ops *ops, const tg_manifest *m,
                           const tg_runtime_cmd *c, char *key)
{
    pool_slot *s = xcalloc(1, sizeof *s);
    s->key = key;
    ops->warm_argv(m, c, NULL, &s->argv);
    s->exec = ops->warm_exec;
    s->cap = 1; /* an interpreter (pandas: ~100 MB); a waiting pool's queue may grow it */
    if (s->exec)
        s->cap = SLOT_WORKERS_MAX;
    else if (p->waiting && p->idle_max > 1)
        s->cap = p->idle_max < SLOT_WORKERS_MAX ? p->idle_max : SLOT_WORKERS_MAX;
    for (size_t i = 0; !s->exec && i < c->env.n; i++) /* a command's env is its call's */
        tg_strv_push(&s->env, c->env.v[i]);
    const char *slash = c->tool_dir ? strrchr(c->tool_dir, '/') : NULL;
    if (c->tool_dir) /* a tool's code; the code runtime's programs have none */
        s->tools_dir = slash && slash != c->tool_dir
                           ? xstrndup(c->tool_dir, (size_t)(slash - c->tool_dir)) : xstrdup("/");
    if (s->tools_dir)
        add_mount(&s->mounts, s->tools_dir, TG_WARM_TOOLS);
    roots_for(p, m, &s->roots);
    for (size_t i = 0; i < s->roots.n; i++) {
        char *inside = xasprintf("%s/%zu", TG_WARM_DATA, i);
        add_mount(&s->mounts, s->roots.v[i], inside);
        free(inside);
    }
    s->cmd = (tg_sandbox_cmd){
        .argv = (const char *const *)s->argv.v, .env = (const char *const *)s->env.v,
        .work_subdirs = call_dirs, .live_binds = true,
        .tool_link = s->tools_dir ? TG_WARM_TOOL_LINK : NULL, .mount_runtime = true,
        .matplotlib_cache = c->cmd.matplotlib_cache, .paths = &s->mounts};
    if (s->argv.n && strcmp(s->argv.v[0], TG_CMDRUNNER_PATH) == 0)
        s->cmd.runner_exe = tg_cmdrunner_exe();
    worker_limits(p, m, c, &s->cmd.limits);
    s->cmd.limits.processes += 1; /* the worker's runner itself */
    return s;
}

/* How many workers s may have now: none while it rests (DEAD_STARTS_MAX). */
static size_t slot_cap(const pool_slot *s)
{
    return s->rest_until > 0 && tg_now_ms() < s->rest_until ? 0 : s->cap;
}

/*
 * Under the pool's lock: a worker of s ended before it was ready, or could not be started. With
 * toolgen's own command runner (which needs toolgen's libraries in the sandbox) the slot
 * changes to runner.py at once; otherwise DEAD_STARTS_MAX such ends in a row make it rest
 * (docs/sandbox.md#the-warm-pool).
 */
static void slot_dead_start(pool_slot *s, const pool_worker *pw)
{
    if (!pw->argv.n || !s->argv.n || strcmp(pw->argv.v[0], s->argv.v[0]) != 0)
        return; /* started before the slot changed its runner */
    tg_strv py = TG_STRV_INIT;
    if (s->cmd.runner_exe && tg_command_warm_argv_py(&py)) {
        tg_strv_free(&s->argv);
        s->argv = py;
        s->cmd.argv = (const char *const *)s->argv.v;
        s->cmd.runner_exe = NULL;
        s->dead_starts = 0;
        return;
    }
    tg_strv_free(&py);
    if (++s->dead_starts >= DEAD_STARTS_MAX) {
        s->rest_until = tg_now_ms() + REST_MS;
        s->dead_starts = DEAD_STARTS_MAX - 1; /* after the rest, one more dead start rests */
    }
}

static void worker_free(pool_worker *pw)
{
    if (!pw)
        return;
    tg_warm_stop(pw->w);
    tg_strv_free(&pw->argv);
    free(pw);
}

static void slot_free(pool_slot *s)
{
    for (size_t i = 0; i < s->n_ready; i++)
        worker_free(s->ready[i]);
    tg_strv_free(&s->hints);
    tg_strv_free(&s->argv);
    tg_strv_free(&s->env);
    tg_path_args_free(&s->mounts);
    tg_strv_free(&s->roots);
    free(s->tools_dir);
    free(s->key);
    free(s);
}

/* Puts the tool file of a call (tool folder tool_dir, file impl) first among s's hints; the
 * pool's lock must be held. */
static void slot_hint(pool_slot *s, const char *tool_dir, const char *impl)
{
    if (!tool_dir || !impl) /* the code runtime's program is the call's: nothing to compile */
        return;
    const char *slash = strrchr(tool_dir, '/');
    char *hint = xasprintf("%s/%s/%s", TG_WARM_TOOLS, slash ? slash + 1 : tool_dir, impl);
    tg_strv next = TG_STRV_INIT;
    tg_strv_push(&next, hint);
    for (size_t i = 0; i < s->hints.n && next.n < HINTS_MAX; i++)
        if (strcmp(s->hints.v[i], hint) != 0)
            tg_strv_push(&next, s->hints.v[i]);
    free(hint);
    tg_strv_free(&s->hints);
    s->hints = next;
}

/* Frees the used workers whose sandboxes have ended (never waits; not under the lock, since
 * removing a sandbox's directories takes a while). */
static void reap_retired(tg_warmpool *p)
{
    pthread_mutex_lock(&p->mu);
    pool_worker **v = p->retired;
    size_t n = p->n_retired;
    p->retired = NULL;
    p->n_retired = 0;
    pthread_mutex_unlock(&p->mu);
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        if (tg_warm_try_stop(v[i]->w)) {
            v[i]->w = NULL;
            worker_free(v[i]);
        } else {
            v[keep++] = v[i];
        }
    }
    pthread_mutex_lock(&p->mu);
    if (keep) {
        p->retired = xrealloc(p->retired, (p->n_retired + keep) * sizeof *p->retired);
        memcpy(p->retired + p->n_retired, v, keep * sizeof *v);
        p->n_retired += keep;
    }
    pthread_mutex_unlock(&p->mu);
    free(v);
}

static void retire(tg_warmpool *p, pool_worker *pw);

/* The ready workers holding an interpreter's imports, across the pool (a command worker's
 * runner holds next to nothing); the pool's lock is held. */
static size_t idle_interpreters(const tg_warmpool *p)
{
    size_t idle = 0;
    for (size_t i = 0; i < p->n; i++)
        idle += p->v[i]->exec ? 0 : p->v[i]->n_ready;
    return idle;
}

/* Puts pw among s's ready workers; the pool's lock is held. Returns the worker to retire when
 * that leaves more than idle_max interpreters ready across the pool: the one ready the longest
 * (of any slot), taken out of its slot; NULL when none is. */
static pool_worker *make_ready(tg_warmpool *p, pool_slot *s, pool_worker *pw)
{
    pw->idle_since = tg_now_ms();
    s->ready[s->n_ready++] = pw;
    pthread_cond_broadcast(&p->filled);
    if (!p->idle_max || s->exec || idle_interpreters(p) <= p->idle_max)
        return NULL;
    pool_slot *os = NULL;
    size_t oi = 0;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; !p->v[i]->exec && j < p->v[i]->n_ready; j++)
            if (!os || p->v[i]->ready[j]->idle_since < os->ready[oi]->idle_since) {
                os = p->v[i];
                oi = j;
            }
    pool_worker *old = os->ready[oi];
    memmove(os->ready + oi, os->ready + oi + 1, (os->n_ready - oi - 1) * sizeof *os->ready);
    os->n_ready--;
    return old;
}

/* Starts a worker for s — when it has none ready (first), or room for one more (otherwise);
 * the import runs on while the caller goes on. */
static void slot_fill(tg_warmpool *p, pool_slot *s, bool first)
{
    pthread_mutex_lock(&p->mu);
    bool need = (!first || s->n_ready == 0) && s->n_ready + s->busy < slot_cap(s);
    pool_worker *pw = NULL;
    if (need) {
        pw = xcalloc(1, sizeof *pw);
        for (size_t i = 0; i < s->argv.n; i++)
            tg_strv_push(&pw->argv, s->argv.v[i]);
        for (size_t i = 0; i < s->hints.n; i++)
            tg_strv_push(&pw->argv, s->hints.v[i]);
        pw->cmd = s->cmd;
        pw->cmd.argv = (const char *const *)pw->argv.v;
        p->started++;
    }
    pthread_mutex_unlock(&p->mu);
    if (!need)
        return;
    tg_err e = {0};
    if (tg_warm_spawn(p->ctx->sandbox, &pw->cmd, &pw->w, &e) != TG_SANDBOX_OK) {
        pthread_mutex_lock(&p->mu);
        slot_dead_start(s, pw);
        pthread_mutex_unlock(&p->mu);
        worker_free(pw); /* calls run cold */
        return;
    }
    pool_worker *evicted = NULL;
    pthread_mutex_lock(&p->mu);
    if (s->n_ready + s->busy < slot_cap(s)) {
        evicted = make_ready(p, s, pw);
        pw = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    worker_free(pw);
    if (evicted)
        retire(p, evicted);
}

/*
 * The filler thread: starts the workers slots want and frees the retired ones, so that neither
 * is on a call's path. The pool's lock is held except while it does either.
 */
static void *filler_main(void *arg)
{
    tg_warmpool *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stopping) {
        pool_slot *s = NULL;
        for (size_t i = 0; i < p->n && !s; i++)
            if (p->v[i]->wants)
                s = p->v[i];
        if (s) {
            s->wants--;
            s->filling = true;
            pthread_mutex_unlock(&p->mu);
            slot_fill(p, s, false);
            pthread_mutex_lock(&p->mu);
            s->filling = false;
            pthread_cond_broadcast(&p->filled);
        } else if (p->n_retired) {
            pthread_mutex_unlock(&p->mu);
            reap_retired(p);
            pthread_mutex_lock(&p->mu);
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 50 * 1000000L; /* a used sandbox ends within milliseconds */
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            if (p->n_retired && !p->stopping)
                pthread_cond_timedwait(&p->wake, &p->mu, &until);
        } else {
            pthread_cond_wait(&p->wake, &p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Wakes the filler thread (starting it the first time); the pool's lock must be held. false:
 * there is none (no thread could be made), the caller does the work itself. */
static bool filler_wake(tg_warmpool *p)
{
    if (!p->filler_on)
        p->filler_on = pthread_create(&p->filler, NULL, filler_main, p) == 0;
    if (p->filler_on)
        pthread_cond_signal(&p->wake);
    return p->filler_on;
}

/* After a call: one more worker for s if it has room, started by the filler thread (or here,
 * without one). */
static void slot_refill(tg_warmpool *p, pool_slot *s)
{
    pthread_mutex_lock(&p->mu);
    bool room = s->n_ready + s->busy + s->wants < slot_cap(s);
    bool queued = room && filler_wake(p);
    if (queued)
        s->wants++;
    pthread_mutex_unlock(&p->mu);
    if (room && !queued) {
        reap_retired(p);
        slot_fill(p, s, false);
    }
}

/* A used worker: its runner is told to end now, its sandbox freed by the filler thread once it
 * has ended. */
static void retire(tg_warmpool *p, pool_worker *pw)
{
    tg_warm_close(pw->w);
    pthread_mutex_lock(&p->mu);
    p->retired = xrealloc(p->retired, (p->n_retired + 1) * sizeof *p->retired);
    p->retired[p->n_retired++] = pw;
    filler_wake(p);
    pthread_mutex_unlock(&p->mu);
}

/* The slot of key (made from m and c when new); the pool's lock must be held. */
static pool_slot *slot_find(tg_warmpool *p, const tg_runtime_ops *ops, const tg_manifest *m,
                            const tg_runtime_cmd *c, char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i]->key, key) == 0) {
            free(key);
            return p->v[i];
        }
    p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
    return p->v[p->n++] = slot_new(p, ops, m, c, key);
}

/* A call of m with no arguments: enough for the worker's command (not run). */
static pool_slot *slot_for_manifest(tg_warmpool *p, const tg_manifest *m)
{
    const tg_runtime_ops *ops = poolable(p, m);
    if (!ops)
        return NULL;
    tg_runtime_cmd c = {0};
    tg_limits_resolve(m->constraints, m->timeout_ms, &p->ctx->sandbox->max, &c.cmd.limits);
    cJSON *none = cJSON_CreateObject();
    tg_err e = {0};
    pool_slot *s = NULL;
    if (ops->command(p->ctx, m, none, NULL, &c, &e) == TG_CALL_DONE) {
        pthread_mutex_lock(&p->mu);
        s = slot_find(p, ops, m, &c, key_of(p, ops, m, &c));
        slot_hint(s, c.tool_dir, m->impl_file);
        pthread_mutex_unlock(&p->mu);
    }
    cJSON_Delete(none);
    tg_runtime_cmd_free(&c);
    return s;
}

void tg_warmpool_prepare(tg_warmpool *p, const tg_manifest *m)
{
    pool_slot *s = slot_for_manifest(p, m);
    if (s)
        slot_fill(p, s, true);
}

void tg_warmpool_wait(tg_warmpool *p, const tg_manifest *m)
{
    pool_slot *s = slot_for_manifest(p, m);
    pthread_mutex_lock(&p->mu);
    while (s && (s->wants || s->filling))
        pthread_cond_wait(&p->filled, &p->mu);
    tg_warm *w = s && s->n_ready ? s->ready[s->n_ready - 1]->w : NULL;
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

static tg_strv *free_links(tg_strv *links)
{
    if (links)
        tg_strv_free(links);
    free(links);
    return NULL;
}

/*
 * After a call in pw: back into s when pw keeps calls apart, has a folder left and s has room
 * (true); otherwise retired (false: s may need a new one). A worker that broke or could not
 * take the call is retired.
 */
static bool give_back(tg_warmpool *p, pool_slot *s, pool_worker *pw, bool ran)
{
    bool keep = ran && tg_warm_reusable(pw->w) && pw->calls < WORKER_CALLS_MAX;
    pool_worker *evicted = NULL;
    pthread_mutex_lock(&p->mu);
    s->busy--;
    if (ran)
        s->dead_starts = 0;
    else if (tg_warm_never_ready(pw->w))
        slot_dead_start(s, pw);
    if (keep && s->n_ready + s->busy < slot_cap(s))
        evicted = make_ready(p, s, pw);
    else
        keep = false;
    pthread_cond_broadcast(&p->filled); /* a waiting call may take it, or ask for another */
    pthread_mutex_unlock(&p->mu);
    if (!keep)
        retire(p, pw);
    if (evicted)
        retire(p, evicted);
    return keep && evicted != pw;
}

/*
 * A ready worker of s for a call, taken out of the slot, or NULL: the call runs cold. A waiting
 * pool's call waits for a worker being started or out on another call; it asks the filler
 * thread for one more — once: a worker that could not start leaves the call cold — when the slot
 * has none, or when as many calls already wait as it has workers (and it has room): one import
 * more is worth it for a queue, not for one call that waits for another's case. The pool's lock
 * is held (and released while it waits).
 */
static pool_worker *take_worker(tg_warmpool *p, pool_slot *s)
{
    bool asked = false;
    while (!s->n_ready && p->waiting && !p->stopping) {
        size_t workers = s->busy + s->wants + (s->filling ? 1 : 0);
        bool more = workers < slot_cap(s) && (workers == 0 || s->waiters >= workers);
        if (more && !asked) {
            if (!filler_wake(p))
                break;
            s->wants++;
            asked = true;
            continue;
        }
        if (workers == 0)
            break; /* the one asked for could not start */
        s->waiters++;
        pthread_cond_wait(&p->filled, &p->mu);
        s->waiters--;
    }
    return s->n_ready ? s->ready[--s->n_ready] : NULL;
}

/* The call in worker pw, in its next folder, with its request and the links that put its path
 * arguments in place (links_for); false: it broke, run the call cold. */
static bool run_in(tg_warmpool *p, const tg_tool_call *call, tr_call *pc, pool_worker *pw,
                   const char *req, const tg_strv *links, tg_call_result *out)
{
    const char *tool = pc->c.tool_dir ? strrchr(pc->c.tool_dir, '/') : NULL;
    tg_warm_call wc = {.request = req, .request_len = strlen(req),
                       .subdir = call_dirs[pw->calls++], .paths = &pc->paths,
                       .tool = !pc->c.tool_dir ? NULL : tool ? tool + 1 : "",
                       .links = (const char *const *)links->v, .limits = pc->c.cmd.limits,
                       .cancel = call->cancel, .reply_watch = pc->c.cmd.reply_watch};
    tg_err e = {0};
    bool ran = tg_warm_run(pw->w, &wc, &out->sb, &e) == TG_SANDBOX_OK;
    if (ran)
        tr_judge(p->ctx, call, pc, out);
    return ran;
}

/* The prepared call pc in a worker of s (taken and given back); false: it ran in none. */
static bool run_pooled(tg_warmpool *p, pool_slot *s, const tg_tool_call *call, tr_call *pc,
                       const char *req, const tg_strv *links, tg_call_result *out)
{
    pthread_mutex_lock(&p->mu);
    pool_worker *w = take_worker(p, s);
    /* a worker's last call: it does not count against the slot's room, and its replacement
     * imports meanwhile, so the next call finds one */
    bool last = w && tg_warm_reusable(w->w) && w->calls + 1 >= WORKER_CALLS_MAX;
    if (w && !last)
        s->busy++;
    pthread_mutex_unlock(&p->mu);
    if (last)
        slot_refill(p, s);
    bool ran = w && run_in(p, call, pc, w, req, links, out);
    bool kept = w && !last && give_back(p, s, w, ran);
    if (w && last)
        retire(p, w);
    if (!kept && !last)
        slot_refill(p, s); /* the replacement, or (no worker was ready) one more */
    return ran;
}

tg_call_status tg_warmpool_call_try(tg_warmpool *p, const tg_tool_call *call,
                                    tg_call_result *out, bool *done, bool *warm, tg_err *err)
{
    *done = *warm = false;
    const tg_runtime_ops *ops = poolable(p, call->m);
    if (!ops)
        return TG_CALL_DONE;
    tr_call pc;
    bool ready = false;
    tg_call_status st = tr_prepare(p->ctx, call, out, &pc, &ready, err);
    if (st != TG_CALL_DONE || !ready) {
        tr_call_free(&pc);
        *done = true;
        return st;
    }
    pthread_mutex_lock(&p->mu);
    pool_slot *s = slot_find(p, ops, call->m, &pc.c, key_of(p, ops, call->m, &pc.c));
    slot_hint(s, pc.c.tool_dir, call->m->impl_file);
    pthread_mutex_unlock(&p->mu);
    /* what the worker runs, and where the call's path arguments appear: a call a worker cannot
     * take (a path outside the data directories) leaves the workers alone */
    char *request = s->exec ? tr_exec_request(&pc.c) : NULL;
    const char *req = request ? request : pc.c.request;
    tg_strv *links = req ? links_for(s, &pc.paths) : NULL;
    bool ran = links && run_pooled(p, s, call, &pc, req, links, out);
    free_links(links);
    free(request);
    tr_call_free(&pc);
    if (ran) {
        pthread_mutex_lock(&p->mu);
        p->warm_calls++;
        pthread_mutex_unlock(&p->mu);
        *done = *warm = true;
        return TG_CALL_DONE;
    }
    tg_call_result_free(out);
    return TG_CALL_DONE;
}

tg_call_status tg_warmpool_call_run(tg_warmpool *p, const tg_tool_call *call, tg_call_result *out,
                                tg_err *err)
{
    bool done = false, warm = false;
    tg_call_status st = tg_warmpool_call_try(p, call, out, &done, &warm, err);
    return done ? st : tg_tool_call_run(p->ctx, call, out, err);
}

void tg_warmpool_free(tg_warmpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    if (p->filler_on)
        pthread_join(p->filler, NULL);
    for (size_t i = 0; i < p->n; i++)
        slot_free(p->v[i]);
    free(p->v);
    for (size_t i = 0; i < p->n_retired; i++)
        worker_free(p->retired[i]);
    free(p->retired);
    tg_strv_free(&p->data_real);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->filled);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
