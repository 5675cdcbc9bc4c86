/*
 * codebleu.h — CodeBLEU of a candidate against a reference implementation (docs/metrics.md,
 * CodeBLEU): a Python tokenizer, standard and keyword-weighted BLEU over its tokens, and the
 * requests and replies of the two analysis scripts that run in the sandbox
 * (run/runtime/code_analysis.py for the syntax-tree and dataflow parts, static_check.py for the
 * static check). Pure functions, thread-safe; errors through tg_err.
 */
#ifndef TG_CODEBLEU_H
#define TG_CODEBLEU_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* The weights of CodeBLEU's four parts (toolgen.yaml validation.code_bleu_weights). */
typedef struct tg_bleu_weights {
    double ngram, weighted_ngram, ast, dataflow;
} tg_bleu_weights;

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

/*
 * The structural scores of a tg_code_analysis, in order, with their names: code_analysis.py's
 * reply (inside the object `part`) and the validation report's semantic_closeness use the same
 * names, so tg_code_analysis_read and the report both walk this one table.
 * tg_code_analysis_scores returns the (static) table and its length in *n;
 * tg_code_analysis_score the value of s in ca.
 */
typedef struct tg_analysis_score {
    const char *part; /* the reply's object that holds it: "ast" or "dataflow" */
    const char *name;
    size_t offset;    /* of its double in tg_code_analysis */
} tg_analysis_score;

const tg_analysis_score *tg_code_analysis_scores(size_t *n);
double tg_code_analysis_score(const tg_code_analysis *ca, const tg_analysis_score *s);

int tg_code_analysis_read(const cJSON *reply, tg_code_analysis *out, tg_err *err);
/* {"candidate": ..., "reference": ...} for code_analysis.py. */
cJSON *tg_code_analysis_request(const char *candidate, const char *reference);
/*
 * {"code", "file", "forbidden_calls", "forbidden_modules", "allowed_imports"} for
 * runtime/static_check.py; the lists come from toolgen.yaml's `static_check` object (NULL or a
 * missing key: the schema's default list).
 */
cJSON *tg_static_check_request(const char *code, const char *file, const cJSON *static_check);

#endif
