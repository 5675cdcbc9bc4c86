/*
 * probe_fixture.h — the run-layer unit tests' fixture (test_toolrun, test_toolbatch,
 * test_warmpool, test_runtime): a repository at repo (a fresh path under /tmp; the caller removes it) with
 * data/x.csv (three lines) and the tool tools/probe (its manifest and tool.py as given), the
 * manifest loaded and bound, both schemas compiled and a sandbox environment open. Include
 * after testlib.h. All of it is setup: a failure ends the test (SETUP). fixture_close frees it.
 */
#ifndef TG_TEST_PROBE_FIXTURE_H
#define TG_TEST_PROBE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "model/manifest.h"
#include "model/repo.h"
#include "run/guidance.h"
#include "run/toolrun.h"
#include "schema/jsonschema.h"

typedef struct fixture {
    tg_repo repo;
    tg_toolrun_env env;
    tg_manifest m;
    js_registry *reg;
    js_schema *in, *out;
} fixture;

static int fixture_open(fixture *fx, const char *repo, const char *manifest, const char *tool_py)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/data %s/tools/probe && printf 'a\\nb\\nc\\n' > %s/data/x.csv"
                              " && chmod -R o+rX %s",
             repo, repo, repo, repo);
    SETUP(system(cmd) == 0, "setup");
    tg_err err = {0};
    SETUP(tg_repo_open_dir(&fx->repo, repo, &err) == 0, "repo: %s", err.msg);
    char *mpath = xasprintf("%s/tools/probe/tool.manifest.yaml", repo);
    char *tpath = xasprintf("%s/tools/probe/tool.py", repo);
    int rc = tg_write_file_atomic(mpath, manifest, strlen(manifest), &err) == 0 &&
                     tg_write_file_atomic(tpath, tool_py, strlen(tool_py), &err) == 0 &&
                     chmod(tpath, 0644) == 0 && chmod(mpath, 0644) == 0 &&
                     tg_manifest_load(&fx->repo, mpath, &fx->m, &err) == 0
                 ? 0
                 : -1;
    SETUP(rc == 0, "manifest: %s", err.msg);
    free(mpath);
    free(tpath);
    tg_manifest_bind(&fx->m);
    fx->reg = js_registry_new();
    fx->in = js_compile(fx->reg, fx->m.input_schema, &(js_options){0}, &err);
    fx->out = js_compile(fx->reg, fx->m.output_schema, &(js_options){0}, &err);
    SETUP(fx->in && fx->out, "schemas compile: %s", err.msg);
    SETUP(tg_toolrun_env_open(&fx->env, &fx->repo, NULL, &err) == 0, "env: %s", err.msg);
    return 0;
}

static void fixture_close(fixture *fx)
{
    tg_toolrun_env_close(&fx->env);
    js_schema_free(fx->in);
    js_schema_free(fx->out);
    js_registry_free(fx->reg);
    tg_manifest_free(&fx->m);
    tg_repo_release(&fx->repo);
}

/* Removes a fixture's repository folder (after fixture_close). */
static inline void fixture_remove(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* A command tool running the shell script its call gives, with a path argument (data/x.csv by
 * default), an environment variable from an argument, and exit code 3 mapped (test_warmpool,
 * test_toolbatch: commands in warm workers and batches). */
static inline const char *probe_cmd_manifest(void)
{
    return "manifest_version: 1\n"
           "name: probe\n"
           "version: 1.0.0\n"
           "title: Probe\n"
           "description: Run the shell script the test gives, with a file and a variable.\n"
           "timeout_ms: 2000\n"
           "input_schema:\n"
           "  type: object\n"
           "  additionalProperties: false\n"
           "  properties:\n"
           "    script: {type: string}\n"
           "    note: {type: string}\n"
           "    file_path: {type: string, x-toolgen-path: read, default: data/x.csv}\n"
           "output_schema:\n"
           "  type: object\n"
           "constraints:\n"
           "  limits: {memory_mb: 256, output_kb: 64}\n"
           "implementation:\n"
           "  runtime: command\n"
           "  argv: [sh, -c, '{script}', probe, '{file_path}']\n"
           "  env: {NOTE: '{note}'}\n"
           "  stdout: text\n"
           "  exit_codes: {'3': NOT_FOUND}\n";
}

/* A call w that ran warm (a pool worker, a batch) answered what its cold run c answered: class,
 * code, exit status, limit, stdout, stderr and the number of files; what names the call. */
static inline void expect_same_as_cold(const char *what, const tg_call_result *w,
                                       const tg_call_result *c)
{
    const char *wc = w->guidance.code ? w->guidance.code : "", *cc = c->guidance.code ? c->guidance.code : "";
    CHECK(w->ok == c->ok && w->guidance.cls == c->guidance.cls && strcmp(wc, cc) == 0,
          "%s: %s %s, cold %s %s", what, tg_error_class_name(w->guidance.cls), wc,
          tg_error_class_name(c->guidance.cls), cc);
    CHECK(w->sb.exit_code == c->sb.exit_code && w->sb.killed_by == c->sb.killed_by,
          "%s: exit %d / %d, limit %d / %d", what, w->sb.exit_code, c->sb.exit_code,
          (int)w->sb.killed_by, (int)c->sb.killed_by);
    CHECK(w->sb.out.len == c->sb.out.len &&
              memcmp(w->sb.out.data, c->sb.out.data, w->sb.out.len) == 0,
          "%s: stdout \"%.80s\", cold \"%.80s\"", what, w->sb.out.data, c->sb.out.data);
    CHECK(strcmp(w->sb.err.data, c->sb.err.data) == 0, "%s: stderr \"%.120s\", cold \"%.120s\"",
          what, w->sb.err.data, c->sb.err.data);
    CHECK(w->sb.n_files == c->sb.n_files, "%s: %zu files, cold %zu", what, w->sb.n_files,
          c->sb.n_files);
}

#endif
