/*
 * schemaset.h — toolgen's own schemas (manifest, config), compiled once from the data directory,
 * with the 2020-12 meta-schemas bundled so nothing is fetched.
 */
#ifndef TG_SCHEMASET_H
#define TG_SCHEMASET_H

#include "base/doc.h"
#include "schema/jsonschema.h"

typedef struct tg_schemaset {
    js_registry *reg;
    js_schema *manifest; /* schemas/tool.manifest.schema.json */
    js_schema *config;   /* schemas/toolgen.config.schema.json; NULL until
                          * tg_schemaset_config compiles it (only lint needs it) */
    char *dir;           /* the schemas/ directory they come from */
    tg_doc manifest_doc, config_doc; /* their source, for messages (e.g. known property names) */
} tg_schemaset;

/* Compiles the manifest schema (the config schema waits for tg_schemaset_config). */
int tg_schemaset_open(tg_schemaset *s, tg_err *err);
/* The config schema, compiled on first use (s->config, s->config_doc); NULL on error. Not
 * thread-safe: call it before sharing the set between threads. */
const js_schema *tg_schemaset_config(tg_schemaset *s, tg_err *err);
void tg_schemaset_close(tg_schemaset *s);

#endif
