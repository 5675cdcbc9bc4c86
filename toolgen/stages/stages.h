/*
 * stages.h — the stage interface, and toolgen's stages.
 *
 * A stage is a pure-ish function from declared inputs to outputs. It declares everything that
 * can change what it produces, because the engine builds the stage's key from exactly that:
 *
 *   - id and version   (bump version when the code changes what the stage writes)
 *   - source files     (inputs(): e.g. the manifest)
 *   - upstream stages  (their outputs; a repository-wide stage sees every tool's)
 *   - config keys      (JSON Pointers into toolgen.yaml; their values are hashed)
 *   - data files       (toolgen's own files, e.g. the manifest schema)
 *   - discovered files (reported while running with tg_stage_dep, like a compiler's depfile)
 *
 * run() never writes files: it hands its outputs to the engine (tg_stage_output), which hashes
 * them, writes only those whose bytes changed (atomically), records them in the state log and
 * lets downstream stages see the new hashes. run() may be called from any worker thread.
 *
 * Later stages (code generation, static check, sandbox test, repair, staging) are more entries
 * of tg_stages[]; a stage that calls an LLM must refuse when tg_stage_frozen() is true.
 */
#ifndef TG_STAGES_H
#define TG_STAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/config.h"
#include "schema/schemaset.h"
#include "base/strmap.h"
#include "base/strvec.h"
#include "base/util.h"

typedef enum tg_stage_scope {
    TG_STAGE_TOOL, /* one instance per tool */
    TG_STAGE_REPO, /* one instance for the repository; not run when the build names tools */
} tg_stage_scope;

typedef struct tg_stage_run tg_stage_run; /* the engine's context of one run */

typedef struct tg_stage_def {
    const char *id;
    const char *version;
    tg_stage_scope scope;
    const char *const *upstream; /* NULL-terminated stage ids, each earlier in tg_stages */
    const char *const *config;   /* NULL-terminated JSON Pointers into toolgen.yaml */
    const char *const *data;     /* NULL-terminated paths relative to toolgen's data dir */
    /* Appends the source files of one instance (paths relative to the repository root). */
    void (*inputs)(const tg_config *cfg, const char *tool, tg_strv *out);
    /* 0 with outputs handed over, or -1 with err (and tg_stage_problem lines) set, or
     * TG_STAGE_ENV when the environment cannot run it (no sandbox): the build exits 3. */
    int (*run)(tg_stage_run *r, tg_err *err);
    const char *summary; /* one line, for `toolgen graph` and the docs */
    bool gate;           /* a validation gate: left out of the graph when build.gates is false */
} tg_stage_def;

#define TG_STAGE_ENV (-3)

/* Every stage, each after its upstream stages; NULL-terminated. */
extern const tg_stage_def *const tg_stages[];
const tg_stage_def *tg_stage_find(const char *id);

/* ---- what a running stage may ask the engine (implemented in build.c) ----------------------- */

const tg_config *tg_stage_config(const tg_stage_run *r);
const char *tg_stage_tool(const tg_stage_run *r); /* NULL for a repository-wide stage */
bool tg_stage_frozen(const tg_stage_run *r);       /* no LLM calls allowed (toolgen check) */
/* The tools of this build, sorted by name. */
size_t tg_stage_tools(const tg_stage_run *r, const char *const **names);
/* toolgen's schemas, compiled on first use in this worker thread (compiling costs ms). */
tg_schemaset *tg_stage_schemaset(tg_stage_run *r, tg_err *err);
/* The bytes of the first output of an upstream instance (tool NULL: repository-wide). Heap. */
char *tg_stage_read_upstream(tg_stage_run *r, const char *stage, const char *tool, size_t *len,
                             tg_err *err);
/* Hands an output to the engine (path relative to the repository root); takes path and data. */
void tg_stage_output(tg_stage_run *r, char *path, char *data, size_t len);
/*
 * Like tg_stage_output, but written even when run() fails: a report that explains the failure
 * (the validation report of a tool whose tests fail). On failure it is written without a
 * record, so the stage runs again next time.
 */
void tg_stage_output_always(tg_stage_run *r, char *path, char *data, size_t len);
/* A file the stage read that is not a declared input. */
void tg_stage_dep(tg_stage_run *r, const char *path);
/* A file whose presence (not content) the stage depends on: load checks that the code exists,
 * so editing tool.py must not rerun it. */
void tg_stage_dep_exists(tg_stage_run *r, const char *path);
/* A warning printed however the build is run (e.g. running without isolation). */
void tg_stage_warning(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);
/* One line of the per-tool summary printed after the stages (tests, scores, lifecycle). */
void tg_stage_summary(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);
/* The manifest of this tool read back from load's IR (the stage must list load upstream). */
struct tg_manifest;
int tg_stage_manifest(tg_stage_run *r, struct tg_manifest *m, tg_err *err);
/* One line of the failure report (file:line:col: message). */
void tg_stage_problem(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);
/* Detail shown with -v. */
void tg_stage_note(tg_stage_run *r, const char *fmt, ...) TG_PRINTF(2, 3);

/* ---- where things live ---------------------------------------------------------------------- */

#define TG_STATE_DIR ".toolgen"

char *tg_manifest_path(const tg_config *cfg, const char *tool); /* heap */
char *tg_ir_path(const char *tool);                              /* heap: .toolgen/ir/<tool>.json */
char *tg_report_path(const char *tool);                          /* heap */
/* heap: .toolgen/reports/<tool>.validation.json (the test stage's report) */
char *tg_validation_report_path(const char *tool);
/* heap: .toolgen/out/<tool>.static.json (the static stage's findings) */
char *tg_static_out_path(const char *tool);
/* ^[a-z][a-z0-9_]{0,63}$: the names that are safe as file names and valid for every client. */
bool tg_tool_name_ok(const char *name);

#endif
