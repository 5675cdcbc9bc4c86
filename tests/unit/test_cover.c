/*
 * test_cover.c — the reading of a request (gen/reading.h) and reuse only when a tool covers
 * every part of it (gen/cover.h).
 *
 * The built-in generator's tools declare their reading over their arguments: each is checked
 * to cover its own request in other words and on other columns, and, for every part of a
 * reading (operation, aggregate, measure, groups, filters, time bucket, ranking, chart, derived
 * quantity, method, numbers), not to cover a request that differs in that part alone — reuse
 * must never drop a part. Then hand-written declarations, and the reading of a model's intent.
 */
#include <stdlib.h>
#include <string.h>

#include "base/doc.h"
#include "gen/builtin.h"
#include "gen/cover.h"
#include "gen/reading.h"
#include "testlib.h"
#include "tips_schema.h"

/* The reading of intent by the built-in generator (r released by the caller); false if refused. */
static bool read_intent(const tg_dataset *ds, const char *intent, tg_reading *r)
{
    tg_builtin_tool t;
    tg_err err = {0};
    if (tg_builtin_generate(intent, ds, 1, NULL, &t, &err) != TG_BUILTIN_OK) {
        CHECK(0, "'%s' refused: %s", intent, err.msg);
        memset(r, 0, sizeof *r);
        return false;
    }
    *r = t.reading;
    memset(&t.reading, 0, sizeof t.reading);
    tg_builtin_tool_release(&t);
    return true;
}

/* The input schema of the tool the built-in generator writes for intent (caller deletes). */
static cJSON *tool_schema(const tg_dataset *ds, const char *intent)
{
    tg_builtin_tool t;
    tg_err err = {0};
    if (tg_builtin_generate(intent, ds, 1, NULL, &t, &err) != TG_BUILTIN_OK) {
        CHECK(0, "'%s' refused: %s", intent, err.msg);
        return NULL;
    }
    tg_doc doc;
    cJSON *schema = NULL;
    if (tg_doc_parse_yaml(t.manifest_yaml, strlen(t.manifest_yaml), "tool.manifest.yaml", NULL,
                          &doc, &err) == 0) {
        schema = cJSON_DetachItemFromObject(doc.root, "input_schema");
        tg_doc_free(&doc);
    }
    CHECK(schema != NULL, "'%s': the manifest parses: %s", intent, err.msg);
    tg_builtin_tool_release(&t);
    return schema;
}

/* Whether schema covers the reading of intent; the call's arguments as compact JSON in *call. */
static bool covers(const tg_dataset *ds, const cJSON *schema, const char *intent, char **call,
                   char **why)
{
    tg_reading r;
    *call = NULL;
    *why = NULL;
    if (!schema || !read_intent(ds, intent, &r))
        return false;
    cJSON *args = cJSON_CreateObject();
    bool ok = tg_cover(schema, &r, ds, 1, args, why);
    *call = cJSON_PrintUnformatted(args);
    cJSON_Delete(args);
    tg_reading_release(&r);
    return ok;
}

static void expect_covered(const tg_dataset *ds, const char *tool, const char *intent,
                           const char *want_call)
{
    cJSON *schema = tool_schema(ds, tool);
    char *call, *why;
    bool ok = covers(ds, schema, intent, &call, &why);
    CHECK(ok, "the tool for '%s' must cover '%s': %s", tool, intent, why ? why : "");
    CHECK(call && strcmp(call, want_call) == 0, "'%s' → '%s': call %s, want %s", tool, intent,
          call ? call : "(none)", want_call);
    free(call);
    free(why);
    cJSON_Delete(schema);
}

/* The tool for `tool` must not cover `intent`, which differs in `part`, and must say so. */
static void expect_not_covered(const tg_dataset *ds, const char *tool, const char *intent,
                               const char *part)
{
    cJSON *schema = tool_schema(ds, tool);
    char *call, *why;
    bool ok = covers(ds, schema, intent, &call, &why);
    CHECK(!ok, "the tool for '%s' must not cover '%s' (its %s): call %s", tool, intent, part,
          call ? call : "");
    CHECK(why && strstr(why, part), "'%s' vs '%s': the reason names %s: %s", tool, intent, part,
          why ? why : "(none)");
    free(call);
    free(why);
    cJSON_Delete(schema);
}

static void test_builtin_covers_itself(const tg_dataset *tips, const tg_dataset *prices)
{
    expect_covered(tips, "average tip by day", "what is the mean tip for each day?",
                   "{\"file_path\":\"data/tips.csv\",\"value_columns\":[\"tip\"],\"group_by\":[\"day\"]}");
    /* the same request on other columns: the columns are arguments */
    expect_covered(tips, "average tip by day", "mean total bill per sex and smoker",
                   "{\"file_path\":\"data/tips.csv\",\"value_columns\":[\"total_bill\"],"
                   "\"group_by\":[\"sex\",\"smoker\"]}");
    expect_covered(tips, "median tip for smokers on Sunday", "median tip on Sunday for smokers",
                   "{\"file_path\":\"data/tips.csv\",\"value_columns\":[\"tip\"]}");
    expect_covered(tips, "top 2 days by total tip", "top 3 days by total tip",
                   "{\"file_path\":\"data/tips.csv\",\"value_columns\":[\"tip\"],"
                   "\"group_by\":[\"day\"],\"top_k\":3}");
    /* a ranked tool answers the unranked request in full: its cut is lifted */
    expect_covered(tips, "top 2 days by total tip", "total tip per day sorted descending",
                   "{\"file_path\":\"data/tips.csv\",\"value_columns\":[\"tip\"],"
                   "\"group_by\":[\"day\"],\"top_k\":1000}");
    expect_covered(tips, "histogram of tip with 20 bins", "histogram of total bill with 5 bins",
                   "{\"file_path\":\"data/tips.csv\",\"column\":\"total_bill\",\"bins\":5}");
    expect_covered(tips, "scatter plot of tip vs total_bill", "scatter plot of size vs tip",
                   "{\"file_path\":\"data/tips.csv\",\"x_column\":\"tip\",\"y_column\":\"size\"}");
    expect_covered(prices, "monthly average price", "average price per month",
                   "{\"file_path\":\"data/dowjones.csv\",\"value_column\":\"Price\","
                   "\"date_column\":\"Date\"}");
}

/* One test per part of a reading: a request that differs in that part alone is not covered. */
static void test_no_part_dropped(const tg_dataset *tips, const tg_dataset *prices)
{
    expect_not_covered(tips, "share of each day", "number of rows per day", "operation");
    expect_not_covered(tips, "average tip by day", "maximum tip by day", "aggregates");
    expect_not_covered(tips, "number of rows per day", "number of distinct tips per day", "aggregates");
    expect_not_covered(tips, "average tip", "average tip by day", "groups");
    expect_not_covered(tips, "average tip by day", "average tip", "groups");
    expect_not_covered(tips, "average tip by day", "average tip by day for smokers", "filters");
    expect_not_covered(tips, "average tip by day for smokers", "average tip by day", "filters");
    expect_not_covered(tips, "average tip on Sunday", "average tip on Saturday", "filters");
    expect_not_covered(tips, "average tip where size is over 2", "average tip where size is over 3",
                       "filters");
    expect_not_covered(prices, "monthly average price", "yearly average price", "period");
    expect_not_covered(prices, "3 month moving average of price", "monthly average price",
                       "operation");
    expect_not_covered(tips, "average tip by day", "top 2 days by average tip", "order");
    expect_not_covered(tips, "top 2 days by average tip", "top 2 days by average tip for smokers",
                       "filters");
    expect_not_covered(tips, "average tip by day", "average tip by day sorted descending", "order");
    expect_not_covered(tips, "top 2 days by average tip", "bottom 2 days by average tip", "order");
    expect_not_covered(tips, "top 5 rows by tip", "the 5 smallest tips", "order");
    expect_not_covered(tips, "average tip by day", "bar chart of average tip by day", "chart");
    expect_not_covered(tips, "bar chart of average tip by day", "average tip by day", "chart");
    expect_not_covered(tips, "correlation between tip and total bill",
                       "spearman correlation between tip and total bill", "method");
    expect_not_covered(tips, "outliers in tip using the IQR rule", "outliers in tip by z-score",
                       "method");
}

static cJSON *parse(const char *json)
{
    cJSON *j = cJSON_Parse(json);
    CHECK(j != NULL, "bad test JSON: %s", json);
    return j;
}

/* Hand-written declarations: fixed measures, derived quantities, cuts, paths, unknown parts. */
static void test_declarations(const tg_dataset *tips)
{
    tg_reading r;
    char *why = NULL;
    if (!read_intent(tips, "average total bill by day", &r))
        return;
    static const struct { const char *schema; const char *part; } cases[] = {
        {"{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"},"
         "\"g\":{\"type\":\"array\"}},\"x-toolgen-reading\":{\"operation\":\"aggregate\","
         "\"aggregates\":[\"mean\"],\"measures\":[\"tip\"],\"groups\":{\"param\":\"g\"}}}", "measures"},
        {"{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"},"
         "\"m\":{\"type\":\"string\"},\"g\":{\"type\":\"array\"}},\"x-toolgen-reading\":{"
         "\"operation\":\"aggregate\",\"aggregates\":[\"mean\"],\"measures\":{\"param\":\"m\"},"
         "\"groups\":{\"param\":\"g\"},\"derived\":\"total_bill / size\"}}", "derived"},
        {"{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"},"
         "\"m\":{\"type\":\"string\"},\"g\":{\"type\":\"array\"},\"n\":{\"type\":\"integer\","
         "\"maximum\":3,\"default\":2}},\"x-toolgen-reading\":{\"operation\":\"aggregate\","
         "\"aggregates\":[\"mean\"],\"measures\":{\"param\":\"m\"},\"groups\":{\"param\":\"g\"},"
         "\"order\":\"desc\",\"top_k\":{\"param\":\"n\"}}}", "at most 3 rows"},
        {"{\"properties\":{\"m\":{\"type\":\"string\"},\"g\":{\"type\":\"array\"}},"
         "\"x-toolgen-reading\":{\"operation\":\"aggregate\",\"aggregates\":[\"mean\"],"
         "\"measures\":{\"param\":\"m\"},\"groups\":{\"param\":\"g\"}}}", "reads 0 files"},
        {"{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"},"
         "\"m\":{\"type\":\"string\"},\"g\":{\"type\":\"array\"}},\"x-toolgen-reading\":{"
         "\"operation\":\"aggregate\",\"aggregates\":[\"mean\"],\"measures\":{\"param\":\"m\"},"
         "\"groups\":{\"param\":\"g\"},\"weights\":\"size\"}}", "does not know: weights"},
        {"{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"}}}",
         "does not declare"},
        {"{\"properties\":{\"f\":{\"type\":\"string\",\"x-toolgen-path\":\"read\"},"
         "\"a\":{\"enum\":[\"sum\",\"max\"]},\"m\":{\"type\":\"string\"},\"g\":{\"type\":\"array\"}},"
         "\"x-toolgen-reading\":{\"operation\":\"aggregate\",\"aggregates\":{\"param\":\"a\"},"
         "\"measures\":{\"param\":\"m\"},\"groups\":{\"param\":\"g\"}}}", "cannot say mean"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *schema = parse(cases[i].schema), *args = cJSON_CreateObject();
        bool ok = tg_cover(schema, &r, tips, 1, args, &why);
        CHECK(!ok && why && strstr(why, cases[i].part), "declaration %zu: %s", i, why ? why : "covered");
        free(why);
        cJSON_Delete(args);
        cJSON_Delete(schema);
    }
    /* the same reading with the derived quantity and a cut large enough: covered */
    cJSON *schema = parse("{\"required\":[\"f\",\"a\"],\"properties\":{\"f\":{\"type\":\"string\","
                          "\"x-toolgen-path\":\"read\"},\"a\":{\"enum\":[\"avg\",\"max\"]},"
                          "\"m\":{\"type\":\"string\"},\"g\":{\"type\":\"array\"},"
                          "\"n\":{\"type\":\"integer\",\"maximum\":30}},\"x-toolgen-reading\":{"
                          "\"operation\":\"aggregate\",\"aggregates\":{\"param\":\"a\",\"values\":"
                          "{\"avg\":\"mean\",\"max\":\"max\"}},\"measures\":{\"param\":\"m\"},"
                          "\"groups\":{\"param\":\"g\"},\"top_k\":{\"param\":\"n\"}}}");
    cJSON *args = cJSON_CreateObject();
    CHECK(tg_cover(schema, &r, tips, 1, args, &why), "mapped aggregate: %s", why ? why : "");
    char *call = cJSON_PrintUnformatted(args);
    CHECK(strcmp(call, "{\"f\":\"data/tips.csv\",\"a\":\"avg\",\"m\":\"total_bill\","
                       "\"g\":[\"day\"],\"n\":30}") == 0, "call %s", call);
    free(call);
    free(why);
    cJSON_Delete(args);
    cJSON_Delete(schema);
    /* a reading that is not known covers nothing */
    r.known = false;
    r.why = xstrdup("'salary' is not a column");
    schema = tool_schema(tips, "average total bill by day");
    args = cJSON_CreateObject();
    CHECK(!tg_cover(schema, &r, tips, 1, args, &why) && why && strstr(why, "salary"), "unknown");
    free(why);
    cJSON_Delete(args);
    cJSON_Delete(schema);
    tg_reading_release(&r);
}

static void expect_intent(const tg_dataset *ds, const char *json, const char *text)
{
    cJSON *in = parse(json);
    tg_reading r;
    tg_reading_from_intent(in, ds, 1, &r);
    char *t = tg_reading_text(&r);
    CHECK(strcmp(t, text) == 0, "intent %s\n   reading: %s\n   want:    %s", json, t, text);
    free(t);
    tg_reading_release(&r);
    cJSON_Delete(in);
}

/* A model's intent read into the same parts, and what leaves it unknown. */
static void test_model_intent(const tg_dataset *tips, const tg_dataset *prices)
{
    expect_intent(tips, "{\"operation\":\"aggregate\",\"measure\":[\"tip\"],\"metrics\":[\"mean\"],"
                        "\"group_by\":[\"day\"],\"filters\":[{\"column\":\"time\",\"op\":\"==\","
                        "\"value\":\"Dinner\"}]}",
                  "mean of tip, grouped by day, where time == 'Dinner'");
    expect_intent(tips, "{\"operation\":\"count\",\"measure\":[],\"metrics\":[\"count\"],"
                        "\"group_by\":[\"day\",\"time\"],\"ranking\":{\"order\":\"desc\",\"top_k\":3},"
                        "\"chart\":\"bar\",\"filters\":[{\"column\":\"size\",\"op\":\"between\","
                        "\"value\":[2,4]}]}",
                  "number of rows, grouped by day and time, where size between 2 and 4, the 3 "
                  "largest, as a bar chart");
    expect_intent(prices, "{\"operation\":\"aggregate\",\"measure\":[\"Price\"],\"metrics\":[\"max\"],"
                          "\"time_bucket\":{\"column\":\"Date\",\"period\":\"quarter\"}}",
                  "maximum of Price, per quarter of Date");
    expect_intent(tips, "{\"operation\":\"aggregate\",\"measure\":[\"salary\"],\"metrics\":[\"mean\"]}",
                  "not understood: the intent names a column the data does not have: salary");
    expect_intent(tips, "{\"operation\":\"aggregate\",\"measure\":[\"tip\"],\"metrics\":[\"mean\"],"
                        "\"filters\":[\"only on weekends\"]}",
                  "not understood: a filter of the intent is not {column, op, value}");
    expect_intent(tips, "{\"operation\":\"count\",\"columns\":[\"day\"],\"metrics\":[\"count\"]}",
                  "not understood: the intent lists columns without saying which are measured "
                  "and which group");
    expect_intent(tips, "{\"operation\":\"aggregate\",\"measure\":[\"tip\"],\"metrics\":[\"mean\"],"
                        "\"unclear\":[{\"text\":\"weekend\",\"options\":[\"day\"]}]}",
                  "not understood: the model could not map 'weekend' to the data");
    /* the rows themselves: a model's "filter" is the reading's rows */
    expect_intent(tips, "{\"operation\":\"filter\",\"filters\":[{\"column\":\"tip\",\"op\":\">\","
                        "\"value\":5}]}",
                  "rows, where tip > 5");
    expect_intent(tips, "{\"operation\":\"predict\"}",
                  "not understood: the intent's operation is outside the reading's vocabulary: predict");
}

int main(void)
{
    tg_dataset_column tc[8], pc[2];
    tg_dataset tips = tips_schema(tc), prices = prices_schema(pc);
    test_builtin_covers_itself(&tips, &prices);
    test_no_part_dropped(&tips, &prices);
    test_declarations(&tips);
    test_model_intent(&tips, &prices);
    return tl_finish("cover");
}
