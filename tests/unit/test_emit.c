/*
 * test_emit.c — the emitters: determinism, MCP conformance (against the official 2025-11-25
 * schema, with toolgen's own validator), OpenAI strict rules, SKILL.md format, fixtures.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/errcode.h"
#include "emit/aggindex.h"
#include "emit/emit.h"
#include "emit/emit_registry.h"
#include "base/json.h"
#include "schema/jsonschema.h"
#include "model/manifest.h"
#include "testlib.h"

#define MCP_URI "https://modelcontextprotocol.io/schema/2025-11-25/schema.json"

/* ---- helpers -------------------------------------------------------------------------------- */

/* A missing string compares as "" so that a failed CHECK never becomes a crash. */
static const char *str(const char *s)
{
    return s ? s : "";
}

/* An emitted file's JSON: that it parses is a check. */
static cJSON *parse_json(const char *text)
{
    tg_err e = {0};
    cJSON *v = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &e);
    CHECK(v != NULL, "not JSON (%d:%d %s): %.200s", e.line, e.col, e.msg, text);
    return v;
}

/* The test's own JSON: setup. */
static cJSON *fixture_json(const char *text)
{
    tg_err e = {0};
    cJSON *v = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &e);
    SETUP(v != NULL, "bad test JSON (%d:%d %s): %.200s", e.line, e.col, e.msg, text);
    return v;
}

static const char *file_data(const tg_emit_files *f, const char *path)
{
    const tg_emit_file *x = tg_emit_files_find(f, path);
    CHECK(x != NULL, "missing output %s", path);
    return x ? x->data : NULL;
}

static bool files_equal(const tg_emit_files *a, const tg_emit_files *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].path, b->v[i].path) != 0 || a->v[i].len != b->v[i].len ||
            memcmp(a->v[i].data, b->v[i].data, a->v[i].len) != 0)
            return false;
    return true;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every manifests/<dir>/tool.manifest.yaml, in directory-name order. */
static size_t load_examples(tg_manifest **out)
{
    DIR *d = opendir("manifests");
    CHECK(d != NULL, "cannot open manifests/ (run from the repository root)");
    if (!d)
        return 0;
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 256) {
        if (e->d_name[0] == '.')
            continue;
        char *p = xasprintf("manifests/%s/tool.manifest.yaml", e->d_name);
        if (tg_is_file(p))
            names[n++] = p;
        else
            free(p);
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    tg_manifest *ms = xcalloc(n ? n : 1, sizeof *ms);
    tg_repo here;
    tg_err rerr = {0};
    CHECK(tg_repo_open_dir(&here, ".", &rerr) == 0, "repo: %s", rerr.msg);
    for (size_t i = 0; i < n; i++) {
        tg_err err = {0};
        CHECK(tg_manifest_load(&here, names[i], &ms[i], &err) == 0, "%s: %s", names[i], err.msg);
        tg_manifest_bind(&ms[i]);
        free(names[i]);
    }
    tg_repo_release(&here);
    *out = ms;
    return n;
}

static js_schema *compile(js_registry *reg, const cJSON *schema)
{
    tg_err err = {0};
    js_schema *s = js_compile(reg, schema, NULL, &err);
    CHECK(s != NULL, "compile: %s", err.msg);
    return s;
}

static js_schema *mcp_def(js_registry *reg, const char *def)
{
    char *ref = xasprintf(MCP_URI "#/$defs/%s", def);
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "$ref", ref);
    tg_err err = {0};
    js_schema *s = js_compile(reg, w, NULL, &err);
    SETUP(s != NULL, "compile %s: %s", ref, err.msg);
    cJSON_Delete(w);
    free(ref);
    return s;
}

static void expect_valid(const js_schema *s, const cJSON *inst, const char *what)
{
    if (!s || !inst) {
        CHECK(false, "%s: nothing to validate", what);
        return;
    }
    js_errors errs = {0};
    bool ok = js_validate(s, inst, &errs);
    CHECK(ok, "%s: %s at %s (schema %s)", what, errs.n ? errs.v[0].message : "?",
          errs.n ? errs.v[0].instance_location : "", errs.n ? errs.v[0].keyword_location : "");
    js_errors_free(&errs);
}

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* ---- an independent check of OpenAI's strict-mode rules ------------------------------------- */

static const char *const strict_allowed[] = {
    "type",    "description", "title",   "enum",    "const",     "properties",
    "required", "additionalProperties", "items", "anyOf", "$defs", "definitions",
    "$ref",    "pattern",     "format",  "multipleOf", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", NULL};
static const char *const strict_formats[] = {"date-time", "time", "date",  "duration", "email",
                                             "hostname",  "ipv4", "ipv6", "uuid",     NULL};

static bool listed(const char *const *l, const char *s)
{
    for (; *l; l++)
        if (!strcmp(*l, s))
            return true;
    return false;
}

static bool has_type(const cJSON *t, const char *name)
{
    if (cJSON_IsString(t))
        return !strcmp(t->valuestring, name);
    const cJSON *e;
    cJSON_ArrayForEach(e, t)
    {
        if (cJSON_IsString(e) && !strcmp(e->valuestring, name))
            return true;
    }
    return false;
}

/* Returns NULL when s obeys the rules, else what breaks them. */
static const char *strict_violation(const cJSON *s, int level, bool root)
{
    if (!cJSON_IsObject(s))
        return "a schema that is not an object";
    const cJSON *k;
    cJSON_ArrayForEach(k, s)
    {
        if (!listed(strict_allowed, k->string))
            return k->string;
    }
    const cJSON *type = tg_json_get(s, "type");
    if (root && (!has_type(type, "object") || tg_json_get(s, "anyOf")))
        return "root is not a plain object";
    if (!type && !tg_json_get(s, "enum") && !tg_json_get(s, "const") &&
        !tg_json_get(s, "anyOf") && !tg_json_get(s, "$ref"))
        return "no type";
    if (cJSON_IsArray(type)) {
        int nonnull = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, type) nonnull += !has_type(e, "null");
        if (nonnull > 1)
            return "type union";
    }
    const char *fmt = tg_json_get_string(s, "format");
    if (fmt && !listed(strict_formats, fmt))
        return "format";
    const char *why;
    if (has_type(type, "object")) {
        if (level >= 10)
            return "too deep";
        const cJSON *props = tg_json_get(s, "properties"), *req = tg_json_get(s, "required");
        if (!cJSON_IsObject(props) || !cJSON_IsFalse(tg_json_get(s, "additionalProperties")))
            return "object without properties or additionalProperties false";
        if (!cJSON_IsArray(req) || cJSON_GetArraySize(req) != cJSON_GetArraySize(props))
            return "required does not list every property";
        const cJSON *p;
        cJSON_ArrayForEach(p, props)
        {
            bool found = false;
            const cJSON *r;
            cJSON_ArrayForEach(r, req)
            {
                found |= cJSON_IsString(r) && !strcmp(r->valuestring, p->string);
            }
            if (!found)
                return "a property missing from required";
            if ((why = strict_violation(p, level + 1, false)) != NULL)
                return why;
        }
    }
    if (has_type(type, "array")) {
        if (!tg_json_get(s, "items"))
            return "array without items";
        if ((why = strict_violation(tg_json_get(s, "items"), level, false)) != NULL)
            return why;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(s, "anyOf"))
    {
        if ((tg_json_get(e, "enum") || tg_json_get(e, "const")) && !tg_json_get(e, "type"))
            return "an enum or const inside anyOf without a type";
        if ((why = strict_violation(e, level, false)) != NULL)
            return why;
    }
    cJSON_ArrayForEach(e, tg_json_get(s, "$defs"))
    {
        if ((why = strict_violation(e, level, false)) != NULL)
            return why;
    }
    return NULL;
}

/* ---- strict transformation on hand-written schemas ------------------------------------------ */

static cJSON *strict_of(const char *schema_json, tg_openai_mode *mode)
{
    cJSON *s = fixture_json(schema_json);
    cJSON *t = tg_emit_openai_strict_schema(s, mode);
    cJSON_Delete(s);
    if (t) {
        const char *why = strict_violation(t, 0, true);
        CHECK(why == NULL, "strict output of %s breaks the rules: %s", schema_json, why);
    }
    return t;
}

static void expect_not_strict(const char *schema_json, const char *reason_part)
{
    tg_openai_mode mode;
    cJSON *t = strict_of(schema_json, &mode);
    CHECK(t == NULL && !mode.strict, "expected no strict form for %s", schema_json);
    CHECK_CONTAINS(mode.reason, reason_part);
    cJSON_Delete(t);
}

static void test_strict_optional(void)
{
    tg_openai_mode mode;
    cJSON *t = strict_of("{\"type\":\"object\",\"additionalProperties\":false,"
                         "\"required\":[\"a\"],\"properties\":{"
                         "\"a\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":9},"
                         "\"b\":{\"type\":\"integer\",\"description\":\"Count.\",\"default\":3},"
                         "\"c\":{\"enum\":[\"x\",\"y\"]},"
                         "\"d\":{\"type\":\"string\",\"format\":\"uri\"}}}",
                         &mode);
    CHECK(t && mode.strict && !mode.reason[0], "strict expected, reason %s", mode.reason);
    char *out = t ? tg_json_print_compact(t) : NULL;
    CHECK_CONTAINS(out, "\"required\":[\"a\",\"b\",\"c\",\"d\"],\"additionalProperties\":false");
    /* required a keeps its type; relaxed length moves into the description */
    CHECK_CONTAINS(out,
                   "\"a\":{\"type\":\"string\",\"description\":\"Length: 2 to 9 characters.\"}");
    /* optional with a simple type: a union with null, the default told in the description */
    CHECK_CONTAINS(out, "\"b\":{\"type\":[\"integer\",\"null\"],\"description\":\"Count. Optional: "
                        "send null to leave it out (default: 3).\"}");
    /* optional without a simple type: anyOf with {"type":"null"} */
    CHECK_CONTAINS(out, "\"c\":{\"anyOf\":[{\"type\":\"string\",\"enum\":[\"x\",\"y\"]},"
                        "{\"type\":\"null\"}]");
    /* an unsupported format is dropped and described */
    CHECK_CONTAINS(out, "\"d\":{\"type\":[\"string\",\"null\"],\"description\":\"Format: uri.");
    CHECK_CONTAINS(mode.relaxed, "default");
    CHECK_CONTAINS(mode.relaxed, "minLength");
    CHECK_CONTAINS(mode.relaxed, "format");
    free(out);
    cJSON_Delete(t);
}

static void test_strict_nested(void)
{
    tg_openai_mode mode;
    cJSON *t = strict_of(
        "{\"type\":\"object\",\"required\":[\"o\",\"l\"],\"properties\":{"
        "\"o\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":0}}},"
        "\"l\":{\"type\":\"array\",\"uniqueItems\":true,\"items\":{\"$ref\":\"#/$defs/item\"}},"
        "\"r\":{\"$ref\":\"#/$defs/item\",\"description\":\"One item.\"}},"
        "\"$defs\":{\"item\":{\"type\":\"object\",\"required\":[\"k\"],"
        "\"properties\":{\"k\":{\"const\":\"v\"}}}}}",
        &mode);
    CHECK(t && mode.strict, "nested: %s", mode.reason);
    char *out = t ? tg_json_print_compact(t) : NULL;
    /* the nested object is closed too, and its optional property nullable */
    CHECK_CONTAINS(out, "\"o\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":[\"number\","
                        "\"null\"],\"minimum\":0,\"description\":\"Optional: send null to leave "
                        "it out.\"}},\"required\":[\"x\"],\"additionalProperties\":false}");
    CHECK_CONTAINS(out, "\"description\":\"Items must be unique.\"");
    /* an optional $ref keeps its annotation outside the anyOf */
    CHECK_CONTAINS(out, "\"r\":{\"description\":\"One item. Optional: send null to leave it "
                        "out.\",\"anyOf\":[{\"$ref\":\"#/$defs/item\"},{\"type\":\"null\"}]}");
    /* $defs are transformed as well (the root itself had no additionalProperties) */
    CHECK_CONTAINS(out, "\"$defs\":{\"item\":{\"type\":\"object\",\"properties\":{\"k\":{"
                        "\"const\":\"v\"}},\"required\":[\"k\"],\"additionalProperties\":false}}");
    free(out);
    cJSON_Delete(t);
}

static void test_strict_refused(void)
{
    expect_not_strict("{\"type\":\"object\",\"properties\":{\"a\":{\"oneOf\":["
                      "{\"type\":\"string\"},{\"type\":\"integer\"}]}}}",
                      "oneOf");
    expect_not_strict("{\"type\":\"object\",\"properties\":{\"m\":{\"type\":\"object\"}}}",
                      "/properties/m: an object without fixed properties");
    expect_not_strict("{\"type\":\"object\",\"required\":[\"m\"],\"properties\":{\"m\":{\"type\":"
                      "\"object\",\"additionalProperties\":{\"type\":\"string\"}}}}",
                      "a map");
    expect_not_strict("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":[\"string\","
                      "\"null\"]}}}",
                      "\"n\" also accepts null");
    expect_not_strict("{\"type\":\"object\",\"properties\":{\"u\":{\"type\":[\"string\","
                      "\"number\"]}}}",
                      "one type");
    expect_not_strict("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{\"a\":{\"type\":"
                      "\"array\"}}}",
                      "items");
    expect_not_strict("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{\"a\":{}}}",
                      "without type");
    expect_not_strict("{\"type\":\"object\",\"allOf\":[{\"required\":[\"a\"]}],\"properties\":{"
                      "\"a\":{\"type\":\"string\"}}}",
                      "allOf");
    expect_not_strict("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", "root");
    expect_not_strict("{\"type\":\"object\",\"required\":[\"r\"],\"properties\":{\"r\":{\"$ref\":"
                      "\"https://example.com/x.json\"}}}",
                      "another document");
    /* eleven levels of objects */
    tg_buf b = TG_BUF_INIT;
    for (int i = 0; i < 11; i++)
        tg_buf_puts(&b, "{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{\"a\":");
    tg_buf_puts(&b, "{\"type\":\"string\"}");
    for (int i = 0; i < 11; i++)
        tg_buf_puts(&b, "}}");
    expect_not_strict(b.data, "deeper than 10");
    tg_buf_free(&b);
}

/* A type-less enum or const inside anyOf gets the type of its values (strict mode wants one). */
static void test_strict_enum_type(void)
{
    tg_openai_mode mode;
    cJSON *t = strict_of("{\"type\":\"object\",\"required\":[\"r\"],\"properties\":{"
                         "\"i\":{\"enum\":[1,2,3]},"
                         "\"n\":{\"enum\":[1,2.5]},"
                         "\"b\":{\"const\":true},"
                         "\"r\":{\"anyOf\":[{\"enum\":[\"a\",null]},{\"type\":\"integer\"}]}}}",
                         &mode);
    CHECK(t && mode.strict, "enum types: %s", mode.reason);
    char *out = t ? tg_json_print_compact(t) : NULL;
    CHECK_CONTAINS(out, "\"i\":{\"anyOf\":[{\"type\":\"integer\",\"enum\":[1,2,3]}");
    CHECK_CONTAINS(out, "\"n\":{\"anyOf\":[{\"type\":\"number\",\"enum\":[1,2.5]}");
    CHECK_CONTAINS(out, "\"b\":{\"anyOf\":[{\"type\":\"boolean\",\"const\":true}");
    CHECK_CONTAINS(out, "\"r\":{\"anyOf\":[{\"type\":[\"string\",\"null\"],\"enum\":[\"a\",null]}");
    free(out);
    cJSON_Delete(t);
    /* values of two types have no single type: no strict form */
    expect_not_strict("{\"type\":\"object\",\"properties\":{\"m\":{\"enum\":[\"a\",1]}}}",
                      "several types");
}

/* The 1024-character description of m once its docs.prerequisites is text. */
static char *budget_with_prerequisites(tg_manifest *m, cJSON *docs, const char *text)
{
    cJSON_ReplaceItemInObjectCaseSensitive(docs, "prerequisites", cJSON_CreateString(text));
    tg_manifest_bind(m);
    return tg_emit_description_max(m, 1024);
}

/* An OpenAI description over budget keeps every section, each shortened to its share. */
static void test_description_budget(void)
{
    tg_buf long_text = TG_BUF_INIT;
    for (int i = 0; i < 40; i++)
        tg_buf_printf(&long_text, "Sentence number %d says something. ", i);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "name", "budget_tool");
    cJSON_AddStringToObject(root, "description", "Does one thing.");
    cJSON *docs = cJSON_AddObjectToObject(root, "docs");
    cJSON_AddStringToObject(docs, "when_to_use", "When asked.");
    cJSON_AddStringToObject(docs, "when_not_to_use", long_text.data);
    cJSON_AddStringToObject(docs, "what_it_does", long_text.data);
    cJSON_AddStringToObject(docs, "returns", "A number.");
    cJSON_AddStringToObject(docs, "prerequisites", long_text.data);
    tg_manifest m = {0};
    m.doc.root = root;
    m.doc.file = xstrdup("budget.yaml");
    tg_manifest_bind(&m);
    char *full = tg_emit_description(&m), *cut = tg_emit_description_max(&m, 1024);
    CHECK(utf8_chars(full) > 1024, "the test text should be too long (%zu)", utf8_chars(full));
    CHECK(utf8_chars(cut) <= 1024, "cut description has %zu characters", utf8_chars(cut));
    CHECK(utf8_chars(cut) > 990, "the budget is used (%zu characters)", utf8_chars(cut));
    CHECK(tg_str_startswith(cut, "Does one thing.\n\nWHEN TO USE:\nWhen asked.\n\n"),
          "summary and short section whole: %s", cut);
    static const char *const heads[] = {"WHEN TO USE:", "WHEN NOT TO USE:", "WHAT IT DOES:",
                                        "RETURNS:\nA number.", "PREREQUISITES:", NULL};
    for (int i = 0; heads[i]; i++)
        CHECK_CONTAINS(cut, heads[i]);
    /* long sections are cut after a whole sentence */
    CHECK_CONTAINS(cut, "something.\n\nWHAT IT DOES:\nSentence number 0");
    CHECK(tg_str_endswith(cut, "something."), "ends inside a sentence: %s", cut);
    /* a text without sentence ends is cut at a word, marked with ... */
    free(cut);
    tg_buf words = TG_BUF_INIT;
    for (int i = 0; i < 300; i++)
        tg_buf_puts(&words, "word ");
    cut = budget_with_prerequisites(&m, docs, words.data);
    CHECK(utf8_chars(cut) <= 1024 && tg_str_endswith(cut, "word..."), "word cut: %s", cut);
    /* the budget counts characters, and a cut never splits one (not even without spaces) */
    free(cut);
    tg_buf wide = TG_BUF_INIT;
    for (int i = 0; i < 600; i++)
        tg_buf_puts(&wide, "\xc3\xa9");
    cut = budget_with_prerequisites(&m, docs, wide.data);
    CHECK(utf8_chars(cut) <= 1024, "wide: %zu characters", utf8_chars(cut));
    CHECK_CONTAINS(cut, "PREREQUISITES:\n\xc3\xa9\xc3\xa9");
    tg_err e = {0};
    CHECK(tg_utf8_validate(cut, strlen(cut), &e) == 0, "a cut split a character: %s", e.msg);
    /* a blank section costs its heading only */
    free(cut);
    cut = budget_with_prerequisites(&m, docs, "   ");
    CHECK(utf8_chars(cut) <= 1024 && tg_str_endswith(cut, "PREREQUISITES:\n"), "blank: %s", cut);
    /* a one-line description that leaves no room: the last sections go first */
    free(cut);
    tg_buf summary = TG_BUF_INIT;
    for (int i = 0; i < 192; i++)
        tg_buf_puts(&summary, "long ");
    cJSON_ReplaceItemInObjectCaseSensitive(root, "description", cJSON_CreateString(summary.data));
    cut = budget_with_prerequisites(&m, docs, "Needs a file.");
    CHECK(utf8_chars(cut) <= 1024, "long summary: %zu characters", utf8_chars(cut));
    CHECK(!strncmp(cut, summary.data, summary.len - 1) && cut[summary.len - 1] == '\n',
          "the one-line description stays whole");
    CHECK_CONTAINS(cut, "\n\nWHEN TO USE:\nWhen asked.");
    CHECK(!strstr(cut, "PREREQUISITES:") && !strstr(cut, "RETURNS:"),
          "the last sections are dropped first: %s", cut);
    tg_buf_free(&summary);
    free(cut);
    free(full);
    tg_buf_free(&wide);
    tg_buf_free(&words);
    tg_buf_free(&long_text);
    tg_manifest_free(&m);
}

/* MCP: the text content carries the serialised JSON; the summary stays as a block before it. */
static void test_call_result(void)
{
    cJSON *out = fixture_json("{\"n\":2,\"chart\":\"c.png\",\"summary_markdown\":\"## Two\\n\\n"
                              "![chart](c.png) and [data](./d.csv)\"}");
    cJSON *r = tg_emit_call_result(out);
    const cJSON *content = tg_json_get(r, "content");
    char *json = tg_json_print_compact(out);
    CHECK(cJSON_GetArraySize(content) == 2, "two text blocks, got %d",
          cJSON_GetArraySize(content));
    CHECK(!strcmp(str(tg_json_get_string(cJSON_GetArrayItem(content, 0), "text")),
                  "## Two\n\n![chart](c.png) and [data](./d.csv)"),
          "first block: the summary");
    CHECK(!strcmp(str(tg_json_get_string(cJSON_GetArrayItem(content, 1), "text")), json),
          "second block: the serialised structuredContent");
    cJSON_Delete(r);
    cJSON *plain = fixture_json("{\"n\":2}");
    r = tg_emit_call_result(plain);
    content = tg_json_get(r, "content");
    CHECK(cJSON_GetArraySize(content) == 1 &&
              !strcmp(str(tg_json_get_string(cJSON_GetArrayItem(content, 0), "text")),
                      "{\"n\":2}"),
          "without a summary: one JSON block");
    cJSON_Delete(r);
    cJSON_Delete(plain);

    /* artifacts handed out under a base: links in the summary point there, one resource_link
     * each; structuredContent and its JSON stay the tool's own values (outputSchema) */
    const char *paths[] = {"c.png", "d.csv"};
    tg_emit_artifacts a = {paths, 2, "toolgen://artifacts/call-1/"};
    r = tg_emit_call_result_for(out, &a);
    content = tg_json_get(r, "content");
    CHECK(cJSON_GetArraySize(content) == 4, "summary, JSON, two links: %d",
          cJSON_GetArraySize(content));
    CHECK(!strcmp(str(tg_json_get_string(cJSON_GetArrayItem(content, 0), "text")),
                  "## Two\n\n![chart](toolgen://artifacts/call-1/c.png) and "
                  "[data](toolgen://artifacts/call-1/d.csv)"),
          "summary relinked: %s", tg_json_get_string(cJSON_GetArrayItem(content, 0), "text"));
    CHECK(!strcmp(str(tg_json_get_string(cJSON_GetArrayItem(content, 1), "text")), json),
          "JSON block unchanged");
    const cJSON *link = cJSON_GetArrayItem(content, 2);
    CHECK(!strcmp(str(tg_json_get_string(link, "type")), "resource_link") &&
              !strcmp(str(tg_json_get_string(link, "uri")), "toolgen://artifacts/call-1/c.png") &&
              !strcmp(str(tg_json_get_string(link, "name")), "c.png") &&
              !strcmp(str(tg_json_get_string(link, "mimeType")), "image/png"),
          "resource_link of c.png");
    CHECK(!strcmp(str(tg_json_get_string(tg_json_get(r, "structuredContent"), "chart")),
                  "c.png"),
          "structuredContent keeps the tool's value");
    cJSON_Delete(r);
    free(json);
    cJSON_Delete(out);
}

/* Artifact references: exact names and Markdown targets only, anything else untouched. */
static void test_artifact_relink(void)
{
    const char *paths[] = {"bar_chart.png", "sub/data.csv"};
    tg_emit_artifacts a = {paths, 2, "out dir"};
    cJSON *res = fixture_json(
        "{\"chart_file\":\"bar_chart.png\",\"nested\":[{\"f\":\"./sub/data.csv\"}],"
        "\"other\":\"bar_chart.png is mentioned\",\"bar_chart.png\":1,\"n\":3,"
        "\"md\":\"![c](bar_chart.png \\\"t\\\") [d](<sub/data.csv>) [x](other.png) ](\"}");
    cJSON *r = tg_emit_artifact_relink(res, &a);
    char *out = tg_json_print_compact(r);
    CHECK(!strcmp(out, "{\"chart_file\":\"out dir/bar_chart.png\",\"nested\":[{\"f\":"
                       "\"out dir/sub/data.csv\"}],\"other\":\"bar_chart.png is mentioned\","
                       "\"bar_chart.png\":1,\"n\":3,\"md\":\"![c](<out dir/bar_chart.png> "
                       "\\\"t\\\") [d](<out dir/sub/data.csv>) [x](other.png) ](\"}"),
          "relinked: %s", out);
    free(out);
    cJSON_Delete(r);
    /* no base: a plain copy */
    a.base = NULL;
    r = tg_emit_artifact_relink(res, &a);
    CHECK(cJSON_Compare(r, res, true), "without a base nothing changes");
    cJSON_Delete(r);
    cJSON_Delete(res);
    char *ref = tg_emit_artifact_ref("out", "./x.png");
    CHECK(!strcmp(ref, "out/x.png"), "ref: %s", ref);
    free(ref);
    CHECK(!strcmp(tg_emit_artifact_mime("a/b.csv"), "text/csv"), "mime csv");
}

/* x-toolgen-* keywords go wherever a subschema can be; property names and values stay. */
static void test_client_schema(void)
{
    cJSON *s = fixture_json(
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"urn:x\","
        "\"type\":\"object\",\"x-toolgen-root\":1,\"properties\":{"
        "\"x-toolgen-name\":{\"type\":\"string\",\"x-toolgen-path\":\"read\","
        "\"enum\":[{\"x-toolgen-value\":1}],\"default\":{\"x-toolgen-d\":2}},"
        "\"l\":{\"type\":\"array\",\"items\":{\"x-toolgen-i\":true},"
        "\"anyOf\":[{\"x-toolgen-a\":0}]}},"
        "\"$defs\":{\"d\":{\"not\":{\"x-toolgen-n\":0}}}}");
    cJSON *c = tg_emit_client_schema(s);
    char *out = tg_json_print_compact(c);
    CHECK(!strcmp(out, "{\"type\":\"object\",\"properties\":{\"x-toolgen-name\":{\"type\":"
                       "\"string\",\"enum\":[{\"x-toolgen-value\":1}],\"default\":{"
                       "\"x-toolgen-d\":2}},\"l\":{\"type\":\"array\",\"items\":{},"
                       "\"anyOf\":[{}]}},\"$defs\":{\"d\":{\"not\":{}}}}"),
          "client schema: %s", out);
    free(out);
    cJSON_Delete(c);
    /* MCP keeps the dialect the manifest names (docs/emit.md, "mcp.tool.json"); $id still goes */
    c = tg_emit_mcp_schema(s);
    CHECK_CONTAINS(tg_json_get_string(c, "$schema"), "draft/2020-12/schema");
    CHECK(!cJSON_GetObjectItemCaseSensitive(c, "$id"), "mcp schema keeps no $id");
    CHECK(!cJSON_GetObjectItemCaseSensitive(c, "x-toolgen-root"), "mcp schema: private keyword");
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "$defs")), "mcp schema: $defs");
    cJSON_Delete(c);
    cJSON_Delete(s);
}

static void test_drop_nulls(void)
{
    cJSON *s = fixture_json("{\"type\":\"object\",\"required\":[\"a\",\"n\"],\"properties\":{"
                            "\"a\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":"
                            "\"string\"}}},"
                            "\"n\":{\"type\":[\"string\",\"null\"]},\"o\":{\"type\":\"integer\"}}}");
    cJSON *args = fixture_json("{\"a\":{\"x\":null},\"n\":null,\"o\":null}");
    tg_emit_openai_drop_nulls(s, args);
    char *out = tg_json_print_compact(args);
    /* optional nulls go (also nested); a required property's null is a real value */
    CHECK(!strcmp(out, "{\"a\":{},\"n\":null}"), "drop_nulls gave %s", out);
    free(out);
    cJSON_Delete(args);
    cJSON_Delete(s);
}

/* ---- the example manifests ------------------------------------------------------------------ */

typedef struct mcp_schemas {
    js_registry *reg;
    js_schema *tool, *list, *call_req, *call_res, *rpc_res;
} mcp_schemas;

static bool mcp_open(mcp_schemas *m)
{
    *m = (mcp_schemas){0};
    const char *dir = getenv("TESTDATA_DIR");
    char *path = xasprintf("%s/mcp-schema/2025-11-25/schema.json",
                           dir && *dir ? dir : "tests/testdata");
    tg_doc doc = {0};
    tg_err err = {0};
    SETUP(tg_doc_load(path, NULL, &doc, &err) == 0, "cannot load the MCP schema %s: %s", path,
          err.msg);
    free(path);
    m->reg = js_registry_new();
    SETUP(js_registry_add_metaschemas(m->reg, &err) == 0, "metaschemas: %s", err.msg);
    SETUP(js_registry_add_document(m->reg, MCP_URI, doc.root, &err) == 0, "add: %s", err.msg);
    tg_doc_free(&doc);
    m->tool = mcp_def(m->reg, "Tool");
    m->list = mcp_def(m->reg, "ListToolsResult");
    m->call_req = mcp_def(m->reg, "CallToolRequest");
    m->call_res = mcp_def(m->reg, "CallToolResult");
    m->rpc_res = mcp_def(m->reg, "JSONRPCResultResponse");
    return m->tool && m->list && m->call_req && m->call_res && m->rpc_res;
}

static void mcp_close(mcp_schemas *m)
{
    js_schema_free(m->tool);
    js_schema_free(m->list);
    js_schema_free(m->call_req);
    js_schema_free(m->call_res);
    js_schema_free(m->rpc_res);
    js_registry_free(m->reg);
}

/* Host facts that must never leak into generated/: the working directory and today's date. */
static void check_clean(const tg_emit_file *f)
{
    char cwd[4096], today[16];
    time_t now = time(NULL);
    strftime(today, sizeof today, "%Y-%m-%d", gmtime(&now));
    CHECK(f->path[0] != '/' && !strstr(f->path, ".."), "bad path %s", f->path);
    if (getcwd(cwd, sizeof cwd))
        CHECK(!strstr(f->data, cwd), "%s contains the working directory", f->path);
    CHECK(!strstr(f->data, today), "%s contains today's date", f->path);
    CHECK(f->len > 0 && f->data[f->len - 1] == '\n', "%s lacks a final newline", f->path);
    CHECK(strlen(f->data) == f->len, "%s: length mismatch", f->path);
}

/* JSON files are printed canonically: parse + print gives the same bytes. */
static void check_json_file(const tg_emit_file *f)
{
    if (!tg_str_endswith(f->path, ".json"))
        return;
    cJSON *v = parse_json(f->data);
    char *again = v ? tg_json_print(v) : NULL;
    CHECK(again && !strcmp(again, f->data), "%s is not in canonical form", f->path);
    free(again);
    cJSON_Delete(v);
}

/* Fill every optional argument left out with null, as a strict-mode model would send it. */
static cJSON *as_strict_call(const cJSON *schema, const cJSON *input)
{
    cJSON *a = cJSON_Duplicate(input, true);
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(schema, "properties"))
    {
        if (!tg_json_get(a, p->string))
            cJSON_AddNullToObject(a, p->string);
    }
    return a;
}

static void check_openai(const tg_manifest *m, const tg_emit_files *f, js_registry *reg)
{
    char *path = xasprintf("%s/openai.json", m->name);
    cJSON *o = parse_json(file_data(f, path));
    free(path);
    const cJSON *fn = tg_json_get(o, "function");
    CHECK(!strcmp(tg_json_get_string(o, "type") ? tg_json_get_string(o, "type") : "", "function"),
          "openai type");
    CHECK(tg_json_get_string(fn, "name") && !strcmp(tg_json_get_string(fn, "name"), m->name),
          "openai name");
    const char *desc = tg_json_get_string(fn, "description");
    CHECK(desc && utf8_chars(desc) <= 1024 && tg_str_startswith(desc, m->description),
          "%s: OpenAI description over 1024 characters or without the summary", m->name);
    /* every section of the full description is there, shortened if need be */
    char *full = tg_emit_description(m);
    static const char *const heads[] = {"\n\nWHEN TO USE:\n", "\n\nWHEN NOT TO USE:\n",
                                        "\n\nWHAT IT DOES:\n", "\n\nRETURNS:\n",
                                        "\n\nPREREQUISITES:\n", NULL};
    for (int i = 0; heads[i]; i++)
        if (strstr(full, heads[i]))
            CHECK(desc && strstr(desc, heads[i]), "%s: OpenAI description lacks %s", m->name,
                  heads[i] + 2);
    free(full);
    tg_openai_mode mode = tg_emit_openai_mode(m);
    CHECK(cJSON_IsBool(tg_json_get(fn, "strict")) &&
              cJSON_IsTrue(tg_json_get(fn, "strict")) == mode.strict,
          "%s: strict flag disagrees with tg_emit_openai_mode", m->name);
    CHECK(mode.strict == !mode.reason[0], "%s: reason iff not strict", m->name);
    const cJSON *params = tg_json_get(fn, "parameters");
    if (mode.strict) {
        const char *why = strict_violation(params, 0, true);
        CHECK(why == NULL, "%s: strict parameters break the rules: %s", m->name, why);
        /* Round trip: each example, sent the strict way, fits the strict schema and comes back
         * to the original arguments once the nulls are dropped. */
        js_schema *ps = compile(reg, params);
        const cJSON *ex;
        cJSON_ArrayForEach(ex, m->examples)
        {
            cJSON *call = as_strict_call(params, tg_json_get(ex, "input"));
            expect_valid(ps, call, "strict call of an example");
            tg_emit_openai_drop_nulls(m->input_schema, call);
            char *a = tg_json_print(call), *b = tg_json_print(tg_json_get(ex, "input"));
            CHECK(!strcmp(a, b), "%s: drop_nulls did not restore the input", m->name);
            free(a);
            free(b);
            cJSON_Delete(call);
        }
        js_schema_free(ps);
    }
    cJSON_Delete(o);
}

/* The Responses API shape: flat, the same members as the Chat Completions one, and the output
 * schema of the JSON text toolgen returns as the call's output. */
static void check_responses(const tg_manifest *m, const tg_emit_files *f)
{
    char *cpath = xasprintf("%s/openai.json", m->name);
    char *rpath = xasprintf("%s/openai.responses.json", m->name);
    cJSON *chat = parse_json(file_data(f, cpath)), *resp = parse_json(file_data(f, rpath));
    const cJSON *fn = tg_json_get(chat, "function");
    CHECK(!strcmp(str(tg_json_get_string(resp, "type")), "function") &&
              !tg_json_get(resp, "function"),
          "%s: not the flat shape", rpath);
    static const char *const same[] = {"name", "description", "parameters", "strict", NULL};
    for (int i = 0; same[i]; i++)
        CHECK(cJSON_Compare(tg_json_get(resp, same[i]), tg_json_get(fn, same[i]), true),
              "%s: %s differs from the Chat Completions tool", rpath, same[i]);
    cJSON *os = tg_emit_client_schema(m->output_schema);
    CHECK(cJSON_Compare(tg_json_get(resp, "output_schema"), os, true),
          "%s: output_schema is not the client output schema", rpath);
    cJSON_Delete(os);
    cJSON_Delete(chat);
    cJSON_Delete(resp);
    free(cpath);
    free(rpath);
}

static void check_golden(const tg_manifest *m, const tg_emit_files *f, const mcp_schemas *mcp,
                         js_schema *in, js_schema *out)
{
    const cJSON *ex;
    cJSON_ArrayForEach(ex, m->examples)
    {
        const char *name = tg_json_get_string(ex, "name");
        char *rq = xasprintf("%s/golden/%s.request.json", m->name, name);
        char *rs = xasprintf("%s/golden/%s.response.json", m->name, name);
        cJSON *req = parse_json(file_data(f, rq)), *res = parse_json(file_data(f, rs));
        expect_valid(mcp->call_req, req, rq);
        expect_valid(mcp->rpc_res, res, rs);
        const cJSON *result = tg_json_get(res, "result");
        expect_valid(mcp->call_res, result, rs);
        expect_valid(in, tg_json_get(tg_json_get(req, "params"), "arguments"), rq);
        expect_valid(out, tg_json_get(result, "structuredContent"), rs);
        CHECK(cJSON_IsFalse(tg_json_get(result, "isError")), "%s: isError", rs);
        const char *md = tg_json_get_string(tg_json_get(ex, "output"), "summary_markdown");
        const char *text =
            tg_json_get_string(cJSON_GetArrayItem(tg_json_get(result, "content"), 0), "text");
        if (md)
            CHECK(text && !strcmp(text, md), "%s: text content is not summary_markdown", rs);
        /* the last text block is the serialised structuredContent (MCP 2025-06-18 and later) */
        const cJSON *content = tg_json_get(result, "content");
        char *json = tg_json_print_compact(tg_json_get(result, "structuredContent"));
        const cJSON *last_block = cJSON_GetArrayItem(content, cJSON_GetArraySize(content) - 1);
        const char *last = tg_json_get_string(last_block, "text");
        CHECK(last && !strcmp(last, json), "%s: no text block holds the serialised JSON", rs);
        free(json);
        free(rq);
        free(rs);
        cJSON_Delete(req);
        cJSON_Delete(res);
    }
}

static js_schema *contract(const tg_manifest *m, const tg_emit_files *f, js_registry *reg,
                           const char *which)
{
    char *path = xasprintf("%s/%s.schema.json", m->name, which);
    cJSON *s = parse_json(file_data(f, path));
    char *id = xasprintf("urn:toolgen:%s:%s", m->name, which);
    CHECK(!strcmp(tg_json_get_string(s, "$id") ? tg_json_get_string(s, "$id") : "", id),
          "%s: $id", path);
    CHECK(!strcmp(tg_json_get_string(s, "$schema") ? tg_json_get_string(s, "$schema") : "",
                  "https://json-schema.org/draft/2020-12/schema"),
          "%s: $schema", path);
    tg_err err = {0};
    CHECK(js_schema_check_meta(reg, s, NULL, &err) == 1, "%s fails the meta-schema", path);
    js_schema *c = compile(reg, s);
    free(id);
    free(path);
    cJSON_Delete(s);
    return c;
}

static void check_tool(const tg_manifest *m, const mcp_schemas *mcp)
{
    tg_emit_files a = {0}, b = {0};
    tg_err err = {0};
    CHECK(tg_emit_tool(m, &a, &err) == 0, "%s: %s", m->name, err.msg);
    CHECK(tg_emit_tool(m, &b, &err) == 0, "%s: %s", m->name, err.msg);
    CHECK(files_equal(&a, &b), "%s: two emissions differ", m->name);
    CHECK(a.n == 6 + 2 * (size_t)cJSON_GetArraySize(m->examples), "%s: %zu files", m->name, a.n);
    for (size_t i = 0; i < a.n; i++) {
        char *prefix = xasprintf("%s/", m->name);
        CHECK(tg_str_startswith(a.v[i].path, prefix), "%s outside its folder", a.v[i].path);
        free(prefix);
        check_clean(&a.v[i]);
        check_json_file(&a.v[i]);
    }
    char *path = xasprintf("%s/mcp.tool.json", m->name);
    const char *tool_text = file_data(&a, path);
    cJSON *tool = parse_json(tool_text);
    expect_valid(mcp->tool, tool, path);
    CHECK(tool_text && !strstr(tool_text, "x-toolgen-"), "%s: x-toolgen-* not stripped", path);
    const cJSON *ann = tg_json_get(tool, "annotations");
    CHECK(cJSON_IsTrue(tg_json_get(ann, "readOnlyHint")) == tg_emit_read_only(m), "readOnlyHint");
    CHECK(cJSON_IsTrue(tg_json_get(ann, "openWorldHint")) == tg_emit_network(m), "openWorldHint");
    CHECK(cJSON_IsFalse(tg_json_get(ann, "destructiveHint")), "%s: destructiveHint", m->name);
    CHECK_CONTAINS(tg_json_get_string(tool, "description"), "\n\nWHEN TO USE:\n");
    CHECK_CONTAINS(tg_json_get_string(tool, "description"), "\n\nPREREQUISITES:\n");
    free(path);
    cJSON_Delete(tool);
    path = xasprintf("%s/anthropic.json", m->name);
    cJSON *an = parse_json(file_data(&a, path));
    CHECK(cJSON_IsObject(tg_json_get(an, "input_schema")) && tg_json_get_string(an, "name") &&
              tg_json_get_string(an, "description"),
          "%s: anthropic shape", m->name);
    CHECK(!strstr(file_data(&a, path), "x-toolgen-"), "%s: x-toolgen-* not stripped", path);
    free(path);
    check_openai(m, &a, mcp->reg);
    check_responses(m, &a);
    js_schema *in = contract(m, &a, mcp->reg, "input"), *out = contract(m, &a, mcp->reg, "output");
    /* Anthropic's input_examples: every example's input, each one a valid call */
    const cJSON *ie = tg_json_get(an, "input_examples"), *ex;
    CHECK(cJSON_GetArraySize(ie) == cJSON_GetArraySize(m->examples), "%s: input_examples",
          m->name);
    int k = 0;
    cJSON_ArrayForEach(ex, m->examples)
    {
        const cJSON *got = cJSON_GetArrayItem(ie, k++);
        CHECK(got && cJSON_Compare(got, tg_json_get(ex, "input"), true),
              "%s: input_examples[%d] is not the example's input", m->name, k - 1);
        expect_valid(in, got, "an Anthropic input example");
    }
    cJSON_Delete(an);
    check_golden(m, &a, mcp, in, out);
    js_schema_free(in);
    js_schema_free(out);
    tg_emit_files_free(&a);
    tg_emit_files_free(&b);
}

static void check_tables(const char *md, const char *what);

/* ---- SKILL.md ------------------------------------------------------------------------------- */

static size_t lines_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Front matter parsed by toolgen's YAML loader: name = folder, description < 1024 chars. */
static const char *check_front_matter(const char *md, const char *folder)
{
    CHECK(tg_str_startswith(md, "---\n"), "SKILL.md must start with front matter");
    const char *end = strstr(md + 4, "\n---\n");
    CHECK(end != NULL, "front matter is not closed");
    if (!end)
        return md;
    tg_doc doc = {0};
    tg_err err = {0};
    CHECK(tg_doc_parse_yaml(md + 4, (size_t)(end + 1 - (md + 4)), "SKILL.md", NULL, &doc,
                            &err) == 0,
          "front matter YAML: %s", err.msg);
    const char *name = tg_json_get_string(doc.root, "name");
    const char *desc = tg_json_get_string(doc.root, "description");
    CHECK(name && !strcmp(name, folder), "name %s != folder %s", name ? name : "(none)", folder);
    CHECK(desc && *desc && utf8_chars(desc) < 1024, "description length %zu",
          desc ? utf8_chars(desc) : 0);
    const char *compat = tg_json_get_string(doc.root, "compatibility");
    CHECK(!compat || utf8_chars(compat) <= 500, "compatibility too long");
    tg_doc_free(&doc);
    return end + 5;
}

static void check_skill_tool(const char *body, const tg_manifest *m, bool full)
{
    char *head = xasprintf("\n### `%s`\n", m->name);
    const char *sec = strstr(body, head);
    CHECK(sec != NULL, "no section for %s", m->name);
    free(head);
    if (!sec)
        return;
    const char *next = strstr(sec + 1, "\n## ");
    const char *next_tool = strstr(sec + 1, "\n### ");
    if (next_tool && (!next || next_tool < next))
        next = next_tool;
    size_t len = next ? (size_t)(next - sec) : strlen(sec);
    char *s = xstrndup(sec, len);
    /* the generic call, pretty (full form) or on one line (compact forms), and the MCP one */
    char *generic = xasprintf("\"tool\": \"%s\",\n  \"input\": {", m->name);
    char *line = xasprintf("{\"tool\":\"%s\",\"input\":{", m->name);
    char *mcp = xasprintf("\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"", m->name);
    CHECK(strstr(s, generic) || strstr(s, line), "no generic example for %s", m->name);
    CHECK_CONTAINS(s, mcp);
    CHECK_CONTAINS(s, "Risk: ");
    if (full)
        CHECK_CONTAINS(s, "**required**");
    free(generic);
    free(line);
    free(mcp);
    free(s);
}

static void check_skill(const tg_emit_files *f, const tg_manifest *const *ms, size_t n,
                        const char *folder)
{
    char *path = xasprintf("skill/%s/SKILL.md", folder);
    const char *md = file_data(f, path);
    free(path);
    if (!md)
        return;
    const char *body = check_front_matter(md, folder);
    CHECK(lines_of(body) < 500, "SKILL.md body has %zu lines", lines_of(body));
    check_tables(md, "SKILL.md");
    for (size_t i = 0; i < f->n; i++)
        if (tg_str_endswith(f->v[i].path, ".md"))
            check_tables(f->v[i].data, f->v[i].path);
    for (size_t i = 0; i < n; i++) {
        check_skill_tool(body, ms[i], true);
        char *ref = xasprintf("skill/%s/references/%s.md", folder, ms[i]->name);
        CHECK(tg_emit_files_find(f, ref) != NULL, "missing %s", ref);
        free(ref);
        ref = xasprintf("(references/%s.md)", ms[i]->name);
        CHECK_CONTAINS(body, ref);
        free(ref);
        /* a tool that writes files says where a client finds them */
        const char **files;
        size_t nf = tg_emit_artifact_names(ms[i], &files);
        if (nf) {
            char *copy = xasprintf("`DIR/%s`", files[0]);
            char *ref_path = xasprintf("skill/%s/references/%s.md", folder, ms[i]->name);
            const char *ref_md = file_data(f, ref_path);
            CHECK_CONTAINS(body, copy);
            CHECK_CONTAINS(ref_md, "| Files | It writes ");
            CHECK_CONTAINS(ref_md, copy);
            free(ref_path);
            free(copy);
        }
        free(files);
    }
    for (size_t i = 0; i < TG_ERRCODE_COUNT; i++)
        CHECK_CONTAINS(body, tg_errcode_name((tg_errcode)i));
    static const char *const sections[] = {
        "## What this skill does", "## When to use it", "## When not to use it", "## Tools",
        "## Failure modes and error codes", "## Safety and constraints", "## Operational notes",
        "toolgen serve", "READ_ONLY=1", NULL};
    for (int i = 0; sections[i]; i++)
        CHECK_CONTAINS(body, sections[i]);
}

/* ---- repository-wide ------------------------------------------------------------------------ */

static void check_aggregate(tg_manifest *ms, size_t n, const mcp_schemas *mcp)
{
    const tg_manifest **fwd = xcalloc(n ? n : 1, sizeof *fwd);
    const tg_manifest **rev = xcalloc(n ? n : 1, sizeof *rev);
    for (size_t i = 0; i < n; i++) {
        fwd[i] = &ms[i];
        rev[n - 1 - i] = &ms[i];
    }
    tg_project_info repo = {.name = "toolgen-examples", .version = "1.0.0",
                           .description = "Example data-analysis tools of the toolgen repository."};
    tg_emit_files a = {0}, b = {0};
    tg_err err = {0};
    CHECK(tg_emit_aggregate(fwd, n, &repo, &a, &err) == 0, "aggregate: %s", err.msg);
    CHECK(tg_emit_aggregate(rev, n, &repo, &b, &err) == 0, "aggregate: %s", err.msg);
    CHECK(files_equal(&a, &b), "aggregate depends on the order of the manifests");
    for (size_t i = 0; i < a.n; i++) {
        check_clean(&a.v[i]);
        check_json_file(&a.v[i]);
    }
    const char *text = file_data(&a, "mcp/tools.json");
    cJSON *list = parse_json(text);
    expect_valid(mcp->list, list, "mcp/tools.json");
    CHECK(text && !strstr(text, "x-toolgen-"), "tools.json: x-toolgen-* not stripped");
    const cJSON *t, *prev = NULL;
    size_t count = 0;
    cJSON_ArrayForEach(t, tg_json_get(list, "tools"))
    {
        if (prev)
            CHECK(strcmp(str(tg_json_get_string(prev, "name")),
                         str(tg_json_get_string(t, "name"))) < 0,
                  "tools.json is not sorted by name");
        prev = t;
        count++;
    }
    CHECK(count == n, "tools.json has %zu tools, want %zu", count, n);
    cJSON_Delete(list);

    static const char *const adapters[] = {"adapters/openai.tools.json",
                                           "adapters/openai.responses.tools.json",
                                           "adapters/anthropic.tools.json", NULL};
    for (int i = 0; adapters[i]; i++) {
        cJSON *arr = parse_json(file_data(&a, adapters[i]));
        CHECK(cJSON_IsArray(arr) && (size_t)cJSON_GetArraySize(arr) == n, "%s size", adapters[i]);
        cJSON_Delete(arr);
    }

    cJSON *bundle = parse_json(file_data(&a, "mcp/manifest.json"));
    const cJSON *cfg = tg_json_get(tg_json_get(bundle, "server"), "mcp_config");
    CHECK(!strcmp(str(tg_json_get_string(bundle, "manifest_version")), "0.4"), "manifest_version");
    CHECK(!strcmp(str(tg_json_get_string(bundle, "name")), "toolgen-examples"), "bundle name");
    CHECK(!strcmp(str(tg_json_get_string(cfg, "command")), "toolgen"), "bundle command");
    bool serve = false;
    cJSON_ArrayForEach(t, tg_json_get(cfg, "args"))
    {
        serve |= cJSON_IsString(t) && !strcmp(t->valuestring, "serve");
    }
    CHECK(serve, "bundle args lack serve");
    CHECK(cJSON_GetArraySize(tg_json_get(bundle, "tools")) == (int)n, "bundle tools");
    cJSON_Delete(bundle);

    const tg_manifest **sorted = xcalloc(n ? n : 1, sizeof *sorted);
    memcpy(sorted, fwd, n * sizeof *sorted);
    for (size_t i = 1; i < n; i++) /* insertion sort: n is tiny */
        for (size_t j = i; j > 0 && strcmp(sorted[j - 1]->name, sorted[j]->name) > 0; j--) {
            const tg_manifest *x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
        }
    check_skill(&a, sorted, n, "toolgen-examples");
    free(sorted);

    /* refused: a bad skill name, a duplicate tool */
    tg_emit_files c = {0};
    tg_project_info bad = {.name = "Toolgen_Examples", .version = "1.0.0"};
    CHECK(tg_emit_aggregate(fwd, n, &bad, &c, &err) != 0 && c.n == 0, "bad name accepted");
    CHECK_CONTAINS(err.msg, "not a valid skill name");
    if (n) {
        const tg_manifest *dup[2] = {fwd[0], fwd[0]};
        CHECK(tg_emit_aggregate(dup, 2, &repo, &c, &err) != 0 && c.n == 0, "duplicate accepted");
        CHECK_CONTAINS(err.msg, "used by two manifests");
    }
    tg_emit_files_free(&a);
    tg_emit_files_free(&b);
    free(fwd);
    free(rev);
}

/* Many tools: SKILL.md switches to its compact form to stay under 500 lines. */
static void check_many_tools(const tg_manifest *model)
{
    enum { N = 24 };
    tg_manifest ms[N];
    const tg_manifest *pm[N];
    for (int i = 0; i < N; i++) {
        ms[i] = (tg_manifest){0};
        ms[i].doc.root = cJSON_Duplicate(model->doc.root, true);
        ms[i].doc.file = xstrdup("synthetic.yaml");
        char name[32];
        snprintf(name, sizeof name, "tool_%02d", i);
        cJSON_ReplaceItemInObjectCaseSensitive(ms[i].doc.root, "name", cJSON_CreateString(name));
        tg_manifest_bind(&ms[i]);
        pm[i] = &ms[i];
    }
    tg_project_info repo = {.name = "many-tools", .version = "0.1.0", .author = "tests"};
    tg_emit_files f = {0};
    tg_err err = {0};
    CHECK(tg_emit_aggregate(pm, N, &repo, &f, &err) == 0, "many: %s", err.msg);
    const char *md = file_data(&f, "skill/many-tools/SKILL.md");
    if (md) {
        const char *body = check_front_matter(md, "many-tools");
        CHECK(lines_of(body) < 500, "compact SKILL.md body has %zu lines", lines_of(body));
        for (int i = 0; i < N; i++)
            check_skill_tool(body, &ms[i], false);
    }
    tg_emit_files_free(&f);
    for (int i = 0; i < N; i++)
        tg_manifest_free(&ms[i]);
}

/* A name that would leave the output folder is refused, and nothing is emitted. */
static void check_bad_names(const tg_manifest *model)
{
    tg_manifest m = {0};
    m.doc.root = cJSON_Duplicate(model->doc.root, true);
    m.doc.file = xstrdup("bad.yaml");
    cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m.doc.root, "examples"), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(ex, "name", cJSON_CreateString("../../etc"));
    tg_manifest_bind(&m);
    tg_emit_files f = {0};
    tg_err err = {0};
    CHECK(tg_emit_tool(&m, &f, &err) != 0 && f.n == 0, "example name ../../etc accepted");
    CHECK_CONTAINS(err.msg, "/examples/0");
    cJSON_ReplaceItemInObjectCaseSensitive(m.doc.root, "name", cJSON_CreateString("a/b"));
    tg_manifest_bind(&m);
    CHECK(tg_emit_tool(&m, &f, &err) != 0 && f.n == 0, "tool name a/b accepted");
    CHECK_CONTAINS(err.msg, "/name");
    tg_manifest_free(&m);
}

/* Every row of a Markdown table has as many unescaped '|' as its header. */
static void check_tables(const char *md, const char *what)
{
    int want = -1;
    size_t line = 0;
    for (const char *p = md; *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && p[0] == '|') {
            int pipes = 0;
            for (size_t i = 0; i < len; i++)
                pipes += p[i] == '|' && (i == 0 || p[i - 1] != '\\');
            if (want < 0)
                want = pipes;
            CHECK(pipes == want, "%s line %zu: %d cells separators, header has %d", what,
                  line + 1, pipes, want);
        } else {
            want = -1;
        }
        p += len + (nl != NULL);
    }
}

/* Hostile text in titles, descriptions and values must not break tables, fences or YAML. */
static void check_markdown_escaping(const tg_manifest *model)
{
    tg_manifest m = {0};
    m.doc.root = cJSON_Duplicate(model->doc.root, true);
    m.doc.file = xstrdup("hostile.yaml");
    cJSON *r = m.doc.root;
    cJSON_ReplaceItemInObjectCaseSensitive(r, "title",
                                           cJSON_CreateString("Pipes | and *stars* `ticks`"));
    cJSON_ReplaceItemInObjectCaseSensitive(r, "description",
                                           cJSON_CreateString("Desc with | pipe\nand a break."));
    cJSON *props = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, "input_schema"), "properties");
    cJSON *first = props ? props->child : NULL;
    if (first)
        cJSON_ReplaceItemInObjectCaseSensitive(first, "description",
                                               cJSON_CreateString("A | B ``` C"));
    cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "examples"), 0);
    cJSON *in = cJSON_GetObjectItemCaseSensitive(ex, "input");
    cJSON_AddStringToObject(in, "zz_extra", "value with ``` fence | pipe");
    tg_manifest_bind(&m);
    const tg_manifest *pm[1] = {&m};
    const char *desc = "Quote \" backslash \\ colon: hash # tab\tend";
    tg_project_info repo = {.name = "hostile", .version = "1.0.0", .description = desc};
    tg_emit_files f = {0};
    tg_err err = {0};
    CHECK(tg_emit_aggregate(pm, 1, &repo, &f, &err) == 0, "hostile: %s", err.msg);
    const char *md = file_data(&f, "skill/hostile/SKILL.md");
    if (md) {
        check_tables(md, "hostile SKILL.md");
        CHECK_CONTAINS(md, "Pipes \\| and \\*stars\\* \\`ticks\\`");
        CHECK_CONTAINS(md, "````json\n"); /* the fence outgrows the ``` inside */
        const char *end = strstr(md + 4, "\n---\n");
        tg_doc doc = {0};
        if (end && tg_doc_parse_yaml(md + 4, (size_t)(end + 1 - (md + 4)), "fm", NULL, &doc,
                                     &err) == 0) {
            /* the tab is folded to a space; the rest survives YAML quoting */
            CHECK_CONTAINS(tg_json_get_string(doc.root, "description"),
                           "Quote \" backslash \\ colon: hash # tab end");
        } else {
            CHECK(false, "front matter does not parse: %s", err.msg);
        }
        tg_doc_free(&doc);
    }
    char *ref = xasprintf("skill/hostile/references/%s.md", m.name);
    const char *rmd = file_data(&f, ref);
    if (rmd)
        check_tables(rmd, ref);
    free(ref);
    tg_emit_files_free(&f);
    tg_manifest_free(&m);
}

static void test_examples(void)
{
    tg_manifest *ms = NULL;
    size_t n = load_examples(&ms);
    CHECK(n >= 1, "no example manifests found");
    mcp_schemas mcp;
    if (mcp_open(&mcp) && n) {
        for (size_t i = 0; i < n; i++)
            check_tool(&ms[i], &mcp);
        check_aggregate(ms, n, &mcp);
        check_many_tools(&ms[0]);
        check_bad_names(&ms[0]);
        check_markdown_escaping(&ms[0]);
    }
    mcp_close(&mcp);
    for (size_t i = 0; i < n; i++)
        tg_manifest_free(&ms[i]);
    free(ms);
}


/* The fragment file: a round trip keeps every piece; anything else is refused, not misread. */
static void test_fragment_file(void)
{
    tg_buf p[TG_PIECE_COUNT];
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        p[k] = (tg_buf)TG_BUF_INIT;
        if (k % 3)
            tg_buf_printf(&p[k], "piece %d\nline two\n%s", k, k == 4 ? "" : "tail");
    }
    size_t len;
    char *text = tg_emit_fragment_serialise(p, &len);
    tg_emit_fragment f;
    tg_err err = {0};
    CHECK(tg_emit_fragment_parse(text, len, &f, &err) == 0, "parse: %s", err.msg);
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        const char *want = p[k].data ? p[k].data : "";
        CHECK(f.p[k].len == strlen(want) && strcmp(f.p[k].data, want) == 0, "piece %d", k);
        CHECK(f.p[k].lines == (k % 3 ? 2u : 0u), "piece %d: %zu lines", k, f.p[k].lines);
    }
    for (size_t cut = 0; cut < len; cut += len / 7 + 1)
        CHECK(tg_emit_fragment_parse(text, cut, &f, &err) != 0, "truncated at %zu accepted", cut);
    text[0] = 'T';
    CHECK(tg_emit_fragment_parse(text, len, &f, &err) != 0, "another format accepted");
    free(text);
    for (int k = 0; k < TG_PIECE_COUNT; k++)
        tg_buf_free(&p[k]);

    tg_buf b = TG_BUF_INIT;
    const char json[] = "{\n  \"a\": [\n    1\n  ]\n}";
    tg_emit_put_indented(&b, json, strlen(json), 2);
    CHECK(strcmp(b.data, "{\n      \"a\": [\n        1\n      ]\n    }") == 0, "indented: %s",
          b.data);
    tg_buf_free(&b);
}

/* Tool i's fragment for the index tests (edit: the same tool with its pieces changed, each
 * keeping its line count and emptiness). p[k] must be initialised buffers. */
static void index_fragment(int i, int edit, tg_buf *p, char **text, tg_emit_fragment *f)
{
    tg_err err = {0};
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        tg_buf_reset(&p[k]);
        if (k == TG_PIECE_NAME)
            tg_buf_printf(&p[k], "tool_%c", 'a' + i);
        else if (k == TG_PIECE_AUTH_ENV || k == TG_PIECE_SKILL_NETWORK)
            tg_buf_puts(&p[k], i != 1 ? "" : k == TG_PIECE_AUTH_ENV ? "KEY" : "tool_b");
        else if (k == TG_PIECE_SKILL_REFUSED)
            tg_buf_puts(&p[k], i != 1 ? "" : "`tool_b`");
        else if (k == TG_PIECE_SKILL_DESC)
            tg_buf_printf(&p[k], "tool_%c (Tool %d)", 'a' + i, i);
        else if (k != TG_PIECE_SKILL_NOTES || i != 2)
            tg_buf_printf(&p[k], "{\"piece\": %d, \"tool\": %d%s}\n", k, i,
                          edit == 1   ? ", \"edited\": true"
                          : edit == 2 ? ", \"edited\": \"twice, and longer\""
                                      : "");
    }
    size_t len;
    *text = tg_emit_fragment_serialise(p, &len);
    CHECK(tg_emit_fragment_parse(*text, len, f, &err) == 0, "parse: %s", err.msg);
}

/* The index written for fragments f (and the files they make, into files). */
static char *index_of(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                      tg_emit_files *files, size_t *ilen)
{
    tg_err err = {0};
    size_t pos[3 * TG_PIECE_COUNT];
    CHECK(n <= 3 && tg_emit_aggregate_shared(f, n, repo, files, pos, &err) == 0 &&
              files->n == TG_AGGINDEX_FILES,
          "shared: %s", err.msg);
    return tg_aggindex_build(f, n, files, pos, ilen);
}

/* The positions of the base ix moved by the edits ed are those of the index made anew. */
static void check_moved(const tg_aggindex *ix, const tg_aggindex_edits *ed, const char *want,
                        size_t wlen, const char *what)
{
    tg_err err = {0};
    char *copy = xstrdup(want);
    tg_aggindex w;
    CHECK(tg_aggindex_parse(copy, wlen, &w, &err) == 0 && w.n == ix->n, "%s: %s", what, err.msg);
    for (size_t i = 0; i < ix->n && w.n == ix->n; i++) {
        tg_aggindex_tool t = ix->v[i];
        tg_aggindex_edits_apply(ed, &t);
        for (int k = 0; k < TG_PIECE_COUNT; k++)
            CHECK(t.at[k].file == w.v[i].at[k].file && t.at[k].lines == w.v[i].at[k].lines &&
                      (t.at[k].file < 0 ||
                       (t.at[k].off == w.v[i].at[k].off && t.at[k].len == w.v[i].at[k].len)),
                  "%s: tool %zu piece %d at %zu+%zu, made anew %zu+%zu", what, i, k, t.at[k].off,
                  t.at[k].len, w.v[i].at[k].off, w.v[i].at[k].len);
    }
    tg_aggindex_free(&w);
    free(copy);
}

/* Replaces tool 1's pieces by those of nf[1] in files (bytes/lens, updated), on top of the
 * edits ed; then compares with the files and index made anew from nf. */
static void splice_one(const tg_aggindex *ix, tg_aggindex_edits *ed, const tg_emit_fragment *nf,
                       const tg_project_info *repo, char **bytes, size_t *lens, const char *what)
{
    tg_aggindex_tool cur = ix->v[1];
    tg_aggindex_edits_apply(ed, &cur);
    CHECK(tg_aggindex_replaceable(&cur, &nf[1]), "%s: not replaceable", what);
    tg_aggindex_out out[TG_AGGINDEX_FILES];
    CHECK(tg_aggindex_splice(&cur, &ix->v[1], &nf[1], 1, (const char *const *)bytes, lens, ed,
                             out),
          "%s: splice refused", what);
    tg_emit_files want = {0};
    size_t wlen;
    char *windex = index_of(nf, 3, repo, &want, &wlen);
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        CHECK(out[j].spans != NULL, "%s: %s should change", what, want.v[j].path);
        if (out[j].spans) {
            tg_buf b = TG_BUF_INIT;
            for (size_t i = 0; i < out[j].n; i++)
                tg_buf_append(&b, out[j].spans[i].data, out[j].spans[i].len);
            CHECK(tg_hash_eq(tg_hash_spans(out[j].spans, out[j].n), tg_hash_bytes(b.data, b.len)),
                  "%s: the hash of the parts is not the hash of the whole", what);
            free(bytes[j]);
            lens[j] = b.len;
            bytes[j] = tg_buf_steal(&b);
        }
        tg_aggindex_out_free(&out[j]);
        CHECK(lens[j] == want.v[j].len && memcmp(bytes[j], want.v[j].data, lens[j]) == 0,
              "%s: %s spliced differs from made anew", what, want.v[j].path);
    }
    check_moved(ix, ed, windex, wlen, what);
    free(windex);
    tg_emit_files_free(&want);
}

/*
 * Edits replaced in place (tg_aggindex_splice), one after the other, give the very files that
 * making everything again gives, and the base index moved by the edits gives the positions of
 * the index made anew; the edits survive their text. An edit that changes a fact or a line
 * count is not replaceable.
 */
static void test_aggregate_splice(const tg_emit_fragment *f, tg_aggindex *ix,
                                  const tg_emit_files *files, const tg_project_info *repo)
{
    tg_buf p[TG_PIECE_COUNT], p2[TG_PIECE_COUNT];
    for (int k = 0; k < TG_PIECE_COUNT; k++)
        p[k] = p2[k] = (tg_buf)TG_BUF_INIT;
    char *text, *text2, *bytes[TG_AGGINDEX_FILES];
    size_t lens[TG_AGGINDEX_FILES], elen;
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        bytes[j] = xmalloc(files->v[j].len + 1);
        memcpy(bytes[j], files->v[j].data, files->v[j].len + 1);
        lens[j] = files->v[j].len;
    }
    tg_aggindex_edits ed = {0}, back;
    tg_emit_fragment nf[3] = {f[0], f[1], f[2]};
    index_fragment(1, 1, p, &text, &nf[1]);
    splice_one(ix, &ed, nf, repo, bytes, lens, "first edit");
    char *etext = tg_aggindex_edits_format(&ed, &elen);
    tg_err err = {0};
    CHECK(tg_aggindex_edits_parse(etext, elen, &back, &err) == 0 && back.n == ed.n,
          "edits read back: %s", err.msg);
    tg_aggindex_edits_free(&ed);
    ed = back;
    free(etext);
    index_fragment(1, 2, p2, &text2, &nf[1]); /* the same pieces edited again, longer */
    splice_one(ix, &ed, nf, repo, bytes, lens, "second edit");
    nf[1] = f[1]; /* and back: the edits of a piece now as long as in the base stay listed */
    splice_one(ix, &ed, nf, repo, bytes, lens, "edit back");
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        CHECK(lens[j] == files->v[j].len && memcmp(bytes[j], files->v[j].data, lens[j]) == 0,
              "edit back: %s differs from the first build", files->v[j].path);
        free(bytes[j]);
    }
    tg_aggindex_edits_free(&ed);
    CHECK(tg_aggindex_edits_parse("toolgen-aggregate-edits 1\n9 1 2 3\n", 34, &ed, &err) != 0,
          "an edit of file 9 accepted");
    /* a line more in a piece, or another credential variable: not in place */
    tg_buf_puts(&p[TG_PIECE_SKILL_WHEN], "- one more line\n");
    char *t2 = tg_emit_fragment_serialise(p, &elen);
    CHECK(tg_emit_fragment_parse(t2, elen, &nf[1], &err) == 0, "parse: %s", err.msg);
    CHECK(!tg_aggindex_replaceable(&ix->v[1], &nf[1]), "a line count change replaceable");
    free(t2);
    tg_buf_reset(&p[TG_PIECE_SKILL_WHEN]);
    tg_buf_puts(&p[TG_PIECE_AUTH_ENV], "2");
    t2 = tg_emit_fragment_serialise(p, &elen);
    CHECK(tg_emit_fragment_parse(t2, elen, &nf[1], &err) == 0, "parse: %s", err.msg);
    CHECK(!tg_aggindex_replaceable(&ix->v[1], &nf[1]), "a fact change replaceable");
    free(t2);
    free(text);
    free(text2);
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        tg_buf_free(&p[k]);
        tg_buf_free(&p2[k]);
    }
}

/* Peeking at a few tools of a large index reads their lines as parsing it whole does (an index
 * of more tools than its header has bytes). */
static void test_aggregate_peek(void)
{
    enum { N = 600 };
    tg_buf b = TG_BUF_INIT;
    const char *names[N];
    char name[N][8];
    for (int i = 0; i < N; i++) {
        snprintf(name[i], sizeof name[i], "t%03d", i);
        names[i] = name[i];
    }
    char hex[TG_HASH_HEX];
    tg_hash_hex(tg_aggindex_names_hash(names, N), hex);
    tg_buf_printf(&b, "toolgen-aggregate-index 3\na\nb\nc\nd\ne\nf\n%d %s\n", N, hex);
    for (int i = 0; i < N; i++) {
        tg_buf_printf(&b, "%s - - -", name[i]);
        for (int k = 0; k < TG_PIECE_COUNT; k++)
            tg_buf_printf(&b, " %d,%d,%d,0", k == TG_PIECE_MCP_TOOL ? 0 : -1,
                          k == TG_PIECE_MCP_TOOL ? i * 10 : 0, k == TG_PIECE_MCP_TOOL ? 5 : 0);
        tg_buf_puts(&b, "\n");
    }
    size_t at[3] = {0, 299, N - 1};
    tg_aggindex ix;
    tg_hash h;
    char *keep;
    tg_err err = {0};
    CHECK(tg_aggindex_peek(b.data, b.len, at, 3, &ix, &h, &keep, &err) == 0, "peek: %s", err.msg);
    CHECK(ix.n == N && tg_hash_eq(h, tg_aggindex_names_hash(names, N)) &&
              strcmp(ix.paths[5], "f") == 0,
          "peek header: %zu tools", ix.n);
    for (int a = 0; a < 3 && ix.v; a++)
        CHECK(strcmp(ix.v[a].name, name[at[a]]) == 0 &&
                  ix.v[a].at[TG_PIECE_MCP_TOOL].off == at[a] * 10,
              "peek line %zu: %s", at[a], ix.v[a].name);
    tg_aggindex_free(&ix);
    free(keep);
    size_t past = N;
    CHECK(tg_aggindex_peek(b.data, b.len, &past, 1, &ix, &h, &keep, &err) != 0,
          "a line past the count accepted");
    tg_buf_free(&b);
}

/* The aggregate's index: views of the pieces in the files the aggregate made are the pieces
 * (so the files made again from the views are the same bytes); anything malformed is refused. */
static void test_aggregate_index(void)
{
    enum { N = 3 };
    tg_buf p[N][TG_PIECE_COUNT];
    char *texts[N];
    tg_emit_fragment f[N];
    tg_err err = {0};
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < TG_PIECE_COUNT; k++)
            p[i][k] = (tg_buf)TG_BUF_INIT;
        index_fragment(i, 0, p[i], &texts[i], &f[i]);
    }
    tg_project_info repo = {.name = "idx-tools", .version = "0.1.0", .author = "tests"};
    tg_emit_files files = {0};
    size_t ilen;
    char *index = index_of(f, N, &repo, &files, &ilen);
    tg_emit_piece_kind form = tg_emit_skill_form(f, N, &repo);
    char *copy = xstrdup(index);
    tg_aggindex ix;
    CHECK(tg_aggindex_parse(copy, ilen, &ix, &err) == 0 && ix.n == N, "index: %s", err.msg);
    const char *bytes[TG_AGGINDEX_FILES];
    size_t lens[TG_AGGINDEX_FILES];
    for (int j = 0; j < TG_AGGINDEX_FILES && j < (int)files.n; j++) {
        bytes[j] = files.v[j].data;
        lens[j] = files.v[j].len;
        CHECK(strcmp(ix.paths[j], files.v[j].path) == 0, "path %d: %s", j, ix.paths[j]);
    }
    tg_emit_fragment v[N];
    for (int i = 0; i < N && ix.n == N; i++) {
        const tg_aggindex_tool *t = tg_aggindex_find(&ix, f[i].p[TG_PIECE_NAME].data);
        CHECK(t && tg_aggindex_view(t, bytes, lens, &v[i]), "view of tool %d", i);
        for (int k = 0; t && k < TG_PIECE_COUNT; k++) {
            bool needed = k != TG_PIECE_REFERENCE &&
                          (k == (int)form || (k != TG_PIECE_SKILL_TOOL_FULL &&
                                              k != TG_PIECE_SKILL_TOOL_COMPACT &&
                                              k != TG_PIECE_SKILL_TOOL_MINIMAL));
            CHECK(v[i].p[k].len == f[i].p[k].len && v[i].p[k].lines == f[i].p[k].lines,
                  "tool %d piece %d: length", i, k);
            if (needed)
                CHECK(v[i].p[k].data && memcmp(v[i].p[k].data, f[i].p[k].data, f[i].p[k].len) == 0,
                      "tool %d piece %d: not found", i, k);
        }
    }
    tg_emit_files again = {0};
    CHECK(tg_emit_aggregate_shared(v, N, &repo, &again, NULL, &err) == 0 && again.n == files.n,
          "again: %s", err.msg);
    for (size_t j = 0; j < again.n && j < files.n; j++)
        CHECK(again.v[j].len == files.v[j].len &&
                  memcmp(again.v[j].data, files.v[j].data, files.v[j].len) == 0,
              "%s differs when made from the index", files.v[j].path);
    tg_emit_files_free(&again);
    if (ix.n == N)
        test_aggregate_splice(f, &ix, &files, &repo);
    /* a position outside its file is refused */
    if (ix.n == N) {
        ix.v[0].at[TG_PIECE_MCP_TOOL].off = lens[0];
        CHECK(!tg_aggindex_view(&ix.v[0], bytes, lens, &v[0]), "an offset past the end accepted");
    }
    tg_aggindex_free(&ix);
    free(copy);
    /* truncated, or another version: refused */
    for (size_t cut = 0; cut < ilen; cut += ilen / 11 + 1) {
        char *t = xstrdup(index);
        t[cut] = '\0';
        CHECK(tg_aggindex_parse(t, cut, &ix, &err) != 0, "truncated at %zu accepted", cut);
        free(t);
    }
    char *t = xstrdup(index);
    t[strlen("toolgen-aggregate-index ")] = '9';
    CHECK(tg_aggindex_parse(t, ilen, &ix, &err) != 0, "another version accepted");
    free(t);
    free(index);
    tg_emit_files_free(&files);
    for (int i = 0; i < N; i++) {
        free(texts[i]);
        for (int k = 0; k < TG_PIECE_COUNT; k++)
            tg_buf_free(&p[i][k]);
    }
}

/* ---- the registry's server.json ------------------------------------------------------------ */

/* The registry's schema (tests/testdata/mcp-registry/, draft-07: what 2020-12 reads alike). */
static js_schema *registry_schema(js_registry **reg)
{
    const char *dir = getenv("TESTDATA_DIR");
    char *path = xasprintf("%s/mcp-registry/2025-12-11/server.schema.json",
                           dir && *dir ? dir : "tests/testdata");
    tg_doc doc = {0};
    tg_err err = {0};
    SETUP(tg_doc_load(path, NULL, &doc, &err) == 0, "cannot load the registry's schema %s: %s",
          path, err.msg);
    free(path);
    *reg = js_registry_new();
    SETUP(js_registry_add_metaschemas(*reg, &err) == 0, "metaschemas: %s", err.msg);
    js_schema *s = compile(*reg, doc.root);
    tg_doc_free(&doc);
    return s;
}

/* server.json of p: valid, with the name, package identifier and repository source given
 * (source NULL: no repository member). */
static void expect_server(const js_schema *schema, const tg_project_info *p, const char *name,
                          const char *identifier, const char *source)
{
    char *text = tg_emit_registry_server(p);
    cJSON *j = parse_json(text);
    expect_valid(schema, j, name);
    CHECK(!strcmp(str(tg_json_get_string(j, "name")), name), "name %s, want %s",
          str(tg_json_get_string(j, "name")), name);
    CHECK(!strcmp(str(tg_json_get_string(j, "version")), p->version), "%s: version", name);
    const cJSON *pkg = cJSON_GetArrayItem(tg_json_get(j, "packages"), 0);
    CHECK(!strcmp(str(tg_json_get_string(pkg, "registryType")), "mcpb") &&
              !strcmp(str(tg_json_get_string(pkg, "version")), p->version) &&
              !strcmp(str(tg_json_get_string(tg_json_get(pkg, "transport"), "type")), "stdio"),
          "%s: the bundle over stdio", name);
    CHECK(!strcmp(str(tg_json_get_string(pkg, "identifier")), identifier), "identifier %s",
          str(tg_json_get_string(pkg, "identifier")));
    const char *src = tg_json_get_string(tg_json_get(j, "repository"), "source");
    CHECK(source ? src && !strcmp(src, source) : !src, "%s: repository source %s", name,
          str(src));
    CHECK(utf8_chars(str(tg_json_get_string(j, "description"))) <= TG_REGISTRY_DESCRIPTION_MAX,
          "%s: description too long", name);
    CHECK(text[strlen(text) - 1] == '\n', "%s: no final newline", name);
    cJSON_Delete(j);
    free(text);
}

static void expect_short(const char *text, size_t max, const char *want)
{
    char *got = tg_emit_registry_shorten(text, max);
    CHECK(!strcmp(got, want), "shorten(%s, %zu): \"%s\", want \"%s\"", text, max, got, want);
    CHECK(utf8_chars(got) <= max, "shorten: %zu characters", utf8_chars(got));
    free(got);
}

static void test_registry(void)
{
    js_registry *reg = NULL;
    js_schema *schema = registry_schema(&reg);
    tg_project_info p = {.name = "data-tools", .version = "1.2.0"};
    expect_server(schema, &p, "local.toolgen/data-tools", "data-tools-1.2.0.mcpb", NULL);
    p.repository = "https://github.com/Some-Org/data.tools.git";
    expect_server(schema, &p, "io.github.Some-Org/data-tools",
                  "https://github.com/Some-Org/data.tools/releases/download/v1.2.0/"
                  "data-tools-1.2.0.mcpb", "github");
    p.repository = "https://gitlab.com/team/tools/";
    expect_server(schema, &p, "io.gitlab.team/data-tools",
                  "https://gitlab.com/team/tools/-/releases/v1.2.0/downloads/"
                  "data-tools-1.2.0.mcpb", "gitlab");
    /* elsewhere: the home page's host names the namespace; the repository is no forge's */
    p.repository = "https://git.example.org/team/tools";
    p.homepage = "https://www.Tools.Example.com:8443/docs";
    expect_server(schema, &p, "com.example.tools/data-tools", "data-tools-1.2.0.mcpb", NULL);
    p.registry_name = "io.github.someone/renamed";
    expect_server(schema, &p, "io.github.someone/renamed", "data-tools-1.2.0.mcpb", NULL);
    p.registry_name = "no slash"; /* lint refuses it; the emitter still writes a valid file */
    expect_server(schema, &p, "com.example.tools/data-tools", "data-tools-1.2.0.mcpb", NULL);
    p.description = "Tools that read CSV files, group their rows and chart them, in a sandbox, "
                    "with every call checked. And more text.";
    expect_server(schema, &p, "com.example.tools/data-tools", "data-tools-1.2.0.mcpb", NULL);

    expect_short("Fits.", 10, "Fits.");
    expect_short("  spaced \n out\t", 20, "spaced out");
    expect_short("First one. Second sentence here.", 15, "First one.");
    expect_short("one two three four", 12, "one two\xE2\x80\xA6");
    expect_short("one, two, three", 10, "one, two\xE2\x80\xA6");
    expect_short("\xC3\xA9t\xC3\xA9 \xC3\xA9t\xC3\xA9 \xC3\xA9t\xC3\xA9", 9,
                 "\xC3\xA9t\xC3\xA9 \xC3\xA9t\xC3\xA9\xE2\x80\xA6");
    expect_short("abcdefghijklmnop", 5, "abcd\xE2\x80\xA6");
    js_schema_free(schema);
    js_registry_free(reg);
}

int main(void)
{
    test_fragment_file();
    test_aggregate_index();
    test_aggregate_peek();
    test_strict_optional();
    test_strict_nested();
    test_strict_refused();
    test_strict_enum_type();
    test_description_budget();
    test_call_result();
    test_artifact_relink();
    test_drop_nulls();
    test_client_schema();
    test_examples();
    test_registry();
    return tl_finish("test_emit");
}
