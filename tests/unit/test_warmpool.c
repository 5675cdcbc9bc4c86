/* test_warmpool.c — the warm pool (run/warmpool.h): a worker imported the dependency set before the
 * call, each worker serves one call and is replaced, so a call that mutates module globals or
 * writes files leaves nothing for the next; a pooled call answers as a cold call does (path
 * arguments included). Real bubblewrap, real Python. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "run/warmpool.h"
#include "run/toolrun.h"
#include "testlib.h"
#include "probe_fixture.h"

static char repo[64];

static const char manifest[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Probe\n"
    "description: Misbehave in the way the test chooses, then report what the call sees.\n"
    "timeout_ms: 2000\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  properties:\n"
    "    mode: {type: string, default: check}\n"
    "    file_path: {type: string, x-toolgen-path: read}\n"
    "output_schema:\n"
    "  type: object\n"
    "constraints:\n"
    "  limits: {memory_mb: 512, output_kb: 64}\n"
    "implementation:\n"
    "  runtime: python\n"
    "  file: tool.py\n"
    "  entrypoint: run\n"
    "  dependencies: [fractions]\n";

static const char tool_py[] =
    "import os, sys\n"
    "PRELOADED = 'fractions' in sys.modules\n"
    "STATE = {'calls': 0}\n"
    "def listing(d):\n"
    "    return sorted(x for x in os.listdir(d) if x not in ('matplotlib', 'data'))\n"
    "def run(mode='check', file_path=None):\n"
    "    STATE['calls'] += 1\n"
    "    lines = 0\n"
    "    if file_path:\n"
    "        with open(file_path) as f:\n"
    "            lines = sum(1 for _ in f)\n"
    "    if mode == 'mutate':\n"
    "        import fractions\n"
    "        fractions.POISON = True\n"
    "        os.environ['POISON'] = '1'\n"
    "        for p in ('left.txt', '/tmp/left.txt', '/dev/shm/left'):\n"
    "            with open(p, 'w') as f:\n"
    "                f.write('x')\n"
    "    elif mode == 'memory':\n"
    "        hog = bytearray(1 << 31)\n"
    "    elif mode == 'write_input':\n"
    "        open(file_path, 'a').write('x')\n"
    "    import fractions\n"
    "    return {'calls': STATE['calls'], 'lines': lines,\n"
    "            'poison': hasattr(fractions, 'POISON') or 'POISON' in os.environ,\n"
    "            'cwd': listing('.'), 'tmp': listing('/tmp'), 'shm': listing('/dev/shm'),\n"
    "            'preloaded': PRELOADED}\n";

static cJSON *parse(const char *json)
{
    tg_err err = {0};
    return tg_json_parse(json, strlen(json), NULL, NULL, NULL, &err);
}

/* One call through the pool, with a ready worker (its start is not what is tested here). */
static void pooled(fixture *fx, tg_pool *pool, const char *json, tg_call_result *r)
{
    tg_pool_wait(pool, &fx->m);
    cJSON *args = parse(json);
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_err err = {0};
    CHECK(tg_pool_call_run(pool, &c, r, &err) == TG_CALL_DONE, "%s: %s", json, err.msg);
    cJSON_Delete(args);
}

static void cold(fixture *fx, const char *json, tg_call_result *r)
{
    cJSON *args = parse(json);
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_err err = {0};
    CHECK(tg_tool_call_run(&fx->env.ctx, &c, r, &err) == TG_CALL_DONE, "%s: %s", json, err.msg);
    cJSON_Delete(args);
}

static bool flag(const tg_call_result *r, const char *key)
{
    return cJSON_IsTrue(tg_json_get(r->result, key));
}

static void test_one_call_per_worker(fixture *fx)
{
    tg_pool *pool = tg_pool_new(&fx->env.ctx);
    tg_pool_prepare(pool, &fx->m);
    tg_call_result a, b, c;
    pooled(fx, pool, "{\"mode\":\"mutate\"}", &a);
    CHECK(a.ok && flag(&a, "poison") && flag(&a, "preloaded"),
          "the worker had imported the dependency set: %s", a.guidance.message);
    CHECK(a.sb.n_files == 1 && strcmp(a.sb.files[0].path, "left.txt") == 0, "its file is listed");
    pooled(fx, pool, "{\"mode\":\"check\",\"file_path\":\"data/x.csv\"}", &b);
    CHECK(b.ok && flag(&b, "preloaded"), "second call warm: %s", b.guidance.message);
    CHECK(tg_json_get_number(b.result, "calls", -1) == 1 && !flag(&b, "poison"),
          "no module state from the call before");
    static const char *const dirs[] = {"cwd", "tmp", "shm"};
    for (size_t d = 0; d < 3; d++)
        CHECK(cJSON_GetArraySize(tg_json_get(b.result, dirs[d])) == 0, "%s is empty", dirs[d]);
    CHECK(tg_json_get_number(b.result, "lines", -1) == 3, "the path argument is where a cold "
          "call finds it");
    CHECK(b.sb.n_files == 0, "the linked input is not one of the call's files");
    cold(fx, "{\"mode\":\"check\",\"file_path\":\"data/x.csv\"}", &c);
    CHECK(c.ok && !flag(&c, "preloaded") && tg_json_get_number(c.result, "lines", -1) == 3,
          "cold: not preloaded");
    CHECK(tg_pool_warm_calls(pool) == 2, "two warm calls: %zu", tg_pool_warm_calls(pool));
    tg_call_result_free(&a);
    tg_call_result_free(&b);
    tg_call_result_free(&c);

    /* failures are classified as cold ones are; an input stays read-only */
    static const char *const bad[] = {"{\"mode\":\"memory\"}",
                                      "{\"mode\":\"write_input\",\"file_path\":\"data/x.csv\"}",
                                      "{\"file_path\":\"data/none.csv\"}"};
    for (size_t i = 0; i < 3; i++) {
        pooled(fx, pool, bad[i], &a);
        cold(fx, bad[i], &c);
        CHECK(!a.ok && a.guidance.cls == c.guidance.cls && strcmp(a.guidance.code, c.guidance.code) == 0,
              "%s: class %s, cold %s", bad[i], tg_error_class_name(a.guidance.cls),
              tg_error_class_name(c.guidance.cls));
        tg_call_result_free(&a);
        tg_call_result_free(&c);
    }
    char *x = xasprintf("%s/data/x.csv", repo);
    struct stat st;
    CHECK(stat(x, &st) == 0 && st.st_size == 6, "the input file is unchanged");
    free(x);
    CHECK(tg_pool_warm_calls(pool) == 4, "warm calls: %zu", tg_pool_warm_calls(pool));
    tg_pool_free(pool);
}

int main(void)
{
    snprintf(repo, sizeof repo, "/tmp/tg-warmpool-%ld", (long)getpid());
    fixture fx = {0};
    if (fixture_open(&fx, repo, manifest, tool_py) == 0)
        test_one_call_per_worker(&fx);
    fixture_close(&fx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", repo);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", repo);
    return tl_finish("warmpool");
}
