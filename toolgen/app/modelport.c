/* modelport.c — the model prompt tools ask, from the configuration (modelport.h). */
#include "app/modelport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* Whether url's host is this machine (a local model server: code does not leave it). */
static bool has(const tg_strv *v, const char *s)
{
    return v->n && tg_strlist_has((const char *const *)v->v, s);
}

static bool local_url(const char *url)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    const char *at = strchr(h, '@');
    if (at && at < h + strcspn(h, "/"))
        h = at + 1;
    static const char *const local[] = {"localhost", "127.", "[::1]", NULL};
    for (size_t i = 0; local[i]; i++)
        if (strncmp(h, local[i], strlen(local[i])) == 0) {
            const char *end = h + strlen(local[i]);
            return local[i][strlen(local[i]) - 1] == '.' || !*end || *end == ':' || *end == '/';
        }
    return false;
}

static const char *configured(const tg_app_model_port *p)
{
    return p->cfg_ok ? tg_llm_provider_name(p->cfg.provider) : "builtin";
}

/* "openai (llm.provider)" and the client's model when it offers it, for refusals. */
static void available(const tg_app_model_port *p, bool samples, char *out, size_t cap)
{
    bool hosted = p->cfg_ok && p->cfg.provider != TG_LLM_BUILTIN &&
                  p->cfg.provider != TG_LLM_SAMPLING;
    snprintf(out, cap, "%s%s%s", hosted ? configured(p) : "",
             hosted && samples ? " and " : "",
             samples ? "sampling (this client's own model)" : "");
    if (!*out)
        snprintf(out, cap, "none: llm.provider in toolgen.yaml is %s, and this client offers "
                           "no sampling", configured(p));
}

static int refuse_model(const tg_app_model_port *p, const char *model, tg_err *err)
{
    char list[512] = "";
    for (size_t i = 0; i < p->models.n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 p->models.v[i]);
    return tg_err_set(err, "model_name '%.100s' is not configured for %s; available: %s "
                           "(llm.model, llm.fallback_model and snippets.models in toolgen.yaml)",
                      model, configured(p), list);
}

static int resolve_hosted(tg_app_model_port *p, const char *model, tg_model_pick *pick,
                          tg_err *err)
{
    if (!p->cfg_ok)
        return tg_err_set(err, "the llm section of toolgen.yaml is not usable: %s",
                          p->cfg_error.msg);
    if (!p->allow_external && !local_url(p->cfg.base_url))
        return tg_err_set(err, "snippets.allow_external is false in toolgen.yaml, so code is "
                               "not sent to %s (llm.base_url); use a model on this machine, or "
                               "llm_provider sampling from a client that offers it",
                          p->cfg.base_url);
    if (model && *model && !has(&p->models, model))
        return refuse_model(p, model, err);
    pick->route = TG_MODEL_HOSTED;
    snprintf(pick->provider, sizeof pick->provider, "%s", configured(p));
    snprintf(pick->model, sizeof pick->model, "%s", model && *model ? model : p->cfg.model);
    return 0;
}

static int port_resolve(void *ud, const char *provider, const char *model, bool samples,
                        tg_model_pick *pick, tg_err *err)
{
    tg_app_model_port *p = ud;
    memset(pick, 0, sizeof *pick);
    const char *conf = configured(p);
    bool none = strcmp(conf, "builtin") == 0 || strcmp(conf, "sampling") == 0;
    if (!provider || !*provider)
        provider = none && samples ? "sampling" : conf;
    char list[600];
    available(p, samples, list, sizeof list);
    if (strcmp(provider, "sampling") == 0) {
        if (!samples)
            return tg_err_set(err, "this client offers no sampling, so its model cannot write "
                                   "the code; available: %s", list);
        pick->route = TG_MODEL_CLIENT;
        snprintf(pick->provider, sizeof pick->provider, "sampling");
        snprintf(pick->model, sizeof pick->model, "%s", model ? model : "");
        return 0;
    }
    if (strcmp(provider, "builtin") == 0 || strcmp(provider, "offline") == 0)
        return tg_err_set(err, "the builtin provider cannot write free-form code: it is "
                               "toolgen's offline generator of data tools. Set llm.provider in "
                               "toolgen.yaml to openai or anthropic, or call from a client "
                               "that offers sampling; available: %s", list);
    if (strcmp(provider, conf) != 0)
        return tg_err_set(err, "llm_provider '%.60s' is not configured here; available: %s",
                          provider, list);
    return resolve_hosted(p, model, pick, err);
}

static int port_complete(void *ud, const tg_model_pick *pick, const char *system,
                         const char *user, tg_model_answer *a, tg_err *err)
{
    tg_app_model_port *p = ud;
    tg_llm_config cfg = p->cfg; /* the call's model; strings borrowed from p->cfg */
    cfg.model = (char *)pick->model;
    if (strcmp(pick->model, p->cfg.model) != 0)
        cfg.fallback_model = NULL;
    tg_llm_client c;
    tg_llm_client_init(&c, &cfg, p->root_fd, false);
    /* Every complete answer is usable here, one without a code block too: the llm runtime
     * judges the answer itself and repairs a missing block like any other defect, so the
     * answer is cached and the replay provider can answer it as recorded. */
    tg_llm_request rq = {.system = system, .user = user};
    tg_llm_reply r;
    if (tg_llm_complete(&c, &rq, &r, err) != TG_LLM_OK)
        return -1;
    *a = (tg_model_answer){.text = r.text, .model = r.model, .tokens_in = r.tokens_in,
                           .tokens_out = r.tokens_out, .cached = r.cached};
    return 0;
}

void tg_app_model_port_open(tg_app_model_port *p, const tg_repo *repo)
{
    memset(p, 0, sizeof *p);
    p->root_fd = repo->root_fd;
    p->cfg_ok = tg_llm_config_from_json(tg_config_get(&repo->cfg, "/llm"), NULL, &p->cfg,
                                        &p->cfg_error) == 0;
    const cJSON *allow = tg_config_get(&repo->cfg, "/snippets/allow_external");
    p->allow_external = !cJSON_IsFalse(allow);
    const cJSON *rounds = tg_config_get(&repo->cfg, "/snippets/max_rounds");
    if (p->cfg_ok && p->cfg.model)
        tg_strv_push(&p->models, p->cfg.model);
    if (p->cfg_ok && p->cfg.fallback_model)
        tg_strv_push(&p->models, p->cfg.fallback_model);
    const cJSON *m;
    cJSON_ArrayForEach(m, tg_config_get(&repo->cfg, "/snippets/models"))
        if (cJSON_IsString(m) && !has(&p->models, m->valuestring))
            tg_strv_push(&p->models, m->valuestring);
    p->port = (tg_model_port){.resolve = port_resolve, .complete = port_complete, .ud = p,
                              .max_rounds = cJSON_IsNumber(rounds) ? (int)rounds->valuedouble
                                                                   : 2};
}

void tg_app_model_port_close(tg_app_model_port *p)
{
    if (p->cfg_ok)
        tg_llm_config_release(&p->cfg);
    tg_strv_free(&p->models);
    memset(p, 0, sizeof *p);
}
