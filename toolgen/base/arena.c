/* arena.c — bump allocator. */
#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct tg_arena_block {
    tg_arena_block *prev;
    size_t size, used;
    _Alignas(16) unsigned char mem[];
};

void *tg_arena_alloc(tg_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    tg_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = a->block_size ? a->block_size : 64 * 1024;
        if (b && b->size * 2 > size)
            size = b->size * 2; /* grow geometrically so big documents take few blocks */
        if (size < n)
            size = n;
        tg_arena_block *nb = xmalloc(sizeof *nb + size);
        nb->prev = b;
        nb->size = size;
        nb->used = 0;
        a->head = b = nb;
    }
    void *p = b->mem + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *tg_arena_strndup(tg_arena *a, const char *s, size_t n)
{
    char *p = tg_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void tg_arena_reset(tg_arena *a)
{
    tg_arena_block *keep = NULL;
    for (tg_arena_block *b = a->head, *prev; b; b = prev) {
        prev = b->prev;
        if (!keep || b->size > keep->size) {
            free(keep);
            keep = b;
        } else {
            free(b);
        }
    }
    if (keep) {
        keep->prev = NULL;
        keep->used = 0;
    }
    a->head = keep;
}

void tg_arena_free(tg_arena *a)
{
    for (tg_arena_block *b = a->head, *prev; b; b = prev) {
        prev = b->prev;
        free(b);
    }
    a->head = NULL;
}
