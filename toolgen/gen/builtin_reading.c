/*
 * builtin_reading.c — a plan as a reading (gen/reading.h): what the user is shown before
 * anything runs and what gap detection checks a reused tool against; and the same plan as the
 * generated tool's declaration (`x-toolgen-reading`, gen/cover.h), whose columns and numbers
 * come from the tool's arguments, so that the tool is reused for the same request on other
 * columns and only for that (docs/generate.md#reuse).
 */
#include <stdlib.h>
#include <string.h>

#include "gen/builtin_int.h"

static const char *col_name(const tg_dataset *ds, int col)
{
    return ds->cols[col].name;
}

/* The plan's value columns that are the reading's measures (series and scatter: x then y). */
static void measures(const bt_plan *p, const tg_dataset *ds, tg_strv *out)
{
    if (p->op == BT_OP_MERGE)
        return;
    for (size_t i = 0; i < p->nvalues; i++)
        if (!(p->naggs == 1 && p->aggs[0] == BT_SIZE))
            tg_strv_push(out, col_name(ds, p->values[i]));
}

char *bt_filter_text(const bt_filter *f, const tg_dataset *ds)
{
    char *year = f->year ? xasprintf("year(%s)", col_name(ds, f->col)) : NULL;
    char *text = tg_reading_filter_text(year ? year : col_name(ds, f->col), (tg_rcmp)f->cmp,
                                        f->numeric, f->lo, f->hi, f->vals, f->nvals);
    free(year);
    return text;
}

static bool uses_aggregates(bt_op op)
{
    return op == BT_OP_AGGREGATE || op == BT_OP_RESAMPLE || op == BT_OP_PIVOT;
}

static const char *method_of(const bt_plan *p)
{
    if (p->op == BT_OP_CORRELATION)
        return p->spearman ? "spearman" : "pearson";
    if (p->op == BT_OP_OUTLIERS)
        return p->zscore ? "zscore" : "iqr";
    return NULL;
}

void bt_plan_reading(const bt_plan *p, const tg_dataset *ds, tg_reading *r)
{
    memset(r, 0, sizeof *r);
    r->known = true;
    r->operation = xstrdup(bt_op_name(p->op));
    for (size_t a = 0; uses_aggregates(p->op) && a < p->naggs; a++)
        tg_strv_push(&r->aggregates, bt_agg_name(p->aggs[a]));
    measures(p, ds, &r->measures);
    if (p->ratio >= 0) { /* the two columns of the ratio, computed per row */
        tg_strv_push(&r->measures, col_name(ds, p->ratio));
        r->derived = xstrdup(p->percent ? "percent_ratio" : "ratio");
    }
    for (size_t g = 0; g < p->ngroups; g++)
        tg_strv_push(&r->groups, col_name(ds, p->groups[g]));
    for (size_t f = 0; f < p->nfilters; f++)
        tg_strv_push_owned(&r->filters, bt_filter_text(&p->filters[f], ds));
    if (p->date_col >= 0 && (p->op == BT_OP_RESAMPLE || p->op == BT_OP_MOVING_AVERAGE))
        r->date_column = xstrdup(col_name(ds, p->date_col));
    r->period = p->op == BT_OP_RESAMPLE ? p->period : 0;
    /* value counts always come most frequent first: an order the user did not ask for */
    r->order = p->op == BT_OP_VALUE_COUNTS && !p->top_k ? 0 : p->sort;
    r->top_k = p->top_k;
    r->chart = p->chart ? xstrdup(bt_chart_name(p->chart)) : NULL;
    const char *m = method_of(p);
    r->method = m ? xstrdup(m) : NULL;
    r->threshold = p->op == BT_OP_OUTLIERS ? p->threshold : 0;
    r->window = p->op == BT_OP_MOVING_AVERAGE ? p->window : 0;
    r->bins = p->op == BT_OP_HISTOGRAM ? p->bins : 0;
    r->key = p->op == BT_OP_MERGE ? xstrdup(col_name(ds, p->key)) : NULL;
}

/* {param: NAME} */
static cJSON *param(const char *name)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "param", name);
    return o;
}

/* {params: [A, B]} */
static cJSON *params2(const char *a, const char *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "params");
    cJSON_AddItemToArray(arr, cJSON_CreateString(a));
    cJSON_AddItemToArray(arr, cJSON_CreateString(b));
    return o;
}

static void add_strings(cJSON *o, const char *key, const tg_strv *v)
{
    if (!v->n)
        return;
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    for (size_t i = 0; i < v->n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(v->v[i]));
}

/* Which argument carries the measures and the groups of each operation (bt_params). */
static void column_params(const bt_plan *p, const bt_param *ps, size_t n, cJSON *o)
{
    const char *measure = NULL, *group = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *name = ps[i].name;
        if (strcmp(name, "value_columns") == 0 || strcmp(name, "sort_column") == 0 ||
            strcmp(name, "value_column") == 0 || strcmp(name, "column") == 0 ||
            strcmp(name, "columns") == 0)
            measure = name;
        else if (strcmp(name, "group_by") == 0)
            group = name;
    }
    if (p->op == BT_OP_SERIES || p->op == BT_OP_SCATTER)
        cJSON_AddItemToObject(o, "measures", params2("x_column", "y_column"));
    else if (p->ratio >= 0)
        cJSON_AddItemToObject(o, "measures", params2("numerator", "denominator"));
    else if (measure && !(p->naggs == 1 && p->aggs[0] == BT_SIZE))
        cJSON_AddItemToObject(o, "measures", param(measure));
    if (p->op == BT_OP_PIVOT)
        cJSON_AddItemToObject(o, "groups", params2("index_column", "columns_column"));
    else if (group)
        cJSON_AddItemToObject(o, "groups", param(group));
}

char *bt_plan_declaration(const bt_plan *p, const tg_dataset *ds, const bt_param *ps, size_t n)
{
    tg_reading r;
    bt_plan_reading(p, ds, &r);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "operation", r.operation);
    add_strings(o, "aggregates", &r.aggregates);
    column_params(p, ps, n, o);
    add_strings(o, "filters", &r.filters);
    if (p->op == BT_OP_RESAMPLE)
        cJSON_AddItemToObject(o, "date_column", param("date_column"));
    else if (p->op == BT_OP_MOVING_AVERAGE && r.date_column)
        cJSON_AddItemToObject(o, "date_column", param("order_column"));
    if (r.period)
        cJSON_AddStringToObject(o, "period", (char[]){r.period, 0});
    if (p->sort)
        cJSON_AddStringToObject(o, "order", p->sort > 0 ? "desc" : "asc");
    if (p->top_k && (p->op == BT_OP_AGGREGATE || p->op == BT_OP_TOP_ROWS))
        cJSON_AddItemToObject(o, "top_k", param("top_k"));
    else if (p->top_k)
        cJSON_AddNumberToObject(o, "top_k", (double)p->top_k);
    if (r.chart)
        cJSON_AddStringToObject(o, "chart", r.chart);
    if (r.derived)
        cJSON_AddStringToObject(o, "derived", r.derived);
    if (r.method)
        cJSON_AddStringToObject(o, "method", r.method);
    if (r.threshold)
        cJSON_AddNumberToObject(o, "threshold", r.threshold);
    if (r.window)
        cJSON_AddItemToObject(o, "window", param("window"));
    if (r.bins)
        cJSON_AddItemToObject(o, "bins", param("bins"));
    if (r.key)
        cJSON_AddItemToObject(o, "key", param("key_column"));
    tg_reading_release(&r);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}
