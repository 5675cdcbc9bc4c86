/*
 * builtin_ops.c — which operation an intent asks for, the role of each column in it, and the
 * check that nothing of the intent was left unread (docs/generate.md#the-built-in-generator).
 *
 * The operation is chosen by its words (merge, outliers, missing, correlation, summary,
 * moving, pivot, histogram, scatter, share, a period, a line over x, top rows) and otherwise is
 * an aggregate. Each operation then checks its columns: how many, which types.
 */
#include <ctype.h>
#include <string.h>

#include "base/strvec.h"
#include "gen/builtin_parse_int.h"

/* Marks every unused word of list used; true when there was one. */
static bool take(bp_state *s, const char *const *list)
{
    bool found = false;
    for (size_t i = 0; i < s->t->n; i++)
        if (!s->t->v[i].used && bp_in(&s->t->v[i], list)) {
            s->t->v[i].used = true;
            found = true;
        }
    return found;
}

/* The first unused number, marked used (and a unit word after it); fallback when none. */
static double take_number(bp_state *s, double fallback)
{
    static const char *const units[] = {"day", "days", "week", "weeks", "month", "months", "year",
                                        "years", "row", "rows", "period", "periods", "bins",
                                        "observations", "points", "values", NULL};
    for (size_t i = 0; i < s->t->n; i++) {
        bt_tok *k = &s->t->v[i];
        if (k->kind == BT_NUM && !k->used) {
            k->used = true;
            if (i + 1 < s->t->n && (bp_in(&k[1], units) ||
                                    (k[1].kind == BT_COL && bp_in(&(bt_tok){.kind = BT_WORD, .text = k[1].text}, units))))
                k[1].used = true;
            return k->num;
        }
    }
    return fallback;
}

static bool is_numeric(const bp_state *s, int col)
{
    tg_col_type t = s->ds[0].cols[col].type;
    return t == TG_COL_INT || t == TG_COL_FLOAT || t == TG_COL_BOOL;
}

static int need_numeric(bp_state *s, const char *what)
{
    for (size_t i = 0; i < s->p->nvalues; i++)
        if (!is_numeric(s, s->p->values[i]))
            return tg_err_set(s->err, "%s needs numeric columns, but %s holds %s values", what,
                              s->ds[0].cols[s->p->values[i]].name,
                              tg_col_type_name(s->ds[0].cols[s->p->values[i]].type));
    return 0;
}

static int need_values(bp_state *s, size_t lo, size_t hi, const char *what)
{
    size_t n = s->p->nvalues;
    if (n >= lo && n <= hi)
        return 0;
    if (lo == hi)
        return tg_err_set(s->err, "%s needs %zu column%s, the intent names %zu", what, lo,
                          lo == 1 ? "" : "s", n);
    return tg_err_set(s->err, "%s needs %zu to %zu columns, the intent names %zu", what, lo, hi, n);
}

static int no_groups(bp_state *s, const char *what)
{
    if (s->p->ngroups)
        return tg_err_set(s->err, "%s per group is not supported by the built-in generator", what);
    return 0;
}

/* Does the request name its rows ("cars", "passengers") without anything else to compute? */
static bool counts_rows(const bp_state *s)
{
    for (size_t i = 0; i < s->t->n; i++)
        if (s->t->v[i].kind == BT_WORD && !s->t->v[i].used && bt_is_row_noun(s->t->v[i].text))
            return true;
    return false;
}

/* "tip by day": what to compute of the columns is asked, not guessed. */
static void ask_aggregate(bp_state *s)
{
    static const char *const options[] = {"mean", "sum", "median", "min", "max", "count"};
    static const bt_agg aggs[] = {BT_MEAN, BT_SUM, BT_MEDIAN, BT_MIN, BT_MAX, BT_COUNT};
    bt_plan *p = s->p;
    tg_buf cols = TG_BUF_INIT;
    for (size_t i = 0; i < p->nvalues; i++)
        tg_buf_printf(&cols, "%s%s", i ? " and " : "", s->ds[0].cols[p->values[i]].name);
    for (size_t i = 0; i < p->ngroups; i++)
        tg_buf_printf(&cols, "%s%s", i ? " and " : " per ", s->ds[0].cols[p->groups[i]].name);
    const char *a = bt_question(s->x, "aggregate", options, 6, "What should be computed of %s: "
                                "the mean, sum, median, min, max or count?", cols.data);
    tg_buf_free(&cols);
    for (size_t i = 0; a && i < 6; i++)
        if (strcmp(a, options[i]) == 0)
            bp_add_agg(p, aggs[i]);
}

/* Aggregates from the words; count with no column counts rows. */
static int settle_aggs(bp_state *s, const char *what)
{
    bt_plan *p = s->p;
    if (s->count_word || s->distinct_word)
        bp_add_agg(p, s->distinct_word ? BT_NUNIQUE : p->nvalues ? BT_COUNT : BT_SIZE);
    if (p->naggs == 0 && p->nvalues)
        ask_aggregate(s);
    if (p->naggs == 0 && !p->nvalues && p->ngroups && counts_rows(s))
        bp_add_agg(p, BT_SIZE); /* "cars per origin": the rows are what is counted */
    if (p->naggs == 0)
        return tg_err_set(s->err, "%s: say what to compute (sum, average, median, minimum, "
                                  "maximum, standard deviation, count or number of distinct "
                                  "values)", what);
    for (size_t i = 0; i < p->naggs; i++) {
        bt_agg a = p->aggs[i];
        if (a == BT_SIZE && p->nvalues)
            return tg_err_set(s->err, "%s: both a row count and columns to aggregate; ask for "
                                      "one of them", what);
        if (a != BT_SIZE && p->nvalues == 0)
            return tg_err_set(s->err, "%s: %s of which column?", what, bt_agg_name(a));
        if (bt_agg_numeric(a) && need_numeric(s, bt_agg_name(a)) != 0)
            return -1;
    }
    return 0;
}

/* A whole-number column named in the plural ("passengers", not "class"): it may count things,
 * a row holding how many there were. */
static bool plural_count_column(const tg_dataset_column *c)
{
    size_t n = strlen(c->name);
    return c->type == TG_COL_INT && n >= 4 && tolower((unsigned char)c->name[n - 1]) == 's' &&
           tolower((unsigned char)c->name[n - 2]) != 's';
}

/* "how many passengers" where passengers is a whole-number column named in the plural, named
 * right after the count word: the column may count the very things asked about (a row per
 * month holding its passengers), so their number is its total — or it is the rows. */
static bool counts_things(const bp_state *s, int col)
{
    if (!plural_count_column(&s->ds[0].cols[col]))
        return false;
    size_t j = s->count_at + 1;
    while (j < s->t->n && s->t->v[j].kind == BT_WORD &&
           (bt_is_filler(s->t->v[j].text) || bp_is(&s->t->v[j], "of")))
        j++;
    return j < s->t->n && s->t->v[j].kind == BT_COL && s->t->v[j].col == col;
}

/* The total of the column or the number of rows: asked. */
static int count_or_total(bp_state *s, int col)
{
    const char *name = s->ds[0].cols[col].name;
    static const char *const options[] = {"total", "rows"};
    const char *pick = bt_question(s->x, name, options, 2, "By the number of %s, do you mean "
                                   "the total of the column %s (total) or the number of rows "
                                   "(rows)?", name, name);
    if (!pick)
        return tg_err_set(s->err, "the number of %s was answered with neither total nor rows",
                          name);
    if (strcmp(pick, "total") == 0) {
        bp_add_agg(s->p, BT_SUM);
        s->count_word = false;
    } else {
        s->p->nvalues = 0;
    }
    return 0;
}

/* Counting a column counts rows: those where a yes/no column is yes ("how many survived"), or
 * those of each value of a text column ("species count"); what pandas' count() of the column
 * would give, its non-missing cells, is not what such a request means. */
static int counted_column(bp_state *s)
{
    bt_plan *p = s->p;
    if (s->count_word && !s->distinct_word && p->naggs == 1 && p->aggs[0] == BT_SUM &&
        p->nvalues == 1 && counts_things(s, p->values[0])) {
        s->count_word = false; /* "how many passengers flew in total": that total */
        return 0;
    }
    if (!s->count_word || s->distinct_word || p->naggs || p->nvalues != 1)
        return 0;
    int col = p->values[0];
    int rc = bp_flag_filter(s, col);
    if (rc < 0)
        return -1;
    if (rc == 0 && counts_things(s, col))
        return count_or_total(s, col);
    if (rc == 0 && s->ds[0].cols[col].type != TG_COL_STRING)
        return 0;
    p->nvalues = 0;
    if (rc == 1)
        return 0;
    /* "species count": per value; "how many months": the rows, the distinct values, or per
     * value — asked */
    size_t at = 0;
    while (at < s->t->n && !(s->t->v[at].kind == BT_COL && s->t->v[at].col == col))
        at++;
    if (s->count_at > at) {
        bp_add_col(p->groups, &p->ngroups, col);
        return 0;
    }
    static const char *const options[] = {"each", "rows", "distinct"};
    const char *pick = bt_question(s->x, s->t->v[at].raw, options, 3, "By '%s', do you mean "
                                   "the rows per value of %s (each), the number of rows (rows), "
                                   "or the number of distinct values (distinct)?",
                                   s->t->v[at].raw, s->ds[0].cols[col].name);
    if (pick && strcmp(pick, "each") == 0)
        bp_add_col(p->groups, &p->ngroups, col);
    else if (pick && strcmp(pick, "distinct") == 0)
        s->distinct_word = true, p->values[p->nvalues++] = col;
    return pick ? 0 : tg_err_set(s->err, "'%s' was answered with none of each, rows, distinct",
                                 s->t->v[at].raw);
}

static int op_top_rows(bp_state *s);

/* "tip of the smallest bill", "age of the highest fare": a column named before a superlative
 * whose own column follows it is read at the row where that column is extreme — the column
 * after the superlative, when another value column stands before it; else -1. */
static int extreme_row_column(const bp_state *s)
{
    const bt_toks *t = s->t;
    size_t j = s->sup_at + 1;
    while (j < t->n && t->v[j].kind == BT_WORD && bt_is_filler(t->v[j].text))
        j++;
    if (j >= t->n || t->v[j].kind != BT_COL || t->v[j].ds != 0)
        return -1;
    int col = t->v[j].col;
    for (size_t k = 0; k < s->sup_at; k++)
        if (t->v[k].kind == BT_COL && t->v[k].ds == 0 && t->v[k].col != col)
            for (size_t v = 0; v < s->p->nvalues; v++)
                if (s->p->values[v] == t->v[k].col)
                    return col;
    return -1;
}

/* Skips fillers from i: the next token that is not one. */
static size_t past_fillers(const bt_toks *t, size_t i)
{
    while (i < t->n && t->v[i].kind == BT_WORD && bt_is_filler(t->v[i].text))
        i++;
    return i;
}

static bool is_row_noun_at(const bt_toks *t, size_t i)
{
    return i < t->n && t->v[i].kind == BT_WORD && bt_is_row_noun(t->v[i].text);
}

/*
 * "which car has the best mpg", "who paid the highest fare", "the heaviest car": a superlative
 * that asks for the row itself — "who" first, "which"/"what" before a row noun, or a row noun
 * right after the superlative and its column — rather than for the extreme value. The row
 * holds the value too.
 */
static bool asks_for_row(const bp_state *s)
{
    static const char *const who[] = {"who", "whose", NULL}, *const which[] = {"which", "what",
                                                                               NULL};
    const bt_toks *t = s->t;
    if (t->n && t->v[0].kind == BT_WORD && bp_in(&t->v[0], who))
        return true; /* a filler elsewhere ("passengers who survived") */
    for (size_t i = 0; i + 1 < t->n; i++) {
        if (t->v[i].kind == BT_WORD && bp_in(&t->v[i], which) &&
            is_row_noun_at(t, past_fillers(t, i + 1)))
            return true;
        /* "the car with the best mpg", "the passenger who paid the highest fare" */
        if (i < s->sup_at && is_row_noun_at(t, i) &&
            bp_in(&t->v[i + 1], (const char *const[]){"with", "who", "that", NULL}))
            return true;
    }
    /* "the heaviest car", "the lightest Gentoo penguin" — but "age of the oldest passenger"
     * and "the youngest passenger's age" name the value they want, outside the superlative */
    size_t j = past_fillers(t, s->sup_at + 1);
    while (j < t->n && (t->v[j].kind == BT_COL || t->v[j].kind == BT_VAL) && t->v[j].ds == 0)
        j = past_fillers(t, j + 1);
    if (!is_row_noun_at(t, j))
        return false;
    for (size_t k = 0; k < t->n; k++)
        if (t->v[k].kind == BT_COL && t->v[k].ds == 0 && t->v[k].col == s->p->values[0] &&
            (k < s->sup_at || k > j))
            return false;
    return true;
}

/* "the top tipping Sunday customer": a "top" without a number that names one row (a row noun
 * in the singular after it, past columns and values) asks for that row, not for five. */
static bool one_row_after_top(const bp_state *s)
{
    const bt_toks *t = s->t;
    size_t j = past_fillers(t, s->top_at + 1);
    while (j < t->n && (t->v[j].kind == BT_COL || t->v[j].kind == BT_VAL) && t->v[j].ds == 0)
        j = past_fillers(t, j + 1);
    return j < t->n && t->v[j].kind == BT_WORD && bt_is_one_row_noun(t->v[j].text);
}

/* Whether column col tells the rows apart: a value in every row, no two alike. */
static bool one_row_each(const bp_state *s, int col)
{
    const tg_dataset_column *c = &s->ds[0].cols[col];
    return s->ds[0].rows > 0 && c->missing == 0 && c->distinct == s->ds[0].rows;
}

static int op_aggregate(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_AGGREGATE;
    int extreme;
    if (counted_column(s) != 0)
        return -1;
    if (s->superlative && s->ranked_key && !p->naggs && !s->count_word && p->ngroups == 1 &&
        p->nvalues == 1 && !p->top_k && one_row_each(s, p->groups[0])) {
        /* "which state has the highest premium" where each row is one state: that row (an
         * aggregate of one row per group is the row's value, whichever is asked) */
        p->ngroups = 0;
        p->top_k = 1;
        return op_top_rows(s);
    }
    if (s->superlative && !p->naggs && !s->count_word && p->ngroups && !s->ranked_key) {
        /* "biggest petal length for each species": the largest of each group, every group —
         * but "tip of each day's biggest bill" asks for a row of each group, which is not the
         * largest of every column */
        if (p->nvalues > 1 && extreme_row_column(s) >= 0)
            return tg_err_set(s->err, "a column at the row of each group where another is "
                                      "largest or smallest is not supported by the built-in "
                                      "generator; ask for one group's row (\"tip of the biggest "
                                      "bill\") or the extreme of each group (\"biggest bill per "
                                      "day\")");
        bp_add_agg(p, s->sup_dir > 0 ? BT_MAX : BT_MIN);
    } else if (s->superlative && (p->naggs || s->count_word || p->ngroups)) {
        p->sort = s->sup_dir; /* "which day has the highest average tip" */
        /* "average bill length of the heaviest species": ranked by the superlative's column
         * (the first one is the ranking's), the one named before it reported beside it */
        if (p->nvalues > 1 && (extreme = extreme_row_column(s)) >= 0)
            for (size_t v = 1; v < p->nvalues; v++)
                if (p->values[v] == extreme) {
                    p->values[v] = p->values[0];
                    p->values[0] = extreme;
                }
        if (!p->top_k)
            p->top_k = 1; /* ranking groups without an aggregate: asked in settle_aggs */
    } else if (s->superlative && p->nvalues > 1 && (extreme = extreme_row_column(s)) >= 0) {
        p->values[0] = extreme; /* "tip of the smallest bill": that row */
        p->nvalues = 1;
        p->top_k = 1;
        return op_top_rows(s);
    } else if (s->superlative && p->nvalues == 1 && !p->top_k && asks_for_row(s)) {
        p->top_k = 1; /* "which passenger paid the highest fare": that passenger */
        return op_top_rows(s);
    } else if (s->superlative) {
        bp_add_agg(p, s->sup_dir > 0 ? BT_MAX : BT_MIN); /* "the highest fare" */
    }
    /* "top 2 tips per day", "the 3 largest bills for each day": the first rows of each group,
     * which no plan here computes (asking how to aggregate would answer another question) */
    if (p->top_k > 1 && s->top_word && p->ngroups && !p->naggs && !s->count_word &&
        bp_has(s, (const char *const[]){"each", "per", "every", NULL}))
        return tg_err_set(s->err, "the %ld first rows of each group are not computed by the "
                                  "built-in generator (the largest of each is: \"biggest tip for "
                                  "each day\")", p->top_k);
    if (settle_aggs(s, "aggregate") != 0)
        return -1;
    if (p->top_k && !p->sort)
        p->sort = s->sup_dir ? s->sup_dir : 1;
    if ((p->top_k || p->sort) && p->ngroups == 0)
        return tg_err_set(s->err, "ranking needs groups to rank: say by which column, e.g. "
                                  "\"top 3 days by total tip\"");
    return 0;
}

static int op_top_rows(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_TOP_ROWS;
    if (s->sort_col >= 0) {
        for (size_t i = 0; i < p->nvalues; i++)
            if (p->values[i] != s->sort_col)
                return tg_err_set(s->err, "top rows: the role of column %s is not clear",
                                  s->ds[0].cols[p->values[i]].name);
        p->values[0] = s->sort_col;
        p->nvalues = 1;
    }
    if (need_values(s, 1, 1, "top rows") != 0 || need_numeric(s, "ranking rows") != 0)
        return -1;
    p->sort = s->sup_dir ? s->sup_dir : (p->sort ? p->sort : 1);
    if (!p->top_k)
        p->top_k = s->top_word && one_row_after_top(s) ? 1 : 5;
    return 0;
}

/*
 * Was the column whose shares are asked named by a word for the rows ("what share of bills were
 * paid at lunch": bills, loosely total_bill) or as the verb of a clause about them ("percentage
 * of passengers who embarked at Southampton")? Then the request asks for the share of the rows
 * that meet its filter, not for the shares of that column's values among those rows (every
 * bill amount at lunch, or embarked = S among Southampton's passengers: 100 %).
 */
static bool shares_of_rows(const bp_state *s)
{
    static const char *const rel[] = {"who", "that", "which", NULL};
    for (size_t i = 0; i < s->t->n; i++) {
        const bt_tok *k = &s->t->v[i];
        if (k->kind != BT_COL || k->ds != 0 || k->col != s->p->values[0])
            continue;
        if (bp_names_rows(k) || (i > 0 && bp_in(&s->t->v[i - 1], rel)))
            return true;
    }
    return false;
}

static int op_value_counts(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_VALUE_COUNTS;
    if (p->nvalues == 0 && p->ngroups == 1) {
        p->values[p->nvalues++] = p->groups[0];
        p->ngroups = 0;
    }
    if (p->nvalues == 1 && p->nfilters && !p->ngroups && shares_of_rows(s)) {
        const bt_filter *only = p->nfilters == 1 ? &p->filters[0] : NULL;
        if (!only || only->cmp != BT_EQ || only->numeric || only->nvals != 1)
            return tg_err_set(s->err, "the share of the rows that meet a condition is read off "
                                      "the counts of one column's values: ask for the shares of "
                                      "a column (\"share of each time\"), or for the number of "
                                      "rows where the condition holds");
        p->nvalues = 0; /* the filter's column, below */
    }
    /* "proportion of female passengers": the share of a value is read off its column's
     * counts (every value's share, the one asked among them), not taken after filtering to it.
     * With another filter beside it, which value is the share and which the whole is not
     * clear ("percentage of dinners on Sunday"): left as it is, and refused below. */
    const bt_filter *f = p->nfilters == 1 ? &p->filters[0] : NULL;
    if (p->nvalues == 0 && p->ngroups == 0 && f && f->cmp == BT_EQ && !f->numeric &&
        f->nvals == 1) {
        p->values[p->nvalues++] = f->col;
        p->nfilters = 0;
    }
    if (no_groups(s, "value counts") != 0 || need_values(s, 1, 1, "value counts") != 0)
        return -1;
    p->sort = 1;
    return 0;
}

static int op_correlation(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_CORRELATION;
    p->spearman = take(s, (const char *const[]){"spearman", "rank", NULL});
    take(s, (const char *const[]){"pearson", "matrix", "coefficient", "between", NULL});
    if (no_groups(s, "correlation") != 0 || need_numeric(s, "correlation") != 0)
        return -1;
    /* symmetric: the same pair in either order is one plan */
    if (p->nvalues == 2 && p->values[0] > p->values[1]) {
        int v = p->values[0];
        p->values[0] = p->values[1];
        p->values[1] = v;
    }
    if (p->nvalues == 1)
        return tg_err_set(s->err, "correlation needs two columns (or none, for the matrix of "
                                  "all numeric columns); the intent names only %s",
                          s->ds[0].cols[p->values[0]].name);
    return 0;
}

static int op_period(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_RESAMPLE;
    if (no_groups(s, "resampling") != 0 || need_values(s, 0, 1, "resampling") != 0)
        return -1;
    if (!s->count_word && p->naggs == 0 && p->nvalues == 0)
        s->count_word = true; /* "trips per day" */
    if (settle_aggs(s, "resampling") != 0)
        return -1;
    if (p->naggs != 1)
        return tg_err_set(s->err, "resampling computes one aggregate per period");
    return 0;
}

static int op_moving(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_MOVING_AVERAGE;
    take(s, (const char *const[]){"average", "mean", "window", "over", "of", NULL});
    p->naggs = 0;
    double w = take_number(s, 3);
    if (w < 2 || w > 1000)
        return tg_err_set(s->err, "a moving average's window must be 2 to 1000 rows, not %g", w);
    p->window = (long)w;
    if (p->date_col < 0)
        p->date_col = bp_date_column(s);
    if (no_groups(s, "a moving average") != 0 || need_values(s, 1, 1, "a moving average") != 0)
        return -1;
    return need_numeric(s, "a moving average");
}

static int op_pivot(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_PIVOT;
    take(s, (const char *const[]){"table", NULL});
    if (p->ngroups != 2)
        return tg_err_set(s->err, "a pivot table needs two keys (rows and columns), e.g. "
                                  "\"pivot table of mean tip by day and time\"; the intent names %zu",
                          p->ngroups);
    if (p->naggs == 0 && !s->count_word)
        bp_add_agg(p, p->nvalues ? BT_MEAN : BT_SIZE);
    if (need_values(s, 0, 1, "a pivot table") != 0 || settle_aggs(s, "a pivot table") != 0)
        return -1;
    if (p->naggs != 1)
        return tg_err_set(s->err, "a pivot table shows one aggregate");
    return 0;
}

static int op_outliers(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_OUTLIERS;
    static const char *const method[] = {"z-score", "zscore", "z", "iqr", NULL};
    for (size_t i = 0; i + 1 < s->t->n; i++) /* "by z-score": how, not a group */
        if (bp_is(&s->t->v[i], "by") && bp_in(&s->t->v[i + 1], method))
            s->t->v[i].used = true;
    p->zscore = take(s, (const char *const[]){"z-score", "zscore", "z", "score", "scores", NULL});
    take(s, (const char *const[]){"iqr", NULL});
    p->threshold = p->zscore ? take_number(s, 3) : 1.5;
    if (p->threshold <= 0 || p->threshold > 100)
        return tg_err_set(s->err, "an outlier threshold must be above 0, not %g", p->threshold);
    if (no_groups(s, "outlier detection") != 0 || need_values(s, 1, 1, "outlier detection") != 0)
        return -1;
    return need_numeric(s, "outlier detection");
}

/* "per column", "in each column": the report is per column already. */
static int op_missing(bp_state *s)
{
    for (size_t i = 0; i + 1 < s->t->n; i++) {
        bt_tok *k = &s->t->v[i];
        if (!k->used && bp_in(k, (const char *const[]){"per", "each", "every", "by", NULL}) &&
            bp_in(&k[1], (const char *const[]){"column", "columns", NULL}))
            k->used = k[1].used = true;
    }
    s->p->op = BT_OP_MISSING;
    return no_groups(s, "a missing-value report");
}

static int op_merge(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_MERGE;
    take(s, (const char *const[]){"key", "on", "with", "two", NULL});
    if (s->nds != 2)
        return tg_err_set(s->err, "merging needs two data files (give --data twice); got %zu",
                          s->nds);
    /* the key: the named column, else the one column name both files share */
    tg_strv shared = {0};
    for (size_t i = 0; i < s->ds[0].ncols; i++)
        for (size_t j = 0; j < s->ds[1].ncols; j++)
            if (strcmp(s->ds[0].cols[i].name, s->ds[1].cols[j].name) == 0 &&
                (p->nvalues == 0 || (p->nvalues == 1 && p->values[0] == (int)i))) {
                p->key = (int)i;
                p->key2 = (int)j;
                tg_strv_push(&shared, s->ds[0].cols[i].name);
            }
    size_t n = shared.n;
    tg_strv_free(&shared);
    p->nvalues = 0;
    if (n != 1)
        return tg_err_set(s->err, "merging: %s; say the key, e.g. \"merge the files on <column>\"",
                          n ? "the files share several columns" : "no key column shared by both files");
    return no_groups(s, "merging");
}

static int op_histogram(bp_state *s)
{
    bt_plan *p = s->p;
    p->op = BT_OP_HISTOGRAM;
    take(s, (const char *const[]){"distribution", "frequency", "frequencies", NULL});
    double bins = take_number(s, 10);
    if (bins < 1 || bins > 200)
        return tg_err_set(s->err, "a histogram has 1 to 200 bins, not %g", bins);
    p->bins = (long)bins;
    if (no_groups(s, "a histogram") != 0 || need_values(s, 1, 1, "a histogram") != 0)
        return -1;
    return need_numeric(s, "a histogram");
}

/* SCATTER: values become x, y ("tip vs total_bill": y first). SERIES: y over x (the date). */
static int op_xy(bp_state *s, bt_op op)
{
    bt_plan *p = s->p;
    p->op = op;
    /* "tip vs total_bill", "spending over the years": the y column first */
    bool versus = take(s, (const char *const[]){"vs", "versus", "against", "over", NULL});
    take(s, (const char *const[]){"time", NULL});
    if (no_groups(s, op == BT_OP_SCATTER ? "a scatter plot" : "a line chart") != 0)
        return -1;
    if (op == BT_OP_SERIES && p->nvalues == 1) {
        if (p->date_col < 0)
            p->date_col = bp_date_column(s);
        if (p->date_col < 0)
            return tg_err_set(s->err, "a line chart needs an x column: name it (\"tip against "
                                      "total_bill\") or use a file with a date column");
        p->values[1] = p->values[0];
        p->values[0] = p->date_col;
        p->nvalues = 2;
        return 0;
    }
    if (need_values(s, 2, 2, op == BT_OP_SCATTER ? "a scatter plot" : "a line chart") != 0)
        return -1;
    if (versus) {
        int y = p->values[0];
        p->values[0] = p->values[1];
        p->values[1] = y;
    }
    if (!is_numeric(s, p->values[1]) ||
        (op == BT_OP_SCATTER && !is_numeric(s, p->values[0])))
        return need_numeric(s, op == BT_OP_SCATTER ? "a scatter plot" : "a line chart");
    return 0;
}

static const char *const chart_any[] = {"chart", "charts", "plot", "plots", "graph", "graphs",
                                        "draw", "visualize", "visualise", "visualization", NULL};

static bt_chart take_chart(bp_state *s, bool *asked)
{
    static const struct { const char *w; bt_chart c; } kinds[] = {
        {"bar", BT_BAR},         {"bars", BT_BAR},           {"line", BT_LINE},
        {"scatter", BT_SCATTER}, {"scatterplot", BT_SCATTER}, {"histogram", BT_HISTOGRAM},
        {"histograms", BT_HISTOGRAM}, {"hist", BT_HISTOGRAM}, {"heatmap", BT_HEATMAP},
        {"heat", BT_HEATMAP},    {"pie", BT_PIE},
    };
    bt_chart c = BT_CHART_NONE;
    for (size_t i = 0; i < s->t->n; i++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            if (!s->t->v[i].used && bp_is(&s->t->v[i], kinds[k].w)) {
                c = kinds[k].c;
                s->t->v[i].used = true;
            }
    if (c == BT_HEATMAP)
        take(s, (const char *const[]){"map", NULL});
    *asked = take(s, chart_any) || c != BT_CHART_NONE;
    return c;
}

/* The chart the operation draws: the one asked for, or its natural one; -1 when it cannot. */
static int settle_chart(bp_state *s, bool asked)
{
    bt_plan *p = s->p;
    if (!asked)
        return 0;
    bt_op op = p->op;
    bool one_series = op == BT_OP_AGGREGATE && p->ngroups == 1 && p->naggs == 1 && p->nvalues <= 1;
    bt_chart natural = one_series || op == BT_OP_VALUE_COUNTS ? BT_BAR
                       : op == BT_OP_RESAMPLE || op == BT_OP_MOVING_AVERAGE || op == BT_OP_SERIES ? BT_LINE
                       : op == BT_OP_PIVOT || (op == BT_OP_CORRELATION && p->nvalues != 2) ? BT_HEATMAP
                       : op == BT_OP_SCATTER ? BT_SCATTER
                       : op == BT_OP_HISTOGRAM ? BT_HISTOGRAM
                                               : BT_CHART_NONE;
    bt_chart want = p->chart ? p->chart : natural;
    bool ok = want != BT_CHART_NONE &&
              (want == natural || (want == BT_PIE && (op == BT_OP_VALUE_COUNTS || one_series)) ||
               (want == BT_BAR && op == BT_OP_RESAMPLE) ||
               (want == BT_LINE && one_series));
    if (!ok)
        return tg_err_set(s->err, "a %s%schart of %s is not something the built-in generator "
                                  "draws (bar: one aggregate per group or value counts; line: "
                                  "periods, moving averages, y over x; scatter: two numeric "
                                  "columns; histogram: one numeric column; heatmap: correlation "
                                  "matrix or pivot; pie: value shares)",
                          p->chart ? bt_chart_name(p->chart) : "", p->chart ? " " : "",
                          bt_op_name(op));
    p->chart = want;
    return 0;
}

/* A word that is no column, value or grammar: the first reason to refuse. */
static int unknown_words(bp_state *s)
{
    for (size_t i = 0; i < s->t->n; i++) {
        const bt_tok *k = &s->t->v[i];
        if (k->kind == BT_WORD && k->unknown) {
            tg_buf cols = TG_BUF_INIT;
            for (size_t c = 0; c < s->ds[0].ncols && c < 20; c++)
                tg_buf_printf(&cols, "%s%s", c ? ", " : "", s->ds[0].cols[c].name);
            tg_err_set(s->err, "'%s' is neither a column of %s (%s) nor a word the built-in "
                               "generator understands", k->raw, s->ds[0].path, cols.data);
            tg_buf_free(&cols);
            return -1;
        }
    }
    return 0;
}

/* Grammar words that change nothing when the parser has no use for them ("the tip of each
 * day", "how many"); any other grammar word left unread carried a part of the request. */
static const char *const glue[] = {
    "and", "or", "then", "to", "from", "is", "are", "was", "were", "has", "have", "it", "how",
    "which", "what", "as", "of", "for", "on", "in", "with", "whose", "when", "if", "only",
    "among", "than", "row", "rows", "column", "columns", "value", "values", "report", NULL};

/* Nothing of the intent may stay unread: columns with no role, stray numbers, grammar words
 * whose clause was not understood ("by category" with no column category, "per week" with no
 * date): dropping them would answer another question. */
static int leftovers(bp_state *s)
{
    for (size_t i = 0; i < s->t->n; i++) {
        const bt_tok *k = &s->t->v[i];
        if (k->used)
            continue;
        if (k->kind == BT_WORD && bt_is_keyword(k->text) && !tg_strlist_has(glue, k->text)) {
            const bt_tok *next = i + 1 < s->t->n ? &s->t->v[i + 1] : NULL;
            return tg_err_set(s->err, "'%s%s%s' is not understood where it stands, and leaving it "
                                      "out would answer another question", k->raw,
                              next ? " " : "", next ? next->raw : "");
        }
        if (k->kind == BT_COL)
            return tg_err_set(s->err, "the role of column %s in the request is not clear", k->text);
        if (k->kind == BT_NUM)
            return tg_err_set(s->err, "the number %s: not understood where it stands", k->raw);
        if (k->kind == BT_VAL)
            return tg_err_set(s->err, "the value '%s' (of column %s): not understood where it "
                                      "stands", k->text, s->ds[k->ds].cols[k->col].name);
        if (k->kind == BT_CMP)
            return tg_err_set(s->err, "the comparison '%s' has no column and number around it",
                              k->raw);
    }
    return 0;
}

static void collect_values(bp_state *s)
{
    bt_plan *p = s->p;
    for (size_t i = 0; i < s->t->n; i++) {
        bt_tok *k = &s->t->v[i];
        if (k->used || k->kind != BT_COL || k->ds != 0)
            continue;
        k->used = true;
        bp_add_col(p->values, &p->nvalues, k->col);
    }
    /* a column of the second file names the merge key */
    for (size_t i = 0; i < s->t->n; i++) {
        bt_tok *k = &s->t->v[i];
        if (!k->used && k->kind == BT_COL && k->ds == 1)
            for (size_t c = 0; c < s->ds[0].ncols; c++)
                if (strcmp(s->ds[0].cols[c].name, k->text) == 0 && p->nvalues < BT_LIMIT) {
                    p->values[p->nvalues++] = (int)c;
                    k->used = true;
                }
    }
}


/* "survival rate", "percentage who survived", "share of passengers alone": a rate of the one
 * yes/no column the request computes on. */
static bool rate_of_flag(bp_state *s)
{
    bt_plan *p = s->p;
    const char *yes;
    double one;
    bool word = false;
    for (size_t i = 0; i < s->t->n; i++)
        word = word || (!s->t->v[i].used && bp_in(&s->t->v[i], bp_rate_words));
    return word && p->nvalues == 1 && !s->count_word && p->chart != BT_PIE && /* pie: shares of values */
           (p->naggs == 0 || (p->naggs == 1 && p->aggs[0] == BT_MEAN)) &&
           bp_flag(&s->ds[0].cols[p->values[0]], &yes, &one);
}

static int op_rate(bp_state *s)
{
    bool percent = false;
    for (size_t i = 0; i < s->t->n; i++)
        percent = percent || (!s->t->v[i].used &&
                              bp_in(&s->t->v[i], (const char *const[]){"percentage", "percentages",
                                                                        "percent", NULL}));
    take(s, bp_rate_words);
    s->p->naggs = 0;
    bp_add_agg(s->p, percent ? BT_PERCENT : BT_RATE);
    return op_aggregate(s);
}

/* Filters, and nothing to compute, group, rank or draw. */
static bool only_filters(const bp_state *s)
{
    const bt_plan *p = s->p;
    return p->nfilters && !p->naggs && !p->nvalues && !p->ngroups && !p->chart && !p->period &&
           !p->sort && !p->top_k && p->ratio < 0 && !s->count_word && !s->distinct_word &&
           !s->superlative && !s->top_word && s->sort_col < 0;
}

/*
 * "list the penguins heavier than 6000 g", "show passengers older than 70", "which rides had
 * more than 4 passengers": the rows themselves — filters and a word asking to see rows. Without
 * such a word ("rides with more than 4 passengers") the request may as well want their number:
 * asked (rows_or_count).
 */
static bool listing(const bp_state *s)
{
    static const char *const see[] = {"list", "listing", "show", "display", "find", "which",
                                      NULL};
    return only_filters(s) && bp_has(s, see);
}

/* "rides with more than 4 passengers": the rows that meet the filters, named by their noun and
 * nothing said of them — the rows themselves or how many there are, asked. */
static int rows_or_count(bp_state *s)
{
    static const char *const options[] = {"rows", "count"};
    const char *a = bt_question(s->x, "result", options, 2, "Should the tool return the rows "
                                "that meet the filters (rows), or how many there are (count)?");
    if (!a)
        return tg_err_set(s->err, "result: answer rows (return them) or count (how many)");
    if (strcmp(a, "count") == 0) {
        bp_add_agg(s->p, BT_SIZE);
        return op_aggregate(s);
    }
    return s->p->op = BT_OP_ROWS, 0;
}

static int choose(bp_state *s)
{
    bt_plan *p = s->p;
    if (p->ratio >= 0) { /* a derived quantity is aggregated, and nothing else */
        take(s, bp_rate_words);
        if (op_aggregate(s) != 0)
            return -1;
        return p->nvalues == 1 && p->chart == BT_CHART_NONE
                   ? 0 : tg_err_set(s->err, "a ratio is aggregated on its own by the built-in "
                                            "generator (no other column, no chart)");
    }
    if (take(s, (const char *const[]){"merge", "merged", "join", "joined", "combine", "combined", NULL}))
        return op_merge(s);
    if (take(s, (const char *const[]){"outlier", "outliers", "anomaly", "anomalies", "unusual", "extreme", NULL}))
        return op_outliers(s);
    if (take(s, (const char *const[]){"missing", "null", "nan", "na", "empty", "blank", NULL}))
        return op_missing(s);
    if (take(s, (const char *const[]){"correlation", "correlations", "correlate", "correlated",
                                      "corr", "relationship", "related", NULL}) ||
        (p->chart == BT_HEATMAP && p->ngroups == 0))
        return op_correlation(s);
    if (take(s, (const char *const[]){"summary", "summarize", "summarise", "describe",
                                      "statistics", "stats", "overview", "descriptive", NULL}))
        return p->op = BT_OP_SUMMARY, 0; /* per group too: "describe body mass by species" */
    if (take(s, (const char *const[]){"moving", "rolling", NULL}))
        return op_moving(s);
    if (take(s, (const char *const[]){"pivot", NULL}))
        return op_pivot(s);
    if (p->chart == BT_HISTOGRAM)
        return op_histogram(s);
    if (p->chart == BT_SCATTER)
        return op_xy(s, BT_OP_SCATTER);
    if (rate_of_flag(s))
        return op_rate(s);
    if (take(s, (const char *const[]){"share", "shares", "percentage", "percentages", "percent",
                                      "proportion", "proportions", "fraction", "distribution",
                                      "frequency", "frequencies", "breakdown", "often", NULL}))
        return op_value_counts(s);
    if (p->period)
        return op_period(s);
    if (p->chart == BT_LINE && !p->naggs && !s->count_word && !p->ngroups)
        return op_xy(s, BT_OP_SERIES);
    if (p->chart == BT_PIE && !p->naggs && !s->count_word && p->nvalues + p->ngroups == 1)
        return op_value_counts(s);
    if ((s->top_word || s->sort_col >= 0) && !p->naggs && !s->count_word && !p->ngroups)
        return op_top_rows(s);
    if (listing(s))
        return p->op = BT_OP_ROWS, 0;
    if (only_filters(s) && counts_rows(s))
        return rows_or_count(s);
    return op_aggregate(s);
}

/* Is a numeric column of the first file named and not used yet? */
static bool unused_numeric(const bp_state *s)
{
    for (size_t i = 0; i < s->t->n; i++) {
        const bt_tok *k = &s->t->v[i];
        if (k->kind == BT_COL && !k->used && k->ds == 0 &&
            (s->ds[0].cols[k->col].type == TG_COL_INT || s->ds[0].cols[k->col].type == TG_COL_FLOAT))
            return true;
    }
    return false;
}

/* "heaviest species on average", "busiest pickup zone", "countries ranked by life
 * expectancy": with a ranking and an aggregate, the one text column without a role is what is
 * ranked. */
static void ranked_leftover(bp_state *s)
{
    bt_plan *p = s->p;
    bool ranks = s->superlative || s->top_word || p->sort;
    /* "heaviest species": a superlative of a measure ranks too; how the measure is computed
     * per species is asked (settle_aggs) */
    bool measured = s->superlative && unused_numeric(s);
    if (!ranks || p->ngroups || (!p->naggs && !s->count_word && !measured))
        return;
    bt_tok *found = NULL;
    for (size_t i = 0; i < s->t->n; i++) {
        bt_tok *k = &s->t->v[i];
        if (k->kind != BT_COL || k->used || k->ds != 0 ||
            s->ds[0].cols[k->col].type != TG_COL_STRING)
            continue;
        if (found)
            return; /* two: which one is not clear */
        found = k;
    }
    if (found) {
        found->used = s->ranked_key = true;
        bp_add_col(p->groups, &p->ngroups, found->col);
    }
}

/* Another column of few levels whose values and the group's together make up the rows: each
 * pair once (a month of each year), so that every group holds the same number of rows. -1:
 * none. */
static int panel_partner(const bp_state *s, int group)
{
    const tg_dataset *ds = &s->ds[0];
    const tg_dataset_column *g = &ds->cols[group];
    if (g->distinct < 2 || g->distinct > TG_DATASET_MAX_LEVELS || g->missing)
        return -1;
    for (size_t c = 0; c < ds->ncols; c++) {
        const tg_dataset_column *k = &ds->cols[c];
        if ((int)c != group && k->type != TG_COL_FLOAT && k->distinct > 1 &&
            k->distinct <= TG_DATASET_MAX_LEVELS && !k->missing &&
            k->distinct * g->distinct == ds->rows)
            return (int)c;
    }
    return -1;
}

/*
 * "the busiest month" read as the most rows, on a table whose rows are a month of each year:
 * every month has as many rows, so the count ranks nothing — the question is about a measure.
 * The one whole-number column named in the plural (passengers) is totalled; with another
 * measure or none, which one is asked. Tables of events (a row per ride) keep the count.
 */
static int busiest_of_totals(bp_state *s)
{
    bt_plan *p = s->p;
    if (s->x->rows_superlative && p->op == BT_OP_AGGREGATE && p->nvalues >= 1 &&
        p->ngroups == 1) { /* "tip amount on the busiest day": a measure of the top group */
        const char *g = s->ds[0].cols[p->groups[0]].name, *v = s->ds[0].cols[p->values[0]].name;
        return tg_err_set(s->err, "'busiest' ranks the %s by their number of rows; %s on the "
                                  "busiest one is not supported by the built-in generator (it "
                                  "would rank by %s instead, or report the count): ask for the "
                                  "busiest %s, or for %s per %s", g, v, v, g, v, g);
    }
    if (!s->x->rows_superlative || p->op != BT_OP_AGGREGATE || p->naggs != 1 ||
        p->aggs[0] != BT_SIZE || p->ngroups != 1 || p->nvalues || !p->sort)
        return 0;
    int partner = panel_partner(s, p->groups[0]);
    if (partner < 0)
        return 0;
    const tg_dataset *ds = &s->ds[0];
    const char *options[BT_LIMIT];
    size_t n = 0;
    int counted = -1, ncounted = 0;
    for (size_t c = 0; c < ds->ncols && n < BT_LIMIT; c++) {
        const tg_dataset_column *col = &ds->cols[c];
        if ((int)c == p->groups[0] || (int)c == partner ||
            (col->type != TG_COL_INT && col->type != TG_COL_FLOAT))
            continue;
        options[n++] = col->name;
        if (plural_count_column(col) && col->min >= 0)
            counted = (int)c, ncounted++;
    }
    if (n == 0)
        return tg_err_set(s->err, "each %s has as many rows as there are values of %s, so the "
                                  "count of rows ranks nothing; say what to rank by",
                          ds->cols[p->groups[0]].name, ds->cols[partner].name);
    int col = ncounted == 1 && n == 1 ? counted : -1;
    if (col < 0) {
        const char *pick = bt_question(s->x, "busiest", options, n, "Each %s has as many rows "
                                       "(one per %s): by the total of which column?",
                                       ds->cols[p->groups[0]].name, ds->cols[partner].name);
        for (size_t c = 0; pick && c < ds->ncols && col < 0; c++)
            if (strcmp(pick, ds->cols[c].name) == 0)
                col = (int)c;
        if (col < 0)
            return tg_err_set(s->err, "'busiest' was answered with no column of %s", ds->path);
    }
    p->aggs[0] = BT_SUM;
    p->values[p->nvalues++] = col;
    return 0;
}

int bp_operation(bp_state *s)
{
    bool asked = false;
    if (unknown_words(s) != 0)
        return -1;
    ranked_leftover(s);
    s->p->chart = take_chart(s, &asked);
    collect_values(s);
    if (choose(s) != 0 || settle_chart(s, asked) != 0 || busiest_of_totals(s) != 0)
        return -1;
    return leftovers(s);
}
