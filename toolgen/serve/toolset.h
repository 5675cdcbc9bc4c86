/*
 * toolset.h — the served tool set as a shared, reference-counted snapshot
 * (docs/mcp.md#list-changes).
 *
 * A snapshot (tg_serve_toolset) is the tools and the resources built from them, read once and
 * then never modified. When the source changes, a new snapshot is read and swapped in as the
 * current one (tg_serve_live); a request holds a reference to the snapshot current when it
 * started and keeps it until its reply is built, so a call that runs across a reload
 * validates its result against the schemas it started with, and the old snapshot is freed
 * when the last request holding it lets go. Nothing waits for calls to end before a reload.
 *
 * Thread safety: tg_serve_live_get and tg_serve_live_swap may be called from any thread at
 * any time (a mutex guards the current pointer; the count is atomic); a snapshot is read-only,
 * so any number of threads may read one they hold.
 */
#ifndef TG_SERVE_TOOLSET_H
#define TG_SERVE_TOOLSET_H

#include <pthread.h>
#include <stdatomic.h>

#include "serve/resources.h"
#include "serve/tools.h"

typedef struct tg_serve_toolset {
    tg_serve_tools tools;
    tg_serve_resources resources; /* built from tools */
    atomic_uint refs;             /* private: tg_serve_toolset_ref / _unref */
} tg_serve_toolset;

/* A snapshot owning t and r (their contents are moved in; *t and *r are zeroed), with one
 * reference, the caller's. */
tg_serve_toolset *tg_serve_toolset_new(tg_serve_tools *t, tg_serve_resources *r);
/* Another reference to s; returns s. */
tg_serve_toolset *tg_serve_toolset_ref(tg_serve_toolset *s);
/* Drops one reference; the last one frees the snapshot. NULL is a no-op. */
void tg_serve_toolset_unref(tg_serve_toolset *s);

/* The current snapshot of a server, replaced as a whole. */
typedef struct tg_serve_live {
    pthread_mutex_t mu;
    tg_serve_toolset *cur; /* one reference held by the live set */
} tg_serve_live;

/* Starts with first, taking the caller's reference to it. */
void tg_serve_live_init(tg_serve_live *l, tg_serve_toolset *first);
/* Drops the live set's reference (snapshots still held elsewhere live on). */
void tg_serve_live_destroy(tg_serve_live *l);
/* A new reference to the current snapshot: the caller unrefs it when done. */
tg_serve_toolset *tg_serve_live_get(tg_serve_live *l);
/* Makes next the current snapshot, taking the caller's reference to it, and drops the live
 * set's reference to the previous one. */
void tg_serve_live_swap(tg_serve_live *l, tg_serve_toolset *next);

#endif
