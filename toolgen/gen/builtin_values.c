/*
 * builtin_values.c — the values of a file's text columns as the request's vocabulary
 * (docs/generate.md#how-column-names-are-resolved): a value as written in the file (any case),
 * its plural ("dinners"), an irregular plural ("women" → woman), a weekday or month by its full
 * name or in the plural ("Thursdays" → Thur), the adjective of a place ("european" → europe),
 * a word for a gender ("women" → female), "weekend(s)" for the weekend days of a weekday
 * column. A value that names a value of one column becomes a filter on it; of several columns
 * (titanic's "women": who = woman, or sex = female), a question.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strvec.h"
#include "gen/builtin_int.h"

const char *const bt_weekdays[] = {"monday", "tuesday", "wednesday", "thursday", "friday",
                                   "saturday", "sunday", NULL};
const char *const bt_months[] = {"january", "february", "march", "april", "may", "june",
                                 "july", "august", "september", "october", "november",
                                 "december", NULL};

/* "dinners" names the value "Dinner": a plural of a word value (4+ letters, no digits). */
static bool plural_of_value(const char *w, const char *level)
{
    size_t n = strlen(level);
    if (n < 4 || n > 60 || strlen(w) <= n)
        return false;
    char lower[64];
    for (size_t i = 0; i <= n; i++) {
        if (isdigit((unsigned char)level[i]))
            return false;
        lower[i] = (char)tolower((unsigned char)level[i]);
    }
    return bt_word_eq(w, lower);
}

/* The words people use for one gender, with the values files use for it. */
static bool same_gender(const char *w, const char *level)
{
    static const char *const groups[2][9] = {
        {"female", "females", "woman", "women", "lady", "ladies", "f", NULL},
        {"male", "males", "man", "men", "gentleman", "gentlemen", "m", NULL},
    };
    for (int g = 0; g < 2; g++) {
        bool hw = false, hl = false;
        for (int i = 0; groups[g][i]; i++) {
            hw = hw || strcmp(groups[g][i], w) == 0;
            hl = hl || strcasecmp(groups[g][i], level) == 0;
        }
        if (hw && hl)
            return true;
    }
    return false;
}

/* A weekday or month name, or its plural, as the full name ("thursdays" → thursday); NULL. */
static const char *calendar_name(const char *w)
{
    for (int l = 0; l < 2; l++) {
        const char *const *list = l ? bt_months : bt_weekdays;
        for (size_t i = 0; list[i]; i++)
            if (bt_word_eq(w, list[i]))
                return list[i];
    }
    return NULL;
}

/* 2: w is level as written (any case); 1: another way of naming it; 0: not it. */
static int level_match(const char *w, const char *level, bool one_word)
{
    if (strcasecmp(level, w) == 0)
        return 2;
    size_t nl = strlen(level), nw = strlen(w);
    const char *cal = one_word ? calendar_name(w) : NULL;
    if (cal && nl >= 3 && strncasecmp(cal, level, nl) == 0)
        return 1;
    if (plural_of_value(w, level) || strcasecmp(bt_singular(w), level) == 0)
        return 1;
    if (one_word && nl > 1 && same_gender(w, level)) /* not deck F for "female" */
        return 1;
    char *lower = xstrdup(level);
    for (char *c = lower; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    bool place = one_word && nl >= 4 && nw > nl && nw <= nl + 3 &&
                 strncmp(w, lower, nl) == 0 && !strpbrk(lower, "0123456789 ");
    bool syn = one_word && bt_word_match(w, lower) == BT_WM_SYNONYM;
    free(lower);
    return place || syn ? 1 : 0;
}

typedef struct vcand {
    int ds, col;
    const char *level;
    int how;
} vcand;

/* Does the token at j name column col of ds d (exactly, as the column resolver would)? */
static bool names_col(const bt_toks *t, size_t j, const bt_ctx *x, int d, int col)
{
    if (j >= t->n || t->v[j].kind != BT_WORD)
        return false;
    tg_strv words = {0};
    bt_name_words(x->ds[d].cols[col].name, &words);
    bool hit = words.n == 1 && bt_word_eq(t->v[j].text, words.v[0]);
    tg_strv_free(&words);
    return hit;
}

/* Whether word w is one of the column's values as written, any case. */
static bool is_level_of(const char *w, const tg_dataset_column *c)
{
    for (size_t l = 0; l < c->nlevels; l++)
        if (strcasecmp(c->levels[l], w) == 0)
            return true;
    return false;
}

/*
 * The column's name after a list of its values that starts at i ("first and second class",
 * "first, second or third class"): the words between are "and", "or" or commas and values of
 * that column.
 */
static bool listed_before_column(const bt_toks *t, size_t i, const bt_ctx *x, int d, int col)
{
    const tg_dataset_column *c = &x->ds[d].cols[col];
    size_t j = i + 1;
    while (j + 1 < t->n &&
           ((t->v[j].kind == BT_WORD &&
             (strcmp(t->v[j].text, "and") == 0 || strcmp(t->v[j].text, "or") == 0)) ||
            t->v[j].kind == BT_SEP) &&
           (t->v[j + 1].kind == BT_WORD || t->v[j + 1].kind == BT_VAL) &&
           is_level_of(t->v[j + 1].text, c))
        j += 2;
    return j > i + 1 && names_col(t, j, x, d, col);
}

/* Every column of the datasets with a value the words w name (the best way per column). */
static size_t candidates(const char *w, bool one_word, const bt_ctx *x, vcand *out, size_t max)
{
    size_t n = 0;
    for (size_t d = 0; d < x->nds; d++)
        for (size_t c = 0; c < x->ds[d].ncols && n < max; c++) {
            const tg_dataset_column *col = &x->ds[d].cols[c];
            if (col->type != TG_COL_STRING && col->type != TG_COL_BOOL)
                continue;
            vcand best = {.how = 0};
            for (size_t l = 0; l < col->nlevels; l++) {
                int how = level_match(w, col->levels[l], one_word);
                if (how > best.how)
                    best = (vcand){.ds = (int)d, .col = (int)c, .level = col->levels[l], .how = how};
            }
            if (best.how)
                out[n++] = best;
        }
    /* a value as written wins over other ways of naming one */
    bool literal = false;
    for (size_t i = 0; i < n; i++)
        literal = literal || out[i].how == 2;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!literal || out[i].how == 2)
            out[m++] = out[i];
    return m;
}

/* One of several columns, by the user's answer or a question. */
static const vcand *choose(const bt_toks *t, size_t i, size_t k, bt_ctx *x, const vcand *c,
                           size_t n)
{
    if (n == 1)
        return &c[0];
    tg_buf about = TG_BUF_INIT;
    for (size_t j = i; j < i + k; j++)
        tg_buf_printf(&about, "%s%s", j > i ? " " : "", t->v[j].raw);
    const char *names[BT_LIMIT];
    tg_buf opts = TG_BUF_INIT;
    for (size_t j = 0; j < n && j < BT_LIMIT; j++) {
        names[j] = x->ds[c[j].ds].cols[c[j].col].name;
        tg_buf_printf(&opts, "%s%s (%s)", j ? (j + 1 == n ? " or " : ", ") : "", names[j],
                      c[j].level);
    }
    const char *pick = bt_question(x, about.data, names, n < BT_LIMIT ? n : BT_LIMIT,
                                   "By '%s', do you mean the rows where %s?", about.data,
                                   opts.data);
    tg_buf_free(&about);
    tg_buf_free(&opts);
    for (size_t j = 0; pick && j < n; j++)
        if (strcmp(names[j], pick) == 0)
            return &c[j];
    return NULL;
}

size_t bt_match_value(const bt_toks *t, size_t i, bt_ctx *x, int *ds_out, int *col_out,
                      const char **level)
{
    for (size_t k = 3; k >= 1; k--) {
        if (i + k > t->n)
            continue;
        tg_buf b = TG_BUF_INIT;
        bool words = true;
        for (size_t j = i; j < i + k; j++) {
            words = words && t->v[j].kind == BT_WORD;
            tg_buf_printf(&b, "%s%s", j > i ? " " : "", t->v[j].text);
        }
        const char *w = b.data ? b.data : "";
        bool grammar = k == 1 && (bt_is_keyword(w) || bt_is_filler(w));
        vcand c[BT_LIMIT];
        size_t n = words ? candidates(w, k == 1, x, c, BT_LIMIT) : 0;
        if (grammar) {
            /* a grammar word is a value before its column's name ("first class"), or after it
             * as written in the file ("deck A"); an article only so ("without a deck": no) */
            bool article = strcmp(w, "a") == 0 || strcmp(w, "an") == 0 || strcmp(w, "the") == 0;
            size_t m = 0;
            for (size_t j = 0; j < n; j++) {
                bool exact = strcmp(t->v[i].raw, c[j].level) == 0;
                bool after = i > 0 && t->v[i - 1].kind == BT_COL && t->v[i - 1].ds == c[j].ds &&
                             t->v[i - 1].col == c[j].col;
                bool named = names_col(t, i + 1, x, c[j].ds, c[j].col) ||
                             listed_before_column(t, i, x, c[j].ds, c[j].col);
                if ((named && (!article || exact)) || (after && exact))
                    c[m++] = c[j];
            }
            n = m;
        }
        tg_buf_free(&b);
        const vcand *v = n ? choose(t, i, k, x, c, n) : NULL;
        if (v) {
            *ds_out = v->ds;
            *col_out = v->col;
            *level = v->level;
            return k;
        }
    }
    return 0;
}

/* The weekend days among the values of a weekday column (Sat, Sun): 2 with the column and the
 * two values, 0 when no column holds only weekday names. */
size_t bt_weekend_levels(const bt_ctx *x, int *col, const char *out[2])
{
    for (size_t c = 0; c < x->ds[0].ncols; c++) {
        const tg_dataset_column *dc = &x->ds[0].cols[c];
        size_t n = 0, named = 0;
        for (size_t l = 0; l < dc->nlevels; l++) {
            const char *lv = dc->levels[l];
            size_t len = strlen(lv);
            for (size_t d = 0; bt_weekdays[d] && len >= 3; d++)
                if (strncasecmp(bt_weekdays[d], lv, len) == 0) {
                    named++;
                    if (d >= 5 && n < 2)
                        out[n++] = lv;
                    break;
                }
        }
        if (dc->type == TG_COL_STRING && named && named == dc->nlevels && n == 2) {
            *col = (int)c;
            return 2;
        }
    }
    return 0;
}
