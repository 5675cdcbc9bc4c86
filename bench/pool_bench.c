/*
 * pool_bench.c — the latency of one call of a pandas tool over the run layer, three ways, side
 * by side and interleaved: a cold call (tg_tool_call_run: a fresh sandbox that imports pandas),
 * a call through the warm pool (tg_warmpool_call_run with a ready worker: the worker's start is not
 * timed, it happens between calls, as it does between a server's calls), and a plain python3
 * subprocess that imports the tool and calls it with no sandbox at all.
 *
 *   pool_bench REPO TOOL N      (bench/pool.sh builds and runs it; docs/benchmarks.md)
 *
 * With POOL_ONLY set in the environment, only the pooled calls run (more of them in the same
 * time, and none of the cold calls' CPU load between them).
 *
 * REPO is a repository with toolgen.yaml; TOOL a folder below REPO/manifests; the arguments are
 * those of the tool's first example.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "model/repo.h"
#include "run/warmpool.h"
#include "run/toolrun.h"

extern char **environ;

static double plain_python(const char *repo, const char *tool_dir, const char *entry,
                           const char *args_json);
static void report(const char *name, double *v, double *cpu, int n);

/*
 * N pooled calls one right after the other (no wait for a worker between them, as a stream of
 * an agent's calls arrives), then N plain python3 subprocesses the same way: p50 per call and
 * calls per second over the whole stream.
 */
static void back_to_back(tg_warmpool *pool, const tg_tool_call *call, const char *repo,
                         const char *tool_dir, const char *entry, const char *args_json, int n)
{
    double *lat = xcalloc((size_t)n, sizeof *lat), *cpu = xcalloc((size_t)n, sizeof *cpu);
    double *plain = xcalloc((size_t)n, sizeof *plain);
    size_t warm_before = tg_warmpool_warm_calls(pool);
    tg_err err = {0};
    double start = tg_now_ms();
    for (int i = 0; i < n; i++) {
        tg_call_result r;
        double t0 = tg_now_ms();
        if (tg_warmpool_call_run(pool, call, &r, &err) != TG_CALL_DONE || !r.ok) {
            fprintf(stderr, "pool_bench: pooled call failed: %s %s\n", err.msg, r.guidance.message);
            exit(1);
        }
        lat[i] = tg_now_ms() - t0;
        cpu[i] = r.sb.user_ms + r.sb.sys_ms;
        tg_call_result_free(&r);
    }
    double pooled_s = (tg_now_ms() - start) / 1000.0;
    start = tg_now_ms();
    for (int i = 0; i < n; i++)
        plain[i] = plain_python(repo, tool_dir, entry, args_json);
    double plain_s = (tg_now_ms() - start) / 1000.0;
    printf("\nback to back, %d calls each, no pause:\n\n"
           "| variant | p50 ms | p95 ms | min ms | tool CPU p50 ms |\n"
           "| --- | ---: | ---: | ---: | ---: |\n", n);
    report("through the pool, back to back", lat, cpu, n);
    report("plain python3 subprocess, back to back", plain, NULL, n);
    printf("\ncalls/s: pool %.1f, plain python3 %.1f (%.1fx); %zu of %d pooled calls ran warm\n",
           n / pooled_s, n / plain_s, plain_s / pooled_s, tg_warmpool_warm_calls(pool) - warm_before,
           n);
    free(lat);
    free(cpu);
    free(plain);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, double *cpu, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("| %s | %.1f | %.1f | %.1f |", name, v[n / 2], v[(n * 95) / 100], v[0]);
    if (cpu) {
        qsort(cpu, (size_t)n, sizeof *cpu, cmp_double);
        printf(" %.1f |\n", cpu[n / 2]);
    } else {
        printf(" |\n");
    }
}

/* python3 -c: import the tool from its folder and call it with the example's arguments. */
static double plain_python(const char *repo, const char *tool_dir, const char *entry,
                           const char *args_json)
{
    char *code = xasprintf("import json, os, sys\nos.chdir(%s)\nsys.path.insert(0, %s)\n"
                           "import tool\ntool.%s(**json.loads(%s))\n",
                           "sys.argv[1]", "sys.argv[2]", entry, "sys.argv[3]");
    char *argv[] = {"/usr/bin/python3", "-B", "-c", code, (char *)repo, (char *)tool_dir,
                    (char *)args_json, NULL};
    double t0 = tg_now_ms();
    pid_t pid;
    int st = -1;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) == 0)
        waitpid(pid, &st, 0);
    double ms = tg_now_ms() - t0;
    free(code);
    if (st != 0) {
        fprintf(stderr, "pool_bench: the plain python3 call failed (%d)\n", st);
        exit(1);
    }
    return ms;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pool_bench REPO TOOL N\n");
        return 2;
    }
    int n = atoi(argv[3]);
    tg_err err = {0};
    tg_repo repo;
    tg_toolrun_env env;
    tg_manifest m;
    char *mpath = xasprintf("manifests/%s/tool.manifest.yaml", argv[2]);
    if (tg_repo_open(&repo, argv[1], &err) != 0 ||
        tg_toolrun_env_open(&env, &repo, repo.cfg.doc.root, &err) != 0 ||
        tg_manifest_load(&repo, mpath, &m, &err) != 0) {
        fprintf(stderr, "pool_bench: %s\n", err.msg);
        return 1;
    }
    tg_manifest_bind(&m);
    js_registry *reg = js_registry_new();
    js_schema *in = js_compile(reg, m.input_schema, &(js_options){0}, &err);
    js_schema *out = js_compile(reg, m.output_schema, &(js_options){0}, &err);
    const cJSON *args = tg_json_get(cJSON_GetArrayItem(m.examples, 0), "input");
    char *args_json = tg_json_print_compact(args);
    char *tool_dir = xasprintf("%s/%s", repo.path, m.dir);
    tg_tool_call call = {.m = &m, .input = in, .output = out, .args = args};
    tg_warmpool *pool = tg_warmpool_new(&env.ctx);
    tg_warmpool_prepare(pool, &m);
    double *cold = xcalloc((size_t)n, sizeof *cold), *warm = xcalloc((size_t)n, sizeof *warm),
           *plain = xcalloc((size_t)n, sizeof *plain), *cold_cpu = xcalloc((size_t)n, sizeof *cold_cpu),
           *warm_cpu = xcalloc((size_t)n, sizeof *warm_cpu);
    double c_cpu = 0, w_cpu = 0;
    bool pool_only = getenv("POOL_ONLY") != NULL;
    for (int i = -1; i < n; i++) { /* round -1 warms the page cache, untimed */
        tg_call_result r;
        double t0 = tg_now_ms();
        if (pool_only) {
            r = (tg_call_result){.ok = true};
        } else if (tg_tool_call_run(&env.ctx, &call, &r, &err) != TG_CALL_DONE || !r.ok) {
            fprintf(stderr, "pool_bench: cold call failed: %s %s\n", err.msg, r.guidance.message);
            return 1;
        }
        double t1 = tg_now_ms();
        c_cpu = r.sb.user_ms + r.sb.sys_ms;
        tg_call_result_free(&r);
        tg_warmpool_wait(pool, &m);
        double t2 = tg_now_ms();
        if (tg_warmpool_call_run(pool, &call, &r, &err) != TG_CALL_DONE || !r.ok) {
            fprintf(stderr, "pool_bench: pooled call failed: %s %s\n", err.msg, r.guidance.message);
            return 1;
        }
        double t3 = tg_now_ms();
        w_cpu = r.sb.user_ms + r.sb.sys_ms;
        tg_call_result_free(&r);
        double p = pool_only ? 0 : plain_python(repo.path, tool_dir, m.entrypoint, args_json);
        if (i >= 0) {
            cold[i] = t1 - t0;
            warm[i] = t3 - t2;
            plain[i] = p;
            cold_cpu[i] = c_cpu;
            warm_cpu[i] = w_cpu;
        }
    }
    printf("| variant | p50 ms | p95 ms | min ms | tool CPU p50 ms |\n"
           "| --- | ---: | ---: | ---: | ---: |\n");
    if (!pool_only)
        report("cold call (tg_tool_call_run, bubblewrap)", cold, cold_cpu, n);
    report("through the pool (tg_warmpool_call_run, ready worker)", warm, warm_cpu, n);
    if (!pool_only)
        report("plain python3 subprocess, no sandbox", plain, NULL, n);
    printf("\n%zu of %d pooled calls ran warm\n", tg_warmpool_warm_calls(pool), n + 1);
    if (getenv("BACK_TO_BACK"))
        back_to_back(pool, &call, repo.path, tool_dir, m.entrypoint, args_json, n);
    tg_warmpool_free(pool);
    free(cold);
    free(warm);
    free(plain);
    free(cold_cpu);
    free(warm_cpu);
    free(args_json);
    free(tool_dir);
    free(mpath);
    js_schema_free(in);
    js_schema_free(out);
    js_registry_free(reg);
    tg_manifest_free(&m);
    tg_toolrun_env_close(&env);
    tg_repo_release(&repo);
    return 0;
}
