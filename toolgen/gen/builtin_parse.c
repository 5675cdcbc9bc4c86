/*
 * builtin_parse.c — the grammar over resolved tokens: filters, group keys, periods, aggregate
 * words, ordering and top-k (docs/generate.md#the-built-in-generator). builtin_ops.c then
 * decides the operation from what was found and checks that nothing was left over.
 *
 * Every token the grammar reads is marked used; a word that stays unused and unknown, a column
 * with no role or a number with no meaning makes the intent refused, so the tool never answers
 * a question with a part of it ignored.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/strvec.h"
#include "gen/builtin_parse_int.h"

bool bp_is(const bt_tok *k, const char *w)
{
    return k->kind == BT_WORD && strcmp(k->text, w) == 0;
}

bool bp_in(const bt_tok *k, const char *const *list)
{
    return k->kind == BT_WORD && tg_strlist_has(list, k->text);
}

bool bp_has(const bp_state *s, const char *const *list)
{
    for (size_t i = 0; i < s->t->n; i++)
        if (bp_in(&s->t->v[i], list))
            return true;
    return false;
}

/* The one rule of the plan's lists, whatever their element: each entry once, in the order
 * found, at most BT_LIMIT. */
static void add_once(void *list, size_t *n, size_t size, const void *x)
{
    char *v = list;
    for (size_t i = 0; i < *n; i++)
        if (memcmp(v + i * size, x, size) == 0)
            return;
    if (*n < BT_LIMIT)
        memcpy(v + (*n)++ * size, x, size);
}

void bp_add_col(int *list, size_t *n, int col)
{
    add_once(list, n, sizeof col, &col);
}

void bp_add_agg(bt_plan *p, bt_agg a)
{
    add_once(p->aggs, &p->naggs, sizeof a, &a);
}

static bt_cmp negate(bt_cmp c)
{
    switch (c) {
    case BT_EQ: return BT_NE;
    case BT_NE: return BT_EQ;
    case BT_GT: return BT_LE;
    case BT_GE: return BT_LT;
    case BT_LT: return BT_GE;
    case BT_LE: return BT_GT;
    case BT_ISNA: return BT_NOTNA;
    case BT_NOTNA: return BT_ISNA;
    default: return c;
    }
}

/* Marks the words of list right before i (skipping fillers) as used; true when one of them
 * excludes what follows ("except on Sunday"). */
bool bp_use_before(bp_state *s, size_t i, const char *const *list)
{
    static const char *const negating[] = {"except", "excluding", "without", NULL};
    bool negated = false;
    while (i > 0) {
        bt_tok *k = &s->t->v[i - 1];
        if (bp_in(k, list) || (k->kind == BT_WORD && bt_is_filler(k->text) && !k->used)) {
            negated = negated || (!k->used && bp_in(k, negating));
            k->used = true;
            i--;
        } else {
            break;
        }
    }
    return negated;
}

int bp_negate_last(bp_state *s)
{
    bt_filter *f = &s->p->filters[s->p->nfilters - 1];
    if (f->cmp == BT_BETWEEN)
        return tg_err_set(s->err, "an excluded range ('except between 10 and 20') is not "
                                  "understood by the built-in generator");
    f->cmp = negate(f->cmp);
    return 0;
}

const char *const bp_filter_intro[] = {"where", "with", "whose", "when", "if", "for", "among", "by",
                                           "only", "on", "in", "and", "excluding", "except",
                                           "without", "of", NULL};
static const char *const be[] = {"is", "are", "was", "were", "equals", "equal", "to", NULL};
static const char *const missing_words[] = {"missing", "null", "nan", "na", "empty", "unknown",
                                            "blank", NULL};
static const char *const present_words[] = {"present", "known", "non-missing", "nonmissing",
                                            "available", NULL};
static const char *const neg_words[] = {"not", "except", "excluding", "without", "no", NULL};
static const char *const versus[] = {"vs", "versus", "against", NULL};

/* A comparison at j (see builtin_parse_int.h). */
size_t bp_comparison_at(const bt_toks *t, size_t j, bt_cmp *cmp)
{
    static const char *const gt[] = {"over", "above", "exceeds", "exceeding", "exceed", "after", NULL};
    static const char *const gt_than[] = {"greater", "more", "higher", "larger", "bigger", "older",
                                          "heavier", "longer", "taller", "costlier", NULL};
    static const char *const lt[] = {"under", "below", "before", NULL};
    static const char *const lt_than[] = {"less", "lower", "smaller", "fewer", "younger", "lighter",
                                          "shorter", "cheaper", NULL};
    if (j >= t->n)
        return 0;
    const bt_tok *k = &t->v[j];
    bool than = j + 1 < t->n && bp_is(&t->v[j + 1], "than");
    if (k->kind == BT_CMP) {
        *cmp = k->cmp;
        return j + 1;
    }
    if (bp_in(k, gt))
        return *cmp = BT_GT, j + 1;
    if (bp_in(k, gt_than) && than)
        return *cmp = BT_GT, j + 2;
    if (bp_in(k, lt))
        return *cmp = BT_LT, j + 1;
    if (bp_in(k, lt_than) && than)
        return *cmp = BT_LT, j + 2;
    if (bp_is(k, "at") && j + 1 < t->n && bp_is(&t->v[j + 1], "least"))
        return *cmp = BT_GE, j + 2;
    if (bp_is(k, "at") && j + 1 < t->n && bp_is(&t->v[j + 1], "most"))
        return *cmp = BT_LE, j + 2;
    if (bp_is(k, "between"))
        return *cmp = BT_BETWEEN, j + 1;
    if (bp_is(k, "since") || bp_is(k, "from"))
        return *cmp = BT_GE, j + 1;
    if (bp_is(k, "until") || bp_is(k, "through"))
        return *cmp = BT_LE, j + 1;
    /* "to" is equality only as "equal to": "from 1990 to 1999" is a range, never "== 1999" */
    bool to = bp_is(k, "to") && !(j > 0 && (bp_is(&t->v[j - 1], "equal") ||
                                            bp_is(&t->v[j - 1], "equals")));
    if (bp_in(k, be) && !to && j + 1 < t->n && t->v[j + 1].kind == BT_NUM)
        return *cmp = BT_EQ, j + 1;
    return 0;
}

bt_filter *bp_new_filter(bp_state *s, int col)
{
    if (s->p->nfilters == BT_LIMIT)
        return NULL;
    bt_filter *f = &s->p->filters[s->p->nfilters++];
    *f = (bt_filter){.col = col};
    return f;
}

static bool numeric_col(const tg_dataset_column *c)
{
    return c->type == TG_COL_INT || c->type == TG_COL_FLOAT;
}

/*
 * "no tip", "with a tip" of a column that holds zeros and missing values: which one the word
 * means, asked (options: the zero reading, then the missing one; `is`: "is" or "is not").
 * 1: the zero reading, 0: the missing one, -1: answered with neither (err).
 */
static int zero_or_missing(bp_state *s, size_t i, const char *word, const char *is,
                           const char *const options[2])
{
    const char *name = s->ds[0].cols[s->t->v[i].col].name;
    char about[160];
    snprintf(about, sizeof about, "%s %s", word, s->t->v[i].raw);
    const char *pick = bt_question(s->x, about, options, 2, "By '%s', do you mean %s %s 0 (%s) "
                                   "or %s %s missing (%s)?", about, name, is, options[0], name,
                                   is, options[1]);
    if (!pick)
        return tg_err_set(s->err, "'%s' was answered with neither %s nor %s", about, options[0],
                          options[1]);
    return strcmp(pick, options[0]) == 0;
}

/*
 * "rides with no tip", "passengers with no age recorded": "no" before a column is its zero
 * where the column holds zeros and no missing values, missing where it holds missing values
 * and no zero, and asked where it could be either. 1: read; 0: not this phrase.
 */
static int filter_on_no(bp_state *s, size_t i)
{
    bt_toks *t = s->t;
    if (i == 0 || t->v[i - 1].used || t->v[i - 1].kind != BT_WORD || !bp_is(&t->v[i - 1], "no"))
        return 0;
    const tg_dataset_column *c = &s->ds[0].cols[t->v[i].col];
    bool zero = numeric_col(c) && c->min <= 0 && c->max >= 0, missing = c->missing > 0;
    if (!zero && !missing)
        return 0;
    bool is_zero = zero;
    if (zero && missing) {
        static const char *const options[] = {"zero", "missing"};
        int z = zero_or_missing(s, i, "no", "is", options);
        if (z < 0)
            return -1;
        is_zero = z == 1;
    }
    bt_filter *f = bp_new_filter(s, t->v[i].col);
    if (!f)
        return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
    f->cmp = is_zero ? BT_EQ : BT_ISNA;
    f->numeric = is_zero;
    t->v[i - 1].used = t->v[i].used = true;
    return 1;
}

bool bp_comparable(const tg_dataset_column *c, double num)
{
    return c->distinct > 2 || (num >= c->min && num <= c->max);
}

bool bp_names_rows(const bt_tok *k)
{
    if (k->kind == BT_WORD)
        return bt_is_row_noun(k->text);
    if (k->kind != BT_COL || !k->raw || strchr(k->raw, ' '))
        return false;
    char w[32];
    size_t n = 0;
    for (const char *c = k->raw; *c && n + 1 < sizeof w; c++)
        w[n++] = (char)tolower((unsigned char)*c);
    w[n] = '\0';
    return bt_is_row_noun(w);
}

/* Where the "with" of "ROWS with [a] COL" / "ROWS that had [a] COL" before i starts: the index
 * of the rows' word, or -1. */
static long with_clause(const bt_toks *t, size_t i)
{
    static const char *const has[] = {"with", "having", NULL};
    static const char *const had[] = {"had", "have", "has", NULL};
    static const char *const rel[] = {"that", "who", "which", NULL};
    static const char *const some[] = {"a", "an", "any", "some", NULL};
    size_t j = i;
    if (j > 0 && bp_in(&t->v[j - 1], some))
        j--;
    if (j < 2)
        return -1;
    size_t w = j - 1;
    if (bp_in(&t->v[w], had) && w >= 2 && bp_in(&t->v[w - 1], rel))
        w--;
    else if (!bp_in(&t->v[w], has))
        return -1;
    for (size_t k = w; k < i; k++)
        if (t->v[k].used)
            return -1;
    return bp_names_rows(&t->v[w - 1]) && !t->v[w - 1].used ? (long)(w - 1) : -1;
}

/*
 * "rides with tolls", "passengers with an age", "bills that had a tip": the rows that have a
 * COL — not 0 and not missing, each where the column can be so (both: which one is asked; a
 * column neither can be: every row) — not COL as something to compute. Only after a word for
 * the rows, and with nothing after COL that compares it ("rides with a tip over 5" is
 * filter_on_column's); yes/no columns are the flag clauses'.
 */
static int filter_on_with(bp_state *s, size_t i)
{
    bt_toks *t = s->t;
    const tg_dataset_column *c = &s->ds[0].cols[t->v[i].col];
    long rows = with_clause(t, i);
    if (rows < 0 || c->distinct <= 2)
        return 0;
    bt_cmp cmp;
    if (i + 1 < t->n && (t->v[i + 1].kind == BT_NUM || t->v[i + 1].kind == BT_CMP ||
                         t->v[i + 1].kind == BT_VAL || bp_in(&t->v[i + 1], be) ||
                         bp_in(&t->v[i + 1], neg_words) || bp_comparison_at(t, i + 1, &cmp)))
        return 0;
    bool zero = numeric_col(c) && c->min <= 0 && c->max >= 0, missing = c->missing > 0;
    bool nonzero = zero;
    if (zero && missing) {
        static const char *const options[] = {"nonzero", "present"};
        int z = zero_or_missing(s, i, "with", "is not", options);
        if (z < 0)
            return -1;
        nonzero = z == 1;
    }
    if (nonzero || missing) {
        bt_filter *f = bp_new_filter(s, t->v[i].col);
        if (!f)
            return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
        f->cmp = !nonzero ? BT_NOTNA : c->min >= 0 ? BT_GT : BT_NE;
        f->numeric = nonzero;
        f->lo = 0;
        if (nonzero && missing && f->cmp == BT_NE) { /* NaN != 0 holds: present too */
            if (!(f = bp_new_filter(s, t->v[i].col)))
                return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
            f->cmp = BT_NOTNA;
        }
    }
    for (size_t k = (size_t)rows + (t->v[rows].kind == BT_COL ? 0 : 1); k <= i; k++)
        t->v[k].used = true; /* the rows' word too when it was read as a column */
    return 1;
}

/* COL [is] [not] (missing | present | <comparison> NUM [and NUM]) at i. */
static int filter_on_column(bp_state *s, size_t i)
{
    bt_toks *t = s->t;
    int no = filter_on_no(s, i);
    if (no != 0)
        return no;
    if ((no = filter_on_with(s, i)) != 0)
        return no;
    size_t j = i + 1;
    while (j < t->n && bp_in(&t->v[j], be) && !(j + 1 < t->n && t->v[j + 1].kind == BT_NUM))
        j++;
    if (j < t->n && j == i + 1 && (bp_is(&t->v[j], "count") || bp_is(&t->v[j], "counts")))
        j++; /* "passenger counts over 400": the column's own noun */
    bool neg = j < t->n && bp_is(&t->v[j], "not");
    j += neg;
    bt_cmp cmp;
    size_t after = 0;
    if (j < t->n && bp_in(&t->v[j], missing_words)) {
        cmp = BT_ISNA, after = j + 1;
    } else if (j < t->n && bp_in(&t->v[j], present_words)) {
        cmp = BT_NOTNA, after = j + 1;
    } else if ((after = bp_comparison_at(t, j, &cmp)) == 0 || after >= t->n ||
               t->v[after].kind != BT_NUM) {
        return 0;
    }
    /* "Price over 12 months" is a window, not a filter */
    static const char *const units[] = {"day", "days", "week", "weeks", "month", "months", "year",
                                        "years", "row", "rows", "period", "periods",
                                        "observations", "values", "points", NULL};
    if (cmp != BT_ISNA && cmp != BT_NOTNA && after + 1 < t->n && bp_in(&t->v[after + 1], units))
        return 0;
    const tg_dataset_column *c = &s->ds[0].cols[t->v[i].col];
    if (cmp != BT_ISNA && cmp != BT_NOTNA && !bp_comparable(c, t->v[after].num))
        return 0; /* "survivors under 10": the comparison is of another column, found (or
                   * asked) from the number */
    bool of_date;
    if (cmp != BT_ISNA && cmp != BT_NOTNA && bp_year(&t->v[after]) &&
        (bp_year_word(&t->v[j]) || cmp == BT_BETWEEN) && bp_year_column(s, &of_date) != t->v[i].col)
        return 0; /* "price since 1950", "spending between 1990 and 1999": years, read with the
                   * numbers */
    if (cmp != BT_ISNA && cmp != BT_NOTNA && !numeric_col(c))
        return tg_err_set(s->err, "'%s' is compared with a number, but column %s holds %s "
                                  "values", t->v[i].raw, c->name, tg_col_type_name(c->type));
    bool from = cmp == BT_GE && (bp_is(&t->v[j], "from") || bp_is(&t->v[j], "since"));
    if (from && bp_range_end(t, after, false))
        cmp = BT_BETWEEN; /* "year from 1990 to 1999": one range, both ends inclusive */
    bt_filter *f = bp_new_filter(s, t->v[i].col);
    if (!f)
        return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
    f->cmp = neg ? negate(cmp) : cmp;
    f->numeric = cmp != BT_ISNA && cmp != BT_NOTNA;
    if (f->numeric) {
        f->lo = t->v[after].num;
        t->v[after].used = true;
        after++;
        if (cmp == BT_BETWEEN && from) {
            f->hi = t->v[after + 1].num;
            t->v[after].used = t->v[after + 1].used = true;
            after += 2;
        } else if (cmp == BT_BETWEEN) {
            if (after + 1 >= t->n || !bp_is(&t->v[after], "and") || t->v[after + 1].kind != BT_NUM)
                return tg_err_set(s->err, "'between' needs two numbers: between 10 and 20");
            f->hi = t->v[after + 1].num;
            t->v[after].used = t->v[after + 1].used = true;
            after += 2;
        }
        if (cmp == BT_BETWEEN && f->lo > f->hi) { /* "between 20 and 10": the same range */
            double lo = f->hi;
            f->hi = f->lo;
            f->lo = lo;
        }
    }
    int unit = 0;
    if (after < t->n && t->v[after].kind == BT_COL && t->v[after].col == t->v[i].col)
        after++; /* "body mass over 5000 g": the unit names the column again */
    else if (f->numeric && (unit = bp_unit_after(s, after, t->v[i].col)) < 0)
        return -1;
    else
        after += (size_t)unit; /* "body mass over 5000 grams" */
    for (size_t k = i; k < after; k++)
        t->v[k].used = true;
    if (bp_use_before(s, i, bp_filter_intro) && bp_negate_last(s) != 0)
        return -1; /* "excluding bills over 20" */
    return 1;
}

/* [COL is] [not] VAL [(or|and|,) VAL]... at i (a VAL): one membership filter. */
static int filter_on_values(bp_state *s, size_t i)
{
    bt_toks *t = s->t;
    int col = t->v[i].col;
    bt_filter *f = bp_new_filter(s, col);
    if (!f)
        return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
    size_t start = i;
    /* what is before: "day is not", "day =", "not", "except" */
    while (start > 0 && !t->v[start - 1].used &&
           (bp_in(&t->v[start - 1], be) || bp_in(&t->v[start - 1], neg_words) ||
            t->v[start - 1].kind == BT_CMP ||
            (t->v[start - 1].kind == BT_COL && t->v[start - 1].col == col))) {
        bt_tok *k = &t->v[start - 1];
        if (bp_in(k, neg_words) || (k->kind == BT_CMP && k->cmp == BT_NE))
            f->cmp = BT_NE;
        start--;
    }
    size_t j = i;
    bool anded = false;
    while (j < t->n) {
        if (t->v[j].kind == BT_VAL && t->v[j].col == col && t->v[j].ds == 0) {
            const tg_dataset_column *c = &s->ds[0].cols[col];
            for (size_t l = 0; l < c->nlevels && f->nvals < BT_LIMIT; l++)
                if (strcmp(c->levels[l], t->v[j].text) == 0)
                    f->vals[f->nvals++] = c->levels[l]; /* the plan outlives the tokens */
            t->v[j].used = true;
            j++;
        } else if (bp_in(&t->v[j], versus) && j + 1 < t->n && t->v[j + 1].kind == BT_VAL &&
                   t->v[j + 1].col == col) {
            t->v[j++].used = true;
            bp_add_col(s->p->groups, &s->p->ngroups, col); /* "lunch vs dinner": per value */
        } else if ((bp_is(&t->v[j], "or") || bp_is(&t->v[j], "and") || t->v[j].kind == BT_SEP) &&
                   j + 1 < t->n && t->v[j + 1].kind == BT_VAL && t->v[j + 1].col == col) {
            anded = anded || bp_is(&t->v[j], "and");
            t->v[j++].used = true;
        } else if (t->v[j].kind == BT_COL && t->v[j].col == col && t->v[j].ds == 0) {
            t->v[j++].used = true; /* "Dream island", "first class": the value's own column */
        } else {
            break;
        }
    }
    for (size_t k = start; k < i; k++)
        t->v[k].used = true;
    /* "for males and females", "at lunch and dinner": every value of the column, each named —
     * as a filter it would keep every row; the request compares them: per value */
    if (anded && f->cmp == BT_EQ && f->nvals >= 2 && f->nvals == s->ds[0].cols[col].nlevels) {
        s->p->nfilters--;
        bool grouped = false;
        for (size_t g = 0; g < s->p->ngroups; g++)
            grouped = grouped || s->p->groups[g] == col;
        if (!grouped)
            bp_add_col(s->p->groups, &s->p->ngroups, col);
        return 1;
    }
    if (bp_use_before(s, start, bp_filter_intro) && bp_negate_last(s) != 0)
        return -1; /* "except on Sunday" */
    return 1;
}

int bp_flag(const tg_dataset_column *c, const char **val, double *num)
{
    if (c->type == TG_COL_INT && c->distinct == 2 && c->min == 0 && c->max == 1) {
        *num = 1;
        return 2;
    }
    if ((c->type != TG_COL_STRING && c->type != TG_COL_BOOL) || c->nlevels != 2)
        return 0;
    for (size_t l = 0; l < c->nlevels; l++)
        if (strcasecmp(c->levels[l], "yes") == 0 || strcasecmp(c->levels[l], "true") == 0) {
            *val = c->levels[l];
            return 1;
        }
    return 0;
}

int bp_flag_filter(bp_state *s, int col)
{
    const char *yes = NULL;
    double one = 0;
    int kind = bp_flag(&s->ds[0].cols[col], &yes, &one);
    if (!kind)
        return 0;
    bt_filter *f = bp_new_filter(s, col);
    if (!f)
        return tg_err_set(s->err, "more than %d filters", BT_LIMIT);
    f->cmp = BT_EQ;
    f->numeric = kind == 2;
    f->lo = one;
    if (kind == 1)
        f->vals[f->nvals++] = yes;
    return 1;
}

/* "for smokers", "only survivors": a yes/no or true/false column named as a noun. */
static int filter_on_flag(bp_state *s, size_t i)
{
    static const char *const intro[] = {"for", "among", "only", NULL};
    bt_toks *t = s->t;
    if (i == 0 || !bp_in(&t->v[i - 1], intro) || t->v[i].ds != 0)
        return 0;
    int rc = bp_flag_filter(s, t->v[i].col);
    if (rc == 1)
        t->v[i].used = t->v[i - 1].used = true;
    return rc;
}

const char *const bp_rate_words[] = {"rate", "rates", "share", "shares", "percentage",
                                     "percentages", "percent", "proportion", "proportions",
                                     "fraction", NULL};

/* Is a column other than token i's named to be measured — numeric (with flags: or yes/no),
 * not a group key? */
static bool other_measure(const bp_state *s, size_t i, bool flags)
{
    static const char *const group_words[] = {"by", "per", "each", "across", NULL};
    const bt_toks *t = s->t;
    for (size_t k = 0; k < t->n; k++) {
        const bt_tok *o = &t->v[k];
        if (k == i || o->used || o->kind != BT_COL || o->ds != 0 || o->col == t->v[i].col ||
            (k > 0 && bp_in(&t->v[k - 1], group_words)))
            continue;
        const tg_dataset_column *c = &s->ds[0].cols[o->col];
        const char *yes;
        double one;
        bool flag = bp_flag(c, &yes, &one) != 0;
        if ((flags && flag) || (!flag && (c->type == TG_COL_INT || c->type == TG_COL_FLOAT)))
            return true;
    }
    return false;
}

static bool ends_with_nocase(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static bool has_unused(const bp_state *s, const char *const *list)
{
    for (size_t k = 0; k < s->t->n; k++)
        if (!s->t->v[k].used && bp_in(&s->t->v[k], list))
            return true;
    return false;
}

/*
 * "fare of survivors", "youngest survivor", "average tip of smokers": a yes/no column named as
 * the people it holds (survivor, smoker) beside another column that is measured is a filter
 * (yes) — not a column aggregated with the other ("mean of fare and survived").
 */
static int filter_on_flag_noun(bp_state *s, size_t i)
{
    /* not a key of a group clause ("per sex and smoker") or one side of a comparison */
    static const char *const listed[] = {"and", "or", "by", "per", "each", "across", "vs",
                                         "versus", "against", NULL};
    static const char *const person_endings[] = {"er", "or", "ers", "ors", NULL};
    bt_toks *t = s->t;
    bool person = false;
    for (size_t e = 0; person_endings[e]; e++)
        person = person || (strlen(t->v[i].raw) > strlen(person_endings[e]) + 1 &&
                            ends_with_nocase(t->v[i].raw, person_endings[e]));
    if (t->v[i].ds != 0 || !person || (i > 0 && (bp_in(&t->v[i - 1], listed) ||
                                                 t->v[i - 1].kind == BT_SEP)) ||
        has_unused(s, bp_rate_words) || !other_measure(s, i, false))
        return 0;
    int rc = bp_flag_filter(s, t->v[i].col);
    if (rc == 1)
        t->v[i].used = true;
    return rc;
}

/*
 * "age of passengers who survived", "fare of those that did not survive": a yes/no column in a
 * relative clause — who/that/which, an auxiliary, "not" — is a filter (yes, or no with "not").
 * Not in a request for a rate that names no other column to take it of ("percentage who
 * survived"): there the column is what is computed.
 */
static int filter_on_flag_clause(bp_state *s, size_t i)
{
    static const char *const pronouns[] = {"who", "that", "which", NULL};
    static const char *const aux[] = {"did", "do", "does", "was", "were", "is", "are", "has",
                                      "have", "had", NULL};
    bt_toks *t = s->t;
    if (t->v[i].ds != 0 || i == 0)
        return 0;
    size_t j = i;
    bool negated = false;
    if (j > 0 && (bp_is(&t->v[j - 1], "not") || bp_is(&t->v[j - 1], "never"))) {
        negated = true;
        j--;
    }
    if (j > 0 && bp_in(&t->v[j - 1], aux))
        j--;
    if (j == 0 || !bp_in(&t->v[j - 1], pronouns))
        return 0;
    /* a rate: of this column, unless another yes/no or numeric column is there to be it
     * ("survival rate of passengers who were alone") */
    if (has_unused(s, bp_rate_words) && !other_measure(s, i, true))
        return 0;
    int rc = bp_flag_filter(s, t->v[i].col);
    if (rc != 1 || (negated && bp_negate_last(s) != 0))
        return rc != 1 ? rc : -1;
    for (size_t k = j - 1; k <= i; k++)
        t->v[k].used = true;
    return 1;
}

/* Does a column's name say it holds years ("model_year", "Year", "YEAR_BUILT")? */
static bool names_year(const char *name)
{
    for (const char *p = name; *p; p++)
        if (strncasecmp(p, "year", 4) == 0)
            return true;
    return false;
}

/*
 * "cars built before 1975" on a model_year of 70 to 82: a year of four digits compared with a
 * year column whose values all have two would keep every row or none — another question than the
 * one asked. Refused, saying what to write; the two-digit reading is not guessed.
 */
static int check_year_scale(bp_state *s)
{
    for (size_t i = 0; i < s->p->nfilters; i++) {
        const bt_filter *f = &s->p->filters[i];
        const tg_dataset_column *c = &s->ds[0].cols[f->col];
        if (!f->numeric || f->year || (c->type != TG_COL_INT && c->type != TG_COL_FLOAT) ||
            c->min < 0 || c->max >= 100 || !names_year(c->name))
            continue;
        double v[2] = {f->lo, f->hi};
        for (int k = 0; k < (f->cmp == BT_BETWEEN ? 2 : 1); k++)
            if (v[k] >= 1800 && v[k] <= 2199 && v[k] == (double)(long)v[k])
                return tg_err_set(s->err, "%ld compared with %s, whose values run from %g to %g: "
                                          "if %s holds years written with two digits, say so "
                                          "with the number as it holds it (\"%s before %ld\")",
                                  (long)v[k], c->name, c->min, c->max, c->name, c->name,
                                  (long)v[k] % 100);
    }
    return 0;
}

int bp_filters(bp_state *s)
{
    for (size_t i = 0; i < s->t->n; i++) {
        bt_tok *k = &s->t->v[i];
        if (k->used || k->ds > 0)
            continue;
        int rc = 0;
        if (k->kind == BT_COL && (rc = filter_on_column(s, i)) == 0 &&
            (rc = bp_flag_clause(s, i)) == 0 && (rc = filter_on_flag(s, i)) == 0 &&
            (rc = filter_on_flag_clause(s, i)) == 0)
            rc = filter_on_flag_noun(s, i);
        else if (k->kind == BT_VAL)
            rc = filter_on_values(s, i);
        else if (k->kind == BT_NUM)
            rc = bp_number(s, i);
        if (rc < 0)
            return -1;
    }
    return check_year_scale(s);
}
