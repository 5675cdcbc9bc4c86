/*
 * test_code_session.c — code sessions (run/session.c, run/rt_code_session.c, runner_session.py;
 * docs/code.md#sessions) through the real sandbox, with the code toolset's own manifests: a
 * variable, an import and a file survive between programs of a session; the files of a call are
 * those it changed; a first import is told from a cached one; a timeout or the output cap
 * interrupts the program and keeps the state, a program that ignores the interrupt restarts
 * the interpreter (variables lost, files kept) and says so; a MemoryError keeps the state;
 * another client's call, a closed session, an expired one and one past the cap each get their
 * error type and the way to recover; Node.js sessions keep their globals.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "emit/common.h"
#include "model/repo.h"
#include "run/session.h"
#include "run/toolrun.h"
#include "testlib.h"
#include "code_fixture.h"

static tg_repo repo;
static tg_toolrun_env env;
static code_tool py, js, create, closer, runtimes, pkglist;

/* One call of t with args (JSON text) as client; r is the caller's to free. */
static void call_as(const tg_toolrun_ctx *ctx, code_tool *t, uint64_t client, const char *args_json,
                    tg_call_result *r)
{
    tg_err err = {0};
    /* failures only are counted here: the busy test calls this a varying number of times */
    cJSON *args = tg_json_parse(args_json, strlen(args_json), NULL, NULL, NULL, &err);
    if (!args)
        CHECK(false, "args %s: %s", args_json, err.msg);
    tg_tool_call c = {.m = &t->m, .input = t->in, .output = t->out, .args = args,
                      .client_id = client};
    tg_call_status st = tg_tool_call_run(ctx, &c, r, &err);
    if (st != TG_CALL_DONE)
        CHECK(false, "%s: status %d: %s", args_json, st, err.msg);
    cJSON_Delete(args);
}

/* A program of session id as client 1. */
static void run_in(code_tool *t, const char *id, const char *code, const char *more,
                   tg_call_result *r)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "code", code);
    cJSON_AddStringToObject(a, "session_id", id);
    char *text = tg_json_print_compact(a);
    text[strlen(text) - 1] = '\0';
    char *args = xasprintf("%s%s}", text, more);
    call_as(&env.ctx, t, 1, args, r);
    free(args);
    free(text);
    cJSON_Delete(a);
}

static const char *str(const cJSON *o, const char *pointer)
{
    const cJSON *v = tg_json_pointer_get(o, pointer);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static bool has_string(const cJSON *arr, const char *s)
{
    return tg_json_array_has_string(arr, s);
}

/* A new session of runtime ("python", "node") for client 1 in ctx; its id into id. */
static bool new_session(const tg_toolrun_ctx *ctx, const char *runtime, const char *packages,
                        char *id, size_t cap)
{
    tg_call_result r = {0};
    char *args = xasprintf("{\"runtime\": \"%s\"%s%s}", runtime, packages ? ", \"packages\": " : "",
                           packages ? packages : "");
    call_as(ctx, &create, 1, args, &r);
    free(args);
    CHECK(r.ok, "create_session %s: %s", runtime, r.guidance.message);
    snprintf(id, cap, "%s", str(r.result, "/session_id"));
    /* sess_, the instance, _, 32 hex digits (run/session.h) */
    const char *inst = tg_sessions_instance(ctx->sessions);
    bool ok = r.ok && strncmp(id, "sess_", 5) == 0 && strlen(id) == 46 &&
              strncmp(id + 5, inst, 8) == 0 && id[13] == '_';
    CHECK(ok, "session id: %s", id);
    tg_call_result_free(&r);
    return ok;
}

static void test_state_survives(void)
{
    char id[64];
    if (!new_session(&env.ctx, "python", "[\"pandas\"]", id, sizeof id))
        return;
    tg_call_result r = {0};
    run_in(&py, id, "import pandas as pd\nx = 41\nopen('a.txt', 'w').write('kept')", "", &r);
    CHECK(r.ok, "first program: %s", r.guidance.message);
    CHECK(has_string(tg_json_pointer_get(r.result, "/session/cached_imports"), "pandas"),
          "pandas preloaded by create_session is cached");
    CHECK(r.sb.n_files == 1 && strcmp(r.sb.files[0].path, "a.txt") == 0, "the call's file");
    tg_call_result_free(&r);

    run_in(&py, id, "import matplotlib\nprint(x + 1, open('a.txt').read(), pd.__name__)\n"
                    "open('b.txt', 'w').write('new')", "", &r);
    CHECK(r.ok, "second program: %s", r.guidance.message);
    CHECK(strcmp(str(r.result, "/stdout"), "42 kept pandas\n") == 0, "state kept: %s",
          str(r.result, "/stdout"));
    CHECK(r.sb.n_files == 1 && strcmp(r.sb.files[0].path, "b.txt") == 0,
          "only the file this call wrote: %zu", r.sb.n_files);
    CHECK(has_string(tg_json_pointer_get(r.result, "/session/first_imports"), "matplotlib"),
          "matplotlib imported first here");
    CHECK(!cJSON_IsTrue(tg_json_pointer_get(r.result, "/session/restarted")), "not restarted");
    tg_call_result_free(&r);

    /* MemoryError inside the program: the interpreter survives, and so do the variables */
    run_in(&py, id, "y = bytearray(8 * 1024 ** 3)", "", &r);
    CHECK(!r.ok && strcmp(str(r.result, "/error_guidance/error_type"), "MemoryError") == 0,
          "memory: %s", str(r.result, "/error_guidance/error_type"));
    tg_call_result_free(&r);
    run_in(&py, id, "print(x)", "", &r);
    CHECK(r.ok && strcmp(str(r.result, "/stdout"), "41\n") == 0, "after MemoryError: %s",
          str(r.result, "/stdout"));
    tg_call_result_free(&r);

    /* the resource analysis names a first import in the session among the likely causes */
    run_in(&py, id, "import scipy.stats\nimport time\ntime.sleep(3)", ", \"timeout\": 1", &r);
    char *causes = tg_json_print_compact(
        tg_json_pointer_get(r.result, "/resource_analysis/wall_clock/likely_causes"));
    CHECK(causes && strstr(causes, "first import of scipy in this session"),
          "first import named: %s", causes ? causes : "(none)");
    free(causes);
    tg_call_result_free(&r);

    /* a timeout interrupts the program (KeyboardInterrupt): the session keeps its state */
    run_in(&py, id, "y = 2\nwhile True:\n    pass", ", \"timeout\": 1", &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "TIMEOUT") == 0, "timeout: %s", r.guidance.code);
    CHECK(strcmp(str(r.result, "/error_guidance/error_type"), "Timeout") == 0, "timeout type: %s",
          str(r.result, "/error_guidance/error_type"));
    CHECK(cJSON_IsFalse(tg_json_pointer_get(r.result, "/session/restarted")), "interrupted, kept");
    tg_call_result_free(&r);
    run_in(&py, id, "print(x, y)", "", &r);
    CHECK(r.ok && strcmp(str(r.result, "/stdout"), "41 2\n") == 0, "state after a timeout: %s %s",
          str(r.result, "/stdout"), str(r.result, "/stderr"));
    tg_call_result_free(&r);

    /* a program that ignores the interrupt is killed: a new interpreter, files kept, variables
     * gone, and the result says so */
    run_in(&py, id, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n"
                    "    pass", ", \"timeout\": 1", &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "TIMEOUT") == 0, "stubborn timeout: %s", r.guidance.code);
    CHECK(cJSON_IsTrue(tg_json_pointer_get(r.result, "/session/restarted")), "restarted");
    char *g = tg_json_print_compact(tg_json_pointer_get(r.result, "/error_guidance"));
    CHECK(strstr(g, "variables and imports are gone") != NULL, "says the state is gone: %s", g);
    free(g);
    tg_call_result_free(&r);
    run_in(&py, id, "print(open('a.txt').read())\nprint(x)", "", &r);
    CHECK(!r.ok && strcmp(str(r.result, "/stdout"), "kept\n") == 0, "files kept: %s",
          str(r.result, "/stdout"));
    CHECK(strcmp(str(r.result, "/error_guidance/error_type"), "NameError") == 0, "x is gone");
    tg_call_result_free(&r);

    /* endless output: cut at the cap, interrupted, the session goes on */
    run_in(&py, id, "z = 5\nwhile True:\n    print('spam ' * 20)", "", &r);
    CHECK(!r.ok && strcmp(str(r.result, "/error_guidance/error_type"), "OutputLimitExceeded") == 0,
          "output cap: %s", str(r.result, "/error_guidance/error_type"));
    tg_call_result_free(&r);
    run_in(&py, id, "print(z)", "", &r);
    CHECK(r.ok && strcmp(str(r.result, "/stdout"), "5\n") == 0, "state after the output cap: %s",
          str(r.result, "/stdout"));
    tg_call_result_free(&r);

    /* another client: as if the session did not exist */
    call_as(&env.ctx, &py, 2, "{\"code\": \"print(1)\", \"session_id\": \"x\"}", &r);
    tg_call_result_free(&r);
    char *args = xasprintf("{\"code\": \"print(1)\", \"session_id\": \"%s\"}", id);
    call_as(&env.ctx, &py, 2, args, &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "NOT_FOUND") == 0 &&
          strcmp(str(r.result, "/error_guidance/error_type"), "SESSION_NOT_FOUND") == 0,
          "another client: %s %s", r.guidance.code, r.guidance.message);
    tg_call_result_free(&r);
    /* node_execute with a Python session */
    call_as(&env.ctx, &js, 1, args, &r);
    CHECK(!r.ok && strstr(r.guidance.message, "runs python, not node"), "language: %s",
          r.guidance.message);
    tg_call_result_free(&r);

    free(args);
    args = xasprintf("{\"session_id\": \"%s\"}", id);
    call_as(&env.ctx, &closer, 2, args, &r);
    CHECK(r.ok && cJSON_IsFalse(tg_json_get(r.result, "closed")) &&
          strstr(str(r.result, "/message"), "unknown session"), "another client cannot close it");
    tg_call_result_free(&r);
    /* the same handle from another instance: where it lives is named (docs/scale.md) */
    char *elsewhere = xstrdup(args);
    char *at = strstr(elsewhere, "sess_") + 5;
    for (int i = 0; i < 8; i++)
        at[i] = at[i] == '0' ? '1' : '0';
    call_as(&env.ctx, &closer, 1, elsewhere, &r);
    CHECK(r.ok && cJSON_IsFalse(tg_json_get(r.result, "closed")) &&
              strstr(str(r.result, "/message"), "lives in another toolgen serve process"),
          "another instance's handle: %s", str(r.result, "/message"));
    tg_call_result_free(&r);
    free(elsewhere);
    call_as(&env.ctx, &closer, 1, args, &r);
    CHECK(r.ok && cJSON_IsTrue(tg_json_get(r.result, "closed")), "closed: %s", r.guidance.message);
    tg_call_result_free(&r);
    call_as(&env.ctx, &closer, 1, args, &r);
    CHECK(r.ok && cJSON_IsFalse(tg_json_get(r.result, "closed")) &&
          strstr(str(r.result, "/message"), "was closed"), "closed twice: %s",
          str(r.result, "/message"));
    tg_call_result_free(&r);
    free(args);
    run_in(&py, id, "print(1)", "", &r);
    CHECK(!r.ok && strcmp(str(r.result, "/error_guidance/error_type"), "SESSION_CLOSED") == 0 &&
          strstr(r.guidance.message, "create_session"), "after close: %s", r.guidance.message);
    tg_call_result_free(&r);
}

typedef struct slow_call {
    const char *id;
    tg_call_result r;
} slow_call;

static void *run_slow(void *arg)
{
    slow_call *c = arg;
    for (int i = 0; i < 100; i++) { /* the main thread's probe may hold the session a moment */
        run_in(&py, c->id, "import time\ntime.sleep(15)", "", &c->r);
        if (c->r.ok || strcmp(str(c->r.result, "/error_guidance/error_type"), "SESSION_BUSY") != 0)
            break;
        tg_call_result_free(&c->r);
        usleep(5 * 1000);
    }
    return NULL;
}

/* One program at a time per session: a second one meanwhile is SESSION_BUSY, and so is a
 * close; the first then finishes normally. (The slow program sleeps 15 s, a bound far beyond
 * what the probes need on a loaded machine: the refusals are looked for until it holds the
 * session, and nothing waits for the clock.) */
static void test_busy(void)
{
    char id[64];
    if (!new_session(&env.ctx, "python", NULL, id, sizeof id))
        return;
    slow_call slow = {.id = id};
    pthread_t t;
    pthread_create(&t, NULL, run_slow, &slow);
    tg_call_result r = {0};
    bool busy = false, other = false;
    char code[64] = "";
    for (int i = 0; i < 1000 && !busy && !other; i++) { /* until the slow one holds the session */
        run_in(&py, id, "print(1)", "", &r);
        busy = !r.ok && strcmp(str(r.result, "/error_guidance/error_type"), "SESSION_BUSY") == 0;
        other = !busy && !r.ok;
        snprintf(code, sizeof code, "%s", r.guidance.code ? r.guidance.code : "");
        tg_call_result_free(&r);
        if (!busy)
            usleep(10 * 1000);
    }
    CHECK(busy && strcmp(code, "CONFLICT") == 0, "a second program while one runs is refused "
          "(CONFLICT): %s", code);
    char *args = xasprintf("{\"session_id\": \"%s\"}", id);
    call_as(&env.ctx, &closer, 1, args, &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "CONFLICT") == 0, "no close while it runs");
    tg_call_result_free(&r);
    free(args);
    pthread_join(t, NULL);
    CHECK(slow.r.ok, "the first program finished normally: %s", slow.r.guidance.message);
    tg_call_result_free(&slow.r);
}

/* A store whose sessions expire after 30 ms and of which one may be open. */
static void test_expiry_and_cap(void)
{
    tg_toolrun_env small = {0};
    tg_err err = {0};
    const char *yaml = "{\"code\": {\"sessions\": {\"max\": 1, \"idle_minutes\": 0.0005}}}";
    cJSON *cfg = cJSON_Parse(yaml);
    CHECK(tg_toolrun_env_open(&small, &repo, cfg, &err) == 0, "env: %s", err.msg);
    char id[64];
    if (new_session(&small.ctx, "python", NULL, id, sizeof id)) {
        tg_call_result r = {0};
        call_as(&small.ctx, &create, 1, "{\"runtime\": \"python\"}", &r);
        CHECK(!r.ok && strcmp(r.guidance.code, "RATE_LIMITED") == 0 &&
              strstr(r.guidance.message, id), "over the cap: %s %s", r.guidance.code,
              r.guidance.message);
        tg_call_result_free(&r);
        usleep(100 * 1000);
        char *args = xasprintf("{\"code\": \"print(1)\", \"session_id\": \"%s\"}", id);
        call_as(&small.ctx, &py, 1, args, &r);
        free(args);
        CHECK(!r.ok && strcmp(str(r.result, "/error_guidance/error_type"), "SESSION_EXPIRED") == 0,
              "expired: %s", str(r.result, "/error_guidance/error_type"));
        CHECK(strstr(r.guidance.message, "expired") && strstr(r.guidance.message, "create_session"),
              "says what to do: %s", r.guidance.message);
        CHECK(r.result && cJSON_IsNull(tg_json_get(r.result, "returnCode")), "nothing ran");
        tg_call_result_free(&r);
        CHECK(new_session(&small.ctx, "python", NULL, id, sizeof id), "room again after expiry");
    }
    tg_toolrun_env_close(&small);
    cJSON_Delete(cfg);
}

/* One client may not take every session: per_client 1 refuses its second, not another's. */
static void test_per_client(void)
{
    tg_toolrun_env pc = {0};
    tg_err err = {0};
    cJSON *cfg = cJSON_Parse("{\"code\": {\"sessions\": {\"max\": 4, \"per_client\": 1}}}");
    CHECK(tg_toolrun_env_open(&pc, &repo, cfg, &err) == 0, "env: %s", err.msg);
    char id[64];
    if (new_session(&pc.ctx, "python", NULL, id, sizeof id)) {
        tg_call_result r = {0};
        call_as(&pc.ctx, &create, 1, "{\"runtime\": \"python\"}", &r);
        CHECK(!r.ok && strcmp(r.guidance.code, "RATE_LIMITED") == 0 &&
              strstr(r.guidance.message, "the most one client may") && strstr(r.guidance.message, id),
              "a client's second session: %s %s", r.guidance.code, r.guidance.message);
        tg_call_result_free(&r);
        call_as(&pc.ctx, &create, 2, "{\"runtime\": \"python\"}", &r);
        CHECK(r.ok, "another client's first: %s", r.guidance.message);
        tg_call_result_free(&r);
    }
    tg_toolrun_env_close(&pc);
    cJSON_Delete(cfg);
}

static void test_node_session(void)
{
    char id[64];
    if (!new_session(&env.ctx, "node", NULL, id, sizeof id))
        return;
    tg_call_result r = {0};
    run_in(&js, id, "var total = 40; globalThis.n = 2;\nconst fs = require('fs');\n"
                    "fs.writeFileSync('n.txt', 'x');", "", &r);
    CHECK(r.ok, "node first: %s %s", r.guidance.message, str(r.result, "/stderr"));
    tg_call_result_free(&r);
    run_in(&js, id, "console.log(total + n, require('fs').readFileSync('n.txt', 'utf8'))", "", &r);
    CHECK(r.ok && strcmp(str(r.result, "/stdout"), "42 x\n") == 0, "node state: %s %s",
          str(r.result, "/stdout"), str(r.result, "/stderr"));
    tg_call_result_free(&r);
    run_in(&js, id, "undefinedThing()", "", &r);
    CHECK(!r.ok && strcmp(str(r.result, "/error_guidance/error_type"), "ReferenceError") == 0,
          "node error: %s", str(r.result, "/error_guidance/error_type"));
    tg_call_result_free(&r);
    run_in(&js, id, "console.log(total)", "", &r);
    CHECK(r.ok && strcmp(str(r.result, "/stdout"), "40\n") == 0, "node state after an error: %s",
          str(r.result, "/stdout"));
    tg_call_result_free(&r);
    run_in(&js, id, "var k = 3;\nwhile (true) {}", ", \"timeout\": 1", &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "TIMEOUT") == 0 &&
          cJSON_IsFalse(tg_json_pointer_get(r.result, "/session/restarted")),
          "node: a timeout interrupts the script: %s", r.guidance.message);
    tg_call_result_free(&r);
    run_in(&js, id, "console.log(total + k)", "", &r);
    CHECK(r.ok && strcmp(str(r.result, "/stdout"), "43\n") == 0, "node state after a timeout: %s",
          str(r.result, "/stdout"));
    tg_call_result_free(&r);
}

/* file_system (toolsets/files) on a session's directory, with the data directories mounted
 * read-only in it: what a program wrote is read back, what file_system wrote a program reads,
 * data is readable and not writable, and nothing outside is reachable. */
static void test_file_system(void)
{
    tg_repo frepo;
    tg_toolrun_env fenv = {0};
    code_tool fs;
    tg_err err = {0};
    CHECK(tg_repo_open(&frepo, "toolsets/files", &err) == 0, "files repo: %s", err.msg);
    CHECK(tg_toolrun_env_open(&fenv, &frepo, frepo.cfg.doc.root, &err) == 0, "env: %s", err.msg);
    char id[64];
    bool opened = code_tool_open(&fs, &frepo, "file_system") == 0;
    if (opened) {
        char *full = tg_emit_description(&fs.m);
        CHECK(full && strlen(full) <= 1024 && strstr(full, "Example"),
              "file_system: description within its budget (%zu characters)", full ? strlen(full) : 0);
        free(full);
    }
    if (opened && new_session(&fenv.ctx, "python", NULL, id, sizeof id)) {
        tg_call_result r = {0};
        char *args = xasprintf("{\"code\": \"import csv\\nrows = list(csv.reader(open("
                               "'data/sales.csv')))\\nopen('out.txt', 'w').write(str(len(rows)))\", "
                               "\"session_id\": \"%s\"}", id);
        call_as(&fenv.ctx, &py, 1, args, &r);
        free(args);
        CHECK(r.ok, "a session program reads the data directory: %s %s", r.guidance.message,
              str(r.result, "/stderr"));
        tg_call_result_free(&r);
        args = xasprintf("{\"action\": \"read\", \"path\": \"out.txt\", \"session_id\": \"%s\"}", id);
        call_as(&fenv.ctx, &fs, 1, args, &r);
        free(args);
        CHECK(r.ok && strcmp(str(r.result, "/content"), "3") == 0, "file_system reads it: %s",
              r.ok ? str(r.result, "/content") : r.guidance.message);
        tg_call_result_free(&r);
        args = xasprintf("{\"action\": \"write\", \"path\": \"in/note.txt\", \"content\": "
                         "\"hello\", \"session_id\": \"%s\"}", id);
        call_as(&fenv.ctx, &fs, 1, args, &r);
        free(args);
        CHECK(r.ok && tg_json_get_number(r.result, "size", -1) == 5, "file_system writes: %s",
              r.guidance.message);
        tg_call_result_free(&r);
        args = xasprintf("{\"code\": \"print(open('in/note.txt').read())\", \"session_id\": \"%s\"}", id);
        call_as(&fenv.ctx, &py, 1, args, &r);
        free(args);
        CHECK(r.ok && strcmp(str(r.result, "/stdout"), "hello\n") == 0, "the program reads it");
        tg_call_result_free(&r);
        static const char *const refused[][2] = {
            {"{\"action\": \"write\", \"path\": \"data/sales.csv\", \"content\": \"x\"", "ReadOnly"},
            {"{\"action\": \"read\", \"path\": \"../../../etc/passwd\"", "PathOutsideRoots"},
            {"{\"action\": \"read\", \"path\": \"/etc/passwd\"", "PathOutsideRoots"},
        };
        for (size_t i = 0; i < 3; i++) {
            args = xasprintf("%s, \"session_id\": \"%s\"}", refused[i][0], id);
            call_as(&fenv.ctx, &fs, 1, args, &r);
            free(args);
            CHECK(!r.ok && strcmp(r.guidance.code, "FORBIDDEN") == 0 &&
                  strstr(r.guidance.message, refused[i][1]), "refused (%s): %s %s", refused[i][1],
                  r.guidance.code, r.guidance.message);
            tg_call_result_free(&r);
        }
    }
    code_tool_close(&fs);
    tg_toolrun_env_close(&fenv);
    tg_repo_release(&frepo);
}

/* The session tools' composed descriptions fit OpenAI's 1024 characters without a cut. */
static void test_descriptions(void)
{
    const code_tool *tools[] = {&create, &closer, &runtimes, &pkglist};
    for (size_t i = 0; i < 4; i++) {
        char *full = tg_emit_description(&tools[i]->m);
        char *cut = tg_emit_description_max(&tools[i]->m, 1024);
        CHECK(full && cut && strcmp(full, cut) == 0 && strlen(full) <= 1024,
              "%s: description within its budget (%zu characters)", tools[i]->m.name,
              full ? strlen(full) : 0);
        CHECK(full && strstr(full, "Example"), "%s: an example", tools[i]->m.name);
        free(full);
        free(cut);
    }
}

int main(void)
{
    tg_err err = {0};
    CHECK(tg_repo_open(&repo, "toolsets/code", &err) == 0, "repo: %s", err.msg);
    CHECK(tg_toolrun_env_open(&env, &repo, repo.cfg.doc.root, &err) == 0, "env: %s", err.msg);
    if (code_tool_open(&py, &repo, "python_execute") == 0 &&
        code_tool_open(&js, &repo, "node_execute") == 0 &&
        code_tool_open(&create, &repo, "create_session") == 0 &&
        code_tool_open(&closer, &repo, "close_session") == 0 &&
        code_tool_open(&runtimes, &repo, "list_runtimes") == 0 &&
        code_tool_open(&pkglist, &repo, "list_available_packages") == 0) {
        test_state_survives();
        test_expiry_and_cap();
        test_per_client();
        test_node_session();
        test_busy();
        test_file_system();
        test_descriptions();
    }
    code_tool_close(&py);
    code_tool_close(&js);
    code_tool_close(&create);
    code_tool_close(&closer);
    code_tool_close(&runtimes);
    code_tool_close(&pkglist);
    tg_toolrun_env_close(&env);
    tg_repo_release(&repo);
    return tl_finish("code_session");
}
