/*
 * test_serve_toolset.c — the served tool set as reference-counted snapshots (serve/toolset.h):
 * a holder keeps a swapped-out snapshot alive until it lets go, the core pins one per message
 * (tg_serve_pin), and readers on several threads race a writer that swaps snapshots. Each
 * snapshot owns heap memory that names its generation, so a use after free or a leak shows
 * under `make SANITIZE=1` (ASan, LeakSanitizer), and a reader that saw a torn snapshot fails
 * a check.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "serve/core.h"
#include "serve/toolset.h"
#include "testlib.h"

/* The contents of a snapshot: one "skipped" line and a skill folder, both naming gen. */
static void contents(unsigned gen, tg_serve_tools *t, tg_serve_resources *r)
{
    *t = (tg_serve_tools){0};
    *r = (tg_serve_resources){0};
    t->skipped = xcalloc(1, sizeof *t->skipped);
    t->skipped[0] = xasprintf("generation %u", gen);
    t->n_skipped = 1;
    r->skill_dir = xasprintf("skill/gen%u", gen);
}

/* A snapshot of contents(gen), freed with the snapshot. */
static tg_serve_toolset *snapshot(unsigned gen)
{
    tg_serve_tools t;
    tg_serve_resources r;
    contents(gen, &t, &r);
    tg_serve_toolset *s = tg_serve_toolset_new(&t, &r);
    /* what the readers and the writer check depends on it; test_held_across_swap counts it */
    SETUP(t.skipped == NULL && r.skill_dir == NULL, "the contents are moved in");
    return s;
}

static unsigned gen_of(const tg_serve_toolset *s)
{
    unsigned a = 0, b = 0;
    if (sscanf(s->tools.skipped[0], "generation %u", &a) != 1 ||
        sscanf(s->resources.skill_dir, "skill/gen%u", &b) != 1 || a != b)
        return (unsigned)-1;
    return a;
}

static void test_held_across_swap(void)
{
    tg_serve_tools t;
    tg_serve_resources r;
    contents(1, &t, &r);
    tg_serve_toolset *first = tg_serve_toolset_new(&t, &r);
    CHECK(t.skipped == NULL && t.n_skipped == 0 && r.skill_dir == NULL,
          "the contents are moved in, the caller's copies emptied");
    tg_serve_live live;
    tg_serve_live_init(&live, first);
    tg_serve_toolset *held = tg_serve_live_get(&live);
    CHECK(gen_of(held) == 1, "the first snapshot");
    tg_serve_live_swap(&live, snapshot(2));
    CHECK(gen_of(held) == 1, "a holder keeps the snapshot it took across a swap");
    tg_serve_toolset *now = tg_serve_live_get(&live);
    CHECK(gen_of(now) == 2, "a new get sees the new snapshot");
    tg_serve_toolset_unref(held); /* the last reference to generation 1: freed */
    tg_serve_toolset_unref(now);
    tg_serve_live_destroy(&live);
    tg_serve_toolset_unref(NULL);
}

static void test_pin(void)
{
    tg_serve_live live;
    tg_serve_live_init(&live, snapshot(7));
    tg_serve_completion comp = {.root_fd = -1};
    tg_serve_config c = {.live = &live, .completion = &comp, .page_size = 3};
    tg_serve_pinned p;
    tg_serve_pin(&c, &p);
    CHECK(p.c.live == NULL && p.c.page_size == 3, "the pinned config is the config, not live");
    CHECK(p.c.tools == &p.set->tools && p.c.resources == &p.set->resources,
          "tools and resources come from the snapshot");
    CHECK(p.c.completion == &p.completion && p.completion.tools == &p.set->tools &&
              p.completion.root_fd == -1,
          "completion is the config's, with the snapshot's tools");
    tg_serve_live_swap(&live, snapshot(8));
    CHECK(strcmp(p.c.tools->skipped[0], "generation 7") == 0, "pinned across a reload");
    tg_serve_unpin(&p);
    CHECK(p.set == NULL, "unpinned");
    tg_serve_config plain = {.page_size = 5};
    tg_serve_pin(&plain, &p);
    CHECK(p.set == NULL && p.c.page_size == 5 && p.c.tools == NULL, "no live set: the config");
    tg_serve_unpin(&p);
    tg_serve_live_destroy(&live);
}

#define READERS 4
#define ROUNDS 20000
#define SWAPS 2000

static tg_serve_live race_live;
static int torn[READERS];

static void *reader(void *arg)
{
    int *bad = arg;
    unsigned last = 0;
    for (int i = 0; i < ROUNDS; i++) {
        tg_serve_toolset *s = tg_serve_live_get(&race_live);
        unsigned g = gen_of(s);
        if (g == (unsigned)-1 || g < last) /* torn, or an older snapshot after a newer one */
            (*bad)++;
        last = g;
        tg_serve_toolset_unref(s);
    }
    return NULL;
}

static void test_race(void)
{
    tg_serve_live_init(&race_live, snapshot(0));
    pthread_t th[READERS];
    for (int i = 0; i < READERS; i++)
        pthread_create(&th[i], NULL, reader, &torn[i]);
    for (unsigned g = 1; g <= SWAPS; g++)
        tg_serve_live_swap(&race_live, snapshot(g));
    for (int i = 0; i < READERS; i++) {
        pthread_join(th[i], NULL);
        CHECK(torn[i] == 0, "reader %d saw %d torn or out-of-order snapshots", i, torn[i]);
    }
    tg_serve_toolset *last = tg_serve_live_get(&race_live);
    CHECK(gen_of(last) == SWAPS, "the last swap is current");
    tg_serve_toolset_unref(last);
    tg_serve_live_destroy(&race_live);
}

int main(void)
{
    test_held_across_swap();
    test_pin();
    test_race();
    return tl_finish("test_serve_toolset");
}
