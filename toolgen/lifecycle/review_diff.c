/* review_diff.c — field-by-field differences of one tool's manifest (docs/review.md). */
#include "lifecycle/review_diff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static bool same(const cJSON *a, const cJSON *b)
{
    return (!a && !b) || (a && b && cJSON_Compare(a, b, true));
}

static const char *what(const cJSON *a, const cJSON *b)
{
    return !a ? "added" : !b ? "removed" : "changed";
}

/* A number that should not fall (a limit, a timeout): lower is possibly breaking. */
static void cmp_limit(tg_changes *out, const char *area, const char *ptr, const cJSON *a,
                      const cJSON *b, const char *name)
{
    if (same(a, b))
        return;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
        bool lower = b->valuedouble < a->valuedouble;
        tg_changes_add(out, lower ? TG_CHANGE_POSSIBLY_BREAKING : TG_CHANGE_COMPATIBLE, area, ptr,
                       "%s %s from %g to %g%s", name, lower ? "lowered" : "raised",
                       a->valuedouble, b->valuedouble,
                       lower ? ": calls that needed more now fail" : "");
    } else {
        tg_changes_add(out, TG_CHANGE_POSSIBLY_BREAKING, area, ptr, "%s %s", name, what(a, b));
    }
}

/* A boolean whose turning from safe to unsafe may break deployments that rely on it. */
static void cmp_flag(tg_changes *out, const char *ptr, const cJSON *a, const cJSON *b,
                     bool dflt, bool safe, const char *name, const char *why)
{
    bool x = a ? cJSON_IsTrue(a) : dflt, y = b ? cJSON_IsTrue(b) : dflt;
    if (x == y)
        return;
    tg_changes_add(out, y == safe ? TG_CHANGE_COMPATIBLE : TG_CHANGE_POSSIBLY_BREAKING,
                   "constraints", ptr, "%s changed from %s to %s%s", name, x ? "true" : "false",
                   y ? "true" : "false", y == safe ? "" : why);
}

/* String lists compared as sets: entries added and removed. */
static char *set_minus(const cJSON *x, const cJSON *y)
{
    tg_buf b = TG_BUF_INIT;
    for (const cJSON *e = cJSON_IsArray(x) ? x->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && !tg_json_array_has_string(y, e->valuestring))
            tg_buf_printf(&b, "%s%s", b.len ? ", " : "", e->valuestring);
    return b.len ? tg_buf_steal(&b) : NULL;
}

static void cmp_paths(tg_changes *out, const cJSON *a, const cJSON *b)
{
    /* Empty or absent means every data directory: the widest set. */
    bool all_a = cJSON_GetArraySize(a) == 0, all_b = cJSON_GetArraySize(b) == 0;
    if (all_a && all_b)
        return;
    const char *ptr = "/allowed_paths";
    if (all_b) {
        tg_changes_add(out, TG_CHANGE_COMPATIBLE, "constraints", ptr,
                       "allowed_paths removed: every data directory is allowed");
        return;
    }
    if (all_a) {
        tg_changes_add(out, TG_CHANGE_BREAKING, "constraints", ptr,
                       "allowed_paths restricted to %d entries: calls with paths elsewhere are "
                       "refused", cJSON_GetArraySize(b));
        return;
    }
    char *gone = set_minus(a, b), *added = set_minus(b, a);
    if (gone)
        tg_changes_add(out, TG_CHANGE_BREAKING, "constraints", ptr,
                       "allowed_paths no longer include %s: calls with such paths are refused",
                       gone);
    if (added)
        tg_changes_add(out, TG_CHANGE_COMPATIBLE, "constraints", ptr,
                       "allowed_paths now include %s", added);
    free(gone);
    free(added);
}

static void cmp_constraints(tg_changes *out, const cJSON *a, const cJSON *b)
{
    if (same(a, b))
        return;
    cmp_flag(out, "/read_only", get(a, "read_only"), get(b, "read_only"), true, true,
             "read_only", ": read-only deployments (READ_ONLY=1) refuse the tool");
    cmp_flag(out, "/network", get(a, "network"), get(b, "network"), false, false, "network",
             ": the tool now needs the network");
    cmp_paths(out, get(a, "allowed_paths"), get(b, "allowed_paths"));
    const cJSON *ra = get(get(a, "rate_limit"), "requests_per_minute");
    const cJSON *rb = get(get(b, "rate_limit"), "requests_per_minute");
    if (!ra != !rb && !same(ra, rb))
        tg_changes_add(out, rb ? TG_CHANGE_POSSIBLY_BREAKING : TG_CHANGE_COMPATIBLE,
                       "constraints", "/rate_limit", "rate_limit %s", rb ? "added" : "removed");
    else
        cmp_limit(out, "constraints", "/rate_limit/requests_per_minute", ra, rb, "rate limit");
    const cJSON *la = get(a, "limits"), *lb = get(b, "limits");
    const cJSON *sides[2] = {lb, la};
    for (int s = 0; s < 2; s++)
        for (const cJSON *k = sides[s] ? sides[s]->child : NULL; k; k = k->next) {
            if (s == 1 && get(lb, k->string))
                continue;
            char *ptr = xasprintf("/limits/%s", k->string);
            cmp_limit(out, "constraints", ptr, get(la, k->string), get(lb, k->string),
                      k->string);
            free(ptr);
        }
    const cJSON *ea = get(a, "side_effects"), *eb = get(b, "side_effects");
    char *gone = set_minus(ea, eb), *added = set_minus(eb, ea);
    if (added)
        tg_changes_add(out, TG_CHANGE_POSSIBLY_BREAKING, "constraints", "/side_effects",
                       "new side effects: %s", added);
    if (gone)
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "constraints", "/side_effects",
                       "side effects no longer declared: %s", gone);
    free(gone);
    free(added);
    if (!same(get(a, "notes"), get(b, "notes")))
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "constraints", "/notes", "notes %s",
                       what(get(a, "notes"), get(b, "notes")));
}

static void cmp_error_codes(tg_changes *out, const cJSON *a, const cJSON *b)
{
    char *gone = set_minus(a, b), *added = set_minus(b, a);
    if (added)
        tg_changes_add(out, TG_CHANGE_COMPATIBLE, "error_codes", "",
                       "new error codes the tool may return: %s", added);
    if (gone)
        tg_changes_add(out, TG_CHANGE_COMPATIBLE, "error_codes", "",
                       "error codes no longer returned: %s", gone);
    free(gone);
    free(added);
}

/* Named lists (examples, tests): by name, so that a reordering is not a change. */
static void cmp_named_list(tg_changes *out, const char *area, const cJSON *a, const cJSON *b)
{
    const cJSON *sides[2] = {b, a};
    for (int s = 0; s < 2; s++)
        for (const cJSON *e = cJSON_IsArray(sides[s]) ? sides[s]->child : NULL; e; e = e->next) {
            const char *name = tg_json_get_string(e, "name");
            const cJSON *other = NULL;
            for (const cJSON *o = cJSON_IsArray(sides[1 - s]) ? sides[1 - s]->child : NULL;
                 name && o && !other; o = o->next)
                if (tg_json_get_string(o, "name") && strcmp(tg_json_get_string(o, "name"), name) == 0)
                    other = o;
            if ((s == 1 && other) || (other && cJSON_Compare(e, other, true)))
                continue;
            tg_buf p = TG_BUF_INIT;
            if (name) {
                tg_buf_putc(&p, '/');
                tg_buf_pointer_token(&p, name);
            }
            tg_changes_add(out, TG_CHANGE_INFORMATIONAL, area, p.data, "%s \"%s\" %s",
                           strcmp(area, "tests") == 0 ? "test" : "example",
                           name ? name : "(unnamed)", !other ? (s == 0 ? "added" : "removed")
                                                             : "changed");
            tg_buf_free(&p);
        }
}

static void cmp_docs(tg_changes *out, const cJSON *a, const cJSON *b)
{
    const cJSON *sides[2] = {b, a};
    for (int s = 0; s < 2; s++)
        for (const cJSON *k = cJSON_IsObject(sides[s]) ? sides[s]->child : NULL; k; k = k->next) {
            const cJSON *other = get(sides[1 - s], k->string);
            if ((s == 1 && other) || (other && cJSON_Compare(k, other, true)))
                continue;
            char *p = xasprintf("/%s", k->string);
            tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "docs", p, "docs.%s %s", k->string,
                           !other ? (s == 0 ? "added" : "removed") : "changed");
            free(p);
        }
}

static void cmp_implementation(tg_changes *out, const cJSON *a, const cJSON *b,
                               const char *ida, const char *idb)
{
    const cJSON *sides[2] = {b, a};
    for (int s = 0; s < 2; s++)
        for (const cJSON *k = cJSON_IsObject(sides[s]) ? sides[s]->child : NULL; k; k = k->next) {
            const cJSON *other = get(sides[1 - s], k->string);
            if ((s == 1 && other) || (other && cJSON_Compare(k, other, true)))
                continue;
            const cJSON *x = s == 0 ? other : k, *y = s == 0 ? k : other;
            char *p = xasprintf("/%s", k->string);
            char *sx = x ? tg_json_print_compact(x) : xstrdup("-");
            char *sy = y ? tg_json_print_compact(y) : xstrdup("-");
            if (strlen(sx) > 60)
                strcpy(sx + 56, "...");
            if (strlen(sy) > 60)
                strcpy(sy + 56, "...");
            tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "implementation", p, "%s: %s -> %s",
                           k->string, sx, sy);
            free(p);
            free(sx);
            free(sy);
        }
    if (strcmp(ida, idb) != 0)
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "implementation", "",
                       "code changed (blob %.10s -> %.10s)", ida[0] ? ida : "none",
                       idb[0] ? idb : "none");
}

/* Fields with their own comparison above, and version, which the policy judges. */
static const char *const special[] = {
    "version", "input_schema", "output_schema", "error_codes", "constraints", "examples",
    "tests", "docs", "implementation", "status", "timeout_ms", "idempotency", NULL};

bool tg_review_area_unversioned(const char *area)
{
    return strcmp(area, TG_REVIEW_AREA_STATUS) == 0 || strcmp(area, TG_REVIEW_AREA_VERSION) == 0;
}

void tg_review_ir_diff(const cJSON *a, const cJSON *b, const char *impl_a, const char *impl_b,
                       tg_changes *out)
{
    tg_review_schema(get(a, "input_schema"), get(b, "input_schema"), TG_SIDE_INPUT,
                     "input_schema", out);
    tg_review_schema(get(a, "output_schema"), get(b, "output_schema"), TG_SIDE_OUTPUT,
                     "output_schema", out);
    cmp_error_codes(out, get(a, "error_codes"), get(b, "error_codes"));
    cmp_constraints(out, get(a, "constraints"), get(b, "constraints"));
    cmp_limit(out, "timeout_ms", "", get(a, "timeout_ms"), get(b, "timeout_ms"), "timeout_ms");
    const char *ia = tg_json_get_string(a, "idempotency"), *ib = tg_json_get_string(b, "idempotency");
    if (!same(get(a, "idempotency"), get(b, "idempotency")))
        tg_changes_add(out, TG_CHANGE_POSSIBLY_BREAKING, "idempotency", "",
                       "idempotency changed from %s to %s: callers that retry may be affected",
                       ia ? ia : "-", ib ? ib : "-");
    cmp_docs(out, get(a, "docs"), get(b, "docs"));
    cmp_named_list(out, "examples", get(a, "examples"), get(b, "examples"));
    cmp_named_list(out, "tests", get(a, "tests"), get(b, "tests"));
    cmp_implementation(out, get(a, "implementation"), get(b, "implementation"), impl_a, impl_b);
    const char *va = tg_json_get_string(a, "version"), *vb = tg_json_get_string(b, "version");
    if (!same(get(a, "version"), get(b, "version")))
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, TG_REVIEW_AREA_VERSION, "",
                       "version %s -> %s", va ? va : "-", vb ? vb : "-");
    const char *sa = tg_json_get_string(a, "status"), *sb = tg_json_get_string(b, "status");
    if (!same(get(a, "status"), get(b, "status")))
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, TG_REVIEW_AREA_STATUS, "",
                       "lifecycle state %s -> %s", sa ? sa : "-", sb ? sb : "-");
    const cJSON *sides[2] = {b, a};
    for (int s = 0; s < 2; s++)
        for (const cJSON *k = sides[s]->child; k; k = k->next) {
            const cJSON *other = get(sides[1 - s], k->string);
            if (tg_strlist_has(special, k->string) || (s == 1 && other) ||
                (other && cJSON_Compare(k, other, true)))
                continue;
            tg_changes_add(out, TG_CHANGE_INFORMATIONAL, k->string, "", "%s %s", k->string,
                           !other ? (s == 0 ? "added" : "removed") : "changed");
        }
    tg_changes_sort(out);
}
