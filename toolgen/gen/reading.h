/*
 * reading.h — what a request asks for, part by part: the reading (docs/generate.md#the-reading).
 *
 * Whoever understands the request — the built-in intent compiler or a model's intent
 * extraction — fills one tg_reading: the measure, the aggregates, the groups, the filters, the
 * time bucket, the ranking, the chart, the derived quantity and the operation's own settings.
 * It is shown to the user before anything is computed ("mean of tip, grouped by day, where
 * time == 'Dinner'"), and gap detection reuses an existing tool only when every one of its parts
 * is covered by that tool (gen/cover.h). A reading that is not `known` (a part the reader could
 * not put into these fields) can never be covered: nothing is reused for it.
 *
 * The vocabulary of each field is the one of the built-in generator's plans: operations
 * aggregate, top_rows, value_counts, summary, correlation, moving_average, resample, merge,
 * pivot, missing_report, outliers, series, scatter, histogram, rows (the rows that meet the
 * filters); aggregates sum, mean, median,
 * min, max, std, count, nunique, size (rows), rate and percent (the share of a yes/no column's
 * values that are yes); filters as canonical text (tg_reading_filter_text).
 *
 * Ownership: a reading owns its strings (tg_reading_release).
 */
#ifndef TG_READING_H
#define TG_READING_H

#include <stdbool.h>
#include <stddef.h>

#include "base/json.h"
#include "base/strvec.h"
#include "gen/dataset.h"

typedef struct tg_reading {
    bool known;          /* every part of the request is in the fields below */
    char *why;           /* !known: what could not be read, for messages */
    char *operation;     /* NULL only when !known */
    tg_strv aggregates;  /* in the order asked */
    tg_strv measures;    /* the columns computed on */
    tg_strv groups;      /* the group keys, in order */
    tg_strv filters;     /* canonical text, in the order written */
    char *date_column;   /* the time axis (resample, moving average, line over time), or NULL */
    char period;         /* the time bucket: D W M Q Y, or 0 */
    int order;           /* 1 largest first, -1 smallest first, 0 not asked */
    long top_k;          /* how many to keep after ordering; 0: all */
    char *chart;         /* bar, line, scatter, histogram, heatmap, pie; NULL: no chart */
    char *derived;       /* a quantity computed per row before aggregating, or NULL: "ratio"
                            (measures[0] / measures[1]), "percent_ratio" (the same × 100), or
                            a model's own words */
    char *method;        /* correlation: pearson, spearman; outliers: iqr, zscore; or NULL */
    double threshold;    /* outliers: k of the IQR rule or of the z-score; 0: none */
    long window, bins;   /* moving average, histogram; 0: none */
    char *key;           /* merge: the key column, or NULL */
} tg_reading;

typedef enum tg_rcmp {
    TG_RC_EQ, TG_RC_NE, TG_RC_GT, TG_RC_GE, TG_RC_LT, TG_RC_LE, TG_RC_BETWEEN, TG_RC_ISNA,
    TG_RC_NOTNA,
} tg_rcmp;

/* A filter as canonical text: "time == 'Dinner'", "day not in ('Sat', 'Sun')", "age > 60",
 * "model_year between 75 and 80", "age is missing". vals are text values (numeric false) or
 * lo/hi numbers (numeric true). Caller frees. */
char *tg_reading_filter_text(const char *column, tg_rcmp cmp, bool numeric, double lo, double hi,
                             const char *const *vals, size_t nvals);

/* The reading as one line for people: "mean of tip, grouped by day, where time == 'Dinner',
 * largest first, top 3, as a bar chart". Not known: "not understood: <why>". Caller frees. */
char *tg_reading_text(const tg_reading *r);

/*
 * The reading of a model's intent (prompts/intent.md): its operation, measure, metrics,
 * group_by, filters ({column, op, value}), time_bucket ({column, period}), ranking ({order,
 * top_k}), chart, derived and unclear, checked against the datasets' columns. Anything it
 * cannot place — an operation outside the vocabulary, a column the files do not have, a filter
 * that is not {column, op, value}, a non-empty unclear — leaves the reading not known, with why.
 * Never fails: the caller decides what an unknown reading means.
 */
void tg_reading_from_intent(const cJSON *intent, const tg_dataset *ds, size_t nds,
                            tg_reading *out);

void tg_reading_release(tg_reading *r);

#endif
