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
    s->dir = tg_path_join(data, "schemas");
    s->reg = js_registry_new();
    if (js_registry_add_metaschemas(s->reg, err) != 0 ||
        js_registry_add_dir(s->reg, TOOLGEN_SCHEMA_BASE, s->dir, err) != 0 ||
        !(s->manifest = compile_file(s->reg, s->dir, "tool.manifest.schema.json",
                                     &s->manifest_doc, err))) {
        tg_schemaset_close(s);
        return -1;
    }
    return 0;
}

/* The config schema is as large as the manifest's and only lint validates a config: every
 * other command would compile it, its patterns included, for nothing. */
const js_schema *tg_schemaset_config(tg_schemaset *s, tg_err *err)
{
    if (!s->config)
        s->config = compile_file(s->reg, s->dir, "toolgen.config.schema.json", &s->config_doc, err);
    return s->config;
}

void tg_schemaset_close(tg_schemaset *s)
{
    js_schema_free(s->manifest);
    js_schema_free(s->config);
    js_registry_free(s->reg);
    tg_doc_free(&s->manifest_doc);
    tg_doc_free(&s->config_doc);
    free(s->dir);
    *s = (tg_schemaset){0};
}
