/*
 * mcp_schemas.h — what the MCP server unit tests share: the 2026-07-28 request _meta (META26),
 * and the JSON schema of each protocol revision (tests/testdata/mcp-schema/, or
 * $TESTDATA_DIR/mcp-schema/) to check a message against one of its $defs. Include after
 * testlib.h. The caller owns each rev_schemas and frees its registry (js_registry_free). Loading
 * and compiling the schemas is setup (SETUP); each expect_def is one check.
 */
#ifndef TG_TEST_MCP_SCHEMAS_H
#define TG_TEST_MCP_SCHEMAS_H

#include <stdio.h>
#include <stdlib.h>

#include "base/doc.h"
#include "base/json.h"
#include "schema/jsonschema.h"

#define META26                                                                              \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                 \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

typedef struct rev_schemas {
    js_registry *reg;
    char uri[128];
} rev_schemas;

static void open_rev(rev_schemas *r, const char *rev)
{
    const char *dir = getenv("TESTDATA_DIR");
    char *path = xasprintf("%s/mcp-schema/%s/schema.json", dir && *dir ? dir : "tests/testdata", rev);
    tg_doc doc = {0};
    tg_err err = {0};
    SETUP(tg_doc_load(path, NULL, &doc, &err) == 0, "cannot load %s: %s", path, err.msg);
    free(path);
    snprintf(r->uri, sizeof r->uri, "https://modelcontextprotocol.io/schema/%s/schema.json", rev);
    r->reg = js_registry_new();
    js_registry_add_metaschemas(r->reg, &err);
    SETUP(js_registry_add_document(r->reg, r->uri, doc.root, &err) == 0, "add: %s", err.msg);
    tg_doc_free(&doc);
}

/* inst fits $defs/def of the revision. */
static void expect_def(rev_schemas *r, const char *def, const cJSON *inst, const char *what)
{
    char *ref = xasprintf("%s#/$defs/%s", r->uri, def);
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "$ref", ref);
    tg_err err = {0};
    js_schema *s = js_compile(r->reg, w, &(js_options){0}, &err);
    SETUP(s, "compile %s: %s", ref, err.msg);
    js_errors errs = {0};
    bool fits = js_validate(s, inst, &errs);
    char *text = fits ? NULL : tg_json_print_compact(inst);
    CHECK(fits, "%s does not fit %s: %s: %s (%.300s)", what, def,
          errs.n ? errs.v[0].instance_location : "", errs.n ? errs.v[0].message : "", text);
    free(text);
    js_errors_free(&errs);
    js_schema_free(s);
    cJSON_Delete(w);
    free(ref);
}

#endif
