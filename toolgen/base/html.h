/*
 * html.h — the readable text of an HTML page, through libxml2's HTML parser (the one file that
 * includes libxml2; docs/web.md#html).
 *
 * web_fetch's `html` format hands a model what a person reads on a page, not its markup: the
 * parser builds the document tree as a browser would from real-world HTML (unclosed tags,
 * entities, stray bytes), and the walk over it keeps the text of the body, with a line break
 * after each block (paragraph, heading, list item, table row, <br>) and list items marked
 * "- ", and leaves out what is not read: script, style, noscript, template, svg, head (but
 * its <title>), and comments. Runs of blanks become one space; <pre> keeps its lines. Links
 * (<a href>) are listed apart with their text, hrefs as written (the caller resolves them).
 *
 * Thread-safe: libxml2 is initialised once (pthread_once); each call has its own document.
 */
#ifndef TG_HTML_H
#define TG_HTML_H

#include <stddef.h>

#include "base/util.h"

typedef struct tg_html_link {
    char *text; /* the link's text, blanks collapsed (may be empty) */
    char *href; /* as written in the page */
} tg_html_link;

typedef struct tg_html_doc {
    char *title;          /* <title>'s text, blanks collapsed; NULL when there is none */
    char *text;           /* the body's text (UTF-8), never NULL after success */
    tg_html_link *links;  /* in page order, at most max_links of them */
    size_t nlinks;
    size_t links_total;   /* how many <a href> the page has (nlinks may be fewer) */
} tg_html_doc;

/*
 * Extracts html (len bytes; charset: the encoding the server declared, e.g. "iso-8859-1", or
 * NULL to let the parser detect it from a <meta> or the bytes) into out, keeping at most
 * max_links links. -1 with err only when the parser could make no document at all (empty
 * input gives an empty text, not an error); out is then zeroed.
 */
int tg_html_extract(const char *html, size_t len, const char *charset, size_t max_links,
                    tg_html_doc *out, tg_err *err);
void tg_html_doc_free(tg_html_doc *d);

#endif
