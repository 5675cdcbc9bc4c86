/*
 * code_fixture.h — the code toolset's tools (toolsets/code, docs/code.md) for the unit tests of
 * the code runtime (test_code, test_code_corpus): a manifest of the repository loaded and bound,
 * its schemas compiled. Include after testlib.h.
 */
#ifndef TG_TEST_CODE_FIXTURE_H
#define TG_TEST_CODE_FIXTURE_H

#include <stdlib.h>

#include "base/util.h"
#include "model/manifest.h"
#include "model/repo.h"
#include "schema/jsonschema.h"

typedef struct code_tool {
    tg_manifest m;
    js_registry *reg;
    js_schema *in, *out;
} code_tool;

/* Loads manifests/NAME of repo; 0, or -1 after a failed CHECK. Close it either way. */
static int code_tool_open(code_tool *t, const tg_repo *repo, const char *name)
{
    tg_err err = {0};
    char *path = xasprintf("manifests/%s/tool.manifest.yaml", name);
    int rc = tg_manifest_load(repo, path, &t->m, &err);
    free(path);
    CHECK(rc == 0, "%s: %s", name, err.msg);
    if (rc != 0)
        return -1;
    tg_manifest_bind(&t->m);
    t->reg = js_registry_new();
    t->in = js_compile(t->reg, t->m.input_schema, &(js_options){0}, &err);
    t->out = js_compile(t->reg, t->m.output_schema, &(js_options){0}, &err);
    CHECK(t->in && t->out, "%s: schemas: %s", name, err.msg);
    return t->in && t->out ? 0 : -1;
}

static void code_tool_close(code_tool *t)
{
    js_schema_free(t->in);
    js_schema_free(t->out);
    js_registry_free(t->reg);
    tg_manifest_free(&t->m);
}

#endif
