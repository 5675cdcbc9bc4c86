/* decide.c — record the user's feedback on a staged tool (see decide.h). */
#include "lifecycle/decide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "lifecycle/lifecycle_state.h"

static cJSON *feedback_item(const char *reply, tg_fb_decision d, const char *at, const char *by,
                            const char *via)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "reply", reply);
    cJSON_AddStringToObject(f, "decision", tg_fb_name(d));
    cJSON_AddStringToObject(f, "at", at);
    if (by)
        cJSON_AddStringToObject(f, "by", by);
    if (via)
        cJSON_AddStringToObject(f, "via", via);
    return f;
}

/* Checks the state and stage order; 0 when the reply may be recorded. */
static int check_order(const cJSON *entry, const char *tool, bool decision_stage, tg_err *err)
{
    tg_lc_state s = tg_lc_state_of(entry);
    if (!entry)
        return tg_err_set(err, "%s has no staged candidate; stage it first with `toolgen stage "
                          "%s`", tool, tool);
    if (s != TG_LC_STAGED)
        return tg_err_set(err, "%s v%s is %s: feedback is taken only while it is STAGED", tool,
                          tg_json_get_string(entry, "version"), tg_lc_name(s));
    if (!decision_stage)
        return 0;
    const char *out = tg_json_get_string(
        tg_json_get(tg_json_get(entry, "feedback"), "output"), "decision");
    if (!out || strcmp(out, "OUTPUT_ACCEPTED") != 0)
        return tg_err_set(err, "%s: Stage 2 (--decision) needs an accepted output first; %s. "
                          "Answer \"Is this output correct?\" with `toolgen feedback %s "
                          "--output \"yes\"` after checking the staged run", tool,
                          out ? "the output was not accepted" : "no output feedback yet", tool);
    return 0;
}

int tg_decide_check(const tg_registry *g, const char *tool, bool decision_stage, tg_err *err)
{
    cJSON *staging = tg_registry_load(g, TG_REG_STAGING, err);
    if (!staging)
        return -1;
    int rc = check_order(tg_registry_candidate(staging, tool), tool, decision_stage, err);
    cJSON_Delete(staging);
    return rc;
}

int tg_decide(const tg_registry *g, const char *tool, bool decision_stage, const char *reply,
              const char *by, tg_decide_result *res, tg_err *err)
{
    return tg_decide_via(g, tool, decision_stage, reply, by, NULL, res, err);
}

int tg_decide_via(const tg_registry *g, const char *tool, bool decision_stage,
                  const char *reply, const char *by, const char *via, tg_decide_result *res,
                  tg_err *err)
{
    *res = (tg_decide_result){0};
    cJSON *staging = tg_registry_load(g, TG_REG_STAGING, err);
    if (!staging)
        return -1;
    cJSON *entry = tg_registry_candidate(staging, tool);
    int rc = -1;
    if (check_order(entry, tool, decision_stage, err) != 0)
        goto out;
    tg_fb_rules rules;
    tg_fb_rules_from_config(&rules, g->repo->have_config ? &g->repo->cfg : NULL);
    res->decision = decision_stage ? tg_fb_read_decision(&rules, reply)
                                   : tg_fb_read_output(&rules, reply);
    tg_fb_rules_release(&rules);
    char now[32];
    tg_lc_now(now);
    cJSON *fb = cJSON_GetObjectItemCaseSensitive(entry, "feedback");
    if (!fb)
        fb = cJSON_AddObjectToObject(entry, "feedback");
    const char *key = decision_stage ? "decision" : "output";
    cJSON_DeleteItemFromObjectCaseSensitive(fb, key);
    cJSON_AddItemToObject(fb, key, feedback_item(reply, res->decision, now, by, via));
    if (!decision_stage) /* a new answer to Stage 1 voids an older Stage 2 answer */
        cJSON_DeleteItemFromObjectCaseSensitive(fb, "decision");
    if (res->decision == TG_FB_APPROVED)
        rc = tg_lc_transition(entry, TG_LC_APPROVED, now, "Stage 2: approved", err);
    else if (res->decision == TG_FB_REJECTED)
        rc = tg_lc_transition(entry, TG_LC_REJECTED, now, "Stage 2: not approved", err);
    else
        rc = 0;
    if (rc == 0) {
        char *path = tg_registry_file(g, TG_REG_STAGING), *text = tg_json_print(staging);
        rc = tg_mkdirs_at(g->repo->root_fd, g->staging, err) == 0
                 ? tg_write_file_atomic_at(g->repo->root_fd, path, text, strlen(text), err)
                 : -1;
        free(path);
        free(text);
    }
    snprintf(res->state, sizeof res->state, "%s", tg_lc_name(tg_lc_state_of(entry)));
    snprintf(res->version, sizeof res->version, "%s", tg_json_get_string(entry, "version"));
out:
    cJSON_Delete(staging);
    return rc;
}
