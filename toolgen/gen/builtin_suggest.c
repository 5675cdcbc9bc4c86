/*
 * builtin_suggest.c — the closest phrasings the built-in generator supports, for a refusal
 * (docs/generate.md#what-it-refuses).
 *
 * A catalogue of one phrasing per kind of request is filled in with the dataset's own columns
 * (a numeric one, a text one, a date one) and ranked by the words it shares with the refused
 * intent, so the suggestions read like the user's request and would each compile.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/builtin_int.h"

static const char *const catalogue[] = {
    "average {num} by {cat}",
    "number of rows per {cat}",
    "top 3 {cat} by total {num}",
    "share of each {cat}",
    "summary statistics of {num}",
    "correlation between {num} and {num2}",
    "missing values per column",
    "outliers in {num} using the IQR rule",
    "histogram of {num}",
    "scatter plot of {num2} vs {num}",
    "bar chart of mean {num} by {cat}",
    "pivot table of mean {num} by {cat} and {cat2}",
    "monthly average {num} over {date}",
    "7-row moving average of {num}",
    "top 10 rows by {num}",
    "median {num} where {num2} is over {mid}",
    "maximum {num} per {cat} sorted descending",
    "pie chart of {cat} shares",
    NULL,
};

typedef struct roles {
    const char *num, *num2, *cat, *cat2, *date;
    char mid[32];
} roles;

/* Does the intent name column c (one of its words, plurals folded)? */
static bool named_in(const char *intent, const char *name)
{
    char *lower = xstrdup(name);
    for (char *c = lower; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    bool hit = false;
    const char *p = intent;
    while (*p && !hit) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        const char *start = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        char *w = xstrndup(start, (size_t)(p - start));
        for (char *c = w; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        hit = *w && bt_word_eq(w, lower);
        free(w);
    }
    free(lower);
    return hit;
}

/* Columns for the catalogue's roles, those the intent names first. */
static roles roles_of(const tg_dataset *ds, const char *intent)
{
    roles r = {0};
    for (size_t k = 0; k < 2 * ds->ncols; k++) {
        size_t i = k % ds->ncols;
        const tg_dataset_column *c = &ds->cols[i];
        if ((k < ds->ncols) != named_in(intent, c->name))
            continue;
        bool numeric = c->type == TG_COL_INT || c->type == TG_COL_FLOAT;
        if (numeric && !r.num) {
            r.num = c->name;
            snprintf(r.mid, sizeof r.mid, "%g", (c->min + c->max) / 2);
        } else if (numeric && !r.num2) {
            r.num2 = c->name;
        } else if (c->type == TG_COL_STRING && c->nlevels && !r.cat) {
            r.cat = c->name;
        } else if (c->type == TG_COL_STRING && c->nlevels && !r.cat2) {
            r.cat2 = c->name;
        } else if (c->type == TG_COL_DATE && !r.date) {
            r.date = c->name;
        }
    }
    return r;
}

/* The phrasing with the columns filled in; NULL when the dataset lacks a role it needs. */
static char *fill(const char *tpl, const roles *r)
{
    tg_buf b = TG_BUF_INIT;
    for (const char *p = tpl; *p;) {
        if (*p != '{') {
            tg_buf_putc(&b, *p++);
            continue;
        }
        size_t n = strcspn(p, "}");
        const char *v = strncmp(p, "{num}", n + 1) == 0    ? r->num
                        : strncmp(p, "{num2}", n + 1) == 0 ? r->num2
                        : strncmp(p, "{cat}", n + 1) == 0  ? r->cat
                        : strncmp(p, "{cat2}", n + 1) == 0 ? r->cat2
                        : strncmp(p, "{date}", n + 1) == 0 ? r->date
                        : strncmp(p, "{mid}", n + 1) == 0 && r->num2 ? r->mid
                                                           : NULL;
        if (!v) {
            tg_buf_free(&b);
            return NULL;
        }
        tg_buf_puts(&b, v);
        p += n + 1;
    }
    return tg_buf_steal(&b);
}

/* Words of the intent (3+ letters) that occur in the phrasing, plurals folded. */
static int overlap(const char *intent, const char *phrase)
{
    int score = 0;
    const char *p = intent;
    while (*p) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        const char *start = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t n = (size_t)(p - start);
        if (n < 3)
            continue;
        char *w = xstrndup(start, n);
        for (char *c = w; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        const char *q = phrase;
        while (*q) {
            while (*q && !isalnum((unsigned char)*q))
                q++;
            const char *qs = q;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            char *pw = xstrndup(qs, (size_t)(q - qs));
            for (char *c = pw; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            bool hit = *pw && bt_word_eq(w, pw);
            free(pw);
            if (hit) {
                score++;
                break;
            }
        }
        free(w);
    }
    return score;
}

void bt_suggest(const char *intent, const tg_dataset *ds, size_t nds, tg_buf *out)
{
    (void)nds;
    roles r = roles_of(&ds[0], intent ? intent : "");
    char *best[3] = {0};
    int scores[3] = {-1, -1, -1};
    for (size_t i = 0; catalogue[i]; i++) {
        char *phrase = fill(catalogue[i], &r);
        if (!phrase)
            continue;
        int s = overlap(intent ? intent : "", phrase);
        for (int k = 0; k < 3 && phrase; k++)
            if (s > scores[k]) {
                free(best[2]); /* the last one drops out */
                for (int m = 2; m > k; m--) {
                    best[m] = best[m - 1];
                    scores[m] = scores[m - 1];
                }
                best[k] = phrase;
                scores[k] = s;
                phrase = NULL;
            }
        free(phrase);
    }
    tg_buf_printf(out, "Closest phrasings it supports on %s:", ds[0].path);
    for (int k = 0; k < 3 && best[k]; k++) {
        tg_buf_printf(out, "%s \"%s\"", k ? "," : "", best[k]);
        free(best[k]);
    }
    tg_buf_puts(out, " (docs/generate.md#the-built-in-generator lists them all).");
}
