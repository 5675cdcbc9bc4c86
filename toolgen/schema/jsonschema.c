/*
 * jsonschema.c — schema registry and compiler (validation is in jsonschema_validate.c).
 *
 * Compiling runs in passes over the schema documents:
 *   1. scan: every subschema position of a document is visited once to register schema
 *      resources ($id, resolved per RFC 3986 against the enclosing base), $anchor and
 *      $dynamicAnchor names, and which resource each subschema belongs to;
 *   2. compile: nodes are created from a worklist (no recursion through $ref chains), each
 *      keyword checked and converted; $ref targets are resolved to nodes, loading documents from
 *      the registry on first reference;
 *   3. checks: $ref/allOf cycles that can never consume the instance are rejected, and each node
 *      learns whether it can produce evaluated-property/item annotations, so that only schemas
 *      using unevaluated* pay for tracking them.
 */
#include "schema/jsonschema.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/strvec.h"
#include "schema/jsformat.h"
#include "schema/jsnum.h"
#include "schema/jsonschema_int.h"
#include "schema/jsuri.h"

#define META_2020_12 "https://json-schema.org/draft/2020-12/schema"
#define DEFAULT_BASE "urn:toolgen:root"
#define MAX_SCAN_DEPTH 1000

/* ======================================================================== registry */

typedef struct reg_doc {
    char *uri;
    cJSON *doc;
} reg_doc;

typedef struct reg_dir {
    char *prefix;
    char *dir;
} reg_dir;

typedef struct reg_meta {
    char *uri;
    js_schema *schema;
} reg_meta;

struct js_registry {
    reg_doc *docs;
    size_t ndocs, capdocs;
    reg_dir *dirs;
    size_t ndirs, capdirs;
    reg_meta *metas;
    size_t nmetas, capmetas;
};

#define GROW(arr, n, cap)                                                                   \
    do {                                                                                    \
        if ((n) == (cap)) {                                                                 \
            (cap) = (cap) ? (cap) * 2 : 8;                                                  \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                                 \
        }                                                                                   \
    } while (0)

js_registry *js_registry_new(void)
{
    return xcalloc(1, sizeof(js_registry));
}

void js_registry_free(js_registry *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ndocs; i++) {
        free(r->docs[i].uri);
        cJSON_Delete(r->docs[i].doc);
    }
    for (size_t i = 0; i < r->ndirs; i++) {
        free(r->dirs[i].prefix);
        free(r->dirs[i].dir);
    }
    for (size_t i = 0; i < r->nmetas; i++) {
        free(r->metas[i].uri);
        js_schema_free(r->metas[i].schema);
    }
    free(r->docs);
    free(r->dirs);
    free(r->metas);
    free(r);
}

int js_registry_add_dir(js_registry *r, const char *uri_prefix, const char *dir, tg_err *err)
{
    if (!uri_prefix || !*uri_prefix || !dir)
        return tg_err_set(err, "js_registry_add_dir: empty URI prefix or directory");
    if (!tg_is_dir(dir))
        return tg_err_setpos(err, dir, 0, 0, "schema directory for %s does not exist", uri_prefix);
    GROW(r->dirs, r->ndirs, r->capdirs);
    /* a prefix names a folder: "https://x.test/s" must not match "https://x.test/sx/..." */
    bool folder = tg_str_endswith(uri_prefix, "/") || tg_str_endswith(uri_prefix, ":");
    r->dirs[r->ndirs].prefix = folder ? xstrdup(uri_prefix) : xasprintf("%s/", uri_prefix);
    r->dirs[r->ndirs].dir = xstrdup(dir);
    r->ndirs++;
    return 0;
}

int js_registry_add_metaschemas(js_registry *r, tg_err *err)
{
    const char *data = tg_datadir();
    if (!data)
        return tg_err_set(err, "cannot find toolgen's data directory for the bundled meta-schemas "
                               "(set TOOLGEN_DATADIR)");
    char *dir = tg_path_join(data, "schemas/meta");
    int rc = js_registry_add_dir(r, "https://json-schema.org/", dir, err);
    free(dir);
    return rc;
}

static void reg_put(js_registry *r, const char *uri, cJSON *doc)
{
    for (size_t i = 0; i < r->ndocs; i++)
        if (strcmp(r->docs[i].uri, uri) == 0) {
            cJSON_Delete(r->docs[i].doc);
            r->docs[i].doc = doc;
            return;
        }
    GROW(r->docs, r->ndocs, r->capdocs);
    r->docs[r->ndocs].uri = xstrdup(uri);
    r->docs[r->ndocs].doc = doc;
    r->ndocs++;
}

int js_registry_add_document(js_registry *r, const char *uri, const cJSON *doc, tg_err *err)
{
    if (!uri || !doc)
        return tg_err_set(err, "js_registry_add_document: missing URI or document");
    char *u = js_uri_strip_fragment(uri, NULL);
    cJSON *copy = cJSON_Duplicate(doc, 1);
    if (!copy) {
        free(u);
        return tg_err_set(err, "cannot copy schema document %s", uri);
    }
    reg_put(r, u, copy);
    free(u);
    return 0;
}

/* A URI path piece that must not escape the mapped directory. */
static bool safe_rel_path(const char *rest)
{
    if (!*rest || rest[0] == '/' || strchr(rest, '?') || strchr(rest, '#') || strchr(rest, '\\') ||
        strchr(rest, '%'))
        return false;
    for (const char *p = rest; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if ((n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.'))
            return false;
        p += n + (e ? 1 : 0);
    }
    return true;
}

static int load_file_doc(const char *path, cJSON **out, tg_err *err)
{
    tg_doc d;
    tg_doc_limits lim = {.max_bytes = TG_DOC_MAX_BYTES, .max_depth = 0, .max_alias_nodes = 0};
    if (tg_doc_load(path, &lim, &d, err) != 0)
        return -1;
    *out = d.root;
    d.root = NULL;
    tg_doc_free(&d);
    return 0;
}

/* 1: found (*out borrowed from the registry), 0: unknown URI, -1: a file failed to load. */
static int reg_fetch(js_registry *r, const char *uri, const cJSON **out, tg_err *err)
{
    for (size_t i = 0; i < r->ndocs; i++)
        if (strcmp(r->docs[i].uri, uri) == 0) {
            *out = r->docs[i].doc;
            return 1;
        }
    const reg_dir *best = NULL;
    for (size_t i = 0; i < r->ndirs; i++)
        if (tg_str_startswith(uri, r->dirs[i].prefix) &&
            (!best || strlen(r->dirs[i].prefix) > strlen(best->prefix)))
            best = &r->dirs[i];
    if (!best)
        return 0;
    const char *rest = uri + strlen(best->prefix);
    if (!safe_rel_path(rest))
        return 0;
    char *path = tg_path_join(best->dir, rest);
    if (!tg_is_file(path)) {
        const char *slash = strrchr(path, '/');
        bool has_ext = strchr(slash ? slash : path, '.') != NULL;
        char *alt = has_ext ? NULL : xasprintf("%s.json", path);
        free(path);
        path = alt;
        if (!path || !tg_is_file(path)) {
            free(path);
            return 0;
        }
    }
    cJSON *doc;
    int rc = load_file_doc(path, &doc, err);
    free(path);
    if (rc != 0)
        return -1;
    reg_put(r, uri, doc);
    *out = doc;
    return 1;
}

/* ======================================================================== compile context */

typedef struct smap_ent {
    const cJSON *key;
    js_res *res;
    js_node *node;
} smap_ent;

/* cJSON node → resource and compiled node (open addressing on the pointer). */
typedef struct smap {
    smap_ent *v;
    size_t cap, n;
} smap;

typedef struct uri_ent {
    char *uri;
    js_res *res;
} uri_ent;

typedef struct cc {
    js_schema *s;
    js_registry *reg;
    tg_err *err;
    bool failed;
    bool format_assert;
    smap map;
    uri_ent *idx;
    size_t nidx, capidx;
    char **doc_uris; /* parallel to s->docs */
    js_node **work;
    size_t nwork, capwork;
    js_node **all;
    size_t nall, capall;
} cc;

static size_t ptr_hash(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0xed5ad4bbU;
    x ^= x >> 11;
    return (size_t)x;
}

static smap_ent *smap_get(const smap *m, const cJSON *key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = ptr_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->v[i].key == key)
            return &m->v[i];
        if (!m->v[i].key)
            return NULL;
    }
}

static smap_ent *smap_put(smap *m, const cJSON *key)
{
    if ((m->n + 1) * 2 > m->cap) {
        smap old = *m;
        m->cap = old.cap ? old.cap * 2 : 256;
        m->v = xcalloc(m->cap, sizeof *m->v);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.v[i].key)
                *smap_put(m, old.v[i].key) = old.v[i];
        free(old.v);
    }
    size_t i = ptr_hash(key) & (m->cap - 1);
    while (m->v[i].key && m->v[i].key != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->v[i].key) {
        m->v[i].key = key;
        m->n++;
    }
    return &m->v[i];
}

/* Path of target inside cur as a JSON Pointer (appended to b). */
static bool find_path(const cJSON *cur, const cJSON *target, tg_buf *b)
{
    if (cur == target)
        return true;
    size_t mark = b->len, i = 0;
    for (const cJSON *ch = cur->child; ch; ch = ch->next, i++) {
        tg_buf_putc(b, '/');
        if (cJSON_IsObject(cur))
            tg_buf_pointer_token(b, ch->string ? ch->string : "");
        else
            tg_buf_printf(b, "%zu", i);
        if (find_path(ch, target, b))
            return true;
        tg_buf_truncate(b, mark);
    }
    return false;
}

/* "#/properties/a" for the root document, "URI#/..." for others. Heap string. */
static char *schema_location(const cc *c, const cJSON *node)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < c->s->ndocs; i++) {
        tg_buf_reset(&b);
        tg_buf_puts(&b, "");
        if (find_path(c->s->docs[i], node, &b)) {
            char *loc = i == 0 && strcmp(c->doc_uris[0], DEFAULT_BASE) == 0
                            ? xasprintf("#%s", b.data)
                            : xasprintf("%s#%s", c->doc_uris[i], b.data);
            tg_buf_free(&b);
            return loc;
        }
    }
    tg_buf_free(&b);
    return xstrdup("(schema)");
}

static void cc_fail(cc *c, const cJSON *at, const char *kw, const char *fmt, ...) TG_PRINTF(4, 5);
static void cc_fail(cc *c, const cJSON *at, const char *kw, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *loc = schema_location(c, at);
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, loc);
    if (kw) {
        tg_buf_putc(&b, '/');
        tg_buf_pointer_token(&b, kw);
    }
    tg_err_set(c->err, "invalid schema at %s: %s", b.data, msg);
    tg_buf_free(&b);
    free(loc);
}

static const char *json_type_name(const cJSON *v)
{
    switch (v->type & 0xFF) {
    case cJSON_NULL: return "null";
    case cJSON_True:
    case cJSON_False: return "boolean";
    case cJSON_Number: return "number";
    case cJSON_String: return "string";
    case cJSON_Array: return "array";
    case cJSON_Object: return "object";
    default: return "invalid";
    }
}

/* ======================================================================== resources */

static js_res *find_res(const cc *c, const char *uri)
{
    for (size_t i = 0; i < c->nidx; i++)
        if (strcmp(c->idx[i].uri, uri) == 0)
            return c->idx[i].res;
    return NULL;
}

static void index_uri(cc *c, const char *uri, js_res *r)
{
    if (find_res(c, uri))
        return; /* the first registration wins */
    GROW(c->idx, c->nidx, c->capidx);
    c->idx[c->nidx].uri = xstrdup(uri);
    c->idx[c->nidx].res = r;
    c->nidx++;
}

static js_res *res_new(cc *c, const char *uri, const cJSON *root, js_res *parent)
{
    js_res *r = tg_arena_alloc(&c->s->arena, sizeof *r);
    r->uri = tg_arena_strndup(&c->s->arena, uri, strlen(uri));
    r->root = root;
    r->parent = parent;
    js_schema *s = c->s;
    GROW(s->res, s->nres, s->capres);
    s->res[s->nres++] = r;
    index_uri(c, uri, r);
    return r;
}

static void add_anchor(cc *c, js_res *r, const char *name, const cJSON *src, bool dynamic)
{
    for (size_t i = 0; i < r->nanchors; i++)
        if (strcmp(r->anchors[i].name, name) == 0) {
            if (r->anchors[i].src != src)
                cc_fail(c, src, dynamic ? "$dynamicAnchor" : "$anchor",
                        "anchor \"%s\" is defined twice in resource %s", name, r->uri);
            r->anchors[i].dynamic |= dynamic;
            return;
        }
    if (r->nanchors == r->capanchors) {
        size_t cap = r->capanchors ? r->capanchors * 2 : 4;
        js_anchor *a = tg_arena_alloc(&c->s->arena, cap * sizeof *a);
        if (r->nanchors)
            memcpy(a, r->anchors, r->nanchors * sizeof *a);
        r->anchors = a;
        r->capanchors = cap;
    }
    js_anchor *a = &r->anchors[r->nanchors++];
    a->name = name;
    a->src = src;
    a->node = NULL;
    a->dynamic = dynamic;
}

/* ======================================================================== scan */

static void scan(cc *c, const cJSON *node, js_res *res, int depth);

static void scan_array(cc *c, const cJSON *arr, js_res *res, int depth)
{
    if (!cJSON_IsArray(arr))
        return;
    for (const cJSON *x = arr->child; x; x = x->next)
        scan(c, x, res, depth + 1);
}

static void scan_map(cc *c, const cJSON *obj, js_res *res, int depth)
{
    if (!cJSON_IsObject(obj))
        return;
    for (const cJSON *x = obj->child; x; x = x->next)
        if (cJSON_IsObject(x) || cJSON_IsBool(x))
            scan(c, x, res, depth + 1);
}

static const char *const SCAN_SINGLE[] = {
    "additionalProperties", "propertyNames", "contains", "if", "then", "else", "not",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems", "items", NULL,
};
static const char *const SCAN_MAP[] = {
    "$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies",
    NULL,
};
static const char *const SCAN_ARRAY[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items", NULL};

/* The absolute URI (heap, no fragment) an "$id" names against base; NULL after an error. */
static char *id_uri(cc *c, const cJSON *node, const cJSON *id, const char *base)
{
    char *abs = js_uri_resolve(base, id->valuestring);
    const char *frag;
    char *uri = js_uri_strip_fragment(abs, &frag);
    bool has_frag = frag && *frag; /* frag points into abs */
    free(abs);
    if (has_frag) {
        cc_fail(c, node, "$id", "\"$id\" must not contain a fragment (\"%s\"); use \"$anchor\"",
                id->valuestring);
        free(uri);
        return NULL;
    }
    return uri;
}

/* Resolves the "$id" of node against the enclosing resource and creates its resource. */
static js_res *scan_id(cc *c, const cJSON *node, const cJSON *id, js_res *res)
{
    char *uri = id_uri(c, node, id, res->uri);
    js_res *r = uri ? res_new(c, uri, node, res) : res;
    free(uri);
    return r;
}

static void scan(cc *c, const cJSON *node, js_res *res, int depth)
{
    if (c->failed)
        return;
    if (depth > MAX_SCAN_DEPTH) {
        cc_fail(c, node, NULL, "schema nesting deeper than %d levels", MAX_SCAN_DEPTH);
        return;
    }
    if (!cJSON_IsObject(node)) {
        if (cJSON_IsBool(node) && !smap_get(&c->map, node))
            smap_put(&c->map, node)->res = res;
        return;
    }
    if (smap_get(&c->map, node))
        return;
    js_res *r = res;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(node, "$id");
    if (cJSON_IsString(id) && node != res->root)
        r = scan_id(c, node, id, res);
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(node, "$schema");
    if (cJSON_IsString(sch) && node == r->root)
        r->schema_uri = sch->valuestring;
    smap_put(&c->map, node)->res = r;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(node, "$anchor");
    if (cJSON_IsString(a))
        add_anchor(c, r, a->valuestring, node, false);
    const cJSON *da = cJSON_GetObjectItemCaseSensitive(node, "$dynamicAnchor");
    if (cJSON_IsString(da))
        add_anchor(c, r, da->valuestring, node, true);
    for (const cJSON *m = node->child; m && !c->failed; m = m->next) {
        const char *k = m->string;
        if (!k)
            continue;
        if (tg_strlist_has(SCAN_SINGLE, k) && (cJSON_IsObject(m) || cJSON_IsBool(m)))
            scan(c, m, r, depth + 1);
        else if (tg_strlist_has(SCAN_MAP, k))
            scan_map(c, m, r, depth + 1);
        else if (tg_strlist_has(SCAN_ARRAY, k))
            scan_array(c, m, r, depth + 1);
    }
}

/* Takes ownership of doc (a copy) and scans it as the document retrieved from uri. */
static js_res *add_document(cc *c, cJSON *doc, const char *uri)
{
    js_schema *s = c->s;
    GROW(s->docs, s->ndocs, s->capdocs);
    c->doc_uris = xrealloc(c->doc_uris, s->capdocs * sizeof *c->doc_uris);
    s->docs[s->ndocs] = doc;
    c->doc_uris[s->ndocs] = xstrdup(uri);
    s->ndocs++;
    js_res *r;
    const cJSON *id = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "$id") : NULL;
    char *u = cJSON_IsString(id) ? id_uri(c, doc, id, uri) : NULL;
    if (u) {
        r = res_new(c, u, doc, NULL);
        index_uri(c, uri, r); /* also reachable under its retrieval URI */
        free(u);
    } else {
        r = res_new(c, uri, doc, NULL);
    }
    scan(c, doc, r, 0);
    return r;
}

/* The resource for an absolute URI (no fragment), loading it from the registry if needed. */
static js_res *get_res(cc *c, const char *uri, const cJSON *at, const char *kw)
{
    js_res *r = find_res(c, uri);
    if (r || c->failed)
        return r;
    const cJSON *doc = NULL;
    tg_err lerr = {{0}, 0, 0, {0}};
    int rc = c->reg ? reg_fetch(c->reg, uri, &doc, &lerr) : 0;
    if (rc < 0) {
        char buf[2200];
        tg_err_format(&lerr, buf, sizeof buf);
        cc_fail(c, at, kw, "cannot load %s: %s", uri, buf);
        return NULL;
    }
    if (rc == 0)
        return NULL;
    cJSON *copy = cJSON_Duplicate(doc, 1);
    if (!copy) {
        cc_fail(c, at, kw, "cannot copy schema document %s", uri);
        return NULL;
    }
    add_document(c, copy, uri);
    return find_res(c, uri);
}

/* ======================================================================== vocabularies */

#define VOCAB_URI(id, name) "https://json-schema.org/draft/2020-12/vocab/" name,
static const char *const VOCAB_URIS[JV_COUNT] = {JS_VOCABS(VOCAB_URI)}; /* of bit 1 << i */
#undef VOCAB_URI

/* Dialects before 2020-12, recognised by name: processed with 2020-12 keywords except that
 * array-form "items" is a tuple and "prefixItems" does not exist. */
static bool legacy_dialect(const char *uri)
{
    static const char *const L[] = {
        "https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-04/schema",
        "http://json-schema.org/draft-03/schema", NULL,
    };
    return tg_strlist_has(L, uri);
}

static unsigned vocab_of_meta(cc *c, const js_res *m, const js_res *user)
{
    const cJSON *voc = cJSON_IsObject(m->root)
                           ? cJSON_GetObjectItemCaseSensitive(m->root, "$vocabulary")
                           : NULL;
    if (!cJSON_IsObject(voc))
        return JV_DEFAULT;
    unsigned bits = JV_CORE;
    for (const cJSON *v = voc->child; v; v = v->next) {
        bool known = false;
        for (unsigned i = 0; i < JV_COUNT; i++)
            if (strcmp(v->string, VOCAB_URIS[i]) == 0) {
                bits |= 1u << i;
                known = true;
            }
        if (!known && cJSON_IsTrue(v))
            cc_fail(c, user->root, "$schema",
                    "meta-schema %s requires vocabulary %s, which is not supported", m->uri,
                    v->string);
    }
    return bits;
}

static unsigned res_vocab(cc *c, js_res *r)
{
    if (r->vocab_done)
        return r->vocab;
    r->vocab_done = true;
    r->vocab = JV_DEFAULT; /* also what a meta-schema cycle sees */
    if (!r->schema_uri) {
        if (r->parent) {
            r->vocab = res_vocab(c, r->parent);
            r->legacy = r->parent->legacy;
        }
        return r->vocab;
    }
    const char *frag;
    char *uri = js_uri_strip_fragment(r->schema_uri, &frag);
    if (strcmp(uri, META_2020_12) == 0) {
        /* the standard dialect */
    } else if (legacy_dialect(uri)) {
        r->legacy = true;
    } else {
        js_res *m = get_res(c, uri, r->root, "$schema");
        if (!m)
            cc_fail(c, r->root, "$schema", "cannot resolve meta-schema \"%s\" (only registered "
                    "documents and directories are used, never the network)", r->schema_uri);
        else
            r->vocab = vocab_of_meta(c, m, r);
    }
    free(uri);
    return r->vocab;
}

/* ======================================================================== nodes */

static js_node *get_node(cc *c, const cJSON *src)
{
    smap_ent *e = smap_get(&c->map, src);
    if (!e) {
        cc_fail(c, src, NULL, "internal error: subschema was not scanned");
        return NULL;
    }
    if (e->node)
        return e->node;
    js_node *n = tg_arena_alloc(&c->s->arena, sizeof *n);
    n->src = src;
    n->res = e->res;
    n->min_length = n->max_length = -1;
    n->min_items = n->max_items = n->min_contains = n->max_contains = -1;
    n->min_props = n->max_props = -1;
    e->node = n;
    GROW(c->work, c->nwork, c->capwork);
    c->work[c->nwork++] = n;
    GROW(c->all, c->nall, c->capall);
    c->all[c->nall++] = n;
    return n;
}

/* A subschema position: must be an object or a boolean. */
static js_node *sub(cc *c, const js_node *n, const char *kw, const cJSON *v)
{
    if (!cJSON_IsObject(v) && !cJSON_IsBool(v)) {
        cc_fail(c, n->src, kw, "expected a schema (object or boolean), got %s", json_type_name(v));
        return NULL;
    }
    return get_node(c, v);
}

static js_node **sub_array(cc *c, const js_node *n, const char *kw, const cJSON *v, size_t *count,
                           bool nonempty)
{
    if (!cJSON_IsArray(v) || (nonempty && !v->child)) {
        cc_fail(c, n->src, kw, "expected a %sarray of schemas, got %s",
                nonempty ? "non-empty " : "",
                cJSON_IsArray(v) ? "an empty array" : json_type_name(v));
        return NULL;
    }
    size_t k = (size_t)cJSON_GetArraySize(v);
    js_node **arr = tg_arena_alloc(&c->s->arena, (k ? k : 1) * sizeof *arr);
    size_t i = 0;
    for (const cJSON *x = v->child; x; x = x->next)
        arr[i++] = sub(c, n, kw, x);
    *count = k;
    return arr;
}

static long long nonneg_int(cc *c, const js_node *n, const char *kw, const cJSON *v)
{
    char b[40];
    if (!cJSON_IsNumber(v)) {
        cc_fail(c, n->src, kw, "expected a non-negative integer, got %s", json_type_name(v));
        return -1;
    }
    if (!(v->valuedouble >= 0) || !js_num_is_integer(v)) {
        cc_fail(c, n->src, kw, "expected a non-negative integer, got %s", js_num_text(v, b));
        return -1;
    }
    if (v->valuedouble > 9.0e18)
        return 9000000000000000000LL; /* larger limits cannot be reached anyway */
    return (long long)v->valuedouble;
}

/* ======================================================================== $ref resolution */

/* RFC 6901 reference token at *pp (up to '/' or the end), unescaped into a heap string. */
static char *pointer_token(const char **pp)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "");
    const char *p = *pp;
    for (; *p && *p != '/'; p++) {
        if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
            tg_buf_putc(&b, p[1] == '0' ? '~' : '/');
            p++;
        } else {
            tg_buf_putc(&b, *p);
        }
    }
    *pp = p;
    return tg_buf_steal(&b);
}

static bool array_index(const char *tok, size_t *out)
{
    if (!*tok || (tok[0] == '0' && tok[1]) || strlen(tok) > 9)
        return false;
    size_t v = 0;
    for (const char *p = tok; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (size_t)(*p - '0');
    }
    *out = v;
    return true;
}

/* Walks a JSON Pointer from r's root; *res_out is the resource of the deepest scanned node. */
static const cJSON *walk_pointer(cc *c, js_res *r, const char *ptr, js_res **res_out)
{
    const cJSON *cur = r->root;
    js_res *res = r;
    const char *p = ptr;
    while (cur && *p == '/') {
        p++;
        char *tok = pointer_token(&p);
        size_t i;
        if (cJSON_IsObject(cur))
            cur = cJSON_GetObjectItemCaseSensitive(cur, tok);
        else if (cJSON_IsArray(cur) && array_index(tok, &i))
            cur = cJSON_GetArrayItem(cur, (int)i);
        else
            cur = NULL;
        free(tok);
        const smap_ent *e = cur ? smap_get(&c->map, cur) : NULL;
        if (e)
            res = e->res;
    }
    *res_out = res;
    return *p ? NULL : cur;
}

/*
 * The schema a fragment designates inside resource r: the root, a JSON Pointer or an anchor.
 * *dyn_name is set when the fragment names a $dynamicAnchor (the "bookend" of $dynamicRef).
 */
static const cJSON *resolve_fragment(cc *c, js_res *r, const char *frag, const char **dyn_name)
{
    if (!frag || !*frag)
        return r->root;
    char *dec = js_uri_pct_decode(frag);
    if (!dec)
        return NULL;
    const cJSON *t = NULL;
    if (dec[0] == '/') {
        js_res *tres;
        t = walk_pointer(c, r, dec, &tres);
        if (t && !smap_get(&c->map, t) && (cJSON_IsObject(t) || cJSON_IsBool(t)))
            scan(c, t, tres, 0); /* e.g. a schema inside an unknown keyword */
    } else {
        for (size_t i = 0; i < r->nanchors; i++)
            if (strcmp(r->anchors[i].name, dec) == 0) {
                t = r->anchors[i].src;
                if (dyn_name && r->anchors[i].dynamic)
                    *dyn_name = r->anchors[i].name;
                break;
            }
    }
    free(dec);
    return t;
}

static js_node *resolve_ref(cc *c, js_node *n, const char *kw, const cJSON *v,
                            const char **dyn_name)
{
    if (!cJSON_IsString(v)) {
        cc_fail(c, n->src, kw, "expected a URI reference string, got %s", json_type_name(v));
        return NULL;
    }
    char *abs = js_uri_resolve(n->res->uri, v->valuestring);
    const char *frag;
    char *base = js_uri_strip_fragment(abs, &frag);
    js_node *target = NULL;
    js_res *r = get_res(c, base, n->src, kw);
    if (!r) {
        cc_fail(c, n->src, kw, "cannot resolve \"%s\": no schema is known as %s (references are "
                "resolved from the registry only, never over the network)", v->valuestring, base);
    } else {
        const cJSON *t = resolve_fragment(c, r, frag, dyn_name);
        if (!t)
            cc_fail(c, n->src, kw, "cannot resolve \"%s\": %s has no %s \"%s\"", v->valuestring,
                    base, frag && frag[0] == '/' ? "location" : "anchor", frag ? frag : "");
        else if (!cJSON_IsObject(t) && !cJSON_IsBool(t))
            cc_fail(c, n->src, kw, "\"%s\" points to a %s, not to a schema", v->valuestring,
                    json_type_name(t));
        else
            target = get_node(c, t);
    }
    free(base);
    free(abs);
    return target;
}

/* ======================================================================== keywords */

typedef struct pend {
    const cJSON *properties, *required, *additional_items;
    bool items_array;
} pend;

typedef void (*kw_fn)(cc *c, js_node *n, const cJSON *v, pend *p);

static void need_string(cc *c, js_node *n, const cJSON *v)
{
    if (!cJSON_IsString(v))
        cc_fail(c, n->src, v->string, "expected a string, got %s", json_type_name(v));
}

static void kw_string_only(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    need_string(c, n, v);
}

static void kw_defs(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    if (!cJSON_IsObject(v))
        cc_fail(c, n->src, v->string, "expected an object of schemas, got %s", json_type_name(v));
    for (const cJSON *d = v->child; d && !c->failed; d = d->next)
        if (!cJSON_IsObject(d) && !cJSON_IsBool(d))
            cc_fail(c, n->src, v->string, "\"%s\" is not a schema (object or boolean)", d->string);
}

static void kw_ref(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    n->ref = resolve_ref(c, n, "$ref", v, NULL);
}

static void kw_dynref(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    const char *name = NULL;
    n->dynref = resolve_ref(c, n, "$dynamicRef", v, &name);
    /* Only a fragment naming a $dynamicAnchor of the initially resolved resource makes the
     * reference dynamic; anything else behaves like $ref. */
    n->dynref_name = name;
    if (name)
        c->s->has_dynamic = true;
}

#define TYPE_NAME(id, name) name,
const char *const js_type_names[JT_COUNT] = {JS_TYPES(TYPE_NAME)};
#undef TYPE_NAME

static uint8_t type_bit(const cJSON *v)
{
    if (cJSON_IsString(v))
        for (unsigned i = 0; i < JT_COUNT; i++)
            if (strcmp(v->valuestring, js_type_names[i]) == 0)
                return (uint8_t)(1u << i);
    return 0;
}

static void kw_type(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    uint8_t t = 0;
    if (cJSON_IsArray(v) && v->child) {
        for (const cJSON *x = v->child; x; x = x->next) {
            uint8_t b = type_bit(x);
            if (!b || (t & b)) {
                cc_fail(c, n->src, "type", "%s in the type list",
                        b ? "duplicate type name" : "unknown type name");
                return;
            }
            t |= b;
        }
    } else {
        t = type_bit(v);
    }
    if (!t) {
        char *txt = cJSON_PrintUnformatted(v);
        cc_fail(c, n->src, "type", "expected one of null, boolean, object, array, number, string, "
                "integer (or a non-empty array of them), got %s", txt ? txt : "?");
        cJSON_free(txt);
        return;
    }
    n->types = t;
}

static void kw_const(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)c;
    (void)p;
    n->const_ = v;
}

static void kw_enum(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    if (!cJSON_IsArray(v))
        cc_fail(c, n->src, "enum", "expected an array of values, got %s", json_type_name(v));
    n->enum_ = v;
}

static const cJSON *need_number(cc *c, js_node *n, const cJSON *v)
{
    if (!cJSON_IsNumber(v)) {
        cc_fail(c, n->src, v->string, "expected a number, got %s", json_type_name(v));
        return NULL;
    }
    return v;
}

static void kw_multiple_of(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    n->multiple_of = need_number(c, n, v);
    if (n->multiple_of && !(v->valuedouble > 0))
        cc_fail(c, n->src, "multipleOf", "must be greater than 0");
}

static js_re *compile_regex(cc *c, js_node *n, const char *kw, const char *src)
{
    char msg[300];
    js_re *re = js_re_compile(src, msg, sizeof msg);
    if (!re) {
        cc_fail(c, n->src, kw, "invalid regular expression \"%s\": %s", src, msg);
        return NULL;
    }
    js_schema *s = c->s;
    GROW(s->codes, s->ncodes, s->capcodes);
    s->codes[s->ncodes++] = re;
    if (!re->fast)
        s->has_regex = true;
    return re;
}

static void kw_pattern(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    need_string(c, n, v);
    if (c->failed)
        return;
    n->pattern_src = v->valuestring;
    n->pattern = compile_regex(c, n, "pattern", v->valuestring);
}

static void kw_format(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    need_string(c, n, v);
    if (c->failed)
        return;
    n->format_name = v->valuestring;
    n->format = js_format_lookup(v->valuestring);
    n->format_assert = n->format != JS_FMT_UNKNOWN &&
                       (c->format_assert || (res_vocab(c, n->res) & JV_FORMAT_ASSERTION));
    if (n->format_assert)
        n->groups |= JK_STR;
}

static void kw_prefix_items(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    n->prefix = sub_array(c, n, "prefixItems", v, &n->nprefix, true);
    n->prefix_kw = "prefixItems";
}

static void kw_items(cc *c, js_node *n, const cJSON *v, pend *p)
{
    if (cJSON_IsArray(v)) {
        /* draft 2019-09 and earlier: a tuple; "additionalItems" then covers the rest */
        n->prefix = sub_array(c, n, "items", v, &n->nprefix, false);
        n->prefix_kw = "items";
        p->items_array = true;
        return;
    }
    n->items = sub(c, n, "items", v);
    n->items_kw = "items";
}

static void kw_additional_items(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)c;
    (void)n;
    p->additional_items = v;
}

static void kw_unique_items(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    if (!cJSON_IsBool(v))
        cc_fail(c, n->src, "uniqueItems", "expected a boolean, got %s", json_type_name(v));
    n->unique = cJSON_IsTrue(v);
    if (n->unique)
        n->groups |= JK_ARR;
}

static void kw_properties(cc *c, js_node *n, const cJSON *v, pend *p)
{
    if (!cJSON_IsObject(v))
        cc_fail(c, n->src, "properties", "expected an object of schemas, got %s",
                json_type_name(v));
    p->properties = v;
}

static void kw_required(cc *c, js_node *n, const cJSON *v, pend *p)
{
    bool ok = cJSON_IsArray(v);
    for (const cJSON *x = ok ? v->child : NULL; x; x = x->next)
        ok &= cJSON_IsString(x);
    if (!ok)
        cc_fail(c, n->src, "required", "expected an array of property names (strings)");
    p->required = v;
}

static void kw_pattern_properties(cc *c, js_node *n, const cJSON *v, pend *p)
{
    (void)p;
    if (!cJSON_IsObject(v)) {
        cc_fail(c, n->src, "patternProperties", "expected an object of schemas, got %s",
                json_type_name(v));
        return;
    }
    size_t k = (size_t)cJSON_GetArraySize(v), i = 0;
    n->pprops = tg_arena_alloc(&c->s->arena, (k ? k : 1) * sizeof *n->pprops);
    for (const cJSON *x = v->child; x && !c->failed; x = x->next, i++) {
        n->pprops[i].src = x->string;
        n->pprops[i].re = compile_regex(c, n, "patternProperties", x->string);
        n->pprops[i].schema = sub(c, n, "patternProperties", x);
    }
    n->npprops = k;
}

static js_dep *new_deps(cc *c, js_node *n, size_t extra)
{
    js_dep *d = tg_arena_alloc(&c->s->arena, (n->ndeps + extra) * sizeof *d);
    if (n->ndeps)
        memcpy(d, n->deps, n->ndeps * sizeof *d);
    n->deps = d;
    return d + n->ndeps;
}

static bool string_list(cc *c, js_dep *d, const cJSON *arr)
{
    if (!cJSON_IsArray(arr))
        return false;
    size_t k = (size_t)cJSON_GetArraySize(arr), i = 0;
    d->req = tg_arena_alloc(&c->s->arena, (k ? k : 1) * sizeof *d->req);
    for (const cJSON *x = arr->child; x; x = x->next) {
        if (!cJSON_IsString(x))
            return false;
        d->req[i++] = x->valuestring;
    }
    d->nreq = k;
    return true;
}

/* dependentRequired, dependentSchemas and the older "dependencies" (which mixes both). */
static void add_deps(cc *c, js_node *n, const cJSON *v, const char *kw, bool lists, bool schemas)
{
    if (!cJSON_IsObject(v)) {
        cc_fail(c, n->src, kw, "expected an object, got %s", json_type_name(v));
        return;
    }
    js_dep *d = new_deps(c, n, (size_t)cJSON_GetArraySize(v));
    for (const cJSON *x = v->child; x && !c->failed; x = x->next) {
        d->name = x->string;
        d->kw = kw;
        if (lists && cJSON_IsArray(x)) {
            if (!string_list(c, d, x))
                cc_fail(c, n->src, kw, "\"%s\": expected an array of property names", x->string);
        } else if (schemas) {
            d->schema = sub(c, n, kw, x);
        } else {
            cc_fail(c, n->src, kw, "\"%s\": expected an array of property names", x->string);
        }
        d++;
        n->ndeps++;
    }
}

/*
 * How a keyword is compiled. Most keywords only check their value's shape and store it in one
 * js_node member, in one of a few forms that KEYWORDS names with the member; the others have a
 * function of their own.
 */
typedef enum {
    KW_FN,     /* kwdef.fn */
    KW_SUB,    /* a subschema, into a js_node * */
    KW_SUBS,   /* a non-empty array of subschemas, into a js_node ** and its size_t count */
    KW_COUNT,  /* a non-negative integer, into a long long */
    KW_NUMBER, /* a number, into a const cJSON * */
    KW_DEPS,   /* an object of property dependencies, appended to js_node.deps */
} kw_form;

/* KW_DEPS: what a dependency may be */
enum { DEP_LISTS = 1 /* an array of property names */, DEP_SCHEMAS = 2 /* a subschema */ };

typedef struct kwdef {
    const char *name;
    unsigned vocab;
    uint8_t groups; /* JK_* added to js_node.groups when the keyword is present, whatever its
                     * form; groups that depend on the value are added by the keyword's fn */
    kw_form form;
    unsigned deps;  /* KW_DEPS: DEP_* */
    size_t member;  /* offset of the js_node member it fills (KW_SUB … KW_NUMBER) */
    size_t count;   /* KW_SUBS: offset of the array's count */
    kw_fn fn;       /* KW_FN */
} kwdef;

/* The offset of js_node member m, which must have type T: a row naming a member of another
 * type compares distinct pointer types, which fails the build (-Werror). */
#define MEMBER(m, T) (offsetof(js_node, m) + 0 * sizeof(&((js_node *)0)->m == (T *)0))
/* A row's form and its arguments: the fields of kwdef from form on. */
#define FN(fn) KW_FN, 0, 0, 0, fn
#define SUB(m) KW_SUB, 0, MEMBER(m, js_node *), 0, NULL
#define SUBS(m, cnt) KW_SUBS, 0, MEMBER(m, js_node **), MEMBER(cnt, size_t), NULL
#define COUNT(m) KW_COUNT, 0, MEMBER(m, long long), 0, NULL
#define NUMBER(m) KW_NUMBER, 0, MEMBER(m, const cJSON *), 0, NULL
#define DEPS(deps) KW_DEPS, deps, 0, 0, NULL
#define JV_FORMAT (JV_FORMAT_ANNOTATION | JV_FORMAT_ASSERTION)

/* Sorted by strcmp for bsearch. */
static const kwdef KEYWORDS[] = {
    {"$anchor", JV_CORE, 0, FN(kw_string_only)},
    {"$defs", JV_CORE, 0, FN(kw_defs)},
    {"$dynamicAnchor", JV_CORE, 0, FN(kw_string_only)},
    {"$dynamicRef", JV_CORE, JK_INPLACE, FN(kw_dynref)},
    {"$id", JV_CORE, 0, FN(kw_string_only)},
    {"$ref", JV_CORE, JK_INPLACE, FN(kw_ref)},
    {"$schema", JV_CORE, 0, FN(kw_string_only)},
    {"additionalItems", JV_APPLICATOR, 0, FN(kw_additional_items)},
    {"additionalProperties", JV_APPLICATOR, JK_OBJ, SUB(addl)},
    {"allOf", JV_APPLICATOR, JK_INPLACE, SUBS(all_of, nall_of)},
    {"anyOf", JV_APPLICATOR, JK_INPLACE, SUBS(any_of, nany_of)},
    {"const", JV_VALIDATION, JK_CONST, FN(kw_const)},
    {"contains", JV_APPLICATOR, JK_ARR, SUB(contains)},
    {"dependencies", JV_APPLICATOR, JK_OBJ, DEPS(DEP_LISTS | DEP_SCHEMAS)},
    {"dependentRequired", JV_VALIDATION, JK_OBJ, DEPS(DEP_LISTS)},
    {"dependentSchemas", JV_APPLICATOR, JK_OBJ, DEPS(DEP_SCHEMAS)},
    {"else", JV_APPLICATOR, 0, SUB(else_)},
    {"enum", JV_VALIDATION, JK_CONST, FN(kw_enum)},
    {"exclusiveMaximum", JV_VALIDATION, JK_NUM, NUMBER(exclusive_maximum)},
    {"exclusiveMinimum", JV_VALIDATION, JK_NUM, NUMBER(exclusive_minimum)},
    {"format", JV_FORMAT, 0, FN(kw_format)}, /* JK_STR only when asserted */
    {"if", JV_APPLICATOR, JK_INPLACE, SUB(if_)},
    {"items", JV_APPLICATOR, JK_ARR, FN(kw_items)},
    {"maxContains", JV_VALIDATION, 0, COUNT(max_contains)},
    {"maxItems", JV_VALIDATION, JK_ARR, COUNT(max_items)},
    {"maxLength", JV_VALIDATION, JK_STR, COUNT(max_length)},
    {"maxProperties", JV_VALIDATION, JK_OBJ, COUNT(max_props)},
    {"maximum", JV_VALIDATION, JK_NUM, NUMBER(maximum)},
    {"minContains", JV_VALIDATION, 0, COUNT(min_contains)},
    {"minItems", JV_VALIDATION, JK_ARR, COUNT(min_items)},
    {"minLength", JV_VALIDATION, JK_STR, COUNT(min_length)},
    {"minProperties", JV_VALIDATION, JK_OBJ, COUNT(min_props)},
    {"minimum", JV_VALIDATION, JK_NUM, NUMBER(minimum)},
    {"multipleOf", JV_VALIDATION, JK_NUM, FN(kw_multiple_of)},
    {"not", JV_APPLICATOR, JK_INPLACE, SUB(not_)},
    {"oneOf", JV_APPLICATOR, JK_INPLACE, SUBS(one_of, none_of)},
    {"pattern", JV_VALIDATION, JK_STR, FN(kw_pattern)},
    {"patternProperties", JV_APPLICATOR, JK_OBJ, FN(kw_pattern_properties)},
    {"prefixItems", JV_APPLICATOR, JK_ARR, FN(kw_prefix_items)},
    {"properties", JV_APPLICATOR, JK_OBJ, FN(kw_properties)},
    {"propertyNames", JV_APPLICATOR, JK_OBJ, SUB(pnames)},
    {"required", JV_VALIDATION, JK_OBJ, FN(kw_required)},
    {"then", JV_APPLICATOR, 0, SUB(then_)},
    {"type", JV_VALIDATION, 0, FN(kw_type)},
    {"unevaluatedItems", JV_UNEVALUATED, JK_UNEVAL, SUB(uitems)},
    {"unevaluatedProperties", JV_UNEVALUATED, JK_UNEVAL, SUB(uprops)},
    {"uniqueItems", JV_VALIDATION, 0, FN(kw_unique_items)}, /* JK_ARR only when true */
};

#undef MEMBER
#undef FN
#undef SUB
#undef SUBS
#undef COUNT
#undef NUMBER
#undef DEPS

static int kwdef_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const kwdef *)elem)->name);
}

static const kwdef *find_keyword(const char *name)
{
    return bsearch(name, KEYWORDS, sizeof KEYWORDS / sizeof *KEYWORDS, sizeof *KEYWORDS,
                   kwdef_cmp);
}

/* One keyword of n: its value checked and stored as its form says, then its groups. */
static void compile_keyword(cc *c, js_node *n, const kwdef *k, const cJSON *v, pend *p)
{
    char *m = (char *)n + k->member;
    switch (k->form) {
    case KW_FN:
        k->fn(c, n, v, p);
        break;
    case KW_SUB:
        *(js_node **)m = sub(c, n, k->name, v);
        break;
    case KW_SUBS:
        *(js_node ***)m = sub_array(c, n, k->name, v, (size_t *)((char *)n + k->count), true);
        break;
    case KW_COUNT:
        *(long long *)m = nonneg_int(c, n, k->name, v);
        break;
    case KW_NUMBER:
        *(const cJSON **)m = need_number(c, n, v);
        break;
    case KW_DEPS:
        add_deps(c, n, v, k->name, k->deps & DEP_LISTS, k->deps & DEP_SCHEMAS);
        break;
    }
    n->groups |= k->groups;
}

/* ======================================================================== node finishing */

static void add_name(cc *c, js_node *n, const char *name, js_node *schema, int req)
{
    for (size_t i = 0; i < n->nnames; i++)
        if (strcmp(n->names[i].name, name) == 0) {
            if (schema)
                n->names[i].schema = schema;
            if (req >= 0 && n->names[i].req < 0) {
                n->names[i].req = req;
                n->names[i].req_bit = req < 64 ? 1ULL << req : 0;
            }
            return;
        }
    (void)c;
    js_name *e = &n->names[n->nnames++];
    e->name = name;
    e->len = strlen(name);
    e->hash = js_name_hash(name, e->len);
    e->first = name[0];
    n->name_filter |= js_name_bit(name);
    e->schema = schema;
    e->req = req;
    e->req_bit = req >= 0 && req < 64 ? 1ULL << req : 0;
}

/* One table for "properties" and "required": a single pass over the instance serves both. */
static void build_names(cc *c, js_node *n, const pend *p)
{
    size_t np = p->properties ? (size_t)cJSON_GetArraySize(p->properties) : 0;
    size_t nr = p->required ? (size_t)cJSON_GetArraySize(p->required) : 0;
    if (np + nr == 0)
        return;
    n->names = tg_arena_alloc(&c->s->arena, (np + nr) * sizeof *n->names);
    if (p->properties)
        for (const cJSON *x = p->properties->child; x && !c->failed; x = x->next)
            add_name(c, n, x->string, sub(c, n, "properties", x), -1);
    if (p->required) {
        n->required = tg_arena_alloc(&c->s->arena, (nr ? nr : 1) * sizeof *n->required);
        for (const cJSON *x = p->required->child; x; x = x->next) {
            /* duplicates in "required" are harmless: count each name once */
            bool dup = false;
            for (size_t i = 0; i < n->nrequired; i++)
                dup |= strcmp(n->required[i], x->valuestring) == 0;
            if (dup)
                continue;
            add_name(c, n, x->valuestring, NULL, (int)n->nrequired);
            n->required[n->nrequired++] = x->valuestring;
        }
    }
    if (n->nnames <= 8)
        return;
    uint32_t cap = 16;
    while (cap < n->nnames * 2)
        cap *= 2;
    n->table = tg_arena_alloc(&c->s->arena, cap * sizeof *n->table);
    n->table_mask = cap - 1;
    for (size_t i = 0; i < n->nnames; i++) {
        uint32_t h = n->names[i].hash & n->table_mask;
        while (n->table[h])
            h = (h + 1) & n->table_mask;
        n->table[h] = (uint32_t)i + 1;
    }
}

static void compile_node(cc *c, js_node *n)
{
    const cJSON *s = n->src;
    if (cJSON_IsBool(s)) {
        n->kind = cJSON_IsTrue(s) ? JS_TRUE : JS_FALSE;
        return;
    }
    if (!cJSON_IsObject(s)) {
        cc_fail(c, s, NULL, "expected a schema (object or boolean), got %s", json_type_name(s));
        return;
    }
    unsigned voc = res_vocab(c, n->res);
    pend p = {NULL, NULL, NULL, false};
    for (const cJSON *m = s->child; m && !c->failed; m = m->next) {
        const kwdef *k = m->string ? find_keyword(m->string) : NULL;
        if (!k || !(k->vocab & voc))
            continue; /* unknown keywords are annotations */
        if (n->res->legacy && strcmp(k->name, "prefixItems") == 0)
            continue;
        compile_keyword(c, n, k, m, &p);
    }
    if (c->failed)
        return;
    build_names(c, n, &p);
    if (p.items_array && p.additional_items) {
        n->items = sub(c, n, "additionalItems", p.additional_items);
        n->items_kw = "additionalItems";
    }
    if (n->contains && n->min_contains < 0)
        n->min_contains = 1;
    n->uneval = (n->groups & JK_UNEVAL) != 0;
    n->type_only = n->types && !n->groups;
}

/* ======================================================================== graph passes */

static void drain(cc *c)
{
    while (c->nwork && !c->failed)
        compile_node(c, c->work[--c->nwork]);
}

/* Dynamic anchors are potential $dynamicRef targets: compile them all (to a fixpoint, since
 * compiling may load documents with more anchors). */
static void compile_dynamic_anchors(cc *c)
{
    bool changed = true;
    while (changed && !c->failed) {
        changed = false;
        for (size_t i = 0; i < c->s->nres; i++) {
            js_res *r = c->s->res[i];
            for (size_t k = 0; k < r->nanchors; k++)
                if (r->anchors[k].dynamic && !r->anchors[k].node) {
                    r->anchors[k].node = get_node(c, r->anchors[k].src);
                    changed = true;
                }
        }
        drain(c);
    }
}

/* Edges that are always taken on the same instance: $ref, non-dynamic $dynamicRef, allOf. */
static js_node *static_edge(const js_node *n, size_t i)
{
    if (n->ref && i-- == 0)
        return n->ref;
    if (n->dynref && !n->dynref_name && i-- == 0)
        return n->dynref;
    return i < n->nall_of ? n->all_of[i] : NULL;
}

/* Iterative DFS: a cycle of static edges is an evaluation that never ends. */
static void check_ref_cycles(cc *c)
{
    size_t n = c->nall;
    for (size_t i = 0; i < n; i++)
        c->all[i]->idx = (uint32_t)i;
    unsigned char *color = xcalloc(n ? n : 1, 1); /* 0 new, 1 on stack, 2 done */
    struct frame {
        js_node *node;
        size_t edge;
    } *stack = xmalloc((n ? n : 1) * sizeof *stack);
    for (size_t root = 0; root < n && !c->failed; root++) {
        if (color[root])
            continue;
        size_t sp = 0;
        stack[sp++] = (struct frame){c->all[root], 0};
        color[root] = 1;
        while (sp && !c->failed) {
            struct frame *f = &stack[sp - 1];
            js_node *next = static_edge(f->node, f->edge++);
            if (!next) {
                color[f->node->idx] = 2;
                sp--;
            } else if (next->kind == JS_OBJ_SCHEMA && color[next->idx] == 1) {
                char *loc = schema_location(c, next->src);
                cc_fail(c, f->node->src, NULL, "infinite loop: $ref/allOf chain leads back to %s "
                        "without consuming any part of the instance", loc);
                free(loc);
            } else if (!color[next->idx]) {
                color[next->idx] = 1;
                stack[sp++] = (struct frame){next, 0};
            }
        }
    }
    free(stack);
    free(color);
}

static bool inplace_child_ann(const js_node *n)
{
    if ((n->ref && n->ref->ann) || (n->dynref && n->dynref->ann) || n->dynref_name)
        return true;
    if ((n->if_ && n->if_->ann) || (n->then_ && n->then_->ann) || (n->else_ && n->else_->ann))
        return true;
    for (size_t i = 0; i < n->nall_of; i++)
        if (n->all_of[i]->ann)
            return true;
    for (size_t i = 0; i < n->nany_of; i++)
        if (n->any_of[i]->ann)
            return true;
    for (size_t i = 0; i < n->none_of; i++)
        if (n->one_of[i]->ann)
            return true;
    for (size_t i = 0; i < n->ndeps; i++)
        if (n->deps[i].schema && n->deps[i].schema->ann)
            return true;
    return false;
}

/* Which nodes can add evaluated-property/item annotations (directly or through in-place
 * subschemas): a fixpoint, since $ref graphs have cycles. */
static void analyse_annotations(cc *c)
{
    for (size_t i = 0; i < c->nall; i++) {
        js_node *n = c->all[i];
        bool has_props = false;
        for (size_t k = 0; k < n->nnames; k++)
            has_props |= n->names[k].schema != NULL;
        n->ann = n->uneval || has_props || n->npprops || n->addl || n->nprefix || n->items ||
                 n->contains;
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < c->nall; i++) {
            js_node *n = c->all[i];
            if (!n->ann && n->kind == JS_OBJ_SCHEMA && inplace_child_ann(n)) {
                n->ann = true;
                changed = true;
            }
        }
    }
}

/* In-place edges: every subschema applied to the same instance, dynamic targets included. */
static js_node *inplace_edge(const cc *c, const js_node *n, size_t i)
{
    js_node *fixed[5] = {n->ref, n->dynref, n->not_, n->if_, n->then_};
    for (size_t k = 0; k < 5; k++)
        if (fixed[k] && i-- == 0)
            return fixed[k];
    if (n->else_ && i-- == 0)
        return n->else_;
    if (i < n->nall_of)
        return n->all_of[i];
    i -= n->nall_of;
    if (i < n->nany_of)
        return n->any_of[i];
    i -= n->nany_of;
    if (i < n->none_of)
        return n->one_of[i];
    i -= n->none_of;
    for (size_t k = 0; k < n->ndeps; k++)
        if (n->deps[k].schema && i-- == 0)
            return n->deps[k].schema;
    if (n->dynref_name)
        for (size_t r = 0; r < c->s->nres; r++) {
            const js_res *res = c->s->res[r];
            for (size_t k = 0; k < res->nanchors; k++)
                if (res->anchors[k].node && strcmp(res->anchors[k].name, n->dynref_name) == 0 &&
                    i-- == 0)
                    return res->anchors[k].node;
        }
    return NULL;
}

/*
 * Marks nodes on a cycle of in-place applicators (Tarjan's strongly connected components,
 * iteratively): only $ref hops into those can loop at validation time, so only they pay for
 * the loop check.
 */
static void mark_loops(cc *c)
{
    size_t n = c->nall;
    if (!n)
        return;
    uint32_t *index = xcalloc(n, sizeof *index), *low = xcalloc(n, sizeof *low);
    bool *on = xcalloc(n, sizeof *on);
    js_node **st = xmalloc(n * sizeof *st);
    struct frame {
        js_node *node;
        size_t edge;
    } *call = xmalloc(n * sizeof *call);
    uint32_t next = 1;
    size_t sp = 0;
    for (size_t root = 0; root < n; root++) {
        if (index[root])
            continue;
        size_t cp = 0;
        call[cp++] = (struct frame){c->all[root], 0};
        index[root] = low[root] = next++;
        st[sp++] = c->all[root];
        on[root] = true;
        while (cp) {
            struct frame *f = &call[cp - 1];
            uint32_t v = f->node->idx;
            js_node *w = inplace_edge(c, f->node, f->edge++);
            if (w) {
                if (w == f->node)
                    w->may_loop = true;
                if (!index[w->idx]) {
                    index[w->idx] = low[w->idx] = next++;
                    st[sp++] = w;
                    on[w->idx] = true;
                    call[cp++] = (struct frame){w, 0};
                } else if (on[w->idx] && index[w->idx] < low[v]) {
                    low[v] = index[w->idx];
                }
                continue;
            }
            if (low[v] == index[v]) {
                /* v roots a component: pop it; more than one member means a cycle */
                size_t start = sp;
                while (st[start - 1] != f->node)
                    start--;
                start--;
                for (size_t k = start; k < sp; k++) {
                    on[st[k]->idx] = false;
                    if (sp - start > 1)
                        st[k]->may_loop = true;
                }
                sp = start;
            }
            cp--;
            if (cp) {
                uint32_t u = call[cp - 1].node->idx;
                if (low[v] < low[u])
                    low[u] = low[v];
            }
        }
    }
    free(call);
    free(st);
    free(on);
    free(low);
    free(index);
}

/* ======================================================================== public API */

static void cc_free(cc *c)
{
    free(c->map.v);
    for (size_t i = 0; i < c->nidx; i++)
        free(c->idx[i].uri);
    free(c->idx);
    if (c->doc_uris)
        for (size_t i = 0; i < c->s->ndocs; i++)
            free(c->doc_uris[i]);
    free(c->doc_uris);
    free(c->work);
    free(c->all);
}

static void init_md_pool(js_schema *s)
{
    for (int i = 0; i < JS_MD_SLOTS; i++) {
        atomic_init(&s->md_pool[i].busy, 0);
        s->md_pool[i].md = s->has_regex ? pcre2_match_data_create(1, NULL) : NULL;
    }
}

js_schema *js_compile(js_registry *reg, const cJSON *schema, const js_options *opt, tg_err *err)
{
    if (!schema) {
        tg_err_set(err, "js_compile: no schema");
        return NULL;
    }
    js_schema *s = xcalloc(1, sizeof *s);
    init_md_pool(s);
    cc c = {.s = s, .reg = reg, .err = err, .format_assert = opt && opt->format_assert};
    const char *base = opt && opt->base_uri ? opt->base_uri : DEFAULT_BASE;
    char *base_nofrag = js_uri_strip_fragment(base, NULL);
    cJSON *copy = cJSON_Duplicate(schema, 1);
    if (!copy) {
        tg_err_set(err, "js_compile: cannot copy the schema");
        free(base_nofrag);
        js_schema_free(s);
        return NULL;
    }
    js_res *r = add_document(&c, copy, base_nofrag);
    free(base_nofrag);
    if (!c.failed)
        s->root = get_node(&c, r->root);
    drain(&c);
    if (s->has_dynamic)
        compile_dynamic_anchors(&c);
    if (!c.failed)
        check_ref_cycles(&c);
    if (!c.failed) {
        analyse_annotations(&c);
        mark_loops(&c);
        js_optimize(s, c.all, c.nall);
    }
    cc_free(&c);
    if (c.failed) {
        js_schema_free(s);
        return NULL;
    }
    init_md_pool(s); /* has_regex is known now */
    return s;
}

void js_schema_free(js_schema *s)
{
    if (!s)
        return;
    for (int i = 0; i < JS_MD_SLOTS; i++)
        pcre2_match_data_free(s->md_pool[i].md);
    for (size_t i = 0; i < s->ncodes; i++)
        js_re_free(s->codes[i]);
    free(s->codes);
    for (size_t i = 0; i < s->ndocs; i++)
        cJSON_Delete(s->docs[i]);
    free(s->docs);
    free(s->res);
    tg_arena_free(&s->arena);
    free(s);
}

/* The compiled meta-schema for uri, compiled once per registry. NULL with err set on failure. */
static js_schema *meta_schema(js_registry *reg, const char *uri, tg_err *err)
{
    for (size_t i = 0; i < reg->nmetas; i++)
        if (strcmp(reg->metas[i].uri, uri) == 0)
            return reg->metas[i].schema;
    const cJSON *doc = NULL;
    int rc = reg_fetch(reg, uri, &doc, err);
    if (rc <= 0) {
        if (rc == 0)
            tg_err_set(err, "meta-schema %s is not in the registry (call "
                            "js_registry_add_metaschemas first)", uri);
        return NULL;
    }
    js_options o = {.format_assert = false, .base_uri = uri};
    js_schema *m = js_compile(reg, doc, &o, err);
    if (!m)
        return NULL;
    GROW(reg->metas, reg->nmetas, reg->capmetas);
    reg->metas[reg->nmetas].uri = xstrdup(uri);
    reg->metas[reg->nmetas].schema = m;
    reg->nmetas++;
    return m;
}

int js_schema_check_meta(js_registry *reg, const cJSON *schema, js_errors *errors, tg_err *err)
{
    if (!reg || !schema)
        return tg_err_set(err, "js_schema_check_meta: missing registry or schema");
    /* A schema naming a meta-schema the registry holds is checked against that one; anything
     * else (no "$schema", an older draft) against 2020-12. */
    char *uri = xstrdup(META_2020_12);
    const cJSON *sch = cJSON_IsObject(schema) ? cJSON_GetObjectItemCaseSensitive(schema, "$schema")
                                              : NULL;
    if (cJSON_IsString(sch)) {
        char *u = js_uri_strip_fragment(sch->valuestring, NULL);
        const cJSON *doc = NULL;
        tg_err ignore;
        if (!legacy_dialect(u) && reg_fetch(reg, u, &doc, &ignore) == 1) {
            free(uri);
            uri = u;
        } else {
            free(u);
        }
    }
    js_schema *m = meta_schema(reg, uri, err);
    free(uri);
    if (!m)
        return -1;
    return js_validate(m, schema, errors) ? 1 : 0;
}
