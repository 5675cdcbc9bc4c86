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

tg_builtin_status tg_builtin_generate(const char *intent, const tg_dataset *datasets,
                                      size_t ndatasets, const char *name, tg_builtin_tool *out,
                                      tg_err *err)
{
    *out = (tg_builtin_tool){0};
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
    bt_toks toks;
    bt_plan plan;
    tg_err why = {0};
    if (bt_lex(intent, &toks, &why) != 0)
        return refuse(intent ? intent : "", datasets, ndatasets, why.msg, err);
    bt_resolve(&toks, datasets, ndatasets);
    int rc = bt_parse(&toks, datasets, ndatasets, &plan, &why);
    bt_toks_free(&toks);
    if (rc != 0)
        return refuse(intent, datasets, ndatasets, why.msg, err);
    out->name = name ? xstrdup(name) : bt_plan_name(&plan, datasets);
    out->plan = bt_plan_text(&plan, datasets);
    out->code = bt_write_code(&plan, datasets, ndatasets);
    out->manifest_yaml = bt_write_manifest(&plan, datasets, ndatasets, out->name);
    out->example_input = bs_example_input(&plan, datasets);
    bt_plan_reading(&plan, datasets, &out->reading);
    return TG_BUILTIN_OK;
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
