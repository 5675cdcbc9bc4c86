/*
 * jsonschema_validate.c — evaluating a compiled schema against an instance.
 *
 * Two modes share one evaluator: without an error list (vctx.errs == NULL) every keyword
 * returns at the first failure and nothing is allocated (exceptions, all bounded by the
 * instance's size: unevaluated* over more than 256 members or items, uniqueItems over more
 * than 32 items, format "regex", and a fifth concurrent PCRE2 user); with one, all failures
 * are reported with instance and keyword locations. js_validate always runs the fast mode
 * first and only re-runs in error mode when the instance is invalid, so valid instances cost
 * the same either way. Subschemas whose failure is not an error of the instance (anyOf/oneOf
 * branches, if, not, contains) are always evaluated quietly; anyOf/oneOf re-run their branches
 * with errors only when none matched.
 *
 * Annotations for unevaluatedProperties/Items are sets of evaluated member or item positions
 * (evset), passed down only to subschemas the compiler marked as able to add to them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "schema/jsformat.h"
#include "schema/jsnum.h"
#include "schema/jsonschema_int.h"
#include "schema/jsutf8.h"

/* Keeps the per-node fast path small: the big keyword groups stay out of line. */
#if defined(__GNUC__)
#define COLD_PATH __attribute__((noinline))
#else
#define COLD_PATH
#endif

/* ======================================================================== evaluated sets */

typedef struct evset {
    uint64_t *w;
    size_t n; /* members or items of the instance */
    uint64_t inl[4];
} evset;

static void ev_init(evset *e, size_t n)
{
    e->n = n;
    if (n <= 256) {
        e->w = e->inl;
        memset(e->inl, 0, sizeof e->inl);
    } else {
        e->w = xcalloc((n + 63) / 64, sizeof *e->w);
    }
}

static void ev_free(evset *e)
{
    if (e->w != e->inl)
        free(e->w);
}

static void ev_set(evset *e, size_t i)
{
    e->w[i >> 6] |= 1ULL << (i & 63);
}

static bool ev_has(const evset *e, size_t i)
{
    return (e->w[i >> 6] >> (i & 63)) & 1;
}

static void ev_merge(evset *d, const evset *s)
{
    for (size_t i = 0; i < (d->n + 63) / 64; i++)
        d->w[i] |= s->w[i];
}

static evset *child_ev(evset *ev, const js_node *child)
{
    return ev && child->ann ? ev : NULL;
}

static size_t child_count(const cJSON *v)
{
    size_t n = 0;
    for (const cJSON *x = v->child; x; x = x->next)
        n++;
    return n;
}

/* ======================================================================== context */

typedef struct scope {
    const js_res *res;
    const struct scope *up;
} scope;

typedef struct refhop {
    const js_node *target;
    const cJSON *inst;
    const struct refhop *up;
} refhop;

typedef struct vctx {
    const js_schema *s;
    js_errors *errs;   /* NULL: fast mode */
    size_t base;       /* errs->n when this validation started */
    bool overflow;     /* JS_MAX_ERRORS reached */
    bool aborted;      /* a reference loop or the depth limit: the instance is invalid */
    bool abort_reported;
    const char *abort_msg;
    tg_buf ip, kp;     /* instance / keyword location, error mode only */
    bool dynamic;      /* the schema has $dynamicRef: track the dynamic scope */
    const scope *sc;   /* dynamic scope, innermost first */
    const refhop *hops;
    int depth;
    pcre2_match_data *md;
} vctx;

/* Stops the keyword group at the first failure in fast mode, goes on collecting otherwise. */
#define STEP(expr)                                                                          \
    do {                                                                                    \
        if (!(expr)) {                                                                      \
            if (!c->errs)                                                                   \
                return false;                                                               \
            ok = false;                                                                     \
        }                                                                                   \
    } while (0)

static size_t kp_push(vctx *c, const char *kw)
{
    if (!c->errs)
        return 0;
    size_t l = c->kp.len;
    tg_buf_putc(&c->kp, '/');
    tg_buf_puts(&c->kp, kw);
    return l;
}

static size_t kp_push_tok(vctx *c, const char *kw, const char *tok)
{
    if (!c->errs)
        return 0;
    size_t l = kp_push(c, kw);
    tg_buf_putc(&c->kp, '/');
    tg_buf_pointer_token(&c->kp, tok);
    return l;
}

static size_t kp_push_idx(vctx *c, const char *kw, size_t i)
{
    if (!c->errs)
        return 0;
    size_t l = kp_push(c, kw);
    tg_buf_printf(&c->kp, "/%zu", i);
    return l;
}

static void kp_pop(vctx *c, size_t l)
{
    if (c->errs)
        tg_buf_truncate(&c->kp, l);
}

static size_t ip_push_name(vctx *c, const char *name)
{
    if (!c->errs)
        return 0;
    size_t l = c->ip.len;
    tg_buf_putc(&c->ip, '/');
    tg_buf_pointer_token(&c->ip, name);
    return l;
}

static size_t ip_push_idx(vctx *c, size_t i)
{
    if (!c->errs)
        return 0;
    size_t l = c->ip.len;
    tg_buf_printf(&c->ip, "/%zu", i);
    return l;
}

static void ip_pop(vctx *c, size_t l)
{
    if (c->errs)
        tg_buf_truncate(&c->ip, l);
}

/* ======================================================================== errors */

static void errs_push(js_errors *e, char *iloc, char *kloc, char *msg)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 16;
        e->v = xrealloc(e->v, e->cap * sizeof *e->v);
    }
    e->v[e->n].instance_location = iloc;
    e->v[e->n].keyword_location = kloc;
    e->v[e->n].message = msg;
    e->n++;
}

static void error_free(js_error *x)
{
    free(x->instance_location);
    free(x->keyword_location);
    free(x->message);
}

static void v_err(vctx *c, const char *kw, const char *fmt, ...) TG_PRINTF(3, 4);
static void v_err(vctx *c, const char *kw, const char *fmt, ...)
{
    js_errors *e = c->errs;
    if (!e || c->aborted)
        return; /* after a loop or the depth limit, only that error is worth reading */
    if (e->n - c->base >= JS_MAX_ERRORS) {
        c->overflow = true;
        return;
    }
    tg_buf msg = TG_BUF_INIT, kl = TG_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    tg_buf_append(&kl, c->kp.data, c->kp.len);
    if (kw) {
        tg_buf_putc(&kl, '/');
        tg_buf_puts(&kl, kw);
    }
    tg_buf_puts(&kl, "");
    errs_push(e, xstrndup(c->ip.data, c->ip.len), tg_buf_steal(&kl), tg_buf_steal(&msg));
}

#define JS_STR_(x) #x
#define JS_STR(x) JS_STR_(x)

/*
 * A reference loop or the depth limit: evaluation is pointless from here on and the instance is
 * invalid whatever encloses this point (even "not"). Reported once, at the first place it is
 * met with errors on.
 */
static bool v_abort(vctx *c, const char *kw, const char *msg)
{
    if (!c->abort_msg)
        c->abort_msg = msg;
    if (c->errs && !c->abort_reported) {
        c->aborted = false; /* let this one error through v_err */
        v_err(c, kw, "%s", msg);
        c->abort_reported = true;
    }
    c->aborted = true;
    return false;
}

/* A JSON value for a message, cut at max bytes (on a UTF-8 boundary). Heap string. */
static char *render(const cJSON *v, size_t max)
{
    char b[40];
    char *s = cJSON_IsNumber(v) ? xstrdup(js_num_text(v, b)) : cJSON_PrintUnformatted(v);
    if (!s)
        return xstrdup("?");
    if (!cJSON_IsNumber(v)) {
        char *t = xstrdup(s);
        cJSON_free(s);
        s = t;
    }
    size_t n = strlen(s);
    if (n > max) {
        size_t cut = max;
        while (cut > 0 && (s[cut] & 0xC0) == 0x80)
            cut--;
        if (n < cut + 3) /* "..." and its NUL reach past the end of s */
            s = xrealloc(s, cut + 4);
        memcpy(s + cut, "...", 4);
    }
    return s;
}

static const char *value_type_name(const cJSON *v)
{
    switch (v->type & 0xFF) {
    case cJSON_NULL: return "null";
    case cJSON_True:
    case cJSON_False: return "boolean";
    case cJSON_Number: return js_num_is_integer(v) ? "integer" : "number";
    case cJSON_String: return "string";
    case cJSON_Array: return "array";
    case cJSON_Object: return "object";
    default: return "invalid value";
    }
}

static void type_list(tg_buf *b, unsigned types)
{
    unsigned n = 0, total = 0;
    for (unsigned t = types; t; t &= t - 1)
        total++;
    for (int i = 0; i < JT_COUNT; i++) {
        if (!(types & (1u << i)))
            continue;
        if (n)
            tg_buf_puts(b, n + 1 == total ? " or " : ", ");
        tg_buf_puts(b, js_type_names[i]);
        n++;
    }
}

/* ======================================================================== evaluation */

static inline bool v_node(vctx *c, const js_node *n, const cJSON *inst, evset *ev);

static bool v_quiet(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    js_errors *save = c->errs;
    c->errs = NULL;
    bool r = v_node(c, n, inst, ev);
    c->errs = save;
    return r;
}

/* cJSON type flag → JT_* bit; a table rather than a switch keeps it branch-free. */
static const uint8_t TYPE_BIT[256] = {
    [cJSON_False] = JT_BOOLEAN, [cJSON_True] = JT_BOOLEAN, [cJSON_NULL] = JT_NULL,
    [cJSON_Number] = JT_NUMBER, [cJSON_String] = JT_STRING, [cJSON_Array] = JT_ARRAY,
    [cJSON_Object] = JT_OBJECT,
};

static unsigned inst_type(const cJSON *v)
{
    return TYPE_BIT[v->type & 0xFF];
}

COLD_PATH static bool v_type(vctx *c, const js_node *n, const cJSON *inst, unsigned t)
{
    if ((n->types & t) || (t == JT_NUMBER && (n->types & JT_INTEGER) && js_num_is_integer(inst)))
        return true;
    if (c->errs) {
        tg_buf b = TG_BUF_INIT;
        type_list(&b, n->types);
        v_err(c, "type", "expected %s, got %s", b.data, value_type_name(inst));
        tg_buf_free(&b);
    }
    return false;
}

/* Equality of two strings, without a call: schema strings compared this way (const, enum,
 * guard names) are short, and most mismatches differ in the first byte. */
static inline bool same_string(const char *a, const char *b)
{
    if (a[0] != b[0])
        return false;
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* cJSON's own type tests are calls into the library: these are not. */
static inline bool is_string(const cJSON *v)
{
    return (v->type & 0xFF) == cJSON_String;
}

static inline bool is_object(const cJSON *v)
{
    return (v->type & 0xFF) == cJSON_Object;
}

COLD_PATH static bool v_enum(vctx *c, const js_node *n, const cJSON *inst)
{
    if (is_string(inst)) {
        /* a string equals only a string: the other members need no look */
        for (const cJSON *x = n->enum_->child; x; x = x->next)
            if (is_string(x) && same_string(inst->valuestring, x->valuestring))
                return true;
    } else {
        for (const cJSON *x = n->enum_->child; x; x = x->next)
            if (js_json_equal(x, inst))
                return true;
    }
    if (c->errs) {
        char *e = render(n->enum_, 200), *v = render(inst, 80);
        v_err(c, "enum", "value %s is not one of %s", v, e);
        free(e);
        free(v);
    }
    return false;
}

COLD_PATH static bool v_const(vctx *c, const js_node *n, const cJSON *inst)
{
    if (js_json_equal(n->const_, inst))
        return true;
    if (c->errs) {
        char *e = render(n->const_, 200), *v = render(inst, 80);
        v_err(c, "const", "value %s is not equal to the constant %s", v, e);
        free(e);
        free(v);
    }
    return false;
}

static bool num_fail(vctx *c, const char *kw, const char *what, const cJSON *limit,
                     const cJSON *inst)
{
    if (c->errs) {
        char a[40], b[40];
        v_err(c, kw, "must be %s %s, got %s", what, js_num_text(limit, a), js_num_text(inst, b));
    }
    return false;
}

static bool v_number(vctx *c, const js_node *n, const cJSON *inst)
{
    bool ok = true;
    if (n->multiple_of && !js_num_multiple_of(inst, n->multiple_of))
        STEP(num_fail(c, "multipleOf", "a multiple of", n->multiple_of, inst));
    if (n->maximum && js_num_cmp(inst, n->maximum) > 0)
        STEP(num_fail(c, "maximum", "<=", n->maximum, inst));
    if (n->exclusive_maximum && js_num_cmp(inst, n->exclusive_maximum) >= 0)
        STEP(num_fail(c, "exclusiveMaximum", "<", n->exclusive_maximum, inst));
    if (n->minimum && js_num_cmp(inst, n->minimum) < 0)
        STEP(num_fail(c, "minimum", ">=", n->minimum, inst));
    if (n->exclusive_minimum && js_num_cmp(inst, n->exclusive_minimum) <= 0)
        STEP(num_fail(c, "exclusiveMinimum", ">", n->exclusive_minimum, inst));
    return ok;
}

/* Bounds from the byte length alone (bytes/4 <= code points <= bytes) settle most strings
 * without counting code points. */
static bool length_surely_ok(const js_node *n, const char *s)
{
    long long bytes = (long long)strlen(s);
    return (n->max_length < 0 || bytes <= n->max_length) &&
           (n->min_length < 0 || (bytes + 3) / 4 >= n->min_length);
}

static bool v_string(vctx *c, const js_node *n, const cJSON *inst)
{
    bool ok = true;
    const char *s = inst->valuestring ? inst->valuestring : "";
    if ((n->min_length >= 0 || n->max_length >= 0) && !length_surely_ok(n, s)) {
        long long len = (long long)js_utf8_count(s);
        if (n->min_length >= 0 && len < n->min_length) {
            if (!c->errs)
                return false;
            v_err(c, "minLength", "must be at least %lld characters long (got %lld)", n->min_length,
                  len);
            ok = false;
        }
        if (n->max_length >= 0 && len > n->max_length) {
            if (!c->errs)
                return false;
            v_err(c, "maxLength", "must be at most %lld characters long (got %lld)", n->max_length,
                  len);
            ok = false;
        }
    }
    if (n->pattern && !js_re_search(n->pattern, s, c->md)) {
        if (!c->errs)
            return false;
        v_err(c, "pattern", "string does not match pattern \"%s\"", n->pattern_src);
        ok = false;
    }
    if (n->format_assert && !js_format_check_id(n->format, s)) {
        if (!c->errs)
            return false;
        char *v = render(inst, 80);
        v_err(c, "format", "%s is not a valid \"%s\"", v, n->format_name);
        free(v);
        ok = false;
    }
    return ok;
}

/* ---- arrays ---- */

static bool v_item(vctx *c, const js_node *sch, const char *kw, const cJSON *item, size_t i)
{
    size_t il = ip_push_idx(c, i);
    bool r;
    if (sch->kind == JS_FALSE) {
        r = false;
        if (c->errs)
            v_err(c, NULL, "item %zu is not allowed (%s is false)", i, kw);
    } else {
        r = v_node(c, sch, item, NULL);
    }
    ip_pop(c, il);
    return r;
}


typedef struct hashed {
    unsigned long long h;
    const cJSON *v;
    size_t i;
} hashed;

static int hashed_cmp(const void *x, const void *y)
{
    const hashed *a = x, *b = y;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Finds two equal items: pairwise for short arrays, by sorted hashes for long ones. */
static bool items_equal_at(const cJSON *arr, size_t n, size_t *a, size_t *b)
{
    if (n <= 32) {
        size_t i = 0;
        for (const cJSON *x = arr->child; x; x = x->next, i++) {
            size_t j = i + 1;
            for (const cJSON *y = x->next; y; y = y->next, j++)
                if (js_json_equal(x, y)) {
                    *a = i;
                    *b = j;
                    return true;
                }
        }
        return false;
    }
    hashed *h = xmalloc(n * sizeof *h);
    size_t i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++)
        h[i] = (hashed){js_json_hash(x), x, i};
    qsort(h, n, sizeof *h, hashed_cmp);
    bool found = false;
    for (size_t k = 0; k < n && !found; k++)
        for (size_t m = k + 1; m < n && h[m].h == h[k].h && !found; m++)
            if (js_json_equal(h[k].v, h[m].v)) {
                *a = h[k].i < h[m].i ? h[k].i : h[m].i;
                *b = h[k].i < h[m].i ? h[m].i : h[k].i;
                found = true;
            }
    free(h);
    return found;
}

static bool v_unique(vctx *c, const cJSON *arr, size_t n)
{
    size_t a, b;
    if (!items_equal_at(arr, n, &a, &b))
        return true;
    if (c->errs)
        v_err(c, "uniqueItems", "items %zu and %zu are equal, but items must be unique", a, b);
    return false;
}

static bool v_contains(vctx *c, const js_node *n, const cJSON *arr, evset *ev)
{
    long long matched = 0;
    size_t i = 0;
    bool need_all = ev || n->max_contains >= 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        if (!v_quiet(c, n->contains, x, NULL))
            continue;
        matched++;
        if (ev)
            ev_set(ev, i);
        if (!need_all && matched >= n->min_contains)
            break;
    }
    bool ok = true;
    if (matched < n->min_contains) {
        if (!c->errs)
            return false;
        v_err(c, "contains", "must contain at least %lld item%s matching the \"contains\" schema "
              "(found %lld)", n->min_contains, n->min_contains == 1 ? "" : "s", matched);
        ok = false;
    }
    if (n->max_contains >= 0 && matched > n->max_contains) {
        if (!c->errs)
            return false;
        v_err(c, "maxContains", "must contain at most %lld item%s matching the \"contains\" "
              "schema (found %lld)", n->max_contains, n->max_contains == 1 ? "" : "s", matched);
        ok = false;
    }
    return ok;
}

COLD_PATH static bool v_array(vctx *c, const js_node *n, const cJSON *arr, evset *ev)
{
    bool ok = true;
    size_t i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        const js_node *sch;
        size_t kl;
        const char *kw;
        if (i < n->nprefix) {
            sch = n->prefix[i];
            kw = n->prefix_kw;
            kl = kp_push_idx(c, kw, i);
        } else if (n->items) {
            sch = n->items;
            kw = n->items_kw;
            kl = kp_push(c, kw);
        } else {
            continue;
        }
        bool r = c->errs ? v_item(c, sch, kw, x, i) : v_node(c, sch, x, NULL);
        kp_pop(c, kl);
        if (ev)
            ev_set(ev, i);
        STEP(r);
    }
    long long count = (long long)i;
    if (n->min_items >= 0 && count < n->min_items) {
        if (!c->errs)
            return false;
        v_err(c, "minItems", "must have at least %lld item%s (got %lld)", n->min_items,
              n->min_items == 1 ? "" : "s", count);
        ok = false;
    }
    if (n->max_items >= 0 && count > n->max_items) {
        if (!c->errs)
            return false;
        v_err(c, "maxItems", "must have at most %lld item%s (got %lld)", n->max_items,
              n->max_items == 1 ? "" : "s", count);
        ok = false;
    }
    if (n->unique)
        STEP(v_unique(c, arr, i));
    if (n->contains)
        STEP(v_contains(c, n, arr, ev));
    return ok;
}

/* ---- objects ---- */

/*
 * Equality of member name k and a schema name of length len whose first byte it shares: k is
 * read only as far as it matched a non-NUL byte of the name, so never past its end.
 */
static inline bool same_name_len(const char *name, size_t len, const char *k)
{
    for (size_t i = 1; i < len; i++)
        if (k[i] != name[i])
            return false;
    return k[len] == '\0';
}

COLD_PATH static const js_name *find_name_table(const js_node *n, const char *k)
{
    size_t len = strlen(k);
    uint32_t h = js_name_hash(k, len);
    for (uint32_t i = h & n->table_mask; n->table[i]; i = (i + 1) & n->table_mask) {
        const js_name *e = &n->names[n->table[i] - 1];
        if (e->hash == h && e->len == len && memcmp(e->name, k, len) == 0)
            return e;
    }
    return NULL;
}

static inline unsigned lowest_byte(uint64_t z)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(z) >> 3;
#else
    unsigned i = 0;
    while (!(z & 0xFF)) {
        z >>= 8;
        i++;
    }
    return i;
#endif
}

/*
 * The names entry for member name k. Up to 8 names: the first bytes of all of them are
 * compared at once (js_node.firsts), and only names that share k's first byte are compared
 * further; whatever order the instance lists its members in. Larger tables are hashed.
 */
static inline const js_name *find_name(const js_node *n, const char *k)
{
    if (!(n->name_filter & js_name_bit(k)))
        return NULL; /* most misses end here */
    if (n->table)
        return find_name_table(n, k);
    const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
    uint64_t x = n->firsts ^ (0x0101010101010101ULL * (unsigned char)k[0]);
    uint64_t z = ~(((x & lo7) + lo7) | x | lo7) & n->lanes; /* 0x80 where the bytes are equal */
    for (; z; z &= z - 1) {
        const js_name *e = &n->names[lowest_byte(z)];
        if (k[0] == '\0' || same_name_len(e->name, e->len, k))
            return e;
    }
    return NULL;
}

/* A member's value against a subschema of kw (tok: the property name or pattern, if any). */
static bool v_prop(vctx *c, const char *kw, const char *tok, const js_node *sch, const cJSON *m)
{
    if (!c->errs && sch->kind == JS_OBJ_SCHEMA)
        return v_node(c, sch, m, NULL);
    const char *name = m->string ? m->string : "";
    size_t kl = tok ? kp_push_tok(c, kw, tok) : kp_push(c, kw);
    size_t il = ip_push_name(c, name);
    bool r;
    if (sch->kind == JS_FALSE) {
        r = false;
        if (c->errs) {
            char *k = render(&(cJSON){.type = cJSON_String, .valuestring = (char *)name}, 80);
            if (tok)
                v_err(c, NULL, "property %s is not allowed (its schema in %s is false)", k, kw);
            else
                v_err(c, NULL, "property %s is not allowed (%s is false)", k, kw);
            free(k);
        }
    } else {
        r = v_node(c, sch, m, NULL);
    }
    ip_pop(c, il);
    kp_pop(c, kl);
    return r;
}

static bool v_property_name(vctx *c, const js_node *n, const char *name)
{
    cJSON tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.type = cJSON_String;
    tmp.valuestring = (char *)name;
    size_t kl = kp_push(c, "propertyNames");
    size_t mark = c->errs ? c->errs->n : 0;
    bool r = v_node(c, n->pnames, &tmp, NULL);
    kp_pop(c, kl);
    if (!r && c->errs) {
        /* a name has no JSON Pointer of its own: say which name in the message */
        char *k = render(&tmp, 80);
        for (size_t i = mark; i < c->errs->n; i++) {
            char *m = xasprintf("property name %s: %s", k, c->errs->v[i].message);
            free(c->errs->v[i].message);
            c->errs->v[i].message = m;
        }
        free(k);
    }
    return r;
}

static bool v_required(vctx *c, const js_node *n, const cJSON *obj, uint64_t found)
{
    uint64_t all = n->nrequired >= 64 ? ~0ULL : (1ULL << n->nrequired) - 1;
    if (n->nrequired <= 64 && found == all)
        return true;
    bool ok = true;
    for (size_t i = 0; i < n->nrequired; i++) {
        bool has = i < 64 ? (found >> i) & 1
                          : cJSON_GetObjectItemCaseSensitive(obj, n->required[i]) != NULL;
        if (has)
            continue;
        if (!c->errs)
            return false;
        char *k = render(&(cJSON){.type = cJSON_String, .valuestring = (char *)n->required[i]}, 80);
        v_err(c, "required", "missing required property %s", k);
        free(k);
        ok = false;
    }
    return ok;
}

static bool v_deps(vctx *c, const js_node *n, const cJSON *obj, evset *ev)
{
    bool ok = true;
    for (size_t i = 0; i < n->ndeps; i++) {
        const js_dep *d = &n->deps[i];
        if (!cJSON_GetObjectItemCaseSensitive(obj, d->name))
            continue;
        for (size_t k = 0; k < d->nreq; k++) {
            if (cJSON_GetObjectItemCaseSensitive(obj, d->req[k]))
                continue;
            if (!c->errs)
                return false;
            size_t kl = kp_push_tok(c, d->kw, d->name);
            v_err(c, NULL, "property \"%s\" is required when \"%s\" is present", d->req[k],
                  d->name);
            kp_pop(c, kl);
            ok = false;
        }
        if (d->schema) {
            size_t kl = kp_push_tok(c, d->kw, d->name);
            bool r = v_node(c, d->schema, obj, child_ev(ev, d->schema));
            kp_pop(c, kl);
            STEP(r);
        }
    }
    return ok;
}

/* minProperties, maxProperties, required, dependent*: what needs the whole object. */
static bool v_object_tail(vctx *c, const js_node *n, const cJSON *obj, evset *ev, uint64_t found,
                          long long count)
{
    bool ok = true;
    if (n->min_props >= 0 && count < n->min_props) {
        if (!c->errs)
            return false;
        v_err(c, "minProperties", "must have at least %lld propert%s (got %lld)", n->min_props,
              n->min_props == 1 ? "y" : "ies", count);
        ok = false;
    }
    if (n->max_props >= 0 && count > n->max_props) {
        if (!c->errs)
            return false;
        v_err(c, "maxProperties", "must have at most %lld propert%s (got %lld)", n->max_props,
              n->max_props == 1 ? "y" : "ies", count);
        ok = false;
    }
    if (n->nrequired)
        STEP(v_required(c, n, obj, found));
    if (n->ndeps)
        STEP(v_deps(c, n, obj, ev));
    return ok;
}

/* patternProperties, additionalProperties and propertyNames for one member. */
static bool v_member_rest(vctx *c, const js_node *n, const cJSON *m, bool *evaluated)
{
    bool ok = true;
    const char *k = m->string ? m->string : "";
    for (size_t i = 0; i < n->npprops; i++)
        if (js_re_search(n->pprops[i].re, k, c->md)) {
            *evaluated = true;
            STEP(v_prop(c, "patternProperties", n->pprops[i].src, n->pprops[i].schema, m));
        }
    if (!*evaluated && n->addl) {
        *evaluated = true;
        STEP(v_prop(c, "additionalProperties", NULL, n->addl, m));
    }
    if (n->pnames)
        STEP(v_property_name(c, n, k));
    return ok;
}

/* A number whose literal has no fraction or exponent: an integer, whatever its size (other
 * forms, like 1.0 or 1e2, are decided by v_type). */
static inline bool plain_int(const cJSON *v)
{
    const char *t = v->valuestring;
    if (!t || !*t)
        return false;
    for (; *t; t++)
        if (*t == '.' || *t == 'e' || *t == 'E')
            return false;
    return true;
}

/*
 * A member's value in fast mode (no errors, no annotations): what v_node decides without a
 * call (a true schema, a matching string const, a matching type) is decided here, inlined in
 * the member loops; the rest goes to v_node.
 */
static inline bool v_value(vctx *c, const js_node *n, const cJSON *v)
{
    if (n->fast_to)
        n = n->fast_to;
    if (n->kind == JS_TRUE)
        return true;
    if (n->const_only && is_string(v) && same_string(v->valuestring, n->const_str))
        return true;
    if (n->type_only) {
        unsigned t = inst_type(v);
        if ((n->types & t) || (t == JT_NUMBER && (n->types & JT_INTEGER) && plain_int(v)))
            return true;
    }
    return v_node(c, n, v, NULL);
}

/* The fast path: few live values in the member loop, errors handled elsewhere. */
static bool v_object_fast(vctx *c, const js_node *n, const cJSON *obj, evset *ev)
{
    uint64_t found = 0;
    long long count = 0;
    bool always_rest = n->npprops || n->pnames;
    for (const cJSON *m = obj->child; m; m = m->next, count++) {
        bool evaluated = false;
        const js_name *e = n->nnames ? find_name(n, m->string ? m->string : "") : NULL;
        if (e) {
            found |= e->req_bit;
            if (e->schema) {
                evaluated = true;
                if (!v_node(c, e->schema, m, NULL))
                    return false;
            }
        }
        if (!evaluated && !always_rest && n->addl && n->addl->kind == JS_TRUE)
            evaluated = true; /* "additionalProperties": true or {} */
        else if ((always_rest || (!evaluated && n->addl)) && !v_member_rest(c, n, m, &evaluated))
            return false;
        if (evaluated && ev)
            ev_set(ev, (size_t)count);
    }
    if (n->min_props < 0 && n->max_props < 0 && !n->ndeps &&
        (!n->nrequired || (n->nrequired <= 64 && found == (~0ULL >> (64 - n->nrequired)))))
        return true; /* the usual end: no counts, every required name seen */
    return v_object_tail(c, n, obj, ev, found, count);
}

COLD_PATH static bool v_object(vctx *c, const js_node *n, const cJSON *obj, evset *ev)
{
    if (!c->errs)
        return v_object_fast(c, n, obj, ev);
    bool ok = true;
    uint64_t found = 0;
    long long count = 0;
    for (const cJSON *m = obj->child; m; m = m->next, count++) {
        const char *k = m->string ? m->string : "";
        bool evaluated = false;
        const js_name *e = n->nnames ? find_name(n, k) : NULL;
        if (e) {
            found |= e->req_bit;
            if (e->schema) {
                evaluated = true;
                STEP(v_prop(c, "properties", e->name, e->schema, m));
            }
        }
        STEP(v_member_rest(c, n, m, &evaluated));
        if (evaluated && ev)
            ev_set(ev, (size_t)count);
    }
    STEP(v_object_tail(c, n, obj, ev, found, count));
    return ok;
}

/* ---- in-place applicators ---- */

static bool v_ref(vctx *c, const char *kw, const js_node *target, const cJSON *inst, evset *ev)
{
    /* The same reference reached again on the same value without progress never ends (only
     * possible for targets the compiler found on a cycle of in-place applicators). */
    for (const refhop *h = target->may_loop ? c->hops : NULL; h && h->inst == inst; h = h->up)
        if (h->target == target)
            return v_abort(c, kw, "infinite reference loop: a $ref or $dynamicRef leads back to "
                                  "a schema already being evaluated on this same value");
    if (!target->may_loop && !c->errs) {
        /* The loop check above walks hops on this same value only until the first hop into
         * some other value, and only loop members look: others need no hop of their own. */
        return v_node(c, target, inst, child_ev(ev, target));
    }
    refhop hop = {target, inst, c->hops};
    c->hops = &hop;
    size_t kl = kp_push(c, kw);
    bool r = v_node(c, target, inst, child_ev(ev, target));
    kp_pop(c, kl);
    c->hops = hop.up;
    return r;
}

static const js_node *dyn_anchor(const js_res *r, const char *name)
{
    for (size_t i = 0; i < r->nanchors; i++)
        if (r->anchors[i].dynamic && strcmp(r->anchors[i].name, name) == 0)
            return r->anchors[i].node;
    return NULL;
}

/* The outermost resource of the dynamic scope with a matching $dynamicAnchor wins. */
static const js_node *dyn_resolve(const vctx *c, const char *name, const js_node *dflt)
{
    const js_node *found = NULL;
    for (const scope *s = c->sc; s; s = s->up) {
        const js_node *a = dyn_anchor(s->res, name);
        if (a)
            found = a;
    }
    return found ? found : dflt;
}

static bool is_type_only(const js_errors *e, size_t from, size_t to, const char *iloc)
{
    if (to - from != 1)
        return false;
    const js_error *x = &e->v[from];
    size_t kl = strlen(x->keyword_location);
    return kl >= 5 && strcmp(x->keyword_location + kl - 5, "/type") == 0 &&
           strcmp(x->instance_location, iloc) == 0;
}

static bool is_required_only(const js_errors *e, size_t from, size_t to, const char *iloc)
{
    if (to - from != 1)
        return false;
    const js_error *x = &e->v[from];
    size_t kl = strlen(x->keyword_location);
    return kl >= 9 && strcmp(x->keyword_location + kl - 9, "/required") == 0 &&
           strcmp(x->instance_location, iloc) == 0 &&
           strncmp(x->message, "missing required property ", 26) == 0;
}

/*
 * "anyOf: [{required: [a]}, {required: [b]}]" is how a schema says "at least one of a, b": when
 * every branch failed only on one required property, one line says that instead of N.
 */
COLD_PATH static bool collapse_required(vctx *c, const char *kw, const size_t *start, size_t nb,
                                        size_t mark)
{
    js_errors *e = c->errs;
    for (size_t i = 0; i < nb; i++)
        if (!is_required_only(e, start[i], start[i + 1], c->ip.data))
            return false;
    tg_buf names = TG_BUF_INIT;
    for (size_t k = mark; k < e->n; k++) {
        tg_buf_printf(&names, "%s%s", k > mark ? ", " : "", e->v[k].message + 26);
        error_free(&e->v[k]);
    }
    e->n = mark;
    v_err(c, kw, "must have %s of the properties %s", strcmp(kw, "oneOf") == 0 ? "exactly one" : "at least one",
          names.data);
    tg_buf_free(&names);
    return true;
}

/*
 * Error report for an anyOf/oneOf where no branch matched: a summary, then the errors of each
 * branch; branches that failed only on "type" are left out when another branch got further
 * (they are usually the alternatives the user did not mean).
 */
COLD_PATH static void report_alternatives(vctx *c, const char *kw, js_node *const *br, size_t nb,
                                const cJSON *inst)
{
    js_errors *e = c->errs;
    size_t mark = e->n;
    size_t *start = xmalloc((nb + 1) * sizeof *start);
    for (size_t i = 0; i < nb; i++) {
        start[i] = e->n;
        size_t kl = kp_push_idx(c, kw, i);
        v_node(c, br[i], inst, NULL);
        kp_pop(c, kl);
    }
    start[nb] = e->n;
    if (nb > 1 && collapse_required(c, kw, start, nb, mark)) {
        free(start);
        return;
    }
    bool further = false;
    for (size_t i = 0; i < nb; i++)
        further |= !is_type_only(e, start[i], start[i + 1], c->ip.data);
    if (further) {
        size_t w = mark;
        for (size_t i = 0; i < nb; i++) {
            bool drop = is_type_only(e, start[i], start[i + 1], c->ip.data);
            for (size_t k = start[i]; k < start[i + 1]; k++) {
                if (drop)
                    error_free(&e->v[k]);
                else
                    e->v[w++] = e->v[k];
            }
        }
        e->n = w;
    }
    free(start);
    size_t after = e->n;
    v_err(c, kw, "value does not match any of the %zu alternatives in %s", nb, kw);
    if (e->n > after && after > mark) {
        /* move the summary in front of the branch details */
        js_error summary = e->v[after];
        memmove(&e->v[mark + 1], &e->v[mark], (after - mark) * sizeof *e->v);
        e->v[mark] = summary;
    }
}

/*
 * The members an anyOf/oneOf's dispatch names, found in one pass over the object (first bytes
 * compared in one word, as find_name does): bit i of the result says names[i] is present,
 * v[i] is then its value. With duplicate names any one of them will do: every member of that
 * name is checked by the branch, so a guard failing on any of them fails the branch. When
 * slots is set, slots[j] is the names[] index of member j (-1: none) for the first
 * JS_FLAT_MEMBERS members, and *count the number of members.
 */
static unsigned guard_scan(const js_dispatch *d, const cJSON *obj, const cJSON **v,
                           int8_t *slots, size_t *count)
{
    const uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL;
    unsigned present = 0;
    size_t j = 0;
    for (const cJSON *m = obj->child; m; m = m->next, j++) {
        const char *k = m->string ? m->string : "";
        uint64_t x = d->firsts ^ (0x0101010101010101ULL * (unsigned char)k[0]);
        uint64_t z = ~(((x & lo7) + lo7) | x | lo7) & d->lanes; /* 0x80 where equal */
        int8_t slot = -1;
        for (; z; z &= z - 1) {
            unsigned i = lowest_byte(z);
            if (k[0] == '\0' || same_name_len(d->names[i], d->lens[i], k)) {
                present |= 1u << i;
                v[i] = m;
                slot = (int8_t)i;
                break;
            }
        }
        if (slots && j < JS_FLAT_MEMBERS)
            slots[j] = slot;
    }
    if (count)
        *count = j;
    return present;
}

/*
 * Branch t of a dispatch evaluated from guard_scan's slots (a flat branch, jsoptimize.c): the
 * object member loop of v_object_fast with the name lookups already done. Fast mode, no
 * annotations; the instance is an object of at most JS_FLAT_MEMBERS members.
 */
static bool v_flat_branch(vctx *c, const js_node *t, const js_name *const *map,
                          const cJSON *obj, const int8_t *slots)
{
    uint64_t found = 0;
    size_t j = 0;
    const js_node *addl = t->addl && t->addl->kind != JS_TRUE ? t->addl : NULL;
    for (const cJSON *m = obj->child; m; m = m->next, j++) {
        const js_name *e = slots[j] >= 0 ? map[slots[j]] : NULL;
        if (e) {
            found |= e->req_bit;
            if (e->schema) {
                if (!v_value(c, e->schema, m))
                    return false;
                continue;
            }
        }
        if (addl && !v_value(c, addl, m))
            return false;
    }
    return !t->nrequired || found == (~0ULL >> (64 - t->nrequired));
}

/* false when branch b of d surely fails on an object with the guard_scan result present/v. */
static inline bool guards_pass(const js_dispatch *d, size_t b, unsigned present,
                               const cJSON *const *v)
{
    if ((present & d->need[b]) != d->need[b])
        return false;
    if (!d->pins[b])
        return true;
    const js_guard *g = d->g[b];
    for (int k = 0; k < JS_BRANCH_GUARDS && g[k].slot >= 0; k++) {
        const cJSON *x = v[g[k].slot];
        if (g[k].str && !(is_string(x) && same_string(x->valuestring, g[k].str)))
            return false;
    }
    return true;
}

COLD_PATH static bool v_any_of(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    bool any = false;
    const js_dispatch *d = is_object(inst) ? n->any_disp : NULL;
    const cJSON *gv[JS_DISPATCH_NAMES]; /* read only where present says so */
    int8_t slots[JS_FLAT_MEMBERS];
    size_t count = 0;
    unsigned present = d ? guard_scan(d, inst, gv, d->flat ? slots : NULL, &count) : 0;
    bool flat_ok = d && d->flat && count <= JS_FLAT_MEMBERS && c->depth < JS_MAX_EVAL_DEPTH - 2;
    for (size_t i = 0; i < n->nany_of; i++) {
        const js_node *b = n->any_of[i];
        if (d && !guards_pass(d, i, present, gv))
            continue;
        if (flat_ok && d->flat[i] && !(ev && b->ann)) {
            js_errors *save = c->errs; /* a branch is evaluated quietly */
            c->errs = NULL;
            bool r = v_flat_branch(c, d->flat[i], d->map[i], inst, slots);
            c->errs = save;
            if (r) {
                any = true;
                if (!ev)
                    break;
            }
            continue;
        }
        evset tmp, *bev = NULL;
        if (ev && b->ann) {
            ev_init(&tmp, ev->n);
            bev = &tmp;
        }
        bool r = v_quiet(c, b, inst, bev);
        if (bev) {
            if (r)
                ev_merge(ev, bev);
            ev_free(bev);
        }
        if (r) {
            any = true;
            if (!ev)
                break; /* later branches could only add annotations */
        }
    }
    if (!any && c->errs)
        report_alternatives(c, "anyOf", n->any_of, n->nany_of, inst);
    return any;
}

COLD_PATH static bool v_one_of(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    size_t matches = 0, first = 0, second = 0;
    evset win;
    bool have_win = false;
    const js_dispatch *d = is_object(inst) ? n->one_disp : NULL;
    const cJSON *gv[JS_DISPATCH_NAMES]; /* read only where present says so */
    unsigned present = d ? guard_scan(d, inst, gv, NULL, NULL) : 0;
    for (size_t i = 0; i < n->none_of && matches < 2; i++) {
        const js_node *b = n->one_of[i];
        if (d && !guards_pass(d, i, present, gv))
            continue;
        evset tmp, *bev = NULL;
        if (ev && b->ann && matches == 0) {
            ev_init(&tmp, ev->n);
            bev = &tmp;
        }
        bool r = v_quiet(c, b, inst, bev);
        if (r) {
            if (matches++ == 0)
                first = i;
            else
                second = i;
        }
        if (bev) {
            if (r) {
                win = tmp;
                have_win = true;
                if (win.w == tmp.inl)
                    win.w = win.inl;
            } else {
                ev_free(bev);
            }
        }
    }
    if (have_win) {
        if (matches == 1)
            ev_merge(ev, &win);
        ev_free(&win);
    }
    if (matches == 1)
        return true;
    if (c->errs) {
        if (matches == 0)
            report_alternatives(c, "oneOf", n->one_of, n->none_of, inst);
        else
            v_err(c, "oneOf", "value matches more than one schema in oneOf (at least %zu and %zu), "
                  "but must match exactly one", first, second);
    }
    return false;
}

COLD_PATH static bool v_if(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    evset tmp, *iev = NULL;
    if (ev && n->if_->ann) {
        ev_init(&tmp, ev->n);
        iev = &tmp;
    }
    bool r = v_quiet(c, n->if_, inst, iev);
    if (iev) {
        if (r)
            ev_merge(ev, iev);
        ev_free(iev);
    }
    const js_node *branch = r ? n->then_ : n->else_;
    if (!branch)
        return true;
    size_t kl = kp_push(c, r ? "then" : "else");
    bool ok = v_node(c, branch, inst, child_ev(ev, branch));
    kp_pop(c, kl);
    return ok;
}

COLD_PATH static bool v_inplace(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    bool ok = true;
    if (n->ref)
        STEP(v_ref(c, "$ref", n->ref, inst, ev));
    if (n->dynref) {
        const js_node *t = n->dynref_name ? dyn_resolve(c, n->dynref_name, n->dynref) : n->dynref;
        STEP(v_ref(c, "$dynamicRef", t, inst, ev));
    }
    for (size_t i = 0; i < n->nall_of; i++) {
        size_t kl = kp_push_idx(c, "allOf", i);
        bool r = v_node(c, n->all_of[i], inst, child_ev(ev, n->all_of[i]));
        kp_pop(c, kl);
        STEP(r);
    }
    if (n->nany_of && !(n->any_types & inst_type(inst)))
        STEP(v_any_of(c, n, inst, ev));
    if (n->none_of)
        STEP(v_one_of(c, n, inst, ev));
    if (n->not_ && v_quiet(c, n->not_, inst, NULL)) {
        if (!c->errs)
            return false;
        v_err(c, "not", "value must not match the schema in \"not\"");
        ok = false;
    }
    if (n->if_)
        STEP(v_if(c, n, inst, ev));
    return ok;
}

/* unevaluatedProperties / unevaluatedItems: whatever no other keyword evaluated. */
COLD_PATH static bool v_unevaluated(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    bool ok = true;
    size_t i = 0;
    if (n->uprops && cJSON_IsObject(inst)) {
        for (const cJSON *m = inst->child; m; m = m->next, i++) {
            if (ev_has(ev, i))
                continue;
            STEP(v_prop(c, "unevaluatedProperties", NULL, n->uprops, m));
            ev_set(ev, i);
        }
    } else if (n->uitems && cJSON_IsArray(inst)) {
        for (const cJSON *x = inst->child; x; x = x->next, i++) {
            if (ev_has(ev, i))
                continue;
            size_t kl = kp_push(c, "unevaluatedItems");
            bool r = v_item(c, n->uitems, "unevaluatedItems", x, i);
            kp_pop(c, kl);
            STEP(r);
            ev_set(ev, i);
        }
    }
    return ok;
}

/* The keyword group that applies to each instance type. */
static const uint8_t GROUP_OF_TYPE[64] = {
    [JT_NUMBER] = JK_NUM, [JT_STRING] = JK_STR, [JT_ARRAY] = JK_ARR, [JT_OBJECT] = JK_OBJ,
};

/* All keywords of an object schema: the recursive core. */
static bool v_eval(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    bool ok = true;
    unsigned t = inst_type(inst);
    if (n->types && !(n->types & t) &&
        !(t == JT_NUMBER && (n->types & JT_INTEGER) && plain_int(inst)))
        STEP(v_type(c, n, inst, t));
    unsigned g = n->groups;
    if (g & JK_CONST) {
        if (n->const_ && !(n->const_str && is_string(inst) &&
                           same_string(inst->valuestring, n->const_str)))
            STEP(v_const(c, n, inst));
        if (n->enum_)
            STEP(v_enum(c, n, inst));
    }
    if (g & GROUP_OF_TYPE[t]) {
        switch (t) {
        case JT_NUMBER:
            STEP(v_number(c, n, inst));
            break;
        case JT_STRING:
            STEP(v_string(c, n, inst));
            break;
        case JT_ARRAY:
            STEP(v_array(c, n, inst, ev));
            break;
        default:
            STEP(v_object(c, n, inst, ev));
            break;
        }
    }
    if (g & JK_INPLACE) {
        if (!n->any_only)
            STEP(v_inplace(c, n, inst, ev));
        else if (!(n->any_types & t))
            STEP(v_any_of(c, n, inst, ev));
    }
    if ((g & JK_UNEVAL) && ev)
        STEP(v_unevaluated(c, n, inst, ev));
    return ok;
}

/* The general case: depth limit, dynamic scope, own annotation set for unevaluated*. */
COLD_PATH static bool v_node_full(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    if (c->depth >= JS_MAX_EVAL_DEPTH)
        return v_abort(c, NULL, "evaluation deeper than " JS_STR(JS_MAX_EVAL_DEPTH) " nested "
                                "schemas: the instance is too deeply nested for this schema");
    c->depth++;
    scope fr;
    bool pushed = false;
    if (c->dynamic && (!c->sc || c->sc->res != n->res)) {
        fr.res = n->res;
        fr.up = c->sc;
        c->sc = &fr;
        pushed = true;
    }
    /* A node with unevaluated* collects its own annotations; the parent gets them if it
     * passes. */
    evset local, *my = ev;
    bool own = n->uneval &&
               ((n->uprops && cJSON_IsObject(inst)) || (n->uitems && cJSON_IsArray(inst)));
    if (own) {
        ev_init(&local, child_count(inst));
        my = &local;
    }
    bool ok = v_eval(c, n, inst, my);
    if (own) {
        if (ok && ev)
            ev_merge(ev, &local);
        ev_free(&local);
    }
    if (pushed)
        c->sc = fr.up;
    c->depth--;
    return ok;
}

/* Inlined at each call: booleans and type-only schemas cost no call at all. */
static inline bool v_node(vctx *c, const js_node *n, const cJSON *inst, evset *ev)
{
    if (n->fast_to && !c->errs)
        n = n->fast_to;
    if (n->kind != JS_OBJ_SCHEMA) {
        if (n->kind == JS_TRUE)
            return true;
        v_err(c, NULL, "no value is allowed here (the schema is false)");
        return false;
    }
    if (n->const_only && is_string(inst) && same_string(inst->valuestring, n->const_str))
        return true;
    if (n->type_only && !(ev && n->ann)) {
        unsigned t = inst_type(inst);
        if ((n->types & t) || (t == JT_NUMBER && (n->types & JT_INTEGER) && plain_int(inst)))
            return true;
    }
    if (n->uneval || c->depth >= JS_MAX_EVAL_DEPTH - 1 ||
        (c->dynamic && (!c->sc || c->sc->res != n->res)))
        return v_node_full(c, n, inst, ev);
    c->depth++;
    bool ok = v_eval(c, n, inst, ev);
    c->depth--;
    return ok;
}

/*
 * The root in fast mode when it is nothing but an anyOf (js_schema.root_any: a message union
 * such as the MCP schema's JSONRPCMessage): its branches without the keyword rounds of v_node
 * and v_eval, which would find nothing else to check.
 */
static bool v_root_any(vctx *c, const js_node *n, const cJSON *inst)
{
    c->depth++;
    bool ok = (n->any_types & inst_type(inst)) || v_any_of(c, n, inst, NULL);
    c->depth--;
    return ok;
}

/*
 * Drops errors that repeat an earlier one (same instance location and message) from this
 * validation: meta-schemas, for one, apply the same "type" from each vocabulary.
 */
static void drop_repeats(js_errors *e, size_t base)
{
    size_t w = base;
    for (size_t i = base; i < e->n; i++) {
        bool seen = false;
        for (size_t k = base; k < w && !seen; k++)
            seen = strcmp(e->v[k].instance_location, e->v[i].instance_location) == 0 &&
                   strcmp(e->v[k].message, e->v[i].message) == 0;
        if (seen)
            error_free(&e->v[i]);
        else
            e->v[w++] = e->v[i];
    }
    e->n = w;
}

/* ======================================================================== public API */

static pcre2_match_data *md_acquire(const js_schema *s, int *slot)
{
    *slot = -1;
    if (!s->has_regex)
        return NULL;
    js_md_slot *pool = ((js_schema *)s)->md_pool; /* the pool is the one mutable part */
    for (int i = 0; i < JS_MD_SLOTS; i++)
        if (!atomic_exchange(&pool[i].busy, 1)) {
            *slot = i;
            return pool[i].md;
        }
    return pcre2_match_data_create(1, NULL); /* more concurrent validations than slots */
}

static void md_release(const js_schema *s, pcre2_match_data *md, int slot)
{
    if (slot >= 0)
        atomic_store(&((js_schema *)s)->md_pool[slot].busy, 0);
    else if (md)
        pcre2_match_data_free(md);
}

bool js_validate(const js_schema *s, const cJSON *instance, js_errors *errors)
{
    if (!s || !instance)
        return false;
    int slot = -1;
    /* Only what fast mode reads is set here (a valid instance pays for nothing else); the
     * error-mode fields are set before the second evaluation. */
    vctx c;
    c.s = s;
    c.errs = NULL;
    c.aborted = false;
    c.abort_msg = NULL;
    c.dynamic = s->has_dynamic;
    c.sc = NULL;
    c.hops = NULL;
    c.depth = 0;
    c.md = s->has_regex ? md_acquire(s, &slot) : NULL;
    /* A loop or the depth limit ends evaluation as invalid, even under "not". */
    bool ok = (s->root_any ? v_root_any(&c, s->root_any, instance)
                            : v_node(&c, s->root, instance, NULL)) &&
              !c.aborted;
    if (!ok && errors) {
        /* Invalid: evaluate again, this time collecting every error. */
        c.overflow = false;
        c.abort_reported = false;
        c.ip = (tg_buf)TG_BUF_INIT;
        c.kp = (tg_buf)TG_BUF_INIT;
        c.errs = errors;
        c.base = errors->n;
        c.depth = 0;
        c.sc = NULL;
        c.hops = NULL;
        c.aborted = false;
        tg_buf_puts(&c.ip, "");
        tg_buf_puts(&c.kp, "");
        v_node(&c, s->root, instance, NULL);
        drop_repeats(errors, c.base);
        if (c.aborted && !c.abort_reported) /* met only where errors are not collected */
            errs_push(errors, xstrdup(""), xstrdup(""), xstrdup(c.abort_msg));
        if (c.overflow)
            errs_push(errors, xstrdup(""), xstrdup(""),
                      xasprintf("too many errors: only the first %d are reported", JS_MAX_ERRORS));
        if (errors->n == c.base)
            errs_push(errors, xstrdup(""), xstrdup(""), xstrdup("value does not match the schema"));
        tg_buf_free(&c.ip);
        tg_buf_free(&c.kp);
    }
    if (c.md)
        md_release(s, c.md, slot);
    return ok;
}

void js_errors_clear(js_errors *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        error_free(&e->v[i]);
    e->n = 0;
}

void js_errors_free(js_errors *e)
{
    if (!e)
        return;
    js_errors_clear(e);
    free(e->v);
    e->v = NULL;
    e->cap = 0;
}
