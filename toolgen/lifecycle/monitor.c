/* monitor.c — .toolgen/metrics.json (see monitor.h, docs/lifecycle.md "Monitoring"). */
#include "lifecycle/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/json.h"
#include "lifecycle/lifecycle_state.h"

static const char *const counters[] = {"staged", "validation_failures", "output_accepted",
                                       "output_rejected", "approved", "rejected", "promoted",
                                       "staged_runs", "staged_run_failures"};

static double count(const cJSON *m, const char *k)
{
    return tg_json_get_number(m, k, 0);
}

static void set_num(cJSON *m, const char *k, double v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(m, k);
    cJSON_AddNumberToObject(m, k, v);
}

static void add_reasons(cJSON *m, const tg_strv *reasons)
{
    cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "rejection_reasons");
    if (!cJSON_IsObject(r)) {
        cJSON_DeleteItemFromObjectCaseSensitive(m, "rejection_reasons");
        r = cJSON_AddObjectToObject(m, "rejection_reasons");
    }
    for (size_t i = 0; reasons && i < reasons->n; i++)
        set_num(r, reasons->v[i], count(r, reasons->v[i]) + 1);
}

/* The rejection reasons, most frequent first (ties by name): the seed's common reasons. */
static void common_reasons(cJSON *m)
{
    const cJSON *r = tg_json_get(m, "rejection_reasons"), *it;
    cJSON *list = cJSON_CreateArray();
    tg_strv names = {0};
    cJSON_ArrayForEach(it, r) tg_strv_push(&names, it->string);
    tg_strv_sort(&names);
    for (size_t done = 0; done < names.n; done++) { /* selection by count, stable by name */
        size_t best = names.n;
        for (size_t i = 0; i < names.n; i++)
            if (names.v[i][0] &&
                (best == names.n || count(r, names.v[i]) > count(r, names.v[best])))
                best = i;
        cJSON_AddItemToArray(list, cJSON_CreateString(names.v[best]));
        names.v[best][0] = '\0';
    }
    tg_strv_free(&names);
    cJSON_DeleteItemFromObjectCaseSensitive(m, "common_rejection_reasons");
    cJSON_AddItemToObject(m, "common_rejection_reasons", list);
}

static void derived(cJSON *m)
{
    double attempts = count(m, "staged") + count(m, "validation_failures");
    set_num(m, "total_generated", attempts);
    set_num(m, "validation_failure_rate",
            attempts > 0 ? count(m, "validation_failures") / attempts : 0);
    double runs = count(m, "staged_runs");
    set_num(m, "avg_staged_run_ms", runs > 0 ? count(m, "staged_run_ms_total") / runs : 0);
    /* generation comes with `toolgen new`; until then no generation time is measured */
    if (!tg_json_get(m, "avg_generation_time_ms"))
        cJSON_AddNullToObject(m, "avg_generation_time_ms");
    common_reasons(m);
    char now[32];
    tg_lc_now(now);
    cJSON_DeleteItemFromObjectCaseSensitive(m, "updated_at");
    cJSON_AddStringToObject(m, "updated_at", now);
}

/* The read-modify-write below runs under an exclusive flock of a lock file beside the metrics:
 * two commands (or two workflow calls of one server) counting at once would otherwise both
 * read the same counts and one event would be lost. The lock file is never removed, so every
 * process locks the same inode. -1 with err when it cannot be opened or locked. */
static int lock_metrics(const tg_repo *repo, tg_err *err)
{
    if (tg_mkdirs_at(repo->root_fd, ".toolgen", err) != 0)
        return -1;
    int fd = openat(repo->root_fd, TG_METRICS_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                    0644);
    if (fd < 0)
        return tg_err_set(err, "%s: %s", TG_METRICS_LOCK_PATH, strerror(errno));
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            tg_err_set(err, "%s: %s", TG_METRICS_LOCK_PATH, strerror(errno));
            close(fd);
            return -1;
        }
    }
    return fd;
}

static int add_locked(const tg_repo *repo, tg_monitor_event ev, double ms,
                      const tg_strv *reasons, tg_err *err)
{
    char *text = tg_read_file_at(repo->root_fd, TG_METRICS_PATH, 1u << 20, NULL, NULL);
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "metrics_version", 1);
    }
    for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
        if (!tg_json_get(m, counters[i]))
            cJSON_AddNumberToObject(m, counters[i], 0);
    if ((size_t)ev < sizeof counters / sizeof *counters)
        set_num(m, counters[ev], count(m, counters[ev]) + 1);
    if (ev == TG_MON_STAGED_RUN)
        set_num(m, "staged_run_ms_total", count(m, "staged_run_ms_total") + ms);
    if (reasons)
        add_reasons(m, reasons);
    derived(m);
    char *out = tg_json_print(m);
    int rc = tg_write_file_atomic_at(repo->root_fd, TG_METRICS_PATH, out, strlen(out), err);
    free(out);
    cJSON_Delete(m);
    return rc;
}

int tg_monitor_add(const tg_repo *repo, tg_monitor_event ev, double ms, const tg_strv *reasons,
                   tg_err *err)
{
    int lock = lock_metrics(repo, err);
    if (lock < 0)
        return -1;
    int rc = add_locked(repo, ev, ms, reasons, err);
    close(lock); /* releases the flock */
    return rc;
}
