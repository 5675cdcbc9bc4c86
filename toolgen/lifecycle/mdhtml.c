/* mdhtml.c — a tool's Markdown summary as HTML for the review page (see mdhtml.h). */
#include "lifecycle/mdhtml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "lifecycle/svgchart.h"

typedef struct md {
    tg_buf *b;
    const tg_mdhtml_opts *o;
    tg_buf para; /* the paragraph being gathered, as HTML */
    char list;   /* the open list: 0, 'u' or 'o' */
} md;

static void escape_n(tg_buf *b, const char *s, size_t n)
{
    char one[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        one[0] = s[i];
        tg_html_escape(b, one);
    }
}

/* The text of one line: `code`, **bold**, [text](target) as its text, the rest escaped. */
static void inline_text(tg_buf *b, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const char *rest = s + i, *end;
        size_t left = n - i;
        if (*rest == '`' && (end = memchr(rest + 1, '`', left - 1))) {
            tg_buf_puts(b, "<code>");
            escape_n(b, rest + 1, (size_t)(end - rest - 1));
            tg_buf_puts(b, "</code>");
            i += (size_t)(end - rest) + 1;
        } else if (left > 3 && rest[0] == '*' && rest[1] == '*' &&
                   (end = strstr(rest + 2, "**")) && end < s + n) {
            tg_buf_puts(b, "<b>");
            escape_n(b, rest + 2, (size_t)(end - rest - 2));
            tg_buf_puts(b, "</b>");
            i += (size_t)(end - rest) + 2;
        } else if (*rest == '[' && (end = strstr(rest, "](")) && end < s + n &&
                   memchr(end, ')', (size_t)(s + n - end))) {
            escape_n(b, rest + 1, (size_t)(end - rest - 1));
            i = (size_t)((const char *)memchr(end, ')', (size_t)(s + n - end)) - s) + 1;
        } else {
            escape_n(b, rest, 1);
            i++;
        }
    }
}

static void flush(md *m)
{
    if (m->para.len) {
        tg_buf_printf(m->b, "<p>%s</p>\n", m->para.data);
        tg_buf_reset(&m->para);
    }
}

static void close_list(md *m)
{
    if (m->list)
        tg_buf_puts(m->b, m->list == 'u' ? "</ul>\n" : "</ol>\n");
    m->list = 0;
}

/* "- item", "* item", "+ item" or "12. item": the item's text, else NULL. */
static const char *list_item(const char *line, char *kind)
{
    if ((line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') {
        *kind = 'u';
        return line + 2;
    }
    const char *p = line;
    while (isdigit((unsigned char)*p))
        p++;
    if (p > line && p[0] == '.' && p[1] == ' ') {
        *kind = 'o';
        return p + 2;
    }
    return NULL;
}

/* "---", "***", "___": a rule, which the page's sections make unneeded. */
static bool is_rule(const char *line)
{
    size_t n = 0;
    for (const char *p = line; *p; p++, n++)
        if (*p != line[0] && *p != ' ')
            return false;
    return n >= 3 && strchr("-*_", line[0]);
}

static void push_trimmed(tg_strv *out, const tg_buf *cell)
{
    size_t a = 0, z = cell->len;
    while (a < z && isspace((unsigned char)cell->data[a]))
        a++;
    while (z > a && isspace((unsigned char)cell->data[z - 1]))
        z--;
    tg_strv_push_owned(out, xstrndup(cell->data + a, z - a));
}

/* The cells of "| a | b |" (trimmed; "\|" is a literal bar), appended to out. */
static void split_cells(const char *line, tg_strv *out)
{
    const char *p = line + (*line == '|');
    tg_buf cell = TG_BUF_INIT;
    for (; *p; p++) {
        if (*p == '\\' && p[1] == '|') {
            tg_buf_putc(&cell, *++p);
            continue;
        }
        if (*p != '|') {
            tg_buf_putc(&cell, *p);
            continue;
        }
        push_trimmed(out, &cell);
        tg_buf_reset(&cell);
    }
    if (cell.len && cell.data[strspn(cell.data, " \t")])
        push_trimmed(out, &cell);
    tg_buf_free(&cell);
}

static bool is_separator(const char *line)
{
    return strspn(line, "|-: ") == strlen(line) && strchr(line, '-');
}

/* A pipe table: its lines[0..n) drawn as a table of the page. */
static void table(md *m, char **lines, size_t n)
{
    tg_table t = {0};
    split_cells(lines[0], &t.cols);
    for (size_t i = 1; i < n; i++) {
        if (i == 1 && is_separator(lines[i]))
            continue;
        tg_strv cells = TG_STRV_INIT;
        split_cells(lines[i], &cells);
        char **row = xcalloc(t.cols.n ? t.cols.n : 1, sizeof *row);
        for (size_t j = 0; j < t.cols.n; j++)
            row[j] = xstrdup(j < cells.n ? cells.v[j] : "");
        tg_strv_free(&cells);
        tg_table_add_row(&t, row);
    }
    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddStringToObject(cfg, "type", "table");
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(cfg, "config"), "maxRows", 1000);
    tg_chart_render(m->b, cfg, &t);
    cJSON_Delete(cfg);
    tg_table_free(&t);
}

/* "![alt](file)" alone on its line: the file, else NULL (heap). */
static char *image_of(const char *line)
{
    size_t n = strlen(line);
    const char *mid = strstr(line, "](");
    if (strncmp(line, "![", 2) != 0 || !mid || n < 5 || line[n - 1] != ')')
        return NULL;
    return xstrndup(mid + 2, (size_t)(line + n - 1 - (mid + 2)));
}

static void heading(md *m, const char *line)
{
    size_t level = strspn(line, "#");
    const char *text = line + level;
    while (*text == ' ')
        text++;
    if (m->o && m->o->skip_heading && strcasecmp(text, m->o->skip_heading) == 0)
        return;
    int h = level <= 2 ? 3 : 4;
    tg_buf_printf(m->b, "<h%d>", h);
    inline_text(m->b, text, strlen(text));
    tg_buf_printf(m->b, "</h%d>\n", h);
}

/* One line that is neither blank nor a table's. */
static void line_of(md *m, const char *line)
{
    char kind = 0;
    const char *item = list_item(line, &kind);
    char *img = item ? NULL : image_of(line);
    if (item || img || line[0] == '#' || is_rule(line))
        flush(m);
    if (!item)
        close_list(m);
    if (img) {
        if (m->o && m->o->images)
            tg_strv_push(m->o->images, img);
        free(img);
    } else if (item) {
        if (m->list != kind) {
            close_list(m);
            tg_buf_puts(m->b, kind == 'u' ? "<ul>\n" : "<ol>\n");
            m->list = kind;
        }
        tg_buf_puts(m->b, "<li>");
        inline_text(m->b, item, strlen(item));
        tg_buf_puts(m->b, "</li>\n");
    } else if (line[0] == '#') {
        heading(m, line);
    } else if (!is_rule(line)) {
        if (m->para.len)
            tg_buf_putc(&m->para, ' ');
        inline_text(&m->para, line, strlen(line));
    }
}

void tg_mdhtml(tg_buf *b, const char *text, const tg_mdhtml_opts *o)
{
    md m = {.b = b, .o = o, .para = TG_BUF_INIT};
    tg_strv lines = TG_STRV_INIT;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = xstrndup(p, n > 0 && p[n - 1] == '\r' ? n - 1 : n);
        tg_strv_push_owned(&lines, line);
        p += n + (nl != NULL);
    }
    for (size_t i = 0; i < lines.n;) {
        const char *line = lines.v[i] + strspn(lines.v[i], " ");
        if (!*line) {
            flush(&m);
            close_list(&m);
            i++;
        } else if (*line == '|') {
            size_t j = i;
            while (j < lines.n && lines.v[j][strspn(lines.v[j], " ")] == '|')
                j++;
            flush(&m);
            close_list(&m);
            if (!(o && o->skip_tables))
                table(&m, lines.v + i, j - i);
            i = j;
        } else {
            line_of(&m, line);
            i++;
        }
    }
    flush(&m);
    close_list(&m);
    tg_buf_free(&m.para);
    tg_strv_free(&lines);
}
