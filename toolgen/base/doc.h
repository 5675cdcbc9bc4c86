/*
 * doc.h — a loaded YAML or JSON document: its cJSON tree plus where each node came from.
 *
 * YAML is resolved with the YAML 1.2 core schema (so `yes`, `on`, `no` are strings, `0x1F` is
 * 31, `~`/`null`/empty are null, `.inf`/`.nan` are refused because JSON cannot hold them).
 * Hostile input is bounded: file size, nesting depth, and the number of nodes and of text bytes
 * that alias expansion may create (billion laughs; one huge anchored string aliased many times),
 * with alias cycles detected; duplicate keys and invalid UTF-8 are errors. Only one document per
 * file. The limits are the library's to set (tg_doc_limits); the commands use the defaults,
 * which docs/manifest.md#limits lists.
 */
#ifndef TG_DOC_H
#define TG_DOC_H

#include <stddef.h>

#include "base/json.h"

/* The default cap on a document's size (tg_doc_limits.max_bytes == 0), also for the callers that
 * read a document's text themselves (toolgen.yaml, schemas): one limit, docs/cli.md. */
#define TG_DOC_MAX_BYTES ((size_t)16 << 20)

typedef struct tg_doc_limits {
    size_t max_bytes;        /* 0 = default TG_DOC_MAX_BYTES (16 MiB) */
    int max_depth;           /* 0 = default TG_JSON_MAX_DEPTH (512) */
    size_t max_alias_nodes;  /* nodes created by alias expansion; 0 = default 100000 */
    size_t max_alias_bytes;  /* text bytes created by alias expansion; 0 = max_bytes */
} tg_doc_limits;

typedef struct tg_doc {
    cJSON *root;     /* owned */
    char *file;      /* name used in messages (owned) */
    tg_posmap *pos;  /* owned */
} tg_doc;

/* Chooses the parser by extension (.json → JSON, .yaml/.yml → YAML; otherwise by content). */
int tg_doc_load(const char *path, const tg_doc_limits *lim, tg_doc *out, tg_err *err);
int tg_doc_parse_yaml(const char *text, size_t len, const char *name, const tg_doc_limits *lim,
                      tg_doc *out, tg_err *err);
int tg_doc_parse_json(const char *text, size_t len, const char *name, const tg_doc_limits *lim,
                      tg_doc *out, tg_err *err);
void tg_doc_free(tg_doc *d);
tg_pos tg_doc_pos(const tg_doc *d, const cJSON *node);
/*
 * Position of the deepest node that the JSON Pointer reaches in d (the pointer may go past
 * an existing node, e.g. a missing property: the position of its parent is returned).
 */
tg_pos tg_doc_pointer_pos(const tg_doc *d, const char *pointer);

#endif
