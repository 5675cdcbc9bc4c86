/*
 * strvec.h — a growable vector of owned strings (git's strvec), and lookups in constant string
 * lists.
 *
 * tg_strv owns its strings. Invariant: v is NULL while the vector is empty and has never grown;
 * after the first push v[n] == NULL, so v can be handed to execve() or any other consumer of
 * a NULL-terminated list as it is. Set one up with TG_STRV_INIT (or zero it), release it with
 * tg_strv_free, which leaves it empty and reusable.
 */
#ifndef TG_STRVEC_H
#define TG_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

typedef struct tg_strv {
    char **v; /* owned strings, NULL-terminated once non-empty */
    size_t n, cap;
} tg_strv;

#define TG_STRV_INIT {NULL, 0, 0}

/* Appends a copy of str. */
void tg_strv_push(tg_strv *s, const char *str);
/* Appends str itself: the vector takes it over (it must come from malloc). */
void tg_strv_push_owned(tg_strv *s, char *str);
/* Appends a formatted string. */
void tg_strv_pushf(tg_strv *s, const char *fmt, ...) TG_PRINTF(2, 3);
/* Sorts v[from..n) by strcmp; from == 0 sorts all of it. */
void tg_strv_sort_from(tg_strv *s, size_t from);
/* Sorts the whole vector by strcmp. */
void tg_strv_sort(tg_strv *s);
/* Frees every string and the array; s is empty afterwards. */
void tg_strv_free(tg_strv *s);
/* Appends the runs of ASCII letters and digits of text (NULL: none), lowercased, in order:
 * "Life_Expectancy (years)" gives life, expectancy, years. */
void tg_strv_push_words(tg_strv *s, const char *text);

/* The index of s in list, a NULL-terminated array of strings, or -1 (also when s is NULL). */
int tg_strlist_index(const char *const *list, const char *s);
/* Whether s is one of the strings of list (NULL-terminated); false when s is NULL. */
bool tg_strlist_has(const char *const *list, const char *s);

#endif
