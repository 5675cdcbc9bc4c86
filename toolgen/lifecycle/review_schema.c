/* review_schema.c — classify the change between two JSON Schemas (docs/review.md). */
#include "lifecycle/review_schema.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "schema/jsonschema.h"

/* ---- the change list ---- */

static const char *const class_names[] = {"breaking", "possibly breaking", "compatible",
                                          "informational", "none"};

const char *tg_change_class_name(tg_change_class c)
{
    return class_names[c <= TG_CHANGE_NONE ? c : TG_CHANGE_NONE];
}

void tg_changes_add(tg_changes *c, tg_change_class cls, const char *area, const char *pointer,
                    const char *fmt, ...)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 8;
        c->v = xrealloc(c->v, c->cap * sizeof *c->v);
    }
    va_list ap;
    va_start(ap, fmt);
    c->v[c->n++] = (tg_change){cls, xstrdup(area), xstrdup(pointer), xvasprintf(fmt, ap)};
    va_end(ap);
}

static int change_cmp(const void *pa, const void *pb)
{
    const tg_change *a = pa, *b = pb;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    int r = strcmp(a->area, b->area);
    if (r)
        return r;
    r = strcmp(a->pointer, b->pointer);
    return r ? r : strcmp(a->message, b->message);
}

void tg_changes_sort(tg_changes *c)
{
    if (c->n > 1)
        qsort(c->v, c->n, sizeof *c->v, change_cmp);
}

tg_change_class tg_changes_worst(const tg_changes *c)
{
    tg_change_class w = TG_CHANGE_NONE;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].cls < w)
            w = c->v[i].cls;
    return w;
}

void tg_changes_free(tg_changes *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].area);
        free(c->v[i].pointer);
        free(c->v[i].message);
    }
    free(c->v);
    *c = (tg_changes){0};
}

/* ---- $ref inlining ---- */

#define MAX_INLINE_DEPTH 32

/* Keywords whose value is a schema, a map of schemas, or an array of schemas. */
static const char *const schema_kw[] = {"items", "additionalProperties", "propertyNames",
                                        "contains", "not", "if", "then", "else",
                                        "unevaluatedItems", "unevaluatedProperties",
                                        "additionalItems", "contentSchema", NULL};
static const char *const schema_map_kw[] = {"properties", "patternProperties",
                                            "dependentSchemas", NULL};
static const char *const schema_list_kw[] = {"prefixItems", "allOf", "anyOf", "oneOf", NULL};

typedef struct inliner {
    const cJSON *root;
    const char *stack[MAX_INLINE_DEPTH]; /* the $refs being expanded: a repeat is recursion */
    int depth;
} inliner;

static cJSON *inline_node(inliner *in, const cJSON *node);

static bool on_stack(const inliner *in, const char *ref)
{
    for (int i = 0; i < in->depth; i++)
        if (strcmp(in->stack[i], ref) == 0)
            return true;
    return false;
}

/* The inlined value of keyword kw: subschemas are inlined, anything else is copied. */
static cJSON *inline_value(inliner *in, const char *kw, const cJSON *k)
{
    if (tg_strlist_has(schema_kw, kw))
        return inline_node(in, k);
    bool list = tg_strlist_has(schema_list_kw, kw) && cJSON_IsArray(k);
    if (!list && !(tg_strlist_has(schema_map_kw, kw) && cJSON_IsObject(k)))
        return cJSON_Duplicate(k, true);
    cJSON *v = list ? cJSON_CreateArray() : cJSON_CreateObject();
    for (const cJSON *s = k->child; s; s = s->next) {
        if (list)
            cJSON_AddItemToArray(v, inline_node(in, s));
        else
            cJSON_AddItemToObject(v, s->string, inline_node(in, s));
    }
    return v;
}

static bool is_defs(const char *kw)
{
    return strcmp(kw, "$defs") == 0 || strcmp(kw, "definitions") == 0;
}

/* A local $ref: the copy of its target, with the $ref's siblings the target lacks. */
static cJSON *inline_ref(inliner *in, const cJSON *node, const char *ref)
{
    const cJSON *target = tg_json_pointer_get(in->root, ref + 1);
    if (!target || on_stack(in, ref) || in->depth == MAX_INLINE_DEPTH)
        return NULL;
    in->stack[in->depth++] = ref;
    cJSON *r = inline_node(in, target);
    in->depth--;
    if (cJSON_IsTrue(r)) {
        cJSON_Delete(r);
        r = cJSON_CreateObject();
    }
    if (!cJSON_IsObject(r))
        return r;
    for (const cJSON *k = node->child; k; k = k->next)
        if (strcmp(k->string, "$ref") != 0 && !is_defs(k->string) &&
            !cJSON_GetObjectItemCaseSensitive(r, k->string))
            cJSON_AddItemToObject(r, k->string, inline_value(in, k->string, k));
    return r;
}

static cJSON *inline_node(inliner *in, const cJSON *node)
{
    if (!cJSON_IsObject(node))
        return cJSON_Duplicate(node, true);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(node, "$ref");
    if (cJSON_IsString(ref) && ref->valuestring[0] == '#' &&
        (ref->valuestring[1] == '\0' || ref->valuestring[1] == '/')) {
        cJSON *r = inline_ref(in, node, ref->valuestring);
        if (r)
            return r;
    }
    cJSON *out = cJSON_CreateObject();
    for (const cJSON *k = node->child; k; k = k->next)
        if (!is_defs(k->string))
            cJSON_AddItemToObject(out, k->string, inline_value(in, k->string, k));
    return out;
}

cJSON *tg_schema_inline_refs(const cJSON *schema)
{
    inliner in = {.root = schema};
    return inline_node(&in, schema);
}

/* ---- comparison ---- */

typedef struct cmp {
    tg_schema_side side;
    const char *area;
    tg_changes *out;
} cmp;

typedef enum effect { NARROWED, WIDENED, CHANGED, UNDECIDED, ANNOTATION, ADDED_MEMBER } effect;

/* The class of an effect on this side: what accepts less breaks a sender, what produces more
 * breaks a reader; a new optional member breaks neither. */
static tg_change_class class_of(const cmp *c, effect e)
{
    switch (e) {
    case NARROWED:
        return c->side == TG_SIDE_INPUT ? TG_CHANGE_BREAKING : TG_CHANGE_COMPATIBLE;
    case WIDENED:
        return c->side == TG_SIDE_INPUT ? TG_CHANGE_COMPATIBLE : TG_CHANGE_BREAKING;
    case CHANGED:
        return TG_CHANGE_BREAKING;
    case UNDECIDED:
        return TG_CHANGE_POSSIBLY_BREAKING;
    case ADDED_MEMBER:
        return TG_CHANGE_COMPATIBLE;
    case ANNOTATION:
        break;
    }
    return TG_CHANGE_INFORMATIONAL;
}

static void report(const cmp *c, effect e, const char *ptr, const char *fmt, ...)
    TG_PRINTF(4, 5);
static void report(const cmp *c, effect e, const char *ptr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    tg_changes_add(c->out, class_of(c, e), c->area, ptr, "%s", msg);
    free(msg);
}

static char *ptr_join(const char *ptr, const char *token)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, ptr);
    tg_buf_putc(&b, '/');
    tg_buf_pointer_token(&b, token);
    return tg_buf_steal(&b);
}

static char *ptr_index(const char *ptr, const char *kw, int i)
{
    return xasprintf("%s/%s/%d", ptr, kw, i);
}

/* A short JSON rendering of a value for messages. */
static char *show(const cJSON *v)
{
    if (!v)
        return xstrdup("(absent)");
    char *s = tg_json_print_compact(v);
    if (strlen(s) > 80) {
        strcpy(s + 76, "...");
    }
    return s;
}

/* kw's values in a and b (NULL when absent); false when it did not change: absent from both,
 * or equal. */
static bool kw_changed(const cJSON *a, const cJSON *b, const char *kw, const cJSON **x,
                       const cJSON **y)
{
    *x = cJSON_GetObjectItemCaseSensitive(a, kw);
    *y = cJSON_GetObjectItemCaseSensitive(b, kw);
    return !((!*x && !*y) || (*x && *y && cJSON_Compare(*x, *y, true)));
}

/* One changed keyword, ready for its messages; kw_free releases it. */
typedef struct kwdiff {
    const char *kw;
    const cJSON *x, *y; /* before and after, NULL when absent */
    char *p;            /* the keyword's pointer */
    char *sx, *sy;      /* x and y shown */
} kwdiff;

static kwdiff kw_at(const char *ptr, const char *kw, const cJSON *x, const cJSON *y)
{
    return (kwdiff){kw, x, y, xasprintf("%s/%s", ptr, kw), show(x), show(y)};
}

static void kw_free(kwdiff *d)
{
    free(d->p);
    free(d->sx);
    free(d->sy);
}

/* A constraint added narrows and one removed widens: reports that, or returns false when the
 * keyword is on both sides. */
static bool report_added_removed(const cmp *c, const kwdiff *d)
{
    if (!d->x)
        report(c, NARROWED, d->p, "%s %s added", d->kw, d->sy);
    else if (!d->y)
        report(c, WIDENED, d->p, "%s %s removed", d->kw, d->sx);
    else
        return false;
    return true;
}

static void compare(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr);

/* The types a schema allows, as a bit set; integer is a subset of number. */
enum { T_NULL = 1, T_BOOL = 2, T_OBJECT = 4, T_ARRAY = 8, T_NUMBER = 16, T_STRING = 32,
       T_INTEGER = 64, T_ALL = 127 };

static unsigned type_bit(const char *s)
{
    static const char *const names[] = {"null", "boolean", "object", "array", "number",
                                        "string", "integer", NULL};
    int i = tg_strlist_index(names, s);
    return i < 0 ? 0 : 1u << i;
}

static unsigned type_set(const cJSON *t)
{
    unsigned m = 0;
    if (!t)
        return T_ALL;
    if (cJSON_IsString(t))
        m = type_bit(t->valuestring);
    for (const cJSON *e = cJSON_IsArray(t) ? t->child : NULL; e; e = e->next)
        if (cJSON_IsString(e))
            m |= type_bit(e->valuestring);
    if (m & T_NUMBER)
        m |= T_INTEGER;
    return m;
}

static void cmp_type(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    unsigned ta = type_set(cJSON_GetObjectItemCaseSensitive(a, "type"));
    unsigned tb = type_set(cJSON_GetObjectItemCaseSensitive(b, "type"));
    if (ta == tb)
        return;
    kwdiff d = kw_at(ptr, "type", cJSON_GetObjectItemCaseSensitive(a, "type"),
                     cJSON_GetObjectItemCaseSensitive(b, "type"));
    effect e = (tb & ta) == tb ? NARROWED : (ta & tb) == ta ? WIDENED : CHANGED;
    report(c, e, d.p, "type %s from %s to %s",
           e == NARROWED ? "narrowed" : e == WIDENED ? "widened" : "changed", d.sx, d.sy);
    kw_free(&d);
}

/* enum and const as one set of allowed values; NULL when unconstrained. */
static cJSON *allowed_values(const cJSON *s)
{
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
    const cJSON *co = cJSON_GetObjectItemCaseSensitive(s, "const");
    if (co) {
        cJSON *r = cJSON_CreateArray();
        cJSON_AddItemToArray(r, cJSON_Duplicate(co, true));
        return r;
    }
    return cJSON_IsArray(en) ? cJSON_Duplicate(en, true) : NULL;
}

static bool array_contains(const cJSON *arr, const cJSON *v)
{
    for (const cJSON *e = arr ? arr->child : NULL; e; e = e->next)
        if (cJSON_Compare(e, v, true))
            return true;
    return false;
}

/* The members of x missing from y, rendered for a message; NULL when none. */
static char *missing_values(const cJSON *x, const cJSON *y)
{
    tg_buf b = TG_BUF_INIT;
    for (const cJSON *e = x->child; e; e = e->next)
        if (!array_contains(y, e)) {
            char *s = show(e);
            tg_buf_printf(&b, "%s%s", b.len ? ", " : "", s);
            free(s);
        }
    return b.len ? tg_buf_steal(&b) : NULL;
}

static void cmp_enum(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    cJSON *va = allowed_values(a), *vb = allowed_values(b);
    const char *kw = cJSON_GetObjectItemCaseSensitive(b, "const") ||
                             (!vb && cJSON_GetObjectItemCaseSensitive(a, "const"))
                         ? "const"
                         : "enum";
    char *p = xasprintf("%s/%s", ptr, kw);
    if (!va && vb) {
        report(c, NARROWED, p, "values restricted to %s", kw);
    } else if (va && !vb) {
        report(c, WIDENED, p, "%s removed: any value of the type is allowed", kw);
    } else if (va && vb) {
        char *gone = missing_values(va, vb), *added = missing_values(vb, va);
        if (gone)
            report(c, NARROWED, p, "%s no longer allows %s", kw, gone);
        if (added)
            report(c, WIDENED, p, "%s now also allows %s", kw, added);
        free(gone);
        free(added);
    }
    free(p);
    cJSON_Delete(va);
    cJSON_Delete(vb);
}

/* Bounds: a lower bound that rises, or an upper bound that falls, accepts less. */
static const char *const lower_kw[] = {"minimum", "exclusiveMinimum", "minLength", "minItems",
                                       "minProperties", "minContains", NULL};
static const char *const upper_kw[] = {"maximum", "exclusiveMaximum", "maxLength", "maxItems",
                                       "maxProperties", "maxContains", NULL};

static void cmp_bound(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr,
                      const char *kw, bool lower)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, kw);
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, kw);
    if (!cJSON_IsNumber(x))
        x = NULL;
    if (!cJSON_IsNumber(y))
        y = NULL;
    /* An absent minLength, minItems, ... is 0: adding or removing a 0 changes nothing. */
    bool count = lower && strcmp(kw, "minimum") != 0 && strcmp(kw, "exclusiveMinimum") != 0;
    if (count && ((!x && y && y->valuedouble == 0) || (!y && x && x->valuedouble == 0)))
        return;
    if ((!x && !y) || (x && y && x->valuedouble == y->valuedouble))
        return;
    kwdiff d = kw_at(ptr, kw, x, y);
    if (!report_added_removed(c, &d)) {
        bool tighter = (y->valuedouble > x->valuedouble) == lower;
        report(c, tighter ? NARROWED : WIDENED, d.p, "%s %s from %s to %s", kw,
               tighter ? "tightened" : "relaxed", d.sx, d.sy);
    }
    kw_free(&d);
}

static bool is_multiple(double big, double small)
{
    if (small == 0)
        return false;
    double q = big / small;
    return fabs(q - round(q)) < 1e-9;
}

static void cmp_multiple_of(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    const cJSON *x, *y;
    if (!kw_changed(a, b, "multipleOf", &x, &y))
        return;
    kwdiff d = kw_at(ptr, "multipleOf", x, y);
    if (!x || (cJSON_IsNumber(x) && cJSON_IsNumber(y) && is_multiple(y->valuedouble, x->valuedouble)))
        report(c, NARROWED, d.p, "multipleOf tightened from %s to %s", d.sx, d.sy);
    else if (!y || (cJSON_IsNumber(x) && cJSON_IsNumber(y) && is_multiple(x->valuedouble, y->valuedouble)))
        report(c, WIDENED, d.p, "multipleOf relaxed from %s to %s", d.sx, d.sy);
    else
        report(c, CHANGED, d.p, "multipleOf changed from %s to %s: some values of each are "
                                "refused by the other", d.sx, d.sy);
    kw_free(&d);
}

/* pattern and format: adding one narrows, removing one widens, a new one cannot be decided. */
static void cmp_language(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr,
                         const char *kw)
{
    const cJSON *x, *y;
    if (!kw_changed(a, b, kw, &x, &y))
        return;
    kwdiff d = kw_at(ptr, kw, x, y);
    if (!report_added_removed(c, &d))
        report(c, UNDECIDED, d.p, "%s changed from %s to %s: whether one accepts every string "
                                  "the other does cannot be decided; check it by hand",
               kw, d.sx, d.sy);
    kw_free(&d);
}

static bool flag(const cJSON *s, const char *kw)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, kw));
}

static void cmp_required(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, "required");
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, "required");
    char *p = xasprintf("%s/required", ptr);
    for (const cJSON *e = y ? y->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && !array_contains(x, e))
            report(c, NARROWED, p, "property \"%s\" is now required", e->valuestring);
    for (const cJSON *e = x ? x->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && !array_contains(y, e))
            report(c, WIDENED, p, "property \"%s\" is no longer required", e->valuestring);
    free(p);
}

/* Additional properties are forbidden: additionalProperties or unevaluatedProperties false. */
static bool closed(const cJSON *s)
{
    return cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s, "additionalProperties")) ||
           cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s, "unevaluatedProperties"));
}

static void cmp_properties(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(a, "properties");
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(b, "properties");
    char *base = xasprintf("%s/properties", ptr);
    for (const cJSON *e = cJSON_IsObject(pb) ? pb->child : NULL; e; e = e->next) {
        const cJSON *old = cJSON_GetObjectItemCaseSensitive(pa, e->string);
        char *p = ptr_join(base, e->string);
        if (old)
            compare(c, old, e, p);
        else
            report(c, ADDED_MEMBER, p, "new property \"%s\"", e->string);
        free(p);
    }
    for (const cJSON *e = cJSON_IsObject(pa) ? pa->child : NULL; e; e = e->next) {
        if (cJSON_GetObjectItemCaseSensitive(pb, e->string))
            continue;
        char *p = ptr_join(base, e->string);
        if (c->side == TG_SIDE_OUTPUT)
            report(c, CHANGED, p, "property \"%s\" removed from the result: callers reading it "
                                  "break", e->string);
        else if (closed(b))
            report(c, CHANGED, p, "property \"%s\" removed while additional properties are "
                                  "forbidden: callers sending it are refused", e->string);
        else
            report(c, WIDENED, p, "property \"%s\" removed (still accepted as an additional "
                                  "property)", e->string);
        free(p);
    }
    free(base);
}

/* A subschema keyword whose absence means "anything" (true). */
static void cmp_sub(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr,
                    const char *kw)
{
    const cJSON *x, *y;
    if (!kw_changed(a, b, kw, &x, &y))
        return;
    cJSON *t = cJSON_CreateTrue();
    char *p = xasprintf("%s/%s", ptr, kw);
    compare(c, x ? x : t, y ? y : t, p);
    free(p);
    cJSON_Delete(t);
}

/* A subschema keyword whose presence is itself a constraint (contains): added narrows. */
static void cmp_presence(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr,
                         const char *kw, effect when_added)
{
    const cJSON *x, *y;
    if (!kw_changed(a, b, kw, &x, &y))
        return;
    char *p = xasprintf("%s/%s", ptr, kw);
    if (x && y)
        compare(c, x, y, p);
    else
        report(c, x ? (when_added == NARROWED ? WIDENED : NARROWED) : when_added, p, "%s %s", kw,
               x ? "removed" : "added");
    free(p);
}

/* A map of subschemas (patternProperties, dependentSchemas): a new entry narrows. */
static void cmp_schema_map(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr,
                           const char *kw)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, kw);
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, kw);
    char *base = xasprintf("%s/%s", ptr, kw);
    for (const cJSON *e = cJSON_IsObject(y) ? y->child : NULL; e; e = e->next) {
        const cJSON *old = cJSON_GetObjectItemCaseSensitive(x, e->string);
        char *p = ptr_join(base, e->string);
        if (old)
            compare(c, old, e, p);
        else
            report(c, NARROWED, p, "%s entry \"%s\" added", kw, e->string);
        free(p);
    }
    for (const cJSON *e = cJSON_IsObject(x) ? x->child : NULL; e; e = e->next)
        if (!cJSON_GetObjectItemCaseSensitive(y, e->string)) {
            char *p = ptr_join(base, e->string);
            report(c, WIDENED, p, "%s entry \"%s\" removed", kw, e->string);
            free(p);
        }
    free(base);
}

static void cmp_prefix_items(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, "prefixItems");
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, "prefixItems");
    int nx = cJSON_GetArraySize(x), ny = cJSON_GetArraySize(y);
    for (int i = 0; i < nx || i < ny; i++) {
        char *p = ptr_index(ptr, "prefixItems", i);
        if (i < nx && i < ny)
            compare(c, cJSON_GetArrayItem(x, i), cJSON_GetArrayItem(y, i), p);
        else if (i < ny)
            report(c, NARROWED, p, "a schema for item %d was added", i);
        else
            report(c, WIDENED, p, "the schema for item %d was removed", i);
        free(p);
    }
}

/*
 * anyOf / oneOf / allOf: branches equal on both sides match whatever their order; the rest are
 * paired in order and compared, and what is left over was added or removed. A new anyOf/oneOf
 * branch accepts more, a new allOf member less.
 */
static void cmp_branches(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr,
                         const char *kw)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, kw);
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, kw);
    if (!cJSON_IsArray(x) && !cJSON_IsArray(y))
        return;
    bool conj = strcmp(kw, "allOf") == 0;
    char *p0 = xasprintf("%s/%s", ptr, kw);
    if (!cJSON_IsArray(x) || !cJSON_IsArray(y)) {
        report(c, !cJSON_IsArray(x) ? NARROWED : WIDENED, p0, "%s %s", kw,
               !cJSON_IsArray(x) ? "added" : "removed");
        free(p0);
        return;
    }
    int nx = cJSON_GetArraySize(x), ny = cJSON_GetArraySize(y);
    bool *used_x = xcalloc((size_t)nx + 1, 1), *used_y = xcalloc((size_t)ny + 1, 1);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            if (!used_x[i] && cJSON_Compare(cJSON_GetArrayItem(x, i), cJSON_GetArrayItem(y, j), true)) {
                used_x[i] = used_y[j] = true;
                break;
            }
    int i = 0;
    for (int j = 0; j < ny; j++) {
        if (used_y[j])
            continue;
        while (i < nx && used_x[i])
            i++;
        char *p = ptr_index(ptr, kw, j);
        if (i < nx) {
            compare(c, cJSON_GetArrayItem(x, i), cJSON_GetArrayItem(y, j), p);
            used_x[i] = true;
        } else {
            report(c, conj ? NARROWED : WIDENED, p, "%s branch %d added", kw, j);
        }
        free(p);
    }
    for (i = 0; i < nx; i++)
        if (!used_x[i]) {
            char *p = ptr_index(ptr, kw, i);
            report(c, conj ? WIDENED : NARROWED, p, "%s branch %d removed", kw, i);
            free(p);
        }
    free(used_x);
    free(used_y);
    free(p0);
}

/* Keywords handled above, and the annotations that change no verdict. */
static const char *const handled_kw[] = {
    "type", "enum", "const", "minimum", "exclusiveMinimum", "minLength", "minItems",
    "minProperties", "minContains", "maximum", "exclusiveMaximum", "maxLength", "maxItems",
    "maxProperties", "maxContains", "multipleOf", "pattern", "format", "uniqueItems", "required",
    "properties", "additionalProperties", "items", "propertyNames", "unevaluatedProperties",
    "unevaluatedItems", "additionalItems", "contains", "patternProperties", "dependentSchemas",
    "prefixItems", "anyOf", "oneOf", "allOf", NULL};
static const char *const annotation_kw[] = {
    "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly",
    "$comment", "$schema", "$id", "$anchor", "contentMediaType", "contentEncoding", NULL};

typedef struct rest_ctx {
    const cmp *c;
    const char *ptr;
} rest_ctx;

static void cmp_rest_member(void *ctx, const char *kw, const cJSON *x, const cJSON *y)
{
    const rest_ctx *r = ctx;
    if (tg_strlist_has(handled_kw, kw))
        return;
    char *p = ptr_join(r->ptr, kw);
    const char *what = !x ? "added" : !y ? "removed" : "changed";
    if (tg_strlist_has(annotation_kw, kw))
        report(r->c, ANNOTATION, p, "%s %s", kw, what);
    else
        report(r->c, UNDECIDED, p, "%s %s: its effect on the accepted values cannot be "
                                   "decided here; check it by hand", kw, what);
    free(p);
}

/* Keywords compared only as wholes: annotations, and what cannot be decided. */
static void cmp_rest(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    tg_json_diff_members(a, b, cmp_rest_member, &(rest_ctx){c, ptr});
}

static void compare(const cmp *c, const cJSON *a, const cJSON *b, const char *ptr)
{
    if (cJSON_Compare(a, b, true))
        return;
    if (cJSON_IsFalse(a) || cJSON_IsFalse(b)) {
        bool nothing_before = cJSON_IsFalse(a);
        report(c, nothing_before ? WIDENED : NARROWED, ptr,
               nothing_before ? "accepted nothing, now accepts values"
                              : "now accepts nothing (false)");
        return;
    }
    cJSON *empty = cJSON_CreateObject();
    if (!cJSON_IsObject(a))
        a = empty;
    if (!cJSON_IsObject(b))
        b = empty;
    cmp_type(c, a, b, ptr);
    cmp_enum(c, a, b, ptr);
    for (int i = 0; lower_kw[i]; i++)
        cmp_bound(c, a, b, ptr, lower_kw[i], true);
    for (int i = 0; upper_kw[i]; i++)
        cmp_bound(c, a, b, ptr, upper_kw[i], false);
    cmp_multiple_of(c, a, b, ptr);
    cmp_language(c, a, b, ptr, "pattern");
    cmp_language(c, a, b, ptr, "format");
    if (flag(a, "uniqueItems") != flag(b, "uniqueItems")) {
        char *p = xasprintf("%s/uniqueItems", ptr);
        report(c, flag(b, "uniqueItems") ? NARROWED : WIDENED, p, "uniqueItems %s",
               flag(b, "uniqueItems") ? "now required" : "no longer required");
        free(p);
    }
    cmp_required(c, a, b, ptr);
    cmp_properties(c, a, b, ptr);
    static const char *const subs[] = {"additionalProperties", "items", "propertyNames",
                                       "unevaluatedProperties", "unevaluatedItems",
                                       "additionalItems", NULL};
    for (int i = 0; subs[i]; i++)
        cmp_sub(c, a, b, ptr, subs[i]);
    cmp_presence(c, a, b, ptr, "contains", NARROWED);
    cmp_schema_map(c, a, b, ptr, "patternProperties");
    cmp_schema_map(c, a, b, ptr, "dependentSchemas");
    cmp_prefix_items(c, a, b, ptr);
    cmp_branches(c, a, b, ptr, "anyOf");
    cmp_branches(c, a, b, ptr, "oneOf");
    cmp_branches(c, a, b, ptr, "allOf");
    cmp_rest(c, a, b, ptr);
    cJSON_Delete(empty);
}

/* Compiles s to prove it is a schema; NULL or the compiler's message (heap). */
static char *compile_error(js_registry *reg, const cJSON *s)
{
    if (!s)
        return NULL;
    tg_err err = {0};
    js_schema *js = js_compile(reg, s, NULL, &err);
    if (js) {
        js_schema_free(js);
        return NULL;
    }
    return xstrdup(err.msg);
}

void tg_review_schema(const cJSON *before, const cJSON *after, tg_schema_side side,
                      const char *area, tg_changes *out)
{
    if ((!before && !after) || (before && after && cJSON_Compare(before, after, true)))
        return;
    cmp c = {side, area, out};
    js_registry *reg = js_registry_new();
    tg_err err = {0};
    js_registry_add_metaschemas(reg, &err);
    char *ea = compile_error(reg, before), *eb = compile_error(reg, after);
    js_registry_free(reg);
    if (eb)
        report(&c, UNDECIDED, "", "the new schema does not compile (%s): fix it first", eb);
    else if (ea)
        report(&c, UNDECIDED, "", "the old schema did not compile (%s): compare by hand", ea);
    if (ea || eb) {
        free(ea);
        free(eb);
        return;
    }
    cJSON *t = cJSON_CreateTrue();
    cJSON *ia = tg_schema_inline_refs(before ? before : t);
    cJSON *ib = tg_schema_inline_refs(after ? after : t);
    compare(&c, ia, ib, "");
    cJSON_Delete(ia);
    cJSON_Delete(ib);
    cJSON_Delete(t);
}
