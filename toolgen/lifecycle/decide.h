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
/* tg_decide with how the reply reached toolgen, stored as the feedback's "via" (and, for an
 * approval, the promotion commit's Approved-Via trailer): "mcp-elicitation" when the user
 * answered the MCP client's form; NULL: not said (the command line). */
int tg_decide_via(const tg_registry *g, const char *tool, bool decision_stage,
                  const char *reply, const char *by, const char *via, tg_decide_result *res,
                  tg_err *err);
/* 0 when tg_decide would take a reply for that stage now (the tool is STAGED; for Stage 2 its
 * output was accepted), else -1 with err as tg_decide's: checked before the user is asked. */
int tg_decide_check(const tg_registry *g, const char *tool, bool decision_stage, tg_err *err);

#endif
