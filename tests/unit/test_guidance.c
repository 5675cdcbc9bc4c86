/* test_guidance.c — classification rules, the docs links they give, resource analysis. Their speed
 * is measured by bench/classify_bench.c (docs/benchmarks.md), not asserted here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "run/guidance.h"
#include "base/json.h"
#include "model/manifest.h"
#include "testlib.h"

static cJSON *parse(const char *s)
{
    tg_err err = {0};
    cJSON *v = tg_json_parse(s, strlen(s), NULL, NULL, NULL, &err);
    if (!v)
        fprintf(stderr, "bad test JSON: %s: %s\n", s, err.msg);
    return v;
}

static tg_run_facts base(const char *runtime)
{
    tg_run_facts f = {0};
    f.runtime = runtime;
    f.ran = true;
    f.limits = (tg_limits)TG_LIMITS_DEFAULT;
    f.max = (tg_limits)TG_LIMITS_MAX_DEFAULT;
    f.wall_ms = 120;
    f.cpu_ms = 80;
    f.max_rss_kb = 40000;
    return f;
}

/* Classifies a reply error given as JSON; checks code and class. */
static void reply_case(const char *runtime, const char *reply_json, const char *code,
                       tg_error_class cls)
{
    tg_run_facts f = base(runtime);
    cJSON *reply = parse(reply_json);
    f.reply = reply;
    tg_guidance g;
    bool failed = tg_classify(&f, &g);
    CHECK(failed, "%s: expected a failure", reply_json);
    CHECK(g.cls == cls, "%s: class %s, expected %s", reply_json, tg_error_class_name(g.cls),
          tg_error_class_name(cls));
    CHECK(g.code && strcmp(g.code, code) == 0, "%s: code %s, expected %s", reply_json,
          g.code ? g.code : "(null)", code);
    CHECK(g.what[0] && g.cause[0] && g.n_fix > 0 && g.doc, "%s: incomplete guidance", reply_json);
    cJSON_Delete(reply);
}

static void test_reply_rules(void)
{
    reply_case("python", "{\"ok\":false,\"error\":{\"phase\":\"call\",\"type\":\"KeyError\","
                         "\"mro\":[\"KeyError\",\"LookupError\",\"Exception\"],\"key\":\"region\","
                         "\"message\":\"KeyError: 'region'\"}}",
               "INVALID_INPUT", TG_CLASS_MISSING_KEY);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"FileNotFoundError\",\"mro\":["
                         "\"FileNotFoundError\",\"OSError\"],\"errno_name\":\"ENOENT\","
                         "\"message\":\"nope\"}}",
               "NOT_FOUND", TG_CLASS_FILE_NOT_FOUND);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"OSError\",\"mro\":[\"OSError\"],"
                         "\"errno_name\":\"EROFS\",\"message\":\"Read-only file system\"}}",
               "FORBIDDEN", TG_CLASS_PERMISSION_DENIED);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"OSError\",\"mro\":[\"OSError\"],"
                         "\"errno_name\":\"EFBIG\",\"message\":\"File too large\"}}",
               "INTERNAL_ERROR", TG_CLASS_OUTPUT_LIMIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"BlockingIOError\",\"mro\":["
                         "\"BlockingIOError\",\"OSError\"],\"errno_name\":\"EAGAIN\","
                         "\"message\":\"Resource temporarily unavailable\"}}",
               "INTERNAL_ERROR", TG_CLASS_PROCESS_LIMIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"OSError\",\"mro\":[\"OSError\"],"
                         "\"errno_name\":\"EMFILE\",\"message\":\"Too many open files\"}}",
               "INTERNAL_ERROR", TG_CLASS_FILES_LIMIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"ConnectionRefusedError\",\"mro\":["
                         "\"ConnectionRefusedError\",\"ConnectionError\",\"OSError\"],"
                         "\"errno_name\":\"ECONNREFUSED\",\"message\":\"refused\"}}",
               "FORBIDDEN", TG_CLASS_NETWORK_BLOCKED);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"socket.gaierror\",\"mro\":["
                         "\"socket.gaierror\",\"OSError\"],\"message\":\"name resolution\"}}",
               "FORBIDDEN", TG_CLASS_NETWORK_BLOCKED);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"MemoryError\",\"mro\":["
                         "\"MemoryError\",\"Exception\"],\"message\":\"\"}}",
               "INTERNAL_ERROR", TG_CLASS_MEMORY_LIMIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"numpy.core._exceptions._ArrayMemoryError\","
                         "\"mro\":[\"numpy.core._exceptions._ArrayMemoryError\",\"MemoryError\"],"
                         "\"message\":\"Unable to allocate 8 GiB\"}}",
               "INTERNAL_ERROR", TG_CLASS_MEMORY_LIMIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"pandas.errors.EmptyDataError\","
                         "\"mro\":[\"pandas.errors.EmptyDataError\",\"ValueError\"],"
                         "\"message\":\"No columns to parse from file\"}}",
               "INVALID_INPUT", TG_CLASS_EMPTY_DATA);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"TypeError\",\"mro\":[\"TypeError\"],"
                         "\"message\":\"bad operand\"}}",
               "INVALID_INPUT", TG_CLASS_TYPE_ERROR);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"ValueError\",\"mro\":[\"ValueError\"],"
                         "\"message\":\"Column(s) not found. Available columns: a, b\"}}",
               "INVALID_INPUT", TG_CLASS_INVALID_VALUE);
    reply_case("python", "{\"ok\":false,\"error\":{\"phase\":\"load\",\"type\":\"SyntaxError\","
                         "\"mro\":[\"SyntaxError\"],\"lineno\":3,\"message\":\"invalid syntax\"}}",
               "INTERNAL_ERROR", TG_CLASS_SYNTAX_ERROR);
    reply_case("python", "{\"ok\":false,\"error\":{\"phase\":\"load\",\"type\":\"ModuleNotFoundError\","
                         "\"mro\":[\"ModuleNotFoundError\",\"ImportError\"],\"missing_module\":\"scipy\","
                         "\"message\":\"No module named 'scipy'\"}}",
               "INTERNAL_ERROR", TG_CLASS_MODULE_MISSING);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"SignatureMismatch\",\"mro\":[],"
                         "\"message\":\"run() does not match\"}}",
               "INTERNAL_ERROR", TG_CLASS_SIGNATURE_MISMATCH);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"EntrypointMissing\",\"message\":\"x\"}}",
               "INTERNAL_ERROR", TG_CLASS_ENTRYPOINT_MISSING);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"ResultNotJSON\",\"message\":\"x\"}}",
               "INTERNAL_ERROR", TG_CLASS_INVALID_RESULT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"RecursionError\",\"mro\":["
                         "\"RecursionError\",\"RuntimeError\"],\"message\":\"maximum recursion\"}}",
               "INTERNAL_ERROR", TG_CLASS_RECURSION_LIMIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"SystemExit\",\"mro\":[\"SystemExit\"],"
                         "\"message\":\"3\"}}",
               "INTERNAL_ERROR", TG_CLASS_SYSTEM_EXIT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"TimeoutError\",\"mro\":[\"TimeoutError\"],"
                         "\"message\":\"slow\"}}",
               "TIMEOUT", TG_CLASS_TIMEOUT);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"ToolError\",\"code\":\"RATE_LIMITED\","
                         "\"mro\":[\"ToolError\"],\"message\":\"later\"}}",
               "RATE_LIMITED", TG_CLASS_TOOL_ERROR);
    /* a code attribute that is not a deterministic code is ignored */
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"ValueError\",\"code\":\"E42\","
                         "\"mro\":[\"ValueError\"],\"message\":\"x\"}}",
               "INVALID_INPUT", TG_CLASS_INVALID_VALUE);
    reply_case("python", "{\"ok\":false,\"error\":{\"type\":\"RuntimeError\",\"mro\":[\"RuntimeError\"],"
                         "\"message\":\"boom\"}}",
               "INTERNAL_ERROR", TG_CLASS_EXCEPTION);
    reply_case("node", "{\"ok\":false,\"error\":{\"type\":\"RangeError\",\"mro\":[\"RangeError\"],"
                       "\"message\":\"Maximum call stack size exceeded\"}}",
               "INTERNAL_ERROR", TG_CLASS_RECURSION_LIMIT);
    reply_case("node", "{\"ok\":false,\"error\":{\"type\":\"RangeError\",\"mro\":[\"RangeError\"],"
                       "\"message\":\"Array buffer allocation failed\"}}",
               "INTERNAL_ERROR", TG_CLASS_MEMORY_LIMIT);
    reply_case("node", "{\"ok\":false,\"error\":{\"type\":\"Error\",\"mro\":[\"Error\"],"
                       "\"errno_name\":\"ENOTFOUND\",\"message\":\"getaddrinfo\"}}",
               "FORBIDDEN", TG_CLASS_NETWORK_BLOCKED);

    /* allowed_imports decides missing vs not allowed */
    tg_run_facts f = base("python");
    cJSON *reply = parse("{\"ok\":false,\"error\":{\"type\":\"ModuleNotFoundError\",\"mro\":["
                         "\"ModuleNotFoundError\",\"ImportError\"],\"missing_module\":\"requests.adapters\","
                         "\"message\":\"No module named 'requests'\"}}");
    cJSON *allowed = parse("[\"pandas\",\"numpy\"]");
    f.reply = reply;
    f.allowed_imports = allowed;
    tg_guidance g;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_MODULE_NOT_ALLOWED, "requests not allowed: %s", tg_error_class_name(g.cls));
    cJSON_Delete(allowed);
    allowed = parse("[\"pandas\",\"requests\"]");
    f.allowed_imports = allowed;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_MODULE_MISSING, "requests allowed but missing: %s", tg_error_class_name(g.cls));
    cJSON_Delete(allowed);
    cJSON_Delete(reply);

    /* the concrete fix names the columns from the tool's own message */
    f = base("python");
    reply = parse("{\"ok\":false,\"error\":{\"type\":\"ToolError\",\"code\":\"INVALID_INPUT\","
                  "\"message\":\"Column(s) not found in data/tips.csv: region. Available columns: "
                  "total_bill, tip, sex\"}}");
    f.reply = reply;
    tg_classify(&f, &g);
    CHECK_CONTAINS(g.fix[0], "Use one of the available columns: total_bill, tip, sex");
    cJSON_Delete(reply);
}

static void test_process_rules(void)
{
    tg_guidance g;
    tg_run_facts f = base("python");
    f.killed_by = TG_LIMIT_WALL;
    f.signal = 9;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_TIMEOUT && strcmp(g.code, "TIMEOUT") == 0, "wall: %s", tg_error_class_name(g.cls));
    /* the diagnosis follows the CPU the tree used against the wall clock: under a tenth of it,
     * the tool was waiting (the facts as a run would give them, without running anything) */
    f.limits.wall_ms = 2500;
    f.wall_ms = 2510;
    f.cpu_ms = 30;
    tg_classify(&f, &g);
    CHECK_CONTAINS(g.cause, "waiting, not computing");
    f.cpu_ms = 2400;
    tg_classify(&f, &g);
    CHECK_CONTAINS(g.cause, "computation takes longer");

    f = base("python");
    f.killed_by = TG_LIMIT_OUTPUT;
    f.overflow_stream = "stdout";
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_OUTPUT_LIMIT, "output: %s", tg_error_class_name(g.cls));
    CHECK_CONTAINS(g.message, "stdout");

    f = base("python");
    f.killed_by = TG_LIMIT_DISK;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_DISK_LIMIT, "disk: %s", tg_error_class_name(g.cls));

    /* SIGKILL after using the CPU budget: the CPU limit, not a crash */
    f = base("python");
    f.exit_code = 137;
    f.signal = 9;
    f.signal_inferred = true;
    f.cpu_ms = 30500;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_CPU_LIMIT && strcmp(g.code, "TIMEOUT") == 0, "cpu: %s", tg_error_class_name(g.cls));
    /* ... but a SIGKILL with little CPU is not */
    f.cpu_ms = 100;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_CRASH, "sigkill without cpu: %s", tg_error_class_name(g.cls));
    /* SIGXCPU is the CPU limit whatever the accounting says */
    f.signal = 24;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_CPU_LIMIT, "sigxcpu: %s", tg_error_class_name(g.cls));

    /* Node's own OOM abort: stderr is read only together with a signal death */
    f = base("node");
    f.signal = 6;
    f.exit_code = 134;
    f.stderr_tail = "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory";
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_MEMORY_LIMIT, "node oom: %s", tg_error_class_name(g.cls));
    f.signal = 0;
    f.exit_code = 1;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_CRASH, "oom text without a signal is not memory: %s", tg_error_class_name(g.cls));

    /* A successful reply wins over anything printed or exited afterwards. */
    f = base("python");
    cJSON *reply = parse("{\"ok\":true,\"result\":{\"a\":1}}");
    f.reply = reply;
    f.stderr_tail = "MemoryError\nTraceback";
    CHECK(!tg_classify(&f, &g), "ok reply with scary stderr is a success (%s)", tg_error_class_name(g.cls));
    f.output_schema_message = "/a: expected string";
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_OUTPUT_SCHEMA, "output schema: %s", tg_error_class_name(g.cls));
    cJSON_Delete(reply);

    /* garbage on the reply channel */
    f = base("python");
    f.reply_garbled = true;
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_CRASH, "garbled: %s", tg_error_class_name(g.cls));

    /* commands: exit codes through exit_codes, else UPSTREAM_ERROR */
    f = base("command");
    f.exit_code = 1;
    f.mapped_code = "NOT_FOUND";
    tg_classify(&f, &g);
    CHECK(g.cls == TG_CLASS_COMMAND_FAILED && strcmp(g.code, "NOT_FOUND") == 0, "mapped: %s", g.code);
    f.mapped_code = NULL;
    tg_classify(&f, &g);
    CHECK(strcmp(g.code, "UPSTREAM_ERROR") == 0, "unmapped: %s", g.code);
    f.exit_code = 0;
    CHECK(!tg_classify(&f, &g), "command exit 0 is success");

    /* refused before running */
    f = (tg_run_facts){0};
    f.pre = TG_CLASS_PATH_FORBIDDEN;
    f.pre_message = "file_path: path '/etc/passwd' is outside";
    tg_classify(&f, &g);
    CHECK(strcmp(g.code, "FORBIDDEN") == 0, "path forbidden: %s", g.code);
    CHECK_CONTAINS(g.message, "/etc/passwd");
    f.pre = TG_CLASS_PATH_NOT_FOUND;
    tg_classify(&f, &g);
    CHECK(strcmp(g.code, "NOT_FOUND") == 0, "path not found: %s", g.code);
    f.pre = TG_CLASS_INPUT_SCHEMA;
    tg_classify(&f, &g);
    CHECK(strcmp(g.code, "INVALID_INPUT") == 0, "input schema: %s", g.code);
}

static void test_resources(void)
{
    CHECK(tg_usage_status_of(0) == TG_USAGE_EFFICIENT, "0%%");
    CHECK(tg_usage_status_of(49.9) == TG_USAGE_EFFICIENT, "49.9%%");
    CHECK(tg_usage_status_of(50) == TG_USAGE_MODERATE, "50%%");
    CHECK(tg_usage_status_of(74.9) == TG_USAGE_MODERATE, "74.9%%");
    CHECK(tg_usage_status_of(75) == TG_USAGE_WARNING, "75%%");
    CHECK(tg_usage_status_of(90) == TG_USAGE_CRITICAL, "90%%");
    CHECK(tg_usage_status_of(100) == TG_USAGE_EXHAUSTED, "100%%");

    tg_run_facts f = base("python");
    tg_resources r;
    f.cpu_ms = 27500; /* 91.7 % of 30 s */
    tg_resources_analyze(&f, NULL, &r);
    CHECK(r.cpu.status == TG_USAGE_CRITICAL, "cpu critical: %s", tg_usage_status_name(r.cpu.status));
    CHECK(r.status == TG_USAGE_CRITICAL, "overall is the worst");
    CHECK_CONTAINS(r.recommendation, "constraints.limits.cpu_s to 55");

    f = base("python");
    f.max_rss_kb = 800 * 1024; /* 78 % of 1024 MiB */
    tg_resources_analyze(&f, NULL, &r);
    CHECK(r.memory.status == TG_USAGE_WARNING, "memory warning: %s", tg_usage_status_name(r.memory.status));
    CHECK_CONTAINS(r.recommendation, "memory_mb");

    f = base("python");
    tg_guidance g = {.cls = TG_CLASS_MEMORY_LIMIT};
    tg_resources_analyze(&f, &g, &r);
    CHECK(r.memory.status == TG_USAGE_EXHAUSTED && r.memory.percent == 100, "memory limit hit = exhausted");
    CHECK_CONTAINS(r.recommendation, "exhausted");

    f = base("python");
    tg_resources_analyze(&f, NULL, &r);
    CHECK(r.status == TG_USAGE_EFFICIENT, "small call efficient");
    CHECK_CONTAINS(r.recommendation, "no change needed");
    cJSON *j = tg_resources_json(&r);
    CHECK(cJSON_IsObject(tg_json_get(j, "cpu")) && tg_json_get_string(j, "status"), "resources json");
    cJSON_Delete(j);
}

/* GitHub-style anchors of the Markdown headings in path. */
static bool has_anchor(const char *text, const char *anchor)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (line[0] != '#')
            continue;
        const char *h = line;
        while (*h == '#')
            h++;
        while (*h == ' ')
            h++;
        tg_buf slug = TG_BUF_INIT;
        tg_buf_puts(&slug, "");
        for (; *h && *h != '\n'; h++) {
            char c = *h;
            if (c >= 'A' && c <= 'Z')
                tg_buf_putc(&slug, (char)(c - 'A' + 'a'));
            else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
                tg_buf_putc(&slug, c);
            else if (c == ' ')
                tg_buf_putc(&slug, '-');
        }
        bool match = strcmp(slug.data, anchor) == 0;
        tg_buf_free(&slug);
        if (match)
            return true;
    }
    return false;
}

static void test_docs_links(void)
{
    tg_err err = {0};
    char *doc = tg_read_file("docs/sandbox.md", 0, NULL, &err);
    CHECK(doc != NULL, "docs/sandbox.md readable (run from the repository root): %s", err.msg);
    if (!doc)
        return;
    for (int c = 0; c < TG_CLASS_COUNT; c++) {
        const char *link = tg_error_class_doc((tg_error_class)c);
        CHECK(tg_str_startswith(link, "docs/sandbox.md#"), "class %d link %s", c, link);
        const char *anchor = strchr(link, '#');
        CHECK(anchor && has_anchor(doc, anchor + 1), "docs/sandbox.md has no section #%s (class %s)",
              anchor ? anchor + 1 : "?", tg_error_class_name((tg_error_class)c));
    }
    /* the other sections messages point at */
    static const char *const more[] = {"requirements", "isolation-none", "running-as-root",
                                       "resource-analysis", "limits"};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        CHECK(has_anchor(doc, more[i]), "docs/sandbox.md has no section #%s", more[i]);
    free(doc);
}

/* The guidance texts are templates over the call's facts: the tool's own text is inserted as it
 * is, never expanded again, and the limits and names are the call's. */
static void test_templates(void)
{
    tg_run_facts f = base("python");
    cJSON *reply = parse("{\"ok\":false,\"error\":{\"type\":\"ValueError\",\"mro\":[\"ValueError\"],"
                         "\"message\":\"bad {type} in {msg}. Available columns: a, b\"}}");
    f.reply = reply;
    tg_guidance g;
    CHECK(tg_classify(&f, &g) && g.cls == TG_CLASS_INVALID_VALUE, "invalid value");
    CHECK(strcmp(g.message, "bad {type} in {msg}. Available columns: a, b") == 0,
          "the tool's text verbatim: %s", g.message);
    CHECK(g.n_fix == 2 && strcmp(g.fix[0], "Use one of the available columns: a, b.") == 0,
          "the columns fix first: %s", g.fix[0]);
    cJSON_Delete(reply);

    f = base("python");
    f.limits.memory_mb = 333;
    f.max.memory_mb = 777;
    reply = parse("{\"ok\":false,\"error\":{\"type\":\"MemoryError\",\"mro\":[\"MemoryError\"]}}");
    f.reply = reply;
    CHECK(tg_classify(&f, &g) && g.cls == TG_CLASS_MEMORY_LIMIT, "memory");
    CHECK(strcmp(g.message, "the tool ran out of memory (limit 333 MiB): MemoryError") == 0,
          "message: %s", g.message);
    CHECK_CONTAINS(g.fix[1], "(now 333; sandbox.max_limits.memory_mb allows 777)");
    cJSON_Delete(reply);

    f = base("node");
    reply = parse("{\"ok\":false,\"error\":{\"type\":\"SyntaxError\",\"lineno\":7,"
                  "\"message\":\"Unexpected token\"}}");
    f.reply = reply;
    CHECK(tg_classify(&f, &g) && g.cls == TG_CLASS_SYNTAX_ERROR, "syntax");
    CHECK(strcmp(g.message, "syntax error in the tool's code at line 7: Unexpected token") == 0,
          "message: %s", g.message);
    CHECK_CONTAINS(g.cause, "Invalid JavaScript syntax");
    CHECK_CONTAINS(g.fix[0], "Fix line 7 of the tool file");
    cJSON_Delete(reply);
}

int main(void)
{
    test_reply_rules();
    test_templates();
    test_process_rules();
    test_resources();
    test_docs_links();
    return tl_finish("guidance");
}
