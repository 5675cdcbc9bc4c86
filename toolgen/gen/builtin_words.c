/*
 * builtin_words.c — how an analyst's word may name a word of a column name, or a value
 * (docs/generate.md#how-column-names-are-resolved): the same word, its plural or an irregular
 * plural ("women" → woman), a synonym from a small table of common analyst words ("price" →
 * fare, "weight" → mass), an abbreviation the column uses ("insurance" → ins), a word of the
 * same stem ("survival" → survived, "spends" → spending), or a one-letter slip, swapped
 * letters included ("avergae" → average: the Damerau edit distance). And the phrases rewritten
 * before anything is resolved ("std dev" → std, "fuel efficiency" → mpg).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "gen/builtin_int.h"

/* Groups of words analysts use for the same thing in column names; a group is a NULL-ended
 * run, the table ends with two NULLs. Only words general enough to mean the same in any
 * table: a domain's jargon belongs in its column names, or in a model's reading. */
static const char *const synonyms[] = {
    "price", "cost", "fare", "charge", "fee", NULL,
    "weight", "mass", "weigh", "weighs", "weighed", "weighing", NULL,
    "spending", "spend", "expenditure", "expense", "expenses", NULL,
    "gender", "sex", NULL,
    "tip", "gratuity", NULL,
    "speed", "velocity", NULL,
    "age", "old", NULL,
    "distance", "mileage", "miles", "mile", "km", "kilometers", "kilometres", NULL,
    "usa", "us", "america", "american", NULL,
    "horsepower", "hp", "power", NULL,
    "country", "nation", NULL,
    "passengers", "riders", NULL,
    "height", "tall", NULL,
    "income", "salary", "earnings", "wage", "wages", NULL,
    "port", "harbour", "harbor", NULL,
    "losses", "loss", NULL,
    NULL,
};

/* Irregular plurals, singular first. */
static const char *const irregular[][2] = {
    {"child", "children"}, {"woman", "women"}, {"man", "men"}, {"person", "people"},
    {"mouse", "mice"},     {"foot", "feet"},   {"tooth", "teeth"}, {"goose", "geese"},
};

/* Phrases read as one word before anything else. */
static const char *const phrases[][2] = {
    {"std dev", "std"},          {"standard dev", "std"},     {"st dev", "std"},
    {"fuel efficiency", "mpg"},  {"fuel economy", "mpg"},     {"miles per gallon", "mpg"},
    {"gas mileage", "mpg"},      {"fuel efficient", "mpg"},   {"per cent", "percent"},
    {"on average", "average"},   {"in total", "total"},       {"compared to", "vs"},
    {"compared with", "vs"},
};

size_t bt_phrase_count(void)
{
    return sizeof phrases / sizeof *phrases;
}

const char *bt_phrase(size_t i, const char **as)
{
    *as = phrases[i][1];
    return phrases[i][0];
}

const char *bt_singular(const char *w)
{
    for (size_t i = 0; i < sizeof irregular / sizeof *irregular; i++)
        if (strcmp(w, irregular[i][1]) == 0)
            return irregular[i][0];
    return w;
}

/* Whether a and b are in one group of the synonym table. */
static bool synonymous(const char *a, const char *b)
{
    for (size_t g = 0; synonyms[g]; g++) {
        bool has_a = false, has_b = false;
        for (; synonyms[g]; g++) {
            has_a = has_a || strcmp(synonyms[g], a) == 0;
            has_b = has_b || strcmp(synonyms[g], b) == 0;
        }
        if (has_a && has_b)
            return true;
    }
    return false;
}

size_t bt_damerau(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return 99;
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1; /* two letters swapped */
            d[i][j] = v;
        }
    return d[n][m];
}

static size_t common_prefix(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

/* Is w the name word c with a verb ending: -ed, -ing, with the last letter doubled ("tipped",
 * "tipping", "rated")? Only for names of three letters and more, and not the stem rule's
 * business (it covers longer shared prefixes). */
static bool inflected(const char *w, const char *c)
{
    size_t nc = strlen(c);
    if (nc < 3 || strncmp(w, c, nc) != 0)
        return false;
    const char *rest = w + nc;
    if (rest[0] == c[nc - 1] && !strchr("aeiou", rest[0]))
        rest++; /* tip → tipp */
    else if (c[nc - 1] == 'e' && (strcmp(rest, "d") == 0))
        return true; /* rate → rated */
    return strcmp(rest, "ed") == 0 || strcmp(rest, "ing") == 0;
}

bt_wmatch bt_word_match(const char *w, const char *c)
{
    size_t nw = strlen(w), nc = strlen(c);
    if (!nw || !nc)
        return BT_WM_NONE;
    if (bt_word_eq(w, c) || strcmp(bt_singular(w), c) == 0)
        return BT_WM_SAME;
    if (synonymous(w, c) || synonymous(bt_singular(w), c))
        return BT_WM_SYNONYM;
    /* an abbreviation in the column name: ins (insurance), embark (embarkation) */
    if (nc >= 3 && strncmp(w, c, nc) == 0 && nw >= (nc <= 3 ? 7 : nc + 2))
        return BT_WM_LOOSE;
    /* a verb of a short name: tip → tipped, tipping, tips */
    if (inflected(w, c))
        return BT_WM_LOOSE;
    /* the same stem: spend → spending, weigh → weight, survival → survived */
    size_t p = common_prefix(w, c), shorter = nw < nc ? nw : nc;
    if (p >= 4 && (p == shorter || (p >= 5 && p + 3 >= (nw > nc ? nw : nc))))
        return BT_WM_LOOSE;
    if (nw >= 5 && nc >= 5 && bt_damerau(w, c) == 1)
        return BT_WM_LOOSE;
    return BT_WM_NONE;
}

/* The words of a column name, lowercased ("Life_Expectancy" → life, expectancy). */
void bt_name_words(const char *name, tg_strv *out)
{
    tg_strv_push_words(out, name);
}
