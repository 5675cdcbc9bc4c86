/* strmap.c — string hash table (open addressing, backward-shift deletion). */
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "base/util.h"

struct tg_strmap_slot {
    const char *key; /* NULL = empty */
    void *value;
    size_t hash;
};

static size_t hash_key(const char *k)
{
    return (size_t)XXH3_64bits(k, strlen(k));
}

static void insert_slot(struct tg_strmap_slot *slots, size_t cap, struct tg_strmap_slot s)
{
    size_t i = s.hash & (cap - 1);
    while (slots[i].key)
        i = (i + 1) & (cap - 1);
    slots[i] = s;
}

static void grow(tg_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct tg_strmap_slot *slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            insert_slot(slots, cap, m->slots[i]);
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
}

static struct tg_strmap_slot *find(const tg_strmap *m, const char *key, size_t h)
{
    if (!m->cap)
        return NULL;
    size_t i = h & (m->cap - 1);
    while (m->slots[i].key) {
        if (m->slots[i].hash == h && strcmp(m->slots[i].key, key) == 0)
            return &m->slots[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

void tg_strmap_put(tg_strmap *m, const char *key, void *value)
{
    size_t h = hash_key(key);
    struct tg_strmap_slot *s = find(m, key, h);
    if (s) {
        s->key = key;
        s->value = value;
        return;
    }
    if ((m->n + 1) * 4 > m->cap * 3) /* load factor 0.75 */
        grow(m);
    insert_slot(m->slots, m->cap, (struct tg_strmap_slot){key, value, h});
    m->n++;
}

void *tg_strmap_get(const tg_strmap *m, const char *key)
{
    struct tg_strmap_slot *s = find(m, key, hash_key(key));
    return s ? s->value : NULL;
}

void tg_strmap_del(tg_strmap *m, const char *key)
{
    struct tg_strmap_slot *s = find(m, key, hash_key(key));
    if (!s)
        return;
    /* Backward-shift deletion keeps probe chains intact without tombstones. */
    size_t i = (size_t)(s - m->slots), mask = m->cap - 1;
    m->slots[i].key = NULL;
    m->n--;
    for (size_t j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
        size_t home = m->slots[j].hash & mask;
        /* Move j into the hole at i when its home is not cyclically in (i, j]. */
        int move = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);
        if (move) {
            m->slots[i] = m->slots[j];
            m->slots[j].key = NULL;
            i = j;
        }
    }
}

void tg_strmap_free(tg_strmap *m)
{
    free(m->slots);
    *m = (tg_strmap){0};
}

int tg_strmap_next(const tg_strmap *m, size_t *i, const char **key, void **value)
{
    while (*i < m->cap) {
        const struct tg_strmap_slot *s = &m->slots[(*i)++];
        if (s->key) {
            *key = s->key;
            *value = s->value;
            return 1;
        }
    }
    return 0;
}
