/*
 * test_code_pool.c — one-shot node_execute programs through the warm pool
 * (docs/sandbox.md#the-warm-pool, docs/code.md#how-a-program-runs), with the code toolset's own
 * manifest (toolsets/code): each program runs cold and then in a pool worker (whose node started
 * ahead with runner_warm.js), and the two results are the same JSON but for the time taken —
 * stdout, stderr, returnCode, files, visualizations, the error guidance with the traceback's
 * line, the timeout, memory and output limits, refused packages and working folders, the
 * environment, a child process's output, a cancellation; the pool's counter proves each ran in a
 * worker. A program that interrupts the worker's runner (Node.js's or Python's) runs once.
 * Back-to-back pooled calls share nothing (files, /tmp, /dev/shm, globals, environment), and a
 * bad input is refused before it reaches a worker. No clocks: each call waits for its worker.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "model/repo.h"
#include "run/toolrun.h"
#include "run/warmpool.h"
#include "schema/jsonschema.h"
#include "testlib.h"
#include "code_fixture.h"

static tg_repo repo;
static tg_toolrun_env env;
static code_tool js, py;
static tg_warmpool *pool;

static const char *str(const cJSON *o, const char *pointer)
{
    const cJSON *v = tg_json_pointer_get(o, pointer);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* args (JSON text) parsed; NULL after a failed CHECK. */
static cJSON *parse(const char *args_json)
{
    tg_err err = {0};
    cJSON *a = tg_json_parse(args_json, strlen(args_json), NULL, NULL, NULL, &err);
    CHECK(a != NULL, "args %s: %s", args_json, err.msg);
    return a;
}

/* One call of node_execute with args, cold (pool NULL) or through the pool once its worker is
 * ready; the pool's warm-call counter must then have grown by one. */
static tg_call_status run_js(const cJSON *args, bool pooled, tg_call_result *r, tg_err *err)
{
    tg_tool_call c = {.m = &js.m, .input = js.in, .output = js.out, .args = (cJSON *)args};
    if (!pooled)
        return tg_tool_call_run(&env.ctx, &c, r, err);
    tg_warmpool_prepare(pool, &js.m);
    tg_warmpool_wait(pool, &js.m);
    size_t before = tg_warmpool_warm_calls(pool);
    tg_call_status st = tg_warmpool_call_run(pool, &c, r, err);
    CHECK(tg_warmpool_warm_calls(pool) == before + 1, "ran in a pool worker: %s",
          tg_json_get_string(args, "code"));
    return st;
}

/* The result without what depends on time: executionTime, and of the resource analysis all
 * but each budget's status (a copy). */
static cJSON *timeless(const cJSON *result)
{
    cJSON *o = cJSON_Duplicate(result, true);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "executionTime");
    cJSON *ra = cJSON_DetachItemFromObjectCaseSensitive(o, "resource_analysis");
    cJSON *statuses = cJSON_AddObjectToObject(o, "resource_statuses");
    const cJSON *b;
    cJSON_ArrayForEach(b, ra)
    {
        const char *s = cJSON_IsString(b) ? b->valuestring : tg_json_get_string(b, "status");
        cJSON_AddStringToObject(statuses, b->string, s ? s : "");
    }
    cJSON_Delete(ra);
    return o;
}

/* Runs args cold and pooled; the results must be equal but for time. The pooled result is
 * left in *warm (free it) when warm is not NULL. */
static void same(const char *what, const char *args_json, tg_call_result *warm)
{
    cJSON *args = parse(args_json);
    if (!args)
        return;
    tg_call_result cold, hot;
    tg_err e1 = {0}, e2 = {0};
    tg_call_status s1 = run_js(args, false, &cold, &e1);
    tg_call_status s2 = run_js(args, true, &hot, &e2);
    CHECK(s1 == TG_CALL_DONE && s2 == TG_CALL_DONE, "%s: status %d / %d: %s %s", what, s1, s2,
          e1.msg, e2.msg);
    cJSON *a = timeless(cold.result), *b = timeless(hot.result);
    bool eq = cJSON_Compare(a, b, true);
    char *ta = eq ? NULL : tg_json_print_compact(a), *tb = eq ? NULL : tg_json_print_compact(b);
    CHECK(eq, "%s: cold and pooled results differ:\n  cold   %.1500s\n  pooled %.1500s", what,
          ta, tb);
    free(ta);
    free(tb);
    CHECK(cold.ok == hot.ok && cold.guidance.cls == hot.guidance.cls &&
              !cold.guidance.code == !hot.guidance.code &&
              (!cold.guidance.code || strcmp(cold.guidance.code, hot.guidance.code) == 0) &&
              !cold.guidance.message == !hot.guidance.message &&
              (!cold.guidance.message ||
               strcmp(cold.guidance.message, hot.guidance.message) == 0) &&
              cold.sb.killed_by == hot.sb.killed_by && cold.sb.exit_code == hot.sb.exit_code,
          "%s: same outcome (class %s / %s, message %s / %s)", what,
          tg_error_class_name(cold.guidance.cls), tg_error_class_name(hot.guidance.cls),
          cold.guidance.message ? cold.guidance.message : "-",
          hot.guidance.message ? hot.guidance.message : "-");
    cJSON_Delete(a);
    cJSON_Delete(b);
    tg_call_result_free(&cold);
    if (warm)
        *warm = hot;
    else
        tg_call_result_free(&hot);
    cJSON_Delete(args);
}

static void test_same_as_cold(void)
{
    tg_call_result r;
    same("streams and exit 0",
         "{\"code\": \"console.log('out'); console.error('err'); process.stdout.write('x');"
         " require('fs').writeSync(1, 'direct\\\\n'); require('fs').writeSync(2, 'e2\\\\n')\"}",
         &r);
    CHECK(r.ok && str(r.result, "/stdout") &&
              strcmp(str(r.result, "/stdout"), "out\nxdirect\n") == 0 &&
              strcmp(str(r.result, "/stderr"), "err\ne2\n") == 0,
          "pooled: stdout and stderr are the call's (%s)", str(r.result, "/stdout"));
    tg_call_result_free(&r);

    same("process.exit(4)", "{\"code\": \"console.log('a');\\nprocess.exit(4);\"}", NULL);
    same("process.exitCode", "{\"code\": \"process.exitCode = 3\"}", NULL);

    same("an uncaught error", "{\"code\": \"console.log(1);\\nmissing();\"}", &r);
    CHECK(!r.ok && str(r.result, "/error_guidance/error_type") &&
              strcmp(str(r.result, "/error_guidance/error_type"), "ReferenceError") == 0 &&
              tg_json_get_number(tg_json_get(r.result, "error_guidance"), "line", 0) == 2,
          "pooled: the error's type and line");
    CHECK_CONTAINS(str(r.result, "/stderr"), "ReferenceError: missing is not defined\n"
                                             "    at Object.<anonymous> ([code]:2:1)");
    CHECK_CONTAINS(r.guidance.message, "ReferenceError: missing is not defined (line 2)");
    tg_call_result_free(&r);

    same("a syntax error", "{\"code\": \"let x = ;\"}", &r);
    CHECK(!strstr(str(r.result, "/stderr"), "runner"), "pooled: no runner frame in %s",
          str(r.result, "/stderr"));
    tg_call_result_free(&r);
    same("a module that is not there", "{\"code\": \"require('nope')\"}", NULL);
    same("a rejection later", "{\"code\": \"setTimeout(() => Promise.reject(new RangeError("
                              "'later')), 1)\"}", NULL);
    same("an ES module", "{\"code\": \"import fs from 'fs';\\nconsole.log(typeof fs.statSync);"
                         "\\nthrow new Error('esm');\"}", NULL);
    same("top-level await", "{\"code\": \"await new Promise((r) => setTimeout(r, 1));"
                            " console.log('awaited')\"}", NULL);
    same("a thrown string", "{\"code\": \"throw 'plain'\"}", NULL);

    same("files and a chart's manifest",
         "{\"code\": \"const fs = require('fs');\\nfs.writeFileSync('t.csv', 'a,b\\\\n1,2\\\\n');"
         "\\nfs.mkdirSync('sub');\\nfs.writeFileSync('sub/n.json', '{}');"
         "\\nfs.writeFileSync('visualization_manifest.json', JSON.stringify({version: '1.0', "
         "outputs: [{id: 't', type: 'table', dataFile: 't.csv'}]}));\"}",
         &r);
    CHECK(cJSON_GetArraySize(tg_json_get(r.result, "files")) == 3 &&
              str(r.result, "/visualizations/outputs/0/dataFile"),
          "pooled: three files and the visualization manifest");
    tg_call_result_free(&r);
    same("a broken chart manifest", "{\"code\": \"require('fs').writeFileSync("
                                    "'visualization_manifest.json', '{not json')\"}", NULL);
    same("workingDir", "{\"code\": \"require('fs').writeFileSync('a.txt', 'x');"
                       " console.log(process.cwd().endsWith('/out/run1'))\","
                       " \"workingDir\": \"out/run1\"}", NULL);
    same("a package not allowed", "{\"code\": \"console.log(1)\", \"packages\": [\"lodash\"]}",
         NULL);
    same("built-in packages", "{\"code\": \"console.log(require('path').sep)\","
                              " \"packages\": [\"fs\", \"path\"]}", NULL);

    /* what a fresh node has: the same environment (but HOME, the call's folder), flags,
     * arguments, main module, no IPC channel; a child process writes to the call's streams */
    same("stdin", "{\"code\": \"const fs = require('fs');\\nconsole.log(JSON.stringify("
                  "fs.readFileSync(0, 'utf8')), fs.fstatSync(0).isCharacterDevice());\"}", NULL);
    same("the process",
         "{\"code\": \"const env = Object.entries(process.env).filter(([k]) => k !== 'HOME');"
         "\\nconsole.log(JSON.stringify(env.sort()));\\nconsole.log(process.execArgv.join(' '),"
         " process.argv.length, require.main === module, typeof process.send,"
         " process.stdout.isTTY, process.listenerCount('uncaughtException'));"
         "\\nrequire('child_process').execFileSync('/bin/echo', ['child'], {stdio: 'inherit'});"
         "\\nrequire('child_process').execFileSync('/bin/sh', ['-c', 'echo sh >&2'],"
         " {stdio: 'inherit'});\"}",
         &r);
    CHECK_CONTAINS(str(r.result, "/stdout"), "\nchild\n");
    CHECK_CONTAINS(str(r.result, "/stderr"), "sh\n");
    tg_call_result_free(&r);
}

static void test_limits_same(void)
{
    tg_call_result r;
    same("the timeout", "{\"code\": \"while (true) {}\", \"timeout\": 1}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_TIMEOUT && r.limits.wall_ms == 1000,
          "pooled: the timeout argument is the call's wall clock (%ld ms)", r.limits.wall_ms);
    tg_call_result_free(&r);
    same("memory", "{\"code\": \"const big = new ArrayBuffer(8 * 1024 ** 3);\"}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_MEMORY_LIMIT, "pooled: the memory limit");
    tg_call_result_free(&r);
    same("output", "{\"code\": \"while (true) console.log('spam '.repeat(20));\"}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_OUTPUT_LIMIT, "pooled: the output cap");
    tg_call_result_free(&r);
}

/* A cancelled call: the pooled one is sent to its (ready) worker and stopped there, and is
 * reported as the cold one is. The flag is set before the call: no clock decides. */
static void test_cancel(void)
{
    cJSON *args = parse("{\"code\": \"console.log('spin'); while (true) {}\"}");
    if (!args)
        return;
    volatile sig_atomic_t cancel = 1;
    tg_tool_call c = {.m = &js.m, .input = js.in, .output = js.out, .args = args,
                      .cancel = &cancel};
    tg_call_result cold, hot;
    tg_err e1 = {0}, e2 = {0};
    tg_call_status s1 = tg_tool_call_run(&env.ctx, &c, &cold, &e1);
    tg_warmpool_prepare(pool, &js.m);
    tg_warmpool_wait(pool, &js.m);
    size_t before = tg_warmpool_warm_calls(pool);
    tg_call_status s2 = tg_warmpool_call_run(pool, &c, &hot, &e2);
    CHECK(tg_warmpool_warm_calls(pool) == before + 1, "cancel: the call went to its worker");
    CHECK(s1 == s2 && !hot.ok && hot.guidance.cls == TG_CLASS_CANCELLED &&
              cold.guidance.cls == TG_CLASS_CANCELLED && hot.sb.killed_by == TG_LIMIT_CANCEL,
          "cancel: cancelled cold (%s) and pooled (%s, killed by %d)",
          tg_error_class_name(cold.guidance.cls), tg_error_class_name(hot.guidance.cls),
          (int)hot.sb.killed_by);
    CHECK(cold.guidance.code && hot.guidance.code &&
              strcmp(cold.guidance.code, hot.guidance.code) == 0,
          "cancel: the same code (%s / %s)", cold.guidance.code ? cold.guidance.code : "-",
          hot.guidance.code ? hot.guidance.code : "-");
    tg_call_result_free(&cold);
    tg_call_result_free(&hot);
    cJSON_Delete(args);
}

/* A program that signals the worker's runner (pid 1) with SIGINT, the one signal the kernel
 * would deliver there (Python handles it): the runner ignores it, so the call is not run a
 * second time, cold (which the worker's end would make toolgen do); for Python's worker too. */
static void test_interrupt_runner(void)
{
    const char *const progs[2][2] = {
        {"node", "{\"code\": \"console.log(process.cwd());\\nprocess.kill(1, 'SIGINT');"
                 "\\nsetTimeout(() => console.log('after'), 100);\"}"},
        {"python", "{\"code\": \"import os, time\\nprint(os.getcwd(), flush=True)\\n"
                   "os.kill(1, 2)\\ntime.sleep(0.1)\\nprint('after')\"}"}};
    for (int i = 0; i < 2; i++) {
        code_tool *t = i ? &py : &js;
        cJSON *args = parse(progs[i][1]);
        tg_tool_call c = {.m = &t->m, .input = t->in, .output = t->out, .args = args};
        tg_warmpool_prepare(pool, &t->m);
        tg_warmpool_wait(pool, &t->m);
        size_t before = tg_warmpool_warm_calls(pool);
        tg_call_result r;
        tg_err err = {0};
        tg_call_status st = tg_warmpool_call_run(pool, &c, &r, &err);
        CHECK(st == TG_CALL_DONE && tg_warmpool_warm_calls(pool) == before + 1 && r.ok &&
                  str(r.result, "/stdout") &&
                  strcmp(str(r.result, "/stdout"), "/work/c0\nafter\n") == 0,
              "%s: SIGINT to the runner: run once, in the worker (stdout %s)", progs[i][0],
              str(r.result, "/stdout") ? str(r.result, "/stdout") : err.msg);
        tg_call_result_free(&r);
        cJSON_Delete(args);
    }
}

/* Two pooled calls back to back: the second sees nothing the first left or changed. */
static void test_isolation(void)
{
    const char *poison =
        "{\"code\": \"const fs = require('fs');\\nfs.writeFileSync('leak.txt', 'x');"
        "\\nfs.writeFileSync('/tmp/leak', 'x');\\nfs.writeFileSync('/dev/shm/leak', 'x');"
        "\\nglobalThis.leak = 1;\\nprocess.env.LEAK = '1';\\nrequire('path').leak = 1;"
        "\\nrequire('child_process').spawn('/bin/sh', ['-c', 'sleep 30'], {detached: true,"
        " stdio: 'ignore'}).unref();\\nconsole.log('poisoned');\"}";
    const char *look =
        "{\"code\": \"const fs = require('fs');\\nconsole.log([fs.existsSync('leak.txt'),"
        " fs.existsSync('/tmp/leak'), fs.existsSync('/dev/shm/leak'), typeof globalThis.leak,"
        " process.env.LEAK, require('path').leak, fs.readdirSync('/proc').filter((p) =>"
        " /^[0-9]+$/.test(p) && fs.existsSync(`/proc/${p}/cmdline`) &&"
        " fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('sleep')).length].join())\"}";
    for (int i = 0; i < 2; i++) {
        cJSON *args = parse(i ? look : poison);
        tg_call_result r;
        tg_err err = {0};
        tg_call_status st = run_js(args, true, &r, &err);
        const char *want = i ? "false,false,false,undefined,,,0\n" : "poisoned\n";
        CHECK(st == TG_CALL_DONE && r.ok && str(r.result, "/stdout") &&
                  strcmp(str(r.result, "/stdout"), want) == 0,
              "isolation, call %d: stdout %s (want %s)", i + 1,
              str(r.result, "/stdout") ? str(r.result, "/stdout") : err.msg, want);
        tg_call_result_free(&r);
        cJSON_Delete(args);
    }
}

/* Bad input is refused as a cold call refuses it, before a worker is used. */
static void test_bad_input(void)
{
    static const char *const bad[] = {
        "{\"code\": 5}", "{}", "{\"code\": \"1\", \"workingDir\": \"../up\"}",
        "{\"code\": \"1\", \"timeout\": -1}", "{\"code\": \"1\", \"packages\": \"fs\"}",
        "{\"code\": \"1\", \"extra\": true}"};
    tg_warmpool_prepare(pool, &js.m);
    tg_warmpool_wait(pool, &js.m);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *args = parse(bad[i]);
        tg_tool_call c = {.m = &js.m, .input = js.in, .output = js.out, .args = args};
        tg_call_result cold, hot;
        tg_err e1 = {0}, e2 = {0};
        size_t before = tg_warmpool_warm_calls(pool);
        tg_call_status s1 = tg_tool_call_run(&env.ctx, &c, &cold, &e1);
        tg_call_status s2 = tg_warmpool_call_run(pool, &c, &hot, &e2);
        CHECK(s1 == s2 && !hot.ok && !hot.ran && hot.guidance.cls == TG_CLASS_INPUT_SCHEMA &&
                  hot.guidance.code && strcmp(hot.guidance.code, "INVALID_INPUT") == 0,
              "%s: refused as input (%s)", bad[i],
              hot.guidance.message ? hot.guidance.message : e2.msg);
        CHECK(cold.guidance.message && hot.guidance.message &&
                  strcmp(cold.guidance.message, hot.guidance.message) == 0,
              "%s: the same message cold and pooled: %s", bad[i],
              hot.guidance.message ? hot.guidance.message : "-");
        CHECK(tg_warmpool_warm_calls(pool) == before, "%s: no worker used", bad[i]);
        tg_call_result_free(&cold);
        tg_call_result_free(&hot);
        cJSON_Delete(args);
    }
}

int main(void)
{
    tg_err err = {0};
    CHECK(tg_repo_open(&repo, "toolsets/code", &err) == 0, "repo: %s", err.msg);
    CHECK(tg_toolrun_env_open(&env, &repo, repo.cfg.doc.root, &err) == 0, "env: %s", err.msg);
    if (code_tool_open(&js, &repo, "node_execute") == 0 &&
        code_tool_open(&py, &repo, "python_execute") == 0) {
        pool = tg_warmpool_new(&env.ctx);
        test_same_as_cold();
        test_limits_same();
        test_cancel();
        test_interrupt_runner();
        test_isolation();
        test_bad_input();
        tg_warmpool_free(pool);
    }
    code_tool_close(&js);
    code_tool_close(&py);
    tg_toolrun_env_close(&env);
    tg_repo_release(&repo);
    return tl_finish("code_pool");
}
