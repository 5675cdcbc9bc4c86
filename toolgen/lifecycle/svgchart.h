/*
 * svgchart.h — the tables and charts of a visualization manifest drawn as inline SVG and HTML,
 * for the self-contained presentation page of a staged run (docs/lifecycle.md
 * "Presentation"): no script, font or image is fetched, so the page works offline.
 *
 * Every drawn element carries a class the tests look for: rect.tg-bar, polyline.tg-line,
 * circle.tg-point, path.tg-slice, table.tg-table. Text from the data is HTML-escaped.
 */
#ifndef TG_SVGCHART_H
#define TG_SVGCHART_H

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

/* Parses CSV (RFC 4180: quoted fields, "" escapes, CRLF or LF) with a header row. 0 or -1. */
int tg_table_from_csv(const char *text, tg_table *t, tg_err *err);
/* An array of objects (the keys of the first object are the columns). 0 or -1. */
int tg_table_from_json(const cJSON *arr, tg_table *t, tg_err *err);
void tg_table_free(tg_table *t);

/* Appends s with &, <, >, " and ' escaped. */
void tg_html_escape(tg_buf *b, const char *s);

/*
 * Appends one visualization output (an item of visualization_manifest.json "outputs") drawn
 * from its data t: an HTML table for "table", else an <svg> chart. A column the config names
 * that the data lacks is drawn as a short note saying so instead of the chart.
 */
void tg_chart_render(tg_buf *b, const cJSON *output, const tg_table *t);

#endif
