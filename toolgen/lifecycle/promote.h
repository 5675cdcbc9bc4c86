/*
 * promote.h — `toolgen promote TOOL`: APPROVED → PROMOTED as one git commit (docs/lifecycle.md
 * "Promotion").
 *
 * The seed's can_promote first: the candidate must be APPROVED; a spec identical to the active
 * one is nothing to do; a different spec at the same version asks for a version bump; a lower
 * version is refused. Then, all or nothing: the snapshot is copied to <active>/tools/<tool>/
 * (spec.json, the code, tests.json, VERSION), <active>/metadata.json and the promotion log are
 * updated, the candidate moves to <archive>/promoted/<tool>_<version>/, the staging entry becomes
 * PROMOTED, and exactly these registry paths are committed (lifecycle/gitcommit.h) with the
 * message "promote <tool> v<version>" and the trailers Spec-Hash, Code-Hash, Quality-Score,
 * Approved-By and Approval. A failure at any step restores the files, the index and HEAD.
 */
#ifndef TG_PROMOTE_H
#define TG_PROMOTE_H

#include <stdbool.h>

#include "base/util.h"
#include "lifecycle/registry.h"

typedef enum tg_promote_status {
    TG_PROMOTE_DONE,    /* promoted and committed */
    TG_PROMOTE_ALREADY, /* the identical spec is already active: nothing changed */
    TG_PROMOTE_REFUSED, /* can_promote said no (err says why and what to do) */
    TG_PROMOTE_NOGIT,   /* not inside a git working tree: nothing changed */
    TG_PROMOTE_FAILED,  /* a step failed; everything was put back */
} tg_promote_status;

typedef struct tg_promote_result {
    char version[64];
    char previous[64]; /* the version it replaced, "" when new */
    char commit[41];   /* the commit made (DONE) */
} tg_promote_result;

/*
 * Promotes tool. fail_at names a step to fail on purpose, for tests only ("copy", "metadata",
 * "log", "archive", "state", "commit", "ref", "index"); NULL in real use.
 */
tg_promote_status tg_promote(const tg_registry *g, const char *tool, const char *fail_at,
                             tg_promote_result *res, tg_err *err);

/*
 * The promotion commit's message for tool, from its staging entry (version, spec_hash,
 * code_hash, quality_score and quality_tier, feedback.decision's reply and by): the subject
 * "promote <tool> v<version>", a body naming active_dir/ and archive_dir/, and the trailers
 * Spec-Hash, Code-Hash, Quality-Score, Approved-By and Approval (and Approved-Via, when the
 * decision says how the user's words came: "mcp-elicitation") as the last paragraph, one line
 * each. Caller frees.
 */
char *tg_promote_message(const char *tool, const cJSON *entry, const char *active_dir,
                         const char *archive_dir);

#endif
