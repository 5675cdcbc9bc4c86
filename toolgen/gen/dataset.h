/*
 * dataset.h — what generation knows of a data file: its columns, their detected types, the row
 * count and a few values, read through the sandboxed helper (docs/generate.md#datasets).
 *
 * The schema is the vocabulary of generation: the built-in generator resolves the words of an
 * intent against column names and the values of categorical columns, and the LLM prompts carry
 * it as JSON. Reading never trusts the file: it runs in the sandbox like a tool call, under the
 * repository's data directories, and everything read is bounded (TG_DATASET_* below).
 *
 * Ownership: tg_dataset_read fills a caller-owned struct whose strings and arrays it owns;
 * tg_dataset_release frees them and leaves the struct all zero. Read-only after filling.
 */
#ifndef TG_DATASET_H
#define TG_DATASET_H

#include <stddef.h>

#include "base/util.h"
#include "model/repo.h"

#define TG_DATASET_MAX_SAMPLES 5   /* sample values kept per column */
#define TG_DATASET_MAX_LEVELS 50   /* distinct values kept when a column is categorical */

typedef enum tg_col_type {
    TG_COL_INT,
    TG_COL_FLOAT,
    TG_COL_BOOL,
    TG_COL_DATE,   /* parses as a date or datetime (pandas.to_datetime on every non-missing value) */
    TG_COL_STRING,
} tg_col_type;

typedef struct tg_dataset_column {
    char *name;          /* exactly as in the header row */
    tg_col_type type;
    size_t missing;      /* empty / NA cells */
    size_t distinct;     /* distinct non-missing values */
    char **samples;      /* up to TG_DATASET_MAX_SAMPLES distinct values, as text, first seen first */
    size_t nsamples;
    char **levels;       /* every distinct value when distinct <= TG_DATASET_MAX_LEVELS, else NULL */
    size_t nlevels;
    double min, max;     /* numeric columns only (TG_COL_INT, TG_COL_FLOAT); 0 otherwise */
} tg_dataset_column;

typedef struct tg_dataset {
    char *path;          /* as given: relative to the repository root, e.g. "data/tips.csv" */
    size_t rows;         /* data rows, header excluded */
    tg_dataset_column *cols;
    size_t ncols;
} tg_dataset;

/* Reads the schema of the CSV file at path (relative to the repository root, inside one of its
 * data directories). 0, or -1 with err naming the file and what is wrong (missing, outside the
 * data directories, not a CSV, no header, the sandbox failed). */
int tg_dataset_read(const tg_repo *repo, const char *path, tg_dataset *out, tg_err *err);

/* The schema as JSON text (caller frees): {"path","rows","columns":[{"name","type","missing",
 * "distinct","samples",["levels"],["min","max"]}]}; what prompts and provenance carry. */
char *tg_dataset_to_json(const tg_dataset *ds);

/* "int", "float", "bool", "date", "string". */
const char *tg_col_type_name(tg_col_type t);

void tg_dataset_release(tg_dataset *ds);

#endif
