/*
 * builtin_int.h — the built-in generator's inside: tokens, the vocabulary resolver, the query
 * plan, and the three writers (plan text, manifest, tool.py). Private to gen/.
 *
 * The compiler runs in four steps (docs/generate.md#the-built-in-generator):
 *   lex      intent text → words, numbers, comparison symbols       (builtin_lex.c)
 *   resolve  words → columns / column values / keywords / unknown    (builtin_resolve.c)
 *   parse    tokens → a bt_plan, or a refusal naming what is wrong   (builtin_parse.c, builtin_ops.c)
 *   write    plan → canonical text, tool.manifest.yaml, tool.py      (builtin_plan.c, _spec.c, _code.c)
 * The writers see only the plan and the schemas, never the intent's words, so every phrasing of
 * one request gives the same bytes.
 */
#ifndef TG_BUILTIN_INT_H
#define TG_BUILTIN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/strvec.h"
#include "gen/dataset.h"
#include "gen/reading.h"

#define BT_VERSION "1"
#define BT_LIMIT 8          /* columns per role, filters, aggregates, values per filter */
#define BT_MAX_TOKENS 96  /* longer intents are refused: a request, not an essay */

/* ---- tokens ------------------------------------------------------------------------------- */

/* In the order of tg_rcmp (gen/reading.h), which a filter's text is written with. */
typedef enum bt_cmp { BT_EQ, BT_NE, BT_GT, BT_GE, BT_LT, BT_LE, BT_BETWEEN, BT_ISNA, BT_NOTNA } bt_cmp;

typedef enum bt_kind {
    BT_WORD,  /* a word: keyword, filler, or unknown (unknown set) */
    BT_NUM,   /* a number (num) */
    BT_CMP,   /* a comparison symbol: > >= < <= = == != (cmp) */
    BT_SEP,   /* , & ; */
    BT_COL,   /* a column of datasets[ds] (col), possibly spanning several words */
    BT_VAL,   /* a value of a categorical column (ds, col; text is the value as in the file) */
} bt_kind;

typedef struct bt_tok {
    bt_kind kind;
    char *text;     /* the word lowercased; BT_VAL: the value's exact text; BT_COL: the name */
    char *raw;      /* the words as written (for messages) */
    double num;
    bt_cmp cmp;
    int ds, col;
    bool unknown;   /* a word that is no keyword, filler, column or value */
    bool neg;       /* BT_COL of a yes/no column named in the negative ("non-smokers") */
    bool used;      /* consumed by the parser */
    bool decade;    /* BT_NUM written with an "s" ("1990s"): the ten years from num */
} bt_tok;

typedef struct bt_toks {
    bt_tok *v;
    size_t n;
} bt_toks;

/* ---- one compilation: the data, the user's answers, the question it raises ---------------- */

struct tg_builtin_question;

typedef struct bt_ctx {
    const tg_dataset *ds;
    size_t nds;
    const char *const *assume;       /* "ABOUT=MEANING" answers to earlier questions */
    size_t nassume;
    bool split_aggregates;           /* "total bill": "total" is the aggregate, not a name part */
    bool merged_aggregate;           /* the resolver read an aggregate word into a column name */
    bool rows_superlative;           /* "busiest", "most popular" were read as "most rows" */
    struct tg_builtin_question *q;   /* the first question raised; its text NULL: none */
} bt_ctx;

/* The answer the user gave about `about` (case and spacing ignored), or NULL. */
const char *bt_assumed(const bt_ctx *x, const char *about);

/*
 * A question about `about` with options[0..n): the user's answer when there is one (NULL when
 * it is none of the options); else the question is recorded — the first one only — and
 * options[0] stands in for the answer, so that the rest of the request is still checked (a
 * request that fails elsewhere is refused, not asked about).
 */
const char *bt_question(bt_ctx *x, const char *about, const char *const *options, size_t n,
                        const char *fmt, ...) TG_PRINTF(5, 6);

/* Splits intent into words, numbers and symbols (lowercased; "7-day" → 7, day). -1 when it is
 * empty or over BT_MAX_TOKENS (err). */
int bt_lex(const char *intent, bt_toks *out, tg_err *err);
void bt_toks_free(bt_toks *t);
/* Tokens i..i+k as one token of kind at i (text; the words as written joined); the rest go. */
void bt_merge_tokens(bt_toks *t, size_t i, size_t k, bt_kind kind, int d, int col,
                     const char *text);
/* A word token w inserted at i (what was at i and after moves one on). */
void bt_insert_word(bt_toks *t, size_t i, const char *w);

/* Resolves the lexed words against the datasets' columns and values, in place: merges the
 * words of a multi-word column name into one BT_COL token, marks unknown words. */
void bt_resolve(bt_toks *t, bt_ctx *x);

/* ---- words (builtin_words.c) ---------------------------------------------------------- */

typedef enum bt_wmatch {
    BT_WM_NONE,
    BT_WM_SAME,      /* the same word, its plural, an irregular plural */
    BT_WM_SYNONYM,   /* a word of one group of the synonym table */
    BT_WM_LOOSE,     /* an abbreviation, the same stem, a one-letter slip */
} bt_wmatch;

/* How the analyst's word w (lowercase) names the column-name word c (lowercase). */
bt_wmatch bt_word_match(const char *w, const char *c);
/* The Damerau edit distance (a swap of two neighbouring letters costs 1); 99 over 64 letters. */
size_t bt_damerau(const char *a, const char *b);
/* "children" → "child", "women" → "woman"; other words as they are (not a copy). */
const char *bt_singular(const char *w);
/* The lowercase words of a column name: "Life_Expectancy" → life, expectancy. */
void bt_name_words(const char *name, tg_strv *out);
/* The phrases read as one word ("std dev" → std): how many, and the i-th with its reading. */
size_t bt_phrase_count(void);
const char *bt_phrase(size_t i, const char **as);

/* ---- values (builtin_values.c) and loosely named columns (builtin_loose.c) ------------- */

extern const char *const bt_weekdays[], *const bt_months[];
/* Words i..i+k naming a value of a text column (a question when several columns have it):
 * k with the column and the value as in the file, or 0. */
size_t bt_match_value(const bt_toks *t, size_t i, bt_ctx *x, int *ds_out, int *col_out,
                      const char **level);
/* The weekday column's weekend values: 2 with the column and them, or 0. */
size_t bt_weekend_levels(const bt_ctx *x, int *col, const char *out[2]);
/* Words i..i+k naming one column loosely (synonyms, stems, abbreviations, slips, a subset of
 * its name's words); a question when several columns fit, or when words name nothing of the
 * column ("ticket price" → fare?). k with the column, or 0. */
size_t bt_loose_column(const bt_toks *t, size_t i, bt_ctx *x, int *ds_out, int *col_out);
/* The rewrites before resolution: phrases ("std dev" → std), superlative adjectives
 * ("heaviest" → highest weight), "non-smokers" → non smokers, "weekends" → the weekend days. */
void bt_rewrite(bt_toks *t, bt_ctx *x);

/* Vocabulary shared by the resolver and the parser. */
bool bt_is_keyword(const char *w);           /* words the grammar reads (by, mean, top, ...) */
bool bt_is_filler(const char *w);            /* words with no meaning here (the, please, ...) */
bool bt_is_row_noun(const char *w);          /* rows, records, passengers, ... */
bool bt_is_one_row_noun(const char *w);      /* row, record, passenger: one of them */
const char *bt_close_keyword(const char *w); /* "avrage" → average; NULL */
bool bt_word_eq(const char *a, const char *b); /* equal, or equal after plural folding */

/* ---- the plan ----------------------------------------------------------------------------- */

typedef enum bt_op {
    BT_OP_AGGREGATE,      /* aggregates of value columns (or the row count) by group keys */
    BT_OP_TOP_ROWS,       /* the rows with the largest / smallest values of one column */
    BT_OP_VALUE_COUNTS,   /* counts and shares of each value of one column */
    BT_OP_SUMMARY,        /* describe() of columns */
    BT_OP_CORRELATION,    /* two columns: one coefficient; more: the matrix */
    BT_OP_MOVING_AVERAGE, /* rolling mean of a column over a window */
    BT_OP_RESAMPLE,       /* an aggregate per period of a date column */
    BT_OP_MERGE,          /* two files joined on a key */
    BT_OP_PIVOT,          /* aggregate with one key as rows and one as columns */
    BT_OP_MISSING,        /* missing values per column */
    BT_OP_OUTLIERS,       /* rows whose value lies outside the IQR fences or a z-score */
    BT_OP_SERIES,         /* y against x, sorted by x (line charts) */
    BT_OP_SCATTER,        /* the (x, y) pairs (scatter plots) */
    BT_OP_HISTOGRAM,      /* counts per bin of a numeric column */
    BT_OP_ROWS,           /* the rows that meet the filters, in the file's order */
} bt_op;

typedef enum bt_agg {
    BT_SUM, BT_MEAN, BT_MEDIAN, BT_MIN, BT_MAX, BT_STD, BT_COUNT, BT_NUNIQUE, BT_SIZE,
    BT_RATE,    /* the share (0 to 1) of a yes/no column's values that are yes */
    BT_PERCENT, /* the same as a percentage */
} bt_agg;

typedef enum bt_chart { BT_CHART_NONE, BT_BAR, BT_LINE, BT_SCATTER, BT_HISTOGRAM, BT_HEATMAP, BT_PIE } bt_chart;

typedef struct bt_filter {
    int col;
    bt_cmp cmp;
    bool numeric;             /* compares numbers (lo, hi) rather than values */
    bool year;                /* numeric: the year of a date column ("in 1929") */
    double lo, hi;            /* BT_BETWEEN: lo..hi inclusive; others: lo */
    const char *vals[BT_LIMIT]; /* BT_EQ / BT_NE on text: one of these (borrowed from the dataset) */
    size_t nvals;
} bt_filter;

typedef struct bt_plan {
    bt_op op;
    bt_chart chart;
    bt_agg aggs[BT_LIMIT];
    size_t naggs;
    int values[BT_LIMIT];       /* value / subject columns of datasets[0] */
    size_t nvalues;
    int groups[BT_LIMIT];       /* group keys (pivot: rows key, then columns key) */
    size_t ngroups;
    bt_filter filters[BT_LIMIT];
    size_t nfilters;
    int sort;                 /* 0: natural order; 1: largest first; -1: smallest first */
    long top_k;               /* 0: all */
    int date_col;             /* resample / moving average / series: the ordering column, or -1 */
    int ratio;                /* the derived quantity values[0] / ratio per row, or -1 */
    bool percent;             /* the ratio as a percentage */
    char period;              /* resample: D W M Q Y */
    long window;              /* moving average */
    bool spearman;            /* correlation method */
    bool zscore;              /* outliers: z-score (else IQR) */
    double threshold;         /* outliers: z threshold */
    long bins;                /* histogram */
    int key, key2;            /* merge: key column in datasets[0] and in datasets[1] */
} bt_plan;

const char *bt_agg_name(bt_agg a);       /* pandas' name: sum, mean, ..., nunique, size, rate */
bool bt_agg_numeric(bt_agg a);           /* computes on numbers: sum, mean, median, min, max, std */
const char *bt_chart_name(bt_chart c);   /* bar, line, scatter, histogram, heatmap, pie */
const char *bt_op_name(bt_op op);

/*
 * Parses resolved tokens into plan. 0, or -1 with err saying what was not understood (the
 * caller adds the closest phrasings).
 */
int bt_parse(bt_toks *t, bt_ctx *x, bt_plan *plan, tg_err *err);

/* The closest supported phrasings for intent on ds (up to n, best first), for refusals. */
void bt_suggest(const char *intent, const tg_dataset *ds, size_t nds, tg_buf *out);

/* ---- the tool's parameters (shared by the manifest and the code) ---------------------------- */

typedef enum bt_ptype { BT_P_FILE, BT_P_COLUMN, BT_P_COLUMNS, BT_P_INT } bt_ptype;

typedef struct bt_param {
    const char *name;
    bt_ptype type;
    const char *doc;
    const char *file;      /* BT_P_FILE: the default path */
    int ds;                /* BT_P_COLUMN(S): the dataset the columns belong to */
    int cols[BT_LIMIT];      /* their default */
    size_t ncols;
    bool all;              /* BT_P_COLUMNS without default: every (numeric) column */
    bool has_default;      /* BT_P_INT */
    long num, min, max;    /* BT_P_INT: default and bounds */
} bt_param;

#define BT_MAX_PARAMS 10

/* The tool's inputs for plan, in order: file_path, the plan's columns by role, its numbers,
 * then limit (result rows returned). Returns how many. */
size_t bt_params(const bt_plan *p, const tg_dataset *ds, size_t nds, bt_param out[BT_MAX_PARAMS]);

/* ---- writers ------------------------------------------------------------------------------ */

/* The plan as one canonical line: "mean(tip) by day where smoker = 'Yes' | sort desc | top 3". */
char *bt_plan_text(const bt_plan *p, const tg_dataset *ds);
/* The plan as an English sentence (the manifest's intent and title source). */
char *bt_plan_sentence(const bt_plan *p, const tg_dataset *ds);
/* A snake_case tool name derived from the plan (<= 64 characters). */
char *bt_plan_name(const bt_plan *p, const tg_dataset *ds);

/* builtin_reading.c: the plan as a reading (r released by the caller), one filter as the
 * reading's canonical text (caller frees), and the plan as the generated tool's declaration
 * (x-toolgen-reading, gen/cover.h) over its parameters ps[0..n), as compact JSON (caller frees). */
void bt_plan_reading(const bt_plan *p, const tg_dataset *ds, tg_reading *r);
char *bt_filter_text(const bt_filter *f, const tg_dataset *ds);
char *bt_plan_declaration(const bt_plan *p, const tg_dataset *ds, const bt_param *ps, size_t n);

char *bt_write_manifest(const bt_plan *p, const tg_dataset *ds, size_t nds, const char *name);
char *bt_write_code(const bt_plan *p, const tg_dataset *ds, size_t nds);

/* A copy of s safe inside a Python docstring or a YAML comment: no control characters (a
 * newline would end the comment), no backslash, no double quote (a value of the data cannot
 * close the docstring). Caller frees. */
char *bt_safe_text(const char *s);

/* Python literal of a string (single-quoted, escaped) appended to b. */
void bt_py_str(tg_buf *b, const char *s);

#endif
