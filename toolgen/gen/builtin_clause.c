/*
 * builtin_clause.c — the clauses of an intent after its filters: group keys ("by day", "for
 * each species", "per weekday"), periods ("monthly", "per year" over a date column), the
 * ordering column ("sorted by fare"), aggregate words, top-k and sort order
 * (docs/generate.md#the-built-in-generator).
 */
#include <string.h>

#include "base/strvec.h"
#include "gen/builtin_parse_int.h"

static const char *const sort_words[] = {"sort", "sorted", "order", "ordered", "rank", "ranked",
                                         "ranking", NULL};
static const char *const agg_kw[] = {"sum", "total", "totals", "average", "averages", "avg",
                                     "mean", "means", "median", "medians", "minimum", "min",
                                     "maximum", "max", "std", "stdev", "deviation",
                                     "variability", "count", "counts", "number", "many", NULL};

int bp_date_column(bp_state *s)
{
    const char *names[BT_LIMIT];
    size_t n = 0;
    for (size_t i = 0; i < s->ds[0].ncols && n < BT_LIMIT; i++)
        if (s->ds[0].cols[i].type == TG_COL_DATE)
            names[n++] = s->ds[0].cols[i].name;
    if (n == 0)
        return -1;
    tg_buf opts = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        tg_buf_printf(&opts, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "", names[i]);
    const char *pick = n == 1 ? names[0]
                              : bt_question(s->x, "date", names, n, "Which date column do the "
                                            "periods or the order follow: %s?", opts.data);
    tg_buf_free(&opts);
    for (size_t i = 0; pick && i < s->ds[0].ncols; i++)
        if (strcmp(s->ds[0].cols[i].name, pick) == 0)
            return (int)i;
    return -1;
}

static bool has_date(const tg_dataset *ds)
{
    for (size_t i = 0; i < ds->ncols; i++)
        if (ds->cols[i].type == TG_COL_DATE)
            return true;
    return false;
}

/* "monthly" in a file without dates but with a month column: per month — unless it describes
 * the measure right after it ("average monthly passengers": the monthly figures as they are),
 * which is asked. */
static void period_column(bp_state *s, size_t i, char p)
{
    bt_toks *t = s->t;
    const char *name = p == 'D' ? "day" : p == 'W' ? "week" : p == 'M' ? "month"
                     : p == 'Q' ? "quarter" : "year";
    for (size_t c = 0; c < s->ds[0].ncols; c++) {
        if (!bt_word_eq(name, s->ds[0].cols[c].name))
            continue;
        bool describes = i + 1 < t->n && t->v[i + 1].kind == BT_COL && t->v[i + 1].col != (int)c;
        const char *options[] = {s->ds[0].cols[c].name, "none"};
        const char *pick = !describes ? options[0]
                           : bt_question(s->x, t->v[i].raw, options, 2, "By '%s', do you mean "
                                         "per %s (grouped by %s), or none: the %s values as they "
                                         "are?", t->v[i].raw, name, options[0], t->v[i].raw);
        if (pick && strcmp(pick, "none") != 0)
            bp_add_col(s->p->groups, &s->p->ngroups, (int)c);
        t->v[i].used = pick != NULL;
        return;
    }
}

/* "day", "months", "yearly" → D, M, Y; 0 when w names no period. */
static char period_of(const char *w)
{
    static const struct { const char *w; char p; } periods[] = {
        {"day", 'D'},     {"days", 'D'},    {"daily", 'D'},     {"week", 'W'},
        {"weeks", 'W'},   {"weekly", 'W'},  {"month", 'M'},     {"months", 'M'},
        {"monthly", 'M'}, {"quarter", 'Q'}, {"quarters", 'Q'},  {"quarterly", 'Q'},
        {"year", 'Y'},    {"years", 'Y'},   {"yearly", 'Y'},    {"annual", 'Y'},
        {"annually", 'Y'},
    };
    for (size_t i = 0; i < sizeof periods / sizeof *periods; i++)
        if (strcmp(periods[i].w, w) == 0)
            return periods[i].p;
    return 0;
}

/* The word before i, skipping fillers; NULL at the start. */
static const bt_tok *prev_word(const bt_toks *t, size_t i)
{
    while (i > 0) {
        const bt_tok *k = &t->v[--i];
        if (!(k->kind == BT_WORD && bt_is_filler(k->text)))
            return k;
    }
    return NULL;
}

/* The columns after a group word at i: COL [(and|,) COL]... */
static void collect_groups(bp_state *s, size_t j)
{
    bt_toks *t = s->t;
    while (j < t->n && t->v[j].kind == BT_COL && t->v[j].ds == 0 && !t->v[j].used) {
        bp_add_col(s->p->groups, &s->p->ngroups, t->v[j].col);
        t->v[j].used = true;
        if (j + 1 < t->n && bp_in(&t->v[j + 1], (const char *const[]){"count", "counts", NULL}))
            t->v[++j].used = true; /* "per cylinder count": the column's own noun */
        if (j + 2 < t->n && (bp_is(&t->v[j + 1], "and") || t->v[j + 1].kind == BT_SEP) &&
            t->v[j + 2].kind == BT_COL && !t->v[j + 2].used) {
            t->v[j + 1].used = true;
            j += 2;
        } else {
            break;
        }
    }
}

/* One group word at i: "by", "per", "across", "each", "every". */
static void group_clause(bp_state *s, size_t i, bool ranking, bool has_agg)
{
    static const char *const before[] = {"for", "in", "grouped", "broken", "down", "split", NULL};
    bt_toks *t = s->t;
    const bt_tok *prev = prev_word(t, i);
    size_t j = i + 1;
    while (j < t->n && t->v[j].kind == BT_WORD && !t->v[j].used &&
           (bt_is_filler(t->v[j].text) || bp_is(&t->v[j], "each") || bp_is(&t->v[j], "every")))
        t->v[j++].used = true;
    if (j + 2 < t->n && bp_in(&t->v[j], (const char *const[]){"number", "count", NULL}) &&
        bp_is(&t->v[j + 1], "of") && t->v[j + 2].kind == BT_COL) {
        t->v[j].used = t->v[j + 1].used = true; /* "per number of cylinders" */
        j += 2;
    }
    if (j + 1 < t->n && t->v[j].kind == BT_WORD && bt_is_row_noun(t->v[j].text) &&
        t->v[j + 1].kind == BT_COL && t->v[j + 1].ds == 0 && !t->v[j + 1].used)
        t->v[j++].used = true; /* "by passenger class": the rows' class */
    if (j >= t->n)
        return;
    bt_tok *next = &t->v[j];
    bool by = bp_is(&t->v[i], "by");
    /* "mean passengers per ride": each row, no group; also a word for the rows that loosely
     * names a column ("average tip per bill": not per total_bill) */
    if (!by && bp_names_rows(next) &&
        (next->kind == BT_WORD ||
         (next->ds == 0 && !bt_word_eq(next->raw, s->ds[0].cols[next->col].name)))) {
        t->v[i].used = next->used = true;
        return;
    }
    if (by && bp_in(next, agg_kw) && j + 1 < t->n && t->v[j + 1].kind == BT_COL) {
        t->v[i].used = true; /* "top 3 days by total tip": the ranking's measure */
        return;
    }
    if (next->kind == BT_COL && next->ds == 0 && !next->used) {
        const tg_dataset_column *c = &s->ds[0].cols[next->col];
        bool numeric = c->type == TG_COL_INT || c->type == TG_COL_FLOAT;
        if (by && ((prev && bp_in(prev, sort_words)) || (ranking && !has_agg && numeric))) {
            s->sort_col = next->col;
            next->used = true;
        } else {
            collect_groups(s, j);
        }
    } else if (next->kind == BT_WORD && period_of(next->text) && has_date(s->ds)) {
        s->p->period = period_of(next->text);
        next->used = true;
    } else {
        return;
    }
    t->v[i].used = true;
    for (size_t k = i; k > 0 && bp_in(&t->v[k - 1], before); k--)
        t->v[k - 1].used = true;
}

/* "which day has ...", "which 3 zones have ...", "top 3 days by ...": the column named as the
 * thing ranked is a key (a number before it: how many). */
static void ranked_keys(bp_state *s, bool ranking)
{
    static const char *const which[] = {"which", "what", NULL};
    static const char *const after[] = {"by", "with", "in", "has", "have", "had", NULL};
    bt_toks *t = s->t;
    for (size_t i = 0; i + 1 < t->n; i++) {
        size_t c = i + 1 + (t->v[i + 1].kind == BT_NUM && bp_in(&t->v[i], which));
        bt_tok *k = &t->v[c < t->n ? c : i];
        if (c >= t->n || k->kind != BT_COL || k->used || k->ds != 0)
            continue;
        bool top = bp_is(&t->v[i], "top") || bp_is(&t->v[i], "bottom") ||
                   (t->v[i].kind == BT_NUM && i > 0 &&
                    (bp_is(&t->v[i - 1], "top") || bp_is(&t->v[i - 1], "bottom")));
        /* "which 3 cylinder counts have": the key's own noun, no count of rows */
        size_t f = c + 1;
        bool noun = f < t->n && !t->v[f].used &&
                    (bp_is(&t->v[f], "count") || bp_is(&t->v[f], "counts"));
        f += noun;
        bool followed = f < t->n && bp_in(&t->v[f], after);
        bool asked = bp_in(&t->v[i], which) && (followed || ranking);
        if (asked || (top && followed)) {
            bp_add_col(s->p->groups, &s->p->ngroups, k->col);
            k->used = s->ranked_key = true;
            t->v[c + 1].used = t->v[c + 1].used || (noun && followed);
            if (bp_in(&t->v[i], which))
                t->v[i].used = true;
            if (c == i + 2) { /* "which 3 dropoff zones": how many */
                s->p->top_k = (long)t->v[i + 1].num;
                t->v[i + 1].used = true;
            }
        }
    }
}

static const char *period_name(char p)
{
    return p == 'D' ? "day" : p == 'W' ? "week" : p == 'M' ? "month" : p == 'Q' ? "quarter"
                                                                        : "year";
}

/* Another word than the one at skip naming a period ("by month", "monthly", "which month")? */
static const bt_tok *other_period(const bt_toks *t, size_t skip)
{
    for (size_t j = 0; j < t->n; j++)
        if (j != skip && !t->v[j].used && t->v[j].kind == BT_WORD && period_of(t->v[j].text))
            return &t->v[j];
    return NULL;
}

/* "a single", "any one", "one single", "any single" at i: how many words, or 0. */
static size_t single(const bt_toks *t, size_t i)
{
    static const char *const det[] = {"a", "any", "one", NULL};
    size_t n = 0;
    if (i < t->n && bp_in(&t->v[i], det))
        n++;
    if (i + n < t->n && bp_is(&t->v[i + n], "single"))
        return n + 1;
    return n == 1 && i + 1 < t->n && bp_is(&t->v[i], "any") && bp_is(&t->v[i + 1], "one") ? 2 : 0;
}

/*
 * "max passengers in a single month" (i..x): each row is one month, or the months are to be
 * made by grouping — only the data's grain tells, which the request does not give: asked.
 */
static int in_single(bp_state *s, size_t i, size_t x)
{
    bt_toks *t = s->t;
    static const char *const options[] = {"rows", "each"};
    tg_buf about = TG_BUF_INIT;
    for (size_t j = i; j <= x; j++)
        tg_buf_printf(&about, "%s%s", j > i ? " " : "", t->v[j].raw);
    const char *pick = bt_question(s->x, about.data, options, 2, "By '%s', do you mean each row "
                                   "on its own (rows), or the rows of each %s taken together "
                                   "(each)?", about.data, t->v[x].raw);
    tg_buf_free(&about);
    if (!pick)
        return tg_err_set(s->err, "'%s' was answered with neither rows nor each", t->v[x].raw);
    if (strcmp(pick, "each") == 0 && t->v[x].kind == BT_COL)
        bp_add_col(s->p->groups, &s->p->ngroups, t->v[x].col);
    else if (strcmp(pick, "each") == 0 && has_date(s->ds))
        s->p->period = period_of(t->v[x].text);
    else if (strcmp(pick, "each") == 0)
        return tg_err_set(s->err, "'%s' names no column and the file has no dates",
                          t->v[x].raw);
    for (size_t j = i; j <= x; j++)
        t->v[j].used = true;
    return 0;
}

/*
 * "across all years", "over all months": the column is pooled, not a group; the words are read.
 * A period pooled across another ("by month across all years": the month of the year, the
 * years pooled) is a grouping the built-in generator does not compute: refused by name rather
 * than read as either period alone (docs/generate.md#what-it-understands).
 */
static int pooled(bp_state *s)
{
    static const char *const intro[] = {"across", "over", "for", "in", NULL};
    bt_toks *t = s->t;
    for (size_t i = 0; i + 2 < t->n; i++) {
        size_t one = single(t, i + 1); /* "in a single month", "in any one year" */
        if (bp_in(&t->v[i], intro) && one && i + 1 + one < t->n && !t->v[i + 1 + one].used &&
            (t->v[i + 1 + one].kind == BT_COL ||
             (t->v[i + 1 + one].kind == BT_WORD && period_of(t->v[i + 1 + one].text)))) {
            if (in_single(s, i, i + 1 + one) != 0)
                return -1;
            continue;
        }
        if (!bp_in(&t->v[i], intro) || !bp_is(&t->v[i + 1], "all") || t->v[i + 2].used)
            continue;
        if (t->v[i + 2].kind == BT_WORD && period_of(t->v[i + 2].text)) {
            const bt_tok *other = other_period(t, i + 2);
            if (other && has_date(s->ds)) {
                const char *in = period_name(period_of(other->text));
                const char *over = period_name(period_of(t->v[i + 2].text));
                return tg_err_set(s->err, "'%s' pooled across all %s (each %s of the %s, the "
                                  "%ss pooled) is not a grouping the built-in generator "
                                  "computes; 'by %s' alone gives each %s of each %s",
                                  other->raw, t->v[i + 2].raw, in, over, over, in, in, over);
            }
            t->v[i].used = t->v[i + 1].used = t->v[i + 2].used = true;
            continue;
        }
        if (t->v[i + 2].kind != BT_COL)
            continue;
        t->v[i].used = t->v[i + 1].used = true;
        for (size_t j = i + 2; j < t->n && t->v[j].kind == BT_COL && !t->v[j].used; j += 2) {
            t->v[j].used = true;
            if (!(j + 2 < t->n && (bp_is(&t->v[j + 1], "and") || t->v[j + 1].kind == BT_SEP)))
                break;
            t->v[j + 1].used = true;
        }
    }
    return 0;
}

int bp_groups(bp_state *s)
{
    static const char *const group_words[] = {"by", "per", "across", "each", "every", NULL};
    bt_toks *t = s->t;
    if (pooled(s) != 0)
        return -1;
    bool ranking = bp_has(s, sort_words);
    for (size_t i = 0; i + 1 < t->n; i++)
        if (bp_is(&t->v[i], "top") || bp_is(&t->v[i], "bottom") ||
            (bp_is(&t->v[i], "first") && t->v[i + 1].kind == BT_NUM) || /* "first 5 ... by" */
            (t->v[i].kind == BT_NUM && bp_in(&t->v[i + 1], (const char *const[]){
                "highest", "largest", "biggest", "lowest", "smallest", "most", "least", NULL})))
            ranking = true;
    bool has_agg = bp_has(s, agg_kw);
    for (size_t i = 0; i < t->n; i++)
        if (!t->v[i].used && bp_in(&t->v[i], group_words))
            group_clause(s, i, ranking, has_agg);
    ranked_keys(s, ranking || bp_has(s, (const char *const[]){"highest", "lowest", "most",
                                         "least", "fewest", "largest", "smallest", "biggest",
                                         "more", "less", NULL}));
    /* "monthly", "yearly": a period of the date column, or a column of that name */
    for (size_t i = 0; i < t->n; i++) {
        bt_tok *k = &t->v[i];
        char p = k->kind == BT_WORD && !k->used && strstr(k->text, "ly") ? period_of(k->text) : 0;
        if (k->kind == BT_WORD && !k->used && strcmp(k->text, "annual") == 0)
            p = 'Y';
        if (!p)
            continue;
        if (has_date(s->ds)) {
            s->p->period = p;
            k->used = true;
            continue;
        }
        period_column(s, i, p);
    }
    if (s->p->period)
        s->p->date_col = bp_date_column(s);
    return 0;
}

/* Is there an aggregate word other than the count at i? */
static bool other_agg(const bt_toks *t, size_t i)
{
    for (size_t j = 0; j < t->n; j++)
        if (j != i && bp_in(&t->v[j], agg_kw) &&
            !bp_in(&t->v[j], (const char *const[]){"count", "counts", "number", "many", NULL}))
            return true;
    return false;
}

/* Aggregate words, in the order written. */
static void agg_words(bp_state *s)
{
    static const struct { const char *w; bt_agg a; } words[] = {
        {"sum", BT_SUM},       {"total", BT_SUM},     {"totals", BT_SUM},   {"average", BT_MEAN},
        {"averages", BT_MEAN}, {"avg", BT_MEAN},      {"mean", BT_MEAN},    {"means", BT_MEAN},
        {"median", BT_MEDIAN}, {"medians", BT_MEDIAN}, {"minimum", BT_MIN}, {"min", BT_MIN},
        {"maximum", BT_MAX},     {"max", BT_MAX},         {"std", BT_STD},      {"stdev", BT_STD},
        {"deviation", BT_STD}, {"variability", BT_STD},
    };
    bt_toks *t = s->t;
    for (size_t i = 0; i < t->n; i++) {
        bt_tok *k = &t->v[i];
        if (k->kind != BT_WORD || k->used)
            continue;
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (strcmp(k->text, words[w].w) == 0) {
                bp_add_agg(s->p, words[w].a);
                k->used = true;
                if (words[w].a == BT_STD && i > 0 && bp_is(&t->v[i - 1], "standard"))
                    t->v[i - 1].used = true;
            }
        if (bp_in(k, (const char *const[]){"count", "counts", "number", "many", NULL})) {
            k->used = true;
            /* "average passenger count": the count is what the column holds, not an aggregate */
            bool named = ((i > 0 && t->v[i - 1].kind == BT_COL &&
                           bp_in(k, (const char *const[]){"count", "counts", NULL}) &&
                           s->ds[0].cols[t->v[i - 1].col].type != TG_COL_STRING) ||
                          (bp_is(k, "number") && i + 2 < t->n && bp_is(&t->v[i + 1], "of") &&
                           t->v[i + 2].kind == BT_COL &&
                           s->ds[0].cols[t->v[i + 2].col].type != TG_COL_STRING)) &&
                         other_agg(t, i); /* "average number of passengers" */
            if (!named && !s->count_word)
                s->count_at = i;
            s->count_word = s->count_word || !named;
        }
        if (bp_in(k, (const char *const[]){"distinct", "unique", "nunique", NULL})) {
            s->distinct_word = true;
            k->used = true;
        }
    }
}

/*
 * "highest first", "most expensive first", "largest fare last": the direction at i orders the
 * result and keeps every group — it is no superlative asking for one. 1 (the sort set, the
 * words used) or 0.
 */
static bool order_first(bp_state *s, size_t i, int dir)
{
    bt_toks *t = s->t;
    for (size_t j = i + 1; j < t->n && j <= i + 3; j++) {
        bt_tok *k = &t->v[j];
        if (!k->used && (bp_is(k, "first") || bp_is(k, "last"))) {
            s->p->sort = bp_is(k, "first") ? dir : -dir;
            k->used = true;
            return true;
        }
        if (k->kind != BT_COL && !(k->kind == BT_WORD && bt_is_filler(k->text)))
            return false;
    }
    return false;
}

void bp_aggregates(bp_state *s)
{
    static const char *const up[] = {"highest", "largest", "biggest", "greatest", "most", "top", "first", NULL};
    static const char *const down[] = {"lowest", "smallest", "least", "fewest", "bottom", NULL};
    agg_words(s);
    bt_toks *t = s->t;
    for (size_t i = 0; i < t->n; i++) {
        bt_tok *k = &t->v[i];
        if (k->used || k->kind != BT_WORD)
            continue;
        int dir = bp_in(k, up) ? 1 : bp_in(k, down) ? -1 : 0;
        if (!dir && (bp_is(k, "more") || bp_is(k, "less"))) /* "which gender tips more" */
            dir = bp_is(k, "more") ? 1 : -1;
        size_t n = i + 1;
        while (dir && n < t->n && t->v[n].kind == BT_WORD && bt_is_filler(t->v[n].text))
            n++;
        /* "the most penguins", "fewest rides": the rows are counted — a word of quantity only
         * ("the biggest penguin" is one penguin, not the most of them) */
        static const char *const quantity[] = {"most", "least", "fewest", "more", "less", NULL};
        if (dir && bp_in(k, quantity) && n < t->n && t->v[n].kind == BT_WORD &&
            !t->v[n].used && bt_is_row_noun(t->v[n].text)) {
            s->count_word = true;
            t->v[n].used = true;
        }
        if (dir) {
            bool topword = bp_is(k, "top") || bp_is(k, "bottom") || bp_is(k, "first");
            k->used = true;
            if (!topword && order_first(s, i, dir)) {
                /* "most expensive first": an order, every group kept */
            } else if (i + 1 < t->n && t->v[i + 1].kind == BT_NUM && !t->v[i + 1].used) {
                s->p->top_k = (long)t->v[i + 1].num; /* "top 5" */
                t->v[i + 1].used = s->top_word = true;
            } else if (i > 0 && t->v[i - 1].kind == BT_NUM && !t->v[i - 1].used) {
                s->p->top_k = (long)t->v[i - 1].num; /* "5 highest" */
                t->v[i - 1].used = s->top_word = true;
            } else if (topword) {
                s->top_word = true;
                s->top_at = i;
            } else {
                s->superlative = true;
                s->sup_at = i;
            }
            s->sup_dir = dir;
        } else if (bp_in(k, sort_words)) {
            k->used = true;
            if (!s->p->sort)
                s->p->sort = 1;
        } else if (bp_in(k, (const char *const[]){"ascending", "increasing", "asc", NULL})) {
            k->used = true;
            s->p->sort = -1;
        } else if (bp_in(k, (const char *const[]){"descending", "decreasing", "desc", NULL})) {
            k->used = true;
            s->p->sort = 1;
        }
    }
}
