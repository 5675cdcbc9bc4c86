/*
 * test_metrics.c — the validation metrics: pass@k, pass rates and gates, configuration, overall
 * score and tiers (the formulas and examples of docs/metrics.md), the Python tokenizer and
 * CodeBLEU, the output comparator and test expectations, and code_analysis.py end to end.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/json.h"
#include "schema/jsregex.h"
#include "model/manifest.h"
#include "quality/metrics.h"
#include "testlib.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

/* JSON with ' for " so that expectations stay readable in C strings. Heap tree. */
static cJSON *J(const char *text)
{
    char *t = xstrdup(text);
    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    tg_err err = {0};
    cJSON *v = tg_json_parse(t, strlen(t), NULL, NULL, NULL, &err);
    SETUP(v != NULL, "bad test JSON %s: %s", t, err.msg);
    free(t);
    return v;
}

/* ---- pass@k ------------------------------------------------------------------------------- */

static double pk(int n, int c, int k)
{
    double v = -1;
    tg_err err = {0};
    CHECK(tg_pass_at_k(n, c, k, &v, &err) == 0, "pass@%d n=%d c=%d: %s", k, n, c, err.msg);
    return v;
}

static void expect_pk_error(int n, int c, int k, const char *part)
{
    double v = 42;
    tg_err err = {0};
    CHECK(tg_pass_at_k(n, c, k, &v, &err) == -1, "n=%d c=%d k=%d must fail", n, c, k);
    CHECK(v == 42, "output untouched on error");
    CHECK_CONTAINS(err.msg, part);
}

static void test_pass_at_k(void)
{
    CHECK(NEAR(pk(10, 2, 5), 0.777778, 5e-7), "n=10 c=2 k=5: %f", pk(10, 2, 5));
    CHECK(NEAR(pk(200, 20, 10), 0.660226, 5e-7), "n=200 c=20 k=10: %f", pk(200, 20, 10));
    CHECK(NEAR(pk(10, 8, 1), 0.8, 1e-12), "pass@1 = 0.8, got %.17g", pk(10, 8, 1));
    CHECK(pk(10, 8, 5) > 0.95, "pass@5 > 0.95");
    CHECK(pk(10, 8, 5) == 1.0, "n-c = 2 < k = 5: every draw has a correct one");
    CHECK(pk(10, 0, 5) == 0.0, "c = 0");
    CHECK(pk(1, 1, 1) == 1.0 && pk(1, 0, 1) == 0.0, "one candidate");
    CHECK(pk(10, 10, 10) == 1.0, "all correct");
    CHECK(NEAR(pk(5, 1, 1), 0.2, 1e-12), "pass@1 = c/n");
    /* The product form stays exact where C(n, k) overflows a double. */
    CHECK(NEAR(pk(2000, 1, 1), 1.0 / 2000, 1e-15), "large n, pass@1");
    CHECK(NEAR(pk(2000, 1000, 100), 1.0, 1e-12), "large n, large k");
    double v = pk(2000, 3, 100); /* 1 - C(1997,100)/C(2000,100) */
    double exact = 1 - (1900.0 * 1899 * 1898) / (2000.0 * 1999 * 1998);
    CHECK(NEAR(v, exact, 1e-12), "product form: %.15f vs %.15f", v, exact);
    expect_pk_error(10, 2, 11, "k must be from 1 to n = 10");
    expect_pk_error(10, 2, 0, "k must be");
    expect_pk_error(0, 0, 1, "n (generated candidates) must be at least 1");
    expect_pk_error(10, 11, 1, "c (correct candidates)");
    expect_pk_error(10, -1, 1, "c (correct candidates)");
}

/* ---- configuration ------------------------------------------------------------------------ */

static int config_from_yaml(const char *yaml, tg_metrics_config *c, tg_err *err)
{
    tg_doc d = {0};
    tg_err perr = {0};
    CHECK(tg_doc_parse_yaml(yaml, strlen(yaml), "t.yaml", NULL, &d, &perr) == 0, "yaml: %s",
          perr.msg);
    int rc = tg_metrics_config_from_json(tg_json_pointer_get(d.root, "/validation"), c, err);
    tg_doc_free(&d);
    return rc;
}

static void expect_config_error(const char *yaml, const char *part)
{
    tg_metrics_config c;
    tg_metrics_config_default(&c);
    double before = c.weights.code_bleu;
    tg_err err = {0};
    CHECK(config_from_yaml(yaml, &c, &err) == -1, "must be rejected: %s", yaml);
    CHECK_CONTAINS(err.msg, part);
    CHECK(c.weights.code_bleu == before, "config untouched on error");
}

static void test_config(void)
{
    tg_metrics_config d, c;
    tg_err err = {0};
    tg_metrics_config_default(&d);
    CHECK(d.weights.functional_correctness == 0.40 && d.weights.test_pass_rate == 0.30 &&
              d.weights.code_bleu == 0.20 && d.weights.pass_at_1 == 0.10,
          "metric weight defaults");
    CHECK(d.bleu_weights.ngram == 0.25 && d.bleu_weights.dataflow == 0.25, "bleu defaults");
    CHECK(d.tiers[TG_TIER_EXCELLENT] == 0.90 && d.tiers[TG_TIER_GOOD] == 0.75 &&
              d.tiers[TG_TIER_ACCEPTABLE] == 0.60 && d.tiers[TG_TIER_POOR] == 0.0,
          "tier defaults");
    CHECK(d.category_min[TG_CAT_EDGE] == 0.95 && d.category_min[TG_CAT_NORMAL] == 0.98 &&
              d.category_min[TG_CAT_STRESS] == 0.85,
          "category defaults");
    CHECK(tg_metrics_config_from_json(NULL, &c, &err) == 0 && memcmp(&c, &d, sizeof c) == 0,
          "no validation block: defaults");

    /* The repository's own toolgen.yaml gives the defaults back. */
    tg_doc doc = {0};
    CHECK(tg_doc_load("toolgen.yaml", NULL, &doc, &err) == 0, "toolgen.yaml: %s", err.msg);
    CHECK(tg_metrics_config_from_json(tg_json_pointer_get(doc.root, "/validation"), &c, &err) == 0,
          "toolgen.yaml validation: %s", err.msg);
    CHECK(memcmp(&c, &d, sizeof c) == 0, "toolgen.yaml = schema defaults");
    tg_doc_free(&doc);

    CHECK(config_from_yaml("validation:\n"
                           "  quality_thresholds: {test_pass_rate_min: 0.5}\n"
                           "  quality_tiers: {excellent: 0.95}\n"
                           "  metric_weights: {functional_correctness: 0.5, test_pass_rate: 0.5,"
                           " code_bleu: 0, pass_at_1: 0}\n",
                           &c, &err) == 0,
          "partial config: %s", err.msg);
    CHECK(c.test_pass_rate_min == 0.5 && c.code_bleu_min == 0.75, "thresholds merge per key");
    CHECK(c.tiers[TG_TIER_EXCELLENT] == 0.95 && c.tiers[TG_TIER_GOOD] == 0.75, "tiers merge");
    CHECK(c.weights.functional_correctness == 0.5 && c.weights.code_bleu == 0, "weights block");

    /* Weights that do not add up to 1 are rejected, not rescaled. */
    expect_config_error("validation:\n  metric_weights: {functional_correctness: 0.5, "
                        "test_pass_rate: 0.3, code_bleu: 0.2, pass_at_1: 0.1}\n",
                        "/validation/metric_weights: weights add up to 1.1");
    expect_config_error("validation:\n  code_bleu_weights: {ngram: 0.25, weighted_ngram: 0.25, "
                        "ast: 0.25, dataflow: 0.2}\n",
                        "/validation/code_bleu_weights: weights add up to 0.95");
    expect_config_error("validation:\n  metric_weights: {functional_correctness: 1}\n",
                        "missing \"test_pass_rate\"");
    expect_config_error("validation:\n  quality_tiers: {good: 0.95}\n",
                        "excellent (0.9) must be above good (0.95)");
    expect_config_error("validation:\n  quality_thresholds: {code_bleu_min: 1.5}\n",
                        "/validation/quality_thresholds/code_bleu_min: must be a number from 0");
    expect_config_error("validation:\n  category_pass_rate_min: {edge: high}\n",
                        "/validation/category_pass_rate_min/edge");
    expect_config_error("validation: [1]\n", "/validation: must be an object");
    CHECK(config_from_yaml("validation:\n  metric_weights: {functional_correctness: 0.4, "
                           "test_pass_rate: 0.3, code_bleu: 0.2, pass_at_1: 0.1000004}\n",
                           &c, &err) == 0,
          "within 1e-6 of 1.0: accepted (%s)", err.msg);
}

/* ---- pass rates, score, tier -------------------------------------------------------------- */

static void test_pass_rates(void)
{
    tg_metrics_config cfg;
    tg_metrics_config_default(&cfg);
    tg_test_outcome t[40];
    size_t n = 0;
    for (int i = 0; i < 20; i++)
        t[n++] = (tg_test_outcome){TG_CAT_EDGE, i != 0}; /* 19/20 = 0.95: exactly the bound */
    for (int i = 0; i < 10; i++)
        t[n++] = (tg_test_outcome){TG_CAT_NORMAL, true};
    for (int i = 0; i < 10; i++)
        t[n++] = (tg_test_outcome){TG_CAT_STRESS, i < 8}; /* 0.8 < 0.85 */
    tg_pass_rates r;
    tg_pass_rates_compute(t, n, &cfg, &r);
    CHECK(r.overall.total == 40 && r.overall.passed == 37, "overall counts");
    CHECK(NEAR(r.overall.rate, 37.0 / 40, 1e-15) && !r.overall.ok, "overall 0.925 < 0.95");
    CHECK(r.category[TG_CAT_EDGE].ok && r.category[TG_CAT_EDGE].rate == 0.95,
          "edge on the bound passes");
    CHECK(r.category[TG_CAT_NORMAL].ok && r.category[TG_CAT_NORMAL].rate == 1.0, "normal");
    CHECK(!r.category[TG_CAT_STRESS].ok && r.category[TG_CAT_STRESS].min == 0.85, "stress");

    tg_pass_rates_compute(t + 20, 10, &cfg, &r);
    CHECK(r.overall.ok && !r.category[TG_CAT_EDGE].applicable && r.category[TG_CAT_EDGE].ok,
          "a category without tests is not measured and does not fail");
    tg_pass_rates_compute(NULL, 0, &cfg, &r);
    CHECK(!r.overall.applicable && !r.overall.ok && r.overall.rate == 0,
          "a tool without tests fails the pass-rate gate");

    CHECK(tg_correctness_score(false, 0, 0.96) == 0.96, "no reference: the test pass rate");
    CHECK(NEAR(tg_correctness_score(true, 0.5, 1.0), 0.8, 1e-15), "0.6 * tests + 0.4 * ref");
    CHECK(tg_test_category_parse("stress") == TG_CAT_STRESS, "parse");
    CHECK(tg_test_category_parse("general") == TG_CAT_COUNT, "unknown category");
    CHECK(strcmp(tg_test_category_name(TG_CAT_EDGE), "edge") == 0, "name");
}

static tg_score score_of(double fc, double tpr, double bleu, double p1)
{
    tg_metrics_config cfg;
    tg_metrics_config_default(&cfg);
    tg_score_input in = {.functional_correctness = fc,
                         .test_pass_rate = tpr,
                         .has_code_bleu = bleu >= 0,
                         .code_bleu = bleu,
                         .has_pass_at_1 = p1 >= 0,
                         .pass_at_1 = p1};
    tg_score s = {0};
    tg_err err = {0};
    CHECK(tg_overall_score(&cfg, &in, &s, &err) == 0, "score: %s", err.msg);
    return s;
}

static void test_overall_score(void)
{
    /* docs/metrics.md, Overall score and quality tier: fc 0.92, pass@1 0.85, tpr 0.96, bleu 0.78
     * → 0.897, inside [0.85, 0.95], and GOOD rather than EXCELLENT (excellent >= 0.90): the
     * configured thresholds win. */
    tg_score s = score_of(0.92, 0.96, 0.78, 0.85);
    CHECK(NEAR(s.score, 0.897, 1e-12) && s.score >= 0.85 && s.score <= 0.95, "score %.17g",
          s.score);
    CHECK(s.tier == TG_TIER_GOOD, "0.897 < 0.90: good, got %s", tg_quality_tier_name(s.tier));

    /* Appendix B.3 profiles. */
    s = score_of(0.95, 0.98, 0.82, 0.90);
    CHECK(NEAR(s.score, 0.928, 1e-12) && s.tier == TG_TIER_EXCELLENT, "high quality: %g", s.score);
    s = score_of(0.78, 0.85, 0.68, 0.70);
    CHECK(NEAR(s.score, 0.773, 1e-12) && s.tier == TG_TIER_GOOD, "borderline: %g", s.score);
    s = score_of(0.55, 0.65, 0.48, 0.45);
    CHECK(NEAR(s.score, 0.556, 1e-12) && s.tier == TG_TIER_POOR, "poor: %g", s.score);

    /* Bounds belong to the upper tier, even when the weighted sum rounds below them. */
    CHECK(score_of(0.9, 0.9, 0.9, 0.9).tier == TG_TIER_EXCELLENT, "0.9 is excellent");
    CHECK(score_of(0.75, 0.75, 0.75, 0.75).tier == TG_TIER_GOOD, "0.75 is good");
    CHECK(score_of(0.6, 0.6, 0.6, 0.6).tier == TG_TIER_ACCEPTABLE, "0.6 is acceptable");
    CHECK(score_of(0.59, 0.59, 0.59, 0.59).tier == TG_TIER_POOR, "0.59 is poor");
    CHECK(score_of(1, 1, 1, 1).score == 1.0 && score_of(0, 0, 0, 0).score == 0.0, "extremes");

    /* Absent metrics hand their weight to functional correctness. */
    s = score_of(0.5, 1.0, -1, -1);
    CHECK(NEAR(s.score, 0.7 * 0.5 + 0.3 * 1.0, 1e-12), "no bleu, no pass@1: %g", s.score);
    CHECK(NEAR(s.applied.functional_correctness, 0.7, 1e-12) && s.applied.code_bleu == 0 &&
              s.applied.pass_at_1 == 0,
          "applied weights");
    s = score_of(1.0, 1.0, -1, -1);
    CHECK(s.score == 1.0 && s.tier == TG_TIER_EXCELLENT, "a hand-written tool passing all");

    tg_metrics_config cfg;
    tg_metrics_config_default(&cfg);
    tg_score_input bad = {.functional_correctness = 1.2, .test_pass_rate = 1};
    tg_err err = {0};
    CHECK(tg_overall_score(&cfg, &bad, &s, &err) == -1, "out of range rejected");
    CHECK_CONTAINS(err.msg, "functional_correctness must be from 0 to 1");
    bad = (tg_score_input){.functional_correctness = 1, .test_pass_rate = NAN};
    CHECK(tg_overall_score(&cfg, &bad, &s, &err) == -1, "NaN rejected");
    CHECK(strcmp(tg_quality_tier_name(TG_TIER_ACCEPTABLE), "acceptable") == 0, "tier name");
}

/* ---- tokenizer ---------------------------------------------------------------------------- */

/* Tokens joined by a space. */
static char *tokens_of(const char *code)
{
    tg_tokens t;
    tg_py_tokenize(code, strlen(code), &t);
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < t.count; i++) {
        if (i)
            tg_buf_putc(&b, ' ');
        tg_buf_puts(&b, t.tok[i]);
    }
    tg_tokens_free(&t);
    return tg_buf_steal(&b);
}

static void expect_tokens(const char *code, const char *want)
{
    char *got = tokens_of(code);
    CHECK(strcmp(got, want) == 0, "tokens of [%s]:\n  got  [%s]\n  want [%s]", code, got, want);
    free(got);
}

static void test_tokenizer(void)
{
    expect_tokens("def foo(): return x + y", "def foo ( ) : return x + y");
    expect_tokens("", "");
    expect_tokens("   \n\n# only a comment\n", "");
    expect_tokens("x = 1  # eval(x) in a comment\n", "x = 1");
    expect_tokens("s = '# not a comment'", "s = '# not a comment'");
    expect_tokens("def f():\n    \"\"\"Doc.\n    more\"\"\"\n    return 1\n",
                  "def f ( ) : return 1");
    expect_tokens("'''module doc'''\nimport re\n", "import re");
    expect_tokens("x = \"\"\"kept: an expression\"\"\"", "x = \"\"\"kept: an expression\"\"\"");
    expect_tokens("\"a\" \"b\"\nx = 1", "x = 1");           /* concatenated docstring */
    expect_tokens("\"a\".join(xs)", "\"a\" . join ( xs )"); /* not a whole statement */
    expect_tokens("f(\n  'a'\n)", "f ( 'a' )");             /* inside brackets: an argument */
    expect_tokens("b = rb'\\x00' + f\"{x}\" + U'u'", "b = rb'\\x00' + f\"{x}\" + U'u'");
    expect_tokens("n = 1e-3 + 0x1F + 1_000.5j - .5", "n = 1e-3 + 0x1F + 1_000.5j - .5");
    expect_tokens("a **= b // c -> d := e != f ... @ g", "a **= b // c -> d := e != f ... @ g");
    expect_tokens("x >>= 1; y <<= 2", "x >>= 1 ; y <<= 2");
    expect_tokens("@mcp.tool()\ndef run(): pass", "@mcp . tool ( ) def run ( ) : pass");
    expect_tokens("m = a @ b", "m = a @ b");
    expect_tokens("s = 'unterminated\nx = 1", "s = 'unterminated x = 1");
    expect_tokens("s = 'it\\'s'", "s = 'it\\'s'");
    expect_tokens("x = 1 + \\\n    2", "x = 1 + 2");
    expect_tokens("größe = 1", "größe = 1");
    expect_tokens("r\"raw\\\"quote\"", ""); /* a raw string alone on a line: docstring */
    expect_tokens("if a:\n    pass\nelif b:\n    pass", "if a : pass elif b : pass");
}

/* ---- BLEU / CodeBLEU ---------------------------------------------------------------------- */

static tg_code_bleu bleu_of(const char *cand, const char *ref)
{
    tg_code_bleu b = {0};
    tg_err err = {0};
    CHECK(tg_code_bleu_compute(cand, ref, 1, 1, NULL, NULL, 0, &b, &err) == 0, "bleu: %s", err.msg);
    return b;
}

static void test_bleu(void)
{
    tg_code_bleu b = bleu_of("def foo(): return x + y", "def foo(): return x + y");
    CHECK(b.ngram.score == 1.0, "identical code → bleu 1.0, got %.17g", b.ngram.score);
    CHECK(b.weighted_ngram.score == 1.0 && b.score == 1.0, "identical: every part 1.0");
    for (int n = 0; n < 4; n++)
        CHECK(b.ngram.precision[n] == 1.0, "p_%d = 1", n + 1);
    CHECK(b.ngram.candidate_len == 9 && b.ngram.totals[3] == 6, "9 tokens, 6 4-grams");

    /* Hand-computed: a b c d vs a b c e, p = 3/4, (2+1)/(3+1), (1+1)/(2+1), (0+1)/(1+1). */
    b = bleu_of("a b c d", "a b c e");
    double want = pow(0.75 * 0.75 * (2.0 / 3) * 0.5, 0.25);
    CHECK(NEAR(b.ngram.score, want, 1e-12), "partial: %.15f vs %.15f", b.ngram.score, want);
    CHECK(b.ngram.matches[0] == 3 && b.ngram.matches[1] == 2 && b.ngram.matches[2] == 1 &&
              b.ngram.matches[3] == 0,
          "clipped matches");

    /* Clipping: repeating a matching token does not raise the precision. */
    b = bleu_of("x x x x", "x");
    CHECK(NEAR(b.ngram.precision[0], 0.25, 1e-15), "clipped p1 = 1/4");
    CHECK(b.ngram.brevity_penalty == 1.0, "longer candidate: no brevity penalty");

    /* Brevity penalty: a correct but short candidate. */
    b = bleu_of("a", "a b");
    CHECK(NEAR(b.ngram.brevity_penalty, exp(-1.0), 1e-15), "BP = e^(1 - 2/1)");
    CHECK(NEAR(b.ngram.score, exp(-1.0), 1e-15), "single token, smoothed orders = 1");

    /* Edge cases. */
    b = bleu_of("", "");
    CHECK(b.ngram.score == 1.0 && b.weighted_ngram.score == 1.0, "two empty files: identical");
    b = bleu_of("# only a comment", "");
    CHECK(b.ngram.score == 1.0, "comments are not code");
    b = bleu_of("", "x = 1");
    CHECK(b.ngram.score == 0.0 && b.ngram.brevity_penalty == 0.0, "empty candidate: 0");
    b = bleu_of("x = 1", "");
    CHECK(b.ngram.score == 0.0, "empty reference: 0");
    b = bleu_of("x", "x");
    CHECK(b.ngram.score == 1.0, "single identical token: 1.0 thanks to smoothing");
    b = bleu_of("a = b", "a = b");
    CHECK(b.ngram.score == 1.0 && b.ngram.totals[3] == 0, "n < 4 tokens: no 4-grams, still 1.0");
    b = bleu_of("alpha beta", "gamma delta");
    CHECK(b.ngram.score == 0.0, "nothing in common: 0");

    /* Keyword weights: matching `return` counts more than matching a name. */
    tg_code_bleu kw_match = bleu_of("return y", "return x"),
                 name_match = bleu_of("yield x", "return x");
    CHECK(kw_match.ngram.score == name_match.ngram.score, "plain BLEU cannot tell them apart");
    CHECK(kw_match.weighted_ngram.score > name_match.weighted_ngram.score,
          "the keyword match weighs more: %g > %g", kw_match.weighted_ngram.score,
          name_match.weighted_ngram.score);
    b = bleu_of("def f(): return 1", "def g(): return 2");
    CHECK(b.weighted_ngram.precision[0] > b.ngram.precision[0], "weighted p1 %g > p1 %g",
          b.weighted_ngram.precision[0], b.ngram.precision[0]);
    CHECK(b.ngram.score > 0 && b.ngram.score < 1, "partial: %g", b.ngram.score);
    /* Overrides: only `def` counts. */
    tg_keyword_weight only_def[] = {{"__default__", 0.0}, {"def", 1.0}};
    tg_tokens c, r;
    tg_py_tokenize("def f(): pass", 13, &c);
    tg_py_tokenize("def g(): return", 15, &r);
    tg_bleu wb;
    tg_bleu_tokens(&c, &r, only_def, 2, &wb);
    CHECK(wb.precision[0] == 1.0, "weighted p1 with only def weighted: %g", wb.precision[0]);
    tg_bleu_tokens(&c, &r, NULL, 0, &wb);
    CHECK(NEAR(wb.precision[0], 4.0 / 6, 1e-15), "plain p1 = 4/6: %g", wb.precision[0]);
    tg_tokens_free(&c);
    tg_tokens_free(&r);
    size_t nkw;
    const tg_keyword_weight *kw = tg_default_keyword_weights(&nkw);
    CHECK(nkw == 22 && strcmp(kw[0].token, "def") == 0 && kw[0].weight == 2.0, "default keyword weights");

    /* Combination with the structural scores and configured weights. */
    tg_bleu_weights w = {0.1, 0.2, 0.3, 0.4};
    tg_err err = {0};
    CHECK(tg_code_bleu_compute("x = 1", "x = 1", 0.5, 0.25, &w, NULL, 0, &b, &err) == 0, "%s",
          err.msg);
    CHECK(NEAR(b.score, 0.1 + 0.2 + 0.15 + 0.1, 1e-12), "weighted combination: %g", b.score);
    w = (tg_bleu_weights){0.5, 0.5, 0.5, 0};
    CHECK(tg_code_bleu_compute("x", "x", 1, 1, &w, NULL, 0, &b, &err) == -1, "sum 1.5 rejected");
    CHECK_CONTAINS(err.msg, "add up to 1.5");
    CHECK(tg_code_bleu_compute("x", "x", 1.5, 1, NULL, NULL, 0, &b, &err) == -1, "ast > 1");
    CHECK_CONTAINS(err.msg, "ast match score");
}

/* ---- code_analysis.py --------------------------------------------------------------------- */

/* Runs the script on a request, returns the parsed reply (NULL on failure). */
static cJSON *analyse(const char *candidate, const char *reference)
{
    const char *script = "toolgen/run/runtime/code_analysis.py";
    if (access(script, R_OK) != 0 || access("/usr/bin/python3", X_OK) != 0) {
        CHECK(0, "%s and /usr/bin/python3 are needed (run from the repository root)", script);
        return NULL;
    }
    char path[] = "/tmp/toolgen-test-metrics-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return NULL;
    cJSON *req = tg_code_analysis_request(candidate, reference);
    char *text = tg_json_print_compact(req);
    SETUP(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write request");
    close(fd);
    free(text);
    cJSON_Delete(req);
    char *cmd = xasprintf("/usr/bin/python3 %s < %s", script, path);
    FILE *p = popen(cmd, "r");
    tg_buf out = TG_BUF_INIT;
    char chunk[4096];
    size_t n;
    while (p && (n = fread(chunk, 1, sizeof chunk, p)) > 0)
        tg_buf_append(&out, chunk, n);
    int status = p ? pclose(p) : -1;
    CHECK(status == 0, "%s exited %d", cmd, status);
    unlink(path);
    free(cmd);
    tg_err err = {0};
    cJSON *reply = out.data ? tg_json_parse(out.data, out.len, NULL, NULL, NULL, &err) : NULL;
    CHECK(reply != NULL, "reply is JSON: %s", err.msg);
    tg_buf_free(&out);
    return reply;
}

static void test_code_analysis(void)
{
    /* The same structure with other names. */
    cJSON *r = analyse("x = a + b", "y = c + d");
    tg_code_analysis a;
    tg_err err = {0};
    CHECK(r && tg_code_analysis_read(r, &a, &err) == 0, "read: %s", err.msg);
    CHECK(a.ok && a.ast_match > 0.8, "ast_match_score > 0.8: %g", a.ast_match);
    CHECK(a.ast_match == 1.0 && a.ast_node_overlap == 1.0 && a.ast_depth_similarity == 1.0,
          "identical shape");
    CHECK(a.dataflow_match == 1.0, "names are normalised in the dataflow: %g", a.dataflow_match);
    cJSON_Delete(r);

    /* Dependencies b <- a, c <- b (the snippet is indented as a whole). */
    r = analyse("\n    a = 10\n    b = a + 5\n    c = b * 2\n    ", "a = 10");
    const cJSON *deps = tg_json_pointer_get(r, "/dataflow/candidate/variable_dependencies");
    char *got = deps ? tg_json_print_compact(deps) : xstrdup("(none)");
    CHECK(strcmp(got, "{\"a\":[],\"b\":[\"a\"],\"c\":[\"b\"]}") == 0, "dependencies: %s", got);
    free(got);
    const cJSON *edges = tg_json_pointer_get(r, "/dataflow/candidate/edges");
    got = edges ? tg_json_print_compact(edges) : xstrdup("(none)");
    CHECK(strcmp(got, "[[\"var_1\",\"var_0\"],[\"var_2\",\"var_1\"]]") == 0, "edges: %s", got);
    free(got);
    CHECK(tg_json_pointer_get(r, "/ast/candidate/max_depth") != NULL, "raw AST features");
    cJSON_Delete(r);

    /* End to end: an identical snippet scores 1.0 in every component. */
    const char *code = "def foo(): return x + y";
    r = analyse(code, code);
    CHECK(r && tg_code_analysis_read(r, &a, &err) == 0, "read: %s", err.msg);
    tg_code_bleu b;
    CHECK(tg_code_bleu_compute(code, code, a.ast_match, a.dataflow_match, NULL, NULL, 0, &b,
                               &err) == 0,
          "%s", err.msg);
    CHECK(b.score == 1.0, "CodeBLEU of identical code: %.17g", b.score);
    cJSON_Delete(r);

    /* A different program scores lower, but above 0. */
    r = analyse("def run(df):\n    return df.groupby('a').size()\n",
                "def run(df):\n    out = df.groupby('a').count()\n    return out\n");
    CHECK(r && tg_code_analysis_read(r, &a, &err) == 0, "read: %s", err.msg);
    CHECK(a.ok && a.ast_match > 0.3 && a.ast_match < 1.0, "similar programs: %g", a.ast_match);
    CHECK(a.dataflow_match > 0.0 && a.dataflow_match < 1.0, "dataflow %g", a.dataflow_match);
    cJSON_Delete(r);

    /* Syntax errors are results with a place, not failures. */
    r = analyse("x = 1\ndef f(:\n", "x = 1");
    CHECK(r && tg_code_analysis_read(r, &a, &err) == 0, "read: %s", err.msg);
    CHECK(!a.ok && a.error_line == 2 && a.error_col > 0, "error at 2:%d", a.error_col);
    CHECK_CONTAINS(a.error, "candidate: ");
    CHECK(a.ast_match == 0 && a.dataflow_match == 0, "scores 0");
    cJSON_Delete(r);
    r = analyse("", "");
    CHECK(r && tg_code_analysis_read(r, &a, &err) == 0 && a.ok && a.ast_match == 1.0,
          "two empty programs are identical");
    cJSON_Delete(r);

    cJSON *bad = J("{'ok': true, 'ast': {'ast_match_score': 2}}");
    CHECK(tg_code_analysis_read(bad, &a, &err) == -1, "score out of range");
    CHECK_CONTAINS(err.msg, "ast_match_score");
    cJSON_Delete(bad);
}

/* ---- comparator --------------------------------------------------------------------------- */

static bool match(const char *e, const char *a, tg_match_mode mode, const tg_match_opts *o,
                  char **why)
{
    cJSON *ej = J(e), *aj = J(a);
    bool ok = tg_json_match(ej, aj, mode, o, why);
    cJSON_Delete(ej);
    cJSON_Delete(aj);
    return ok;
}

static void expect_match(const char *e, const char *a, tg_match_mode mode, const tg_match_opts *o)
{
    char *why = NULL;
    CHECK(match(e, a, mode, o, &why), "%s vs %s should match: %s", e, a, why ? why : "");
    CHECK(why == NULL, "no explanation on a match");
    free(why);
}

static void expect_mismatch(const char *e, const char *a, tg_match_mode mode,
                            const tg_match_opts *o, const char *explanation)
{
    char *why = NULL;
    CHECK(!match(e, a, mode, o, &why), "%s vs %s should not match", e, a);
    CHECK(why && strcmp(why, explanation) == 0, "%s vs %s:\n  got  %s\n  want %s", e, a,
          why ? why : "(null)", explanation);
    free(why);
    CHECK(!match(e, a, mode, o, NULL), "same answer without an explanation");
}

static void test_comparator_scalars(void)
{
    const tg_match_mode EQ = TG_MATCH_EQUAL;
    expect_match("1", "1.0", EQ, NULL);
    expect_match("{'a': 1e2}", "{'a': 100}", EQ, NULL);
    expect_match("0.1", "0.10000000001", EQ, NULL); /* default tolerance 1e-9, relative */
    expect_mismatch("0.1", "0.1001", EQ, NULL, "/: expected 0.1, got 0.1001 (tolerance 1e-09)");
    tg_match_opts o = {.tolerance = 1e-4};
    expect_match("5.8433", "5.84335", EQ, &o);
    expect_match("1000000", "1000050", EQ, &o); /* relative to the larger magnitude */
    expect_mismatch("2", "2.001", EQ, &o, "/: expected 2, got 2.001 (tolerance 0.0001)");
    o.tolerance = 0;
    expect_mismatch("1", "1.0000001", EQ, &o, "/: expected 1, got 1.0000001");
    CHECK(tg_numbers_match(0, 1e-10, 1e-9) && !tg_numbers_match(0, 2e-9, 1e-9), "near zero");
    expect_mismatch("true", "1", EQ, NULL, "/: expected true, got 1");
    expect_mismatch("'1'", "1", EQ, NULL, "/: expected \"1\", got 1");
    expect_mismatch("null", "false", EQ, NULL, "/: expected null, got false");
    expect_match("null", "null", EQ, NULL);
    expect_mismatch("'Adelie'", "'adelie'", EQ, NULL, "/: expected \"Adelie\", got \"adelie\"");
}

static void test_comparator_structures(void)
{
    const tg_match_mode EQ = TG_MATCH_EQUAL, IN = TG_MATCH_CONTAINS;
    expect_match("{'a': 1, 'b': [1, 2]}", "{'b': [1, 2.0], 'a': 1}", EQ, NULL);
    expect_mismatch("{'a': 1}", "{'a': 1, 'b': 2}", EQ, NULL, "/b: unexpected member (value 2)");
    expect_mismatch("{'a': 1, 'b': 2}", "{'a': 1}", EQ, NULL, "/b: missing (expected 2)");
    expect_mismatch("{'groups': [{'count': 124}]}", "{'groups': [{'count': 123}]}", EQ, NULL,
                    "/groups/0/count: expected 124, got 123");
    expect_mismatch("{'a/b': {'c~d': 1}}", "{'a/b': {'c~d': 2}}", EQ, NULL,
                    "/a~1b/c~0d: expected 1, got 2");
    expect_mismatch("[1, 2]", "[1, 2, 3]", EQ, NULL, "/: expected 2 items, got 3");
    expect_mismatch("{'a': [1]}", "{'a': {'x': 1}}", EQ, NULL,
                    "/a: expected an array, got {\"x\":1}");
    expect_mismatch("{'a': {'x': 1}}", "{'a': 'x'}", EQ, NULL, "/a: expected an object, got \"x\"");

    /* output_contains: a subset of keys, recursively; arrays element by element, same length. */
    const char *actual = "{'total_rows': 244, 'group_count': 11, 'truncated': true, 'groups': ["
                         "{'keys': {'size': 2, 'smoker': 'No'}, 'count': 90, 'percent': 36.89},"
                         "{'keys': {'size': 2, 'smoker': 'Yes'}, 'count': 66, 'percent': 27.05},"
                         "{'keys': {'size': 3, 'smoker': 'No'}, 'count': 26, 'percent': 10.66}],"
                         "'summary_markdown': '## Row counts'}";
    expect_match("{'group_count': 11, 'truncated': true, 'groups': ["
                 "{'keys': {'size': 2, 'smoker': 'No'}, 'count': 90},"
                 "{'keys': {'size': 2, 'smoker': 'Yes'}, 'count': 66},"
                 "{'keys': {'size': 3, 'smoker': 'No'}, 'count': 26}]}",
                 actual, IN, NULL);
    expect_mismatch("{'groups': [{'count': 90}, {'count': 66}]}", actual, IN, NULL,
                    "/groups: expected 2 items, got 3");
    expect_mismatch("{'groups': [{'count': 90}, {'count': 26}, {'count': 66}]}", actual, IN, NULL,
                    "/groups/1/count: expected 26, got 66");
    expect_mismatch("{'groups': [{'keys': {'day': 'Sun'}}, {}, {}]}", actual, IN, NULL,
                    "/groups/0/keys/day: missing (expected \"Sun\")");
    expect_mismatch("{'value_column': null}", "{'value_column': 'x'}", IN, NULL,
                    "/value_column: expected null, got \"x\"");
    expect_match("{'value_column': null}", "{'value_column': null, 'b': 1}", IN, NULL);
    expect_mismatch("{'value_column': null}", "{'b': 1}", IN, NULL,
                    "/value_column: missing (expected null)");
    expect_match("{}", actual, IN, NULL);

    /* summary_markdown is presentation: ignored on request (reference comparison). */
    tg_match_opts o = {.tolerance = -1, .ignore_summary = true};
    expect_match("{'a': 1, 'summary_markdown': 'x'}", "{'a': 1, 'summary_markdown': 'y'}", EQ, &o);
    expect_match("{'a': 1}", "{'a': 1, 'summary_markdown': 'y'}", EQ, &o);
    expect_match("{'n': {'summary_markdown': 1}}", "{'n': {'summary_markdown': 1}}", EQ, &o);
    expect_mismatch("{'n': {'summary_markdown': 1}}", "{'n': {'summary_markdown': 2}}", EQ, &o,
                    "/n/summary_markdown: expected 1, got 2");

    /* Long values are cut in explanations, on a UTF-8 boundary. */
    char *why = NULL;
    CHECK(!match("'short'", "'ééééééééééééééééééééééééééééééééééééééééééééééééééééé'", EQ, NULL,
                 &why),
          "long");
    CHECK(why && strlen(why) < 140 && strstr(why, "…"), "cut: %s", why ? why : "");
    free(why);
}

static void test_comparator_unordered(void)
{
    const tg_match_mode EQ = TG_MATCH_EQUAL, IN = TG_MATCH_CONTAINS;
    const char *const ptrs[] = {"/groups", "/groups/1/tags", "/root_set", ""};
    tg_match_opts o = {.tolerance = -1, .unordered = ptrs, .n_unordered = 3};
    expect_match("{'groups': [1, 2, 3]}", "{'groups': [3, 1, 2]}", EQ, &o);
    expect_mismatch("{'groups': [1, 2, 3]}", "{'groups': [3, 1, 1]}", EQ, &o,
                    "/groups: no element of the array (order ignored) matches expected item 1: 2");
    expect_mismatch("{'groups': [1, 1]}", "{'groups': [1, 2]}", EQ, &o,
                    "/groups: no element of the array (order ignored) matches expected item 1: 1");
    expect_mismatch("{'groups': [1, 2]}", "{'groups': [2, 1, 3]}", EQ, &o,
                    "/groups: expected 2 items (in any order), got 3");
    /* Not listed: order matters. */
    expect_mismatch("{'other': [1, 2]}", "{'other': [2, 1]}", EQ, &o,
                    "/other/0: expected 1, got 2");
    /* contains: every given element occurs (each matched to its own element). */
    expect_match("{'groups': [{'k': 'b'}, {'k': 'a'}]}",
                 "{'groups': [{'k': 'a', 'n': 1}, {'k': 'c', 'n': 2}, {'k': 'b', 'n': 3}]}", IN,
                 &o);
    expect_mismatch("{'groups': [{'k': 'a'}, {'k': 'a'}]}",
                    "{'groups': [{'k': 'a', 'n': 1}, {'k': 'b', 'n': 2}]}", IN, &o,
                    "/groups: no element of the array (order ignored) matches expected item 1: "
                    "{\"k\":\"a\"}");
    expect_mismatch("{'groups': [1, 2, 3]}", "{'groups': [1, 2]}", IN, &o,
                    "/groups: expected at least 3 items, got 2");
    /* Greedy would pair {a:1} with the first element and fail {a:1,b:2}: a maximal matching. */
    expect_match("{'groups': [{'a': 1}, {'a': 1, 'b': 2}]}",
                 "{'groups': [{'a': 1, 'b': 2}, {'a': 1, 'c': 3}]}", IN, &o);
    /* A pointer into an unordered array names the actual result's element (/groups/1/tags is
     * the tags of the result's second group, whichever expected element it pairs with). */
    expect_match("{'groups': [{'id': 0, 'tags': ['x', 'y']}, {'id': 1, 'tags': [1]}]}",
                 "{'groups': [{'id': 1, 'tags': [1]}, {'id': 0, 'tags': ['y', 'x']}]}", EQ, &o);
    expect_mismatch("{'groups': [{'id': 0, 'tags': [1]}, {'id': 1, 'tags': ['x', 'y']}]}",
                    "{'groups': [{'id': 1, 'tags': ['y', 'x']}, {'id': 0, 'tags': [1]}]}", EQ, &o,
                    "/groups: no element of the array (order ignored) matches expected item 1: "
                    "{\"id\":1,\"tags\":[\"x\",\"y\"]}");
    /* The root itself. */
    o.n_unordered = 4;
    expect_match("[3, {'a': 1}, 'x']", "['x', 3, {'a': 1}]", EQ, &o);
    expect_match("[]", "[]", EQ, &o);
    expect_match("[]", "[1]", IN, &o);
}

/* ---- expectations ------------------------------------------------------------------------- */

typedef struct outcome {
    cJSON *result;
    tg_call_outcome call;
} outcome;

static outcome ok_call(const char *result)
{
    outcome o = {.result = J(result)};
    o.call = (tg_call_outcome){.ok = true, .result = o.result, .schema_ok = true};
    return o;
}

static outcome err_call(const char *code, const char *message)
{
    outcome o = {0};
    o.call = (tg_call_outcome){.ok = false, .error_code = code, .message = message};
    return o;
}

/* Runs expect (JSON text) on the outcome; want: 1 pass, 0 fail with `part` in the reason,
 * -1 malformed with `part` in the error. Frees the outcome. */
static void expect_check(const char *expect, outcome o, int want, const char *part)
{
    cJSON *e = J(expect);
    char *why = NULL;
    tg_err err = {0};
    int rc = tg_expect_check(e, &o.call, &why, &err);
    CHECK(rc == want, "%s: rc %d, want %d (%s%s)", expect, rc, want, why ? why : "", err.msg);
    if (want == 0)
        CHECK_CONTAINS(why, part);
    if (want == -1)
        CHECK_CONTAINS(err.msg, part);
    if (want == 1)
        CHECK(why == NULL, "no reason on success");
    free(why);
    cJSON_Delete(e);
    cJSON_Delete(o.result);
}

static void test_expectations(void)
{
    const char *res = "{'title': 'Rows per species', 'bars': [{'category': 'Adelie', 'value': 152},"
                      " {'category': 'Gentoo', 'value': 124}], 'value_column': null,"
                      " 'summary_markdown': '## Rows per species\\n\\n| Adelie | 152 |\\n'}";
    expect_check("{'output_contains': {'title': 'Rows per species', 'value_column': null}}",
                 ok_call(res), 1, NULL);
    expect_check("{'output_contains': {'bars': [{'category': 'Adelie', 'value': 152.0000001}, "
                 "{'category': 'Gentoo', 'value': 124}]}, 'tolerance': 1e-6}",
                 ok_call(res), 1, NULL);
    expect_check("{'output_contains': {'bars': [{'category': 'Adelie', 'value': 152.01}, "
                 "{'category': 'Gentoo', 'value': 124}]}, 'tolerance': 1e-6}",
                 ok_call(res), 0, "output_contains: /bars/0/value: expected 152.01, got 152");
    expect_check("{'output_contains': {'bars': [{'category': 'Gentoo'}, {'category': 'Adelie'}]},"
                 " 'unordered': ['/bars']}",
                 ok_call(res), 1, NULL);
    expect_check("{'output': {'title': 'Rows per species'}}", ok_call(res), 0,
                 "output: /bars: unexpected member");
    expect_check("{'text_contains': ['## Rows per species', '| Adelie | 152 |']}", ok_call(res), 1,
                 NULL);
    expect_check("{'text_contains': ['| Chinstrap |']}", ok_call(res), 0,
                 "summary_markdown does not contain \"| Chinstrap |\"");
    expect_check("{'text_matches': '^## Rows per \\\\w+\\n'}", ok_call(res), 1, NULL);
    expect_check("{'text_matches': 'Gentoo \\\\| \\\\d+'}", ok_call(res), 0,
                 "summary_markdown does not match /Gentoo \\| \\d+/");
    expect_check("{'text_matches': '(unclosed'}", ok_call(res), -1,
                 "expect/text_matches: invalid regular expression");
    expect_check("{'text_contains': ['x']}", ok_call("{'a': 1}"), 0, "no summary_markdown");
    expect_check("{'tolerance': -1, 'output': {}}", ok_call(res), -1, "expect/tolerance");
    expect_check("{'unordered': '/bars', 'output': {}}", ok_call(res), -1, "expect/unordered");
    expect_check("{'output_contains': [1]}", ok_call(res), -1, "expect/output_contains");
    expect_check("{'schema_valid': true}", ok_call(res), 1, NULL);

    outcome bad = ok_call(res);
    bad.call.schema_ok = false;
    bad.call.schema_error = "/bars/0/value: expected number";
    expect_check("{'schema_valid': true}", bad, 0,
                 "the result does not fit output_schema: /bars/0/value: expected number");

    const char *files[] = {"bar_chart.png", "visualization_manifest.json"};
    outcome art = ok_call(res);
    art.call.artifacts = files;
    art.call.n_artifacts = 2;
    expect_check("{'artifacts': ['visualization_manifest.json', 'bar_chart.png']}", art, 1, NULL);
    art = ok_call(res);
    art.call.artifacts = files;
    art.call.n_artifacts = 2;
    expect_check("{'artifacts': ['bar_chart_data.csv']}", art, 0,
                 "artifact bar_chart_data.csv was not written (2 file(s) were)");

    /* Error expectations. */
    const char *msg = "Column 'sex' is not numeric. Numeric columns: total_bill, tip, size";
    expect_check("{'error': 'INVALID_INPUT', 'message_contains': ['sex', 'Numeric columns: "
                 "total_bill, tip, size']}",
                 err_call("INVALID_INPUT", msg), 1, NULL);
    expect_check("{'error': 'NOT_FOUND'}", err_call("INVALID_INPUT", msg), 0,
                 "expected error NOT_FOUND, got INVALID_INPUT: Column 'sex'");
    expect_check("{'error': 'INVALID_INPUT', 'message_contains': ['weekday']}",
                 err_call("INVALID_INPUT", msg), 0, "does not contain \"weekday\"");
    expect_check("{'error': 'INVALID_INPUT'}", ok_call(res), 0,
                 "expected error INVALID_INPUT, but the call succeeded");
    expect_check("{'output_contains': {}}", err_call("TIMEOUT", "no answer within 30 s"), 0,
                 "the call failed with TIMEOUT: no answer within 30 s");
    expect_check("[1]", ok_call(res), -1, "expect: must be an object");
}

/* Every test of the example manifests has a well-formed expect block for the checker. */
static void test_manifest_expectations(void)
{
    const char *names[] = {"manifests/group_and_count_by_columns/tool.manifest.yaml",
                           "manifests/bar_chart_by_group/tool.manifest.yaml",
                           "manifests/load_and_analyze_csv/tool.manifest.yaml"};
    tg_repo here;
    tg_err rerr = {0};
    CHECK(tg_repo_open_dir(&here, ".", &rerr) == 0, "repo: %s", rerr.msg);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        tg_manifest m = {0};
        tg_err err = {0};
        CHECK(tg_manifest_load(&here, names[i], &m, &err) == 0, "%s: %s", names[i], err.msg);
        tg_manifest_bind(&m);
        const cJSON *t;
        cJSON_ArrayForEach(t, m.tests)
        {
            const cJSON *expect = tg_json_get(t, "expect");
            const cJSON *oc = tg_json_get(expect, "output_contains");
            if (!oc)
                continue;
            /* The expectation itself, as the result, satisfies it (and the block parses). A
             * text_matches pattern cannot be turned into a matching text: it must compile. */
            cJSON *result = cJSON_Duplicate(oc, true);
            cJSON *ex = cJSON_Duplicate(expect, true);
            cJSON *tm = cJSON_DetachItemFromObject(ex, "text_matches");
            char msg[256] = "";
            if (tm) {
                pcre2_code *re = js_regex_compile(tm->valuestring, msg, sizeof msg);
                CHECK(re != NULL, "%s: text_matches: %s", m.name, msg);
                pcre2_code_free(re);
                cJSON_Delete(tm);
            }
            const cJSON *tc = tg_json_get(expect, "text_contains");
            tg_buf text = TG_BUF_INIT;
            for (const cJSON *s = tc ? tc->child : NULL; s; s = s->next)
                tg_buf_printf(&text, "%s\n", s->valuestring);
            if (tc)
                cJSON_AddStringToObject(result, "summary_markdown", text.data);
            const char *arts[16];
            size_t na = 0;
            const cJSON *al = tg_json_get(expect, "artifacts");
            for (const cJSON *s = al ? al->child : NULL; s && na < 16; s = s->next)
                arts[na++] = s->valuestring;
            tg_call_outcome call = {.ok = true,
                                    .result = result,
                                    .schema_ok = true,
                                    .artifacts = arts,
                                    .n_artifacts = na};
            char *why = NULL;
            int rc = tg_expect_check(ex, &call, &why, &err);
            CHECK(rc == 1, "%s/%s: %d %s %s", m.name, tg_json_get_string(t, "name"), rc,
                  why ? why : "", err.msg);
            free(why);
            tg_buf_free(&text);
            cJSON_Delete(result);
            cJSON_Delete(ex);
        }
        tg_manifest_free(&m);
    }
    tg_repo_release(&here);
}

static void test_reference_agreement(void)
{
    outcome g[4] = {ok_call("{'n': 1, 'summary_markdown': 'one'}"), ok_call("{'n': 2}"),
                    err_call("NOT_FOUND", "no file"), err_call("INVALID_INPUT", "bad")};
    outcome r[4] = {ok_call("{'n': 1, 'summary_markdown': 'One.'}"), ok_call("{'n': 3}"),
                    err_call("NOT_FOUND", "missing"), ok_call("{'n': 4}")};
    tg_call_outcome gc[4], rc[4];
    for (int i = 0; i < 4; i++) {
        gc[i] = g[i].call;
        rc[i] = r[i].call;
    }
    tg_match_opts o = {.tolerance = -1, .ignore_summary = true};
    double v = -1;
    char *why = NULL;
    tg_err err = {0};
    CHECK(tg_reference_agreement(gc, rc, 4, &o, &v, &why, &err) == 0, "%s", err.msg);
    CHECK(v == 0.5, "2 of 4 agree (same values, same error code): %g", v);
    CHECK(why && strcmp(why, "input 1: /n: expected 3, got 2") == 0, "why: %s", why ? why : "");
    free(why);
    CHECK(tg_reference_agreement(gc + 3, rc + 3, 1, &o, &v, &why, &err) == 0 && v == 0, "one");
    CHECK_CONTAINS(why, "input 0: generated failed with INVALID_INPUT: bad");
    free(why);
    CHECK(tg_reference_agreement(gc, rc, 0, &o, &v, NULL, &err) == -1, "no inputs");
    o.ignore_summary = false;
    CHECK(tg_reference_agreement(gc, rc, 1, &o, &v, NULL, &err) == 0 && v == 0,
          "summary compared when asked");
    for (int i = 0; i < 4; i++) {
        cJSON_Delete(g[i].result);
        cJSON_Delete(r[i].result);
    }
    /* docs/metrics.md, Functional correctness: 0.6 * tests + 0.4 * reference agreement. */
    CHECK(NEAR(tg_correctness_score(true, 0.5, 0.9), 0.74, 1e-12), "combined correctness");
}

/* ---- gates -------------------------------------------------------------------------------- */

static tg_validation_result evaluate(tg_validation_input in)
{
    tg_metrics_config cfg;
    tg_metrics_config_default(&cfg);
    tg_validation_result r;
    tg_err err = {0};
    CHECK(tg_validation_evaluate(&cfg, &in, &r, &err) == 0, "evaluate: %s", err.msg);
    return r;
}

static void test_gates(void)
{
    tg_test_outcome t[] = {{TG_CAT_NORMAL, true}, {TG_CAT_EDGE, true}, {TG_CAT_NORMAL, true}};
    tg_validation_input in = {.schema_ok = true, .static_ok = true, .tests = t, .n_tests = 3};
    tg_validation_result r = evaluate(in);
    CHECK(r.failed_gate == NULL, "all pass: %s", r.failed_gate ? r.failed_gate : "");
    CHECK(r.overall.score == 1.0 && r.overall.tier == TG_TIER_EXCELLENT, "score 1");
    CHECK(!r.gates[TG_GATE_CODE_BLEU].applicable && !r.gates[TG_GATE_PASS_AT_5].applicable &&
              !r.gates[TG_GATE_STRESS_PASS_RATE].applicable,
          "not applicable without reference, candidates or stress tests");
    CHECK(strcmp(r.gates[TG_GATE_EDGE_PASS_RATE].name, "edge_pass_rate") == 0, "gate names");

    in.static_ok = false;
    r = evaluate(in);
    CHECK(r.failed_gate && strcmp(r.failed_gate, "static_check") == 0, "static check fails");
    in.static_ok = true;
    in.schema_ok = false;
    r = evaluate(in);
    CHECK(r.failed_gate && strcmp(r.failed_gate, "schema") == 0, "schema first");
    in.schema_ok = true;

    t[1].passed = false; /* 2/3 overall, 0/1 edge */
    r = evaluate(in);
    CHECK(r.failed_gate && strcmp(r.failed_gate, "test_pass_rate") == 0, "pass rate");
    CHECK(!r.gates[TG_GATE_EDGE_PASS_RATE].passed && r.gates[TG_GATE_NORMAL_PASS_RATE].passed,
          "per category");
    t[1].passed = true;

    in.n_tests = 0;
    r = evaluate(in);
    CHECK(r.failed_gate && strcmp(r.failed_gate, "test_pass_rate") == 0, "no tests");
    in.n_tests = 3;

    in.has_code_bleu = true;
    in.code_bleu = 0.7;
    r = evaluate(in);
    CHECK(r.failed_gate && strcmp(r.failed_gate, "code_bleu") == 0, "bleu below 0.75");
    CHECK(NEAR(r.overall.score, 0.8 + 0.2 * 0.7, 1e-12), "bleu weighted in: %g", r.overall.score);
    in.has_code_bleu = false;

    in.candidates = 10;
    in.correct = 2;
    r = evaluate(in);
    CHECK(r.has_pass_at_5 && NEAR(r.pass_at_5, 0.777778, 5e-7), "pass@5");
    CHECK(r.has_pass_at_1 && NEAR(r.pass_at_1, 0.2, 1e-12), "pass@1");
    CHECK(r.failed_gate && strcmp(r.failed_gate, "pass_at_5") == 0, "pass@5 below 0.9");
    in.candidates = 3; /* fewer than 5: pass@5 not measured, pass@1 weighs in */
    in.correct = 3;
    r = evaluate(in);
    CHECK(!r.has_pass_at_5 && r.pass_at_1 == 1.0 && r.failed_gate == NULL, "3 of 3");
    in.correct = 0; /* pass@1 = 0 costs its 10 %: 0.9, still above overall_quality_min */
    r = evaluate(in);
    CHECK(r.failed_gate == NULL && NEAR(r.overall.score, 0.9, 1e-12), "score %g (%s)",
          r.overall.score, r.failed_gate ? r.failed_gate : "none");
    t[0].passed = false; /* and with a failed test: 0.6 * 2/3 + 0.3 * 2/3 = 0.6 */
    r = evaluate(in);
    CHECK(NEAR(r.overall.score, 0.6, 1e-12) && r.overall.tier == TG_TIER_ACCEPTABLE, "score %g",
          r.overall.score);
    t[0].passed = true;
    in.candidates = 0;

    in.has_reference = true;
    in.reference_similarity = 0.5; /* 0.6 + 0.2 = 0.8 < 0.9 */
    r = evaluate(in);
    CHECK(NEAR(r.functional_correctness, 0.8, 1e-12), "fc with reference");
    CHECK(r.failed_gate && strcmp(r.failed_gate, "functional_correctness") == 0, "fc gate");
    in.reference_similarity = 2;
    tg_metrics_config cfg;
    tg_metrics_config_default(&cfg);
    tg_err err = {0};
    CHECK(tg_validation_evaluate(&cfg, &in, &r, &err) == -1, "similarity out of range");
    in.reference_similarity = 1;
    in.candidates = -1;
    CHECK(tg_validation_evaluate(&cfg, &in, &r, &err) == -1, "negative candidates");
    CHECK(strcmp(tg_gate_name(TG_GATE_OVERALL_QUALITY), "overall_quality") == 0, "name");
}

/* ---- static check request ----------------------------------------------------------------- */

static void test_static_check_request(void)
{
    tg_doc schema = {0};
    tg_err err = {0};
    CHECK(tg_doc_load("schemas/toolgen.config.schema.json", NULL, &schema, &err) == 0, "%s",
          err.msg);
    cJSON *req = tg_static_check_request("x = 1", "tool.py", NULL);
    const char *keys[] = {"forbidden_calls", "forbidden_modules", "allowed_imports"};
    for (int i = 0; i < 3; i++) {
        char *ptr = xasprintf("/properties/static_check/properties/%s/default", keys[i]);
        const cJSON *want = tg_json_pointer_get(schema.root, ptr);
        CHECK(want && cJSON_Compare(want, cJSON_GetObjectItem(req, keys[i]), true),
              "%s: the C defaults are the schema's", keys[i]);
        free(ptr);
    }
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(req, "code")), "x = 1") == 0, "code");
    cJSON_Delete(req);
    cJSON *cfg = J("{'allowed_imports': ['os']}");
    req = tg_static_check_request("", NULL, cfg);
    char *s = tg_json_print_compact(cJSON_GetObjectItem(req, "allowed_imports"));
    CHECK(strcmp(s, "[\"os\"]") == 0, "configured list used: %s", s);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(req, "forbidden_calls")) == 11, "defaults");
    free(s);
    cJSON_Delete(req);
    cJSON_Delete(cfg);
    tg_doc_free(&schema);
}

/* ---- thread safety ------------------------------------------------------------------------ */

static void *worker(void *arg)
{
    int *bad = arg;
    for (int i = 0; i < 50; i++) {
        tg_code_bleu b;
        if (tg_code_bleu_compute("def f(x):\n    return x + 1\n", "def g(y):\n    return y + 2\n",
                                 0.5, 0.5, NULL, NULL, 0, &b, NULL) != 0)
            (*bad)++;
        cJSON *e = cJSON_Parse("{\"text_matches\": \"^## \\\\w+\"}");
        cJSON *res = cJSON_Parse("{\"summary_markdown\": \"## Title\"}");
        tg_call_outcome call = {.ok = true, .result = res, .schema_ok = true};
        if (tg_expect_check(e, &call, NULL, NULL) != 1)
            (*bad)++;
        cJSON_Delete(e);
        cJSON_Delete(res);
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t th[4];
    int bad[4] = {0};
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, &bad[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(bad[0] + bad[1] + bad[2] + bad[3] == 0, "concurrent use");
}

int main(void)
{
    test_pass_at_k();
    test_config();
    test_pass_rates();
    test_overall_score();
    test_tokenizer();
    test_bleu();
    test_code_analysis();
    test_comparator_scalars();
    test_comparator_structures();
    test_comparator_unordered();
    test_expectations();
    test_manifest_expectations();
    test_reference_agreement();
    test_gates();
    test_static_check_request();
    test_threads();
    return tl_finish("test_metrics");
}
