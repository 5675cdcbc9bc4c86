/*
 * test_jsonschema.c — the validator's API beyond the official suite: error locations and
 * messages, fast path vs error path, reference loops, schema errors, meta-schema checks,
 * the resource map, exact numbers, limits and the format checkers; the compile-time
 * optimisations (jsoptimize.c: where they apply, where they must not, and that verdicts and
 * error reports are the same with and without them).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/jsfastre.h"
#include "base/buf.h"
#include "base/json.h"
#include "schema/jsonschema.h"
#include "schema/jsonschema_int.h"
#include "schema/jsregex.h"
#include "testlib.h"
#include "base/util.h"

static js_registry *reg;

static cJSON *J(const char *text)
{
    tg_err err;
    tg_err_clear(&err);
    cJSON *v = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    if (!v)
        fprintf(stderr, "test JSON does not parse: %s: %s\n", text, err.msg);
    return v;
}

static js_schema *compile_opt(const char *schema, bool fmt, tg_err *err)
{
    cJSON *s = J(schema);
    js_options opt = {.format_assert = fmt, .base_uri = NULL};
    tg_err_clear(err);
    js_schema *c = s ? js_compile(reg, s, &opt, err) : NULL;
    cJSON_Delete(s);
    return c;
}

static js_schema *compile(const char *schema)
{
    tg_err err;
    js_schema *c = compile_opt(schema, false, &err);
    CHECK(c != NULL, "schema %s does not compile: %s", schema, err.msg);
    return c;
}

/* Validates with both paths, checks they agree, returns the verdict; errors filled. */
static bool check(js_schema *s, const char *instance, js_errors *errs)
{
    cJSON *v = J(instance);
    if (!s || !v) {
        cJSON_Delete(v);
        return false;
    }
    bool fast = js_validate(s, v, NULL);
    js_errors_clear(errs);
    bool full = js_validate(s, v, errs);
    CHECK(fast == full, "fast (%d) and error-collecting (%d) paths disagree on %s", fast, full,
          instance);
    CHECK(full || errs->n > 0, "invalid %s but no error reported", instance);
    CHECK(!full || errs->n == 0, "valid %s but %zu errors reported", instance, errs->n);
    cJSON_Delete(v);
    return full;
}

/* Expects exactly one error (or at least one with "first"), matching the locations. */
static void expect_error(const char *schema, const char *instance, const char *iloc,
                         const char *kloc, const char *msg_part)
{
    js_schema *s = compile(schema);
    js_errors e = {NULL, 0, 0};
    bool ok = check(s, instance, &e);
    CHECK(!ok, "%s should be invalid against %s", instance, schema);
    bool found = false;
    for (size_t i = 0; i < e.n; i++)
        if (strcmp(e.v[i].instance_location, iloc) == 0 &&
            strcmp(e.v[i].keyword_location, kloc) == 0 && strstr(e.v[i].message, msg_part))
            found = true;
    CHECK(found, "no error [%s] [%s] \"%s\" for %s against %s (first: [%s] [%s] %s)", iloc, kloc,
          msg_part, instance, schema, e.n ? e.v[0].instance_location : "-",
          e.n ? e.v[0].keyword_location : "-", e.n ? e.v[0].message : "-");
    js_errors_free(&e);
    js_schema_free(s);
}

static void expect_valid(const char *schema, const char *instance, bool valid)
{
    js_schema *s = compile(schema);
    js_errors e = {NULL, 0, 0};
    bool ok = check(s, instance, &e);
    CHECK(ok == valid, "%s against %s: expected %s", instance, schema, valid ? "valid" : "invalid");
    js_errors_free(&e);
    js_schema_free(s);
}

static void expect_compile_error(const char *schema, const char *part1, const char *part2)
{
    tg_err err;
    js_schema *s = compile_opt(schema, false, &err);
    CHECK(s == NULL, "schema %s should not compile", schema);
    CHECK_CONTAINS(err.msg, part1);
    if (part2)
        CHECK_CONTAINS(err.msg, part2);
    js_schema_free(s);
}

#define X79                                                                                 \
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

static void test_error_locations(void)
{
    expect_error("{\"properties\":{\"a\":{\"type\":\"integer\"}}}", "{\"a\":\"x\"}", "/a",
                 "/properties/a/type", "expected integer, got string");
    expect_error("{\"$defs\":{\"i\":{\"type\":\"integer\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/i\"}}}",
                 "{\"a\":1.5}", "/a", "/properties/a/$ref/type", "expected integer, got number");
    expect_error("{\"required\":[\"name\"]}", "{}", "", "/required",
                 "missing required property \"name\"");
    expect_error("{\"additionalProperties\":false,\"properties\":{\"a\":true}}", "{\"a\":1,\"foo\":2}",
                 "/foo", "/additionalProperties",
                 "property \"foo\" is not allowed (additionalProperties is false)");
    expect_error("{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}", "\"AB\"", "", "/pattern",
                 "string does not match pattern \"^[a-z]+$\"");
    expect_error("{\"minLength\":1}", "\"\"", "", "/minLength", "must be at least 1 characters long");
    expect_error("{\"maxLength\":2}", "\"h\\u00e9llo\"", "", "/maxLength", "got 5");
    /* JSON Pointer escaping of ~ and / in both locations */
    expect_error("{\"properties\":{\"a/b~c\":{\"type\":\"null\"}}}", "{\"a/b~c\":3}", "/a~1b~0c",
                 "/properties/a~1b~0c/type", "expected null, got integer");
    expect_error("{\"items\":{\"type\":\"string\"}}", "[\"a\",\"b\",7]", "/2", "/items/type",
                 "expected string");
    expect_error("{\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}", "[\"a\",1]", "/1",
                 "/items", "item 1 is not allowed (items is false)");
    expect_error("{\"minimum\":5}", "4", "", "/minimum", "must be >= 5, got 4");
    expect_error("{\"exclusiveMaximum\":5}", "5", "", "/exclusiveMaximum", "must be < 5");
    expect_error("{\"multipleOf\":0.01}", "1.234", "", "/multipleOf", "a multiple of 0.01");
    expect_error("{\"const\":{\"a\":[1,2]}}", "{\"a\":[2,1]}", "", "/const", "not equal to the constant");
    expect_error("{\"enum\":[\"red\",\"green\"]}", "\"blue\"", "", "/enum", "is not one of");
    expect_error("{\"uniqueItems\":true}", "[1,2,1.0]", "", "/uniqueItems", "items 0 and 2 are equal");
    expect_error("{\"contains\":{\"const\":1},\"maxContains\":1}", "[1,1]", "", "/maxContains",
                 "at most 1 item");
    expect_error("{\"contains\":{\"const\":1}}", "[2]", "", "/contains", "at least 1 item");
    expect_error("{\"minProperties\":2}", "{\"a\":1}", "", "/minProperties", "at least 2 properties");
    expect_error("{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}", "", "/dependentRequired/a",
                 "property \"b\" is required when \"a\" is present");
    expect_error("{\"propertyNames\":{\"maxLength\":3}}", "{\"abcd\":1}", "",
                 "/propertyNames/maxLength", "property name \"abcd\"");
    expect_error("{\"not\":{\"type\":\"string\"}}", "\"x\"", "", "/not", "must not match");
    expect_error("{\"if\":{\"type\":\"string\"},\"then\":{\"minLength\":3}}", "\"ab\"", "",
                 "/then/minLength", "at least 3");
    expect_error("{\"unevaluatedProperties\":false,\"allOf\":[{\"properties\":{\"a\":true}}]}",
                 "{\"a\":1,\"b\":2}", "/b", "/unevaluatedProperties",
                 "property \"b\" is not allowed (unevaluatedProperties is false)");
    expect_error("false", "1", "", "", "schema is false");
    /* a value rendered one or two bytes over the 80-byte cut: "..." fits (checked under ASan) */
    expect_error("{\"const\":\"a\"}", "\"" X79 "\"", "", "/const", "value \"" X79 "...");
    expect_error("{\"const\":\"a\"}", "\"" X79 "y\"", "", "/const", "value \"" X79 "...");
}

static void test_alternatives(void)
{
    /* anyOf: a summary, then the errors of the branch that got past "type" */
    const char *schema = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"required\":[\"x\"]}]}";
    js_schema *s = compile(schema);
    js_errors e = {NULL, 0, 0};
    CHECK(!check(s, "{\"y\":1}", &e), "anyOf should fail");
    CHECK(e.n == 2, "anyOf: expected summary + 1 branch error, got %zu", e.n);
    if (e.n == 2) {
        CHECK(strcmp(e.v[0].keyword_location, "/anyOf") == 0, "summary first, got %s",
              e.v[0].keyword_location);
        CHECK(strcmp(e.v[1].keyword_location, "/anyOf/1/required") == 0, "branch error, got %s",
              e.v[1].keyword_location);
    }
    /* a passing branch leaves no errors behind */
    CHECK(check(s, "\"ok\"", &e) && e.n == 0, "anyOf with a passing branch");
    js_errors_free(&e);
    js_schema_free(s);
    expect_error("{\"oneOf\":[{\"minimum\":1},{\"maximum\":10}]}", "5", "", "/oneOf",
                 "more than one schema");
    expect_error("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}", "5", "", "/oneOf",
                 "any of the 2 alternatives");
    /* "at least one of a, b" written as anyOf of required: one line, not one per branch */
    s = compile("{\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}");
    CHECK(!check(s, "{\"c\":1}", &e), "anyOf of required should fail");
    CHECK(e.n == 1 && strstr(e.v[0].message, "at least one of the properties \"a\", \"b\"") &&
              strcmp(e.v[0].keyword_location, "/anyOf") == 0,
          "anyOf of required: got %zu errors, first \"%s\"", e.n, e.n ? e.v[0].message : "-");
    js_errors_free(&e);
    js_schema_free(s);
}

static void test_fast_vs_full(void)
{
    /* a mixed schema over many instances: check() asserts both paths agree */
    js_schema *s = compile(
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0},"
        "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"uniqueItems\":true},"
        "\"kind\":{\"enum\":[\"a\",\"b\"]}},\"required\":[\"n\"],"
        "\"oneOf\":[{\"properties\":{\"kind\":{\"const\":\"a\"}}},{\"required\":[\"tags\"]}],"
        "\"unevaluatedProperties\":false}");
    const char *inst[] = {
        "{\"n\":1,\"kind\":\"a\"}", "{\"n\":-1}", "{\"n\":1,\"tags\":[\"x\",\"x\"]}",
        "{\"n\":1,\"kind\":\"b\",\"tags\":[]}", "{\"n\":1,\"zz\":0,\"kind\":\"a\"}", "[]", "null",
        "{\"n\":1.0,\"kind\":\"b\",\"tags\":[\"q\"]}", "{\"n\":1,\"kind\":\"a\",\"tags\":[\"q\"]}", "{}", "{\"n\":\"1\",\"tags\":[1]}",
    };
    js_errors e = {NULL, 0, 0};
    int valid = 0;
    for (size_t i = 0; i < sizeof inst / sizeof *inst; i++)
        valid += check(s, inst[i], &e);
    CHECK(valid == 3, "expected 3 valid instances, got %d", valid);
    js_errors_free(&e);
    js_schema_free(s);
}

static void test_loops(void)
{
    /* statically certain loops are compile errors */
    expect_compile_error("{\"$ref\":\"#\"}", "infinite loop", NULL);
    expect_compile_error("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"allOf\":[{\"$ref\":"
                         "\"#/$defs/a\"}]}},\"$ref\":\"#/$defs/a\"}",
                         "infinite loop", "#/$defs/");
    /* conditional ones are caught while validating, with a clear error */
    js_schema *s = compile("{\"dependentSchemas\":{\"a\":{\"$ref\":\"#\"}}}");
    js_errors e = {NULL, 0, 0};
    CHECK(check(s, "{}", &e), "no loop without the dependent property");
    CHECK(!check(s, "{\"a\":1}", &e), "loop is invalid");
    CHECK(e.n > 0 && strstr(e.v[e.n - 1].message, "infinite reference loop"), "loop message: %s",
          e.n ? e.v[e.n - 1].message : "-");
    js_schema_free(s);
    /* a loop under "not" does not turn into a pass */
    s = compile("{\"$defs\":{\"a\":{\"anyOf\":[{\"type\":\"string\"},{\"not\":{\"$ref\":\"#/$defs/a\"}}]}},"
                "\"$ref\":\"#/$defs/a\"}");
    CHECK(!check(s, "1", &e), "paradoxical loop is invalid");
    CHECK(check(s, "\"s\"", &e), "the string branch still passes");
    js_schema_free(s);
    /* recursion on ever deeper values is fine up to the depth limit, then an error */
    s = compile("{\"items\":{\"$ref\":\"#\"}}");
    cJSON *deep = cJSON_CreateArray(), *cur = deep;
    for (int i = 0; i < 5000; i++) {
        cJSON *a = cJSON_CreateArray();
        cJSON_AddItemToArray(cur, a);
        cur = a;
    }
    CHECK(!js_validate(s, deep, NULL), "5000-deep instance exceeds the depth limit");
    js_errors_clear(&e);
    CHECK(!js_validate(s, deep, &e), "deep instance invalid with errors too");
    CHECK(e.n > 0 && strstr(e.v[e.n - 1].message, "deeper than"), "depth message: %s",
          e.n ? e.v[e.n - 1].message : "-");
    cJSON_Delete(deep);
    CHECK(check(s, "[[[[[[[[[[]]]]]]]]]]", &e), "moderate nesting is fine");
    js_errors_free(&e);
    js_schema_free(s);
}

static void test_schema_errors(void)
{
    expect_compile_error("{\"type\":12}", "#/type", "got 12");
    expect_compile_error("{\"properties\":{\"a\":{\"pattern\":\"(\"}}}", "#/properties/a/pattern",
                         "invalid regular expression");
    expect_compile_error("{\"patternProperties\":{\"[\":{}}}", "#/patternProperties", "regular expression");
    expect_compile_error("{\"$ref\":\"#/nope\"}", "#/$ref", "cannot resolve");
    expect_compile_error("{\"$ref\":\"http://example.com/x.json\"}", "never over the network", NULL);
    expect_compile_error("{\"minLength\":-1}", "#/minLength", "non-negative integer");
    expect_compile_error("{\"required\":\"a\"}", "#/required", NULL);
    expect_compile_error("{\"items\":{\"type\":\"nope\"}}", "#/items/type", NULL);
    expect_compile_error("{\"multipleOf\":0}", "#/multipleOf", "greater than 0");
    expect_compile_error("{\"allOf\":[]}", "#/allOf", "non-empty");
    expect_compile_error("{\"properties\":{\"a\":3}}", "#/properties", "expected a schema");
    expect_compile_error("{\"$id\":\"http://x.test/a#frag\"}", "#/$id", "fragment");
    expect_compile_error("{\"pattern\":\"\\\\a\"}", "#/pattern", "invalid escape");
    /* unknown keywords are annotations */
    expect_valid("{\"x-custom\":{\"type\":12},\"title\":5}", "1", true);
}

static void test_meta(void)
{
    const char *bad[] = {"{\"type\":12}", "{\"minLength\":\"x\"}", "{\"properties\":{\"a\":{\"type\":\"nope\"}}}",
                         "{\"required\":[1]}", "{\"$defs\":{\"a\":{\"enum\":5}}}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *s = J(bad[i]);
        js_errors e = {NULL, 0, 0};
        tg_err err;
        tg_err_clear(&err);
        int rc = js_schema_check_meta(reg, s, &e, &err);
        CHECK(rc == 0, "meta-schema should reject %s (rc %d: %s)", bad[i], rc, err.msg);
        CHECK(e.n > 0, "meta-schema errors for %s", bad[i]);
        js_errors_free(&e);
        cJSON_Delete(s);
    }
    cJSON *good = J("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
                    "\"properties\":{\"a\":{\"type\":[\"string\",\"null\"],\"minLength\":1}}}");
    tg_err err;
    tg_err_clear(&err);
    CHECK(js_schema_check_meta(reg, good, NULL, &err) == 1, "valid schema accepted: %s", err.msg);
    cJSON_Delete(good);
    /* the location of a meta-schema error points into the checked schema */
    cJSON *s = J("{\"properties\":{\"a\":{\"type\":\"nope\"}}}");
    js_errors e = {NULL, 0, 0};
    js_schema_check_meta(reg, s, &e, &err);
    bool at_type = false;
    for (size_t i = 0; i < e.n; i++)
        at_type |= strcmp(e.v[i].instance_location, "/properties/a/type") == 0;
    CHECK(at_type, "meta error at /properties/a/type");
    js_errors_free(&e);
    cJSON_Delete(s);
}

static void test_registry(void)
{
    js_registry *r = js_registry_new();
    tg_err err;
    tg_err_clear(&err);
    cJSON *doc = J("{\"$defs\":{\"name\":{\"type\":\"string\",\"minLength\":2}}}");
    CHECK(js_registry_add_document(r, "http://example.test/common.json", doc, &err) == 0, "add doc");
    cJSON_Delete(doc); /* the registry keeps its own copy */
    cJSON *sch = J("{\"$id\":\"http://example.test/main.json\",\"properties\":{\"n\":{\"$ref\":"
                   "\"common.json#/$defs/name\"}}}");
    js_schema *s = js_compile(r, sch, NULL, &err);
    CHECK(s != NULL, "relative $ref into a registered document: %s", err.msg);
    js_errors e = {NULL, 0, 0};
    if (s) {
        CHECK(check(s, "{\"n\":\"ab\"}", &e), "valid through the registry");
        CHECK(!check(s, "{\"n\":\"a\"}", &e), "invalid through the registry");
        CHECK(e.n == 1 && strcmp(e.v[0].keyword_location, "/properties/n/$ref/minLength") == 0,
              "keyword location through a remote $ref: %s", e.n ? e.v[0].keyword_location : "-");
    }
    js_schema_free(s);
    cJSON_Delete(sch);

    /* a directory: files are found with and without the .json extension */
    char dir[] = "/tmp/tg_jsreg_XXXXXX";
    SETUP(mkdtemp(dir) != NULL, "mkdtemp");
    char *sub = tg_path_join(dir, "types");
    tg_mkdirs(sub, &err);
    char *file = tg_path_join(sub, "pos.json");
    const char *text = "{\"type\":\"integer\",\"minimum\":1}";
    tg_write_file_atomic(file, text, strlen(text), &err);
    CHECK(js_registry_add_dir(r, "https://schemas.example.test/", dir, &err) == 0, "add dir: %s",
          err.msg);
    const char *refs[] = {"{\"$ref\":\"https://schemas.example.test/types/pos.json\"}",
                          "{\"$ref\":\"https://schemas.example.test/types/pos\"}"};
    for (int i = 0; i < 2; i++) {
        sch = J(refs[i]);
        s = js_compile(r, sch, NULL, &err);
        CHECK(s != NULL, "directory lookup %s: %s", refs[i], err.msg);
        if (s) {
            CHECK(check(s, "3", &e), "3 is a positive integer");
            CHECK(!check(s, "0", &e), "0 is not");
        }
        js_schema_free(s);
        cJSON_Delete(sch);
    }
    /* a prefix without a trailing slash still names a folder */
    CHECK(js_registry_add_dir(r, "https://other.example.test/x", dir, &err) == 0, "add dir");
    sch = J("{\"$ref\":\"https://other.example.test/x/types/pos.json\"}");
    s = js_compile(r, sch, NULL, &err);
    CHECK(s != NULL, "prefix without slash: %s", err.msg);
    js_schema_free(s);
    cJSON_Delete(sch);
    sch = J("{\"$ref\":\"https://other.example.test/xtypes/pos.json\"}");
    s = js_compile(r, sch, NULL, &err);
    CHECK(s == NULL, "prefix matches whole path segments only");
    js_schema_free(s);
    cJSON_Delete(sch);
    /* nothing outside the mapped directory */
    sch = J("{\"$ref\":\"https://schemas.example.test/../etc/passwd\"}");
    s = js_compile(r, sch, NULL, &err);
    CHECK(s == NULL, "no escape from the directory");
    cJSON_Delete(sch);
    js_schema_free(s);
    CHECK(js_registry_add_dir(r, "x:", "/nonexistent/dir", &err) != 0, "missing dir refused");
    /* a base URI lets relative references find registered documents */
    js_options opt = {.format_assert = false, .base_uri = "https://schemas.example.test/main.json"};
    sch = J("{\"$ref\":\"types/pos.json\"}");
    s = js_compile(r, sch, &opt, &err);
    CHECK(s != NULL, "relative ref against base_uri: %s", err.msg);
    js_schema_free(s);
    cJSON_Delete(sch);
    unlink(file);
    rmdir(sub);
    rmdir(dir);
    free(file);
    free(sub);
    js_errors_free(&e);
    js_registry_free(r);
}

static void test_numbers(void)
{
    expect_valid("{\"multipleOf\":0.0001}", "0.0075", true);
    expect_valid("{\"multipleOf\":0.123456789}", "1e308", false);
    expect_valid("{\"multipleOf\":0.1}", "0.3", true);
    expect_valid("{\"multipleOf\":3}", "1e400", false);
    expect_valid("{\"multipleOf\":0.5}", "1e400", true);
    expect_valid("{\"type\":\"integer\"}", "1.0", true);
    expect_valid("{\"type\":\"integer\"}", "1.5e1", true);
    expect_valid("{\"type\":\"integer\"}", "1.05e1", false);
    expect_valid("{\"type\":\"integer\"}", "123456789012345678901234567890", true);
    expect_valid("{\"maximum\":18446744073709551615}", "18446744073709551616", false);
    expect_valid("{\"maximum\":18446744073709551615}", "18446744073709551615", true);
    expect_valid("{\"const\":1}", "1.0", true);
    expect_valid("{\"enum\":[{\"a\":1,\"b\":[1,2]}]}", "{\"b\":[1.0,2],\"a\":1}", true);
    expect_valid("{\"uniqueItems\":true}", "[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1}]", false);
    /* long arrays take the hashing path of uniqueItems */
    char big[4096] = "[";
    for (int i = 0; i < 200; i++)
        snprintf(big + strlen(big), sizeof big - strlen(big), "%s%d", i ? "," : "", i);
    strcat(big, ",\"x\",{\"k\":[1]},7.0]");
    expect_valid("{\"uniqueItems\":true}", big, false);
    big[strlen(big) - 5] = '\0';
    strcat(big, "]");
    expect_valid("{\"uniqueItems\":true}", big, true);
}

static void test_limits(void)
{
    /* a huge invalid instance reports a bounded number of errors */
    js_schema *s = compile("{\"items\":{\"type\":\"string\"}}");
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < 5000; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(i));
    js_errors e = {NULL, 0, 0};
    CHECK(!js_validate(s, arr, &e), "all items invalid");
    CHECK(e.n <= 101 && e.n >= 100, "error count capped, got %zu", e.n);
    CHECK(e.n && strstr(e.v[e.n - 1].message, "too many errors"), "cap is announced");
    cJSON_Delete(arr);
    js_errors_free(&e);
    js_schema_free(s);
    /* errors are appended to what the list already holds */
    s = compile("{\"type\":\"string\"}");
    cJSON *one = J("1");
    js_validate(s, one, &e);
    js_validate(s, one, &e);
    CHECK(e.n == 2, "appended, got %zu", e.n);
    js_errors_free(&e);
    cJSON_Delete(one);
    js_schema_free(s);
}

static void test_booleans_and_vocab(void)
{
    expect_valid("true", "{\"any\":1}", true);
    expect_valid("{\"properties\":{\"a\":false}}", "{\"a\":1}", false);
    expect_valid("{\"properties\":{\"a\":false}}", "{\"b\":1}", true);
    expect_valid("{\"items\":true,\"contains\":false}", "[1]", false);
    expect_valid("{\"not\":true}", "null", false);
    /* $dynamicRef: the outermost dynamic anchor in scope wins */
    expect_valid("{\"$id\":\"https://t.test/root\",\"$ref\":\"list\",\"$defs\":{"
                 "\"item\":{\"$dynamicAnchor\":\"item\",\"type\":\"integer\"},"
                 "\"list\":{\"$id\":\"list\",\"type\":\"array\",\"items\":{\"$dynamicRef\":\"#item\"},"
                 "\"$defs\":{\"any\":{\"$dynamicAnchor\":\"item\"}}}}}",
                 "[1,\"x\"]", false);
    expect_valid("{\"$id\":\"https://t.test/root2\",\"$ref\":\"list\",\"$defs\":{"
                 "\"list\":{\"$id\":\"list\",\"type\":\"array\",\"items\":{\"$dynamicRef\":\"#item\"},"
                 "\"$defs\":{\"any\":{\"$dynamicAnchor\":\"item\"}}}}}",
                 "[1,\"x\"]", true);
    /* format is an annotation unless asked for */
    expect_valid("{\"format\":\"email\"}", "\"nope\"", true);
    tg_err err;
    js_schema *s = compile_opt("{\"format\":\"email\"}", true, &err);
    js_errors e = {NULL, 0, 0};
    CHECK(s && !check(s, "\"nope\"", &e), "format asserted with format_assert");
    CHECK(s && check(s, "\"a@b.example\"", &e), "valid email");
    CHECK(s && check(s, "42", &e), "formats ignore other types");
    js_schema_free(s);
    s = compile_opt("{\"properties\":{\"d\":{\"format\":\"date\"}}}", true, &err);
    CHECK(s && !check(s, "{\"d\":\"2020-13-01\"}", &e), "bad date");
    CHECK(e.n == 1 && strcmp(e.v[0].keyword_location, "/properties/d/format") == 0 &&
              strstr(e.v[0].message, "\"2020-13-01\" is not a valid \"date\""),
          "format error: %s", e.n ? e.v[0].message : "-");
    js_errors_free(&e);
    js_schema_free(s);
}

static void test_regex_dialect(void)
{
    expect_valid("{\"pattern\":\"^abc$\"}", "\"abc\\n\"", false);
    expect_valid("{\"pattern\":\"^\\\\d+$\"}", "\"\\u0664\"", false);
    expect_valid("{\"pattern\":\"^\\\\s$\"}", "\"\\u00a0\"", true);
    expect_valid("{\"pattern\":\"^\\\\S$\"}", "\"\\u2003\"", false);
    expect_valid("{\"pattern\":\"^.$\"}", "\"\\u2028\"", false);
    expect_valid("{\"pattern\":\"^.$\"}", "\"\\ud83d\\ude00\"", true);
    expect_valid("{\"pattern\":\"^[^]$\"}", "\"\\n\"", true);
    expect_valid("{\"pattern\":\"[]\"}", "\"a\"", false);
    expect_valid("{\"pattern\":\"^\\\\p{Lu}\\\\p{Letter}+$\"}", "\"\\u00c9t\\u00e9\"", true);
    expect_valid("{\"pattern\":\"^\\\\u00e9\\\\x41\\\\cJ$\"}", "\"\\u00e9A\\n\"", true);
    expect_valid("{\"pattern\":\"^(?<y>\\\\d{4})-\\\\k<y>$\"}", "\"2020-2020\"", true);
    expect_valid("{\"pattern\":\"^a\\\\-b\\\\/c$\"}", "\"a-b/c\"", true);
    expect_valid("{\"pattern\":\"\\\\w\"}", "\"\\u00e9\"", false);
    /* patterns are searched, not anchored */
    expect_valid("{\"pattern\":\"b\"}", "\"abc\"", true);
}

/* The small NFA matcher must agree with PCRE2 on everything it accepts to handle. */
static void test_fastre_vs_pcre2(void)
{
    static const char *const pats[] = {
        "^[a-z][a-z0-9_]*$", "^[^@]+@[^@]+$", "\\S", "^\\d{4}-\\d{2}-\\d{2}$", "a+b?c*$",
        "^[A-Za-z0-9_.-][A-Za-z0-9_./-]*$", "^.{2,5}$", "x{0,3}y", "^\\s*$", "[^\\s@]+",
        "^\\W\\D?\\w+$", "^[\\d\\s]+$", "^[^\\S]$", "ab|cd", "^(a)$", "^a{3,}$", "^.*$",
        "\\.py$", "^[\\x41-\\x43\\u0061]+$", "^a*?b+?$", "\\t\\n", "^\\$[\\]\\-]{1}$",
        "^$", "", "^a{0,8}b$", "^[a-z]{0,9}$", "[^a-z]{2}",
    };
    static const char *const alphabet[] = {"a", "b", "c", "y", "x", "Z", "0", "7", "_", "@", ".",
                                           "-", " ", "\t", "\n", "$", "]", "\xc3\xa9",
                                           "\xc2\xa0", "\xe2\x80\xa8", "\xf0\x9f\x98\x80",
                                           "/", "p", "A", "C"};
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    unsigned seed = 12345;
    int fast_count = 0, disagree = 0, matches = 0, runs = 0;
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
        char msg[200];
        js_re *re = js_re_compile(pats[i], msg, sizeof msg);
        CHECK(re != NULL, "pattern %s: %s", pats[i], msg);
        if (!re)
            continue;
        fast_count += re->fast != NULL;
        for (int t = 0; re->fast && t < 3000; t++) {
            char s[64] = "";
            int len = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;
            for (int k = 0; k < len; k++) {
                seed = seed * 1103515245u + 12345u;
                strcat(s, alphabet[(seed >> 16) % (sizeof alphabet / sizeof *alphabet)]);
            }
            bool a = js_fastre_search(re->fast, s), b = js_regex_search(re->code, s, md);
            matches += b;
            runs++;
            if (a != b && disagree++ < 10)
                CHECK(a == b, "pattern %s on \"%s\": fast %d, PCRE2 %d", pats[i], s, a, b);
        }
        js_re_free(re);
    }
    CHECK(disagree == 0, "%d disagreements", disagree);
    CHECK(matches > runs / 10 && matches < runs - runs / 10, "both outcomes exercised (%d of %d)",
          matches, runs);
    CHECK(fast_count >= 20, "most of these patterns take the fast path (%d)", fast_count);
    pcre2_match_data_free(md);
}

static void test_formats(void)
{
    static const struct {
        const char *fmt, *good, *bad;
    } F[] = {
        {"date-time", "2024-02-29T23:59:60Z", "2023-02-29T10:00:00Z"},
        {"date", "2000-02-29", "1900-02-29"},
        {"time", "23:59:60+00:00", "12:00:00"},
        {"duration", "P1Y2M3DT4H5M6S", "P1D2H"},
        {"email", "\"a b\"@example.com", "a..b@example.com"},
        {"idn-email", "\xec\x8b\xa4\xeb\xa1\x80@example.com", "user"},
        {"hostname", "xn--bcher-kva.example", "-bad.example"},
        {"idn-hostname", "b\xc3\xbc" "cher.example", "a\xe3\x80\xae" "b"},
        {"ipv4", "192.168.0.1", "192.168.0.01"},
        {"ipv6", "1::2:192.168.0.1", "1::2::3"},
        {"uri", "https://example.com/a?b#c", "/relative"},
        {"uri-reference", "../x?y", "\\\\bad"},
        {"iri", "https://\xc3\xa9x.example/\xcf\x80", "\xcf\x80"},
        {"iri-reference", "/\xcf\x80", "#a\\b"},
        {"uri-template", "https://x.test/{id}{?q*}", "{a,}"},
        {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08aa9811eab4aa73b441d16380"},
        {"json-pointer", "/a~1b/0", "a/b"},
        {"relative-json-pointer", "1/a#", "01/a"},
        {"regex", "^(?<x>a)\\k<x>$", "(?i)a"},
    };
    for (size_t i = 0; i < sizeof F / sizeof *F; i++) {
        CHECK(js_format_check(F[i].fmt, F[i].good), "%s should accept %s", F[i].fmt, F[i].good);
        CHECK(!js_format_check(F[i].fmt, F[i].bad), "%s should reject %s", F[i].fmt, F[i].bad);
    }
    /* "#" right after the number asks for the key; after a pointer it is just a character */
    CHECK(js_format_check("relative-json-pointer", "1#"), "\"1#\"");
    CHECK(!js_format_check("relative-json-pointer", "1#/a"), "\"1#/a\"");
    CHECK(js_format_check("no-such-format", "anything"), "unknown formats accept");
    CHECK(js_format_check(NULL, "x") && js_format_check("date", NULL), "NULL arguments accept");
}

typedef struct thread_arg {
    js_schema *s;
    cJSON *good, *bad;
    int wrong;
} thread_arg;

static void *validate_many(void *p)
{
    thread_arg *a = p;
    js_errors e = {NULL, 0, 0};
    for (int i = 0; i < 2000; i++) {
        if (!js_validate(a->s, a->good, NULL) || js_validate(a->s, a->bad, i % 10 ? NULL : &e))
            a->wrong++;
        js_errors_clear(&e);
    }
    js_errors_free(&e);
    return NULL;
}

static void test_threads(void)
{
    /* one compiled schema shared by more threads than it has match-data slots */
    /* groups and \p{} keep these patterns on PCRE2 (and its match blocks), not jsfastre */
    js_schema *s = compile("{\"type\":\"object\",\"patternProperties\":{\"^(x)_\":"
                           "{\"pattern\":\"^([a-z]|\\\\p{Lu})+$\"}}}");
    cJSON *good = J("{\"x_a\":\"abC\"}"), *bad = J("{\"x_a\":\"a1\"}");
    enum { N = 8 };
    pthread_t th[N];
    thread_arg args[N];
    for (int i = 0; i < N; i++) {
        args[i] = (thread_arg){s, good, bad, 0};
        pthread_create(&th[i], NULL, validate_many, &args[i]);
    }
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        wrong += args[i].wrong;
    }
    CHECK(wrong == 0, "%d wrong verdicts under concurrency", wrong);
    cJSON_Delete(good);
    cJSON_Delete(bad);
    js_schema_free(s);
}

/* Clears what jsoptimize.c set on the root node: the root evaluated as compiled. */
static void unoptimise_root(js_schema *s)
{
    s->root->any_disp = NULL;
    s->root->one_disp = NULL;
    s->root->any_types = 0;
    s->root->const_str = NULL;
    s->root->const_only = false;
    s->root->any_only = false;
}

/* Same verdict, and the same errors in the same order, with and without the root's rewrites. */
static void expect_same_as_unoptimised(const char *schema, const char *const *inst, size_t n)
{
    js_schema *opt = compile(schema), *plain = compile(schema);
    if (!opt || !plain)
        return;
    unoptimise_root(plain);
    js_errors a = {NULL, 0, 0}, b = {NULL, 0, 0};
    for (size_t i = 0; i < n; i++) {
        bool va = check(opt, inst[i], &a), vb = check(plain, inst[i], &b);
        CHECK(va == vb, "%s: optimised %d, unoptimised %d", inst[i], va, vb);
        CHECK(a.n == b.n, "%s: %zu errors optimised, %zu unoptimised", inst[i], a.n, b.n);
        for (size_t k = 0; k < a.n && k < b.n; k++)
            CHECK(strcmp(a.v[k].instance_location, b.v[k].instance_location) == 0 &&
                      strcmp(a.v[k].keyword_location, b.v[k].keyword_location) == 0 &&
                      strcmp(a.v[k].message, b.v[k].message) == 0,
                  "%s: error %zu differs: [%s] [%s] %s vs [%s] [%s] %s", inst[i], k,
                  a.v[k].instance_location, a.v[k].keyword_location, a.v[k].message,
                  b.v[k].instance_location, b.v[k].keyword_location, b.v[k].message);
    }
    js_errors_free(&a);
    js_errors_free(&b);
    js_schema_free(opt);
    js_schema_free(plain);
}

/* MCP-style: requests that pin "method" with const, reached through $ref, then a free branch. */
#define PINNED_DEFS                                                                              \
    "\"$defs\":{\"req\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"    \
    "\"jsonrpc\":{\"const\":\"2.0\"}},\"required\":[\"id\",\"jsonrpc\"]},"                     \
    "\"a\":{\"allOf\":[{\"$ref\":\"#/$defs/req\"}],\"properties\":{\"method\":{\"const\":\"a\"},"  \
    "\"x\":{\"type\":\"string\"}},\"required\":[\"method\"]},"                                   \
    "\"b\":{\"$ref\":\"#/$defs/req\",\"properties\":{\"method\":{\"const\":\"b\"},"               \
    "\"y\":{\"minimum\":0}},\"required\":[\"method\",\"y\"]},"                                   \
    "\"ab\":{\"properties\":{\"method\":{\"const\":\"ab\"}},\"required\":[\"method\"]}}"

static const char *const PINNED_INSTANCES[] = {
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"a\",\"x\":\"s\"}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"a\",\"x\":5}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"b\",\"y\":1}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"b\",\"y\":-1}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"b\"}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"ab\"}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"c\"}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"\"}",
    "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":1}",
    "{\"id\":1,\"jsonrpc\":\"2.0\"}",
    "{\"method\":\"a\"}",
    "{\"method\":\"ab\",\"x\":5}",
    "{}",
    "\"a\"",
    "[\"method\"]",
    "null",
};

static void test_dispatch(void)
{
    const size_t ni = sizeof PINNED_INSTANCES / sizeof *PINNED_INSTANCES;
    const char *any = "{" PINNED_DEFS ",\"anyOf\":[{\"$ref\":\"#/$defs/a\"},{\"$ref\":\"#/$defs/b\"},"
                      "{\"$ref\":\"#/$defs/ab\"},{\"type\":\"array\"}]}";
    js_schema *s = compile(any);
    if (s) {
        const js_dispatch *d = s->root->any_disp;
        CHECK(d != NULL, "anyOf over branches pinning \"method\" gets guards");
        /* branch 0 is guarded on method = "a" (through its $ref), the array branch not at all */
        bool pinned = false;
        for (int k = 0; d && k < JS_BRANCH_GUARDS && d->g[0][k].slot >= 0; k++)
            pinned |= strcmp(d->names[d->g[0][k].slot], "method") == 0 && d->g[0][k].str &&
                      strcmp(d->g[0][k].str, "a") == 0;
        CHECK(pinned, "branch 0 is guarded on method = \"a\"");
        CHECK(!d || d->g[3][0].slot < 0, "a branch that requires nothing has no guard");
        js_schema_free(s);
    }
    expect_same_as_unoptimised(any, PINNED_INSTANCES, ni);
    expect_valid(any, PINNED_INSTANCES[0], true);
    expect_valid(any, PINNED_INSTANCES[6], false);
    expect_valid(any, "[1]", true);
    /* the report of a failing anyOf still names every branch, guarded out or not */
    expect_error(any, PINNED_INSTANCES[3], "/y", "/anyOf/1/$ref/properties/y/minimum", ">= 0");
    expect_error(any, PINNED_INSTANCES[6], "/method", "/anyOf/0/$ref/properties/method/const",
                 "\"a\"");
    /* oneOf: the same guards; two matches still name both */
    const char *one = "{" PINNED_DEFS ",\"oneOf\":[{\"$ref\":\"#/$defs/a\"},{\"$ref\":\"#/$defs/b\"},"
                      "{\"$ref\":\"#/$defs/ab\"},{\"required\":[\"x\"]}]}";
    s = compile(one);
    CHECK(s && s->root->one_disp != NULL, "oneOf over pinned branches gets guards");
    js_schema_free(s);
    expect_same_as_unoptimised(one, PINNED_INSTANCES, ni);
    expect_error(one, PINNED_INSTANCES[0], "", "/oneOf", "at least 0 and 3");
    /* unevaluatedProperties after a guarded anyOf sees the annotations of the branch that ran */
    const char *uneval = "{" PINNED_DEFS ",\"anyOf\":[{\"$ref\":\"#/$defs/a\"},{\"$ref\":\"#/$defs/b\"}],"
                         "\"unevaluatedProperties\":false}";
    expect_valid(uneval, PINNED_INSTANCES[0], true);
    expect_error(uneval, "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"b\",\"y\":1,\"x\":\"s\"}", "/x",
                 "/unevaluatedProperties", "not allowed");
    static const char *const more[] = {
        "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"a\",\"x\":\"s\",\"y\":1}",
        "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"b\",\"y\":1,\"x\":\"s\"}",
    };
    expect_same_as_unoptimised(uneval, more, 2);
    expect_same_as_unoptimised(uneval, PINNED_INSTANCES, ni);
}

static void test_dispatch_not_applied(void)
{
    /* a recursive, in-place schema: no guards anywhere, and the loop is still reported */
    const char *loop = "{\"$defs\":{\"l\":{\"anyOf\":[{\"required\":[\"a\"]},{\"$ref\":\"#/$defs/l\"}]}},"
                       "\"anyOf\":[{\"$ref\":\"#/$defs/l\"},{\"required\":[\"b\"]}]}";
    js_schema *s = compile(loop);
    CHECK(s && s->root->any_disp == NULL, "no guards in a schema with an in-place cycle");
    js_schema_free(s);
    expect_valid(loop, "{\"a\":1}", true);
    expect_error(loop, "{\"b\":1}", "", "", "infinite reference loop");
    /* $dynamicRef: the branch's dynamic target is not a guard source, verdicts stay exact */
    const char *dyn =
        "{\"$id\":\"https://example.com/root\",\"$dynamicAnchor\":\"node\","
        "\"anyOf\":[{\"required\":[\"kind\"],\"properties\":{\"kind\":{\"const\":\"leaf\"}}},"
        "{\"required\":[\"kind\",\"kids\"],\"properties\":{\"kind\":{\"const\":\"tree\"},"
        "\"kids\":{\"items\":{\"$dynamicRef\":\"#node\"}}}}]}";
    static const char *const dinst[] = {
        "{\"kind\":\"leaf\"}", "{\"kind\":\"tree\",\"kids\":[{\"kind\":\"leaf\"}]}",
        "{\"kind\":\"tree\",\"kids\":[{\"kind\":\"bush\"}]}", "{\"kind\":\"tree\"}", "{}",
    };
    expect_same_as_unoptimised(dyn, dinst, sizeof dinst / sizeof *dinst);
    expect_valid(dyn, dinst[1], true);
    expect_error(dyn, dinst[2], "/kids/0/kind", "/anyOf/1/properties/kids/items/$dynamicRef/anyOf/0/properties/kind/const", "\"leaf\"");
    /* an anyOf with one branch beyond type: not folded */
    s = compile("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":0}]}");
    CHECK(s && s->root->any_types == 0, "anyOf with a non-type branch is not folded");
    js_schema_free(s);
}

static void test_folded_and_inline(void)
{
    /* anyOf of type-only branches folds into one type test; errors are the unfolded ones */
    const char *fold = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"},{\"type\":\"null\"}]}";
    js_schema *s = compile(fold);
    CHECK(s && s->root->any_types == (JT_STRING | JT_INTEGER | JT_NULL), "type-only anyOf folds");
    js_schema_free(s);
    static const char *const fi[] = {"\"s\"", "1", "1.0", "1.5", "null", "true", "{}", "[]"};
    expect_same_as_unoptimised(fold, fi, sizeof fi / sizeof *fi);
    expect_valid(fold, "1.0", true);
    expect_error(fold, "1.5", "", "/anyOf", "any of the 3 alternatives");
    /* string const and enum compared inline: prefixes, empty strings, other types */
    const char *cst = "{\"const\":\"ab\"}";
    s = compile(cst);
    CHECK(s && s->root->const_str && strcmp(s->root->const_str, "ab") == 0 && s->root->const_only,
          "string const kept, and checked without a call");
    js_schema_free(s);
    s = compile("{\"const\":\"ab\",\"type\":\"integer\"}");
    CHECK(s && !s->root->const_only, "a const beside a type that refuses strings takes the full path");
    js_schema_free(s);
    s = compile("{\"const\":\"ab\",\"minLength\":3}");
    CHECK(s && !s->root->const_only, "a const beside other string keywords takes the full path");
    js_schema_free(s);
    static const char *const ci[] = {"\"ab\"", "\"a\"", "\"abc\"", "\"\"", "\"b\"", "1", "[\"ab\"]"};
    expect_same_as_unoptimised(cst, ci, sizeof ci / sizeof *ci);
    expect_valid(cst, "\"ab\"", true);
    expect_valid(cst, "\"abc\"", false);
    expect_valid("{\"const\":\"\"}", "\"\"", true);
    expect_valid("{\"const\":\"\"}", "\"a\"", false);
    expect_error(cst, "\"a\"", "", "/const", "value \"a\" is not equal to the constant \"ab\"");
    expect_error("{\"const\":\"ab\",\"type\":\"integer\"}", "\"ab\"", "", "/type", "expected integer");
    expect_error("{\"const\":\"ab\",\"minLength\":3}", "\"ab\"", "", "/minLength", "at least 3");
    expect_valid("{\"enum\":[\"a\",1,\"1\",\"\"]}", "\"1\"", true);
    expect_valid("{\"enum\":[\"a\",1,\"1\",\"\"]}", "1.0", true);
    expect_valid("{\"enum\":[\"a\",1,\"1\",\"\"]}", "\"\"", true);
    expect_valid("{\"enum\":[\"a\",1,\"1\",\"\"]}", "\"2\"", false);
    expect_valid("{\"enum\":[\"ab\",[\"ab\"]]}", "\"a\"", false);
    /* a bare $ref hands over to its target in fast mode; errors still name the hop */
    s = compile("{\"properties\":{\"a\":{\"$ref\":\"#/$defs/p\"}},"
                "\"$defs\":{\"p\":{\"type\":\"string\",\"minLength\":2}}}");
    CHECK(s && s->root->nnames == 1 && s->root->names[0].schema->fast_to != NULL,
          "a bare $ref is skipped in fast mode");
    js_schema_free(s);
    expect_error("{\"properties\":{\"a\":{\"$ref\":\"#/$defs/p\"}},"
                 "\"$defs\":{\"p\":{\"type\":\"string\",\"minLength\":2}}}",
                 "{\"a\":\"x\"}", "/a", "/properties/a/$ref/minLength", "at least 2");
    /* with $dynamicRef, a bare $ref that roots its own resource stays: it is in the dynamic scope */
    const char *dyn = "{\"$id\":\"https://example.com/r\",\"$defs\":{\"t\":{\"$dynamicAnchor\":\"n\","
                      "\"type\":\"integer\"}},\"properties\":{\"a\":{\"$id\":\"https://example.com/a\","
                      "\"$ref\":\"https://example.com/r#/$defs/t\"},\"b\":{\"$ref\":\"#/$defs/t\"},"
                      "\"c\":{\"$dynamicRef\":\"#n\"}}}";
    s = compile(dyn);
    CHECK(s && s->root->nnames == 3 && !s->root->names[0].schema->fast_to,
          "a bare $ref with its own $id is kept when the schema has $dynamicRef");
    CHECK(s && s->root->nnames == 3 && s->root->names[1].schema->fast_to,
          "a bare $ref into its own resource is skipped even with $dynamicRef");
    js_schema_free(s);
    expect_error(dyn, "{\"a\":\"x\"}", "/a", "/properties/a/$ref/type", "expected integer");
    expect_valid(dyn, "{\"a\":1,\"b\":2,\"c\":3}", true);
    /* an object schema that asserts nothing passes like true, and adds no annotation */
    s = compile("{\"properties\":{\"a\":{},\"b\":{\"description\":\"d\"},\"c\":{\"type\":\"null\"}}}");
    CHECK(s && s->root->nnames == 3 && s->root->names[0].schema->kind == JS_TRUE &&
              s->root->names[1].schema->kind == JS_TRUE &&
              s->root->names[2].schema->kind == JS_OBJ_SCHEMA,
          "{} and annotation-only schemas become true, others stay");
    js_schema_free(s);
    expect_valid("{\"anyOf\":[{}],\"unevaluatedProperties\":false}", "{\"x\":1}", false);
    expect_valid("{\"allOf\":[{\"properties\":{\"x\":{}}}],\"unevaluatedProperties\":false}",
                 "{\"x\":1}", true);
    expect_valid("{\"additionalProperties\":{},\"unevaluatedProperties\":false}", "{\"x\":1}", true);
    expect_error("{\"properties\":{\"x\":{}},\"additionalProperties\":{},\"propertyNames\":{\"maxLength\":1}}",
                 "{\"x\":1,\"yy\":2}", "", "/propertyNames/maxLength", "property name \"yy\"");
    /* $ref targets without a loop skip the hop record: annotations and locations unchanged */
    const char *ref = "{\"$defs\":{\"p\":{\"properties\":{\"x\":{\"type\":\"string\"}}}},"
                      "\"$ref\":\"#/$defs/p\",\"unevaluatedProperties\":false}";
    expect_valid(ref, "{\"x\":\"s\"}", true);
    expect_error(ref, "{\"x\":\"s\",\"y\":1}", "/y", "/unevaluatedProperties", "not allowed");
    expect_error(ref, "{\"x\":1}", "/x", "/$ref/properties/x/type", "expected string");
}

/* The MCP envelope's shortcuts (jsoptimize.c): where each applies and where it must not. */
static void test_envelope_shortcuts(void)
{
    /* {"type": "object", "additionalProperties": {}}: type-only where no annotations are read */
    const char *params = "{\"properties\":{\"p\":{\"type\":\"object\",\"additionalProperties\":{}}}}";
    js_schema *s = compile(params);
    CHECK(s && s->root->nnames == 1 && s->root->names[0].schema->type_only,
          "an object schema with only a true additionalProperties is type-only");
    js_schema_free(s);
    expect_valid(params, "{\"p\":{\"a\":1,\"b\":[]}}", true);
    expect_error(params, "{\"p\":1}", "/p", "/properties/p/type", "expected object, got integer");
    /* ... but it still marks its members evaluated for an unevaluatedProperties beside it */
    const char *obj = "{\"type\":\"object\",\"additionalProperties\":{}}";
    char buf[512];
    snprintf(buf, sizeof buf, "{\"allOf\":[%s],\"unevaluatedProperties\":false}", obj);
    expect_valid(buf, "{\"x\":1}", true);
    snprintf(buf, sizeof buf, "{\"$ref\":\"#/$defs/o\",\"$defs\":{\"o\":%s},"
             "\"unevaluatedProperties\":false}", obj);
    expect_valid(buf, "{\"x\":1}", true);
    snprintf(buf, sizeof buf, "{\"anyOf\":[%s,{\"type\":\"string\"}],\"unevaluatedProperties\":false}",
             obj);
    s = compile(buf);
    CHECK(s && s->root->any_types == 0, "an anyOf with an annotating branch is not folded");
    js_schema_free(s);
    expect_valid(buf, "{\"x\":1}", true);
    expect_valid(buf, "\"s\"", true);
    expect_error(buf, "1", "", "/anyOf", "any of the 2 alternatives");
    /* not type-only once anything else applies to objects */
    static const char *const more_obj[] = {
        "{\"type\":\"object\",\"additionalProperties\":{},\"required\":[\"a\"]}",
        "{\"type\":\"object\",\"additionalProperties\":{},\"minProperties\":1}",
        "{\"type\":\"object\",\"additionalProperties\":{},\"propertyNames\":{\"maxLength\":1}}",
        "{\"type\":\"object\",\"additionalProperties\":{},\"properties\":{\"a\":{\"type\":\"null\"}}}",
        "{\"type\":\"object\",\"additionalProperties\":false}",
    };
    for (size_t i = 0; i < sizeof more_obj / sizeof *more_obj; i++) {
        s = compile(more_obj[i]);
        CHECK(s && !s->root->type_only, "%s is not type-only", more_obj[i]);
        js_schema_free(s);
    }
    expect_error(more_obj[0], "{}", "", "/required", "\"a\"");
    expect_error(more_obj[1], "{}", "", "/minProperties", "at least 1");
    expect_error(more_obj[2], "{\"ab\":1}", "", "/propertyNames/maxLength", "\"ab\"");
    expect_error(more_obj[3], "{\"a\":1}", "/a", "/properties/a/type", "expected null");
    expect_error(more_obj[4], "{\"a\":1}", "/a", "/additionalProperties", "not allowed");
    /* an anyOf alone goes straight to its branches; beside allOf or not, those still apply */
    const char *alone = "{\"anyOf\":[{\"required\":[\"b\"]},{\"required\":[\"c\"]}]}";
    s = compile(alone);
    CHECK(s && s->root->any_only, "a lone anyOf skips the in-place round");
    js_schema_free(s);
    const char *beside = "{\"allOf\":[{\"required\":[\"a\"]}],\"not\":{\"required\":[\"d\"]},"
                         "\"anyOf\":[{\"required\":[\"b\"]},{\"required\":[\"c\"]}]}";
    s = compile(beside);
    CHECK(s && !s->root->any_only, "an anyOf beside allOf/not takes the in-place round");
    js_schema_free(s);
    expect_valid(beside, "{\"a\":1,\"b\":1}", true);
    expect_error(beside, "{\"b\":1}", "", "/allOf/0/required", "\"a\"");
    expect_error(beside, "{\"a\":1,\"b\":1,\"d\":1}", "", "/not", "must not match");
    expect_error(beside, "{\"a\":1}", "", "/anyOf", "at least one of the properties");
    /* a root that is nothing but an anyOf (past a bare $ref) is entered at its branches;
     * not when anything else applies at the root, or with $dynamicRef */
    s = compile("{\"$ref\":\"#/$defs/u\",\"$defs\":{\"u\":" "{\"anyOf\":[{\"type\":\"string\"},"
                "{\"required\":[\"a\"]}]}}}");
    CHECK(s && s->root_any && s->root_any != s->root, "a root $ref to a lone anyOf enters it");
    js_schema_free(s);
    static const char *const not_root_any[] = {
        "{\"type\":\"object\",\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}",
        "{\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}],\"unevaluatedProperties\":false}",
        "{\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}],\"maxProperties\":1}",
        "{\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}],\"const\":{\"a\":1}}",
        "{\"$dynamicAnchor\":\"r\",\"anyOf\":[{\"required\":[\"a\"]},"
        "{\"properties\":{\"k\":{\"$dynamicRef\":\"#r\"}}}]}",
    };
    for (size_t i = 0; i < sizeof not_root_any / sizeof *not_root_any; i++) {
        s = compile(not_root_any[i]);
        CHECK(s && !s->root_any, "%s: the root takes the usual path", not_root_any[i]);
        js_schema_free(s);
    }
    expect_error(not_root_any[0], "[1]", "", "/type", "expected object");
    expect_error(not_root_any[1], "{\"a\":1,\"b\":1,\"c\":1}", "/c", "/unevaluatedProperties",
                 "not allowed");
    expect_error(not_root_any[2], "{\"a\":1,\"b\":1}", "", "/maxProperties", "at most 1");
    expect_error(not_root_any[3], "{\"a\":2}", "", "/const", "constant");
    expect_valid(not_root_any[4], "{\"k\":{\"a\":1}}", true);
    expect_valid(not_root_any[4], "{\"k\":{\"k\":1}}", true);
    expect_valid(alone, "{\"c\":1}", true);
    expect_error(alone, "{\"d\":1}", "", "/anyOf", "at least one of the properties");
    /* a root anyOf that reaches itself without progress still reports the loop */
    expect_error("{\"anyOf\":[{\"required\":[\"a\"]},{\"$ref\":\"#\"}]}", "{\"b\":1}", "",
                 "/anyOf/1/$ref/anyOf/1/$ref", "infinite reference loop");
    /* guards found in one pass: names that share first bytes, the empty name, a branch that
     * differs from another only in the dispatch member's value */
    const char *names =
        "{\"anyOf\":[{\"required\":[\"me\"],\"properties\":{\"me\":{\"const\":\"x\"}}},"
        "{\"required\":[\"method\"],\"properties\":{\"method\":{\"const\":\"x\"}}},"
        "{\"required\":[\"\"],\"properties\":{\"\":{\"const\":\"y\"}}},"
        "{\"required\":[\"method\"],\"properties\":{\"method\":{\"const\":\"y\"},\"n\":{\"type\":\"null\"}}}]}";
    s = compile(names);
    CHECK(s && s->root->any_disp && s->root->any_disp->nnames == 3, "three guarded names");
    js_schema_free(s);
    static const char *const ni[] = {
        "{\"me\":\"x\"}", "{\"me\":\"y\"}", "{\"meth\":\"x\"}", "{\"method\":\"x\"}",
        "{\"method\":\"y\"}", "{\"method\":\"y\",\"n\":1}", "{\"method\":\"z\"}", "{\"\":\"y\"}",
        "{\"\":\"x\"}", "{\"m\":\"x\",\"e\":\"x\"}", "{\"methods\":\"x\"}", "{}", "[]",
        "{\"method\":\"z\",\"\":\"y\",\"me\":\"y\"}",
    };
    expect_same_as_unoptimised(names, ni, sizeof ni / sizeof *ni);
    expect_valid(names, "{\"method\":\"y\",\"n\":null}", true);
    expect_valid(names, "{\"methods\":\"x\"}", false);
    expect_error(names, "{\"method\":\"y\",\"n\":1}", "/n", "/anyOf/3/properties/n/type",
                 "expected null");
    /* member names compared up to the schema name's length: prefixes and extensions differ */
    const char *pre = "{\"properties\":{\"ab\":{\"type\":\"null\"},\"abc\":{\"type\":\"null\"}},"
                      "\"additionalProperties\":false}";
    expect_valid(pre, "{\"ab\":null,\"abc\":null}", true);
    expect_valid(pre, "{\"a\":null}", false);
    expect_valid(pre, "{\"abcd\":null}", false);
    expect_error(pre, "{\"abc\":1}", "/abc", "/properties/abc/type", "expected null");
    expect_error(pre, "{\"abd\":null}", "/abd", "/additionalProperties", "not allowed");
}

/* JSON-RPC-like envelope: four object branches told apart by their members (MCP's shape). */
#define ENVELOPE_DEFS                                                                            \
    "\"$defs\":{\"rid\":{\"type\":[\"string\",\"integer\"]},"                                     \
    "\"req\":{\"type\":\"object\",\"properties\":{\"id\":{\"$ref\":\"#/$defs/rid\"},"            \
    "\"jsonrpc\":{\"const\":\"2.0\"},\"method\":{\"type\":\"string\"},"                          \
    "\"params\":{\"type\":\"object\",\"additionalProperties\":{}}},"                              \
    "\"required\":[\"id\",\"jsonrpc\",\"method\"]},"                                             \
    "\"note\":{\"type\":\"object\",\"properties\":{\"jsonrpc\":{\"const\":\"2.0\"},"             \
    "\"method\":{\"type\":\"string\"}},\"required\":[\"jsonrpc\",\"method\"],"                   \
    "\"additionalProperties\":false},"                                                           \
    "\"res\":{\"type\":\"object\",\"properties\":{\"id\":{\"$ref\":\"#/$defs/rid\"},"            \
    "\"jsonrpc\":{\"const\":\"2.0\"},\"result\":{\"type\":\"object\"}},"                         \
    "\"required\":[\"id\",\"jsonrpc\",\"result\"]},"                                             \
    "\"err\":{\"type\":\"object\",\"properties\":{\"id\":{},\"jsonrpc\":{\"const\":\"2.0\"},"    \
    "\"error\":{\"type\":\"object\",\"required\":[\"code\"]}},\"required\":[\"error\",\"jsonrpc\"]}}"

#define ENVELOPE_ANY                                                                             \
    "\"anyOf\":[{\"$ref\":\"#/$defs/req\"},{\"$ref\":\"#/$defs/note\"},{\"$ref\":\"#/$defs/res\"}," \
    "{\"$ref\":\"#/$defs/err\"}]"

static const char *const ENVELOPES[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[]}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"x\":1}",
    "{\"jsonrpc\":\"1.0\",\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"method\":5}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{}}",
    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1}",
    "{\"id\":1,\"result\":{}}",
    "{}",
    "[]",
    "\"2.0\"",
};

/* An object of n members m0..m(n-1) plus the given members (JSON text, leading comma). */
static char *wide_object(int n, const char *tail)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "{");
    for (int i = 0; i < n; i++)
        tg_buf_printf(&b, "%s\"m%d\":%d", i ? "," : "", i, i);
    tg_buf_puts(&b, tail);
    tg_buf_puts(&b, "}");
    return tg_buf_steal(&b);
}

static void test_flat_branches(void)
{
    const size_t ne = sizeof ENVELOPES / sizeof *ENVELOPES;
    const char *env = "{" ENVELOPE_DEFS "," ENVELOPE_ANY "}";
    js_schema *s = compile(env);
    const js_dispatch *d = s ? s->root->any_disp : NULL;
    CHECK(d && d->flat && d->flat[0] && d->flat[1] && d->flat[2] && d->flat[3],
          "every envelope branch is evaluated flat");
    CHECK(d && d->nall == 6, "six names in the dispatch table (got %d)", d ? d->nall : -1);
    js_schema_free(s);
    expect_same_as_unoptimised(env, ENVELOPES, ne);
    expect_valid(env, ENVELOPES[0], true);
    expect_valid(env, ENVELOPES[2], false);
    expect_valid(env, ENVELOPES[6], false);
    expect_valid(env, ENVELOPES[11], true);
    expect_valid(env, ENVELOPES[12], false);
    expect_error(env, ENVELOPES[6], "/x", "/anyOf/1/$ref/additionalProperties", "not allowed");
    expect_error(env, ENVELOPES[12], "/error", "/anyOf/3/$ref/properties/error/required",
                 "\"code\"");
    /* more members than the flat evaluation records: the usual path, same verdicts */
    char *wide_ok = wide_object(40, ",\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"");
    char *wide_bad = wide_object(40, ",\"jsonrpc\":\"2.0\",\"method\":\"m\"");
    char *wide_bad2 = wide_object(40, ",\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7");
    const char *wide[] = {wide_ok, wide_bad, wide_bad2};
    expect_same_as_unoptimised(env, wide, 3);
    expect_valid(env, wide_ok, true);
    expect_valid(env, wide_bad, false);
    expect_error(env, wide_bad2, "/method", "/anyOf/0/$ref/properties/method/type",
                 "expected string");
    free(wide_ok);
    free(wide_bad);
    free(wide_bad2);
    /* unevaluatedProperties after the anyOf: the branch's annotations are needed, no flat path */
    const char *unev = "{" ENVELOPE_DEFS "," ENVELOPE_ANY ",\"unevaluatedProperties\":false}";
    expect_same_as_unoptimised(unev, ENVELOPES, ne);
    expect_valid(unev, ENVELOPES[0], true);
    expect_valid(unev, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", true);
    expect_error(unev, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"x\":1}", "/x",
                 "/unevaluatedProperties", "not allowed");
    /* not flat: a branch with patternProperties or minProperties, one whose names no longer
     * fit the table, any branch of a schema with $dynamicRef */
    const char *mixed =
        "{\"anyOf\":[{\"required\":[\"a\"],\"properties\":{\"a\":{\"const\":\"x\"}},"
        "\"patternProperties\":{\"^p\":{\"type\":\"null\"}}},"
        "{\"required\":[\"b\"],\"minProperties\":2},"
        "{\"required\":[\"c\"],\"properties\":{\"c1\":{},\"c2\":{},\"c3\":{},\"c4\":{},\"c5\":{},"
        "\"c6\":{},\"c7\":{\"type\":\"null\"}}},"
        "{\"required\":[\"d\"],\"properties\":{\"d\":{\"type\":\"integer\"}}}]}";
    s = compile(mixed);
    d = s ? s->root->any_disp : NULL;
    CHECK(d && d->flat && !d->flat[0] && !d->flat[1] && !d->flat[2] && d->flat[3],
          "only the plain branch whose names fit is flat");
    js_schema_free(s);
    static const char *const mi[] = {
        "{\"a\":\"x\",\"p1\":null}", "{\"a\":\"x\",\"p1\":1}", "{\"b\":1}", "{\"b\":1,\"z\":1}",
        "{\"c\":1,\"c7\":null}", "{\"c\":1,\"c7\":1}", "{\"d\":1}", "{\"d\":\"1\"}", "{}",
    };
    expect_same_as_unoptimised(mixed, mi, sizeof mi / sizeof *mi);
    expect_valid(mixed, "{\"a\":\"x\",\"p1\":1}", false);
    expect_valid(mixed, "{\"b\":1}", false);
    expect_valid(mixed, "{\"c\":1,\"c7\":1}", false);
    const char *dyn = "{\"$id\":\"https://example.com/env\",\"$dynamicAnchor\":\"t\","
                      "\"properties\":{\"z\":{\"$dynamicRef\":\"#t\"}}," ENVELOPE_DEFS
                      "," ENVELOPE_ANY "}";
    s = compile(dyn);
    d = s ? s->root->any_disp : NULL;
    CHECK(s && s->has_dynamic && d && !d->flat[0] && !d->flat[1],
          "no flat branch in a schema with $dynamicRef");
    js_schema_free(s);
    expect_same_as_unoptimised(dyn, ENVELOPES, ne);
}

int main(void)
{
    reg = js_registry_new();
    tg_err err;
    tg_err_clear(&err);
    CHECK(js_registry_add_metaschemas(reg, &err) == 0, "meta-schemas: %s", err.msg);
    test_error_locations();
    test_alternatives();
    test_fast_vs_full();
    test_loops();
    test_schema_errors();
    test_meta();
    test_registry();
    test_numbers();
    test_limits();
    test_booleans_and_vocab();
    test_regex_dialect();
    test_fastre_vs_pcre2();
    test_formats();
    test_threads();
    test_dispatch();
    test_dispatch_not_applied();
    test_folded_and_inline();
    test_envelope_shortcuts();
    test_flat_branches();
    js_registry_free(reg);
    return tl_finish("test_jsonschema");
}
