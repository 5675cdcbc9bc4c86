/* review_policy.c — the version policy of a review (docs/review.md "The version policy"). */
#include "lifecycle/review_policy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "lifecycle/review_diff.h"

static int config_choice(const tg_config *cfg, const char *key, const char *const *choices,
                         int dflt, tg_err *err)
{
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/review/%s", key);
    const cJSON *v = tg_config_get(cfg, ptr);
    if (!v)
        return dflt;
    for (int i = 0; cJSON_IsString(v) && choices[i]; i++)
        if (strcmp(v->valuestring, choices[i]) == 0)
            return i;
    tg_pos pos = tg_doc_pos(&cfg->doc, v);
    tg_err_setpos(err, cfg->path ? cfg->path : "toolgen.yaml", pos.line, pos.col,
                  "review.%s must be one of %s, %s", key, choices[0], choices[1]);
    return -1;
}

int tg_review_policy_load(const tg_config *cfg, tg_review_policy *p, tg_err *err)
{
    static const char *const versioning[] = {"semver", "none", NULL};
    static const char *const possibly[] = {"major", "minor", NULL};
    *p = (tg_review_policy){TG_VERSIONING_SEMVER, TG_BUMP_MAJOR, NULL};
    int v = config_choice(cfg, "versioning", versioning, 0, err);
    int pb = v < 0 ? -1 : config_choice(cfg, "possibly_breaking", possibly, 0, err);
    if (v < 0 || pb < 0)
        return -1;
    p->versioning = (tg_versioning)v;
    p->possibly_breaking = pb == 0 ? TG_BUMP_MAJOR : TG_BUMP_MINOR;
    const cJSON *b = tg_config_get(cfg, "/review/default_branch");
    if (b && (!cJSON_IsString(b) || !b->valuestring[0])) {
        tg_pos pos = tg_doc_pos(&cfg->doc, b);
        return tg_err_setpos(err, cfg->path ? cfg->path : "toolgen.yaml", pos.line, pos.col,
                             "review.default_branch must be a branch name, e.g. main");
    }
    p->default_branch = b ? b->valuestring : NULL;
    return 0;
}

typedef struct semver {
    unsigned long part[3];
    const char *rest; /* "-pre+build" or "" */
} semver;

static bool parse_semver(const char *s, semver *v)
{
    if (!s)
        return false;
    for (int i = 0; i < 3; i++) {
        if (!isdigit((unsigned char)*s))
            return false;
        char *end;
        v->part[i] = strtoul(s, &end, 10);
        s = end;
        if (i < 2 && *s++ != '.')
            return false;
    }
    if (*s && *s != '-' && *s != '+')
        return false;
    v->rest = s;
    return true;
}

tg_bump tg_version_bump(const char *a, const char *b)
{
    semver x, y;
    if (!parse_semver(a, &x) || !parse_semver(b, &y))
        return TG_BUMP_INVALID;
    for (int i = 0; i < 3; i++) {
        if (y.part[i] > x.part[i])
            return (tg_bump)(TG_BUMP_MAJOR - i);
        if (y.part[i] < x.part[i])
            return TG_BUMP_INVALID;
    }
    return strcmp(x.rest, y.rest) == 0 ? TG_BUMP_NONE : TG_BUMP_PATCH;
}

/* The most severe class among the changes that are the tool's, not its lifecycle's. */
static tg_change_class versioned_class(const tg_tool_review *t)
{
    tg_change_class w = TG_CHANGE_NONE;
    for (size_t i = 0; i < t->changes.n; i++)
        if (!tg_review_area_unversioned(t->changes.v[i].area) && t->changes.v[i].cls < w)
            w = t->changes.v[i].cls;
    return w;
}

tg_bump tg_review_required_bump(const tg_review_policy *p, const tg_tool_review *t)
{
    if (t->kind != TG_TOOL_CHANGED || p->versioning == TG_VERSIONING_NONE)
        return TG_BUMP_NONE;
    tg_bump need = TG_BUMP_NONE;
    switch (versioned_class(t)) {
    case TG_CHANGE_BREAKING:
        need = TG_BUMP_MAJOR;
        break;
    case TG_CHANGE_POSSIBLY_BREAKING:
        need = p->possibly_breaking;
        break;
    case TG_CHANGE_COMPATIBLE:
        need = TG_BUMP_MINOR;
        break;
    case TG_CHANGE_INFORMATIONAL:
        need = TG_BUMP_PATCH;
        break;
    case TG_CHANGE_NONE:
        break;
    }
    semver v;
    if (need > TG_BUMP_PATCH && parse_semver(t->version_before, &v) && v.part[0] == 0)
        need--;
    return need;
}

/* The smallest version after v that makes the bump need, e.g. 1.4.2 + minor = 1.5.0. */
static char *next_version(const char *v, tg_bump need)
{
    semver x;
    if (!parse_semver(v, &x))
        return xstrdup("a semver version");
    if (need == TG_BUMP_MAJOR)
        return xasprintf("%lu.0.0", x.part[0] + 1);
    if (need == TG_BUMP_MINOR)
        return xasprintf("%lu.%lu.0", x.part[0], x.part[1] + 1);
    return xasprintf("%lu.%lu.%lu", x.part[0], x.part[1], x.part[2] + 1);
}

static void judge(const tg_review_policy *p, tg_tool_review *t)
{
    t->need = tg_review_required_bump(p, t);
    t->ok = true;
    if (t->head_invalid) { /* added or changed: HEAD's manifest must lint either way */
        t->ok = false;
        t->verdict = xasprintf("the manifest breaks its schema: %s; fix it first (toolgen lint)",
                               t->head_invalid);
        return;
    }
    if (t->kind != TG_TOOL_CHANGED)
        return;
    const char *va = t->version_before ? t->version_before : "?";
    const char *vb = t->version_after ? t->version_after : "?";
    t->got = tg_version_bump(t->version_before, t->version_after);
    bool promoted = t->status_before && strcmp(t->status_before, "promoted") == 0;
    if (t->head_unparsable) {
        t->ok = false;
        t->verdict = xstrdup("the manifest does not parse: fix it first (toolgen lint)");
        return;
    }
    if (t->got == TG_BUMP_INVALID && (p->versioning == TG_VERSIONING_SEMVER ||
                                      (t->version_before && t->version_after))) {
        t->ok = false;
        t->verdict = xasprintf("version %s -> %s is not a semver increase: versions are "
                               "MAJOR.MINOR.PATCH and may not go down", va, vb);
    } else if (t->got != TG_BUMP_INVALID && t->got < t->need) {
        char *want = next_version(t->version_before, t->need);
        t->ok = false;
        t->verdict = xasprintf("%s changes need a %s bump: version %s or higher (it is %s)",
                               tg_change_class_name(versioned_class(t)), tg_bump_name(t->need),
                               want, vb);
        free(want);
    } else if (promoted && t->got == TG_BUMP_NONE && versioned_class(t) != TG_CHANGE_NONE) {
        t->ok = false;
        t->verdict = xasprintf("the tool is promoted: it may not change at the same version %s; "
                               "bump the version", va);
    }
}

size_t tg_review_policy_apply(const tg_review_policy *p, tg_review *r)
{
    size_t bad = 0;
    for (size_t i = 0; i < r->n; i++) {
        judge(p, &r->v[i]);
        bad += !r->v[i].ok;
    }
    return bad;
}
