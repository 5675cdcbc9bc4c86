/*
 * cover.c — a tool's declared reading against a request's reading, part by part (cover.h;
 * docs/generate.md#reuse). Every check fails closed: what the declaration does not say the
 * tool does, it does not do.
 */
#include "gen/cover.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

typedef struct cover {
    const cJSON *decl;     /* x-toolgen-reading */
    const cJSON *props;    /* input_schema.properties */
    const tg_reading *r;
    const tg_dataset *ds;
    size_t nds;
    cJSON *args;
    char *why;
} cover;

static bool fail(cover *c, const char *fmt, ...) TG_PRINTF(2, 3);
static bool fail(cover *c, const char *fmt, ...)
{
    if (!c->why) {
        va_list ap;
        va_start(ap, fmt);
        c->why = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return false;
}

static const char *const parts[] = {"operation", "aggregates", "measures", "groups", "filters",
                                    "date_column", "period", "order", "top_k", "chart",
                                    "derived", "method", "threshold", "window", "bins", "key",
                                    NULL};

/* The property a {param: NAME} names, or NULL (with why) when it is not one. */
static const cJSON *param_prop(cover *c, const char *part, const char *name)
{
    const cJSON *p = name && c->props ? tg_json_get(c->props, name) : NULL;
    if (!p)
        fail(c, "its reading's %s names an argument it does not have: %s", part,
             name ? name : "(none)");
    return p;
}

static const char *prop_type(const cJSON *p)
{
    const char *t = tg_json_get_string(p, "type");
    return t ? t : "";
}

/* The value an argument takes for want: the key of values whose value is want, or want. */
static const char *mapped(const cJSON *values, const char *want)
{
    if (!values)
        return want;
    const cJSON *v;
    cJSON_ArrayForEach(v, values) {
        if (cJSON_IsString(v) && strcmp(v->valuestring, want) == 0)
            return v->string;
    }
    return NULL;
}

/* Does the argument's schema accept the string s (its enum, if any)? */
static bool accepts_string(const cJSON *prop, const char *s)
{
    const cJSON *en = tg_json_get(prop, "enum");
    if (!en)
        return true;
    const cJSON *v;
    cJSON_ArrayForEach(v, en) {
        if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0)
            return true;
    }
    return false;
}

/* Is the fixed list d want: the same strings in the same order, or in any order when the
 * order does not matter (filters all apply; aggregates are columns of one table)? */
static bool same_list(const cJSON *d, const tg_strv *want, bool any_order)
{
    if ((size_t)cJSON_GetArraySize(d) != want->n)
        return false;
    for (size_t i = 0; i < want->n; i++) {
        bool found = false;
        for (size_t j = any_order ? 0 : i; j < (any_order ? want->n : i + 1) && !found; j++) {
            const cJSON *x = cJSON_GetArrayItem(d, (int)j);
            found = cJSON_IsString(x) && strcmp(x->valuestring, want->v[i]) == 0;
        }
        if (!found)
            return false;
    }
    return true;
}

/* A list part (aggregates, measures, groups, filters) against want. */
static bool list_part(cover *c, const char *part, const tg_strv *want)
{
    const cJSON *d = tg_json_get(c->decl, part);
    if (!d)
        return want->n == 0 ? true : fail(c, "it has no %s, the request has %s", part, want->v[0]);
    if (cJSON_IsArray(d)) {
        bool any_order = strcmp(part, "filters") == 0 || strcmp(part, "aggregates") == 0;
        return same_list(d, want, any_order)
                   ? true : fail(c, "its %s are fixed and differ from the request's", part);
    }
    const cJSON *many = tg_json_get(d, "params");
    if (cJSON_IsArray(many)) {
        if ((size_t)cJSON_GetArraySize(many) != want->n)
            return fail(c, "it takes %d %s, the request has %zu", cJSON_GetArraySize(many), part,
                        want->n);
        for (size_t i = 0; i < want->n; i++) {
            const cJSON *n = cJSON_GetArrayItem(many, (int)i);
            const cJSON *p = param_prop(c, part, cJSON_GetStringValue(n));
            if (!p || strcmp(prop_type(p), "string") != 0)
                return p ? fail(c, "its %s argument %s is not a column name", part, n->valuestring) : false;
            cJSON_AddStringToObject(c->args, n->valuestring, want->v[i]);
        }
        return true;
    }
    const char *name = tg_json_get_string(d, "param");
    const cJSON *p = param_prop(c, part, name);
    if (!p)
        return false;
    if (want->n == 0)
        return tg_json_get(p, "default") ? fail(c, "its %s argument %s has a default the request "
                                                   "does not ask for", part, name)
                                         : true;
    const cJSON *values = tg_json_get(d, "values");
    if (strcmp(prop_type(p), "array") == 0) {
        double lo = tg_json_get_number(p, "minItems", 0), hi = tg_json_get_number(p, "maxItems", 1e9);
        if (values || want->n < lo || want->n > hi)
            return fail(c, "its %s argument %s cannot take %zu values", part, name, want->n);
        cJSON *a = cJSON_AddArrayToObject(c->args, name);
        for (size_t i = 0; i < want->n; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(want->v[i]));
        return true;
    }
    const char *arg = want->n == 1 ? mapped(values, want->v[0]) : NULL;
    if (!arg || !accepts_string(p, arg))
        return fail(c, "its %s argument %s cannot say %s", part, name, want->n == 1 ? want->v[0]
                                                                                    : "several");
    cJSON_AddStringToObject(c->args, name, arg);
    return true;
}

/* A text part (operation, date_column, chart, ...) against want (NULL: none). */
static bool text_part(cover *c, const char *part, const char *want)
{
    const cJSON *d = tg_json_get(c->decl, part);
    if (!d)
        return !want ? true : fail(c, "it has no %s, the request has %s", part, want);
    if (cJSON_IsString(d)) {
        if (want && strcmp(d->valuestring, want) == 0)
            return true;
        return fail(c, "its %s is %s, the request's is %s", part, d->valuestring,
                    want ? want : "none");
    }
    const char *name = tg_json_get_string(d, "param");
    const cJSON *p = param_prop(c, part, name);
    if (!p)
        return false;
    if (!want)
        return tg_json_get(p, "default") ? fail(c, "its %s argument %s has a default the request "
                                                   "does not ask for", part, name)
                                         : true;
    const char *arg = mapped(tg_json_get(d, "values"), want);
    if (!arg || !accepts_string(p, arg))
        return fail(c, "its %s argument %s cannot say %s", part, name, want);
    cJSON_AddStringToObject(c->args, name, arg);
    return true;
}

/* A number part (threshold, window, bins) against want (0: none). */
static bool number_part(cover *c, const char *part, double want)
{
    const cJSON *d = tg_json_get(c->decl, part);
    if (!d)
        return want == 0 ? true : fail(c, "it has no %s, the request has %g", part, want);
    if (cJSON_IsNumber(d))
        return fabs(d->valuedouble - want) < 1e-9 ? true
               : fail(c, "its %s is %g, the request's is %g", part, d->valuedouble, want);
    const char *name = tg_json_get_string(d, "param");
    const cJSON *p = param_prop(c, part, name);
    if (!p)
        return false;
    if (want == 0)
        return fail(c, "its %s argument %s always applies, the request has none", part, name);
    if (want < tg_json_get_number(p, "minimum", -1e300) || want > tg_json_get_number(p, "maximum", 1e300))
        return fail(c, "its %s argument %s cannot take %g", part, name, want);
    cJSON_AddNumberToObject(c->args, name, want);
    return true;
}

/* How many groups the result can have at most (product of the keys' distinct counts). */
static double groups_bound(const cover *c)
{
    const tg_strv *keys = c->r->groups.n ? &c->r->groups : &c->r->measures;
    double bound = 1;
    for (size_t k = 0; k < keys->n; k++) {
        double n = 1e12;
        for (size_t i = 0; i < c->ds[0].ncols; i++)
            if (strcmp(c->ds[0].cols[i].name, keys->v[k]) == 0)
                n = (double)c->ds[0].cols[i].distinct + 1; /* + a missing key */
        bound *= n;
    }
    return bound;
}

/* The order of rows and how many are kept: parts only when the request asks. */
static bool ranking_part(cover *c)
{
    const tg_reading *r = c->r;
    const char *order = r->order > 0 ? "desc" : r->order < 0 ? "asc" : NULL;
    /* an unranked request takes any order the tool gives (an order argument keeps its default) */
    if (order && !text_part(c, "order", order))
        return false;
    const cJSON *dk = tg_json_get(c->decl, "top_k");
    if (r->top_k)
        return number_part(c, "top_k", (double)r->top_k);
    if (!dk)
        return true;
    if (cJSON_IsNumber(dk))
        return fail(c, "it keeps only %g rows, the request asks for all", dk->valuedouble);
    const char *name = tg_json_get_string(dk, "param");
    const cJSON *p = param_prop(c, "top_k", name);
    if (!p)
        return false;
    double max = tg_json_get_number(p, "maximum", 0), bound = groups_bound(c);
    if (bound <= tg_json_get_number(p, "default", 0))
        return true; /* its default keeps every row already */
    if (max < 1 || bound > max)
        return fail(c, "it returns at most %g rows (argument %s), the request can have more", max,
                    name);
    cJSON_AddNumberToObject(c->args, name, max);
    return true;
}

/* The tool's path arguments take the data files, in order. */
static bool paths(cover *c)
{
    size_t used = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, c->props) {
        if (!tg_json_get(p, "x-toolgen-path"))
            continue;
        if (used == c->nds) {
            if (tg_json_get(p, "default"))
                return fail(c, "its path argument %s reads a file the request does not name",
                            p->string);
            continue;
        }
        cJSON_AddStringToObject(c->args, p->string, c->ds[used++].path);
    }
    return used == c->nds ? true : fail(c, "it reads %zu file%s, the request names %zu", used,
                                        used == 1 ? "" : "s", c->nds);
}

/* Every required argument has a value in the call. */
static bool required_filled(cover *c, const cJSON *schema)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, tg_json_get(schema, "required")) {
        if (cJSON_IsString(x) && !tg_json_get(c->args, x->valuestring))
            return fail(c, "its required argument %s has no value from the request", x->valuestring);
    }
    return true;
}

static bool known_parts(cover *c)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, c->decl) {
        if (!tg_strlist_has(parts, d->string))
            return fail(c, "its reading declares a part toolgen does not know: %s", d->string);
    }
    return true;
}

static char *period_text(char p)
{
    return p ? xasprintf("%c", p) : NULL;
}

bool tg_cover(const cJSON *input_schema, const tg_reading *r, const tg_dataset *ds, size_t nds,
              cJSON *args, char **why)
{
    cover c = {.decl = tg_json_get(input_schema, "x-toolgen-reading"),
               .props = tg_json_get(input_schema, "properties"), .r = r, .ds = ds, .nds = nds,
               .args = args};
    *why = NULL;
    if (!r->known) {
        *why = xasprintf("the request was not read completely (%s)", r->why ? r->why : "?");
        return false;
    }
    if (!cJSON_IsObject(c.decl)) {
        *why = xstrdup("it does not declare what it computes (x-toolgen-reading)");
        return false;
    }
    char *period = period_text(r->period);
    bool ok = paths(&c) && known_parts(&c) && text_part(&c, "operation", r->operation) &&
              list_part(&c, "aggregates", &r->aggregates) &&
              list_part(&c, "measures", &r->measures) && list_part(&c, "groups", &r->groups) &&
              list_part(&c, "filters", &r->filters) &&
              text_part(&c, "date_column", r->date_column) && text_part(&c, "period", period) &&
              ranking_part(&c) && text_part(&c, "chart", r->chart) &&
              text_part(&c, "derived", r->derived) && text_part(&c, "method", r->method) &&
              number_part(&c, "threshold", r->threshold) &&
              number_part(&c, "window", (double)r->window) &&
              number_part(&c, "bins", (double)r->bins) && text_part(&c, "key", r->key) &&
              required_filled(&c, input_schema);
    free(period);
    *why = c.why;
    return ok;
}
