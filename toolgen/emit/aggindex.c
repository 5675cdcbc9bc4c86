/*
 * aggindex.c — the aggregate's index (aggindex.h; docs/build.md, "The aggregate").
 *
 * Text, one line per tool: "<name> <auth_env or -> " then, per piece kind in order,
 * "<file>,<off>,<len>,<lines>", then " <SKILL_DESC piece>" (when it has no line break). Pieces
 * of one kind follow each other in tool order in their file, so each is looked for just after
 * the previous one of its kind.
 */
#include "emit/aggindex.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define INDEX_MAGIC "toolgen-aggregate-index 1\n"
/* How far past the previous piece of its kind a piece is looked for: the separators between
 * two pieces of one kind are short (",\n    " in an array, nothing in a SKILL.md section). */
#define SEARCH_WINDOW 4096

/* The file (0..TG_AGGINDEX_FILES-1) holding pieces of kind k, or -1: kept in the index itself
 * (NAME, AUTH_ENV) or found nowhere (REFERENCE: a file per tool; the unused SKILL.md forms). */
static int file_of(tg_emit_piece_kind k, tg_emit_piece_kind form)
{
    switch (k) {
    case TG_PIECE_MCP_TOOL:
        return 0;
    case TG_PIECE_BUNDLE_TOOL:
        return 1;
    case TG_PIECE_OPENAI:
        return 2;
    case TG_PIECE_OPENAI_RESPONSES:
        return 3;
    case TG_PIECE_ANTHROPIC:
        return 4;
    case TG_PIECE_NAME:
    case TG_PIECE_AUTH_ENV:
    case TG_PIECE_SKILL_DESC: /* in SKILL.md only while its description lists titles */
    case TG_PIECE_REFERENCE:
        return -1;
    case TG_PIECE_SKILL_TOOL_FULL:
    case TG_PIECE_SKILL_TOOL_COMPACT:
    case TG_PIECE_SKILL_TOOL_MINIMAL:
        return k == form ? 5 : -1;
    default:
        return 5; /* the other SKILL pieces */
    }
}

/* Where kind k's pieces are looked for: after the previous one found, near it once one was.
 * The whole file is searched for the first tool's piece only, so that a kind found nowhere
 * costs one pass over the file, not one per tool. */
typedef struct cursor {
    size_t pos;
    bool found_one, searched_all;
} cursor;

static tg_aggindex_at locate(const tg_emit_piece *p, int file, const tg_emit_file *fl, cursor *c)
{
    tg_aggindex_at at = {-1, 0, p->len, p->lines};
    if (file < 0 || !p->len || c->pos > fl->len)
        return at;
    size_t avail = fl->len - c->pos;
    if ((c->found_one || c->searched_all) && avail > p->len + SEARCH_WINDOW)
        avail = p->len + SEARCH_WINDOW;
    c->searched_all = true;
    if (avail < p->len)
        return at;
    /* The piece usually starts a few bytes on: its first byte, then the rest, beat memmem's
     * set-up per call (a table per needle) by far. */
    const char *q = fl->data + c->pos, *last = q + (avail - p->len), *hit = NULL;
    while (q <= last && (q = memchr(q, p->data[0], (size_t)(last - q) + 1))) {
        if (memcmp(q, p->data, p->len) == 0) {
            hit = q;
            break;
        }
        q++;
    }
    if (!hit)
        return at;
    at.file = file;
    at.off = (size_t)(hit - fl->data);
    c->pos = at.off + p->len;
    c->found_one = true;
    return at;
}

/* " <file>,<off>,<len>,<lines>" (printf costs more than the search, a quarter million times). */
static void put_at(tg_buf *b, const tg_aggindex_at *at)
{
    char tmp[96], *e = tmp + sizeof tmp, *p = e;
    size_t v[3] = {at->lines, at->len, at->off};
    for (int j = 0; j < 3; j++) {
        size_t x = v[j];
        do
            *--p = (char)('0' + x % 10);
        while ((x /= 10));
        *--p = ',';
    }
    if (at->file < 0) {
        *--p = '1';
        *--p = '-';
    } else {
        *--p = (char)('0' + at->file);
    }
    *--p = ' ';
    tg_buf_append(b, p, (size_t)(e - p));
}

char *tg_aggindex_build(const tg_emit_fragment *f, size_t n, const tg_emit_files *shared,
                        tg_emit_piece_kind form, size_t *len)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_reserve(&b, 64 + n * (32 + TG_PIECE_COUNT * 24));
    tg_buf_puts(&b, INDEX_MAGIC);
    for (size_t j = 0; j < TG_AGGINDEX_FILES; j++)
        tg_buf_printf(&b, "%s\n", j < shared->n ? shared->v[j].path : "");
    tg_buf_printf(&b, "%zu\n", n);
    cursor cur[TG_PIECE_COUNT] = {{0, false, false}};
    for (size_t i = 0; i < n; i++) {
        const char *env = f[i].p[TG_PIECE_AUTH_ENV].data;
        tg_buf_printf(&b, "%s %s", f[i].p[TG_PIECE_NAME].data, *env ? env : "-");
        for (int k = 0; k < TG_PIECE_COUNT; k++) {
            int file = shared->n == TG_AGGINDEX_FILES ? file_of(k, form) : -1;
            tg_aggindex_at at =
                locate(&f[i].p[k], file, file >= 0 ? &shared->v[file] : NULL, &cur[k]);
            put_at(&b, &at);
        }
        /* the SKILL.md description's piece, kept whole at the end of the line */
        const tg_emit_piece *desc = &f[i].p[TG_PIECE_SKILL_DESC];
        if (!memchr(desc->data, '\n', desc->len)) {
            tg_buf_putc(&b, ' ');
            tg_buf_append(&b, desc->data, desc->len);
        }
        tg_buf_putc(&b, '\n');
    }
    *len = b.len;
    return tg_buf_steal(&b);
}

/* The next line of text at *p, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p, char *end)
{
    if (*p >= end)
        return NULL;
    char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl)
        return NULL; /* every line ends with one: a truncated file */
    *nl = '\0';
    *p = nl + 1;
    return line;
}

/* A decimal number at *s (digits only, no overflow); advances *s. */
static bool parse_size(char **s, size_t *out)
{
    size_t v = 0;
    const char *p = *s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (SIZE_MAX - 9) / 10)
            return false;
        v = v * 10 + (size_t)(*p - '0');
    }
    *out = v;
    *s = (char *)p;
    return true;
}

/* "<name> <env> <at>..." into t; false on anything malformed. */
static bool parse_tool(char *line, tg_aggindex_tool *t)
{
    char *sp = strchr(line, ' ');
    if (!sp || sp == line)
        return false;
    *sp = '\0';
    t->name = line;
    char *env = sp + 1;
    sp = strchr(env, ' ');
    if (!sp)
        return false;
    *sp = '\0';
    t->auth_env = strcmp(env, "-") == 0 ? "" : env;
    char *s = sp + 1;
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        tg_aggindex_at *at = &t->at[k];
        if (s[0] == '-' && s[1] == '1')
            at->file = -1, s += 2;
        else if (*s >= '0' && *s < '0' + TG_AGGINDEX_FILES)
            at->file = *s++ - '0';
        else
            return false;
        size_t *v[3] = {&at->off, &at->len, &at->lines};
        for (int j = 0; j < 3; j++)
            if (*s++ != ',' || !parse_size(&s, v[j]))
                return false;
        if (*s == ' ' && k + 1 < TG_PIECE_COUNT)
            s++;
    }
    t->desc = *s == ' ' ? s + 1 : NULL;
    return *s == ' ' || *s == '\0';
}

int tg_aggindex_parse(char *text, size_t len, tg_aggindex *ix, tg_err *err)
{
    *ix = (tg_aggindex){.by_name = TG_STRMAP_INIT};
    char *p = text, *end = text + len, *line;
    size_t magic = strlen(INDEX_MAGIC);
    if (len < magic || memcmp(text, INDEX_MAGIC, magic) != 0)
        return tg_err_set(err, "not an aggregate index of this version");
    p += magic;
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        if (!(line = next_line(&p, end)))
            return tg_err_set(err, "truncated aggregate index");
        ix->paths[j] = line;
    }
    char *stop = NULL;
    line = next_line(&p, end);
    size_t n = line ? strtoull(line, &stop, 10) : 0;
    if (!line || stop == line || *stop || n > len)
        return tg_err_set(err, "aggregate index: bad tool count");
    ix->v = xcalloc(n + 1, sizeof *ix->v);
    for (size_t i = 0; i < n; i++) {
        line = next_line(&p, end);
        if (!line || !parse_tool(line, &ix->v[i])) {
            tg_aggindex_free(ix);
            return tg_err_set(err, "aggregate index: malformed line for tool %zu", i + 1);
        }
        tg_strmap_put(&ix->by_name, ix->v[i].name, &ix->v[i]);
        ix->n++;
    }
    if (p != end) {
        tg_aggindex_free(ix);
        return tg_err_set(err, "aggregate index: trailing bytes");
    }
    return 0;
}

void tg_aggindex_free(tg_aggindex *ix)
{
    free(ix->v);
    tg_strmap_free(&ix->by_name);
    *ix = (tg_aggindex){.by_name = TG_STRMAP_INIT};
}

const tg_aggindex_tool *tg_aggindex_find(const tg_aggindex *ix, const char *name)
{
    return tg_strmap_get(&ix->by_name, name);
}

bool tg_aggindex_view(const tg_aggindex_tool *t, const char *const *bytes, const size_t *lens,
                      tg_emit_fragment *f)
{
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        const tg_aggindex_at *at = &t->at[k];
        tg_emit_piece *p = &f->p[k];
        p->len = at->len;
        p->lines = at->lines;
        if (k == TG_PIECE_NAME || k == TG_PIECE_AUTH_ENV) {
            p->data = k == TG_PIECE_NAME ? t->name : t->auth_env;
            if (strlen(p->data) != p->len)
                return false;
        } else if (k == TG_PIECE_SKILL_DESC) {
            p->data = t->desc && strlen(t->desc) == p->len ? t->desc : NULL;
        } else if (!at->len) {
            p->data = "";
        } else if (at->file < 0) {
            p->data = NULL;
        } else {
            if (at->off > lens[at->file] || at->len > lens[at->file] - at->off)
                return false;
            p->data = bytes[at->file] + at->off;
        }
    }
    return true;
}
