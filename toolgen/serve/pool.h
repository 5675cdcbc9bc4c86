/*
 * pool.h — a fixed pool of worker threads with a FIFO queue in front of it: the workers that
 * run the server's calls (serve/dispatch.h, docs/mcp.md, "Concurrency"). As many threads as the
 * concurrency bound, never one per request, so a slow tool holds one worker and nothing else.
 */
#ifndef TG_SERVE_POOL_H
#define TG_SERVE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

typedef struct tg_serve_pool tg_serve_pool;
typedef void (*tg_serve_job_fn)(void *arg);

/* Starts workers threads (>= 1). NULL with err when a thread could not start. */
tg_serve_pool *tg_serve_pool_start(size_t workers, tg_err *err);
/* Queues fn(arg); it runs on a worker as soon as one is free, in submission order. */
void tg_serve_pool_submit(tg_serve_pool *p, tg_serve_job_fn fn, void *arg);
/* Jobs queued or running. */
size_t tg_serve_pool_busy(tg_serve_pool *p);
/* Runs what is queued, waits for every job, joins the workers and frees p. NULL is a no-op. */
void tg_serve_pool_stop(tg_serve_pool *p);

#endif
