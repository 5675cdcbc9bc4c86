/*
 * builtin_phrases.c — filters as analysts say them without naming the column first
 * (docs/generate.md#what-it-understands): a number attached to a word ("4-cylinder cars",
 * "6 or more cylinders"), a year ("in 2015", "since 2000", "before 1955": the file's year
 * column, or the year of its date column), a comparison whose word implies its column ("older
 * than 60": age) or whose number's unit names it ("over 10 miles": distance; "over 6000
 * grams": the column whose name ends in g), and yes/no
 * columns named in the negative ("non-smokers") or against each other ("smokers vs
 * non-smokers": per value). A comparison whose column nothing names is asked about, among the
 * numeric columns whose range holds the number; never guessed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "gen/builtin_parse_int.h"

bool bp_year_word(const bt_tok *tok)
{
    static const char *const words[] = {"since", "from", "until", "through", "before", "after",
                                        "in", "during", NULL};
    return bp_in(tok, words);
}

bool bp_year(const bt_tok *tok)
{
    return tok->kind == BT_NUM && tok->num == floor(tok->num) && tok->num >= 1000 &&
           tok->num <= 2999;
}

static bool numeric(const tg_dataset_column *c)
{
    return c->type == TG_COL_INT || c->type == TG_COL_FLOAT;
}

/* A numeric filter; excluded: what the words before it exclude ("except since 2000"). */
static int add_filter(bp_state *s, int col, bt_cmp cmp, double num, bool year, bool excluded)
{
    bt_filter *f = bp_new_filter(s, col);
    if (!f)
        return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
    f->cmp = cmp;
    f->numeric = true;
    f->lo = num;
    f->year = year;
    return excluded && bp_negate_last(s) != 0 ? -1 : 1;
}

/* The range between a and b, both ends included, in either order ("from 1990 to 1999", "the
 * 1990s", "from 1999 back to 1990"). */
static int add_range(bp_state *s, int col, double a, double b, bool year, bool excluded)
{
    int rc = add_filter(s, col, BT_BETWEEN, a < b ? a : b, year, false);
    if (rc < 0)
        return rc;
    s->p->filters[s->p->nfilters - 1].hi = a < b ? b : a;
    return excluded && bp_negate_last(s) != 0 ? -1 : 1;
}

/* The column of ds[0] one of whose name's words is w (loosely), when exactly one; -1. */
static int column_of_word(const bp_state *s, const char *w, bool want_numeric)
{
    int found = -1, n = 0;
    for (size_t c = 0; c < s->ds[0].ncols; c++) {
        const tg_dataset_column *col = &s->ds[0].cols[c];
        if (want_numeric && !numeric(col))
            continue;
        tg_strv words = {0};
        bt_name_words(col->name, &words);
        bool hit = false;
        for (size_t i = 0; i < words.n && !hit; i++)
            hit = bt_word_match(w, words.v[i]) != BT_WM_NONE;
        tg_strv_free(&words);
        if (hit)
            found = (int)c, n++;
    }
    return n == 1 ? found : -1;
}

/* "in 2015": the year column (named year), else the year of the date column; -1 when neither
 * or several. *year_of_date tells which. */
int bp_year_column(const bp_state *s, bool *year_of_date)
{
    int c = column_of_word(s, "year", true);
    *year_of_date = false;
    if (c >= 0)
        return c;
    int date = -1, n = 0;
    for (size_t i = 0; i < s->ds[0].ncols; i++)
        if (s->ds[0].cols[i].type == TG_COL_DATE)
            date = (int)i, n++;
    *year_of_date = n == 1;
    return n == 1 ? date : -1;
}

/* The column a comparison word implies: "older" → age, "heavier" → weight. */
static int implied_column(const bp_state *s, const bt_tok *word)
{
    static const char *const implied[][2] = {
        {"older", "age"},       {"younger", "age"},     {"heavier", "weight"},
        {"lighter", "weight"},  {"longer", "length"},   {"shorter", "length"},
        {"taller", "height"},   {"cheaper", "price"},   {"costlier", "price"},
    };
    for (size_t i = 0; word->kind == BT_WORD && i < sizeof implied / sizeof *implied; i++)
        if (strcmp(word->text, implied[i][0]) == 0)
            return column_of_word(s, implied[i][1], true);
    return -1;
}

/* The numeric columns whose range holds num (yes/no columns left out), for a question. */
static size_t columns_holding(const bp_state *s, double num, const char **out)
{
    size_t n = 0;
    for (size_t c = 0; c < s->ds[0].ncols && n < BT_LIMIT; c++) {
        const tg_dataset_column *col = &s->ds[0].cols[c];
        if (numeric(col) && col->distinct > 2 && num >= col->min && num <= col->max)
            out[n++] = col->name;
    }
    return n;
}

static int column_index(const bp_state *s, const char *name)
{
    for (size_t c = 0; c < s->ds[0].ncols; c++)
        if (strcmp(s->ds[0].cols[c].name, name) == 0)
            return (int)c;
    return -1;
}

/* "NUM or more" / "NUM or less" after the number at i: the comparison, else 0. */
static size_t or_more(const bt_toks *t, size_t i, bt_cmp *cmp)
{
    static const char *const more[] = {"more", "above", "over", "greater", "higher", NULL};
    static const char *const less[] = {"less", "fewer", "below", "under", "lower", NULL};
    if (i + 2 >= t->n || !bp_is(&t->v[i + 1], "or"))
        return 0;
    if (bp_in(&t->v[i + 2], more))
        return *cmp = BT_GE, i + 3;
    if (bp_in(&t->v[i + 2], less))
        return *cmp = BT_LE, i + 3;
    return 0;
}

/* Units as analysts write them after a number, each row one unit: its abbreviations (as a
 * column name ends: body_mass_g, bill_length_mm, price_usd) and its words. */
static const char *const unit_rows[][7] = {
    {"g", "gr", "gram", "grams", NULL},
    {"kg", "kilo", "kilos", "kilogram", "kilograms", NULL},
    {"mg", "milligram", "milligrams", NULL},
    {"mm", "millimeter", "millimeters", "millimetre", "millimetres", NULL},
    {"cm", "centimeter", "centimeters", "centimetre", "centimetres", NULL},
    {"km", "kilometer", "kilometers", "kilometre", "kilometres", NULL},
    {"mi", "mile", "miles", NULL},
    {"lb", "lbs", "pound", "pounds", NULL},
    {"oz", "ounce", "ounces", NULL},
    {"usd", "dollar", "dollars", "bucks", NULL},
    {"eur", "euro", "euros", NULL},
    {"sec", "secs", "second", "seconds", NULL},
    {"min", "mins", "minute", "minutes", NULL},
    {"hr", "hrs", "hour", "hours", NULL},
    {"ms", "millisecond", "milliseconds", NULL},
};

/* The row of unit_rows holding w, or -1. */
static int unit_row(const char *w)
{
    for (size_t r = 0; r < sizeof unit_rows / sizeof *unit_rows; r++)
        for (size_t k = 0; unit_rows[r][k]; k++)
            if (strcmp(unit_rows[r][k], w) == 0)
                return (int)r;
    return -1;
}

/* The unit a column's name ends with (its last word, of one to three letters), as a row of
 * unit_rows; -1 when none. */
static int column_unit(const tg_dataset_column *c)
{
    tg_strv words = {0};
    bt_name_words(c->name, &words);
    const char *last = words.n > 1 ? words.v[words.n - 1] : "";
    int r = strlen(last) <= 3 ? unit_row(last) : -1;
    tg_strv_free(&words);
    return r;
}

/* The token at `at` as a unit word not read yet: its row of unit_rows, or -1. */
static int unit_word_at(const bt_toks *t, size_t at)
{
    if (at >= t->n || t->v[at].kind != BT_WORD || t->v[at].used)
        return -1;
    return unit_row(t->v[at].text);
}

int bp_unit_after(bp_state *s, size_t at, int col)
{
    int r = unit_word_at(s->t, at);
    if (r < 0 || col < 0)
        return 0;
    int own = column_unit(&s->ds[0].cols[col]);
    if (own == r) {
        s->t->v[at].unknown = false;
        s->t->v[at].used = true;
        return 1;
    }
    if (own >= 0)
        return tg_err_set(s->err, "'%s' after a number: column %s is in %s; give the number in "
                                  "%s", s->t->v[at].raw, s->ds[0].cols[col].name,
                          unit_rows[own][0], unit_rows[own][0]);
    /* "a bill over 30 dollars": a money column whose name gives no currency takes the
     * amount as written (nothing is converted); a whole-number column is no amount */
    bool money = strcmp(unit_rows[r][0], "usd") == 0 || strcmp(unit_rows[r][0], "eur") == 0;
    if (money && s->ds[0].cols[col].type == TG_COL_FLOAT) {
        s->t->v[at].unknown = false;
        s->t->v[at].used = true;
        return 1;
    }
    return 0;
}

/* The one numeric column whose name ends with the unit at `at` ("over 6000 grams":
 * body_mass_g), or -1 (no unit word, no such column, several). */
static int unit_column(const bp_state *s, size_t at)
{
    int r = unit_word_at(s->t, at);
    int found = -1, n = 0;
    for (size_t c = 0; r >= 0 && c < s->ds[0].ncols; c++)
        if (numeric(&s->ds[0].cols[c]) && column_unit(&s->ds[0].cols[c]) == r)
            found = (int)c, n++;
    return n == 1 ? found : -1;
}

/* The comparison right before the number at i (not yet read), and where it starts. */
static bool comparison_before(const bt_toks *t, size_t i, bt_cmp *cmp, size_t *start)
{
    for (size_t back = 1; back <= 2 && back <= i; back++) {
        size_t j = i - back;
        if (!t->v[j].used && bp_comparison_at(t, j, cmp) == i) {
            *start = j;
            return true;
        }
    }
    return false;
}

/* The column of a comparison at start..i (the number): implied by its word, named by the
 * unit after the number, a year's, or asked among those whose range holds the number. -1:
 * none; -2: a unit that is not the column's (err). *unit: 1 when the word after the number was
 * read as its unit. */
static int comparison_column(bp_state *s, size_t start, size_t i, bool *year, size_t *unit)
{
    bt_toks *t = s->t;
    *year = false;
    *unit = 0;
    int col = implied_column(s, &t->v[start]);
    if (col < 0)
        col = unit_column(s, i + 1); /* "over 6000 grams" */
    if (col >= 0 && i + 1 < t->n && t->v[i + 1].kind == BT_COL && t->v[i + 1].col == col &&
        t->v[i + 1].ds == 0)
        *unit = 1; /* "heavier than 6000 g": the unit names the column again */
    else if (col >= 0 && (*unit = (size_t)bp_unit_after(s, i + 1, col)) == (size_t)-1)
        return -2;
    if (col >= 0)
        return col;
    /* "over 10 miles"; but "passengers under 10 survived": survived is the rows', not what is
     * under 10 */
    if (i + 1 < t->n && t->v[i + 1].kind == BT_COL && !t->v[i + 1].used && t->v[i + 1].ds == 0 &&
        numeric(&s->ds[0].cols[t->v[i + 1].col]) &&
        bp_comparable(&s->ds[0].cols[t->v[i + 1].col], t->v[i].num)) {
        *unit = 1;
        return t->v[i + 1].col;
    }
    if (bp_year(&t->v[i]) && (col = bp_year_column(s, year)) >= 0)
        return col;
    const char *options[BT_LIMIT];
    size_t n = columns_holding(s, t->v[i].num, options);
    tg_buf about = TG_BUF_INIT;
    for (size_t j = start; j <= i; j++)
        tg_buf_printf(&about, "%s%s", j > start ? " " : "", t->v[j].raw);
    const char *pick = n ? bt_question(s->x, about.data, options, n, "'%s': of which column?",
                                       about.data)
                         : NULL;
    tg_buf_free(&about);
    return pick ? column_index(s, pick) : -1;
}

bool bp_range_end(const bt_toks *t, size_t i, bool between)
{
    static const char *const ends[] = {"to", "through", "thru", "until", "till", NULL};
    return i + 2 < t->n && !t->v[i + 1].used &&
           (bp_in(&t->v[i + 1], ends) || (between && bp_is(&t->v[i + 1], "and"))) &&
           t->v[i + 2].kind == BT_NUM && !t->v[i + 2].decade;
}

/*
 * "in the 1990s", "during the 1980s": the ten years of a decade, of the year column (or the year
 * of the one date column). "the 1900s" (a decade or a century) is asked; a number that ends in
 * another digit is no decade. 1: read; 0: no year column; -1: err.
 */
static int decade(bp_state *s, size_t i)
{
    bt_toks *t = s->t;
    long y = (long)t->v[i].num;
    if (t->v[i].num != (double)y || y % 10 != 0 || y < 1000 || y > 2999)
        return tg_err_set(s->err, "'%s' is no decade: a decade starts with a year ending in 0 "
                                  "(\"the 1990s\")", t->v[i].raw);
    bool year = false;
    int col = bp_year_column(s, &year);
    if (col < 0)
        return 0;
    long span = 9;
    if (y % 100 == 0) { /* "the 1900s": asked */
        static const char *const options[] = {"decade", "century"};
        const char *pick = bt_question(s->x, t->v[i].raw, options, 2,
                                       "By '%s', do you mean the decade %ld-%ld (decade) or the "
                                       "century %ld-%ld (century)?",
                                       t->v[i].raw, y, y + 9, y, y + 99);
        if (!pick)
            return tg_err_set(s->err, "'%s' was answered with neither decade nor century",
                              t->v[i].raw);
        span = strcmp(pick, "century") == 0 ? 99 : 9;
    }
    static const char *const intro[] = {"in", "during", "from", "of", NULL};
    static const char *const be[] = {"is", "was", "are", "were", NULL};
    size_t first = i; /* the phrase's first word: "in the 1990s" */
    if (first > 0 && bp_is(&t->v[first - 1], "the"))
        first--;
    if (first > 0 && bp_in(&t->v[first - 1], intro))
        first--;
    size_t named = first > 0 && bp_in(&t->v[first - 1], be) ? first - 1 : first;
    if (named > 0 && t->v[named - 1].kind == BT_COL && t->v[named - 1].col == col &&
        !t->v[named - 1].used)
        first = named - 1; /* "where Year is in the 1990s": the column named first */
    for (size_t k = first; k <= i; k++)
        t->v[k].used = true;
    return add_range(s, col, (double)y, (double)(y + span), year,
                     bp_use_before(s, first, bp_filter_intro));
}

int bp_number(bp_state *s, size_t i)
{
    bt_toks *t = s->t;
    bt_cmp cmp;
    size_t start, after, unit;
    bool year = false;
    if (t->v[i].decade)
        return decade(s, i);
    /* "from 1990 to 1999", "since 1990 until 1999", "between 2 and 5 dollars", "for 1990
     * through 1999" (years need no "from"): one range, both ends inclusive */
    bool between = i > 0 && bp_is(&t->v[i - 1], "between");
    bool from = i > 0 && !t->v[i - 1].used &&
                (between || bp_is(&t->v[i - 1], "from") || bp_is(&t->v[i - 1], "since"));
    if ((from || (bp_year(&t->v[i]) && i + 2 < t->n && bp_year(&t->v[i + 2]))) &&
        bp_range_end(t, i, between)) {
        size_t first = from ? i - 1 : i;
        int col = comparison_column(s, first, i + 2, &year, &unit);
        if (col < 0)
            return col == -2 ? -1 : 0;
        for (size_t j = first; j <= i + 2 + unit; j++)
            t->v[j].used = true;
        return add_range(s, col, t->v[i].num, t->v[i + 2].num, year,
                         bp_use_before(s, first, bp_filter_intro));
    }
    if ((after = or_more(t, i, &cmp)) > 0) { /* "6 or more cylinders", "parties of 4 or more" */
        bool named = after < t->n && t->v[after].kind == BT_COL && t->v[after].ds == 0 &&
                     numeric(&s->ds[0].cols[t->v[after].col]);
        int col = named ? t->v[after].col : comparison_column(s, i, i, &year, &unit);
        if (col < 0)
            return col == -2 ? -1 : 0;
        for (size_t j = i; j < after + named; j++)
            t->v[j].used = true;
        return add_filter(s, col, cmp, t->v[i].num, false,
                          bp_use_before(s, i, bp_filter_intro));
    }
    if (comparison_before(t, i, &cmp, &start)) { /* "over 50", "older than 60", "since 2000" */
        int col = comparison_column(s, start, i, &year, &unit);
        if (col < 0)
            return col == -2 ? -1 : 0;
        for (size_t j = start; j <= i + unit; j++)
            t->v[j].used = true;
        return add_filter(s, col, cmp, t->v[i].num, year,
                          bp_use_before(s, start, bp_filter_intro));
    }
    if (i > 0 && (bp_is(&t->v[i - 1], "in") || bp_is(&t->v[i - 1], "during")) &&
        bp_year(&t->v[i])) { /* "in 2015" */
        int col = bp_year_column(s, &year);
        if (col < 0)
            return 0;
        t->v[i].used = t->v[i - 1].used = true;
        return add_filter(s, col, BT_EQ, t->v[i].num, year, false);
    }
    const bt_tok *next = i + 1 < t->n ? &t->v[i + 1] : NULL;
    static const char *const ranking[] = {"top", "bottom", "first", "last", NULL};
    if (next && next->kind == BT_COL && !next->used && next->ds == 0 &&
        t->v[i].num == floor(t->v[i].num) && !(i > 0 && bp_in(&t->v[i - 1], ranking))) {
        const tg_dataset_column *c = &s->ds[0].cols[next->col];
        if (numeric(c) && c->distinct <= 50 && t->v[i].num >= c->min && t->v[i].num <= c->max) {
            t->v[i].used = t->v[i + 1].used = true; /* "4-cylinder cars" */
            return add_filter(s, next->col, BT_EQ, t->v[i].num, false, false);
        }
    }
    return 0;
}

int bp_flag_clause(bp_state *s, size_t i)
{
    /* "and"/"or" too: "smokers and non-smokers" are both sides, not two filters at once */
    static const char *const versus[] = {"vs", "versus", "against", "and", "or", NULL};
    bt_toks *t = s->t;
    int col = t->v[i].col;
    const char *yes = NULL;
    double one;
    if (t->v[i].ds != 0 || !bp_flag(&s->ds[0].cols[col], &yes, &one))
        return 0;
    /* "smokers vs non-smokers": a value per group */
    size_t j = i + 1;
    if (j + 1 < t->n && bp_in(&t->v[j], versus)) {
        size_t k = j + 1 + (bp_is(&t->v[j + 1], "non") || bp_is(&t->v[j + 1], "not"));
        if (k < t->n && t->v[k].kind == BT_COL && t->v[k].col == col) {
            for (size_t m = i; m <= k; m++)
                t->v[m].used = true;
            if (i > 0 && (bp_is(&t->v[i - 1], "non") || bp_is(&t->v[i - 1], "not")))
                t->v[i - 1].used = true;
            bp_add_col(s->p->groups, &s->p->ngroups, col);
            return 1;
        }
    }
    /* "non-smokers", "for non-smokers": the other value */
    if (i > 0 && bp_is(&t->v[i - 1], "non")) {
        bt_filter *f = bp_new_filter(s, col);
        if (!f)
            return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
        f->cmp = BT_NE;
        f->numeric = yes == NULL;
        f->lo = one;
        if (yes)
            f->vals[f->nvals++] = yes;
        t->v[i].used = t->v[i - 1].used = true;
        if (bp_use_before(s, i - 1, bp_filter_intro) && bp_negate_last(s) != 0)
            return -1; /* "except non-smokers" */
        return 1;
    }
    return 0;
}
