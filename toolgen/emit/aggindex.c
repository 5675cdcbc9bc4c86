/*
 * aggindex.c — the aggregate's index (aggindex.h; docs/build.md, "The aggregate").
 *
 * Text, one line per tool: "<name> <auth_env> <network> <refused>" (each "-" when empty, "?"
 * when it cannot be a token), then, per piece kind in order, "<file>,<off>,<len>,<lines>"
 * (file -1: held by no file as such), then " <SKILL_DESC piece>" (when it has no line break).
 * The offsets are those the emitters reported (common.h, TG_EMIT_NOWHERE); an edit that only
 * replaces pieces moves them by the replaced pieces' change in length (tg_aggindex_splice).
 */
#include "emit/aggindex.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define INDEX_MAGIC "toolgen-aggregate-index 2\n"

/* The file (0..TG_AGGINDEX_FILES-1) that holds pieces of kind k as such (in one of SKILL.md's
 * forms only the one in use), or -1: the facts are folded into shared text (or kept in the
 * index), the reference page is a file of its own. */
static int file_of(tg_emit_piece_kind k)
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
    case TG_PIECE_SKILL_DESC:
    case TG_PIECE_SKILL_NETWORK:
    case TG_PIECE_SKILL_REFUSED:
    case TG_PIECE_REFERENCE:
        return -1;
    default:
        return 5; /* the SKILL.md pieces */
    }
}

static bool is_form(tg_emit_piece_kind k)
{
    return k == TG_PIECE_SKILL_TOOL_FULL || k == TG_PIECE_SKILL_TOOL_COMPACT ||
           k == TG_PIECE_SKILL_TOOL_MINIMAL;
}

/* " <file>,<off>,<len>,<lines>" (printf costs more than the rest, a quarter million times). */
static void put_at(tg_buf *b, const tg_aggindex_at *at)
{
    char tmp[96], *e = tmp + sizeof tmp, *p = e;
    size_t v[3] = {at->lines, at->len, at->file < 0 ? 0 : at->off};
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

/* A fact as one token: "-" when empty, "?" when it cannot be one (NULL, a space, a line break). */
static void put_token(tg_buf *b, const char *s)
{
    tg_buf_putc(b, ' ');
    if (s && !*s)
        tg_buf_putc(b, '-');
    else if (!s || strpbrk(s, " \n") || !strcmp(s, "-") || !strcmp(s, "?"))
        tg_buf_putc(b, '?');
    else
        tg_buf_puts(b, s);
}

static void put_tool(tg_buf *b, const tg_aggindex_tool *t)
{
    tg_buf_puts(b, t->name);
    put_token(b, t->auth_env);
    put_token(b, t->network);
    put_token(b, t->refused);
    for (int k = 0; k < TG_PIECE_COUNT; k++)
        put_at(b, &t->at[k]);
    if (t->desc && !strchr(t->desc, '\n')) { /* the rest of the line */
        tg_buf_putc(b, ' ');
        tg_buf_puts(b, t->desc);
    }
    tg_buf_putc(b, '\n');
}

static char *format(const char *const *paths, const tg_aggindex_tool *v, size_t n, size_t *len)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_reserve(&b, 64 + n * (48 + TG_PIECE_COUNT * 24));
    tg_buf_puts(&b, INDEX_MAGIC);
    for (size_t j = 0; j < TG_AGGINDEX_FILES; j++)
        tg_buf_printf(&b, "%s\n", paths[j] ? paths[j] : "");
    tg_buf_printf(&b, "%zu\n", n);
    for (size_t i = 0; i < n; i++)
        put_tool(&b, &v[i]);
    *len = b.len;
    return tg_buf_steal(&b);
}

char *tg_aggindex_format(const tg_aggindex *ix, size_t *len)
{
    return format(ix->paths, ix->v, ix->n, len);
}

/* A piece kept in the index as a token: NULL when it could not be read back as one. */
static const char *fact(const tg_emit_piece *p)
{
    return memchr(p->data, '\n', p->len) || memchr(p->data, ' ', p->len) ? NULL : p->data;
}

char *tg_aggindex_build(const tg_emit_fragment *f, size_t n, const tg_emit_files *shared,
                        const size_t *pos, size_t *len)
{
    const char *paths[TG_AGGINDEX_FILES] = {0};
    bool whole = shared->n == TG_AGGINDEX_FILES;
    for (size_t j = 0; whole && j < TG_AGGINDEX_FILES; j++)
        paths[j] = shared->v[j].path;
    tg_aggindex_tool *v = xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const tg_emit_piece *p = f[i].p;
        v[i].name = p[TG_PIECE_NAME].data;
        v[i].auth_env = p[TG_PIECE_AUTH_ENV].data;
        v[i].desc = memchr(p[TG_PIECE_SKILL_DESC].data, '\n', p[TG_PIECE_SKILL_DESC].len)
                        ? NULL
                        : p[TG_PIECE_SKILL_DESC].data;
        v[i].network = fact(&p[TG_PIECE_SKILL_NETWORK]);
        v[i].refused = fact(&p[TG_PIECE_SKILL_REFUSED]);
        for (int k = 0; k < TG_PIECE_COUNT; k++) {
            size_t at = pos ? pos[i * TG_PIECE_COUNT + k] : TG_EMIT_NOWHERE;
            int file = whole && at != TG_EMIT_NOWHERE ? file_of(k) : -1;
            v[i].at[k] = (tg_aggindex_at){file, file < 0 ? 0 : at, p[k].len, p[k].lines};
        }
    }
    char *text = format(paths, v, n, len);
    free(v);
    return text;
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
    const char **facts[2] = {&t->network, &t->refused};
    for (int j = 0; j < 2; j++) {
        char *tok = s;
        if (!(sp = strchr(tok, ' ')))
            return false;
        *sp = '\0';
        s = sp + 1;
        *facts[j] = !strcmp(tok, "-") ? "" : !strcmp(tok, "?") ? NULL : tok;
    }
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
        } else if (k == TG_PIECE_SKILL_DESC || k == TG_PIECE_SKILL_NETWORK ||
                   k == TG_PIECE_SKILL_REFUSED) {
            const char *v = k == TG_PIECE_SKILL_DESC      ? t->desc
                            : k == TG_PIECE_SKILL_NETWORK ? t->network
                                                          : t->refused;
            p->data = v && strlen(v) == p->len ? v : NULL;
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

/* The facts are equal, and a piece the files hold is placed (or empty, or a form not in use). */
static bool same_fact(const char *kept, const tg_emit_piece *p)
{
    return kept && strlen(kept) == p->len && memcmp(kept, p->data, p->len) == 0;
}

bool tg_aggindex_replaceable(const tg_aggindex_tool *t, const tg_emit_fragment *f)
{
    if (!same_fact(t->name, &f->p[TG_PIECE_NAME]) ||
        !same_fact(t->auth_env, &f->p[TG_PIECE_AUTH_ENV]) ||
        !same_fact(t->desc, &f->p[TG_PIECE_SKILL_DESC]) ||
        !same_fact(t->network, &f->p[TG_PIECE_SKILL_NETWORK]) ||
        !same_fact(t->refused, &f->p[TG_PIECE_SKILL_REFUSED]))
        return false;
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        const tg_aggindex_at *at = &t->at[k];
        const tg_emit_piece *p = &f->p[k];
        if (k == TG_PIECE_REFERENCE)
            continue; /* a file of its own */
        if (!at->len != !p->len || at->lines != p->lines)
            return false;
        if (at->file < 0 && at->len && file_of(k) >= 0 && !is_form(k))
            return false; /* held by the files, but where is not known */
    }
    return true;
}

/* One replaced range of a file: at off, len bytes become the piece p. */
typedef struct repl {
    size_t off, len;
    const tg_emit_piece *p;
} repl;

static int repl_cmp(const void *a, const void *b)
{
    const repl *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The replacements of file j, sorted; false when one lies outside the file or two overlap. */
static bool file_repls(const tg_aggindex *ix, const size_t *edit, const tg_emit_fragment *nf,
                       size_t ne, int j, size_t flen, repl **out, size_t *nr)
{
    repl *r = xcalloc(ne * TG_PIECE_COUNT + 1, sizeof *r);
    size_t n = 0;
    for (size_t e = 0; e < ne; e++)
        for (int k = 0; k < TG_PIECE_COUNT; k++) {
            const tg_aggindex_at *at = &ix->v[edit[e]].at[k];
            if (at->file == j && at->len) /* an empty piece stays empty (replaceable) */
                r[n++] = (repl){at->off, at->len, &nf[e].p[k]};
        }
    qsort(r, n, sizeof *r, repl_cmp);
    for (size_t i = 0; i < n; i++)
        if (r[i].off > flen || r[i].len > flen - r[i].off ||
            (i && r[i - 1].off + r[i - 1].len > r[i].off)) {
            free(r);
            return false;
        }
    *out = r;
    *nr = n;
    return true;
}

/* The file with its ranges replaced (heap). */
static char *splice_bytes(const char *old, size_t olen, const repl *r, size_t nr, size_t *len)
{
    size_t n = olen;
    for (size_t i = 0; i < nr; i++)
        n = n - r[i].len + r[i].p->len;
    char *out = xmalloc(n + 1), *w = out;
    size_t from = 0;
    for (size_t i = 0; i < nr; i++) {
        memcpy(w, old + from, r[i].off - from);
        w += r[i].off - from;
        memcpy(w, r[i].p->data, r[i].p->len);
        w += r[i].p->len;
        from = r[i].off + r[i].len;
    }
    memcpy(w, old + from, olen - from);
    out[n] = '\0';
    *len = n;
    return out;
}

/* Every offset in file j moves by the change in length of the replacements before it. */
static void move_offsets(tg_aggindex *ix, int j, const repl *r, size_t nr)
{
    ptrdiff_t *before = xcalloc(nr + 1, sizeof *before); /* before[i]: change of r[0..i) */
    for (size_t i = 0; i < nr; i++)
        before[i + 1] = before[i] + (ptrdiff_t)r[i].p->len - (ptrdiff_t)r[i].len;
    for (size_t t = 0; t < ix->n; t++)
        for (int k = 0; k < TG_PIECE_COUNT; k++) {
            tg_aggindex_at *at = &ix->v[t].at[k];
            if (at->file != j)
                continue;
            size_t lo = 0, hi = nr; /* replacements strictly before at->off */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (r[mid].off < at->off)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            at->off = (size_t)((ptrdiff_t)at->off + before[lo]);
        }
    free(before);
}

bool tg_aggindex_splice(tg_aggindex *ix, const size_t *edit, const tg_emit_fragment *nf,
                        size_t ne, const char *const *bytes, const size_t *lens, char **out,
                        size_t *out_len)
{
    repl *r[TG_AGGINDEX_FILES] = {0};
    size_t nr[TG_AGGINDEX_FILES] = {0};
    bool ok = true;
    for (int j = 0; j < TG_AGGINDEX_FILES && ok; j++)
        ok = file_repls(ix, edit, nf, ne, j, lens[j], &r[j], &nr[j]);
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        out[j] = NULL;
        if (ok && nr[j]) {
            out[j] = splice_bytes(bytes[j], lens[j], r[j], nr[j], &out_len[j]);
            move_offsets(ix, j, r[j], nr[j]);
        }
        free(r[j]);
    }
    for (size_t e = 0; ok && e < ne; e++)
        for (int k = 0; k < TG_PIECE_COUNT; k++) {
            ix->v[edit[e]].at[k].len = nf[e].p[k].len;
            ix->v[edit[e]].at[k].lines = nf[e].p[k].lines;
        }
    return ok;
}
