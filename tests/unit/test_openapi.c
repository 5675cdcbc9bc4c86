/*
 * test_openapi.c — the pieces of `toolgen init --from-openapi` (app/openapi_int.h,
 * docs/cli.md#init-from-openapi) one by one: tool names (snake_case, the budget and its hash
 * suffix, collisions), identifiers, the OpenAPI → JSON Schema conversion (nullable, boolean
 * exclusive bounds, readOnly / writeOnly, dropped keywords, $ref siblings, cycles cut),
 * illustrative values (patterns, formats, bounds), and base/yamlout's round trip through the
 * YAML reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/openapi_int.h"
#include "base/doc.h"
#include "base/yamlout.h"
#include "testlib.h"

static void test_names(void)
{
    char *n = oa_tool_name("showPetById", "get", "/pets/{petId}", 48);
    CHECK(strcmp(n, "show_pet_by_id") == 0, "%s", n);
    free(n);
    n = oa_tool_name("getHTTPServer2Config", "get", "/x", 48);
    CHECK(strcmp(n, "get_http_server2_config") == 0, "%s", n);
    free(n);
    n = oa_tool_name("repos/list-for-org", "get", "/x", 48);
    CHECK(strcmp(n, "repos_list_for_org") == 0, "%s", n);
    free(n);
    n = oa_tool_name(NULL, "get", "/pets/{petId}/toys", 48);
    CHECK(strcmp(n, "get_pets_by_pet_id_toys") == 0, "no operationId: method and path: %s", n);
    free(n);
    n = oa_tool_name("2fa-enable", "post", "/x", 48);
    CHECK(strcmp(n, "op_2fa_enable") == 0, "a name starts with a letter: %s", n);
    free(n);
    const char *id = "listAllTheOwnersOfPetsRegisteredWithTheStoreTogetherWithTheirPets";
    char *a = oa_tool_name(id, "get", "/owners", 48), *b = oa_tool_name(id, "get", "/o", 48);
    CHECK(strlen(a) <= 48 && strcmp(a, b) == 0, "cut deterministically: %s / %s", a, b);
    CHECK(strncmp(a, "list_all_the_owners", 19) == 0 && a[strlen(a) - 9] == '_',
          "a prefix, '_' and 8 hex digits: %s", a);
    free(b);
    b = oa_tool_name("listAllTheOwnersOfPetsRegisteredWithTheStoreTogetherWithTheirPetz", "get",
                     "/owners", 48);
    CHECK(strcmp(a, b) != 0, "names cut to the same prefix differ by their hash: %s", b);
    free(a);
    free(b);

    tg_strv taken = TG_STRV_INIT;
    char *u1 = oa_unique_name("find_pets", "get /a", 48, &taken);
    char *u2 = oa_unique_name("find_pets", "get /b", 48, &taken);
    char *u3 = oa_unique_name("find_pets", "get /c", 48, &taken);
    CHECK(strcmp(u1, "find_pets") == 0, "%s", u1);
    CHECK(strncmp(u2, "find_pets_", 10) == 0 && strlen(u2) == 18, "%s", u2);
    CHECK(strcmp(u2, u3) != 0 && strcmp(u1, u3) != 0, "%s %s", u2, u3);
    free(u1);
    free(u2);
    free(u3);
    tg_strv_free(&taken);

    tg_strv ids = TG_STRV_INIT;
    char *i1 = oa_ident("X-Request-ID", &ids), *i2 = oa_ident("X_Request_ID", &ids);
    char *i3 = oa_ident("2nd", &ids);
    CHECK(strcmp(i1, "X_Request_ID") == 0 && strcmp(i2, "X_Request_ID_2") == 0, "%s %s", i1, i2);
    CHECK(strcmp(i3, "_2nd") == 0, "%s", i3);
    free(i1);
    free(i2);
    free(i3);
    tg_strv_free(&ids);
    char *env = oa_env_name("Swagger Petstore");
    CHECK(strcmp(env, "SWAGGER_PETSTORE_API_TOKEN") == 0, "%s", env);
    free(env);
}

/* s (YAML) converted as a 3.0 (v30) or 3.1 document whose components are in doc_yaml. */
static char *convert(const char *doc_yaml, const char *at, bool v30, enum oa_side side,
                     size_t *cuts)
{
    tg_doc d;
    tg_err err = {0};
    SETUP(tg_doc_parse_yaml(doc_yaml, strlen(doc_yaml), "t.yaml", NULL, &d, &err) == 0, "%s",
          err.msg);
    oa_ctx c = {.doc = &d, .cur = d.root, .v30 = v30, .err = &err};
    cJSON *out = oa_schema(&c, tg_json_pointer_get(d.root, at), at, side);
    char *text = out ? tg_json_print_compact(out) : xasprintf("ERROR %s:%d: %s", err.file,
                                                               err.line, err.msg);
    if (cuts)
        *cuts = c.cuts;
    cJSON_Delete(out);
    oa_ctx_free(&c);
    tg_doc_free(&d);
    return text;
}

static void expect_convert(const char *doc, const char *at, bool v30, enum oa_side side,
                           const char *want)
{
    char *got = convert(doc, at, v30, side, NULL);
    CHECK(strcmp(got, want) == 0, "%s\n  got  %s\n  want %s", at, got, want);
    free(got);
}

static void test_schemas(void)
{
    const char *doc =
        "s:\n"
        "  str: {type: string, nullable: true, example: x}\n"
        "  en: {type: string, enum: [a, b], nullable: true}\n"
        "  ref_null: {allOf: [{$ref: '#/s/str'}], nullable: true}\n"
        "  bounds: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 9,"
        " exclusiveMaximum: false}\n"
        "  obj: {type: object, required: [id, name, pw], discriminator: {propertyName: name},"
        " xml: {name: o}, x-internal: 1, properties: {id: {type: integer, readOnly: true},"
        " name: {type: string}, pw: {type: string, writeOnly: true}}}\n"
        "  sib: {$ref: '#/s/str', description: over}\n"
        "  node: {type: object, properties: {next: {$ref: '#/s/node'}}}\n"
        "  dangling: {$ref: '#/s/nope'}\n"
        "  ext: {$ref: 'other.yaml#/x'}\n"
        "  huge: {type: string, minLength: 1e42}\n"
        "  frac: {type: string, minLength: 1.5}\n";
    expect_convert(doc, "/s/str", true, OA_IN,
                   "{\"type\":[\"string\",\"null\"],\"examples\":[\"x\"]}");
    expect_convert(doc, "/s/str", false, OA_IN, "{\"type\":\"string\",\"examples\":[\"x\"]}");
    expect_convert(doc, "/s/en", true, OA_IN,
                   "{\"type\":[\"string\",\"null\"],\"enum\":[\"a\",\"b\",null]}");
    expect_convert(doc, "/s/ref_null", true, OA_IN,
                   "{\"anyOf\":[{\"type\":\"null\"},{\"allOf\":[{\"type\":[\"string\",\"null\"],"
                   "\"examples\":[\"x\"]}]}]}");
    expect_convert(doc, "/s/bounds", true, OA_IN,
                   "{\"type\":\"number\",\"maximum\":9,\"exclusiveMinimum\":0}");
    expect_convert(doc, "/s/obj", true, OA_IN,
                   "{\"type\":\"object\",\"required\":[\"name\",\"pw\"],\"properties\":{\"name\":"
                   "{\"type\":\"string\"},\"pw\":{\"type\":\"string\",\"writeOnly\":true}}}");
    expect_convert(doc, "/s/obj", true, OA_OUT,
                   "{\"type\":\"object\",\"required\":[\"id\",\"name\"],\"properties\":{\"id\":"
                   "{\"type\":\"integer\",\"readOnly\":true},\"name\":{\"type\":\"string\"}}}");
    expect_convert(doc, "/s/sib", false, OA_IN,
                   "{\"type\":\"string\",\"examples\":[\"x\"],\"description\":\"over\"}");
    size_t cuts = 0;
    char *got = convert(doc, "/s/node", false, OA_OUT, &cuts);
    CHECK(cuts == 1 && strstr(got, "recursive $ref #/s/node cut here") &&
              strstr(got, "{\"next\":{\"type\":\"object\",\"properties\":{\"next\":{\"$comment\""),
          "a recursive schema is inlined once more, then cut: %s", got);
    free(got);
    got = convert(doc, "/s/dangling", false, OA_IN, NULL);
    CHECK_CONTAINS(got, "ERROR t.yaml:9:");
    CHECK_CONTAINS(got, "/s/dangling: $ref '#/s/nope' points at nothing");
    free(got);
    got = convert(doc, "/s/ext", false, OA_IN, NULL);
    CHECK_CONTAINS(got, "external $ref 'other.yaml#/x' is refused");
    free(got);
    /* a count larger than any integer type is still a count (found by fuzz_openapi: it was
     * cast to long long, which is undefined); a fraction is none */
    got = convert(doc, "/s/huge", false, OA_IN, NULL);
    CHECK(strncmp(got, "ERROR", 5) != 0 && strstr(got, "\"minLength\":1e42"), "huge count: %s", got);
    free(got);
    got = convert(doc, "/s/frac", false, OA_IN, NULL);
    CHECK_CONTAINS(got, "a non-negative integer");
    free(got);
}

static void expect_example(const char *schema_json, const char *want)
{
    cJSON *s = cJSON_Parse(schema_json);
    SETUP(s, "%s", schema_json);
    cJSON *v = oa_example_value(s, 0);
    char *got = tg_json_print_compact(v);
    CHECK(strcmp(got, want) == 0, "%s: got %s, want %s", schema_json, got, want);
    free(got);
    cJSON_Delete(v);
    cJSON_Delete(s);
}

static void test_examples(void)
{
    expect_example("{\"type\":\"string\",\"pattern\":\"^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$\"}",
                   "\"0.0.0\"");
    expect_example("{\"type\":\"string\",\"pattern\":\"^sha256:[a-f0-9]{4}$\"}",
                   "\"sha256:aaaa\"");
    expect_example("{\"type\":\"string\",\"pattern\":\"^ssh-(rsa|dss) |^ecdsa\"}", "\"ssh-rsa \"");
    expect_example("{\"type\":\"string\",\"format\":\"date-time\"}", "\"2024-01-31T12:00:00Z\"");
    expect_example("{\"type\":\"string\",\"minLength\":8}", "\"stringxx\"");
    expect_example("{\"type\":\"integer\",\"minimum\":5,\"maximum\":9}", "5");
    expect_example("{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":0.5}",
                   "0.25");
    expect_example("{\"type\":\"string\",\"examples\":[20.04]}", "\"string\"");
    expect_example("{\"type\":[\"null\",\"string\"],\"enum\":[null,\"b\"]}", "\"b\"");
    expect_example("{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{\"a\":{\"type\":"
                   "\"array\",\"minItems\":1,\"items\":{\"const\":3}},\"b\":{\"type\":\"string\"}}}",
                   "{\"a\":[3]}");
    expect_example("{\"oneOf\":[{\"type\":\"null\"},{\"type\":\"boolean\"}]}", "true");
}

static void test_yaml_round_trip(void)
{
    const char *json =
        "{\"plain\":\"List all pets\",\"quoted\":\"a: b # c\",\"true\":\"yes\",\"num\":\"0.1.0\","
        "\"n\":-1.5e3,\"b\":false,\"z\":null,\"empty\":{},\"none\":[],\"200\":\"x\","
        "\"nl\":\"line\\nnext\\t\\\"q\\\" \\u00e9\",\"list\":[{\"a\":1,\"b\":[1,[2,3]]},\"s\",{}],"
        "\"nested\":{\"deep\":{\"k\":[\"{body}\",\"- dash\",\"'q'\",\" lead\",\"trail \"]}}}";
    cJSON *v = cJSON_Parse(json);
    SETUP(v, "fixture");
    tg_buf b = TG_BUF_INIT;
    tg_yaml_write(&b, v, 0);
    tg_doc d;
    tg_err err = {0};
    int rc = tg_doc_parse_yaml(b.data, b.len, "rt.yaml", NULL, &d, &err);
    CHECK(rc == 0, "the YAML written reads back: %s\n%s", err.msg, b.data);
    if (rc == 0) {
        CHECK(cJSON_Compare(v, d.root, true), "the same value back:\n%s", b.data);
        tg_doc_free(&d);
    }
    CHECK_CONTAINS(b.data, "plain: List all pets\n");
    CHECK_CONTAINS(b.data, "\"true\": \"yes\"\n");
    tg_buf_free(&b);
    cJSON_Delete(v);
}

int main(void)
{
    test_names();
    test_schemas();
    test_examples();
    test_yaml_round_trip();
    return tl_finish("test_openapi");
}
