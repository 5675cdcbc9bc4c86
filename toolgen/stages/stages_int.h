/*
 * stages_int.h — what toolgen's stages share (private to stages/): the stage definitions the
 * table lists, the IR read back into a manifest, the folders they write, and the helpers of
 * the two gate stages that run code in the sandbox (stage_sandbox.c).
 */
#ifndef TG_STAGES_INT_H
#define TG_STAGES_INT_H

#include <cjson/cJSON.h>

#include "engine/stage.h"
#include "model/manifest.h"
#include "model/paths.h"
#include "run/sandbox.h"

/* One file each: stage_load.c, stage_emit.c, stage_static.c, stage_test.c, stage_aggregate.c. */
extern const tg_stage_def tgs_load, tgs_emit, tgs_static, tgs_test, tgs_aggregate;

/* {"load", NULL}: the upstream list of every stage that reads the IR. */
extern const char *const tgs_up_load[];

/* ---- stages.c ------------------------------------------------------------------------------- */

/*
 * The IR of tool (load's output, which the stage must list upstream) back into a bound
 * manifest; free it with tg_manifest_free. Messages name the manifest, not the IR file.
 */
int tgs_manifest(tg_stage_run *r, const char *tool, tg_manifest *m, tg_err *err);
/* .toolgen/out/<tool>.fragment: what emit T contributes to the repository-wide files (heap). */
char *tgs_fragment_path(const char *tool);
/* roots(): paths.generated, shared. */
void tgs_root_generated(const tg_config *cfg, tg_strv *shared);

/* ---- stage_sandbox.c: the gate stages (static, test) ---------------------------------------- */

#define TGS_CODE_MAX_BYTES (4u << 20)

/* A file the manifest names, relative to its folder (heap); NULL for absolute or ".." paths. */
char *tgs_code_path(const tg_manifest *m, const char *file);
/* The warning every run without isolation prints (sandbox.isolation: none). */
void tgs_warn_isolation(tg_stage_run *r, const char *stage, const tg_sandbox_config *sc);
/*
 * The environment facts (stage_env.c) in the keys of the stages that run code: the
 * interpreters, bubblewrap and toolgen's runner files (editing runner.py reruns them).
 */
extern const char *const tgs_env_sandbox[];
/* The versions of the packages m declares (implementation.dependencies), as discovered facts
 * "<runtime>-package:<name>": upgrading pandas reruns the tests of the tools that use it. */
void tgs_env_packages(tg_stage_run *r, const tg_manifest *m);
/*
 * Runs toolgen/run/runtime/<script> with the system Python in the sandbox and parses the JSON
 * object it prints. DONE with *reply set (free with cJSON_Delete); FAILED with err;
 * NO_ENVIRONMENT when there is no usable sandbox or Python.
 */
tg_stage_status tgs_run_script(const tg_sandbox_config *sc, const char *script,
                               const cJSON *req, cJSON **reply, tg_err *err);

#endif
