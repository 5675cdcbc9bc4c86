/*
 * builtin_example.h — the example of a tool the built-in generator wrote, run once in the
 * sandbox so that the manifest shows what the tool really returns
 * (docs/generate.md#what-a-generated-tool-looks-like).
 *
 * gen/builtin.h is pure; this is its one step that runs code. The caller has written
 * tool.py into tool_dir (relative to the repository root); the manifest is taken from
 * t->manifest_yaml, which is rewritten with the example's output on success.
 */
#ifndef TG_BUILTIN_EXAMPLE_H
#define TG_BUILTIN_EXAMPLE_H

#include "base/util.h"
#include "gen/builtin.h"
#include "model/repo.h"

/* 0, or -1 with err: the sandbox is unusable, or the example failed (its error). */
int tg_builtin_run_example(const tg_repo *repo, const char *tool_dir, tg_builtin_tool *t,
                           tg_err *err);

#endif
