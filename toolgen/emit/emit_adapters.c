/*
 * emit_adapters.c — OpenAI (Chat Completions and Responses API function tools, strict mode when
 * possible) and Anthropic tool definitions.
 *
 * Strict mode follows OpenAI's documented subset for Structured Outputs: types string, number,
 * integer, boolean, object, array, null, plus enum, const, anyOf, local $ref/$defs; objects with
 * additionalProperties false and every property required; at most 10 levels of object nesting,
 * 5000 properties, 1000 enum values, 120000 characters of names and values. Kept constraints:
 * pattern, format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid),
 * minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minItems, maxItems.
 * docs/emit.md explains the transformation and when it gives up.
 */
#include "emit/emit_adapters.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"

enum {
    STRICT_MAX_DEPTH = 10,
    STRICT_MAX_PROPS = 5000,
    STRICT_MAX_ENUM = 1000,
    STRICT_MAX_CHARS = 120000,
    OPENAI_MAX_DESCRIPTION = 1024,
};

/* Keywords dropped with their meaning moved into the description: toolgen validates every call
 * against the full input_schema before the tool runs, so relaxing them on the model's side
 * cannot let a bad argument through; it can only cost the model a retry on INVALID_INPUT. */
enum {
    RX_DEFAULT = 1 << 0,
    RX_MIN_LENGTH = 1 << 1,
    RX_MAX_LENGTH = 1 << 2,
    RX_UNIQUE = 1 << 3,
    RX_FORMAT = 1 << 4,
    RX_MIN_PROPS = 1 << 5,
    RX_MAX_PROPS = 1 << 6,
};
static const char *const relaxed_names[] = {"default",     "minLength",     "maxLength",
                                            "uniqueItems", "format",        "minProperties",
                                            "maxProperties", NULL};

static const char *const strict_formats[] = {"date-time", "time", "date",  "duration", "email",
                                             "hostname",  "ipv4", "ipv6", "uuid",     NULL};
/* Kept as they are (beyond the structural keywords handled one by one). */
static const char *const kept_keywords[] = {
    "title",   "description", "pattern",          "multipleOf", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", NULL};
/* Meaningful JSON Schema that strict mode has no way to express: the reason to give up. */
static const char *const unsupported_keywords[] = {
    "allOf",        "oneOf",       "not",           "if",          "then",
    "else",         "dependentRequired", "dependentSchemas", "patternProperties",
    "propertyNames", "unevaluatedProperties", "unevaluatedItems", "prefixItems", "contains",
    "minContains",  "maxContains", "additionalItems", "dependencies", "contentSchema",
    "$id",          "$anchor",     "$dynamicAnchor", "$dynamicRef", "$recursiveRef",
    "$recursiveAnchor", "$vocabulary", NULL};
static const char *const simple_types[] = {"string", "number", "integer", "boolean",
                                           "object", "array",  "null",    NULL};

typedef struct strict_ctx {
    tg_openai_mode *mode;
    tg_buf path; /* JSON Pointer of the schema being transformed, for reasons */
    unsigned relaxed;
    int props, enums;
    size_t chars;
} strict_ctx;

/* Records the first reason (the innermost failure is reported first and kept). */
static void reason_v(strict_ctx *c, const char *fmt, va_list ap)
{
    if (c->mode->reason[0])
        return;
    char msg[200];
    vsnprintf(msg, sizeof msg, fmt, ap);
    snprintf(c->mode->reason, sizeof c->mode->reason, "%s: %s",
             c->path.len ? c->path.data : "(root)", msg);
}

static cJSON *give_up(strict_ctx *c, const char *fmt, ...) TG_PRINTF(2, 3);
static bool refuse(strict_ctx *c, const char *fmt, ...) TG_PRINTF(2, 3);

/* For functions returning the transformed schema: NULL. */
static cJSON *give_up(strict_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reason_v(c, fmt, ap);
    va_end(ap);
    return NULL;
}

/* For functions returning success: false. */
static bool refuse(strict_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reason_v(c, fmt, ap);
    va_end(ap);
    return false;
}

static size_t push(strict_ctx *c, const char *a, const char *b)
{
    size_t mark = c->path.len;
    tg_buf_putc(&c->path, '/');
    tg_buf_pointer_token(&c->path, a);
    if (b) {
        tg_buf_putc(&c->path, '/');
        tg_buf_pointer_token(&c->path, b);
    }
    return mark;
}

static void pop(strict_ctx *c, size_t mark)
{
    tg_buf_truncate(&c->path, mark);
}

/* ---- small schema facts --------------------------------------------------------------------- */

static bool type_has(const cJSON *type, const char *t)
{
    if (cJSON_IsString(type))
        return strcmp(type->valuestring, t) == 0;
    return tg_json_array_has_string(type, t);
}

/* Shallow: does the schema itself say null is a valid value? */
static bool accepts_null(const cJSON *s)
{
    if (type_has(tg_json_get(s, "type"), "null"))
        return true;
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(s, "enum"))
    {
        if (cJSON_IsNull(e))
            return true;
    }
    if (cJSON_IsNull(tg_json_get(s, "const")))
        return true;
    cJSON_ArrayForEach(e, tg_json_get(s, "anyOf"))
    {
        if (accepts_null(e))
            return true;
    }
    return false;
}

/* Counts the characters OpenAI limits: property and definition names, enum and const values. */
static void count_chars(strict_ctx *c, const cJSON *v)
{
    if (cJSON_IsString(v))
        c->chars += strlen(v->valuestring);
    const cJSON *e;
    if (cJSON_IsArray(v))
        cJSON_ArrayForEach(e, v) count_chars(c, e);
}

/* ---- the transformation --------------------------------------------------------------------- */

/* depth: how many objects enclose this schema. */
static cJSON *strict_node(strict_ctx *c, const cJSON *in, int depth);

/* A type must be one simple type, possibly with "null": strict mode has no other unions. */
static bool type_ok(const cJSON *type)
{
    if (cJSON_IsString(type))
        return tg_strlist_has(simple_types, type->valuestring);
    if (!cJSON_IsArray(type))
        return false;
    int n = 0, nonnull = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, type)
    {
        if (!cJSON_IsString(e) || !tg_strlist_has(simple_types, e->valuestring))
            return false;
        n++;
        nonnull += strcmp(e->valuestring, "null") != 0;
    }
    return n >= 1 && nonnull <= 1;
}

static void note_add(tg_buf *note, const char *fmt, ...) TG_PRINTF(2, 3);

static void note_add(tg_buf *note, const char *fmt, ...)
{
    if (note->len)
        tg_buf_putc(note, ' ');
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(note, fmt, ap);
    va_end(ap);
}

static void number_text(tg_buf *b, const cJSON *n)
{
    char nb[40];
    tg_buf_puts(b, cJSON_IsNumber(n) ? tg_json_number_text(n, nb) : "?");
}

/* Describes the relaxed constraints of in, so the model still reads them. */
static void relaxed_notes(strict_ctx *c, const cJSON *in, tg_buf *note)
{
    const cJSON *minl = tg_json_get(in, "minLength"), *maxl = tg_json_get(in, "maxLength");
    if (minl || maxl) {
        tg_buf t = TG_BUF_INIT;
        if (minl && maxl) {
            tg_buf_puts(&t, "Length: ");
            number_text(&t, minl);
            tg_buf_puts(&t, " to ");
            number_text(&t, maxl);
        } else {
            tg_buf_puts(&t, minl ? "Length: at least " : "Length: at most ");
            number_text(&t, minl ? minl : maxl);
        }
        note_add(note, "%s characters.", t.data);
        tg_buf_free(&t);
        c->relaxed |= (minl ? RX_MIN_LENGTH : 0) | (maxl ? RX_MAX_LENGTH : 0);
    }
    if (cJSON_IsTrue(tg_json_get(in, "uniqueItems"))) {
        note_add(note, "Items must be unique.");
        c->relaxed |= RX_UNIQUE;
    }
    const char *fmt = tg_json_get_string(in, "format");
    if (fmt && !tg_strlist_has(strict_formats, fmt)) {
        note_add(note, "Format: %s.", fmt);
        c->relaxed |= RX_FORMAT;
    }
    const cJSON *minp = tg_json_get(in, "minProperties"), *maxp = tg_json_get(in, "maxProperties");
    if (minp || maxp) {
        tg_buf t = TG_BUF_INIT;
        if (minp) {
            tg_buf_puts(&t, "At least ");
            number_text(&t, minp);
            tg_buf_puts(&t, maxp ? " and at most " : "");
        } else {
            tg_buf_puts(&t, "At most ");
        }
        if (maxp)
            number_text(&t, maxp);
        note_add(note, "%s non-null properties.", t.data);
        tg_buf_free(&t);
        c->relaxed |= (minp ? RX_MIN_PROPS : 0) | (maxp ? RX_MAX_PROPS : 0);
    }
    if (tg_json_get(in, "default"))
        c->relaxed |= RX_DEFAULT;
}

static void append_description(cJSON *s, const char *note)
{
    if (!note || !*note)
        return;
    const char *old = tg_json_get_string(s, "description");
    char *text = old && *old ? xasprintf("%s %s", old, note) : xstrdup(note);
    /* (cJSON_ReplaceItemViaPointer would drop the member's key; this one keeps it.) */
    if (cJSON_GetObjectItemCaseSensitive(s, "description"))
        cJSON_ReplaceItemInObjectCaseSensitive(s, "description", cJSON_CreateString(text));
    else
        cJSON_AddStringToObject(s, "description", text);
    free(text);
}

/* A map of subschemas ($defs, properties): each transformed under its own path. */
static cJSON *strict_map(strict_ctx *c, const char *kw, const cJSON *map, int depth)
{
    if (!cJSON_IsObject(map))
        return give_up(c, "%s is not an object", kw);
    cJSON *out = cJSON_CreateObject();
    const cJSON *e;
    cJSON_ArrayForEach(e, map)
    {
        c->chars += strlen(e->string);
        size_t mark = push(c, kw, e->string);
        cJSON *t = strict_node(c, e, depth);
        pop(c, mark);
        if (!t) {
            cJSON_Delete(out);
            return NULL;
        }
        cJSON_AddItemToObject(out, e->string, t);
    }
    return out;
}

static cJSON *strict_list(strict_ctx *c, const char *kw, const cJSON *list, int depth)
{
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
        return give_up(c, "%s is not a non-empty array", kw);
    cJSON *out = cJSON_CreateArray();
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, list)
    {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", i++);
        size_t mark = push(c, kw, idx);
        cJSON *t = strict_node(c, e, depth);
        pop(c, mark);
        if (!t) {
            cJSON_Delete(out);
            return NULL;
        }
        cJSON_AddItemToArray(out, t);
    }
    return out;
}

/* The JSON Schema type of one enum/const value; integral numbers are "integer". */
static const char *value_type(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsObject(v))
        return "object";
    double d = v->valuedouble;
    return d > -9e15 && d < 9e15 && d == (double)(long long)d ? "integer" : "number";
}

/*
 * A branch of anyOf that is only an enum or a const gets the type of its values: strict mode
 * wants a type on every branch. Integers and other numbers make "number"; null adds "null".
 * False when the values have several other types (no single type says that).
 */
static bool type_enum_branch(strict_ctx *c, cJSON *branch)
{
    const cJSON *values = tg_json_get(branch, "enum"), *cnst = tg_json_get(branch, "const");
    if (tg_json_get(branch, "type") || (!values && !cnst))
        return true;
    const char *type = NULL;
    bool null = false;
    const cJSON *v = values ? values->child : cnst;
    for (; v; v = values ? v->next : NULL) {
        const char *t = value_type(v);
        if (!strcmp(t, "null"))
            null = true;
        else if (!type || (!strcmp(type, "integer") && !strcmp(t, "number")))
            type = t;
        else if (strcmp(type, t) != 0 && !(!strcmp(type, "number") && !strcmp(t, "integer")))
            return refuse(c, "an enum of values of several types inside anyOf has no strict "
                             "form");
    }
    if (!type)
        type = "null";
    cJSON *t = cJSON_CreateObject();
    if (null && strcmp(type, "null") != 0) {
        const char *both[2] = {type, "null"};
        cJSON_AddItemToObject(t, "type", cJSON_CreateStringArray(both, 2));
    } else {
        cJSON_AddStringToObject(t, "type", type);
    }
    /* first, where a reader expects it */
    cJSON_InsertItemInArray(branch, 0, cJSON_DetachItemFromObjectCaseSensitive(t, "type"));
    cJSON_Delete(t);
    return true;
}

static bool type_enum_branches(strict_ctx *c, cJSON *any_of)
{
    cJSON *b;
    cJSON_ArrayForEach(b, any_of)
    {
        if (!type_enum_branch(c, b))
            return false;
    }
    return true;
}

/*
 * An optional property: strict mode wants it required, so null takes the place of "absent".
 * That only works when null was not already a valid value (else null would mean two things).
 */
static cJSON *make_nullable(strict_ctx *c, cJSON *s, const cJSON *orig, const char *name)
{
    if (accepts_null(s)) {
        cJSON_Delete(s);
        return give_up(c, "optional property \"%s\" also accepts null, so null could not stand "
                          "for a left-out argument", name);
    }
    cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    bool plain = type && !tg_json_get(s, "enum") && !tg_json_get(s, "const");
    if (plain && cJSON_IsString(type)) {
        const char *both[2] = {type->valuestring, "null"};
        cJSON_ReplaceItemInObjectCaseSensitive(s, "type", cJSON_CreateStringArray(both, 2));
    } else if (plain) {
        cJSON_AddItemToArray(type, cJSON_CreateString("null"));
    } else {
        /* No simple type (enum, const, $ref, anyOf): the alternatives go under anyOf, the
         * annotations stay outside where the model reads them first. */
        cJSON *w = cJSON_CreateObject();
        cJSON *title = cJSON_DetachItemFromObjectCaseSensitive(s, "title");
        cJSON *desc = cJSON_DetachItemFromObjectCaseSensitive(s, "description");
        if (title)
            cJSON_AddItemToObject(w, "title", title);
        if (desc)
            cJSON_AddItemToObject(w, "description", desc);
        cJSON *any = cJSON_AddArrayToObject(w, "anyOf");
        cJSON *own = cJSON_GetObjectItemCaseSensitive(s, "anyOf");
        if (own && cJSON_GetArraySize(s) == 1) {
            cJSON *alt;
            while ((alt = cJSON_DetachItemFromArray(own, 0)) != NULL)
                cJSON_AddItemToArray(any, alt);
            cJSON_Delete(s);
        } else {
            cJSON_AddItemToArray(any, s);
        }
        cJSON *null_alt = cJSON_CreateObject();
        cJSON_AddStringToObject(null_alt, "type", "null");
        cJSON_AddItemToArray(any, null_alt);
        s = w;
        if (!type_enum_branches(c, any)) {
            cJSON_Delete(s);
            return NULL;
        }
    }
    const cJSON *def = tg_json_get(orig, "default");
    if (def) {
        char *d = tg_json_print_compact(def);
        char *note = xasprintf("Optional: send null to leave it out (default: %s).", d);
        append_description(s, note);
        free(note);
        free(d);
    } else {
        append_description(s, "Optional: send null to leave it out.");
    }
    return s;
}

/* level: this object's nesting level, 1 for the root. */
static cJSON *strict_object(strict_ctx *c, const cJSON *in, cJSON *out, int level)
{
    if (level > STRICT_MAX_DEPTH)
        return give_up(c, "objects nested deeper than %d levels", STRICT_MAX_DEPTH);
    const cJSON *props = tg_json_get(in, "properties");
    const cJSON *addl = tg_json_get(in, "additionalProperties");
    const cJSON *req = tg_json_get(in, "required");
    if (cJSON_IsObject(addl))
        return give_up(c, "additionalProperties with a schema (a map) has no strict form");
    if (!cJSON_GetArraySize(props) && !cJSON_IsFalse(addl))
        return give_up(c, "an object without fixed properties has no strict form");
    const cJSON *r;
    cJSON_ArrayForEach(r, req)
    {
        if (!cJSON_IsString(r) || !tg_json_get(props, r->valuestring))
            return give_up(c, "required names a property that is not declared");
    }
    c->props += cJSON_GetArraySize(props);
    if (c->props > STRICT_MAX_PROPS)
        return give_up(c, "more than %d properties in all", STRICT_MAX_PROPS);
    cJSON *tp = props ? strict_map(c, "properties", props, level) : cJSON_CreateObject();
    if (!tp)
        return NULL;
    /* Rebuilt one by one so that the property order stays the source order. */
    cJSON *np = cJSON_CreateObject(), *all = cJSON_CreateArray(), *p;
    while ((p = tp->child) != NULL) {
        cJSON_DetachItemViaPointer(tp, p);
        char *name = xstrdup(p->string);
        cJSON_AddItemToArray(all, cJSON_CreateString(name));
        if (!tg_json_array_has_string(req, name)) {
            size_t mark = push(c, "properties", name);
            p = make_nullable(c, p, cJSON_GetObjectItemCaseSensitive(props, name), name);
            pop(c, mark);
        }
        if (p)
            cJSON_AddItemToObject(np, name, p);
        free(name);
        if (!p) {
            cJSON_Delete(tp);
            cJSON_Delete(np);
            cJSON_Delete(all);
            return NULL;
        }
    }
    cJSON_Delete(tp);
    tp = np;
    cJSON_AddItemToObject(out, "properties", tp);
    cJSON_AddItemToObject(out, "required", all);
    cJSON_AddBoolToObject(out, "additionalProperties", false);
    return out;
}

/* Copies or transforms one keyword of in into out; false when strict mode must give up. */
static bool strict_keyword(strict_ctx *c, const cJSON *kw, cJSON *out, int depth)
{
    const char *k = kw->string;
    cJSON *t = NULL;
    if (tg_strlist_has(kept_keywords, k) || strcmp(k, "const") == 0) {
        if (strcmp(k, "const") == 0)
            count_chars(c, kw);
        cJSON_AddItemToObject(out, k, cJSON_Duplicate(kw, true));
        return true;
    }
    if (strcmp(k, "type") == 0) {
        if (!type_ok(kw))
            return refuse(c, "type must be one type, optionally with null");
        cJSON_AddItemToObject(out, k, cJSON_Duplicate(kw, true));
        return true;
    }
    if (strcmp(k, "enum") == 0) {
        c->enums += cJSON_GetArraySize(kw);
        if (c->enums > STRICT_MAX_ENUM)
            return refuse(c, "more than %d enum values in all", STRICT_MAX_ENUM);
        count_chars(c, kw);
        cJSON_AddItemToObject(out, k, cJSON_Duplicate(kw, true));
        return true;
    }
    if (strcmp(k, "format") == 0) {
        if (cJSON_IsString(kw) && tg_strlist_has(strict_formats, kw->valuestring))
            cJSON_AddItemToObject(out, k, cJSON_Duplicate(kw, true));
        return true; /* other formats: relaxed_notes */
    }
    if (strcmp(k, "$ref") == 0) {
        if (!cJSON_IsString(kw) || kw->valuestring[0] != '#')
            return refuse(c, "$ref to another document has no strict form");
        cJSON_AddItemToObject(out, k, cJSON_Duplicate(kw, true));
        return true;
    }
    if (strcmp(k, "items") == 0) {
        size_t mark = push(c, "items", NULL);
        t = cJSON_IsObject(kw) ? strict_node(c, kw, depth)
                               : give_up(c, "items must be one schema");
        pop(c, mark);
    } else if (strcmp(k, "anyOf") == 0) {
        t = strict_list(c, k, kw, depth);
        if (t && !type_enum_branches(c, t)) {
            cJSON_Delete(t);
            t = NULL;
        }
    } else if (strcmp(k, "$defs") == 0 || strcmp(k, "definitions") == 0) {
        t = strict_map(c, k, kw, depth);
    } else if (tg_strlist_has(unsupported_keywords, k)) {
        return refuse(c, "%s has no strict form", k);
    } else {
        /* properties/required/additionalProperties: strict_object. Everything else is an
         * annotation (examples, $comment, vendor keywords) or relaxed: dropped. */
        return true;
    }
    if (!t)
        return false;
    cJSON_AddItemToObject(out, k, t);
    return true;
}

static cJSON *strict_node(strict_ctx *c, const cJSON *in, int depth)
{
    if (!cJSON_IsObject(in))
        return give_up(c, "a boolean schema has no strict form");
    cJSON *out = cJSON_CreateObject();
    const cJSON *kw;
    cJSON_ArrayForEach(kw, in)
    {
        if (!strict_keyword(c, kw, out, depth)) {
            cJSON_Delete(out);
            return NULL;
        }
    }
    /* After the keywords, so that an unsupported one (oneOf, ...) is the reason given. */
    const cJSON *type = tg_json_get(in, "type");
    if (!type && !tg_json_get(in, "enum") && !tg_json_get(in, "const") &&
        !tg_json_get(in, "anyOf") && !tg_json_get(in, "$ref")) {
        cJSON_Delete(out);
        return give_up(c, "a schema without type accepts any value");
    }
    if (type_has(type, "object") && !strict_object(c, in, out, depth + 1)) {
        cJSON_Delete(out);
        return NULL;
    }
    if (type_has(type, "array") && !cJSON_IsObject(tg_json_get(in, "items"))) {
        cJSON_Delete(out);
        return give_up(c, "an array without an items schema has no strict form");
    }
    tg_buf note = TG_BUF_INIT;
    relaxed_notes(c, in, &note);
    append_description(out, note.data);
    tg_buf_free(&note);
    return out;
}

static void relaxed_list(unsigned bits, char *out, size_t n)
{
    tg_buf b = TG_BUF_INIT;
    for (int i = 0; relaxed_names[i]; i++)
        if (bits & (1u << i))
            tg_buf_printf(&b, "%s%s", b.len ? ", " : "", relaxed_names[i]);
    snprintf(out, n, "%s", b.data);
    tg_buf_free(&b);
}

cJSON *tg_emit_openai_strict_schema(const cJSON *schema, tg_openai_mode *mode)
{
    tg_openai_mode local;
    if (!mode)
        mode = &local;
    *mode = (tg_openai_mode){0};
    strict_ctx c = {.mode = mode, .path = TG_BUF_INIT};
    cJSON *out = NULL;
    if (!cJSON_IsObject(schema) || !cJSON_IsString(tg_json_get(schema, "type")) ||
        strcmp(tg_json_get_string(schema, "type"), "object") != 0)
        give_up(&c, "the root must be type object");
    else if (tg_json_get(schema, "anyOf"))
        give_up(&c, "anyOf at the root has no strict form");
    else
        out = strict_node(&c, schema, 0);
    if (out && c.chars > STRICT_MAX_CHARS) {
        cJSON_Delete(out);
        out = give_up(&c, "more than %d characters of names and enum values",
                      STRICT_MAX_CHARS);
    }
    tg_buf_free(&c.path);
    mode->strict = out != NULL;
    if (out)
        relaxed_list(c.relaxed, mode->relaxed, sizeof mode->relaxed);
    return out;
}

/* ---- tool definitions ----------------------------------------------------------------------- */

/* name, description, parameters, strict: the members both OpenAI shapes share, added to t. */
static void add_openai_function(cJSON *t, const tg_manifest *m, tg_openai_mode *mode)
{
    tg_openai_mode local;
    if (!mode)
        mode = &local;
    cJSON *client = tg_emit_client_schema(m->input_schema);
    cJSON *strict = tg_emit_openai_strict_schema(client, mode);
    cJSON_AddStringToObject(t, "name", m->name);
    /* OpenAI refused function descriptions over 1024 characters until 2025, and compatible
     * servers (Azure OpenAI, proxies) still may: every section is kept, shortened to its share
     * (docs/emit.md, "The tool description"). */
    char *desc = tg_emit_description_max(m, OPENAI_MAX_DESCRIPTION);
    cJSON_AddStringToObject(t, "description", desc);
    free(desc);
    if (strict) {
        cJSON_AddItemToObject(t, "parameters", strict);
        cJSON_Delete(client);
    } else {
        cJSON_AddItemToObject(t, "parameters", client);
    }
    cJSON_AddBoolToObject(t, "strict", strict != NULL);
}

cJSON *tg_emit_openai_tool(const tg_manifest *m, tg_openai_mode *mode)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "function");
    add_openai_function(cJSON_AddObjectToObject(t, "function"), m, mode);
    return t;
}

cJSON *tg_emit_openai_responses_tool(const tg_manifest *m)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "function");
    add_openai_function(t, m, NULL);
    /* The output of a forwarded call is the result's JSON text (the MCP result's JSON block),
     * which the output schema describes. */
    cJSON_AddItemToObject(t, "output_schema", tg_emit_client_schema(m->output_schema));
    return t;
}

tg_openai_mode tg_emit_openai_mode(const tg_manifest *m)
{
    tg_openai_mode mode;
    cJSON_Delete(tg_emit_openai_tool(m, &mode));
    return mode;
}

cJSON *tg_emit_anthropic_tool(const tg_manifest *m)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", m->name);
    char *desc = tg_emit_description(m);
    cJSON_AddStringToObject(t, "description", desc);
    free(desc);
    cJSON_AddItemToObject(t, "input_schema", tg_emit_client_schema(m->input_schema));
    /* Each example's input: complete, valid calls Claude learns the argument conventions from
     * (docs/emit.md, "anthropic.json"). */
    cJSON *examples = cJSON_AddArrayToObject(t, "input_examples");
    const cJSON *ex;
    cJSON_ArrayForEach(ex, m->examples)
    {
        const cJSON *in = tg_json_get(ex, "input");
        cJSON_AddItemToArray(examples, in ? cJSON_Duplicate(in, true) : cJSON_CreateObject());
    }
    return t;
}

/* ---- strict calls back to toolgen's contract ------------------------------------------------ */

/* Follows local $refs ("#/..."), a bounded number of times (a $ref cycle stops here). */
static const cJSON *deref(const cJSON *root, const cJSON *s)
{
    for (int i = 0; i < 32; i++) {
        const char *ref = tg_json_get_string(s, "$ref");
        if (!ref || ref[0] != '#')
            return s;
        const cJSON *t = tg_json_pointer_get(root, ref + 1);
        if (!t)
            return s;
        s = t;
    }
    return s;
}

static void drop_nulls(const cJSON *root, const cJSON *s, cJSON *v, int depth)
{
    if (depth > 128)
        return;
    s = deref(root, s);
    if (cJSON_IsObject(v)) {
        const cJSON *props = tg_json_get(s, "properties"), *req = tg_json_get(s, "required");
        for (cJSON *e = v->child, *next; e; e = next) {
            next = e->next;
            const cJSON *ps = tg_json_get(props, e->string);
            if (!ps)
                continue;
            if (cJSON_IsNull(e) && !tg_json_array_has_string(req, e->string) &&
                !accepts_null(deref(root, ps)))
                cJSON_Delete(cJSON_DetachItemViaPointer(v, e));
            else
                drop_nulls(root, ps, e, depth + 1);
        }
    } else if (cJSON_IsArray(v) && cJSON_IsObject(tg_json_get(s, "items"))) {
        cJSON *e;
        cJSON_ArrayForEach(e, v) drop_nulls(root, tg_json_get(s, "items"), e, depth + 1);
    }
}

void tg_emit_openai_drop_nulls(const cJSON *input_schema, cJSON *args)
{
    drop_nulls(input_schema, input_schema, args, 0);
}
