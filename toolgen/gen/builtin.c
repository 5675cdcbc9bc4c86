/*
 * builtin.c — the built-in generator's entry point: lex, resolve, parse, write
 * (docs/generate.md#the-built-in-generator). A refusal carries the reason, the closest
 * supported phrasings and how to configure an LLM provider instead.
 */
#include "gen/builtin.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/json.h"
#include "gen/builtin_int.h"
#include "gen/builtin_spec_int.h"

static bool valid_name(const char *s)
{
    if (!s || !islower((unsigned char)s[0]) || strlen(s) > 64)
        return false;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static tg_builtin_status refuse(const char *intent, const tg_dataset *ds, size_t nds,
                                const char *why, tg_err *err)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, "the built-in generator does not understand \"%s\": %s. ", intent, why);
    bt_suggest(intent, ds, nds, &b);
    tg_buf_puts(&b, " To have a language model write this tool instead, configure a provider in "
                    "toolgen.yaml (llm.provider: openai with llm.base_url and llm.model, or "
                    "anthropic) and run again (docs/generate.md#providers).");
    tg_err_set(err, "%s", b.data);
    tg_buf_free(&b);
    return TG_BUILTIN_REFUSED;
}

/* lex, resolve, parse: 0 with plan, or -1 with why. */
static int compile_once(const char *intent, bt_ctx *x, bt_plan *plan, tg_err *why)
{
    bt_toks toks;
    if (bt_lex(intent, &toks, why) != 0)
        return -1;
    bt_resolve(&toks, x);
    int rc = bt_parse(&toks, x, plan, why);
    bt_toks_free(&toks);
    return rc;
}

/* The plan of intent: the longest reading of its words first; when that read an aggregate
 * word as the start of a column name ("total bill" → total_bill) and left the request without
 * a clean reading, the reading with the word as the aggregate ("total" of the bill). */
static int read_intent(const char *intent, bt_ctx *x, bt_plan *plan, tg_err *why)
{
    int rc = compile_once(intent, x, plan, why);
    if (!x->merged_aggregate || (rc == 0 && !x->q->text))
        return rc;
    tg_builtin_question first = *x->q;
    memset(x->q, 0, sizeof *x->q);
    bt_ctx split = *x;
    split.split_aggregates = true;
    bt_plan plan2;
    tg_err why2 = {0};
    if (compile_once(intent, &split, &plan2, &why2) == 0 && !x->q->text) {
        tg_builtin_question_release(&first);
        *plan = plan2;
        return 0;
    }
    tg_builtin_question_release(x->q);
    *x->q = first;
    return rc;
}

static tg_builtin_status check_args(const tg_dataset *datasets, size_t ndatasets,
                                    const char *name, tg_err *err)
{
    if (!datasets || ndatasets == 0 || ndatasets > 2) {
        tg_err_set(err, "the built-in generator needs one data file (two to merge), got %zu; "
                        "pass --data FILE", ndatasets);
        return TG_BUILTIN_ERROR;
    }
    for (size_t i = 0; i < ndatasets; i++)
        if (!datasets[i].path || datasets[i].ncols == 0) {
            tg_err_set(err, "data file %zu has no columns (read it with tg_dataset_read)", i + 1);
            return TG_BUILTIN_ERROR;
        }
    if (name && !valid_name(name)) {
        tg_err_set(err, "'%s' is not a tool name: lowercase snake_case, starting with a letter, "
                        "at most 64 characters (e.g. mean_tip_by_day)", name);
        return TG_BUILTIN_ERROR;
    }
    return TG_BUILTIN_OK;
}

tg_builtin_status tg_builtin_compile(const char *intent, const tg_dataset *datasets,
                                     size_t ndatasets, const char *name,
                                     const char *const *assume, size_t nassume,
                                     tg_builtin_tool *out, tg_builtin_question *q, tg_err *err)
{
    *out = (tg_builtin_tool){0};
    memset(q, 0, sizeof *q);
    tg_builtin_status st = check_args(datasets, ndatasets, name, err);
    if (st != TG_BUILTIN_OK)
        return st;
    bt_ctx x = {.ds = datasets, .nds = ndatasets, .assume = assume, .nassume = nassume, .q = q};
    bt_plan plan;
    tg_err why = {0};
    if (read_intent(intent ? intent : "", &x, &plan, &why) != 0) {
        tg_builtin_question_release(q); /* a request refused elsewhere is not asked about */
        return refuse(intent ? intent : "", datasets, ndatasets, why.msg, err);
    }
    if (q->text) {
        tg_err_set(err, "%s", q->text);
        return TG_BUILTIN_ASK;
    }
    out->name = name ? xstrdup(name) : bt_plan_name(&plan, datasets);
    out->plan = bt_plan_text(&plan, datasets);
    out->code = bt_write_code(&plan, datasets, ndatasets);
    out->manifest_yaml = bt_write_manifest(&plan, datasets, ndatasets, out->name);
    out->example_input = bs_example_input(&plan, datasets);
    bt_plan_reading(&plan, datasets, &out->reading);
    return TG_BUILTIN_OK;
}

tg_builtin_status tg_builtin_generate(const char *intent, const tg_dataset *datasets,
                                      size_t ndatasets, const char *name, tg_builtin_tool *out,
                                      tg_err *err)
{
    tg_builtin_question q;
    tg_builtin_status st = tg_builtin_compile(intent, datasets, ndatasets, name, NULL, 0, out,
                                              &q, err);
    if (st == TG_BUILTIN_ASK) {
        char *question = xstrdup(err->msg);
        st = refuse(intent, datasets, ndatasets, question, err);
        free(question);
    }
    tg_builtin_question_release(&q);
    return st;
}

int tg_builtin_set_example_output(tg_builtin_tool *t, const char *result_json, tg_err *err)
{
    char *at = t->manifest_yaml ? strstr(t->manifest_yaml, BT_EXAMPLE_PLACEHOLDER) : NULL;
    if (!at)
        return tg_err_set(err, "the manifest has no example output to fill (already filled?)");
    tg_err perr = {0};
    cJSON *result = tg_json_parse(result_json, strlen(result_json), NULL, NULL, NULL, &perr);
    if (!cJSON_IsObject(result)) {
        cJSON_Delete(result);
        return tg_err_set(err, "the example's result is not a JSON object%s%s",
                          perr.msg[0] ? ": " : "", perr.msg);
    }
    char *compact = tg_json_print_compact(result);
    cJSON_Delete(result);
    tg_buf b = TG_BUF_INIT;
    tg_buf_append(&b, t->manifest_yaml, (size_t)(at - t->manifest_yaml));
    tg_buf_printf(&b, "    output: %s\n", compact);
    tg_buf_puts(&b, at + strlen(BT_EXAMPLE_PLACEHOLDER));
    free(compact);
    free(t->manifest_yaml);
    t->manifest_yaml = tg_buf_steal(&b);
    return 0;
}

void tg_builtin_tool_release(tg_builtin_tool *t)
{
    free(t->name);
    free(t->manifest_yaml);
    free(t->code);
    free(t->plan);
    free(t->example_input);
    tg_reading_release(&t->reading);
    *t = (tg_builtin_tool){0};
}
