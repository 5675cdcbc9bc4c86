/*
 * metrics.h — the validation metrics and gates of docs/metrics.md: the `validation` config,
 * pass@k, test pass rates per category, functional correctness, the overall quality score and
 * tier, and the gates that decide a tool's lifecycle verdict. CodeBLEU lives in
 * quality/codebleu.h, the output comparator and test expectations in quality/match.h (both
 * included here, as the gates take their results). See docs/metrics.md for the formulas.
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
#include "quality/codebleu.h"
#include "quality/match.h"

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
