/*
 * regen.h — `toolgen build`'s generation step: the code of a generated tool is written again
 * when what it was generated from changed (docs/generate.md#regeneration).
 *
 * A tool opts in with its tool.lock (written by `toolgen new`) saying generator llm. Its code is
 * due when the spec (the manifest without status and provenance) or a prompt the code was
 * written from (code, repair, reference/tool.py) hashes differently from the lock. Code whose
 * hash is not the lock's was edited by hand: it is never touched (reported instead). Without a
 * lock, or with generator human/offline, nothing happens.
 *
 * Ownership: the plan's vectors are the caller's (tg_strv_free).
 */
#ifndef TG_REGEN_H
#define TG_REGEN_H

#include <stdbool.h>

#include "base/strvec.h"
#include "model/repo.h"

typedef struct tg_regen_plan {
    tg_strv due;     /* tools whose code must be generated */
    tg_strv why;     /* for each due tool: "spec changed", "prompt code changed", ... */
    tg_strv edited;  /* tools that would be due but whose code was edited by hand */
} tg_regen_plan;

/* Which tools of repo are due; 0, or -1 with err when the manifests cannot be listed. A tool
 * whose lock or manifest cannot be read is left alone (lint and load report it). */
int tg_regen_find(const tg_repo *repo, tg_regen_plan *plan, tg_err *err);
void tg_regen_plan_release(tg_regen_plan *plan);

/* Generates tool's code again with the provider of toolgen.yaml (the cache first): tool.py,
 * the manifest's provenance hashes and tool.lock, each written atomically. *requests counts
 * the requests sent. 0, or -1 with err (nothing changed on disk then). */
int tg_regen_tool(const tg_repo *repo, const char *tool, int *requests, tg_err *err);

#endif
