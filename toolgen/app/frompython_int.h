/*
 * frompython_int.h — private to app/: what the two files of `toolgen init --from-python` share
 * (frompython.c runs the describer and writes, frompython_draft.c turns one described function
 * into a manifest and its tool.py; docs/cli.md#init-from-python).
 */
#ifndef TG_APP_FROMPYTHON_INT_H
#define TG_APP_FROMPYTHON_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/json.h"

/* The mark every draft's first line starts with: how a re-run knows the drafts it may rewrite. */
#define FP_DRAFT_MARK "# Drafted by `toolgen init --from-python`"

typedef struct fp_run {
    const char *module;   /* the module's __name__ (textwrap) */
    const char *import;   /* the name tool.py imports (the file's stem for a file module) */
    const char *source;   /* what the drafts' first line names: the module, or the file's name */
    const char *copy_name;/* a file module: its name beside tool.py (mylib.py); else NULL */
    const char *copy_hash;/* ... and the hash of its text, written into tool.py (so a changed
                             copy changes the tool's code and its build reruns) */
    size_t placeholders;  /* drafts whose example is a placeholder (the call raised) */
} fp_run;

/* The manifest of the described function fn (describe_module.py's entry) named name, with
 * description desc (NULL: from the docstring). New object. */
cJSON *fp_manifest(fp_run *r, const cJSON *fn, const char *name, const char *desc);
/* The tool.py that calls fn. Heap. */
char *fp_tool_py(const fp_run *r, const cJSON *fn);

#endif
