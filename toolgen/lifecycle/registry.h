/*
 * registry.h — the tool registry on disk (docs/lifecycle.md "Registry layout"), laid out as the
 * seed's section 3.2 under the folders of toolgen.yaml's `registry:` section:
 *
 *   <active>/metadata.json                 the promoted tools (schemas/registry.active.schema.json)
 *   <active>/promotion_log.json            every promotion (schemas/registry.promotion_log...)
 *   <active>/tools/<tool>/{spec.json, tool.py|tool.js, tests.json, VERSION}
 *   <staging>/metadata.json                one lifecycle entry per tool (registry.staging...)
 *   <staging>/candidates/<tool>_<version>/{spec.json, tool.py|tool.js,
 *                                          validation_report.json, run_artifacts.json}
 *   <archive>/promoted/<tool>_<version>/   candidates after their promotion
 *   <archive>/rejected/<tool>_<timestamp>/ rejected candidates with the user's feedback
 *
 * The manifest stays the source of truth people edit; a registry entry is the immutable
 * snapshot (canonical IR as spec.json, the code, their SHA-256) of what was staged, approved and
 * promoted at one version. Metadata files are checked against their schema when loaded, so a
 * hand-edited file that is wrong fails with its path and the JSON Pointer of the problem.
 */
#ifndef TG_REGISTRY_H
#define TG_REGISTRY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "base/strvec.h"
#include "base/util.h"
#include "model/repo.h"

typedef enum tg_reg_file {
    TG_REG_STAGING,       /* <staging>/metadata.json: {"registry_version", "candidates": {}} */
    TG_REG_ACTIVE,        /* <active>/metadata.json: {"registry_version", "tools": {}} */
    TG_REG_PROMOTION_LOG, /* <active>/promotion_log.json: {"registry_version", "promotions": []} */
} tg_reg_file;

typedef struct tg_registry {
    const tg_repo *repo; /* borrowed; must outlive the registry */
    char *active, *staging, *archive; /* relative to the root: no "./", no trailing '/' */
} tg_registry;

/* Reads the registry paths of the repository's config (defaults registry/active, ...), after
 * finishing or undoing a change a killed process left half done (lifecycle/recover.h). Fails
 * when a path is absolute or climbs out with "..", naming the key. */
int tg_registry_open(tg_registry *g, const tg_repo *repo, tg_err *err);
void tg_registry_release(tg_registry *g);

/* The path of a metadata file, relative to the root. Heap string. */
char *tg_registry_file(const tg_registry *g, tg_reg_file f);
/* <staging>/candidates/<tool>_<version>. Heap string. */
char *tg_registry_candidate_dir(const tg_registry *g, const char *tool, const char *version);
/* <active>/tools/<tool>. Heap string. */
char *tg_registry_active_dir(const tg_registry *g, const char *tool);

/*
 * Loads a metadata file, validated against its schema; an absent file is the empty document
 * of its kind. Returns the tree (caller frees with cJSON_Delete), or NULL with err naming the
 * file, the place in it and the fix.
 */
cJSON *tg_registry_load(const tg_registry *g, tg_reg_file f, tg_err *err);

/* The entry of tool in a loaded staging / active document (borrowed), or NULL. */
cJSON *tg_registry_candidate(cJSON *staging, const char *tool);
cJSON *tg_registry_active_tool(cJSON *active, const char *tool);

/* The files of a snapshot folder (regular files, sorted by name), appended to out. 0 or -1. */
int tg_registry_list_files(const tg_registry *g, const char *dir, tg_strv *out, tg_err *err);

/* SHA-256 (hex) of the file at path under the root; -1 with err when unreadable. */
int tg_registry_sha256(const tg_registry *g, const char *path, char out[65], tg_err *err);

/*
 * Compares "1.2.10" with "1.10.0" numerically part by part (a missing part is 0; a
 * pre-release suffix "-rc1" sorts before the release): <0, 0 or >0.
 */
int tg_version_cmp(const char *a, const char *b);

/*
 * The version policy between a tool's active entry (NULL: none) and a new spec or code of it at
 * version: never lower, and higher when promotion.require_version_bump (default true) says a
 * change needs a new version. 0, or -1 with err saying which version to go to. Staging checks
 * it, so that a change without a bump is refused before the user reviews it, and promotion
 * again.
 */
int tg_registry_check_version(const tg_registry *g, const char *tool, const char *version,
                              const cJSON *active, tg_err *err);

/*
 * Checks every snapshot against its recorded hashes: each active tool's spec.json, code file
 * and VERSION, and each staged or approved candidate's spec.json and code; and that its folder
 * holds nothing the snapshot does not list (an active tool: spec.json, tests.json, VERSION and
 * the code file; a candidate: spec.json, the code file, validation_report.json,
 * run_artifacts.json and files/, the staged run's copies). Every mismatch, missing or extra
 * file is appended to problems as "path: what is wrong; the fix". 0 when the check ran
 * (problems may be non-empty), -1 with err when a metadata file cannot be read.
 */
int tg_registry_verify(const tg_registry *g, tg_strv *problems, tg_err *err);
/*
 * Checks one snapshot against the hashes of its metadata entry (an active tool's entry when
 * active, else a staging entry): spec.json, the code file and, for an active tool, VERSION, and
 * that its folder holds only those files (tg_registry_verify). Appends each problem as
 * tg_registry_verify does; true when none was found.
 */
bool tg_registry_verify_entry(const tg_registry *g, const char *name, const cJSON *entry,
                              bool active, tg_strv *problems);

#endif
