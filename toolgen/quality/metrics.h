/*
 * metrics.h — the validation metrics and gates of docs/metrics.md: pass@k, test pass
 * rates per category, CodeBLEU (token parts; the AST and dataflow parts come from
 * runtime/code_analysis.py), the overall quality score and tier, and the comparator that decides
 * whether a tool's output meets a test's `expect` block. See docs/metrics.md for the formulas.
 *
 * Pure functions: no I/O, no globals that change, so every function is thread-safe. Errors are
 * reported through tg_err; nothing prints.
 */
#ifndef TG_METRICS_H
#define TG_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* ---- configuration (toolgen.yaml `validation`) ----------------------------------------------- */

typedef enum tg_test_category {
    TG_CAT_EDGE,
    TG_CAT_NORMAL,
    TG_CAT_STRESS,
    TG_CAT_COUNT
} tg_test_category;

typedef enum tg_quality_tier {
    TG_TIER_POOR,
    TG_TIER_ACCEPTABLE,
    TG_TIER_GOOD,
    TG_TIER_EXCELLENT
} tg_quality_tier;

typedef struct tg_metric_weights {
    double functional_correctness, test_pass_rate, code_bleu, pass_at_1;
} tg_metric_weights;

typedef struct tg_bleu_weights {
    double ngram, weighted_ngram, ast, dataflow;
} tg_bleu_weights;

typedef struct tg_metrics_config {
    /* quality_thresholds */
    double functional_correctness_min, test_pass_rate_min, code_bleu_min, pass_at_5_min,
        overall_quality_min;
    double category_min[TG_CAT_COUNT]; /* category_pass_rate_min */
    tg_metric_weights weights;         /* metric_weights */
    tg_bleu_weights bleu_weights;      /* code_bleu_weights */
    double tiers[4];                   /* quality_tiers, indexed by tg_quality_tier */
} tg_metrics_config;

/* The schema's defaults (docs/metrics.md, Defaults; docs/config.md). */
void tg_metrics_config_default(tg_metrics_config *c);
/*
 * Reads toolgen.yaml's `validation` object (NULL: all defaults) over the defaults. A weight block
 * that does not add up to 1.0 (±1e-6) is rejected, not normalised: a silently rescaled weight
 * would make the score mean something else than the file says. So are tiers that do not strictly
 * decrease and values outside 0..1. The message names the JSON Pointer under /validation.
 */
int tg_metrics_config_from_json(const cJSON *validation, tg_metrics_config *c, tg_err *err);

const char *tg_test_category_name(tg_test_category c); /* "edge", "normal", "stress" */
/* TG_CAT_COUNT when s is not a category. */
tg_test_category tg_test_category_parse(const char *s);
const char *tg_quality_tier_name(tg_quality_tier t); /* "excellent" ... "poor" */

/* ---- pass@k (docs/metrics.md, pass@k; Chen et al. 2021, HumanEval) --------------------------- */

/*
 * Unbiased estimate of the probability that at least one of k samples drawn from n generated
 * candidates, c of them correct, is correct: 1 - C(n-c, k) / C(n, k), computed as the product
 * 1 - prod_{i=n-c+1..n} (1 - k/i), which never forms a binomial coefficient (no overflow).
 * Errors: n < 1, k < 1, k > n, c < 0, c > n.
 */
int tg_pass_at_k(int n, int c, int k, double *out, tg_err *err);

/* ---- test pass rates (docs/metrics.md, Test pass rates) -------------------------------------- */

typedef struct tg_test_outcome {
    tg_test_category category;
    bool passed;
} tg_test_outcome;

typedef struct tg_rate {
    int total, passed;
    double rate;     /* passed / total; 0 when total is 0 */
    double min;      /* the configured threshold */
    bool applicable; /* the category has tests (overall: the tool has tests) */
    bool ok;         /* rate >= min; a category without tests passes, a tool without tests fails */
} tg_rate;

typedef struct tg_pass_rates {
    tg_rate overall;
    tg_rate category[TG_CAT_COUNT];
} tg_pass_rates;

void tg_pass_rates_compute(const tg_test_outcome *tests, size_t n, const tg_metrics_config *cfg,
                           tg_pass_rates *out);

/* ---- functional correctness (docs/metrics.md, Functional correctness) ------------------------ */

/* 0.6 * test_pass_rate + 0.4 * reference_similarity, or the test pass rate without a reference. */
double tg_correctness_score(bool has_reference, double reference_similarity, double test_pass_rate);

/* ---- overall score and tier (docs/metrics.md, Overall score and quality tier) ---------------- */

typedef struct tg_score_input {
    double functional_correctness, test_pass_rate;
    bool has_code_bleu; /* false without a reference implementation */
    double code_bleu;
    bool has_pass_at_1; /* false when no candidate sampling took place */
    double pass_at_1;
} tg_score_input;

typedef struct tg_score {
    double score;
    tg_quality_tier tier;
    tg_metric_weights applied; /* weights actually used (absent metrics' shares moved) */
} tg_score;

/*
 * Weighted sum of the metrics. An absent metric's weight goes to functional correctness (the
 * config schema's rule for code_bleu without a reference, applied to pass@1 alike), so the
 * weights used still add up to 1. Inputs must lie in 0..1.
 */
int tg_overall_score(const tg_metrics_config *cfg, const tg_score_input *in, tg_score *out,
                     tg_err *err);
tg_quality_tier tg_quality_tier_of(const tg_metrics_config *cfg, double score);

/* ---- Python tokens and CodeBLEU (docs/metrics.md, CodeBLEU) ---------------------------------- */

typedef struct tg_tokens {
    char **tok;
    size_t count, cap;
} tg_tokens;

/*
 * Python source → tokens: identifiers and keywords, numbers, string literals (with prefixes,
 * triple quotes), operators (longest match), brackets. Comments, whitespace, line structure and
 * docstrings (a string literal that is a whole statement) are dropped; a decorator's `@name`
 * is one token so that "@mcp" can carry its weight. Never fails: unterminated strings end at
 * the end of the line (or file), stray bytes become one-byte tokens.
 */
void tg_py_tokenize(const char *code, size_t len, tg_tokens *out);
void tg_tokens_free(tg_tokens *t);

#define TG_BLEU_MAX_N 4

typedef struct tg_bleu {
    double score;                    /* BP * exp(mean log p_n) */
    double precision[TG_BLEU_MAX_N]; /* p_1..p_4 as used (p_2..p_4 add-one smoothed) */
    size_t matches[TG_BLEU_MAX_N];   /* clipped n-gram matches */
    size_t totals[TG_BLEU_MAX_N];    /* candidate n-grams */
    double brevity_penalty;
    size_t candidate_len, reference_len; /* tokens */
} tg_bleu;

typedef struct tg_keyword_weight {
    const char *token;
    double weight;
} tg_keyword_weight;

/* The default keyword weights (docs/metrics.md, Weighted n-gram match); tokens not listed weigh
 * 1.0. */
const tg_keyword_weight *tg_default_keyword_weights(size_t *n);

typedef struct tg_code_bleu {
    tg_bleu ngram;          /* 4.7.1 */
    tg_bleu weighted_ngram; /* 4.7.2: the same with n-grams weighted by their tokens */
    double ast, dataflow;   /* 4.7.3, 4.7.4: given (code_analysis.py) */
    tg_bleu_weights weights;
    double score; /* 4.7.5 */
} tg_code_bleu;

/* Standard BLEU on tg_py_tokenize tokens (kw NULL) or keyword-weighted BLEU (kw, nkw). */
void tg_bleu_tokens(const tg_tokens *cand, const tg_tokens *ref, const tg_keyword_weight *kw,
                    size_t nkw, tg_bleu *out);
/*
 * CodeBLEU of candidate against reference: the two token scores computed here, the AST and
 * dataflow match scores passed in, combined with w (NULL: 0.25 each; must add up to 1.0).
 * kw overrides / extends the default keyword weights (NULL: defaults only).
 */
int tg_code_bleu_compute(const char *candidate, const char *reference, double ast, double dataflow,
                         const tg_bleu_weights *w, const tg_keyword_weight *kw, size_t nkw,
                         tg_code_bleu *out, tg_err *err);

/* The reply of runtime/code_analysis.py, read back. */
typedef struct tg_code_analysis {
    bool ok; /* false: a syntax error (scores are 0, error_* tell where) */
    double ast_match, ast_node_overlap, ast_depth_similarity, ast_sequence_similarity;
    double dataflow_match, variable_flow_similarity, dependency_graph_similarity,
        assignment_order_similarity;
    char error[512]; /* "candidate: invalid syntax" */
    int error_line, error_col;
} tg_code_analysis;

int tg_code_analysis_read(const cJSON *reply, tg_code_analysis *out, tg_err *err);
/* {"candidate": ..., "reference": ...} for code_analysis.py. */
cJSON *tg_code_analysis_request(const char *candidate, const char *reference);
/*
 * {"code", "file", "forbidden_calls", "forbidden_modules", "allowed_imports"} for
 * runtime/static_check.py; the lists come from toolgen.yaml's `static_check` object (NULL or a
 * missing key: the schema's default list).
 */
cJSON *tg_static_check_request(const char *code, const char *file, const cJSON *static_check);

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

/* ---- gates (docs/metrics.md, Gates and the status transition; docs/build.md) ----------------- */

typedef enum tg_gate_id {
    TG_GATE_SCHEMA,
    TG_GATE_STATIC_CHECK,
    TG_GATE_TEST_PASS_RATE,
    TG_GATE_EDGE_PASS_RATE,
    TG_GATE_NORMAL_PASS_RATE,
    TG_GATE_STRESS_PASS_RATE,
    TG_GATE_FUNCTIONAL_CORRECTNESS,
    TG_GATE_CODE_BLEU,
    TG_GATE_PASS_AT_5,
    TG_GATE_OVERALL_QUALITY,
    TG_GATE_COUNT
} tg_gate_id;

typedef struct tg_gate {
    const char *name;  /* "schema", "static_check", "test_pass_rate", "edge_pass_rate", ... */
    bool applicable;   /* false: not checked (no reference, fewer than 5 candidates, ...) */
    bool passed;       /* true when not applicable */
    double value, min; /* metric gates; schema / static_check: 1 or 0 against 1 */
} tg_gate;

typedef struct tg_validation_input {
    bool schema_ok, static_ok;
    const tg_test_outcome *tests;
    size_t n_tests;
    bool has_reference;
    double reference_similarity; /* tg_reference_agreement */
    bool has_code_bleu;
    double code_bleu;        /* tg_code_bleu.score */
    int candidates, correct; /* pass@k sampling; candidates 0: none took place */
} tg_validation_input;

typedef struct tg_validation_result {
    tg_pass_rates rates;
    double functional_correctness;
    bool has_pass_at_1, has_pass_at_5;
    double pass_at_1, pass_at_5;
    tg_score overall;
    tg_gate gates[TG_GATE_COUNT];
    const char *failed_gate; /* the first failing gate in tg_gate_id order; NULL: all passed */
} tg_validation_result;

const char *tg_gate_name(tg_gate_id g);
/* Computes every metric and gate; the tool may move draft → staged iff failed_gate is NULL. */
int tg_validation_evaluate(const tg_metrics_config *cfg, const tg_validation_input *in,
                           tg_validation_result *out, tg_err *err);

#endif
