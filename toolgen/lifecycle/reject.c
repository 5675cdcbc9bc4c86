/* reject.c — archive a rejected candidate with the user's notes (see reject.h). */
#include "lifecycle/reject.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "lifecycle/lifecycle_state.h"
#include "lifecycle/regtx.h"

/* Phrases (lower case, matched anywhere) that name each category; the seed's patterns first. */
static const struct {
    const char *category;
    const char *phrases[6];
} patterns[] = {
    {"COLUMN_MISMATCH", {"wrong column", "column", NULL}},
    {"MISSING_FILTER", {"missing filter", "filter", NULL}},
    {"OUTPUT_FORMAT", {"format", "markdown", "json", NULL}},
    {"WRONG_METRIC", {"wrong metric", "metric", "average", "mean", "sum", NULL}},
    {"SORT_ORDER", {"sort", "order", NULL}},
    {"MISSING_VALUES", {"missing value", "null", "empty", "nan", NULL}},
    {"WRONG_RESULT", {"wrong", "incorrect", NULL}},
};

void tg_reject_categories(const char *notes, tg_strv *out)
{
    char *low = xstrdup(notes ? notes : "");
    for (char *c = low; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    size_t before = out->n;
    size_t last = sizeof patterns / sizeof *patterns - 1; /* WRONG_RESULT: only when alone */
    for (size_t i = 0; i <= last && !(i == last && out->n > before); i++)
        for (size_t j = 0; patterns[i].phrases[j]; j++)
            if (strstr(low, patterns[i].phrases[j])) {
                tg_strv_push(out, patterns[i].category);
                break;
            }
    if (out->n == before)
        tg_strv_push(out, "OTHER");
    free(low);
}

static int write_json(tg_regtx *tx, const char *dir, const char *name, const cJSON *doc,
                      tg_err *err)
{
    char *p = tg_path_join(dir, name), *text = tg_json_print(doc);
    int rc = tg_regtx_write(tx, p, text, strlen(text), err);
    free(p);
    free(text);
    return rc;
}

static int check_state(const cJSON *entry, const char *tool, const char *staging, tg_err *err)
{
    tg_lc_state s = tg_lc_state_of(entry);
    if (!entry)
        return tg_err_set(err, "%s has no staged candidate to reject", tool);
    const char *path = tg_json_get_string(entry, "path");
    bool in_staging = path && tg_str_startswith(path, staging);
    if (s == TG_LC_PROMOTED || (s == TG_LC_REJECTED && !in_staging))
        return tg_err_set(err, "%s v%s is %s and archived already; nothing to reject (stage a "
                          "new version with `toolgen stage %s`)", tool,
                          tg_json_get_string(entry, "version"), tg_lc_name(s), tool);
    return 0;
}

int tg_reject(const tg_registry *g, const char *tool, const char *notes, tg_reject_result *res,
              tg_err *err)
{
    *res = (tg_reject_result){0};
    cJSON *staging = tg_registry_load(g, TG_REG_STAGING, err);
    if (!staging)
        return -1;
    cJSON *entry = tg_registry_candidate(staging, tool);
    int rc = -1;
    if (check_state(entry, tool, g->staging, err) != 0)
        goto out;
    char now[32], stamp[32];
    tg_lc_now(now);
    snprintf(stamp, sizeof stamp, "%.4s%.2s%.2sT%.2s%.2s%.2sZ", now, now + 5, now + 8, now + 11,
             now + 14, now + 17);
    snprintf(res->archive, sizeof res->archive, "%s/rejected/%s_%s", g->archive, tool, stamp);
    snprintf(res->version, sizeof res->version, "%s", tg_json_get_string(entry, "version"));
    tg_reject_categories(notes, &res->categories);
    res->was_rejected = tg_lc_state_of(entry) == TG_LC_REJECTED;
    if (!res->was_rejected &&
        tg_lc_transition(entry, TG_LC_REJECTED, now, "toolgen reject", err) != 0)
        goto out;
    cJSON *rej = cJSON_CreateObject();
    cJSON_AddStringToObject(rej, "notes", notes);
    cJSON *cats = cJSON_AddArrayToObject(rej, "categories");
    for (size_t i = 0; i < res->categories.n; i++)
        cJSON_AddItemToArray(cats, cJSON_CreateString(res->categories.v[i]));
    cJSON_AddStringToObject(rej, "at", now);
    cJSON_DeleteItemFromObjectCaseSensitive(entry, "rejection");
    cJSON_AddItemToObject(entry, "rejection", rej);
    char *from = xstrdup(tg_json_get_string(entry, "path"));
    cJSON_ReplaceItemInObjectCaseSensitive(entry, "path", cJSON_CreateString(res->archive));
    cJSON *ufb = cJSON_Duplicate(rej, 1);
    const cJSON *fb = tg_json_get(entry, "feedback");
    cJSON_AddItemToObject(ufb, "feedback", fb ? cJSON_Duplicate(fb, 1) : cJSON_CreateObject());
    tg_regtx tx;
    tg_regtx_init(&tx, g->repo->root_fd);
    char *meta = tg_registry_file(g, TG_REG_STAGING);
    if (tg_regtx_move_tree(&tx, from, res->archive, err) == 0 &&
        write_json(&tx, res->archive, "user_feedback.json", ufb, err) == 0 &&
        write_json(&tx, res->archive, "metadata.json", entry, err) == 0 &&
        write_json(&tx, ".", meta, staging, err) == 0)
        rc = 0;
    else
        tg_regtx_rollback(&tx);
    tg_regtx_release(&tx);
    free(meta);
    free(from);
    cJSON_Delete(ufb);
out:
    cJSON_Delete(staging);
    return rc;
}
