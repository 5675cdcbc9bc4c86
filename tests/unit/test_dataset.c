/* test_dataset.c — gen/dataset.h: a CSV's schema read in the real sandbox, and every refusal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/dataset.h"
#include "testlib.h"

static char repo[256];

static void sh(const char *fmt, const char *arg)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, arg, arg, arg, arg);
    SETUP(system(cmd) == 0, "setup: %s", cmd);
}

static const tg_dataset_column *col(const tg_dataset *ds, const char *name)
{
    for (size_t i = 0; i < ds->ncols; i++)
        if (strcmp(ds->cols[i].name, name) == 0)
            return &ds->cols[i];
    return NULL;
}

static void test_types(tg_repo *r)
{
    tg_dataset ds;
    tg_err err = {0};
    CHECK(tg_dataset_read(r, "data/mixed.csv", &ds, &err) == 0, "read: %s", err.msg);
    CHECK(ds.rows == 4, "rows %zu", ds.rows);
    CHECK(ds.ncols == 6, "columns %zu", ds.ncols);
    CHECK(strcmp(ds.path, "data/mixed.csv") == 0, "path %s", ds.path);
    const tg_dataset_column *c = col(&ds, "n");
    CHECK(c && c->type == TG_COL_INT && c->min == 1 && c->max == 40, "n: int 1..40");
    c = col(&ds, "price");
    CHECK(c && c->type == TG_COL_FLOAT && c->missing == 1 && c->max == 9.5, "price: float");
    c = col(&ds, "flag");
    CHECK(c && c->type == TG_COL_BOOL, "flag: bool");
    c = col(&ds, "when");
    CHECK(c && c->type == TG_COL_DATE, "when: date");
    c = col(&ds, "day");
    CHECK(c && c->type == TG_COL_STRING && c->distinct == 3 && c->nlevels == 3 &&
              strcmp(c->levels[0], "Sun") == 0 && c->nsamples == 3,
          "day: string with levels Sun, Mon, Tue");
    c = col(&ds, "Month Name");
    CHECK(c && c->type == TG_COL_STRING, "month names are text, not dates");
    char *json = tg_dataset_to_json(&ds);
    CHECK_CONTAINS(json, "\"name\":\"day\",\"type\":\"string\",\"missing\":0,\"distinct\":3");
    CHECK_CONTAINS(json, "\"levels\":[\"Sun\",\"Mon\",\"Tue\"]");
    CHECK_CONTAINS(json, "\"rows\":4");
    free(json);
    tg_dataset_release(&ds);
    CHECK(ds.cols == NULL && ds.ncols == 0 && ds.path == NULL, "released to zero");
}

static void test_high_cardinality(tg_repo *r)
{
    tg_dataset ds;
    tg_err err = {0};
    CHECK(tg_dataset_read(r, "data/many.csv", &ds, &err) == 0, "read: %s", err.msg);
    CHECK(ds.rows == 200, "rows %zu", ds.rows);
    const tg_dataset_column *c = col(&ds, "id");
    CHECK(c && c->distinct == 200 && c->levels == NULL && c->nsamples == TG_DATASET_MAX_SAMPLES,
          "levels dropped above TG_DATASET_MAX_LEVELS, samples capped");
    tg_dataset_release(&ds);

    CHECK(tg_dataset_read(r, "data/header.csv", &ds, &err) == 0, "header only: %s", err.msg);
    CHECK(ds.rows == 0 && ds.ncols == 2, "header only: 0 rows, 2 columns");
    tg_dataset_release(&ds);
}

static void refused(tg_repo *r, const char *path, const char *needle)
{
    tg_dataset ds;
    tg_err err = {0};
    CHECK(tg_dataset_read(r, path, &ds, &err) == -1, "%s must be refused", path);
    CHECK_CONTAINS(err.msg, needle);
    CHECK(ds.cols == NULL && ds.path == NULL, "%s: out stays zero", path);
}

int main(void)
{
    snprintf(repo, sizeof repo, "/tmp/tg-dataset-%ld", (long)getpid());
    sh("mkdir -p %s/data/sub && cd %s/data && printf 'n,price,flag,when,day,Month Name\\n"
       "1,2.5,True,2024-01-02,Sun,January\\n2,,False,2024-02-03,Mon,February\\n"
       "40,9.5,True,2024-03-04,Tue,March\\n3,1,False,2024-04-05,Sun,April\\n' > mixed.csv && "
       "printf 'a,b\\n' > header.csv && : > zero.csv && printf 'a,b\\n1,2\\n3,4,5,6,7\\n' > bad.csv && "
       "(echo id,v; seq 1 200 | sed 's/$/,1/') > many.csv && echo secret > %s/secret.csv && "
       "ln -s ../secret.csv link.csv && chmod -R o+rX %s",
       repo);
    tg_repo r;
    tg_err err = {0};
    CHECK(tg_repo_open(&r, repo, &err) == 0, "repo: %s", err.msg);
    test_types(&r);
    test_high_cardinality(&r);
    refused(&r, "data/nope.csv", "file not found: data/nope.csv");
    refused(&r, "secret.csv", "outside the data directories");
    refused(&r, "data/link.csv", "secret.csv");
    refused(&r, "data/sub", "is a directory");
    refused(&r, "data/zero.csv", "empty; a CSV file needs at least a header row");
    refused(&r, "data/bad.csv", "not a valid CSV file");
    refused(&r, "", "no file given");
    tg_repo_release(&r);
    sh("rm -rf %s", repo);
    return tl_finish("dataset");
}
