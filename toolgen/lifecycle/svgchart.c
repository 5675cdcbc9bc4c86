/* svgchart.c — tables and charts as inline HTML/SVG (see svgchart.h and docs/lifecycle.md
 * "Presentation"). */
#include "lifecycle/svgchart.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

#define W 640.0    /* chart width, px */
#define H 360.0    /* chart height */
#define ML 56.0    /* left margin (y labels) */
#define MB 48.0    /* bottom margin (x labels) */
#define MT 16.0
#define MR 16.0
#define MAX_ROWS 2000 /* drawn at most; a chart of more is unreadable anyway */

static const char *const palette[] = {"#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3",
                                      "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"};
#define NPALETTE (sizeof palette / sizeof *palette)

void tg_table_add_row(tg_table *t, char **row)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->rows = xrealloc(t->rows, t->cap * sizeof *t->rows);
    }
    t->rows[t->nrows++] = row;
}

/* One CSV field at *p (advanced past it and its separator); *eol set at a line's end. */
static char *csv_field(const char **p, bool *eol)
{
    tg_buf f;
    tg_buf_init(&f, 16);
    const char *s = *p;
    if (*s == '"') {
        for (s++; *s; s++) {
            if (*s == '"' && s[1] == '"')
                tg_buf_putc(&f, *s++);
            else if (*s == '"') {
                s++;
                break;
            } else
                tg_buf_putc(&f, *s);
        }
    }
    while (*s && *s != ',' && *s != '\n' && *s != '\r')
        tg_buf_putc(&f, *s++);
    *eol = *s != ',';
    if (*s == ',')
        s++;
    else if (*s == '\r')
        s += s[1] == '\n' ? 2 : 1;
    else if (*s == '\n')
        s++;
    *p = s;
    return tg_buf_steal(&f);
}

int tg_table_from_csv(const char *text, tg_table *t, tg_err *err)
{
    *t = (tg_table){0};
    const char *p = text;
    bool eol = false;
    while (*p && !eol)
        tg_strv_push_owned(&t->cols, csv_field(&p, &eol));
    if (t->cols.n == 0)
        return tg_err_set(err, "no header row");
    while (*p && t->nrows < MAX_ROWS) {
        char **row = xcalloc(t->cols.n, sizeof *row);
        size_t j = 0;
        eol = false;
        while (*p && !eol) {
            char *f = csv_field(&p, &eol);
            if (j < t->cols.n)
                row[j++] = f;
            else
                free(f);
        }
        for (; j < t->cols.n; j++)
            row[j] = xstrdup("");
        tg_table_add_row(t, row);
    }
    return 0;
}

int tg_table_from_json(const cJSON *arr, tg_table *t, tg_err *err)
{
    *t = (tg_table){0};
    const cJSON *first = cJSON_GetArrayItem(arr, 0), *it;
    if (!cJSON_IsArray(arr) || !cJSON_IsObject(first))
        return tg_err_set(err, "expected an array of objects");
    cJSON_ArrayForEach(it, first)
        tg_strv_push(&t->cols, it->string);
    cJSON_ArrayForEach(it, arr) {
        if (t->nrows >= MAX_ROWS)
            break;
        char **row = xcalloc(t->cols.n, sizeof *row);
        for (size_t j = 0; j < t->cols.n; j++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, t->cols.v[j]);
            row[j] = cJSON_IsString(v) ? xstrdup(v->valuestring)
                     : v && !cJSON_IsNull(v) ? tg_json_print_compact(v) : xstrdup("");
        }
        tg_table_add_row(t, row);
    }
    return 0;
}

void tg_table_free(tg_table *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->cols.n; j++)
            free(t->rows[i][j]);
        free(t->rows[i]);
    }
    free(t->rows);
    tg_strv_free(&t->cols);
    *t = (tg_table){0};
}

void tg_html_escape(tg_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': tg_buf_puts(b, "&amp;"); break;
        case '<': tg_buf_puts(b, "&lt;"); break;
        case '>': tg_buf_puts(b, "&gt;"); break;
        case '"': tg_buf_puts(b, "&quot;"); break;
        case '\'': tg_buf_puts(b, "&#39;"); break;
        default: tg_buf_putc(b, *s);
        }
    }
}

static bool parse_number(const char *s, double *v)
{
    char *end = NULL;
    *v = s && *s ? strtod(s, &end) : NAN;
    return end && end != s && *end == '\0' && isfinite(*v) && !isspace((unsigned char)*s);
}

bool tg_cell_numeric(const char *s)
{
    double v;
    if (parse_number(s, &v))
        return true;
    size_t n = s ? strlen(s) : 0;
    if (n < 2 || n > 63 || s[n - 1] != '%')
        return false;
    char tmp[64];
    memcpy(tmp, s, n - 1);
    tmp[n - 1] = '\0';
    return parse_number(tmp, &v);
}

void tg_format_cell(const char *s, char *out, size_t n)
{
    double v;
    if (!parse_number(s, &v) || !strpbrk(s, ".eE")) {
        snprintf(out, n, "%s", s ? s : "");
        return;
    }
    double a = fabs(v);
    int dec = a > 0 ? 3 - (int)floor(log10(a)) : 0;
    if (dec < 2 && a < 1e6)
        dec = 2;
    dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
    int len = snprintf(out, n, "%.*f", dec, v);
    if (len <= 0 || (size_t)len >= n || !strchr(out, '.'))
        return;
    while (len > 0 && out[len - 1] == '0')
        out[--len] = '\0';
    if (len > 0 && out[len - 1] == '.')
        out[--len] = '\0';
    if (strcmp(out, "-0") == 0)
        snprintf(out, n, "0");
}

bool tg_table_col_numeric(const tg_table *t, size_t j)
{
    bool any = false;
    for (size_t i = 0; i < t->nrows; i++) {
        const char *c = t->rows[i][j];
        if (!*c)
            continue;
        if (!tg_cell_numeric(c))
            return false;
        any = true;
    }
    return any;
}

/* One cell, its number rounded for reading and its exact text in the title. */
static void put_cell(tg_buf *b, const char *tag, const char *s, bool numeric)
{
    char shown[64];
    tg_format_cell(s, shown, sizeof shown);
    tg_buf_printf(b, "<%s%s", tag, numeric ? " class=\"num\"" : "");
    if (strcmp(shown, s) != 0) {
        tg_buf_puts(b, " title=\"");
        tg_html_escape(b, s);
        tg_buf_putc(b, '"');
    }
    tg_buf_putc(b, '>');
    tg_html_escape(b, shown);
    tg_buf_printf(b, "</%s>", tag);
}

static int col_index(const tg_table *t, const char *name)
{
    for (size_t j = 0; name && j < t->cols.n; j++)
        if (strcmp(t->cols.v[j], name) == 0)
            return (int)j;
    return -1;
}

static double num(const char *s)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : NAN;
    return end && end != s && isfinite(v) ? v : NAN;
}

static void render_table(tg_buf *b, const cJSON *cfg, const tg_table *t)
{
    int idx[256];
    size_t n = 0;
    const cJSON *cols = tg_json_get(cfg, "columns"), *c;
    cJSON_ArrayForEach(c, cols) {
        int i = cJSON_IsString(c) ? col_index(t, c->valuestring) : -1;
        if (i >= 0 && n < 256)
            idx[n++] = i;
    }
    for (size_t j = 0; n == 0 && j < t->cols.n && j < 256; j++)
        idx[j] = (int)j;
    if (n == 0)
        n = t->cols.n < 256 ? t->cols.n : 256;
    double maxrows = tg_json_get_number(cfg, "maxRows", 100);
    bool numeric[256];
    tg_buf_puts(b, "<div class=\"tg-scroll\"><table class=\"tg-table\"><thead><tr>");
    for (size_t j = 0; j < n; j++) {
        numeric[j] = tg_table_col_numeric(t, (size_t)idx[j]);
        tg_buf_printf(b, "<th%s>", numeric[j] ? " class=\"num\"" : "");
        tg_html_escape(b, t->cols.v[idx[j]]);
        tg_buf_puts(b, "</th>");
    }
    tg_buf_puts(b, "</tr></thead><tbody>\n");
    size_t shown = 0;
    for (size_t i = 0; i < t->nrows && (double)i < maxrows; i++, shown++) {
        tg_buf_puts(b, "<tr>");
        for (size_t j = 0; j < n; j++)
            put_cell(b, "td", t->rows[i][idx[j]], numeric[j]);
        tg_buf_puts(b, "</tr>\n");
    }
    tg_buf_puts(b, "</tbody></table></div>\n");
    if (shown < t->nrows)
        tg_buf_printf(b, "<p class=\"tg-note\">The first %zu of %zu rows.</p>\n", shown,
                      t->nrows);
}

/* The range of column j over the rows (numbers only); false when it holds none. */
static bool col_range(const tg_table *t, int j, double *lo, double *hi)
{
    bool any = false;
    for (size_t i = 0; i < t->nrows; i++) {
        double v = num(t->rows[i][j]);
        if (isnan(v))
            continue;
        if (!any || v < *lo)
            *lo = v;
        if (!any || v > *hi)
            *hi = v;
        any = true;
    }
    return any;
}

/* The <svg> element, with the two axes unless it is a pie. */
static void svg_open(tg_buf *b, const char *title, bool axes)
{
    tg_buf_printf(b, "<svg class=\"tg-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" "
                  "height=\"%g\" viewBox=\"0 0 %g %g\" role=\"img\"><title>", W, H, W, H);
    tg_html_escape(b, title ? title : "chart");
    tg_buf_puts(b, "</title>");
    if (axes)
        tg_buf_printf(b, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#333\"/>"
                      "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#333\"/>\n",
                      ML, MT, ML, H - MB, ML, H - MB, W - MR, H - MB);
}

/* y axis labels at the bottom and top of [lo, hi], and the axis titles. */
static void svg_axes(tg_buf *b, double lo, double hi, const cJSON *cfg)
{
    tg_buf_printf(b, "<text x=\"%g\" y=\"%g\" font-size=\"12\" text-anchor=\"end\">%.4g</text>"
                  "<text x=\"%g\" y=\"%g\" font-size=\"12\" text-anchor=\"end\">%.4g</text>\n",
                  ML - 4, H - MB, lo, ML - 4, MT + 10, hi);
    const char *xl = tg_json_get_string(cfg, "xLabel"), *yl = tg_json_get_string(cfg, "yLabel");
    if (xl) {
        tg_buf_printf(b, "<text x=\"%g\" y=\"%g\" font-size=\"12\" text-anchor=\"middle\">",
                      (ML + W - MR) / 2, H - 6);
        tg_html_escape(b, xl);
        tg_buf_puts(b, "</text>");
    }
    if (yl) {
        tg_buf_printf(b, "<text x=\"12\" y=\"%g\" font-size=\"12\" text-anchor=\"middle\" "
                      "transform=\"rotate(-90 12 %g)\">", H / 2, H / 2);
        tg_html_escape(b, yl);
        tg_buf_puts(b, "</text>");
    }
}

static double scale(double v, double lo, double hi, double a, double z)
{
    return hi > lo ? a + (v - lo) / (hi - lo) * (z - a) : (a + z) / 2;
}

static void render_bar(tg_buf *b, const tg_table *t, int x, int y, const cJSON *cfg)
{
    double lo = 0, hi = 0;
    col_range(t, y, &lo, &hi);
    if (lo > 0)
        lo = 0;
    svg_axes(b, lo, hi, cfg);
    double slot = (W - ML - MR) / (double)(t->nrows ? t->nrows : 1);
    for (size_t i = 0; i < t->nrows; i++) {
        double v = num(t->rows[i][y]);
        if (isnan(v))
            continue;
        double top = scale(v, lo, hi, H - MB, MT), base = scale(0, lo, hi, H - MB, MT);
        double h = fabs(base - top) < 1 ? 1 : fabs(base - top);
        tg_buf_printf(b, "<rect class=\"tg-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\" fill=\"%s\"><title>", ML + slot * (double)i + slot * 0.1,
                      top < base ? top : base, slot * 0.8, h, palette[0]);
        tg_html_escape(b, t->rows[i][x]);
        tg_buf_printf(b, ": %.6g</title></rect>\n", v);
        if (t->nrows <= 12) { /* the value over its bar, as the table shows it */
            char shown[64];
            tg_format_cell(t->rows[i][y], shown, sizeof shown);
            tg_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
                          "text-anchor=\"middle\">", ML + slot * ((double)i + 0.5),
                          (top < base ? top : base) - 4);
            tg_html_escape(b, shown);
            tg_buf_puts(b, "</text>\n");
        }
        if (t->nrows <= 30) {
            tg_buf_printf(b, "<text x=\"%.1f\" y=\"%g\" font-size=\"%d\" "
                          "text-anchor=\"middle\">", ML + slot * ((double)i + 0.5), H - MB + 16,
                          t->nrows <= 12 ? 13 : 10);
            tg_html_escape(b, t->rows[i][x]);
            tg_buf_puts(b, "</text>\n");
        }
    }
}

/* Line (one polyline per y column, x by row order) or scatter (x and y numeric). */
static void render_xy(tg_buf *b, const tg_table *t, int x, const int *ys, size_t ny,
                      bool scatter, const cJSON *cfg)
{
    double lo = 0, hi = 0, xlo = 0, xhi = (double)(t->nrows ? t->nrows - 1 : 0);
    bool first = true;
    for (size_t k = 0; k < ny; k++) {
        double a = 0, z = 0;
        if (col_range(t, ys[k], &a, &z)) {
            lo = first || a < lo ? a : lo;
            hi = first || z > hi ? z : hi;
            first = false;
        }
    }
    if (scatter && !col_range(t, x, &xlo, &xhi))
        xlo = 0;
    svg_axes(b, lo, hi, cfg);
    for (size_t k = 0; k < ny; k++) {
        if (!scatter)
            tg_buf_printf(b, "<polyline class=\"tg-line\" fill=\"none\" stroke=\"%s\" "
                          "stroke-width=\"2\" points=\"", palette[k % NPALETTE]);
        for (size_t i = 0; i < t->nrows; i++) {
            double v = num(t->rows[i][ys[k]]), xv = scatter ? num(t->rows[i][x]) : (double)i;
            if (isnan(v) || isnan(xv))
                continue;
            double px = scale(xv, xlo, xhi, ML, W - MR), py = scale(v, lo, hi, H - MB, MT);
            if (scatter)
                tg_buf_printf(b, "<circle class=\"tg-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
                              "fill=\"%s\"/>\n", px, py, palette[k % NPALETTE]);
            else
                tg_buf_printf(b, "%.1f,%.1f ", px, py);
        }
        if (!scatter)
            tg_buf_puts(b, "\"/>\n");
    }
}

static void render_pie(tg_buf *b, const tg_table *t, int label, int value)
{
    double total = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        double v = num(t->rows[i][value]);
        total += isnan(v) || v < 0 ? 0 : v;
    }
    double cx = W / 2, cy = H / 2, r = H / 2 - 24, a0 = -M_PI / 2;
    for (size_t i = 0; total > 0 && i < t->nrows; i++) {
        double v = num(t->rows[i][value]);
        if (isnan(v) || v <= 0)
            continue;
        double a1 = a0 + 2 * M_PI * v / total;
        if (v >= total) /* one slice: a full circle (an arc cannot start and end at a point) */
            a1 = a0 + 2 * M_PI * 0.9999;
        tg_buf_printf(b, "<path class=\"tg-slice\" fill=\"%s\" stroke=\"#fff\" d=\"M%.1f,%.1f "
                      "L%.1f,%.1f A%.1f,%.1f 0 %d 1 %.1f,%.1f Z\"><title>",
                      palette[i % NPALETTE], cx, cy, cx + r * cos(a0), cy + r * sin(a0), r, r,
                      a1 - a0 > M_PI ? 1 : 0, cx + r * cos(a1), cy + r * sin(a1));
        tg_html_escape(b, t->rows[i][label]);
        tg_buf_printf(b, ": %.6g</title></path>\n", v);
        a0 = a1;
    }
}

static void missing(tg_buf *b, const char *what, const char *col)
{
    tg_buf_puts(b, "<p class=\"tg-missing\">Cannot draw: the ");
    tg_html_escape(b, what);
    tg_buf_puts(b, " column \"");
    tg_html_escape(b, col ? col : "(not set)");
    tg_buf_puts(b, "\" is not in the data file.</p>\n");
}

void tg_chart_render(tg_buf *b, const cJSON *output, const tg_table *t)
{
    const char *type = tg_json_get_string(output, "type");
    const cJSON *cfg = tg_json_get(output, "config");
    if (!type || strcmp(type, "table") == 0) {
        render_table(b, cfg, t);
        return;
    }
    if (strcmp(type, "pie_chart") == 0) {
        const char *l = tg_json_get_string(cfg, "labelColumn");
        const char *v = tg_json_get_string(cfg, "valueColumn");
        int li = col_index(t, l ? l : (t->cols.n > 0 ? t->cols.v[0] : NULL));
        int vi = col_index(t, v ? v : (t->cols.n > 1 ? t->cols.v[1] : NULL));
        if (li < 0 || vi < 0) {
            missing(b, li < 0 ? "label" : "value", li < 0 ? l : v);
            return;
        }
        svg_open(b, tg_json_get_string(output, "title"), false);
        render_pie(b, t, li, vi);
        tg_buf_puts(b, "</svg>\n");
        return;
    }
    const char *xc = tg_json_get_string(cfg, "xColumn");
    int x = col_index(t, xc ? xc : (t->cols.n > 0 ? t->cols.v[0] : NULL)), ys[16];
    size_t ny = 0;
    const cJSON *yc = tg_json_get(cfg, "yColumn"), *it;
    const cJSON *ylist = cJSON_IsArray(yc) ? yc : NULL;
    if (cJSON_IsString(yc))
        ys[ny++] = col_index(t, yc->valuestring);
    cJSON_ArrayForEach(it, ylist)
        if (ny < 16)
            ys[ny++] = cJSON_IsString(it) ? col_index(t, it->valuestring) : -1;
    if (ny == 0)
        ys[ny++] = col_index(t, t->cols.n > 1 ? t->cols.v[1] : NULL);
    for (size_t k = 0; k < ny; k++)
        if (ys[k] < 0) {
            missing(b, "y", cJSON_IsString(yc) ? yc->valuestring : NULL);
            return;
        }
    if (x < 0) {
        missing(b, "x", xc);
        return;
    }
    svg_open(b, tg_json_get_string(output, "title"), true);
    if (strcmp(type, "bar_chart") == 0)
        render_bar(b, t, x, ys[0], cfg);
    else
        render_xy(b, t, x, ys, ny, strcmp(type, "scatter") == 0, cfg);
    tg_buf_puts(b, "</svg>\n");
}
