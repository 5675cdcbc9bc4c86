/*
 * json.h — JSON text → cJSON with source positions and exact number text.
 *
 * cJSON stores numbers as double only. For numbers this parser (and the YAML loader) also keeps
 * the literal text in `valuestring`, a field cJSON leaves unused for numbers (cJSON_Delete and
 * cJSON_Duplicate handle it): the validator needs it for big integers and exact multipleOf.
 */
#ifndef TG_JSON_H
#define TG_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/arena.h"
#include "base/util.h"

typedef struct tg_pos {
    int line, col; /* 1-based; 0 = unknown */
} tg_pos;

/* Map from node to position in its source text. */
typedef struct tg_posmap tg_posmap;
tg_posmap *tg_posmap_new(void);
void tg_posmap_free(tg_posmap *m);
void tg_posmap_put(tg_posmap *m, const cJSON *node, int line, int col);
/* {0,0} when the node is unknown (or m is NULL). */
tg_pos tg_posmap_get(const tg_posmap *m, const cJSON *node);

/*
 * The nesting depth that JSON and YAML documents may reach by default (tg_json_limits and
 * tg_doc_limits; docs/cli.md). The parsers and everything that walks their trees recurse once
 * per level, so the limit is what keeps hostile input ("[[[[..." a million deep) from
 * overflowing the stack; 512 is far above any real manifest, config or tool reply, and far
 * below the validator's own evaluation cap (JS_MAX_EVAL_DEPTH).
 */
#define TG_JSON_MAX_DEPTH 512

typedef struct tg_json_limits {
    int max_depth;     /* nesting depth; 0 = TG_JSON_MAX_DEPTH */
    /* a \uD800..\uDFFF escape without its pair is an error rather than U+FFFD: for text that
     * must come back as it was sent (a JSON-RPC id), which a UTF-8 string cannot hold */
    bool pairs_only;
} tg_json_limits;

/*
 * Parses exactly one JSON value (RFC 8259; surrounding whitespace allowed) from text[0..len).
 * arena == NULL: nodes are heap-allocated, free with cJSON_Delete.
 * arena != NULL: nodes live in the arena (no cJSON_Delete; tg_arena_reset frees them) — this is
 * what keeps JSONL validation free of per-instance malloc.
 * pos != NULL: records the line/col of every node (object members: position of the key).
 * Rejects invalid UTF-8, lone surrogate escapes in strings are kept as U+FFFD (refused with
 * lim->pairs_only), duplicate keys are
 * an error, and so are NaN/Infinity, trailing commas, comments and trailing garbage.
 * On error returns NULL with err->line/col/msg set (err->file left as is).
 */
cJSON *tg_json_parse(const char *text, size_t len, tg_arena *arena, tg_posmap *pos,
                     const tg_json_limits *lim, tg_err *err);

/* Source text of a number node when known, else a %.17g rendering into buf. */
const char *tg_json_number_text(const cJSON *num, char buf[40]);

/* RFC 6901 lookup; NULL when the pointer does not resolve. "" is the root. */
const cJSON *tg_json_pointer_get(const cJSON *root, const char *pointer);

/* Small typed getters over cJSON objects: NULL / fallback when obj is not an object, the key
 * is absent or its value is of another type. Keys are case-sensitive. */
const cJSON *tg_json_get(const cJSON *obj, const char *key);
const char *tg_json_get_string(const cJSON *obj, const char *key);
double tg_json_get_number(const cJSON *obj, const char *key, double fallback);
/* Whether arr is an array holding the string s (false for anything that is not an array). */
bool tg_json_array_has_string(const cJSON *arr, const char *s);

/*
 * The members that differ between two versions of an object: fn is called for after's members
 * in order, added (before NULL) or changed, then for before's members that after lacks (after
 * NULL). Members equal on both sides are skipped; a side that is not an object has no members.
 */
typedef void tg_json_member_fn(void *ctx, const char *key, const cJSON *before,
                               const cJSON *after);
void tg_json_diff_members(const cJSON *before, const cJSON *after, tg_json_member_fn *fn,
                          void *ctx);

/* s as a JSON string literal for a message ("key"), cut to about 80 bytes (at a character
 * boundary, ending in ...") when long; written into out[0..n). */
/*
 * Applies patch to *target as a JSON Merge Patch (RFC 7386): an object patch merges member by
 * member, a null member removes that member, any other patch replaces the target whole.
 * *target may be replaced (and NULL, when patch is null); patch is only read.
 */
void tg_json_merge_patch(cJSON **target, const cJSON *patch);

void tg_json_quote_for_message(const char *s, char *out, size_t n);

/* Deterministic JSON: keys in source order, two-space indent, trailing newline. Heap string. */
char *tg_json_print(const cJSON *v);
/* Compact JSON on one line, no trailing newline. Heap string. */
char *tg_json_print_compact(const cJSON *v);

/*
 * Shared with the YAML loader. Columns everywhere are counted in characters (Unicode code
 * points), 1-based, like libyaml's marks; a tab counts as one.
 */
/* Checks that text[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF). On failure returns -1 with err line/col/msg at the first bad byte
 * (err->file left as is). */
int tg_utf8_validate(const char *text, size_t len, tg_err *err);
/* s with every byte that is not part of well-formed UTF-8, and every control character, written
 * as \xNN: a name from the file system, safe to print or to put in JSON. Heap string. */
char *tg_utf8_printable(const char *s);
/* 1-based line and column (in characters) of byte offset off in text[0..len). */
tg_pos tg_text_pos(const char *text, size_t len, size_t off);

#endif
