/*
 * build.h — the build engine: the stage graph of a repository, planned against the state log,
 * run by a pool of worker threads, every output written atomically and only when its bytes
 * change. docs/build.md describes the behaviour; stage.h the stage interface.
 *
 * The engine knows no stage and no tool layout by name: the caller hands it the stage table and
 * a tool source (tg_build_opts), so the CLI passes toolgen's stages (stages/stages.h) and the
 * manifest-folder scan (model/paths.h), and a test may pass stages of its own. It works on the
 * repository it is given (model/repo.h: every path relative to its root fd, never to the
 * current directory, so one process may build several) and keeps its state under .toolgen/.
 *
 * The engine prints nothing: it reports through an event callback (serialised, never called
 * concurrently) and returns a status the CLI maps to an exit code.
 */
#ifndef TG_BUILD_H
#define TG_BUILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/strmap.h"
#include "base/strvec.h"
#include "base/util.h"
#include "engine/stage.h"
#include "model/config.h"
#include "model/repo.h"

typedef enum tg_build_status {
    TG_BUILD_OK = 0,
    TG_BUILD_FAILED = 1,      /* a stage failed (or a tool folder is unusable) */
    TG_BUILD_USAGE = 2,       /* bad toolgen.yaml, unknown tool, not a toolgen repository */
    TG_BUILD_ENV = 3,         /* cannot write, data files missing, the lock is held */
    TG_BUILD_INTERRUPTED = 130,
} tg_build_status;

typedef enum tg_build_event_kind {
    TG_EV_START,   /* a stage starts; text: why it runs */
    TG_EV_DONE,    /* a stage finished; done/total updated; text: what it wrote and noted (one
                      line each, with -v) or NULL */
    TG_EV_FAILED,  /* a stage failed; text: the cause, one problem per line */
    TG_EV_CUTOFF,  /* a stage planned to run turned out up to date: its upstream outputs came
                      out unchanged (early cut-off) */
    TG_EV_SKIPPED, /* not run because an upstream stage failed */
    TG_EV_PLAN,    /* dry run and explain: one per stage; plan says what would happen */
    TG_EV_REMOVED, /* a file toolgen wrote was removed; text: path */
    TG_EV_KEPT,    /* clean: a file under a shared root toolgen did not write; text: path */
    TG_EV_WARNING, /* text */
    TG_EV_PROBLEM, /* a problem outside any stage (toolgen.yaml, a tool folder); text */
    TG_EV_OUTPUT,  /* only with tg_build_opts.report_outputs: an output of a stage that ran,
                      once written (of a failed stage, those tg_stage_output_always wrote);
                      text: its path; data/len: its bytes (data NULL for an output vouched
                      unchanged without its bytes, tg_stage_output_unchanged) */
} tg_build_event_kind;

typedef enum tg_build_plan {
    TG_PLAN_UP_TO_DATE,
    TG_PLAN_RUN,   /* will run; text says why */
    TG_PLAN_MAYBE, /* runs only if an upstream stage that runs changes its outputs */
    TG_PLAN_REMOVE /* outputs of a deleted tool would be removed */
} tg_build_plan;

typedef struct tg_build_event {
    tg_build_event_kind kind;
    const char *stage; /* stage id, or NULL */
    const char *tool;  /* NULL for repository-wide stages */
    const char *text;
    const char *why;   /* TG_EV_DONE, TG_EV_FAILED: why the stage ran */
    tg_build_plan plan;
    int done, total;   /* stages finished / stages expected to run, for [done/total] */
    const char *data;  /* TG_EV_OUTPUT: the output's bytes (not NUL-terminated), len of them */
    size_t len;
} tg_build_event;

typedef enum tg_build_mode {
    TG_MODE_BUILD,
    TG_MODE_DRY_RUN, /* -n: report what would run, change nothing */
    TG_MODE_EXPLAIN, /* like a dry run, with a reason for every stage, up-to-date ones too */
} tg_build_mode;

/*
 * Where the tools of a repository come from. list() names the candidates; a candidate is a tool
 * when its marker file exists (checked through the state log's stat cache, in parallel); a
 * tool whose name refuse() objects to is reported (TG_EV_PROBLEM), fails the build and is left
 * out. Returned strings are heap; the engine frees them.
 */
typedef struct tg_tool_source {
    /* Appends candidate names (any order); 0, or -1 with err (a usage error: exit 2). */
    int (*list)(const tg_repo *repo, tg_strv *names, tg_err *err);
    /* The file that makes name a tool (also named by 'unknown tool' messages). */
    char *(*marker)(const tg_config *cfg, const char *name);
    /* Why name cannot be a tool, or NULL; may itself be NULL (every name is fine). */
    char *(*refuse)(const char *marker, const char *name);
} tg_tool_source;

/*
 * The facts of the machine a build runs on that results depend on beyond files: interpreter and
 * package versions, the sandbox's version, the runner files (docs/build.md "When a stage runs").
 * A stage names the facts in its key (tg_stage_def.env) or reports them while running
 * (tg_stage_env); the engine asks each fact once per build, serialised, and keeps a hash of its
 * value (the value itself only for `explain`). The engine knows no fact by name.
 */
typedef struct tg_build_env {
    /* A context for one build of repo (NULL is fine); writable: the build may keep a cache
     * under .toolgen/ (false for explain and dry runs). */
    void *(*open)(const tg_repo *repo, bool writable);
    /* Appends the value of fact name to value ("3.11.2", "absent"): never fails, a fact that
     * cannot be had is a value too. */
    void (*fact)(void *ctx, const char *name, tg_buf *value);
    void (*close)(void *ctx);
} tg_build_env;

/*
 * A shared cache of stage results (docs/cache.md): the engine asks it before running a stage
 * and offers it what a stage produced. The engine knows no server and no protocol: a record is
 * files (path and bytes) and the engine's text beside them, under a key; the cache may fail in
 * any way, which only ever costs local work. Called from worker threads concurrently.
 */
typedef struct tg_cache_file {
    char *path; /* relative to the repository root */
    char *data; /* heap, NUL-terminated, len bytes */
    size_t len;
} tg_cache_file;

typedef struct tg_cache_record {
    tg_cache_file *files;
    size_t nfiles;
    char *text; /* the engine's text (heap, NUL-terminated), or NULL */
} tg_cache_record;

void tg_cache_record_free(tg_cache_record *rec);

typedef enum tg_cache_status {
    TG_CACHE_HIT = 0,
    TG_CACHE_MISS,
    TG_CACHE_WARN, /* a miss to warn about (a rejected blob, the server down): err says */
} tg_cache_status;

typedef struct tg_build_cache {
    /* The record under key (kind: "deps" or "result", the engine's two records of a stage). */
    tg_cache_status (*get)(void *ud, const char *kind, tg_hash key, tg_cache_record *out,
                           tg_err *err);
    /* Offers rec under key; returns TG_CACHE_WARN (err) only for something worth a warning. */
    tg_cache_status (*put)(void *ud, const char *kind, tg_hash key, const tg_cache_record *rec,
                           tg_err *err);
    void *ud;
} tg_build_cache;

typedef struct tg_build_opts {
    /* The repository, opened with its config (tg_repo_open); every file the build reads or
     * writes is relative to its root fd, never to the current directory. */
    const tg_repo *repo;
    /* The stages, NULL-terminated, each after its upstream stages (at most
     * TG_BUILD_MAX_STAGE_KINDS). */
    const tg_stage_def *const *stages;
    const tg_tool_source *tool_source; /* where the tools come from */
    const tg_build_env *env; /* the environment's facts; NULL: every fact is "unknown" */
    /* A shared cache of stage results, or NULL. Not asked by a forced build (its caller wants
     * this run's verdict) nor by a dry run or explain. */
    const tg_build_cache *cache;
    tg_build_mode mode;
    int jobs;          /* 0: build.jobs of toolgen.yaml, else the CPU count */
    int keep_going;    /* stop starting stages after this many failures; 0 = never stop */
    bool frozen;       /* no stage may call an LLM */
    bool verbose;      /* more detail: files written, notes of the stages */
    /* Run every stage instance of the build, up to date or not (make -B): for a caller that
     * wants a verdict from this run rather than from the state log's record. */
    bool force;
    /* TG_EV_OUTPUT events: the caller reads what a stage produced (a validation report) from
     * the build itself, never from a file that may be stale. */
    bool report_outputs;
    const char *const *tools; /* limit the build to these tools (NULL/0: every tool) */
    size_t ntools;
    volatile sig_atomic_t *interrupted; /* set by a signal handler: stop starting stages */
    void (*on_event)(void *ud, const tg_build_event *ev);
    void *ud;
} tg_build_opts;

#define TG_BUILD_MAX_STAGE_KINDS 16

typedef struct tg_build_stats {
    int tools;           /* tools in the build */
    int stages;          /* stage instances in the graph */
    int ran;             /* stages that ran (successfully or not) */
    int failed, skipped, not_started, up_to_date, cut_off;
    const char *kind_id[TG_BUILD_MAX_STAGE_KINDS]; /* per stage kind: how many ran */
    int kind_ran[TG_BUILD_MAX_STAGE_KINDS];
    int nkinds;
    int removed;         /* files of deleted tools (or stale outputs) removed */
    int kept;            /* clean: files under shared roots (generated/) toolgen did not write */
    int would_run;       /* dry run / explain: stages that will or may run */
    tg_strv failed_ids;  /* "load foo", ... */
    tg_strv edited;      /* outputs found edited by hand, and rewritten */
    tg_strv recreated;   /* outputs found missing (deleted by someone), and rewritten */
    tg_strv outputs;     /* every output under a shared root (generated/), sorted (full builds) */
    tg_strv summaries;   /* per-tool lines of the stages that ran (tg_stage_summary), sorted */
    int env_failed;      /* stages that could not run in this environment (no sandbox) */
    int cache_hits;      /* stages whose outputs came from the shared cache (counted in ran) */
    char *generated_dir; /* paths.generated of the build */
    double seconds;
} tg_build_stats;

void tg_build_stats_free(tg_build_stats *s);

/* Build, dry run or explain, per o->mode. err holds the message for USAGE/ENV statuses. */
tg_build_status tg_build(const tg_build_opts *o, tg_build_stats *st, tg_err *err);

/* The stage graph in Graphviz dot, deterministic (tools sorted, stages in table order). */
tg_build_status tg_build_graph(const tg_build_opts *o, tg_buf *out, tg_err *err);

/*
 * Removes every file the state log says toolgen wrote, empty directories left behind, and the
 * build state under .toolgen/ (the LLM cache stays). Files under the stages' shared roots
 * (generated/) that toolgen did not write are reported (TG_EV_KEPT) and kept. Needs
 * o->stages (for the roots), not o->tool_source.
 */
tg_build_status tg_build_clean(const tg_build_opts *o, tg_build_stats *st, tg_err *err);

#endif
