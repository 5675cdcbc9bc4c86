/*
 * modelport.h — the model prompt tools ask (run/toolrun.h, tg_model_port), from the repository's
 * configuration (docs/code-edit.md#providers): llm.provider with its model, the models a call
 * may name (snippets.models), whether code may leave the machine (snippets.allow_external), and
 * the calling client's own model through MCP sampling.
 *
 * Which model answers a call: the provider it names (llm_provider), else the configured one;
 * with no provider configured (builtin, which writes no free-form code) the client's model
 * when the client offers sampling. A provider or model that is not configured is refused with
 * the names of those that are. Each hosted answer goes through llm/ (retries, the response
 * cache under llm.cache_dir); a client of its own per call, so the port is shared by threads.
 *
 * Ownership: the port owns a copy of the llm configuration; it borrows the repository's root
 * fd, which must stay open until tg_app_model_port_close.
 */
#ifndef TG_APP_MODELPORT_H
#define TG_APP_MODELPORT_H

#include "base/strvec.h"
#include "llm/llm.h"
#include "model/repo.h"
#include "run/toolrun.h"

typedef struct tg_app_model_port {
    tg_model_port port;   /* what tg_toolrun_ctx.model points to */
    tg_llm_config cfg;
    bool cfg_ok;          /* else cfg_error says what is wrong with the llm section */
    tg_err cfg_error;
    int root_fd;
    bool allow_external;  /* snippets.allow_external */
    tg_strv models;       /* llm.model, llm.fallback_model, snippets.models */
} tg_app_model_port;

/* Sets p up from repo's configuration. A bad llm section does not fail it: each call is then
 * refused with the configuration's error. */
void tg_app_model_port_open(tg_app_model_port *p, const tg_repo *repo);
void tg_app_model_port_close(tg_app_model_port *p);

#endif
