/*
 * promptparts.h — the parts of a prompt template beyond its text (docs/mcp.md#prompts): a
 * front-matter list `messages:` of text, image, audio and embedded-resource messages that come
 * before the template's text in the GetPromptResult.
 *
 *   messages:
 *     - image: pixel.png             # a file under prompts/, sent as an image block
 *     - resource: notes.md           # a file sent as an embedded resource
 *       uri: "{{resourceUri}}"       #   under this URI (placeholders allowed)
 *     - role: assistant              # user (the default) or assistant
 *       text: "Noted: {{topic}}."    # text, placeholders allowed
 *
 * A file is named relative to the prompts folder, inside it, and read when the templates load:
 * no `..`, no absolute path, no symbolic link on the way, a regular file of at most
 * TG_SERVE_PART_MAX bytes; its MIME type comes from its extension (mime_type: overrides it).
 */
#ifndef TG_SERVE_PROMPTPARTS_H
#define TG_SERVE_PROMPTPARTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/doc.h"
#include "base/util.h"

#define TG_SERVE_PART_MAX (1u << 20)

typedef enum tg_prompt_part_kind {
    TG_PART_TEXT,
    TG_PART_IMAGE,
    TG_PART_AUDIO,
    TG_PART_RESOURCE,
} tg_prompt_part_kind;

typedef struct tg_serve_prompt_part {
    tg_prompt_part_kind kind;
    bool assistant;   /* the message's role: assistant, else user */
    char *text;       /* TG_PART_TEXT: the text; TG_PART_RESOURCE: its URI (placeholders) */
    char *file;       /* image, audio, resource: the file, relative to the prompts folder */
    char *mime;       /* its MIME type */
    char *data;       /* its bytes, once read (tg_serve_prompt_parts_read) */
    size_t len;
} tg_serve_prompt_part;

/*
 * The list `messages` of a template's front matter d (file names it in messages) into *parts
 * (*n of them; the caller frees them with tg_serve_prompt_parts_free). name is the prompt's,
 * for the default URI of a resource. -1 with err at the offending node.
 */
int tg_serve_prompt_parts_parse(const char *file, const tg_doc *d, const cJSON *list,
                                const char *name, tg_serve_prompt_part **parts, size_t *n,
                                tg_err *err);
/* Reads the files of parts from the folder dir (relative to root_fd); -1 with err. */
int tg_serve_prompt_parts_read(tg_serve_prompt_part *parts, size_t n, int root_fd,
                               const char *dir, tg_err *err);
void tg_serve_prompt_parts_free(tg_serve_prompt_part *parts, size_t n);

/* The PromptMessage of a part, with text (a text part's, or a resource's URI) already
 * rendered. New tree. */
cJSON *tg_serve_prompt_part_message(const tg_serve_prompt_part *p, const char *text);

/* A front-matter error at node's place (the front matter starts on line 2 of file). -1. */
int tg_serve_fm_fail(const char *file, const tg_doc *d, const cJSON *node, tg_err *err,
                     const char *fmt, ...) TG_PRINTF(5, 6);

#endif
