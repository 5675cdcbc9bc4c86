/*
 * regenerate.h — the generation step of `toolgen build`: before the stages run, the code of
 * generated tools whose spec or prompts changed is written again (gen/regen.h;
 * docs/generate.md#regeneration). Nothing here prints: what it does goes to the caller's
 * callbacks, in order.
 */
#ifndef TG_REGENERATE_H
#define TG_REGENERATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"
#include "model/repo.h"

/* What tg_generate_due reports while it works; it, or either callback, may be NULL. */
typedef struct tg_due_progress {
    /* tool's code would be due, but it was edited by hand, so it is kept (reported first) */
    void (*edited)(void *ud, const char *tool);
    /* tool's code is generated again now; why: "spec changed", "prompt code changed", ... */
    void (*generating)(void *ud, const char *tool, const char *why);
    void *ud;
} tg_due_progress;

/*
 * Generates again, one after the other, the code of the tools among tools[0..ntools) (every
 * tool when ntools is 0) whose tool.lock says their spec or a prompt changed. With frozen
 * nothing is generated: each tool that would be is appended to *frozen_due as "TOOL: WHY".
 * 0, also when the manifests cannot be listed (the build reports that itself); -1 with err when
 * a generation failed (the tools after it are left alone).
 */
int tg_generate_due(const tg_repo *repo, const char *const *tools, size_t ntools, bool frozen,
                    const tg_due_progress *p, tg_strv *frozen_due, tg_err *err);

#endif
