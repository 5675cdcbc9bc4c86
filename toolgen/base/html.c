/* html.c — HTML to readable text over libxml2's HTML parser (html.h, docs/web.md#html). */
#include "base/html.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/dlib.h"

/*
 * libxml2 is loaded when the first page is read (dlopen), not by every start of toolgen: with
 * ICU and the C++ library it brings, the dynamic loader's work for it was a good part of a
 * short command's CPU time (docs/benchmarks.md#toolgen-diff-vs-git-diff---stat-benchdiffsh).
 */
static struct {
    __typeof__(xmlInitParser) *init_parser;
    __typeof__(htmlReadMemory) *read_memory;
    __typeof__(xmlDocGetRootElement) *root;
    __typeof__(xmlNodeGetContent) *content;
    __typeof__(xmlGetProp) *get_prop;
    __typeof__(xmlFreeDoc) *free_doc;
    xmlFreeFunc *free; /* libxml2's own variable: the allocator its strings come from */
} xml;
static bool xml_loaded;
static char xml_why[256];
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_setup(void)
{
    const tg_dl_sym syms[] = {{"xmlInitParser", &xml.init_parser},
                              {"htmlReadMemory", &xml.read_memory},
                              {"xmlDocGetRootElement", &xml.root},
                              {"xmlNodeGetContent", &xml.content},
                              {"xmlGetProp", &xml.get_prop},
                              {"xmlFreeDoc", &xml.free_doc},
                              {"xmlFree", &xml.free}};
    if (tg_dl_load("libxml2.so.2", syms, sizeof syms / sizeof *syms, xml_why, sizeof xml_why) != 0)
        return;
    xml.init_parser(); /* before threads parse: libxml2's global tables */
    xml_loaded = true;
}

/* Elements whose content is not read. */
static const char *const skipped[] = {"script", "style", "noscript", "template", "svg", "head",
                                      "iframe", "object", "canvas", NULL};
/* Elements that end a line (a block, or a break). */
static const char *const blocks[] = {
    "p", "div", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt",
    "dd", "tr", "table", "thead", "tbody", "tfoot", "caption", "section", "article", "header",
    "footer", "nav", "aside", "main", "blockquote", "pre", "form", "fieldset", "figure",
    "figcaption", "address", "details", "summary", "title", "body", "html", NULL};

static bool in_list(const char *name, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcasecmp(name, list[i]) == 0)
            return true;
    return false;
}

typedef struct walk {
    tg_buf text;
    bool space;   /* a blank is owed before the next word */
    int pre;      /* inside <pre>: blanks kept */
    size_t max_links;
    tg_html_doc *doc;
} walk;

/* Ends the current line (at most one blank line between blocks). */
static void line_break(walk *w)
{
    w->space = false;
    while (w->text.len && w->text.data[w->text.len - 1] == ' ')
        tg_buf_truncate(&w->text, w->text.len - 1);
    if (w->text.len && w->text.data[w->text.len - 1] != '\n')
        tg_buf_putc(&w->text, '\n');
}

/* Text appended with blanks collapsed (kept inside <pre>). */
static void put_text(walk *w, tg_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool blank = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f';
        if (w->pre && b == &w->text) {
            tg_buf_putc(b, (char)*p);
            continue;
        }
        if (blank) {
            w->space = true;
            continue;
        }
        if (w->space && b->len && b->data[b->len - 1] != '\n' && b->data[b->len - 1] != ' ')
            tg_buf_putc(b, ' ');
        w->space = false;
        tg_buf_putc(b, (char)*p);
    }
}

/* The collapsed text of node's subtree (a link's or the title's), heap. */
static char *plain_text(xmlNode *node)
{
    xmlChar *raw = xml.content(node);
    walk tmp = {.text = TG_BUF_INIT};
    put_text(&tmp, &tmp.text, raw ? (const char *)raw : "");
    (*xml.free)(raw);
    return tg_buf_steal(&tmp.text);
}

static void add_link(walk *w, xmlNode *a)
{
    xmlChar *href = xml.get_prop(a, (const xmlChar *)"href");
    if (!href)
        return;
    tg_html_doc *d = w->doc;
    d->links_total++;
    if (d->nlinks < w->max_links && href[0] && href[0] != '#') {
        d->links = xrealloc(d->links, (d->nlinks + 1) * sizeof *d->links);
        d->links[d->nlinks++] = (tg_html_link){.text = plain_text(a),
                                               .href = xstrdup((const char *)href)};
    }
    if (href)
        (*xml.free)(href);
}

static void walk_nodes(walk *w, xmlNode *n)
{
    for (; n; n = n->next) {
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
            put_text(w, &w->text, n->content ? (const char *)n->content : "");
            continue;
        }
        if (n->type != XML_ELEMENT_NODE)
            continue; /* comments, processing instructions */
        const char *name = (const char *)n->name;
        if (strcasecmp(name, "title") == 0 && !w->doc->title) {
            w->doc->title = plain_text(n);
            continue;
        }
        if (in_list(name, skipped)) {
            for (xmlNode *c = strcasecmp(name, "head") == 0 ? n->children : NULL; c; c = c->next)
                if (c->type == XML_ELEMENT_NODE && !w->doc->title &&
                    strcasecmp((const char *)c->name, "title") == 0)
                    w->doc->title = plain_text(c); /* of the head, its title only */
            continue;
        }
        bool block = in_list(name, blocks), is_pre = strcasecmp(name, "pre") == 0;
        if (block)
            line_break(w);
        if (strcasecmp(name, "li") == 0)
            tg_buf_puts(&w->text, "- ");
        if (strcasecmp(name, "a") == 0)
            add_link(w, n);
        w->pre += is_pre;
        walk_nodes(w, n->children);
        w->pre -= is_pre;
        if (block)
            line_break(w);
        else if (strcasecmp(name, "td") == 0 || strcasecmp(name, "th") == 0)
            w->space = true; /* cells of a row apart */
    }
}

int tg_html_extract(const char *html, size_t len, const char *charset, size_t max_links,
                    tg_html_doc *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    pthread_once(&xml_once, xml_setup);
    if (!xml_loaded)
        return tg_err_set(err, "cannot load libxml2 (%s): install Debian's libxml2 to read "
                               "HTML pages", xml_why);
    if (len == 0) {
        out->text = xstrdup("");
        return 0;
    }
    if (len > (size_t)INT32_MAX)
        return tg_err_set(err, "the page is too large to parse (%zu bytes)", len);
    htmlDocPtr doc = xml.read_memory(html, (int)len, NULL, charset,
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
                                        HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    if (!doc && charset) /* an encoding libxml2 does not know: let it detect one */
        doc = xml.read_memory(html, (int)len, NULL, NULL,
                             HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                 HTML_PARSE_NONET);
    if (!doc)
        return tg_err_set(err, "the page could not be parsed as HTML");
    walk w = {.text = TG_BUF_INIT, .max_links = max_links, .doc = out};
    walk_nodes(&w, xml.root(doc));
    line_break(&w);
    while (w.text.len && w.text.data[w.text.len - 1] == '\n')
        tg_buf_truncate(&w.text, w.text.len - 1);
    out->text = tg_buf_steal(&w.text);
    xml.free_doc(doc);
    return 0;
}

void tg_html_doc_free(tg_html_doc *d)
{
    free(d->title);
    free(d->text);
    for (size_t i = 0; i < d->nlinks; i++) {
        free(d->links[i].text);
        free(d->links[i].href);
    }
    free(d->links);
    memset(d, 0, sizeof *d);
}
