/*
 * builtins.h — the built-in toolsets that ship with toolgen (docs/toolsets.md): where they are,
 * which exist, and one loaded as a tool set to serve beside the repository's tools.
 *
 * Each toolset is a small toolgen repository of its own in toolgen's data directory
 * (base/util.h's tg_datadir: the source tree, or PREFIX/share/toolgen once installed):
 * `toolsets/<name>/toolgen.yaml` and `toolsets/<name>/manifests/<tool>/`, built and tested by
 * `toolgen -C toolsets/<name> build` like any repository. A served toolset's tools run in the
 * serving repository's sandbox (its data directories and limits), from their own folders.
 */
#ifndef TG_SERVE_BUILTINS_H
#define TG_SERVE_BUILTINS_H

#include "base/strvec.h"
#include "base/util.h"
#include "serve/tools.h"

/* The names of the installed toolsets into out, sorted. -1 with err when toolgen's data
 * directory cannot be found. */
int tg_builtin_sets_list(tg_strv *out, tg_err *err);

/*
 * Loads the tools of the toolset name into t (tg_serve_tools_free), each tool's folder an
 * absolute path so that it runs from any repository. -1 with err when there is no such
 * toolset (err names the installed ones) or one of its tools does not load (a packaging
 * error: err names the file and the problem).
 */
int tg_builtin_set_load(tg_serve_tools *t, const char *name, tg_err *err);

#endif
