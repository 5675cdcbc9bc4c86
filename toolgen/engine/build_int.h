/*
 * build_int.h — what the parts of the engine share. Calls go one way, top to bottom:
 *
 *   build.c         set-up, tg_build, tg_build_graph, tg_build_clean
 *   build_run.c     the stage API (stage.h), writing outputs, the scheduler
 *   build_plan.c    tools, graph, keys, planning
 *   build_events.c  events and explanations; build_roots.c  the stages' output folders;
 *   build_cache.c   the shared cache of stage results (called by build_run.c)
 *   build_parallel.c  the parallel loop; build_env.c  the environment's facts
 *                                                       (leaves: they call nothing above)
 *
 * Not a public header: everything else uses build.h and stage.h.
 */
#ifndef TG_BUILD_INT_H
#define TG_BUILD_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "engine/build.h"
#include "model/config.h"
#include "base/hash.h"
#include "schema/schemaset.h"
#include "engine/stage.h"
#include "engine/statelog.h"
#include "model/paths.h"

#define KEY_MAGIC "toolgen-key-1"

typedef enum nstate {
    N_NEW,
    N_CLEAN,   /* up to date (planned so, or cut off while running) */
    N_DIRTY,   /* must run */
    N_MAYBE,   /* runs only if an upstream stage changes its outputs */
    N_DONE,    /* ran */
    N_FAILED,
    N_SKIPPED, /* an upstream stage failed */
} nstate;

/* A candidate tool and its marker's hash (tool discovery). */
typedef struct probe {
    char *name, *path; /* path: the marker file */
    int rc; /* 1: a marker (hash set); 0: none; -1: there but unreadable */
    tg_hash hash;
} probe;

typedef struct node {
    const tg_stage_def *def;
    int kind; /* index in the stage table */
    char *id; /* "load:foo", "aggregate" */
    const char *tool;
    struct node **up;
    size_t nup;
    struct node **down;
    size_t ndown, capdown;
    tg_strv files; /* static source inputs */
    const tg_stage_rec *rec;
    nstate state;
    bool key_known, cut_off;
    bool outs_intact; /* the plan found every recorded output holding its recorded hash */
    tg_hash key;
    tg_named_hash *in; /* what the key is made of; names borrowed from in_names */
    size_t nin, capin;
    tg_strv in_names;
    struct named_index *rec_in; /* rec->in indexed by name, on first need (tgb_rec_inputs) */
    tg_buf why;   /* why it runs */
    tg_buf notes; /* what it wrote and noted (-v), or why it failed */
    tg_named_hash *out; /* outputs after a run (names borrowed from out_names); else rec->out */
    size_t nout;
    tg_strv out_names;
    tg_hash out_hash; /* all outputs in one hash: what downstream keys see */
    int pending;      /* upstream nodes still to resolve */
    double est;       /* its place in the ready queue (build_ready.c): 0 without estimates */
    double own_est;   /* its stage's estimate, once asked (own_known; under mu) */
    bool own_known;
    uint64_t seq;     /* the order in which it became ready */
} node;

/*
 * The ready queue (build_ready.c; under engine.mu): the nodes whose upstream nodes are all
 * resolved, taken highest estimate first, and in the order they became ready among equals —
 * so the long stages a clean build cannot know the durations of (a tool's tests that import
 * heavy packages) start before the short ones instead of last (docs/build.md#scheduling).
 */
typedef struct ready_queue {
    node **heap;
    size_t n, cap;
    node **unestimated; /* ready, their stage's estimate not asked yet (in ready order) */
    size_t nu, capu;
    uint64_t seq;
} ready_queue;
/* n became ready: it takes its place in the ready order, and goes into the queue with est 0,
 * or with estimate_first waits for its estimate (tgb_ready_take_deferred, tgb_ready_push). */
void tgb_ready_add(ready_queue *q, node *n, bool estimate_first);
/* Queues a deferred node, its est set. */
void tgb_ready_push(ready_queue *q, node *n);
/* The first of the queue, or NULL when it is empty (deferred nodes are not in it yet). */
node *tgb_ready_pop(ready_queue *q);
/* The first deferred node, removed, or NULL. */
node *tgb_ready_take_deferred(ready_queue *q);
void tgb_ready_free(ready_queue *q);

typedef struct engine engine;

typedef struct worker {
    engine *e;
    pthread_t th;
    tg_schemaset ss;
    bool ss_open;
} worker;

struct engine {
    const tg_build_opts *o;
    const tg_stage_def *const *stages; /* o->stages */
    size_t nkinds;                     /* stages in the table */
    tg_strv shared_roots, own_roots;   /* every stage's roots() (build_roots.c) */
    tg_build_stats *st;
    const tg_repo *repo; /* o->repo */
    int root;            /* repo->root_fd: every path of the build is relative to it */
    const tg_config *cfg; /* &repo->cfg */
    tg_statelog *log;
    tg_strv all_tools; /* every tool folder found, sorted */
    tg_strv tools;     /* the tools of this build */
    int bad_folders;
    node **nodes;
    size_t nnodes, ntoolkinds;
    tg_strmap by_id;
    tg_hash version_hash[TG_BUILD_MAX_STAGE_KINDS];
    tg_named_hash *fixed; /* "config:<ptr>" and "data:<path>" inputs, computed once */
    size_t nfixed;
    tg_strv fixed_names;  /* owns the names of fixed */
    struct probe *probes; /* candidate tools, with their marker's hash */
    size_t nprobes;
    tg_strmap memo;       /* marker path → probe: hashed once per build */
    pthread_mutex_t dir_mu;
    tg_strmap dirs;       /* directories known to exist (for writing outputs) */
    tg_strv dir_keys;
    long pid;
    /* scheduling, under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ready_queue ready;
    size_t unresolved;
    int failures;
    int env_failures; /* stages that returned TG_STAGE_NO_ENVIRONMENT */
    bool stop;
    atomic_int done, total; /* progress; read by events outside mu */
    pthread_mutex_t ev_mu;
    atomic_uint tmpseq;
    int lockfd;
    bool created_state; /* this build created .toolgen/ */
    /* the environment's facts (build_env.c): name → value and hash, asked once per build */
    pthread_mutex_t env_mu;
    tg_strmap env_memo;
    void *env_ctx;
    bool env_opened;
    /* what the stages share (tg_stage_shared): made on first use, closed with the engine */
    pthread_mutex_t shared_mu;
    struct shared_obj {
        const tg_stage_shared_def *def;
        void *obj;
    } *shared;
    size_t nshared;
};

struct tg_stage_run {
    engine *e;
    worker *w;
    node *n;
    struct {
        char *path, *data;
        size_t len;
        bool always; /* written even when the stage fails */
        bool kept;   /* tg_stage_output_unchanged: no data; hash is the recorded one */
        tg_span *spans; /* tg_stage_output_spans: the parts (data is their keep block) */
        size_t nspans;
        tg_hash hash;
    } *outs;
    size_t nouts, capouts;
    struct named_index *prev_out; /* the record's outputs, indexed on first need (its inputs:
                                   * tgb_rec_inputs) */
    bool version_known, version_same; /* same_version's answer */
    struct mapped_output *maps; /* tg_stage_map_previous_output, unmapped by run_free */
    size_t nmaps;
    tg_strv deps;
    tg_strv deps_exist; /* presence-only dependencies */
    tg_strv envs;       /* environment facts discovered (tg_stage_env) */
    tg_strv summaries;  /* this run's tg_stage_summary lines (for the shared cache) */
    tg_buf problems, notes;
};

/* The hash recorded for a presence-only dependency that exists (no content hashes to it). */
#define TGB_EXISTS_HASH ((tg_hash){0x746f6f6c67656e21ull, 0x6578697374730001ull})

/* ---- build_events.c --------------------------------------------------------------------- */

/* Reports an event to the caller (serialised). */
void tgb_event(engine *e, tg_build_event_kind kind, const node *n, const char *text,
               tg_build_plan plan);
/* Reports TG_EV_OUTPUT (serialised): output path of n with its bytes (data may be NULL). */
void tgb_event_output(engine *e, const node *n, const char *path, const char *data, size_t len);
void tgb_eventf(engine *e, tg_build_event_kind kind, const node *n, const char *fmt, ...)
    TG_PRINTF(4, 5);
/* Appends a reason to n->why ("; "-separated). */
void tgb_why(node *n, const char *fmt, ...) TG_PRINTF(2, 3);
char *tgb_display(const node *n); /* "load foo", "aggregate" (heap) */

/* ---- build_roots.c ---------------------------------------------------------------------- */

/* Collects every stage's roots() into e->shared_roots and e->own_roots (needs e->cfg). */
void tgb_roots_init(engine *e);
bool tgb_is_under(const char *path, const char *dir);
/* The shared root path is under, or NULL. */
const char *tgb_shared_root_of(const engine *e, const char *path);
/* Whether a stage may write path: relative, no "." or ".." parts, under one of the roots. */
bool tgb_output_path_ok(const engine *e, const char *path);
/* Removes path, then the directories it leaves empty up to its root (or the state dir). */
bool tgb_remove_output(const engine *e, const char *path);
/* Removes every file directly in dir, then dir itself when rmdir_too and it is empty. */
void tgb_empty_dir(const engine *e, const char *dir, bool rmdir_too);

/* ---- build_env.c ----------------------------------------------------------------------- */

/* The prefix of the key inputs and recorded dependencies that are environment facts. */
#define TGB_ENV_PREFIX "env:"
void tgb_env_init(engine *e);
void tgb_env_free(engine *e); /* closes the environment's context */
void tgb_shared_free(engine *e); /* closes what the stages shared (build_run.c) */
/* The hash of fact name's value (asked of o->env the first time; thread-safe). */
tg_hash tgb_env_hash(engine *e, const char *name);
/* Its value (heap), for explanations. */
char *tgb_env_value(engine *e, const char *name);

/* ---- build_parallel.c ------------------------------------------------------------------- */

/* fn(ctx, i) for every i < n, on up to nth threads (the caller's included). */
void tgb_parallel_for(int nth, size_t n, void (*fn)(void *ctx, size_t i), void *ctx);
#define PFOR_CHUNK 32
int tgb_jobs(const engine *e);

/* ---- build_plan.c ----------------------------------------------------------------------- */

/* The tool source's candidates, with their markers (before the lock: no state log needed). */
int tgb_list_tools(engine *e, tg_err *err);
/* Which candidates are tools: markers hashed in parallel through the stat cache. */
void tgb_discover(engine *e);
int tgb_select_tools(engine *e, tg_err *err);
void tgb_make_graph(engine *e);
void tgb_free_node(node *n);
int tgb_prepare_fixed(engine *e, tg_err *err);
void tgb_compute_key(engine *e, node *n);
void tgb_explain_key(engine *e, node *n);
void tgb_output_list(const node *n, const tg_named_hash **v, size_t *count);
tg_hash tgb_combine_outputs(const tg_named_hash *v, size_t n);
const tg_named_hash *tgb_find_named(const tg_named_hash *v, size_t n, const char *name);
void tgb_plan(engine *e);

/* A hash index over a long list of names (a repository-wide stage has one entry per tool). */
typedef struct named_index {
    const tg_named_hash *v;
    size_t n;
    tg_strmap map;
} named_index;
void tgb_nidx_init(named_index *x, const tg_named_hash *v, size_t n);
const tg_named_hash *tgb_nidx_find(const named_index *x, const char *name);
void tgb_nidx_free(named_index *x);
/* n->rec's inputs indexed by name (built once per node: the explanation and the stage's
 * questions about its last run share it); NULL without a record. */
const named_index *tgb_rec_inputs(node *n);

/* ---- build_cache.c ---------------------------------------------------------------------- */

/* Fills r with n's outputs, discovered inputs and summary lines from the shared cache, as if
 * the stage had run; false (r untouched) on a miss. */
bool tgb_cache_fetch(engine *e, node *n, tg_stage_run *r);
/* Offers the shared cache what n's run r produced, as recorded (after commit). */
void tgb_cache_store(engine *e, node *n, const tg_stage_run *r);

/* ---- build_run.c ------------------------------------------------------------------------ */

/* Hands an output to run r (takes path and data), as tg_stage_output does. */
void tgb_add_output(tg_stage_run *r, char *path, char *data, size_t len);

bool tgb_should_stop(const engine *e);
/* Runs every planned stage on tgb_jobs(e) threads; returns when all ran or the build stopped. */
void tgb_run_graph(engine *e);

#endif
