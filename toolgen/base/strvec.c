/* strvec.c — vector of owned strings, lookups in constant string lists. */
#include "base/strvec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


void tg_strv_push_owned(tg_strv *s, char *str)
{
    if (s->n + 2 > s->cap) { /* room for str and the NULL after it */
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

void tg_strv_push(tg_strv *s, const char *str)
{
    tg_strv_push_owned(s, xstrdup(str));
}

void tg_strv_pushf(tg_strv *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tg_strv_push_owned(s, xvasprintf(fmt, ap));
    va_end(ap);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void tg_strv_sort_from(tg_strv *s, size_t from)
{
    /* qsort must not see the NULL v of an empty vector (UBSan). */
    if (from < s->n && s->n - from > 1)
        qsort(s->v + from, s->n - from, sizeof *s->v, str_cmp);
}

void tg_strv_sort(tg_strv *s)
{
    tg_strv_sort_from(s, 0);
}

void tg_strv_free(tg_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    *s = (tg_strv)TG_STRV_INIT;
}

int tg_strlist_index(const char *const *list, const char *s)
{
    for (int i = 0; s && list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return -1;
}

bool tg_strlist_has(const char *const *list, const char *s)
{
    return tg_strlist_index(list, s) >= 0;
}

void tg_strv_push_words(tg_strv *s, const char *text)
{
    const char *p = text ? text : "";
    while (*p) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        const char *start = p;
        while (isalnum((unsigned char)*p))
            p++;
        if (p == start)
            continue;
        char *w = xstrndup(start, (size_t)(p - start));
        for (char *q = w; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        tg_strv_push_owned(s, w);
    }
}
