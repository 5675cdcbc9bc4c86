/* arena.h — bump allocator for short-lived data that dies all at once (e.g. one JSONL instance). */
#ifndef TG_ARENA_H
#define TG_ARENA_H

#include <stddef.h>

typedef struct tg_arena_block tg_arena_block;
typedef struct tg_arena {
    tg_arena_block *head; /* current block; earlier ones are chained behind it */
    size_t block_size;
} tg_arena;

#define TG_ARENA_INIT {NULL, 0}

/* 16-byte aligned, zeroed memory. Dies on out-of-memory like xmalloc. */
void *tg_arena_alloc(tg_arena *a, size_t n);
char *tg_arena_strndup(tg_arena *a, const char *s, size_t n);
/* Forgets every allocation but keeps the largest block for reuse: steady state allocates nothing. */
void tg_arena_reset(tg_arena *a);
void tg_arena_free(tg_arena *a);

#endif
