/* test_review_schema.c — the schema-change classifier (lifecycle/review_schema.h), by table. */
#include <stdlib.h>

#include "base/json.h"
#include "lifecycle/review_schema.h"
#include "testlib.h"

enum { IN = TG_SIDE_INPUT, OUT = TG_SIDE_OUTPUT };
#define B TG_CHANGE_BREAKING
#define P TG_CHANGE_POSSIBLY_BREAKING
#define C TG_CHANGE_COMPATIBLE
#define I TG_CHANGE_INFORMATIONAL
#define N TG_CHANGE_NONE

typedef struct row {
    const char *name;
    int side;
    const char *before, *after; /* JSON; NULL = the field is absent */
    tg_change_class want;       /* the most severe class of the changes */
    const char *pointer;        /* a pointer the most severe change must carry, or NULL */
} row;

#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]}"
#define CLOSED(props, req)                                                                  \
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" props             \
    "},\"required\":[" req "]}"
#define DEFS(defs, body) "{\"$defs\":{" defs "}," body "}"

static const row rows[] = {
    /* identical and annotation-only */
    {"identical", IN, OBJ("\"a\":{\"type\":\"string\"}", "\"a\""),
     OBJ("\"a\":{\"type\":\"string\"}", "\"a\""), N, NULL},
    {"description changed", IN, "{\"type\":\"string\",\"description\":\"x\"}",
     "{\"type\":\"string\",\"description\":\"y\"}", I, "/description"},
    {"title added", OUT, "{\"type\":\"string\"}", "{\"type\":\"string\",\"title\":\"T\"}", I,
     "/title"},
    {"examples changed", IN, "{\"examples\":[1]}", "{\"examples\":[2]}", I, "/examples"},
    {"default changed", IN, "{\"type\":\"integer\",\"default\":1}",
     "{\"type\":\"integer\",\"default\":2}", I, "/default"},
    /* required */
    {"input: new required property", IN, OBJ("\"a\":{}", ""), OBJ("\"a\":{}", "\"a\""), B,
     "/required"},
    {"input: property no longer required", IN, OBJ("\"a\":{}", "\"a\""), OBJ("\"a\":{}", ""), C,
     "/required"},
    {"output: property made optional", OUT, OBJ("\"a\":{}", "\"a\""), OBJ("\"a\":{}", ""), B,
     "/required"},
    {"output: property made required", OUT, OBJ("\"a\":{}", ""), OBJ("\"a\":{}", "\"a\""), C,
     "/required"},
    /* properties */
    {"input: new optional property", IN, OBJ("\"a\":{}", ""), OBJ("\"a\":{},\"b\":{}", ""), C,
     "/properties/b"},
    {"output: new property", OUT, OBJ("\"a\":{}", ""), OBJ("\"a\":{},\"b\":{}", ""), C,
     "/properties/b"},
    {"input: property removed, additional forbidden", IN,
     CLOSED("\"a\":{},\"b\":{}", ""), CLOSED("\"a\":{}", ""), B, "/properties/b"},
    {"input: property removed, additional allowed", IN, OBJ("\"a\":{},\"b\":{}", ""),
     OBJ("\"a\":{}", ""), C, "/properties/b"},
    {"output: property removed", OUT, OBJ("\"a\":{},\"b\":{}", ""), OBJ("\"a\":{}", ""), B,
     "/properties/b"},
    {"property name with a slash", IN, OBJ("\"a/b\":{\"type\":\"string\"}", ""),
     OBJ("\"a/b\":{\"type\":\"integer\"}", ""), B, "/properties/a~1b/type"},
    /* additionalProperties flips */
    {"input: additionalProperties true -> false", IN, "{\"type\":\"object\"}",
     "{\"type\":\"object\",\"additionalProperties\":false}", B, "/additionalProperties"},
    {"input: additionalProperties false -> true", IN,
     "{\"type\":\"object\",\"additionalProperties\":false}",
     "{\"type\":\"object\",\"additionalProperties\":true}", C, "/additionalProperties"},
    {"output: additionalProperties false -> absent", OUT,
     "{\"type\":\"object\",\"additionalProperties\":false}", "{\"type\":\"object\"}", B,
     "/additionalProperties"},
    {"output: additionalProperties absent -> false", OUT, "{\"type\":\"object\"}",
     "{\"type\":\"object\",\"additionalProperties\":false}", C, "/additionalProperties"},
    {"input: additionalProperties schema narrowed", IN,
     "{\"additionalProperties\":{\"type\":[\"string\",\"integer\"]}}",
     "{\"additionalProperties\":{\"type\":\"string\"}}", B, "/additionalProperties/type"},
    /* types */
    {"input: type narrowed", IN, "{\"type\":[\"string\",\"null\"]}", "{\"type\":\"string\"}", B,
     "/type"},
    {"input: type widened", IN, "{\"type\":\"string\"}", "{\"type\":[\"string\",\"null\"]}", C,
     "/type"},
    {"input: integer -> number widens", IN, "{\"type\":\"integer\"}", "{\"type\":\"number\"}", C,
     "/type"},
    {"input: number -> integer narrows", IN, "{\"type\":\"number\"}", "{\"type\":\"integer\"}",
     B, "/type"},
    {"output: type widened", OUT, "{\"type\":\"integer\"}",
     "{\"type\":[\"integer\",\"null\"]}", B, "/type"},
    {"output: type narrowed", OUT, "{\"type\":[\"integer\",\"null\"]}", "{\"type\":\"integer\"}",
     C, "/type"},
    {"type changed to a disjoint one", OUT, "{\"type\":\"string\"}", "{\"type\":\"integer\"}", B,
     "/type"},
    /* enums */
    {"input: enum shrinks", IN, "{\"enum\":[\"a\",\"b\",\"c\"]}", "{\"enum\":[\"a\",\"b\"]}", B,
     "/enum"},
    {"input: enum grows", IN, "{\"enum\":[\"a\",\"b\"]}", "{\"enum\":[\"a\",\"b\",\"c\"]}", C,
     "/enum"},
    {"output: enum grows", OUT, "{\"enum\":[\"a\",\"b\"]}", "{\"enum\":[\"a\",\"b\",\"c\"]}", B,
     "/enum"},
    {"output: enum shrinks", OUT, "{\"enum\":[\"a\",\"b\",\"c\"]}", "{\"enum\":[\"a\",\"b\"]}", C,
     "/enum"},
    {"enum reordered", IN, "{\"enum\":[\"a\",\"b\"]}", "{\"enum\":[\"b\",\"a\"]}", N, NULL},
    {"input: const added", IN, "{\"type\":\"string\"}", "{\"type\":\"string\",\"const\":\"x\"}",
     B, "/const"},
    {"input: const -> enum with more", IN, "{\"const\":\"x\"}", "{\"enum\":[\"x\",\"y\"]}", C,
     NULL},
    /* numeric bounds, both directions */
    {"input: maximum lowered", IN, "{\"maximum\":100}", "{\"maximum\":50}", B, "/maximum"},
    {"input: maximum raised", IN, "{\"maximum\":50}", "{\"maximum\":100}", C, "/maximum"},
    {"input: minimum raised", IN, "{\"minimum\":0}", "{\"minimum\":1}", B, "/minimum"},
    {"input: minimum lowered", IN, "{\"minimum\":1}", "{\"minimum\":0}", C, "/minimum"},
    {"input: minimum added", IN, "{\"type\":\"integer\"}",
     "{\"type\":\"integer\",\"minimum\":0}", B, "/minimum"},
    {"input: maximum removed", IN, "{\"maximum\":9}", "{}", C, "/maximum"},
    {"output: maximum raised", OUT, "{\"maximum\":50}", "{\"maximum\":100}", B, "/maximum"},
    {"output: exclusiveMinimum raised", OUT, "{\"exclusiveMinimum\":0}",
     "{\"exclusiveMinimum\":1}", C, "/exclusiveMinimum"},
    {"input: maxLength tightened", IN, "{\"maxLength\":1024}", "{\"maxLength\":256}", B,
     "/maxLength"},
    {"input: minLength relaxed", IN, "{\"minLength\":5}", "{\"minLength\":1}", C, "/minLength"},
    {"input: maxItems lowered", IN, "{\"maxItems\":10}", "{\"maxItems\":5}", B, "/maxItems"},
    {"input: multipleOf 2 -> 4", IN, "{\"multipleOf\":2}", "{\"multipleOf\":4}", B,
     "/multipleOf"},
    {"input: multipleOf 4 -> 2", IN, "{\"multipleOf\":4}", "{\"multipleOf\":2}", C,
     "/multipleOf"},
    {"multipleOf 2 -> 3", IN, "{\"multipleOf\":2}", "{\"multipleOf\":3}", B, "/multipleOf"},
    /* patterns and formats */
    {"input: pattern added", IN, "{\"type\":\"string\"}",
     "{\"type\":\"string\",\"pattern\":\"^a\"}", B, "/pattern"},
    {"input: pattern removed", IN, "{\"pattern\":\"^a\"}", "{}", C, "/pattern"},
    {"pattern changed: undecidable", IN, "{\"pattern\":\"^a\"}", "{\"pattern\":\"^[ab]\"}", P,
     "/pattern"},
    {"format changed: undecidable", OUT, "{\"format\":\"date\"}", "{\"format\":\"date-time\"}",
     P, "/format"},
    {"input: uniqueItems required", IN, "{\"type\":\"array\"}",
     "{\"type\":\"array\",\"uniqueItems\":true}", B, "/uniqueItems"},
    /* $refs: a moved or renamed definition is no change */
    {"$ref moved to another $defs name", IN,
     DEFS("\"a\":{\"type\":\"string\",\"maxLength\":9}",
          "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a\"}}"),
     DEFS("\"b\":{\"type\":\"string\",\"maxLength\":9}",
          "\"properties\":{\"x\":{\"$ref\":\"#/$defs/b\"}}"),
     N, NULL},
    {"$ref inlined", IN,
     DEFS("\"a\":{\"type\":\"string\"}", "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a\"}}"),
     "{\"properties\":{\"x\":{\"type\":\"string\"}}}", N, NULL},
    {"definitions -> $defs", OUT,
     "{\"definitions\":{\"a\":{\"type\":\"integer\"}},\"items\":{\"$ref\":\"#/definitions/a\"}}",
     "{\"$defs\":{\"a\":{\"type\":\"integer\"}},\"items\":{\"$ref\":\"#/$defs/a\"}}", N, NULL},
    {"change behind a $ref", IN,
     DEFS("\"a\":{\"type\":\"integer\",\"maximum\":10}",
          "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a\"}}"),
     DEFS("\"a\":{\"type\":\"integer\",\"maximum\":5}",
          "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a\"}}"),
     B, "/properties/x/maximum"},
    {"unused $defs changed", IN, DEFS("\"u\":{\"type\":\"string\"}", "\"type\":\"object\""),
     DEFS("\"u\":{\"type\":\"integer\"}", "\"type\":\"object\""), N, NULL},
    /* oneOf / anyOf / allOf */
    {"oneOf reordered", IN, "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}",
     "{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"string\"}]}", N, NULL},
    {"input: anyOf branch added", IN, "{\"anyOf\":[{\"type\":\"string\"}]}",
     "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}", C, "/anyOf/1"},
    {"input: oneOf branch removed", IN,
     "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}",
     "{\"oneOf\":[{\"type\":\"string\"}]}", B, "/oneOf/1"},
    {"output: oneOf branch added", OUT, "{\"oneOf\":[{\"type\":\"string\"}]}",
     "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", B, "/oneOf/1"},
    {"oneOf branch changed in place", IN,
     "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"maximum\":5}]}",
     "{\"oneOf\":[{\"type\":\"integer\",\"maximum\":3},{\"type\":\"string\"}]}", B,
     "/oneOf/0/maximum"},
    {"input: allOf member added", IN, "{\"allOf\":[{\"type\":\"object\"}]}",
     "{\"allOf\":[{\"type\":\"object\"},{\"required\":[\"a\"]}]}", B, "/allOf/1"},
    /* arrays, nested */
    {"input: nested array items narrowed", IN,
     "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}}",
     "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}}", B,
     "/items/items/type"},
    {"output: nested array item property removed", OUT,
     "{\"type\":\"array\",\"items\":" OBJ("\"k\":{},\"v\":{}", "\"k\",\"v\"") "}",
     "{\"type\":\"array\",\"items\":" OBJ("\"k\":{}", "\"k\"") "}", B, "/items/properties/v"},
    {"input: items added", IN, "{\"type\":\"array\"}",
     "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", B, "/items/type"},
    {"input: prefixItems item added", IN, "{\"prefixItems\":[{\"type\":\"string\"}]}",
     "{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", B, "/prefixItems/1"},
    {"input: contains added", IN, "{\"type\":\"array\"}",
     "{\"type\":\"array\",\"contains\":{\"const\":1}}", B, "/contains"},
    /* undecidable keywords */
    {"not changed", IN, "{\"not\":{\"type\":\"string\"}}", "{\"not\":{\"type\":\"integer\"}}", P,
     "/not"},
    {"if/then added", IN, "{}", "{\"if\":{\"required\":[\"a\"]},\"then\":{\"required\":[\"b\"]}}",
     P, NULL},
    {"extension keyword changed", IN, "{\"x-toolgen-path\":\"read\"}",
     "{\"x-toolgen-path\":\"write\"}", P, "/x-toolgen-path"},
    /* whole schemas */
    {"input: schema added where absent", IN, NULL, "{\"type\":\"object\"}", B, "/type"},
    {"input: true -> false", IN, "true", "false", B, ""},
    {"output: false -> true", OUT, "false", "true", B, ""},
    {"new schema does not compile", IN, "{\"type\":\"string\"}", "{\"type\":\"strin\"}", P, ""},
};

static cJSON *parse(const char *s)
{
    if (!s)
        return NULL;
    cJSON *v = cJSON_Parse(s);
    if (!v)
        fprintf(stderr, "bad JSON in the table: %s\n", s);
    return v;
}

static void check_row(const row *r)
{
    cJSON *a = parse(r->before), *b = parse(r->after);
    tg_changes ch = {0};
    tg_review_schema(a, b, (tg_schema_side)r->side, "input_schema", &ch);
    tg_changes_sort(&ch);
    tg_change_class got = tg_changes_worst(&ch);
    CHECK(got == r->want, "%s: got %s, want %s (%zu changes%s%s)", r->name,
          tg_change_class_name(got), tg_change_class_name(r->want), ch.n, ch.n ? ": " : "",
          ch.n ? ch.v[0].message : "");
    if (r->pointer && ch.n) {
        bool found = false;
        for (size_t i = 0; i < ch.n && ch.v[i].cls == got; i++)
            found |= strcmp(ch.v[i].pointer, r->pointer) == 0;
        CHECK(found, "%s: no %s change at %s (first: %s %s)", r->name,
              tg_change_class_name(got), r->pointer, ch.v[0].pointer, ch.v[0].message);
    }
    tg_changes_free(&ch);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_inline_recursive(void)
{
    /* A recursive definition stays a $ref (compared by its target) instead of looping. */
    cJSON *s = cJSON_Parse("{\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"kids\":"
                           "{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}}}},"
                           "\"$ref\":\"#/$defs/node\"}");
    cJSON *r = tg_schema_inline_refs(s);
    char *text = tg_json_print_compact(r);
    CHECK_CONTAINS(text, "\"items\":{\"$ref\":\"#/$defs/node\"}");
    CHECK(!strstr(text, "$defs\":{"), "the $defs are dropped: %s", text);
    free(text);
    cJSON_Delete(r);
    cJSON_Delete(s);
}

static void test_messages(void)
{
    cJSON *a = cJSON_Parse(OBJ("\"a\":{}", "")), *b = cJSON_Parse(OBJ("\"a\":{}", "\"a\""));
    tg_changes ch = {0};
    tg_review_schema(a, b, TG_SIDE_INPUT, "input_schema", &ch);
    CHECK(ch.n == 1, "one change, got %zu", ch.n);
    if (ch.n) {
        CHECK_CONTAINS(ch.v[0].message, "property \"a\" is now required");
        CHECK(strcmp(ch.v[0].area, "input_schema") == 0, "area %s", ch.v[0].area);
    }
    tg_changes_free(&ch);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

int main(void)
{
    size_t n = sizeof rows / sizeof *rows;
    CHECK(n >= 40, "at least 40 schema changes in the table, got %zu", n);
    for (size_t i = 0; i < n; i++)
        check_row(&rows[i]);
    test_inline_recursive();
    test_messages();
    return tl_finish("test_review_schema");
}
