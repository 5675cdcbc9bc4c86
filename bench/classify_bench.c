/* classify_bench.c — time tg_classify + tg_resources_analyze on typical failures (bench/sandbox.sh). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run/guidance.h"
#include "base/json.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void)
{
    static const char *const replies[] = {
        NULL, /* a success with no reply facts beyond the process: resource analysis only */
        "{\"ok\":true,\"result\":{\"a\":1}}",
        "{\"ok\":false,\"error\":{\"phase\":\"call\",\"type\":\"KeyError\",\"mro\":[\"KeyError\","
        "\"LookupError\",\"Exception\",\"BaseException\"],\"key\":\"region\",\"message\":\"KeyError: 'region'\"}}",
        "{\"ok\":false,\"error\":{\"phase\":\"call\",\"type\":\"ToolError\",\"code\":\"INVALID_INPUT\","
        "\"mro\":[\"ToolError\",\"Exception\"],\"message\":\"Column(s) not found in data/tips.csv: region. "
        "Available columns: total_bill, tip, sex, smoker, day, time, size\"}}",
        "{\"ok\":false,\"error\":{\"phase\":\"call\",\"type\":\"RuntimeError\",\"mro\":[\"RuntimeError\","
        "\"Exception\",\"BaseException\"],\"message\":\"boom\"}}",
    };
    const int n = 200000;
    double worst = 0;
    for (size_t k = 0; k < sizeof replies / sizeof *replies; k++) {
        tg_err err = {0};
        cJSON *reply = replies[k] ? tg_json_parse(replies[k], strlen(replies[k]), NULL, NULL, NULL, &err) : NULL;
        tg_run_facts f = {.runtime = "python", .ran = true, .limits = TG_LIMITS_DEFAULT,
                          .max = TG_LIMITS_MAX_DEFAULT, .wall_ms = 812, .cpu_ms = 640,
                          .max_rss_kb = 98000, .reply = reply};
        if (!replies[k]) { /* killed by the CPU limit */
            f.signal = 9;
            f.cpu_ms = 30100;
        }
        tg_guidance g;
        tg_resources r;
        double t0 = now_ns();
        for (int i = 0; i < n; i++) {
            tg_classify(&f, &g);
            tg_resources_analyze(&f, &g, &r);
        }
        double us = (now_ns() - t0) / n / 1000.0;
        if (us > worst)
            worst = us;
        printf("| %s | %s | %.2f |\n", replies[k] ? (k == 1 ? "success" : tg_error_class_name(g.cls)) : "cpu_limit (no reply)",
               g.code ? g.code : "-", us);
        cJSON_Delete(reply);
    }
    printf("\nworst: %.2f us per call (budget: 1000 us)\n", worst);
    return worst < 1000 ? 0 : 1;
}
