/*
 * yaml.c — YAML text → cJSON with positions, via libyaml's event API (tg_doc_parse_yaml).
 *
 * The tree is built with an explicit stack of open collections, so nesting never recurses in C.
 * Every node is attached to its parent the moment it is created: on any error, deleting the
 * root frees everything.
 *
 * Scalars are resolved with the YAML 1.2 core schema. Hostile input is bounded before work is
 * done: the size before parsing, the depth at each collection start, and alias expansion by
 * the node count and the text bytes (scalars and keys) of the anchored subtree, both known when
 * the anchor closes and checked before copying: a billion-laughs file fails after at most
 * max_alias_nodes copied nodes, one huge anchored string after at most max_alias_bytes copied
 * bytes, never exponentially (docs/manifest.md#limits).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/doc_int.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

/* Mappings with more members than this get a hash table for the duplicate-key check. */
#define MAP_LINEAR_MAX 16

typedef struct keyset {
    const cJSON **slot; /* members, hashed by key; NULL = empty */
    size_t mask, n;
} keyset;

typedef struct frame {
    cJSON *node, *last;
    bool is_map;
    char *key;      /* pending key of a mapping (cJSON allocator), NULL when a key is expected */
    tg_pos key_pos;
    size_t count;   /* nodes in this subtree so far, itself included */
    size_t bytes;   /* text bytes (scalars, keys of members) in this subtree so far */
    int height;     /* collection levels in this subtree, itself included */
    long anchor;    /* index into ld.anchors, or -1 */
    size_t members;
    keyset ks;
} frame;

typedef struct anchor {
    char *name;
    cJSON *node;    /* in the tree, or a detached key scalar (owned) */
    bool owned;
    bool done;      /* false while the anchored collection is still open */
    size_t count;
    size_t bytes;   /* text bytes an alias of it copies */
    int height;
    tg_pos pos;
} anchor;

typedef struct ld {
    yaml_parser_t parser;
    const char *text;
    size_t len;
    tg_posmap *pos;
    tg_err *err;
    int max_depth;
    size_t max_alias, alias_nodes;
    size_t max_alias_bytes, alias_bytes;
    frame *st;
    size_t nst, capst;
    anchor *an;
    size_t nan, capan;
    uint32_t *ah; /* anchor name → index + 1, latest definition wins */
    size_t ahmask;
    cJSON *root;
    int ndocs;
    bool parser_ready;
} ld;

/* ------------------------------------------------------------------------------------------ */
/* small helpers                                                                               */

static cJSON *chk(cJSON *n)
{
    if (!n)
        tg_oom(sizeof(cJSON));
    return n;
}

/* A string the tree may own: cJSON_Delete frees with cJSON's allocator. */
static char *cj_strndup(const char *s, size_t n)
{
    char *p = cJSON_malloc(n + 1);
    if (!p)
        tg_oom(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static tg_pos mark_pos(yaml_mark_t m)
{
    return (tg_pos){(int)m.line + 1, (int)m.column + 1};
}

static int fail(ld *L, tg_pos at, const char *fmt, ...) TG_PRINTF(3, 4);
static int fail(ld *L, tg_pos at, const char *fmt, ...)
{
    if (!L->err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err->msg, sizeof L->err->msg, fmt, ap);
    va_end(ap);
    L->err->line = at.line;
    L->err->col = at.col;
    return -1;
}

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* "!!int" for core tags, the tag itself otherwise. */
static void tag_name(const char *tag, char *out, size_t n)
{
    size_t pl = sizeof TAG_PREFIX - 1;
    if (strncmp(tag, TAG_PREFIX, pl) == 0)
        snprintf(out, n, "!!%s", tag + pl);
    else
        snprintf(out, n, "%s", tag);
}

static int bad_tag(ld *L, tg_pos at, const char *tag)
{
    char t[200];
    tag_name(tag, t, sizeof t);
    return fail(L, at,
                "unsupported tag %s: toolgen reads YAML as JSON and accepts only !!str, !!int, "
                "!!float, !!bool, !!null, !!map and !!seq; remove the tag",
                t);
}

/* ------------------------------------------------------------------------------------------ */
/* anchors                                                                                     */

static long anchor_find(const ld *L, const char *name)
{
    if (!L->ah)
        return -1;
    for (size_t s = str_hash(name) & L->ahmask; L->ah[s]; s = (s + 1) & L->ahmask)
        if (strcmp(L->an[L->ah[s] - 1].name, name) == 0)
            return (long)L->ah[s] - 1;
    return -1;
}

static void anchor_index(ld *L, size_t idx)
{
    const char *name = L->an[idx].name;
    size_t s = str_hash(name) & L->ahmask;
    while (L->ah[s] && strcmp(L->an[L->ah[s] - 1].name, name) != 0)
        s = (s + 1) & L->ahmask;
    L->ah[s] = (uint32_t)idx + 1; /* a redefinition replaces the old one */
}

static long anchor_add(ld *L, const char *name, cJSON *node, bool owned, size_t bytes, tg_pos pos)
{
    if (L->nan == L->capan) {
        L->capan = L->capan ? L->capan * 2 : 16;
        L->an = xrealloc(L->an, L->capan * sizeof *L->an);
    }
    if ((L->nan + 1) * 2 > (L->ah ? L->ahmask + 1 : 0)) {
        size_t cap = L->ah ? (L->ahmask + 1) * 2 : 32;
        free(L->ah);
        L->ah = xcalloc(cap, sizeof *L->ah);
        L->ahmask = cap - 1;
        for (size_t i = 0; i < L->nan; i++)
            anchor_index(L, i);
    }
    size_t idx = L->nan++;
    L->an[idx] = (anchor){xstrdup(name), node, owned, false, 1, bytes, 0, pos};
    anchor_index(L, idx);
    return (long)idx;
}

/* ------------------------------------------------------------------------------------------ */
/* duplicate keys                                                                              */

static void ks_insert(keyset *k, const cJSON *m)
{
    size_t s = str_hash(m->string) & k->mask;
    while (k->slot[s])
        s = (s + 1) & k->mask;
    k->slot[s] = m;
    k->n++;
}

static void ks_build(keyset *k, const cJSON *map, size_t members)
{
    size_t cap = 64;
    while (cap < members * 4)
        cap *= 2;
    free(k->slot);
    k->slot = xcalloc(cap, sizeof *k->slot);
    k->mask = cap - 1;
    k->n = 0;
    for (const cJSON *c = map->child; c; c = c->next)
        ks_insert(k, c);
}

static const cJSON *ks_find(const frame *f, const char *key)
{
    if (!f->ks.slot) {
        for (const cJSON *c = f->node->child; c; c = c->next)
            if (strcmp(c->string, key) == 0)
                return c;
        return NULL;
    }
    for (size_t s = str_hash(key) & f->ks.mask; f->ks.slot[s]; s = (s + 1) & f->ks.mask)
        if (strcmp(f->ks.slot[s]->string, key) == 0)
            return f->ks.slot[s];
    return NULL;
}

static void ks_add(frame *f, const cJSON *m)
{
    if (f->ks.slot) {
        if ((f->ks.n + 1) * 2 > f->ks.mask + 1)
            ks_build(&f->ks, f->node, f->members);
        else
            ks_insert(&f->ks, m);
    } else if (f->members > MAP_LINEAR_MAX) {
        ks_build(&f->ks, f->node, f->members);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* core schema                                                                                 */

static bool is_null_word(const char *v, size_t n)
{
    return n == 0 || (n == 1 && v[0] == '~') ||
           (n == 4 && (!memcmp(v, "null", 4) || !memcmp(v, "Null", 4) || !memcmp(v, "NULL", 4)));
}

/* 1 true, 0 false, -1 not a core-schema boolean (so yes/no/on/off stay strings). */
static int bool_word(const char *v, size_t n)
{
    if (n == 4 && (!memcmp(v, "true", 4) || !memcmp(v, "True", 4) || !memcmp(v, "TRUE", 4)))
        return 1;
    if (n == 5 && (!memcmp(v, "false", 5) || !memcmp(v, "False", 5) || !memcmp(v, "FALSE", 5)))
        return 0;
    return -1;
}

static bool all_digits(const char *v, size_t n, int base)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)v[i];
        bool ok = base == 8    ? c - '0' < 8
                  : base == 10 ? c - '0' < 10
                               : (c - '0' < 10 || (c | 0x20) - 'a' < 6);
        if (!ok)
            return false;
    }
    return true;
}

/* Appends a digit run without its leading zeros (keeping one digit). */
static void put_digits(tg_buf *b, const char *d, size_t n)
{
    while (n > 1 && d[0] == '0')
        d++, n--;
    tg_buf_append(b, d, n);
}

/*
 * Core-schema int → decimal JSON text in b. Returns 1 when v is an int, 0 when not,
 * -1 when it is a hex/octal int too large for 64 bits.
 */
static int int_text(const char *v, size_t n, tg_buf *b)
{
    if (n > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'x')) {
        int base = v[1] == 'o' ? 8 : 16;
        if (!all_digits(v + 2, n - 2, base))
            return 0;
        uint64_t u = 0;
        for (size_t i = 2; i < n; i++) {
            unsigned c = (unsigned char)v[i];
            unsigned d = c - '0' < 10 ? c - '0' : (c | 0x20) - 'a' + 10;
            if (u > (UINT64_MAX - d) / (uint64_t)base)
                return -1;
            u = u * (uint64_t)base + d;
        }
        tg_buf_printf(b, "%llu", (unsigned long long)u);
        return 1;
    }
    size_t i = 0;
    bool neg = false;
    if (n && (v[0] == '-' || v[0] == '+'))
        neg = v[i++] == '-';
    if (!all_digits(v + i, n - i, 10))
        return 0;
    if (neg)
        tg_buf_putc(b, '-');
    put_digits(b, v + i, n - i);
    return 1;
}

/*
 * Core-schema float `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` → JSON number text
 * (no '+', a digit before and after the point). Returns 1 when v is such a float, else 0.
 */
static int float_text(const char *v, size_t n, tg_buf *b)
{
    size_t i = 0, ip, il = 0, fp = 0, fl = 0, ep = 0;
    bool neg = false, dot = false;
    if (i < n && (v[i] == '-' || v[i] == '+'))
        neg = v[i++] == '-';
    for (ip = i; i < n && (unsigned)(v[i] - '0') < 10; i++)
        il++;
    if (i < n && v[i] == '.') {
        dot = true;
        for (fp = ++i; i < n && (unsigned)(v[i] - '0') < 10; i++)
            fl++;
    }
    if (il == 0 && fl == 0)
        return 0;
    if (il == 0 && !dot)
        return 0;
    if (i < n && (v[i] == 'e' || v[i] == 'E')) {
        ep = i++;
        if (i < n && (v[i] == '-' || v[i] == '+'))
            i++;
        if (!all_digits(v + i, n - i, 10))
            return 0;
        i = n;
    }
    if (i != n)
        return 0;
    if (neg)
        tg_buf_putc(b, '-');
    if (il)
        put_digits(b, v + ip, il);
    else
        tg_buf_putc(b, '0');
    if (dot) {
        tg_buf_putc(b, '.');
        if (fl)
            tg_buf_append(b, v + fp, fl);
        else
            tg_buf_putc(b, '0');
    }
    if (ep)
        tg_buf_append(b, v + ep, n - ep);
    return 1;
}

static bool is_inf_nan(const char *v, size_t n)
{
    if (n && (v[0] == '-' || v[0] == '+'))
        v++, n--;
    if (n == 4 && (!memcmp(v, ".inf", 4) || !memcmp(v, ".Inf", 4) || !memcmp(v, ".INF", 4)))
        return true;
    return n == 4 && (!memcmp(v, ".nan", 4) || !memcmp(v, ".NaN", 4) || !memcmp(v, ".NAN", 4));
}

static cJSON *number_node(const char *text)
{
    cJSON *n = chk(cJSON_CreateNumber(strtod(text, NULL)));
    n->valuestring = cj_strndup(text, strlen(text));
    return n;
}

enum { K_STR, K_INT, K_FLOAT, K_BOOL, K_NULL, K_ANY };

/* Which explicit tag a scalar carries: K_ANY = resolve by the core schema. -1 = refused. */
static int scalar_kind(ld *L, const yaml_event_t *ev, tg_pos at)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    if (!tag)
        return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? K_ANY : K_STR;
    if (!strcmp(tag, "!") || !strcmp(tag, YAML_STR_TAG))
        return K_STR; /* "!" is the non-specific tag: the scalar is a string */
    if (!strcmp(tag, YAML_INT_TAG))
        return K_INT;
    if (!strcmp(tag, YAML_FLOAT_TAG))
        return K_FLOAT;
    if (!strcmp(tag, YAML_BOOL_TAG))
        return K_BOOL;
    if (!strcmp(tag, YAML_NULL_TAG))
        return K_NULL;
    if (!strcmp(tag, YAML_MAP_TAG) || !strcmp(tag, YAML_SEQ_TAG)) {
        char t[64];
        tag_name(tag, t, sizeof t);
        return fail(L, at, "tag %s on a scalar: it belongs on a %s", t,
                    strcmp(tag, YAML_MAP_TAG) ? "sequence" : "mapping");
    }
    return bad_tag(L, at, tag);
}

static cJSON *scalar_node(ld *L, const yaml_event_t *ev, tg_pos at)
{
    const char *v = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    if (memchr(v, '\0', n)) {
        fail(L, at, "string contains a NUL character (\\0), which toolgen cannot represent");
        return NULL;
    }
    int kind = scalar_kind(L, ev, at);
    if (kind < 0)
        return NULL;
    if (kind == K_STR)
        return chk(cJSON_CreateString(v));
    if ((kind == K_ANY || kind == K_NULL) && is_null_word(v, n))
        return chk(cJSON_CreateNull());
    int bv = bool_word(v, n);
    if ((kind == K_ANY || kind == K_BOOL) && bv >= 0)
        return chk(cJSON_CreateBool(bv));
    if (kind == K_ANY || kind == K_INT || kind == K_FLOAT) {
        if (is_inf_nan(v, n)) {
            fail(L, at,
                 "'%s' is not a finite number and JSON cannot hold it; quote it (\"%s\") for a "
                 "string, or use a large finite number",
                 v, v);
            return NULL;
        }
        tg_buf b = TG_BUF_INIT;
        int r = int_text(v, n, &b);
        if (r < 0) {
            tg_buf_free(&b);
            char q[128];
            tg_json_quote_for_message(v, q, sizeof q);
            fail(L, at, "integer %s does not fit in 64 bits; write it in decimal", q);
            return NULL;
        }
        if (r == 0 && kind != K_INT)
            r = float_text(v, n, &b);
        if (r > 0) {
            cJSON *num = number_node(b.data);
            tg_buf_free(&b);
            return num;
        }
        tg_buf_free(&b);
    }
    if (kind == K_ANY)
        return chk(cJSON_CreateString(v));
    char q[128];
    tg_json_quote_for_message(v, q, sizeof q);
    static const char *const what[] = {"", "an integer", "a number", "a boolean (true or false)",
                                       "null (~, null or empty)"};
    fail(L, at, "%s is not %s, as its tag requires", q, what[kind]);
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* tree building                                                                               */

static frame *top(ld *L)
{
    return L->nst ? &L->st[L->nst - 1] : NULL;
}

/* Gives every node below copy the position of its counterpart below orig. */
static void copy_positions(ld *L, const cJSON *orig, const cJSON *copy)
{
    const cJSON *o = orig->child, *c = copy->child;
    for (; o && c; o = o->next, c = c->next) {
        tg_pos p = tg_posmap_get(L->pos, o);
        tg_posmap_put(L->pos, c, p.line, p.col);
        copy_positions(L, o, c);
    }
}

/*
 * Attaches a freshly made node (count nodes, bytes of text, height collection levels) where the
 * stack says; a mapping member's key counts towards the mapping's bytes.
 */
static void attach(ld *L, cJSON *node, tg_pos at, size_t count, size_t bytes, int height)
{
    frame *f = top(L);
    if (!f) {
        L->root = node;
        tg_posmap_put(L->pos, node, at.line, at.col);
        return;
    }
    if (f->is_map) {
        bytes += strlen(f->key);
        node->string = f->key;
        f->key = NULL;
        at = f->key_pos; /* members are found by their key */
    }
    if (!f->last) {
        f->node->child = node;
    } else {
        f->last->next = node;
        node->prev = f->last;
    }
    f->last = node;
    f->node->child->prev = node; /* cJSON keeps the tail there for O(1) appends */
    f->count += count;
    f->bytes += bytes;
    if (height + 1 > f->height)
        f->height = height + 1;
    tg_posmap_put(L->pos, node, at.line, at.col);
    if (f->is_map) {
        f->members++;
        ks_add(f, node);
    }
}

static int on_key(ld *L, const yaml_event_t *ev)
{
    frame *f = top(L);
    tg_pos at = mark_pos(ev->start_mark);
    const char *v = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    if (memchr(v, '\0', n))
        return fail(L, at, "mapping key contains a NUL character (\\0), which toolgen cannot represent");
    if (tag && scalar_kind(L, ev, at) < 0)
        return -1;
    if (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && n == 2 && !memcmp(v, "<<", 2))
        return fail(L, at,
                    "merge keys (<<) are not supported in YAML 1.2; repeat the keys or use an "
                    "anchor on the whole mapping");
    const cJSON *dup = ks_find(f, v);
    if (dup) {
        tg_pos first = tg_posmap_get(L->pos, dup);
        char q[128];
        tg_json_quote_for_message(v, q, sizeof q);
        return fail(L, at, "duplicate key %s: first defined at line %d, column %d; keys must be unique",
                    q, first.line, first.col);
    }
    f->key = cj_strndup(v, n);
    f->key_pos = at;
    if (ev->data.scalar.anchor) { /* &a key: the key is not in the tree, so the anchor owns a copy */
        long a = anchor_add(L, (const char *)ev->data.scalar.anchor, chk(cJSON_CreateString(v)), true,
                            n, at);
        L->an[a].done = true;
    }
    return 0;
}

static int on_scalar(ld *L, const yaml_event_t *ev)
{
    frame *f = top(L);
    if (f && f->is_map && !f->key)
        return on_key(L, ev);
    tg_pos at = mark_pos(ev->start_mark);
    cJSON *node = scalar_node(L, ev, at);
    if (!node)
        return -1;
    attach(L, node, at, 1, ev->data.scalar.length, 0);
    if (ev->data.scalar.anchor) {
        long a = anchor_add(L, (const char *)ev->data.scalar.anchor, node, false,
                            ev->data.scalar.length, at);
        L->an[a].done = true;
    }
    return 0;
}

static int on_alias(ld *L, const yaml_event_t *ev)
{
    tg_pos at = mark_pos(ev->start_mark);
    const char *anchor_name = (const char *)ev->data.alias.anchor;
    char name[80]; /* anchor names come from the file: messages show at most 64 bytes of one */
    snprintf(name, sizeof name, "%.64s%s", anchor_name, strlen(anchor_name) > 64 ? "..." : "");
    frame *f = top(L);
    if (f && f->is_map && !f->key)
        return fail(L, at, "an alias (*%s) cannot be a mapping key here; write the key out", name);
    long ai = anchor_find(L, anchor_name);
    if (ai < 0)
        return fail(L, at, "unknown alias *%s: no anchor &%s is defined before it", name, name);
    const anchor *a = &L->an[ai];
    if (!a->done)
        return fail(L, at,
                    "alias cycle: *%s refers to the node anchored at line %d, column %d, which "
                    "contains the alias",
                    name, a->pos.line, a->pos.col);
    if (a->count > L->max_alias - L->alias_nodes)
        return fail(L, at,
                    "alias *%s would expand to %zu more nodes, over the limit of %zu nodes that "
                    "alias expansion may create in one document (a \"billion laughs\" document?); "
                    "use fewer aliases (see docs/manifest.md#limits)",
                    name, a->count, L->max_alias);
    if (a->bytes > L->max_alias_bytes - L->alias_bytes)
        return fail(L, at,
                    "alias *%s would copy %zu more bytes of text (the anchor at line %d, column "
                    "%d), over the limit of %zu bytes that alias expansion may create in one "
                    "document; use fewer aliases or write the value out (see "
                    "docs/manifest.md#limits)",
                    name, a->bytes, a->pos.line, a->pos.col, L->max_alias_bytes);
    if ((size_t)a->height + L->nst > (size_t)L->max_depth)
        return fail(L, at,
                    "alias *%s would nest deeper than %d levels; flatten the document (see "
                    "docs/manifest.md#limits)",
                    name, L->max_depth);
    L->alias_nodes += a->count;
    L->alias_bytes += a->bytes;
    cJSON *copy = chk(cJSON_Duplicate(a->node, true));
    if (copy->string) { /* the anchored node's own key is not part of its value */
        cJSON_free(copy->string);
        copy->string = NULL;
    }
    copy_positions(L, a->node, copy);
    attach(L, copy, at, a->count, a->bytes, a->height);
    return 0;
}

static int check_collection_tag(ld *L, const char *tag, bool is_map, tg_pos at)
{
    if (!tag || !strcmp(tag, "!") || !strcmp(tag, is_map ? YAML_MAP_TAG : YAML_SEQ_TAG))
        return 0;
    if (!strcmp(tag, is_map ? YAML_SEQ_TAG : YAML_MAP_TAG) || !strcmp(tag, YAML_STR_TAG) ||
        !strcmp(tag, YAML_INT_TAG) || !strcmp(tag, YAML_FLOAT_TAG) || !strcmp(tag, YAML_BOOL_TAG) ||
        !strcmp(tag, YAML_NULL_TAG)) {
        char t[64];
        tag_name(tag, t, sizeof t);
        return fail(L, at, "tag %s does not fit a %s", t, is_map ? "mapping" : "sequence");
    }
    return bad_tag(L, at, tag);
}

static int on_start(ld *L, const yaml_event_t *ev, bool is_map)
{
    tg_pos at = mark_pos(ev->start_mark);
    frame *f = top(L);
    if (f && f->is_map && !f->key)
        return fail(L, at,
                    "a %s cannot be a mapping key: toolgen reads YAML as JSON, whose keys are "
                    "strings",
                    is_map ? "mapping" : "sequence");
    if (L->nst >= (size_t)L->max_depth)
        return fail(L, at, "nesting deeper than %d levels; flatten the document (see "
                           "docs/manifest.md#limits)",
                    L->max_depth);
    const char *tag = (const char *)(is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    if (check_collection_tag(L, tag, is_map, at) < 0)
        return -1;
    cJSON *node = chk(is_map ? cJSON_CreateObject() : cJSON_CreateArray());
    attach(L, node, at, 0, 0, 0); /* count, bytes and height are added when it closes */
    const yaml_char_t *aname = is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    long a = aname ? anchor_add(L, (const char *)aname, node, false, 0, at) : -1;
    if (L->nst == L->capst) {
        L->capst = L->capst ? L->capst * 2 : 32;
        L->st = xrealloc(L->st, L->capst * sizeof *L->st);
    }
    L->st[L->nst++] = (frame){node, NULL, is_map, NULL, {0, 0}, 1, 0, 1, a, 0, {NULL, 0, 0}};
    return 0;
}

static void on_end(ld *L)
{
    frame f = L->st[--L->nst];
    free(f.ks.slot);
    if (f.anchor >= 0) {
        anchor *a = &L->an[f.anchor];
        a->done = true;
        a->count = f.count;
        a->bytes = f.bytes;
        a->height = f.height;
    }
    frame *p = top(L);
    if (p) {
        p->count += f.count;
        p->bytes += f.bytes;
        if (f.height + 1 > p->height)
            p->height = f.height + 1;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* libyaml errors                                                                              */

/* Byte offset of a 0-based line/column (columns in characters) in the text. */
static size_t mark_offset(const ld *L, size_t line, size_t col)
{
    size_t i = 0;
    for (; i < L->len && line; i++)
        if (L->text[i] == '\n')
            line--;
    for (; i < L->len && col && L->text[i] != '\n'; col--) {
        i++;
        while (i < L->len && ((unsigned char)L->text[i] & 0xC0) == 0x80)
            i++;
    }
    return i;
}

static const char *syntax_hint(const ld *L, const yaml_parser_t *p)
{
    size_t off = mark_offset(L, p->problem_mark.line, p->problem_mark.column);
    char c = off < L->len ? L->text[off] : '\0';
    if (c == '\t')
        return "; YAML does not allow tabs for indentation, use spaces";
    if ((c == '@' || c == '`') && strstr(p->problem, "cannot start any token"))
        return "; '@' and '`' are reserved in YAML, quote the value";
    if (strstr(p->problem, "expected <document start>"))
        return "; a file holds one YAML document and nothing may follow it";
    if (strstr(p->problem, "mapping values are not allowed"))
        return "; is there a ': ' inside an unquoted value? quote the value";
    return "";
}

static int yaml_failure(ld *L)
{
    const yaml_parser_t *p = &L->parser;
    const char *problem = p->problem ? p->problem : "unknown problem";
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        tg_oom(0); /* libyaml does not say how much it wanted */
        return -1;
    case YAML_READER_ERROR: {
        tg_pos at = tg_text_pos(L->text, L->len, p->problem_offset);
        if (p->problem_value >= 0)
            return fail(L, at, "invalid character U+%04X: %s in YAML", (unsigned)p->problem_value,
                        problem);
        return fail(L, at, "cannot read the YAML text: %s", problem);
    }
    default: {
        tg_pos at = mark_pos(p->problem_mark);
        bool same = p->context_mark.line == p->problem_mark.line &&
                    p->context_mark.column == p->problem_mark.column;
        if (p->context && same)
            return fail(L, at, "YAML syntax error: %s (%s)%s", problem, p->context, syntax_hint(L, p));
        if (p->context)
            return fail(L, at, "YAML syntax error: %s (%s that started at line %d, column %d)%s",
                        problem, p->context, (int)p->context_mark.line + 1,
                        (int)p->context_mark.column + 1, syntax_hint(L, p));
        return fail(L, at, "YAML syntax error: %s%s", problem, syntax_hint(L, p));
    }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* driver                                                                                      */

/* 1 at the end of the stream, 0 to go on, -1 on error. */
static int on_event(ld *L, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (L->ndocs++ > 0)
            return fail(L, mark_pos(ev->start_mark),
                        "a second YAML document starts here; toolgen reads one document per file, "
                        "split it into separate files");
        return 0;
    case YAML_SCALAR_EVENT:
        return on_scalar(L, ev);
    case YAML_ALIAS_EVENT:
        return on_alias(L, ev);
    case YAML_SEQUENCE_START_EVENT:
        return on_start(L, ev, false);
    case YAML_MAPPING_START_EVENT:
        return on_start(L, ev, true);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        on_end(L);
        return 0;
    case YAML_STREAM_END_EVENT:
        return 1;
    default:
        return 0;
    }
}

static void ld_free(ld *L)
{
    for (size_t i = 0; i < L->nst; i++) {
        cJSON_free(L->st[i].key);
        free(L->st[i].ks.slot);
    }
    free(L->st);
    for (size_t i = 0; i < L->nan; i++) {
        free(L->an[i].name);
        if (L->an[i].owned)
            cJSON_Delete(L->an[i].node);
    }
    free(L->an);
    free(L->ah);
    if (L->parser_ready)
        yaml_parser_delete(&L->parser);
}

static int yaml_to_json(ld *L)
{
    if (tg_utf8_validate(L->text, L->len, L->err) < 0)
        return -1;
    if (!yaml_parser_initialize(&L->parser))
        tg_oom(sizeof(yaml_parser_t));
    L->parser_ready = true;
    yaml_parser_set_encoding(&L->parser, YAML_UTF8_ENCODING);
    yaml_parser_set_input_string(&L->parser, (const unsigned char *)L->text, L->len);
    int rc;
    do {
        yaml_event_t ev;
        if (!yaml_parser_parse(&L->parser, &ev)) {
            rc = yaml_failure(L);
            break;
        }
        rc = on_event(L, &ev);
        yaml_event_delete(&ev);
    } while (rc == 0);
    if (rc > 0 && !L->root) { /* an empty stream is a null document */
        L->root = chk(cJSON_CreateNull());
        tg_posmap_put(L->pos, L->root, 1, 1);
    }
    return rc > 0 ? 0 : -1;
}

int tg_doc_parse_yaml(const char *text, size_t len, const char *name, const tg_doc_limits *lim,
                      tg_doc *out, tg_err *err)
{
    if (tg_doc_begin(&text, &len, &name, lim, out, err) != 0)
        return -1;
    ld L;
    memset(&L, 0, sizeof L);
    L.text = text;
    L.len = len;
    L.err = err;
    L.pos = tg_posmap_new();
    L.max_depth = tg_doc_max_depth(lim);
    L.max_alias = lim && lim->max_alias_nodes ? lim->max_alias_nodes : 100000;
    L.max_alias_bytes = lim && lim->max_alias_bytes ? lim->max_alias_bytes : tg_doc_max_bytes(lim);
    int rc = yaml_to_json(&L);
    ld_free(&L);
    if (rc < 0) {
        cJSON_Delete(L.root);
        L.root = NULL;
    }
    return tg_doc_end(L.root, L.pos, name, out, err);
}
