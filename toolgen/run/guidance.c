/* guidance.c — the classification table, the guidance texts and the resource analysis. */
#include "run/guidance.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/errcode.h"
#include "model/manifest.h"
#include "run/runtime_ops.h"
#include "run/sandbox.h"

static const struct {
    const char *name, *code, *anchor;
} classes[TG_CLASS_COUNT] = {
    [TG_CLASS_NONE] = {"none", NULL, "docs/sandbox.md#error-classes"},
    [TG_CLASS_INPUT_SCHEMA] = {"input_schema", "INVALID_INPUT", "docs/sandbox.md#input-schema"},
    [TG_CLASS_PATH_FORBIDDEN] = {"path_forbidden", "FORBIDDEN", "docs/sandbox.md#path-forbidden"},
    [TG_CLASS_PATH_NOT_FOUND] = {"path_not_found", "NOT_FOUND", "docs/sandbox.md#path-not-found"},
    [TG_CLASS_TIMEOUT] = {"timeout", "TIMEOUT", "docs/sandbox.md#timeout"},
    [TG_CLASS_CPU_LIMIT] = {"cpu_limit", "TIMEOUT", "docs/sandbox.md#cpu-limit"},
    [TG_CLASS_MEMORY_LIMIT] = {"memory_limit", "INTERNAL_ERROR", "docs/sandbox.md#memory-limit"},
    [TG_CLASS_OUTPUT_LIMIT] = {"output_limit", "INTERNAL_ERROR", "docs/sandbox.md#output-limit"},
    [TG_CLASS_DISK_LIMIT] = {"disk_limit", "INTERNAL_ERROR", "docs/sandbox.md#disk-limit"},
    [TG_CLASS_PROCESS_LIMIT] = {"process_limit", "INTERNAL_ERROR", "docs/sandbox.md#process-limit"},
    [TG_CLASS_FILES_LIMIT] = {"files_limit", "INTERNAL_ERROR", "docs/sandbox.md#files-limit"},
    [TG_CLASS_SYNTAX_ERROR] = {"syntax_error", "INTERNAL_ERROR", "docs/sandbox.md#syntax-error"},
    [TG_CLASS_MODULE_MISSING] = {"module_missing", "INTERNAL_ERROR", "docs/sandbox.md#module-missing"},
    [TG_CLASS_MODULE_NOT_ALLOWED] = {"module_not_allowed", "INTERNAL_ERROR",
                                     "docs/sandbox.md#module-not-allowed"},
    [TG_CLASS_ENTRYPOINT_MISSING] = {"entrypoint_missing", "INTERNAL_ERROR",
                                     "docs/sandbox.md#entrypoint-missing"},
    [TG_CLASS_SIGNATURE_MISMATCH] = {"signature_mismatch", "INTERNAL_ERROR",
                                     "docs/sandbox.md#signature-mismatch"},
    [TG_CLASS_TOOL_ERROR] = {"tool_error", NULL, "docs/sandbox.md#tool-error"},
    [TG_CLASS_FILE_NOT_FOUND] = {"file_not_found", "NOT_FOUND", "docs/sandbox.md#file-not-found"},
    [TG_CLASS_PERMISSION_DENIED] = {"permission_denied", "FORBIDDEN",
                                    "docs/sandbox.md#permission-denied"},
    [TG_CLASS_NETWORK_BLOCKED] = {"network_blocked", "FORBIDDEN", "docs/sandbox.md#network-blocked"},
    [TG_CLASS_MISSING_KEY] = {"missing_key", "INVALID_INPUT", "docs/sandbox.md#missing-key"},
    [TG_CLASS_TYPE_ERROR] = {"type_error", "INVALID_INPUT", "docs/sandbox.md#type-error"},
    [TG_CLASS_INVALID_VALUE] = {"invalid_value", "INVALID_INPUT", "docs/sandbox.md#invalid-value"},
    [TG_CLASS_EMPTY_DATA] = {"empty_data", "INVALID_INPUT", "docs/sandbox.md#empty-data"},
    [TG_CLASS_RECURSION_LIMIT] = {"recursion_limit", "INTERNAL_ERROR",
                                  "docs/sandbox.md#recursion-limit"},
    [TG_CLASS_SYSTEM_EXIT] = {"system_exit", "INTERNAL_ERROR", "docs/sandbox.md#system-exit"},
    [TG_CLASS_EXCEPTION] = {"exception", "INTERNAL_ERROR", "docs/sandbox.md#exception"},
    [TG_CLASS_INVALID_RESULT] = {"invalid_result", "INTERNAL_ERROR", "docs/sandbox.md#invalid-result"},
    [TG_CLASS_OUTPUT_SCHEMA] = {"output_schema", "INTERNAL_ERROR", "docs/sandbox.md#output-schema"},
    [TG_CLASS_COMMAND_FAILED] = {"command_failed", "UPSTREAM_ERROR", "docs/sandbox.md#command-failed"},
    [TG_CLASS_CRASH] = {"crash", "INTERNAL_ERROR", "docs/sandbox.md#crash"},
    [TG_CLASS_CANCELLED] = {"cancelled", "INTERNAL_ERROR", "docs/sandbox.md#cancelled"},
};

const char *tg_error_class_name(tg_error_class c)
{
    return c < TG_CLASS_COUNT ? classes[c].name : "unknown";
}

const char *tg_error_class_doc(tg_error_class c)
{
    return c < TG_CLASS_COUNT ? classes[c].anchor : "docs/sandbox.md";
}


/* ---- the runner's error object -------------------------------------------------------------- */

typedef struct rerr {
    const cJSON *obj;
    const char *type, *phase, *message, *code, *errno_name, *filename, *key, *module, *text;
    int lineno, tool_line;
} rerr;

static int get_int(const cJSON *o, const char *k)
{
    const cJSON *v = tg_json_get(o, k);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
}

static void read_error(const cJSON *reply, rerr *e)
{
    *e = (rerr){0};
    const cJSON *o = tg_json_get(reply, "error");
    if (!cJSON_IsObject(o))
        return;
    e->obj = o;
    e->type = tg_json_get_string(o, "type");
    e->phase = tg_json_get_string(o, "phase");
    e->message = tg_json_get_string(o, "message");
    e->code = tg_errcode_canonical(tg_json_get_string(o, "code"));
    e->errno_name = tg_json_get_string(o, "errno_name");
    e->filename = tg_json_get_string(o, "filename");
    e->key = tg_json_get_string(o, "key");
    e->module = tg_json_get_string(o, "missing_module");
    e->text = tg_json_get_string(o, "text");
    e->lineno = get_int(o, "lineno");
    e->tool_line = get_int(o, "tool_line");
}

/* The exception is an instance of name (by the class names of its MRO / prototype chain). */
static bool isa(const rerr *e, const char *name)
{
    if (e->type && strcmp(e->type, name) == 0)
        return true;
    return tg_json_array_has_string(tg_json_get(e->obj, "mro"), name);
}

static bool errno_is(const rerr *e, const char *name)
{
    return e->errno_name && strcmp(e->errno_name, name) == 0;
}

static bool msg_has(const rerr *e, const char *needle)
{
    return e->message && strstr(e->message, needle);
}

/* ---- text helpers --------------------------------------------------------------------------- */

static void setf(char *dst, const char *fmt, ...) TG_PRINTF(2, 3);
static void setf(char *dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, TG_GUIDANCE_TEXT, fmt, ap);
    va_end(ap);
}

static void add_fix(tg_guidance *g, const char *fmt, ...) TG_PRINTF(2, 3);
static void add_fix(tg_guidance *g, const char *fmt, ...)
{
    if (g->n_fix >= TG_GUIDANCE_FIXES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->fix[g->n_fix++], TG_GUIDANCE_TEXT, fmt, ap);
    va_end(ap);
}

static void set_class(tg_guidance *g, tg_error_class c, const char *code_override)
{
    g->cls = c;
    g->code = code_override ? code_override : classes[c].code ? classes[c].code : "INTERNAL_ERROR";
    g->doc = classes[c].anchor;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGTRAP: return "SIGTRAP";
    case SIGTERM: return "SIGTERM";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGPIPE: return "SIGPIPE";
    case SIGINT: return "SIGINT";
    default: return "a signal";
    }
}

/* "... Available columns: a, b, c" in a message: the list, for a concrete fix. */
static const char *available_list(const char *message, int *len)
{
    const char *a = message ? strstr(message, "vailable columns: ") : NULL;
    if (!a)
        return NULL;
    a += strlen("vailable columns: ");
    *len = (int)strcspn(a, "\n.");
    return *len > 0 ? a : NULL;
}

static double mb(long kb) { return (double)kb / 1024.0; }

/* How to speak of the code of f's runtime (run/runtime_ops.h); no words: nothing specific. */
static const tg_runtime_words *words_of(const tg_run_facts *f)
{
    static const tg_runtime_words none = {0};
    const tg_runtime_ops *ops = tg_runtime_ops_of(tg_runtime_parse(f->runtime));
    return ops && ops->words ? ops->words : &none;
}

/* ---- classification ------------------------------------------------------------------------- */

static bool limit_hit_cpu(const tg_run_facts *f)
{
    return f->signal == SIGXCPU ||
           (f->signal == SIGKILL && f->cpu_ms >= 0.95 * 1000.0 * (double)f->limits.cpu_s);
}

static bool memory_death(const tg_run_facts *f)
{
    if (!f->signal || f->signal == SIGXCPU)
        return false;
    if ((double)f->max_rss_kb >= 0.9 * 1024.0 * (double)f->limits.memory_mb)
        return true;
    /* The runtime's own abort message; trusted only together with the signal death. */
    const char *t = f->stderr_tail;
    return t && (f->signal == SIGABRT || f->signal == SIGTRAP || f->signal == SIGSEGV ||
                 f->signal == SIGKILL) &&
           (strstr(t, "heap out of memory") || strstr(t, "Fatal process out of memory") ||
            strstr(t, "std::bad_alloc") || strstr(t, "Cannot allocate memory") ||
            strstr(t, "MemoryError"));
}

static void classify_limits_from_process(const tg_run_facts *f, tg_guidance *g)
{
    const tg_limits *l = &f->limits;
    if (limit_hit_cpu(f)) {
        set_class(g, TG_CLASS_CPU_LIMIT, NULL);
        setf(g->message, "the tool used its whole CPU budget (%ld s) and was stopped", l->cpu_s);
        setf(g->what, "The process was killed after %.1f s of CPU time (limit cpu_s = %ld).",
             f->cpu_ms / 1000.0, l->cpu_s);
        setf(g->cause, "An endless or very long loop, or more data than the budget allows.");
        add_fix(g, "Look for a loop that never ends or grows with the data (e.g. row-by-row "
                   "Python loops over a DataFrame: use vectorised pandas operations).");
        add_fix(g, "If the work is legitimate, raise constraints.limits.cpu_s (now %ld; "
                   "sandbox.max_limits.cpu_s allows %ld).", l->cpu_s, f->max.cpu_s);
        return;
    }
    if (memory_death(f)) {
        set_class(g, TG_CLASS_MEMORY_LIMIT, NULL);
        setf(g->message, "the tool ran out of memory (limit %ld MiB) and was killed", l->memory_mb);
        setf(g->what, "The process died of %s with a peak of %.0f MiB resident (address-space "
                      "limit memory_mb = %ld MiB).", signal_name(f->signal), mb(f->max_rss_kb),
             l->memory_mb);
        const char *note = words_of(f)->memory_note;
        setf(g->cause, "The data or an intermediate result did not fit into the memory limit%s.",
             note ? note : "");
        add_fix(g, "Read only the columns you need (usecols=...) and process large files in "
                   "chunks.");
        add_fix(g, "Raise constraints.limits.memory_mb (now %ld; sandbox.max_limits.memory_mb "
                   "allows %ld).", l->memory_mb, f->max.memory_mb);
        return;
    }
    if (f->signal) {
        set_class(g, TG_CLASS_CRASH, NULL);
        setf(g->message, "the tool's process died of %s (%d) without returning a result",
             signal_name(f->signal), f->signal);
        setf(g->what, "The process ended by signal %d (%s)%s.", f->signal, signal_name(f->signal),
             f->signal_inferred ? ", reported by the sandbox as exit status 128+N" : "");
        setf(g->cause, "A crash in native code (a library or the runtime), an abort, or the "
                       "process killed itself.");
        add_fix(g, "Run the tool again with the same input and read its stderr for the runtime's "
                   "message.");
        add_fix(g, "If memory is close to its limit (see resources), raise "
                   "constraints.limits.memory_mb.");
        return;
    }
    set_class(g, TG_CLASS_CRASH, NULL);
    setf(g->message, "the tool exited with status %d without returning a result", f->exit_code);
    setf(g->what, "The process exited with status %d before the runner could send a result.",
         f->exit_code);
    setf(g->cause, "The tool ended the process itself (os._exit, process.exit) or the runtime "
                   "failed to start.");
    add_fix(g, "Return the result from the entry function (or raise an exception) instead of "
               "exiting the process.");
}

/* ---- the runner's errors: a table ------------------------------------------------------------ */

/*
 * What a reply error says, as a table read top to bottom: the first row that matches wins. A row
 * matches when the exception is an instance of one of `types`, or its errno is one of `errnos`,
 * or `test` says so, or its type is one of `exact`, or the tool chose `code`. Its texts are templates: {name} is replaced by a fact of the call (see
 * var_value); a fix that comes out empty is left out. docs/sandbox.md#error-classes lists the
 * classes in the same order.
 */
typedef struct reply_rule {
    const char *types[6];
    const char *errnos[8];
    bool (*test)(const rerr *e, const tg_run_facts *f);
    const char *exact[2]; /* the runner's own error types, compared as they are */
    const char *code;     /* the tool chose this code ("*": any code) */
    tg_error_class cls;
    const char *message, *what, *cause, *fix[2];
} reply_rule;

typedef struct tvars {
    const tg_run_facts *f;
    const rerr *e;
    const char *type, *msg, *phase;
    const tg_runtime_words *words; /* how to speak of the tool's code */
} tvars;

static bool import_failed(const rerr *e)
{
    return e->module || isa(e, "ModuleNotFoundError") || isa(e, "ImportError");
}

/* static_check.allowed_imports allows the module (or there is no such list). */
static bool import_allowed(const rerr *e, const tg_run_facts *f)
{
    if (!cJSON_IsArray(f->allowed_imports))
        return true;
    const char *mod = e->module ? e->module : "?";
    size_t top = strcspn(mod, ".");
    const cJSON *a;
    cJSON_ArrayForEach(a, f->allowed_imports) if (cJSON_IsString(a) &&
                                                  strlen(a->valuestring) == top &&
                                                  strncmp(a->valuestring, mod, top) == 0) return true;
    return false;
}

static bool t_module_not_allowed(const rerr *e, const tg_run_facts *f)
{
    return import_failed(e) && !import_allowed(e, f);
}

static bool t_module_missing(const rerr *e, const tg_run_facts *f)
{
    (void)f;
    return import_failed(e);
}

static bool t_memory(const rerr *e, const tg_run_facts *f)
{
    (void)f;
    return isa(e, "RangeError") && (msg_has(e, "allocation failed") ||
                                    msg_has(e, "Invalid array length") ||
                                    msg_has(e, "Invalid string length"));
}

static bool t_recursion(const rerr *e, const tg_run_facts *f)
{
    (void)f;
    return isa(e, "RangeError") && msg_has(e, "call stack size");
}

static bool t_processes(const rerr *e, const tg_run_facts *f)
{
    (void)f;
    return (errno_is(e, "EAGAIN") &&
            (isa(e, "BlockingIOError") || msg_has(e, "spawn") || msg_has(e, "fork"))) ||
           msg_has(e, "can't start new thread");
}

static const char fix_columns[] = "{columns_fix}";
static const char fix_correct[] = "Correct the argument the message names and call again.";

static const reply_rule reply_rules[] = {
    {{0}, {0}, NULL, {"SignatureMismatch"}, NULL,
     TG_CLASS_SIGNATURE_MISMATCH, "{msg}",
     "The entry function's parameters do not match input_schema, so the tool was not called.",
     "The code and the manifest's input_schema were changed separately.",
     {"Make every input_schema property a {param_kind} with the same name; required properties "
      "without a default, optional ones with one."}},
    {{0}, {0}, NULL, {"EntrypointMissing"}, NULL,
     TG_CLASS_ENTRYPOINT_MISSING, "{msg}",
     "The tool file loaded, but the entry function named by implementation.entrypoint is not in "
     "it.",
     "A typo in implementation.entrypoint, or the function was renamed{not_exported}.",
     {"Set implementation.entrypoint to the function's name, or define it."}},
    {{0}, {0}, NULL, {"ResultNotObject", "ResultNotJSON"}, NULL,
     TG_CLASS_INVALID_RESULT, "{msg}",
     "The entry function returned, but its result is not a JSON object.",
     "A DataFrame, numpy number, NaN or another non-JSON value in the result.",
     {"Convert values before returning: int(x), float(x), str(x), df.to_dict(orient=\"records\"), "
      "and None for missing values."}},
    {{"SyntaxError", "IndentationError"}, {0}, NULL, {0}, NULL, TG_CLASS_SYNTAX_ERROR,
     "syntax error in the tool's code{at_lineno}: {msg}",
     "The tool file could not be parsed{source_text}.",
     "Invalid {language} syntax (a missing bracket or colon, wrong indentation).",
     {"Fix line {fix_line} of the tool file; `python3 -m py_compile tool.py` or `node --check "
      "tool.js` shows the error without running anything."}},
    {{0}, {0}, NULL, {"PackageNotAllowed"}, NULL, TG_CLASS_MODULE_NOT_ALLOWED, "{msg}",
     "The packages the call names are not in the allowlist; the program did not run.",
     "Only the packages of code.allowed_packages in toolgen.yaml may be named.",
     {"Name only allowed packages (the message lists them)."}},
    {{0}, {0}, NULL, {"PackageNotInstalled"}, NULL, TG_CLASS_MODULE_MISSING, "{msg}",
     "The packages the call names cannot be imported in the sandbox; the program did not run.",
     "The package is allowed but not installed on this machine; nothing is installed at run "
     "time.",
     {"Name only installed packages (the message lists them)."}},
    {{0}, {0}, t_module_not_allowed, {0}, NULL, TG_CLASS_MODULE_NOT_ALLOWED,
     "the tool imports '{module}', which is not allowed: {msg}",
     "Importing module '{module}' failed; it is not in static_check.allowed_imports.",
     "Tools may use only the allowed modules; others are not installed in the sandbox, or give "
     "access it does not permit.",
     {"Rewrite the code with an allowed module (static_check.allowed_imports in toolgen.yaml)."}},
    {{0}, {0}, t_module_missing, {0}, NULL, TG_CLASS_MODULE_MISSING,
     "module '{module}' is not installed in the sandbox: {msg}",
     "Importing module '{module}' failed in phase '{phase}'.",
     "The package is not installed on this machine (the sandbox sees only the system's /usr), or "
     "its name is misspelled.",
     {"Install the Debian package (e.g. `sudo apt-get install python3-{module}`), or use a module "
      "that is installed.",
      "List it in implementation.dependencies so the requirement is visible."}},
    {{0}, {0}, NULL, {0}, "INVALID_INPUT", TG_CLASS_TOOL_ERROR, "{msg}",
     "The tool reported {code}: {msg}",
     "The arguments do not fit the data (a column, value or option the file does not have).",
     {fix_columns, fix_correct}},
    {{0}, {0}, NULL, {0}, "NOT_FOUND", TG_CLASS_TOOL_ERROR, "{msg}",
     "The tool reported {code}: {msg}",
     "A file or record the arguments name does not exist.",
     {"Check the path (relative to the repository root, inside a data directory)."}},
    {{0}, {0}, NULL, {0}, "*", TG_CLASS_TOOL_ERROR, "{msg}",
     "The tool reported {code}: {msg}",
     "See the message: the tool chose this code deliberately.",
     {"Act on the message; retry only for TIMEOUT, RATE_LIMITED or UPSTREAM_ERROR."}},
    {{"MemoryError"}, {0}, t_memory, {0}, NULL, TG_CLASS_MEMORY_LIMIT,
     "the tool ran out of memory (limit {memory_mb} MiB): {msg}",
     "An allocation failed ({type}) at a peak of {rss_mb} MiB resident; the address-space limit "
     "is {memory_mb} MiB.",
     "The data or an intermediate result (a join, a pivot, a copy of a large frame) does not fit "
     "into constraints.limits.memory_mb.",
     {"Load only the needed columns (usecols=...), use smaller dtypes, or process the file in "
      "chunks (chunksize=...).",
      "Raise constraints.limits.memory_mb (now {memory_mb}; sandbox.max_limits.memory_mb allows "
      "{max_memory_mb})."}},
    {{"RecursionError"}, {0}, t_recursion, {0}, NULL, TG_CLASS_RECURSION_LIMIT,
     "maximum recursion depth exceeded{tool_line_paren}", "The call stack overflowed ({type}).",
     "Unbounded recursion: a function that calls itself without a base case, or recursion over "
     "deeply nested data.",
     {"Replace the recursion with a loop, or add the missing base case."}},
    {{0}, {"EFBIG"}, NULL, {0}, NULL, TG_CLASS_OUTPUT_LIMIT,
     "a file the tool wrote went over the {output_kb} KiB limit: {msg}",
     "Writing {filename} failed: file too large (RLIMIT_FSIZE = output_kb = {output_kb} KiB).",
     "The tool writes more data into a file than constraints.limits.output_kb allows.",
     {"Write less (aggregate, sample, or compress), or raise constraints.limits.output_kb (now "
      "{output_kb}; the maximum is {max_output_kb})."}},
    {{0}, {0}, t_processes, {0}, NULL, TG_CLASS_PROCESS_LIMIT,
     "the tool hit its process limit ({processes} processes and threads): {msg}",
     "Creating a process or thread failed (EAGAIN): limit processes = {processes}.",
     "The tool starts processes or threads in a loop (or a library starts one thread per CPU).",
     {"Do the work in one process; set thread pools to a fixed small size.",
      "If more are really needed, raise constraints.limits.processes (now {processes}; the "
      "maximum is {max_processes})."}},
    {{0}, {"EMFILE", "ENFILE"}, NULL, {0}, NULL, TG_CLASS_FILES_LIMIT,
     "the tool hit its open-file limit ({files}): {msg}",
     "Opening a file failed: too many open files (limit files = {files}).",
     "Files opened in a loop and never closed.",
     {"Close files (use `with open(...)`), or raise constraints.limits.files (now {files})."}},
    {{"socket.gaierror", "gaierror", "ConnectionError", "urllib.error.URLError",
      "requests.exceptions.ConnectionError"},
     {"ECONNREFUSED", "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "ENOTFOUND", "EAI_AGAIN",
      "EADDRNOTAVAIL"},
     NULL, {0}, NULL, TG_CLASS_NETWORK_BLOCKED, "network access is blocked in the sandbox: {msg}",
     "A network call failed ({errno_or_type}): the sandbox has no network, only a loopback "
     "interface with nothing listening.",
     "python, node and command tools never get network access; only http tools reach remote "
     "services, through toolgen.",
     {"Take the data as a file argument (x-toolgen-path: read) instead of downloading it.",
      "For a remote API, write an http tool (implementation.runtime: http)."}},
    {{"FileNotFoundError"}, {"ENOENT"}, NULL, {0}, NULL, TG_CLASS_FILE_NOT_FOUND, "{msg}",
     "The tool opened {filename}, which does not exist in the sandbox.",
     "Only path arguments marked `x-toolgen-path: read` (mounted at the path given) and the "
     "tool's own folder (/tool) are visible; everything else of the host is not.",
     {"Pass the file as an argument whose input_schema property has `x-toolgen-path: read`, with "
      "a path inside a data directory.",
      "Open files next to the code via the module's directory (os.path.dirname(__file__)), not "
      "the current directory."}},
    {{"PermissionError"}, {"EACCES", "EPERM", "EROFS"}, NULL, {0}, NULL,
     TG_CLASS_PERMISSION_DENIED, "{msg}",
     "The tool tried to write or open {path} and was refused ({errno_or_type}).",
     "Everything but the working directory (and /tmp) is read-only in the sandbox, and input "
     "files are mounted read-only.",
     {"Write output files into the current working directory; they are collected as "
      "artifacts."}},
    {{"TimeoutError"}, {0}, NULL, {0}, NULL, TG_CLASS_TIMEOUT, "{msg}",
     "The tool raised TimeoutError: {msg}",
     "An operation inside the tool gave up waiting.",
     {"Retry later, or make the operation cheaper."}},
    {{"pandas.errors.EmptyDataError", "EmptyDataError"}, {0}, NULL, {0}, NULL,
     TG_CLASS_EMPTY_DATA, "{msg}",
     "The input file has no data (not even a header row).",
     "An empty file, or a path pointing at the wrong file.",
     {"Pass a file with a header row; handle the empty case in the tool with a clear "
      "ValueError."}},
    {{"KeyError"}, {0}, NULL, {0}, NULL, TG_CLASS_MISSING_KEY, "{msg}",
     "The tool looked up {key}, which does not exist.",
     "Usually a column name that is not in the file (names are case-sensitive) or a missing key "
     "in JSON data.",
     {"Check the column names first (load_and_analyze_csv lists them) and pass one that exists.",
      "In the tool: validate columns up front (toolgen_helpers.validate_file_and_columns) so the "
      "message lists the available ones."}},
    {{"TypeError"}, {0}, NULL, {0}, NULL, TG_CLASS_TYPE_ERROR, "{msg}",
     "A value had the wrong type{at_tool_line}: {msg}",
     "A column holds text where numbers were expected (or the reverse), or an argument of the "
     "wrong type reached the code.",
     {"Convert the column first (pd.to_numeric(..., errors=\"coerce\")) or pick a numeric "
      "column."}},
    {{"ValueError", "RangeError"}, {0}, NULL, {0}, NULL, TG_CLASS_INVALID_VALUE, "{msg}",
     "The tool rejected a value: {msg}", "An argument that does not fit the data.",
     {fix_columns, fix_correct}},
    {{"SystemExit"}, {0}, NULL, {0}, NULL, TG_CLASS_SYSTEM_EXIT,
     "the tool called sys.exit({msg}) instead of returning a result",
     "SystemExit was raised inside the entry function.",
     "Script-style code (sys.exit, exit()) in a tool function.",
     {"Return the result dict, or raise an exception with a message."}},
};

/* The last row: anything else the tool raised. */
static const reply_rule reply_fallback = {
    {0}, {0}, NULL, {0}, NULL, TG_CLASS_EXCEPTION, "{type}: {msg}",
    "The tool raised {type}{at_line} in phase '{phase}'.",
    "A bug in the tool, or data it does not handle.",
    {"Read the traceback (error.traceback in `toolgen run --json`) and fix the code, or raise "
     "ValueError with a clear message for bad input."}};

static bool rule_matches(const reply_rule *r, const rerr *e, const tg_run_facts *f)
{
    for (size_t i = 0; i < sizeof r->types / sizeof *r->types && r->types[i]; i++)
        if (isa(e, r->types[i]))
            return true;
    for (size_t i = 0; i < sizeof r->errnos / sizeof *r->errnos && r->errnos[i]; i++)
        if (errno_is(e, r->errnos[i]))
            return true;
    for (size_t i = 0; i < 2 && r->exact[i]; i++)
        if (e->type && strcmp(e->type, r->exact[i]) == 0)
            return true;
    if (r->code && e->code && (strcmp(r->code, "*") == 0 || strcmp(r->code, e->code) == 0))
        return true;
    return r->test && r->test(e, f);
}

/* The value of template variable name (n bytes) into out; false for an unknown name. */
static bool var_value(const void *ctx, const char *name, size_t n, char *out, size_t cap)
{
    const tvars *v = ctx;
    const rerr *e = v->e;
    const tg_limits *l = &v->f->limits, *max = &v->f->max;
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
    if (IS("msg"))
        snprintf(out, cap, "%s", v->msg);
    else if (IS("type"))
        snprintf(out, cap, "%s", v->type);
    else if (IS("phase"))
        snprintf(out, cap, "%s", v->phase);
    else if (IS("code"))
        snprintf(out, cap, "%s", e->code ? e->code : "");
    else if (IS("module"))
        snprintf(out, cap, "%s", e->module ? e->module : "?");
    else if (IS("filename"))
        snprintf(out, cap, "%s", e->filename ? e->filename : "a file");
    else if (IS("path"))
        snprintf(out, cap, "%s", e->filename ? e->filename : "a path");
    else if (IS("errno_or_type"))
        snprintf(out, cap, "%s", e->errno_name ? e->errno_name : v->type);
    else if (IS("key"))
        snprintf(out, cap, e->key ? "'%s'" : "a key", e->key);
    else if (IS("param_kind"))
        snprintf(out, cap, "%s", v->words->param_kind ? v->words->param_kind : "parameter");
    else if (IS("not_exported"))
        snprintf(out, cap, "%s", v->words->not_exported ? v->words->not_exported : "");
    else if (IS("language"))
        snprintf(out, cap, "%s", v->words->language ? v->words->language : "source");
    else if (IS("source_text"))
        snprintf(out, cap, "%s%s", e->text ? ": " : "", e->text ? e->text : "");
    else if (IS("at_lineno"))
        snprintf(out, cap, e->lineno ? " at line %d" : "", e->lineno);
    else if (IS("fix_line"))
        snprintf(out, cap, "%d", e->lineno ? e->lineno : e->tool_line);
    else if (IS("at_line"))
        snprintf(out, cap, e->tool_line ? " at line %d" : "", e->tool_line);
    else if (IS("at_tool_line"))
        snprintf(out, cap, e->tool_line ? " at tool line %d" : "", e->tool_line);
    else if (IS("tool_line_paren"))
        snprintf(out, cap, e->tool_line ? " (tool line %d)" : "", e->tool_line);
    else if (IS("rss_mb"))
        snprintf(out, cap, "%.0f", mb(v->f->max_rss_kb));
    else if (IS("memory_mb"))
        snprintf(out, cap, "%ld", l->memory_mb);
    else if (IS("max_memory_mb"))
        snprintf(out, cap, "%ld", max->memory_mb);
    else if (IS("output_kb"))
        snprintf(out, cap, "%ld", l->output_kb);
    else if (IS("max_output_kb"))
        snprintf(out, cap, "%ld", max->output_kb);
    else if (IS("processes"))
        snprintf(out, cap, "%ld", l->processes);
    else if (IS("max_processes"))
        snprintf(out, cap, "%ld", max->processes);
    else if (IS("files"))
        snprintf(out, cap, "%ld", l->files);
    else if (IS("columns_fix")) {
        int len = 0;
        const char *cols = available_list(v->msg, &len);
        snprintf(out, cap, cols ? "Use one of the available columns: %.*s." : "", len, cols);
    } else
        return false;
#undef IS
    return true;
}

void tg_guidance_expand(char *dst, size_t cap, const char *tpl, tg_guidance_var value,
                        const void *ctx)
{
    size_t len = 0;
    char val[TG_GUIDANCE_TEXT];
    for (const char *p = tpl; *p && len + 1 < cap;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (close && value(ctx, p + 1, (size_t)(close - p - 1), val, sizeof val)) {
            size_t n = strlen(val);
            if (n > cap - 1 - len)
                n = cap - 1 - len;
            memcpy(dst + len, val, n);
            len += n;
            p = close + 1;
        } else {
            dst[len++] = *p++;
        }
    }
    dst[len] = '\0';
}

/* Expands a template into dst (TG_GUIDANCE_TEXT bytes): {name} becomes var_value(name). */
static void expand(char *dst, const char *tpl, const tvars *v)
{
    tg_guidance_expand(dst, TG_GUIDANCE_TEXT, tpl, var_value, v);
}

static void classify_reply_error(const tg_run_facts *f, const rerr *e, tg_guidance *g)
{
    tvars v = {.f = f, .e = e, .type = e->type ? e->type : "Error",
               .phase = e->phase ? e->phase : "call",
               .words = words_of(f)};
    v.msg = e->message && *e->message ? e->message : v.type;
    const reply_rule *r = &reply_fallback;
    for (size_t i = 0; i < sizeof reply_rules / sizeof *reply_rules; i++)
        if (rule_matches(&reply_rules[i], e, f)) {
            r = &reply_rules[i];
            break;
        }
    set_class(g, r->cls, r->cls == TG_CLASS_TOOL_ERROR ? e->code : NULL);
    expand(g->message, r->message, &v);
    expand(g->what, r->what, &v);
    expand(g->cause, r->cause, &v);
    for (size_t i = 0; i < 2 && r->fix[i]; i++) {
        expand(g->fix[g->n_fix], r->fix[i], &v);
        if (g->fix[g->n_fix][0])
            g->n_fix++;
    }
}

/* ---- classification of a call --------------------------------------------------------------- */

/* Refused before the tool ran: the texts per class (the message is the refusal's own). */
static void classify_refusal(const tg_run_facts *f, tg_guidance *g)
{
    static const struct {
        tg_error_class cls;
        const char *what, *cause, *fix[2];
    } rows[] = {
        {TG_CLASS_INPUT_SCHEMA,
         "The arguments do not fit the tool's input_schema; the tool did not run.",
         "A missing required argument, a wrong type, or a value out of range.",
         {"Fix the arguments at the JSON Pointers named in the message."}},
        {TG_CLASS_PATH_FORBIDDEN,
         "A path argument points outside the directories tools may read; the tool did not run.",
         "An absolute path, '..', or a symlink leading out of the data directories.",
         {"Copy the file into a data directory (data/ by default) and pass its path relative to "
          "the repository root, e.g. data/file.csv.",
          "Add its directory to sandbox.data_dirs in toolgen.yaml."}},
        {TG_CLASS_PATH_NOT_FOUND,
         "A path argument names a file that does not exist; the tool did not run.",
         "A typo in the path, or the file has not been created yet.",
         {"Pass the path of an existing file, relative to the repository root."}},
    };
    set_class(g, f->pre, NULL);
    setf(g->message, "%s", f->pre_message ? f->pre_message : "refused");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        if (rows[i].cls != f->pre)
            continue;
        setf(g->what, "%s", rows[i].what);
        setf(g->cause, "%s", rows[i].cause);
        for (size_t j = 0; j < 2 && rows[i].fix[j]; j++)
            add_fix(g, "%s", rows[i].fix[j]);
    }
}

/* Killed by toolgen (wall clock, output cap, cancel, disk budget): false when it was not. */
static bool classify_killed(const tg_run_facts *f, tg_guidance *g)
{
    const tg_limits *l = &f->limits;
    switch (f->killed_by) {
    case TG_LIMIT_NONE:
        return false;
    case TG_LIMIT_WALL:
        set_class(g, TG_CLASS_TIMEOUT, NULL);
        setf(g->message, "the tool did not finish within %.1f s and was stopped",
             (double)l->wall_ms / 1000.0);
        setf(g->what, "The wall clock (%.1f s: the smaller of constraints.limits.wall_s and "
                      "timeout_ms) ran out; the whole process tree was killed after %.1f s of "
                      "CPU time.", (double)l->wall_ms / 1000.0, f->cpu_ms / 1000.0);
        setf(g->cause, f->cpu_ms < 0.1 * (double)l->wall_ms
                           ? "The tool was waiting, not computing: a sleep, or a read that never "
                             "ends (stdin is empty; there is no network)."
                           : "The computation takes longer than the limit: a slow loop or too "
                             "much data.");
        add_fix(g, "Make the tool faster (vectorised pandas instead of Python loops, fewer rows).");
        add_fix(g, "Raise constraints.limits.wall_s / timeout_ms (now %.0f s; "
                   "sandbox.max_limits.wall_s allows %.0f s).", (double)l->wall_ms / 1000.0,
                (double)f->max.wall_ms / 1000.0);
        return true;
    case TG_LIMIT_OUTPUT: {
        const char *s = f->overflow_stream ? f->overflow_stream : "output";
        bool reply = strcmp(s, "reply") == 0;
        set_class(g, TG_CLASS_OUTPUT_LIMIT, NULL);
        setf(g->message, "the tool wrote more than %ld KiB to %s and was stopped", l->output_kb, s);
        setf(g->what, "%s went over constraints.limits.output_kb (%ld KiB); toolgen kept the "
                      "first %ld KiB and killed the process tree.", s, l->output_kb, l->output_kb);
        setf(g->cause, reply ? "The result object is larger than the output limit."
                             : "Debug printing in a loop, or printing a whole data set.");
        add_fix(g, "%s", reply ? "Return less: aggregate, paginate (a limit argument), or write "
                                 "the bulk to a file in the working directory."
                               : "Remove the print statements; return data in the result instead.");
        add_fix(g, "Raise constraints.limits.output_kb (now %ld; the maximum is %ld).",
                l->output_kb, f->max.output_kb);
        return true;
    }
    case TG_LIMIT_CANCEL:
        set_class(g, TG_CLASS_CANCELLED, NULL);
        setf(g->message, "the call was cancelled and its process tree killed");
        setf(g->what, "The caller stopped the call (e.g. Ctrl-C) after %.1f s.", f->wall_ms / 1000.0);
        setf(g->cause, "An interrupt, not the tool.");
        add_fix(g, "Run the call again.");
        return true;
    case TG_LIMIT_DISK:
        set_class(g, TG_CLASS_DISK_LIMIT, NULL);
        setf(g->message, "the tool filled its working directory (%lld MiB): writing more failed",
             tg_sandbox_work_budget(l) >> 20);
        setf(g->what, "The working directory reached its budget (16 x output_kb, at least "
                      "100 MiB, and one file or folder per 4 KiB of it); writes past it fail "
                      "with ENOSPC (No space left on device).");
        setf(g->cause, "Files written in a loop, a very large intermediate file, or a deep or "
                       "wide tree of folders.");
        add_fix(g, "Write fewer or smaller files; keep intermediate data in memory.");
        add_fix(g, "Or raise constraints.limits.output_kb (now %ld; the budget is 16 times it).",
                l->output_kb);
        return true;
    }
    return false;
}

/* The result arrived but is unusable: not an object, or it breaks output_schema. `command`
 * chooses the command texts. False when the result is fine. */
static bool classify_result(const tg_run_facts *f, bool command, tg_guidance *g)
{
    if (f->result_problem) {
        set_class(g, TG_CLASS_INVALID_RESULT, NULL);
        setf(g->message, "%s", f->result_problem);
        if (command) {
            setf(g->what, "The program succeeded, but its output is not the result: %s",
                 f->result_problem);
            setf(g->cause, "implementation.stdout is json, but the program printed something "
                           "else.");
            add_fix(g, "Use stdout: text, or make the program print one JSON object.");
        } else {
            setf(g->what, "The result could not be used: %s", f->result_problem);
            setf(g->cause, "The result is not a JSON object.");
            add_fix(g, "Return a dict / object of plain JSON values.");
        }
        return true;
    }
    if (f->output_schema_message) {
        set_class(g, TG_CLASS_OUTPUT_SCHEMA, NULL);
        setf(g->message, "the result does not fit output_schema: %s", f->output_schema_message);
        if (command) {
            setf(g->what, "The program's result breaks the contract in output_schema.");
            setf(g->cause, "The program's output format and output_schema disagree.");
            add_fix(g, "Adapt output_schema to what the program prints.");
        } else {
            setf(g->what, "The tool returned, but its result breaks the contract in output_schema.");
            setf(g->cause, "The code and output_schema disagree (a renamed or missing key, a "
                           "wrong type, an extra property).");
            add_fix(g, "Change the code or output_schema so that they agree at the JSON Pointer "
                       "in the message.");
        }
        return true;
    }
    return false;
}

/* A command that exited non-zero (not killed by a limit): its exit status, mapped or not. */
static bool classify_command_exit(const tg_run_facts *f, tg_guidance *g)
{
    if (f->signal && (limit_hit_cpu(f) || memory_death(f) || !f->signal_inferred))
        return false;
    set_class(g, TG_CLASS_COMMAND_FAILED, tg_errcode_canonical(f->mapped_code));
    setf(g->message, "the program exited with status %d%s%s", f->exit_code,
         f->mapped_code ? ", mapped to " : "", f->mapped_code ? f->mapped_code : "");
    setf(g->what, "The program failed (exit status %d); its stderr says why.", f->exit_code);
    setf(g->cause, f->mapped_code ? "implementation.exit_codes maps this status."
                                  : "The program rejected its arguments or input.");
    add_fix(g, "Read the program's stderr; map known exit statuses to codes in "
               "implementation.exit_codes.");
    return true;
}

bool tg_classify(const tg_run_facts *f, tg_guidance *g)
{
    memset(g, 0, sizeof *g);
    if (f->pre != TG_CLASS_NONE) {
        classify_refusal(f, g);
        return true;
    }
    if (classify_killed(f, g))
        return true;
    rerr e;
    read_error(f->reply, &e);
    bool reply_ok = f->reply && cJSON_IsTrue(tg_json_get(f->reply, "ok"));
    if (f->reply && !reply_ok && e.obj) {
        classify_reply_error(f, &e, g);
        return true;
    }
    if (reply_ok)
        /* the answer arrived; how the process ended afterwards does not matter */
        return classify_result(f, false, g);

    /* No usable reply: what the process and the limits say. */
    const tg_runtime_ops *ops = tg_runtime_ops_of(tg_runtime_parse(f->runtime));
    if (ops && ops->exit_status) {
        if (f->exit_code == 0 && !f->signal && !f->result_problem && !f->output_schema_message)
            return false;
        if (classify_result(f, true, g) || classify_command_exit(f, g))
            return true;
    }
    if (f->reply_garbled) {
        set_class(g, TG_CLASS_CRASH, NULL);
        setf(g->message, "the runner's reply could not be read (exit status %d)", f->exit_code);
        setf(g->what, "Something other than the runner's reply arrived on the reply channel.");
        setf(g->cause, "The tool wrote to the runner's private descriptor, or the runner was "
                       "killed while replying.");
        add_fix(g, "Write output to stdout or to files, never to inherited descriptors.");
        return true;
    }
    classify_limits_from_process(f, g);
    return true;
}

void tg_classify_result_schema(const char *message, tg_guidance *g)
{
    tg_run_facts f = {.output_schema_message = message};
    memset(g, 0, sizeof *g);
    classify_result(&f, false, g);
}

/* ---- resource analysis ---------------------------------------------------------------------- */

const char *tg_usage_status_name(tg_usage_status s)
{
    static const char *const n[] = {"efficient", "moderate", "warning", "critical", "exhausted"};
    return s <= TG_USAGE_EXHAUSTED ? n[s] : "unknown";
}

tg_usage_status tg_usage_status_of(double percent)
{
    if (percent >= 100)
        return TG_USAGE_EXHAUSTED;
    if (percent >= 90)
        return TG_USAGE_CRITICAL;
    if (percent >= 75)
        return TG_USAGE_WARNING;
    if (percent >= 50)
        return TG_USAGE_MODERATE;
    return TG_USAGE_EFFICIENT;
}

static void usage_set(tg_usage *u, double used, double budget, bool exhausted)
{
    u->used = used;
    u->budget = budget;
    u->percent = budget > 0 ? 100.0 * used / budget : 0;
    if (exhausted && u->percent < 100)
        u->percent = 100;
    u->percent = round(u->percent * 10) / 10;
    u->status = exhausted ? TG_USAGE_EXHAUSTED : tg_usage_status_of(u->percent);
    if (!exhausted && u->status == TG_USAGE_EXHAUSTED)
        u->status = TG_USAGE_CRITICAL; /* at the limit but not over it */
}

/* A budget with room: twice the use, rounded up, at least the current limit + 50 %. */
static long suggest(double used, long now, long max)
{
    long s = (long)ceil(used * 2);
    if (s < now + now / 2)
        s = now + now / 2;
    return max > 0 && s > max ? max : s;
}

void tg_resources_analyze(const tg_run_facts *f, const tg_guidance *g, tg_resources *r)
{
    memset(r, 0, sizeof *r);
    tg_error_class c = g ? g->cls : TG_CLASS_NONE;
    const tg_limits *l = &f->limits;
    usage_set(&r->cpu, f->cpu_ms, 1000.0 * (double)l->cpu_s, c == TG_CLASS_CPU_LIMIT);
    usage_set(&r->memory, mb(f->max_rss_kb), (double)l->memory_mb, c == TG_CLASS_MEMORY_LIMIT);
    usage_set(&r->wall, f->wall_ms, (double)l->wall_ms, c == TG_CLASS_TIMEOUT && f->killed_by == TG_LIMIT_WALL);
    usage_set(&r->output, (double)f->output_bytes / 1024.0, (double)l->output_kb,
              c == TG_CLASS_OUTPUT_LIMIT && f->killed_by == TG_LIMIT_OUTPUT);
    const tg_usage *worst = &r->cpu;
    const char *what = "CPU", *key = "cpu_s";
    if (r->memory.status > worst->status) {
        worst = &r->memory;
        what = "memory";
        key = "memory_mb";
    }
    if (r->wall.status > worst->status) {
        worst = &r->wall;
        what = "wall time";
        key = "wall_s";
    }
    if (r->output.status > worst->status) {
        worst = &r->output;
        what = "output";
        key = "output_kb";
    }
    r->status = worst->status;
    if (!f->ran) {
        setf(r->recommendation, "The tool did not run; nothing was used.");
        return;
    }
    long now, max;
    double used;
    if (worst == &r->cpu) {
        now = l->cpu_s, max = f->max.cpu_s, used = f->cpu_ms / 1000.0;
    } else if (worst == &r->memory) {
        now = l->memory_mb, max = f->max.memory_mb, used = mb(f->max_rss_kb);
    } else if (worst == &r->output) {
        now = l->output_kb, max = f->max.output_kb, used = (double)f->output_bytes / 1024.0;
    } else {
        now = l->wall_ms / 1000, max = f->max.wall_ms / 1000, used = f->wall_ms / 1000.0;
    }
    if (now < 1)
        now = 1;
    switch (r->status) {
    case TG_USAGE_EFFICIENT:
        setf(r->recommendation, "Well within budget (CPU %.0f%%, memory %.0f%%, wall %.0f%%, "
                                "output %.0f%%); no change needed.", r->cpu.percent,
             r->memory.percent, r->wall.percent, r->output.percent);
        break;
    case TG_USAGE_MODERATE:
        setf(r->recommendation, "Within budget; %s is the largest share (%.0f%%). Larger inputs "
                                "may need more.", what, worst->percent);
        break;
    case TG_USAGE_WARNING:
        setf(r->recommendation, "%s at %.0f%% of its budget: larger inputs will fail. Consider "
                                "constraints.limits.%s: %ld (now %ld), or make the tool lighter.",
             what, worst->percent, key, suggest(used, now, max), now);
        break;
    case TG_USAGE_CRITICAL:
        setf(r->recommendation, "%s at %.0f%% of its budget: the next larger input will fail. "
                                "Raise constraints.limits.%s to %ld (now %ld; the maximum is %ld) "
                                "or reduce the work.",
             what, worst->percent, key, suggest(used, now, max), now, max);
        break;
    case TG_USAGE_EXHAUSTED:
        if (max > 0 && now >= max)
            setf(r->recommendation, "%s budget exhausted at the configured maximum (%s %ld): the "
                                    "tool must do less work (fewer rows, fewer columns, a "
                                    "cheaper algorithm).", what, key, max);
        else
            setf(r->recommendation, "%s budget exhausted: raise constraints.limits.%s to %ld (now "
                                    "%ld; the maximum is %ld) or make the tool do less work.",
                 what, key, suggest((double)now, now, max), now, max);
        break;
    }
}

/* ---- JSON ----------------------------------------------------------------------------------- */

cJSON *tg_guidance_json(const tg_guidance *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", g->code ? g->code : "INTERNAL_ERROR");
    cJSON_AddStringToObject(o, "message", g->message);
    cJSON_AddStringToObject(o, "class", tg_error_class_name(g->cls));
    cJSON *gd = cJSON_AddObjectToObject(o, "guidance");
    cJSON_AddStringToObject(gd, "what_happened", g->what);
    cJSON_AddStringToObject(gd, "likely_cause", g->cause);
    cJSON *fix = cJSON_AddArrayToObject(gd, "how_to_fix");
    for (int i = 0; i < g->n_fix; i++)
        cJSON_AddItemToArray(fix, cJSON_CreateString(g->fix[i]));
    cJSON *docs = cJSON_AddArrayToObject(gd, "docs");
    cJSON_AddItemToArray(docs, cJSON_CreateString(g->doc ? g->doc : "docs/sandbox.md"));
    return o;
}

static cJSON *usage_json(const tg_usage *u, const char *unit)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "used", round(u->used * 10) / 10);
    cJSON_AddNumberToObject(o, "budget", u->budget);
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddNumberToObject(o, "percent", u->percent);
    cJSON_AddStringToObject(o, "status", tg_usage_status_name(u->status));
    return o;
}

cJSON *tg_resources_json(const tg_resources *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "cpu", usage_json(&r->cpu, "ms"));
    cJSON_AddItemToObject(o, "memory", usage_json(&r->memory, "MiB"));
    cJSON_AddItemToObject(o, "wall", usage_json(&r->wall, "ms"));
    cJSON_AddItemToObject(o, "output", usage_json(&r->output, "KiB"));
    cJSON_AddStringToObject(o, "status", tg_usage_status_name(r->status));
    cJSON_AddStringToObject(o, "recommendation", r->recommendation);
    return o;
}
