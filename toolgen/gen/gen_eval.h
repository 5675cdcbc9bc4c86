/*
 * gen_eval.h — what validation said about a candidate, and the repair request's diagnostics
 * (docs/generate.md#the-repair-loop).
 *
 * The gates run in the build (the caller validates a candidate by building just that tool);
 * this module reads the validation report the test stage wrote (.toolgen/reports/T.validation.json)
 * and the build's failure messages, and turns them into the seed's diagnostics: SCHEMA ERRORS,
 * RUNTIME ERRORS (with the error code's advice), FAILED TESTS, CODE QUALITY METRICS.
 *
 * Ownership: tg_gen_eval_read fills a caller-owned struct (tg_gen_eval_release).
 */
#ifndef TG_GEN_EVAL_H
#define TG_GEN_EVAL_H

#include <stdbool.h>

#include "model/repo.h"

typedef struct tg_gen_eval {
    bool passed;            /* the build succeeded and every gate passed */
    bool tests_ran;         /* a validation report exists */
    int tests_passed, tests_total;
    double correctness;     /* functional correctness, 0..1 (0 when the tests did not run) */
    double pass_rate;       /* test pass rate */
    double overall;         /* overall quality score */
    char *failed_gate;      /* NULL when none */
    char *diagnostics;      /* the repair request's text; never NULL */
} tg_gen_eval;

/*
 * Reads the report of tool after a build that ended with build_ok and the failure text
 * failures (the build's FAILED messages, one per line; may be NULL).
 */
void tg_gen_eval_read(const tg_repo *repo, const char *tool, bool build_ok, const char *failures,
                      tg_gen_eval *out);
void tg_gen_eval_release(tg_gen_eval *e);

/* 1 when a is a better candidate than b (passes, then more tests passed, then score). */
bool tg_gen_eval_better(const tg_gen_eval *a, const tg_gen_eval *b);

#endif
