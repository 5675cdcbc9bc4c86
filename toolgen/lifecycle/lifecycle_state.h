/*
 * lifecycle_state.h — the lifecycle of a tool in the registry (docs/lifecycle.md "States"):
 *
 *   DRAFT → STAGED → APPROVED → PROMOTED
 *              ↘        ↘
 *               REJECTED (from DRAFT, STAGED or APPROVED)
 *
 * Nothing skips a state: every change goes through tg_lc_transition, which refuses a move the
 * table does not allow and appends {from, to, at, note} to the entry's "history" array, so the
 * staging metadata (lifecycle/registry.h) records when and why each state was entered.
 */
#ifndef TG_LIFECYCLE_STATE_H
#define TG_LIFECYCLE_STATE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "base/util.h"

typedef enum tg_lc_state {
    TG_LC_DRAFT,
    TG_LC_STAGED,
    TG_LC_APPROVED,
    TG_LC_REJECTED,
    TG_LC_PROMOTED,
    TG_LC_NONE, /* no entry, or an unknown name */
} tg_lc_state;

/* "DRAFT", "STAGED", ... (the names the metadata files hold); "NONE" for TG_LC_NONE. */
const char *tg_lc_name(tg_lc_state s);
/* The state named s (upper case, as written by tg_lc_name); TG_LC_NONE when unknown. */
tg_lc_state tg_lc_parse(const char *s);
/* Whether the table allows from → to. */
bool tg_lc_allowed(tg_lc_state from, tg_lc_state to);

/* The current UTC time as RFC 3339 with seconds, "2026-11-24T03:32:50Z". */
void tg_lc_now(char out[32]);

/*
 * Moves entry (an object with a "state" string; absent means DRAFT is being created, so only
 * to == TG_LC_DRAFT is allowed) to `to`, stamping at (tg_lc_now when NULL) and note (may be
 * NULL). 0, or -1 with err naming both states and the command that leads on from the current one.
 */
int tg_lc_transition(cJSON *entry, tg_lc_state to, const char *at, const char *note, tg_err *err);
/* The entry's state; TG_LC_NONE when entry is NULL or has none. */
tg_lc_state tg_lc_state_of(const cJSON *entry);

#endif
