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
    const tg_dataset *ds;
    size_t nds;
    bt_plan *p;
    tg_err *err;
    int sort_col;        /* "sorted by X", "top 10 rows by X": the ordering column, or -1 */
    bool superlative;    /* highest / lowest / most / least seen */
    int sup_dir;         /* its direction: 1 largest, -1 smallest */
    bool count_word;     /* count, number of, how many */
    bool distinct_word;  /* distinct, unique */
    bool top_word;       /* top / bottom / first N */
} bp_state;

bool bp_is(const bt_tok *k, const char *w);
bool bp_in(const bt_tok *k, const char *const *list);
bool bp_has(const bp_state *s, const char *const *list);
/* Add to one of the plan's lists (groups, values; aggs) unless it holds the entry already; a
 * list of BT_LIMIT entries stays as it is. */
void bp_add_col(int *list, size_t *n, int col);
void bp_add_agg(bt_plan *p, bt_agg a);

int bp_filters(bp_state *s);   /* builtin_parse.c */
/* A two-valued column's "yes" (True, Yes, 1): 1 with the text in *val, 2 with the number in
 * *num, 0 when the column is no such flag. */
int bp_flag(const tg_dataset_column *c, const char **val, double *num);
/* The filter col == its "yes": 1 added, 0 when col is no flag, -1 with err (too many filters). */
int bp_flag_filter(bp_state *s, int col);
int bp_groups(bp_state *s);    /* builtin_clause.c: group keys, periods, the sort column */
void bp_aggregates(bp_state *s); /* builtin_clause.c: aggregate words, top-k, sort order */
int bp_operation(bp_state *s); /* builtin_ops.c: the operation, roles, leftovers */

#endif
