/*
 * feedback.h — how a user's reply to a staged tool is read (docs/lifecycle.md "Feedback").
 *
 * Two stages, after the seed's decision gate:
 *   1. output (lenient): is this result correct? Accepted when the reply contains one of the
 *      configured approve keywords (feedback.approve_keywords: whole words or phrases, any
 *      case) and neither a reject keyword nor a disqualifier.
 *   2. decision (strict): register the tool? APPROVED only when the reply's first word is
 *      "approve" or "approved" and no disqualifier (but, however, except, although, though)
 *      appears after it. Everything else — "ok", "sure", "looks good", "yes", silence — is the
 *      configured default decision (REJECTED unless feedback.default_decision says PENDING);
 *      a reply opening with "reject"/"rejected" or a reject keyword is always REJECTED.
 * The functions are pure: the reply is only read; storing it is the caller's job.
 */
#ifndef TG_FEEDBACK_H
#define TG_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"
#include "model/config.h"

typedef enum tg_fb_decision {
    TG_FB_OUTPUT_ACCEPTED, /* stage 1: the output is correct */
    TG_FB_OUTPUT_REJECTED, /* stage 1: it is not */
    TG_FB_APPROVED,        /* stage 2: register the tool */
    TG_FB_REJECTED,        /* stage 2: do not */
    TG_FB_PENDING,         /* either stage: ambiguous and default_decision is PENDING */
} tg_fb_decision;

typedef struct tg_fb_rules {
    tg_strv approve;      /* stage 1 approve keywords, lower case */
    tg_strv reject;       /* reject keywords (both stages), lower case */
    bool default_pending; /* feedback.default_decision == PENDING */
} tg_fb_rules;

/* The rules of the config's feedback section, defaults filled in. Release with
 * tg_fb_rules_release. */
void tg_fb_rules_from_config(tg_fb_rules *r, const tg_config *cfg);
void tg_fb_rules_release(tg_fb_rules *r);

/* "OUTPUT_ACCEPTED", "OUTPUT_REJECTED", "APPROVED", "REJECTED", "PENDING". */
const char *tg_fb_name(tg_fb_decision d);

/* Stage 1: TG_FB_OUTPUT_ACCEPTED, TG_FB_OUTPUT_REJECTED or TG_FB_PENDING. reply may be "". */
tg_fb_decision tg_fb_read_output(const tg_fb_rules *r, const char *reply);
/* Stage 2: TG_FB_APPROVED, TG_FB_REJECTED or TG_FB_PENDING. reply may be "". */
tg_fb_decision tg_fb_read_decision(const tg_fb_rules *r, const char *reply);

#endif
