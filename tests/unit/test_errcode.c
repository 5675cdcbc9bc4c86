/* test_errcode.c — the error-code table, and that every copy of its names outside C equals it:
 * the runners (which run in the sandbox without toolgen's code) and the JSON Schemas. */
#include <stdlib.h>
#include <string.h>

#include "base/errcode.h"
#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "testlib.h"

static void test_table(void)
{
    CHECK(TG_ERRCODE_COUNT == 9, "nine codes");
    for (int i = 0; i < TG_ERRCODE_COUNT; i++) {
        const tg_errcode_info *e = tg_errcode_get((tg_errcode)i);
        CHECK(e && (int)e->code == i, "row %d is code %d", i, i);
        CHECK(e->name && e->meaning && e->advice && *e->meaning && *e->advice, "row %d texts", i);
        CHECK(tg_errcode_lookup(e->name) == e, "lookup(%s)", e->name);
        CHECK(e->exit_status == 1, "%s: toolgen run exits 1 for a failed call", e->name);
        CHECK(e->jsonrpc_error == 0 || e->jsonrpc_error == TG_JSONRPC_INVALID_PARAMS ||
                  e->jsonrpc_error == TG_JSONRPC_INTERNAL_ERROR,
              "%s: a JSON-RPC 2.0 error code", e->name);
    }
    CHECK(tg_errcode_get(TG_ERRCODE_COUNT) == NULL && tg_errcode_name(TG_ERRCODE_COUNT) == NULL,
          "out of range");
    CHECK(tg_errcode_lookup(NULL) == NULL && tg_errcode_lookup("invalid_input") == NULL &&
              tg_errcode_lookup("BOGUS") == NULL,
          "unknown names");
    char copy[] = "TIMEOUT";
    CHECK(tg_errcode_canonical(copy) == tg_errcode_name(TG_ERR_TIMEOUT), "canonical is static");
    CHECK(tg_errcode_get(TG_ERR_RATE_LIMITED)->retryable &&
              !tg_errcode_get(TG_ERR_INVALID_INPUT)->retryable,
          "retryable");
}

/* The quoted upper-case names between `marker` and the next closing bracket in a source file. */
static void check_copy(const char *path, const char *marker, char close)
{
    tg_err err = {0};
    char *text = tg_read_file(path, 1 << 20, NULL, &err);
    CHECK(text != NULL, "%s: %s", path, err.msg);
    if (!text)
        return;
    const char *p = strstr(text, marker);
    CHECK(p != NULL, "%s: no %s", path, marker);
    const char *end = p ? strchr(p, close) : NULL;
    size_t n = 0;
    bool order = true;
    while (p && end && (p = strpbrk(p, "'\"")) && p < end) {
        char q = *p++;
        const char *e = strchr(p, q);
        if (!e || e > end)
            break;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(e - p), p);
        CHECK(tg_errcode_lookup(name) != NULL, "%s: %s is not in base/errcode.c", path, name);
        if (n < TG_ERRCODE_COUNT && strcmp(name, tg_errcode_name((tg_errcode)n)) != 0)
            order = false;
        n++;
        p = e + 1;
    }
    CHECK(n == TG_ERRCODE_COUNT && order, "%s: %zu names, in the table's order: %s", path, n,
          order ? "yes" : "no");
    free(text);
}

static void check_schema_enum(const char *path, const char *def)
{
    tg_err err = {0};
    size_t len = 0;
    char *text = tg_read_file(path, 1 << 22, &len, &err);
    cJSON *doc = text ? tg_json_parse(text, len, NULL, NULL, NULL, &err) : NULL;
    CHECK(doc != NULL, "%s: %s", path, err.msg);
    const cJSON *en = tg_json_get(tg_json_get(tg_json_get(doc, "$defs"), def), "enum");
    CHECK(cJSON_GetArraySize(en) == TG_ERRCODE_COUNT, "%s: $defs/%s has every code", path, def);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, en)
    {
        CHECK(cJSON_IsString(v) && strcmp(v->valuestring, tg_errcode_name((tg_errcode)i)) == 0,
              "%s: $defs/%s/enum/%d", path, def, i);
        i++;
    }
    cJSON_Delete(doc);
    free(text);
}

int main(void)
{
    test_table();
    check_copy("toolgen/run/runtime/runner.py", "CODES = frozenset(", ')');
    check_copy("toolgen/run/runtime/runner.js", "CODES = new Set(", ']');
    check_schema_enum("schemas/tool.manifest.schema.json", "error_code");
    check_schema_enum("schemas/run_result.schema.json", "code");
    check_schema_enum("schemas/validation_report.schema.json", "error_code");
    return tl_finish("errcode");
}
