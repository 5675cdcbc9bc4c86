/*
 * builtin_loose.c — columns named loosely, and the rewrites before resolution
 * (docs/generate.md#how-column-names-are-resolved).
 *
 * A run of the request's words names a column when each word names a distinct word of the
 * column's name (builtin_words.c: the same word, a synonym, an abbreviation, a stem, a slip):
 * "bill" names total_bill, "body weight" body_mass_g, "insurance premium" ins_premium. One
 * column: it is read so, and the reading shows it; several ("bill" in a file with total_bill
 * and bill_length_mm), or words that name nothing of the one column that fits ("ticket price"
 * → fare): a question, never a guess.
 *
 * The rewrites: phrases read as one word ("std dev" → std), superlative adjectives as a
 * direction and what they measure ("heaviest" → highest weight, "busiest" → most rows) — the
 * measure's word then resolves like any other, and is refused when the file has no such
 * column —, "non-smokers" as non + smokers, "weekend(s)" as the weekend values of a weekday
 * column.
 */
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "gen/builtin.h"
#include "gen/builtin_int.h"

#define MAX_RUN 3

/* Can the word at j be part of a loose column name: a plain word or a row noun, no grammar
 * ("size" is filler, but a word of a column named size)? */
static bool content_word(const bt_toks *t, size_t j, const bt_ctx *x)
{
    const bt_tok *k = &t->v[j];
    if (k->kind != BT_WORD)
        return false;
    if (!bt_is_keyword(k->text) && !bt_is_filler(k->text))
        return true; /* a row noun may name a column: "bill" (row noun of tips) */
    for (size_t d = 0; d < x->nds; d++)
        for (size_t c = 0; c < x->ds[d].ncols; c++)
            if (bt_word_eq(k->text, x->ds[d].cols[c].name))
                return true;
    return false;
}

typedef struct lcand {
    int ds, col;
    bool full;
} lcand;
static size_t loose_candidates(const char *const *words, size_t n, const bt_ctx *x, lcand *out);

/* A word of a partial run that names nothing of the column: it must name nothing at all — no
 * value, no near-miss of a grammar word ("avrage tip" is an aggregate and a column). */
static bool names_nothing(const bt_toks *t, size_t j, bt_ctx *x)
{
    const char *w = t->v[j].text;
    if (bt_close_keyword(w) || bt_is_keyword(w) || bt_is_filler(w) || bt_is_row_noun(w))
        return false;
    lcand named[BT_LIMIT];
    if (loose_candidates(&w, 1, x, named) && named[0].full)
        return false; /* "weight species": two columns, not one with a modifier */
    tg_builtin_question *q = x->q;
    tg_builtin_question none = {0};
    x->q = &none; /* looking, not asking */
    int d, c;
    const char *level;
    size_t k = bt_match_value(t, j, x, &d, &c, &level);
    x->q = q;
    tg_builtin_question_release(&none);
    return k == 0;
}

/* How many of words[0..n) name distinct words of column name (greedy), in *matched. */
static size_t name_cover(const char *const *words, size_t n, const char *name, bool *matched)
{
    tg_strv nw = {0};
    bt_name_words(name, &nw);
    bool used[16] = {0};
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        matched[i] = false;
        for (size_t j = 0; j < nw.n && j < 16 && !matched[i]; j++)
            if (!used[j] && bt_word_match(words[i], nw.v[j]) != BT_WM_NONE) {
                used[j] = matched[i] = true;
                hits++;
            }
    }
    tg_strv_free(&nw);
    return hits;
}



/* The columns words[0..n) name: those every word names a word of (full), else those at least
 * one does (partial). */
static size_t loose_candidates(const char *const *words, size_t n, const bt_ctx *x, lcand *out)
{
    size_t nfull = 0, npart = 0;
    lcand part[BT_LIMIT];
    for (size_t d = 0; d < x->nds; d++)
        for (size_t c = 0; c < x->ds[d].ncols; c++) {
            bool matched[MAX_RUN];
            size_t hits = name_cover(words, n, x->ds[d].cols[c].name, matched);
            if (hits == n && nfull < BT_LIMIT)
                out[nfull++] = (lcand){(int)d, (int)c, true};
            else if (hits && npart < BT_LIMIT)
                part[npart++] = (lcand){(int)d, (int)c, false};
        }
    if (nfull)
        return nfull;
    memcpy(out, part, npart * sizeof *part);
    return npart;
}

/* A partial run ("ticket price" → fare): the words that name nothing of the column name
 * nothing at all, and come before the ones that do, as a modifier does. */
static bool partial_ok(const bt_toks *t, size_t i, size_t k, bt_ctx *x, const lcand *c)
{
    const char *words[MAX_RUN];
    bool matched[MAX_RUN];
    for (size_t j = 0; j < k; j++)
        words[j] = t->v[i + j].text;
    const char *name = x->ds[c->ds].cols[c->col].name;
    name_cover(words, k, name, matched);
    if (!matched[k - 1])
        return false;
    size_t unmatched = 0;
    for (size_t j = 0; j < k; j++)
        unmatched += !matched[j];
    if (unmatched > 1)
        return false; /* "party size" is a size; in "predict tomorrow's tip" the words before
                         tip are something else than a modifier of it */
    for (size_t j = 0; j < k; j++)
        if (!matched[j] && !names_nothing(t, i + j, x))
            return false;
    return true;
}

size_t bt_loose_column(const bt_toks *t, size_t i, bt_ctx *x, int *ds_out, int *col_out)
{
    for (size_t k = MAX_RUN; k >= 1; k--) {
        if (i + k > t->n)
            continue;
        const char *words[MAX_RUN];
        bool ok = true;
        for (size_t j = 0; j < k && ok; j++) {
            ok = content_word(t, i + j, x);
            words[j] = t->v[i + j].text;
        }
        lcand c[BT_LIMIT];
        size_t n = ok ? loose_candidates(words, k, x, c) : 0;
        if (!n || (!c[0].full && (k == 1 || !partial_ok(t, i, k, x, &c[0]))))
            continue;
        tg_buf about = TG_BUF_INIT, opts = TG_BUF_INIT;
        const char *names[BT_LIMIT];
        for (size_t j = i; j < i + k; j++)
            tg_buf_printf(&about, "%s%s", j > i ? " " : "", t->v[j].raw);
        for (size_t j = 0; j < n; j++) {
            names[j] = x->ds[c[j].ds].cols[c[j].col].name;
            tg_buf_printf(&opts, "%s%s", j ? (j + 1 == n ? " or " : ", ") : "", names[j]);
        }
        const char *pick = n == 1 && c[0].full ? names[0]
                           : bt_question(x, about.data, names, n, "By '%s', do you mean %s?",
                                         about.data, opts.data);
        tg_buf_free(&about);
        tg_buf_free(&opts);
        for (size_t j = 0; pick && j < n; j++)
            if (strcmp(names[j], pick) == 0) {
                *ds_out = c[j].ds;
                *col_out = c[j].col;
                return k;
            }
        return 0;
    }
    return 0;
}

/* ---- rewrites ------------------------------------------------------------------------------ */

static void phrases(bt_toks *t)
{
    for (size_t i = 0; i < t->n; i++)
        for (size_t p = 0; p < bt_phrase_count(); p++) {
            const char *as, *ph = bt_phrase(p, &as);
            tg_strv w = {0};
            bt_name_words(ph, &w);
            bool hit = i + w.n <= t->n;
            for (size_t j = 0; hit && j < w.n; j++)
                hit = t->v[i + j].kind == BT_WORD && strcmp(t->v[i + j].text, w.v[j]) == 0;
            if (hit)
                bt_merge_tokens(t, i, w.n, BT_WORD, -1, -1, as);
            tg_strv_free(&w);
        }
}

/* A superlative adjective: the direction it ranks in and what it measures, in words. */
static const struct {
    const char *word, *dir, *measure[3];
} superlatives[] = {
    {"heaviest", "highest", {"weight"}},          {"lightest", "lowest", {"weight"}},
    {"oldest", "highest", {"age"}},               {"youngest", "lowest", {"age"}},
    {"longest", "highest", {"length", "distance", "duration"}},
    {"shortest", "lowest", {"length", "distance", "duration"}},
    {"tallest", "highest", {"height"}},           {"fastest", "highest", {"speed"}},
    {"slowest", "lowest", {"speed"}},             {"cheapest", "lowest", {"price"}},
    {"priciest", "highest", {"price"}},           {"expensive", NULL, {"price"}},
    {"powerful", NULL, {"power"}},                {"busiest", "most", {"rows"}},
    {"popular", NULL, {"rows"}},                  {"best", "highest", {NULL}},
    {"worst", "lowest", {NULL}},
};

/* The first of words that names a word of some column of the data ("rows" always does). */
static const char *measured(const char *const *words, const bt_ctx *x)
{
    for (size_t i = 0; i < 3 && words[i]; i++) {
        if (strcmp(words[i], "rows") == 0)
            return words[i];
        for (size_t d = 0; d < x->nds; d++)
            for (size_t c = 0; c < x->ds[d].ncols; c++) {
                bool m;
                if (name_cover(&words[i], 1, x->ds[d].cols[c].name, &m))
                    return words[i];
            }
    }
    return NULL;
}

/* "heaviest" → highest weight; "most expensive" → most price (the direction word stays). */
static void superlative(bt_toks *t, size_t i, bt_ctx *x)
{
    for (size_t s = 0; s < sizeof superlatives / sizeof *superlatives; s++) {
        if (strcmp(t->v[i].text, superlatives[s].word) != 0)
            continue;
        const char *m = measured(superlatives[s].measure, x);
        bool after_most = i > 0 && (strcmp(t->v[i - 1].text, "most") == 0 ||
                                    strcmp(t->v[i - 1].text, "least") == 0);
        if (!superlatives[s].dir && !after_most)
            return; /* "expensive" alone is not a superlative */
        /* counting rows may not be what was asked where rows are themselves totals (the
         * plan's check, builtin_ops.c) */
        x->rows_superlative = x->rows_superlative || (m && strcmp(m, "rows") == 0);
        if (superlatives[s].dir) {
            free(t->v[i].text);
            t->v[i].text = xstrdup(superlatives[s].dir);
            if (m)
                bt_insert_word(t, i + 1, m);
        } else if (m) {
            free(t->v[i].text);
            t->v[i].text = xstrdup(m);
        }
        return;
    }
}

/* "non-smokers" → non smokers */
static void non_prefix(bt_toks *t, size_t i)
{
    const char *w = t->v[i].text;
    if (strncmp(w, "non-", 4) != 0 || !w[4])
        return;
    char *rest = xstrdup(w + 4);
    free(t->v[i].text);
    t->v[i].text = xstrdup("non");
    bt_insert_word(t, i + 1, rest);
    free(rest);
}

/* "weekends" → Sat or Sun, the values of the file's weekday column */
static void weekend(bt_toks *t, size_t i, const bt_ctx *x)
{
    int col;
    const char *days[2];
    if (!bt_word_eq(t->v[i].text, "weekend") || bt_weekend_levels(x, &col, days) != 2)
        return;
    bt_merge_tokens(t, i, 1, BT_VAL, 0, col, days[0]);
    bt_insert_word(t, i + 1, "or");
    bt_insert_word(t, i + 2, days[1]);
    bt_merge_tokens(t, i + 2, 1, BT_VAL, 0, col, days[1]);
}

void bt_rewrite(bt_toks *t, bt_ctx *x)
{
    phrases(t);
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].kind != BT_WORD)
            continue;
        non_prefix(t, i);
        superlative(t, i, x);
        if (t->v[i].kind == BT_WORD)
            weekend(t, i, x);
    }
}
