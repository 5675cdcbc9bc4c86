/*
 * jsfastre.c — bit-parallel NFA for simple ECMA-262 patterns (see jsfastre.h).
 *
 * Each atom (one character class with its quantifier) is expanded into positions: x{2,4} is
 * x x x? x?, x+ is one repeating position, x* one optional repeating position. After each
 * subject character the set D of positions that could have consumed it becomes
 *   D' = ((start ? first(0) : 0) | (D & REPEAT) | closure(D << 1)) & CLASS[c]
 * (Shift-And, with closure() stepping over optional positions), and the pattern matches when D
 * meets a position after which everything is optional. Runs of optional positions longer than
 * MAX_OPT_RUN (e.g. x{0,63}) are left to PCRE2 to keep closure() short.
 */
#include "schema/jsfastre.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/jsutf8.h"
#include "base/util.h"

#define MAXPOS 64
#define MAX_OPT_RUN 8

/* How a class treats non-ASCII code points. */
enum { NA_NONE, NA_ALL, NA_WS, NA_NONWS, NA_DOT };

typedef struct cls {
    uint64_t bits[2]; /* ASCII membership */
    int na;
} cls;

struct js_fastre {
    bool anchor_start, anchor_end, start_accepts;
    int opt_run;       /* longest run of optional positions */
    uint64_t first0, accept, repeat, optional, all;
    uint64_t ascii[128];
    uint64_t na_all, na_ws, na_nonws, na_dot;
};

typedef struct atom {
    cls c;
    int min, max; /* max -1: unbounded */
} atom;

typedef struct parser {
    const char *p;
    atom atoms[MAXPOS];
    int n;
    bool bad;
} parser;

static void cls_add(cls *c, unsigned ch)
{
    c->bits[ch >> 6] |= 1ULL << (ch & 63);
}

static void cls_range(cls *c, unsigned a, unsigned b)
{
    for (unsigned ch = a; ch <= b; ch++)
        cls_add(c, ch);
}

static bool cls_has(const cls *c, unsigned ch)
{
    return (c->bits[ch >> 6] >> (ch & 63)) & 1;
}

static int na_union(int a, int b)
{
    if (a == b || b == NA_NONE)
        return a;
    if (a == NA_NONE)
        return b;
    return NA_ALL; /* ALL with anything, or WS with NONWS */
}

static void cls_negate(cls *c)
{
    c->bits[0] = ~c->bits[0];
    c->bits[1] = ~c->bits[1];
    static const int neg[] = {[NA_NONE] = NA_ALL, [NA_ALL] = NA_NONE, [NA_WS] = NA_NONWS,
                              [NA_NONWS] = NA_WS, [NA_DOT] = NA_NONE};
    c->na = neg[c->na];
}

static void cls_union(cls *d, const cls *s)
{
    d->bits[0] |= s->bits[0];
    d->bits[1] |= s->bits[1];
    d->na = na_union(d->na, s->na);
}

/* \d \D \w \W \s \S as classes; false for other letters. */
static bool class_escape(char e, cls *c)
{
    memset(c, 0, sizeof *c);
    switch (e) {
    case 'd': case 'D':
        cls_range(c, '0', '9');
        break;
    case 'w': case 'W':
        cls_range(c, '0', '9');
        cls_range(c, 'A', 'Z');
        cls_range(c, 'a', 'z');
        cls_add(c, '_');
        break;
    case 's': case 'S':
        cls_range(c, 9, 13);
        cls_add(c, ' ');
        c->na = NA_WS;
        break;
    default:
        return false;
    }
    if (e >= 'A' && e <= 'Z')
        cls_negate(c);
    return true;
}

/*
 * A single-character escape at p (after the backslash): its ASCII code, or -1 when it is not
 * one the subset handles (class escapes are handled by the caller).
 */
static int char_escape(const char **pp, bool in_class)
{
    const char *p = *pp;
    char e = *p++;
    int v = -1;
    switch (e) {
    case 't': v = '\t'; break;
    case 'n': v = '\n'; break;
    case 'r': v = '\r'; break;
    case 'v': v = '\v'; break;
    case 'f': v = '\f'; break;
    case 'x':
        if (tg_hexval(p[0]) >= 0 && tg_hexval(p[1]) >= 0) {
            v = tg_hexval(p[0]) * 16 + tg_hexval(p[1]);
            p += 2;
        }
        break;
    case 'u':
        if ((tg_hexval(p[0]) | tg_hexval(p[1]) | tg_hexval(p[2]) | tg_hexval(p[3])) >= 0) {
            v = tg_hexval(p[0]) << 12 | tg_hexval(p[1]) << 8 | tg_hexval(p[2]) << 4 | tg_hexval(p[3]);
            p += 4;
        }
        break;
    case 'c':
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
            v = *p++ & 31;
        break;
    case '0':
        if (!(*p >= '0' && *p <= '9'))
            v = 0;
        break;
    case '-':
        if (in_class)
            v = '-';
        break;
    default:
        if (e && strchr("^$\\.*+?()[]{}|/", e))
            v = (unsigned char)e;
        break;
    }
    if (v < 0 || v >= 0x80)
        return -1;
    *pp = p;
    return v;
}

/* One class item at *pp: a character (returns it) or a class escape (into *c, returns -2). */
static int class_item(parser *ps, cls *c)
{
    const char *p = ps->p;
    unsigned char ch = (unsigned char)*p;
    if (ch >= 0x80 || ch == '\0')
        return -1;
    if (ch != '\\') {
        ps->p = p + 1;
        return ch;
    }
    p++;
    if (class_escape(*p, c)) {
        ps->p = p + 1;
        return -2;
    }
    int v = char_escape(&p, true);
    if (v < 0)
        return -1;
    ps->p = p;
    return v;
}

static bool parse_class(parser *ps, cls *out)
{
    memset(out, 0, sizeof *out);
    bool neg = *ps->p == '^';
    if (neg)
        ps->p++;
    if (*ps->p == ']')
        return false; /* [] and [^] are left to PCRE2 */
    while (*ps->p != ']') {
        cls esc;
        int a = class_item(ps, &esc);
        if (a == -1)
            return false;
        if (a == -2) {
            cls_union(out, &esc);
            continue;
        }
        if (ps->p[0] == '-' && ps->p[1] != ']') {
            ps->p++;
            int b = class_item(ps, &esc);
            if (b < 0 || b < a)
                return false;
            cls_range(out, (unsigned)a, (unsigned)b);
        } else {
            cls_add(out, (unsigned)a);
        }
    }
    ps->p++;
    if (neg)
        cls_negate(out);
    return true;
}

static bool parse_atom(parser *ps, cls *c)
{
    memset(c, 0, sizeof *c);
    unsigned char ch = (unsigned char)*ps->p;
    if (ch == '.') {
        ps->p++;
        cls_range(c, 0, 127);
        c->bits['\n' >> 6] &= ~(1ULL << ('\n' & 63));
        c->bits['\r' >> 6] &= ~(1ULL << ('\r' & 63));
        c->na = NA_DOT;
        return true;
    }
    if (ch == '[') {
        ps->p++;
        return parse_class(ps, c);
    }
    if (ch == '\\') {
        const char *p = ps->p + 1;
        if (class_escape(*p, c)) {
            ps->p = p + 1;
            return true;
        }
        int v = char_escape(&p, false);
        if (v < 0)
            return false;
        ps->p = p;
        cls_add(c, (unsigned)v);
        return true;
    }
    if (ch >= 0x80 || ch == '\0' || strchr("^$()|*+?{}]", ch))
        return false;
    ps->p++;
    cls_add(c, ch);
    return true;
}

static bool parse_number(const char **pp, int *out)
{
    const char *p = *pp;
    if (!(*p >= '0' && *p <= '9'))
        return false;
    int v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p++ - '0');
        if (v > MAXPOS)
            return false;
    }
    *pp = p;
    *out = v;
    return true;
}

static bool parse_quantifier(parser *ps, int *min, int *max)
{
    const char *p = ps->p;
    *min = *max = 1;
    switch (*p) {
    case '*': *min = 0; *max = -1; p++; break;
    case '+': *min = 1; *max = -1; p++; break;
    case '?': *min = 0; *max = 1; p++; break;
    case '{':
        p++;
        if (!parse_number(&p, min))
            return false;
        *max = *min;
        if (*p == ',') {
            p++;
            *max = -1;
            if (*p != '}' && !parse_number(&p, max))
                return false;
        }
        if (*p++ != '}' || (*max >= 0 && *max < *min))
            return false;
        break;
    default:
        return true;
    }
    if (*p == '?')
        p++; /* lazy or greedy: the same for a yes/no search */
    if (*p && strchr("*+?{", *p))
        return false;
    ps->p = p;
    return true;
}

static bool parse(parser *ps, js_fastre *re)
{
    if (*ps->p == '^') {
        re->anchor_start = true;
        ps->p++;
    }
    while (*ps->p) {
        if (ps->p[0] == '$' && ps->p[1] == '\0') {
            re->anchor_end = true;
            return true;
        }
        if (ps->n == MAXPOS)
            return false;
        atom *a = &ps->atoms[ps->n++];
        if (!parse_atom(ps, &a->c) || !parse_quantifier(ps, &a->min, &a->max))
            return false;
    }
    return true;
}

typedef struct pos {
    const cls *c;
    bool opt, rep;
} pos;

/* Expands the atoms into positions; false beyond MAXPOS. */
static int expand(const parser *ps, pos *out)
{
    int n = 0;
    for (int i = 0; i < ps->n; i++) {
        const atom *a = &ps->atoms[i];
        int mand = a->max < 0 && a->min > 0 ? a->min - 1 : a->min;
        int extra = a->max < 0 ? 1 : a->max - a->min;
        if (n + mand + extra > MAXPOS)
            return -1;
        for (int k = 0; k < mand; k++)
            out[n++] = (pos){&a->c, false, false};
        if (a->max < 0)
            out[n++] = (pos){&a->c, a->min == 0, true};
        else
            for (int k = 0; k < extra; k++)
                out[n++] = (pos){&a->c, true, false};
    }
    return n;
}

/* Fills re from the positions; false when an optional run is too long for closure(). */
static bool build(js_fastre *re, const pos *ps, int n)
{
    uint64_t first[MAXPOS + 1];
    bool nullable[MAXPOS + 1];
    first[n] = 0;
    nullable[n] = true;
    int run = 0;
    for (int j = n - 1; j >= 0; j--) {
        first[j] = (1ULL << j) | (ps[j].opt ? first[j + 1] : 0);
        nullable[j] = ps[j].opt && nullable[j + 1];
        run = ps[j].opt ? run + 1 : 0;
        if (run > re->opt_run)
            re->opt_run = run;
    }
    if (re->opt_run > MAX_OPT_RUN)
        return false;
    re->first0 = first[0];
    re->start_accepts = nullable[0];
    re->all = n == 64 ? ~0ULL : (1ULL << n) - 1;
    for (int i = 0; i < n; i++) {
        uint64_t bit = 1ULL << i;
        if (ps[i].rep)
            re->repeat |= bit;
        if (ps[i].opt)
            re->optional |= bit;
        if (nullable[i + 1])
            re->accept |= bit;
        for (unsigned ch = 0; ch < 128; ch++)
            if (cls_has(ps[i].c, ch))
                re->ascii[ch] |= bit;
        switch (ps[i].c->na) {
        case NA_ALL: re->na_all |= bit; break;
        case NA_WS: re->na_ws |= bit; break;
        case NA_NONWS: re->na_nonws |= bit; break;
        case NA_DOT: re->na_dot |= bit; break;
        default: break;
        }
    }
    return true;
}

js_fastre *js_fastre_compile(const char *ecma)
{
    parser *ps = xcalloc(1, sizeof *ps);
    js_fastre *re = xcalloc(1, sizeof *re);
    ps->p = ecma;
    pos positions[MAXPOS];
    int n = -1;
    if (parse(ps, re))
        n = expand(ps, positions);
    if (n < 0 || !build(re, positions, n)) {
        free(ps);
        free(re);
        return NULL;
    }
    free(ps);
    return re;
}

void js_fastre_free(js_fastre *re)
{
    free(re);
}

/* ECMAScript WhiteSpace and LineTerminator above ASCII. */
static bool unicode_space(uint32_t c)
{
    return c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

static uint64_t non_ascii_mask(const js_fastre *re, uint32_t c)
{
    uint64_t m = re->na_all | (unicode_space(c) ? re->na_ws : re->na_nonws);
    if (c != 0x2028 && c != 0x2029)
        m |= re->na_dot;
    return m;
}

bool js_fastre_search(const js_fastre *re, const char *s)
{
    if (re->start_accepts && (!re->anchor_end || !re->anchor_start || !*s))
        return true; /* the empty match is enough */
    const unsigned char *p = (const unsigned char *)s;
    uint64_t d = 0;
    while (*p) {
        uint32_t c = *p;
        size_t len = 1;
        if (c >= 0x80)
            c = js_utf8_next(p, &len);
        /* the positions that may consume the next character */
        uint64_t y = d << 1;
        for (int k = 0; k < re->opt_run; k++)
            y |= (y & re->optional) << 1;
        uint64_t next = (d & re->repeat) | (y & re->all);
        if (!re->anchor_start || p == (const unsigned char *)s)
            next |= re->first0;
        d = next & (c < 0x80 ? re->ascii[c] : non_ascii_mask(re, c));
        if (!re->anchor_end && (d & re->accept))
            return true;
        if (!d && re->anchor_start)
            return false;
        p += len;
    }
    return re->anchor_end && (d & re->accept);
}
