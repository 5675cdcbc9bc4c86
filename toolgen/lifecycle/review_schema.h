/*
 * review_schema.h — the classified changes of a review, and the classifier of one schema change
 * (docs/review.md "How a change is classified").
 *
 * A change is seen from the caller: on the input side a schema that accepts less (a narrowed
 * type, enum or range, a new required property, a tighter pattern) breaks callers and one that
 * accepts more is compatible; on the output side, where the caller consumes the result, the
 * reverse holds. Both schemas are compared with their local $refs resolved, so moving a
 * definition, renaming a $defs entry or reordering oneOf branches is not a change. What cannot
 * be decided (a changed pattern, `not`, `if`/`then`) is "possibly breaking", with the reason.
 */
#ifndef TG_REVIEW_SCHEMA_H
#define TG_REVIEW_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* Ordered by severity: the most severe first. */
typedef enum tg_change_class {
    TG_CHANGE_BREAKING,
    TG_CHANGE_POSSIBLY_BREAKING,
    TG_CHANGE_COMPATIBLE,
    TG_CHANGE_INFORMATIONAL,
    TG_CHANGE_NONE, /* only as "the most severe class of no change" */
} tg_change_class;

typedef struct tg_change {
    tg_change_class cls;
    char *area;    /* the manifest field: "input_schema", "constraints", "docs", ... (owned) */
    char *pointer; /* JSON Pointer inside the area, "" for the whole field (owned) */
    char *message; /* what changed, for a reviewer (owned) */
} tg_change;

typedef struct tg_changes {
    tg_change *v;
    size_t n, cap;
} tg_changes;

/* "breaking", "possibly breaking", "compatible", "informational", "none". */
const char *tg_change_class_name(tg_change_class c);
/* Appends a change; area, pointer and the formatted message are copied. */
void tg_changes_add(tg_changes *c, tg_change_class cls, const char *area, const char *pointer,
                    const char *fmt, ...) TG_PRINTF(5, 6);
/* Sorts by class (most severe first), then area and pointer: stable output. */
void tg_changes_sort(tg_changes *c);
/* The most severe class in c; TG_CHANGE_NONE when empty. */
tg_change_class tg_changes_worst(const tg_changes *c);
void tg_changes_free(tg_changes *c);

typedef enum tg_schema_side {
    TG_SIDE_INPUT,  /* the caller sends instances: accepting less breaks it */
    TG_SIDE_OUTPUT, /* the caller reads instances: producing more breaks it */
} tg_schema_side;

/*
 * Appends to out the classified differences between the schemas before and after (either may
 * be NULL: the field is absent, which accepts anything), area naming the field in each change.
 * Both are compiled (schema/jsonschema.h) first: a schema that does not compile is reported as
 * a possibly breaking change naming the compiler's message. Local $refs ("#/$defs/x", "#/...")
 * are resolved before comparing; a recursive $ref is compared by its target's pointer.
 * Pointers in the changes are paths in the resolved schema (e.g. "/properties/a/maximum").
 */
void tg_review_schema(const cJSON *before, const cJSON *after, tg_schema_side side,
                      const char *area, tg_changes *out);

/*
 * The schema with its local $refs replaced by copies of their targets ($defs and definitions
 * dropped, siblings of a $ref kept where the target lacks them). Caller frees with cJSON_Delete.
 */
cJSON *tg_schema_inline_refs(const cJSON *schema);

#endif
