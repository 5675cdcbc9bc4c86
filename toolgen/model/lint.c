/* lint.c — manifest and config checks beyond what the schemas say. */
#include "model/lint.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/confine.h"
#include "base/json.h"
#include "base/strvec.h"
#include "model/manifest.h"
#include "base/util.h"

/* ---- problem list -------------------------------------------------------------------------- */

void tg_problems_add(tg_problems *p, const char *file, tg_pos pos, const char *fmt, ...)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->v = xrealloc(p->v, p->cap * sizeof *p->v);
    }
    va_list ap;
    va_start(ap, fmt);
    char *raw = xvasprintf(fmt, ap);
    va_end(ap);
    /* File and folder names are any bytes: a problem is one printable UTF-8 line. */
    char *msg = tg_utf8_printable(raw);
    free(raw);
    p->v[p->n] = (tg_problem){tg_utf8_printable(file), pos.line, pos.col, msg, p->n};
    p->n++;
}

static int problem_cmp(const void *a, const void *b)
{
    const tg_problem *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void tg_problems_sort(tg_problems *p)
{
    if (p->n > 1)
        qsort(p->v, p->n, sizeof *p->v, problem_cmp);
}

void tg_problems_free(tg_problems *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].file);
        free(p->v[i].msg);
    }
    free(p->v);
    *p = (tg_problems){0};
}

/* ---- helpers ------------------------------------------------------------------------------- */

typedef struct lint_ctx {
    const tg_repo *repo; /* paths are relative to its root */
    tg_schemaset *ss;
    tg_problems *out;
    tg_lint_stats *stats;
    /* name → file of every manifest seen, for the uniqueness check */
    char **names, **name_files;
    tg_pos *name_pos;
    size_t nnames;
} lint_ctx;

static void add_at(lint_ctx *c, const tg_doc *d, const char *pointer, const char *fmt, ...)
    TG_PRINTF(4, 5);

static void add_at(lint_ctx *c, const tg_doc *d, const char *pointer, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    tg_problems_add(c->out, d->file, tg_doc_pointer_pos(d, pointer), "%s", msg);
    free(msg);
}

static void add_err(lint_ctx *c, const tg_err *err, const char *file)
{
    tg_pos p = {err->line, err->col};
    tg_problems_add(c->out, err->file[0] ? err->file : file, p, "%s", err->msg);
}

/* Closest property name declared anywhere in schema (under "properties"), or NULL. */
static void closest_property(const cJSON *schema, const char *name, const char **best,
                             size_t *best_d, int depth)
{
    if (!schema || depth > 64)
        return;
    const cJSON *child;
    cJSON_ArrayForEach(child, schema)
    {
        if (cJSON_IsObject(schema) && strcmp(child->string, "properties") == 0 &&
            cJSON_IsObject(child)) {
            const cJSON *prop;
            cJSON_ArrayForEach(prop, child)
            {
                size_t d = tg_edit_distance(name, prop->string);
                if (d > 0 && d < *best_d) {
                    *best_d = d;
                    *best = prop->string;
                }
            }
        }
        if (cJSON_IsObject(child) || cJSON_IsArray(child))
            closest_property(child, name, best, best_d, depth + 1);
    }
}

/* For 'property "X" is not allowed': a known property close to X, as a hint. */
static const char *suggest_property(const cJSON *schema, const char *message)
{
    const char *q = strstr(message, "property \"");
    if (!schema || !q || !strstr(message, "not allowed"))
        return NULL;
    q += strlen("property \"");
    const char *end = strchr(q, '"');
    if (!end || end == q)
        return NULL;
    char *name = xstrndup(q, (size_t)(end - q));
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    closest_property(schema, name, &best, &best_d, 0);
    size_t limit = strlen(name) / 3 + 1;
    free(name);
    return best && best_d <= limit ? best : NULL;
}

/*
 * A JSON Pointer as messages show it: its keys come from the file, which may be anything (a
 * symlinked secret, a key holding escape sequences), so control characters are escaped and a
 * long pointer is cut to a short excerpt.
 */
static char *shown_pointer(const char *ptr)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "");
    size_t n = strlen(ptr), cut = n > 100 ? 100 : n;
    while (cut < n && cut > 0 && ((unsigned char)ptr[cut] & 0xC0) == 0x80)
        cut--; /* not inside a UTF-8 sequence */
    for (size_t i = 0; i < cut; i++) {
        unsigned char ch = (unsigned char)ptr[i];
        if (ch < 0x20 || ch == 0x7F)
            tg_buf_printf(&b, "\\u%04x", ch);
        else
            tg_buf_putc(&b, (char)ch);
    }
    if (cut < n)
        tg_buf_puts(&b, "...");
    return tg_buf_steal(&b);
}

#define PATTERN_SHOWN_MAX 60 /* a longer pattern (a semantic version's) reads as noise */

/* For a value that breaks a long pattern: the value and what the schema says it must be (the
 * first sentence of its description), instead of the regular expression. NULL otherwise. */
static char *pattern_message(const cJSON *schema, const cJSON *value, const js_error *e)
{
    size_t n = strlen(e->keyword_location);
    const char *q = strchr(e->message, '"');
    if (n < 8 || strcmp(e->keyword_location + n - 8, "/pattern") != 0 || !q ||
        strlen(q) <= PATTERN_SHOWN_MAX + 2 || !cJSON_IsString(value))
        return NULL;
    char *parent = xstrndup(e->keyword_location, n - 8);
    const char *desc = tg_json_get_string(tg_json_pointer_get(schema, parent), "description");
    free(parent);
    if (!desc)
        return NULL;
    const char *end = strstr(desc, ". ");
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "\"");
    tg_buf_puts(&b, value->valuestring);
    tg_buf_printf(&b, "\" does not match pattern: the schema asks for %.*s",
                  end ? (int)(end - desc) : (int)strlen(desc), desc);
    return tg_buf_steal(&b);
}

/*
 * Reports schema errors of an instance that sits at `prefix` inside document d. `schema` is the
 * schema's JSON, used only to suggest a known property name for a misspelt one.
 */
static void report_errors(lint_ctx *c, const tg_doc *d, const char *prefix, const char *what,
                          const cJSON *schema, const js_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        const js_error *e = &errs->v[i];
        char *ptr = xasprintf("%s%s", prefix, e->instance_location);
        char *shown = shown_pointer(ptr);
        const char *hint = suggest_property(schema, e->message);
        char *tail = hint ? xasprintf("; did you mean \"%s\"?", hint) : xstrdup("");
        char *said = pattern_message(schema, tg_json_pointer_get(d->root, ptr), e);
        const char *msg = said ? said : e->message;
        if (what)
            add_at(c, d, ptr, "%s: %s%s (%s: %s)", ptr[0] ? shown : "(root)", msg, tail,
                   what, e->keyword_location[0] ? e->keyword_location : "(root)");
        else
            add_at(c, d, ptr, "%s: %s%s", ptr[0] ? shown : "(root)", msg, tail);
        free(said);
        free(tail);
        free(shown);
        free(ptr);
    }
}

static bool errors_under(const js_errors *errs, const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < errs->n; i++) {
        const char *loc = errs->v[i].instance_location;
        if (strncmp(loc, prefix, n) == 0 && (loc[n] == '\0' || loc[n] == '/'))
            return true;
    }
    return false;
}

/* ---- manifest checks ------------------------------------------------------------------------ */

static js_schema *compile_tool_schema(lint_ctx *c, const tg_manifest *m, const char *key,
                                      bool already_reported)
{
    const cJSON *s = tg_json_get(m->doc.root, key);
    if (!s)
        return NULL;
    tg_err err = {0};
    js_schema *js = js_compile(c->ss->reg, s, &(js_options){0}, &err);
    if (!js && !already_reported) {
        char *ptr = xasprintf("/%s", key);
        add_at(c, &m->doc, ptr, "%s is not a usable JSON Schema: %s", ptr, err.msg);
        free(ptr);
    }
    return js;
}

static void validate_part(lint_ctx *c, const tg_manifest *m, const js_schema *schema,
                          const cJSON *value, const char *pointer, const char *schema_name)
{
    if (!schema || !value)
        return;
    js_errors errs = {0};
    if (!js_validate(schema, value, &errs))
        report_errors(c, &m->doc, pointer, schema_name, tg_json_get(m->doc.root, schema_name), &errs);
    js_errors_free(&errs);
}

static void check_examples_and_tests(lint_ctx *c, const tg_manifest *m, const js_schema *in,
                                     const js_schema *out)
{
    const cJSON *ex;
    int i = 0;
    cJSON_ArrayForEach(ex, m->examples)
    {
        char *p = xasprintf("/examples/%d/input", i);
        validate_part(c, m, in, tg_json_get(ex, "input"), p, "input_schema");
        free(p);
        p = xasprintf("/examples/%d/output", i);
        validate_part(c, m, out, tg_json_get(ex, "output"), p, "output_schema");
        free(p);
        i++;
    }
    const cJSON *t;
    i = 0;
    cJSON_ArrayForEach(t, m->tests)
    {
        const cJSON *expect = tg_json_get(t, "expect");
        const char *code = tg_json_get_string(expect, "error");
        /* A test that expects INVALID_INPUT feeds bad input on purpose. */
        if (!code || strcmp(code, "INVALID_INPUT") != 0) {
            char *p = xasprintf("/tests/%d/input", i);
            validate_part(c, m, in, tg_json_get(t, "input"), p, "input_schema");
            free(p);
        }
        char *p = xasprintf("/tests/%d/expect/output", i);
        validate_part(c, m, out, tg_json_get(expect, "output"), p, "output_schema");
        free(p);
        i++;
    }
}

static bool safe_relative(const char *f)
{
    if (f[0] == '/')
        return false;
    for (const char *s = f; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return false;
        s += n;
        while (*s == '/')
            s++;
    }
    return true;
}

static void check_file(lint_ctx *c, const tg_manifest *m, const char *file, const char *pointer)
{
    if (!file)
        return;
    if (!safe_relative(file)) {
        add_at(c, &m->doc, pointer,
               "%s: '%s' must be a path relative to the manifest's folder, without '..'", pointer,
               file);
        return;
    }
    char *path = tg_path_join(m->dir, file);
    tg_err err = {0};
    if (tg_confine_repo_in(c->repo->path, path, m->dir, "tool code", &err) != 0)
        add_at(c, &m->doc, pointer, "%s: %s %s", pointer, path, err.msg);
    else if (!tg_is_file_at(c->repo->root_fd, path))
        add_at(c, &m->doc, pointer, "%s: file '%s' not found (looked for %s); create it or fix the path",
               pointer, file, path);
    free(path);
}

static bool input_has_property(const tg_manifest *m, const char *name)
{
    const cJSON *props = tg_json_get(m->input_schema, "properties");
    return tg_json_get(props, name) != NULL;
}

/*
 * Templates ({param} placeholders, {{ and }} for literal braces) may only name input properties:
 * anything else would be substituted with nothing at run time.
 */
static void check_template_string(lint_ctx *c, const tg_manifest *m, const char *s,
                                  const char *pointer)
{
    for (const char *p = s; *p; p++) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            p++;
            continue;
        }
        if (*p == '}') {
            add_at(c, &m->doc, pointer, "%s: unmatched '}' in template \"%s\"; write '}}' for a literal brace",
                   pointer, s);
            return;
        }
        if (*p != '{')
            continue;
        const char *end = strchr(p, '}');
        if (!end) {
            add_at(c, &m->doc, pointer, "%s: unterminated placeholder in template \"%s\"", pointer, s);
            return;
        }
        char *name = xstrndup(p + 1, (size_t)(end - p - 1));
        if (!input_has_property(m, name)) {
            tg_buf known = TG_BUF_INIT;
            const cJSON *prop;
            cJSON_ArrayForEach(prop, tg_json_get(m->input_schema, "properties"))
            {
                tg_buf_printf(&known, "%s%s", known.len ? ", " : "", prop->string);
            }
            add_at(c, &m->doc, pointer,
                   "%s: placeholder {%s} names no property of input_schema (properties: %s)",
                   pointer, name, known.len ? known.data : "none");
            tg_buf_free(&known);
        }
        free(name);
        p = end;
    }
}

static void check_templates(lint_ctx *c, const tg_manifest *m, const cJSON *node, tg_buf *ptr)
{
    if (!node)
        return;
    if (cJSON_IsString(node)) {
        check_template_string(c, m, node->valuestring, ptr->data);
        return;
    }
    if (!cJSON_IsArray(node) && !cJSON_IsObject(node))
        return;
    size_t mark = ptr->len;
    int i = 0;
    const cJSON *child;
    cJSON_ArrayForEach(child, node)
    {
        tg_buf_putc(ptr, '/');
        if (cJSON_IsObject(node))
            tg_buf_pointer_token(ptr, child->string);
        else
            tg_buf_printf(ptr, "%d", i);
        check_templates(c, m, child, ptr);
        tg_buf_truncate(ptr, mark);
        i++;
    }
}

static void check_templates_at(lint_ctx *c, const tg_manifest *m, const cJSON *node,
                               const char *pointer)
{
    tg_buf ptr = TG_BUF_INIT;
    tg_buf_puts(&ptr, pointer);
    check_templates(c, m, node, &ptr);
    tg_buf_free(&ptr);
}

/* A runtime whose program is an argument (model/runtime.h, program_arg): input_schema must
 * require it as a string. */
static void check_program_arg(lint_ctx *c, const tg_manifest *m, const char *arg)
{
    const cJSON *prop = tg_json_get(tg_json_get(m->input_schema, "properties"), arg);
    const char *type = tg_json_get_string(prop, "type");
    if (!type || strcmp(type, "string") != 0 ||
        !tg_json_array_has_string(tg_json_get(m->input_schema, "required"), arg))
        add_at(c, &m->doc, "/input_schema",
               "/input_schema: runtime %s runs the argument '%s' as its program: declare it as a "
               "required property of type string", tg_runtime_name(m->runtime), arg);
}

/* A prompt tool (model/runtime.h, prompts): its templates exist in the repository's prompts/
 * (the run reads them there, or from toolgen's own), the language is a string argument, and
 * the code goes to a property output_schema declares. */
static void check_prompt_tool(lint_ctx *c, const tg_manifest *m, const tg_runtime_desc *rt)
{
    for (size_t i = 0; rt->prompts[i]; i++) {
        const char *name = tg_json_get_string(m->implementation, rt->prompts[i]);
        char *rel = xasprintf("prompts/%s.md", name ? name : "");
        char *own = tg_datadir() ? xasprintf("%s/%s", tg_datadir(), rel) : NULL;
        if (name && !tg_is_file_at(c->repo->root_fd, rel) && !(own && tg_is_file(own))) {
            char *pointer = xasprintf("/implementation/%s", rt->prompts[i]);
            add_at(c, &m->doc, pointer, "%s: %s does not exist: write the template there "
                                        "(docs/code-edit.md#the-llm-runtime)", pointer, rel);
            free(pointer);
        }
        free(rel);
        free(own);
    }
    const cJSON *lang = tg_json_get(tg_json_get(m->input_schema, "properties"), rt->language_arg);
    const char *type = tg_json_get_string(lang, "type");
    if (!type || strcmp(type, "string") != 0)
        add_at(c, &m->doc, "/input_schema",
               "/input_schema: runtime %s checks the code in the language the argument '%s' "
               "names: declare it as a property of type string", rt->name, rt->language_arg);
    const char *out = tg_json_get_string(m->implementation, rt->code_member);
    if (out && !tg_json_get(tg_json_get(m->output_schema, "properties"), out))
        add_at(c, &m->doc, "/implementation/code",
               "/implementation/%s: output_schema has no property '%s' for the code",
               rt->code_member, out);
}

/* A command argv's switches ({when, arg}: docs/manifest.md#command) name boolean properties. */
static void check_switches(lint_ctx *c, const tg_manifest *m)
{
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(m->implementation, "argv"))
    {
        const char *when = cJSON_IsObject(e) ? tg_json_get_string(e, "when") : NULL;
        const cJSON *prop = when ? tg_json_get(tg_json_get(m->input_schema, "properties"), when) : NULL;
        const char *type = tg_json_get_string(prop, "type");
        if (when && (!type || strcmp(type, "boolean") != 0)) {
            char *pointer = xasprintf("/implementation/argv/%d/when", i);
            add_at(c, &m->doc, pointer, "%s: the switch's '%s' must be a boolean property of "
                                        "input_schema", pointer, when);
            free(pointer);
        }
        i++;
    }
}

/* What the runtime's entry says the implementation holds (model/runtime.h). */
static void check_implementation(lint_ctx *c, const tg_manifest *m)
{
    check_switches(c, m);
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    if (rt && rt->code_file)
        check_file(c, m, m->impl_file, "/implementation/file");
    for (size_t i = 0; rt && rt->templates && rt->templates[i]; i++) {
        char *pointer = xasprintf("/implementation/%s", rt->templates[i]);
        check_templates_at(c, m, tg_json_get(m->implementation, rt->templates[i]), pointer);
        free(pointer);
    }
    if (m->reference)
        check_file(c, m, tg_json_get_string(m->reference, "file"), "/reference/file");
    /* the code runtime's other actions (create_session, ...) run no program argument */
    const char *action = tg_json_get_string(m->implementation, "action");
    if (rt && rt->program_arg && (!action || strcmp(action, "execute") == 0))
        check_program_arg(c, m, rt->program_arg);
    if (rt && rt->prompts)
        check_prompt_tool(c, m, rt);
}

static void check_path_markers(lint_ctx *c, const tg_manifest *m)
{
    const cJSON *prop;
    cJSON_ArrayForEach(prop, tg_json_get(m->input_schema, "properties"))
    {
        if (!tg_json_get(prop, "x-toolgen-path"))
            continue;
        const char *type = tg_json_get_string(prop, "type");
        if (!type || strcmp(type, "string") != 0) {
            tg_buf ptr = TG_BUF_INIT;
            tg_buf_puts(&ptr, "/input_schema/properties/");
            tg_buf_pointer_token(&ptr, prop->string);
            add_at(c, &m->doc, ptr.data,
                   "%s: a property marked x-toolgen-path must have \"type\": \"string\"", ptr.data);
            tg_buf_free(&ptr);
        }
    }
}

/*
 * Unknown keywords in a tool's schemas are legal JSON Schema and silently ignored, which is how a
 * misspelt "maxLenght" or a YAML flow mapping cut short by an unquoted comma ({description: a, b})
 * goes unnoticed. A contract should say only what is enforced: custom annotations take "x-".
 */
static const char *const schema_keywords[] = {
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
    "$comment", "$defs", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    "dependentSchemas", "prefixItems", "items", "contains", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type",
    "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "title",
    "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "format",
    "contentEncoding", "contentMediaType", "contentSchema", NULL,
};
static const char *const map_of_schemas[] = {"$defs", "properties", "patternProperties",
                                             "dependentSchemas", NULL};
static const char *const list_of_schemas[] = {"allOf", "anyOf", "oneOf", "prefixItems", NULL};
static const char *const one_schema[] = {"not", "if", "then", "else", "items", "contains",
                                         "additionalProperties", "propertyNames",
                                         "unevaluatedItems", "unevaluatedProperties",
                                         "contentSchema", NULL};

static void check_schema_keywords(lint_ctx *c, const tg_manifest *m, const cJSON *schema,
                                  tg_buf *ptr, int depth)
{
    if (!cJSON_IsObject(schema) || depth > 64)
        return;
    size_t mark = ptr->len;
    const cJSON *kw;
    cJSON_ArrayForEach(kw, schema)
    {
        tg_buf_putc(ptr, '/');
        tg_buf_pointer_token(ptr, kw->string);
        if (!tg_strlist_has(schema_keywords, kw->string) && strncmp(kw->string, "x-", 2) != 0) {
            const char *best = NULL;
            size_t best_d = (size_t)-1;
            for (size_t i = 0; schema_keywords[i]; i++) {
                size_t d = tg_edit_distance(kw->string, schema_keywords[i]);
                if (d < best_d) {
                    best_d = d;
                    best = schema_keywords[i];
                }
            }
            if (best && best_d <= strlen(kw->string) / 3 + 1)
                add_at(c, &m->doc, ptr->data,
                       "%s: unknown keyword \"%s\" is ignored by JSON Schema; did you mean \"%s\"?",
                       ptr->data, kw->string, best);
            else
                add_at(c, &m->doc, ptr->data,
                       "%s: unknown keyword \"%s\" is ignored by JSON Schema; name custom annotations "
                       "\"x-...\", and quote values that contain \", \" inside a YAML {...} mapping",
                       ptr->data, kw->string);
        } else if (tg_strlist_has(map_of_schemas, kw->string) && cJSON_IsObject(kw)) {
            size_t mark2 = ptr->len;
            const cJSON *sub;
            cJSON_ArrayForEach(sub, kw)
            {
                tg_buf_putc(ptr, '/');
                tg_buf_pointer_token(ptr, sub->string);
                check_schema_keywords(c, m, sub, ptr, depth + 1);
                tg_buf_truncate(ptr, mark2);
            }
        } else if (tg_strlist_has(list_of_schemas, kw->string) && cJSON_IsArray(kw)) {
            size_t mark2 = ptr->len;
            int i = 0;
            const cJSON *sub;
            cJSON_ArrayForEach(sub, kw)
            {
                tg_buf_printf(ptr, "/%d", i++);
                check_schema_keywords(c, m, sub, ptr, depth + 1);
                tg_buf_truncate(ptr, mark2);
            }
        } else if (tg_strlist_has(one_schema, kw->string)) {
            check_schema_keywords(c, m, kw, ptr, depth + 1);
        }
        tg_buf_truncate(ptr, mark);
    }
}

static void check_tool_schema_keywords(lint_ctx *c, const tg_manifest *m, const char *key)
{
    tg_buf ptr = TG_BUF_INIT;
    tg_buf_printf(&ptr, "/%s", key);
    check_schema_keywords(c, m, tg_json_get(m->doc.root, key), &ptr, 0);
    tg_buf_free(&ptr);
}

static const char *base_name(const char *dir)
{
    const char *s = strrchr(dir, '/');
    return s ? s + 1 : dir;
}

static void remember_name(lint_ctx *c, const tg_manifest *m)
{
    tg_pos pos = tg_doc_pointer_pos(&m->doc, "/name");
    for (size_t i = 0; i < c->nnames; i++) {
        if (strcmp(c->names[i], m->name) == 0) {
            tg_problems_add(c->out, m->doc.file, pos,
                            "/name: tool name '%s' is already used by %s:%d; tool names must be unique",
                            m->name, c->name_files[i], c->name_pos[i].line);
            return;
        }
    }
    c->names = xrealloc(c->names, (c->nnames + 1) * sizeof *c->names);
    c->name_files = xrealloc(c->name_files, (c->nnames + 1) * sizeof *c->name_files);
    c->name_pos = xrealloc(c->name_pos, (c->nnames + 1) * sizeof *c->name_pos);
    c->names[c->nnames] = xstrdup(m->name);
    c->name_files[c->nnames] = xstrdup(m->doc.file);
    c->name_pos[c->nnames] = pos;
    c->nnames++;
}

static void lint_manifest(lint_ctx *c, const char *path)
{
    c->stats->manifests++;
    tg_manifest m;
    tg_err err = {0};
    if (tg_manifest_load(c->repo, path, &m, &err) != 0) {
        add_err(c, &err, path);
        return;
    }
    js_errors errs = {0};
    js_validate(c->ss->manifest, m.doc.root, &errs);
    report_errors(c, &m.doc, "", NULL, c->ss->manifest_doc.root, &errs);
    tg_manifest_bind(&m);

    if (m.name) {
        const char *folder = base_name(m.dir);
        if (strcmp(folder, m.name) != 0 && strcmp(folder, ".") != 0)
            add_at(c, &m.doc, "/name",
                   "/name: '%s' differs from its folder '%s'; the folder name is the tool's id, "
                   "rename one of them",
                   m.name, folder);
        remember_name(c, &m);
    }
    js_schema *in = compile_tool_schema(c, &m, "input_schema", errors_under(&errs, "/input_schema"));
    js_schema *out = compile_tool_schema(c, &m, "output_schema", errors_under(&errs, "/output_schema"));
    check_examples_and_tests(c, &m, in, out);
    check_implementation(c, &m);
    check_path_markers(c, &m);
    check_tool_schema_keywords(c, &m, "input_schema");
    check_tool_schema_keywords(c, &m, "output_schema");
    js_schema_free(in);
    js_schema_free(out);
    js_errors_free(&errs);
    tg_manifest_free(&m);
}

/* ---- config checks -------------------------------------------------------------------------- */

static void check_weights(lint_ctx *c, const tg_doc *d, const char *pointer)
{
    const cJSON *w = tg_json_pointer_get(d->root, pointer);
    if (!cJSON_IsObject(w))
        return;
    double sum = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, w)
    {
        if (cJSON_IsNumber(v))
            sum += v->valuedouble;
    }
    if (fabs(sum - 1.0) > 1e-6)
        add_at(c, d, pointer, "%s: weights add up to %g, they must add up to 1.0", pointer, sum);
}

static void check_tiers(lint_ctx *c, const tg_doc *d)
{
    static const char *const order[] = {"excellent", "good", "acceptable", "poor"};
    const cJSON *t = tg_json_pointer_get(d->root, "/validation/quality_tiers");
    for (int i = 0; t && i + 1 < 4; i++) {
        const cJSON *hi = tg_json_get(t, order[i]), *lo = tg_json_get(t, order[i + 1]);
        if (cJSON_IsNumber(hi) && cJSON_IsNumber(lo) && hi->valuedouble <= lo->valuedouble)
            add_at(c, d, "/validation/quality_tiers",
                   "/validation/quality_tiers: %s (%g) must be above %s (%g)", order[i],
                   hi->valuedouble, order[i + 1], lo->valuedouble);
    }
}

static void lint_config(lint_ctx *c, const char *path)
{
    c->stats->configs++;
    tg_doc d = {0};
    tg_err err = {0};
    if (tg_confine_repo_in(c->repo->path, path, NULL, "config", &err) != 0 ||
        tg_doc_load_at(c->repo->root_fd, path, NULL, &d, &err) != 0) {
        add_err(c, &err, path);
        return;
    }
    const js_schema *schema = tg_schemaset_config(c->ss, &err);
    if (!schema) {
        add_err(c, &err, path);
        tg_doc_free(&d);
        return;
    }
    js_errors errs = {0};
    js_validate(schema, d.root, &errs);
    report_errors(c, &d, "", NULL, c->ss->config_doc.root, &errs);
    js_errors_free(&errs);
    check_weights(c, &d, "/validation/metric_weights");
    check_weights(c, &d, "/validation/code_bleu_weights");
    check_tiers(c, &d);
    tg_doc_free(&d);
}

/* ---- walking -------------------------------------------------------------------------------- */

static bool is_config_name(const char *name)
{
    return strcmp(name, "toolgen.yaml") == 0 || strcmp(name, "toolgen.yml") == 0;
}

static void walk(int root, const char *dir, tg_strv *manifests, tg_strv *configs, int depth)
{
    if (depth > 32)
        return;
    DIR *d = tg_opendir_at(root, dir);
    if (!d)
        return;
    tg_strv subdirs = TG_STRV_INIT;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "node_modules") == 0)
            continue;
        char *p = tg_path_join(dir, e->d_name);
        struct stat st;
        if (fstatat(root, p, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            free(p);
            continue;
        }
        /* Whatever carries a manifest's or the config's name is linted, so that a directory, a
         * FIFO or a symlink out of the repository by that name is reported, not skipped. */
        if (strcmp(e->d_name, "tool.manifest.yaml") == 0)
            tg_strv_push_owned(manifests, p);
        else if (is_config_name(e->d_name))
            tg_strv_push_owned(configs, p);
        else if (S_ISDIR(st.st_mode))
            tg_strv_push_owned(&subdirs, p);
        else
            free(p);
    }
    closedir(d);
    tg_strv_sort(&subdirs);
    for (size_t i = 0; i < subdirs.n; i++)
        walk(root, subdirs.v[i], manifests, configs, depth + 1);
    tg_strv_free(&subdirs);
}

int tg_lint_paths(const tg_repo *repo, tg_schemaset *ss, const char *const *paths, size_t n,
                  tg_problems *out, tg_lint_stats *stats, tg_err *err)
{
    tg_strv manifests = TG_STRV_INIT, configs = TG_STRV_INIT;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (fstatat(repo->root_fd, paths[i], &st, 0) != 0) {
            tg_strv_free(&manifests);
            tg_strv_free(&configs);
            return tg_err_setpos(err, paths[i], 0, 0, "no such file or directory");
        }
        if (S_ISDIR(st.st_mode)) {
            size_t m0 = manifests.n, c0 = configs.n;
            walk(repo->root_fd, paths[i], &manifests, &configs, 0);
            tg_strv_sort_from(&manifests, m0);
            tg_strv_sort_from(&configs, c0);
        } else {
            const char *base = base_name(paths[i]);
            tg_strv_push_owned(is_config_name(base) ? &configs : &manifests, xstrdup(paths[i]));
        }
    }
    lint_ctx c = {.repo = repo, .ss = ss, .out = out, .stats = stats};
    for (size_t i = 0; i < configs.n; i++)
        lint_config(&c, configs.v[i]);
    for (size_t i = 0; i < manifests.n; i++)
        lint_manifest(&c, manifests.v[i]);
    for (size_t i = 0; i < c.nnames; i++) {
        free(c.names[i]);
        free(c.name_files[i]);
    }
    free(c.names);
    free(c.name_files);
    free(c.name_pos);
    tg_strv_free(&manifests);
    tg_strv_free(&configs);
    return 0;
}
