/*
 * prompts.h — the repository's prompt templates (prompts/), served as MCP prompts
 * (docs/mcp.md#prompts).
 *
 * A template is one file prompts/NAME.md (or .txt): optional YAML front matter between two
 * "---" lines with `description`, `title` and `arguments` (a list of {name, description,
 * required, complete}), then the text, in which {{name}} (spaces inside the braces allowed)
 * stands for an argument. The generator's templates part a system and a user message with a
 * line "=== user ===" (gen/prompt.h); served, both become the one user message. A front-matter
 * list `messages:` adds image, audio, embedded-resource and text messages before the text's
 * (serve/promptparts.h); their files are read when the set loads. Without `arguments` the
 * placeholders are the arguments, all required, in order of first use. A placeholder that is not a declared argument is an error
 * (the client could never fill it); `{{` not followed by a name and `}}` is left as written.
 *
 * A set is loaded once at start-up and then only read. Templates are sorted by name, the order
 * of prompts/list. A file that does not parse is left out and named in `skipped` with its
 * place and what to fix, as the tool set does with manifests.
 */
#ifndef TG_SERVE_PROMPTS_H
#define TG_SERVE_PROMPTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "serve/promptparts.h"

#define TG_SERVE_PROMPTS_DIR "prompts"
#define TG_SERVE_PROMPT_MAX_BYTES (256u << 10) /* per template file */

/* What completion/complete offers for an argument (serve/complete.h). */
typedef enum tg_prompt_complete {
    TG_COMPLETE_NONE = 0,
    TG_COMPLETE_TOOLS,      /* the names of the served tools */
    TG_COMPLETE_DATA_FILES, /* files under the data directories (sandbox.data_dirs) */
} tg_prompt_complete;

typedef struct tg_serve_prompt_arg {
    char *name;
    char *description; /* NULL: none */
    bool required;
    tg_prompt_complete complete;
    char *ask;         /* the question a 2026-07-28 client's user is asked when the argument is
                        * not given (tg_serve_prompt_questions); NULL: none */
} tg_serve_prompt_arg;

typedef struct tg_serve_prompt {
    char *name;        /* the file name without its extension */
    char *title;       /* NULL: none */
    char *description; /* NULL: none */
    tg_serve_prompt_arg *args;
    size_t n_args;
    char *body;        /* the text after the front matter */
    tg_serve_prompt_part *parts; /* messages: before the body's (serve/promptparts.h) */
    size_t n_parts;
} tg_serve_prompt;

typedef struct tg_serve_prompts {
    tg_serve_prompt *v; /* sorted by name */
    size_t n;
    char **skipped;     /* "prompts/FILE:LINE: why" per template left out, in name order */
    size_t n_skipped;
} tg_serve_prompts;

/*
 * Parses the template text (len bytes) of the prompt called name; file names it in messages.
 * 0, or -1 with err (file:line and what to change). out is owned by the caller
 * (tg_serve_prompt_release).
 */
int tg_serve_prompt_parse(const char *file, const char *name, const char *text, size_t len,
                          tg_serve_prompt *out, tg_err *err);
void tg_serve_prompt_release(tg_serve_prompt *p);

/*
 * Every template of the folder dir (relative to root_fd, normally TG_SERVE_PROMPTS_DIR). A
 * missing folder is an empty set (0). -1 with err only when the folder exists and cannot be
 * read.
 */
int tg_serve_prompts_load(tg_serve_prompts *ps, int root_fd, const char *dir, tg_err *err);
void tg_serve_prompts_free(tg_serve_prompts *ps);
/* The template of that name, or NULL. */
const tg_serve_prompt *tg_serve_prompts_find(const tg_serve_prompts *ps, const char *name);
/* The argument of that name, or NULL. */
const tg_serve_prompt_arg *tg_serve_prompt_arg_find(const tg_serve_prompt *p, const char *name);

/* The MCP Prompt object of prompts/list: name, title, description, arguments. New tree. */
cJSON *tg_serve_prompt_json(const tg_serve_prompt *p);

/*
 * The GetPromptResult of prompts/get with params (name, arguments: an object of strings):
 * {description, messages: [...the parts..., {role: "user", content: {type: "text", text}}]}
 * (the text's message left out when it is blank and there are parts), every placeholder
 * replaced (an optional argument not given by ""). NULL when params do not fit — no name, an
 * unknown prompt, arguments not an object of strings, an unknown or missing required argument —
 * with why (for a -32602 reply) written to msg.
 */
cJSON *tg_serve_prompt_get(const tg_serve_prompts *ps, const cJSON *params, char *msg,
                           size_t msg_size);

/*
 * The questions for the arguments of p with `ask:` that args (an object, may be NULL) does not
 * give: [{key, method: "elicitation/create", params: {message, requestedSchema}, field}] as
 * serve/mrtr.h asks them, one form field named after the argument; NULL when none is missing.
 */
cJSON *tg_serve_prompt_questions(const tg_serve_prompt *p, const cJSON *args);

#endif
