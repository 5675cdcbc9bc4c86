/*
 * openapi_ref.c — $ref resolution and the OpenAPI → JSON Schema 2020-12 conversion of
 * `toolgen init --from-openapi` (openapi_int.h, docs/cli.md#init-from-openapi).
 *
 * A manifest's schemas stand alone (every emitter and client reads them without the OpenAPI
 * document), so every $ref is inlined. A recursive schema is cut after OA_REF_REPEAT levels.
 * References to other files are followed only when allowed, only to files under the document's
 * folder, and a URL is never fetched: a document must not make toolgen reach the network.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/openapi_int.h"
#include "base/buf.h"
#include "base/strvec.h"

void oa_set(cJSON *obj, const char *key, cJSON *v)
{
    if (tg_json_get(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

void oa_ctx_free(oa_ctx *c)
{
    for (size_t i = 0; i < c->next; i++) {
        tg_doc_free(&c->ext[i]);
        free(c->ext_path[i]);
    }
    free(c->base_dir);
}

/* The document a node of which where points into: the main one unless an external one is
 * being converted. */
static const tg_doc *cur_doc(const oa_ctx *c)
{
    for (size_t i = 0; i < c->next; i++)
        if (c->ext[i].root == c->cur)
            return &c->ext[i];
    return c->doc;
}

void *oa_fail(oa_ctx *c, const char *where, const char *fmt, ...)
{
    if (c->failed)
        return NULL;
    const tg_doc *d = cur_doc(c);
    tg_pos pos = tg_doc_pointer_pos(d, where);
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    tg_err_setpos(c->err, d->file, pos.line, pos.col, "%s: %s", where[0] ? where : "/", msg);
    free(msg);
    c->failed = true;
    return NULL;
}

/* A URI fragment percent-decoded (a JSON Pointer in a $ref may be written %7B...). Heap. */
static char *pct_decode(const char *s)
{
    tg_buf b = TG_BUF_INIT;
    for (; *s; s++) {
        if (s[0] == '%' && tg_hexval(s[1]) >= 0 && tg_hexval(s[2]) >= 0) {
            tg_buf_putc(&b, (char)(tg_hexval(s[1]) * 16 + tg_hexval(s[2])));
            s += 2;
        } else {
            tg_buf_putc(&b, *s);
        }
    }
    return b.data ? tg_buf_steal(&b) : xstrdup("");
}

/* The external document file (relative to the document's folder), loaded once. */
static const cJSON *external_root(oa_ctx *c, const char *file, const char *where)
{
    if (strstr(file, "://") || file[0] == '/' || strstr(file, ".."))
        return oa_fail(c, where,
                       "$ref to '%s': references are followed only to files under the "
                       "document's folder, and URLs are never fetched; inline the schema",
                       file);
    for (size_t i = 0; i < c->next; i++)
        if (strcmp(c->ext_path[i], file) == 0)
            return c->ext[i].root;
    if (c->next == OA_MAX_EXTERNAL)
        return oa_fail(c, where, "more than %d referenced files", OA_MAX_EXTERNAL);
    char *path = tg_path_join(c->base_dir, file);
    tg_err e = {0};
    int rc = tg_doc_load(path, NULL, &c->ext[c->next], &e);
    free(path);
    if (rc != 0)
        return oa_fail(c, where, "$ref to '%s': %s", file, e.msg);
    c->ext_path[c->next] = xstrdup(file);
    return c->ext[c->next++].root;
}

/* The node ref points at; *root_out the document it is in. */
static const cJSON *resolve(oa_ctx *c, const char *ref, const char *where, const cJSON **root_out)
{
    const char *hash = strchr(ref, '#');
    const cJSON *root = c->cur;
    if (hash != ref) {
        if (!c->allow_external)
            return oa_fail(c, where,
                           "external $ref '%s' is refused (a document must not make toolgen "
                           "read other files or the network); inline it, or pass "
                           "--allow-external-refs for files beside the document",
                           ref);
        char *file = hash ? xstrndup(ref, (size_t)(hash - ref)) : xstrdup(ref);
        root = external_root(c, file, where);
        free(file);
        if (!root)
            return NULL;
    }
    char *ptr = pct_decode(hash ? hash + 1 : "");
    const cJSON *t = ptr[0] == '\0' || ptr[0] == '/' ? tg_json_pointer_get(root, ptr) : NULL;
    free(ptr);
    if (!t)
        return oa_fail(c, where, "$ref '%s' points at nothing; fix the reference or add what "
                                 "it names (e.g. under components/schemas)",
                       ref);
    *root_out = root;
    return t;
}

const cJSON *oa_deref(oa_ctx *c, const cJSON *obj, const char *where)
{
    for (int hops = 0; cJSON_IsObject(obj) && tg_json_get(obj, "$ref"); hops++) {
        const char *ref = tg_json_get_string(obj, "$ref");
        if (!ref || hops > OA_REF_DEPTH)
            return oa_fail(c, where, ref ? "a chain of more than %d $refs (a cycle?)"
                                         : "$ref must be a string",
                           OA_REF_DEPTH);
        const cJSON *root;
        obj = resolve(c, ref, where, &root);
        if (root != c->cur)
            return oa_fail(c, where, "$ref '%s': parameters, responses and request bodies "
                                     "are taken from this document only; inline it", ref);
    }
    return obj;
}

/* ---- schemas ------------------------------------------------------------------------------- */

/* JSON Schema 2020-12 keywords whose value is kept as it is. */
static const char *const kept[] = {
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
    "dependentRequired", "title", "description", "default", "deprecated", "readOnly",
    "writeOnly", "examples", "format", "contentEncoding", "contentMediaType", "$comment", NULL,
};
static const char *const schema_maps[] = {"properties", "patternProperties", "$defs",
                                          "dependentSchemas", NULL};
static const char *const schema_lists[] = {"allOf", "anyOf", "oneOf", "prefixItems", NULL};
static const char *const one_schema[] = {"not", "if", "then", "else", "items", "contains",
                                         "additionalProperties", "propertyNames",
                                         "unevaluatedItems", "unevaluatedProperties",
                                         "contentSchema", NULL};

static cJSON *cut(oa_ctx *c, const char *ref, const char *why)
{
    c->cuts++;
    cJSON *s = cJSON_CreateObject();
    char *msg = xasprintf("%s $ref %s cut here (docs/cli.md#init-from-openapi)", why, ref);
    cJSON_AddStringToObject(s, "$comment", msg);
    free(msg);
    return s;
}

static int on_stack(const oa_ctx *c, const char *ref)
{
    int n = 0;
    for (int i = 0; i < c->depth; i++)
        n += strcmp(c->stack[i], ref) == 0;
    return n;
}

/* The schema a $ref names, converted, with the $ref's siblings (3.1 allows description and
 * others beside it) laid over it. */
static cJSON *from_ref(oa_ctx *c, const cJSON *s, const char *ref, const char *where,
                       enum oa_side side)
{
    if (on_stack(c, ref) >= OA_REF_REPEAT)
        return cut(c, ref, "recursive");
    if (c->depth == OA_REF_DEPTH || c->nodes > OA_MAX_NODES || c->total > OA_MAX_TOTAL_NODES)
        return cut(c, ref, c->depth == OA_REF_DEPTH ? "deeply nested" : "size budget reached:");
    const cJSON *root;
    const cJSON *t = resolve(c, ref, where, &root);
    if (!t)
        return NULL;
    const cJSON *saved = c->cur;
    c->cur = root;
    c->stack[c->depth++] = ref;
    const char *hash = strchr(ref, '#');
    char *tw = pct_decode(hash ? hash + 1 : "");
    cJSON *out = oa_schema(c, t, tw, side);
    free(tw);
    c->depth--;
    c->cur = saved;
    if (!out || !cJSON_IsObject(out))
        return out;
    cJSON *rest = cJSON_Duplicate(s, true);
    cJSON_DeleteItemFromObjectCaseSensitive(rest, "$ref");
    cJSON *over = rest->child ? oa_schema(c, rest, where, side) : NULL;
    cJSON_Delete(rest);
    for (cJSON *m = over ? over->child : NULL; m; m = m->next)
        oa_set(out, m->string, cJSON_Duplicate(m, true));
    cJSON_Delete(over);
    return c->failed ? (cJSON_Delete(out), NULL) : out;
}

static char *sub_where(const char *where, const char *a, const char *b)
{
    tg_buf w = TG_BUF_INIT;
    tg_buf_puts(&w, where);
    tg_buf_putc(&w, '/');
    tg_buf_pointer_token(&w, a);
    if (b) {
        tg_buf_putc(&w, '/');
        tg_buf_pointer_token(&w, b);
    }
    return tg_buf_steal(&w);
}

/* A map of schemas (properties, ...); dropped names collected for `required`. */
static cJSON *convert_map(oa_ctx *c, const cJSON *m, const char *key, const char *where,
                          enum oa_side side, tg_strv *dropped)
{
    cJSON *out = cJSON_CreateObject();
    const cJSON *e;
    cJSON_ArrayForEach(e, m)
    {
        const char *hidden = side == OA_IN ? "readOnly" : "writeOnly";
        if (strcmp(key, "properties") == 0 && cJSON_IsTrue(tg_json_get(e, hidden))) {
            tg_strv_push(dropped, e->string);
            continue;
        }
        char *w = sub_where(where, key, e->string);
        cJSON *v = oa_schema(c, e, w, side);
        free(w);
        if (!v)
            break;
        cJSON_AddItemToObject(out, e->string, v);
    }
    return out;
}

static cJSON *convert_list(oa_ctx *c, const cJSON *l, const char *key, const char *where,
                           enum oa_side side)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, l)
    {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", i++);
        char *w = sub_where(where, key, idx);
        cJSON *v = oa_schema(c, e, w, side);
        free(w);
        if (!v)
            break;
        cJSON_AddItemToArray(out, v);
    }
    return out;
}

/* A non-negative integer, however large ("minLength": 1e42 is one; casting it to an integer
 * type would be undefined). */
static bool is_count(const cJSON *v)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 &&
           floor(v->valuedouble) == v->valuedouble;
}

static bool all_strings(const cJSON *v, const char *const *allowed)
{
    if (!cJSON_IsArray(v) || (allowed && !v->child))
        return false; /* a list of types needs one at least */
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsString(e) || (allowed && !tg_strlist_has(allowed, e->valuestring)))
            return false;
    }
    return true;
}

/* What the value of a kept keyword must be when it is not (the message's fix), else NULL: a
 * document that breaks JSON Schema is refused here, where its place is known, rather than
 * drafted into manifests that fail lint. */
static const char *keyword_problem(const char *key, const cJSON *v)
{
    static const char *const types[] = {"array", "boolean", "integer", "null", "number",
                                        "object", "string", NULL};
    static const char *const counts[] = {"maxLength", "minLength", "maxItems", "minItems",
                                         "maxContains", "minContains", "maxProperties",
                                         "minProperties", NULL};
    static const char *const numbers[] = {"maximum", "minimum", "exclusiveMaximum",
                                          "exclusiveMinimum", "multipleOf", NULL};
    static const char *const strings[] = {"title", "description", "$comment", "format", "pattern",
                                          "contentEncoding", "contentMediaType", NULL};
    static const char *const flags[] = {"uniqueItems", "deprecated", "readOnly", "writeOnly", NULL};
    if (!strcmp(key, "type"))
        return (cJSON_IsString(v) && tg_strlist_has(types, v->valuestring)) || all_strings(v, types)
                   ? NULL : "one of array, boolean, integer, null, number, object, string (or a list of them)";
    if (tg_strlist_has(counts, key))
        return is_count(v) ? NULL : "a non-negative integer";
    if (tg_strlist_has(numbers, key))
        return cJSON_IsNumber(v) && (strcmp(key, "multipleOf") || v->valuedouble > 0) ? NULL : "a number";
    if (tg_strlist_has(strings, key))
        return cJSON_IsString(v) ? NULL : "a string";
    if (tg_strlist_has(flags, key))
        return cJSON_IsBool(v) ? NULL : "true or false";
    if (!strcmp(key, "required"))
        return all_strings(v, NULL) ? NULL : "a list of property names";
    if (!strcmp(key, "enum") || !strcmp(key, "examples"))
        return cJSON_IsArray(v) ? NULL : "a list";
    if (!strcmp(key, "dependentRequired"))
        return cJSON_IsObject(v) ? NULL : "a mapping of property names to lists";
    return NULL;
}

/* Whether pattern is a regular expression toolgen's validator takes (ECMA-262, docs/jsonschema.md);
 * else c->err names it. */
static bool pattern_ok(oa_ctx *c, const char *pattern, const char *where)
{
    cJSON *probe = cJSON_CreateObject();
    cJSON_AddStringToObject(probe, "pattern", pattern);
    tg_err e = {0};
    js_schema *js = js_compile(c->reg, probe, &(js_options){0}, &e);
    cJSON_Delete(probe);
    js_schema_free(js);
    if (!js) {
        char *w = sub_where(where, "pattern", NULL);
        oa_fail(c, w, "`pattern` is not a regular expression JSON Schema can use: %s; fix the "
                      "document", e.msg);
        free(w);
    }
    return js != NULL;
}

/* One keyword of a schema object converted onto out (or dropped). */
static void convert_keyword(oa_ctx *c, const cJSON *k, const char *where, enum oa_side side,
                            cJSON *out, tg_strv *dropped)
{
    const char *key = k->string;
    cJSON *v = NULL;
    if (tg_strlist_has(schema_maps, key) && cJSON_IsObject(k)) {
        v = convert_map(c, k, key, where, side, dropped);
    } else if (tg_strlist_has(schema_lists, key) && cJSON_IsArray(k)) {
        v = convert_list(c, k, key, where, side);
    } else if (strcmp(key, "items") == 0 && cJSON_IsArray(k)) {
        key = "prefixItems"; /* the draft-04 tuple form */
        v = convert_list(c, k, "items", where, side);
    } else if (tg_strlist_has(one_schema, key) && (cJSON_IsObject(k) || cJSON_IsBool(k))) {
        char *w = sub_where(where, key, NULL);
        v = oa_schema(c, k, w, side);
        free(w);
    } else if (strcmp(key, "example") == 0) {
        key = "examples";
        v = cJSON_CreateArray();
        cJSON_AddItemToArray(v, cJSON_Duplicate(k, true));
    } else if (tg_strlist_has(kept, key)) {
        if ((strcmp(key, "exclusiveMinimum") == 0 || strcmp(key, "exclusiveMaximum") == 0) &&
            cJSON_IsBool(k))
            return; /* 3.0's boolean form: fix_bounds below */
        const char *want = keyword_problem(key, k);
        if (!want && !strcmp(key, "pattern") && c->reg && !pattern_ok(c, k->valuestring, where))
            return;
        if (want) {
            char *w = sub_where(where, key, NULL);
            oa_fail(c, w, "`%s` must be %s (JSON Schema 2020-12); fix the document", key, want);
            free(w);
            return;
        }
        v = cJSON_Duplicate(k, true);
    } else if (tg_strlist_has(one_schema, key) || tg_strlist_has(schema_lists, key) ||
               tg_strlist_has(schema_maps, key)) {
        char *w = sub_where(where, key, NULL);
        oa_fail(c, w, "`%s` must be %s; fix the document", key,
                tg_strlist_has(schema_lists, key) ? "a list of schemas"
                : tg_strlist_has(schema_maps, key) ? "a mapping of names to schemas"
                                                   : "a schema (a mapping, or true / false)");
        free(w);
        return;
    }
    if (v && !tg_json_get(out, key))
        cJSON_AddItemToObject(out, key, v);
    else
        cJSON_Delete(v);
}

/* 3.0: `exclusiveMinimum: true` beside `minimum: m` is 2020-12's `exclusiveMinimum: m`. */
static void fix_bounds(const cJSON *s, cJSON *out)
{
    static const char *const pairs[][2] = {{"exclusiveMinimum", "minimum"},
                                           {"exclusiveMaximum", "maximum"}};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *flag = tg_json_get(s, pairs[i][0]);
        const cJSON *bound = tg_json_get(out, pairs[i][1]);
        if (cJSON_IsTrue(flag) && cJSON_IsNumber(bound)) {
            cJSON_AddItemToObject(out, pairs[i][0], cJSON_Duplicate(bound, true));
            cJSON_DeleteItemFromObjectCaseSensitive(out, pairs[i][1]);
        }
    }
}

/* 3.0's `nullable: true`: null joins the type (and the enum); without a type the schema
 * becomes anyOf null or itself, so that an allOf or a $ref beside it still admits null. */
static cJSON *make_nullable(cJSON *out)
{
    cJSON *type = cJSON_GetObjectItemCaseSensitive(out, "type");
    cJSON *en = cJSON_GetObjectItemCaseSensitive(out, "enum");
    if (cJSON_IsArray(en) && !tg_json_array_has_string(en, "null")) {
        bool has_null = false;
        const cJSON *e;
        cJSON_ArrayForEach(e, en) has_null |= cJSON_IsNull(e);
        if (!has_null)
            cJSON_AddItemToArray(en, cJSON_CreateNull());
    }
    if (cJSON_IsString(type)) {
        if (strcmp(type->valuestring, "null") == 0)
            return out;
        cJSON *arr = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, cJSON_CreateString(type->valuestring));
        cJSON_AddItemToArray(arr, cJSON_CreateString("null"));
        cJSON_ReplaceItemInObjectCaseSensitive(out, "type", arr);
        return out;
    }
    if (cJSON_IsArray(type)) {
        if (!tg_json_array_has_string(type, "null"))
            cJSON_AddItemToArray(type, cJSON_CreateString("null"));
        return out;
    }
    if (!out->child)
        return out; /* accepts anything, null included */
    cJSON *any = cJSON_CreateObject(), *list = cJSON_CreateArray(), *null = cJSON_CreateObject();
    cJSON_AddStringToObject(null, "type", "null");
    cJSON_AddItemToArray(list, null);
    cJSON_AddItemToArray(list, out);
    cJSON_AddItemToObject(any, "anyOf", list);
    return any;
}

static void drop_required(cJSON *out, const tg_strv *dropped)
{
    cJSON *req = cJSON_GetObjectItemCaseSensitive(out, "required");
    for (size_t i = 0; cJSON_IsArray(req) && i < dropped->n; i++) {
        for (int j = cJSON_GetArraySize(req) - 1; j >= 0; j--) {
            const cJSON *e = cJSON_GetArrayItem(req, j);
            if (cJSON_IsString(e) && strcmp(e->valuestring, dropped->v[i]) == 0)
                cJSON_DeleteItemFromArray(req, j);
        }
    }
    if (cJSON_IsArray(req) && !req->child)
        cJSON_DeleteItemFromObjectCaseSensitive(out, "required");
}

cJSON *oa_schema(oa_ctx *c, const cJSON *s, const char *where, enum oa_side side)
{
    if (c->failed)
        return NULL;
    if (cJSON_IsBool(s))
        return cJSON_Duplicate(s, true); /* 3.1: true / false schemas */
    if (!cJSON_IsObject(s))
        return oa_fail(c, where, "a schema must be an object; write {} for any value");
    const cJSON *ref = tg_json_get(s, "$ref");
    if (ref) {
        if (!cJSON_IsString(ref))
            return oa_fail(c, where, "$ref must be a string");
        return from_ref(c, s, ref->valuestring, where, side);
    }
    c->nodes++;
    c->total++;
    cJSON *out = cJSON_CreateObject();
    tg_strv dropped = TG_STRV_INIT;
    const cJSON *k;
    cJSON_ArrayForEach(k, s)
    {
        convert_keyword(c, k, where, side, out, &dropped);
        if (c->failed)
            break;
    }
    drop_required(out, &dropped);
    tg_strv_free(&dropped);
    if (c->failed) {
        cJSON_Delete(out);
        return NULL;
    }
    fix_bounds(s, out);
    if (c->v30 && cJSON_IsTrue(tg_json_get(s, "nullable")))
        out = make_nullable(out);
    return out;
}
