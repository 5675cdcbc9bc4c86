/* test_toolbatch.c — a tool's calls through one warm sandbox (tg_tool_batch) answer exactly as
 * cold calls do (class, code, result, files, the limit that stopped them), and a call that
 * mutates module globals, writes files, exhausts memory, times out, floods its output, exits or
 * tries to kill the runner leaves nothing the next call sees; a command tool's cases go through
 * toolgen's command runner and answer as cold calls do. Real bubblewrap, real Python. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "run/cmdrunner.h"
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
    "timeout_ms: 60000\n"
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
    "  entrypoint: run\n";

static const char tool_py[] =
    "import os, signal, sys, time\n"
    "IMPORTED_IN = os.getpid()\n"
    "STATE = {'calls': 0}\n"
    "def readable(p):\n"
    "    try:\n"
    "        with open(p, 'rb') as f:\n"
    "            return f.read() is not None\n"
    "    except OSError:\n"
    "        return False\n"
    "def listing(d):\n"
    "    return sorted(x for x in os.listdir(d) if x not in ('matplotlib', 'data'))\n"
    "def run(mode='check', file_path=None):\n"
    "    STATE['calls'] += 1\n"
    "    lines = 0\n"
    "    if file_path:\n"
    "        with open(file_path) as f:\n"
    "            lines = sum(1 for _ in f)\n"
    "    if mode == 'mutate':\n"
    "        STATE['poison'] = True\n"
    "        os.environ['POISON'] = '1'\n"
    "        sys.modules['json'] = None\n"
    "    elif mode == 'write':\n"
    "        for p in ('left.txt', '/tmp/left.txt', '/dev/shm/left'):\n"
    "            with open(p, 'w') as f:\n"
    "                f.write('x')\n"
    "    elif mode == 'memory':\n"
    "        hog = bytearray(1 << 31)\n"
    "    elif mode == 'sleep':\n"
    "        time.sleep(60)\n"
    "    elif mode == 'flood':\n"
    "        sys.stdout.write('x' * (1 << 20))\n"
    "        sys.stdout.flush()\n"
    "    elif mode == 'exit':\n"
    "        os._exit(3)\n"
    "    elif mode == 'kill_runner':\n"
    "        os.kill(1, signal.SIGKILL)\n"
    "    elif mode == 'daemon':\n"
    "        if os.fork() == 0:\n"
    "            os.setsid()\n"
    "            if os.fork() == 0:\n"
    "                time.sleep(60)\n"
    "            os._exit(0)\n"
    "        os.wait()\n"
    "    elif mode == 'peek':\n"
    "        try:\n"
    "            with open('/proc/%d/mem' % os.getppid(), 'rb'):\n"
    "                STATE['peeked'] = os.getppid() > 0\n"
    "        except OSError:\n"
    "            pass\n"
    "    return {'calls': STATE['calls'], 'lines': lines,\n"
    "            'poison': 'poison' in STATE or 'POISON' in os.environ or sys.modules.get('json', 1) is None,\n"
    "            'cwd': listing('.'), 'tmp': listing('/tmp'), 'shm': listing('/dev/shm'),\n"
    "            'procs': sum(1 for p in os.listdir('/proc') if p.isdigit()\n"
    "                         and int(p) not in (1, os.getpid())),\n"
    "            'peeked': STATE.get('peeked', False),\n"
    "            'own_environ': readable('/proc/self/environ'),\n"
    "            'warm': IMPORTED_IN != os.getpid()}\n";

/* Every misbehaviour, each followed by a check of what the next call sees. */
static const char *const calls_json[] = {
    "{\"mode\":\"check\",\"file_path\":\"data/x.csv\"}",
    "{\"mode\":\"mutate\"}",       "{\"mode\":\"check\"}",
    "{\"mode\":\"write\"}",        "{\"mode\":\"check\"}",
    "{\"mode\":\"memory\"}",       "{\"mode\":\"check\"}",
    "{\"mode\":\"sleep\"}",        "{\"mode\":\"check\"}",
    "{\"mode\":\"flood\"}",        "{\"mode\":\"check\"}",
    "{\"mode\":\"exit\"}",         "{\"mode\":\"check\"}",
    "{\"mode\":\"kill_runner\"}",  "{\"mode\":\"check\",\"file_path\":\"data/x.csv\"}",
    "{\"mode\":\"daemon\"}",       "{\"mode\":\"check\"}",
    "{\"mode\":\"peek\"}",
    "{\"mode\":\"unknown\",\"extra\":1}",
    "{\"mode\":\"check\",\"file_path\":\"data/none.csv\"}",
};
#define NCALLS (sizeof calls_json / sizeof *calls_json)

static bool is_check(size_t i)
{
    return strstr(calls_json[i], "\"check\"") && !strstr(calls_json[i], "none.csv");
}

/* What a later call saw: a fresh module, an empty directory, /tmp and /dev/shm. */
static void check_clean(size_t i, const tg_call_result *r, bool warm)
{
    const cJSON *res = r->result;
    CHECK(r->ok, "call %zu (%s): %s", i, calls_json[i], r->guidance.message);
    CHECK(tg_json_get_number(res, "calls", -1) == 1, "call %zu: module globals are fresh", i);
    CHECK(cJSON_IsFalse(tg_json_get(res, "poison")), "call %zu: no poison from before", i);
    static const char *const dirs[] = {"cwd", "tmp", "shm"};
    for (size_t d = 0; d < 3; d++)
        CHECK(cJSON_GetArraySize(tg_json_get(res, dirs[d])) == 0, "call %zu: %s is empty", i,
              dirs[d]);
    CHECK(cJSON_IsTrue(tg_json_get(res, "own_environ")), "call %zu: reads its own "
          "/proc/self/environ", i);
    CHECK(tg_json_get_number(res, "procs", -1) == 0, "call %zu: no process of an earlier call "
          "(%g)", i, tg_json_get_number(res, "procs", -1));
    CHECK(cJSON_IsBool(tg_json_get(res, "warm")) &&
              cJSON_IsTrue(tg_json_get(res, "warm")) == warm,
          "call %zu: ran %s", i, warm ? "warm" : "cold");
    if (strstr(calls_json[i], "x.csv"))
        CHECK(tg_json_get_number(res, "lines", -1) == 3, "call %zu: its path argument", i);
}

/* The batch's answer is the cold call's: class, code, message, limit, status, result, files. */
static void check_same(size_t i, const tg_call_result *w, const tg_call_result *c)
{
    CHECK(w->ok == c->ok && w->ran == c->ran, "call %zu (%s): ok %d/%d", i, calls_json[i], w->ok,
          c->ok);
    CHECK(w->guidance.cls == c->guidance.cls, "call %zu (%s): class %s, cold %s", i, calls_json[i],
          tg_error_class_name(w->guidance.cls), tg_error_class_name(c->guidance.cls));
    CHECK((!w->guidance.code && !c->guidance.code) ||
              (w->guidance.code && c->guidance.code &&
               strcmp(w->guidance.code, c->guidance.code) == 0),
          "call %zu: same code", i);
    CHECK(w->sb.killed_by == c->sb.killed_by && w->sb.exit_code == c->sb.exit_code &&
              w->sb.signal == c->sb.signal,
          "call %zu (%s): killed_by %d/%d exit %d/%d signal %d/%d", i, calls_json[i],
          w->sb.killed_by, c->sb.killed_by, w->sb.exit_code, c->sb.exit_code, w->sb.signal,
          c->sb.signal);
    CHECK(w->sb.out.truncated == c->sb.out.truncated && w->sb.n_files == c->sb.n_files,
          "call %zu: output and files", i);
    if (strstr(calls_json[i], "sleep") == NULL) /* a timeout's message has the times */
        CHECK(strcmp(w->guidance.message, c->guidance.message) == 0, "call %zu: message '%s' vs "
              "'%s'", i, w->guidance.message, c->guidance.message);
    if (w->result && c->result) {
        cJSON *a = cJSON_Duplicate(w->result, true), *b = cJSON_Duplicate(c->result, true);
        cJSON_DeleteItemFromObject(a, "warm");
        cJSON_DeleteItemFromObject(b, "warm");
        CHECK(cJSON_Compare(a, b, true), "call %zu: same result", i);
        cJSON_Delete(a);
        cJSON_Delete(b);
    }
}

static void test_batch(fixture *fx)
{
    tg_err err = {0};
    cJSON *args[NCALLS];
    tg_tool_call calls[NCALLS];
    /* Only the sleeping call has a short wall clock (the limit it must be stopped by, warm and
     * cold alike); every other call has a minute, so a cold Python start on a loaded machine is
     * never mistaken for a misbehaviour. The wall clock is resolved per call (run/toolrun.c),
     * so the copy is the same tool with another timeout_ms; it borrows fx->m's fields. */
    tg_manifest quick = fx->m;
    quick.timeout_ms = 2000;
    for (size_t i = 0; i < NCALLS; i++) {
        args[i] = tg_json_parse(calls_json[i], strlen(calls_json[i]), NULL, NULL, NULL, &err);
        calls[i] = (tg_tool_call){.m = strstr(calls_json[i], "sleep") ? &quick : &fx->m,
                                  .input = fx->in, .output = fx->out, .args = args[i]};
    }
    tg_tool_batch *b = tg_tool_batch_new(&fx->env.ctx, calls, NCALLS);
    tg_call_result warm[NCALLS];
    for (size_t i = 0; i < NCALLS; i++) {
        tg_call_status st = tg_tool_batch_run(b, i, &warm[i], &err);
        CHECK(st == TG_CALL_DONE, "batch call %zu: status %d: %s", i, st, err.msg);
    }
    /* every call but the two refused before running (input, path) ran warm */
    CHECK(tg_tool_batch_warm_runs(b) == NCALLS - 2, "warm runs: %zu", tg_tool_batch_warm_runs(b));
    tg_tool_batch_free(b);
    for (size_t i = 0; i < NCALLS; i++) {
        if (is_check(i))
            check_clean(i, &warm[i], true);
        tg_call_result cold;
        CHECK(tg_tool_call_run(&fx->env.ctx, &calls[i], &cold, &err) == TG_CALL_DONE,
              "cold call %zu: %s", i, err.msg);
        if (strstr(calls_json[i], "kill_runner") == NULL) /* pid 1 is the tool itself, cold */
            check_same(i, &warm[i], &cold);
        if (calls[i].m == &quick)
            CHECK(warm[i].sb.killed_by == TG_LIMIT_WALL && cold.sb.killed_by == TG_LIMIT_WALL,
                  "call %zu: stopped by its wall clock (%d/%d)", i, warm[i].sb.killed_by,
                  cold.sb.killed_by);
        if (is_check(i))
            check_clean(i, &cold, false);
        if (strstr(calls_json[i], "peek")) /* the runner's memory is the next case's template */
            CHECK(warm[i].ok && cJSON_IsFalse(tg_json_get(warm[i].result, "peeked")),
                  "peek: a case cannot open the warm runner's memory");
        tg_call_result_free(&cold);
    }
    /* The files of a call live as long as its result, in their own directory. */
    CHECK(warm[3].sb.n_files == 1 && strcmp(warm[3].sb.files[0].path, "left.txt") == 0,
          "write: its file is listed (%zu)", warm[3].sb.n_files);
    struct stat st;
    int wd = tg_sandbox_result_open_work(&warm[3].sb);
    CHECK(wd >= 0 && fstatat(wd, "left.txt", &st, 0) == 0,
          "write: the file is there after the batch");
    for (size_t i = 0; i < NCALLS; i++) {
        tg_call_result_free(&warm[i]);
        cJSON_Delete(args[i]);
    }
    CHECK(wd >= 0 && fstatat(wd, "left.txt", &st, 0) != 0, "freed: the call's files are gone");
    if (wd >= 0)
        close(wd);
}

/* A tool that fails to import reports it from every call, exactly as cold calls do. */
static void test_import_failure(fixture *fx)
{
    char *tpath = xasprintf("%s/tools/probe/tool.py", repo);
    tg_err err = {0};
    static const char broken[] = "import not_a_module_anywhere\n";
    SETUP(tg_write_file_atomic(tpath, broken, strlen(broken), &err) == 0, "write: %s", err.msg);
    chmod(tpath, 0644);
    cJSON *args = cJSON_CreateObject();
    tg_tool_call calls[2] = {{.m = &fx->m, .input = fx->in, .output = fx->out, .args = args},
                             {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args}};
    tg_tool_batch *b = tg_tool_batch_new(&fx->env.ctx, calls, 2);
    for (size_t i = 0; i < 2; i++) {
        tg_call_result w, c;
        CHECK(tg_tool_batch_run(b, i, &w, &err) == TG_CALL_DONE, "batch: %s", err.msg);
        CHECK(tg_tool_call_run(&fx->env.ctx, &calls[i], &c, &err) == TG_CALL_DONE, "cold");
        CHECK(!w.ok && w.guidance.cls == c.guidance.cls &&
                  strcmp(w.guidance.message, c.guidance.message) == 0,
              "import failure %zu: %s / %s", i, w.guidance.message, c.guidance.message);
        tg_call_result_free(&w);
        tg_call_result_free(&c);
    }
    tg_tool_batch_free(b);
    cJSON_Delete(args);
    free(tpath);
}

/* A command tool's cases (probe_cmd_manifest): through toolgen's command runner (this program,
 * run/cmdrunner.h). */
static const char *const cmd_calls[] = {
    "{\"script\":\"wc -l < \\\"$1\\\"; echo to-stderr >&2\"}",
    "{\"script\":\"echo ${NOTE-unset}; printf 'x,y\\\\n' > out.csv\",\"note\":\"hello\"}",
    "{\"script\":\"echo ${NOTE-unset}; ls -A /tmp | grep -v matplotlib; ls -A | grep -v '^data$'\"}",
    "{\"script\":\"echo k > /tmp/left; (setsid sleep 600 &); exit 3\"}",
    "{\"script\":\"ls -A /tmp | grep -v matplotlib; cat /proc/[0-9]*/comm | grep -c sleep\"}",
    "{\"script\":\"exec sleep 30\"}",
    "{\"script\":\"yes | head -c 200000\"}",
};
#define NCMD (sizeof cmd_calls / sizeof *cmd_calls)

static void test_command_batch(fixture *fx)
{
    tg_err err = {0};
    cJSON *args[NCMD];
    tg_tool_call calls[NCMD];
    for (size_t i = 0; i < NCMD; i++) {
        args[i] = tg_json_parse(cmd_calls[i], strlen(cmd_calls[i]), NULL, NULL, NULL, &err);
        calls[i] = (tg_tool_call){.m = &fx->m, .input = fx->in, .output = fx->out, .args = args[i]};
    }
    tg_tool_batch *b = tg_tool_batch_new(&fx->env.ctx, calls, NCMD);
    for (size_t i = 0; i < NCMD; i++) {
        tg_call_result w, c;
        CHECK(tg_tool_batch_run(b, i, &w, &err) == TG_CALL_DONE, "command %zu: %s", i, err.msg);
        CHECK(tg_tool_call_run(&fx->env.ctx, &calls[i], &c, &err) == TG_CALL_DONE, "cold %zu", i);
        expect_same_as_cold(cmd_calls[i], &w, &c);
        tg_call_result_free(&w);
        tg_call_result_free(&c);
    }
    CHECK(tg_tool_batch_warm_runs(b) == NCMD, "every case ran in the warm sandbox (%zu of %zu)",
          tg_tool_batch_warm_runs(b), NCMD);
    tg_tool_batch_free(b);
    for (size_t i = 0; i < NCMD; i++)
        cJSON_Delete(args[i]);
}

int main(int argc, char **argv)
{
    int rc;
    if (tg_cmdrunner_main(argc, argv, &rc)) /* a command worker's runner: this program */
        return rc;
    snprintf(repo, sizeof repo, "/tmp/tg-toolbatch-%ld", (long)getpid());
    fixture fx = {0};
    if (fixture_open(&fx, repo, manifest, tool_py) == 0) {
        test_batch(&fx);
        test_import_failure(&fx);
    }
    fixture_close(&fx);
    fixture_remove(repo);
    snprintf(repo, sizeof repo, "/tmp/tg-toolbatch-cmd-%ld", (long)getpid());
    fixture cm = {0};
    if (fixture_open(&cm, repo, probe_cmd_manifest(), "") == 0)
        test_command_batch(&cm);
    fixture_close(&cm);
    fixture_remove(repo);
    return tl_finish("toolbatch");
}
