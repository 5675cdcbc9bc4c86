/*
 * test_code.c — the code runtime (run/rt_code.c, run/codeguide.c, runner_code.py / .js;
 * docs/code.md) through the real sandbox, with the code toolset's own manifests
 * (toolsets/code): files, charts and the visualization manifest of a pandas + matplotlib program,
 * the timeout, memory and output limits each with its code and resource analysis, packages not
 * installed or not allowed with the alternatives named, workingDir escapes refused, exit
 * statuses, error words that are not errors, and the same for Node.js; the guidance's documents
 * exist and the descriptions fit their budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/util.h"
#include "emit/common.h"
#include "model/manifest.h"
#include "model/repo.h"
#include "run/codeguide.h"
#include "run/toolrun.h"
#include "run/warmpool.h"
#include "schema/jsonschema.h"
#include "testlib.h"
#include "code_fixture.h"


static tg_repo repo;
static tg_toolrun_env env;
static code_tool py, js;


/* One call with args (JSON text) in the environment ctx; valid: skip the input_schema check. */
static void call_in(const tg_toolrun_ctx *ctx, code_tool *t, const char *args_json,
                    bool valid, tg_call_result *r)
{
    tg_err err = {0};
    cJSON *args = tg_json_parse(args_json, strlen(args_json), NULL, NULL, NULL, &err);
    CHECK(args != NULL, "args %s: %s", args_json, err.msg);
    tg_tool_call c = {.m = &t->m, .input = t->in, .output = t->out, .args = args,
                      .args_valid = valid};
    tg_call_status st = tg_tool_call_run(ctx, &c, r, &err);
    CHECK(st == TG_CALL_DONE, "%s: status %d: %s", args_json, st, err.msg);
    cJSON_Delete(args);
}

static void call(code_tool *t, const char *args_json, tg_call_result *r)
{
    call_in(&env.ctx, t, args_json, false, r);
}

/* {"code": code} plus the members of more ("" or ", \"timeout\": 1"). */
static void run_code(code_tool *t, const char *code, const char *more, tg_call_result *r)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "code", code);
    char *text = tg_json_print_compact(a);
    text[strlen(text) - 1] = '\0';
    char *args = xasprintf("%s%s}", text, more);
    call(t, args, r);
    free(args);
    free(text);
    cJSON_Delete(a);
}

static const char *str(const cJSON *o, const char *pointer)
{
    const cJSON *v = tg_json_pointer_get(o, pointer);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool is(const cJSON *o, const char *pointer, const char *want)
{
    const char *s = str(o, pointer);
    return s && strcmp(s, want) == 0;
}

static double num(const cJSON *o, const char *pointer)
{
    const cJSON *v = tg_json_pointer_get(o, pointer);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* ---- files and charts ----------------------------------------------------------------------- */

static const char viz_program[] =
    "import json\n"
    "import pandas as pd\n"
    "import matplotlib.pyplot as plt\n"
    "df = pd.DataFrame({'month': ['Jan', 'Feb', 'Mar'], 'revenue': [10, 12, 15]})\n"
    "df.to_csv('revenue.csv', index=False)\n"
    "df.plot.bar(x='month', y='revenue')\n"
    "plt.savefig('revenue.png', dpi=50)\n"
    "json.dump({'version': '1.0', 'outputs': [\n"
    "    {'id': 't', 'type': 'table', 'dataFile': 'revenue.csv'},\n"
    "    {'id': 'c', 'type': 'bar_chart', 'dataFile': 'revenue.csv',\n"
    "     'config': {'xColumn': 'month', 'yColumn': 'revenue'}}]},\n"
    "    open('visualization_manifest.json', 'w'))\n"
    "print(df['revenue'].sum())\n";

static void test_files_and_charts(void)
{
    tg_call_result r;
    run_code(&py, viz_program, ", \"packages\": [\"pandas\", \"matplotlib\"]", &r);
    const cJSON *o = r.result;
    CHECK(r.ok && cJSON_IsTrue(tg_json_get(o, "success")), "pandas + matplotlib: %s",
          r.guidance.message);
    CHECK(is(o, "/stdout", "37\n") && num(o, "/returnCode") == 0, "stdout and return code");
    CHECK(cJSON_GetArraySize(tg_json_get(o, "files")) == 3 && r.sb.n_files == 3,
          "three files in the result and the call's files");
    CHECK(is(o, "/files/0/path", "revenue.csv") && is(o, "/files/0/type", "csv") &&
              is(o, "/files/1/path", "revenue.png") && is(o, "/files/1/type", "image") &&
              num(o, "/files/1/size") > 1000 && is(o, "/files/2/type", "json"),
          "csv, image, json with their sizes");
    CHECK(is(o, "/visualizations/version", "1.0") &&
              is(o, "/visualizations/outputs/1/type", "bar_chart") &&
              !tg_json_get(o, "visualizationErrors"),
          "the visualization manifest as written");
    CHECK(!tg_json_get(o, "error_guidance") && is(o, "/resource_analysis/status", "efficient"),
          "no guidance on success; the analysis is there");
    CHECK(num(o, "/executionTime") > 0, "execution time");
    tg_call_result_free(&r);
}

static void test_visualization_problems(void)
{
    tg_call_result r;
    run_code(&py,
             "import json\n"
             "json.dump({'version': '1.0', 'outputs': [{'id': 'c', 'type': 'bar_chart', "
             "'dataFile': 'missing.csv'}]}, open('visualization_manifest.json', 'w'))\n",
             "", &r);
    const cJSON *o = r.result;
    CHECK(r.ok && !tg_json_get(o, "visualizations"), "a manifest naming a missing file: not used");
    CHECK_CONTAINS(str(o, "/visualizationErrors/0"), "missing.csv");
    tg_call_result_free(&r);

    run_code(&py,
             "open('visualization_manifest.json', 'w').write('{\"version\": \"1.0\", "
             "\"outputs\": [{\"id\": \"c\", \"type\": \"radar\", \"dataFile\": \"x\"}]')\n"
             "open('x', 'w').write('a')\n",
             "", &r);
    CHECK(r.ok && !tg_json_get(r.result, "visualizations") &&
              cJSON_GetArraySize(tg_json_get(r.result, "visualizationErrors")) >= 1,
          "a type the schema does not know: a note, not a crash");
    tg_call_result_free(&r);

    run_code(&js, "require('fs').writeFileSync('visualization_manifest.json', '{not json');", "",
             &r);
    CHECK(r.ok && cJSON_GetArraySize(tg_json_get(r.result, "visualizationErrors")) == 1,
          "not JSON: a note");
    tg_call_result_free(&r);
}

/* ---- limits --------------------------------------------------------------------------------- */

/* A failure of class cls, error code code, error type type, with budget (resource_analysis
 * member) exhausted. */
static void check_limit(tg_call_result *r, const char *what, tg_error_class cls,
                        const char *code, const char *type, const char *budget)
{
    const cJSON *o = r->result;
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/resource_analysis/%s/status", budget);
    CHECK(!r->ok && r->guidance.cls == cls, "%s: class %s", what,
          tg_error_class_name(r->guidance.cls));
    CHECK(r->guidance.code && strcmp(r->guidance.code, code) == 0, "%s: code %s", what,
          r->guidance.code ? r->guidance.code : "(none)");
    CHECK(is(o, "/error_guidance/error_type", type), "%s: error type %s", what,
          str(o, "/error_guidance/error_type") ? str(o, "/error_guidance/error_type") : "(none)");
    CHECK(is(o, ptr, "exhausted") && is(o, "/resource_analysis/status", "exhausted"),
          "%s: %s exhausted", what, budget);
    snprintf(ptr, sizeof ptr, "/resource_analysis/%s/likely_causes/0", budget);
    CHECK(str(o, ptr) != NULL, "%s: likely causes", what);
    CHECK(cJSON_IsFalse(tg_json_get(o, "success")) && str(o, "/error_guidance/related_docs/0"),
          "%s: success false, documented", what);
}

static void test_limits(code_tool *t, const char *spin, const char *blow_up,
                        const char *flood)
{
    const char *lang = t == &py ? "python" : "node";
    tg_call_result r;
    char what[64];
    run_code(t, spin, ", \"timeout\": 1", &r);
    snprintf(what, sizeof what, "%s timeout", lang);
    check_limit(&r, what, TG_CLASS_TIMEOUT, "TIMEOUT", "Timeout", "wall_clock");
    CHECK(r.limits.wall_ms == 1000 && num(r.result, "/resource_analysis/wall_clock/budget") == 1000,
          "%s: the timeout argument is the wall clock", what);
    CHECK_CONTAINS(str(r.result, "/resource_analysis/wall_clock/recommendation"), "at most 60 s");
    tg_call_result_free(&r);

    run_code(t, blow_up, "", &r);
    snprintf(what, sizeof what, "%s memory", lang);
    check_limit(&r, what, TG_CLASS_MEMORY_LIMIT, "INVALID_INPUT", "MemoryError", "memory");
    CHECK_CONTAINS(r.guidance.message, "limit 2048 MiB");
    tg_call_result_free(&r);

    run_code(t, flood, "", &r);
    snprintf(what, sizeof what, "%s output", lang);
    check_limit(&r, what, TG_CLASS_OUTPUT_LIMIT, "INVALID_INPUT", "OutputLimitExceeded", "output");
    const char *out = str(r.result, "/stdout");
    CHECK(cJSON_IsTrue(tg_json_get(r.result, "stdoutTruncated")) && out &&
              strlen(out) < 40 * 1024 && strstr(out, "bytes left out") &&
              strstr(out, "cut at the output cap"),
          "%s: stdout capped with its markers", what);
    tg_call_result_free(&r);

    run_code(t, t == &py ? "print(1)" : "console.log(1)", ", \"timeout\": 3000", &r);
    CHECK(r.ok && r.limits.wall_ms == 60000, "%s: a timeout above the tool's limit is capped", lang);
    tg_call_result_free(&r);
}

/* ---- packages ------------------------------------------------------------------------------- */

static void test_packages(void)
{
    tg_call_result r;
    run_code(&py, "print(1)", ", \"packages\": [\"pandas\", \"seaborn\"]", &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "NOT_FOUND") == 0 && r.guidance.cls ==
              TG_CLASS_MODULE_MISSING, "seaborn: allowed, not installed: %s", r.guidance.code);
    CHECK(is(r.result, "/error_guidance/error_type", "PackageNotInstalled") &&
              cJSON_IsNull(tg_json_get(r.result, "returnCode")),
          "not installed: the program did not run");
    CHECK_CONTAINS(r.guidance.message, "seaborn");
    CHECK_CONTAINS(str(r.result, "/error_guidance/actionable_guidance/1"),
                   "pandas, numpy, scipy, matplotlib");
    tg_call_result_free(&r);

    run_code(&py, "print(1)", ", \"packages\": [\"torch\"]", &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "FORBIDDEN") == 0 &&
              is(r.result, "/error_guidance/error_type", "PackageNotAllowed"),
          "torch: not allowed");
    CHECK_CONTAINS(r.guidance.message, "not allowed: torch");
    CHECK_CONTAINS(r.guidance.message, "pandas");
    tg_call_result_free(&r);

    run_code(&py, "import json, csv\nprint(1)", ", \"packages\": [\"json\", \"csv\"]", &r);
    CHECK(r.ok, "the standard library is always allowed: %s", r.guidance.message);
    tg_call_result_free(&r);

    /* every default of code.allowed_packages (the schema's) is allowed */
    run_code(&py, "print(1)",
             ", \"packages\": [\"pandas\", \"numpy\", \"scipy\", \"matplotlib\", \"seaborn\", "
             "\"plotly\", \"requests\", \"beautifulsoup4\", \"scikit-learn\", \"openpyxl\"]",
             &r);
    CHECK(!r.ok && is(r.result, "/error_guidance/error_type", "PackageNotInstalled"),
          "the defaults are all allowed (only some are installed)");
    tg_call_result_free(&r);

    run_code(&py, "import seaborn", "", &r);
    CHECK(!r.ok && is(r.result, "/error_guidance/error_type", "ModuleNotFoundError") &&
              num(r.result, "/error_guidance/line") == 1 && num(r.result, "/returnCode") == 1,
          "an import that fails in the program");
    CHECK_CONTAINS(str(r.result, "/error_guidance/actionable_guidance/1"), "pandas");
    tg_call_result_free(&r);

    run_code(&py, "from math import square_root", "", &r);
    CHECK(!r.ok && is(r.result, "/error_guidance/error_type", "ImportError"),
          "a name the module lacks");
    CHECK_CONTAINS(str(r.result, "/error_guidance/actionable_guidance/1"), "dir(module)");
    tg_call_result_free(&r);

    run_code(&js, "console.log(1)", ", \"packages\": [\"lodash\"]", &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "FORBIDDEN") == 0, "node: lodash not allowed");
    CHECK_CONTAINS(r.guidance.message, "built-in modules");
    tg_call_result_free(&r);

    run_code(&js, "console.log(require('path').sep)", ", \"packages\": [\"fs\", \"path\"]", &r);
    CHECK(r.ok, "node: built-in modules are always allowed: %s", r.guidance.message);
    tg_call_result_free(&r);

    /* toolgen.yaml's code.allowed_packages replaces the default */
    tg_err err = {0};
    const char cfg[] = "{\"code\": {\"allowed_packages\": {\"python\": [\"numpy\"]}}}";
    cJSON *config = tg_json_parse(cfg, strlen(cfg), NULL, NULL, NULL, &err);
    tg_toolrun_env own;
    CHECK(tg_toolrun_env_open(&own, &repo, config, &err) == 0, "env: %s", err.msg);
    call_in(&own.ctx, &py, "{\"code\": \"print(1)\", \"packages\": [\"pandas\"]}", false, &r);
    CHECK(!r.ok && strcmp(r.guidance.code, "FORBIDDEN") == 0, "pandas is not in the configured list");
    CHECK_CONTAINS(r.guidance.message, "installed: numpy");
    tg_call_result_free(&r);
    tg_toolrun_env_close(&own);
    cJSON_Delete(config);
}

/* ---- the working directory ------------------------------------------------------------------ */

static void test_working_dir(void)
{
    static const char *const refused[] = {"../x", "/tmp", "a/../../b", "./a", "a//b", ".."};
    tg_call_result r;
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char *args = xasprintf("{\"code\": \"print(1)\", \"workingDir\": \"%s\"}", refused[i]);
        call(&py, args, &r);
        CHECK(!r.ok && !r.ran && r.guidance.cls == TG_CLASS_INPUT_SCHEMA,
              "workingDir %s refused before running", refused[i]);
        CHECK_CONTAINS(r.guidance.message, "/workingDir");
        tg_call_result_free(&r);
        /* the runners check again, should a looser schema let it through */
        call_in(&env.ctx, i % 2 ? &js : &py, args, true, &r);
        CHECK(!r.ok && is(r.result, "/error_guidance/error_type", "InvalidWorkingDir") &&
                  cJSON_IsNull(tg_json_get(r.result, "returnCode")),
              "workingDir %s refused by the runner", refused[i]);
        tg_call_result_free(&r);
        free(args);
    }
    run_code(&js, "require('fs').writeFileSync('a.txt', 'x')", ", \"workingDir\": \"out/run1\"", &r);
    CHECK(r.ok && is(r.result, "/files/0/path", "out/run1/a.txt"), "node: a subfolder");
    tg_call_result_free(&r);
}

/* ---- exits, exceptions, words ----------------------------------------------------------------- */

static void test_exits(void)
{
    tg_call_result r;
    run_code(&py, "import sys\nprint('done')\nsys.exit(0)", "", &r);
    CHECK(r.ok && num(r.result, "/returnCode") == 0, "sys.exit(0) is a success");
    tg_call_result_free(&r);

    run_code(&py, "import sys\nsys.exit(3)", "", &r);
    CHECK(!r.ok && num(r.result, "/returnCode") == 3 &&
              is(r.result, "/error_guidance/error_type", "NonZeroExit") &&
              strcmp(r.guidance.code, "INVALID_INPUT") == 0,
          "sys.exit(3): %s", r.guidance.message);
    tg_call_result_free(&r);

    run_code(&py, "x = 1\ny = x / 0\n", "", &r);
    CHECK(!r.ok && num(r.result, "/returnCode") == 1 &&
              is(r.result, "/error_guidance/error_type", "ZeroDivisionError") &&
              num(r.result, "/error_guidance/line") == 2,
          "an exception: status 1, its type and line");
    CHECK_CONTAINS(str(r.result, "/stderr"), "ZeroDivisionError: division by zero");
    CHECK(!strstr(str(r.result, "/stderr"), "runner_code"), "the runner's frames are not shown");
    CHECK_CONTAINS(str(r.result, "/error_guidance/related_docs/0"), "docs/code.md#");
    CHECK(cJSON_GetArraySize(tg_json_pointer_get(r.result, "/error_guidance/code_examples")) == 1,
          "a code example");
    tg_call_result_free(&r);

    run_code(&py, "row = {'a': 1}\nprint(row['b'])", "", &r);
    CHECK(!r.ok && strcmp(r.guidance.message, "KeyError: 'b' (line 2)") == 0,
          "a key error's message as Python prints it: %s", r.guidance.message);
    tg_call_result_free(&r);

    run_code(&js, "console.log('a');\nprocess.exit(4);", "", &r);
    CHECK(!r.ok && num(r.result, "/returnCode") == 4 && is(r.result, "/stdout", "a\n") &&
              is(r.result, "/error_guidance/error_type", "NonZeroExit"),
          "node: process.exit(4)");
    tg_call_result_free(&r);

    run_code(&js, "console.log(require.main === module, __filename, process.argv.length);", "", &r);
    CHECK(r.ok && is(r.result, "/stdout", "true /work/[code] 2\n"),
          "node: the program is the main module: %s", str(r.result, "/stdout"));
    tg_call_result_free(&r);

    run_code(&js, "const o = undefined;\nconsole.log(o.x);", "", &r);
    CHECK(!r.ok && is(r.result, "/error_guidance/error_type", "TypeError") &&
              num(r.result, "/error_guidance/line") == 2,
          "node: TypeError at line 2");
    tg_call_result_free(&r);
}

static void test_error_words(void)
{
    tg_call_result r;
    run_code(&py,
             "import sys, logging\n"
             "print('Traceback (most recent call last):\\nNameError: x')\n"
             "logging.error('MemoryError Timeout Killed Segmentation fault')\n"
             "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e, file=sys.stderr)\n",
             "", &r);
    CHECK(r.ok && cJSON_IsTrue(tg_json_get(r.result, "success")) &&
              !tg_json_get(r.result, "error_guidance"),
          "python: error words are not errors: %s", r.guidance.message);
    tg_call_result_free(&r);
    run_code(&js,
             "console.error('ReferenceError: x is not defined');\n"
             "try { null.x } catch (e) { console.log(String(e)) }\n",
             "", &r);
    CHECK(r.ok && !tg_json_get(r.result, "error_guidance"),
          "node: error words are not errors: %s", r.guidance.message);
    tg_call_result_free(&r);
}

/* ---- documents and descriptions --------------------------------------------------------------- */

/* GitHub's anchor of a heading: lowercase, spaces to '-', other punctuation dropped. */
static void slug(const char *heading, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = heading; *c && n + 1 < cap; c++) {
        if (*c >= 'A' && *c <= 'Z')
            out[n++] = (char)(*c - 'A' + 'a');
        else if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_')
            out[n++] = *c;
        else if (*c == ' ')
            out[n++] = '-';
    }
    out[n] = '\0';
}

/* Every docs/code.md#anchor the guidance table names is a heading of docs/code.md. */
static void test_docs_exist(void)
{
    tg_err err = {0};
    size_t len = 0, n = 0;
    char *doc = tg_read_file("docs/code.md", 1 << 20, &len, &err);
    char *src = tg_read_file("toolgen/run/codeguide.c", 1 << 20, &len, &err);
    CHECK(doc && src, "read: %s", err.msg);
    if (!doc || !src)
        return;
    tg_buf anchors = TG_BUF_INIT;
    for (char *line = doc; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (line[0] != '#')
            continue;
        char *text = line + strspn(line, "# ");
        char heading[256], s[256];
        snprintf(heading, sizeof heading, "%.*s", (int)strcspn(text, "\n"), text);
        slug(heading, s, sizeof s);
        tg_buf_printf(&anchors, "#%s\n", s);
    }
    for (const char *p = src; (p = strstr(p, "\"docs/code.md#")) != NULL; p++) {
        char want[128];
        snprintf(want, sizeof want, "%.*s\n", (int)strcspn(p + 13, "\""), p + 13);
        CHECK(strstr(anchors.data, want) != NULL, "docs/code.md has a heading for %.*s",
              (int)strlen(want) - 1, want);
        n++;
    }
    CHECK(n >= 15, "the guidance names its documents (%zu)", n);
    tg_buf_free(&anchors);
    free(doc);
    free(src);
}

/* The composed descriptions fit OpenAI's 1024 characters without a cut. */
static void test_descriptions(void)
{
    const code_tool *tools[] = {&py, &js};
    for (size_t i = 0; i < 2; i++) {
        char *full = tg_emit_description(&tools[i]->m);
        char *cut = tg_emit_description_max(&tools[i]->m, 1024);
        CHECK(full && cut && strcmp(full, cut) == 0 && strlen(full) <= 1024,
              "%s: description within its budget (%zu characters)", tools[i]->m.name,
              full ? strlen(full) : 0);
        CHECK(strstr(full, "WHEN TO USE") && strstr(full, "Example") && strstr(full, "Pitfalls"),
              "%s: when to use, pitfalls, an example", tools[i]->m.name);
        free(full);
        free(cut);
    }
}

/* ---- error types from facts alone ----------------------------------------------------------- */

static void test_error_types(void)
{
    tg_guidance g = {.cls = TG_CLASS_TIMEOUT};
    tg_run_facts f = {.killed_by = TG_LIMIT_WALL};
    CHECK(strcmp(tg_code_error_type(TG_CODE_PYTHON, &f, &g), "Timeout") == 0, "killed: Timeout");
    const char reply[] = "{\"ok\": false, \"error\": {\"type\": \"TimeoutError\"}}";
    tg_err err = {0};
    cJSON *rep = tg_json_parse(reply, strlen(reply), NULL, NULL, NULL, &err);
    f = (tg_run_facts){.reply = rep};
    CHECK(strcmp(tg_code_error_type(TG_CODE_PYTHON, &f, &g), "TimeoutError") == 0,
          "raised: the exception's type");
    cJSON_Delete(rep);
    const char node[] = "{\"ok\": false, \"error\": {\"type\": \"TypeError\", \"node_code\": "
                        "\"ERR_INVALID_ARG_TYPE\"}}";
    rep = tg_json_parse(node, strlen(node), NULL, NULL, NULL, &err);
    f = (tg_run_facts){.reply = rep};
    g = (tg_guidance){.cls = TG_CLASS_TYPE_ERROR};
    CHECK(strcmp(tg_code_error_type(TG_CODE_NODE, &f, &g), "TypeError") == 0,
          "Node.js's argument checks keep the error's name");
    cJSON_Delete(rep);
    const char dotted[] = "{\"ok\": false, \"error\": {\"type\": \"pandas.errors.EmptyDataError\"}}";
    rep = tg_json_parse(dotted, strlen(dotted), NULL, NULL, NULL, &err);
    f = (tg_run_facts){.reply = rep};
    g = (tg_guidance){.cls = TG_CLASS_EMPTY_DATA};
    CHECK(strcmp(tg_code_error_type(TG_CODE_PYTHON, &f, &g), "EmptyDataError") == 0,
          "the class name without its module");
    cJSON_Delete(rep);
}

/* A one-shot Python program through the warm pool (docs/sandbox.md#the-warm-pool): it runs in a
 * worker that imported pandas ahead, with the result a cold call gives; a call that lowers its
 * own wall clock (`timeout`) uses the same kind of worker; each worker serves one call. */
static void test_pool(void)
{
    tg_warmpool *pool = tg_warmpool_new(&env.ctx);
    const char *program = "import pandas as pd\n"
                          "df = pd.DataFrame({'d': ['a', 'b', 'a'], 'v': [1, 2, 3]})\n"
                          "print(df.groupby('d').v.sum().to_dict())\n";
    for (int i = 0; i < 2; i++) {
        tg_warmpool_prepare(pool, &py.m);
        tg_warmpool_wait(pool, &py.m);
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "code", i ? "x = globals().get('leak', 'fresh')\nprint(x)\n"
                                             : program);
        if (i)
            cJSON_AddNumberToObject(a, "timeout", 5);
        tg_tool_call c = {.m = &py.m, .input = py.in, .output = py.out, .args = a};
        tg_call_result r;
        tg_err err = {0};
        tg_call_status st = tg_warmpool_call_run(pool, &c, &r, &err);
        CHECK(st == TG_CALL_DONE && r.ok, "pool call %d: %s", i, err.msg);
        CHECK(tg_warmpool_warm_calls(pool) == (size_t)i + 1, "pool call %d ran warm (%zu warm)",
              i, tg_warmpool_warm_calls(pool));
        const char *want = i ? "fresh\n" : "{'a': 4, 'b': 2}\n";
        CHECK(is(r.result, "/stdout", want), "pool call %d: stdout %s", i,
              str(r.result, "/stdout") ? str(r.result, "/stdout") : "(none)");
        tg_call_result_free(&r);
        cJSON_Delete(a);
    }
    tg_warmpool_free(pool);
}

int main(void)
{
    tg_err err = {0};
    CHECK(tg_repo_open(&repo, "toolsets/code", &err) == 0, "repo: %s", err.msg);
    CHECK(tg_toolrun_env_open(&env, &repo, repo.cfg.doc.root, &err) == 0, "env: %s", err.msg);
    test_error_types();
    test_docs_exist();
    if (code_tool_open(&py, &repo, "python_execute") == 0 &&
        code_tool_open(&js, &repo, "node_execute") == 0) {
        test_descriptions();
        test_files_and_charts();
        test_visualization_problems();
        test_limits(&py, "while True:\n    pass", "data = bytearray(8 * 1024 ** 3)",
                    "while True:\n    print('spam ' * 20)");
        test_limits(&js, "while (true) {}", "const big = new ArrayBuffer(8 * 1024 ** 3);",
                    "while (true) console.log('spam '.repeat(20));");
        test_packages();
        test_working_dir();
        test_exits();
        test_error_words();
        test_pool();
    }
    code_tool_close(&py);
    code_tool_close(&js);
    tg_toolrun_env_close(&env);
    tg_repo_release(&repo);
    return tl_finish("code");
}
