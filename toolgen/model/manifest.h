/*
 * manifest.h — the IR: a tool.manifest.yaml loaded into typed fields.
 *
 * The cJSON tree stays the storage (so positions and the canonical form stay exact); the typed
 * fields are views into it, filled by tg_manifest_bind once the document passed the manifest
 * schema. Strings point into the tree and live as long as the manifest.
 */
#ifndef TG_MANIFEST_H
#define TG_MANIFEST_H

#include "base/doc.h"
#include "model/repo.h"
#include "model/runtime.h"

typedef enum tg_status {
    TG_STATUS_DRAFT,
    TG_STATUS_STAGED,
    TG_STATUS_APPROVED,
    TG_STATUS_REJECTED,
    TG_STATUS_PROMOTED,
    TG_STATUS_UNKNOWN
} tg_status;

typedef struct tg_manifest {
    tg_doc doc;
    char *dir; /* folder holding the manifest (owned) */

    const char *name, *version, *title, *description;
    tg_status status;
    tg_runtime runtime; /* what model/runtime.h says about it: tg_runtime_info(runtime) */
    const char *risk, *idempotency;
    long timeout_ms;
    const char *impl_file;  /* a runtime with a code_file: the code file, relative to dir */
    const char *entrypoint; /* ... and its entry function */

    const cJSON *docs, *input_schema, *output_schema, *examples, *tests, *constraints;
    const cJSON *implementation, *reference;
} tg_manifest;

/*
 * Parses the YAML (no schema check). A manifest that resolves outside the repository, or is not
 * a regular file, is refused unread (base/confine.h). path is relative to the repository's root
 * (or absolute); m->dir keeps it that way. On failure nothing is left allocated.
 */
int tg_manifest_load(const tg_repo *repo, const char *path, tg_manifest *m, tg_err *err);
/*
 * Parses a manifest from bytes already read (e.g. a file at a git revision, lifecycle/gitrev.h);
 * path names it in messages (name, e.g. "main:manifests/x/tool.manifest.yaml", when not NULL)
 * and sets m->dir. No confinement check: the caller chose the bytes. On failure nothing is left
 * allocated.
 */
int tg_manifest_parse(const char *text, size_t len, const char *path, const char *name,
                      tg_manifest *m, tg_err *err);
/* Fills the typed views; tolerant of a document that failed the schema (fields stay NULL). */
void tg_manifest_bind(tg_manifest *m);
void tg_manifest_free(tg_manifest *m);

tg_status tg_status_parse(const char *s);
const char *tg_status_name(tg_status s);

#endif
