/*
 * emit_skill.c — the Agent Skills package: skill/<name>/SKILL.md and references/<tool>.md.
 *
 * SKILL.md is what a model loads when the skill triggers, so it stays short (the body is kept
 * under 500 lines: with many tools it falls back to a compact form) and interface-neutral: a
 * generic {"tool", "input"} call and the MCP tools/call request for every tool. Everything long
 * (full schemas, all examples, tests) goes one level down into references/<tool>.md.
 *
 * Text from the manifests: titles are plain text and escaped; descriptions and docs sections are
 * written by the tool's author for models and may use inline Markdown (backticks), so they are
 * passed through — folded to one line where a line is needed, and with '|' escaped in tables.
 * Values (names, defaults, enum members, JSON) go in code spans or fences sized to their content.
 */
#include "emit/emit_skill.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"

#define SKILL_MAX_BODY_LINES 500
#define SKILL_MAX_DESCRIPTION 1024 /* characters, Agent Skills limit */
#define SKILL_MAX_COMPATIBILITY 500
#define ENUM_SHOWN 12 /* enum members listed inline; the rest are counted */

/* ---- Markdown and YAML text ----------------------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* One line: trimmed, every run of white space (line breaks included) becomes one space. */
static void put_folded(tg_buf *b, const char *s)
{
    bool gap = false, any = false;
    for (; s && *s; s++) {
        if (is_space(*s)) {
            gap = any;
            continue;
        }
        if (gap)
            tg_buf_putc(b, ' ');
        tg_buf_putc(b, *s);
        gap = false;
        any = true;
    }
}

/* Plain text (titles) in running Markdown: characters that would start markup are escaped. */
static void put_plain(tg_buf *b, const char *s)
{
    tg_buf t = TG_BUF_INIT;
    put_folded(&t, s);
    for (const char *p = t.data; p && *p; p++) {
        if (strchr("\\`*_[]<>|#", *p))
            tg_buf_putc(b, '\\');
        tg_buf_putc(b, *p);
    }
    tg_buf_free(&t);
}

static size_t longest_backtick_run(const char *s)
{
    size_t best = 0, run = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

/* A code span that survives any content: more backticks than the longest run inside, and a
 * space of padding when the content starts or ends with a backtick (CommonMark 6.1). */
static void put_code(tg_buf *b, const char *s)
{
    tg_buf t = TG_BUF_INIT;
    put_folded(&t, s);
    const char *v = t.data;
    size_t ticks = longest_backtick_run(v) + 1;
    bool pad = *v == '`' || (*v && v[strlen(v) - 1] == '`');
    for (size_t i = 0; i < ticks; i++)
        tg_buf_putc(b, '`');
    tg_buf_puts(b, pad ? " " : "");
    tg_buf_puts(b, v);
    tg_buf_puts(b, pad ? " " : "");
    for (size_t i = 0; i < ticks; i++)
        tg_buf_putc(b, '`');
    tg_buf_free(&t);
}

static void put_code_json(tg_buf *b, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        put_code(b, v->valuestring);
        return;
    }
    char *j = tg_json_print_compact(v);
    put_code(b, j);
    free(j);
}

/* A fenced block whose fence is longer than any backtick run in text (text ends with '\n'). */
static void put_fence(tg_buf *b, const char *lang, const char *text)
{
    size_t ticks = longest_backtick_run(text) + 1;
    if (ticks < 3)
        ticks = 3;
    for (size_t i = 0; i < ticks; i++)
        tg_buf_putc(b, '`');
    tg_buf_printf(b, "%s\n%s", lang, text);
    if (!tg_str_endswith(text, "\n"))
        tg_buf_putc(b, '\n');
    for (size_t i = 0; i < ticks; i++)
        tg_buf_putc(b, '`');
    tg_buf_puts(b, "\n\n");
}

static void put_fence_json(tg_buf *b, const cJSON *v, bool compact)
{
    char *j = compact ? tg_json_print_compact(v) : tg_json_print(v);
    put_fence(b, "json", j);
    free(j);
}

/* A table cell from Markdown content: one line, '|' escaped (also inside code spans, as GFM
 * tables require). */
static void put_cell(tg_buf *b, const char *md)
{
    tg_buf t = TG_BUF_INIT;
    put_folded(&t, md);
    tg_buf_puts(b, " ");
    for (const char *p = t.data; p && *p; p++) {
        if (*p == '|')
            tg_buf_putc(b, '\\');
        tg_buf_putc(b, *p);
    }
    tg_buf_puts(b, " |");
    tg_buf_free(&t);
}

static void row(tg_buf *b, int ncells, ...)
{
    va_list ap;
    va_start(ap, ncells);
    tg_buf_puts(b, "|");
    for (int i = 0; i < ncells; i++)
        put_cell(b, va_arg(ap, const char *));
    va_end(ap);
    tg_buf_puts(b, "\n");
}

/* YAML double-quoted scalar: safe for any text (no plain-scalar surprises like ": " or "#"). */
static void put_yaml_string(tg_buf *b, const char *s)
{
    tg_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            tg_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            tg_buf_printf(b, "\\x%02x", *p);
        else
            tg_buf_putc(b, (char)*p);
    }
    tg_buf_putc(b, '"');
}

/* Appends ", " between parts of a list built piece by piece. */
static void sep(tg_buf *b, const char *s)
{
    if (b->len)
        tg_buf_puts(b, s);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

/* ---- facts about a tool, as Markdown -------------------------------------------------------- */

static const char *yes_no(bool v)
{
    return v ? "yes" : "no";
}

static void put_duration_ms(tg_buf *b, long ms)
{
    if (ms % 1000 == 0)
        tg_buf_printf(b, "%ld s", ms / 1000);
    else
        tg_buf_printf(b, "%ld ms", ms);
}

static void put_number(tg_buf *b, const cJSON *n)
{
    char nb[40];
    tg_buf_puts(b, tg_json_number_text(n, nb));
}

static void put_range(tg_buf *b, const char *what, const cJSON *lo, const cJSON *hi,
                      const char *unit)
{
    if (!cJSON_IsNumber(lo) && !cJSON_IsNumber(hi))
        return;
    sep(b, ", ");
    tg_buf_printf(b, "%s ", what);
    if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi)) {
        put_number(b, lo);
        tg_buf_puts(b, "..");
        put_number(b, hi);
    } else {
        tg_buf_puts(b, cJSON_IsNumber(lo) ? ">= " : "<= ");
        put_number(b, cJSON_IsNumber(lo) ? lo : hi);
    }
    tg_buf_puts(b, unit);
}

static void put_type_name(tg_buf *b, const cJSON *s);

static void put_enum(tg_buf *b, const cJSON *e)
{
    tg_buf_puts(b, "one of ");
    int i = 0, n = cJSON_GetArraySize(e);
    const cJSON *v;
    cJSON_ArrayForEach(v, e)
    {
        if (i == ENUM_SHOWN) {
            tg_buf_printf(b, " and %d more", n - ENUM_SHOWN);
            break;
        }
        tg_buf_puts(b, i++ ? ", " : "");
        put_code_json(b, v);
    }
}

/* "string", "integer or null", "array of string", "one of `a`, `b`", "object (`#/$defs/x`)". */
static void put_type_name(tg_buf *b, const cJSON *s)
{
    const cJSON *type = tg_json_get(s, "type"), *e;
    if (tg_json_get(s, "enum")) {
        put_enum(b, tg_json_get(s, "enum"));
    } else if (tg_json_get(s, "const")) {
        tg_buf_puts(b, "always ");
        put_code_json(b, tg_json_get(s, "const"));
    } else if (cJSON_IsString(type)) {
        tg_buf_puts(b, type->valuestring);
    } else if (cJSON_IsArray(type)) {
        int i = 0;
        cJSON_ArrayForEach(e, type) tg_buf_printf(b, "%s%s", i++ ? " or " : "",
                                                  cJSON_IsString(e) ? e->valuestring : "?");
    } else if (tg_json_get_string(s, "$ref")) {
        /* "#/$defs/column" reads as `column`; the reference page has the schema. */
        const char *ref = tg_json_get_string(s, "$ref"), *last = strrchr(ref, '/');
        put_code(b, last && last[1] ? last + 1 : ref);
        tg_buf_puts(b, " (see schema)");
    } else if (tg_json_get(s, "anyOf") || tg_json_get(s, "oneOf")) {
        tg_buf_puts(b, "one of several shapes");
    } else {
        tg_buf_puts(b, "any JSON value");
    }
    const cJSON *items = tg_json_get(s, "items");
    if (cJSON_IsObject(items) && cJSON_IsString(type) && !strcmp(type->valuestring, "array")) {
        tg_buf_puts(b, " of ");
        put_type_name(b, items);
    }
}

/* Type and constraints of one property, as a comma-separated Markdown list. */
static void put_schema_summary(tg_buf *b, const cJSON *s)
{
    put_type_name(b, s);
    put_range(b, "length", tg_json_get(s, "minLength"), tg_json_get(s, "maxLength"), "");
    put_range(b, "range", tg_json_get(s, "minimum"), tg_json_get(s, "maximum"), "");
    if (cJSON_IsNumber(tg_json_get(s, "exclusiveMinimum"))) {
        tg_buf_puts(b, ", > ");
        put_number(b, tg_json_get(s, "exclusiveMinimum"));
    }
    if (cJSON_IsNumber(tg_json_get(s, "exclusiveMaximum"))) {
        tg_buf_puts(b, ", < ");
        put_number(b, tg_json_get(s, "exclusiveMaximum"));
    }
    put_range(b, "items", tg_json_get(s, "minItems"), tg_json_get(s, "maxItems"), "");
    if (cJSON_IsTrue(tg_json_get(s, "uniqueItems")))
        tg_buf_puts(b, ", unique");
    if (tg_json_get_string(s, "pattern")) {
        tg_buf_puts(b, ", pattern ");
        put_code(b, tg_json_get_string(s, "pattern"));
    }
    if (tg_json_get_string(s, "format")) {
        tg_buf_puts(b, ", format ");
        put_code(b, tg_json_get_string(s, "format"));
    }
    if (tg_json_get(s, "x-toolgen-path"))
        tg_buf_puts(b, ", a data file path");
    if (tg_json_get(s, "default")) {
        tg_buf_puts(b, ", default ");
        put_code_json(b, tg_json_get(s, "default"));
    }
}

static bool is_required(const cJSON *schema, const char *name)
{
    return tg_json_array_has_string(tg_json_get(schema, "required"), name);
}

/* One bullet per top-level property: `name` (**required**; type, constraints): description. */
static void put_property_list(tg_buf *b, const cJSON *schema, bool required_only, bool mark)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(schema, "properties"))
    {
        bool req = is_required(schema, p->string);
        if (required_only && !req)
            continue;
        tg_buf_puts(b, "- ");
        put_code(b, p->string);
        tg_buf_puts(b, mark && req ? " (**required**; " : " (");
        put_schema_summary(b, p);
        tg_buf_puts(b, ")");
        if (tg_json_get_string(p, "description")) {
            tg_buf_puts(b, ": ");
            put_folded(b, tg_json_get_string(p, "description"));
        }
        tg_buf_puts(b, "\n");
    }
    if (!cJSON_GetArraySize(tg_json_get(schema, "properties")))
        tg_buf_puts(b, "- (none)\n");
}

static void put_error_codes(tg_buf *b, const tg_manifest *m)
{
    const char **codes;
    size_t n = tg_emit_error_codes(m, &codes);
    for (size_t i = 0; i < n; i++) {
        tg_buf_puts(b, i ? ", " : "");
        put_code(b, codes[i]);
    }
    free(codes);
}

static void put_limits(tg_buf *b, const cJSON *limits)
{
    static const char *const keys[] = {"cpu_s", "memory_mb", "wall_s", "output_kb", "files",
                                       "processes", NULL};
    static const char *const fmt[] = {"CPU %s s", "memory %s MiB", "wall %s s", "output %s KiB",
                                      "%s open files", "%s processes", NULL};
    size_t start = b->len;
    for (int i = 0; keys[i]; i++) {
        const cJSON *v = tg_json_get(limits, keys[i]);
        if (!cJSON_IsNumber(v))
            continue;
        char nb[40];
        if (b->len > start)
            tg_buf_puts(b, ", ");
        tg_buf_printf(b, fmt[i], tg_json_number_text(v, nb));
    }
    if (b->len == start)
        tg_buf_puts(b, "defaults");
}

static bool has_path_args(const tg_manifest *m)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(m->input_schema, "properties"))
    {
        if (tg_json_get(p, "x-toolgen-path"))
            return true;
    }
    return false;
}

static void put_allowed_paths(tg_buf *b, const tg_manifest *m)
{
    const cJSON *paths = tg_json_get(m->constraints, "allowed_paths"), *p;
    if (!has_path_args(m)) {
        tg_buf_puts(b, "none (no file arguments)");
        return;
    }
    if (!cJSON_GetArraySize(paths)) {
        tg_buf_puts(b, "all data directories");
        return;
    }
    int i = 0;
    cJSON_ArrayForEach(p, paths)
    {
        tg_buf_puts(b, i++ ? ", " : "");
        put_code(b, cJSON_IsString(p) ? p->valuestring : "?");
    }
}

static void put_rate_limit(tg_buf *b, const tg_manifest *m)
{
    const cJSON *rate = tg_json_get(m->constraints, "rate_limit");
    const cJSON *rpm = tg_json_get(rate, "requests_per_minute");
    if (cJSON_IsNumber(rpm)) {
        put_number(b, rpm);
        tg_buf_puts(b, " calls per minute");
    } else {
        tg_buf_puts(b, "none");
    }
}

/* A code runtime: its language and the dependencies. */
static void put_language(tg_buf *b, const tg_manifest *m, const char *language)
{
    const cJSON *e;
    tg_buf_puts(b, language);
    const cJSON *deps = tg_json_get(m->implementation, "dependencies");
    if (cJSON_GetArraySize(deps)) {
        tg_buf_puts(b, " with ");
        int i = 0;
        cJSON_ArrayForEach(e, deps)
        {
            tg_buf_puts(b, i++ ? ", " : "");
            put_code(b, cJSON_IsString(e) ? e->valuestring : "?");
        }
    }
}

static void put_argv(tg_buf *b, const tg_manifest *m)
{
    const cJSON *e;
    tg_buf t = TG_BUF_INIT;
    cJSON_ArrayForEach(e, tg_json_get(m->implementation, "argv"))
    {
        sep(&t, " ");
        tg_buf_puts(&t, cJSON_IsString(e) ? e->valuestring : "?");
    }
    tg_buf_puts(b, "the command ");
    put_code(b, t.data);
    tg_buf_free(&t);
}

static void put_request(tg_buf *b, const tg_manifest *m)
{
    const cJSON *req = tg_json_get(m->implementation, "request");
    const char *method = tg_json_get_string(req, "method");
    const char *url = tg_json_get_string(req, "url");
    tg_buf_puts(b, "an HTTP request ");
    tg_buf t = TG_BUF_INIT;
    tg_buf_printf(&t, "%s %s", method ? method : "?", url ? url : "?");
    put_code(b, t.data);
    tg_buf_free(&t);
}

/* "the `code` argument as a Python program": implementation.language names the runtime
 * whose language it is. */
static void put_program(tg_buf *b, const tg_manifest *m, const tg_runtime_desc *rt)
{
    const char *lang = tg_json_get_string(m->implementation, "language");
    const char *action = tg_json_get_string(m->implementation, "action");
    if (action && strcmp(action, "execute") != 0) { /* a session tool or listing, docs/code.md */
        tg_buf_printf(b, "toolgen's code interpreter (%s)", action);
        return;
    }
    const tg_runtime_desc *of = tg_runtime_info(tg_runtime_parse(lang));
    tg_buf_puts(b, "the ");
    put_code(b, rt->program_arg ? rt->program_arg : "code");
    tg_buf_printf(b, " argument as a %s program",
                  of && of->language ? of->language : lang ? lang : "?");
}

/* How the tool runs, as its runtime's entry says to show it (model/runtime.h), without anything
 * secret (the credential is only named). */
static void put_runtime(tg_buf *b, const tg_manifest *m)
{
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    if (!rt) {
        tg_buf_puts(b, "unknown");
        return;
    }
    switch (rt->summary) {
    case TG_RUNTIME_SUMMARY_LANGUAGE:
        put_language(b, m, rt->language);
        return;
    case TG_RUNTIME_SUMMARY_ARGV:
        put_argv(b, m);
        return;
    case TG_RUNTIME_SUMMARY_REQUEST:
        put_request(b, m);
        return;
    case TG_RUNTIME_SUMMARY_PROGRAM:
        put_program(b, m, rt);
        return;
    case TG_RUNTIME_SUMMARY_PROMPT: /* docs/code-edit.md */
        tg_buf_puts(b, "the prompt ");
        tg_buf_printf(b, "`prompts/%s.md` sent to the configured model, the code of its answer "
                         "checked before it is returned",
                      tg_json_get_string(m->implementation, "prompt")
                          ? tg_json_get_string(m->implementation, "prompt") : "?");
        return;
    }
}

/* Where the files a tool writes can be opened (docs/emit.md, "Artifacts"); false when it is
 * known to write none. */
static bool put_artifacts(tg_buf *b, const tg_manifest *m)
{
    const char **names;
    size_t n = tg_emit_artifact_names(m, &names);
    if (n) {
        tg_buf_puts(b, "writes ");
        for (size_t i = 0; i < n; i++) {
            tg_buf_puts(b, i ? ", " : "");
            put_code(b, names[i]);
        }
        tg_buf_puts(b, " into its private working directory, where no client can open them. "
                       "Its result names them relative to that directory; `toolgen run --out "
                       "DIR` copies them into DIR and its result then names the copies (");
        char *ref = tg_emit_artifact_ref("DIR", names[0]);
        put_code(b, ref);
        free(ref);
        tg_buf_puts(b, "). Without `--out` they are removed after the call");
    }
    free(names);
    return n > 0;
}

static cJSON *generic_call(const char *tool, const cJSON *input)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "tool", tool);
    cJSON_AddItemToObject(c, "input", cJSON_Duplicate(input, true));
    return c;
}

static void put_examples_of(tg_buf *b, const char *tool, const cJSON *ex, bool mcp_pretty)
{
    cJSON *g = generic_call(tool, tg_json_get(ex, "input"));
    put_fence_json(b, g, false);
    cJSON_Delete(g);
    tg_buf_puts(b, "MCP `tools/call` request:\n\n");
    cJSON *r = tg_emit_call_request(tool, tg_json_get(ex, "input"));
    put_fence_json(b, r, !mcp_pretty);
    cJSON_Delete(r);
}

/* ---- references/<tool>.md ------------------------------------------------------------------- */

static void ref_facts(tg_buf *b, const tg_manifest *m)
{
    tg_buf_puts(b, "| Fact | Value |\n| --- | --- |\n");
    tg_buf v = TG_BUF_INIT;
#define FACT(label, ...)                                                                       \
    do {                                                                                       \
        tg_buf_reset(&v);                                                                      \
        __VA_ARGS__;                                                                           \
        row(b, 2, label, v.data);                                                              \
    } while (0)
    FACT("Version", put_code(&v, m->version ? m->version : "?"));
    FACT("Status", tg_buf_puts(&v, tg_status_name(m->status)));
    FACT("Risk", tg_buf_puts(&v, m->risk ? m->risk : "unknown"));
    FACT("Category", tg_buf_puts(&v, tg_json_get_string(m->doc.root, "category")
                                         ? tg_json_get_string(m->doc.root, "category")
                                         : "none"));
    FACT("Idempotency", tg_buf_puts(&v, m->idempotency ? m->idempotency : "unknown"));
    FACT("Timeout", put_duration_ms(&v, m->timeout_ms));
    FACT("Runs", put_runtime(&v, m));
    FACT("Read-only", tg_buf_puts(&v, yes_no(tg_emit_read_only(m))));
    FACT("Network", tg_buf_puts(&v, yes_no(tg_emit_network(m))));
    FACT("Allowed paths", put_allowed_paths(&v, m));
    FACT("Limits", put_limits(&v, tg_json_get(m->constraints, "limits")));
    FACT("Rate limit", put_rate_limit(&v, m));
    FACT("Error codes", put_error_codes(&v, m));
    tg_buf files = TG_BUF_INIT;
    if (put_artifacts(&files, m))
        FACT("Files", tg_buf_printf(&v, "It %s.", files.data));
    tg_buf_free(&files);
    if (tg_emit_auth_env(m))
        FACT("Credential", put_code(&v, tg_emit_auth_env(m)); tg_buf_puts(&v, " (environment)"));
#undef FACT
    tg_buf_free(&v);
}

static void ref_docs(tg_buf *b, const tg_manifest *m)
{
    static const char *const keys[] = {"when_to_use", "when_not_to_use", "what_it_does",
                                       "returns",     "prerequisites",   "notes", NULL};
    static const char *const heads[] = {"When to use", "When not to use", "What it does",
                                        "Returns",     "Prerequisites",   "Notes", NULL};
    for (int i = 0; keys[i]; i++) {
        const char *t = tg_json_get_string(m->docs, keys[i]);
        if (!t)
            continue;
        tg_buf_printf(b, "\n## %s\n\n", heads[i]);
        tg_emit_put_trimmed(b, t);
        tg_buf_puts(b, "\n");
    }
    static const char *const lists[] = {"assumptions", "limitations", NULL};
    static const char *const list_heads[] = {"Assumptions", "Limitations", NULL};
    for (int i = 0; lists[i]; i++) {
        const cJSON *l = tg_json_get(m->docs, lists[i]), *e;
        if (!cJSON_GetArraySize(l))
            continue;
        tg_buf_printf(b, "\n## %s\n\n", list_heads[i]);
        cJSON_ArrayForEach(e, l)
        {
            tg_buf_puts(b, "- ");
            put_folded(b, cJSON_IsString(e) ? e->valuestring : "");
            tg_buf_puts(b, "\n");
        }
    }
}

static void ref_property_table(tg_buf *b, const char *head, const cJSON *schema)
{
    tg_buf_printf(b, "\n## %s\n\n| Name | Required | Type and constraints | Description |\n"
                     "| --- | --- | --- | --- |\n",
                  head);
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(schema, "properties"))
    {
        tg_buf name = TG_BUF_INIT, type = TG_BUF_INIT;
        put_code(&name, p->string);
        put_schema_summary(&type, p);
        const char *d = tg_json_get_string(p, "description");
        row(b, 4, name.data, yes_no(is_required(schema, p->string)), type.data, d ? d : "");
        tg_buf_free(&name);
        tg_buf_free(&type);
    }
}

static void ref_schemas(tg_buf *b, const tg_manifest *m)
{
    tg_buf_printf(b, "\n## Input schema\n\nAs clients see it (`%s/input.schema.json` is the same "
                     "with toolgen's own `x-toolgen-*` keywords).\n\n",
                  m->name);
    cJSON *s = tg_emit_client_schema(m->input_schema);
    put_fence_json(b, s, false);
    cJSON_Delete(s);
    tg_buf_puts(b, "## Output schema\n\n");
    s = tg_emit_client_schema(m->output_schema);
    put_fence_json(b, s, false);
    cJSON_Delete(s);
}

static void ref_examples(tg_buf *b, const tg_manifest *m)
{
    tg_buf_puts(b, "## Examples\n");
    const cJSON *ex;
    cJSON_ArrayForEach(ex, m->examples)
    {
        tg_buf_puts(b, "\n### ");
        put_code(b, tg_json_get_string(ex, "name"));
        tg_buf_puts(b, "\n\n");
        if (tg_json_get_string(ex, "description")) {
            tg_emit_put_trimmed(b, tg_json_get_string(ex, "description"));
            tg_buf_puts(b, "\n\n");
        }
        tg_buf_puts(b, "Call:\n\n");
        put_examples_of(b, m->name, ex, true);
        tg_buf_puts(b, "Result (MCP `structuredContent`):\n\n");
        put_fence_json(b, tg_json_get(ex, "output"), false);
        b->len--;
        b->data[b->len] = '\0';
    }
}

/* "; label `a`, `b`": the member names of an object (keys) or the values of an array. */
static void put_listing(tg_buf *b, const char *label, const cJSON *v, bool keys)
{
    sep(b, "; ");
    tg_buf_puts(b, label);
    int i = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, v)
    {
        tg_buf_puts(b, i++ ? ", " : " ");
        if (keys)
            put_code(b, k->string);
        else
            put_code_json(b, k);
    }
}

/* What a test expects, in a few words. */
static void put_expectation(tg_buf *b, const cJSON *expect)
{
    const char *error = tg_json_get_string(expect, "error");
    if (error) {
        tg_buf_puts(b, "fails with ");
        put_code(b, error);
        if (tg_json_get(expect, "message_contains"))
            put_listing(b, "message contains", tg_json_get(expect, "message_contains"), false);
        return;
    }
    if (tg_json_get(expect, "output"))
        put_listing(b, "exact output:", tg_json_get(expect, "output"), true);
    if (tg_json_get(expect, "output_contains"))
        put_listing(b, "output contains", tg_json_get(expect, "output_contains"), true);
    if (tg_json_get(expect, "text_contains"))
        put_listing(b, "summary contains", tg_json_get(expect, "text_contains"), false);
    if (tg_json_get_string(expect, "text_matches")) {
        sep(b, "; ");
        tg_buf_puts(b, "summary matches ");
        put_code(b, tg_json_get_string(expect, "text_matches"));
    }
    if (tg_json_get(expect, "artifacts"))
        put_listing(b, "writes", tg_json_get(expect, "artifacts"), false);
    if (cJSON_IsTrue(tg_json_get(expect, "schema_valid"))) {
        sep(b, "; ");
        tg_buf_puts(b, "output matches the output schema");
    }
}

static void ref_tests(tg_buf *b, const tg_manifest *m)
{
    int n = cJSON_GetArraySize(m->tests);
    tg_buf_printf(b, "\n## Tests\n\n%d test%s run in the sandbox by `toolgen build` / `toolgen "
                     "test`.\n",
                  n, n == 1 ? "" : "s");
    if (!n)
        return;
    tg_buf_puts(b, "\n| Test | Category | Input | Expects |\n| --- | --- | --- | --- |\n");
    const cJSON *t;
    cJSON_ArrayForEach(t, m->tests)
    {
        tg_buf name = TG_BUF_INIT, input = TG_BUF_INIT, expect = TG_BUF_INIT;
        put_code(&name, tg_json_get_string(t, "name") ? tg_json_get_string(t, "name") : "?");
        put_code_json(&input, tg_json_get(t, "input"));
        put_expectation(&expect, tg_json_get(t, "expect"));
        const char *cat = tg_json_get_string(t, "category");
        row(b, 4, name.data, cat ? cat : "", input.data, expect.data);
        tg_buf_free(&name);
        tg_buf_free(&input);
        tg_buf_free(&expect);
    }
}

static char *reference_md(const tg_manifest *m)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "# ");
    put_code(&b, m->name);
    if (m->title) {
        tg_buf_puts(&b, ": ");
        put_plain(&b, m->title);
    }
    tg_buf_puts(&b, "\n\n");
    tg_emit_put_trimmed(&b, m->description);
    tg_buf_puts(&b, "\n\nBack to [SKILL.md](../SKILL.md).\n\n");
    ref_facts(&b, m);
    ref_docs(&b, m);
    ref_property_table(&b, "Inputs", m->input_schema);
    ref_property_table(&b, "Outputs", m->output_schema);
    ref_schemas(&b, m);
    ref_examples(&b, m);
    ref_tests(&b, m);
    const cJSON *side = tg_json_get(m->constraints, "side_effects"), *e;
    tg_buf_puts(&b, "\n## Side effects\n\n");
    if (!cJSON_GetArraySize(side))
        tg_buf_puts(&b, "None.\n");
    cJSON_ArrayForEach(e, side)
    {
        tg_buf_puts(&b, "- ");
        put_folded(&b, cJSON_IsString(e) ? e->valuestring : "");
        tg_buf_puts(&b, "\n");
    }
    return tg_buf_steal(&b);
}

/* ---- SKILL.md ------------------------------------------------------------------------------- */

/*
 * SKILL.md is assembled from each tool's pieces (tg_emit_skill_pieces) in name order, with text
 * that depends on the repository and on a few facts of the tools (names, network, credentials).
 * Its form depends on the length of the whole: full (0), compact (1) or minimal (2), the first
 * that keeps the body under SKILL_MAX_BODY_LINES; every form keeps one example per tool.
 */
typedef struct skill_ctx {
    const tg_emit_fragment *f;
    size_t n;
    const tg_project_info *repo;
    size_t *pos; /* NULL, or where the pieces went (tg_emit_skill_md): first in the buffer they
                  * were appended to, then in the file (skill_md) */
} skill_ctx;

static const tg_emit_piece *piece(const skill_ctx *c, size_t i, tg_emit_piece_kind k)
{
    return &c->f[i].p[k];
}

/* Every tool's piece k, one after the other. */
static void put_pieces(tg_buf *b, const skill_ctx *c, tg_emit_piece_kind k)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->pos)
            c->pos[i * TG_PIECE_COUNT + k] = b->len;
        tg_buf_append(b, piece(c, i, k)->data, piece(c, i, k)->len);
    }
}

/* The non-empty pieces k, separated by s; placed: b is part of the file, record where. */
static void put_joined_at(tg_buf *b, const skill_ctx *c, tg_emit_piece_kind k, const char *s,
                          bool placed)
{
    size_t start = b->len;
    for (size_t i = 0; i < c->n; i++) {
        const tg_emit_piece *p = piece(c, i, k);
        if (!p->len)
            continue;
        if (b->len > start)
            tg_buf_puts(b, s);
        if (placed && c->pos)
            c->pos[i * TG_PIECE_COUNT + k] = b->len;
        tg_buf_append(b, p->data, p->len);
    }
}

/* The same into a buffer that is not the file's (a list folded into a sentence). */
static void put_joined(tg_buf *b, const skill_ctx *c, tg_emit_piece_kind k, const char *s)
{
    put_joined_at(b, c, k, s, false);
}

static bool any_piece(const skill_ctx *c, tg_emit_piece_kind k)
{
    for (size_t i = 0; i < c->n; i++)
        if (piece(c, i, k)->len)
            return true;
    return false;
}

/* Folded to one line and cut at a word boundary to fit max bytes (bytes >= characters). */
static void put_fitted(tg_buf *b, const char *text, size_t max)
{
    tg_buf t = TG_BUF_INIT;
    put_folded(&t, text);
    if (t.len <= max) {
        tg_buf_append(b, t.data, t.len);
    } else {
        size_t cut = max - 3;
        while (cut && t.data[cut] != ' ')
            cut--;
        tg_buf_append(b, t.data, cut);
        tg_buf_puts(b, "...");
    }
    tg_buf_free(&t);
}

/* What it does + when to use it, in the 1024 characters the format allows: with the tool
 * titles when they fit, else the names, else only the count. */
static char *skill_description(const skill_ctx *c)
{
    static const char use[] = " Use it when a request needs one of these tools; the skill says "
                              "when to use each one and when not.";
    for (int level = 0; level < 3; level++) {
        tg_buf b = TG_BUF_INIT;
        put_folded(&b, tg_emit_repo_description(c->repo));
        if (level < 2) {
            tg_buf_printf(&b, " Tools: ");
            /* a list already too long is not finished: it is not used */
            for (size_t i = 0; i < c->n && b.len < SKILL_MAX_DESCRIPTION; i++) {
                const tg_emit_piece *p = piece(c, i, level == 0 ? TG_PIECE_SKILL_DESC : TG_PIECE_NAME);
                tg_buf_puts(&b, i ? (level == 0 ? "; " : ", ") : "");
                tg_buf_append(&b, p->data, p->len);
            }
            tg_buf_puts(&b, ".");
        } else {
            tg_buf_printf(&b, " Provides %zu tools.", c->n);
        }
        tg_buf_puts(&b, use);
        if (b.len < SKILL_MAX_DESCRIPTION)
            return tg_buf_steal(&b);
        if (level == 2) {
            char *all = tg_buf_steal(&b);
            put_fitted(&b, all, SKILL_MAX_DESCRIPTION - 1);
            free(all);
            return tg_buf_steal(&b);
        }
        tg_buf_free(&b);
    }
    return NULL; /* not reached */
}

static char *skill_compatibility(const skill_ctx *c)
{
    tg_buf b = TG_BUF_INIT, net = TG_BUF_INIT;
    size_t nnet = 0;
    for (size_t i = 0; i < c->n; i++)
        if (piece(c, i, TG_PIECE_SKILL_NETWORK)->len)
            nnet++;
    tg_buf_puts(&b, "Needs toolgen (toolgen serve runs the tools in its sandbox) on Linux.");
    if (nnet)
        put_joined(&net, c, TG_PIECE_SKILL_NETWORK, ", ");
    if (nnet && 40 + b.len + net.len < SKILL_MAX_COMPATIBILITY)
        tg_buf_printf(&b, " Network access for %s.", net.data);
    else if (nnet)
        tg_buf_printf(&b, " Network access for %zu tools.", nnet);
    tg_buf_free(&net);
    return tg_buf_steal(&b);
}

static void skill_front_matter(tg_buf *b, const skill_ctx *c)
{
    char *desc = skill_description(c), *compat = skill_compatibility(c);
    tg_buf_puts(b, "---\nname: ");
    tg_buf_puts(b, c->repo->name); /* kebab-case, checked by the caller */
    tg_buf_puts(b, "\ndescription: ");
    put_yaml_string(b, desc);
    tg_buf_puts(b, "\ncompatibility: ");
    put_yaml_string(b, compat);
    tg_buf_puts(b, "\nmetadata:\n  version: ");
    put_yaml_string(b, c->repo->version);
    tg_buf_puts(b, "\n  generator: \"toolgen\"\n---\n");
    free(desc);
    free(compat);
}

static void skill_intro(tg_buf *b, const skill_ctx *c)
{
    tg_buf_puts(b, "\n# ");
    put_plain(b, c->repo->name);
    tg_buf_puts(b, "\n\n");
    tg_emit_put_trimmed(b, tg_emit_repo_description(c->repo));
    tg_buf_puts(b, "\n\n## What this skill does\n\n");
    tg_buf_printf(b,
                  "It gives you %zu tool%s. Each takes one JSON object of arguments and returns "
                  "one JSON object. Arguments are checked against the tool's input schema before "
                  "it runs, and its result against its output schema.\n\n",
                  c->n, c->n == 1 ? "" : "s");
    tg_buf_puts(b, "| Tool | Purpose | Risk |\n| --- | --- | --- |\n");
    put_pieces(b, c, TG_PIECE_SKILL_INTRO);
}

/* Its row of the tool table. */
static void piece_intro(tg_buf *b, const tg_manifest *m)
{
    tg_buf name = TG_BUF_INIT, title = TG_BUF_INIT;
    tg_buf_puts(&name, "[");
    put_code(&name, m->name);
    tg_buf_printf(&name, "](#%s)", m->name);
    put_plain(&title, m->title ? m->title : m->description);
    row(b, 3, name.data, title.data, m->risk ? m->risk : "unknown");
    tg_buf_free(&name);
    tg_buf_free(&title);
}

/* "- `tool`: text" when the tool's docs have key (folded to one line). */
static void piece_docs_bullet(tg_buf *b, const tg_manifest *m, const char *key)
{
    const char *text = tg_json_get_string(m->docs, key);
    if (!text)
        return;
    tg_buf_puts(b, "- ");
    put_code(b, m->name);
    tg_buf_puts(b, ": ");
    put_folded(b, text);
    tg_buf_puts(b, "\n");
}

static void skill_when(tg_buf *b, const skill_ctx *c)
{
    tg_buf_puts(b, "\n## When to use it\n\n");
    put_pieces(b, c, TG_PIECE_SKILL_WHEN);
    tg_buf_puts(b, "\n## When not to use it\n\n");
    put_pieces(b, c, TG_PIECE_SKILL_WHEN_NOT);
    tg_buf_puts(b, "- Not for anything these tools do not cover: they are the only actions this "
                   "skill offers, and none runs arbitrary code or shell commands.\n");
}

static void skill_calling(tg_buf *b, int level)
{
    tg_buf_printf(
        b,
        "\n## How to call a tool\n\n"
        "Any tool-calling interface works. The generic call shape is:\n\n"
        "```json\n{\"tool\": \"<tool name>\", \"input\": {\"<argument>\": \"<value>\"}}\n```\n\n"
        "Over MCP (`toolgen serve`), the same call is a `tools/call` request:\n\n"
        "```json\n{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": "
        "{\"name\": \"<tool name>\", \"arguments\": {\"<argument>\": \"<value>\"}}}\n```\n\n"
        "%s"
        "Leave out an optional argument to get its default. The result is the tool's JSON "
        "object (MCP: `structuredContent`; the text content holds its `summary_markdown` when "
        "it has one, then the same JSON as text). A call that fails returns one of the error "
        "codes under "
        "[Failure modes](#failure-modes-and-error-codes) with a message saying what was "
        "wrong.\n",
        level == 2 ? "Each tool below shows one example on two lines: the generic call, then "
                     "the MCP request. "
                   : "");
}

static void put_facts_line(tg_buf *b, const tg_manifest *m)
{
    tg_buf_printf(b, "Risk: %s; idempotent: %s; read-only: %s; network: %s; timeout: ",
                  m->risk ? m->risk : "unknown",
                  yes_no(m->idempotency && !strcmp(m->idempotency, "idempotent")),
                  yes_no(tg_emit_read_only(m)), yes_no(tg_emit_network(m)));
    put_duration_ms(b, m->timeout_ms);
    tg_buf_puts(b, ".");
}

static void put_heading_and_purpose(tg_buf *b, const tg_manifest *m, bool with_description)
{
    tg_buf_puts(b, "\n### ");
    put_code(b, m->name);
    tg_buf_puts(b, "\n\n");
    if (m->title) {
        tg_buf_puts(b, "**");
        put_plain(b, m->title);
        tg_buf_puts(b, ".**");
    }
    if (with_description || !m->title) {
        tg_buf_puts(b, m->title ? " " : "");
        put_folded(b, m->description);
    }
}

/* Both calls of the first example on one line each: compact forms for many tools. */
static void put_example_lines(tg_buf *b, const tg_manifest *m, bool label)
{
    const cJSON *ex = cJSON_GetArrayItem(m->examples, 0);
    cJSON *g = generic_call(m->name, tg_json_get(ex, "input"));
    cJSON *r = tg_emit_call_request(m->name, tg_json_get(ex, "input"));
    char *gj = tg_json_print_compact(g), *rj = tg_json_print_compact(r);
    char *both = xasprintf("%s\n%s\n", gj, rj);
    if (label)
        tg_buf_puts(b, "Example, as a generic call and as an MCP `tools/call` request:\n\n");
    put_fence(b, "jsonl", both);
    free(both);
    free(gj);
    free(rj);
    cJSON_Delete(g);
    cJSON_Delete(r);
}

static void skill_tool_short(tg_buf *b, int level, const tg_manifest *m)
{
    put_heading_and_purpose(b, m, level == 1);
    tg_buf_puts(b, " ");
    put_facts_line(b, m);
    if (level == 1) {
        tg_buf_puts(b, " Errors: ");
        put_error_codes(b, m);
        tg_buf_puts(b, ".");
    }
    tg_buf_printf(b, " Details: [references/%s.md](references/%s.md).\n\n", m->name, m->name);
    if (level == 1) {
        tg_buf_puts(b, "Required inputs:\n\n");
        put_property_list(b, m->input_schema, true, true);
        tg_buf_puts(b, "\n");
    }
    put_example_lines(b, m, level == 1);
    b->len--; /* one blank line between tools, not two */
    b->data[b->len] = '\0';
}

/* The tool's section under "## Tools" in the form of level. */
static void skill_tool(tg_buf *b, int level, const tg_manifest *m)
{
    if (level > 0) {
        skill_tool_short(b, level, m);
        return;
    }
    put_heading_and_purpose(b, m, true);
    tg_buf_puts(b, "\n\n- ");
    put_facts_line(b, m);
    tg_buf_puts(b, "\n- Errors: ");
    put_error_codes(b, m);
    tg_buf files = TG_BUF_INIT;
    if (put_artifacts(&files, m))
        tg_buf_printf(b, ".\n- Files: it %s", files.data);
    tg_buf_free(&files);
    tg_buf_printf(b, ".\n- Details: [references/%s.md](references/%s.md) (full schemas, every "
                     "example, tests).\n\n",
                  m->name, m->name);
    tg_buf_puts(b, "Inputs (**required** marked):\n\n");
    put_property_list(b, m->input_schema, false, true);
    tg_buf_puts(b, "\nOutputs:\n\n");
    put_property_list(b, m->output_schema, false, false);
    const cJSON *ex = cJSON_GetArrayItem(m->examples, 0);
    tg_buf_puts(b, "\nExample");
    if (tg_json_get_string(ex, "description")) {
        tg_buf_puts(b, " (");
        put_folded(b, tg_json_get_string(ex, "description"));
        tg_buf_puts(b, ")");
    }
    tg_buf_puts(b, ":\n\n");
    put_examples_of(b, m->name, ex, false);
    b->len--; /* one blank line between tools, not two */
    b->data[b->len] = '\0';
}

static void skill_failures(tg_buf *b)
{
    tg_buf_puts(b, "\n## Failure modes and error codes\n\n"
                   "Errors are deterministic: the same call on the same data fails the same way. "
                   "Each tool lists the codes it can return.\n\n"
                   "| Code | Meaning | What to do |\n| --- | --- | --- |\n");
    for (size_t i = 0; i < TG_ERRCODE_COUNT; i++) {
        const tg_errcode_info *e = tg_errcode_get((tg_errcode)i);
        tg_buf code = TG_BUF_INIT;
        put_code(&code, e->name);
        row(b, 3, code.data, e->meaning, e->advice);
        tg_buf_free(&code);
    }
}

/* "- `tool`: item" for every string of the tool's constraints[key]. */
static void piece_constraint_bullets(tg_buf *b, const tg_manifest *m, const char *key)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(m->constraints, key))
    {
        if (!cJSON_IsString(e))
            continue;
        tg_buf_puts(b, "- ");
        put_code(b, m->name);
        tg_buf_puts(b, ": ");
        put_folded(b, e->valuestring);
        tg_buf_puts(b, "\n");
    }
}

static void skill_read_only(tg_buf *b, const skill_ctx *c)
{
    tg_buf refused = TG_BUF_INIT;
    put_joined(&refused, c, TG_PIECE_SKILL_REFUSED, ", ");
    tg_buf_puts(b, "- Read-only mode: with `READ_ONLY=1` in the environment of `toolgen serve`, "
                   "tools that change something or are high-risk are refused with `FORBIDDEN`. ");
    if (refused.len)
        tg_buf_printf(b, "Refused then: %s.\n", refused.data);
    else
        tg_buf_puts(b, "Every tool here is read-only and stays available.\n");
    tg_buf_free(&refused);
}

/* Its row of the safety table. */
static void piece_safety(tg_buf *b, const tg_manifest *m)
{
    tg_buf name = TG_BUF_INIT, paths = TG_BUF_INIT, timeout = TG_BUF_INIT, limits = TG_BUF_INIT,
           rate = TG_BUF_INIT;
    put_code(&name, m->name);
    put_allowed_paths(&paths, m);
    put_duration_ms(&timeout, m->timeout_ms);
    put_limits(&limits, tg_json_get(m->constraints, "limits"));
    put_rate_limit(&rate, m);
    row(b, 7, name.data, yes_no(tg_emit_read_only(m)), yes_no(tg_emit_network(m)), paths.data,
        timeout.data, limits.data, rate.data);
    tg_buf_free(&name);
    tg_buf_free(&paths);
    tg_buf_free(&timeout);
    tg_buf_free(&limits);
    tg_buf_free(&rate);
}

static void skill_safety(tg_buf *b, const skill_ctx *c)
{
    tg_buf_puts(b, "\n## Safety and constraints\n\n");
    skill_read_only(b, c);
    tg_buf_puts(
        b, "- Every call runs in toolgen's sandbox with the limits below: no network unless "
           "the tool needs it, only the data files named in its arguments visible (read-only), "
           "a private working directory.\n"
           "- Data file arguments (\"a data file path\" under Inputs) are relative to the "
           "repository root. A path outside the data directories or the tool's allowed paths "
           "fails with `FORBIDDEN`, a missing file with `NOT_FOUND`.\n\n"
           "| Tool | Read-only | Network | Allowed paths | Timeout | Limits | Rate limit |\n"
           "| --- | --- | --- | --- | --- | --- | --- |\n");
    put_pieces(b, c, TG_PIECE_SKILL_SAFETY);
    if (any_piece(c, TG_PIECE_SKILL_SIDE_EFFECTS)) {
        tg_buf_puts(b, "\nSide effects:\n\n");
        put_pieces(b, c, TG_PIECE_SKILL_SIDE_EFFECTS);
    }
    if (any_piece(c, TG_PIECE_SKILL_LIMITS)) {
        tg_buf_puts(b, "\nOther constraints:\n\n");
        put_pieces(b, c, TG_PIECE_SKILL_LIMITS);
    }
}

static void skill_env(tg_buf *b, const skill_ctx *c)
{
    const char **envs;
    size_t nenv = tg_emit_fragment_envs(c->f, c->n, &envs);
    tg_buf_puts(b, "\nEnvironment variables (of `toolgen serve`; values never go into files or "
                   "tool arguments):\n\n| Variable | Used by | Meaning |\n| --- | --- | --- |\n");
    for (size_t k = 0; k < nenv; k++) {
        tg_buf var = TG_BUF_INIT, users = TG_BUF_INIT;
        put_code(&var, envs[k]);
        for (size_t i = 0; i < c->n; i++) {
            if (!strcmp(piece(c, i, TG_PIECE_AUTH_ENV)->data, envs[k])) {
                sep(&users, ", ");
                put_code(&users, piece(c, i, TG_PIECE_NAME)->data);
            }
        }
        row(b, 3, var.data, users.data,
            "Credential for the remote service (a secret). Missing or wrong: `UNAUTHORIZED`.");
        tg_buf_free(&var);
        tg_buf_free(&users);
    }
    free(envs);
    row(b, 3, "`READ_ONLY`", "all tools",
        "`1` refuses tools that are not read-only or are high-risk (`FORBIDDEN`).");
}

/* "`tool` runs <how>" of the operational notes. */
static void piece_runtime(tg_buf *b, const tg_manifest *m)
{
    put_code(b, m->name);
    tg_buf_puts(b, " runs ");
    put_runtime(b, m);
}

static void skill_operations(tg_buf *b, const skill_ctx *c)
{
    tg_buf_puts(
        b, "\n## Operational notes\n\n"
           "- Run the tools as an MCP server over stdio: `toolgen serve` in the repository "
           "(or `toolgen -C <repository> serve`). The generated `mcp/manifest.json` is an MCP "
           "Bundle manifest that starts it the same way.\n"
           "- Other interfaces: the generated `adapters/openai.tools.json` and "
           "`adapters/anthropic.tools.json` hold the same tools as OpenAI and Anthropic tool "
           "definitions; forward each call to `toolgen serve` as a `tools/call` request. In "
           "OpenAI strict mode every argument is sent and `null` means \"left out\": drop those "
           "before forwarding.\n"
           "- How each tool runs: ");
    put_joined_at(b, c, TG_PIECE_SKILL_RUNTIME, "; ", true);
    tg_buf_puts(b, ".\n");
    put_pieces(b, c, TG_PIECE_SKILL_NOTES);
    skill_env(b, c);
    tg_buf_puts(b, "\nThis skill is generated by toolgen from the tool manifests "
                   "(`manifests/<tool>/tool.manifest.yaml`); change those and run `toolgen "
                   "build` instead of editing it.\n");
}

static const char tools_head[] = "\n## Tools\n";
static const tg_emit_piece_kind tool_forms[3] = {
    TG_PIECE_SKILL_TOOL_FULL, TG_PIECE_SKILL_TOOL_COMPACT, TG_PIECE_SKILL_TOOL_MINIMAL};

/* The body is the same in every form but for the call section and the tools: its length in
 * lines comes from the pieces' line counts, so the forms not chosen are never assembled. The
 * parts that do not depend on the form are left in before and after. */
static int skill_form(const skill_ctx *c, tg_buf *before, tg_buf *after, tg_buf *calling)
{
    skill_intro(before, c);
    skill_when(before, c);
    skill_failures(after);
    skill_safety(after, c);
    skill_operations(after, c);
    size_t fixed = count_lines(before->data) + count_lines(after->data) + count_lines(tools_head);
    int level = 0;
    for (; level < 3; level++) {
        tg_buf_reset(calling);
        skill_calling(calling, level);
        size_t lines = fixed + count_lines(calling->data);
        for (size_t i = 0; i < c->n; i++)
            lines += piece(c, i, tool_forms[level])->lines;
        if (lines < SKILL_MAX_BODY_LINES)
            return level;
    }
    return 2; /* the last form, however long (calling holds its call section) */
}

/* The kinds skill_form puts in before and in after. */
static const tg_emit_piece_kind kinds_before[] = {
    TG_PIECE_SKILL_INTRO, TG_PIECE_SKILL_WHEN, TG_PIECE_SKILL_WHEN_NOT};
static const tg_emit_piece_kind kinds_after[] = {
    TG_PIECE_SKILL_SAFETY, TG_PIECE_SKILL_SIDE_EFFECTS, TG_PIECE_SKILL_LIMITS,
    TG_PIECE_SKILL_RUNTIME, TG_PIECE_SKILL_NOTES};

/* Offsets recorded in a part of the file move by where that part starts in it. */
static void shift_pos(const skill_ctx *c, const tg_emit_piece_kind *kinds, size_t nk, size_t by)
{
    for (size_t i = 0; c->pos && i < c->n; i++)
        for (size_t j = 0; j < nk; j++) {
            size_t *p = &c->pos[i * TG_PIECE_COUNT + kinds[j]];
            if (*p != TG_EMIT_NOWHERE)
                *p += by;
        }
}

static char *skill_md(const skill_ctx *c)
{
    tg_buf before = TG_BUF_INIT, after = TG_BUF_INIT, calling = TG_BUF_INIT;
    int level = skill_form(c, &before, &after, &calling);
    tg_buf b = TG_BUF_INIT;
    skill_front_matter(&b, c);
    shift_pos(c, kinds_before, sizeof kinds_before / sizeof *kinds_before, b.len);
    tg_buf_append(&b, before.data, before.len);
    tg_buf_append(&b, calling.data, calling.len);
    tg_buf_puts(&b, tools_head);
    put_pieces(&b, c, tool_forms[level]);
    shift_pos(c, kinds_after, sizeof kinds_after / sizeof *kinds_after, b.len);
    tg_buf_append(&b, after.data, after.len);
    tg_buf_free(&before);
    tg_buf_free(&after);
    tg_buf_free(&calling);
    return tg_buf_steal(&b);
}

/* ---- entry points --------------------------------------------------------------------------- */

void tg_emit_skill_pieces(const tg_manifest *m, tg_buf *pieces)
{
    tg_buf *p = pieces;
    tg_buf_puts(&p[TG_PIECE_SKILL_DESC], m->name);
    if (m->title) {
        tg_buf_puts(&p[TG_PIECE_SKILL_DESC], " (");
        put_folded(&p[TG_PIECE_SKILL_DESC], m->title);
        tg_buf_puts(&p[TG_PIECE_SKILL_DESC], ")");
    }
    if (tg_emit_network(m))
        tg_buf_puts(&p[TG_PIECE_SKILL_NETWORK], m->name);
    piece_intro(&p[TG_PIECE_SKILL_INTRO], m);
    piece_docs_bullet(&p[TG_PIECE_SKILL_WHEN], m, "when_to_use");
    piece_docs_bullet(&p[TG_PIECE_SKILL_WHEN_NOT], m, "when_not_to_use");
    for (int level = 0; level < 3; level++)
        skill_tool(&p[tool_forms[level]], level, m);
    if (tg_emit_refused_in_read_only(m))
        put_code(&p[TG_PIECE_SKILL_REFUSED], m->name);
    piece_safety(&p[TG_PIECE_SKILL_SAFETY], m);
    piece_constraint_bullets(&p[TG_PIECE_SKILL_SIDE_EFFECTS], m, "side_effects");
    piece_constraint_bullets(&p[TG_PIECE_SKILL_LIMITS], m, "notes");
    piece_runtime(&p[TG_PIECE_SKILL_RUNTIME], m);
    piece_docs_bullet(&p[TG_PIECE_SKILL_NOTES], m, "notes");
    char *ref = reference_md(m);
    tg_buf_puts(&p[TG_PIECE_REFERENCE], ref);
    free(ref);
}

char *tg_emit_skill_md(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                       size_t *pos)
{
    skill_ctx c = {f, n, repo, pos};
    return skill_md(&c);
}

tg_emit_piece_kind tg_emit_skill_form(const tg_emit_fragment *f, size_t n,
                                      const tg_project_info *repo)
{
    skill_ctx c = {f, n, repo, NULL};
    tg_buf before = TG_BUF_INIT, after = TG_BUF_INIT, calling = TG_BUF_INIT;
    int level = skill_form(&c, &before, &after, &calling);
    tg_buf_free(&before);
    tg_buf_free(&after);
    tg_buf_free(&calling);
    return tool_forms[level];
}
