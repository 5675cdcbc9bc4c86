/*
 * svgchart.h — the tables and charts of a visualization manifest drawn as inline SVG and HTML,
 * for the self-contained presentation page of a staged run (docs/lifecycle.md
 * "Presentation"): no script, font or image is fetched, so the page works offline.
 *
 * Every drawn element carries a class the tests look for: rect.tg-bar, polyline.tg-line,
 * circle.tg-point, path.tg-slice, table.tg-table. Text from the data is HTML-escaped. Numbers
 * are shown as a person reads them: a decimal rounded to about four significant digits (the
 * exact text kept in the cell's title), numeric columns right-aligned (td.num).
 */
#ifndef TG_SVGCHART_H
#define TG_SVGCHART_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/strvec.h"
#include "base/util.h"

/* A data file as rows of strings: cols names the n columns, each row has n cells. */
typedef struct tg_table {
    tg_strv cols;
    char ***rows; /* rows[i][j], owned */
    size_t nrows, cap;
} tg_table;

/* Appends a row of t->cols.n cells (heap strings; the table takes them and the array). */
void tg_table_add_row(tg_table *t, char **row);
/* Parses CSV (RFC 4180: quoted fields, "" escapes, CRLF or LF) with a header row. 0 or -1. */
int tg_table_from_csv(const char *text, tg_table *t, tg_err *err);
/* An array of objects (the keys of the first object are the columns). 0 or -1. */
int tg_table_from_json(const cJSON *arr, tg_table *t, tg_err *err);
void tg_table_free(tg_table *t);

/* Appends s with &, <, >, " and ' escaped. */
void tg_html_escape(tg_buf *b, const char *s);

/* A number as text ("12", "-0.5", "1e3"), or one followed by '%'. */
bool tg_cell_numeric(const char *s);
/* s as the page shows it: a decimal number ("2.734736842105263") rounded to about four
 * significant digits, at least two decimals below a million, trailing zeros dropped ("2.735",
 * "78.7", "214"); anything else, integers included, as it is. Writes into out (n bytes). */
void tg_format_cell(const char *s, char *out, size_t n);
/* The column whose index is j holds numbers only (empty cells aside), and at least one. */
bool tg_table_col_numeric(const tg_table *t, size_t j);

/*
 * Appends one visualization output (an item of visualization_manifest.json "outputs") drawn
 * from its data t: an HTML table for "table", else an <svg> chart. A column the config names
 * that the data lacks is drawn as a short note saying so instead of the chart.
 */
void tg_chart_render(tg_buf *b, const cJSON *output, const tg_table *t);

#endif
