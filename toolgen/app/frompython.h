/*
 * frompython.h — `toolgen init --from-python MODULE [DIR]`: one draft manifest of the python
 * runtime per public function of a Python module (docs/cli.md#init-from-python).
 *
 * MODULE is a module /usr/bin/python3 imports (the standard library, a Debian package) or the
 * path of a .py file. It is imported in the sandbox (no network) by run/runtime/describe_module.py,
 * which reads each public function's signature, annotations, docstring and doctests; each draft
 * gets a tool.py whose entry function calls the function (a file module is copied beside it).
 * Bad input (no such module, an import that raises, no public function) fails with err naming
 * the fix, and nothing is written. The hints file (toolgen.hints.yaml) selects, renames and
 * describes functions as it does operations (a function's name stands for the operationId and
 * the path). Re-running follows app/drafts.h. When toolgen.yaml has no static_check section,
 * one allowing the module's import is appended (the static check refuses imports it does not
 * allow). Nothing here prints.
 */
#ifndef TG_APP_FROMPYTHON_H
#define TG_APP_FROMPYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"

typedef struct tg_frompy_opts {
    const char *module;     /* a module name (textwrap, os.path) or the path of a .py file */
    const char *dir;        /* the repository (created / initialised when needed) */
    int name_budget;        /* longest tool name; 0: 48 (16..64), as for --from-openapi */
    bool dry_run;           /* draft and compare, write nothing */
    const char *hints_file; /* NULL: DIR/toolgen.hints.yaml when it exists */
} tg_frompy_opts;

typedef struct tg_frompy_report {
    bool initialised;  /* DIR was made a toolgen repository first */
    bool config_added; /* a static_check section allowing the import was appended */
    tg_strv created, updated, unchanged, kept, stale; /* as in app/drafts.h */
    tg_strv skipped;   /* "name: why" for functions not drafted */
    tg_strv warnings;
    size_t tools;      /* functions drafted */
} tg_frompy_report;

/* 0 with out filled (free with tg_frompy_report_free, also after an error); -2 with err: the
 * module or an option is refused and nothing was written; -3 with err: the sandbox or python3
 * is missing; -1 with err: a write failed. */
int tg_app_init_python(const tg_frompy_opts *o, tg_frompy_report *out, tg_err *err);
void tg_frompy_report_free(tg_frompy_report *r);

#endif
