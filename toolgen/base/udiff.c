/* udiff.c — unified diffs of two texts (udiff.h). */
#include "base/udiff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define CONTEXT 3

typedef struct lines {
    const char **at; /* each line's start */
    size_t *len;     /* without its newline */
    size_t n;
    bool last_eol;   /* the text ends with a newline (or is empty) */
} lines;

static void split(const char *s, lines *l)
{
    size_t cap = 16;
    l->at = xmalloc(cap * sizeof *l->at);
    l->len = xmalloc(cap * sizeof *l->len);
    l->n = 0;
    l->last_eol = true;
    while (*s) {
        if (l->n == cap) {
            cap *= 2;
            l->at = xrealloc(l->at, cap * sizeof *l->at);
            l->len = xrealloc(l->len, cap * sizeof *l->len);
        }
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        l->at[l->n] = s;
        l->len[l->n++] = n;
        l->last_eol = nl != NULL;
        s += n + (nl != NULL);
    }
}

/* Whether line i is the last one and has no newline (diff tells "x" from "x\n"). */
static bool unended(const lines *l, size_t i)
{
    return i + 1 == l->n && !l->last_eol;
}

static bool same(const lines *a, size_t i, const lines *b, size_t j)
{
    return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0 &&
           unended(a, i) == unended(b, j);
}

/* The edit script as ops[k] = '=', '-' or '+' in order (heap, *n); from an LCS table when both
 * texts are small enough, else all of a removed and all of b added. */
static char *script(const lines *a, const lines *b, size_t *n)
{
    char *ops = xmalloc(a->n + b->n + 1);
    size_t k = 0;
    if (a->n > TG_UDIFF_MAX_LINES || b->n > TG_UDIFF_MAX_LINES) {
        memset(ops, '-', a->n);
        memset(ops + a->n, '+', b->n);
        *n = a->n + b->n;
        return ops;
    }
    size_t w = b->n + 1;
    uint16_t *t = xcalloc((a->n + 1) * w, sizeof *t); /* t[i][j]: LCS of a[i..], b[j..] */
    for (size_t i = a->n; i-- > 0;)
        for (size_t j = b->n; j-- > 0;)
            t[i * w + j] = same(a, i, b, j) ? (uint16_t)(t[(i + 1) * w + j + 1] + 1)
                           : t[(i + 1) * w + j] >= t[i * w + j + 1] ? t[(i + 1) * w + j]
                                                                    : t[i * w + j + 1];
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        if (i < a->n && j < b->n && same(a, i, b, j))
            ops[k++] = '=', i++, j++;
        else if (j == b->n || (i < a->n && t[(i + 1) * w + j] >= t[i * w + j + 1]))
            ops[k++] = '-', i++;
        else
            ops[k++] = '+', j++;
    }
    free(t);
    *n = k;
    return ops;
}

static void put_line(tg_buf *o, char mark, const lines *l, size_t i)
{
    tg_buf_printf(o, "%c%.*s\n", mark, (int)l->len[i], l->at[i]);
    if (unended(l, i))
        tg_buf_puts(o, "\\ No newline at end of file\n");
}

/* One hunk: ops[from, to) with the line numbers where it starts in a and b. */
static void hunk(tg_buf *o, const char *ops, size_t from, size_t to, size_t ai, size_t bi,
                 const lines *a, const lines *b)
{
    size_t na = 0, nb = 0;
    for (size_t k = from; k < to; k++)
        na += ops[k] != '+', nb += ops[k] != '-';
    tg_buf_printf(o, "@@ -%zu,%zu +%zu,%zu @@\n", na ? ai + 1 : ai, na, nb ? bi + 1 : bi, nb);
    for (size_t k = from; k < to; k++) {
        if (ops[k] == '=')
            put_line(o, ' ', a, ai++), bi++;
        else if (ops[k] == '-')
            put_line(o, '-', a, ai++);
        else
            put_line(o, '+', b, bi++);
    }
}

char *tg_udiff(const char *a_text, const char *b_text, const char *a_name, const char *b_name)
{
    lines a, b;
    split(a_text, &a);
    split(b_text, &b);
    size_t n;
    char *ops = script(&a, &b, &n);
    tg_buf o = TG_BUF_INIT;
    size_t ai = 0, bi = 0, k = 0;
    while (k < n) {
        if (ops[k] == '=') {
            ai++, bi++, k++;
            continue;
        }
        /* a hunk: CONTEXT lines before, changes apart by at most 2*CONTEXT equal lines, CONTEXT
         * lines after (diff -u) */
        size_t back = 0;
        while (back < CONTEXT && back < k && ops[k - back - 1] == '=')
            back++;
        size_t from = k - back, last = k;
        for (size_t q = k; q < n; q++) {
            if (ops[q] != '=')
                last = q;
            else if (q - last > 2 * CONTEXT)
                break;
        }
        size_t to = last + 1;
        for (int c = 0; c < CONTEXT && to < n && ops[to] == '='; c++)
            to++;
        if (!o.len)
            tg_buf_printf(&o, "--- %s\n+++ %s\n", a_name, b_name);
        hunk(&o, ops, from, to, ai - back, bi - back, &a, &b);
        for (size_t q = k; q < to; q++)
            ai += ops[q] != '+', bi += ops[q] != '-';
        k = to;
    }
    free(ops);
    free(a.at), free(a.len), free(b.at), free(b.len);
    return tg_buf_steal(&o);
}
