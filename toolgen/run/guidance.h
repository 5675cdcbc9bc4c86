/*
 * guidance.h — why a call failed, what to do about it, and how much of its budget it used
 * (docs/sandbox.md#error-classes and #resource-analysis: CPU, memory and wall time).
 *
 * Classification reads only facts the tool cannot fake by printing: the runner's reply (a
 * separate channel), the exit status and signal, which limit toolgen enforced, and the resource
 * usage from wait4. Text the tool wrote to stdout is never read; stderr only to recognise the
 * runtime's own out-of-memory abort, and only when the process really died of a signal.
 * Rules are a fixed table, so the same facts always give the same code. Pure functions, no
 * allocation: well under a microsecond per call next to a sandbox start in milliseconds.
 */
#ifndef TG_GUIDANCE_H
#define TG_GUIDANCE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "run/sandbox.h"

typedef enum tg_error_class {
    TG_CLASS_NONE = 0,
    /* refused before the tool ran */
    TG_CLASS_INPUT_SCHEMA,
    TG_CLASS_PATH_FORBIDDEN,
    TG_CLASS_PATH_NOT_FOUND,
    /* limits toolgen enforced */
    TG_CLASS_TIMEOUT,
    TG_CLASS_CPU_LIMIT,
    TG_CLASS_MEMORY_LIMIT,
    TG_CLASS_OUTPUT_LIMIT,
    TG_CLASS_DISK_LIMIT,
    TG_CLASS_PROCESS_LIMIT,
    TG_CLASS_FILES_LIMIT,
    /* the tool's code could not run as written */
    TG_CLASS_SYNTAX_ERROR,
    TG_CLASS_MODULE_MISSING,
    TG_CLASS_MODULE_NOT_ALLOWED,
    TG_CLASS_ENTRYPOINT_MISSING,
    TG_CLASS_SIGNATURE_MISMATCH,
    /* the tool raised */
    TG_CLASS_TOOL_ERROR,
    TG_CLASS_FILE_NOT_FOUND,
    TG_CLASS_PERMISSION_DENIED,
    TG_CLASS_NETWORK_BLOCKED,
    TG_CLASS_MISSING_KEY,
    TG_CLASS_TYPE_ERROR,
    TG_CLASS_INVALID_VALUE,
    TG_CLASS_EMPTY_DATA,
    TG_CLASS_RECURSION_LIMIT,
    TG_CLASS_SYSTEM_EXIT,
    TG_CLASS_EXCEPTION,
    /* the result */
    TG_CLASS_INVALID_RESULT,
    TG_CLASS_OUTPUT_SCHEMA,
    /* processes that ended without a reply */
    TG_CLASS_COMMAND_FAILED,
    TG_CLASS_CRASH,
    TG_CLASS_CANCELLED, /* stopped by the caller (Ctrl-C) */
    TG_CLASS_COUNT
} tg_error_class;

/* "cpu_limit", ...: the stable name used in JSON output and in docs/sandbox.md anchors. */
const char *tg_error_class_name(tg_error_class c);
/* The docs/sandbox.md section (e.g. "docs/sandbox.md#cpu-limit") that explains a class. */
const char *tg_error_class_doc(tg_error_class c);

/* Everything the classifier may look at. Zero-initialise, then fill what is known. */
typedef struct tg_run_facts {
    const char *runtime;        /* its name ("python"): the words and facts of its operations
                                 * (run/runtime_ops.h) */
    tg_error_class pre;         /* set when the call was refused before running */
    const char *pre_message;    /* its message (path, schema errors) */
    bool ran;                   /* the process was started */
    int exit_code, signal;
    bool signal_inferred;
    tg_sandbox_limit killed_by;
    const char *overflow_stream;
    double wall_ms, cpu_ms;     /* cpu = user + sys of the whole tree */
    long long output_bytes;     /* the larger of stdout and stderr, as produced (output_kb) */
    long max_rss_kb;
    tg_limits limits;           /* of this call */
    tg_limits max;              /* sandbox.max_limits, for recommendations */
    const cJSON *reply;         /* the runner's reply object, NULL when none arrived */
    bool reply_garbled;         /* something arrived but it is not a reply */
    const char *stderr_tail;    /* last bytes of stderr (only read after a signal) */
    const char *mapped_code;    /* command: exit_codes[exit status], NULL when unmapped */
    const char *result_problem; /* the result is unusable (not JSON, not an object): why */
    const char *output_schema_message; /* the result broke output_schema: first error */
    const cJSON *allowed_imports;      /* static_check.allowed_imports for a runtime whose code
                                        * the static check reads; NULL: not judged */
} tg_run_facts;

#define TG_GUIDANCE_TEXT 600
#define TG_GUIDANCE_FIXES 3

typedef struct tg_guidance {
    tg_error_class cls;
    const char *code;                           /* INVALID_INPUT, NOT_FOUND, ... */
    char message[TG_GUIDANCE_TEXT];             /* the error message for the caller */
    char what[TG_GUIDANCE_TEXT];                /* what happened */
    char cause[TG_GUIDANCE_TEXT];               /* likely cause */
    /* how to fix, most useful first: alternatives, each a sentence of its own (the renderers
     * put "or" before the second) */
    char fix[TG_GUIDANCE_FIXES][TG_GUIDANCE_TEXT];
    int n_fix;
    const char *doc;                            /* docs/sandbox.md#... */
} tg_guidance;

/*
 * A template's text into dst (cap bytes, NUL-terminated, cut when full): each {name} for which
 * value(ctx, name, length, out, out_cap) returns true becomes what it wrote into out; anything
 * else is copied as it is. value's out holds TG_GUIDANCE_TEXT bytes.
 */
typedef bool (*tg_guidance_var)(const void *ctx, const char *name, size_t n, char *out, size_t cap);
void tg_guidance_expand(char *dst, size_t cap, const char *tpl, tg_guidance_var value,
                        const void *ctx);

/* Classifies a call. Returns false (g->cls = TG_CLASS_NONE) when the call succeeded. */
bool tg_classify(const tg_run_facts *f, tg_guidance *g);
/* A result the runtime assembled itself (tg_runtime_ops.report) breaks output_schema at
 * message (the first error): the runtime and the manifest disagree. */
void tg_classify_result_schema(const char *message, tg_guidance *g);

typedef enum tg_usage_status {
    TG_USAGE_EFFICIENT, /* < 50 % */
    TG_USAGE_MODERATE,  /* 50 – 75 % */
    TG_USAGE_WARNING,   /* 75 – 90 % */
    TG_USAGE_CRITICAL,  /* 90 – 100 % */
    TG_USAGE_EXHAUSTED, /* the limit was reached */
} tg_usage_status;
const char *tg_usage_status_name(tg_usage_status s);
tg_usage_status tg_usage_status_of(double percent);

typedef struct tg_usage {
    double used, budget, percent;
    tg_usage_status status;
} tg_usage;

typedef struct tg_resources {
    tg_usage cpu;    /* ms of CPU vs cpu_s */
    tg_usage memory; /* peak RSS in MiB vs memory_mb (an address-space limit: RSS understates) */
    tg_usage wall;   /* ms vs the wall clock */
    tg_usage output; /* KiB of the larger of stdout and stderr vs output_kb */
    tg_usage_status status; /* the worst of the four */
    char recommendation[TG_GUIDANCE_TEXT];
} tg_resources;

/* Usage against budgets; the class (g may be NULL) marks a limit that was hit as exhausted. */
void tg_resources_analyze(const tg_run_facts *f, const tg_guidance *g, tg_resources *r);

/* {"code","message","class","guidance":{...}} and {"cpu":..,"memory":..,"wall":..,...}. */
cJSON *tg_guidance_json(const tg_guidance *g);
cJSON *tg_resources_json(const tg_resources *r);

#endif
