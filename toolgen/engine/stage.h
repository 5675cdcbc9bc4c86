/*
 * stage.h — the stage interface: everything a stage needs from the build engine, and nothing
 * else (docs/build.md "Writing a stage"). Stages depend on the engine, never the reverse: the
 * engine knows no stage by name; the table of stages arrives through tg_build_opts.stages.
 *
 * A stage is a pure-ish function from declared inputs to outputs. It declares everything that
 * can change what it produces, because the engine builds the stage's key from exactly that:
 *
 *   - id and version   (bump version when the code changes what the stage writes)
 *   - source files     (inputs(): e.g. the manifest)
 *   - upstream stages  (their outputs; a repository-wide stage sees every tool's)
 *   - config keys      (JSON Pointers into toolgen.yaml; their values are hashed)
 *   - data files       (toolgen's own files, e.g. the manifest schema)
 *   - environment facts (env: the interpreters' versions, bubblewrap's, the runner files'
 *                        hash — asked of the build's environment, tg_build_env in build.h)
 *   - discovered files (reported while running with tg_stage_dep, like a compiler's depfile),
 *     and discovered environment facts (tg_stage_env: the version of a package the tool
 *     declares)
 *
 * and the folders it writes under (roots()): the engine refuses outputs anywhere else, and
 * those folders are what `toolgen clean` empties.
 *
 * run() never writes files: it hands its outputs to the engine (tg_stage_output), which hashes
 * them, writes only those whose bytes changed (atomically), records them in the state log and
 * lets downstream stages see the new hashes. run() may be called from any worker thread, so it
 * keeps no state between calls outside what the engine gives it. A stage that calls an LLM must
 * refuse when tg_stage_frozen() is true.
 *
 * Strings handed to the tg_stage_* functions are copied unless the prototype says "takes".
 */
#ifndef TG_STAGE_H
#define TG_STAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"
#include "model/config.h"
#include "model/repo.h"
#include "schema/schemaset.h"

typedef enum tg_stage_scope {
    TG_STAGE_TOOL, /* one instance per tool */
    TG_STAGE_REPO, /* one instance for the repository; not run when the build names tools */
} tg_stage_scope;

/* What run() returns. */
typedef enum tg_stage_status {
    TG_STAGE_DONE = 0,    /* outputs handed over */
    TG_STAGE_FAILED = -1, /* err (and tg_stage_problem lines) say why */
    /* The environment cannot run this stage (no sandbox, no interpreter): err says what to
     * install. The stage fails and the build exits 3 (incomplete) rather than 1. */
    TG_STAGE_NO_ENVIRONMENT = -3,
} tg_stage_status;

typedef struct tg_stage_run tg_stage_run; /* the engine's context of one run */

typedef struct tg_stage_def {
    const char *id;
    const char *version;
    tg_stage_scope scope;
    const char *const *upstream; /* NULL-terminated stage ids, each earlier in the table */
    const char *const *config;   /* NULL-terminated JSON Pointers into toolgen.yaml */
    const char *const *data;     /* NULL-terminated paths relative to toolgen's data dir */
    /* NULL-terminated names of environment facts (tg_build_env) in the key: a stage that runs
     * code names what its results depend on beyond the files ("python", "bwrap", ...). */
    const char *const *env;
    /* Appends the source files of one instance (paths relative to the repository root). The
     * first file of a per-tool stage may be the tool's marker (tg_tool_source.marker): the
     * engine then reuses the hash it took while discovering the tools. */
    void (*inputs)(const tg_config *cfg, const char *tool, tg_strv *out);
    /*
     * Appends the folders it writes under, relative to the repository root. shared: folders
     * people see and commit (paths.generated): the build lists the outputs there
     * (tg_build_stats.outputs) and `toolgen clean` keeps and reports files toolgen did not
     * write; own: folders only toolgen writes (under .toolgen/), emptied by clean.
     */
    void (*roots)(const tg_config *cfg, tg_strv *shared, tg_strv *own);
    tg_stage_status (*run)(tg_stage_run *r, tg_err *err);
    /*
     * Optional: a rough cost of this run, in any unit shared by the stages of the table (0: as
     * cheap as a stage without an estimate). Asked once: when the one upstream stage the run
     * still waits for becomes ready (which then takes this estimate, so the chain to a long
     * run starts early), else when the run itself does; only the outputs of upstream stages
     * that are done may be read (tg_stage_read_upstream), nothing else of the context. The
     * ready runs with the highest estimate start first (docs/build.md#scheduling); it orders
     * the build and never changes what a stage produces.
     */
    double (*estimate)(tg_stage_run *r);
    const char *summary; /* one line, for `toolgen graph` and the docs */
    bool gate;           /* a validation gate: left out of the graph when build.gates is false */
} tg_stage_def;

/* The stage of a table (NULL-terminated) with this id, or NULL. */
const tg_stage_def *tg_stage_def_find(const tg_stage_def *const *table, const char *id);

/* ---- what a running stage may ask the engine ------------------------------------------------ */

const tg_config *tg_stage_config(const tg_stage_run *r);
/* The repository being built: stages reach its files through repo->root_fd (and give the
 * sandbox repo->path), never through the current directory. */
const tg_repo *tg_stage_repo(const tg_stage_run *r);
const char *tg_stage_tool(const tg_stage_run *r); /* NULL for a repository-wide stage */
bool tg_stage_frozen(const tg_stage_run *r);       /* no LLM calls allowed (toolgen check) */
/* The tools of this build, sorted by name (borrowed: valid during run()). */
size_t tg_stage_tools(const tg_stage_run *r, const char *const **names);
/* toolgen's schemas, compiled on first use in this worker thread (compiling costs ms). */
tg_schemaset *tg_stage_schemaset(tg_stage_run *r, tg_err *err);
/*
 * Something the stages of one build share because making it costs more than a stage's own work
 * (the test stage's pool of warm sandboxes, whose imports all the tools' cases reuse). The
 * engine knows nothing of it: open() makes it the first time a stage of this build asks for def
 * (serialised: every other asker waits and gets the same object), close() ends it after the
 * last stage. Like any stage state it must not change what a stage produces: a stage's outputs
 * are the same whether it got the object new or shared.
 */
typedef struct tg_stage_shared_def {
    void *(*open)(tg_stage_run *r, tg_err *err); /* NULL with err: the asker fails or does
                                                  * without; asked again by the next one */
    void (*close)(void *obj);
} tg_stage_shared_def;
/* The build's object of def (borrowed until the build ends), or NULL with err. */
void *tg_stage_shared(tg_stage_run *r, const tg_stage_shared_def *def, tg_err *err);
/* The bytes of the first output of an upstream instance (tool NULL: repository-wide). Heap. */
char *tg_stage_read_upstream(tg_stage_run *r, const char *stage, const char *tool, size_t *len,
                             tg_err *err);
/* The bytes of the output path of an upstream instance (one of its outputs, else an error). */
char *tg_stage_read_upstream_file(tg_stage_run *r, const char *stage, const char *tool,
                                  const char *path, size_t *len, tg_err *err);
/* Hands an output to the engine (path relative to the repository root); takes path and data. */
void tg_stage_output(tg_stage_run *r, char *path, char *data, size_t len);
/*
 * The same for an output made of parts (the array is copied): ranges of files mapped with
 * tg_stage_map_previous_output, which stay mapped until the output is written, and of keep, a
 * heap block the engine takes and frees with the output. A large file that is mostly its
 * previous bytes is so written without being assembled in memory (the aggregate's in-place
 * edits, docs/build.md).
 */
void tg_stage_output_spans(tg_stage_run *r, char *path, const tg_span *parts, size_t n,
                           char *keep);
/*
 * Like tg_stage_output, but written even when run() fails: a report that explains the failure
 * (the validation report of a tool whose tests fail). On failure it is written without a
 * record, so the stage runs again next time.
 */
void tg_stage_output_always(tg_stage_run *r, char *path, char *data, size_t len);
/*
 * Whether the outputs of an upstream instance (tool NULL: repository-wide) are exactly those
 * this stage's last recorded run saw, by the same toolgen and stage version. False when the
 * stage has no record, or the instance is not a declared upstream. With
 * tg_stage_output_unchanged, it lets a repository-wide stage redo only what depends on the
 * tools that changed (docs/build.md, "The aggregate").
 */
bool tg_stage_upstream_unchanged(tg_stage_run *r, const char *stage, const char *tool);
/*
 * Whether every input of this stage's key but the upstream stages' outputs — toolgen's and the
 * stage's version, config values, data files, source files — is what its last recorded run
 * saw (false without a record). With tg_stage_upstream_unchanged it tells a stage that only
 * some tools changed, so its previous outputs differ only in what depends on them.
 */
bool tg_stage_own_inputs_unchanged(tg_stage_run *r);
/*
 * Hands over output path (relative to the repository root; taken in every case) as the very
 * bytes this stage's last recorded run wrote there, without the bytes. True when the engine can
 * vouch for them: the record lists path and the plan found every recorded output holding its
 * recorded hash; the file is then left alone and recorded as before. False: nothing is handed
 * over, and the stage hands the bytes with tg_stage_output. The stage is responsible for the
 * claim that its bytes would be the same (e.g. they come from an unchanged upstream output).
 */
bool tg_stage_output_unchanged(tg_stage_run *r, char *path);
/*
 * The bytes (heap, *len) of output path as this stage's last recorded run wrote it, when the
 * engine can vouch for them as for tg_stage_output_unchanged; else NULL (err says why). For a
 * stage that builds on its previous outputs (the aggregate's index, docs/build.md).
 */
char *tg_stage_read_previous_output(tg_stage_run *r, const char *path, size_t *len, tg_err *err);
/*
 * The same bytes mapped rather than read: a read-only view of *len bytes (not NUL-terminated),
 * valid until run() returns, or NULL (err says why). The file is not hashed again when the
 * stat cache vouches for the very descriptor mapped (its size, mtime, ctime and inode match a
 * trusted entry holding the recorded hash: the trust a no-op build gives every file); else the
 * mapped bytes are hashed against the record. When run() returns, each mapped file is stat'ed
 * once more: one changed meanwhile (edited in place while the stage read it) fails the stage,
 * so nothing is built on bytes that moved. For large outputs a stage builds on (the aggregate's
 * repository-wide files, docs/build.md).
 */
const char *tg_stage_map_previous_output(tg_stage_run *r, const char *path, size_t *len,
                                         tg_err *err);
/* A file the stage read that is not a declared input. */
void tg_stage_dep(tg_stage_run *r, const char *path);
/*
 * An environment fact the stage found it depends on while running (the version of a package
 * the tool declares: "python-package:pandas"), like a discovered file: its value is recorded,
 * and the stage runs again when the build's environment (tg_build_env) says otherwise.
 */
void tg_stage_env(tg_stage_run *r, const char *fact);
/* A file whose presence (not content) the stage depends on: load checks that the code exists,
 * so editing tool.py must not rerun it. */
void tg_stage_dep_exists(tg_stage_run *r, const char *path);
/* A warning printed however the build is run (e.g. running without isolation). */
void tg_stage_warning(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);
/* One line of the per-tool summary printed after the stages (tests, scores, lifecycle). */
void tg_stage_summary(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);
/* One line of the failure report (file:line:col: message). */
void tg_stage_problem(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);
/* Detail shown with -v. */
void tg_stage_note(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);

#endif
