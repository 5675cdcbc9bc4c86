/*
 * reading.c — the reading of a request: its canonical filters, its text for people, and the
 * reading of a model's intent (reading.h; docs/generate.md#the-reading).
 */
#include "gen/reading.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

char *tg_reading_filter_text(const char *column, tg_rcmp cmp, bool numeric, double lo, double hi,
                             const char *const *vals, size_t nvals)
{
    static const char *const ops[] = {"==", "!=", ">", ">=", "<", "<=", "between", "is missing",
                                      "is not missing"};
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, "%s ", column);
    if (cmp == TG_RC_ISNA || cmp == TG_RC_NOTNA) {
        tg_buf_puts(&b, ops[cmp]);
    } else if (numeric && cmp == TG_RC_BETWEEN) {
        tg_buf_printf(&b, "between %g and %g", lo, hi);
    } else if (numeric) {
        tg_buf_printf(&b, "%s %g", ops[cmp], lo);
    } else {
        bool set = nvals > 1;
        tg_buf_puts(&b, set ? (cmp == TG_RC_NE ? "not in (" : "in (") : ops[cmp]);
        for (size_t v = 0; v < nvals; v++)
            tg_buf_printf(&b, "%s'%s'", v ? ", " : (set ? "" : " "), vals[v]);
        if (set)
            tg_buf_puts(&b, ")");
    }
    return tg_buf_steal(&b);
}

/* ---- the text for people ------------------------------------------------------------------- */

static const char *agg_words(const char *a)
{
    static const char *const names[][2] = {
        {"sum", "sum"}, {"mean", "mean"}, {"median", "median"}, {"min", "minimum"},
        {"max", "maximum"}, {"std", "standard deviation"}, {"count", "count of values"},
        {"nunique", "number of distinct values"}, {"size", "number of rows"},
        {"rate", "share of yes (0 to 1)"}, {"percent", "percentage of yes (0 to 100)"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i][0], a) == 0)
            return names[i][1];
    return a;
}

static void list(tg_buf *b, const tg_strv *v, const char *last_sep)
{
    for (size_t i = 0; i < v->n; i++)
        tg_buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == v->n ? last_sep : ", ", v->v[i]);
}

/* "mean of tip", "number of rows", "mean and maximum of (tip / total_bill * 100)" */
static void computed(tg_buf *b, const tg_reading *r)
{
    bool rows = r->aggregates.n == 1 && strcmp(r->aggregates.v[0], "size") == 0;
    for (size_t i = 0; i < r->aggregates.n; i++)
        tg_buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == r->aggregates.n ? " and " : ", ",
                      agg_words(r->aggregates.v[i]));
    if (rows)
        return;
    tg_buf_puts(b, " of ");
    bool ratio = r->derived && r->measures.n == 2 && (strcmp(r->derived, "ratio") == 0 ||
                                                      strcmp(r->derived, "percent_ratio") == 0);
    if (ratio)
        tg_buf_printf(b, "(%s / %s%s)", r->measures.v[0], r->measures.v[1],
                      r->derived[0] == 'p' ? " × 100" : "");
    else if (r->derived)
        tg_buf_printf(b, "(%s)", r->derived);
    else
        list(b, &r->measures, " and ");
}

static const char *period_word(char p)
{
    return p == 'D' ? "day" : p == 'W' ? "week" : p == 'M' ? "month" : p == 'Q' ? "quarter"
                                                                                 : "year";
}

static void operation_text(tg_buf *b, const tg_reading *r)
{
    const char *op = r->operation;
    const char *m0 = r->measures.n ? r->measures.v[0] : "?";
    const char *m1 = r->measures.n > 1 ? r->measures.v[1] : "?";
    if (strcmp(op, "aggregate") == 0 || strcmp(op, "resample") == 0 || strcmp(op, "pivot") == 0) {
        computed(b, r);
    } else if (strcmp(op, "top_rows") == 0) {
        tg_buf_printf(b, "the rows with the %s %s", r->order < 0 ? "smallest" : "largest", m0);
    } else if (strcmp(op, "value_counts") == 0) {
        tg_buf_printf(b, "count and share of each value of %s", m0);
    } else if (strcmp(op, "summary") == 0) {
        tg_buf_puts(b, "summary statistics of ");
        list(b, &r->measures, " and ");
    } else if (strcmp(op, "correlation") == 0) {
        tg_buf_printf(b, "%s correlation %s ", r->method ? r->method : "pearson",
                      r->measures.n == 2 ? "between" : "matrix of");
        list(b, &r->measures, " and ");
    } else if (strcmp(op, "moving_average") == 0) {
        tg_buf_printf(b, "moving average of %s over %ld rows", m0, r->window);
    } else if (strcmp(op, "merge") == 0) {
        tg_buf_printf(b, "the two files joined on %s", r->key ? r->key : "?");
    } else if (strcmp(op, "missing_report") == 0 && r->measures.n) {
        tg_buf_puts(b, "missing values of ");
        list(b, &r->measures, " and ");
    } else if (strcmp(op, "missing_report") == 0) {
        tg_buf_puts(b, "missing values per column");
    } else if (strcmp(op, "outliers") == 0) {
        tg_buf_printf(b, "outliers of %s by %s (k = %g)", m0,
                      r->method && strcmp(r->method, "zscore") == 0 ? "z-score" : "the IQR rule",
                      r->threshold);
    } else if (strcmp(op, "series") == 0 || strcmp(op, "scatter") == 0) {
        tg_buf_printf(b, "%s %s %s", m1, strcmp(op, "series") == 0 ? "over" : "against", m0);
    } else if (strcmp(op, "histogram") == 0) {
        tg_buf_printf(b, "distribution of %s in %ld bins", m0, r->bins);
    } else {
        tg_buf_puts(b, op);
    }
}

char *tg_reading_text(const tg_reading *r)
{
    if (!r->known || !r->operation)
        return xasprintf("not understood: %s", r->why ? r->why : "the request");
    tg_buf b = TG_BUF_INIT;
    operation_text(&b, r);
    if (r->groups.n && strcmp(r->operation, "pivot") == 0) {
        tg_buf_printf(&b, ", rows per %s, columns per %s", r->groups.v[0],
                      r->groups.n > 1 ? r->groups.v[1] : "?");
    } else if (r->groups.n) {
        tg_buf_puts(&b, ", grouped by ");
        list(&b, &r->groups, " and ");
    }
    if (r->period)
        tg_buf_printf(&b, ", per %s of %s", period_word(r->period),
                      r->date_column ? r->date_column : "?");
    else if (r->date_column && strcmp(r->operation, "moving_average") == 0)
        tg_buf_printf(&b, ", ordered by %s", r->date_column);
    for (size_t i = 0; i < r->filters.n; i++)
        tg_buf_printf(&b, "%s%s", i ? " and " : ", where ", r->filters.v[i]);
    bool rows = strcmp(r->operation, "top_rows") == 0;
    if (r->top_k == 1 && !rows)
        tg_buf_printf(&b, ", the %s only", r->order < 0 ? "smallest" : "largest");
    else if (r->top_k && !rows)
        tg_buf_printf(&b, ", the %ld %s", r->top_k, r->order < 0 ? "smallest" : "largest");
    else if (r->top_k)
        tg_buf_printf(&b, ", the first %ld", r->top_k);
    else if (r->order)
        tg_buf_puts(&b, r->order > 0 ? ", largest first" : ", smallest first");
    if (r->chart)
        tg_buf_printf(&b, ", as a %s chart", r->chart);
    return tg_buf_steal(&b);
}

void tg_reading_release(tg_reading *r)
{
    free(r->why);
    free(r->operation);
    tg_strv_free(&r->aggregates);
    tg_strv_free(&r->measures);
    tg_strv_free(&r->groups);
    tg_strv_free(&r->filters);
    free(r->date_column);
    free(r->chart);
    free(r->derived);
    free(r->method);
    free(r->key);
    memset(r, 0, sizeof *r);
}

/* ---- a model's intent ------------------------------------------------------------------------ */

/* Marks r not known with why (the first reason wins); returns false for chaining. */
static bool unknown(tg_reading *r, const char *fmt, const char *arg)
{
    if (r->known) {
        r->known = false;
        r->why = xasprintf(fmt, arg ? arg : "");
    }
    return false;
}

static bool has_column(const tg_dataset *ds, size_t nds, const char *name)
{
    for (size_t d = 0; d < nds; d++)
        for (size_t i = 0; i < ds[d].ncols; i++)
            if (strcmp(ds[d].cols[i].name, name) == 0)
                return true;
    return false;
}

/* The intent's operation in the reading's vocabulary (NULL: none); *chart its chart. */
static const char *operation_of(const char *op, const char **chart)
{
    static const char *const same[] = {"aggregate", "top_rows", "value_counts", "summary",
                                       "correlation", "moving_average", "resample", "merge",
                                       "pivot", "missing_report", "outliers", "series",
                                       "scatter", "histogram", "rows", NULL};
    static const char *const map[][3] = {
        {"count", "aggregate", NULL}, {"nunique", "aggregate", NULL},
        {"group_by_and_aggregate", "aggregate", NULL}, {"top_k", "aggregate", NULL},
        {"summary_statistics", "summary", NULL}, {"missing_values", "missing_report", NULL},
        {"scatter_chart", "scatter", "scatter"}, {"pie_chart", "value_counts", "pie"},
        {"line_chart", "series", "line"}, {"chart", "aggregate", "bar"}, {"filter", "rows", NULL},
    };
    *chart = NULL;
    if (!op)
        return NULL;
    for (size_t i = 0; same[i]; i++)
        if (strcmp(same[i], op) == 0)
            return same[i];
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i][0], op) == 0) {
            *chart = map[i][2];
            return map[i][1];
        }
    return NULL;
}

/* An array of column names into v, each checked; false (r not known) on anything else. */
static bool columns_into(const cJSON *arr, const char *what, const tg_dataset *ds, size_t nds,
                         tg_strv *v, tg_reading *r)
{
    if (!arr || cJSON_IsNull(arr))
        return true;
    if (cJSON_IsString(arr)) {
        if (!has_column(ds, nds, arr->valuestring))
            return unknown(r, "the intent names a column the data does not have: %s",
                           arr->valuestring);
        tg_strv_push(v, arr->valuestring);
        return true;
    }
    if (!cJSON_IsArray(arr))
        return unknown(r, "the intent's %s is not a list of columns", what);
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) {
        if (!cJSON_IsString(x))
            return unknown(r, "the intent's %s is not a list of columns", what);
        if (!has_column(ds, nds, x->valuestring))
            return unknown(r, "the intent names a column the data does not have: %s",
                           x->valuestring);
        tg_strv_push(v, x->valuestring);
    }
    return true;
}

static bool metric_into(const char *m, bool measured, tg_strv *aggs, tg_reading *r)
{
    static const char *const names[][2] = {
        {"sum", "sum"}, {"total", "sum"}, {"mean", "mean"}, {"average", "mean"}, {"avg", "mean"},
        {"median", "median"}, {"min", "min"}, {"minimum", "min"}, {"max", "max"},
        {"maximum", "max"}, {"std", "std"}, {"nunique", "nunique"}, {"size", "size"},
    };
    if (strcmp(m, "count") == 0) {
        tg_strv_push(aggs, measured ? "count" : "size");
        return true;
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i][0], m) == 0) {
            tg_strv_push(aggs, names[i][1]);
            return true;
        }
    return unknown(r, "the intent asks for an aggregate outside the vocabulary: %s", m);
}

static bool cmp_of(const char *op, tg_rcmp *cmp)
{
    static const struct { const char *op; tg_rcmp c; } ops[] = {
        {"==", TG_RC_EQ}, {"=", TG_RC_EQ}, {"!=", TG_RC_NE}, {">", TG_RC_GT}, {">=", TG_RC_GE},
        {"<", TG_RC_LT}, {"<=", TG_RC_LE}, {"between", TG_RC_BETWEEN}, {"in", TG_RC_EQ},
        {"not in", TG_RC_NE}, {"is missing", TG_RC_ISNA}, {"isna", TG_RC_ISNA},
        {"is not missing", TG_RC_NOTNA}, {"notna", TG_RC_NOTNA},
    };
    for (size_t i = 0; op && i < sizeof ops / sizeof *ops; i++)
        if (strcmp(ops[i].op, op) == 0) {
            *cmp = ops[i].c;
            return true;
        }
    return false;
}

/* One value as text ("Dinner", "True" for a boolean, "4" for a number); NULL when not a scalar. */
static char *value_text(const cJSON *v)
{
    if (cJSON_IsString(v))
        return xstrdup(v->valuestring);
    if (cJSON_IsBool(v))
        return xstrdup(cJSON_IsTrue(v) ? "True" : "False");
    if (cJSON_IsNumber(v))
        return xasprintf("%g", v->valuedouble);
    return NULL;
}

/* {column, op, value} as canonical text into r->filters. */
static bool filter_into(const cJSON *f, const tg_dataset *ds, size_t nds, tg_reading *r)
{
    const char *col = cJSON_IsObject(f) ? tg_json_get_string(f, "column") : NULL;
    const char *op = cJSON_IsObject(f) ? tg_json_get_string(f, "op") : NULL;
    tg_rcmp cmp;
    if (!col || !cmp_of(op, &cmp))
        return unknown(r, "a filter of the intent is not {column, op, value}%s", "");
    if (!has_column(ds, nds, col))
        return unknown(r, "the intent filters on a column the data does not have: %s", col);
    const cJSON *v = tg_json_get(f, "value");
    double lo = 0, hi = 0;
    bool numeric = cJSON_IsNumber(v);
    tg_strv vals = {0};
    if (cmp == TG_RC_BETWEEN) {
        const cJSON *a = cJSON_GetArrayItem(v, 0), *b = cJSON_GetArrayItem(v, 1);
        if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || cJSON_GetArraySize(v) != 2)
            return unknown(r, "the intent's 'between' filter on %s needs two numbers", col);
        numeric = true;
        lo = a->valuedouble;
        hi = b->valuedouble;
    } else if (numeric && cmp != TG_RC_ISNA && cmp != TG_RC_NOTNA) {
        lo = v->valuedouble;
    } else if (cmp != TG_RC_ISNA && cmp != TG_RC_NOTNA) {
        const cJSON *x;
        if (cJSON_IsArray(v)) {
            cJSON_ArrayForEach(x, v) {
                char *t = value_text(x);
                if (t)
                    tg_strv_push_owned(&vals, t);
            }
        } else {
            char *t = value_text(v);
            if (t)
                tg_strv_push_owned(&vals, t);
        }
        if (vals.n == 0 || (cmp != TG_RC_EQ && cmp != TG_RC_NE)) {
            tg_strv_free(&vals);
            return unknown(r, "the intent's filter on %s has no value this reading can compare", col);
        }
    }
    tg_strv_push_owned(&r->filters, tg_reading_filter_text(col, cmp, numeric, lo, hi,
                                                           (const char *const *)vals.v, vals.n));
    tg_strv_free(&vals);
    return true;
}

static bool time_bucket_into(const cJSON *tb, const tg_dataset *ds, size_t nds, tg_reading *r)
{
    if (!tb || cJSON_IsNull(tb))
        return true;
    const char *col = tg_json_get_string(tb, "column");
    const char *p = tg_json_get_string(tb, "period");
    static const char *const words[][2] = {{"day", "D"}, {"daily", "D"}, {"week", "W"},
                                           {"weekly", "W"}, {"month", "M"}, {"monthly", "M"},
                                           {"quarter", "Q"}, {"quarterly", "Q"}, {"year", "Y"},
                                           {"yearly", "Y"}, {"D", "D"}, {"W", "W"}, {"M", "M"},
                                           {"Q", "Q"}, {"Y", "Y"}};
    for (size_t i = 0; p && i < sizeof words / sizeof *words; i++)
        if (strcmp(words[i][0], p) == 0)
            r->period = words[i][1][0];
    if (!col || !r->period)
        return unknown(r, "the intent's time bucket is not {column, period}%s", "");
    if (!has_column(ds, nds, col))
        return unknown(r, "the intent's time bucket names a column the data does not have: %s", col);
    r->date_column = xstrdup(col);
    return true;
}

static bool ranking_into(const cJSON *rk, tg_reading *r)
{
    if (!rk || cJSON_IsNull(rk))
        return true;
    const char *order = tg_json_get_string(rk, "order");
    const cJSON *k = tg_json_get(rk, "top_k");
    if (order && (strcmp(order, "desc") == 0 || strcmp(order, "descending") == 0))
        r->order = 1;
    else if (order && (strcmp(order, "asc") == 0 || strcmp(order, "ascending") == 0))
        r->order = -1;
    else if (order)
        return unknown(r, "the intent's ranking order is neither desc nor asc: %s", order);
    if (cJSON_IsNumber(k) && k->valuedouble >= 1)
        r->top_k = (long)k->valuedouble;
    else if (k && !cJSON_IsNull(k))
        return unknown(r, "the intent's top_k is not a positive number%s", "");
    return true;
}

/* The questions a model left open: any makes the reading unknown. */
static bool unclear_none(const cJSON *unclear, tg_reading *r)
{
    const cJSON *u = cJSON_GetArrayItem(unclear, 0);
    if (!u)
        return true;
    const char *text = cJSON_IsString(u) ? u->valuestring : tg_json_get_string(u, "text");
    return unknown(r, "the model could not map '%s' to the data", text ? text : "?");
}

static bool scalars_into(const cJSON *in, tg_reading *r)
{
    const char *chart = tg_json_get_string(in, "chart");
    const char *derived = tg_json_get_string(in, "derived");
    const char *method = tg_json_get_string(in, "method");
    const char *key = tg_json_get_string(in, "key");
    if (chart && strcmp(chart, "none") != 0 && *chart) {
        free(r->chart);
        r->chart = xstrdup(chart);
    }
    r->derived = derived && *derived ? xstrdup(derived) : NULL;
    r->method = method && *method ? xstrdup(method) : NULL;
    r->key = key && *key ? xstrdup(key) : NULL;
    r->threshold = tg_json_get_number(in, "threshold", 0);
    r->window = (long)tg_json_get_number(in, "window", 0);
    r->bins = (long)tg_json_get_number(in, "bins", 0);
    return true;
}

void tg_reading_from_intent(const cJSON *in, const tg_dataset *ds, size_t nds, tg_reading *r)
{
    memset(r, 0, sizeof *r);
    r->known = true;
    const char *chart = NULL;
    const char *op = operation_of(tg_json_get_string(in, "operation"), &chart);
    if (!op) {
        unknown(r, "the intent's operation is outside the reading's vocabulary: %s",
                tg_json_get_string(in, "operation") ? tg_json_get_string(in, "operation") : "none");
        return;
    }
    r->operation = xstrdup(op);
    r->chart = chart ? xstrdup(chart) : NULL;
    const cJSON *measure = tg_json_get(in, "measure");
    if (!measure && tg_json_get(in, "columns")) {
        unknown(r, "the intent lists columns without saying which are measured and which group%s",
                "");
        return;
    }
    if (!columns_into(measure, "measure", ds, nds, &r->measures, r) ||
        !columns_into(tg_json_get(in, "group_by"), "group_by", ds, nds, &r->groups, r) ||
        !time_bucket_into(tg_json_get(in, "time_bucket"), ds, nds, r) ||
        !ranking_into(tg_json_get(in, "ranking"), r) || !scalars_into(in, r) ||
        !unclear_none(tg_json_get(in, "unclear"), r))
        return;
    const cJSON *x;
    cJSON_ArrayForEach(x, tg_json_get(in, "metrics")) {
        if (!cJSON_IsString(x) || !metric_into(x->valuestring, r->measures.n > 0, &r->aggregates, r))
            return;
    }
    cJSON_ArrayForEach(x, tg_json_get(in, "filters")) {
        if (!filter_into(x, ds, nds, r))
            return;
    }
    if (strcmp(op, "aggregate") == 0 && r->aggregates.n == 0)
        unknown(r, "the intent aggregates without naming the aggregate%s", "");
    else if (r->period && strcmp(op, "aggregate") == 0)
        r->operation = (free(r->operation), xstrdup("resample"));
}
