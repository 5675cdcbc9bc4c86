/*
 * validate_inproc.c — in-process validation time per instance (bench/validate.sh).
 *
 *   validate_inproc SCHEMA.json INSTANCES.jsonl [LOOPS [each]]
 *
 * Compiles SCHEMA once (as `toolgen validate` does: meta-schemas registered, the schema's
 * folder as its base URI), parses every line of INSTANCES once, then validates the whole set
 * LOOPS times (default 20) in fast mode (no error list). Parsing and compiling are outside the
 * timed loop. Prints: instances, valid count, then the median and best of the loops in ns per
 * instance. With "each", Blaze's method instead (`jsonschema validate --benchmark --loop`):
 * every instance is validated LOOPS times in a row, so it is in the cache, each validation
 * timed on its own, and the mean over instances of each one's mean is printed twice.
 *
 * The clock is the one Blaze's --benchmark reads, wall time (CLOCK_MONOTONIC, read through the
 * vDSO like its std::chrono clock), so both sides are timed the same way, clock reads
 * included; TG_BENCH_CLOCK=cpu takes this thread's CPU time instead (a system call per read,
 * so only for "pass").
 * Built and run by bench/validate.sh against build/release/libtoolgen.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "base/json.h"
#include "base/util.h"
#include "schema/jsonschema.h"

static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static js_schema *compile_file(const char *path, js_registry *reg, tg_arena *arena)
{
    tg_err err = {0};
    size_t len;
    char *text = tg_read_file(path, 1u << 28, &len, &err);
    cJSON *doc = text ? tg_json_parse(text, len, arena, NULL, NULL, &err) : NULL;
    free(text);
    char *real = doc ? realpath(path, NULL) : NULL;
    js_schema *s = NULL;
    if (real) {
        char *dir = xstrndup(real, (size_t)(strrchr(real, '/') - real) + 1);
        char *dir_uri = xasprintf("file://%s", dir), *base = xasprintf("file://%s", real);
        js_options o = {.format_assert = false, .base_uri = base};
        if (js_registry_add_dir(reg, dir_uri, dir, &err) == 0)
            s = js_compile(reg, doc, &o, &err);
        free(dir);
        free(dir_uri);
        free(base);
        free(real);
    }
    if (!s)
        fprintf(stderr, "validate_inproc: %s: %s\n", path, err.msg);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: validate_inproc SCHEMA.json INSTANCES.jsonl [LOOPS [each]]\n");
        return 2;
    }
    int loops = argc > 3 ? atoi(argv[3]) : 20;
    const char *clk = getenv("TG_BENCH_CLOCK");
    if (clk && strcmp(clk, "cpu") == 0)
        bench_clock = CLOCK_THREAD_CPUTIME_ID;
    if (loops < 1)
        loops = 1;
    tg_arena arena = {0};
    tg_err err = {0};
    js_registry *reg = js_registry_new();
    if (js_registry_add_metaschemas(reg, &err) != 0) {
        fprintf(stderr, "validate_inproc: %s\n", err.msg);
        return 1;
    }
    js_schema *s = compile_file(argv[1], reg, &arena);
    if (!s)
        return 1;
    size_t len;
    char *text = tg_read_file(argv[2], 1u << 30, &len, &err);
    if (!text) {
        fprintf(stderr, "validate_inproc: %s: %s\n", argv[2], err.msg);
        return 1;
    }
    size_t n = 0, cap = 1024;
    cJSON **inst = xmalloc(cap * sizeof *inst);
    for (char *p = text, *end = text + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l) {
            cJSON *v = tg_json_parse(p, l, &arena, NULL, NULL, &err);
            if (!v) {
                fprintf(stderr, "validate_inproc: %s:%zu: %s\n", argv[2], n + 1, err.msg);
                return 1;
            }
            if (n == cap)
                inst = xrealloc(inst, (cap *= 2) * sizeof *inst);
            inst[n++] = v;
        }
        p += l + 1;
    }
    size_t valid = 0;
    for (size_t i = 0; i < n; i++) /* warm-up, and the verdict count */
        valid += js_validate(s, inst[i], NULL);
    volatile size_t sink = 0; /* the verdicts are used, so no call can be dropped */
    if (argc > 4 && strcmp(argv[4], "each") == 0) {
        /* As Blaze does: a clock read before and after every validation, the mean over
         * the LOOPS runs of one instance, averaged over the instances. */
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            double one = 0;
            for (int k = 0; k < loops; k++) {
                double t0 = now_ns();
                sink += js_validate(s, inst[i], NULL);
                one += now_ns() - t0;
            }
            sum += one / loops;
        }
        printf("%zu %zu %.1f %.1f\n", n, valid, sum / (double)n, sum / (double)n);
    } else {
        double *per = xmalloc((size_t)loops * sizeof *per);
        for (int k = 0; k < loops; k++) {
            double t0 = now_ns();
            for (size_t i = 0; i < n; i++)
                sink += js_validate(s, inst[i], NULL);
            per[k] = (now_ns() - t0) / (double)n;
        }
        qsort(per, (size_t)loops, sizeof *per, cmp_double);
        printf("%zu %zu %.1f %.1f\n", n, valid, per[loops / 2], per[0]);
        free(per);
    }
    free(inst);
    free(text);
    js_schema_free(s);
    js_registry_free(reg);
    tg_arena_free(&arena);
    return 0;
}
