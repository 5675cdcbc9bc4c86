/* metrics.c — validation metrics, CodeBLEU token scores, output comparator, gates. */
#include "quality/metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "schema/jsregex.h"

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

static bool is_unit(double v)
{
    return v >= 0.0 && v <= 1.0; /* false for NaN too */
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
        if (!cJSON_IsNumber(v) || !is_unit(v->valuedouble))
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

static int check_unit(const char *name, double v, tg_err *err)
{
    if (!is_unit(v))
        return tg_err_set(err, "%s must be from 0 to 1, got %g", name, v);
    return 0;
}

int tg_overall_score(const tg_metrics_config *cfg, const tg_score_input *in, tg_score *out,
                     tg_err *err)
{
    if (check_unit("functional_correctness", in->functional_correctness, err) ||
        check_unit("test_pass_rate", in->test_pass_rate, err) ||
        (in->has_code_bleu && check_unit("code_bleu", in->code_bleu, err)) ||
        (in->has_pass_at_1 && check_unit("pass_at_1", in->pass_at_1, err)))
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

/* ---- Python tokenizer ------------------------------------------------------------------------ */

typedef struct lexer {
    const char *s;
    size_t len, i;
    int depth;       /* bracket nesting: newlines inside brackets do not end a statement */
    bool line_start; /* at the start of a logical line: a string here may be a docstring */
    tg_tokens *out;
} lexer;

static void push_token(tg_tokens *t, const char *s, size_t n)
{
    if (t->count == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->tok = xrealloc(t->tok, t->cap * sizeof *t->tok);
    }
    t->tok[t->count++] = xstrndup(s, n);
}

void tg_tokens_free(tg_tokens *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->tok[i]);
    free(t->tok);
    memset(t, 0, sizeof *t);
}

static bool ident_start(unsigned char c)
{
    return isalpha(c) || c == '_' || c >= 0x80; /* bytes >= 0x80: UTF-8 letters of names */
}

static bool ident_char(unsigned char c)
{
    return ident_start(c) || isdigit(c);
}

static bool is_quote(char c)
{
    return c == '\'' || c == '"';
}

static bool string_prefix(const char *s, size_t n)
{
    static const char *const prefixes[] = {"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    if (n == 0 || n > 2)
        return n == 0;
    char low[3] = {(char)tolower((unsigned char)s[0]),
                   n > 1 ? (char)tolower((unsigned char)s[1]) : '\0', '\0'};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strcmp(low, prefixes[i]) == 0)
            return true;
    return false;
}

static size_t scan_ident(const lexer *L, size_t i)
{
    while (i < L->len && ident_char((unsigned char)L->s[i]))
        i++;
    return i;
}

/* Index just past the string literal whose opening quote is at q. */
static size_t scan_string(const lexer *L, size_t q)
{
    const char *s = L->s;
    char quote = s[q];
    bool triple = q + 2 < L->len && s[q + 1] == quote && s[q + 2] == quote;
    size_t i = q + (triple ? 3 : 1);
    while (i < L->len) {
        if (s[i] == '\\') {
            i += 2;
            continue;
        }
        if (!triple && s[i] == '\n')
            return i; /* unterminated: the literal ends with its line */
        if (s[i] == quote &&
            (!triple || (i + 2 < L->len && s[i + 1] == quote && s[i + 2] == quote)))
            return i + (triple ? 3 : 1);
        i++;
    }
    return L->len;
}

/* Whether a string literal (with optional prefix: r, b, f, rb, ...) starts at i; *q: its quote. */
static bool string_at(const lexer *L, size_t i, size_t *q)
{
    if (i >= L->len)
        return false;
    if (is_quote(L->s[i])) {
        *q = i;
        return true;
    }
    if (!ident_start((unsigned char)L->s[i]))
        return false;
    size_t j = scan_ident(L, i);
    *q = j;
    return j < L->len && is_quote(L->s[j]) && string_prefix(L->s + i, j - i);
}

static size_t skip_blanks(const lexer *L, size_t i)
{
    for (;;) {
        if (i < L->len && (L->s[i] == ' ' || L->s[i] == '\t' || L->s[i] == '\f'))
            i++;
        else if (i + 1 < L->len && L->s[i] == '\\' && L->s[i + 1] == '\n')
            i += 2;
        else
            return i;
    }
}

/*
 * A run of adjacent string literals starting at `start` (implicit concatenation). At the start
 * of a logical line and followed by the end of the statement it is a docstring (or a no-op
 * statement): dropped, as docs/metrics.md (CodeBLEU, Tokens) says.
 */
static void lex_strings(lexer *L, size_t start)
{
    size_t first = L->out->count, i = start, q;
    while (string_at(L, i, &q)) {
        size_t end = scan_string(L, q);
        push_token(L->out, L->s + i, end - i);
        i = skip_blanks(L, end);
    }
    bool statement_end =
        i >= L->len || L->s[i] == '\n' || L->s[i] == '\r' || L->s[i] == '#' || L->s[i] == ';';
    if (L->line_start && statement_end) {
        while (L->out->count > first)
            free(L->out->tok[--L->out->count]);
    }
    L->i = i;
}

static void lex_number(lexer *L)
{
    const char *s = L->s;
    size_t i = L->i;
    bool based = s[i] == '0' && i + 1 < L->len && s[i + 1] && strchr("xXoObB", s[i + 1]);
    while (i < L->len) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c) || c == '_' || c == '.')
            i++;
        else if ((c == '+' || c == '-') && !based && (s[i - 1] == 'e' || s[i - 1] == 'E'))
            i++; /* exponent sign: 1e-3 */
        else
            break;
    }
    push_token(L->out, s + L->i, i - L->i);
    L->i = i;
}

/* `@name` at the start of a line is a decorator: one token, so "@mcp" can be weighted. */
static bool lex_decorator(lexer *L)
{
    size_t j = skip_blanks(L, L->i + 1);
    if (!L->line_start || j >= L->len || !ident_start((unsigned char)L->s[j]))
        return false;
    size_t end = scan_ident(L, j);
    tg_buf b = TG_BUF_INIT;
    tg_buf_putc(&b, '@');
    tg_buf_append(&b, L->s + j, end - j);
    push_token(L->out, b.data, b.len);
    tg_buf_free(&b);
    L->i = end;
    return true;
}

static void lex_operator(lexer *L)
{
    static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "..."};
    static const char *const ops2[] = {"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", "+=",
                                       "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", ":="};
    const char *p = L->s + L->i;
    size_t left = L->len - L->i, n = 1;
    for (size_t k = 0; n == 1 && left >= 3 && k < sizeof ops3 / sizeof *ops3; k++)
        if (memcmp(p, ops3[k], 3) == 0)
            n = 3;
    for (size_t k = 0; n == 1 && left >= 2 && k < sizeof ops2 / sizeof *ops2; k++)
        if (memcmp(p, ops2[k], 2) == 0)
            n = 2;
    if (*p == '(' || *p == '[' || *p == '{')
        L->depth++;
    else if ((*p == ')' || *p == ']' || *p == '}') && L->depth > 0)
        L->depth--;
    push_token(L->out, p, n);
    L->i += n;
}

/* Skips what is not a token; false when a token starts at L->i. */
static bool skip_non_token(lexer *L)
{
    const char *s = L->s;
    char c = s[L->i];
    if (c == '\n') {
        if (L->depth == 0)
            L->line_start = true;
        L->i++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        L->i++;
    } else if (c == '\\' && L->i + 1 < L->len && (s[L->i + 1] == '\n' || s[L->i + 1] == '\r')) {
        /* line continuation: the statement goes on (CRLF included, or the LF would end it) */
        L->i += s[L->i + 1] == '\r' && L->i + 2 < L->len && s[L->i + 2] == '\n' ? 3 : 2;
    } else if (c == '#') {
        while (L->i < L->len && s[L->i] != '\n')
            L->i++;
    } else {
        return false;
    }
    return true;
}

static void lex_token(lexer *L)
{
    unsigned char c = (unsigned char)L->s[L->i];
    size_t q;
    if (string_at(L, L->i, &q))
        lex_strings(L, L->i);
    else if (ident_start(c)) {
        size_t end = scan_ident(L, L->i);
        push_token(L->out, L->s + L->i, end - L->i);
        L->i = end;
    } else if (isdigit(c) ||
               (c == '.' && L->i + 1 < L->len && isdigit((unsigned char)L->s[L->i + 1])))
        lex_number(L);
    else if (!(c == '@' && lex_decorator(L)))
        lex_operator(L);
    L->line_start = false;
}

void tg_py_tokenize(const char *code, size_t len, tg_tokens *out)
{
    memset(out, 0, sizeof *out);
    lexer L = {.s = code, .len = code ? len : 0, .line_start = true, .out = out};
    while (L.i < L.len)
        if (!skip_non_token(&L))
            lex_token(&L);
}

/* ---- BLEU ------------------------------------------------------------------------------------ */

static const tg_keyword_weight DEFAULT_KEYWORDS[] = {
    {"def", 2.0},   {"class", 2.0},       {"return", 1.8},    {"if", 1.5},     {"else", 1.5},
    {"elif", 1.5},  {"for", 1.7},         {"while", 1.7},     {"import", 1.6}, {"from", 1.6},
    {"pd", 2.0},    {"DataFrame", 1.8},   {"groupby", 2.0},   {"agg", 1.8},    {"merge", 1.8},
    {"@mcp", 2.5},  {"tool", 2.5},        {"Annotated", 2.0}, {"try", 1.5},    {"except", 1.5},
    {"raise", 1.4}, {"__default__", 1.0},
};

const tg_keyword_weight *tg_default_keyword_weights(size_t *n)
{
    *n = sizeof DEFAULT_KEYWORDS / sizeof *DEFAULT_KEYWORDS;
    return DEFAULT_KEYWORDS;
}

static bool find_weight(const tg_keyword_weight *kw, size_t n, const char *tok, double *w)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kw[i].token, tok) == 0) {
            *w = kw[i].weight;
            return true;
        }
    return false;
}

/* Overrides first (merged over the defaults: docs/metrics.md, Weighted n-gram match), then the
 * defaults, then __default__. */
static double token_weight(const tg_keyword_weight *kw, size_t nkw, const char *tok)
{
    double w;
    size_t nd = sizeof DEFAULT_KEYWORDS / sizeof *DEFAULT_KEYWORDS;
    if (find_weight(kw, nkw, tok, &w) || find_weight(DEFAULT_KEYWORDS, nd, tok, &w) ||
        find_weight(kw, nkw, "__default__", &w))
        return w;
    return 1.0;
}

typedef struct intern_ent {
    const char *s;
    uint32_t *slot;
} intern_ent;

static int cmp_intern(const void *a, const void *b)
{
    return strcmp(((const intern_ent *)a)->s, ((const intern_ent *)b)->s);
}

/* Gives equal token strings of both lists equal small ids, so n-grams compare as integers. */
static void intern_tokens(const tg_tokens *c, const tg_tokens *r, uint32_t *cid, uint32_t *rid)
{
    size_t n = c->count + r->count;
    if (n == 0)
        return;
    intern_ent *e = xmalloc(n * sizeof *e);
    for (size_t i = 0; i < c->count; i++)
        e[i] = (intern_ent){c->tok[i], &cid[i]};
    for (size_t i = 0; i < r->count; i++)
        e[c->count + i] = (intern_ent){r->tok[i], &rid[i]};
    qsort(e, n, sizeof *e, cmp_intern);
    uint32_t id = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(e[i].s, e[i - 1].s) != 0)
            id++;
        *e[i].slot = id;
    }
    free(e);
}

typedef struct gram {
    uint32_t id[TG_BLEU_MAX_N]; /* unused orders stay 0: all grams of one sort share n */
    uint32_t side;              /* 0 candidate, 1 reference */
    double w;                   /* mean weight of its tokens */
} gram;

static int cmp_gram(const void *a, const void *b)
{
    const gram *x = a, *y = b;
    for (int k = 0; k < TG_BLEU_MAX_N; k++)
        if (x->id[k] != y->id[k])
            return x->id[k] < y->id[k] ? -1 : 1;
    return 0;
}

typedef struct side {
    const uint32_t *id;
    const double *w;
    size_t len;
} side;

static size_t fill_grams(gram *g, const side *sd, uint32_t which, int n)
{
    size_t count = sd->len >= (size_t)n ? sd->len - (size_t)n + 1 : 0;
    for (size_t i = 0; i < count; i++) {
        gram x = {.side = which};
        for (int k = 0; k < n; k++) {
            x.id[k] = sd->id[i + (size_t)k];
            x.w += sd->w[i + (size_t)k] / n;
        }
        g[i] = x;
    }
    return count;
}

typedef struct order_counts {
    size_t matches, total;
    double wmatches, wtotal;
} order_counts;

/* Clipped matches of order n: each distinct n-gram counts min(candidate, reference) times. */
static order_counts count_order(const side *c, const side *r, int n)
{
    order_counts oc = {0};
    gram *g = xmalloc((c->len + r->len + 1) * sizeof *g);
    size_t nc = fill_grams(g, c, 0, n), m = nc + fill_grams(g + nc, r, 1, n);
    qsort(g, m, sizeof *g, cmp_gram);
    for (size_t i = 0; i < m;) {
        size_t j = i, cc = 0, rc = 0;
        for (; j < m && cmp_gram(&g[i], &g[j]) == 0; j++)
            g[j].side ? rc++ : cc++;
        size_t clip = cc < rc ? cc : rc;
        oc.matches += clip;
        oc.total += cc;
        oc.wmatches += (double)clip * g[i].w;
        oc.wtotal += (double)cc * g[i].w;
        i = j;
    }
    free(g);
    return oc;
}

static void bleu_finish(tg_bleu *b)
{
    size_t lc = b->candidate_len, lr = b->reference_len;
    if (lc == 0) {
        b->brevity_penalty = lr == 0 ? 1.0 : 0.0;
        b->score = lr == 0 ? 1.0 : 0.0; /* two empty files are identical */
        return;
    }
    b->brevity_penalty = lc > lr ? 1.0 : exp(1.0 - (double)lr / (double)lc);
    double logsum = 0;
    for (int n = 0; n < TG_BLEU_MAX_N; n++) {
        if (b->precision[n] <= 0) {
            b->score = 0;
            return;
        }
        logsum += log(b->precision[n]);
    }
    b->score = b->brevity_penalty * exp(logsum / TG_BLEU_MAX_N);
    if (b->score > 1.0)
        b->score = 1.0;
}

/*
 * Both scores in one pass. Smoothing: add-one on orders 2..4 (Lin & Och 2004, "BLEU+1"), so a
 * short snippet without 4-grams is not scored 0 while a candidate with no token in common with
 * the reference still is (p_1 is never smoothed).
 */
static void bleu_both(const tg_tokens *cand, const tg_tokens *ref, const tg_keyword_weight *kw,
                      size_t nkw, tg_bleu *plain, tg_bleu *weighted)
{
    size_t lc = cand->count, lr = ref->count;
    uint32_t *cid = xcalloc(lc + 1, sizeof *cid), *rid = xcalloc(lr + 1, sizeof *rid);
    double *cw = xcalloc(lc + 1, sizeof *cw), *rw = xcalloc(lr + 1, sizeof *rw);
    intern_tokens(cand, ref, cid, rid);
    for (size_t i = 0; i < lc; i++)
        cw[i] = token_weight(kw, nkw, cand->tok[i]);
    for (size_t i = 0; i < lr; i++)
        rw[i] = token_weight(kw, nkw, ref->tok[i]);
    side c = {cid, cw, lc}, r = {rid, rw, lr};
    memset(plain, 0, sizeof *plain);
    memset(weighted, 0, sizeof *weighted);
    for (int n = 1; n <= TG_BLEU_MAX_N; n++) {
        order_counts oc = count_order(&c, &r, n);
        plain->matches[n - 1] = weighted->matches[n - 1] = oc.matches;
        plain->totals[n - 1] = weighted->totals[n - 1] = oc.total;
        double add = n == 1 ? 0.0 : 1.0;
        plain->precision[n - 1] =
            oc.total + add > 0 ? ((double)oc.matches + add) / ((double)oc.total + add) : 0.0;
        weighted->precision[n - 1] =
            oc.wtotal + add > 0 ? (oc.wmatches + add) / (oc.wtotal + add) : 0.0;
    }
    plain->candidate_len = weighted->candidate_len = lc;
    plain->reference_len = weighted->reference_len = lr;
    bleu_finish(plain);
    bleu_finish(weighted);
    free(cid);
    free(rid);
    free(cw);
    free(rw);
}

void tg_bleu_tokens(const tg_tokens *cand, const tg_tokens *ref, const tg_keyword_weight *kw,
                    size_t nkw, tg_bleu *out)
{
    tg_bleu plain, weighted;
    bleu_both(cand, ref, kw, nkw, &plain, &weighted);
    *out = kw ? weighted : plain;
}

static int check_bleu_weights(const tg_bleu_weights *w, tg_err *err)
{
    const double v[] = {w->ngram, w->weighted_ngram, w->ast, w->dataflow};
    for (int i = 0; i < 4; i++)
        if (!is_unit(v[i]))
            return tg_err_set(err, "code_bleu_weights: every weight must be from 0 to 1");
    double sum = v[0] + v[1] + v[2] + v[3];
    if (fabs(sum - 1.0) > 1e-6)
        return tg_err_set(err, "code_bleu_weights: weights add up to %g, they must add up to 1.0",
                          sum);
    return 0;
}

int tg_code_bleu_compute(const char *candidate, const char *reference, double ast, double dataflow,
                         const tg_bleu_weights *w, const tg_keyword_weight *kw, size_t nkw,
                         tg_code_bleu *out, tg_err *err)
{
    /* By value: w may point into *out (out->weights), which is cleared below. */
    const tg_bleu_weights wv = w ? *w : (tg_bleu_weights){0.25, 0.25, 0.25, 0.25};
    w = &wv;
    if (check_bleu_weights(w, err) || check_unit("ast match score", ast, err) ||
        check_unit("dataflow match score", dataflow, err))
        return -1;
    tg_tokens c, r;
    tg_py_tokenize(candidate, candidate ? strlen(candidate) : 0, &c);
    tg_py_tokenize(reference, reference ? strlen(reference) : 0, &r);
    memset(out, 0, sizeof *out);
    bleu_both(&c, &r, kw, kw ? nkw : 0, &out->ngram, &out->weighted_ngram);
    tg_tokens_free(&c);
    tg_tokens_free(&r);
    out->ast = ast;
    out->dataflow = dataflow;
    out->weights = *w;
    out->score = w->ngram * out->ngram.score + w->weighted_ngram * out->weighted_ngram.score +
                 w->ast * ast + w->dataflow * dataflow;
    if (out->score > 1.0)
        out->score = 1.0;
    return 0;
}

/* ---- code_analysis.py / static_check.py requests and replies --------------------------------- */

static int read_score(const cJSON *obj, const char *key, double *dst, tg_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || !is_unit(v->valuedouble))
        return tg_err_set(err, "code analysis reply: \"%s\" must be a number from 0 to 1", key);
    *dst = v->valuedouble;
    return 0;
}

static void read_analysis_error(const cJSON *reply, tg_code_analysis *out)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    const char *which = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "which"));
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
    const cJSON *line = cJSON_GetObjectItemCaseSensitive(e, "line");
    const cJSON *col = cJSON_GetObjectItemCaseSensitive(e, "col");
    snprintf(out->error, sizeof out->error, "%s%s%s", which ? which : "", which ? ": " : "",
             msg ? msg : "code analysis failed");
    out->error_line = cJSON_IsNumber(line) ? line->valueint : 0;
    out->error_col = cJSON_IsNumber(col) ? col->valueint : 0;
}

int tg_code_analysis_read(const cJSON *reply, tg_code_analysis *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(reply))
        return tg_err_set(err, "code analysis reply: not a JSON object");
    out->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(reply, "ok"));
    if (!out->ok) {
        read_analysis_error(reply, out);
        return 0; /* a syntax error is a result: every structural score is 0 */
    }
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(reply, "ast");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(reply, "dataflow");
    if (read_score(a, "ast_match_score", &out->ast_match, err) ||
        read_score(a, "ast_node_overlap", &out->ast_node_overlap, err) ||
        read_score(a, "ast_depth_similarity", &out->ast_depth_similarity, err) ||
        read_score(a, "ast_node_sequence_similarity", &out->ast_sequence_similarity, err) ||
        read_score(d, "dataflow_match_score", &out->dataflow_match, err) ||
        read_score(d, "variable_flow_similarity", &out->variable_flow_similarity, err) ||
        read_score(d, "dependency_graph_similarity", &out->dependency_graph_similarity, err) ||
        read_score(d, "assignment_order_similarity", &out->assignment_order_similarity, err))
        return -1;
    return 0;
}

cJSON *tg_code_analysis_request(const char *candidate, const char *reference)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "candidate", candidate ? candidate : "");
    cJSON_AddStringToObject(r, "reference", reference ? reference : "");
    return r;
}

/* The schema's defaults of toolgen.yaml `static_check` (schemas/toolgen.config.schema.json). */
static const char *const DEFAULT_FORBIDDEN_CALLS[] = {
    "eval",         "exec",        "compile",       "__import__", "os.system",  "os.popen",
    "pickle.loads", "pickle.load", "marshal.loads", "globals",    "breakpoint", NULL};
static const char *const DEFAULT_FORBIDDEN_MODULES[] = {
    "subprocess", "socket",  "urllib", "http",      "requests", "ctypes", "multiprocessing",
    "pickle",     "marshal", "shutil", "importlib", "builtins", NULL};
static const char *const DEFAULT_ALLOWED_IMPORTS[] = {
    "pandas",      "numpy",     "json",       "csv",  "datetime",   "re",
    "collections", "itertools", "functools",  "math", "statistics", "typing",
    "dataclasses", "decimal",   "matplotlib", NULL};

static void add_list(cJSON *req, const cJSON *cfg, const char *key, const char *const *defaults)
{
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(cfg, key);
    if (cJSON_IsArray(given)) {
        cJSON_AddItemToObject(req, key, cJSON_Duplicate(given, true));
        return;
    }
    cJSON *a = cJSON_AddArrayToObject(req, key);
    for (size_t i = 0; defaults[i]; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(defaults[i]));
}

cJSON *tg_static_check_request(const char *code, const char *file, const cJSON *static_check)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "code", code ? code : "");
    cJSON_AddStringToObject(r, "file", file ? file : "tool.py");
    add_list(r, static_check, "forbidden_calls", DEFAULT_FORBIDDEN_CALLS);
    add_list(r, static_check, "forbidden_modules", DEFAULT_FORBIDDEN_MODULES);
    add_list(r, static_check, "allowed_imports", DEFAULT_ALLOWED_IMPORTS);
    return r;
}

/* ---- comparator ------------------------------------------------------------------------------ */

bool tg_numbers_match(double a, double b, double tolerance)
{
    if (a == b)
        return true;
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= tolerance * scale;
}

typedef struct matcher {
    const tg_match_opts *o;
    double tol;
    tg_buf path; /* JSON Pointer of the actual value being compared */
    int quiet;   /* > 0 while trying candidate pairings of an unordered array */
    char **why;
} matcher;

/* Compact JSON of v cut to about 80 bytes on a UTF-8 boundary: enough to recognise a value. */
static char *describe(const cJSON *v)
{
    char *s = tg_json_print_compact(v);
    size_t n = strlen(s), cut = 80;
    if (n > cut) {
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
        char *t = xasprintf("%.*s…", (int)cut, s);
        free(s);
        return t;
    }
    return s;
}

static bool fail(matcher *m, const char *fmt, ...) TG_PRINTF(2, 3);

static bool fail(matcher *m, const char *fmt, ...)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, m->path.len ? m->path.data : "/");
    tg_buf_puts(&b, ": ");
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    *m->why = tg_buf_steal(&b);
    return false;
}

/* A failure at member v of the current object: the path names the member, fmt's %s shows v. */
static bool fail_member(matcher *m, const cJSON *v, const char *fmt)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    char *vs = describe(v);
    size_t mark = m->path.len;
    tg_buf_putc(&m->path, '/');
    tg_buf_pointer_token(&m->path, v->string);
    fail(m, fmt, vs);
    tg_buf_truncate(&m->path, mark);
    free(vs);
    return false;
}

static bool fail_values(matcher *m, const cJSON *e, const cJSON *a)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    char *es = describe(e), *as = describe(a);
    fail(m, "expected %s, got %s", es, as);
    free(es);
    free(as);
    return false;
}

static bool fail_type(matcher *m, const char *want, const cJSON *a)
{
    if (m->quiet || !m->why || *m->why)
        return false;
    char *as = describe(a);
    fail(m, "expected %s, got %s", want, as);
    free(as);
    return false;
}

static bool match_value(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode);

static bool is_unordered(const matcher *m)
{
    const char *p = m->path.len ? m->path.data : "";
    for (size_t i = 0; m->o && i < m->o->n_unordered; i++)
        if (m->o->unordered[i] && strcmp(m->o->unordered[i], p) == 0)
            return true;
    return false;
}

static bool skipped_key(const matcher *m, const char *key)
{
    return m->o && m->o->ignore_summary && m->path.len == 0 && strcmp(key, "summary_markdown") == 0;
}

static bool match_child(matcher *m, const char *key, size_t index, const cJSON *e, const cJSON *a,
                        tg_match_mode mode)
{
    size_t mark = m->path.len;
    tg_buf_putc(&m->path, '/');
    if (key)
        tg_buf_pointer_token(&m->path, key);
    else
        tg_buf_printf(&m->path, "%zu", index);
    bool ok = match_value(m, e, a, mode);
    tg_buf_truncate(&m->path, mark);
    return ok;
}

static bool match_object(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    if (!cJSON_IsObject(a))
        return fail_type(m, "an object", a);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, e)
    {
        if (skipped_key(m, ev->string))
            continue;
        const cJSON *av = cJSON_GetObjectItemCaseSensitive(a, ev->string);
        if (!av)
            return fail_member(m, ev, "missing (expected %s)");
        if (!match_child(m, ev->string, 0, ev, av, mode))
            return false;
    }
    if (mode == TG_MATCH_CONTAINS)
        return true;
    const cJSON *av;
    cJSON_ArrayForEach(av, a)
    {
        if (skipped_key(m, av->string) || cJSON_GetObjectItemCaseSensitive(e, av->string))
            continue;
        return fail_member(m, av, "unexpected member (value %s)");
    }
    return true;
}

/* Elements of an array as a plain vector, for indexed access (cJSON arrays are lists). */
static const cJSON **array_items(const cJSON *a, size_t *n)
{
    *n = (size_t)cJSON_GetArraySize(a);
    const cJSON **v = xmalloc((*n + 1) * sizeof *v);
    size_t i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) v[i++] = x;
    return v;
}

/* Above this many element pairs the unordered match is greedy rather than maximal. */
#define MAX_PAIR_MATRIX 4000000u

typedef struct bipartite {
    matcher *m;
    tg_match_mode mode;
    const cJSON **e, **a;
    size_t ne, na;
    unsigned char *pair; /* 0 unknown, 1 match, 2 no match (memo: comparisons can be deep) */
    long *owner;         /* owner[j]: expected index matched to actual j, or -1 */
    unsigned char *seen;
} bipartite;

static bool pair_matches(bipartite *b, size_t i, size_t j)
{
    unsigned char *p = b->pair ? &b->pair[i * b->na + j] : NULL;
    if (p && *p)
        return *p == 1;
    b->m->quiet++;
    bool ok = match_child(b->m, NULL, j, b->e[i], b->a[j], b->mode);
    b->m->quiet--;
    if (p)
        *p = ok ? 1 : 2;
    return ok;
}

/* Kuhn's augmenting path; tries actual j == i first, since most "unordered" arrays are in order
 * anyway. Greedy (no re-assignment) when the pair matrix would be too big. */
static bool augment(bipartite *b, size_t i)
{
    for (size_t k = 0; k < b->na; k++) {
        size_t j = (i + k) % b->na;
        if (b->seen[j] || !pair_matches(b, i, j))
            continue;
        b->seen[j] = 1;
        if (b->owner[j] < 0 || (b->pair && augment(b, (size_t)b->owner[j]))) {
            b->owner[j] = (long)i;
            return true;
        }
    }
    return false;
}

static bool match_unordered(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    bipartite b = {.m = m, .mode = mode};
    b.e = array_items(e, &b.ne);
    b.a = array_items(a, &b.na);
    bool ok = true;
    if (mode == TG_MATCH_EQUAL && b.ne != b.na)
        ok = fail(m, "expected %zu items (in any order), got %zu", b.ne, b.na);
    else if (b.ne > b.na)
        ok = fail(m, "expected at least %zu items, got %zu", b.ne, b.na);
    if (ok && b.ne > 0) {
        if (b.ne * b.na <= MAX_PAIR_MATRIX)
            b.pair = xcalloc(b.ne * b.na, 1);
        b.owner = xmalloc(b.na * sizeof *b.owner);
        b.seen = xmalloc(b.na);
        for (size_t j = 0; j < b.na; j++)
            b.owner[j] = -1;
        for (size_t i = 0; ok && i < b.ne; i++) {
            memset(b.seen, 0, b.na);
            if (!augment(&b, i)) {
                char *es = describe(b.e[i]);
                ok = fail(m,
                          "no element of the array (order ignored) matches expected item %zu: "
                          "%s",
                          i, es);
                free(es);
            }
        }
    }
    free(b.pair);
    free(b.owner);
    free(b.seen);
    free(b.e);
    free(b.a);
    return ok;
}

static bool match_array(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    if (!cJSON_IsArray(a))
        return fail_type(m, "an array", a);
    if (is_unordered(m))
        return match_unordered(m, e, a, mode);
    int ne = cJSON_GetArraySize(e), na = cJSON_GetArraySize(a);
    if (ne != na)
        return fail(m, "expected %d items, got %d", ne, na);
    const cJSON *ev = e->child, *av = a->child;
    for (size_t i = 0; ev && av; i++, ev = ev->next, av = av->next)
        if (!match_child(m, NULL, i, ev, av, mode))
            return false;
    return true;
}

static bool match_scalar(matcher *m, const cJSON *e, const cJSON *a)
{
    bool ok;
    if (cJSON_IsNumber(e) && cJSON_IsNumber(a))
        ok = tg_numbers_match(e->valuedouble, a->valuedouble, m->tol);
    else if (cJSON_IsString(e) && cJSON_IsString(a))
        ok = strcmp(e->valuestring, a->valuestring) == 0;
    else /* null, true, false, or two different types (1 never equals true or "1") */
        ok = (e->type & 0xFF) == (a->type & 0xFF);
    if (ok)
        return true;
    if (cJSON_IsNumber(e) && cJSON_IsNumber(a) && m->tol > 0 &&
        tg_numbers_match(e->valuedouble, a->valuedouble, 1e-3)) {
        /* Nearly equal values: the reader needs the tolerance to see why they differ. */
        char *es = describe(e), *as = describe(a);
        fail(m, "expected %s, got %s (tolerance %g)", es, as, m->tol);
        free(es);
        free(as);
        return false;
    }
    return fail_values(m, e, a);
}

static bool match_value(matcher *m, const cJSON *e, const cJSON *a, tg_match_mode mode)
{
    if (cJSON_IsObject(e))
        return match_object(m, e, a, mode);
    if (cJSON_IsArray(e))
        return match_array(m, e, a, mode);
    return match_scalar(m, e, a);
}

bool tg_json_match(const cJSON *expected, const cJSON *actual, tg_match_mode mode,
                   const tg_match_opts *opts, char **why)
{
    if (why)
        *why = NULL;
    matcher m = {.o = opts, .tol = TG_DEFAULT_TOLERANCE, .why = why};
    if (opts && opts->tolerance >= 0)
        m.tol = opts->tolerance;
    bool ok = expected && actual ? match_value(&m, expected, actual, mode)
                                 : fail(&m, "%s", expected ? "no value" : "no expectation");
    tg_buf_free(&m.path);
    if (!ok && why && !*why)
        *why = xstrdup("/: values differ");
    return ok;
}

/* ---- test expectations ----------------------------------------------------------------------- */

/* Sets *why (when wanted) and returns 0: a failed check. */
static int check_fail(char **why, const char *fmt, ...) TG_PRINTF(2, 3);

static int check_fail(char **why, const char *fmt, ...)
{
    if (why) {
        va_list ap;
        va_start(ap, fmt);
        *why = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int expect_strings(const cJSON *list, const char *key, tg_err *err)
{
    bool ok = !list || cJSON_IsArray(list);
    const cJSON *s;
    for (s = ok && list ? list->child : NULL; s && ok; s = s->next)
        ok = cJSON_IsString(s);
    return ok ? 0 : tg_err_set(err, "expect/%s: must be an array of strings", key);
}

/* The first string of list not found in text, or NULL. */
static const char *first_missing(const cJSON *list, const char *text)
{
    for (const cJSON *s = list ? list->child : NULL; s; s = s->next)
        if (!strstr(text, s->valuestring))
            return s->valuestring;
    return NULL;
}

static int check_error(const cJSON *expect, const cJSON *code, const tg_call_outcome *call,
                       char **why, tg_err *err)
{
    const cJSON *mc = cJSON_GetObjectItemCaseSensitive(expect, "message_contains");
    if (!cJSON_IsString(code))
        return tg_err_set(err, "expect/error: must be an error code string");
    if (expect_strings(mc, "message_contains", err))
        return -1;
    if (call->ok)
        return check_fail(why, "expected error %s, but the call succeeded", code->valuestring);
    const char *got = call->error_code ? call->error_code : "(no code)";
    const char *msg = call->message ? call->message : "";
    if (strcmp(got, code->valuestring) != 0)
        return check_fail(why, "expected error %s, got %s: %s", code->valuestring, got, msg);
    const char *missing = first_missing(mc, msg);
    if (missing)
        return check_fail(why, "error message \"%s\" does not contain \"%s\"", msg, missing);
    return 1;
}

/* tolerance and unordered of an expect block into opts; ptrs is owned by the caller. */
static int expect_opts(const cJSON *expect, tg_match_opts *o, const char ***ptrs, tg_err *err)
{
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(expect, "tolerance");
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(expect, "unordered");
    *o = (tg_match_opts){.tolerance = TG_DEFAULT_TOLERANCE};
    *ptrs = NULL;
    if (tol && (!cJSON_IsNumber(tol) || !(tol->valuedouble >= 0)))
        return tg_err_set(err, "expect/tolerance: must be a number >= 0");
    if (tol)
        o->tolerance = tol->valuedouble;
    if (expect_strings(un, "unordered", err))
        return -1;
    size_t n = un ? (size_t)cJSON_GetArraySize(un) : 0, i = 0;
    *ptrs = xcalloc(n + 1, sizeof **ptrs);
    for (const cJSON *p = un ? un->child : NULL; p; p = p->next)
        (*ptrs)[i++] = p->valuestring;
    o->unordered = *ptrs;
    o->n_unordered = n;
    return 0;
}

static int check_output(const cJSON *expect, const char *key, tg_match_mode mode,
                        const tg_match_opts *o, const cJSON *result, char **why, tg_err *err)
{
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(expect, key);
    if (!want)
        return 1;
    if (!cJSON_IsObject(want))
        return tg_err_set(err, "expect/%s: must be an object", key);
    char *diff = NULL;
    if (tg_json_match(want, result, mode, o, why ? &diff : NULL))
        return 1;
    check_fail(why, "%s: %s", key, diff ? diff : "differs");
    free(diff);
    return 0;
}

static int check_regex(const char *pattern, const char *text, char **why, tg_err *err)
{
    char msg[256];
    pcre2_code *re = js_regex_compile(pattern, msg, sizeof msg);
    if (!re)
        return tg_err_set(err, "expect/text_matches: invalid regular expression: %s", msg);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    bool found = js_regex_search(re, text, md);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return found ? 1 : check_fail(why, "summary_markdown does not match /%s/", pattern);
}

static int check_text(const cJSON *expect, const cJSON *result, char **why, tg_err *err)
{
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(expect, "text_contains");
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(expect, "text_matches");
    if (expect_strings(tc, "text_contains", err))
        return -1;
    if (tm && !cJSON_IsString(tm))
        return tg_err_set(err, "expect/text_matches: must be a string");
    const char *text =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "summary_markdown"));
    if ((tc || tm) && !text)
        return check_fail(why, "the result has no summary_markdown text to check");
    const char *missing = first_missing(tc, text);
    if (missing)
        return check_fail(why, "summary_markdown does not contain \"%s\"", missing);
    return tm ? check_regex(tm->valuestring, text, why, err) : 1;
}

static int check_artifacts(const cJSON *expect, const tg_call_outcome *call, char **why,
                           tg_err *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(expect, "artifacts"), *s;
    if (expect_strings(list, "artifacts", err))
        return -1;
    cJSON_ArrayForEach(s, list)
    {
        bool found = false;
        for (size_t i = 0; !found && i < call->n_artifacts; i++)
            found = call->artifacts[i] && strcmp(call->artifacts[i], s->valuestring) == 0;
        if (!found)
            return check_fail(why, "artifact %s was not written (%zu file(s) were)", s->valuestring,
                              call->n_artifacts);
    }
    return 1;
}

static int check_result(const cJSON *expect, const tg_call_outcome *call, char **why, tg_err *err)
{
    if (!call->ok)
        return check_fail(why, "the call failed with %s: %s",
                          call->error_code ? call->error_code : "(no code)",
                          call->message ? call->message : "");
    if (!call->schema_ok) /* output_schema is always checked, schema_valid or not */
        return check_fail(why, "the result does not fit output_schema: %s",
                          call->schema_error ? call->schema_error : "invalid");
    tg_match_opts o;
    const char **ptrs;
    int rc = expect_opts(expect, &o, &ptrs, err);
    if (rc == 0)
        rc = check_output(expect, "output", TG_MATCH_EQUAL, &o, call->result, why, err);
    if (rc == 1)
        rc = check_output(expect, "output_contains", TG_MATCH_CONTAINS, &o, call->result, why, err);
    free(ptrs);
    if (rc == 1)
        rc = check_text(expect, call->result, why, err);
    if (rc == 1)
        rc = check_artifacts(expect, call, why, err);
    return rc;
}

int tg_expect_check(const cJSON *expect, const tg_call_outcome *call, char **why, tg_err *err)
{
    if (why)
        *why = NULL;
    if (!cJSON_IsObject(expect))
        return tg_err_set(err, "expect: must be an object");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(expect, "error");
    if (code)
        return check_error(expect, code, call, why, err);
    return check_result(expect, call, why, err);
}

/* One input: both results equal, or both failures with the same code. */
static bool agree(const tg_call_outcome *g, const tg_call_outcome *r, const tg_match_opts *o,
                  char **why)
{
    const char *gc = g->error_code ? g->error_code : "(no code)";
    const char *rc = r->error_code ? r->error_code : "(no code)";
    if (g->ok && r->ok)
        return tg_json_match(r->result, g->result, TG_MATCH_EQUAL, o, why);
    if (!g->ok && !r->ok && strcmp(gc, rc) == 0)
        return true;
    if (why) {
        if (!g->ok && !r->ok)
            *why = xasprintf("generated failed with %s, reference with %s", gc, rc);
        else if (!g->ok)
            *why = xasprintf("generated failed with %s: %s; the reference succeeded", gc,
                             g->message ? g->message : "");
        else
            *why = xasprintf("the reference failed with %s; generated succeeded", rc);
    }
    return false;
}

int tg_reference_agreement(const tg_call_outcome *generated, const tg_call_outcome *reference,
                           size_t n, const tg_match_opts *opts, double *out, char **why,
                           tg_err *err)
{
    if (why)
        *why = NULL;
    if (n == 0)
        return tg_err_set(err, "reference comparison: no inputs to compare on");
    size_t same = 0;
    for (size_t i = 0; i < n; i++) {
        char *diff = NULL;
        bool first_diff = why && !*why;
        if (agree(&generated[i], &reference[i], opts, first_diff ? &diff : NULL))
            same++;
        else if (first_diff)
            *why = xasprintf("input %zu: %s", i, diff ? diff : "outputs differ");
        free(diff);
    }
    *out = (double)same / (double)n;
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
    if (in->has_reference && check_unit("reference similarity", in->reference_similarity, err))
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
