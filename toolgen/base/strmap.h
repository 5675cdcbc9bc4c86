/*
 * strmap.h — a string-keyed hash table (open addressing, keys borrowed).
 * The build engine looks up tens of thousands of paths per build; it stays allocation-light.
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

#endif
