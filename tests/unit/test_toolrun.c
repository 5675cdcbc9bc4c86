/* test_toolrun.c — one call end to end through the real sandbox: defaults applied, arguments and
 * paths refused before running, the result checked against output_schema, invalid results
 * classified, files collected and copied out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "model/manifest.h"
#include "run/toolrun.h"
#include "testlib.h"
#include "probe_fixture.h"

static char repo[64];

static const char manifest[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Probe\n"
    "description: Count the lines of a file, in a mode the test chooses.\n"
    "timeout_ms: 2500\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  required: [file_path]\n"
    "  properties:\n"
    "    file_path: {type: string, x-toolgen-path: read}\n"
    "    mode: {type: string, enum: [ok, bad_type, not_object, write, spin, sleep, events], default: ok}\n"
    "    scale: {type: integer, default: 3}\n"
    "output_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  required: [lines, scale]\n"
    "  properties:\n"
    "    lines: {type: integer}\n"
    "    scale: {type: integer}\n"
    "implementation:\n"
    "  runtime: python\n"
    "  file: tool.py\n"
    "  entrypoint: run\n";

static const char tool_py[] =
    "def run(file_path, mode='ok', scale=3):\n"
    "    with open(file_path) as f:\n"
    "        n = sum(1 for _ in f)\n"
    "    if mode == 'spin':\n"
    "        import time\n"
    "        while time.process_time() < 0.1:\n"
    "            n += 1\n"
    "        time.sleep(60)\n"
    "    if mode == 'sleep':\n"
    "        import time\n"
    "        time.sleep(60)\n"
    "    if mode == 'bad_type':\n"
    "        return {'lines': str(n), 'scale': scale}\n"
    "    if mode == 'not_object':\n"
    "        return [n]\n"
    "    if mode == 'events':\n"
    "        from toolgen_helpers import log, progress\n"
    "        log('debug', 'not wanted')\n"
    "        log('info', {'lines': n}, logger='probe.count')\n"
    "        progress(1, 2, 'half')\n"
    "    if mode == 'write':\n"
    "        with open('out.csv', 'w') as f:\n"
    "            f.write('lines\\n%d\\n' % n)\n"
    "    return {'lines': n, 'scale': scale}\n";

/* Runs the probe with args (JSON text); the status is TG_CALL_DONE or the test fails. */
static void call(fixture *fx, const char *args_json, tg_call_result *r)
{
    tg_err err = {0};
    cJSON *args = tg_json_parse(args_json, strlen(args_json), NULL, NULL, NULL, &err);
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_call_status st = tg_tool_call_run(&fx->env.ctx, &c, r, &err);
    CHECK(st == TG_CALL_DONE, "%s: status %d: %s", args_json, st, err.msg);
    cJSON_Delete(args);
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = tg_json_get(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void test_success_with_defaults(fixture *fx)
{
    tg_call_result r;
    call(fx, "{\"file_path\":\"data/x.csv\"}", &r);
    CHECK(r.ok && r.ran, "ok: %s", r.guidance.message);
    CHECK(number(r.args, "scale") == 3 && tg_json_get_string(r.args, "mode") &&
              strcmp(tg_json_get_string(r.args, "mode"), "ok") == 0,
          "defaults applied to the arguments");
    CHECK(number(r.result, "lines") == 3 && number(r.result, "scale") == 3,
          "the tool saw the defaults and the mounted file");
    CHECK(r.sb.isolated && r.sb.n_files == 0, "isolated, no files");
    cJSON *env = tg_call_result_json(&r, &fx->m);
    CHECK(cJSON_IsTrue(tg_json_get(env, "success")) && cJSON_IsNull(tg_json_get(env, "error")),
          "envelope: success");
    cJSON_Delete(env);
    tg_call_result_free(&r);
}

static void test_invalid_output(fixture *fx)
{
    tg_call_result r;
    call(fx, "{\"file_path\":\"data/x.csv\",\"mode\":\"bad_type\"}", &r);
    CHECK(!r.ok && r.ran && r.guidance.cls == TG_CLASS_OUTPUT_SCHEMA, "output_schema: class %s",
          tg_error_class_name(r.guidance.cls));
    CHECK(r.guidance.code && strcmp(r.guidance.code, "INTERNAL_ERROR") == 0, "INTERNAL_ERROR");
    CHECK_CONTAINS(r.guidance.message, "/lines");
    CHECK(r.result != NULL, "the result is kept for the report");
    tg_call_result_free(&r);

    call(fx, "{\"file_path\":\"data/x.csv\",\"mode\":\"not_object\"}", &r);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_INVALID_RESULT, "not an object: class %s",
          tg_error_class_name(r.guidance.cls));
    tg_call_result_free(&r);
}

static void test_refused(fixture *fx)
{
    tg_call_result r;
    call(fx, "{\"file_path\":\"data/x.csv\",\"scale\":\"big\"}", &r);
    CHECK(!r.ok && !r.ran && r.guidance.cls == TG_CLASS_INPUT_SCHEMA, "input refused: %s",
          tg_error_class_name(r.guidance.cls));
    CHECK_CONTAINS(r.guidance.message, "/scale");
    tg_call_result_free(&r);

    call(fx, "{\"file_path\":\"secret\"}", &r);
    CHECK(!r.ok && !r.ran && r.guidance.cls == TG_CLASS_PATH_FORBIDDEN &&
              strcmp(r.guidance.code, "FORBIDDEN") == 0,
          "path outside data/: %s", tg_error_class_name(r.guidance.cls));
    tg_call_result_free(&r);

    call(fx, "{\"file_path\":\"data/none.csv\"}", &r);
    CHECK(!r.ok && !r.ran && r.guidance.cls == TG_CLASS_PATH_NOT_FOUND &&
              strcmp(r.guidance.code, "NOT_FOUND") == 0,
          "missing file: %s", tg_error_class_name(r.guidance.cls));
    tg_call_result_free(&r);
}

static void test_files(fixture *fx)
{
    tg_call_result r;
    call(fx, "{\"file_path\":\"data/x.csv\",\"mode\":\"write\"}", &r);
    CHECK(r.ok, "write: %s", r.guidance.message);
    CHECK(r.sb.n_files == 1 && strcmp(r.sb.files[0].path, "out.csv") == 0 &&
              r.sb.files[0].type == TG_FILE_CSV && r.sb.files[0].size == 8,
          "the file the tool wrote is listed (and the mounted input is not): %zu", r.sb.n_files);
    char *dest = xasprintf("%s/copied", repo);
    tg_err err = {0};
    CHECK(tg_call_result_copy_files(&r, dest, &err) == 1, "copied: %s", err.msg);
    char *copied = xasprintf("%s/out.csv", dest);
    char *text = tg_read_file(copied, 0, NULL, &err);
    CHECK(text && strcmp(text, "lines\n3\n") == 0, "copy holds the tool's bytes");
    free(text);
    free(copied);
    free(dest);
    tg_call_result_free(&r);
}

/* Killed at the wall clock, with the CPU time the whole tree used: the spinning mode uses 100 ms
 * of CPU (counted by the kernel, whatever the machine's load) and then waits to be killed.
 * How the diagnosis reads CPU against the wall clock is test_guidance.c's. */
static void test_timeouts(fixture *fx)
{
    tg_call_result r;
    call(fx, "{\"file_path\":\"data/x.csv\",\"mode\":\"spin\"}", &r);
    double cpu = r.sb.user_ms + r.sb.sys_ms;
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_TIMEOUT && r.sb.killed_by == TG_LIMIT_WALL,
          "spin: %s", tg_error_class_name(r.guidance.cls));
    CHECK(cpu >= 100, "spin: the tool's 100 ms of CPU are counted (%.1f ms)", cpu);
    CHECK(r.resources.cpu.used == cpu, "spin: resources.cpu.used %.1f ms", r.resources.cpu.used);
    tg_call_result_free(&r);

    call(fx, "{\"file_path\":\"data/x.csv\",\"mode\":\"sleep\"}", &r);
    cpu = r.sb.user_ms + r.sb.sys_ms;
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_TIMEOUT && r.sb.killed_by == TG_LIMIT_WALL,
          "sleep: %s", tg_error_class_name(r.guidance.cls));
    CHECK(cpu > 0, "sleep: the interpreter's start is counted (%.1f ms)", cpu);
    tg_call_result_free(&r);
}

/* The events a call's tool reports (toolgen_helpers.log and progress) reach on_event while it
 * runs, at or above the client's level, and the reply after them is read as before; outside
 * toolgen serve (no client) a log message goes to stderr instead. */
static void collect(void *ctx, const cJSON *e)
{
    cJSON_AddItemToArray((cJSON *)ctx, cJSON_Duplicate(e, true));
}

static void test_events(fixture *fx)
{
    tg_err err = {0};
    const char *text = "{\"file_path\":\"data/x.csv\",\"mode\":\"events\"}";
    cJSON *args = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    cJSON *client = tg_json_parse("{\"log_level\":\"info\"}", 20, NULL, NULL, NULL, &err);
    cJSON *seen = cJSON_CreateArray();
    tg_tool_call c = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args,
                      .client = client, .on_event = collect, .event_ctx = seen};
    tg_call_result r;
    CHECK(tg_tool_call_run(&fx->env.ctx, &c, &r, &err) == TG_CALL_DONE, "%s", err.msg);
    CHECK(r.ok && number(r.result, "lines") == 3, "the reply after the events: %s", r.guidance.message);
    char *got = tg_json_print_compact(seen);
    CHECK(strcmp(got, "[{\"event\":\"log\",\"level\":\"info\",\"data\":{\"lines\":3},"
                      "\"logger\":\"probe.count\"},{\"event\":\"progress\",\"progress\":1.0,"
                      "\"total\":2.0,\"message\":\"half\"}]") == 0 ||
          strcmp(got, "[{\"event\":\"log\",\"level\":\"info\",\"data\":{\"lines\":3},"
                      "\"logger\":\"probe.count\"},{\"event\":\"progress\",\"progress\":1,"
                      "\"total\":2,\"message\":\"half\"}]") == 0,
          "the info message and the progress, not the debug one: %s", got);
    free(got);
    tg_call_result_free(&r);
    c.client = NULL;
    c.on_event = NULL;
    CHECK(tg_tool_call_run(&fx->env.ctx, &c, &r, &err) == TG_CALL_DONE, "%s", err.msg);
    CHECK(r.ok && strstr(r.sb.err.data, "[info] probe.count: {'lines': 3}"),
          "no client: the message on stderr (%s)", r.sb.err.data);
    tg_call_result_free(&r);
    cJSON_Delete(seen);
    cJSON_Delete(client);
    cJSON_Delete(args);
}

int main(void)
{
    snprintf(repo, sizeof repo, "/tmp/tg-toolrun-%ld", (long)getpid());
    fixture fx = {0};
    /* a file outside data/, which the tool must not be given */
    char cmd0[160];
    snprintf(cmd0, sizeof cmd0, "mkdir -p %s && echo s > %s/secret", repo, repo);
    SETUP(system(cmd0) == 0, "setup secret");
    if (fixture_open(&fx, repo, manifest, tool_py) == 0) {
        test_success_with_defaults(&fx);
        test_invalid_output(&fx);
        test_refused(&fx);
        test_files(&fx);
        test_timeouts(&fx);
        test_events(&fx);
    }
    fixture_close(&fx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", repo);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", repo);
    return tl_finish("toolrun");
}
