/* gen_eval.c — validation reports as repair diagnostics (gen_eval.h; docs/generate.md). */
#include "gen/gen_eval.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"
#include "model/paths.h"

#define REPORT_MAX_BYTES (16u << 20)

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

static void metrics_text(const tg_gen_eval *e, const cJSON *r, tg_buf *b)
{
    tg_buf_printf(b, "- Functional Correctness: %.0f%%\n", e->correctness * 100);
    tg_buf_printf(b, "- Test Pass Rate: %.0f%% (%d/%d tests passed)\n", e->pass_rate * 100,
                  e->tests_passed, e->tests_total);
    double bleu = num_at(r, "/code_metrics/semantic_closeness/code_bleu_score", -1);
    if (bleu >= 0)
        tg_buf_printf(b, "- Code BLEU: %.2f\n", bleu);
    tg_buf_printf(b, "- Overall quality: %.2f\n", e->overall);
    if (e->failed_gate)
        tg_buf_printf(b, "- Failed gate: %s\n", e->failed_gate);
}

static void compose(tg_gen_eval *e, const cJSON *r, const char *failures)
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
    metrics_text(e, r, &m);
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, "SCHEMA AND STATIC ERRORS:\n%s\n", schema.len ? schema.data : "- none\n");
    tg_buf_printf(&b, "RUNTIME ERRORS:\n%s\n", runtime.len ? runtime.data : "- none\n");
    tg_buf_printf(&b, "FAILED TESTS:\n%s\n", failed.len ? failed.data : "- none\n");
    tg_buf_printf(&b, "CODE QUALITY METRICS:\n%s", m.data);
    e->diagnostics = tg_buf_steal(&b);
    tg_buf_free(&schema);
    tg_buf_free(&runtime);
    tg_buf_free(&failed);
    tg_buf_free(&m);
}

void tg_gen_eval_read(const tg_repo *repo, const char *tool, bool build_ok, const char *failures,
                      tg_gen_eval *out)
{
    memset(out, 0, sizeof *out);
    char *path = tg_validation_report_path(tool);
    tg_err err = {0};
    size_t len = 0;
    char *bytes = tg_read_file_at(repo->root_fd, path, REPORT_MAX_BYTES, &len, &err);
    free(path);
    cJSON *r = bytes ? tg_json_parse(bytes, len, NULL, NULL, NULL, &err) : NULL;
    free(bytes);
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
    out->passed = build_ok && r && !out->failed_gate;
    compose(out, r, failures);
    cJSON_Delete(r);
}

void tg_gen_eval_release(tg_gen_eval *e)
{
    free(e->failed_gate);
    free(e->diagnostics);
    memset(e, 0, sizeof *e);
}

bool tg_gen_eval_better(const tg_gen_eval *a, const tg_gen_eval *b)
{
    if (a->passed != b->passed)
        return a->passed;
    if (a->tests_passed != b->tests_passed)
        return a->tests_passed > b->tests_passed;
    return a->overall > b->overall;
}
