/*
 * builtin_title.c — the generated tool's title, written as Python that builds it from the
 * arguments of the call (docs/generate.md#what-a-generated-tool-looks-like): a tool made for
 * "average tip by day" and called with value_columns [total_bill] says "Mean of total_bill
 * per day", never the title of the request it was made for. What the arguments cannot change
 * (the aggregate, the filters, the ranking, the chart) is fixed text from the plan.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gen/builtin_code_int.h"

static const char *agg_word(bt_agg a)
{
    static const char *const words[] = {"sum", "mean", "median", "minimum", "maximum",
                                        "standard deviation", "count", "number of distinct values",
                                        "number of rows", "share of yes", "percentage of yes"};
    return a <= BT_PERCENT ? words[a] : "number of rows";
}

/* "Mean and maximum" (capitalised); the rows when only rows are counted. */
static void aggregates(tg_buf *b, const bt_plan *p)
{
    for (size_t a = 0; a < p->naggs; a++) {
        const char *w = agg_word(p->aggs[a]);
        tg_buf_printf(b, "%s%c%s", a ? (a + 1 == p->naggs ? " and " : ", ") : "",
                      a ? w[0] : (char)toupper((unsigned char)w[0]), w + 1);
    }
}

/* The part of the title the arguments change, as the text of a Python f-string. */
static void head(tg_buf *b, const bt_plan *p)
{
    static const char *const periods = "DWMQY";
    static const char *const period_words[] = {"day", "week", "month", "quarter", "year"};
    bool rows = bc_counting_only(p);
    switch (p->op) {
    case BT_OP_AGGREGATE:
        aggregates(b, p);
        tg_buf_puts(b, rows ? "" : " of {names(value_columns)}");
        if (p->ngroups)
            tg_buf_puts(b, " per {names(group_by)}");
        break;
    case BT_OP_RESAMPLE:
        aggregates(b, p);
        tg_buf_printf(b, "%s per %s of {date_column}", rows ? "" : " of {value_column}",
                      period_words[strchr(periods, p->period) - periods]);
        break;
    case BT_OP_PIVOT:
        aggregates(b, p);
        tg_buf_printf(b, "%s with rows per {index_column} and columns per {columns_column}",
                      rows ? "" : " of {value_column}");
        break;
    case BT_OP_TOP_ROWS:
        tg_buf_printf(b, "The {'row' if top_k == 1 else str(top_k) + ' rows'} with the %s "
                         "{sort_column}",
                      p->sort > 0 ? "largest" : "smallest");
        break;
    case BT_OP_VALUE_COUNTS: tg_buf_puts(b, "Count and share of each value of {column}"); break;
    case BT_OP_SUMMARY:
        tg_buf_puts(b, p->ngroups ? "Summary statistics of {names(columns)} per {names(group_by)}"
                                  : "Summary statistics of {names(columns)}");
        break;
    case BT_OP_CORRELATION:
        tg_buf_printf(b, "%s correlation {'between' if len(columns) == 2 else 'matrix of'} "
                         "{names(columns)}", p->spearman ? "Spearman" : "Pearson");
        break;
    case BT_OP_MOVING_AVERAGE: tg_buf_puts(b, "Moving average of {value_column} over {window} rows"); break;
    case BT_OP_MERGE: tg_buf_puts(b, "Merge of two files on {key_column}"); break;
    case BT_OP_MISSING:
        tg_buf_puts(b, p->nvalues ? "Missing values of {names(columns)}" : "Missing values per column");
        break;
    case BT_OP_OUTLIERS:
        tg_buf_printf(b, "Outliers of {column} by %s", p->zscore ? "z-score" : "the IQR rule");
        break;
    case BT_OP_SERIES: tg_buf_puts(b, "{y_column} over {x_column}"); break;
    case BT_OP_SCATTER: tg_buf_puts(b, "{y_column} against {x_column}"); break;
    case BT_OP_HISTOGRAM: tg_buf_puts(b, "Distribution of {column} in {bins} bins"); break;
    case BT_OP_ROWS: tg_buf_puts(b, "Rows of {file_path}"); break;
    }
}

/* What the arguments do not change: ", where ..., the 3 largest, as a bar chart". */
static void suffix(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    for (size_t i = 0; i < p->nfilters; i++) {
        char *f = bt_filter_text(&p->filters[i], ds);
        tg_buf_printf(b, "%s%s", i ? " and " : ", where ", f);
        free(f);
    }
    bool ranked_by_arg = p->top_k && p->op == BT_OP_AGGREGATE;
    if (p->top_k && p->op != BT_OP_TOP_ROWS && !ranked_by_arg)
        tg_buf_printf(b, ", the %ld %s", p->top_k, p->sort > 0 ? "largest" : "smallest");
    else if (p->sort && !p->top_k && p->op == BT_OP_AGGREGATE)
        tg_buf_puts(b, p->sort > 0 ? ", largest first" : ", smallest first");
    if (p->chart)
        tg_buf_printf(b, ", as a %s chart", bt_chart_name(p->chart));
}

void bc_title(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    tg_buf h = TG_BUF_INIT, s = TG_BUF_INIT;
    head(&h, p);
    tg_buf_printf(b, "    title = f\"%s\"", h.data);
    if (p->top_k && p->op == BT_OP_AGGREGATE)
        tg_buf_printf(b, " + f\", the {top_k} %s\"", p->sort > 0 ? "largest" : "smallest");
    suffix(&s, p, ds);
    if (s.len) {
        tg_buf_puts(b, " + ");
        bt_py_str(b, s.data); /* filter values come from the file: a Python literal */
    }
    tg_buf_putc(b, '\n');
    tg_buf_free(&h);
    tg_buf_free(&s);
}
