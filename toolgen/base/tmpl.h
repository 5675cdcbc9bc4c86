/*
 * tmpl.h — the prompt template format (docs/generate.md#prompts): a system message, a line
 * "=== user ===", then the user message, each with named placeholders {{name}}. gen/prompt.h
 * loads the repository's templates for generation; the LLM runtime (run/rt_llm.c) renders a
 * prompt tool's template per call. Both read the format through these two functions.
 */
#ifndef TG_TMPL_H
#define TG_TMPL_H

#include "base/util.h"

/*
 * Splits a template's text at its separator into *system and *user (heap). -1 with err (naming
 * path at line 1) when the separator is missing.
 */
int tg_tmpl_split(const char *text, const char *path, char **system, char **user, tg_err *err);

/*
 * Replaces every {{key}} of tmpl with its value; vars holds key, value pairs, NULL-terminated.
 * A placeholder with no value is an error naming path and the placeholder (a typo in a template
 * must not reach a model): NULL then. Values are inserted as they are: a value holding "{{x}}"
 * is not expanded again. Heap string.
 */
char *tg_tmpl_render(const char *path, const char *tmpl, const char *const *vars, tg_err *err);

#endif
