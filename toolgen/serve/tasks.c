/* tasks.c — the tasks extension's store and runs (tasks.h). */
#include "serve/tasks.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/util.h"
#include "serve/core.h"
#include "serve/dispatch.h"

#define RUN_PREFIX "toolgen-task-"

typedef enum task_status { WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED } task_status;

static const char *const status_names[] = {"working", "input_required", "completed", "failed",
                                           "cancelled"};

typedef struct task {
    char id[33];               /* 32 hex digits */
    task_status status;
    char created[32], updated[32]; /* ISO 8601, UTC */
    double ends_at;            /* tg_now_ms() past which the task is dropped; 0: working */
    cJSON *params;             /* the tools/call params of the next run */
    cJSON *result;             /* COMPLETED: the CallToolResult */
    cJSON *error;              /* FAILED: the JSON-RPC error */
    cJSON *requests;           /* INPUT_REQUIRED: the questions not answered yet (an object) */
    cJSON *answers;            /* INPUT_REQUIRED: the answers of this round so far */
    char *state;               /* INPUT_REQUIRED: the round's requestState */
    unsigned run;              /* the run in flight or last spawned */
    bool running;              /* a run is in flight (slot set once spawn returned) */
    tg_serve_call_slot *slot;
    struct task *next;
} task;

struct tg_serve_tasks {
    pthread_mutex_t mu; /* guards the list; a leaf: nothing else is locked under it */
    task *list;
    size_t n;
};

/* What a run's sink knows: whose run it is. */
typedef struct run_ctx {
    tg_serve_tasks *t;
    char id[33];
    unsigned run;
} run_ctx;

tg_serve_tasks *tg_serve_tasks_new(void)
{
    tg_serve_tasks *t = xcalloc(1, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    return t;
}

static void task_free(task *k)
{
    cJSON_Delete(k->params);
    cJSON_Delete(k->result);
    cJSON_Delete(k->error);
    cJSON_Delete(k->requests);
    cJSON_Delete(k->answers);
    free(k->state);
    free(k);
}

void tg_serve_tasks_free(tg_serve_tasks *t)
{
    if (!t)
        return;
    while (t->list) {
        task *k = t->list;
        t->list = k->next;
        task_free(k);
    }
    pthread_mutex_destroy(&t->mu);
    free(t);
}

bool tg_serve_tasks_declared(const cJSON *caps)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(caps, "extensions");
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(ext, TG_TASKS_EXTENSION));
}

int tg_serve_task_support(const cJSON *tool)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tool, "execution"), "taskSupport"));
    return !s ? 0 : strcmp(s, "required") == 0 ? 2 : strcmp(s, "optional") == 0 ? 1 : 0;
}

cJSON *tg_serve_tasks_required_data(void)
{
    cJSON *data = cJSON_CreateObject();
    cJSON *ext = cJSON_AddObjectToObject(cJSON_AddObjectToObject(data, "requiredCapabilities"),
                                         "extensions");
    cJSON_AddObjectToObject(ext, TG_TASKS_EXTENSION);
    return data;
}

/* Now as ISO 8601 with milliseconds, UTC. */
static void now_iso(char out[32])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, 24, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(ts.tv_nsec / 1000000) % 1000);
}

static bool random_id(char out[33])
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n < 0 && errno != EINTR)
            return false;
        got += n > 0 ? (size_t)n : 0;
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return true;
}

/* With t->mu held: drops the finished tasks whose time is up; returns the task id names. */
static task *find(tg_serve_tasks *t, const char *id)
{
    double now = tg_now_ms();
    task *hit = NULL;
    for (task **p = &t->list; *p;) {
        task *k = *p;
        if (k->ends_at > 0 && now > k->ends_at) {
            *p = k->next;
            t->n--;
            task_free(k);
            continue;
        }
        if (id && strcmp(k->id, id) == 0)
            hit = k;
        p = &k->next;
    }
    return hit;
}

/* With t->mu held: the task's state changed. A finished task's time starts, and so does that
 * of one waiting for answers (a client that never answers must not keep it forever); a
 * working one is kept until it ends. */
static void touch(task *k)
{
    now_iso(k->updated);
    k->ends_at = k->status == WORKING ? 0 : tg_now_ms() + (double)TG_TASKS_TTL_MS;
    if (k->status != WORKING && k->status != INPUT_REQUIRED) {
        cJSON_Delete(k->requests);
        k->requests = NULL;
    }
}

/* A run's reply (taken; NULL when it was stopped) settles its task, unless the task moved on
 * (cancelled) since. */
static void settle(task *k, cJSON *reply, tg_serve_end how)
{
    if (k->status != WORKING) {
        cJSON_Delete(reply);
        return;
    }
    cJSON *result = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
    cJSON *error = cJSON_DetachItemFromObjectCaseSensitive(reply, "error");
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "resultType"));
    if (how != TG_SERVE_REPLIED || (!result && !error)) {
        k->status = FAILED;
        k->error = cJSON_CreateObject();
        cJSON_AddNumberToObject(k->error, "code", TG_RPC_INTERNAL_ERROR);
        cJSON_AddStringToObject(k->error, "message",
                                "the server stopped before the task's call ended");
    } else if (error) {
        k->status = FAILED;
        k->error = error;
        error = NULL;
    } else if (type && strcmp(type, "input_required") == 0) {
        k->status = INPUT_REQUIRED;
        k->requests = cJSON_DetachItemFromObjectCaseSensitive(result, "inputRequests");
        if (!cJSON_IsObject(k->requests)) {
            cJSON_Delete(k->requests);
            k->requests = cJSON_CreateObject();
        }
        free(k->state);
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "requestState"));
        k->state = st ? xstrdup(st) : NULL;
        cJSON_Delete(k->answers);
        k->answers = cJSON_CreateObject();
    } else {
        /* the envelope's fields are the tasks/get reply's, not the inlined result's */
        cJSON_DeleteItemFromObjectCaseSensitive(result, "resultType");
        cJSON_DeleteItemFromObjectCaseSensitive(result, "_meta");
        k->status = COMPLETED;
        k->result = result;
        result = NULL;
    }
    touch(k);
    cJSON_Delete(result);
    cJSON_Delete(error);
    cJSON_Delete(reply);
}

static void run_notify(void *ctx, const cJSON *msg)
{
    (void)ctx; /* a task has no request open to carry its progress or logs */
    (void)msg;
}

static void run_end(void *ctx, cJSON *reply, tg_serve_end how, const tg_serve_log *lg)
{
    (void)lg;
    run_ctx *r = ctx;
    pthread_mutex_lock(&r->t->mu);
    task *k = find(r->t, r->id);
    if (k && k->run == r->run) {
        k->running = false;
        k->slot = NULL;
        settle(k, reply, how);
    } else {
        cJSON_Delete(reply);
    }
    pthread_mutex_unlock(&r->t->mu);
    free(r);
}

/* Spawns k's next run on d. Called without t->mu (the dispatch locks its own list). */
static void spawn(tg_serve_tasks *t, struct tg_serve_dispatch *d, const char *id, unsigned run,
                  cJSON *params)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    char *rid = xasprintf(RUN_PREFIX "%s-%u", id, run);
    cJSON_AddStringToObject(msg, "id", rid);
    free(rid);
    cJSON_AddStringToObject(msg, "method", "tools/call");
    cJSON_AddItemToObject(msg, "params", params);
    run_ctx *r = xcalloc(1, sizeof *r);
    r->t = t;
    snprintf(r->id, sizeof r->id, "%s", id);
    r->run = run;
    tg_serve_sink sink = {.notify = run_notify, .end = run_end, .ctx = r};
    tg_serve_call_slot *slot = d ? tg_serve_dispatch_spawn(d, msg, &sink) : NULL;
    pthread_mutex_lock(&t->mu);
    task *k = find(t, id);
    if (k && k->run == run && k->running) {
        k->slot = slot; /* NULL: not spawned (no dispatch: a core driven directly) */
        if (!slot) {
            k->running = false;
            settle(k, NULL, TG_SERVE_STOPPED);
        }
    }
    pthread_mutex_unlock(&t->mu);
    if (!slot) {
        cJSON_Delete(msg);
        free(r);
    }
}

bool tg_serve_tasks_is_run(tg_serve_tasks *t, const cJSON *id)
{
    const char *s = cJSON_GetStringValue(id);
    if (!t || !s || strncmp(s, RUN_PREFIX, strlen(RUN_PREFIX)) != 0)
        return false;
    char tid[33];
    unsigned run;
    if (sscanf(s + strlen(RUN_PREFIX), "%32[0-9a-f]-%u", tid, &run) != 2)
        return false;
    pthread_mutex_lock(&t->mu);
    task *k = find(t, tid);
    bool yes = k && k->run == run && k->running;
    pthread_mutex_unlock(&t->mu);
    return yes;
}

/* With t->mu held: the Task fields every view has. */
static cJSON *task_view(const task *k)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "taskId", k->id);
    cJSON_AddStringToObject(r, "status", status_names[k->status]);
    cJSON_AddStringToObject(r, "createdAt", k->created);
    cJSON_AddStringToObject(r, "lastUpdatedAt", k->updated);
    cJSON_AddNumberToObject(r, "ttlMs", (double)TG_TASKS_TTL_MS);
    cJSON_AddNumberToObject(r, "pollIntervalMs", (double)TG_TASKS_POLL_MS);
    return r;
}

cJSON *tg_serve_tasks_start(tg_serve_tasks *t, struct tg_serve_dispatch *d, const cJSON *params)
{
    task *k = xcalloc(1, sizeof *k);
    if (!random_id(k->id)) {
        free(k);
        return NULL;
    }
    pthread_mutex_lock(&t->mu);
    find(t, NULL);
    if (t->n >= TG_TASKS_MAX) {
        pthread_mutex_unlock(&t->mu);
        free(k);
        return NULL;
    }
    k->status = WORKING;
    now_iso(k->created);
    memcpy(k->updated, k->created, sizeof k->updated);
    k->params = cJSON_Duplicate(params, true);
    k->run = 1;
    k->running = true;
    k->next = t->list;
    t->list = k;
    t->n++;
    cJSON *r = task_view(k);
    char id[33];
    memcpy(id, k->id, sizeof id);
    pthread_mutex_unlock(&t->mu);
    /* the task exists before its CreateTaskResult leaves: a tasks/get right after finds it */
    spawn(t, d, id, 1, cJSON_Duplicate(params, true));
    cJSON_AddStringToObject(r, "resultType", "task");
    return r;
}

/* With t->mu held: tasks/update's answers join the round's; once the round's questions are all
 * answered, the next run's params (heap) are returned for the caller to spawn. */
static cJSON *answer(task *k, const cJSON *responses)
{
    if (k->status != INPUT_REQUIRED)
        return NULL; /* answers to a task that asks nothing (any more) are ignored */
    for (const cJSON *a = responses->child; a; a = a->next)
        if (cJSON_GetObjectItemCaseSensitive(k->requests, a->string)) {
            cJSON_DeleteItemFromObjectCaseSensitive(k->requests, a->string);
            cJSON_DeleteItemFromObjectCaseSensitive(k->answers, a->string);
            cJSON_AddItemToObject(k->answers, a->string, cJSON_Duplicate(a, true));
        }
    if (k->requests->child)
        return NULL;
    cJSON *p = cJSON_Duplicate(k->params, true);
    cJSON_DeleteItemFromObjectCaseSensitive(p, "inputResponses");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "requestState");
    cJSON_AddItemToObject(p, "inputResponses", k->answers);
    k->answers = NULL;
    if (k->state)
        cJSON_AddStringToObject(p, "requestState", k->state);
    cJSON_Delete(k->params);
    k->params = cJSON_Duplicate(p, true);
    k->status = WORKING;
    k->run++;
    k->running = true;
    touch(k);
    return p;
}

/* With t->mu held: tasks/get's DetailedTask. */
static cJSON *detailed(const task *k)
{
    cJSON *r = task_view(k);
    if (k->status == COMPLETED)
        cJSON_AddItemToObject(r, "result", cJSON_Duplicate(k->result, true));
    else if (k->status == FAILED)
        cJSON_AddItemToObject(r, "error", cJSON_Duplicate(k->error, true));
    else if (k->status == INPUT_REQUIRED)
        cJSON_AddItemToObject(r, "inputRequests", cJSON_Duplicate(k->requests, true));
    return r;
}

/* With t->mu held: tasks/cancel. */
static void cancel(task *k)
{
    if (k->status == COMPLETED || k->status == FAILED || k->status == CANCELLED)
        return; /* idempotent: cancelling a finished task changes nothing */
    k->status = CANCELLED;
    if (k->running && k->slot)
        tg_serve_dispatch_cancel(k->slot); /* its end finds the task cancelled already */
    touch(k);
}

bool tg_serve_tasks_request(tg_serve_tasks *t, struct tg_serve_dispatch *d, const char *method,
                            const cJSON *params, tg_serve_outcome *out)
{
    *out = (tg_serve_outcome){0};
    bool get = strcmp(method, "tasks/get") == 0, update = strcmp(method, "tasks/update") == 0;
    if (!get && !update && strcmp(method, "tasks/cancel") != 0)
        return false;
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "taskId"));
    const cJSON *responses = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
    out->rpc_error = TG_RPC_INVALID_PARAMS;
    if (!id) {
        snprintf(out->msg, sizeof out->msg, "%s: params.taskId (a string) is required", method);
        return true;
    }
    if (update && !cJSON_IsObject(responses)) {
        snprintf(out->msg, sizeof out->msg, "tasks/update: params.inputResponses (an object) is "
                                            "required");
        return true;
    }
    pthread_mutex_lock(&t->mu);
    task *k = find(t, id);
    cJSON *next = NULL;
    char tid[33] = "";
    if (!k) {
        snprintf(out->msg, sizeof out->msg, "Unknown task: %.100s (it never existed, or ended "
                                            "more than %ld s ago)", id, TG_TASKS_TTL_MS / 1000);
    } else {
        out->rpc_error = 0;
        if (get) {
            out->result = detailed(k);
        } else if (update) {
            next = answer(k, responses);
            memcpy(tid, k->id, sizeof tid);
        } else {
            cancel(k);
        }
        if (!out->result)
            out->result = cJSON_CreateObject(); /* the ack: the task is seen through tasks/get */
    }
    unsigned run = k ? k->run : 0;
    pthread_mutex_unlock(&t->mu);
    if (next)
        spawn(t, d, tid, run, next);
    return true;
}
