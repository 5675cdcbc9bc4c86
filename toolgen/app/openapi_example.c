/*
 * openapi_example.c — illustrative values for the examples of drafted manifests, when the
 * OpenAPI document gives none (openapi_int.h). A manifest needs at least one example; one made
 * from the schema shows the shape of a call and is marked as illustrative in the manifest, to
 * be replaced by a real call before review (docs/cli.md#init-from-openapi).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/openapi_int.h"
#include "base/buf.h"

#define OA_EXAMPLE_DEPTH 12
#define OA_PATTERN_MAX 256

/* The shortest kind of string a simple regular expression matches: the first alternative,
 * the first character of a class, a quantifier's least count (one for + and {0,...} is
 * skipped). NULL for what it cannot follow (backreferences, lookaround, nested groups with
 * quantifiers past the budget); the caller checks the result against the schema anyway. */
static bool pattern_atom(const char **pp, tg_buf *atom)
{
    const char *p = *pp;
    if (*p == '\\') {
        char c = p[1];
        if (!c || strchr("bBkpP123456789", c))
            return false;
        tg_buf_putc(atom, c == 'd' ? '0' : c == 'w' ? 'a' : c == 's' ? ' ' : c == 'n' ? '\n'
                                                         : c == 't' ? '\t' : c);
        p += 2;
    } else if (*p == '[') {
        p++;
        if (*p == '^')
            return false;
        if (*p == '\\' && p[1])
            tg_buf_putc(atom, p[1] == 'd' ? '0' : p[1] == 'w' ? 'a' : p[1]), p += 2;
        else
            tg_buf_putc(atom, *p++);
        while (*p && *p != ']')
            p += *p == '\\' && p[1] ? 2 : 1;
        if (*p++ != ']')
            return false;
    } else if (*p == '(') {
        p++;
        if (*p == '?') {
            if (p[1] != ':')
                return false; /* lookaround */
            p += 2;
        }
        int depth = 1;
        const char *start = p;
        bool alt_taken = false;
        for (; *p && depth; p++) {
            if (*p == '\\' && p[1]) {
                if (!alt_taken)
                    tg_buf_putc(atom, p[1] == 'd' ? '0' : p[1]);
                p++;
            } else if (*p == '(' || *p == '[' || strchr("*+?{", *p)) {
                if (depth == 1 && !alt_taken && *p != '(' && *p != '[')
                    return false; /* a quantifier inside a group: not followed */
                if (*p == '(')
                    depth++;
                else if (*p == '[')
                    return false;
            } else if (*p == ')') {
                depth--;
            } else if (*p == '|' && depth == 1) {
                alt_taken = true;
            } else if (!alt_taken && depth == 1) {
                tg_buf_putc(atom, *p);
            }
        }
        if (depth || p - 1 < start)
            return false;
    } else if (*p == '.') {
        tg_buf_putc(atom, 'a');
        p++;
    } else {
        tg_buf_putc(atom, *p++);
    }
    *pp = p;
    return true;
}

static char *pattern_example(const char *pattern)
{
    tg_buf b = TG_BUF_INIT;
    const char *p = pattern;
    if (*p == '^')
        p++;
    while (*p && *p != '|' && !(*p == '$' && (!p[1] || p[1] == '|'))) {
        tg_buf atom = TG_BUF_INIT;
        if (!pattern_atom(&p, &atom)) {
            tg_buf_free(&atom);
            tg_buf_free(&b);
            return NULL;
        }
        long times = 1;
        if (*p == '*' || *p == '?') {
            times = 0;
            p++;
        } else if (*p == '+') {
            p++;
        } else if (*p == '{') {
            char *end;
            times = strtol(p + 1, &end, 10);
            p = strchr(p, '}');
            if (!p) {
                tg_buf_free(&atom);
                tg_buf_free(&b);
                return NULL;
            }
            p++;
        }
        if (*p == '?')
            p++; /* lazy */
        for (long i = 0; i < times && b.len < OA_PATTERN_MAX; i++)
            tg_buf_append(&b, atom.data ? atom.data : "", atom.len);
        tg_buf_free(&atom);
    }
    return b.data ? tg_buf_steal(&b) : xstrdup("");
}

static cJSON *string_for(const cJSON *s)
{
    static const char *const formats[][2] = {
        {"date", "2024-01-31"},          {"date-time", "2024-01-31T12:00:00Z"},
        {"email", "user@example.com"},   {"uri", "https://example.com/"},
        {"url", "https://example.com/"}, {"uuid", "123e4567-e89b-42d3-a456-426614174000"},
        {"ipv4", "192.0.2.1"},           {"ipv6", "2001:db8::1"},
        {"hostname", "example.com"},     {"time", "12:00:00Z"},
    };
    const char *pat = tg_json_get_string(s, "pattern");
    char *pe = pat ? pattern_example(pat) : NULL;
    if (pe) {
        cJSON *v = cJSON_CreateString(pe);
        free(pe);
        return v;
    }
    const char *f = tg_json_get_string(s, "format");
    for (size_t i = 0; f && i < sizeof formats / sizeof *formats; i++)
        if (strcmp(f, formats[i][0]) == 0)
            return cJSON_CreateString(formats[i][1]);
    double min = tg_json_get_number(s, "minLength", 0), max = tg_json_get_number(s, "maxLength", 64);
    char buf[72] = "string";
    size_t n = strlen(buf);
    while (n < min && n < 64)
        buf[n++] = 'x';
    buf[n] = '\0';
    if (max >= 0 && max < (double)n)
        buf[(size_t)max] = '\0';
    return cJSON_CreateString(buf);
}

static cJSON *number_for(const cJSON *s, bool integer)
{
    const cJSON *min = tg_json_get(s, "minimum"), *emin = tg_json_get(s, "exclusiveMinimum");
    const cJSON *max = tg_json_get(s, "maximum"), *emax = tg_json_get(s, "exclusiveMaximum");
    bool has_lo = cJSON_IsNumber(min) || cJSON_IsNumber(emin);
    bool has_hi = cJSON_IsNumber(max) || cJSON_IsNumber(emax);
    double lo = cJSON_IsNumber(emin) ? emin->valuedouble : has_lo ? min->valuedouble : 0;
    double hi = cJSON_IsNumber(emax) ? emax->valuedouble : has_hi ? max->valuedouble : 0;
    double v = !has_lo ? 1 : cJSON_IsNumber(emin) ? lo + 1 : lo;
    if (has_hi && (v > hi || (cJSON_IsNumber(emax) && v >= hi)))
        v = cJSON_IsNumber(emax) ? hi - 1 : hi;
    if (has_lo && has_hi && (v < lo || (cJSON_IsNumber(emin) && v <= lo)))
        v = (lo + hi) / 2; /* a narrow open interval */
    return cJSON_CreateNumber(integer ? ceil(v) : v);
}

static cJSON *object_for(const cJSON *s, int depth)
{
    cJSON *o = cJSON_CreateObject();
    const cJSON *props = tg_json_get(s, "properties"), *r;
    cJSON_ArrayForEach(r, tg_json_get(s, "required"))
    {
        if (!cJSON_IsString(r) || tg_json_get(o, r->valuestring))
            continue;
        const cJSON *ps = tg_json_get(props, r->valuestring);
        cJSON_AddItemToObject(o, r->valuestring, oa_example_value(ps, depth + 1));
    }
    return o;
}

/* The first type of s that is not null (NULL: none given). */
static const char *main_type(const cJSON *s)
{
    const cJSON *t = tg_json_get(s, "type");
    if (cJSON_IsString(t))
        return t->valuestring;
    const cJSON *e;
    cJSON_ArrayForEach(e, t)
    {
        if (cJSON_IsString(e) && strcmp(e->valuestring, "null") != 0)
            return e->valuestring;
    }
    return NULL;
}

/* allOf: the branches' objects merged (the first value of each member wins). */
static cJSON *all_of(const cJSON *s, const cJSON *list, int depth)
{
    cJSON *o = main_type(s) || tg_json_get(s, "required") ? object_for(s, depth)
                                                          : cJSON_CreateObject();
    const cJSON *b;
    cJSON_ArrayForEach(b, list)
    {
        cJSON *v = oa_example_value(b, depth + 1);
        for (cJSON *m = cJSON_IsObject(v) ? v->child : NULL; m; m = m->next)
            if (!tg_json_get(o, m->string))
                cJSON_AddItemToObject(o, m->string, cJSON_Duplicate(m, true));
        cJSON_Delete(v);
    }
    return o;
}

/* Whether v is of the schema type t (a name or a list; absent: any). Documents' examples are
 * often of another type than their schema says (example: 20.04 for a string). */
static bool of_type(const cJSON *v, const cJSON *t)
{
    if (!t)
        return true;
    const cJSON *e, *list = cJSON_IsArray(t) ? t : NULL;
    cJSON_ArrayForEach(e, list)
    {
        if (of_type(v, e))
            return true;
    }
    const char *n = cJSON_IsString(t) ? t->valuestring : "";
    return (!strcmp(n, "string") && cJSON_IsString(v)) || (!strcmp(n, "number") && cJSON_IsNumber(v)) ||
           (!strcmp(n, "integer") && cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble)) ||
           (!strcmp(n, "boolean") && cJSON_IsBool(v)) || (!strcmp(n, "object") && cJSON_IsObject(v)) ||
           (!strcmp(n, "array") && cJSON_IsArray(v)) || (!strcmp(n, "null") && cJSON_IsNull(v));
}

cJSON *oa_example_value(const cJSON *s, int depth)
{
    if (!cJSON_IsObject(s) || depth > OA_EXAMPLE_DEPTH)
        return cJSON_CreateNull();
    const cJSON *ex = tg_json_get(s, "examples");
    if (cJSON_IsArray(ex) && ex->child && of_type(ex->child, tg_json_get(s, "type")))
        return cJSON_Duplicate(ex->child, true);
    static const char *const given[] = {"default", "const", NULL};
    for (size_t i = 0; given[i]; i++)
        if (tg_json_get(s, given[i]))
            return cJSON_Duplicate(tg_json_get(s, given[i]), true);
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(s, "enum"))
    {
        if (!cJSON_IsNull(e))
            return cJSON_Duplicate(e, true);
    }
    const cJSON *list = tg_json_get(s, "allOf");
    if (cJSON_IsArray(list) && list->child)
        return all_of(s, list, depth);
    const char *alts[] = {"oneOf", "anyOf", NULL};
    for (size_t i = 0; alts[i]; i++) {
        cJSON_ArrayForEach(e, tg_json_get(s, alts[i]))
        {
            const char *bt = main_type(e);
            if (!bt || strcmp(bt, "null") != 0)
                return oa_example_value(e, depth + 1);
        }
    }
    const char *t = main_type(s);
    if (!t)
        return tg_json_get(s, "properties") ? object_for(s, depth) : cJSON_CreateNull();
    if (strcmp(t, "string") == 0)
        return string_for(s);
    if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0)
        return number_for(s, t[0] == 'i');
    if (strcmp(t, "boolean") == 0)
        return cJSON_CreateTrue();
    if (strcmp(t, "object") == 0)
        return object_for(s, depth);
    if (strcmp(t, "array") == 0) {
        cJSON *a = cJSON_CreateArray();
        for (int i = 0; i < (int)tg_json_get_number(s, "minItems", 0) && i < 4; i++)
            cJSON_AddItemToArray(a, oa_example_value(tg_json_get(s, "items"), depth + 1));
        return a;
    }
    return cJSON_CreateNull();
}
