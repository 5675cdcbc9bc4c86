/*
 * review_policy.h — the version policy of `toolgen diff --check` (docs/review.md "The version
 * policy"), set by the review section of toolgen.yaml.
 *
 * semver (the default): a breaking change needs a major bump, a compatible one at least a minor,
 * any other change of the tool (docs, tests, code) at least a patch; below 1.0.0 each requirement
 * moves down one place (breaking → minor, compatible → patch), as Cargo reads semver. A possibly
 * breaking change counts as breaking unless review.possibly_breaking is "minor". Under either
 * policy, a tool that was promoted may not change at the same version, a version may not go
 * down or stop being semver, and a manifest that does not parse fails. Lifecycle-state changes alone need no bump.
 */
#ifndef TG_REVIEW_POLICY_H
#define TG_REVIEW_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "lifecycle/review.h"
#include "model/config.h"

typedef enum tg_versioning { TG_VERSIONING_SEMVER, TG_VERSIONING_NONE } tg_versioning;

typedef struct tg_review_policy {
    tg_versioning versioning;   /* review.versioning */
    tg_bump possibly_breaking;  /* review.possibly_breaking: TG_BUMP_MAJOR or TG_BUMP_MINOR */
    const char *default_branch; /* review.default_branch, borrowed from the config; NULL */
} tg_review_policy;

/* Reads the review section of cfg (defaults without one). -1 with err (file:line:col) when a
 * key has a value the policy does not know. */
int tg_review_policy_load(const tg_config *cfg, tg_review_policy *p, tg_err *err);

/* The bump from version a to b: none, patch, minor or major; TG_BUMP_INVALID when either is
 * not MAJOR.MINOR.PATCH[-pre][+build] or b is lower than a. */
tg_bump tg_version_bump(const char *a, const char *b);

/* The bump the tool's changes need under p (TG_BUMP_NONE for an added or removed tool). */
tg_bump tg_review_required_bump(const tg_review_policy *p, const tg_tool_review *t);

/* Fills need, got, ok and verdict of every tool of r; returns how many are not ok. */
size_t tg_review_policy_apply(const tg_review_policy *p, tg_review *r);

#endif
