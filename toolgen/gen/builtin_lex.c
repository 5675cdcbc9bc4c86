/*
 * builtin_lex.c — an intent's text as tokens: lowercased words, numbers, comparison symbols
 * (docs/generate.md#the-built-in-generator).
 *
 * Words keep '_' (column names are often written as in the file) and inner apostrophes are
 * dropped with what follows ("day's" → "day"), except a negation, which is two words ("didn't"
 * → did not, "can't" → can not, "won't" → will not); the typographic apostrophe (’) counts as
 * one. A number glued to a word by '-' is split ("7-day" → 7 day) so that "a 7-day moving
 * average" reads its window; "z-score" stays a word.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/builtin_int.h"

static void push(bt_toks *t, bt_tok tok)
{
    t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
    t->v[t->n++] = tok;
}

/* The length of an apostrophe at s: ' or the typographic ’ (U+2019); 0 when none. */
static size_t apostrophe_len(const char *s)
{
    if (*s == '\'')
        return 1;
    return strncmp(s, "\xe2\x80\x99", 3) == 0 ? 3 : 0;
}

static bool word_char(int c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

/* The length of the word at s: word characters, inner hyphens; it ends at an apostrophe. */
static size_t word_len(const char *s)
{
    size_t n = 0;
    while (!apostrophe_len(s + n) &&
           (word_char((unsigned char)s[n]) ||
            (s[n] == '-' && word_char((unsigned char)s[n + 1]) && n > 0)))
        n++;
    return n;
}

/* A number at s ("12", "3.5", "-2", "40%"): its length, 0 when none. */
static size_t number_len(const char *s, bool after_space)
{
    size_t i = 0;
    if (s[0] == '-' && after_space && isdigit((unsigned char)s[1]))
        i = 1;
    if (!isdigit((unsigned char)s[i]))
        return 0;
    while (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1])))
        i++;
    return i;
}

static size_t symbol(const char *s, bt_cmp *cmp)
{
    static const struct { const char *sym; bt_cmp cmp; } syms[] = {
        {">=", BT_GE}, {"<=", BT_LE}, {"!=", BT_NE}, {"==", BT_EQ}, {"=>", BT_GE}, {"=<", BT_LE},
        {">", BT_GT},  {"<", BT_LT},  {"=", BT_EQ},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        size_t n = strlen(syms[i].sym);
        if (strncmp(s, syms[i].sym, n) == 0) {
            *cmp = syms[i].cmp;
            return n;
        }
    }
    return 0;
}

static bt_tok word_tok(const char *s, size_t n)
{
    char *w = xstrndup(s, n);
    for (char *p = w; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return (bt_tok){.kind = BT_WORD, .text = w, .raw = xstrndup(s, n), .ds = -1, .col = -1};
}

int bt_lex(const char *intent, bt_toks *out, tg_err *err)
{
    *out = (bt_toks){0};
    const char *s = intent ? intent : "";
    bool after_space = true;
    while (*s) {
        size_t n;
        bt_cmp cmp;
        if ((n = number_len(s, after_space)) > 0) {
            char *text = xstrndup(s, n);
            /* "1990s", "1990's": a decade, read with the year column (builtin_phrases.c) */
            size_t plural = s[n] == 's' ? 1 : s[n] == '\'' && s[n + 1] == 's' ? 2 : 0;
            bool decade = n == 4 && plural && !isalnum((unsigned char)s[n + plural]);
            push(out, (bt_tok){.kind = BT_NUM, .num = strtod(text, NULL), .text = text,
                               .raw = xstrndup(s, n + (decade ? plural : 0)), .ds = -1,
                               .col = -1, .decade = decade});
            s += n + (decade ? plural : 0);
            if (*s == '%')
                s++;
            if (*s == '-' && isalpha((unsigned char)s[1]))
                s++; /* "7-day" */
        } else if ((n = symbol(s, &cmp)) > 0) {
            push(out, (bt_tok){.kind = BT_CMP, .cmp = cmp, .text = xstrndup(s, n),
                               .raw = xstrndup(s, n), .ds = -1, .col = -1});
            s += n;
        } else if (word_char((unsigned char)*s) && (n = word_len(s)) > 0) {
            size_t a = apostrophe_len(s + n);
            bool nt = a && n > 1 && tolower((unsigned char)s[n - 1]) == 'n' &&
                      tolower((unsigned char)s[n + a]) == 't' && !isalpha((unsigned char)s[n + a + 1]);
            if (nt) /* "didn't": did not; "can't": can not; "won't": will not */
                push(out, n == 3 && strncasecmp(s, "won", 3) == 0 ? word_tok("will", 4)
                          : n == 3 && strncasecmp(s, "can", 3) == 0 ? word_tok(s, n)
                                                                     : word_tok(s, n - 1));
            else
                push(out, word_tok(s, n));
            if (nt)
                push(out, word_tok("not", 3));
            s += n;
            if (a && isalpha((unsigned char)s[a])) { /* "day's", "what's", "didn't" */
                s += a;
                while (isalpha((unsigned char)*s) || apostrophe_len(s))
                    s += apostrophe_len(s) ? apostrophe_len(s) : 1;
            }
        } else {
            if (*s == ',' || *s == '&' || *s == ';')
                push(out, (bt_tok){.kind = BT_SEP, .text = xstrndup(s, 1), .raw = xstrndup(s, 1),
                                   .ds = -1, .col = -1});
            after_space = isspace((unsigned char)*s) || *s == '(' || *s == ',';
            s += apostrophe_len(s) ? apostrophe_len(s) : 1;
            continue;
        }
        after_space = false;
        if (out->n > BT_MAX_TOKENS) {
            bt_toks_free(out);
            return tg_err_set(err, "the intent is too long for the built-in generator (more than "
                                   "%d words): state one request in a sentence",
                              BT_MAX_TOKENS);
        }
    }
    if (out->n == 0)
        return tg_err_set(err, "the intent is empty: say what the tool should compute, e.g. "
                               "\"average tip by day\"");
    return 0;
}

/* Turns tokens i..i+k into one token of kind at i; the rest are dropped. */
void bt_merge_tokens(bt_toks *t, size_t i, size_t k, bt_kind kind, int d, int col,
                         const char *text)
{
    tg_buf raw = TG_BUF_INIT;
    for (size_t j = i; j < i + k; j++) {
        tg_buf_printf(&raw, "%s%s", j > i ? " " : "", t->v[j].raw);
        if (j > i) {
            free(t->v[j].text);
            free(t->v[j].raw);
        }
    }
    free(t->v[i].text);
    free(t->v[i].raw);
    t->v[i] = (bt_tok){.kind = kind, .text = xstrdup(text), .raw = tg_buf_steal(&raw), .ds = d,
                       .col = col};
    memmove(&t->v[i + 1], &t->v[i + k], (t->n - i - k) * sizeof *t->v);
    t->n -= k - 1;
}

void bt_insert_word(bt_toks *t, size_t i, const char *w)
{
    push(t, (bt_tok){0});
    memmove(&t->v[i + 1], &t->v[i], (t->n - 1 - i) * sizeof *t->v);
    t->v[i] = (bt_tok){.kind = BT_WORD, .text = xstrdup(w), .raw = xstrdup(w), .ds = -1,
                       .col = -1};
}

void bt_toks_free(bt_toks *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].text);
        free(t->v[i].raw);
    }
    free(t->v);
    *t = (bt_toks){0};
}
