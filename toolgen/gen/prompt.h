/*
 * prompt.h — the prompt templates of prompts/ (docs/generate.md#prompts).
 *
 * A template is a text file prompts/NAME.md: the system message, a line "=== user ===", then the
 * user message, with named placeholders {{name}}. The repository's prompts/ wins; toolgen's own
 * copy (the data directory) serves a repository without one. The template's hash is part of what
 * a generated tool pins (tool.lock), so editing a template regenerates exactly the tools whose
 * code it wrote.
 *
 * Ownership: tg_prompt_load fills a struct whose strings it owns (tg_prompt_release).
 */
#ifndef TG_PROMPT_H
#define TG_PROMPT_H

#include "base/hash.h"
#include "base/util.h"
#include "model/repo.h"

typedef struct tg_prompt {
    char *name;    /* "code" */
    char *path;    /* where it was read, for messages: "prompts/code.md" or an absolute path */
    char *system;  /* the system message template */
    char *user;    /* the user message template */
    tg_hash hash;  /* of the file's bytes */
} tg_prompt;

/* Loads prompts/<name>.md. -1 with err naming the file when missing or without the separator. */
int tg_prompt_load(const tg_repo *repo, const char *name, tg_prompt *out, tg_err *err);
void tg_prompt_release(tg_prompt *p);

/* Another file of prompts/ (e.g. "reference/tool.py", what the templates show as the example
 * to follow), from the same places; heap text and its hash, or NULL with err. */
char *tg_prompt_read_file(const tg_repo *repo, const char *file, tg_hash *hash, tg_err *err);

/*
 * Replaces every {{key}} of tmpl with its value; vars holds key, value pairs, NULL-terminated.
 * A placeholder with no value is an error naming the template and the placeholder (a typo in a
 * template must not reach a model); NULL then. Heap string.
 */
char *tg_prompt_render(const tg_prompt *p, const char *tmpl, const char *const *vars, tg_err *err);

#endif
