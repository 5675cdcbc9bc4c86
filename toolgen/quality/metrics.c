/* metrics.c — validation metrics, scores, tiers and gates (docs/metrics.md). */
#include "quality/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "quality/quality_int.h"

/*
 * Scores that are mathematically on a threshold (0.6*0.95+0.4*0.8 = 0.89 against 0.89) must not
 * fall below it through rounding of the weighted sums; every ">= threshold" uses this slack.
 */
#define SLACK 1e-9

static const char *const CATEGORY_NAMES[TG_CAT_COUNT + 1] = {"edge", "normal", "stress", NULL};
static const char *const TIER_NAMES[] = {"poor", "acceptable", "good", "excellent"};
static const char *const GATE_NAMES[TG_GATE_COUNT] = {
    "schema",           "static_check",     "test_pass_rate",         "edge_pass_rate",
    "normal_pass_rate", "stress_pass_rate", "functional_correctness", "code_bleu",
    "pass_at_5",        "overall_quality",
};

const char *tg_test_category_name(tg_test_category c)
{
    return c < TG_CAT_COUNT ? CATEGORY_NAMES[c] : "unknown";
}

tg_test_category tg_test_category_parse(const char *s)
{
    int i = tg_strlist_index(CATEGORY_NAMES, s);
    return i < 0 ? TG_CAT_COUNT : (tg_test_category)i;
}

const char *tg_quality_tier_name(tg_quality_tier t)
{
    return t <= TG_TIER_EXCELLENT ? TIER_NAMES[t] : "unknown";
}

const char *tg_gate_name(tg_gate_id g)
{
    return g < TG_GATE_COUNT ? GATE_NAMES[g] : "unknown";
}

/* ---- configuration ------------------------------------------------------------------------- */

void tg_metrics_config_default(tg_metrics_config *c)
{
    *c = (tg_metrics_config){
        .functional_correctness_min = 0.90,
        .test_pass_rate_min = 0.95,
        .code_bleu_min = 0.75,
        .pass_at_5_min = 0.90,
        .overall_quality_min = 0.85,
        .category_min = {0.95, 0.98, 0.85},
        .weights = {0.40, 0.30, 0.20, 0.10},
        .bleu_weights = {0.25, 0.25, 0.25, 0.25},
        .tiers = {0.00, 0.60, 0.75, 0.90},
    };
}

typedef struct unit_field {
    const char *key;
    double *dst;
} unit_field;

/* Reads the listed keys of block `name` under validation. all_required: a weight block, which
 * replaces the default block whole, so a partial one would silently mix two weightings. */
static int read_block(const cJSON *validation, const char *name, const unit_field *f, size_t n,
                      bool all_required, tg_err *err)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(validation, name);
    if (!b)
        return 0;
    if (!cJSON_IsObject(b))
        return tg_err_set(err, "/validation/%s: must be an object", name);
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, f[i].key);
        if (!v) {
            if (all_required)
                return tg_err_set(err,
                                  "/validation/%s: missing \"%s\" (a weight block replaces "
                                  "the defaults whole, so it must give every weight)",
                                  name, f[i].key);
            continue;
        }
        if (!cJSON_IsNumber(v) || !tgq_is_unit(v->valuedouble))
            return tg_err_set(err, "/validation/%s/%s: must be a number from 0 to 1", name,
                              f[i].key);
        *f[i].dst = v->valuedouble;
    }
    return 0;
}

static int check_sum(const char *name, const double *w, size_t n, tg_err *err)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += w[i];
    if (fabs(sum - 1.0) > 1e-6)
        return tg_err_set(err, "/validation/%s: weights add up to %g, they must add up to 1.0",
                          name, sum);
    return 0;
}

static int check_tiers(const double *t, tg_err *err)
{
    for (int i = TG_TIER_EXCELLENT; i > TG_TIER_POOR; i--)
        if (!(t[i] > t[i - 1]))
            return tg_err_set(err, "/validation/quality_tiers: %s (%g) must be above %s (%g)",
                              TIER_NAMES[i], t[i], TIER_NAMES[i - 1], t[i - 1]);
    return 0;
}

int tg_metrics_config_from_json(const cJSON *v, tg_metrics_config *c, tg_err *err)
{
    tg_metrics_config n;
    tg_metrics_config_default(&n);
    if (v && !cJSON_IsObject(v))
        return tg_err_set(err, "/validation: must be an object");
    const unit_field thresholds[] = {
        {"functional_correctness_min", &n.functional_correctness_min},
        {"test_pass_rate_min", &n.test_pass_rate_min},
        {"code_bleu_min", &n.code_bleu_min},
        {"pass_at_5_min", &n.pass_at_5_min},
        {"overall_quality_min", &n.overall_quality_min},
    };
    const unit_field cats[] = {{"edge", &n.category_min[TG_CAT_EDGE]},
                               {"normal", &n.category_min[TG_CAT_NORMAL]},
                               {"stress", &n.category_min[TG_CAT_STRESS]}};
    const unit_field weights[] = {{"functional_correctness", &n.weights.functional_correctness},
                                  {"test_pass_rate", &n.weights.test_pass_rate},
                                  {"code_bleu", &n.weights.code_bleu},
                                  {"pass_at_1", &n.weights.pass_at_1}};
    const unit_field bleu[] = {{"ngram", &n.bleu_weights.ngram},
                               {"weighted_ngram", &n.bleu_weights.weighted_ngram},
                               {"ast", &n.bleu_weights.ast},
                               {"dataflow", &n.bleu_weights.dataflow}};
    const unit_field tiers[] = {{"excellent", &n.tiers[TG_TIER_EXCELLENT]},
                                {"good", &n.tiers[TG_TIER_GOOD]},
                                {"acceptable", &n.tiers[TG_TIER_ACCEPTABLE]},
                                {"poor", &n.tiers[TG_TIER_POOR]}};
    if (v && (read_block(v, "quality_thresholds", thresholds, 5, false, err) ||
              read_block(v, "category_pass_rate_min", cats, 3, false, err) ||
              read_block(v, "metric_weights", weights, 4, true, err) ||
              read_block(v, "code_bleu_weights", bleu, 4, true, err) ||
              read_block(v, "quality_tiers", tiers, 4, false, err)))
        return -1;
    const double w[] = {n.weights.functional_correctness, n.weights.test_pass_rate,
                        n.weights.code_bleu, n.weights.pass_at_1};
    const double b[] = {n.bleu_weights.ngram, n.bleu_weights.weighted_ngram, n.bleu_weights.ast,
                        n.bleu_weights.dataflow};
    if (check_sum("metric_weights", w, 4, err) || check_sum("code_bleu_weights", b, 4, err) ||
        check_tiers(n.tiers, err))
        return -1;
    *c = n;
    return 0;
}

/* ---- pass@k ---------------------------------------------------------------------------------- */

int tg_pass_at_k(int n, int c, int k, double *out, tg_err *err)
{
    if (n < 1)
        return tg_err_set(err, "pass@k: n (generated candidates) must be at least 1, got %d", n);
    if (c < 0 || c > n)
        return tg_err_set(err, "pass@k: c (correct candidates) must be from 0 to n = %d, got %d", n,
                          c);
    if (k < 1 || k > n)
        return tg_err_set(err, "pass@%d: k must be from 1 to n = %d (cannot draw %d of %d)", k, n,
                          k, n);
    if (c == 0) {
        *out = 0.0;
        return 0;
    }
    if (n - c < k) { /* every draw of k contains a correct one */
        *out = 1.0;
        return 0;
    }
    double prod = 1.0; /* C(n-c,k)/C(n,k) = prod_{i=n-c+1..n} (1 - k/i) */
    for (int i = n - c + 1; i <= n; i++)
        prod *= 1.0 - (double)k / (double)i;
    *out = 1.0 - prod;
    return 0;
}

/* ---- pass rates, correctness, overall score -------------------------------------------------- */

static void rate_finish(tg_rate *r, double min, bool ok_when_empty)
{
    r->min = min;
    r->applicable = r->total > 0;
    r->rate = r->total ? (double)r->passed / (double)r->total : 0.0;
    r->ok = r->applicable ? r->rate >= min - SLACK : ok_when_empty;
}

void tg_pass_rates_compute(const tg_test_outcome *tests, size_t n, const tg_metrics_config *cfg,
                           tg_pass_rates *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        out->overall.total++;
        out->overall.passed += tests[i].passed;
        if (tests[i].category < TG_CAT_COUNT) {
            out->category[tests[i].category].total++;
            out->category[tests[i].category].passed += tests[i].passed;
        }
    }
    /* An untested tool cannot show it works, so "no tests" fails; an empty category is simply
     * not measured. */
    rate_finish(&out->overall, cfg->test_pass_rate_min, false);
    for (int c = 0; c < TG_CAT_COUNT; c++)
        rate_finish(&out->category[c], cfg->category_min[c], true);
}

double tg_correctness_score(bool has_reference, double reference_similarity, double test_pass_rate)
{
    if (has_reference)
        return 0.6 * test_pass_rate + 0.4 * reference_similarity;
    return test_pass_rate;
}

tg_quality_tier tg_quality_tier_of(const tg_metrics_config *cfg, double score)
{
    for (int t = TG_TIER_EXCELLENT; t > TG_TIER_POOR; t--)
        if (score >= cfg->tiers[t] - SLACK)
            return (tg_quality_tier)t;
    return TG_TIER_POOR;
}

int tg_overall_score(const tg_metrics_config *cfg, const tg_score_input *in, tg_score *out,
                     tg_err *err)
{
    if (tgq_check_unit("functional_correctness", in->functional_correctness, err) ||
        tgq_check_unit("test_pass_rate", in->test_pass_rate, err) ||
        (in->has_code_bleu && tgq_check_unit("code_bleu", in->code_bleu, err)) ||
        (in->has_pass_at_1 && tgq_check_unit("pass_at_1", in->pass_at_1, err)))
        return -1;
    tg_metric_weights w = cfg->weights;
    if (!in->has_code_bleu) {
        w.functional_correctness += w.code_bleu;
        w.code_bleu = 0;
    }
    if (!in->has_pass_at_1) {
        w.functional_correctness += w.pass_at_1;
        w.pass_at_1 = 0;
    }
    double s = w.functional_correctness * in->functional_correctness +
               w.test_pass_rate * in->test_pass_rate +
               (in->has_code_bleu ? w.code_bleu * in->code_bleu : 0.0) +
               (in->has_pass_at_1 ? w.pass_at_1 * in->pass_at_1 : 0.0); /* absent: maybe NaN */
    /* Divided by the weights' sum (1 up to rounding) so that a perfect tool scores exactly 1. */
    double sum = w.functional_correctness + w.test_pass_rate + w.code_bleu + w.pass_at_1;
    s = sum > 0 ? s / sum : 0;
    out->score = s < 0 ? 0 : s > 1 ? 1 : s;
    out->tier = tg_quality_tier_of(cfg, out->score);
    out->applied = w;
    return 0;
}

/* ---- gates ----------------------------------------------------------------------------------- */

static tg_gate gate(tg_gate_id id, bool applicable, double value, double min)
{
    return (tg_gate){.name = GATE_NAMES[id],
                     .applicable = applicable,
                     .passed = !applicable || value >= min - SLACK,
                     .value = value,
                     .min = min};
}

static int sample_pass_at_k(const tg_validation_input *in, tg_validation_result *out, tg_err *err)
{
    if (in->candidates < 0)
        return tg_err_set(err, "candidates must be >= 0, got %d", in->candidates);
    if (in->candidates == 0)
        return 0;
    if (tg_pass_at_k(in->candidates, in->correct, 1, &out->pass_at_1, err))
        return -1;
    out->has_pass_at_1 = true;
    if (in->candidates >= 5) {
        if (tg_pass_at_k(in->candidates, in->correct, 5, &out->pass_at_5, err))
            return -1;
        out->has_pass_at_5 = true;
    }
    return 0;
}

static void set_gates(const tg_metrics_config *cfg, const tg_validation_input *in,
                      tg_validation_result *out)
{
    const tg_pass_rates *pr = &out->rates;
    tg_gate *g = out->gates;
    g[TG_GATE_SCHEMA] = gate(TG_GATE_SCHEMA, true, in->schema_ok, 1);
    g[TG_GATE_STATIC_CHECK] = gate(TG_GATE_STATIC_CHECK, true, in->static_ok, 1);
    g[TG_GATE_TEST_PASS_RATE] =
        gate(TG_GATE_TEST_PASS_RATE, true, pr->overall.rate, cfg->test_pass_rate_min);
    g[TG_GATE_TEST_PASS_RATE].passed = pr->overall.ok;
    for (int c = 0; c < TG_CAT_COUNT; c++) {
        tg_gate_id id = (tg_gate_id)(TG_GATE_EDGE_PASS_RATE + c);
        g[id] = gate(id, pr->category[c].applicable, pr->category[c].rate, cfg->category_min[c]);
    }
    g[TG_GATE_FUNCTIONAL_CORRECTNESS] =
        gate(TG_GATE_FUNCTIONAL_CORRECTNESS, true, out->functional_correctness,
             cfg->functional_correctness_min);
    g[TG_GATE_CODE_BLEU] =
        gate(TG_GATE_CODE_BLEU, in->has_code_bleu, in->code_bleu, cfg->code_bleu_min);
    g[TG_GATE_PASS_AT_5] =
        gate(TG_GATE_PASS_AT_5, out->has_pass_at_5, out->pass_at_5, cfg->pass_at_5_min);
    g[TG_GATE_OVERALL_QUALITY] =
        gate(TG_GATE_OVERALL_QUALITY, true, out->overall.score, cfg->overall_quality_min);
    for (int i = 0; i < TG_GATE_COUNT && !out->failed_gate; i++)
        if (!g[i].passed)
            out->failed_gate = g[i].name;
}

int tg_validation_evaluate(const tg_metrics_config *cfg, const tg_validation_input *in,
                           tg_validation_result *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    if (in->has_reference && tgq_check_unit("reference similarity", in->reference_similarity, err))
        return -1;
    tg_pass_rates_compute(in->tests, in->n_tests, cfg, &out->rates);
    out->functional_correctness =
        tg_correctness_score(in->has_reference, in->reference_similarity, out->rates.overall.rate);
    if (sample_pass_at_k(in, out, err))
        return -1;
    tg_score_input si = {.functional_correctness = out->functional_correctness,
                         .test_pass_rate = out->rates.overall.rate,
                         .has_code_bleu = in->has_code_bleu,
                         .code_bleu = in->code_bleu,
                         .has_pass_at_1 = out->has_pass_at_1,
                         .pass_at_1 = out->pass_at_1};
    if (tg_overall_score(cfg, &si, &out->overall, err))
        return -1;
    set_gates(cfg, in, out);
    return 0;
}
