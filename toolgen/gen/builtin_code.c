/*
 * builtin_code.c — tool.py from a plan: the run() signature from bt_params, the checks of the
 * file and its columns, the plan's filters as pandas masks, the operation's body
 * (builtin_body.c), the result envelope and, for charts, the PNG and the visualization
 * manifest (docs/generate.md#what-a-generated-tool-looks-like).
 *
 * The code is written for a reader: one straight function per tool, the plan in its
 * docstring, helpers below it, in the style of the hand-written manifests/ tools.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/builtin_code_int.h"

void bt_py_str(tg_buf *b, const char *s)
{
    tg_buf_putc(b, '\'');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\' || c == '\'')
            tg_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            tg_buf_puts(b, "\\n");
        else if (c < 0x20)
            tg_buf_printf(b, "\\x%02x", c);
        else
            tg_buf_putc(b, (char)c);
    }
    tg_buf_putc(b, '\'');
}

void bc_py_num(tg_buf *b, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        tg_buf_printf(b, "%.0f", v);
    else
        tg_buf_printf(b, "%.17g", v);
}

static void py_columns(tg_buf *b, const tg_dataset *ds, const int *cols, size_t n)
{
    tg_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            tg_buf_puts(b, ", ");
        bt_py_str(b, ds->cols[cols[i]].name);
    }
    tg_buf_putc(b, ']');
}

/* Does a parameter's "name:" start at s? */
static bool bt_param_at(const char *s, const bt_param *ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(ps[i].name);
        if (strncmp(s, ps[i].name, len) == 0 && s[len] == ':')
            return true;
    }
    return false;
}

static void signature(tg_buf *b, const bt_param *ps, size_t n, const tg_dataset *ds)
{
    size_t start = b->len;
    tg_buf_puts(b, "def run(");
    for (size_t i = 0; i < n; i++) {
        const bt_param *p = &ps[i];
        tg_buf_printf(b, "%s%s", i ? ", " : "", p->name);
        if (p->type == BT_P_FILE) {
            tg_buf_puts(b, ": str = ");
            bt_py_str(b, p->file);
        } else if (p->type == BT_P_COLUMN) {
            tg_buf_puts(b, ": str = ");
            bt_py_str(b, ds[p->ds].cols[p->cols[0]].name);
        } else if (p->type == BT_P_COLUMNS) {
            tg_buf_puts(b, ": list = None");
        } else {
            tg_buf_puts(b, ": int = ");
            if (p->has_default)
                tg_buf_printf(b, "%ld", p->num);
            else
                tg_buf_puts(b, "None");
        }
    }
    tg_buf_puts(b, ") -> dict:\n");
    if (b->len - start <= 100)
        return;
    /* too long for one line: one parameter per line (no default text holds ", " + a name) */
    char *line = xstrdup(b->data + start);
    tg_buf_truncate(b, start);
    for (const char *q = line; *q; q++) {
        if (q == line + 7 && *q == '(') {
            tg_buf_puts(b, "(\n    ");
        } else if (q[0] == ',' && q[1] == ' ' && bt_param_at(q + 2, ps, n)) {
            tg_buf_puts(b, ",\n    ");
            q++;
        } else if (strncmp(q, ") -> dict:", 10) == 0) {
            tg_buf_puts(b, ",\n) -> dict:\n");
            break;
        } else {
            tg_buf_putc(b, *q);
        }
    }
    free(line);
}

/* Defaults of list parameters (a list default in the signature would be shared by calls). */
static void list_defaults(tg_buf *b, const bt_param *ps, size_t n, const tg_dataset *ds)
{
    for (size_t i = 0; i < n; i++) {
        const bt_param *p = &ps[i];
        if (p->type != BT_P_COLUMNS)
            continue;
        tg_buf_printf(b, "    if %s is None:\n        %s = ", p->name, p->name);
        if (p->all)
            tg_buf_puts(b, "[str(c) for c in df.columns]\n");
        else {
            py_columns(b, ds, p->cols, p->ncols);
            tg_buf_putc(b, '\n');
        }
    }
}

/* require_columns / require_numeric over the parameters and the filters' columns. */
static void column_checks(tg_buf *b, const bt_plan *pl, const bt_param *ps, size_t n,
                          const tg_dataset *ds)
{
    tg_buf used = TG_BUF_INIT, numeric = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const bt_param *p = &ps[i];
        if ((p->type != BT_P_COLUMN && p->type != BT_P_COLUMNS) || p->ds != 0)
            continue;
        const char *wrap = p->type == BT_P_COLUMN ? "[%s]" : "%s";
        tg_buf_printf(&used, "%s", used.len ? " + " : "");
        tg_buf_printf(&used, wrap, p->name);
        bool numeric_agg = false;
        for (size_t a = 0; a < pl->naggs; a++)
            numeric_agg = numeric_agg || bt_agg_numeric(pl->aggs[a]);
        bool needs_number = (numeric_agg || pl->naggs == 0) && strcmp(p->name, "group_by") != 0 && strcmp(p->name, "index_column") != 0 &&
                            strcmp(p->name, "columns_column") != 0 && strcmp(p->name, "key_column") != 0 &&
                            strcmp(p->name, "order_column") != 0 && strcmp(p->name, "date_column") != 0 &&
                            strcmp(p->name, "x_column") != 0 && strcmp(p->name, "column") != 0 &&
                            pl->op != BT_OP_MISSING &&
                            !(pl->op == BT_OP_AGGREGATE && bc_counting_only(pl));
        if (strcmp(p->name, "column") == 0 && (pl->op == BT_OP_OUTLIERS || pl->op == BT_OP_HISTOGRAM))
            needs_number = true;
        if (strcmp(p->name, "x_column") == 0 && pl->op == BT_OP_SCATTER)
            needs_number = true;
        if (needs_number) {
            tg_buf_printf(&numeric, "%s", numeric.len ? " + " : "");
            tg_buf_printf(&numeric, wrap, p->name);
        }
    }
    if (pl->nfilters) {
        int cols[BT_LIMIT];
        for (size_t i = 0; i < pl->nfilters; i++)
            cols[i] = pl->filters[i].col;
        tg_buf_printf(&used, "%s", used.len ? " + " : "");
        py_columns(&used, ds, cols, pl->nfilters);
    }
    if (used.len)
        tg_buf_printf(b, "    require_columns(df, %s, file_path)\n", used.data);
    if (numeric.len)
        tg_buf_printf(b, "    require_numeric(df, %s, file_path)\n", numeric.data);
    tg_buf_free(&used);
    tg_buf_free(&numeric);
}

/* df = keep(df, <the filter's mask>, "does not meet <filter>", dropped) */
static void filter_line(tg_buf *b, const bt_filter *f, const tg_dataset *ds)
{
    static const char *const ops[] = {"==", "!=", ">", ">=", "<", "<="};
    tg_buf col = TG_BUF_INIT;
    tg_buf_puts(&col, f->year ? "pd.to_datetime(df[" : "df[");
    bt_py_str(&col, ds->cols[f->col].name);
    tg_buf_puts(&col, f->year ? "]).dt.year" : "]");
    tg_buf_printf(b, "    df = keep(df, ");
    if (f->cmp == BT_ISNA || f->cmp == BT_NOTNA) {
        tg_buf_printf(b, "%s.%s()", col.data, f->cmp == BT_ISNA ? "isna" : "notna");
    } else if (f->numeric && f->cmp == BT_BETWEEN) {
        tg_buf_printf(b, "%s.between(", col.data);
        bc_py_num(b, f->lo);
        tg_buf_puts(b, ", ");
        bc_py_num(b, f->hi);
        tg_buf_puts(b, ")");
    } else if (f->numeric) {
        tg_buf_printf(b, "(%s %s ", col.data, ops[f->cmp]);
        bc_py_num(b, f->lo);
        tg_buf_puts(b, ")");
    } else {
        /* as text, so that True/False and numbers-as-labels compare like the file shows them */
        tg_buf_printf(b, "(%s%s.astype(str).isin([", f->cmp == BT_NE ? "~" : "", col.data);
        for (size_t v = 0; v < f->nvals; v++) {
            if (v)
                tg_buf_puts(b, ", ");
            bt_py_str(b, f->vals[v]);
        }
        tg_buf_printf(b, "]) & %s.notna())", col.data);
    }
    char *text = bt_filter_text(f, ds), *why = xasprintf("does not meet %s", text);
    tg_buf_puts(b, ", ");
    bt_py_str(b, why);
    tg_buf_puts(b, ", dropped)\n");
    free(text);
    free(why);
    tg_buf_free(&col);
}

/* The plan's sentence, safe in a docstring (caller frees). */
static char *safe_sentence(const bt_plan *p, const tg_dataset *ds)
{
    char *raw = bt_plan_sentence(p, ds), *safe = bt_safe_text(raw);
    free(raw);
    return safe;
}

static void header(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    char *raw = bt_plan_text(p, ds), *plan = bt_safe_text(raw);
    char *sentence = safe_sentence(p, ds);
    free(raw);
    tg_buf_printf(b, "\"\"\"%s.\n\nWritten by toolgen's built-in generator (toolgen-builtin-%s) "
                     "from the plan\n\n    %s\n\nIt reads the CSV file with pandas, applies the "
                     "plan and returns the result table as rows.\n\"\"\"\n\n",
                  sentence, BT_VERSION, plan);
    free(sentence);
    free(plan);
    if (p->chart)
        tg_buf_puts(b, "import json\n\nimport matplotlib\n\nmatplotlib.use(\"Agg\")  # no display: "
                       "render straight to files\n\nimport matplotlib.pyplot as plt  # noqa: E402\n");
    const char *noqa = p->chart ? "  # noqa: E402" : "";
    if (p->op == BT_OP_HISTOGRAM)
        tg_buf_printf(b, "import numpy as np%s\n", noqa);
    tg_buf_printf(b, "import pandas as pd%s\n\n", noqa);
    tg_buf_puts(b, "MAX_ROWS = 1000  # rows returned at most; row_count says how many the result has\n");
    if (p->chart)
        tg_buf_puts(b, "CHART_FILE = \"chart.png\"\nDATA_FILE = \"chart_data.csv\"\n"
                       "MANIFEST_FILE = \"visualization_manifest.json\"\n");
    tg_buf_puts(b, "\n\n");
}

char *bt_write_code(const bt_plan *p, const tg_dataset *ds, size_t nds)
{
    bt_param ps[BT_MAX_PARAMS];
    size_t n = bt_params(p, ds, nds, ps);
    tg_buf b = TG_BUF_INIT;
    header(&b, p, ds);
    signature(&b, ps, n, ds);
    char *sentence = safe_sentence(p, ds);
    tg_buf_printf(&b, "    \"\"\"%s.\"\"\"\n", sentence);
    free(sentence);
    tg_buf_puts(&b, "    df = load_csv(file_path)\n");
    list_defaults(&b, ps, n, ds);
    column_checks(&b, p, ps, n, ds);
    if (p->ratio >= 0) /* the derived quantity is what is aggregated */
        tg_buf_printf(&b, "    value_columns = [f\"{numerator} %s {denominator}\"]\n",
                      p->percent ? "as % of" : "per");
    bc_title(&b, p, ds);
    tg_buf_puts(&b, "    rows_in = len(df)\n    dropped = []\n");
    for (size_t i = 0; i < p->nfilters; i++)
        filter_line(&b, &p->filters[i], ds);
    if (p->ratio >= 0)
        tg_buf_printf(&b, "    df = keep(df, df[denominator] != 0, f\"{denominator} is 0: no ratio\", "
                          "dropped)\n    df = df.assign(**{value_columns[0]: df[numerator] / "
                          "df[denominator]%s})\n", p->percent ? " * 100" : "");
    tg_buf_printf(&b, "    if df.empty:\n        raise ValueError(f\"{file_path} has no rows%s "
                      "to compute on\")\n",
                  p->nfilters ? " left after the filters" : "");
    tg_buf_puts(&b, "    details = {}\n");
    bc_body(&b, p, ds);
    if (p->chart)
        bc_draw_call(&b, p);
    tg_buf_puts(&b, "    return finish(file_path, title, rows_in, len(data), dropped, table, "
                    "details, limit)\n\n\n");
    bc_helpers(&b, p, ds);
    return tg_buf_steal(&b);
}
