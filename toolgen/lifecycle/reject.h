/*
 * reject.h — `toolgen reject TOOL --notes "..."` (docs/lifecycle.md "Rejection"): the seed's
 * step 8B without the refinement.
 *
 * A STAGED or APPROVED candidate (or one Stage 2 already REJECTED) is moved to
 * <archive>/rejected/<tool>_<timestamp>/ with user_feedback.json (the notes verbatim, the issue
 * categories and the feedback given so far) and metadata.json (its staging entry); the staging
 * entry becomes REJECTED with the notes and categories. All files change or none.
 */
#ifndef TG_REJECT_H
#define TG_REJECT_H

#include <stdbool.h>

#include "base/strvec.h"
#include "base/util.h"
#include "lifecycle/registry.h"

/* The issue categories of the seed's extract_issues found in notes (COLUMN_MISMATCH,
 * MISSING_FILTER, OUTPUT_FORMAT, WRONG_METRIC, SORT_ORDER, MISSING_VALUES; WRONG_RESULT when
 * none of those but "wrong"/"incorrect"), in that order, each once; OTHER when none matches.
 * Appended to out. */
void tg_reject_categories(const char *notes, tg_strv *out);

typedef struct tg_reject_result {
    char archive[1024]; /* the folder the candidate went to */
    char version[64];
    tg_strv categories;  /* release with tg_strv_free */
    bool was_rejected;   /* Stage 2 had rejected it already (the count of rejections stays) */
} tg_reject_result;

/* 0, or -1 with err (no candidate, already promoted or archived, a file that cannot move). */
int tg_reject(const tg_registry *g, const char *tool, const char *notes, tg_reject_result *res,
              tg_err *err);

#endif
