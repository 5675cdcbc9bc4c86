/* review.c — collect the review of every tool between two revisions (docs/review.md). */
#include "lifecycle/review.h"

#include <stdlib.h>
#include <string.h>

#include "base/doc.h"
#include "base/json.h"
#include "lifecycle/review_diff.h"
#include "model/manifest.h"
#include "model/paths.h"
#include "schema/schemaset.h"

const char *tg_tool_change_name(tg_tool_change k)
{
    return k == TG_TOOL_ADDED ? "added" : k == TG_TOOL_REMOVED ? "removed" : "changed";
}

const char *tg_bump_name(tg_bump b)
{
    static const char *const names[] = {"none", "patch", "minor", "major", "invalid"};
    return names[b <= TG_BUMP_INVALID ? b : TG_BUMP_INVALID];
}

tg_change_class tg_tool_review_class(const tg_tool_review *t)
{
    if (t->kind != TG_TOOL_CHANGED) /* a new tool breaks nobody; a removed one every caller */
        return t->kind == TG_TOOL_ADDED ? TG_CHANGE_COMPATIBLE : TG_CHANGE_BREAKING;
    return tg_changes_worst(&t->changes);
}

/* One side of a tool: its parsed manifest and the ids that tell whether it changed. */
typedef struct side {
    const tg_rev *rev;
    bool present;
    tg_manifest m;
    bool parsed;
    char manifest_id[41], impl_id[41];
} side;

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* Reads and parses the manifest at path in the side's revision; a parse error becomes a change. */
static int load_side(tg_gitrev *g, side *s, const char *path, tg_changes *problems,
                     tg_err *err)
{
    char *text;
    size_t len;
    int rc = tg_gitrev_read(g, s->rev, path, TG_DOC_MAX_BYTES, &text, &len, err);
    if (rc <= 0)
        return rc;
    s->present = true;
    char *name = s->rev->worktree ? xstrdup(path) : xasprintf("%s:%s", s->rev->label, path);
    tg_err perr = {0};
    if (tg_manifest_parse(text, len, path, name, &s->m, &perr) == 0) {
        if (cJSON_IsObject(s->m.doc.root)) {
            tg_manifest_bind(&s->m);
            s->parsed = true;
        } else {
            tg_manifest_free(&s->m);
            tg_err_set(&perr, "the document is not a mapping");
        }
    }
    if (s->parsed && s->m.impl_file) {
        char *impl = xasprintf("%s/%s", s->m.dir, s->m.impl_file);
        if (tg_gitrev_object_id(g, s->rev, impl, s->impl_id, err) < 0)
            rc = -1;
        free(impl);
    }
    if (!s->parsed) {
        char msg[2048];
        tg_err_format(&perr, msg, sizeof msg);
        tg_changes_add(problems, TG_CHANGE_POSSIBLY_BREAKING, "manifest", "",
                       "the manifest does not parse: %s", msg);
    }
    free(name);
    free(text);
    return rc < 0 ? -1 : 1;
}

static void read_quality(tg_gitrev *g, const tg_rev *rev, const char *tool, double *score,
                         char **tier)
{
    *score = -1;
    *tier = NULL;
    char *path = tg_validation_report_path(tool), *text;
    size_t len;
    tg_err err = {0};
    if (tg_gitrev_read(g, rev, path, TG_DOC_MAX_BYTES, &text, &len, &err) == 1) {
        cJSON *r = cJSON_ParseWithLength(text, len);
        const cJSON *m = tg_json_get(r, "code_metrics");
        const cJSON *sc = tg_json_get(m, "overall_score");
        if (cJSON_IsNumber(sc))
            *score = sc->valuedouble;
        *tier = dup_or_null(tg_json_get_string(m, "quality_tier"));
        cJSON_Delete(r);
        free(text);
    }
    free(path);
}

/* The emitted files of the tool (paths.generated/<tool>/...) that differ between the sides. */
static int changed_outputs(const tg_repo *repo, tg_gitrev *g, const tg_rev *a, const tg_rev *b,
                           const char *tool, tg_strv *out, tg_err *err)
{
    char *dir = xasprintf("%s/%s", repo->cfg.generated_dir ? repo->cfg.generated_dir : "generated",
                          tool);
    tg_strv all = TG_STRV_INIT;
    int rc = tg_gitrev_list_files(g, a, dir, &all, err) == 0 &&
                     tg_gitrev_list_files(g, b, dir, &all, err) == 0
                 ? 0
                 : -1;
    tg_strv_sort(&all);
    for (size_t i = 0; rc == 0 && i < all.n; i++) {
        if (i > 0 && strcmp(all.v[i], all.v[i - 1]) == 0)
            continue;
        char ia[41], ib[41];
        if (tg_gitrev_object_id(g, a, all.v[i], ia, err) < 0 ||
            tg_gitrev_object_id(g, b, all.v[i], ib, err) < 0)
            rc = -1;
        else if (strcmp(ia, ib) != 0)
            tg_strv_push(out, all.v[i]);
    }
    tg_strv_free(&all);
    free(dir);
    return rc;
}

static tg_tool_review *add_tool(tg_review *r, const char *name)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->v = xrealloc(r->v, r->cap * sizeof *r->v);
    }
    tg_tool_review *t = &r->v[r->n++];
    *t = (tg_tool_review){.name = xstrdup(name), .ok = true};
    return t;
}

/* HEAD's manifest against the manifest schema: its first problem (heap), or NULL. */
static char *schema_problem(const tg_schemaset *ss, const side *s)
{
    js_errors errs = {0};
    char *why = NULL;
    if (!js_validate(ss->manifest, s->m.doc.root, &errs) && errs.n)
        why = xasprintf("%s: %s", errs.v[0].instance_location[0] ? errs.v[0].instance_location
                                                                 : "(root)",
                        errs.v[0].message);
    js_errors_free(&errs);
    return why;
}

/* Reviews one tool whose folder has a changed file (git diff says which; the others are
 * unchanged and never read). */
static int review_tool(const tg_repo *repo, const tg_schemaset *ss, tg_gitrev *g,
                       const tg_rev *base, const tg_rev *head, const char *name,
                       tg_review *out, tg_err *err)
{
    char *path = tg_manifest_path(&repo->cfg, name);
    char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
    side a = {.rev = base}, b = {.rev = head};
    tg_changes problems = {0};
    char *invalid = NULL;
    int rc = 0;
    if (load_side(g, &a, path, &problems, err) < 0 || load_side(g, &b, path, &problems, err) < 0) {
        rc = -1;
        goto done;
    }
    if (!a.present && !b.present)
        goto done;
    invalid = b.parsed ? schema_problem(ss, &b) : NULL;
    if (invalid)
        tg_changes_add(&problems, TG_CHANGE_POSSIBLY_BREAKING, "manifest", "",
                       "the manifest breaks its schema (toolgen lint): %s", invalid);
    tg_changes ch = problems;
    problems = (tg_changes){0};
    if (a.parsed && b.parsed)
        tg_review_ir_diff(a.m.doc.root, b.m.doc.root, a.impl_id, b.impl_id, &ch);
    if (a.present && b.present && ch.n == 0) {
        out->unchanged++;
        goto done;
    }
    tg_tool_review *t = add_tool(out, name);
    t->head_invalid = invalid;
    invalid = NULL;
    t->kind = !a.present ? TG_TOOL_ADDED : !b.present ? TG_TOOL_REMOVED : TG_TOOL_CHANGED;
    t->changes = ch;
    t->head_unparsable = b.present && !b.parsed;
    t->version_before = dup_or_null(a.m.version);
    t->version_after = dup_or_null(b.m.version);
    t->status_before = dup_or_null(a.parsed ? tg_json_get_string(a.m.doc.root, "status") : NULL);
    t->status_after = dup_or_null(b.parsed ? tg_json_get_string(b.m.doc.root, "status") : NULL);
    read_quality(g, base, name, &t->score_before, &t->tier_before);
    read_quality(g, head, name, &t->score_after, &t->tier_after);
    rc = changed_outputs(repo, g, base, head, name, &t->generated, err);
done:
    free(invalid);
    tg_changes_free(&problems);
    tg_manifest_free(&a.m);
    tg_manifest_free(&b.m);
    free(path);
    free(dir);
    return rc;
}

int tg_review_collect(const tg_repo *repo, tg_gitrev *g, const tg_rev *base,
                      const tg_rev *head, tg_review *out, tg_err *err)
{
    *out = (tg_review){.base_label = xstrdup(base->label), .head_label = xstrdup(head->label)};
    memcpy(out->base_oid, base->oid, sizeof out->base_oid);
    memcpy(out->head_oid, head->oid, sizeof out->head_oid);
    const char *mdir = repo->cfg.manifests_dir ? repo->cfg.manifests_dir : "manifests";
    tg_strv names = TG_STRV_INIT, changed = TG_STRV_INIT;
    tg_schemaset ss;
    if (tg_schemaset_open(&ss, err) != 0)
        return -1;
    int rc = -1;
    if (tg_gitrev_list_dirs(g, base, mdir, &names, err) != 0 ||
        tg_gitrev_list_dirs(g, head, mdir, &names, err) != 0 ||
        tg_gitrev_changed_paths(g, base, head, mdir, &changed, err) != 0)
        goto out;
    tg_strv_sort(&names);
    size_t ml = strlen(mdir), c = 0;
    for (size_t i = 0; i < names.n; i++) {
        if (i > 0 && strcmp(names.v[i], names.v[i - 1]) == 0)
            continue;
        /* changed is sorted: skip to the first path at or past mdir/<name>/ */
        size_t nl = strlen(names.v[i]);
        bool touched = false;
        for (; c < changed.n; c++) {
            const char *p = changed.v[c] + ml + 1;
            int cmp = strncmp(p, names.v[i], nl);
            if (cmp > 0 || (cmp == 0 && p[nl] > '/'))
                break;
            if (cmp == 0 && p[nl] == '/') {
                touched = true;
                break;
            }
        }
        if (!touched)
            out->unchanged++;
        else if (review_tool(repo, &ss, g, base, head, names.v[i], out, err) != 0)
            goto out;
    }
    rc = 0;
out:
    tg_schemaset_close(&ss);
    tg_strv_free(&names);
    tg_strv_free(&changed);
    return rc;
}

void tg_review_free(tg_review *r)
{
    for (size_t i = 0; i < r->n; i++) {
        tg_tool_review *t = &r->v[i];
        free(t->name);
        free(t->version_before);
        free(t->version_after);
        free(t->status_before);
        free(t->status_after);
        tg_changes_free(&t->changes);
        tg_strv_free(&t->generated);
        free(t->tier_before);
        free(t->tier_after);
        free(t->verdict);
        free(t->head_invalid);
    }
    free(r->v);
    free(r->base_label);
    free(r->head_label);
    *r = (tg_review){0};
}
