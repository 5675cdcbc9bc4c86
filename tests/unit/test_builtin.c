/*
 * test_builtin.c — gen/builtin.h, the built-in intent compiler.
 *
 * Without arguments: unit checks over a tips-like schema built here (no files, no sandbox):
 * phrasings of one request compile to the same plan and the same bytes, column resolution
 * (case, plurals, units, close spellings, value words), plans of each kind, and refusals that
 * name the closest phrasings.
 *
 * Test-only entry points for tests/cli/builtin_gen.sh (which runs the generated tools in the
 * sandbox and checks their results against pandas):
 *   test_builtin --generate REPO NAME INTENT DATA [DATA2]   write manifests/NAME/{tool.py,tool.manifest.yaml}
 *       with the example's output from a real run (gen/gen_example.h), and print the plan,
 *       then the example input
 *   test_builtin --plan REPO INTENT DATA [DATA2]   print the plan only (nothing written): a quick
 *       look at how an intent compiles
 * Exit status 2 with the message on stderr when the intent is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/builtin.h"
#include "gen/gen_example.h"
#include "gen/dataset.h"
#include "testlib.h"
#include "tips_schema.h"

static char *plan_of(const tg_dataset *ds, const char *intent)
{
    tg_builtin_tool t;
    tg_err err = {0};
    tg_builtin_status st = tg_builtin_generate(intent, ds, 1, NULL, &t, &err);
    CHECK(st == TG_BUILTIN_OK, "'%s' refused: %s", intent, err.msg);
    char *plan = st == TG_BUILTIN_OK ? xstrdup(t.plan) : xstrdup("(refused)");
    tg_builtin_tool_release(&t);
    return plan;
}

static void expect_plan(const tg_dataset *ds, const char *intent, const char *want)
{
    char *plan = plan_of(ds, intent);
    CHECK(strcmp(plan, want) == 0, "'%s'\n   plan: %s\n   want: %s", intent, plan, want);
    free(plan);
}

static void test_same_bytes(const tg_dataset *ds)
{
    const char *phrasings[] = {"average tip by day", "what is the mean tip for each day?",
                               "tips per day on average", "Average TIP per weekday"};
    tg_builtin_tool first;
    tg_err err = {0};
    CHECK(tg_builtin_generate(phrasings[0], ds, 1, NULL, &first, &err) == TG_BUILTIN_OK, "%s", err.msg);
    CHECK(strcmp(first.name, "mean_tip_by_day") == 0, "name %s", first.name);
    CHECK(strcmp(first.plan, "aggregate mean(tip) by day") == 0, "plan %s", first.plan);
    CHECK_CONTAINS(first.manifest_yaml, "status: draft");
    CHECK_CONTAINS(first.manifest_yaml, "generator: offline\n  model: toolgen-builtin-");
    CHECK_CONTAINS(first.manifest_yaml, "intent: \"Mean of tip per day\"");
    CHECK_CONTAINS(first.code, "def run(\n    file_path: str = 'data/tips.csv',\n    value_columns: list = None,\n");
    CHECK_CONTAINS(first.example_input, "\"file_path\": \"data/tips.csv\"");
    /* no knob that changes the data the answer is computed from */
    CHECK(!strstr(first.manifest_yaml, "max_rows") && !strstr(first.manifest_yaml, "repeat"),
          "no test knobs in the contract");
    CHECK(!strstr(first.code, "max_rows") && !strstr(first.code, "repeat"), "nor in the code");
    /* the title comes from the call's arguments, what was left out is counted with the reason */
    CHECK_CONTAINS(first.code, "    title = f\"Mean of {names(value_columns)} per {names(group_by)}\"\n");
    CHECK_CONTAINS(first.code, "data = keep(df, df[group_by].notna().all(axis=1), "
                               "f\"{names(group_by)} missing (a group key)\", dropped)");
    CHECK_CONTAINS(first.manifest_yaml, "rows_dropped:");
    for (size_t i = 1; i < sizeof phrasings / sizeof *phrasings; i++) {
        tg_builtin_tool t;
        CHECK(tg_builtin_generate(phrasings[i], ds, 1, NULL, &t, &err) == TG_BUILTIN_OK,
              "'%s': %s", phrasings[i], err.msg);
        CHECK(t.plan && strcmp(t.plan, first.plan) == 0, "'%s' plan %s", phrasings[i], t.plan);
        CHECK(t.code && strcmp(t.code, first.code) == 0, "'%s': other code", phrasings[i]);
        CHECK(t.manifest_yaml && strcmp(t.manifest_yaml, first.manifest_yaml) == 0,
              "'%s': other manifest", phrasings[i]);
        tg_builtin_tool_release(&t);
    }
    CHECK(tg_builtin_set_example_output(&first, "{\"rows\": []}", &err) == 0, "%s", err.msg);
    CHECK_CONTAINS(first.manifest_yaml, "    output: {\"rows\":[]}\n");
    CHECK(tg_builtin_set_example_output(&first, "{}", &err) == -1, "filled twice");
    tg_builtin_tool_release(&first);
}

static void test_plans(const tg_dataset *ds)
{
    expect_plan(ds, "sum of total bill per sex and smoker", "aggregate sum(total_bill) by sex, smoker");
    expect_plan(ds, "how many rows per day", "aggregate size() by day");
    expect_plan(ds, "median tip for smokers on Sunday",
                "aggregate median(tip) where smoker == 'Yes' and day == 'Sun'");
    expect_plan(ds, "average tip where total bill is over 20 by time",
                "aggregate mean(tip) by time where total_bill > 20");
    expect_plan(ds, "top 2 days by total tip", "aggregate sum(tip) by day | sort desc | top 2");
    expect_plan(ds, "which day has the highest average tip",
                "aggregate mean(tip) by day | sort desc | top 1");
    expect_plan(ds, "top 5 rows by total_bill", "top_rows total_bill | sort desc | top 5");
    expect_plan(ds, "share of each day", "value_counts day");
    expect_plan(ds, "correlation between tip and total bill", "correlation total_bill, tip pearson");
    expect_plan(ds, "average bill length by sex", "aggregate mean(bill_length_mm) by sex");
    expect_plan(ds, "avrage tip by dayy", "aggregate mean(tip) by day");
    expect_plan(ds, "number of distinct days", "aggregate nunique(day)");
    expect_plan(ds, "outliers in tip by z-score", "outliers tip z-score > 3");
    expect_plan(ds, "histogram of tip with 20 bins", "histogram tip bins 20 | histogram chart");
    expect_plan(ds, "scatter plot of tip vs total_bill", "scatter total_bill, tip | scatter chart");
    expect_plan(ds, "bar chart of mean tip per day", "aggregate mean(tip) by day | bar chart");
    expect_plan(ds, "pivot table of average tip by day and time",
                "pivot mean(tip) rows day columns time");
    expect_plan(ds, "missing values per column", "missing_report");
    expect_plan(ds, "how many dinners", "aggregate size() where time == 'Dinner'");
    expect_plan(ds, "average tip where day is not Sat or Sun",
                "aggregate mean(tip) where day not in ('Sat', 'Sun')");
    /* "X first" orders and keeps every group; only a superlative alone asks for one */
    expect_plan(ds, "average tip by day, highest first", "aggregate mean(tip) by day | sort desc");
    expect_plan(ds, "total tip by day, lowest first", "aggregate sum(tip) by day | sort asc");
    expect_plan(ds, "mean tip per day with the largest tip last",
                "aggregate mean(tip) by day | sort asc");
    /* a superlative with a group clause is the largest of each group, every group kept;
     * "which day has the highest tip" ranks the days (asked how, in test_questions) */
    expect_plan(ds, "biggest tip for each day", "aggregate max(tip) by day");
    expect_plan(ds, "lowest total bill per sex", "aggregate min(total_bill) by sex");
    /* a pie of a yes/no column is its value shares, not a rate */
    expect_plan(ds, "pie chart of smoker shares", "value_counts smoker | pie chart");
    expect_plan(ds, "describe tip by day", "summary tip by day");
}

static void expect_refused(const tg_dataset *ds, const char *intent, const char *needle);

/* Dated data: a period pooled across another is refused by name, never read as one of them. */
static void test_periods(void)
{
    tg_dataset_column cols[2];
    tg_dataset ds = prices_schema(cols);
    expect_plan(&ds, "average price per month", "resample mean(Price) per period M of Date");
    expect_plan(&ds, "average price across all years", "aggregate mean(Price)");
    expect_refused(&ds, "average price by month across all years",
                   "'month' pooled across all years");
    expect_refused(&ds, "which month had the highest average price across all years",
                   "'month' pooled across all years");
}

static void expect_refused(const tg_dataset *ds, const char *intent, const char *needle)
{
    tg_builtin_tool t;
    tg_err err = {0};
    tg_builtin_status st = tg_builtin_generate(intent, ds, 1, NULL, &t, &err);
    CHECK(st == TG_BUILTIN_REFUSED, "'%s' must be refused (plan %s)", intent, t.plan ? t.plan : "-");
    CHECK_CONTAINS(err.msg, needle);
    char *closest = xasprintf("Closest phrasings it supports on %s: \"", ds->path);
    CHECK_CONTAINS(err.msg, closest);
    free(closest);
    CHECK_CONTAINS(err.msg, "llm.provider");
    CHECK(t.manifest_yaml == NULL && t.code == NULL, "nothing written for '%s'", intent);
    tg_builtin_tool_release(&t);
}

static void test_refusals(const tg_dataset *ds)
{
    expect_refused(ds, "average salary by day", "'salary' is neither a column of data/tips.csv (total_bill, tip");
    expect_refused(ds, "forecast next year's tips", "'forecast'");
    expect_refused(ds, "colorless green ideas sleep furiously", "is neither a column");
    expect_refused(ds, "mean sex by day", "sex holds string values");
    expect_refused(ds, "per day", "say what to compute");
    expect_refused(ds, "", "the intent is empty");
    expect_refused(ds, "merge on day", "merging needs two data files");
    tg_builtin_tool t;
    tg_err err = {0};
    CHECK(tg_builtin_generate("average tip by day", ds, 1, "Bad Name", &t, &err) == TG_BUILTIN_ERROR,
          "bad name");
    CHECK_CONTAINS(err.msg, "is not a tool name");
    CHECK(tg_builtin_generate("average tip by day", ds, 0, NULL, &t, &err) == TG_BUILTIN_ERROR,
          "no dataset");
}

/* A request with one thing open is asked about (about, an option), and the answer settles it. */
static void expect_question(const tg_dataset *ds, const char *intent, const char *about,
                            const char *option, const char *plan)
{
    tg_builtin_tool t;
    tg_builtin_question q;
    tg_err err = {0};
    tg_builtin_status st = tg_builtin_compile(intent, ds, 1, NULL, NULL, 0, &t, &q, &err);
    CHECK(st == TG_BUILTIN_ASK, "'%s' must be asked about (status %d: %s)", intent, st, err.msg);
    CHECK(q.about && strcmp(q.about, about) == 0, "'%s': about '%s', want '%s'", intent,
          q.about ? q.about : "", about);
    bool offered = false;
    for (size_t i = 0; i < q.noptions; i++)
        offered = offered || strcmp(q.options[i], option) == 0;
    CHECK(offered, "'%s': option %s offered", intent, option);
    CHECK(t.manifest_yaml == NULL, "'%s': nothing written while asking", intent);
    tg_builtin_question_release(&q);
    char *answer = xasprintf("%s=%s", about, option);
    const char *assume[] = {answer};
    st = tg_builtin_compile(intent, ds, 1, NULL, assume, 1, &t, &q, &err);
    CHECK(st == TG_BUILTIN_OK && strcmp(t.plan, plan) == 0, "'%s' with %s: %s", intent, answer,
          st == TG_BUILTIN_OK ? t.plan : err.msg);
    free(answer);
    tg_builtin_tool_release(&t);
    tg_builtin_question_release(&q);
}

/* An answer that is none of the question's options: refused, saying which answers there are. */
static void expect_bad_answer(const tg_dataset *ds, const char *intent, const char *answer,
                              const char *needle)
{
    tg_builtin_tool t;
    tg_builtin_question q;
    tg_err err = {0};
    const char *assume[] = {answer};
    tg_builtin_status st = tg_builtin_compile(intent, ds, 1, NULL, assume, 1, &t, &q, &err);
    CHECK(st == TG_BUILTIN_REFUSED, "'%s' with %s must be refused (status %d: %s)", intent,
          answer, st, st == TG_BUILTIN_OK ? t.plan : err.msg);
    CHECK_CONTAINS(err.msg, needle);
    CHECK(t.manifest_yaml == NULL, "'%s' with %s: nothing written", intent, answer);
    tg_builtin_tool_release(&t);
    tg_builtin_question_release(&q);
}

static void test_questions(const tg_dataset *ds)
{
    expect_question(ds, "tip by day", "aggregate", "sum", "aggregate sum(tip) by day");
    expect_question(ds, "average bill by day", "bill", "bill_length_mm",
                    "aggregate mean(bill_length_mm) by day");
    expect_question(ds, "average party size by day", "party size", "size",
                    "aggregate mean(size) by day");
    /* a superlative of a measure over a text column: how it is computed per group is asked */
    expect_question(ds, "highest tip day", "aggregate", "mean",
                    "aggregate mean(tip) by day | sort desc | top 1");
    expect_question(ds, "which day has the highest tip", "aggregate", "max",
                    "aggregate max(tip) by day | sort desc | top 1");
    /* "in a single day": each row, or each day's rows together — the data's grain decides */
    expect_question(ds, "biggest tip in a single day", "in a single day", "rows",
                    "aggregate max(tip)");
    expect_question(ds, "maximum tip in a single day", "in a single day", "each",
                    "aggregate max(tip) by day");
    /* a direction word is no part of a column's name ("fewest tips": fewest, then tips) */
    expect_question(ds, "which day had the fewest tips", "aggregate", "count",
                    "aggregate count(tip) by day | sort asc | top 1");
    /* the rows that meet filters, named and nothing said of them: return them or count them */
    expect_question(ds, "customers with a tip over 5", "result", "rows", "rows where tip > 5");
    expect_question(ds, "customers with a tip over 5", "result", "count",
                    "aggregate size() where tip > 5");
    expect_question(ds, "customers who smoke on sunday", "result", "count",
                    "aggregate size() where smoker == 'Yes' and day == 'Sun'");
    expect_plan(ds, "show the customers with a tip over 5", "rows where tip > 5");
    expect_plan(ds, "how many customers with a tip over 5", "aggregate size() where tip > 5");
    expect_refused(ds, "customers with a tip over 5", "Should the tool return the rows");
    expect_bad_answer(ds, "customers with a tip over 5", "result=both",
                      "answer rows (return them) or count (how many)");
    /* words before a column's own name that name nothing are no modifier of it */
    expect_refused(ds, "predict tomorrow's tip", "'predict'");
    /* a request refused for another reason is refused, not asked about */
    expect_refused(ds, "predict the bill by day", "'predict'");
}

/* Requests as people write them: relative clauses, contractions, numbers in words, units. */
static void test_users_words(const tg_dataset *ds)
{
    /* a yes/no column in a relative clause is a filter of what is computed... */
    expect_plan(ds, "maximum tip of customers who smoke", "aggregate max(tip) where smoker == 'Yes'");
    expect_plan(ds, "average tip of people who are not smokers",
                "aggregate mean(tip) where smoker != 'Yes'");
    expect_plan(ds, "average tip of customers who didn't smoke",
                "aggregate mean(tip) where smoker != 'Yes'");
    expect_plan(ds, "average tip of customers who didn\u2019t smoke by day",
                "aggregate mean(tip) by day where smoker != 'Yes'");
    /* named as the people it holds, beside a measured column: a filter too */
    expect_plan(ds, "average tip of smokers", "aggregate mean(tip) where smoker == 'Yes'");
    expect_plan(ds, "largest total bill of a smoker", "aggregate max(total_bill) where smoker == 'Yes'");
    expect_plan(ds, "average tip of smokers and non-smokers", "aggregate mean(tip) by smoker");
    /* ...and what is computed when the request asks for its rate */
    expect_plan(ds, "percentage of customers who smoke by day", "aggregate percent(smoker) by day");
    expect_plan(ds, "percentage of customers who smoke by size", "aggregate percent(smoker) by size");
    /* a noun for the rows before a group key: the rows' own column */
    expect_plan(ds, "average tip by customer sex", "aggregate mean(tip) by sex");
    /* a verb of a column's name */
    expect_plan(ds, "average total bill of customers who tipped over 5",
                "aggregate mean(total_bill) where tip > 5");
    /* numbers in words */
    expect_plan(ds, "top three days by total tip", "aggregate sum(tip) by day | sort desc | top 3");
    expect_plan(ds, "average tip where total bill is over twenty five",
                "aggregate mean(tip) where total_bill > 25");
    expect_plan(ds, "average tip where total bill is over twenty-five",
                "aggregate mean(tip) where total_bill > 25");
    expect_plan(ds, "number of rows where total bill is over two thousand",
                "aggregate size() where total_bill > 2000");
    expect_plan(ds, "correlation between the two columns tip and total bill",
                "correlation total_bill, tip pearson");
    expect_plan(ds, "correlation between two columns tip and total bill",
                "correlation total_bill, tip pearson");
    expect_plan(ds, "average of two columns tip and total bill", "aggregate mean(tip, total_bill)");
    /* words that exclude what follows them */
    expect_plan(ds, "average tip except on Sunday", "aggregate mean(tip) where day != 'Sun'");
    expect_plan(ds, "average tip excluding total bills over 20",
                "aggregate mean(tip) where total_bill <= 20");
    expect_refused(ds, "average tip except total bills between 10 and 20", "an excluded range");
    /* the rows themselves, when asked to be seen; without such a word their number may be
     * meant as well: refused, saying what to compute */
    expect_plan(ds, "list the tips over 5", "rows where tip > 5");
    expect_plan(ds, "show me the dinners on Sunday", "rows where time == 'Dinner' and day == 'Sun'");
    expect_refused(ds, "tips over 5", "say what to compute");
    expect_plan(ds, "show the average tip by day", "aggregate mean(tip) by day");
    /* the first rows of each group: refused, not asked how to aggregate */
    expect_refused(ds, "top 2 tips per day", "the 2 first rows of each group are not computed");
    expect_refused(ds, "the 3 largest tips for each day",
                   "the 3 first rows of each group are not computed");
    expect_plan(ds, "top 2 days by total tip", "aggregate sum(tip) by day | sort desc | top 2");
    /* a column at the row where another is extreme, not the extreme of each */
    expect_plan(ds, "tip of the smallest total bill", "top_rows total_bill | sort asc | top 1");
    expect_plan(ds, "smallest total bill and tip", "aggregate min(total_bill, tip)");
    /* every value of a column, each named with "and": compared, per value (as a filter it would
     * keep every row); "or", or some of the values, is a filter */
    expect_plan(ds, "average tip for males and females", "aggregate mean(tip) by sex");
    expect_plan(ds, "compare the average tip at lunch and dinner", "aggregate mean(tip) by time");
    expect_plan(ds, "average tip at lunch or dinner",
                "aggregate mean(tip) where time in ('Lunch', 'Dinner')");
    expect_plan(ds, "average tip on Saturday and Sunday",
                "aggregate mean(tip) where day in ('Sat', 'Sun')");
    /* the share of one value: its column's counts; with a second filter, not guessed */
    expect_plan(ds, "proportion of female customers", "value_counts sex");
    expect_plan(ds, "percentage of dinners", "value_counts time");
    expect_refused(ds, "percentage of dinners on Sunday", "value counts needs 1 column");
    /* a superlative that asks for the row (which one, who, the one with) gets the row, which
     * holds the value too; one that names the value it wants gets the value */
    expect_plan(ds, "which customer left the biggest tip", "top_rows tip | sort desc | top 1");
    expect_plan(ds, "the customer with the smallest total bill",
                "top_rows total_bill | sort asc | top 1");
    expect_plan(ds, "the customer who left the biggest tip on Sunday",
                "top_rows tip where day == 'Sun' | sort desc | top 1");
    expect_plan(ds, "the biggest tip", "aggregate max(tip)");
    expect_plan(ds, "what was the biggest tip", "aggregate max(tip)");
    expect_plan(ds, "who left the biggest tip", "top_rows tip | sort desc | top 1");
    expect_plan(ds, "the biggest tipping female customer",
                "top_rows tip where sex == 'Female' | sort desc | top 1");
    expect_plan(ds, "the biggest tip of customers who smoke",
                "aggregate max(tip) where smoker == 'Yes'");
    expect_plan(ds, "the biggest tip of any customer", "aggregate max(tip)");
    expect_plan(ds, "total bill of the customer with the biggest tip",
                "top_rows tip | sort desc | top 1");
    /* "top" without a number: one row when it names one, else the first five */
    expect_plan(ds, "the top tipping Sunday customer",
                "top_rows tip where day == 'Sun' | sort desc | top 1");
    expect_plan(ds, "top tipping customer on Sunday",
                "top_rows tip where day == 'Sun' | sort desc | top 1");
    expect_plan(ds, "the top tipping customers", "top_rows tip | sort desc | top 5");
    expect_plan(ds, "the top 3 tipping customers", "top_rows tip | sort desc | top 3");
    /* a unit after the number: the column's own, or refused (no conversion is guessed) */
    expect_plan(ds, "average tip where bill length is over 40 millimeters",
                "aggregate mean(tip) where bill_length_mm > 40");
    expect_plan(ds, "how many rows have a bill length over 40 mm",
                "aggregate size() where bill_length_mm > 40");
    expect_refused(ds, "average tip where bill length is over 4 cm",
                   "'cm' after a number: column bill_length_mm is in mm; give the number in mm");
    /* a currency after an amount of a column that names none: the amount as written */
    expect_plan(ds, "average tip where total bill is over 30 dollars",
                "aggregate mean(tip) where total_bill > 30");
    expect_plan(ds, "how many tips between 2 and 4 dollars", "aggregate size() where tip between 2 and 4");
    expect_refused(ds, "average tip where size is over 3 dollars", "'dollars' is neither a column");
}

/* ---- test-only entry points -------------------------------------------------------------- */

static int write_in(const char *dir, const char *file, const char *text)
{
    char *path = xasprintf("%s/%s", dir, file);
    tg_err err = {0};
    int rc = tg_write_file_atomic(path, text, strlen(text), &err);
    if (rc == 0)
        chmod(path, 0644);
    else
        fprintf(stderr, "%s\n", err.msg);
    free(path);
    return rc;
}

/* The example's real output written into t->manifest_yaml; 0, or 1 with the error printed. */
static int record_example(const tg_repo *repo, const char *tool_dir, tg_builtin_tool *t)
{
    char *mpath = xasprintf("%s/tool.manifest.yaml", tool_dir);
    bool env_problem = false;
    tg_err err = {0};
    char *result = tg_gen_run_example(repo, mpath, t->example_input, &env_problem, &err);
    free(mpath);
    int rc = result ? tg_builtin_set_example_output(t, result, &err) : -1;
    free(result);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    return rc != 0;
}

static int generate(int argc, char **argv)
{
    tg_repo repo;
    tg_err err = {0};
    if (tg_repo_open(&repo, argv[2], &err) != 0)
        return fprintf(stderr, "%s\n", err.msg), 1;
    tg_dataset ds[2] = {0};
    size_t nds = 0;
    for (int i = 5; i < argc && nds < 2; i++, nds++)
        if (tg_dataset_read(&repo, argv[i], &ds[nds], &err) != 0)
            return fprintf(stderr, "%s\n", err.msg), 1;
    tg_builtin_tool t;
    tg_builtin_status st = tg_builtin_generate(argv[4], ds, nds, argv[3], &t, &err);
    int rc = st == TG_BUILTIN_OK ? 0 : st == TG_BUILTIN_REFUSED ? 2 : 1;
    if (st != TG_BUILTIN_OK) {
        fprintf(stderr, "%s\n", err.msg);
    } else {
        char *dir = xasprintf("%s/manifests/%s", argv[2], t.name);
        char *rel = xasprintf("manifests/%s", t.name);
        if (tg_mkdirs(dir, &err) != 0 || write_in(dir, "tool.py", t.code) != 0)
            rc = 1;
        chmod(dir, 0755);
        /* the example's output from a real run in the sandbox (gen/gen_example.h), as
         * `toolgen new` records it: the manifest with its placeholder first, then the result */
        if (rc == 0 && (write_in(dir, "tool.manifest.yaml", t.manifest_yaml) != 0 ||
                        record_example(&repo, rel, &t) != 0))
            rc = 1;
        if (rc == 0 && write_in(dir, "tool.manifest.yaml", t.manifest_yaml) != 0)
            rc = 1;
        free(rel);
        printf("%s\n%s\n", t.plan, t.example_input);
        free(dir);
        tg_builtin_tool_release(&t);
    }
    for (size_t i = 0; i < nds; i++)
        tg_dataset_release(&ds[i]);
    tg_repo_release(&repo);
    return rc;
}

/* A column name from a hostile file cannot break out of the docstring or the YAML comment. */
static void test_hostile_names(void)
{
    static char *levels[] = {"a", "b"};
    tg_dataset_column cols[2] = {schema_col("x\"\"\"\nimport os\n#", TG_COL_FLOAT, NULL, 0),
                                 schema_col("g", TG_COL_STRING, levels, 2)};
    tg_dataset ds = {.path = "data/h.csv", .rows = 2, .cols = cols, .ncols = 2};
    tg_builtin_tool t;
    tg_err err = {0};
    CHECK(tg_builtin_generate("average ximportos by g", &ds, 1, "hostile", &t, &err) == TG_BUILTIN_OK,
          "%s", err.msg);
    CHECK(t.code && !strstr(t.code, "\nimport os"), "no line of code from a column name");
    CHECK_CONTAINS(t.code, "    aggregate mean(x''' import os #) by g\n"); /* in the docstring */
    CHECK_CONTAINS(t.code, "value_columns = ['x\"\"\"\\nimport os\\n#']");
    CHECK(t.manifest_yaml && !strstr(t.manifest_yaml, "\nimport os"), "no YAML line from a column name");
    tg_builtin_tool_release(&t);
}

/* A year of four digits against a year column of two-digit values: every row or none would be
 * kept, so the request is refused with the number to write instead. */
static void test_year_scale(void)
{
    tg_dataset_column cols[3] = {schema_col("mpg", TG_COL_FLOAT, NULL, 0),
                                 schema_col("model_year", TG_COL_INT, NULL, 0),
                                 schema_col("weight", TG_COL_INT, NULL, 0)};
    cols[1].min = 70, cols[1].max = 82;
    cols[2].min = 1613, cols[2].max = 5140;
    tg_dataset ds = {.path = "data/mpg.csv", .rows = 398, .cols = cols, .ncols = 3};
    expect_refused(&ds, "how many cars were built before 1975",
                   "1975 compared with model_year, whose values run from 70 to 82: if model_year "
                   "holds years written with two digits, say so with the number as it holds it "
                   "(\"model_year before 75\")");
    expect_refused(&ds, "average mpg of cars from 1975 to 1980", "(\"model_year before 75\")");
    /* what the message says to write */
    expect_plan(&ds, "how many cars with model year before 75",
                "aggregate size() where model_year < 75");
    /* not a year column: a large number is just a large number */
    expect_plan(&ds, "average mpg where weight is over 2000", "aggregate mean(mpg) where weight > 2000");
}

/* "how many passengers" of a whole-number column named in the plural: its total, or the rows —
 * asked; said with "total", the total alone. */
static void test_counted_things(void)
{
    static char *months[] = {"January", "February"};
    tg_dataset_column cols[3] = {schema_col("year", TG_COL_INT, NULL, 0),
                                 schema_col("month", TG_COL_STRING, months, 2),
                                 schema_col("passengers", TG_COL_INT, NULL, 0)};
    cols[0].min = 1949, cols[0].max = 1960;
    cols[2].min = 104, cols[2].max = 622;
    tg_dataset ds = {.path = "data/flights.csv", .rows = 144, .cols = cols, .ncols = 3};
    expect_question(&ds, "how many passengers flew in 1950", "passengers", "total",
                    "aggregate sum(passengers) where year == 1950");
    expect_question(&ds, "number of passengers per month", "passengers", "rows",
                    "aggregate size() by month");
    expect_plan(&ds, "how many passengers flew in total", "aggregate sum(passengers)");
    expect_plan(&ds, "total passengers in 1950", "aggregate sum(passengers) where year == 1950");
    expect_plan(&ds, "how many rows in 1950", "aggregate size() where year == 1950");
    expect_plan(&ds, "average number of passengers before 1955",
                "aggregate mean(passengers) where year < 1955");
}

/* "the busiest month" on a table with a row per month and year: every month has as many rows,
 * so it is the total of the one count column (with another measure beside it, which one is
 * asked); on a table of events (rows per group that differ) the rows are counted. */
static void test_busiest(void)
{
    static char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    tg_dataset_column cols[4] = {schema_col("year", TG_COL_INT, NULL, 0),
                                 schema_col("month", TG_COL_STRING, months, 12),
                                 schema_col("passengers", TG_COL_INT, NULL, 0),
                                 schema_col("revenue", TG_COL_FLOAT, NULL, 0)};
    cols[0].min = 1949, cols[0].max = 1960, cols[0].distinct = 12;
    cols[2].min = 104, cols[2].max = 622;
    tg_dataset ds = {.path = "data/flights.csv", .rows = 144, .cols = cols, .ncols = 3};
    expect_plan(&ds, "which is the busiest month",
                "aggregate sum(passengers) by month | sort desc | top 1");
    expect_plan(&ds, "the most popular month",
                "aggregate sum(passengers) by month | sort desc | top 1");
    ds.ncols = 4; /* a second measure: which total is asked */
    expect_question(&ds, "which is the busiest month", "busiest", "revenue",
                    "aggregate sum(revenue) by month | sort desc | top 1");
    ds.ncols = 3;
    ds.rows = 150; /* not a month of each year: the rows are events, counted */
    expect_plan(&ds, "which is the busiest month",
                "aggregate size() by month | sort desc | top 1");
}

/* Ranges of years as people write them: "from 1990 to 1999", "between 1990 and 1999", "the
 * 1990s" — one filter, both ends inclusive (a "to" once read as "== 1999"); a year column
 * named first takes its comparison ("where Year since 1990"); "the 1900s" is asked about. */
static void test_year_ranges(void)
{
    static char *countries[] = {"Germany", "France", "Japan"};
    tg_dataset_column cols[4] = {schema_col("Year", TG_COL_INT, NULL, 0),
                                 schema_col("Country", TG_COL_STRING, countries, 3),
                                 schema_col("Spending_USD", TG_COL_FLOAT, NULL, 0),
                                 schema_col("Life_Expectancy", TG_COL_FLOAT, NULL, 0)};
    cols[0].min = 1970, cols[0].max = 2020;
    cols[2].min = 123, cols[2].max = 11859;
    cols[3].min = 65, cols[3].max = 85;
    tg_dataset ds = {.path = "data/healthexp.csv", .rows = 274, .cols = cols, .ncols = 4};
    static const char *const nineties[] = {
        "average life expectancy from 1990 to 1999", "average life expectancy between 1990 and 1999",
        "average life expectancy in the 1990s", "average life expectancy during the 1990's",
        "average Life_Expectancy where Year from 1990 to 1999",
        "average life expectancy for 1990 through 1999",
        "average life expectancy from 1999 to 1990", /* either order: once 1999 <= Year == 1990 */
        "average life expectancy since 1990 until 1999",
        "average Life_Expectancy where Year from 1999 to 1990",
        "average Life_Expectancy where Year is in the 1990s"};
    for (size_t i = 0; i < sizeof nineties / sizeof *nineties; i++)
        expect_plan(&ds, nineties[i],
                    "aggregate mean(Life_Expectancy) where Year between 1990 and 1999");
    expect_plan(&ds, "total spending by country between 2000 and 2009",
                "aggregate sum(Spending_USD) by Country where Year between 2000 and 2009");
    expect_plan(&ds, "average life expectancy in the 1970s by country",
                "aggregate mean(Life_Expectancy) by Country where Year between 1970 and 1979");
    expect_plan(&ds, "average Life_Expectancy where Year since 1990",
                "aggregate mean(Life_Expectancy) where Year >= 1990");
    expect_plan(&ds, "average Life_Expectancy where Year after 1990",
                "aggregate mean(Life_Expectancy) where Year > 1990");
    expect_question(&ds, "average life expectancy in the 1900s", "1900s", "century",
                    "aggregate mean(Life_Expectancy) where Year between 1900 and 1999");
    expect_question(&ds, "average life expectancy in the 1900s", "1900s", "decade",
                    "aggregate mean(Life_Expectancy) where Year between 1900 and 1909");
    expect_refused(&ds, "average life expectancy in the 1995s", "is no decade");
    /* a lone "to" is no comparison ("equal to" is): refused, never read as == 1999 */
    expect_refused(&ds, "average life expectancy to 1999", "the number 1999");
    expect_plan(&ds, "average Life_Expectancy where Year is equal to 1995",
                "aggregate mean(Life_Expectancy) where Year == 1995");
    expect_plan(&ds, "average Life_Expectancy where Year between 1999 and 1990",
                "aggregate mean(Life_Expectancy) where Year between 1990 and 1999");
}

/* "state": the column whose values are all US states (here more than a profile keeps as
 * levels: its samples); "which state has the highest ..." where each row is one state gets
 * that row, where states repeat the ranking of groups (whose aggregate is asked). */
static void test_states(void)
{
    static char *codes[] = {"AL", "AK", "AZ", "AR", "CA"}, *names[] = {"Texas", "Ohio",
                                                                        "New York"};
    tg_dataset_column cols[3] = {schema_col("ins_premium", TG_COL_FLOAT, NULL, 0),
                                 schema_col("speeding", TG_COL_FLOAT, NULL, 0),
                                 schema_col("abbrev", TG_COL_STRING, NULL, 0)};
    cols[2].samples = codes, cols[2].nsamples = 5, cols[2].distinct = 51;
    tg_dataset ds = {.path = "data/car_crashes.csv", .rows = 51, .cols = cols, .ncols = 3};
    expect_plan(&ds, "which state has the highest insurance premium",
                "top_rows ins_premium | sort desc | top 1");
    expect_plan(&ds, "which state has the lowest speeding", "top_rows speeding | sort asc | top 1");
    expect_plan(&ds, "average insurance premium by state", "aggregate mean(ins_premium) by abbrev");
    /* "states" are the rows, as "passengers" are */
    expect_plan(&ds, "how many states have a speeding above 5", "aggregate size() where speeding > 5");
    expect_plan(&ds, "top 5 states by premium", "top_rows ins_premium | sort desc | top 5");
    /* states that repeat: groups, ranked by what is asked */
    cols[2].samples = NULL, cols[2].nsamples = 0;
    cols[2].levels = names, cols[2].nlevels = 3, cols[2].distinct = 3;
    ds.rows = 300;
    expect_plan(&ds, "which state has the highest average speeding",
                "aggregate mean(speeding) by abbrev | sort desc | top 1");
    /* a column that is not all states is not "state" */
    static char *mixed[] = {"AL", "AK", "Paris"};
    cols[2].levels = mixed;
    expect_refused(&ds, "average speeding by state", "'state' is neither a column");
}

/* Misreadings that were wrong answers: a list of values whose first is a grammar word ("first
 * and second class": first was a ranking word, and only Second kept), "first N ROWS by COL"
 * (was the row count per fare), a column at each group's extreme row (was the largest of
 * both columns per group), a measure on the busiest group, "per" a word for the rows. */
static void test_listed_and_ranked(void)
{
    static char *classes[] = {"First", "Second", "Third"};
    tg_dataset_column cols[3] = {schema_col("class", TG_COL_STRING, classes, 3),
                                 schema_col("age", TG_COL_FLOAT, NULL, 0),
                                 schema_col("fare", TG_COL_FLOAT, NULL, 0)};
    tg_dataset ds = {.path = "data/titanic.csv", .rows = 891, .cols = cols, .ncols = 3};
    expect_plan(&ds, "average age of first and second class passengers",
                "aggregate mean(age) where class in ('First', 'Second')");
    expect_plan(&ds, "average age of passengers in first or second class",
                "aggregate mean(age) where class in ('First', 'Second')");
    expect_plan(&ds, "average age of first class passengers", "aggregate mean(age) where class == 'First'");
    expect_plan(&ds, "first 5 passengers by fare", "top_rows fare | sort desc | top 5");
    expect_plan(&ds, "top 5 passengers by fare", "top_rows fare | sort desc | top 5");
    tg_dataset_column tcols[8];
    tg_dataset tips = tips_schema(tcols);
    expect_refused(&tips, "tip of each day's biggest bill", "at the row of each group");
    expect_plan(&tips, "tip of the biggest total bill", "top_rows total_bill | sort desc | top 1");
    expect_plan(&tips, "biggest tip and total bill per day", "aggregate max(tip, total_bill) by day");
    /* a size word before the rows' noun is no count of them (was the day with most rows) */
    expect_refused(&tips, "biggest customer on each day", "max of which column");
    expect_plan(&tips, "day with the most customers", "aggregate size() by day | sort desc | top 1");
    /* a column reported for the group ranked by another (was ranked by the reported one) */
    expect_plan(&tips, "average tip of the day with the highest total bill",
                "aggregate mean(total_bill, tip) by day | sort desc | top 1");
    /* a measure on the busiest group (was ranked by the measure, or its count reported) */
    expect_refused(&tips, "tip amount on the busiest day", "'busiest' ranks the day");
    expect_plan(&tips, "busiest day", "aggregate size() by day | sort desc | top 1");
    /* "per bill" where "bill" loosely names total_bill: each row (was tip / total_bill) */
    tips.ncols = 7; /* without bill_length_mm, "bill" names only total_bill */
    expect_plan(&tips, "average tip per bill", "aggregate mean(tip)");
    expect_plan(&tips, "average tip per customer", "aggregate mean(tip)");
}

/* "no tip": zero where the column holds zeros and no missing values, missing where it holds
 * missing values and no zero, asked where both are possible. */
/* "ROWS with COL": the rows that have one — not 0, not missing — never COL as a measure (it was
 * "mean(total_bill, tip)" over every row). */
static void test_with_value(void)
{
    tg_dataset_column cols[8];
    tg_dataset ds = tips_schema(cols); /* tip: 0 to 50, nothing missing */
    expect_plan(&ds, "average total bill of customers with a tip",
                "aggregate mean(total_bill) where tip > 0");
    expect_plan(&ds, "how many customers that had a tip", "aggregate size() where tip > 0");
    expect_plan(&ds, "average total bill of customers with a tip over 5",
                "aggregate mean(total_bill) where tip > 5");
    expect_plan(&ds, "correlation of tip with total bill", "correlation total_bill, tip pearson");
    cols[7].min = 32, cols[7].missing = 2; /* bill_length_mm: no zero, two missing */
    expect_plan(&ds, "average tip of customers with a bill length",
                "aggregate mean(tip) where bill_length_mm is not missing");
    cols[7].missing = 0; /* no zero, nothing missing: every customer has one */
    expect_plan(&ds, "average tip of customers with a bill length", "aggregate mean(tip)");
    cols[1].missing = 3; /* tip: zeros and missing values */
    expect_question(&ds, "average total bill of customers with a tip", "with tip", "present",
                    "aggregate mean(total_bill) where tip is not missing");
    expect_question(&ds, "average total bill of customers with a tip", "with tip", "nonzero",
                    "aggregate mean(total_bill) where tip > 0");
    expect_bad_answer(&ds, "average total bill of customers with a tip", "with tip=both",
                      "'with tip' was answered with neither nonzero nor present");
    expect_bad_answer(&ds, "how many customers gave no tip", "no tip=both",
                      "'no tip' was answered with neither zero nor missing");
    cols[1].min = -5; /* below 0 too: not 0, and present */
    expect_question(&ds, "average total bill of customers with a tip", "with tip", "nonzero",
                    "aggregate mean(total_bill) where tip != 0 and tip is not missing");
}

static void test_no_value(void)
{
    tg_dataset_column cols[8];
    tg_dataset ds = tips_schema(cols); /* tip: 0 to 50, nothing missing */
    expect_plan(&ds, "how many customers gave no tip", "aggregate size() where tip == 0");
    expect_plan(&ds, "average total bill with no tip", "aggregate mean(total_bill) where tip == 0");
    cols[7].min = 32, cols[7].missing = 2; /* bill_length_mm: no zero, two missing */
    expect_plan(&ds, "average tip with no bill length recorded",
                "aggregate mean(tip) where bill_length_mm is missing");
    cols[1].missing = 3; /* tip: zeros and missing values */
    expect_question(&ds, "how many customers gave no tip", "no tip", "missing",
                    "aggregate size() where tip is missing");
    expect_question(&ds, "how many customers gave no tip", "no tip", "zero",
                    "aggregate size() where tip == 0");
}

/* --plan REPO INTENT DATA...: the plan of each intent (or the refusal), nothing written. */
static int plan_only(int argc, char **argv)
{
    tg_repo repo;
    tg_err err = {0};
    if (tg_repo_open(&repo, argv[2], &err) != 0)
        return fprintf(stderr, "%s\n", err.msg), 1;
    tg_dataset ds[2] = {0};
    size_t nds = 0;
    for (int i = 4; i < argc && nds < 2; i++, nds++)
        if (tg_dataset_read(&repo, argv[i], &ds[nds], &err) != 0)
            return fprintf(stderr, "%s\n", err.msg), 1;
    tg_builtin_tool t;
    tg_builtin_status st = tg_builtin_generate(argv[3], ds, nds, NULL, &t, &err);
    if (st == TG_BUILTIN_OK)
        printf("%s\n", t.plan);
    else
        fprintf(stderr, "%s\n", err.msg);
    tg_builtin_tool_release(&t);
    for (size_t i = 0; i < nds; i++)
        tg_dataset_release(&ds[i]);
    tg_repo_release(&repo);
    return st == TG_BUILTIN_OK ? 0 : st == TG_BUILTIN_REFUSED ? 2 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], "--generate") == 0)
        return generate(argc, argv);
    if (argc >= 5 && strcmp(argv[1], "--plan") == 0)
        return plan_only(argc, argv);
    tg_dataset_column cols[8];
    tg_dataset ds = tips_schema(cols);
    test_same_bytes(&ds);
    test_plans(&ds);
    test_refusals(&ds);
    test_questions(&ds);
    test_users_words(&ds);
    test_periods();
    test_hostile_names();
    test_year_scale();
    test_counted_things();
    test_year_ranges();
    test_busiest();
    test_no_value();
    test_with_value();
    test_listed_and_ranked();
    test_states();
    return tl_finish("builtin");
}
