/*
 * decide.h — `toolgen feedback`: the user's reply recorded on a staged tool (docs/lifecycle.md
 * "Feedback"), read with the rules of lifecycle/feedback.h.
 *
 * Stage 1 (--output) needs a STAGED tool and stores {reply, decision, at, by} as
 * feedback.output; the state stays STAGED. Stage 2 (--decision) is refused unless Stage 1
 * accepted the output; it stores feedback.decision and moves STAGED → APPROVED or → REJECTED
 * (a PENDING answer, when the config asks for it, changes nothing but is stored). A rejection
 * here archives nothing: `toolgen reject` does that with the user's notes.
 */
#ifndef TG_DECIDE_H
#define TG_DECIDE_H

#include <stdbool.h>

#include "base/util.h"
#include "lifecycle/feedback.h"
#include "lifecycle/registry.h"

typedef struct tg_decide_result {
    tg_fb_decision decision;
    char state[16];   /* the entry's state after the call */
    char version[64];
} tg_decide_result;

/*
 * Records reply (stored verbatim) as the Stage 1 answer (decision_stage false) or the Stage 2
 * answer (true); by names who answered. 0, or -1 with err when the tool has no staged
 * candidate, is in the wrong state, or Stage 2 comes before an accepted Stage 1.
 */
int tg_decide(const tg_registry *g, const char *tool, bool decision_stage, const char *reply,
              const char *by, tg_decide_result *res, tg_err *err);

#endif
