/*
 * verdict.h — what the validation of a candidate said (docs/generate.md#the-repair-loop): the
 * validate callback of the `toolgen new` pipeline (gen/newtool.h, tg_gen_validate_fn) fills
 * one from the build it runs, and the pipeline judges candidates and asks for repairs with it.
 *
 * The gates run in the build, which this layer cannot see: the caller (app/validate.h) builds
 * the tool and takes the numbers and the diagnostics from what the test stage produced in that
 * build, so nothing here reads a report file.
 *
 * Ownership: a filled verdict owns its strings (tg_verdict_release).
 */
#ifndef TG_VERDICT_H
#define TG_VERDICT_H

#include <stdbool.h>

typedef struct tg_verdict {
    bool build_ok;          /* the build of the tool succeeded */
    bool passed;            /* build_ok, the test stage reached its verdict, and no gate failed */
    bool tests_ran;         /* the test stage reached its verdict (it wrote its report) */
    int tests_passed, tests_total;
    double correctness;     /* functional correctness, 0..1 (0 when the tests did not run) */
    double pass_rate;       /* test pass rate */
    double overall;         /* overall quality score */
    char *failed_gate;      /* the first gate that failed; NULL when none */
    /* The repair request's text, the seed's four sections: SCHEMA AND STATIC ERRORS, RUNTIME
     * ERRORS, FAILED TESTS, CODE QUALITY METRICS. Never NULL in a filled verdict. */
    char *diagnostics;
} tg_verdict;

void tg_verdict_release(tg_verdict *v);

#endif
