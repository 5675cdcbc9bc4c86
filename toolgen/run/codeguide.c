/* codeguide.c — the error types, the table of guidance for failed programs and the per-budget
 * resource analysis of the code runtime (codeguide.h, docs/code.md). */
#include "run/codeguide.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/errcode.h"
#include "base/json.h"

tg_code_lang tg_code_lang_parse(const char *name)
{
    return name && strcmp(name, "node") == 0 ? TG_CODE_NODE : TG_CODE_PYTHON;
}

static const cJSON *reply_error(const tg_run_facts *f)
{
    const cJSON *e = tg_json_get(f->reply, "error");
    return cJSON_IsObject(e) ? e : NULL;
}

/* Node.js codes that name the failure better than the error's class: system errors (ENOENT,
 * EAI_AGAIN) and the module loaders' (MODULE_NOT_FOUND, ERR_MODULE_NOT_FOUND); not the other
 * ERR_ codes of Node.js's own checks (ERR_INVALID_ARG_TYPE is a TypeError). */
static bool telling_node_code(const char *code)
{
    if (!code)
        return false;
    if (strstr(code, "MODULE_NOT_FOUND"))
        return true;
    if (code[0] != 'E' || !code[1] || strncmp(code, "ERR_", 4) == 0)
        return false;
    for (const char *c = code + 1; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return false;
    return true;
}

const char *tg_code_error_type(tg_code_lang lang, const tg_run_facts *f, const tg_guidance *g)
{
    switch (g->cls) {
    case TG_CLASS_TIMEOUT:
        if (f->killed_by == TG_LIMIT_WALL)
            return "Timeout";
        break;
    case TG_CLASS_CPU_LIMIT: return "Timeout";
    case TG_CLASS_MEMORY_LIMIT: return "MemoryError";
    case TG_CLASS_OUTPUT_LIMIT: return "OutputLimitExceeded";
    case TG_CLASS_DISK_LIMIT: return "DiskLimitExceeded";
    case TG_CLASS_PROCESS_LIMIT: return "ProcessLimitExceeded";
    case TG_CLASS_FILES_LIMIT: return "TooManyOpenFiles";
    case TG_CLASS_NETWORK_BLOCKED: return "NetworkBlocked";
    case TG_CLASS_COMMAND_FAILED: return f->signal ? "Crash" : "NonZeroExit";
    case TG_CLASS_CRASH: return "Crash";
    case TG_CLASS_CANCELLED: return "Cancelled";
    default: break;
    }
    const cJSON *e = reply_error(f);
    const char *code = tg_json_get_string(e, "node_code");
    if (lang == TG_CODE_NODE && telling_node_code(code))
        return code;
    const char *type = tg_json_get_string(e, "type");
    if (!type || !*type)
        return "Error";
    const char *dot = strrchr(type, '.'); /* pandas.errors.EmptyDataError: EmptyDataError */
    return dot && dot[1] ? dot + 1 : type;
}

/* ---- the table ------------------------------------------------------------------------------ */

/*
 * One kind of failure, read top to bottom: the first row whose error types (none: any) include
 * the failure's, whose class (TG_CLASS_NONE: any) is the call's and whose phase (NULL: any) is the
 * reply's wins. Texts are templates (see var_value); an advice that comes out empty is left out.
 */
typedef struct code_rule {
    const char *types[8];
    tg_error_class cls;
    const char *phase;
    const char *code;   /* the call's error code; NULL: INVALID_INPUT (fix the program) */
    const char *doc; /* the section of docs/code.md that explains it */
    const char *message, *what, *cause, *advice[3];
    const char *example[2]; /* Python, Node.js */
} code_rule;

#define DEFAULT_MESSAGE "{error_type}: {message}{line_paren}"

static const code_rule rules[] = {
    {{"SyntaxError", "IndentationError", "TabError"}, TG_CLASS_NONE, "compile", NULL,
     "docs/code.md#syntax-errors", DEFAULT_MESSAGE,
     "The program does not parse{line_at}; nothing of it ran.",
     "Invalid {language} syntax: a missing bracket, quote, colon or comma, or mixed indentation.",
     {"Fix the syntax at line {line} and send the whole program again.",
      "Read the caret (^) under the line in stderr: it marks where parsing stopped."},
     {"for x in range(3):\n    print(x)", "for (const x of [1, 2, 3]) {\n  console.log(x);\n}"}},
    {{"PackageNotAllowed"}, TG_CLASS_NONE, NULL, "FORBIDDEN", "docs/code.md#packages", "{message}",
     "The packages argument names {packages}, which the allowlist does not hold; the program "
     "did not run.",
     "Only the packages of code.allowed_packages in toolgen.yaml may be named.",
     {"Name only packages from this list: {available}.",
      "Send the program again without {packages}; {stdlib} is always available."},
     {"import csv, statistics", "const fs = require('fs');"}},
    {{"PackageNotInstalled"}, TG_CLASS_NONE, NULL, "NOT_FOUND", "docs/code.md#packages", "{message}",
     "The packages argument names {packages}, which the sandbox cannot import; the program did "
     "not run.",
     "The package is allowed but not installed on this machine; nothing is installed at run time.",
     {"Use an installed package instead: {available}.",
      "Send the program again without {packages}; {stdlib} is always available."},
     {"import csv, statistics", "const fs = require('fs');"}},
    {{"SESSION_EXPIRED", "SESSION_CLOSED", "SESSION_NOT_FOUND"}, TG_CLASS_NONE, "session",
     "NOT_FOUND", "docs/code.md#sessions", "{error_type}: {message}",
     "The session named by session_id is not open; nothing ran.",
     "Sessions expire after their idle time, end with close_session or the server, and work "
     "only for the client that created them; their state cannot be revived.",
     {"Call create_session for a new session, run the setup again (imports, loading data), "
      "then this program with the new session_id.",
      "Or leave session_id out: a one-shot program needs no session."},
     {"import pandas as pd\ndf = pd.read_csv('data.csv')  # the setup, again in the new session",
      "const fs = require('fs');\nvar rows = JSON.parse(fs.readFileSync('data.json', 'utf8'));"}},
    {{"SESSION_BUSY"}, TG_CLASS_NONE, "session", "CONFLICT", "docs/code.md#sessions",
     "{error_type}: {message}", "Another program of this session is still running; this one did "
     "not run.", "A session runs one program at a time.",
     {"Wait for the other call's result, then send this program again.",
      "Or run it without session_id, or in a session of its own."},
     {NULL, NULL}},
    {{"SESSION_LIMIT"}, TG_CLASS_NONE, "session", "RATE_LIMITED", "docs/code.md#sessions",
     "{error_type}: {message}", "No session was started: the server keeps a limited number.",
     "Every open session holds an interpreter until it is closed or expires.",
     {"Close a session you no longer need (close_session), then create one again.",
      "Or run one-shot programs without session_id."},
     {NULL, NULL}},
    {{"SESSION_RUNTIME_MISMATCH"}, TG_CLASS_NONE, "session", NULL, "docs/code.md#sessions",
     "{error_type}: {message}", "The session is of the other language; nothing ran.",
     "A session keeps one interpreter: Python for python_execute, Node.js for node_execute.",
     {"Use the tool of the session's language, or create_session with the runtime you need."},
     {NULL, NULL}},
    {{"SESSION_START_FAILED"}, TG_CLASS_NONE, "session", "INTERNAL_ERROR",
     "docs/code.md#sessions", "{error_type}: {message}", "The session could not be started.",
     "The sandbox or the interpreter failed to start, or could not load the packages in time.",
     {"Try again with fewer packages, or run one-shot programs without session_id."},
     {NULL, NULL}},
    {{"PathOutsideRoots", "SessionRequired", "ReadOnly"}, TG_CLASS_NONE, "files", "FORBIDDEN",
     "docs/toolsets.md#files", "{error_type}: {message}",
     "The path is outside what file_system may touch, or read-only there; nothing changed.",
     "file_system reads and writes a session's working directory and reads the data "
     "directories; everything else is invisible.",
     {"Use a path relative to the session's directory (list '.' to see it), without '..'.",
      "To write, pass the session_id of a session (create_session)."},
     {NULL, NULL}},
    {{"FileNotFound"}, TG_CLASS_NONE, "files", "NOT_FOUND", "docs/toolsets.md#files",
     "{error_type}: {message}", "No such file or folder; nothing changed.",
     "A misspelt path, or a file another session (or none) wrote.",
     {"List the folder (action list, path '.') and use a name it shows."},
     {NULL, NULL}},
    {{"IsADirectory", "NotADirectory", "BinaryFile"}, TG_CLASS_NONE, "files", NULL,
     "docs/toolsets.md#files", "{error_type}: {message}", "The action does not fit the path.",
     "read takes a text file, list a folder; binary files are a program's business.",
     {"Use the action the message names, or open the file in python_execute."},
     {NULL, NULL}},
    /* web_fetch's refusals and failures (rt_web.c, docs/web.md) */
    {{"HostNotAllowed", "RedirectNotAllowed"}, TG_CLASS_NONE, "web", "FORBIDDEN",
     "docs/web.md#allowed-hosts", "{error_type}: {message}",
     "The host is not in the server's allowlist; nothing was fetched from it.",
     "web_fetch fetches only from the hosts web.allow_hosts of the serving repository's "
     "toolgen.yaml lists, on every redirect too; the list is the operator's, not the caller's.",
     {"Use a URL on a host the server allows, or ask the person running the server to add the "
      "host to web.allow_hosts.",
      "Do not retry the same URL: it is refused the same way every time."},
     {NULL, NULL}},
    {{"RateLimited", "UpstreamRateLimited"}, TG_CLASS_NONE, "web", "RATE_LIMITED",
     "docs/web.md#limits", "{error_type}: {message}",
     "Too many requests: nothing was fetched.",
     "The server allows web.requests_per_minute fetches a minute for all its callers (or the "
     "remote site answered HTTP 429).",
     {"Wait the time the message names, then fetch again.",
      "Fetch fewer pages: save a large document once (type \"file\") and work on the copy."},
     {NULL, NULL}},
    {{"ResponseTooLarge"}, TG_CLASS_NONE, "web", "INVALID_INPUT", "docs/web.md#limits",
     "{error_type}: {message}", "The answer is larger than what web_fetch keeps.",
     "Bodies are capped at web.max_mb; text and JSON returned inline at 1 MiB.",
     {"Fetch it with type \"file\" and a session_id, then read it in python_execute.",
      "Or fetch a smaller resource (a page of results, a filtered query)."},
     {"import pandas as pd\ndf = pd.read_csv('data.csv')  # the file web_fetch saved",
      NULL}},
    {{"InvalidJSON", "NotText", "NotHTML"}, TG_CLASS_NONE, "web", "INVALID_INPUT",
     "docs/web.md#formats", "{error_type}: {message}",
     "The answer is not in the format the type argument asked for.",
     "The URL serves another format than expected (HTML instead of JSON, binary data).",
     {"Fetch it with type \"text\" to see what it is, or type \"file\" for binary data."},
     {NULL, NULL}},
    {{"InvalidURL", "InvalidFilename", "InvalidArgument", "SessionRequired"}, TG_CLASS_NONE,
     "web", "INVALID_INPUT", "docs/web.md", "{error_type}: {message}",
     "The arguments cannot make a fetch; nothing was sent.",
     "A URL that is not http(s) or carries credentials, a bad file name, or type \"file\" "
     "without a session.",
     {"Fix the argument the message names and call again."},
     {NULL, NULL}},
    {{"HTTPNotFound"}, TG_CLASS_NONE, "web", "NOT_FOUND", "docs/web.md#errors",
     "{error_type}: {message}", "The remote server has nothing at that URL.",
     "A misspelt or outdated URL.",
     {"Check the URL (fetch the site's index page with type \"html\" and follow its links)."},
     {NULL, NULL}},
    {{"FetchTimeout"}, TG_CLASS_NONE, "web", "TIMEOUT", "docs/web.md#limits",
     "{error_type}: {message}", "The remote server did not answer in time.",
     "A slow or unreachable server, or a very large answer.",
     {"Try again later, or fetch a smaller resource."},
     {NULL, NULL}},
    {{"HTTPError", "ConnectionFailed", "FetchFailed", "TooManyRedirects"}, TG_CLASS_NONE, "web",
     "UPSTREAM_ERROR", "docs/web.md#errors", "{error_type}: {message}",
     "The remote server failed or could not be reached.",
     "The site is down, refuses the request, or redirects in circles.",
     {"Try again later; check the URL in the message."},
     {NULL, NULL}},
    {{"SaveFailed"}, TG_CLASS_NONE, "web", "INTERNAL_ERROR", "docs/web.md#file",
     "{error_type}: {message}", "The answer was fetched but could not be saved.",
     "The session's directory is full or gone.",
     {"Delete files in the session (python_execute), or start a new session and fetch again."},
     {NULL, NULL}},
    {{"ImportError"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#packages", DEFAULT_MESSAGE,
     "An import{line_at} asked a module for a name it does not have.",
     "A misspelt name, or a name another version of the package has.",
     {"Check the module's names: import the module and print(dir(module)).",
      "Import the module itself and use module.name, so the error says which name is missing."},
     {"import math\nprint([n for n in dir(math) if 'sqrt' in n])", NULL}},
    {{"ModuleNotFoundError", "MODULE_NOT_FOUND", "ERR_MODULE_NOT_FOUND"},
     TG_CLASS_NONE, NULL, NULL, "docs/code.md#packages", DEFAULT_MESSAGE,
     "Importing '{module}' failed{line_at}.",
     "'{module}' is not installed in the sandbox (or misspelt); nothing is installed at run "
     "time.",
     {"Use an installed package instead: {available}.",
      "{stdlib} is always available; check the spelling of '{module}'."},
     {"import csv\nwith open('data.csv') as f:\n    rows = list(csv.DictReader(f))",
      "const fs = require('fs');\nconst rows = fs.readFileSync('data.csv', 'utf8').split('\\n');"}},
    {{"NameError", "UnboundLocalError", "ReferenceError"}, TG_CLASS_NONE, NULL, NULL,
     "docs/code.md#names-and-attributes", DEFAULT_MESSAGE,
     "A name was used{line_at} before it was defined.",
     "A typo, a missing import, or a variable from an earlier call: without session_id every "
     "call is a fresh program.",
     {"Define or import the name before line {line}, and check its spelling.",
      "Re-create what earlier calls defined (imports, variables, data), or keep them: "
      "create_session, then pass its session_id to every call."},
     {"import math\nradius = 2\nprint(math.pi * radius ** 2)",
      "const radius = 2;\nconsole.log(Math.PI * radius ** 2);"}},
    {{"AttributeError"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#names-and-attributes", DEFAULT_MESSAGE,
     "An attribute was looked up{line_at} on an object that does not have it.",
     "A misspelt method, an object of another type than expected, or None where a function "
     "returned nothing.",
     {"Check the object's type and attributes: print(type(obj), dir(obj)).",
      "Check for None before using a value a function may not return."},
     {"value = {'a': 1}\nprint(type(value).__name__, [n for n in dir(value) if not "
      "n.startswith('_')])", NULL}},
    {{"KeyError", "IndexError"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#keys-and-indexes", DEFAULT_MESSAGE,
     "A key or index that does not exist was looked up{line_at}.",
     "A column or key name that differs (names are case-sensitive), or an index past the end.",
     {"Print what exists first: print(list(d)) or print(df.columns.tolist()), print(len(seq)).",
      "Look up safely: d.get(key), `if key in df.columns`, `if i < len(seq)`."},
     {"row = {'Name': 'x'}\nprint(row.get('name', 'missing'), list(row))", NULL}},
    {{"JSONDecodeError", "EmptyDataError", "ParserError", "UnicodeDecodeError", "SyntaxError"},
     TG_CLASS_NONE, NULL, NULL, "docs/code.md#data-formats", DEFAULT_MESSAGE,
     "Data could not be parsed{line_at}.",
     "The input is empty, truncated or in another format (HTML instead of JSON, another "
     "delimiter or encoding).",
     {"Look at the data before parsing it: print(repr(text[:200])).",
      "Handle the empty case, and pass the format explicitly (sep=';', encoding='latin-1')."},
     {"import json\ntext = '{\"a\": 1}'\nprint(repr(text[:200]))\ndata = json.loads(text)",
      "const text = '{\"a\": 1}';\nconsole.log(JSON.stringify(text.slice(0, 200)));\n"
      "const data = JSON.parse(text);"}},
    {{"Timeout"}, TG_CLASS_CPU_LIMIT, NULL, "TIMEOUT", "docs/code.md#timeouts",
     "Timeout: the program used its whole CPU budget ({cpu_s} s) and was stopped",
     "The program computed for {cpu_s} s of CPU time, its budget, and was killed.",
     "An endless loop, or more work than the budget allows (loops in {language} over many "
     "items).",
     {"Look for a loop that never ends; make the work cheaper (vectorise with pandas / numpy, "
      "sample the data).",
      "Split the work into several calls, writing intermediate results to files."},
     {"import numpy as np\nvalues = np.arange(10_000_000)\nprint(values.sum())",
      "let total = 0;\nfor (let i = 0; i < 1e7; i++) total += i;\nconsole.log(total);"}},
    {{"Timeout"}, TG_CLASS_NONE, NULL, "TIMEOUT", "docs/code.md#timeouts",
     "Timeout: the program did not finish within {wall_s} s and was stopped",
     "The wall clock ({wall_s} s) ran out while the program was {state}; it was killed after "
     "{cpu_used_s} s of CPU time.",
     "{state_cause}",
     {"Make it faster or do less: no sleeps, vectorised pandas / numpy instead of loops, a "
      "sample of the data.",
      "{timeout_advice}"},
     {"import time\nstart = time.monotonic()\nwhile time.monotonic() - start < 2:\n    pass",
      "const start = Date.now();\nwhile (Date.now() - start < 2000) {}"}},
    {{"MemoryError"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#memory",
     "MemoryError: the program ran out of memory (limit {memory_mb} MiB){line_paren}",
     "An allocation failed{line_at} at a peak of {rss_mb} MiB resident; the limit is "
     "{memory_mb} MiB of address space.",
     "Too much data held at once: a large list, string or frame, or copies of one.{node_note}",
     {"Process data in chunks (pd.read_csv(..., chunksize=100_000)), keep only the columns "
      "you need (usecols=...) and smaller dtypes.",
      "Write intermediate results to files instead of keeping them in memory."},
     {"import pandas as pd\ntotal = 0\nfor chunk in pd.read_csv('big.csv', chunksize=100_000):\n"
      "    total += chunk['amount'].sum()",
      "const chunks = [];\nfor (let i = 0; i < 10; i++) chunks.push(i * i); // small pieces"}},
    {{"OutputLimitExceeded"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#output",
     "OutputLimitExceeded: the program wrote more than {output_kb} KiB to {stream} and was "
     "stopped",
     "{stream} went over its {output_kb} KiB cap; the start was kept and the program killed.",
     "Printing inside a loop, or printing a whole data set.",
     {"Print a summary (df.head(), df.describe(), len(rows)) instead of everything.",
      "Write large results to a file in the working directory: it comes back in `files`."},
     {"df.to_csv('result.csv', index=False)\nprint(df.head())",
      "require('fs').writeFileSync('result.json', JSON.stringify(rows));\n"
      "console.log(rows.length, 'rows written');"}},
    {{"DiskLimitExceeded"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#limits",
     "DiskLimitExceeded: the program wrote too much into its working directory and was stopped",
     "The working directory grew past its budget (16 x {output_kb} KiB, at least 100 MiB).",
     "Files written in a loop, or a very large intermediate file.",
     {"Write fewer or smaller files (aggregate, sample, compress)."}, {NULL, NULL}},
    {{"ProcessLimitExceeded"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#limits", DEFAULT_MESSAGE,
     "Starting a process or thread failed{line_at}: the limit is {processes}.",
     "Processes or threads started in a loop.",
     {"Do the work in one process; use small fixed pools of threads."}, {NULL, NULL}},
    {{"TooManyOpenFiles"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#limits", DEFAULT_MESSAGE,
     "Opening a file failed{line_at}: too many open files (limit {files}).",
     "Files opened in a loop and never closed.",
     {"Close every file: `with open(path) as f:` (Python), fs.readFileSync (Node.js)."},
     {"with open('out.txt', 'w') as f:\n    f.write('done')", NULL}},
    {{"NetworkBlocked"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#network",
     "NetworkBlocked: the sandbox has no network ({message})",
     "A connection or name lookup failed{line_at}: the sandbox has only a loopback interface "
     "with nothing listening.",
     "Programs never get network access; downloads go through the web_fetch tool.",
     {"Fetch the data with the web_fetch tool first, then put it into the program (or read the "
      "file it saved).",
      "Do not retry the request: it fails the same way every time."},
     {"import json\ndata = json.loads('''{\"rows\": [1, 2, 3]}''')  # pasted from web_fetch",
      "const data = JSON.parse('{\"rows\": [1, 2, 3]}'); // pasted from web_fetch"}},
    {{"NonZeroExit"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#exit-status",
     "NonZeroExit: the program exited with status {status}{stderr_line}",
     "The program ended itself with exit status {status} (sys.exit / process.exit).",
     "The program decided it failed; its stderr says why.",
     {"Read stderr; end normally (or exit with 0) when the program succeeded.",
      "Raise / throw an exception instead of exiting, to get a traceback with the line."},
     {"import sys\nif not rows:\n    sys.exit('no rows to process')",
      "if (rows.length === 0) {\n  console.error('no rows');\n  process.exitCode = 1;\n}"}},
    {{"Crash"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#exceptions",
     "Crash: the program's process ended abnormally (exit status {status}{signal_paren})",
     "The interpreter died of a signal or its reply channel was overwritten.",
     "A crash in native code, an abort, or a write to an inherited descriptor.",
     {"Run it again and read stderr for the runtime's message.",
      "Write only to stdout, stderr and files."}, {NULL, NULL}},
    {{"Cancelled"}, TG_CLASS_NONE, NULL, "INTERNAL_ERROR", "docs/code.md#exceptions",
     "Cancelled: the call was cancelled and the program killed",
     "The caller stopped the call.", "An interrupt, not the program.",
     {"Run it again if the result is still needed."}, {NULL, NULL}},
    {{0}, TG_CLASS_FILE_NOT_FOUND, NULL, NULL, "docs/code.md#files", DEFAULT_MESSAGE,
     "The program opened {filename}{line_at}, which does not exist in the sandbox.",
     "Each call starts in an empty working directory; the host's files are not visible.",
     {"Create the file earlier in the same program, or fetch its content first (web_fetch).",
      "List what exists: print(os.listdir('.')) / console.log(fs.readdirSync('.'))."},
     {"import os\nprint(os.listdir('.'))", "console.log(require('fs').readdirSync('.'));"}},
    {{0}, TG_CLASS_PERMISSION_DENIED, NULL, NULL, "docs/code.md#files", DEFAULT_MESSAGE,
     "Writing or opening {filename}{line_at} was refused.",
     "Everything but the working directory and /tmp is read-only in the sandbox.",
     {"Write files with relative paths (into the working directory) or into /tmp."},
     {"with open('result.csv', 'w') as f:\n    f.write('a,b\\n1,2\\n')",
      "require('fs').writeFileSync('result.csv', 'a,b\\n1,2\\n');"}},
    {{0}, TG_CLASS_RECURSION_LIMIT, NULL, NULL, "docs/code.md#recursion", DEFAULT_MESSAGE,
     "The call stack overflowed{line_at}.",
     "Recursion without a base case, or deeper than the stack allows.",
     {"Add the missing base case, or replace the recursion with a loop."},
     {"def depth(n):\n    count = 0\n    while n:\n        n, count = n // 2, count + 1\n"
      "    return count", NULL}},
    {{"TypeError"}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#types-and-values", DEFAULT_MESSAGE,
     "A value had the wrong type{line_at}.",
     "Text where a number was expected (or the reverse), None / undefined, or calling "
     "something that is not a function.",
     {"Convert explicitly at line {line}: int(x), float(x), str(x) / Number(x), String(x).",
      "Check for None / undefined before using a value."},
     {"count = int('3') + 4\nprint(f'{count} items')",
      "const count = Number('3') + 4;\nconsole.log(`${count} items`);"}},
    {{"ValueError", "ZeroDivisionError", "OverflowError", "ArithmeticError", "RangeError",
      "URIError", "AssertionError", "UnicodeEncodeError"},
     TG_CLASS_NONE, NULL, NULL, "docs/code.md#types-and-values", DEFAULT_MESSAGE,
     "A value did not fit the operation{line_at}.",
     "An empty list, a zero divisor, text that is not a number, or a value out of range.",
     {"Check the value before using it (if not values: ..., if divisor == 0: ...).",
      "Print the offending value to see what arrived: print(repr(value))."},
     {"values = []\nmean = sum(values) / len(values) if values else 0.0",
      "const values = [];\nconst mean = values.length ? values.reduce((a, b) => a + b) / "
      "values.length : 0;"}},
    {{0}, TG_CLASS_NONE, NULL, NULL, "docs/code.md#exceptions", DEFAULT_MESSAGE,
     "The program raised {error_type}{line_at}.",
     "See the message and the traceback in stderr.",
     {"Read the traceback in stderr (its last frames in <code> / [code] are the program's "
      "lines) and fix the code.",
      "Catch the error where it is expected and print a clear message instead."},
     {NULL, NULL}},
};

static bool rule_matches(const code_rule *r, const char *type, const char *phase,
                         const tg_guidance *g)
{
    if (r->types[0]) {
        bool hit = false;
        for (size_t i = 0; i < sizeof r->types / sizeof *r->types && r->types[i]; i++)
            hit = hit || strcmp(r->types[i], type) == 0;
        if (!hit)
            return false;
    }
    if (r->cls != TG_CLASS_NONE && r->cls != g->cls)
        return false;
    return !r->phase || (phase && strcmp(r->phase, phase) == 0);
}

static const code_rule *find_rule(const char *type, const char *phase, const tg_guidance *g)
{
    size_t n = sizeof rules / sizeof *rules;
    for (size_t i = 0; i + 1 < n; i++)
        if (rule_matches(&rules[i], type, phase, g))
            return &rules[i];
    return &rules[n - 1];
}

/* ---- the texts' variables ------------------------------------------------------------------- */

typedef struct cvars {
    tg_code_lang lang;
    const tg_run_facts *f;
    const tg_limits *cap;
    const char *type;
    const cJSON *err; /* the reply's error, or NULL */
    int line;
} cvars;

/* "a, b, c" of the strings in arr (none: fallback). */
static void join(const cJSON *arr, const char *fallback, char *out, size_t cap)
{
    size_t len = 0;
    const cJSON *v;
    out[0] = '\0';
    cJSON_ArrayForEach(v, arr)
    {
        if (cJSON_IsString(v) && len < cap)
            len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", v->valuestring);
    }
    if (!out[0])
        snprintf(out, cap, "%s", fallback);
}

/* The last line of stderr as ": line", or "". */
static void stderr_line(const tg_run_facts *f, char *out, size_t cap)
{
    const char *s = f->stderr_tail;
    out[0] = '\0';
    if (!s)
        return;
    size_t end = strlen(s);
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start && s[start - 1] != '\n' && end - start < 200)
        start--;
    if (end > start)
        snprintf(out, cap, ": %.*s", (int)(end - start), s + start);
}

/* The exception's message, first line only. */
static void first_line(const char *msg, char *out, size_t cap)
{
    msg = msg ? msg : "";
    snprintf(out, cap, "%.*s", (int)strcspn(msg, "\n"), msg);
}

static bool waiting(const tg_run_facts *f)
{
    return f->cpu_ms < 0.1 * f->wall_ms;
}

static bool limit_var(const cvars *v, const char *name, size_t n, char *out, size_t cap)
{
    const tg_run_facts *f = v->f;
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
    if (IS("wall_s"))
        snprintf(out, cap, "%.1f", (double)f->limits.wall_ms / 1000.0);
    else if (IS("cpu_s"))
        snprintf(out, cap, "%ld", f->limits.cpu_s);
    else if (IS("cpu_used_s"))
        snprintf(out, cap, "%.1f", f->cpu_ms / 1000.0);
    else if (IS("memory_mb"))
        snprintf(out, cap, "%ld", f->limits.memory_mb);
    else if (IS("rss_mb"))
        snprintf(out, cap, "%.0f", (double)f->max_rss_kb / 1024.0);
    else if (IS("output_kb"))
        snprintf(out, cap, "%ld", f->limits.output_kb);
    else if (IS("files"))
        snprintf(out, cap, "%ld", f->limits.files);
    else if (IS("processes"))
        snprintf(out, cap, "%ld", f->limits.processes);
    else if (IS("stream"))
        snprintf(out, cap, "%s", f->overflow_stream ? f->overflow_stream : "its output");
    else if (IS("state"))
        snprintf(out, cap, "%s", waiting(f) ? "waiting" : "computing");
    else if (IS("state_cause"))
        snprintf(out, cap, "%s", waiting(f)
                                     ? "It was waiting, not computing: a sleep, a timer or promise "
                                       "that never settles, or a read of stdin (empty) or the "
                                       "network (there is none)."
                                     : "The computation takes longer than the timeout: a slow "
                                       "loop, too much data, or an endless loop.");
    else if (IS("timeout_advice")) {
        if (v->cap->wall_ms > f->limits.wall_ms)
            snprintf(out, cap, "If the work is real, pass a larger timeout (at most %.0f s).",
                     (double)v->cap->wall_ms / 1000.0);
        else
            snprintf(out, cap, "The timeout is at its maximum (%.0f s): split the work into "
                               "several calls.", (double)v->cap->wall_ms / 1000.0);
    } else
        return false;
#undef IS
    return true;
}

static bool var_value(const void *ctx, const char *name, size_t n, char *out, size_t cap)
{
    const cvars *v = ctx;
    const cJSON *e = v->err;
    const char *s;
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
    if (IS("error_type"))
        snprintf(out, cap, "%s", v->type);
    else if (IS("message"))
        first_line(tg_json_get_string(e, "message"), out, cap);
    else if (IS("line"))
        snprintf(out, cap, v->line ? "%d" : "the line stderr names", v->line);
    else if (IS("line_at"))
        snprintf(out, cap, v->line ? " at line %d" : "", v->line);
    else if (IS("line_paren"))
        snprintf(out, cap, v->line ? " (line %d)" : "", v->line);
    else if (IS("module"))
        snprintf(out, cap, "%s", (s = tg_json_get_string(e, "missing_module")) ? s : "the module");
    else if (IS("filename"))
        snprintf(out, cap, "%s", (s = tg_json_get_string(e, "filename")) ? s : "a file");
    else if (IS("available"))
        join(tg_json_get(v->f->reply, "available"), "none besides the standard library", out, cap);
    else if (IS("packages"))
        join(tg_json_get(e, "packages"), "them", out, cap);
    else if (IS("language"))
        snprintf(out, cap, "%s", v->lang == TG_CODE_NODE ? "JavaScript" : "Python");
    else if (IS("stdlib"))
        snprintf(out, cap, "%s", v->lang == TG_CODE_NODE ? "Node.js's built-in modules (fs, path, "
                                                           "...)"
                                                         : "Python's standard library (json, csv, "
                                                           "statistics, ...)");
    else if (IS("node_note"))
        snprintf(out, cap, "%s", v->lang == TG_CODE_NODE ? " Node.js itself reserves about 700 MB "
                                                           "of address space." : "");
    else if (IS("status"))
        snprintf(out, cap, "%d", v->f->exit_code);
    else if (IS("signal_paren"))
        snprintf(out, cap, v->f->signal ? ": signal %d" : "", v->f->signal);
    else if (IS("stderr_line"))
        stderr_line(v->f, out, cap);
    else
        return limit_var(v, name, n, out, cap);
#undef IS
    return true;
}

static void expand(char *dst, size_t cap, const char *tpl, const cvars *v)
{
    tg_guidance_expand(dst, cap, tpl, var_value, v);
}

/* ---- guidance ------------------------------------------------------------------------------- */

static int program_line(const cJSON *e)
{
    const cJSON *l = tg_json_get(e, "line");
    if (!cJSON_IsNumber(l))
        l = tg_json_get(e, "lineno");
    return cJSON_IsNumber(l) && l->valuedouble > 0 ? (int)l->valuedouble : 0;
}

static void add_string(cJSON *arr, const char *s)
{
    cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

cJSON *tg_code_guidance(tg_code_lang lang, const tg_run_facts *f, const tg_limits *cap,
                        tg_guidance *g)
{
    cvars v = {.lang = lang, .f = f, .cap = cap, .err = reply_error(f)};
    v.type = tg_code_error_type(lang, f, g);
    v.line = program_line(v.err);
    const code_rule *r = find_rule(v.type, tg_json_get_string(v.err, "phase"), g);
    tg_error_class cls = g->cls;
    *g = (tg_guidance){.cls = cls};
    g->code = r->code ? r->code : tg_errcode_name(TG_ERR_INVALID_INPUT);
    expand(g->message, sizeof g->message, r->message, &v);
    expand(g->what, sizeof g->what, r->what, &v);
    expand(g->cause, sizeof g->cause, r->cause, &v);

    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "error_type", v.type);
    cJSON_AddStringToObject(o, "message", g->message);
    if (v.line)
        cJSON_AddNumberToObject(o, "line", v.line);
    cJSON *advice = cJSON_AddArrayToObject(o, "actionable_guidance");
    add_string(advice, g->cause);
    for (size_t i = 0; i < sizeof r->advice / sizeof *r->advice && r->advice[i]; i++) {
        char text[TG_GUIDANCE_TEXT];
        expand(text, sizeof text, r->advice[i], &v);
        if (!text[0])
            continue;
        add_string(advice, text);
        if (g->n_fix < TG_GUIDANCE_FIXES)
            snprintf(g->fix[g->n_fix++], TG_GUIDANCE_TEXT, "%s", text);
    }
    cJSON *docs = cJSON_AddArrayToObject(o, "related_docs");
    add_string(docs, r->doc);
    cJSON *examples = cJSON_AddArrayToObject(o, "code_examples");
    if (r->example[lang])
        add_string(examples, r->example[lang]);
    g->doc = r->doc;
    return o;
}

/* ---- resource analysis ---------------------------------------------------------------------- */

typedef enum budget { B_CPU, B_MEMORY, B_WALL, B_OUTPUT } budget;

/* The slow-to-import modules the program loaded (the reply's "imports"), as "pandas, numpy". */
static bool heavy_imports(const tg_run_facts *f, char *out, size_t cap)
{
    join(tg_json_get(f->reply, "imports"), "", out, cap);
    return out[0] != '\0';
}

/* What to do about one budget at its status. */
static void recommend(budget b, const tg_usage *u, const cvars *v, char *out, size_t cap)
{
    const tg_limits *l = &v->f->limits;
    double max_s = (double)v->cap->wall_ms / 1000.0, now_s = (double)l->wall_ms / 1000.0;
    bool out_of = u->status == TG_USAGE_EXHAUSTED;
    const char *lead = out_of ? "ran out" : "is close to running out";
    if (u->status <= TG_USAGE_MODERATE) {
        snprintf(out, cap, "Within budget (%.0f%%); no change needed.", u->percent);
    } else if (b == B_CPU) {
        snprintf(out, cap, "The CPU budget (%ld s) %s: make the program cheaper (vectorise, "
                           "sample the data) or split the work into several calls.",
                 l->cpu_s, lead);
    } else if (b == B_MEMORY) {
        snprintf(out, cap, "Memory (%ld MiB of address space; the figure is peak resident "
                           "memory) %s: process the data in chunks and keep only the columns "
                           "you need.", l->memory_mb, lead);
    } else if (b == B_WALL && v->cap->wall_ms > l->wall_ms) {
        snprintf(out, cap, "The timeout (%.0f s) %s: pass a larger timeout (at most %.0f s) or "
                           "do less.", now_s, lead, max_s);
    } else if (b == B_WALL) {
        snprintf(out, cap, "The timeout (%.0f s, its maximum) %s: make the program faster or "
                           "split the work into several calls.", max_s, lead);
    } else {
        snprintf(out, cap, "The output cap (%ld KiB for stdout and for stderr) %s: print "
                           "summaries and write large results to files.", l->output_kb, lead);
    }
}

/* Why a budget is at warning or worse, from what the call's facts say. */
static void likely_causes(budget b, const cvars *v, cJSON *causes)
{
    const tg_run_facts *f = v->f;
    char heavy[200], text[TG_GUIDANCE_TEXT];
    bool imports = heavy_imports(f, heavy, sizeof heavy);
    switch (b) {
    case B_CPU:
        if (imports) {
            /* a session's reply also lists what earlier programs loaded: those cost nothing
             * now, and these will not cost again (docs/code.md#what-survives) */
            snprintf(text, sizeof text, "the first import of %s (0.2-1 s of CPU each)%s", heavy,
                     tg_json_get(f->reply, "cached_imports")
                         ? "; the session keeps them loaded, so later calls do not pay again"
                         : "; a session (create_session) would load them once for all calls");
            add_string(causes, text);
        }
        add_string(causes, v->lang == TG_CODE_NODE ? "loops over many items"
                                                   : "Python loops over many rows where "
                                                     "vectorised pandas / numpy would do");
        add_string(causes, "a loop that never ends");
        return;
    case B_MEMORY:
        add_string(causes, "large lists, strings or data frames held at once, or copies of them");
        if (v->lang == TG_CODE_NODE)
            add_string(causes, "Node.js itself reserves about 700 MB of address space");
        else if (imports)
            add_string(causes, "pandas copies frames in most operations (merges, pivots, "
                               "chained assignments)");
        return;
    case B_WALL:
        if (waiting(f))
            add_string(causes, "waiting, not computing: a sleep, a timer or promise that never "
                               "settles, or a read of stdin (empty) or the network (none)");
        else
            add_string(causes, "computing: the CPU was busy for most of the time (see cpu)");
        if (imports && tg_json_get(f->reply, "cached_imports")) {
            snprintf(text, sizeof text, "the first import of %s in this session (later calls "
                                        "find them loaded)", heavy);
            add_string(causes, text);
        } else if (imports) {
            snprintf(text, sizeof text, "the interpreter's start and the import of %s", heavy);
            add_string(causes, text);
        }
        return;
    case B_OUTPUT:
        add_string(causes, "printing inside a loop");
        add_string(causes, "printing a whole data set (print(df), console.log(rows))");
        return;
    }
}

static cJSON *budget_json(budget b, const tg_usage *u, const char *unit, const cvars *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "consumed", round(u->used * 10) / 10);
    cJSON_AddNumberToObject(o, "budget", u->budget);
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddNumberToObject(o, "utilization_percent", u->percent);
    cJSON_AddStringToObject(o, "status", tg_usage_status_name(u->status));
    char rec[TG_GUIDANCE_TEXT];
    recommend(b, u, v, rec, sizeof rec);
    cJSON_AddStringToObject(o, "recommendation", rec);
    cJSON *causes = cJSON_AddArrayToObject(o, "likely_causes");
    if (u->status >= TG_USAGE_WARNING)
        likely_causes(b, v, causes);
    return o;
}

cJSON *tg_code_resources(tg_code_lang lang, const tg_run_facts *f, const tg_resources *r,
                         const tg_limits *cap)
{
    cvars v = {.lang = lang, .f = f, .cap = cap, .err = reply_error(f)};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "cpu", budget_json(B_CPU, &r->cpu, "ms", &v));
    cJSON_AddItemToObject(o, "memory", budget_json(B_MEMORY, &r->memory, "MiB", &v));
    cJSON_AddItemToObject(o, "wall_clock", budget_json(B_WALL, &r->wall, "ms", &v));
    cJSON_AddItemToObject(o, "output", budget_json(B_OUTPUT, &r->output, "KiB", &v));
    cJSON_AddStringToObject(o, "status", tg_usage_status_name(r->status));
    return o;
}
