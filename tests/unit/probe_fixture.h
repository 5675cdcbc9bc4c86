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

#endif
