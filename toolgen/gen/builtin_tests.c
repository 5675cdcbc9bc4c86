/*
 * builtin_tests.c — the manifest's docs, its example and its tests, derived from the plan and
 * the dataset's schema (docs/generate.md#what-a-generated-tool-looks-like):
 *
 *   normal  the request on the whole file: rows_in is the file's row count
 *   edge    a column that does not exist, a text column where a number is computed, a file
 *           that does not exist, a result cut to one row (limit 1)
 *   stress  for groupings and value counts without a filter, the column with the most
 *           distinct values as the key (row_count = distinct)
 * Every test goes through the tool's public arguments: there is no knob that changes the data
 * a result is computed from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "gen/builtin_spec_int.h"

#define Q(s) tg_buf_json_string(b, (s))

static const char *what_op_does(const bt_plan *p)
{
    switch (p->op) {
    case BT_OP_AGGREGATE:
        return p->ngroups ? "groups the rows by group_by (rows with a missing key are left out) "
                            "and computes the aggregates per group, skipping missing values; "
                            "groups come sorted by key unless the plan ranks them"
                          : "computes the aggregates over all rows, skipping missing values";
    case BT_OP_TOP_ROWS: return "sorts the rows with a value in sort_column by it and keeps the first top_k";
    case BT_OP_VALUE_COUNTS: return "counts each value of column (missing values left out) and its share of the counted rows, most frequent first (ties by value)";
    case BT_OP_SUMMARY: return "computes count, mean, standard deviation, minimum, quartiles, median and maximum of each column (per group of group_by, when it has one)";
    case BT_OP_CORRELATION: return "computes the correlation coefficient of two columns, or the matrix for more, on the rows where both values are present";
    case BT_OP_MOVING_AVERAGE: return "orders the rows (by order_column when there is one) and computes the mean of value_column over a sliding window of the last window rows (null until the window is full)";
    case BT_OP_RESAMPLE: return "parses date_column as dates, labels each row with its period and computes the aggregate per period, in time order";
    case BT_OP_MERGE: return "reads other_file_path and keeps the pairs of rows whose key_column values are equal (an inner join); columns of the second file that clash get the suffix _other";
    case BT_OP_PIVOT: return "builds a pivot table: one row per value of index_column, one column per value of columns_column, the aggregate in each cell (null when no rows)";
    case BT_OP_MISSING: return "counts the missing (empty or NA) cells of each column and their share of the rows";
    case BT_OP_OUTLIERS: return p->zscore ? "returns the rows whose value of column lies more than k standard deviations from its mean (k as in the plan)"
                                          : "returns the rows whose value of column lies beyond Tukey's fences, k times the interquartile range below the first or above the third quartile";
    case BT_OP_SERIES: return "returns the pairs (x_column, y_column) with both values present, ordered by x_column";
    case BT_OP_SCATTER: return "returns the pairs (x_column, y_column) with both values present and their correlation in details";
    case BT_OP_HISTOGRAM: return "counts the values of column in bins equal-width bins between its minimum and maximum";
    case BT_OP_ROWS: return "returns the rows that meet the filters, every column, in the file's order";
    }
    return "";
}

void bs_docs(tg_buf *b, const bt_plan *p, const tg_dataset *ds, size_t nds, const char *sentence,
             const char *plan)
{
    tg_buf t = TG_BUF_INIT;
    tg_buf_puts(b, "docs:\n  when_to_use: ");
    tg_buf_printf(&t, "When the request is: %s, on %s or another CSV file with the same columns.",
                  sentence, ds[0].path);
    Q(t.data);
    tg_buf_reset(&t);
    tg_buf_puts(b, "\n  when_not_to_use: ");
    Q("For any other computation: another aggregate, grouping or filter is another tool.");
    tg_buf_printf(&t, "Reads file_path with pandas, checks that the columns exist (and are numeric "
                      "where the plan computes on them), applies the plan's filters, then %s; "
                      "rows it cannot use and values an aggregate skips are counted, with the "
                      "reason, in rows_dropped. The plan: %s.",
                  what_op_does(p), plan);
    if (p->chart)
        tg_buf_printf(&t, " Draws the result as a %s chart into chart.png, writes the plotted "
                          "table to chart_data.csv and a visualization manifest.",
                      bt_chart_name(p->chart));
    tg_buf_puts(b, "\n  what_it_does: ");
    Q(t.data);
    tg_buf_reset(&t);
    tg_buf_puts(b, "\n  returns: ");
    Q("The result table as columns and rows (at most 1000; row_count and truncated say how many "
      "there are), value (the single number when the request has one), details of the "
      "computation, rows_in and rows_used (read, and left after the filters), and "
      "summary_markdown with the first 20 rows.");
    tg_buf_puts(b, "\n  prerequisites: ");
    tg_buf_printf(&t, "The CSV file%s must exist under a data directory and have the plan's "
                      "columns; an empty file or no row left after the filters is an "
                      "INVALID_INPUT error.",
                  nds > 1 ? "s" : "");
    Q(t.data);
    tg_buf_puts(b, "\n  limitations:\n    - ");
    Q("Written by the built-in generator for one request: the filters are fixed in the code.");
    tg_buf_puts(b, "\n\n");
    tg_buf_free(&t);
}

/* Ops whose result has about as many rows as the file: the example reads 20 of them. */
static bool row_sized(const bt_plan *p)
{
    return p->op == BT_OP_TOP_ROWS || p->op == BT_OP_MOVING_AVERAGE || p->op == BT_OP_SERIES ||
           p->op == BT_OP_SCATTER || p->op == BT_OP_OUTLIERS || p->op == BT_OP_MERGE ||
           p->op == BT_OP_RESAMPLE || p->op == BT_OP_ROWS;
}

char *bs_example_input(const bt_plan *p, const tg_dataset *ds)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "{\"file_path\": ");
    tg_buf_json_string(&b, ds[0].path);
    if (row_sized(p))
        tg_buf_puts(&b, ", \"limit\": 20");
    tg_buf_puts(&b, "}");
    return tg_buf_steal(&b);
}

/* The test input {file_path: ..., extra}. */
static void test_head(tg_buf *b, const char *name, const char *category, const char *desc,
                      const char *file, const char *extra)
{
    tg_buf_printf(b, "  - name: %s\n    category: %s\n    description: ", name, category);
    Q(desc);
    tg_buf_puts(b, "\n    input: {file_path: ");
    Q(file);
    tg_buf_printf(b, "%s%s}\n    expect:\n", extra ? ", " : "", extra ? extra : "");
}

/* The column of ds with the most distinct values, not one of the plan's values; -1 if none. */
static int widest_key(const bt_plan *p, const tg_dataset *ds)
{
    int best = -1;
    for (size_t i = 0; i < ds->ncols; i++) {
        bool value = false;
        for (size_t v = 0; v < p->nvalues && p->op != BT_OP_VALUE_COUNTS; v++)
            value = value || p->values[v] == (int)i;
        if (!value && ds->cols[i].distinct >= 2 &&
            (best < 0 || ds->cols[i].distinct > ds->cols[best].distinct))
            best = (int)i;
    }
    return best;
}

static void stress_tests(tg_buf *b, const bt_plan *p, const tg_dataset *ds, const char *artifacts)
{
    bool keyed = (p->op == BT_OP_AGGREGATE && p->ngroups == 1 && !p->top_k) ||
                 (p->op == BT_OP_VALUE_COUNTS && !p->top_k);
    int key = widest_key(p, ds);
    if (!keyed || p->nfilters || key < 0)
        return;
    tg_buf x = TG_BUF_INIT;
    tg_buf_puts(&x, p->op == BT_OP_AGGREGATE ? "group_by: [" : "column: ");
    tg_buf_json_string(&x, ds->cols[key].name);
    tg_buf_puts(&x, p->op == BT_OP_AGGREGATE ? "]" : "");
    test_head(b, "high_cardinality", "stress",
              "The column with the most distinct values as the key: one result row per value.",
              ds->path, x.data);
    tg_buf_printf(b, "      output_contains: {row_count: %zu}\n%s", ds->cols[key].distinct, artifacts);
    tg_buf_free(&x);
}

/* The parameter that must name numeric columns, and a text column of ds to give it; NULL when
 * the plan has none or the file has no text column. */
static const bt_param *numeric_param(const bt_plan *p, const tg_dataset *ds, const bt_param *ps,
                                     size_t n, int *text_col)
{
    static const char *const numeric[] = {"value_columns", "value_column", "sort_column",
                                          "y_column", "columns", NULL};
    bool counting = p->naggs && p->aggs[0] >= BT_COUNT;
    if (p->op == BT_OP_MISSING || p->op == BT_OP_MERGE || p->op == BT_OP_SERIES || counting)
        return NULL;
    *text_col = -1;
    for (size_t i = 0; i < ds->ncols && *text_col < 0; i++)
        if (ds->cols[i].type == TG_COL_STRING)
            *text_col = (int)i;
    for (size_t i = 0; i < n && *text_col >= 0; i++)
        if (tg_strlist_has(numeric, ps[i].name) ||
            (strcmp(ps[i].name, "column") == 0 &&
             (p->op == BT_OP_OUTLIERS || p->op == BT_OP_HISTOGRAM)))
            return &ps[i];
    return NULL;
}

static void edge_tests(tg_buf *b, const bt_plan *p, const tg_dataset *ds, const bt_param *ps,
                       size_t n, const char *artifacts)
{
    for (size_t i = 0; i < n; i++) {
        if (ps[i].type != BT_P_COLUMN && ps[i].type != BT_P_COLUMNS)
            continue;
        char extra[128];
        snprintf(extra, sizeof extra, ps[i].type == BT_P_COLUMN ? "%s: no_such_column"
                                                                : "%s: [no_such_column]",
                 ps[i].name);
        test_head(b, "missing_column", "edge", "A column the file does not have.", ds->path, extra);
        tg_buf_puts(b, "      error: INVALID_INPUT\n      message_contains: [no_such_column, "
                       "Available columns]\n");
        break;
    }
    int text_col;
    const bt_param *np = numeric_param(p, ds, ps, n, &text_col);
    if (np) {
        tg_buf x = TG_BUF_INIT;
        tg_buf_printf(&x, "%s: %s", np->name, np->type == BT_P_COLUMNS ? "[" : "");
        tg_buf_json_string(&x, ds->cols[text_col].name);
        tg_buf_puts(&x, np->type == BT_P_COLUMNS ? "]" : "");
        test_head(b, "text_column", "edge", "A text column where a number is computed.",
                  ds->path, x.data);
        tg_buf_puts(b, "      error: INVALID_INPUT\n      message_contains: [not numeric]\n");
        tg_buf_free(&x);
    }
    const char *slash = strrchr(ds->path, '/');
    char *missing = slash ? xasprintf("%.*s/no_such_file.csv", (int)(slash - ds->path), ds->path)
                          : xstrdup("no_such_file.csv");
    test_head(b, "missing_file", "edge", "A file that does not exist.", missing, NULL);
    tg_buf_puts(b, "      error: NOT_FOUND\n");
    free(missing);
    test_head(b, "one_result_row", "edge", "The result cut to one row: row_count still tells "
              "how many there are.", ds->path, "limit: 1");
    tg_buf_printf(b, "      output_contains: {rows_in: %zu}\n%s", ds->rows, artifacts);
}

void bs_examples_tests(tg_buf *b, const bt_plan *p, const tg_dataset *ds, const bt_param *ps,
                       size_t n)
{
    char *input = bs_example_input(p, ds);
    tg_buf_puts(b, "examples:\n  - name: the_request\n    description: ");
    Q(row_sized(p) ? "The request on the whole file, the first 20 result rows returned."
                   : "The request on the whole file.");
    tg_buf_printf(b, "\n    input: %s\n" BT_EXAMPLE_PLACEHOLDER "\n", input);
    free(input);
    const char *artifacts = p->chart ? "      artifacts: [chart.png, chart_data.csv, "
                                       "visualization_manifest.json]\n" : "";
    tg_buf_puts(b, "tests:\n");
    test_head(b, "whole_file", "normal", "The request on the whole file.", ds->path, NULL);
    tg_buf_puts(b, "      output_contains: {file_path: ");
    Q(ds->path);
    tg_buf_printf(b, ", rows_in: %zu}\n%s", ds->rows, artifacts);
    edge_tests(b, p, ds, ps, n, artifacts);
    stress_tests(b, p, ds, artifacts);
    tg_buf_putc(b, '\n');
}

void bs_tail(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    const char *slash = strrchr(ds->path, '/');
    tg_buf_puts(b, "constraints:\n  read_only: true\n  network: false\n");
    if (p->chart)
        tg_buf_puts(b, "  side_effects:\n    - Writes chart.png, chart_data.csv and "
                       "visualization_manifest.json into its private working directory.\n");
    tg_buf_puts(b, "  allowed_paths: [");
    if (slash) {
        char *dir = xasprintf("%.*s/", (int)(slash - ds->path), ds->path);
        Q(dir);
        free(dir);
    } else {
        Q("data/");
    }
    tg_buf_puts(b, "]\n  limits: {cpu_s: 60, memory_mb: 2048, wall_s: 120, output_kb: 4096}\n\n");
    tg_buf_printf(b, "implementation:\n  runtime: python\n  file: tool.py\n  entrypoint: run\n"
                     "  dependencies: [pandas%s%s]\n\n",
                  p->op == BT_OP_HISTOGRAM ? ", numpy" : "", p->chart ? ", matplotlib" : "");
    tg_buf_printf(b, "provenance:\n  generator: offline\n  model: toolgen-builtin-%s\n", BT_VERSION);
}
