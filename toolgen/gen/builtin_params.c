/*
 * builtin_params.c — the inputs of a generated tool: the file, the columns of the plan by role
 * (defaulting to the ones the intent named, so the tool answers the request when called with no
 * arguments, and works on another file with the same meaning), its numbers, and `limit`, how
 * many result rows to return (docs/generate.md#what-a-generated-tool-looks-like). Nothing that
 * changes what is computed without being part of the request: a caller cannot shrink or
 * inflate the data the answer is computed from.
 * The manifest (builtin_spec.c) and the code (builtin_code.c) are written from this one list.
 */
#include <string.h>

#include "gen/builtin_int.h"

static bt_param *add(bt_param *out, size_t *n, const char *name, bt_ptype type, const char *doc)
{
    bt_param *p = &out[(*n)++];
    *p = (bt_param){.name = name, .type = type, .doc = doc};
    return p;
}

static void column(bt_param *out, size_t *n, const char *name, int col, const char *doc)
{
    bt_param *p = add(out, n, name, BT_P_COLUMN, doc);
    p->cols[0] = col;
    p->ncols = 1;
}

static void columns(bt_param *out, size_t *n, const char *name, const int *cols, size_t ncols,
                    const char *doc)
{
    bt_param *p = add(out, n, name, BT_P_COLUMNS, doc);
    memcpy(p->cols, cols, ncols * sizeof *cols);
    p->ncols = ncols;
}

static void integer(bt_param *out, size_t *n, const char *name, long def, long min, long max,
                    const char *doc)
{
    bt_param *p = add(out, n, name, BT_P_INT, doc);
    p->has_default = true;
    p->num = def;
    p->min = min;
    p->max = max;
}

static bool counts_rows(const bt_plan *p)
{
    return p->naggs == 1 && p->aggs[0] == BT_SIZE;
}

/* The parameters of the operation itself. */
static void op_params(const bt_plan *p, bt_param *out, size_t *n)
{
    switch (p->op) {
    case BT_OP_AGGREGATE:
        if (p->ratio >= 0) {
            column(out, n, "numerator", p->values[0], "Numeric column divided, row by row.");
            column(out, n, "denominator", p->ratio, "Numeric column it is divided by (rows where "
                                                   "it is 0 have no ratio).");
        } else if (!counts_rows(p)) {
            columns(out, n, "value_columns", p->values, p->nvalues, "Columns to aggregate.");
        }
        if (p->ngroups)
            columns(out, n, "group_by", p->groups, p->ngroups, "Columns whose values form the groups.");
        if (p->top_k)
            integer(out, n, "top_k", p->top_k, 1, 1000, "How many groups to keep after sorting.");
        break;
    case BT_OP_TOP_ROWS:
        column(out, n, "sort_column", p->values[0], "Numeric column the rows are ranked by.");
        integer(out, n, "top_k", p->top_k, 1, 1000, "How many rows to return.");
        break;
    case BT_OP_VALUE_COUNTS:
        column(out, n, "column", p->values[0], "Column whose values are counted.");
        break;
    case BT_OP_SUMMARY: case BT_OP_CORRELATION:
        columns(out, n, "columns", p->values, p->nvalues, "Numeric columns to describe.");
        if (p->ngroups)
            columns(out, n, "group_by", p->groups, p->ngroups, "Columns whose values form the "
                                                               "groups described apart.");
        break;
    case BT_OP_MOVING_AVERAGE:
        column(out, n, "value_column", p->values[0], "Numeric column to average.");
        if (p->date_col >= 0)
            column(out, n, "order_column", p->date_col, "Date column the rows are ordered by.");
        integer(out, n, "window", p->window, 2, 1000, "Rows per window.");
        break;
    case BT_OP_RESAMPLE:
        if (!counts_rows(p))
            column(out, n, "value_column", p->values[0], "Numeric column to aggregate per period.");
        column(out, n, "date_column", p->date_col, "Date column that defines the periods.");
        break;
    case BT_OP_MERGE:
        add(out, n, "other_file_path", BT_P_FILE, "Path of the second CSV file, relative to the "
                                                   "repository root.");
        column(out, n, "key_column", p->key, "Column both files share, to join on.");
        break;
    case BT_OP_PIVOT:
        if (!counts_rows(p))
            column(out, n, "value_column", p->values[0], "Numeric column to aggregate.");
        column(out, n, "index_column", p->groups[0], "Column whose values become the rows.");
        column(out, n, "columns_column", p->groups[1], "Column whose values become the columns.");
        break;
    case BT_OP_MISSING:
        columns(out, n, "columns", p->values, p->nvalues, "Columns to report; default: every column.");
        out[*n - 1].all = p->nvalues == 0;
        break;
    case BT_OP_OUTLIERS: case BT_OP_HISTOGRAM:
        column(out, n, "column", p->values[0], "Numeric column to examine.");
        if (p->op == BT_OP_HISTOGRAM)
            integer(out, n, "bins", p->bins, 1, 200, "Number of equal-width bins.");
        break;
    case BT_OP_SERIES: case BT_OP_SCATTER:
        column(out, n, "x_column", p->values[0], "Column on the x axis.");
        column(out, n, "y_column", p->values[1], "Numeric column on the y axis.");
        break;
    case BT_OP_ROWS: /* the filters are the request, and they are code: no argument */
        break;
    }
}

size_t bt_params(const bt_plan *p, const tg_dataset *ds, size_t nds, bt_param out[BT_MAX_PARAMS])
{
    size_t n = 0;
    bt_param *f = add(out, &n, "file_path", BT_P_FILE, "Path of the CSV file, relative to the "
                                                       "repository root.");
    f->file = ds[0].path;
    op_params(p, out, &n);
    for (size_t i = 0; i < n; i++)
        if (out[i].type == BT_P_FILE && strcmp(out[i].name, "other_file_path") == 0 && nds > 1) {
            out[i].file = ds[1].path;
            out[i].ds = 1;
        }
    integer(out, &n, "limit", 1000, 1, 1000, "Most result rows to return; row_count says how "
                                            "many the result has.");
    return n;
}
