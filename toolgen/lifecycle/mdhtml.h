/*
 * mdhtml.h — the Markdown a tool returns (summary_markdown) as HTML for the review page of a
 * staged run (docs/lifecycle.md "Presentation"), so that the page shows text, not Markdown
 * source.
 *
 * The subset tools write: headings, paragraphs, "-"/"*"/"1." lists, pipe tables (drawn as
 * svgchart's tables: numbers rounded and right-aligned), inline `code` and **bold**; a link
 * shows its text. Nothing of the source passes unescaped, so no markup of a tool's output
 * reaches the page. A line that is only an image (![alt](file)) is not drawn — the page has no
 * way to fetch it — and its file is reported to the caller instead.
 */
#ifndef TG_MDHTML_H
#define TG_MDHTML_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/strvec.h"

typedef struct tg_mdhtml_opts {
    bool skip_tables;         /* the page shows the result's table itself */
    const char *skip_heading; /* a heading with this text (the page's title) is left out */
    tg_strv *images;          /* receives each image's file name; may be NULL */
} tg_mdhtml_opts;

/* Appends the HTML of md (NULL: nothing); o may be NULL (every part drawn). */
void tg_mdhtml(tg_buf *b, const char *md, const tg_mdhtml_opts *o);

#endif
