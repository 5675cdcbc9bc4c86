/* llm_config.c — the llm section of toolgen.yaml as a tg_llm_config (llm.h; docs/config.md#llm). */
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"

int tg_llm_provider_parse(const char *name)
{
    if (!name)
        return TG_LLM_PARSE_ERROR;
    if (strcmp(name, "builtin") == 0 || strcmp(name, "offline") == 0)
        return TG_LLM_BUILTIN;
    if (strcmp(name, "openai") == 0)
        return TG_LLM_OPENAI;
    if (strcmp(name, "anthropic") == 0)
        return TG_LLM_ANTHROPIC;
    if (strcmp(name, "replay") == 0)
        return TG_LLM_REPLAY;
    if (strcmp(name, "sampling") == 0)
        return TG_LLM_SAMPLING;
    return TG_LLM_PARSE_ERROR;
}

const char *tg_llm_provider_name(tg_llm_provider p)
{
    switch (p) {
    case TG_LLM_OPENAI: return "openai";
    case TG_LLM_ANTHROPIC: return "anthropic";
    case TG_LLM_REPLAY: return "replay";
    case TG_LLM_SAMPLING: return "sampling";
    default: return "builtin";
    }
}

static char *opt_string(const cJSON *llm, const char *key)
{
    const char *s = llm ? tg_json_get_string(llm, key) : NULL;
    return s && *s ? xstrdup(s) : NULL;
}

static int opt_int(const cJSON *llm, const char *key, int fallback)
{
    return (int)(llm ? tg_json_get_number(llm, key, fallback) : fallback);
}

static double opt_num(const cJSON *llm, const char *key, double fallback)
{
    return llm ? tg_json_get_number(llm, key, fallback) : fallback;
}

/* The defaults of the dialect the provider speaks (replay: the one it replays). */
static void dialect_defaults(tg_llm_config *c)
{
    tg_llm_provider d = c->provider == TG_LLM_REPLAY ? c->replay_of : c->provider;
    if (!c->base_url)
        c->base_url = xstrdup(d == TG_LLM_ANTHROPIC ? "https://api.anthropic.com"
                                                    : "https://api.openai.com/v1");
    size_t n = strlen(c->base_url);
    while (n && c->base_url[n - 1] == '/')
        c->base_url[--n] = 0;
    c->api_key_required = c->api_key_env != NULL;
    if (!c->api_key_env)
        c->api_key_env = xstrdup(d == TG_LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
}

int tg_llm_config_from_json(const cJSON *llm, const char *provider_override, tg_llm_config *c,
                            tg_err *err)
{
    memset(c, 0, sizeof *c);
    const char *pname = provider_override ? provider_override
                                          : (llm ? tg_json_get_string(llm, "provider") : NULL);
    int p = pname ? tg_llm_provider_parse(pname) : TG_LLM_BUILTIN;
    if (p == TG_LLM_PARSE_ERROR)
        return tg_err_set(err, "unknown LLM provider '%s': use builtin, openai, anthropic, "
                               "replay or sampling (llm.provider in toolgen.yaml, or "
                               "--provider)", pname);
    c->provider = (tg_llm_provider)p;
    const char *rname = llm ? tg_json_get_string(llm, "replay_of") : NULL;
    int r = rname ? tg_llm_provider_parse(rname) : TG_LLM_OPENAI;
    if (r != TG_LLM_OPENAI && r != TG_LLM_ANTHROPIC)
        return tg_err_set(err, "llm.replay_of must be openai or anthropic, not '%s'", rname);
    c->replay_of = (tg_llm_provider)r;
    c->model = opt_string(llm, "model");
    c->fallback_model = opt_string(llm, "fallback_model");
    c->base_url = opt_string(llm, "base_url");
    c->api_key_env = opt_string(llm, "api_key_env");
    c->cache_dir = opt_string(llm, "cache_dir");
    if (!c->cache_dir)
        c->cache_dir = xstrdup(".toolgen/llm-cache");
    c->temperature = opt_num(llm, "temperature", 0.2);
    c->top_p = opt_num(llm, "top_p", 1.0);
    c->max_tokens = opt_int(llm, "max_tokens", 4096);
    c->timeout_s = opt_int(llm, "timeout_s", 120);
    c->max_retries = opt_int(llm, "max_retries", 4);
    c->retry_base_ms = opt_int(llm, "retry_base_ms", 1000);
    c->retry_max_ms = opt_int(llm, "retry_max_ms", 30000);
    dialect_defaults(c);
    if (c->provider != TG_LLM_BUILTIN && c->provider != TG_LLM_SAMPLING && !c->model) {
        tg_llm_config_release(c);
        return tg_err_set(err, "llm.model is not set: the %s provider needs a model name "
                               "(toolgen.yaml, llm.model, e.g. gpt-4o)", pname);
    }
    return 0;
}

void tg_llm_config_release(tg_llm_config *c)
{
    free(c->model);
    free(c->fallback_model);
    free(c->base_url);
    free(c->api_key_env);
    free(c->cache_dir);
    memset(c, 0, sizeof *c);
}
