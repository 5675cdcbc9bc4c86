/* pool.c — a fixed pool of worker threads with a FIFO queue (pool.h). */
#include "serve/pool.h"

#include <stdlib.h>

typedef struct job {
    tg_serve_job_fn fn;
    void *arg;
    struct job *next;
} job;

struct tg_serve_pool {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a job was queued, or the pool stops */
    pthread_cond_t idle; /* a job finished */
    job *head, *tail;
    size_t busy;         /* queued + running */
    bool stopping;
    pthread_t *threads;
    size_t n_threads;
};

static void *worker_main(void *arg)
{
    tg_serve_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->work, &p->mu);
        job *j = p->head;
        if (!j) /* stopping, and the queue is empty */
            break;
        p->head = j->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        j->fn(j->arg);
        free(j);
        pthread_mutex_lock(&p->mu);
        p->busy--;
        pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

tg_serve_pool *tg_serve_pool_start(size_t workers, tg_err *err)
{
    tg_serve_pool *p = xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, NULL);
    p->threads = xcalloc(workers ? workers : 1, sizeof *p->threads);
    for (size_t i = 0; i < (workers ? workers : 1); i++) {
        if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) {
            tg_err_set(err, "cannot start worker thread %zu of %zu", i + 1, workers);
            tg_serve_pool_stop(p);
            return NULL;
        }
        p->n_threads++;
    }
    return p;
}

void tg_serve_pool_submit(tg_serve_pool *p, tg_serve_job_fn fn, void *arg)
{
    job *j = xcalloc(1, sizeof *j);
    j->fn = fn;
    j->arg = arg;
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->busy++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

size_t tg_serve_pool_busy(tg_serve_pool *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->busy;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void tg_serve_pool_stop(tg_serve_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
}
