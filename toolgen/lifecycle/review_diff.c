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

/* The change reported for one side of a set difference: its class, and the message's text
 * before and after the entries. */
typedef struct set_change {
    tg_change_class cls;
    const char *head, *tail;
} set_change;

/* One change for the entries b added to a, one for those it removed; none when they are
 * the same set. */
static void cmp_set(tg_changes *out, const char *area, const char *ptr, const cJSON *a,
                    const cJSON *b, set_change added, set_change gone)
{
    char *gone_list = set_minus(a, b), *added_list = set_minus(b, a);
    if (added_list)
        tg_changes_add(out, added.cls, area, ptr, "%s%s%s", added.head, added_list, added.tail);
    if (gone_list)
        tg_changes_add(out, gone.cls, area, ptr, "%s%s%s", gone.head, gone_list, gone.tail);
    free(gone_list);
    free(added_list);
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
    cmp_set(out, "constraints", ptr, a, b,
            (set_change){TG_CHANGE_COMPATIBLE, "allowed_paths now include ", ""},
            (set_change){TG_CHANGE_BREAKING, "allowed_paths no longer include ",
                         ": calls with such paths are refused"});
}

static void cmp_limit_member(void *out, const char *key, const cJSON *a, const cJSON *b)
{
    char *ptr = xasprintf("/limits/%s", key);
    cmp_limit(out, "constraints", ptr, a, b, key);
    free(ptr);
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
    tg_json_diff_members(get(a, "limits"), get(b, "limits"), cmp_limit_member, out);
    cmp_set(out, "constraints", "/side_effects", get(a, "side_effects"), get(b, "side_effects"),
            (set_change){TG_CHANGE_POSSIBLY_BREAKING, "new side effects: ", ""},
            (set_change){TG_CHANGE_INFORMATIONAL, "side effects no longer declared: ", ""});
    if (!same(get(a, "notes"), get(b, "notes")))
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "constraints", "/notes", "notes %s",
                       what(get(a, "notes"), get(b, "notes")));
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

static void cmp_doc_member(void *out, const char *key, const cJSON *a, const cJSON *b)
{
    char *p = xasprintf("/%s", key);
    tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "docs", p, "docs.%s %s", key, what(a, b));
    free(p);
}

static void cmp_implementation_member(void *out, const char *key, const cJSON *a,
                                      const cJSON *b)
{
    char *p = xasprintf("/%s", key);
    char *sa = a ? tg_json_print_compact(a) : xstrdup("-");
    char *sb = b ? tg_json_print_compact(b) : xstrdup("-");
    if (strlen(sa) > 60)
        strcpy(sa + 56, "...");
    if (strlen(sb) > 60)
        strcpy(sb + 56, "...");
    tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "implementation", p, "%s: %s -> %s", key, sa,
                   sb);
    free(p);
    free(sa);
    free(sb);
}

static void cmp_implementation(tg_changes *out, const cJSON *a, const cJSON *b,
                               const char *ida, const char *idb)
{
    tg_json_diff_members(a, b, cmp_implementation_member, out);
    if (strcmp(ida, idb) != 0)
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, "implementation", "",
                       "code changed (blob %.10s -> %.10s)", ida[0] ? ida : "none",
                       idb[0] ? idb : "none");
}

/* Fields with their own comparison above, and version, which the policy judges. */
static const char *const special[] = {
    "version", "input_schema", "output_schema", "error_codes", "constraints", "examples",
    "tests", "docs", "implementation", "status", "timeout_ms", "idempotency", NULL};

static void cmp_other_member(void *out, const char *key, const cJSON *a, const cJSON *b)
{
    if (!tg_strlist_has(special, key))
        tg_changes_add(out, TG_CHANGE_INFORMATIONAL, key, "", "%s %s", key, what(a, b));
}

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
    cmp_set(out, "error_codes", "", get(a, "error_codes"), get(b, "error_codes"),
            (set_change){TG_CHANGE_COMPATIBLE, "new error codes the tool may return: ", ""},
            (set_change){TG_CHANGE_COMPATIBLE, "error codes no longer returned: ", ""});
    cmp_constraints(out, get(a, "constraints"), get(b, "constraints"));
    cmp_limit(out, "timeout_ms", "", get(a, "timeout_ms"), get(b, "timeout_ms"), "timeout_ms");
    const char *ia = tg_json_get_string(a, "idempotency"), *ib = tg_json_get_string(b, "idempotency");
    if (!same(get(a, "idempotency"), get(b, "idempotency")))
        tg_changes_add(out, TG_CHANGE_POSSIBLY_BREAKING, "idempotency", "",
                       "idempotency changed from %s to %s: callers that retry may be affected",
                       ia ? ia : "-", ib ? ib : "-");
    tg_json_diff_members(get(a, "docs"), get(b, "docs"), cmp_doc_member, out);
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
    tg_json_diff_members(a, b, cmp_other_member, out);
    tg_changes_sort(out);
}
