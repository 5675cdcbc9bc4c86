/*
 * strmap.h — a string-keyed hash table (open addressing, keys borrowed) and a string vector.
 * The build engine looks up tens of thousands of paths per build; both stay allocation-light.
 */
#ifndef TG_STRMAP_H
#define TG_STRMAP_H

#include <stddef.h>

typedef struct tg_strmap {
    struct tg_strmap_slot *slots;
    size_t cap, n; /* cap is a power of two (or 0) */
} tg_strmap;

#define TG_STRMAP_INIT {NULL, 0, 0}

/* The key is borrowed: it must outlive the map (or its removal). */
void tg_strmap_put(tg_strmap *m, const char *key, void *value);
void *tg_strmap_get(const tg_strmap *m, const char *key);
void tg_strmap_del(tg_strmap *m, const char *key);
void tg_strmap_free(tg_strmap *m);
/* Iteration: i from 0 while tg_strmap_next returns 1; order is unspecified. */
int tg_strmap_next(const tg_strmap *m, size_t *i, const char **key, void **value);

typedef struct tg_strv {
    char **v; /* owned strings */
    size_t n, cap;
} tg_strv;

#define TG_STRV_INIT {NULL, 0, 0}

void tg_strv_push(tg_strv *s, const char *str);      /* copies */
void tg_strv_push_owned(tg_strv *s, char *str);      /* takes ownership */
void tg_strv_sort(tg_strv *s);
void tg_strv_free(tg_strv *s);

#endif
