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

#define INDEX_MAGIC "toolgen-aggregate-index 3\n"
#define EDITS_MAGIC "toolgen-aggregate-edits 1\n"

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

tg_hash tg_aggindex_names_hash(const char *const *names, size_t n)
{
    tg_hasher *h = tg_hasher_new();
    for (size_t i = 0; i < n; i++)
        tg_hasher_str(h, 'n', names[i]);
    tg_hash r = tg_hasher_final(h);
    tg_hasher_free(h);
    return r;
}

static char *format(const char *const *paths, const tg_aggindex_tool *v, size_t n, size_t *len)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_reserve(&b, 64 + n * (48 + TG_PIECE_COUNT * 24));
    tg_buf_puts(&b, INDEX_MAGIC);
    for (size_t j = 0; j < TG_AGGINDEX_FILES; j++)
        tg_buf_printf(&b, "%s\n", paths[j] ? paths[j] : "");
    const char **names = xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; i < n; i++)
        names[i] = v[i].name;
    char hex[TG_HASH_HEX];
    tg_hash_hex(tg_aggindex_names_hash(names, n), hex);
    free(names);
    tg_buf_printf(&b, "%zu %s\n", n, hex);
    for (size_t i = 0; i < n; i++)
        put_tool(&b, &v[i]);
    *len = b.len;
    return tg_buf_steal(&b);
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

/* The header (magic, paths, "<count> <names hash>") of text, NUL-terminated in place; *p is
 * left at the first tool's line. */
static int parse_header(char **p, char *end, size_t len, tg_aggindex *ix, size_t *n,
                        tg_hash *names, tg_err *err)
{
    char *line;
    size_t magic = strlen(INDEX_MAGIC);
    if (len < magic || memcmp(*p, INDEX_MAGIC, magic) != 0)
        return tg_err_set(err, "not an aggregate index of this version");
    *p += magic;
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        if (!(line = next_line(p, end)))
            return tg_err_set(err, "truncated aggregate index");
        ix->paths[j] = line;
    }
    char *stop = NULL;
    line = next_line(p, end);
    *n = line ? strtoull(line, &stop, 10) : 0;
    if (!line || stop == line || *stop != ' ' || *n > len || !tg_hash_parse(stop + 1, names))
        return tg_err_set(err, "aggregate index: bad tool count");
    return 0;
}

int tg_aggindex_parse(char *text, size_t len, tg_aggindex *ix, tg_err *err)
{
    *ix = (tg_aggindex){.by_name = TG_STRMAP_INIT};
    char *p = text, *end = text + len, *line;
    size_t n;
    tg_hash names;
    if (parse_header(&p, end, len, ix, &n, &names, err) != 0)
        return -1;
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

/* ---- peeking at a few tools ------------------------------------------------------------------- */

/* The end of the line at p (its '\n'), or NULL. */
static const char *line_end(const char *p, const char *end)
{
    return p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
}

int tg_aggindex_peek(const char *text, size_t len, const size_t *at, size_t na, tg_aggindex *ix,
                     tg_hash *names, char **keep, tg_err *err)
{
    *ix = (tg_aggindex){.by_name = TG_STRMAP_INIT};
    *keep = NULL;
    const char *end = text + len, *p = text;
    for (int j = 0; j < TG_AGGINDEX_FILES + 2 && p; j++) /* magic, paths, count */
        if ((p = line_end(p, end)))
            p++;
    if (!p)
        return tg_err_set(err, "truncated aggregate index");
    /* the header and the lines asked for, copied once (the strings point into the copy) */
    const char **starts = xcalloc(na + 1, sizeof *starts), *q = p;
    size_t *lens = xcalloc(na + 1, sizeof *lens), total = (size_t)(p - text) + 1, line = 0;
    for (size_t a = 0; a < na && q; a++) {
        for (; line < at[a] && (q = line_end(q, end)); line++)
            q++;
        const char *e = q ? line_end(q, end) : NULL;
        if (!e)
            q = NULL;
        else
            starts[a] = q, lens[a] = (size_t)(e - q) + 1, total += lens[a];
    }
    int rc = 0;
    size_t n = 0;
    char *c = *keep = xmalloc(total + 1);
    memcpy(c, text, (size_t)(p - text));
    char *cp = c, *cend = c + (p - text);
    if (!q && na)
        rc = tg_err_set(err, "aggregate index: a tool's line is missing");
    else if (parse_header(&cp, cend, len, ix, &n, names, err) != 0) /* n is bound by len */
        rc = -1;
    ix->v = xcalloc(na + 1, sizeof *ix->v);
    char *w = cend;
    for (size_t a = 0; rc == 0 && a < na; a++) {
        memcpy(w, starts[a], lens[a]);
        w[lens[a] - 1] = '\0';
        if (at[a] >= n || !parse_tool(w, &ix->v[a]))
            rc = tg_err_set(err, "aggregate index: malformed line for tool %zu", at[a] + 1);
        w += lens[a];
    }
    ix->n = n;
    free(starts);
    free(lens);
    if (rc != 0) {
        tg_aggindex_free(ix);
        free(*keep);
        *keep = NULL;
    }
    return rc;
}

/* ---- the edits ------------------------------------------------------------------------------- */

static int edit_cmp(const void *a, const void *b)
{
    const tg_aggindex_edit *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->base_off < y->base_off ? -1 : x->base_off > y->base_off;
}

/* Sorts the list and sums up each file's changes in length before each edit. */
static void edits_finish(tg_aggindex_edits *ed)
{
    if (ed->n)
        qsort(ed->v, ed->n, sizeof *ed->v, edit_cmp);
    ptrdiff_t sum = 0;
    for (size_t i = 0; i < ed->n; i++) {
        if (i && ed->v[i].file != ed->v[i - 1].file)
            sum = 0;
        ed->v[i].before = sum;
        sum += (ptrdiff_t)ed->v[i].len - (ptrdiff_t)ed->v[i].base_len;
    }
}

static void edits_push(tg_aggindex_edits *ed, tg_aggindex_edit e)
{
    if (ed->n == ed->cap) {
        ed->cap = ed->cap ? ed->cap * 2 : 16;
        ed->v = xrealloc(ed->v, ed->cap * sizeof *ed->v);
    }
    ed->v[ed->n++] = e;
}

int tg_aggindex_edits_parse(const char *text, size_t len, tg_aggindex_edits *ed, tg_err *err)
{
    *ed = (tg_aggindex_edits){0};
    size_t magic = strlen(EDITS_MAGIC);
    if (len < magic || memcmp(text, EDITS_MAGIC, magic) != 0)
        return tg_err_set(err, "not a list of aggregate edits of this version");
    char *copy = xmalloc(len - magic + 1), *p = copy, *end = copy + (len - magic), *line;
    memcpy(copy, text + magic, len - magic);
    *end = '\0';
    int rc = 0;
    while (rc == 0 && (line = next_line(&p, end))) {
        tg_aggindex_edit e = {0};
        char *s = line + 1;
        if (*line < '0' || *line >= '0' + TG_AGGINDEX_FILES || *s++ != ' ' ||
            !parse_size(&s, &e.base_off) || *s++ != ' ' || !parse_size(&s, &e.base_len) ||
            *s++ != ' ' || !parse_size(&s, &e.len) || *s)
            rc = tg_err_set(err, "aggregate edits: malformed line");
        e.file = *line - '0';
        edits_push(ed, e);
    }
    if (rc == 0 && p != end)
        rc = tg_err_set(err, "aggregate edits: truncated");
    free(copy);
    if (rc != 0)
        tg_aggindex_edits_free(ed);
    else
        edits_finish(ed);
    return rc;
}

char *tg_aggindex_edits_format(const tg_aggindex_edits *ed, size_t *len)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, EDITS_MAGIC);
    for (size_t i = 0; i < ed->n; i++)
        tg_buf_printf(&b, "%d %zu %zu %zu\n", ed->v[i].file, ed->v[i].base_off,
                      ed->v[i].base_len, ed->v[i].len);
    *len = b.len;
    return tg_buf_steal(&b);
}

void tg_aggindex_edits_free(tg_aggindex_edits *ed)
{
    free(ed->v);
    *ed = (tg_aggindex_edits){0};
}

/* The first of ed->v[0..n) (sorted) of file at or after base_off (n when none). */
static size_t edit_at(const tg_aggindex_edits *ed, size_t n, int file, size_t base_off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const tg_aggindex_edit *e = &ed->v[mid];
        if (e->file < file || (e->file == file && e->base_off < base_off))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tg_aggindex_edits_apply(const tg_aggindex_edits *ed, tg_aggindex_tool *t)
{
    for (int k = 0; ed->n && k < TG_PIECE_COUNT; k++) {
        tg_aggindex_at *at = &t->at[k];
        if (at->file < 0)
            continue;
        size_t i = edit_at(ed, ed->n, at->file, at->off);
        bool self = i < ed->n && ed->v[i].file == at->file && ed->v[i].base_off == at->off &&
                    at->len; /* an empty piece at the same offset lies before it */
        ptrdiff_t moved = 0; /* the changes of the file's edits before the piece */
        if (i < ed->n && ed->v[i].file == at->file)
            moved = ed->v[i].before;
        else if (i && ed->v[i - 1].file == at->file)
            moved = ed->v[i - 1].before + (ptrdiff_t)ed->v[i - 1].len -
                    (ptrdiff_t)ed->v[i - 1].base_len;
        if (self)
            at->len = ed->v[i].len;
        at->off = (size_t)((ptrdiff_t)at->off + moved);
    }
}

/* ---- replacing pieces in place ------------------------------------------------------------ */

/* One replaced range of a file: at off, len bytes (base_off, base_len in the base) become p. */
typedef struct repl {
    size_t off, len, base_off, base_len;
    const tg_emit_piece *p;
} repl;

static int repl_cmp(const void *a, const void *b)
{
    const repl *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The replacements of file j, sorted; false when one lies outside the file or two overlap. */
static bool file_repls(const tg_aggindex_tool *cur, const tg_aggindex_tool *base,
                       const tg_emit_fragment *nf, size_t ne, int j, size_t flen, repl **out,
                       size_t *nr)
{
    repl *r = xcalloc(ne * TG_PIECE_COUNT + 1, sizeof *r);
    size_t n = 0;
    for (size_t e = 0; e < ne; e++)
        for (int k = 0; k < TG_PIECE_COUNT; k++) {
            const tg_aggindex_at *at = &cur[e].at[k], *b = &base[e].at[k];
            if (at->file == j && at->len) /* an empty piece stays empty (replaceable) */
                r[n++] = (repl){at->off, at->len, b->off, b->len, &nf[e].p[k]};
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

/* The file with its ranges replaced, as parts: the previous bytes between the replacements are
 * not copied (a file of tens of MB for a few KB of change). */
static void splice_spans(const char *old, size_t olen, const repl *r, size_t nr,
                         tg_aggindex_out *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < nr; i++)
        kept += r[i].p->len;
    char *w = out->keep = xmalloc(kept + 1);
    tg_span *s = out->spans = xcalloc(2 * nr + 1, sizeof *s);
    size_t from = 0, n = 0;
    for (size_t i = 0; i < nr; i++) {
        if (r[i].off > from)
            s[n++] = (tg_span){old + from, r[i].off - from};
        memcpy(w, r[i].p->data, r[i].p->len);
        s[n++] = (tg_span){w, r[i].p->len};
        w += r[i].p->len;
        from = r[i].off + r[i].len;
    }
    if (olen > from)
        s[n++] = (tg_span){old + from, olen - from};
    out->n = n;
}

void tg_aggindex_out_free(tg_aggindex_out *o)
{
    free(o->spans);
    free(o->keep);
    *o = (tg_aggindex_out){0};
}

/* Records the replacements of file j in the edits (a piece edited before keeps its entry; the
 * first sorted entries are those from before this splice, the others are appended). */
static void record_edits(tg_aggindex_edits *ed, size_t sorted, int j, const repl *r, size_t nr)
{
    for (size_t i = 0; i < nr; i++) {
        size_t at = edit_at(ed, sorted, j, r[i].base_off);
        if (at < sorted && ed->v[at].file == j && ed->v[at].base_off == r[i].base_off)
            ed->v[at].len = r[i].p->len;
        else
            edits_push(ed, (tg_aggindex_edit){j, r[i].base_off, r[i].base_len, r[i].p->len, 0});
    }
}

bool tg_aggindex_splice(const tg_aggindex_tool *cur, const tg_aggindex_tool *base,
                        const tg_emit_fragment *nf, size_t ne, const char *const *bytes,
                        const size_t *lens, tg_aggindex_edits *ed, tg_aggindex_out *out)
{
    repl *r[TG_AGGINDEX_FILES] = {0};
    size_t nr[TG_AGGINDEX_FILES] = {0};
    bool ok = true;
    for (int j = 0; j < TG_AGGINDEX_FILES && ok; j++)
        ok = file_repls(cur, base, nf, ne, j, lens[j], &r[j], &nr[j]);
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        out[j] = (tg_aggindex_out){0};
        if (ok && nr[j])
            splice_spans(bytes[j], lens[j], r[j], nr[j], &out[j]);
    }
    size_t sorted = ed->n;
    for (int j = 0; j < TG_AGGINDEX_FILES; j++) {
        if (ok && nr[j])
            record_edits(ed, sorted, j, r[j], nr[j]);
        free(r[j]);
    }
    if (ok)
        edits_finish(ed);
    return ok;
}
