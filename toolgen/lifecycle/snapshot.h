/*
 * snapshot.h — `toolgen stage`: DRAFT → STAGED, the candidate snapshot of a built tool
 * (docs/lifecycle.md "Staging").
 *
 * A tool is staged from what the last `toolgen build` judged: its canonical IR must equal the
 * manifest as it is now and its validation report must be about the current code and have
 * passed every gate. The candidate folder gets spec.json (the IR), the code file and
 * validation_report.json; the staging metadata gets an entry with both hashes and the two
 * transitions (DRAFT, STAGED), all written or none.
 */
#ifndef TG_SNAPSHOT_H
#define TG_SNAPSHOT_H

#include <stdbool.h>

#include "base/util.h"
#include "lifecycle/registry.h"

typedef struct tg_registry_stage_result {
    bool already;      /* the same spec and code are already STAGED, APPROVED or active:
                        * nothing done */
    char version[64];  /* the staged version */
    char path[1024];   /* the candidate folder, relative to the root */
    char state[16];    /* the entry's state after the call */
    bool gate_failed;  /* refused because a quality gate failed in the build */
} tg_registry_stage_result;

/* Stages tool. 0 (see res->already), or -1 with err naming what is missing and the command to
 * run (build first, reject or bump the version of a different staged candidate). */
int tg_registry_stage(const tg_registry *g, const char *tool, tg_registry_stage_result *res,
                      tg_err *err);

#endif
