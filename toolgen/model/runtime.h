/*
 * runtime.h — the runtimes a tool's implementation can name (implementation.runtime), as one
 * table. Each entry describes its runtime with the facts the rest of toolgen needs (lint, emit,
 * the stages, run/), so that no caller compares kinds: a caller asks the entry
 * (tg_runtime_info(m->runtime)->network). What a runtime does in a call — its command, its warm
 * sandboxes, how its result is read — is run/'s: one file per runtime behind
 * run/runtime_ops.h.
 *
 * A kind is the index of its entry: the built-in ones are the enum's, a registered one gets the
 * next free index. TG_RUNTIME_UNKNOWN stands for a name the table does not hold (a manifest
 * that failed its schema); every lookup answers NULL for it.
 *
 * A runtime is added with an entry here (built in: the table in runtime.c; at run time:
 * tg_runtime_register, which the unit tests use for a fake one), its operations
 * (run/runtime_ops.h) and, for its manifests to lint clean, its name and fields in
 * schemas/tool.manifest.schema.json. The schema stays the contract editors, generators and lint
 * see (docs/manifest.md), so it enumerates the runtimes rather than the table; a registered
 * runtime's manifests therefore fail its enum, while everything after the schema (binding,
 * lint's own checks, the stages, a call) goes through the table. tests/unit/test_runtime.c holds
 * the schema's list to the built-in entries.
 *
 * Threads: lookups may run in any number of threads at once, also while a runtime is being
 * registered (an entry is complete before its kind is published). Register before the first
 * manifest naming the runtime is bound. Entries are never removed; a registered entry is
 * borrowed and must outlive the process's last lookup (a static).
 */
#ifndef TG_RUNTIME_H
#define TG_RUNTIME_H

#include <stdbool.h>

#include "base/util.h"

typedef enum tg_runtime {
    TG_RUNTIME_UNKNOWN = -1, /* implementation.runtime names no entry of the table */
    TG_RUNTIME_PYTHON,
    TG_RUNTIME_NODE,
    TG_RUNTIME_COMMAND,
    TG_RUNTIME_HTTP,
    TG_RUNTIME_CODE, /* the program is the call's `code` argument (docs/code.md) */
    TG_RUNTIME_LLM,  /* a prompt sent to a model, its code checked (docs/code-edit.md) */
    TG_RUNTIME_BUILTIN, /* how many kinds are built in; registered ones follow */
    TG_RUNTIME_MAX = 16 /* the table's capacity: kinds stay below it */
} tg_runtime;

/* How SKILL.md says how a tool of the runtime runs (emit/emit_skill.c). */
typedef enum tg_runtime_summary {
    TG_RUNTIME_SUMMARY_LANGUAGE, /* the language and the dependencies: "Python with `pandas`" */
    TG_RUNTIME_SUMMARY_ARGV,     /* the argv template: "the command `wc -l {path}`" */
    TG_RUNTIME_SUMMARY_REQUEST,  /* the request's method and URL: "an HTTP request `GET …`" */
    /* the program argument in implementation.language: "the `code` argument as a Python
     * program" */
    TG_RUNTIME_SUMMARY_PROGRAM,
    /* the prompt template a model answers: "the prompt `prompts/generate_snippet.md`" */
    TG_RUNTIME_SUMMARY_PROMPT,
} tg_runtime_summary;

typedef struct tg_runtime_desc {
    const char *name;     /* implementation.runtime's value: "python" */
    const char *language; /* the language as SKILL.md names it ("Python", "Node.js"); NULL: none */
    /* implementation.file and .entrypoint: an entry function in a code file next to the
     * manifest. Lint checks the file; the test stage also runs a reference implementation. */
    bool code_file;
    const char *const *extensions; /* code_file: its extensions (".py"), NULL-ended; else NULL */
    /* Members of implementation rendered from the arguments ("argv"), whose placeholders lint
     * checks against input_schema; NULL-ended, NULL: none. */
    const char *const *templates;
    /* Its calls run in the sandbox. The build runs only such calls: the sandbox has no
     * network, so a remote tool cannot be tested there. */
    bool sandboxed;
    bool network; /* a tool of it reaches the network whatever constraints.network says */
    bool auth;    /* implementation.auth names the environment variable of its credential */
    /* Why this version of toolgen does not run its calls (the end of the message a call is
     * refused with); NULL: it runs them. */
    const char *not_run;
    /* Why the static stage does not check its code (the end of its note); NULL: its code is
     * checked by static_check.py, with Python's own ast. */
    const char *static_skip;
    /* The test stage compares its code with the reference implementation's (CodeBLEU:
     * tg_py_tokenize and code_analysis.py read Python). */
    bool code_analysis;
    /* toolgen's files under run/runtime/ its calls run with, the runner first (inputs of the
     * test stage); NULL-ended, NULL: none. */
    const char *const *runner_files;
    /* The input_schema property whose value is the program the call runs (the code runtime's
     * "code"): lint requires it as a required string property. NULL: the code is the tool's. */
    const char *program_arg;
    /* A prompt tool's (the llm runtime's): the implementation members naming a template
     * prompts/<name>.md of the repository (NULL-ended; lint checks each file exists), the
     * input_schema string property naming the language of the code, and the implementation
     * member naming the output_schema property the code goes to. NULL: none. */
    const char *const *prompts;
    const char *language_arg;
    const char *code_member;
    tg_runtime_summary summary;
} tg_runtime_desc;

/* The entry of kind; NULL for TG_RUNTIME_UNKNOWN and kinds not registered. */
const tg_runtime_desc *tg_runtime_info(tg_runtime kind);
/* The kind named name (NULL is fine); TG_RUNTIME_UNKNOWN when the table holds none. */
tg_runtime tg_runtime_parse(const char *name);
/* The name of kind, "unknown" for a kind without an entry. */
const char *tg_runtime_name(tg_runtime kind);

/*
 * Adds desc (borrowed, see above) to the table and sets *kind to its new kind. -1 with err when
 * its name is already taken (or empty) or the table is full.
 */
int tg_runtime_register(const tg_runtime_desc *desc, tg_runtime *kind, tg_err *err);

#endif
