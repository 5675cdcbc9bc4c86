/* lifecycle_state.c — the transition table of the tool lifecycle (docs/lifecycle.md "States"). */
#include "lifecycle/lifecycle_state.h"

#include <string.h>
#include <time.h>

#include "base/json.h"

static const char *const names[] = {"DRAFT", "STAGED", "APPROVED", "REJECTED", "PROMOTED", "NONE"};

const char *tg_lc_name(tg_lc_state s)
{
    return (unsigned)s <= TG_LC_NONE ? names[s] : "NONE";
}

tg_lc_state tg_lc_parse(const char *s)
{
    for (int i = 0; s && i < TG_LC_NONE; i++)
        if (strcmp(s, names[i]) == 0)
            return (tg_lc_state)i;
    return TG_LC_NONE;
}

bool tg_lc_allowed(tg_lc_state from, tg_lc_state to)
{
    switch (from) {
    case TG_LC_NONE:
        return to == TG_LC_DRAFT;
    case TG_LC_DRAFT:
        return to == TG_LC_STAGED || to == TG_LC_REJECTED;
    case TG_LC_STAGED:
        return to == TG_LC_APPROVED || to == TG_LC_REJECTED;
    case TG_LC_APPROVED:
        return to == TG_LC_PROMOTED || to == TG_LC_REJECTED;
    case TG_LC_REJECTED:
    case TG_LC_PROMOTED:
        return false; /* final: a new version starts a new entry */
    }
    return false;
}

void tg_lc_now(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

tg_lc_state tg_lc_state_of(const cJSON *entry)
{
    return entry ? tg_lc_parse(tg_json_get_string(entry, "state")) : TG_LC_NONE;
}

/* What a user does next from a state, for the refusal message. */
static const char *next_step(tg_lc_state s)
{
    switch (s) {
    case TG_LC_NONE:
    case TG_LC_DRAFT:
        return "stage it with `toolgen stage TOOL`";
    case TG_LC_STAGED:
        return "give feedback with `toolgen feedback TOOL --output ...` then `--decision ...`";
    case TG_LC_APPROVED:
        return "promote it with `toolgen promote TOOL` or reject it with `toolgen reject TOOL`";
    case TG_LC_REJECTED:
    case TG_LC_PROMOTED:
        return "stage a new version with `toolgen stage TOOL`";
    }
    return "";
}

int tg_lc_transition(cJSON *entry, tg_lc_state to, const char *at, const char *note, tg_err *err)
{
    tg_lc_state from = tg_lc_state_of(entry);
    if (!tg_lc_allowed(from, to))
        return tg_err_set(err, "cannot go from %s to %s: the lifecycle allows no such step; %s",
                          tg_lc_name(from), tg_lc_name(to), next_step(from));
    char now[32];
    if (!at) {
        tg_lc_now(now);
        at = now;
    }
    cJSON *hist = cJSON_GetObjectItemCaseSensitive(entry, "history");
    if (!cJSON_IsArray(hist)) {
        cJSON_DeleteItemFromObjectCaseSensitive(entry, "history");
        hist = cJSON_AddArrayToObject(entry, "history");
    }
    cJSON *h = cJSON_CreateObject();
    if (from == TG_LC_NONE)
        cJSON_AddNullToObject(h, "from");
    else
        cJSON_AddStringToObject(h, "from", tg_lc_name(from));
    cJSON_AddStringToObject(h, "to", tg_lc_name(to));
    cJSON_AddStringToObject(h, "at", at);
    if (note)
        cJSON_AddStringToObject(h, "note", note);
    cJSON_AddItemToArray(hist, h);
    cJSON_DeleteItemFromObjectCaseSensitive(entry, "state");
    cJSON_AddStringToObject(entry, "state", tg_lc_name(to));
    cJSON_DeleteItemFromObjectCaseSensitive(entry, "updated_at");
    cJSON_AddStringToObject(entry, "updated_at", at);
    return 0;
}
