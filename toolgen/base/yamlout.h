/*
 * yamlout.h — a JSON value written as block-style YAML 1.2, for files people review (the
 * manifests `toolgen init --from-openapi` drafts, docs/cli.md#init-from-openapi).
 *
 * The output reads back (base/doc.h) as the same JSON value: strings are plain only when they
 * cannot be mistaken for another type or for YAML syntax (letters, digits, spaces and a few
 * punctuation marks, starting with a letter, not true/false/null/yes/no/on/off), otherwise they
 * are written as JSON string literals, which are valid YAML double-quoted scalars. Key order is
 * the value's, so the same value always gives the same bytes. Empty containers are {} and [];
 * an array inside an array is written in flow style (JSON).
 */
#ifndef TG_YAMLOUT_H
#define TG_YAMLOUT_H

#include "base/buf.h"
#include "base/json.h"

/* Appends the members of obj (an object) at indentation indent (spaces), one per line. A value
 * that is not an object is appended as one scalar line. */
void tg_yaml_write(tg_buf *b, const cJSON *obj, int indent);

#endif
