/*
 * builtin_ratio.c — a quantity derived per row from two columns before anything is
 * aggregated (docs/generate.md#what-it-understands): "tip as a percentage of fare", "the ratio
 * of tip to total bill", "fare per mile" (a unit word naming a measured column: the fare of
 * each trip divided by its distance). "tip percentage" says of what only by custom: the column
 * it is a percentage of is asked, among the file's other numeric columns.
 */
#include <string.h>

#include "gen/builtin_parse_int.h"

static bool numeric(const tg_dataset_column *c)
{
    return c->type == TG_COL_INT || c->type == TG_COL_FLOAT;
}

static bool numeric_col_at(const bp_state *s, size_t i)
{
    const bt_tok *k = &s->t->v[i];
    return i < s->t->n && k->kind == BT_COL && k->ds == 0 && !k->used &&
           numeric(&s->ds[0].cols[k->col]);
}

static int ratio_of(bp_state *s, size_t from, size_t to, size_t first, size_t last, bool percent)
{
    s->p->ratio = s->t->v[last].col;
    s->p->percent = percent;
    bp_add_col(s->p->values, &s->p->nvalues, s->t->v[first].col);
    for (size_t j = from; j <= to; j++)
        s->t->v[j].used = true;
    return 0;
}

/* COL as a (percentage|share|fraction|proportion) of COL */
static bool as_share_of(bp_state *s, size_t i, size_t *last, bool *percent)
{
    static const char *const shares[] = {"percentage", "percent", "share", "fraction",
                                         "proportion", NULL};
    bt_toks *t = s->t;
    size_t j = i + 1;
    if (j + 1 >= t->n || !bp_is(&t->v[j], "as"))
        return false;
    j++;
    while (j < t->n && t->v[j].kind == BT_WORD && bt_is_filler(t->v[j].text))
        j++;
    if (j + 2 >= t->n || !bp_in(&t->v[j], shares) || !bp_is(&t->v[j + 1], "of") ||
        !numeric_col_at(s, j + 2))
        return false;
    *percent = bp_is(&t->v[j], "percentage") || bp_is(&t->v[j], "percent");
    *last = j + 2;
    return true;
}

/* "fare per mile": per, then a column named by another word than its name (a unit) — but not
 * a word for the rows ("tip per bill": each row is a bill, so the tip of each). */
static bool per_unit(const bp_state *s, size_t i)
{
    const bt_toks *t = s->t;
    if (i + 2 >= t->n || !bp_is(&t->v[i + 1], "per") || !numeric_col_at(s, i + 2) ||
        bp_names_rows(&t->v[i + 2]))
        return false;
    const bt_tok *u = &t->v[i + 2];
    const tg_dataset_column *c = &s->ds[0].cols[u->col];
    return c->type == TG_COL_FLOAT && c->distinct > 50 && !bt_word_eq(u->raw, c->name) &&
           !strchr(u->raw, ' ');
}

/* "tip percentage" of a column that is no yes/no column: of which column, asked. */
static int percentage_of_what(bp_state *s, size_t i)
{
    const char *options[BT_LIMIT], *yes;
    double one;
    size_t n = 0;
    int col = s->t->v[i].col;
    if (bp_flag(&s->ds[0].cols[col], &yes, &one))
        return -1; /* a rate: builtin_ops.c */
    for (size_t c = 0; c < s->ds[0].ncols && n < BT_LIMIT; c++)
        if ((int)c != col && numeric(&s->ds[0].cols[c]) && s->ds[0].cols[c].distinct > 2)
            options[n++] = s->ds[0].cols[c].name;
    const char *pick = n ? bt_question(s->x, "percentage", options, n, "%s as a percentage of "
                                       "which column?", s->ds[0].cols[col].name)
                         : NULL;
    for (size_t c = 0; pick && c < s->ds[0].ncols; c++)
        if (strcmp(s->ds[0].cols[c].name, pick) == 0)
            return (int)c;
    return -1;
}

int bp_ratio(bp_state *s)
{
    bt_toks *t = s->t;
    for (size_t i = 0; i < t->n; i++) {
        size_t last;
        bool percent;
        if (!numeric_col_at(s, i))
            continue;
        if (as_share_of(s, i, &last, &percent))
            return ratio_of(s, i, last, i, last, percent);
        if (per_unit(s, i))
            return ratio_of(s, i, i + 2, i, i + 2, false);
        if (i >= 2 && bp_is(&t->v[i - 2], "ratio") && bp_is(&t->v[i - 1], "of") &&
            i + 2 < t->n && bp_is(&t->v[i + 1], "to") && numeric_col_at(s, i + 2))
            return ratio_of(s, i - 2, i + 2, i, i + 2, false); /* "ratio of X to Y" */
        if (i + 1 < t->n && (bp_is(&t->v[i + 1], "percentage") || bp_is(&t->v[i + 1], "percent")) &&
            !(i + 2 < t->n && bp_is(&t->v[i + 2], "of"))) {
            int den = percentage_of_what(s, i);
            if (den >= 0) {
                s->p->ratio = den;
                s->p->percent = true;
                bp_add_col(s->p->values, &s->p->nvalues, t->v[i].col);
                t->v[i].used = t->v[i + 1].used = true;
                return 0;
            }
        }
    }
    return 0;
}
