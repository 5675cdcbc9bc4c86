/* match.c — the output comparator and test expectations (docs/metrics.md, Comparator). */
#include "quality/match.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "schema/jsregex.h"

/* ---- comparator ------------------------------------------------------------------------------ */

bool tg_numbers_match(double a, double b, double tolerance)
{
    if (a == b)
        return true;
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= tolerance * scale;
}

typedef struct matcher {
    const tg_match_opts *o;
    double tol;
    tg_buf path; /* JSON Pointer of the actual value being compared */
    int quiet;   /* > 0 while trying candidate pairings of an unordered array */
    char **why;
} matcher;

/* Compact JSON of v cut to about 80 bytes on a UTF-8 boundary: enough to recognise a value. */
static char *describe(const cJSON *v)
{
    char *s = tg_json_print_compact(v);
    size_t n = strlen(s), cut = 80;
    if (n > cut) {
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
        char *t = xasprintf("%.*s…", (int)cut, s);
        free(s);
        return t;
    }
    return s;
}

static bool fail(matcher *m, const char *fmt, ...) TG_PRINTF(2, 3);

static bool fail(matcher *m, const char *fmt, ...)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, m->path.len ? m->path.data : "/");
    tg_buf_puts(&b, ": ");
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    *m->why = tg_buf_steal(&b);
    return false;
}

/* A failure at member v of the current object: the path names the member, fmt's %s shows v. */
static bool fail_member(matcher *m, const cJSON *v, const char *fmt)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    char *vs = describe(v);
    size_t mark = m->path.len;
    tg_buf_putc(&m->path, '/');
    tg_buf_pointer_token(&m->path, v->string);
    fail(m, fmt, vs);
    tg_buf_truncate(&m->path, mark);
    free(vs);
    return false;
}

static bool fail_values(matcher *m, const cJSON *e, const cJSON *a)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    char *es = describe(e), *as = describe(a);
    fail(m, "expected %s, got %s", es, as);
    free(es);
    free(as);
    return false;
}

static bool fail_type(matcher *m, const char *want, const cJSON *a)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    char *as = describe(a);
    fail(m, "expected %s, got %s", want, as);
    free(as);
    return false;
}

static bool match_value(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode);

static bool is_unordered(const matcher *m)
{
    const char *p = m->path.len ? m->path.data : "";
    for (size_t i = 0; m->o && i < m->o->n_unordered; i++)
        if (m->o->unordered[i] && strcmp(m->o->unordered[i], p) == 0)
            return true;
    return false;
}

static bool skipped_key(const matcher *m, const char *key)
{
    return m->o && m->o->ignore_summary && m->path.len == 0 && strcmp(key, "summary_markdown") == 0;
}

static bool match_child(matcher *m, const char *key, size_t index, const cJSON *e, const cJSON *a,
                        tg_match_mode mode)
{
    size_t mark = m->path.len;
    tg_buf_putc(&m->path, '/');
    if (key)
        tg_buf_pointer_token(&m->path, key);
    else
        tg_buf_printf(&m->path, "%zu", index);
    bool ok = match_value(m, e, a, mode);
    tg_buf_truncate(&m->path, mark);
    return ok;
}

static bool match_object(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    if (!cJSON_IsObject(a))
        return fail_type(m, "an object", a);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, e)
    {
        if (skipped_key(m, ev->string))
            continue;
        const cJSON *av = cJSON_GetObjectItemCaseSensitive(a, ev->string);
        if (!av)
            return fail_member(m, ev, "missing (expected %s)");
        if (!match_child(m, ev->string, 0, ev, av, mode))
            return false;
    }
    if (mode == TG_MATCH_CONTAINS)
        return true;
    const cJSON *av;
    cJSON_ArrayForEach(av, a)
    {
        if (skipped_key(m, av->string) || cJSON_GetObjectItemCaseSensitive(e, av->string))
            continue;
        return fail_member(m, av, "unexpected member (value %s)");
    }
    return true;
}

/* Elements of an array as a plain vector, for indexed access (cJSON arrays are lists). */
static const cJSON **array_items(const cJSON *a, size_t *n)
{
    *n = (size_t)cJSON_GetArraySize(a);
    const cJSON **v = xmalloc((*n + 1) * sizeof *v);
    size_t i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) v[i++] = x;
    return v;
}

/* Above this many element pairs the unordered match is greedy rather than maximal. */
#define MAX_PAIR_MATRIX 4000000u

typedef struct bipartite {
    matcher *m;
    tg_match_mode mode;
    const cJSON **e, **a;
    size_t ne, na;
    unsigned char *pair; /* 0 unknown, 1 match, 2 no match (memo: comparisons can be deep) */
    long *owner;         /* owner[j]: expected index matched to actual j, or -1 */
    unsigned char *seen;
} bipartite;

static bool pair_matches(bipartite *b, size_t i, size_t j)
{
    unsigned char *p = b->pair ? &b->pair[i * b->na + j] : NULL;
    if (p && *p)
        return *p == 1;
    b->m->quiet++;
    bool ok = match_child(b->m, NULL, j, b->e[i], b->a[j], b->mode);
    b->m->quiet--;
    if (p)
        *p = ok ? 1 : 2;
    return ok;
}

/* Kuhn's augmenting path; tries actual j == i first, since most "unordered" arrays are in order
 * anyway. Greedy (no re-assignment) when the pair matrix would be too big. */
static bool augment(bipartite *b, size_t i)
{
    for (size_t k = 0; k < b->na; k++) {
        size_t j = (i + k) % b->na;
        if (b->seen[j] || !pair_matches(b, i, j))
            continue;
        b->seen[j] = 1;
        if (b->owner[j] < 0 || (b->pair && augment(b, (size_t)b->owner[j]))) {
            b->owner[j] = (long)i;
            return true;
        }
    }
    return false;
}

static bool match_unordered(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    bipartite b = {.m = m, .mode = mode};
    b.e = array_items(e, &b.ne);
    b.a = array_items(a, &b.na);
    bool ok = true;
    if (mode == TG_MATCH_EQUAL && b.ne != b.na)
        ok = fail(m, "expected %zu items (in any order), got %zu", b.ne, b.na);
    else if (b.ne > b.na)
        ok = fail(m, "expected at least %zu items, got %zu", b.ne, b.na);
    if (ok && b.ne > 0) {
        if (b.ne * b.na <= MAX_PAIR_MATRIX)
            b.pair = xcalloc(b.ne * b.na, 1);
        b.owner = xmalloc(b.na * sizeof *b.owner);
        b.seen = xmalloc(b.na);
        for (size_t j = 0; j < b.na; j++)
            b.owner[j] = -1;
        for (size_t i = 0; ok && i < b.ne; i++) {
            memset(b.seen, 0, b.na);
            if (!augment(&b, i)) {
                char *es = describe(b.e[i]);
                ok = fail(m,
                          "no element of the array (order ignored) matches expected item %zu: "
                          "%s",
                          i, es);
                free(es);
            }
        }
    }
    free(b.pair);
    free(b.owner);
    free(b.seen);
    free(b.e);
    free(b.a);
    return ok;
}

static bool match_array(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    if (!cJSON_IsArray(a))
        return fail_type(m, "an array", a);
    if (is_unordered(m))
        return match_unordered(m, e, a, mode);
    int ne = cJSON_GetArraySize(e), na = cJSON_GetArraySize(a);
    if (ne != na)
        return fail(m, "expected %d items, got %d", ne, na);
    const cJSON *ev = e->child, *av = a->child;
    for (size_t i = 0; ev && av; i++, ev = ev->next, av = av->next)
        if (!match_child(m, NULL, i, ev, av, mode))
            return false;
    return true;
}

static bool match_scalar(matcher *m, const cJSON *e, const cJSON *a)
{
    bool ok;
    if (cJSON_IsNumber(e) && cJSON_IsNumber(a))
        ok = tg_numbers_match(e->valuedouble, a->valuedouble, m->tol);
    else if (cJSON_IsString(e) && cJSON_IsString(a))
        ok = strcmp(e->valuestring, a->valuestring) == 0;
    else /* null, true, false, or two different types (1 never equals true or "1") */
        ok = (e->type & 0xFF) == (a->type & 0xFF);
    if (ok)
        return true;
    if (cJSON_IsNumber(e) && cJSON_IsNumber(a) && m->tol > 0 &&
        tg_numbers_match(e->valuedouble, a->valuedouble, 1e-3)) {
        /* Nearly equal values: the reader needs the tolerance to see why they differ. */
        char *es = describe(e), *as = describe(a);
        fail(m, "expected %s, got %s (tolerance %g)", es, as, m->tol);
        free(es);
        free(as);
        return false;
    }
    return fail_values(m, e, a);
}

static bool match_value(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    if (cJSON_IsObject(e))
        return match_object(m, e, a, mode);
    if (cJSON_IsArray(e))
        return match_array(m, e, a, mode);
    return match_scalar(m, e, a);
}

bool tg_json_match(const cJSON *expected, const cJSON *actual, tg_match_mode mode,
                   const tg_match_opts *opts, char **why)
{
    if (why)
        *why = NULL;
    matcher m = {.o = opts, .tol = TG_DEFAULT_TOLERANCE, .why = why};
    if (opts && opts->tolerance >= 0)
        m.tol = opts->tolerance;
    bool ok = expected && actual ? match_value(&m, expected, actual, mode)
                                 : fail(&m, "%s", expected ? "no value" : "no expectation");
    tg_buf_free(&m.path);
    if (!ok && why && !*why)
        *why = xstrdup("/: values differ");
    return ok;
}

/* ---- test expectations ----------------------------------------------------------------------- */

/* Sets *why (when wanted) and returns 0: a failed check. */
static int check_fail(char **why, const char *fmt, ...) TG_PRINTF(2, 3);

static int check_fail(char **why, const char *fmt, ...)
{
    if (why) {
        va_list ap;
        va_start(ap, fmt);
        *why = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int expect_strings(const cJSON *list, const char *key, tg_err *err)
{
    bool ok = !list || cJSON_IsArray(list);
    const cJSON *s;
    for (s = ok && list ? list->child : NULL; s && ok; s = s->next)
        ok = cJSON_IsString(s);
    return ok ? 0 : tg_err_set(err, "expect/%s: must be an array of strings", key);
}

/* The first string of list not found in text, or NULL. */
static const char *first_missing(const cJSON *list, const char *text)
{
    for (const cJSON *s = list ? list->child : NULL; s; s = s->next)
        if (!strstr(text, s->valuestring))
            return s->valuestring;
    return NULL;
}

static int check_error(const cJSON *expect, const cJSON *code, const tg_call_outcome *call,
                       char **why, tg_err *err)
{
    const cJSON *mc = cJSON_GetObjectItemCaseSensitive(expect, "message_contains");
    if (!cJSON_IsString(code))
        return tg_err_set(err, "expect/error: must be an error code string");
    if (expect_strings(mc, "message_contains", err))
        return -1;
    if (call->ok)
        return check_fail(why, "expected error %s, but the call succeeded", code->valuestring);
    const char *got = call->error_code ? call->error_code : "(no code)";
    const char *msg = call->message ? call->message : "";
    if (strcmp(got, code->valuestring) != 0)
        return check_fail(why, "expected error %s, got %s: %s", code->valuestring, got, msg);
    const char *missing = first_missing(mc, msg);
    if (missing)
        return check_fail(why, "error message \"%s\" does not contain \"%s\"", msg, missing);
    return 1;
}

/* tolerance and unordered of an expect block into opts; ptrs is owned by the caller. */
static int expect_opts(const cJSON *expect, tg_match_opts *o, const char ***ptrs, tg_err *err)
{
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(expect, "tolerance");
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(expect, "unordered");
    *o = (tg_match_opts){.tolerance = TG_DEFAULT_TOLERANCE};
    *ptrs = NULL;
    if (tol && (!cJSON_IsNumber(tol) || !(tol->valuedouble >= 0)))
        return tg_err_set(err, "expect/tolerance: must be a number >= 0");
    if (tol)
        o->tolerance = tol->valuedouble;
    if (expect_strings(un, "unordered", err))
        return -1;
    size_t n = un ? (size_t)cJSON_GetArraySize(un) : 0, i = 0;
    *ptrs = xcalloc(n + 1, sizeof **ptrs);
    for (const cJSON *p = un ? un->child : NULL; p; p = p->next)
        (*ptrs)[i++] = p->valuestring;
    o->unordered = *ptrs;
    o->n_unordered = n;
    return 0;
}

static int check_output(const cJSON *expect, const char *key, tg_match_mode mode,
                        const tg_match_opts *o, const cJSON *result, char **why, tg_err *err)
{
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(expect, key);
    if (!want)
        return 1;
    if (!cJSON_IsObject(want))
        return tg_err_set(err, "expect/%s: must be an object", key);
    char *diff = NULL;
    if (tg_json_match(want, result, mode, o, why ? &diff : NULL))
        return 1;
    check_fail(why, "%s: %s", key, diff ? diff : "differs");
    free(diff);
    return 0;
}

static int check_regex(const char *pattern, const char *text, char **why, tg_err *err)
{
    char msg[256];
    pcre2_code *re = js_regex_compile(pattern, msg, sizeof msg);
    if (!re)
        return tg_err_set(err, "expect/text_matches: invalid regular expression: %s", msg);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    bool found = js_regex_search(re, text, md);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return found ? 1 : check_fail(why, "summary_markdown does not match /%s/", pattern);
}

static int check_text(const cJSON *expect, const cJSON *result, char **why, tg_err *err)
{
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(expect, "text_contains");
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(expect, "text_matches");
    if (expect_strings(tc, "text_contains", err))
        return -1;
    if (tm && !cJSON_IsString(tm))
        return tg_err_set(err, "expect/text_matches: must be a string");
    const char *text =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "summary_markdown"));
    if ((tc || tm) && !text)
        return check_fail(why, "the result has no summary_markdown text to check");
    const char *missing = first_missing(tc, text);
    if (missing)
        return check_fail(why, "summary_markdown does not contain \"%s\"", missing);
    return tm ? check_regex(tm->valuestring, text, why, err) : 1;
}

static int check_artifacts(const cJSON *expect, const tg_call_outcome *call, char **why,
                           tg_err *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(expect, "artifacts"), *s;
    if (expect_strings(list, "artifacts", err))
        return -1;
    cJSON_ArrayForEach(s, list)
    {
        bool found = false;
        for (size_t i = 0; !found && i < call->n_artifacts; i++)
            found = call->artifacts[i] && strcmp(call->artifacts[i], s->valuestring) == 0;
        if (!found)
            return check_fail(why, "artifact %s was not written (%zu file(s) were)", s->valuestring,
                              call->n_artifacts);
    }
    return 1;
}

static int check_result(const cJSON *expect, const tg_call_outcome *call, char **why, tg_err *err)
{
    if (!call->ok)
        return check_fail(why, "the call failed with %s: %s",
                          call->error_code ? call->error_code : "(no code)",
                          call->message ? call->message : "");
    if (!call->schema_ok) /* output_schema is always checked, schema_valid or not */
        return check_fail(why, "the result does not fit output_schema: %s",
                          call->schema_error ? call->schema_error : "invalid");
    tg_match_opts o;
    const char **ptrs;
    int rc = expect_opts(expect, &o, &ptrs, err);
    if (rc == 0)
        rc = check_output(expect, "output", TG_MATCH_EQUAL, &o, call->result, why, err);
    if (rc == 1)
        rc = check_output(expect, "output_contains", TG_MATCH_CONTAINS, &o, call->result, why, err);
    free(ptrs);
    if (rc == 1)
        rc = check_text(expect, call->result, why, err);
    if (rc == 1)
        rc = check_artifacts(expect, call, why, err);
    return rc;
}

int tg_expect_check(const cJSON *expect, const tg_call_outcome *call, char **why, tg_err *err)
{
    if (why)
        *why = NULL;
    if (!cJSON_IsObject(expect))
        return tg_err_set(err, "expect: must be an object");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(expect, "error");
    if (code)
        return check_error(expect, code, call, why, err);
    return check_result(expect, call, why, err);
}

/* One input: both results equal, or both failures with the same code. */
static bool agree(const tg_call_outcome *g, const tg_call_outcome *r, const tg_match_opts *o,
                  char **why)
{
    const char *gc = g->error_code ? g->error_code : "(no code)";
    const char *rc = r->error_code ? r->error_code : "(no code)";
    if (g->ok && r->ok)
        return tg_json_match(r->result, g->result, TG_MATCH_EQUAL, o, why);
    if (!g->ok && !r->ok && strcmp(gc, rc) == 0)
        return true;
    if (why) {
        if (!g->ok && !r->ok)
            *why = xasprintf("generated failed with %s, reference with %s", gc, rc);
        else if (!g->ok)
            *why = xasprintf("generated failed with %s: %s; the reference succeeded", gc,
                             g->message ? g->message : "");
        else
            *why = xasprintf("the reference failed with %s; generated succeeded", rc);
    }
    return false;
}

int tg_reference_agreement(const tg_call_outcome *generated, const tg_call_outcome *reference,
                           size_t n, const tg_match_opts *opts, double *out, char **why,
                           tg_err *err)
{
    if (why)
        *why = NULL;
    if (n == 0)
        return tg_err_set(err, "reference comparison: no inputs to compare on");
    size_t same = 0;
    for (size_t i = 0; i < n; i++) {
        char *diff = NULL;
        bool first_diff = why && !*why;
        if (agree(&generated[i], &reference[i], opts, first_diff ? &diff : NULL))
            same++;
        else if (first_diff)
            *why = xasprintf("input %zu: %s", i, diff ? diff : "outputs differ");
        free(diff);
    }
    *out = (double)same / (double)n;
    return 0;
}

