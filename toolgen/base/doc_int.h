/*
 * doc_int.h — what the two document parsers (doc.c for JSON, yaml.c for YAML) share, private to
 * base/: the size cap and byte order mark at the start, and the hand-over of the tree at the end.
 */
#ifndef TG_DOC_INT_H
#define TG_DOC_INT_H

#include "base/doc.h"

/* lim's size cap, or TG_DOC_MAX_BYTES. */
size_t tg_doc_max_bytes(const tg_doc_limits *lim);
/* lim's nesting cap, or TG_JSON_MAX_DEPTH. */
int tg_doc_max_depth(const tg_doc_limits *lim);

/*
 * The start of both parsers: empties out, defaults *name to "", fails on text over the size cap
 * (err names the limit) and skips a byte order mark (not content: editors on Windows add one, and
 * positions count from after it, as editors do). 0, or -1 with err set.
 */
int tg_doc_begin(const char **text, size_t *len, const char **name, const tg_doc_limits *lim,
                 tg_doc *out, tg_err *err);
/*
 * The end of both parsers: with a root, out takes root and pos and names the file; without one
 * (the parse failed) pos is freed and err->file names the document. 0 or -1.
 */
int tg_doc_end(cJSON *root, tg_posmap *pos, const char *name, tg_doc *out, tg_err *err);

#endif
