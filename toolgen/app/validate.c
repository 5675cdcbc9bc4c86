/* validate.c — a build of one tool and its verdict (validate.h). */
#include "app/validate.h"

#include <stdlib.h>
#include <string.h>

#include "app/app_int.h"
#include "app/toolsource.h"
#include "base/buf.h"
#include "engine/build.h"
#include "model/paths.h"

/* What a build of one tool told its caller. */
typedef struct heard {
    char *report_path; /* the test stage's report (model/paths.h); NULL: not listened for */
    tg_buf failures;   /* FAILED and PROBLEM texts, one problem per line */
    tg_buf report;     /* the report's bytes, when the test stage produced it */
    bool have_report;
} heard;

static void heard_event(void *ud, const tg_build_event *ev)
{
    heard *h = ud;
    if ((ev->kind == TG_EV_FAILED || ev->kind == TG_EV_PROBLEM) && ev->text) {
        size_t n = strlen(ev->text);
        tg_buf_printf(&h->failures, "%s%s", ev->text, n && ev->text[n - 1] == '\n' ? "" : "\n");
    } else if (ev->kind == TG_EV_OUTPUT && ev->data && h->report_path &&
               strcmp(ev->text, h->report_path) == 0) {
        tg_buf_reset(&h->report);
        tg_buf_append(&h->report, ev->data, ev->len);
        h->have_report = true;
    }
}

/* The build of tool; validating: every stage runs and outputs are reported. As tg_build_tool. */
static int build_one(const tg_repo *repo, const char *tool, bool validating, heard *h, bool *ok,
                     tg_err *err)
{
    const char *tools[] = {tool};
    tg_build_opts b = {
        .repo = repo,
        .tools = tools,
        .ntools = 1,
        .frozen = true, /* the stages of a candidate never call a model themselves */
        .force = validating,
        .report_outputs = validating,
        .on_event = heard_event,
        .ud = h,
    };
    tg_build_opts_toolgen(&b);
    tg_build_stats st = {0};
    tg_build_status s = tg_build(&b, &st, err);
    tg_build_stats_free(&st);
    *ok = s == TG_BUILD_OK;
    return s == TG_BUILD_OK || s == TG_BUILD_FAILED ? 0 : -1;
}

int tg_build_tool(const tg_repo *repo, const char *tool, bool *ok, char **failures, tg_err *err)
{
    heard h = {.failures = TG_BUF_INIT, .report = TG_BUF_INIT};
    int rc = build_one(repo, tool, false, &h, ok, err);
    *failures = h.failures.len ? tg_buf_steal(&h.failures) : NULL;
    tg_buf_free(&h.failures);
    return rc;
}

int tg_validate_tool(const tg_repo *repo, const char *tool, tg_verdict *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    heard h = {.report_path = tg_validation_report_path(tool),
               .failures = TG_BUF_INIT,
               .report = TG_BUF_INIT};
    bool ok = false;
    int rc = build_one(repo, tool, true, &h, &ok, err);
    if (rc == 0)
        tg_app_diagnose(ok, h.failures.len ? h.failures.data : NULL,
                        h.have_report ? h.report.data : NULL, h.report.len, out);
    free(h.report_path);
    tg_buf_free(&h.failures);
    tg_buf_free(&h.report);
    return rc;
}

int tg_validate_tool_fn(void *ud, const tg_repo *repo, const char *tool, tg_verdict *out,
                        tg_err *err)
{
    (void)ud;
    return tg_validate_tool(repo, tool, out, err);
}
