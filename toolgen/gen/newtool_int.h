/* newtool_int.h — private to the `toolgen new` pipeline (newtool.c, newtool_judge.c). */
#ifndef TG_NEWTOOL_INT_H
#define TG_NEWTOOL_INT_H

#include <stdarg.h>

#include "base/buf.h"
#include "base/strvec.h"
#include "gen/dataset.h"
#include "gen/gap.h"
#include "gen/gen_files.h"
#include "gen/newtool.h"
#include "gen/prompt.h"
#include "llm/llm.h"

typedef struct gen_ctx {
    const tg_gen_opts *o;
    const tg_repo *repo;
    tg_gen_result *res;
    tg_llm_config cfg;
    tg_llm_client llm;
    tg_dataset *ds;
    size_t nds;
    char *ds_json;       /* the datasets' schemas, a JSON array */
    cJSON *intent;       /* the extracted intent (model path) */
    char *name, *dir;    /* the tool and its folder, manifests/<name> */
    bool folder_made;
    char *spec_yaml;     /* the model's contract */
    char *model;         /* provider/model that wrote the spec */
    tg_prompt p_intent, p_spec, p_code, p_repair;
    tg_hash ref_spec_hash, ref_code_hash, last_prompt_hash;
    int max_repairs;
    double fc_min, tpr_min;
    tg_buf summary;
} gen_ctx;

/* One line of the summary (and of the progress callback). */
void tg_gen_note(gen_ctx *c, const char *fmt, ...) TG_PRINTF(2, 3);
/* res->fail from an llm status; returns -1. */
int tg_gen_fail_llm(gen_ctx *c, tg_llm_status st);
int tg_gen_ask(gen_ctx *c, const tg_prompt *p, const char *const *vars, int sample,
               const char *lang, char **block, tg_llm_reply *reply, tg_err *err);

/* validation.max_repair_iterations and the thresholds the repair prompt states. */
void tg_gen_read_validation_config(gen_ctx *c);
/* Steps 4-6 with a model: candidates, pass@k, repairs, outcome. */
int tg_gen_candidates(gen_ctx *c, tg_err *err);
/* The builtin provider: the offline generator's tool t (compiled by the caller), written and
 * validated the same way. */
struct tg_builtin_tool;
int tg_gen_builtin(gen_ctx *c, struct tg_builtin_tool *t, tg_err *err);

#endif
