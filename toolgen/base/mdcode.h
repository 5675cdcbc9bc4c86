/*
 * mdcode.h — fenced code blocks (```lang ... ```) out of Markdown text, such as a model's
 * answer (llm/, the llm runtime).
 */
#ifndef TG_MDCODE_H
#define TG_MDCODE_H

#include <stddef.h>

#include "base/util.h"

/*
 * The first fenced block of text whose info string is lang or one of its usual names (py for
 * python, js for javascript, ts, c++, sh, ...; case-insensitive); an untagged block matches
 * when no tagged one does. A block that is not closed is none (a truncated answer never yields
 * code). Heap copy of the body, or NULL. start and end (both NULL, or both set): the offsets of
 * the block's opening fence and of the byte after its closing fence.
 */
char *tg_md_code_block(const char *text, const char *lang, size_t *start, size_t *end);

#endif
