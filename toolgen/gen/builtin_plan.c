/*
 * builtin_plan.c — the plan: parsing it (the steps of builtin_parse.c, builtin_clause.c and
 * builtin_ops.c in order) and saying it back as a canonical line, an English sentence and a
 * tool name. These see only the plan, so every phrasing of a request reads back the same.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/builtin_parse_int.h"

const char *bt_agg_name(bt_agg a)
{
    static const char *const names[] = {"sum", "mean", "median", "min", "max", "std", "count",
                                        "nunique", "size", "rate", "percent"};
    return a <= BT_PERCENT ? names[a] : "size";
}

bool bt_agg_numeric(bt_agg a)
{
    return a <= BT_STD;
}

static const char *agg_words(bt_agg a)
{
    static const char *const words[] = {"Sum", "Mean", "Median", "Minimum", "Maximum",
                                        "Standard deviation", "Count", "Number of distinct values",
                                        "Number of rows", "Share of yes", "Percentage of yes"};
    return a <= BT_PERCENT ? words[a] : "Number of rows";
}

const char *bt_chart_name(bt_chart c)
{
    static const char *const names[] = {"none", "bar", "line", "scatter", "histogram", "heatmap", "pie"};
    return c <= BT_PIE ? names[c] : "none";
}

const char *bt_op_name(bt_op op)
{
    static const char *const names[] = {
        "aggregate", "top_rows", "value_counts", "summary", "correlation", "moving_average",
        "resample", "merge", "pivot", "missing_report", "outliers", "series", "scatter",
        "histogram", "rows"};
    return op <= BT_OP_ROWS ? names[op] : "aggregate";
}

char *bt_safe_text(const char *s)
{
    char *out = xstrdup(s);
    for (char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
        else if (*c == '\\')
            *c = '/';
        else if (*c == '"')
            *c = '\'';
    return out;
}

int bt_parse(bt_toks *t, bt_ctx *x, bt_plan *plan, tg_err *err)
{
    const tg_dataset *ds = x->ds;
    *plan = (bt_plan){.date_col = -1, .key = -1, .key2 = -1, .ratio = -1};
    bp_state s = {.t = t, .x = x, .ds = ds, .nds = x->nds, .p = plan, .err = err, .sort_col = -1};
    if (bp_filters(&s) != 0 || bp_ratio(&s) != 0 || bp_groups(&s) != 0)
        return -1;
    bp_aggregates(&s);
    if (bp_operation(&s) != 0)
        return -1;
    if ((plan->op == BT_OP_SUMMARY || plan->op == BT_OP_CORRELATION) && plan->nvalues == 0) {
        for (size_t i = 0; i < ds[0].ncols && plan->nvalues < BT_LIMIT; i++)
            if (ds[0].cols[i].type == TG_COL_INT || ds[0].cols[i].type == TG_COL_FLOAT)
                plan->values[plan->nvalues++] = (int)i;
        if (plan->nvalues < (plan->op == BT_OP_CORRELATION ? 2u : 1u))
            return tg_err_set(err, "%s has too few numeric columns for %s", ds[0].path,
                              bt_op_name(plan->op));
    }
    return 0;
}

static void filters_text(tg_buf *b, const bt_plan *p, const tg_dataset *ds, bool english)
{
    for (size_t i = 0; i < p->nfilters; i++) {
        char *f = bt_filter_text(&p->filters[i], ds);
        tg_buf_printf(b, "%s%s", i ? " and " : (english ? ", where " : " where "), f);
        free(f);
    }
}

static void columns_text(tg_buf *b, const int *cols, size_t n, const tg_dataset *ds, const char *sep)
{
    for (size_t i = 0; i < n; i++)
        tg_buf_printf(b, "%s%s", i ? sep : "", ds->cols[cols[i]].name);
}

/* The columns aggregated: the plan's values, or its per-row ratio ("tip / fare * 100"). */
static void measured_text(tg_buf *b, const bt_plan *p, const tg_dataset *ds, const char *sep)
{
    if (p->ratio >= 0)
        tg_buf_printf(b, "%s / %s%s", ds->cols[p->values[0]].name, ds->cols[p->ratio].name,
                      p->percent ? " * 100" : "");
    else
        columns_text(b, p->values, p->nvalues, ds, sep);
}

char *bt_plan_text(const bt_plan *p, const tg_dataset *ds)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, bt_op_name(p->op));
    for (size_t a = 0; a < p->naggs; a++) {
        tg_buf_printf(&b, "%s%s(", a ? ", " : " ", bt_agg_name(p->aggs[a]));
        if (p->aggs[a] != BT_SIZE)
            measured_text(&b, p, ds, ", ");
        tg_buf_puts(&b, ")");
    }
    if (!p->naggs && p->nvalues) {
        tg_buf_puts(&b, " ");
        columns_text(&b, p->values, p->nvalues, ds, ", ");
    }
    if (p->ngroups) {
        tg_buf_puts(&b, p->op == BT_OP_PIVOT ? " rows " : " by ");
        columns_text(&b, p->groups, p->op == BT_OP_PIVOT ? 1 : p->ngroups, ds, ", ");
        if (p->op == BT_OP_PIVOT)
            tg_buf_printf(&b, " columns %s", ds->cols[p->groups[1]].name);
    }
    if (p->period)
        tg_buf_printf(&b, " per period %c of %s", p->period, ds->cols[p->date_col].name);
    if (p->op == BT_OP_MOVING_AVERAGE)
        tg_buf_printf(&b, " window %ld%s%s", p->window, p->date_col >= 0 ? " ordered by " : "",
                      p->date_col >= 0 ? ds->cols[p->date_col].name : "");
    if (p->op == BT_OP_CORRELATION)
        tg_buf_puts(&b, p->spearman ? " spearman" : " pearson");
    if (p->op == BT_OP_OUTLIERS)
        tg_buf_printf(&b, p->zscore ? " z-score > %g" : " iqr x %g", p->threshold);
    if (p->op == BT_OP_HISTOGRAM)
        tg_buf_printf(&b, " bins %ld", p->bins);
    if (p->op == BT_OP_MERGE)
        tg_buf_printf(&b, " on %s", ds->cols[p->key].name);
    filters_text(&b, p, ds, false);
    if (p->sort && p->op != BT_OP_VALUE_COUNTS)
        tg_buf_puts(&b, p->sort > 0 ? " | sort desc" : " | sort asc");
    if (p->top_k)
        tg_buf_printf(&b, " | top %ld", p->top_k);
    if (p->chart)
        tg_buf_printf(&b, " | %s chart", bt_chart_name(p->chart));
    return tg_buf_steal(&b);
}

static void aggregate_sentence(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    for (size_t a = 0; a < p->naggs; a++) {
        const char *w = agg_words(p->aggs[a]);
        tg_buf_printf(b, "%s%c%s", a ? (a + 1 == p->naggs ? " and " : ", ") : "",
                      a ? (char)tolower((unsigned char)w[0]) : w[0], w + 1);
        if (p->aggs[a] != BT_SIZE) {
            tg_buf_puts(b, p->aggs[a] == BT_NUNIQUE ? " of " : " of ");
            measured_text(b, p, ds, " and ");
        }
    }
    if (p->ngroups) {
        tg_buf_puts(b, p->op == BT_OP_PIVOT ? " with rows per " : " per ");
        columns_text(b, p->groups, p->op == BT_OP_PIVOT ? 1 : p->ngroups, ds, " and ");
        if (p->op == BT_OP_PIVOT)
            tg_buf_printf(b, " and columns per %s", ds->cols[p->groups[1]].name);
    }
}

char *bt_plan_sentence(const bt_plan *p, const tg_dataset *ds)
{
    static const char *const periods = "DWMQY";
    static const char *const period_words[] = {"day", "week", "month", "quarter", "year"};
    tg_buf b = TG_BUF_INIT;
    const char *v0 = p->nvalues ? ds->cols[p->values[0]].name : "";
    const char *v1 = p->nvalues > 1 ? ds->cols[p->values[1]].name : "";
    switch (p->op) {
    case BT_OP_AGGREGATE: case BT_OP_PIVOT: aggregate_sentence(&b, p, ds); break;
    case BT_OP_RESAMPLE:
        aggregate_sentence(&b, p, ds);
        tg_buf_printf(&b, " per %s of %s", period_words[strchr(periods, p->period) - periods],
                      ds->cols[p->date_col].name);
        break;
    case BT_OP_TOP_ROWS:
        if (p->top_k == 1)
            tg_buf_puts(&b, "The row");
        else
            tg_buf_printf(&b, "The %ld rows", p->top_k);
        tg_buf_printf(&b, " with the %s %s", p->sort > 0 ? "largest" : "smallest", v0);
        break;
    case BT_OP_VALUE_COUNTS: tg_buf_printf(&b, "Count and share of each value of %s", v0); break;
    case BT_OP_SUMMARY:
        tg_buf_puts(&b, "Summary statistics of ");
        columns_text(&b, p->values, p->nvalues, ds, ", ");
        if (p->ngroups) {
            tg_buf_puts(&b, " per ");
            columns_text(&b, p->groups, p->ngroups, ds, " and ");
        }
        break;
    case BT_OP_CORRELATION:
        tg_buf_printf(&b, "%s correlation ", p->spearman ? "Spearman" : "Pearson");
        tg_buf_puts(&b, p->nvalues == 2 ? "between " : "matrix of ");
        columns_text(&b, p->values, p->nvalues, ds, p->nvalues == 2 ? " and " : ", ");
        break;
    case BT_OP_MOVING_AVERAGE: tg_buf_printf(&b, "Moving average of %s over %ld rows", v0, p->window); break;
    case BT_OP_MERGE: tg_buf_printf(&b, "Merge of two files on %s", ds->cols[p->key].name); break;
    case BT_OP_MISSING: tg_buf_puts(&b, "Missing values per column"); break;
    case BT_OP_OUTLIERS:
        tg_buf_printf(&b, "Outliers of %s by %s", v0, p->zscore ? "z-score" : "the IQR rule");
        break;
    case BT_OP_SERIES: tg_buf_printf(&b, "%s over %s", v1, v0); break;
    case BT_OP_SCATTER: tg_buf_printf(&b, "%s against %s", v1, v0); break;
    case BT_OP_HISTOGRAM: tg_buf_printf(&b, "Distribution of %s in %ld bins", v0, p->bins); break;
    case BT_OP_ROWS: tg_buf_puts(&b, "The rows"); break;
    }
    filters_text(&b, p, ds, true);
    if (p->top_k && p->op != BT_OP_TOP_ROWS)
        tg_buf_printf(&b, ", the %ld %s", p->top_k, p->sort > 0 ? "largest" : "smallest");
    else if (p->sort && p->op == BT_OP_AGGREGATE)
        tg_buf_puts(&b, p->sort > 0 ? ", largest first" : ", smallest first");
    if (p->chart)
        tg_buf_printf(&b, ", as a %s chart", bt_chart_name(p->chart));
    if (b.len && islower((unsigned char)b.data[0]))
        b.data[0] = (char)toupper((unsigned char)b.data[0]);
    return tg_buf_steal(&b);
}

/* Appends s to b as snake_case words. */
static void snake(tg_buf *b, const char *s)
{
    for (; *s; s++) {
        char c = (char)tolower((unsigned char)*s);
        if (!isalnum((unsigned char)c))
            c = '_';
        if (c == '_' && (b->len == 0 || b->data[b->len - 1] == '_'))
            continue;
        tg_buf_putc(b, c);
    }
    if (b->len && b->data[b->len - 1] != '_')
        tg_buf_putc(b, '_');
}

char *bt_plan_name(const bt_plan *p, const tg_dataset *ds)
{
    tg_buf b = TG_BUF_INIT;
    if (p->op == BT_OP_AGGREGATE || p->op == BT_OP_RESAMPLE || p->op == BT_OP_PIVOT) {
        if (p->op != BT_OP_AGGREGATE)
            snake(&b, p->op == BT_OP_PIVOT ? "pivot" : "per_period");
        for (size_t a = 0; a < p->naggs; a++)
            snake(&b, p->aggs[a] == BT_SIZE ? "count_rows" : bt_agg_name(p->aggs[a]));
    } else {
        snake(&b, bt_op_name(p->op));
    }
    for (size_t i = 0; i < p->nvalues && i < 3; i++)
        snake(&b, ds->cols[p->values[i]].name);
    if (p->ratio >= 0) {
        snake(&b, p->percent ? "pct_of" : "per");
        snake(&b, ds->cols[p->ratio].name);
    }
    if (p->ngroups)
        snake(&b, "by");
    for (size_t i = 0; i < p->ngroups && i < 3; i++)
        snake(&b, ds->cols[p->groups[i]].name);
    if (p->nfilters) {
        snake(&b, "where");
        snake(&b, ds->cols[p->filters[0].col].name);
    }
    if (p->top_k) {
        char k[32];
        snprintf(k, sizeof k, "top_%ld", p->top_k);
        snake(&b, k);
    }
    if (p->chart)
        snake(&b, bt_chart_name(p->chart));
    snake(&b, p->chart ? "chart" : "");
    size_t len = b.len;
    if (len > 60) { /* cut at a word */
        len = 60;
        while (len > 1 && b.data[len - 1] != '_')
            len--;
    }
    while (len && b.data[len - 1] == '_')
        len--;
    tg_buf_truncate(&b, len);
    if (!b.len || !isalpha((unsigned char)b.data[0])) {
        char *rest = tg_buf_steal(&b);
        tg_buf_printf(&b, "tool_%s", rest);
        free(rest);
    }
    return tg_buf_steal(&b);
}
