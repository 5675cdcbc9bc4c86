/*
 * review_diff.h — the semantic differences between two versions of one tool's IR
 * (docs/review.md "What is compared"): schemas through the classifier of review_schema.h, then
 * error codes, constraints, docs, examples, tests, implementation and its hash, lifecycle state.
 */
#ifndef TG_REVIEW_DIFF_H
#define TG_REVIEW_DIFF_H

#include <cjson/cJSON.h>

#include "lifecycle/review_schema.h"

#include <stdbool.h>

/* Changes of these areas need no version bump: the lifecycle state, and the version itself. */
#define TG_REVIEW_AREA_STATUS "status"
#define TG_REVIEW_AREA_VERSION "version"
bool tg_review_area_unversioned(const char *area);

/*
 * Appends the classified changes from the manifest document before to after (both bound,
 * non-NULL roots: an added or removed tool is not diffed field by field). impl_before and
 * impl_after are the git object ids of the implementation file ("" when there is none), so a
 * change of the code alone is reported. A new version is an informational change of its own area, which the policy judges.
 */
void tg_review_ir_diff(const cJSON *before, const cJSON *after, const char *impl_before,
                       const char *impl_after, tg_changes *out);

#endif
