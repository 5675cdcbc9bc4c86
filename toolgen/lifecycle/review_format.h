/*
 * review_format.h — a review as text for the terminal, markdown for a pull-request comment, or
 * JSON for other tools (docs/review.md "Output"). Pure functions of the review: the same review
 * gives the same bytes, so the markdown can be golden-tested.
 */
#ifndef TG_REVIEW_FORMAT_H
#define TG_REVIEW_FORMAT_H

#include <stdbool.h>

#include "base/buf.h"
#include "lifecycle/review.h"

typedef enum tg_review_format {
    TG_REVIEW_TEXT,
    TG_REVIEW_MARKDOWN,
    TG_REVIEW_JSON,
} tg_review_format;

/* "text", "markdown" (or "md"), "json" → 0 with *out; -1 for anything else. */
int tg_review_format_parse(const char *s, tg_review_format *out);

/* Appends the review to out. checked: the version policy was applied (--check), so verdicts
 * are shown. */
void tg_review_render(const tg_review *r, tg_review_format f, bool checked, tg_buf *out);

#endif
