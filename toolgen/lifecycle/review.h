/*
 * review.h — the review of the tools between two revisions (docs/review.md): which tools were
 * added, removed or changed, each one's classified changes (review_diff.h), the emitted files
 * that differ, the quality scores of the validation reports on both sides, and the verdict of
 * the version policy (review_policy.h fills it).
 *
 * Ownership: a tg_review owns everything in it; tg_review_free releases it.
 */
#ifndef TG_REVIEW_H
#define TG_REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "lifecycle/gitrev.h"
#include "lifecycle/review_schema.h"
#include "model/repo.h"

typedef enum tg_tool_change { TG_TOOL_ADDED, TG_TOOL_REMOVED, TG_TOOL_CHANGED } tg_tool_change;

/* A version bump, ordered: a larger one satisfies a smaller requirement. */
typedef enum tg_bump {
    TG_BUMP_NONE,
    TG_BUMP_PATCH,
    TG_BUMP_MINOR,
    TG_BUMP_MAJOR,
    TG_BUMP_INVALID, /* a version that is not semver, or one that went down */
} tg_bump;

typedef struct tg_tool_review {
    char *name;
    tg_tool_change kind;
    char *version_before, *version_after; /* NULL on the side without the tool */
    char *status_before, *status_after;
    tg_changes changes;  /* sorted, most severe first */
    bool head_unparsable; /* HEAD's manifest does not parse: no version can be judged */
    char *head_invalid;   /* HEAD's manifest breaks the manifest schema: the first problem */
    tg_strv generated;   /* emitted files (under paths.generated) that differ */
    double score_before, score_after; /* overall_score of the validation report; < 0: none */
    char *tier_before, *tier_after;
    /* The version policy's verdict (review_policy.h). */
    tg_bump need, got;
    bool ok;
    char *verdict; /* why not ok, for the reviewer; NULL when ok */
} tg_tool_review;

typedef struct tg_review {
    tg_tool_review *v; /* by tool name */
    size_t n, cap;
    char *base_label, *head_label;
    char base_oid[41], head_oid[41]; /* "" for the working tree */
    size_t unchanged;                /* tools present on both sides without any change */
} tg_review;

/*
 * Compares the tools of base and head (read through g, never checked out): every tool folder
 * of paths.manifests on either side. A manifest that does not parse, or that breaks the
 * manifest schema at HEAD, is reported as a possibly breaking change naming the problem; -1
 * with err only when a revision cannot be read (or toolgen's own schemas cannot be).
 */
int tg_review_collect(const tg_repo *repo, tg_gitrev *g, const tg_rev *base,
                      const tg_rev *head, tg_review *out, tg_err *err);
void tg_review_free(tg_review *r);

const char *tg_tool_change_name(tg_tool_change k);
const char *tg_bump_name(tg_bump b);
/* The most severe class of the tool's changes; compatible for an added tool, breaking for a
 * removed one. */
tg_change_class tg_tool_review_class(const tg_tool_review *t);

#endif
