/* toolset.c — reference-counted snapshots of the served tool set (toolset.h). */
#include "serve/toolset.h"

#include <stdlib.h>

#include "base/util.h"

tg_serve_toolset *tg_serve_toolset_new(tg_serve_tools *t, tg_serve_resources *r)
{
    tg_serve_toolset *s = xcalloc(1, sizeof *s);
    s->tools = *t;
    s->resources = *r;
    *t = (tg_serve_tools){0};
    *r = (tg_serve_resources){0};
    atomic_init(&s->refs, 1);
    return s;
}

tg_serve_toolset *tg_serve_toolset_ref(tg_serve_toolset *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void tg_serve_toolset_unref(tg_serve_toolset *s)
{
    if (!s)
        return;
    /* release: this holder's reads happen before the free; acquire (below): the freeing
     * thread sees every other holder's reads as done */
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_release) != 1)
        return;
    atomic_thread_fence(memory_order_acquire);
    tg_serve_resources_free(&s->resources);
    tg_serve_tools_free(&s->tools);
    free(s);
}

void tg_serve_live_init(tg_serve_live *l, tg_serve_toolset *first)
{
    pthread_mutex_init(&l->mu, NULL);
    l->cur = first;
}

void tg_serve_live_destroy(tg_serve_live *l)
{
    tg_serve_toolset_unref(l->cur);
    l->cur = NULL;
    pthread_mutex_destroy(&l->mu);
}

tg_serve_toolset *tg_serve_live_get(tg_serve_live *l)
{
    pthread_mutex_lock(&l->mu);
    tg_serve_toolset *s = tg_serve_toolset_ref(l->cur);
    pthread_mutex_unlock(&l->mu);
    return s;
}

void tg_serve_live_swap(tg_serve_live *l, tg_serve_toolset *next)
{
    pthread_mutex_lock(&l->mu);
    tg_serve_toolset *old = l->cur;
    l->cur = next;
    pthread_mutex_unlock(&l->mu);
    tg_serve_toolset_unref(old); /* outside the lock: freeing a set takes a while */
}
