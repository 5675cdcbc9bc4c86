/*
 * match.h — whether a tool's output meets what a test expects (docs/metrics.md, Comparator):
 * JSON comparison with a numeric tolerance and order-free arrays, a test's whole `expect` block
 * (output, output_contains, error codes, text, regex, artifacts), and the agreement of a
 * generated implementation with a reference one. Pure functions, thread-safe; a mismatch is
 * explained in a heap string, a malformed expectation is an error through tg_err.
 */
#ifndef TG_MATCH_H
#define TG_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* ---- comparing outputs (test expectations, reference implementation) ------------------------- */

typedef enum tg_match_mode {
    TG_MATCH_EQUAL,   /* `output`: same keys, same array lengths */
    TG_MATCH_CONTAINS /* `output_contains`: the expected keys are present and match */
} tg_match_mode;

typedef struct tg_match_opts {
    /* Numbers a, b match when |a-b| <= tol*max(1,|a|,|b|). 0 is exact (a zeroed struct), < 0
     * the manifest schema's default TG_DEFAULT_TOLERANCE. */
    double tolerance;
    const char *const *unordered; /* JSON Pointers (in the actual result) of order-free arrays */
    size_t n_unordered;
    bool ignore_summary; /* skip the top-level summary_markdown (presentation) */
} tg_match_opts;

#define TG_DEFAULT_TOLERANCE 1e-9

bool tg_numbers_match(double a, double b, double tolerance);
/*
 * Whether actual satisfies expected under mode (see docs/metrics.md "Comparator"). On a mismatch
 * and why != NULL, *why is a heap explanation of the first difference:
 * "/groups/0/count: expected 124, got 123". opts NULL: defaults.
 */
bool tg_json_match(const cJSON *expected, const cJSON *actual, tg_match_mode mode,
                   const tg_match_opts *opts, char **why);

/* What one call of a tool produced, as the runner saw it. */
typedef struct tg_call_outcome {
    bool ok;
    const cJSON *result;          /* ok: the returned object */
    const char *error_code;       /* !ok: INVALID_INPUT, NOT_FOUND, ... */
    const char *message;          /* !ok: the error message */
    const char *const *artifacts; /* names of the files the call left in its work dir */
    size_t n_artifacts;
    bool schema_ok;           /* ok: the result validated against output_schema */
    const char *schema_error; /* first validation error when !schema_ok */
} tg_call_outcome;

/*
 * Checks a manifest test's `expect` block against an outcome. Returns 1 when every check passes,
 * 0 when one fails (*why: heap explanation of the first failing check, when why != NULL), -1 when
 * the block itself is malformed (e.g. a bad regular expression; err says which key).
 */
int tg_expect_check(const cJSON *expect, const tg_call_outcome *call, char **why, tg_err *err);

/*
 * Reference-implementation agreement (docs/metrics.md, Functional correctness): the share of inputs on which the generated and
 * the reference implementation agree — both results equal under opts (summary_markdown ignored
 * when opts->ignore_summary), or both failing with the same error code. n must be >= 1.
 * *why (optional): the first disagreement, prefixed with "input N: ".
 */
int tg_reference_agreement(const tg_call_outcome *generated, const tg_call_outcome *reference,
                           size_t n, const tg_match_opts *opts, double *out, char **why,
                           tg_err *err);

#endif
