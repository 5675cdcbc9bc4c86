/* fuzz_feedback.c — libFuzzer harness: the feedback rules (lifecycle/feedback.h) read any
 * reply, at both stages, and answer one of their decisions; the strict stage never approves a
 * reply that does not open with "approve". */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lifecycle/feedback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tg_fb_rules rules;

/* What the rules count as part of a word (lifecycle/feedback.c). */
static bool word_char(unsigned char c)
{
    return isalnum(c) || c == '\'' || c >= 0x80;
}
static bool have_rules;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!have_rules) {
        tg_fb_rules_from_config(&rules, NULL);
        have_rules = true;
    }
    char *reply = xstrndup((const char *)data, size); /* a reply ends at its first NUL */
    tg_fb_decision out = tg_fb_read_output(&rules, reply);
    if (out != TG_FB_OUTPUT_ACCEPTED && out != TG_FB_OUTPUT_REJECTED && out != TG_FB_PENDING)
        abort();
    tg_fb_decision d = tg_fb_read_decision(&rules, reply);
    if (d != TG_FB_APPROVED && d != TG_FB_REJECTED && d != TG_FB_PENDING)
        abort();
    if (d == TG_FB_APPROVED) { /* approval only from a reply whose first word is approve(d) */
        const unsigned char *p = (const unsigned char *)reply;
        while (*p && !word_char(*p))
            p++;
        size_t n = strncasecmp((const char *)p, "approved", 8) == 0  ? 8
                   : strncasecmp((const char *)p, "approve", 7) == 0 ? 7 : 0;
        if (n == 0 || word_char(p[n]))
            abort();
    }
    free(reply);
    return 0;
}
