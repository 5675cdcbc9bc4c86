/*
 * builtin_parse_int.h — the parser's state, shared by builtin_parse.c (filters, groups,
 * aggregate words, ordering) and builtin_ops.c (the operation and the leftover check).
 * Private to gen/.
 */
#ifndef TG_BUILTIN_PARSE_INT_H
#define TG_BUILTIN_PARSE_INT_H

#include "gen/builtin_int.h"

typedef struct bp_state {
    bt_toks *t;
    bt_ctx *x;           /* the user's answers; the question raised */
    const tg_dataset *ds;
    size_t nds;
    bt_plan *p;
    tg_err *err;
    int sort_col;        /* "sorted by X", "top 10 rows by X": the ordering column, or -1 */
    bool superlative;    /* highest / lowest / most / least seen */
    int sup_dir;         /* its direction: 1 largest, -1 smallest */
    size_t sup_at;       /* where the superlative stands */
    size_t top_at;       /* where a "top" without a number stands (top_word) */
    bool count_word;     /* count, number of, how many */
    size_t count_at;     /* where the count word stands */
    bool distinct_word;  /* distinct, unique */
    bool top_word;       /* top / bottom / first N */
    bool ranked_key;     /* a group key named as the thing ranked ("which day", "heaviest
                            species"), not by a group clause ("for each species") */
} bp_state;

bool bp_is(const bt_tok *k, const char *w);
bool bp_in(const bt_tok *k, const char *const *list);
/* A word for the rows at k ("rides"), also one the lexer read loosely as a column ("bills"). */
bool bp_names_rows(const bt_tok *k);
/* Whether num may be compared with column c: a column of two values (yes/no, 0/1) only with a
 * number in its range ("survivors under 10" is of another column than survived). */
bool bp_comparable(const tg_dataset_column *c, double num);
bool bp_has(const bp_state *s, const char *const *list);
/* Add to one of the plan's lists (groups, values; aggs) unless it holds the entry already; a
 * list of BT_LIMIT entries stays as it is. */
void bp_add_col(int *list, size_t *n, int col);
void bp_add_agg(bt_plan *p, bt_agg a);

int bp_filters(bp_state *s);   /* builtin_parse.c */
/* The words that introduce a filter ("where", "for", ...); those right before i, fillers
 * included, are marked used. True when one of them excludes what follows ("except on
 * Sunday", "excluding bills over 20"): the caller negates its filter (bp_negate_last). */
extern const char *const bp_filter_intro[];
bool bp_use_before(bp_state *s, size_t i, const char *const *list);
/* Words that make a request the rate of a yes/no column ("percentage who survived"). */
extern const char *const bp_rate_words[];
/* Negates the plan's last filter; -1 with err for a range (no "not between"). */
int bp_negate_last(bp_state *s);
/* A comparison at j (a symbol or words: "over", "at least", "since"): its kind and the index
 * after it; 0 when none. */
size_t bp_comparison_at(const bt_toks *t, size_t j, bt_cmp *cmp);
/* Is tok a number that reads as a year (an integer from 1000 to 2999)? A word that puts one in
 * time ("since", "before", "in")? */
bool bp_year(const bt_tok *tok);
bool bp_year_word(const bt_tok *tok);
/* The column a year is compared with: the one numeric column with "year" in its name, else
 * the one date column (*year_of_date: its year); -1 when neither is one column. */
int bp_year_column(const bp_state *s, bool *year_of_date);
/* Whether a range's end follows the number at i: "to", "through", "until", "till" ("and" too
 * when the range began with "between"), then another number ("from 1990 to 1999"). */
bool bp_range_end(const bt_toks *t, size_t i, bool between);
/* The clauses around a number at i that need no column before it (builtin_phrases.c):
 * "4-cylinder", "6 or more cylinders", "in 2015", "since 2000", "over 50" (its column implied
 * or asked). 1 read, 0 not such a clause, -1 with err. */
int bp_number(bp_state *s, size_t i);
/* The word at `at`, after a comparison's number on column col, as a unit ("over 6000 grams"):
 * 1 when it is the unit col's name ends with (the word is read), -1 with err when it is
 * another unit of a column whose name says its unit ("5 kg" of body_mass_g: no conversion is
 * guessed), 0 when it is no unit word or col's name says none. */
int bp_unit_after(bp_state *s, size_t at, int col);
/* A ratio of two columns computed per row (builtin_ratio.c): "tip as a percentage of fare",
 * "ratio of X to Y", "fare per mile", "tip percentage" (of which column: asked). 0 or -1. */
int bp_ratio(bp_state *s);
/* "smokers vs non-smokers", "for non-smokers" at the yes/no column i: 1, 0, -1. */
int bp_flag_clause(bp_state *s, size_t i);
/* A new filter on col (NULL when the plan has BT_LIMIT already). */
bt_filter *bp_new_filter(bp_state *s, int col);
/* A two-valued column's "yes" (True, Yes, 1): 1 with the text in *val, 2 with the number in
 * *num, 0 when the column is no such flag. */
int bp_flag(const tg_dataset_column *c, const char **val, double *num);
/* The filter col == its "yes": 1 added, 0 when col is no flag, -1 with err (too many filters). */
int bp_flag_filter(bp_state *s, int col);
int bp_groups(bp_state *s);    /* builtin_clause.c: group keys, periods, the sort column */
/* The date column periods and orders follow: the file's one, or asked among several; -1. */
int bp_date_column(bp_state *s);
void bp_aggregates(bp_state *s); /* builtin_clause.c: aggregate words, top-k, sort order */
int bp_operation(bp_state *s); /* builtin_ops.c: the operation, roles, leftovers */

#endif
