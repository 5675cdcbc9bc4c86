/*
 * builtin_body.c — the pandas statements of each operation, from the filtered `df` to `data`
 * (the rows the computation uses) and the result `table` (docs/generate.md#what-a-generated-
 * tool-looks-like). Each is the plain pandas idiom for the request, so a reader (or a test
 * computing the same value independently) can check it line by line. Rows pandas would leave
 * out silently — a missing group key, a missing value to rank or plot — are left out through
 * keep(), which counts them with the reason, and values skipped inside an aggregate are
 * counted by skipped(): the result says how many rows were used and why the others were not.
 */
#include <string.h>

#include "gen/builtin_code_int.h"

#define L(s) tg_buf_puts(b, "    " s "\n")

bool bc_counting_only(const bt_plan *p)
{
    return p->naggs == 1 && p->aggs[0] == BT_SIZE;
}

/* (("mean", "mean"), ("rate", rate)): each aggregate's name and what pandas applies */
static void agg_tuple(tg_buf *b, const bt_plan *p)
{
    tg_buf_putc(b, '(');
    for (size_t i = 0; i < p->naggs; i++) {
        const char *a = bt_agg_name(p->aggs[i]);
        bool fn = p->aggs[i] == BT_RATE || p->aggs[i] == BT_PERCENT; /* the tool's own */
        tg_buf_printf(b, "%s(\"%s\", %s%s%s)", i ? ", " : "", a, fn ? "" : "\"", a, fn ? "" : "\"");
    }
    tg_buf_puts(b, p->naggs == 1 ? ",)" : ")");
}

static void body_aggregate(tg_buf *b, const bt_plan *p)
{
    bool size = bc_counting_only(p);
    if (p->ngroups) {
        L("data = keep(df, df[group_by].notna().all(axis=1), f\"{names(group_by)} missing (a group key)\", dropped)");
        if (!size)
            L("skipped(data, value_columns, \"the aggregate\", dropped)");
        if (size) {
            L("table = data.groupby(group_by, sort=True).size().reset_index(name=\"count\")");
        } else {
            tg_buf_puts(b, "    spec = {f\"{name}_{c}\": (c, how) for name, how in ");
            agg_tuple(b, p);
            tg_buf_puts(b, " for c in value_columns}\n");
            L("table = data.groupby(group_by, sort=True).agg(**spec).reset_index()");
        }
    } else if (size) {
        L("data = df");
        L("table = pd.DataFrame([{\"count\": len(data)}])");
    } else {
        L("data = df");
        L("skipped(data, value_columns, \"the aggregate\", dropped)");
        tg_buf_puts(b, "    table = pd.DataFrame([{f\"{name}_{c}\": data[c].agg(how) for name, how in ");
        agg_tuple(b, p);
        tg_buf_puts(b, " for c in value_columns}])\n");
    }
    if (p->sort) {
        if (size)
            L("metric = \"count\"");
        else
            tg_buf_printf(b, "    metric = f\"%s_{value_columns[0]}\"\n", bt_agg_name(p->aggs[0]));
        tg_buf_printf(b, "    table = table.sort_values([metric] + group_by, ascending=[%s] + "
                         "[True] * len(group_by), kind=\"mergesort\")\n",
                      p->sort > 0 ? "False" : "True");
    }
    if (p->top_k)
        L("table = table.head(top_k)");
}

static void body_resample(tg_buf *b, const bt_plan *p)
{
    L("data = keep(df, df[date_column].notna(), f\"{date_column} missing (no period)\", dropped)");
    L("data = data.copy()");
    tg_buf_printf(b, "    data[\"period\"] = pd.to_datetime(data[date_column]).dt.to_period(\"%c\")"
                     ".astype(str)\n", p->period);
    tg_buf_printf(b, "    details[\"period\"] = \"%c\"\n", p->period);
    if (bc_counting_only(p)) {
        L("table = data.groupby(\"period\", sort=True).size().reset_index(name=\"count\")");
    } else {
        L("skipped(data, [value_column], \"the aggregate\", dropped)");
        tg_buf_printf(b, "    table = data.groupby(\"period\", sort=True)[value_column].agg(\"%s\")"
                         ".reset_index(name=f\"%s_{value_column}\")\n",
                      bt_agg_name(p->aggs[0]), bt_agg_name(p->aggs[0]));
    }
}

static void body_simple(tg_buf *b, const bt_plan *p)
{
    switch (p->op) {
    case BT_OP_TOP_ROWS:
        L("data = keep(df, df[sort_column].notna(), f\"{sort_column} missing (cannot be ranked)\", dropped)");
        tg_buf_printf(b, "    table = data.sort_values(sort_column, ascending=%s, "
                         "kind=\"mergesort\").head(top_k)\n",
                      p->sort > 0 ? "False" : "True");
        L("details[\"sort_column\"] = sort_column");
        break;
    case BT_OP_VALUE_COUNTS:
        L("data = keep(df, df[column].notna(), f\"{column} missing (not counted)\", dropped)");
        L("table = data[column].value_counts().rename_axis(column).reset_index(name=\"count\")");
        L("table[\"share\"] = table[\"count\"] / len(data)");
        L("table = table.sort_values([\"count\", column], ascending=[False, True], kind=\"mergesort\")");
        if (p->top_k)
            tg_buf_printf(b, "    table = table.head(%ld)\n", p->top_k);
        break;
    case BT_OP_SUMMARY:
        if (p->ngroups) {
            L("data = keep(df, df[group_by].notna().all(axis=1), f\"{names(group_by)} missing (a group key)\", dropped)");
            L("parts = data.groupby(group_by, sort=True)");
        } else {
            L("data = df");
            L("parts = [((), data)]");
        }
        L("skipped(data, columns, \"its statistics\", dropped)");
        L("rows = []");
        L("for keys, part in parts:");
        L("    keys = keys if isinstance(keys, tuple) else (keys,)");
        L("    for c in columns:");
        L("        s = part[c].dropna()");
        tg_buf_puts(b, p->ngroups ? "            row = dict(zip(group_by, keys))\n"
                                   : "            row = {}\n");
        L("        row.update({\"column\": c, \"count\": int(s.count()), \"mean\": s.mean(), \"std\": s.std(),");
        L("                    \"min\": s.min(), \"p25\": s.quantile(0.25), \"median\": s.median(),");
        L("                    \"p75\": s.quantile(0.75), \"max\": s.max()})");
        L("        rows.append(row)");
        L("table = pd.DataFrame(rows)");
        break;
    case BT_OP_CORRELATION:
        L("if len(columns) < 2:");
        L("    raise ValueError(\"a correlation needs at least two columns\")");
        tg_buf_printf(b, "    method = \"%s\"\n", p->spearman ? "spearman" : "pearson");
        L("if len(columns) == 2:");
        L("    data = keep(df, df[columns].notna().all(axis=1), \"a value of the pair missing\", dropped)");
        L("    r = data[columns[0]].corr(data[columns[1]], method=method)");
        L("    table = pd.DataFrame([{\"column_a\": columns[0], \"column_b\": columns[1], \"correlation\": r}])");
        L("    details[\"value\"] = r");
        L("else:");
        L("    data = df");
        L("    skipped(data, columns, \"the correlations with it\", dropped)");
        L("    table = data[columns].corr(method=method).rename_axis(\"column\").reset_index()");
        L("details[\"method\"] = method");
        break;
    case BT_OP_MISSING:
        L("data = df");
        L("table = pd.DataFrame({\"column\": columns,");
        L("                      \"missing\": [int(data[c].isna().sum()) for c in columns],");
        L("                      \"share\": [float(data[c].isna().mean()) for c in columns]})");
        break;
    case BT_OP_MERGE:
        L("other = load_csv(other_file_path)");
        L("require_columns(other, [key_column], other_file_path)");
        L("data = keep(df, df[key_column].isin(other[key_column].dropna()), f\"no row of {other_file_path} has its {key_column}\", dropped)");
        L("table = data.merge(other, on=key_column, how=\"inner\", suffixes=(\"\", \"_other\"))");
        L("details[\"other_rows\"] = len(other)");
        break;
    default:
        break;
    }
}

static void body_series(tg_buf *b, const bt_plan *p)
{
    switch (p->op) {
    case BT_OP_MOVING_AVERAGE:
        if (p->date_col >= 0) {
            L("data = keep(df, df[[order_column, value_column]].notna().all(axis=1), f\"{order_column} or {value_column} missing\", dropped)");
            L("data = data.iloc[pd.to_datetime(data[order_column]).to_numpy().argsort(kind=\"mergesort\")]");
            L("table = data[[order_column, value_column]].copy()");
        } else {
            L("data = keep(df, df[value_column].notna(), f\"{value_column} missing\", dropped)");
            L("table = data[[value_column]].copy()");
        }
        L("table[\"moving_average\"] = table[value_column].rolling(window).mean()");
        L("details[\"window\"] = window");
        break;
    case BT_OP_PIVOT:
        L("data = keep(df, df[[index_column, columns_column]].notna().all(axis=1), \"a key missing\", dropped)");
        if (bc_counting_only(p)) {
            L("table = pd.crosstab(data[index_column], data[columns_column])");
        } else {
            L("skipped(data, [value_column], \"the aggregate\", dropped)");
            tg_buf_printf(b, "    table = data.pivot_table(index=index_column, columns=columns_column, "
                             "values=value_column, aggfunc=\"%s\")\n", bt_agg_name(p->aggs[0]));
        }
        L("table.columns = [str(c) for c in table.columns]");
        L("table = table.reset_index()");
        break;
    case BT_OP_OUTLIERS:
        L("data = df");
        L("skipped(data, [column], \"the outlier test\", dropped)");
        L("values = data[column]");
        if (p->zscore) {
            L("center, spread = values.mean(), values.std()");
            tg_buf_printf(b, "    k = %g  # |z| above this is an outlier\n", p->threshold);
            L("lower, upper = center - k * spread, center + k * spread");
        } else {
            L("q1, q3 = values.quantile(0.25), values.quantile(0.75)");
            tg_buf_printf(b, "    k = %g  # Tukey's fences: k * IQR beyond the quartiles\n", p->threshold);
            L("lower, upper = q1 - k * (q3 - q1), q3 + k * (q3 - q1)");
        }
        L("mask = (values < lower) | (values > upper)");
        L("table = data[mask]");
        tg_buf_printf(b, "    details.update({\"method\": \"%s\", \"lower\": lower, \"upper\": upper, "
                         "\"outliers\": int(mask.sum())})\n", p->zscore ? "zscore" : "iqr");
        break;
    case BT_OP_SERIES: case BT_OP_SCATTER:
        L("data = keep(df, df[[x_column, y_column]].notna().all(axis=1), f\"{x_column} or {y_column} missing\", dropped)");
        L("table = data[[x_column, y_column]]");
        if (p->op == BT_OP_SERIES && p->date_col >= 0)
            L("table = table.iloc[pd.to_datetime(table[x_column]).to_numpy().argsort(kind=\"mergesort\")]");
        else if (p->op == BT_OP_SERIES)
            L("table = table.sort_values(x_column, kind=\"mergesort\")");
        else
            L("details[\"correlation\"] = table[x_column].corr(table[y_column])");
        break;
    case BT_OP_HISTOGRAM:
        L("data = keep(df, df[column].notna(), f\"{column} missing (not counted)\", dropped)");
        L("counts, edges = np.histogram(data[column], bins=bins)");
        L("table = pd.DataFrame({\"bin_start\": edges[:-1], \"bin_end\": edges[1:], \"count\": counts})");
        break;
    case BT_OP_ROWS: /* the filters above are the request */
        L("data = df");
        L("table = data");
        break;
    default:
        break;
    }
}

void bc_body(tg_buf *b, const bt_plan *p, const tg_dataset *ds)
{
    (void)ds;
    if (p->op == BT_OP_AGGREGATE)
        body_aggregate(b, p);
    else if (p->op == BT_OP_RESAMPLE)
        body_resample(b, p);
    else
        body_simple(b, p), body_series(b, p);
}

void bc_draw_call(tg_buf *b, const bt_plan *p)
{
    const char *x = "str(table.columns[0])", *y = "[str(table.columns[-1])]";
    if (p->op == BT_OP_VALUE_COUNTS)
        y = "[\"count\"]";
    else if (p->op == BT_OP_MOVING_AVERAGE)
        x = p->date_col >= 0 ? "order_column" : "None", y = "[value_column, \"moving_average\"]";
    else if (p->op == BT_OP_SERIES || p->op == BT_OP_SCATTER)
        x = "x_column", y = "[y_column]";
    else if (p->op == BT_OP_HISTOGRAM)
        x = "\"bin_start\"", y = "[\"count\"]";
    tg_buf_printf(b, "    draw(table, %s, %s, title)\n", x, y);
}
