/*
 * jsonschema.h — JSON Schema Draft 2020-12 validator on cJSON.
 *
 * Compile a schema once (resolving $id/$ref/$anchor/$dynamicRef, compiling regexes), then
 * validate many instances. Without an error list, validation stops at the first failure and
 * allocates nothing on the heap in the common case (only unevaluated* over more than 256
 * members or items, uniqueItems over more than 32 items and format "regex" do); with one, every
 * error is reported as instance location (JSON Pointer) + keyword location + message.
 *
 * Threads: a js_registry (and js_compile / js_schema_check_meta, which use one) belongs to one
 * thread at a time. A compiled js_schema is immutable: js_validate may run on it from any number
 * of threads at once (each call with its own js_errors). Regex matching uses per-schema match
 * blocks handed out atomically; calls beyond JS_MD_SLOTS concurrent ones allocate their own.
 *
 * Numbers: number nodes whose `valuestring` holds the source literal (tg_json_parse, tg_doc_load)
 * are compared exactly; others by their double, rendered as the shortest round-trip decimal.
 * Strings cannot hold U+0000 (cJSON strings are NUL-terminated). See docs/jsonschema.md.
 */
#ifndef TG_JSONSCHEMA_H
#define TG_JSONSCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* Where schemas found by URI come from: bundled meta-schemas, added documents, URL-prefix dirs. */
typedef struct js_registry js_registry;

js_registry *js_registry_new(void);
void js_registry_free(js_registry *r);
/*
 * Registers the bundled 2020-12 meta-schemas from DATADIR/schemas/meta (see tg_datadir), so that
 * "https://json-schema.org/draft/2020-12/schema" resolves without the network.
 */
int js_registry_add_metaschemas(js_registry *r, tg_err *err);
/*
 * URI prefix → directory: "http://localhost:1234/" + "dir" makes
 * http://localhost:1234/a/b.json load dir/a/b.json (and, for URIs without an extension,
 * dir/a/b.json is tried after dir/a/b). Files are loaded lazily, on first reference.
 */
int js_registry_add_dir(js_registry *r, const char *uri_prefix, const char *dir, tg_err *err);
/* A document under an explicit URI. The registry takes a deep copy. */
int js_registry_add_document(js_registry *r, const char *uri, const cJSON *doc, tg_err *err);

typedef struct js_options {
    bool format_assert;     /* treat "format" as an assertion (default: annotation only) */
    /* Retrieval URI of the root schema (e.g. "file:///abs/path/schema.json", or the URL it is
     * published under), used to resolve relative $id/$ref; NULL = "urn:toolgen:root". */
    const char *base_uri;
} js_options;

typedef struct js_schema js_schema;

/*
 * Compiles schema (borrowed only during the call; the compiled form keeps its own copy).
 * Fails with a message naming the schema location when the schema is not a valid schema
 * (wrong keyword types, unresolvable $ref, bad regex, ...). Does NOT validate it against the
 * meta-schema: use js_schema_check_meta for that.
 */
js_schema *js_compile(js_registry *reg, const cJSON *schema, const js_options *opt, tg_err *err);
void js_schema_free(js_schema *s);

typedef struct js_error {
    char *instance_location; /* JSON Pointer into the instance, "" = root */
    char *keyword_location;  /* JSON Pointer into the schema, through $ref, e.g. "/properties/a/type" */
    char *message;           /* human-readable, e.g. "expected integer, got string" */
} js_error;

typedef struct js_errors {
    js_error *v;
    size_t n, cap;
} js_errors;

void js_errors_clear(js_errors *e); /* frees the messages, keeps the capacity */
void js_errors_free(js_errors *e);

/*
 * true when valid. errors == NULL: stop at the first failure (fast path). Otherwise the errors
 * of an invalid instance are appended to *errors (at most 100, then one "too many errors"
 * entry); a valid instance costs the same as the fast path. Failures of subschemas that are not
 * failures of the instance (a passing anyOf/oneOf, "if", "not", "contains") are not reported; a
 * failing anyOf/oneOf reports a summary followed by its branches' errors. A $ref loop on the
 * same value, or nesting past 2000 schema evaluations, makes the instance invalid with an error.
 */
bool js_validate(const js_schema *s, const cJSON *instance, js_errors *errors);

/*
 * Validates a schema document against the 2020-12 meta-schema (registry must hold the
 * meta-schemas). Returns 1 valid, 0 invalid (errors filled when non-NULL), -1 on failure.
 */
int js_schema_check_meta(js_registry *reg, const cJSON *schema, js_errors *errors, tg_err *err);

/* Format checkers, also used on their own (e.g. for manifest fields). Unknown format → true. */
bool js_format_check(const char *format, const char *value);

#endif
