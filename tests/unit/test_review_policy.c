/* test_review_policy.c — the version policy (lifecycle/review_policy.h): bumps accepted and
 * refused, the 0.x rule, promoted tools, the review section of toolgen.yaml. */
#include <stdlib.h>

#include "lifecycle/review_diff.h"
#include "lifecycle/review_policy.h"
#include "testlib.h"

static void test_version_bump(void)
{
    static const struct {
        const char *a, *b;
        tg_bump want;
    } rows[] = {
        {"1.0.0", "1.0.0", TG_BUMP_NONE},    {"1.0.0", "1.0.1", TG_BUMP_PATCH},
        {"1.0.9", "1.1.0", TG_BUMP_MINOR},   {"1.4.2", "2.0.0", TG_BUMP_MAJOR},
        {"1.4.2", "1.3.9", TG_BUMP_INVALID}, {"2.0.0", "1.9.9", TG_BUMP_INVALID},
        {"1.0", "1.0.1", TG_BUMP_INVALID},   {"1.0.0", "v1.0.1", TG_BUMP_INVALID},
        {"1.0.0-rc.1", "1.0.0", TG_BUMP_PATCH}, {"1.0.0+a", "1.0.1+b", TG_BUMP_PATCH},
        {"0.9.0", "0.10.0", TG_BUMP_MINOR},  {NULL, "1.0.0", TG_BUMP_INVALID},
        {"1.0.0", "1.0.0x", TG_BUMP_INVALID},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tg_bump got = tg_version_bump(rows[i].a, rows[i].b);
        CHECK(got == rows[i].want, "%s -> %s: got %s, want %s", rows[i].a ? rows[i].a : "NULL",
              rows[i].b, tg_bump_name(got), tg_bump_name(rows[i].want));
    }
}

/* A one-tool review: the change class, the versions, the status before. */
static void one_tool(tg_review *r, tg_change_class cls, const char *area, const char *va,
                     const char *vb, const char *status)
{
    *r = (tg_review){0};
    r->v = calloc(1, sizeof *r->v);
    r->n = r->cap = 1;
    tg_tool_review *t = &r->v[0];
    t->name = strdup("t");
    t->kind = TG_TOOL_CHANGED;
    t->version_before = strdup(va);
    t->version_after = strdup(vb);
    t->status_before = status ? strdup(status) : NULL;
    t->ok = true;
    tg_changes_add(&t->changes, cls, area, "", "a change");
}

static void expect(const tg_review_policy *p, tg_change_class cls, const char *area,
                   const char *va, const char *vb, const char *status, bool ok,
                   const char *why)
{
    tg_review r;
    one_tool(&r, cls, area, va, vb, status);
    size_t bad = tg_review_policy_apply(p, &r);
    CHECK(r.v[0].ok == ok && bad == (ok ? 0u : 1u), "%s %s %s -> %s: ok %d, want %d (%s)",
          tg_change_class_name(cls), area, va, vb, r.v[0].ok, ok,
          r.v[0].verdict ? r.v[0].verdict : "");
    if (why)
        CHECK_CONTAINS(r.v[0].verdict, why);
    tg_review_free(&r);
}

static void test_semver(void)
{
    tg_review_policy p = {TG_VERSIONING_SEMVER, TG_BUMP_MAJOR, NULL};
    expect(&p, TG_CHANGE_BREAKING, "input_schema", "1.2.3", "2.0.0", NULL, true, NULL);
    expect(&p, TG_CHANGE_BREAKING, "input_schema", "1.2.3", "1.3.0", NULL, false,
           "breaking changes need a major bump: version 2.0.0 or higher (it is 1.3.0)");
    expect(&p, TG_CHANGE_COMPATIBLE, "output_schema", "1.2.3", "1.3.0", NULL, true, NULL);
    expect(&p, TG_CHANGE_COMPATIBLE, "output_schema", "1.2.3", "1.2.4", NULL, false,
           "version 1.3.0 or higher");
    expect(&p, TG_CHANGE_INFORMATIONAL, "docs", "1.2.3", "1.2.4", NULL, true, NULL);
    expect(&p, TG_CHANGE_INFORMATIONAL, "docs", "1.2.3", "1.2.3", NULL, false,
           "version 1.2.4 or higher");
    expect(&p, TG_CHANGE_POSSIBLY_BREAKING, "input_schema", "1.2.3", "1.3.0", NULL, false,
           "a major bump");
    expect(&p, TG_CHANGE_INFORMATIONAL, TG_REVIEW_AREA_STATUS, "1.2.3", "1.2.3", NULL, true,
           NULL);
    expect(&p, TG_CHANGE_INFORMATIONAL, "docs", "1.2.3", "1.2.2", NULL, false,
           "not a semver increase");
    /* below 1.0.0 a breaking change needs a minor bump, a compatible one a patch */
    expect(&p, TG_CHANGE_BREAKING, "input_schema", "0.3.1", "0.4.0", NULL, true, NULL);
    expect(&p, TG_CHANGE_BREAKING, "input_schema", "0.3.1", "0.3.2", NULL, false,
           "version 0.4.0 or higher");
    expect(&p, TG_CHANGE_COMPATIBLE, "input_schema", "0.3.1", "0.3.2", NULL, true, NULL);
    tg_review_policy minor = {TG_VERSIONING_SEMVER, TG_BUMP_MINOR, NULL};
    expect(&minor, TG_CHANGE_POSSIBLY_BREAKING, "input_schema", "1.2.3", "1.3.0", NULL, true,
           NULL);
}

static void test_none_and_promoted(void)
{
    tg_review_policy p = {TG_VERSIONING_NONE, TG_BUMP_MAJOR, NULL};
    expect(&p, TG_CHANGE_BREAKING, "input_schema", "1.2.3", "1.2.3", "staged", true, NULL);
    expect(&p, TG_CHANGE_INFORMATIONAL, "docs", "1.2.3", "1.2.3", "promoted", false,
           "the tool is promoted");
    expect(&p, TG_CHANGE_INFORMATIONAL, "docs", "1.2.3", "1.2.4", "promoted", true, NULL);
    expect(&p, TG_CHANGE_INFORMATIONAL, TG_REVIEW_AREA_STATUS, "1.2.3", "1.2.3", "promoted",
           true, NULL);
}

static void test_config(void)
{
    static const struct {
        const char *yaml;
        int rc;
        tg_versioning v;
        tg_bump pb;
        const char *err;
    } rows[] = {
        {"project: {name: x}\n", 0, TG_VERSIONING_SEMVER, TG_BUMP_MAJOR, NULL},
        {"review:\n  versioning: none\n  possibly_breaking: minor\n", 0, TG_VERSIONING_NONE,
         TG_BUMP_MINOR, NULL},
        {"review:\n  versioning: calver\n", -1, 0, 0, "review.versioning must be one of"},
        {"review:\n  possibly_breaking: 3\n", -1, 0, 0, "review.possibly_breaking must be"},
        {"review:\n  default_branch: ''\n", -1, 0, 0, "review.default_branch must be"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tg_config cfg = {0};
        tg_err err = {0};
        CHECK(tg_doc_parse_yaml(rows[i].yaml, strlen(rows[i].yaml), "toolgen.yaml", NULL,
                                &cfg.doc, &err) == 0, "%s", err.msg);
        tg_review_policy p;
        int rc = tg_review_policy_load(&cfg, &p, &err);
        CHECK(rc == rows[i].rc, "row %zu: rc %d (%s)", i, rc, err.msg);
        if (rc == 0)
            CHECK(p.versioning == rows[i].v && p.possibly_breaking == rows[i].pb, "row %zu", i);
        else
            CHECK_CONTAINS(err.msg, rows[i].err);
        tg_doc_free(&cfg.doc);
    }
}

int main(void)
{
    test_version_bump();
    test_semver();
    test_none_and_promoted();
    test_config();
    return tl_finish("test_review_policy");
}
