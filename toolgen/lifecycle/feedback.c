/* feedback.c — the two-stage reading of a user's reply (rules in feedback.h and
 * docs/lifecycle.md "Feedback"). */
#include "lifecycle/feedback.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

static const char *const default_approve[] = {"yes", "approve", "looks good", "works", "ship it",
                                              NULL};
static const char *const default_reject[] = {"no", "reject", "wrong", "incorrect", NULL};
static const char *const disqualifiers[] = {"but", "however", "except", "although", "though",
                                            NULL};

/* Lower case, words separated by single spaces, everything but letters, digits and ' dropped:
 * "Approved!  Ship-it" → "approved ship it". Heap string. */
static char *words_of(const char *s)
{
    size_t n = strlen(s);
    char *out = xmalloc(n + 1), *o = out;
    bool gap = false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '\'' || *p >= 0x80) {
            if (gap && o > out)
                *o++ = ' ';
            gap = false;
            *o++ = (char)tolower(*p);
        } else {
            gap = true;
        }
    }
    *o = '\0';
    return out;
}

/* Whether the phrase (already in words_of form) occurs in words on word boundaries. */
static bool has_phrase(const char *words, const char *phrase)
{
    size_t pl = strlen(phrase);
    if (pl == 0)
        return false;
    for (const char *p = words; (p = strstr(p, phrase)) != NULL; p++) {
        bool start = p == words || p[-1] == ' ';
        bool end = p[pl] == '\0' || p[pl] == ' ';
        if (start && end)
            return true;
    }
    return false;
}

static bool has_any(const char *words, char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (has_phrase(words, list[i]))
            return true;
    return false;
}

static bool has_disqualifier(const char *words)
{
    for (size_t i = 0; disqualifiers[i]; i++)
        if (has_phrase(words, disqualifiers[i]))
            return true;
    return false;
}

static void load_list(tg_strv *out, const cJSON *arr, const char *const *fallback)
{
    if (cJSON_IsArray(arr)) {
        const cJSON *it;
        cJSON_ArrayForEach(it, arr)
            if (cJSON_IsString(it))
                tg_strv_push_owned(out, words_of(it->valuestring));
        return;
    }
    for (size_t i = 0; fallback[i]; i++)
        tg_strv_push(out, fallback[i]);
}

void tg_fb_rules_from_config(tg_fb_rules *r, const tg_config *cfg)
{
    *r = (tg_fb_rules){0};
    load_list(&r->approve, cfg ? tg_config_get(cfg, "/feedback/approve_keywords") : NULL,
              default_approve);
    load_list(&r->reject, cfg ? tg_config_get(cfg, "/feedback/reject_keywords") : NULL,
              default_reject);
    const cJSON *d = cfg ? tg_config_get(cfg, "/feedback/default_decision") : NULL;
    r->default_pending = cJSON_IsString(d) && strcmp(d->valuestring, "PENDING") == 0;
}

void tg_fb_rules_release(tg_fb_rules *r)
{
    tg_strv_free(&r->approve);
    tg_strv_free(&r->reject);
}

const char *tg_fb_name(tg_fb_decision d)
{
    static const char *const names[] = {"OUTPUT_ACCEPTED", "OUTPUT_REJECTED", "APPROVED",
                                        "REJECTED", "PENDING"};
    return (unsigned)d <= TG_FB_PENDING ? names[d] : "PENDING";
}

tg_fb_decision tg_fb_read_output(const tg_fb_rules *r, const char *reply)
{
    char *w = words_of(reply ? reply : "");
    tg_fb_decision d;
    if (has_any(w, r->reject.v, r->reject.n) || has_disqualifier(w))
        d = TG_FB_OUTPUT_REJECTED;
    else if (has_any(w, r->approve.v, r->approve.n))
        d = TG_FB_OUTPUT_ACCEPTED;
    else
        d = r->default_pending ? TG_FB_PENDING : TG_FB_OUTPUT_REJECTED;
    free(w);
    return d;
}

/* Whether words starts with the word or phrase p. */
static bool starts_with_phrase(const char *words, const char *p)
{
    size_t pl = strlen(p);
    return pl > 0 && strncmp(words, p, pl) == 0 && (words[pl] == '\0' || words[pl] == ' ');
}

tg_fb_decision tg_fb_read_decision(const tg_fb_rules *r, const char *reply)
{
    char *w = words_of(reply ? reply : "");
    tg_fb_decision d;
    if (starts_with_phrase(w, "approve") || starts_with_phrase(w, "approved")) {
        d = has_disqualifier(w) ? TG_FB_REJECTED : TG_FB_APPROVED;
    } else {
        bool explicit_no = starts_with_phrase(w, "reject") || starts_with_phrase(w, "rejected");
        for (size_t i = 0; !explicit_no && i < r->reject.n; i++)
            explicit_no = starts_with_phrase(w, r->reject.v[i]);
        d = explicit_no || !r->default_pending ? TG_FB_REJECTED : TG_FB_PENDING;
    }
    free(w);
    return d;
}
