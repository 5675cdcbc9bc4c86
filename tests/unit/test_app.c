/*
 * test_app.c — the composition layer's validation (app/validate.h) on a real repository: the
 * fixture of the generation tests (tests/newgen/make_repo.sh) with its example tool, which
 * passes, and a copy whose code miscounts, which fails its tests. The verdict comes from the
 * build itself: a second validation of an unchanged tool runs the tests again, and a report an
 * earlier build left on disk never judges a tool whose tests did not run. Real bubblewrap, real
 * Python; run from the repository root (as tests/run.sh does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/validate.h"
#include "base/util.h"
#include "model/paths.h"
#include "model/repo.h"
#include "testlib.h"

#define GOOD "group_and_count_by_columns"
#define BAD "miscount"

static char dir[64];

static int sh(const char *fmt, const char *arg)
{
    char *cmd = xasprintf(fmt, arg, arg, arg, arg);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

static void check_passing(const tg_repo *repo)
{
    for (int round = 0; round < 2; round++) { /* the second: every stage up to date */
        tg_verdict v;
        tg_err err = {0};
        CHECK(tg_validate_tool(repo, GOOD, &v, &err) == 0, "validate: %s", err.msg);
        CHECK(v.build_ok && v.passed && v.tests_ran, "round %d: build_ok %d passed %d ran %d",
              round, v.build_ok, v.passed, v.tests_ran);
        CHECK(v.tests_total > 0 && v.tests_passed == v.tests_total, "round %d: %d/%d", round,
              v.tests_passed, v.tests_total);
        CHECK(v.pass_rate == 1.0 && v.correctness > 0.9 && v.overall > 0.9,
              "rates %.2f %.2f %.2f", v.pass_rate, v.correctness, v.overall);
        CHECK(!v.failed_gate, "failed gate %s", v.failed_gate);
        CHECK_CONTAINS(v.diagnostics, "SCHEMA AND STATIC ERRORS:\n- none\n\nRUNTIME ERRORS:\n"
                                      "- none\n\nFAILED TESTS:\n- none\n\nCODE QUALITY METRICS:\n"
                                      "- Functional Correctness: 100%\n");
        tg_verdict_release(&v);
    }
    bool ok = false;
    char *failures = NULL;
    tg_err err = {0};
    CHECK(tg_build_tool(repo, GOOD, &ok, &failures, &err) == 0 && ok && !failures,
          "build: ok %d: %s", ok, failures ? failures : err.msg);
    free(failures);
}

static void check_failing(const tg_repo *repo)
{
    tg_verdict v;
    tg_err err = {0};
    CHECK(tg_validate_tool(repo, BAD, &v, &err) == 0, "validate: %s", err.msg);
    CHECK(!v.build_ok && !v.passed && v.tests_ran, "build_ok %d passed %d ran %d", v.build_ok,
          v.passed, v.tests_ran);
    CHECK(v.tests_total > 0 && v.tests_passed < v.tests_total, "%d/%d", v.tests_passed,
          v.tests_total);
    CHECK(v.failed_gate != NULL, "no failed gate");
    CHECK_CONTAINS(v.diagnostics, "FAILED TESTS:\n1. ");
    CHECK_CONTAINS(v.diagnostics, "total_rows");
    CHECK_CONTAINS(v.diagnostics, "- Failed gate: ");
    /* the test failures have their own section, not the schema one */
    CHECK_CONTAINS(v.diagnostics, "SCHEMA AND STATIC ERRORS:\n- none\n");
    tg_verdict_release(&v);

    bool ok = true;
    char *failures = NULL;
    CHECK(tg_build_tool(repo, BAD, &ok, &failures, &err) == 0 && !ok, "build: ok %d", ok);
    CHECK_CONTAINS(failures, "tests failed");
    free(failures);
}

/* A manifest that does not load: the test stage is skipped, and the report the last build
 * wrote, still on disk, must not judge the tool. */
static void check_not_tested(const tg_repo *repo)
{
    char *report = tg_validation_report_path(BAD);
    char *path = xasprintf("%s/%s", dir, report);
    free(report);
    CHECK(sh("test -f %s", path) == 0, "no report of the earlier build at %s", path);
    free(path);
    CHECK(sh("sed -i 's/^title: .*/title: 7/' %s/manifests/" BAD "/tool.manifest.yaml", dir) ==
              0,
          "break the manifest");
    tg_verdict v;
    tg_err err = {0};
    CHECK(tg_validate_tool(repo, BAD, &v, &err) == 0, "validate: %s", err.msg);
    CHECK(!v.build_ok && !v.passed && !v.tests_ran, "build_ok %d passed %d ran %d", v.build_ok,
          v.passed, v.tests_ran);
    CHECK(v.tests_total == 0 && !v.failed_gate, "numbers of a stale report: %d, %s",
          v.tests_total, v.failed_gate ? v.failed_gate : "");
    CHECK_CONTAINS(v.diagnostics, "tool.manifest.yaml");
    CHECK_CONTAINS(v.diagnostics, "FAILED TESTS:\n- none\n");
    tg_verdict_release(&v);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tg-app-%ld", (long)getpid());
    /* the sandbox runs tool code as an unprivileged user when the test runs as root */
    int rc = sh("sh tests/newgen/make_repo.sh %s && cp -r %s/manifests/" GOOD
                " %s/manifests/" BAD " && chmod -R o+rX %s",
                dir);
    rc = rc ? rc
            : sh("sed -i 's/^name: .*/name: " BAD "/; s/^status: .*/status: draft/' "
                 "%s/manifests/" BAD "/tool.manifest.yaml && sed -i 's/\"total_rows\": "
                 "int(len(df)),/\"total_rows\": int(len(df)) + 1,/' %s/manifests/" BAD "/tool.py",
                 dir);
    SETUP(rc == 0, "set-up of %s", dir);
    tg_repo repo;
    tg_err err = {0};
    if (rc == 0 && tg_repo_open(&repo, dir, &err) == 0) {
        check_passing(&repo);
        check_failing(&repo);
        check_not_tested(&repo);
        tg_repo_release(&repo);
    } else {
        CHECK(false, "open %s: %s", dir, err.msg);
    }
    if (sh("rm -rf %s", dir) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return tl_finish("unit-app");
}
