/* schemaset.c — load and compile toolgen's own schemas. */
#include "schema/schemaset.h"

#include <stdlib.h>

#include "base/doc.h"
#include "base/util.h"

#define TOOLGEN_SCHEMA_BASE "https://toolgen.dev/schemas/"

static js_schema *compile_file(js_registry *reg, const char *dir, const char *name, tg_doc *doc,
                               tg_err *err)
{
    char *path = tg_path_join(dir, name);
    js_schema *s = NULL;
    if (tg_doc_load(path, NULL, doc, err) == 0) {
        char *uri = xasprintf(TOOLGEN_SCHEMA_BASE "%s", name);
        js_options o = {.base_uri = uri};
        s = js_compile(reg, doc->root, &o, err);
        if (!s)
            tg_err_prefix(err, "%s", path);
        free(uri);
    }
    free(path);
    return s;
}

int tg_schemaset_open(tg_schemaset *s, tg_err *err)
{
    *s = (tg_schemaset){0};
    const char *data = tg_datadir();
    if (!data)
        return tg_err_set(err, "cannot find toolgen's data directory (schemas/); set TOOLGEN_DATADIR "
                               "to the source tree or to PREFIX/share/toolgen");
    char *dir = tg_path_join(data, "schemas");
    s->reg = js_registry_new();
    int rc = -1;
    if (js_registry_add_metaschemas(s->reg, err) != 0 ||
        js_registry_add_dir(s->reg, TOOLGEN_SCHEMA_BASE, dir, err) != 0)
        goto out;
    s->manifest = compile_file(s->reg, dir, "tool.manifest.schema.json", &s->manifest_doc, err);
    if (!s->manifest)
        goto out;
    s->config = compile_file(s->reg, dir, "toolgen.config.schema.json", &s->config_doc, err);
    if (!s->config)
        goto out;
    rc = 0;
out:
    free(dir);
    if (rc != 0)
        tg_schemaset_close(s);
    return rc;
}

void tg_schemaset_close(tg_schemaset *s)
{
    js_schema_free(s->manifest);
    js_schema_free(s->config);
    js_registry_free(s->reg);
    tg_doc_free(&s->manifest_doc);
    tg_doc_free(&s->config_doc);
    *s = (tg_schemaset){0};
}
