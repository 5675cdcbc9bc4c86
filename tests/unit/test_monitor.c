/* test_monitor.c — .toolgen/metrics.json (lifecycle/monitor.h): counts, rates, and no event
 * lost when several processes count at once (docs/lifecycle.md "Monitoring"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/json.h"
#include "lifecycle/monitor.h"
#include "testlib.h"

enum { WRITERS = 8, EVENTS = 150 };

static cJSON *read_metrics(const tg_repo *r)
{
    char *text = tg_read_file_at(r->root_fd, TG_METRICS_PATH, 1u << 20, NULL, NULL);
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    free(text);
    return m;
}

static double num(const cJSON *m, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Each writer alternates between two events; a lost update shows as a total below
 * WRITERS * EVENTS. Without the lock the writers' read-modify-writes interleave. */
static void test_concurrent_writers(const tg_repo *r)
{
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            tg_err err = {0};
            for (int i = 0; i < EVENTS; i++)
                if (tg_monitor_add(r, i % 2 ? TG_MON_STAGED : TG_MON_GATE_FAILED, 0, NULL, &err))
                    _exit(1);
            _exit(0);
        }
    }
    int ok = 0;
    for (int w = 0; w < WRITERS; w++) {
        int st = 0;
        waitpid(pids[w], &st, 0);
        ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    CHECK(ok == WRITERS, "%d of %d writers succeeded", ok, WRITERS);
    cJSON *m = read_metrics(r);
    CHECK(m != NULL, "metrics.json is JSON after concurrent writers");
    double staged = num(m, "staged"), failed = num(m, "validation_failures");
    CHECK(staged == WRITERS * EVENTS / 2 && failed == WRITERS * EVENTS / 2,
          "every event counted: staged %g, validation_failures %g, expected %d each", staged,
          failed, WRITERS * EVENTS / 2);
    CHECK(num(m, "total_generated") == WRITERS * EVENTS, "total_generated %g",
          num(m, "total_generated"));
    CHECK(num(m, "validation_failure_rate") == 0.5, "validation_failure_rate %g",
          num(m, "validation_failure_rate"));
    cJSON_Delete(m);
}

static void test_reasons_and_runs(const tg_repo *r)
{
    tg_err err = {0};
    tg_strv reasons = {0};
    tg_strv_push(&reasons, "wrong_output");
    CHECK(tg_monitor_add(r, TG_MON_REJECTED, 0, &reasons, &err) == 0, "%s", err.msg);
    CHECK(tg_monitor_add(r, TG_MON_STAGED_RUN, 30, NULL, &err) == 0, "%s", err.msg);
    CHECK(tg_monitor_add(r, TG_MON_STAGED_RUN, 10, NULL, &err) == 0, "%s", err.msg);
    tg_strv_free(&reasons);
    cJSON *m = read_metrics(r);
    CHECK(num(m, "rejected") == 1, "rejected %g", num(m, "rejected"));
    CHECK(num(m, "avg_staged_run_ms") == 20, "avg_staged_run_ms %g", num(m, "avg_staged_run_ms"));
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(m, "rejection_reasons");
    CHECK(num(rr, "wrong_output") == 1, "rejection_reasons.wrong_output %g",
          num(rr, "wrong_output"));
    cJSON_Delete(m);
}

/* A metrics file that is not JSON only holds counts: it is started afresh, not an error. */
static void test_garbage_file(const tg_repo *r)
{
    tg_err err = {0};
    SETUP(tg_write_file_atomic_at(r->root_fd, TG_METRICS_PATH, "{oops", 5, &err) == 0, "%s",
          err.msg);
    CHECK(tg_monitor_add(r, TG_MON_PROMOTED, 0, NULL, &err) == 0, "%s", err.msg);
    cJSON *m = read_metrics(r);
    CHECK(num(m, "promoted") == 1 && num(m, "metrics_version") == 1, "started afresh");
    cJSON_Delete(m);
}

int main(void)
{
    char dir[] = "/tmp/tg-monitor-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    tg_repo r;
    tg_err err = {0};
    SETUP(tg_repo_open_dir(&r, dir, &err) == 0, "open: %s", err.msg);
    test_concurrent_writers(&r);
    test_reasons_and_runs(&r);
    test_garbage_file(&r);
    tg_repo_release(&r);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return tl_finish("test_monitor");
}
