/*
 * gen_example.h — one sandboxed call of a tool being generated, to record its example's real
 * output (docs/generate.md#the-built-in-generator): the same call `toolgen run` makes.
 */
#ifndef TG_GEN_EXAMPLE_H
#define TG_GEN_EXAMPLE_H

#include "base/util.h"
#include "model/repo.h"

/*
 * Runs the tool whose manifest is at manifest_path (relative to the root) with the arguments
 * input_json in the sandbox. The result as JSON text (heap) when the call succeeded and fits
 * output_schema; NULL with err (the guidance's message, or the environment's problem) and
 * *env_problem true when the sandbox itself could not run.
 */
char *tg_gen_run_example(const tg_repo *repo, const char *manifest_path, const char *input_json,
                         bool *env_problem, tg_err *err);

#endif
