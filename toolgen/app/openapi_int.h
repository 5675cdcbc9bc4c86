/*
 * openapi_int.h — private to app/: what the modules of `toolgen init --from-openapi` share
 * (openapi.c drafts the manifests, openapi_ref.c dereferences and converts schemas,
 * openapi_name.c makes tool names; docs/cli.md#init-from-openapi).
 */
#ifndef TG_APP_OPENAPI_INT_H
#define TG_APP_OPENAPI_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/doc.h"
#include "base/strvec.h"
#include "schema/jsonschema.h"

/* A $ref already being expanded may be entered again this many times on one path (so a
 * recursive schema is inlined OA_REF_REPEAT levels deep); the next entry is cut: replaced by a
 * schema that accepts anything, with a $comment naming the reference. */
#define OA_REF_REPEAT 2
/* References nested deeper than this on one path are cut the same way. */
#define OA_REF_DEPTH 32
/* Schema objects one tool, and all tools of a run, may inline; references past either are cut
 * (a guard against documents whose inlined form would be enormous: a few kilobytes of $refs
 * can stand for gigabytes). GitHub's largest tool inlines about 4 500, all 1223 about 120 000. */
#define OA_MAX_NODES 20000
#define OA_MAX_TOTAL_NODES 1000000
#define OA_MAX_EXTERNAL 32

/* Which side a schema is on: readOnly properties leave request schemas, writeOnly ones leave
 * response schemas (OpenAPI's meaning of the two keywords). */
enum oa_side { OA_IN, OA_OUT };

typedef struct oa_ctx {
    const tg_doc *doc;       /* the OpenAPI document (borrowed) */
    const cJSON *cur;        /* the document the schema being converted belongs to */
    const char *cur_name;    /* its file name for messages */
    bool v30;                /* OpenAPI 3.0: nullable, boolean exclusiveMinimum/Maximum */
    bool allow_external;     /* $refs to files beside the document are followed */
    char *base_dir;          /* the document's folder (heap) */
    tg_doc ext[OA_MAX_EXTERNAL]; /* external documents loaded so far */
    char *ext_path[OA_MAX_EXTERNAL];
    size_t next;
    const char *stack[OA_REF_DEPTH]; /* the $refs being expanded (borrowed strings) */
    int depth;
    size_t nodes; /* schema objects inlined for the current tool */
    size_t total; /* ... and for all tools so far */
    size_t cuts;  /* references cut, over the whole run */
    js_registry *reg;  /* for checking patterns (borrowed; NULL: not checked) */
    tg_err *err;
    bool failed;  /* err is set: the callers unwind */
} oa_ctx;

/* One operation to draft. */
typedef struct oa_op {
    const char *path;    /* "/pets/{petId}" (borrowed from the document) */
    const char *method;  /* "get" */
    const cJSON *op, *item;
    char *where;         /* its JSON Pointer, "/paths/~1pets~1{petId}/get" */
    char *name;          /* the tool name */
} oa_op;

/* toolgen.hints.yaml (schemas/toolgen.hints.schema.json): the user's selection, names and
 * descriptions, which win over the document's extensions. */
typedef struct oa_hints {
    tg_doc doc;          /* root NULL: no hints file */
    const cJSON *include, *exclude, *rename, *descriptions;
    tg_strv used;        /* "include/0", "rename/listPets": the entries that matched */
} oa_hints;

/* What drafting all operations shares. */
typedef struct oa_run {
    oa_ctx c;
    const cJSON *root;   /* the OpenAPI document */
    const char *source;  /* its file name as shown in the manifests' header (base name) */
    char *base_url;      /* scheme://host[:port][/base path], no trailing '/' */
    char *auth_env;      /* the credential's environment variable */
    int budget;
    js_registry *reg;    /* for checking the examples against the drafted schemas */
    oa_hints hints;
    size_t bad_examples; /* drafts whose examples do not fit their schemas */
} oa_run;

/* openapi_draft.c: the manifest of one operation (a new object); NULL with r->c.err, or NULL
 * with *skip set (heap: why the operation is left out, e.g. a body that is not JSON). */
cJSON *oa_draft(oa_run *r, const oa_op *op, char **skip);
/* The first member of the x-toolgen (or x-mcp object) extension named key, looked up on the
 * operation, then its path item, then the document. */
const cJSON *oa_ext(const oa_run *r, const oa_op *op, const char *key);

/* openapi_hints.c */
/* Loads and checks the hints file path (NULL or missing: none, 0, unless required). 0, or -1
 * with err naming the file, line and member. */
int oa_hints_load(oa_hints *h, const char *path, bool required, js_registry *reg, tg_err *err);
void oa_hints_free(oa_hints *h);
/* What the hints say of op: -1 left out (*why says why), 1 included by an include rule (which
 * wins over the document's x-toolgen / x-mcp exclusion), 0 nothing. */
int oa_hints_select(oa_hints *h, const oa_op *op, const char **why);
/* The hints' name / description of op, or NULL. */
const char *oa_hints_lookup(oa_hints *h, const oa_op *op, const char *map);
/* A warning for each entry of the hints that matched no operation. */
void oa_hints_unused(const oa_hints *h, tg_strv *warnings);

/* openapi_ref.c */
void oa_ctx_free(oa_ctx *c);
/* obj[key] = v (replacing a member of that name); takes v. */
void oa_set(cJSON *obj, const char *key, cJSON *v);
/* Sets c->err (once) to "FILE:LINE:COL: POINTER: message" for the place where of the current
 * document; returns NULL so callers can `return oa_fail(...)`. */
void *oa_fail(oa_ctx *c, const char *where, const char *fmt, ...) TG_PRINTF(3, 4);
/* obj itself, or the object its $ref chain ends at (parameters, responses, request bodies);
 * NULL with c->err on a dangling or refused reference. */
const cJSON *oa_deref(oa_ctx *c, const cJSON *obj, const char *where);
/* The JSON Schema 2020-12 form of the OpenAPI schema s found at where: local $refs inlined
 * (cycles cut, see OA_REF_REPEAT), 3.0 keywords converted (nullable → a type with "null",
 * boolean exclusive bounds → numbers, example → examples), keywords JSON Schema does not know
 * dropped (discriminator, xml, externalDocs, x-*). New tree; NULL with c->err. */
cJSON *oa_schema(oa_ctx *c, const cJSON *s, const char *where, enum oa_side side);

/* openapi_name.c */
/* The snake_case tool name of an operation: from its operationId, else method and path;
 * lowercase letters, digits and '_', starting with a letter, at most budget characters (a
 * longer one is cut and ends in '_' and 8 hex digits of its full form's hash). Heap. */
char *oa_tool_name(const char *operation_id, const char *method, const char *path, int budget);
/* name made unique against taken (which it is then added to): on a collision, its first
 * budget-9 characters, '_' and 8 hex digits of the hash of key (method and path). Heap. */
char *oa_unique_name(const char *name, const char *key, int budget, tg_strv *taken);
/* An identifier ([A-Za-z_][A-Za-z0-9_]*) for a parameter name, unique in taken. Heap. */
char *oa_ident(const char *name, tg_strv *taken);
/* An environment variable name from a title: SWAGGER_PETSTORE_TOKEN. Heap. */
char *oa_env_name(const char *title);

/* openapi_example.c */
/* A value that an instance of the converted schema s might be: its example, default, const or
 * first enum value, else one made from its type and bounds (required properties only). New. */
cJSON *oa_example_value(const cJSON *s, int depth);

#endif
