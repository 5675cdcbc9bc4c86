/*
 * diagnose.c — a validation report as a verdict and the repair request's diagnostics
 * (app_int.h; docs/generate.md#the-repair-loop): the seed's SCHEMA AND STATIC ERRORS, RUNTIME
 * ERRORS (with the error code's advice), FAILED TESTS and CODE QUALITY METRICS. The text is part
 * of the repair prompt, so its bytes are part of the LLM cache's keys: a change here changes
 * which cached answers a repair finds.
 */
#include "app/app_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"

static double num_at(const cJSON *root, const char *ptr, double fallback)
{
    const cJSON *n = tg_json_pointer_get(root, ptr);
    return cJSON_IsNumber(n) ? n->valuedouble : fallback;
}

static void failed_tests(const cJSON *tests, tg_buf *runtime, tg_buf *failed)
{
    const cJSON *t;
    int i = 0;
    cJSON_ArrayForEach(t, tests) {
        if (cJSON_IsTrue(tg_json_get(t, "passed")))
            continue;
        const char *id = tg_json_get_string(t, "test_id");
        const char *why = tg_json_get_string(t, "failure");
        const char *code = tg_json_get_string(t, "error_code");
        tg_buf_printf(failed, "%d. %s (%s): %s\n", ++i, id ? id : "?",
                      tg_json_get_string(t, "category") ? tg_json_get_string(t, "category") : "",
                      why ? why : "failed");
        const tg_errcode_info *info = code ? tg_errcode_lookup(code) : NULL;
        if (info && why && strstr(why, "got ") && strstr(why, code))
            tg_buf_printf(runtime, "- %s: %s — %s Guidance: %s\n", id ? id : "?", code,
                          info->meaning, info->advice);
    }
}

static void metrics_text(const tg_verdict *v, const cJSON *r, tg_buf *b)
{
    tg_buf_printf(b, "- Functional Correctness: %.0f%%\n", v->correctness * 100);
    tg_buf_printf(b, "- Test Pass Rate: %.0f%% (%d/%d tests passed)\n", v->pass_rate * 100,
                  v->tests_passed, v->tests_total);
    double bleu = num_at(r, "/code_metrics/semantic_closeness/code_bleu_score", -1);
    if (bleu >= 0)
        tg_buf_printf(b, "- Code BLEU: %.2f\n", bleu);
    tg_buf_printf(b, "- Overall quality: %.2f\n", v->overall);
    if (v->failed_gate)
        tg_buf_printf(b, "- Failed gate: %s\n", v->failed_gate);
}

static void compose(tg_verdict *v, const cJSON *r, const char *failures)
{
    tg_buf schema = TG_BUF_INIT, runtime = TG_BUF_INIT, failed = TG_BUF_INIT, m = TG_BUF_INIT;
    for (const char *p = failures; p && *p;) { /* test failures have their own section */
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char *line = xstrndup(p, n);
        if (n && !strstr(line, ": test ") && !strstr(line, ": example ") &&
            !strstr(line, " tests failed;") && !strstr(line, " test failed;"))
            tg_buf_printf(&schema, "%s\n", line);
        free(line);
        p += n + (eol ? 1 : 0);
    }
    const cJSON *errs = r ? tg_json_get(r, "errors") : NULL;
    const cJSON *x;
    cJSON_ArrayForEach(x, errs) {
        if (cJSON_IsString(x) && !strstr(x->valuestring, ": test ") &&
            !strstr(x->valuestring, ": example "))
            tg_buf_printf(&schema, "- %s\n", x->valuestring);
    }
    if (r)
        failed_tests(tg_json_get(r, "tests"), &runtime, &failed);
    metrics_text(v, r, &m);
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, "SCHEMA AND STATIC ERRORS:\n%s\n", schema.len ? schema.data : "- none\n");
    tg_buf_printf(&b, "RUNTIME ERRORS:\n%s\n", runtime.len ? runtime.data : "- none\n");
    tg_buf_printf(&b, "FAILED TESTS:\n%s\n", failed.len ? failed.data : "- none\n");
    tg_buf_printf(&b, "CODE QUALITY METRICS:\n%s", m.data);
    v->diagnostics = tg_buf_steal(&b);
    tg_buf_free(&schema);
    tg_buf_free(&runtime);
    tg_buf_free(&failed);
    tg_buf_free(&m);
}

void tg_app_diagnose(bool build_ok, const char *failures, const char *report, size_t len,
                     tg_verdict *out)
{
    memset(out, 0, sizeof *out);
    tg_err err = {0};
    cJSON *r = report ? tg_json_parse(report, len, NULL, NULL, NULL, &err) : NULL;
    if (r) {
        out->tests_ran = true;
        out->tests_passed = (int)num_at(r, "/pass_rates/overall/passed", 0);
        out->tests_total = (int)num_at(r, "/pass_rates/overall/total", 0);
        out->pass_rate = num_at(r, "/pass_rates/overall/rate", 0);
        out->correctness =
            num_at(r, "/code_metrics/functional_correctness/correctness_score", 0);
        out->overall = num_at(r, "/code_metrics/overall_score", 0);
        const char *g = tg_json_get_string(r, "failed_gate");
        out->failed_gate = g ? xstrdup(g) : NULL;
    }
    out->build_ok = build_ok;
    out->passed = build_ok && r && !out->failed_gate;
    compose(out, r, failures);
    cJSON_Delete(r);
}
