/*
 * codeguide.h — what a program run by the code runtime (docs/code.md) teaches its author when it
 * fails, and how much of each budget it used: the error type, actionable guidance, the
 * documentation and a code example for each kind of failure, and the resource analysis of CPU,
 * memory, wall clock and output with a recommendation and the likely causes.
 *
 * It builds on run/guidance.h rather than reading the program's text: the class guidance gave the
 * call's facts (the runner's reply, the exit status and signal, the limit toolgen enforced, the
 * usage from wait4) says what stopped the program, and the reply's exception facts which error it
 * raised. A program that exits with status 0 is a success whatever it printed, so words like
 * "Error" or "Traceback" in its output never raise an alarm. The texts are a table (codeguide.c);
 * pure functions, thread-safe.
 */
#ifndef TG_CODEGUIDE_H
#define TG_CODEGUIDE_H

#include <cjson/cJSON.h>

#include "run/guidance.h"

typedef enum tg_code_lang { TG_CODE_PYTHON, TG_CODE_NODE } tg_code_lang;

/* implementation.language of a code tool ("python", "node"); python for anything else. */
tg_code_lang tg_code_lang_parse(const char *name);

/*
 * The error type of a failed program (g classified from f): the exception's class (NameError,
 * pandas' EmptyDataError as "EmptyDataError"), Node.js's system or module code (ENOENT,
 * MODULE_NOT_FOUND, ERR_MODULE_NOT_FOUND) or error name (ReferenceError), or what toolgen saw
 * stop it: Timeout, MemoryError, OutputLimitExceeded, DiskLimitExceeded, ProcessLimitExceeded,
 * TooManyOpenFiles, NetworkBlocked, NonZeroExit, Crash, Cancelled; what the runner refused
 * before it ran: PackageNotAllowed, PackageNotInstalled, InvalidWorkingDir; a thrown value that
 * is no Error: ThrownValue. Points into f's reply or at a static.
 */
const char *tg_code_error_type(tg_code_lang lang, const tg_run_facts *f, const tg_guidance *g);

/*
 * The result's error_guidance of a failed program — {error_type, message, line?,
 * actionable_guidance, related_docs, code_examples} — and g restated for a program: its code
 * (TIMEOUT for time, NOT_FOUND / FORBIDDEN for refused packages, INVALID_INPUT for what the
 * program did: fix the code and call again), message, texts and documentation; its class stays.
 * cap: the tool's own limits (the largest `timeout` a call may ask for).
 */
cJSON *tg_code_guidance(tg_code_lang lang, const tg_run_facts *f, const tg_limits *cap,
                        tg_guidance *g);

/*
 * The result's resource_analysis: {cpu, memory, wall_clock, output}, each {consumed, budget,
 * unit, utilization_percent, status, recommendation, likely_causes}, from r (the call's analysis,
 * tg_resources_analyze) and f.
 */
cJSON *tg_code_resources(tg_code_lang lang, const tg_run_facts *f, const tg_resources *r,
                         const tg_limits *cap);

#endif
