/* regenerate.c — the generation step of `toolgen build` (regenerate.h). */
#include "app/regenerate.h"

#include <string.h>

#include "gen/regen.h"

static bool in_scope(const char *tool, const char *const *tools, size_t ntools)
{
    for (size_t i = 0; i < ntools; i++)
        if (strcmp(tools[i], tool) == 0)
            return true;
    return ntools == 0;
}

int tg_generate_due(const tg_repo *repo, const char *const *tools, size_t ntools, bool frozen,
                    const tg_due_progress *p, tg_strv *frozen_due, tg_err *err)
{
    tg_regen_plan plan;
    tg_err lerr = {0};
    if (tg_regen_find(repo, &plan, &lerr) != 0)
        return 0; /* the build reports an unreadable manifests folder itself */
    for (size_t i = 0; i < plan.edited.n; i++)
        if (in_scope(plan.edited.v[i], tools, ntools) && p && p->edited)
            p->edited(p->ud, plan.edited.v[i]);
    int rc = 0, requests = 0;
    for (size_t i = 0; i < plan.due.n && rc == 0; i++) {
        const char *t = plan.due.v[i];
        if (!in_scope(t, tools, ntools))
            continue;
        if (frozen) {
            tg_strv_push_owned(frozen_due, xasprintf("%s: %s", t, plan.why.v[i]));
            continue;
        }
        if (p && p->generating)
            p->generating(p->ud, t, plan.why.v[i]);
        rc = tg_regen_tool(repo, t, &requests, err);
    }
    tg_regen_plan_release(&plan);
    return rc;
}
