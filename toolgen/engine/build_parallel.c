/*
 * build_parallel.c — the engine's parallel loop (tool discovery, planning, checking thousands
 * of outputs) and how many threads a build uses.
 */
#include "engine/build_int.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct pfor {
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t n;
    atomic_size_t next;
} pfor;

static void *pfor_main(void *arg)
{
    pfor *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, PFOR_CHUNK);
        if (i >= p->n)
            break;
        size_t end = i + PFOR_CHUNK < p->n ? i + PFOR_CHUNK : p->n;
        for (; i < end; i++)
            p->fn(p->ctx, i);
    }
    return NULL;
}

void tgb_parallel_for(int nth, size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
    pfor p = {.fn = fn, .ctx = ctx, .n = n};
    atomic_init(&p.next, 0);
    size_t chunks = (n + PFOR_CHUNK - 1) / PFOR_CHUNK;
    if ((size_t)nth > chunks)
        nth = (int)chunks;
    pthread_t *th = xcalloc((size_t)(nth > 1 ? nth : 1), sizeof *th);
    int started = 0;
    for (int i = 1; i < nth; i++)
        if (pthread_create(&th[started], NULL, pfor_main, &p) == 0)
            started++;
    pfor_main(&p);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}

static int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n > 1024 ? 1024 : n) : 1;
}

int tgb_jobs(const engine *e)
{
    if (e->o->jobs > 0)
        return e->o->jobs;
    if (e->cfg.jobs > 0)
        return e->cfg.jobs;
    return cpu_count();
}
