/*
 * tips_schema.h — schemas of datasets built in memory for the generation tests (no files, no
 * sandbox): a tips-like table with a numeric, text and yes/no columns, and a dated price series.
 */
#ifndef TG_TIPS_SCHEMA_H
#define TG_TIPS_SCHEMA_H

#include "gen/dataset.h"

static char *tips_days[] = {"Sun", "Sat", "Thur", "Fri"};
static char *tips_sexes[] = {"Female", "Male"};
static char *tips_yesno[] = {"No", "Yes"};
static char *tips_times[] = {"Dinner", "Lunch"};

static inline tg_dataset_column schema_col(const char *name, tg_col_type t, char **levels, size_t n)
{
    return (tg_dataset_column){.name = (char *)name, .type = t, .levels = levels, .nlevels = n,
                               .distinct = n ? n : 100, .min = 0, .max = 50};
}

/* cols: room for 8 columns. */
static inline tg_dataset tips_schema(tg_dataset_column *cols)
{
    cols[0] = schema_col("total_bill", TG_COL_FLOAT, NULL, 0);
    cols[1] = schema_col("tip", TG_COL_FLOAT, NULL, 0);
    cols[2] = schema_col("sex", TG_COL_STRING, tips_sexes, 2);
    cols[3] = schema_col("smoker", TG_COL_STRING, tips_yesno, 2);
    cols[4] = schema_col("day", TG_COL_STRING, tips_days, 4);
    cols[5] = schema_col("time", TG_COL_STRING, tips_times, 2);
    cols[6] = schema_col("size", TG_COL_INT, NULL, 0);
    cols[7] = schema_col("bill_length_mm", TG_COL_FLOAT, NULL, 0);
    return (tg_dataset){.path = "data/tips.csv", .rows = 244, .cols = cols, .ncols = 8};
}

/* cols: room for 2 columns. */
static inline tg_dataset prices_schema(tg_dataset_column *cols)
{
    cols[0] = schema_col("Date", TG_COL_DATE, NULL, 0);
    cols[1] = schema_col("Price", TG_COL_FLOAT, NULL, 0);
    cols[0].distinct = cols[1].distinct = 649;
    return (tg_dataset){.path = "data/dowjones.csv", .rows = 649, .cols = cols, .ncols = 2};
}

#endif
