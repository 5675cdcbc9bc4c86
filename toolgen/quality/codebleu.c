/* codebleu.c — Python tokens, BLEU, CodeBLEU, the analysis scripts' requests (docs/metrics.md). */
#include "quality/codebleu.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "quality/quality_int.h"

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
        if (!tgq_is_unit(v[i]))
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
    if (check_bleu_weights(w, err) || tgq_check_unit("ast match score", ast, err) ||
        tgq_check_unit("dataflow match score", dataflow, err))
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
    if (!cJSON_IsNumber(v) || !tgq_is_unit(v->valuedouble))
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

static const tg_analysis_score ANALYSIS_SCORES[] = {
    {"ast", "ast_match_score", offsetof(tg_code_analysis, ast_match)},
    {"ast", "ast_node_overlap", offsetof(tg_code_analysis, ast_node_overlap)},
    {"ast", "ast_depth_similarity", offsetof(tg_code_analysis, ast_depth_similarity)},
    {"ast", "ast_node_sequence_similarity", offsetof(tg_code_analysis, ast_sequence_similarity)},
    {"dataflow", "dataflow_match_score", offsetof(tg_code_analysis, dataflow_match)},
    {"dataflow", "variable_flow_similarity", offsetof(tg_code_analysis, variable_flow_similarity)},
    {"dataflow", "dependency_graph_similarity",
     offsetof(tg_code_analysis, dependency_graph_similarity)},
    {"dataflow", "assignment_order_similarity",
     offsetof(tg_code_analysis, assignment_order_similarity)},
};

const tg_analysis_score *tg_code_analysis_scores(size_t *n)
{
    *n = sizeof ANALYSIS_SCORES / sizeof *ANALYSIS_SCORES;
    return ANALYSIS_SCORES;
}

double tg_code_analysis_score(const tg_code_analysis *ca, const tg_analysis_score *s)
{
    return *(const double *)((const char *)ca + s->offset);
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
    for (size_t i = 0; i < sizeof ANALYSIS_SCORES / sizeof *ANALYSIS_SCORES; i++) {
        const tg_analysis_score *s = &ANALYSIS_SCORES[i];
        if (read_score(cJSON_GetObjectItemCaseSensitive(reply, s->part), s->name,
                       (double *)((char *)out + s->offset), err) != 0)
            return -1;
    }
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

