/*
 * build_ready.c — the ready queue: a binary heap of the nodes that may run, the highest
 * estimate first, the first ready among equals (docs/build.md#scheduling). Stages without an
 * estimate are all equal, so without estimates the queue is first in, first out.
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "engine/build_int.h"

static bool before(const node *a, const node *b)
{
    return a->est > b->est || (a->est == b->est && a->seq < b->seq);
}

static void sift_up(node **h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(h[i], h[p]))
            break;
        node *t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static void sift_down(node **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (r < n && before(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        node *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

void tgb_ready_push(ready_queue *q, node *n)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->heap = xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    q->heap[q->n] = n;
    sift_up(q->heap, q->n++);
}

void tgb_ready_add(ready_queue *q, node *n, bool estimate_first)
{
    n->seq = q->seq++;
    n->est = 0;
    if (!estimate_first) {
        tgb_ready_push(q, n);
        return;
    }
    if (q->nu == q->capu) {
        q->capu = q->capu ? q->capu * 2 : 16;
        q->unestimated = xrealloc(q->unestimated, q->capu * sizeof *q->unestimated);
    }
    q->unestimated[q->nu++] = n;
}

node *tgb_ready_pop(ready_queue *q)
{
    if (!q->n)
        return NULL;
    node *first = q->heap[0];
    q->heap[0] = q->heap[--q->n];
    sift_down(q->heap, q->n, 0);
    return first;
}

node *tgb_ready_take_deferred(ready_queue *q)
{
    if (!q->nu)
        return NULL;
    node *n = q->unestimated[0];
    memmove(q->unestimated, q->unestimated + 1, --q->nu * sizeof *q->unestimated);
    return n;
}

void tgb_ready_free(ready_queue *q)
{
    free(q->heap);
    free(q->unestimated);
    *q = (ready_queue){0};
}
