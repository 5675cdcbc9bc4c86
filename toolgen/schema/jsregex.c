/* jsregex.c — ECMA-262 pattern → PCRE2 pattern translation, compile and match. */
#include "schema/jsregex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "schema/jsfastre.h"
#include "schema/jsutf8.h"
#include "base/util.h"

/* ECMAScript WhiteSpace + LineTerminator, as class ranges (PCRE2 \s without UCP is ASCII-only). */
static const char WS_RANGES[] =
    "\\t\\n\\x{b}\\f\\r\\x{20}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}"
    "\\x{205f}\\x{3000}\\x{feff}";
/* Its complement over all code points except surrogates, for \S inside a class. */
static const char NON_WS_RANGES[] =
    "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}"
    "\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}"
    "\\x{3001}-\\x{d7ff}\\x{e000}-\\x{fefe}\\x{ff00}-\\x{10ffff}";

/* Complements of [0-9] and [A-Za-z0-9_] over all code points except surrogates. */
#define NON_DIGIT_RANGES "\\x{0}-\\x{2f}\\x{3a}-\\x{d7ff}\\x{e000}-\\x{10ffff}"
#define NON_WORD_RANGES                                                                     \
    "\\x{0}-\\x{2f}\\x{3a}-\\x{40}\\x{5b}-\\x{5e}\\x{60}\\x{7b}-\\x{d7ff}"                 \
    "\\x{e000}-\\x{10ffff}"

typedef struct tr {
    const char *p;   /* cursor in the ECMA pattern */
    tg_buf out;
    bool strict;
    char *err;
    size_t errlen;
    bool failed;
} tr;

static void tr_fail(tr *t, const char *fmt, ...) TG_PRINTF(2, 3);
static void tr_fail(tr *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    t->failed = true;
    if (t->err && t->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->err, t->errlen, fmt, ap);
        va_end(ap);
    }
}

static bool read_hex(const char *p, int n, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < n; i++) {
        int h = tg_hexval((unsigned char)p[i]);
        if (h < 0)
            return false;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return true;
}

static void put_cp(tr *t, unsigned cp)
{
    tg_buf_printf(&t->out, "\\x{%x}", cp);
}

/*
 * \uXXXX, \u{X...}, with surrogate pairs joined. t->p points after "\u". Returns the code point
 * or -1 after reporting an error.
 */
static long read_unicode_escape(tr *t)
{
    unsigned v;
    if (*t->p == '{') {
        const char *e = strchr(t->p, '}');
        size_t n = e ? (size_t)(e - t->p - 1) : 0;
        if (!e || n == 0 || n > 8) {
            tr_fail(t, "malformed \\u{...} escape");
            return -1;
        }
        unsigned long cp = 0;
        for (size_t i = 1; i <= n; i++) {
            int h = tg_hexval((unsigned char)t->p[i]);
            if (h < 0) {
                tr_fail(t, "malformed \\u{...} escape");
                return -1;
            }
            cp = cp * 16 + (unsigned)h;
        }
        if (cp > 0x10FFFF) {
            tr_fail(t, "\\u{...} escape beyond U+10FFFF");
            return -1;
        }
        t->p = e + 1;
        return (long)cp;
    }
    if (!read_hex(t->p, 4, &v)) {
        tr_fail(t, "malformed \\u escape (expected 4 hex digits)");
        return -1;
    }
    t->p += 4;
    if (v >= 0xD800 && v <= 0xDBFF && t->p[0] == '\\' && t->p[1] == 'u') {
        unsigned lo;
        if (read_hex(t->p + 2, 4, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            t->p += 6;
            return 0x10000 + ((long)(v - 0xD800) << 10) + (long)(lo - 0xDC00);
        }
    }
    if (v >= 0xD800 && v <= 0xDFFF) {
        tr_fail(t, "lone surrogate \\u%04X can never match UTF-8 text", v);
        return -1;
    }
    return (long)v;
}

/* General_Category value aliases (ECMAScript accepts any of them) → PCRE2's short names. */
static const char *const GC_ALIASES[][3] = {
    {"L", "Letter", NULL},          {"Lu", "Uppercase_Letter", NULL},
    {"Ll", "Lowercase_Letter", NULL}, {"Lt", "Titlecase_Letter", NULL},
    {"L&", "Cased_Letter", "LC"},    {"Lm", "Modifier_Letter", NULL},
    {"Lo", "Other_Letter", NULL},    {"M", "Mark", "Combining_Mark"},
    {"Mn", "Nonspacing_Mark", NULL}, {"Mc", "Spacing_Mark", NULL},
    {"Me", "Enclosing_Mark", NULL},  {"N", "Number", NULL},
    {"Nd", "Decimal_Number", "digit"}, {"Nl", "Letter_Number", NULL},
    {"No", "Other_Number", NULL},    {"P", "Punctuation", "punct"},
    {"Pc", "Connector_Punctuation", NULL}, {"Pd", "Dash_Punctuation", NULL},
    {"Ps", "Open_Punctuation", NULL}, {"Pe", "Close_Punctuation", NULL},
    {"Pi", "Initial_Punctuation", NULL}, {"Pf", "Final_Punctuation", NULL},
    {"Po", "Other_Punctuation", NULL}, {"S", "Symbol", NULL},
    {"Sm", "Math_Symbol", NULL},     {"Sc", "Currency_Symbol", NULL},
    {"Sk", "Modifier_Symbol", NULL}, {"So", "Other_Symbol", NULL},
    {"Z", "Separator", NULL},        {"Zs", "Space_Separator", NULL},
    {"Zl", "Line_Separator", NULL},  {"Zp", "Paragraph_Separator", NULL},
    {"C", "Other", NULL},            {"Cc", "Control", "cntrl"},
    {"Cf", "Format", NULL},          {"Cs", "Surrogate", NULL},
    {"Co", "Private_Use", NULL},     {"Cn", "Unassigned", NULL},
};

static const char *gc_short(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof GC_ALIASES / sizeof *GC_ALIASES; i++)
        for (int k = 0; k < 3; k++) {
            const char *a = GC_ALIASES[i][k];
            if (a && strlen(a) == n && memcmp(a, name, n) == 0)
                return GC_ALIASES[i][0];
        }
    return NULL;
}

/* \p{...} / \P{...}; t->p points at '{'. */
static void translate_property(tr *t, char pc)
{
    const char *e = strchr(t->p, '}');
    if (*t->p != '{' || !e || e == t->p + 1) {
        tr_fail(t, "\\%c must be followed by {property}", pc);
        return;
    }
    const char *name = t->p + 1;
    size_t n = (size_t)(e - name);
    t->p = e + 1;
    const char *eq = memchr(name, '=', n);
    if (eq) {
        size_t kl = (size_t)(eq - name);
        const char *val = eq + 1;
        size_t vl = n - kl - 1;
        const char *gc;
        if ((kl == 16 && memcmp(name, "General_Category", 16) == 0) ||
            (kl == 2 && memcmp(name, "gc", 2) == 0)) {
            if (!(gc = gc_short(val, vl))) {
                tr_fail(t, "unknown General_Category value in \\%c{%.*s}", pc, (int)n, name);
                return;
            }
            tg_buf_printf(&t->out, "\\%c{%s}", pc, gc);
        } else if ((kl == 6 && memcmp(name, "Script", 6) == 0) ||
                   (kl == 2 && memcmp(name, "sc", 2) == 0)) {
            tg_buf_printf(&t->out, "\\%c{sc:%.*s}", pc, (int)vl, val);
        } else if ((kl == 17 && memcmp(name, "Script_Extensions", 17) == 0) ||
                   (kl == 3 && memcmp(name, "scx", 3) == 0)) {
            tg_buf_printf(&t->out, "\\%c{scx:%.*s}", pc, (int)vl, val);
        } else {
            tr_fail(t, "unsupported property in \\%c{%.*s}", pc, (int)n, name);
        }
        return;
    }
    const char *gc = gc_short(name, n);
    if (gc)
        tg_buf_printf(&t->out, "\\%c{%s}", pc, gc);
    else /* binary properties (Alphabetic, ASCII, Any, ...) share PCRE2's names */
        tg_buf_printf(&t->out, "\\%c{%.*s}", pc, (int)n, name);
}

static bool is_syntax_char(int c)
{
    return c && strchr("^$\\.*+?()[]{}|/", c) != NULL;
}

/* The class shorthands and word boundaries (\d \w \s \b and their negations): false when c is
 * none of them. */
static bool translate_shorthand(tr *t, char c, bool in_class)
{
    switch (c) {
    case 'd':
        tg_buf_puts(&t->out, in_class ? "0-9" : "[0-9]");
        return true;
    case 'w':
        tg_buf_puts(&t->out, in_class ? "A-Za-z0-9_" : "[A-Za-z0-9_]");
        return true;
    /* Spelled out rather than PCRE2's \D and \W, which mishandle characters above U+00FF
     * under PCRE2_MATCH_INVALID_UTF. */
    case 'D':
        tg_buf_puts(&t->out, in_class ? NON_DIGIT_RANGES : "[" NON_DIGIT_RANGES "]");
        return true;
    case 'W':
        tg_buf_puts(&t->out, in_class ? NON_WORD_RANGES : "[" NON_WORD_RANGES "]");
        return true;
    case 's':
        tg_buf_printf(&t->out, in_class ? "%s" : "[%s]", WS_RANGES);
        return true;
    case 'S':
        if (in_class)
            tg_buf_puts(&t->out, NON_WS_RANGES);
        else
            tg_buf_printf(&t->out, "[^%s]", WS_RANGES);
        return true;
    case 'b':
        tg_buf_puts(&t->out, in_class ? "\\x{8}" : "\\b");
        return true;
    case 'B':
        if (in_class)
            tr_fail(t, "\\B is not allowed in a character class");
        else
            tg_buf_puts(&t->out, "\\B");
        return true;
    default:
        return false;
    }
}

/* The escapes translate_escape does not name: a back-reference \1.., an escaped syntax
 * character, or (outside strict mode) Annex B's identity escape of punctuation; anything else
 * is an error. */
static void translate_other_escape(tr *t, char c, bool in_class)
{
    if (c >= '1' && c <= '9') {
        if (in_class) {
            tr_fail(t, "back-references are not allowed in a character class");
            return;
        }
        unsigned n = (unsigned)(c - '0');
        while (*t->p >= '0' && *t->p <= '9' && n < 100000)
            n = n * 10 + (unsigned)(*t->p++ - '0');
        tg_buf_printf(&t->out, "\\g{%u}", n);
        return;
    }
    if (is_syntax_char(c) || (c == '-' && in_class)) {
        tg_buf_putc(&t->out, '\\');
        tg_buf_putc(&t->out, c);
        return;
    }
    if (!t->strict && c != '_' && ((unsigned char)c < 0x80) &&
        !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
        /* Annex B identity escape of punctuation, e.g. "\-" or "\@": a literal */
        tg_buf_putc(&t->out, '\\');
        tg_buf_putc(&t->out, c);
        return;
    }
    if ((unsigned char)c >= 0x80)
        tr_fail(t, "invalid escape of a non-ASCII character");
    else
        tr_fail(t, "invalid escape \\%c", c);
}

/* One escape sequence; t->p points after the backslash. */
static void translate_escape(tr *t, bool in_class)
{
    char c = *t->p;
    if (!c) {
        tr_fail(t, "pattern ends with a lone backslash");
        return;
    }
    t->p++;
    if (translate_shorthand(t, c, in_class))
        return;
    switch (c) {
    case 't': tg_buf_puts(&t->out, "\\t"); return;
    case 'n': tg_buf_puts(&t->out, "\\n"); return;
    case 'v': tg_buf_puts(&t->out, "\\x{b}"); return;
    case 'f': tg_buf_puts(&t->out, "\\f"); return;
    case 'r': tg_buf_puts(&t->out, "\\r"); return;
    case 'c': {
        char l = *t->p;
        if ((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')) {
            t->p++;
            put_cp(t, (unsigned)(l & 31));
        } else {
            tr_fail(t, "\\c must be followed by a letter");
        }
        return;
    }
    case '0':
        if (*t->p >= '0' && *t->p <= '9') {
            tr_fail(t, "octal escapes are not allowed");
            return;
        }
        put_cp(t, 0);
        return;
    case 'x': {
        unsigned v;
        if (read_hex(t->p, 2, &v)) {
            t->p += 2;
            put_cp(t, v);
        } else {
            tr_fail(t, "malformed \\x escape (expected 2 hex digits)");
        }
        return;
    }
    case 'u': {
        long cp = read_unicode_escape(t);
        if (cp >= 0)
            put_cp(t, (unsigned)cp);
        return;
    }
    case 'p': case 'P':
        translate_property(t, c);
        return;
    case 'k':
        if (in_class || *t->p != '<' || !strchr(t->p, '>')) {
            tr_fail(t, "\\k must be followed by <name>");
            return;
        }
        {
            const char *e = strchr(t->p, '>');
            tg_buf_printf(&t->out, "\\k%.*s", (int)(e - t->p + 1), t->p);
            t->p = e + 1;
        }
        return;
    default:
        translate_other_escape(t, c, in_class);
        return;
    }
}

/* A literal code point (raw UTF-8), escaped where PCRE2 would read it differently. */
static void put_literal(tr *t, bool in_class)
{
    unsigned char c = (unsigned char)*t->p;
    if (c < 0x80) {
        if (in_class && c == '[')
            tg_buf_puts(&t->out, "\\[");
        else
            tg_buf_putc(&t->out, (char)c);
        t->p++;
        return;
    }
    size_t len;
    js_utf8_next((const unsigned char *)t->p, &len);
    tg_buf_append(&t->out, t->p, len);
    t->p += len;
}

static void translate_class(tr *t)
{
    /* t->p points after '[' */
    bool neg = *t->p == '^';
    if (neg)
        t->p++;
    if (*t->p == ']') {
        t->p++;
        /* [] matches nothing, [^] matches anything, line terminators included */
        tg_buf_puts(&t->out, neg ? "(?s:.)" : "(?!)");
        return;
    }
    tg_buf_puts(&t->out, neg ? "[^" : "[");
    while (!t->failed) {
        char c = *t->p;
        if (!c) {
            tr_fail(t, "missing ] at the end of a character class");
            return;
        }
        if (c == ']') {
            t->p++;
            tg_buf_putc(&t->out, ']');
            return;
        }
        if (c == '\\') {
            t->p++;
            translate_escape(t, true);
        } else {
            put_literal(t, true);
        }
    }
}

/* "{n}", "{n,}", "{n,m}" at t->p? Returns its length, 0 when it is not a quantifier. */
static size_t quantifier_len(const char *p)
{
    const char *q = p + 1;
    if (!(*q >= '0' && *q <= '9'))
        return 0;
    while (*q >= '0' && *q <= '9')
        q++;
    if (*q == ',') {
        q++;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    return *q == '}' ? (size_t)(q - p) + 1 : 0;
}

static void translate_group_open(tr *t)
{
    /* t->p points at '(' */
    t->p++;
    if (*t->p != '?') {
        tg_buf_putc(&t->out, '(');
        return;
    }
    const char *g = t->p + 1;
    if (*g == ':' || *g == '=' || *g == '!') {
        tg_buf_printf(&t->out, "(?%c", *g);
        t->p = g + 1;
    } else if (g[0] == '<' && (g[1] == '=' || g[1] == '!')) {
        tg_buf_printf(&t->out, "(?<%c", g[1]);
        t->p = g + 2;
    } else if (g[0] == '<') {
        const char *e = g + 1;
        while (*e && *e != '>' && ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') ||
                                   (*e >= '0' && *e <= '9') || *e == '_' || *e == '$'))
            e++;
        if (*e != '>' || e == g + 1) {
            tr_fail(t, "malformed group name");
            return;
        }
        tg_buf_printf(&t->out, "(?<%.*s>", (int)(e - g - 1), g + 1);
        t->p = e + 1;
    } else {
        tr_fail(t, "unsupported group syntax \"(?%.2s\" (inline flags, comments and Python-style "
                   "groups are not ECMA-262)", g);
    }
}

char *js_regex_translate(const char *ecma, bool strict, char *errbuf, size_t errlen)
{
    tr t = {.p = ecma, .out = TG_BUF_INIT, .strict = strict, .err = errbuf, .errlen = errlen};
    tg_buf_puts(&t.out, "");
    while (*t.p && !t.failed) {
        char c = *t.p;
        switch (c) {
        case '\\':
            t.p++;
            translate_escape(&t, false);
            break;
        case '[':
            t.p++;
            translate_class(&t);
            break;
        case '.':
            t.p++;
            tg_buf_puts(&t.out, "[^\\n\\r\\x{2028}\\x{2029}]");
            break;
        case '(':
            translate_group_open(&t);
            break;
        case '{': {
            size_t q = quantifier_len(t.p);
            if (q) {
                tg_buf_append(&t.out, t.p, q);
                t.p += q;
            } else if (strict) {
                tr_fail(&t, "lone '{' (escape it as \\{)");
            } else {
                tg_buf_puts(&t.out, "\\{");
                t.p++;
            }
            break;
        }
        case '}':
        case ']':
            if (strict) {
                tr_fail(&t, "lone '%c' (escape it as \\%c)", c, c);
            } else {
                tg_buf_putc(&t.out, '\\');
                tg_buf_putc(&t.out, c);
                t.p++;
            }
            break;
        default:
            put_literal(&t, false);
            break;
        }
    }
    if (t.failed) {
        tg_buf_free(&t.out);
        return NULL;
    }
    return tg_buf_steal(&t.out);
}

static const uint32_t RE_OPTIONS =
    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_MATCH_UNSET_BACKREF;

/* Translates ecma and compiles the result: NULL when either step fails; *code is then PCRE2's
 * error code, or 0 when the translation failed (errbuf says why). */
static pcre2_code *compile_ecma(const char *ecma, bool strict, char *errbuf, size_t errlen,
                                int *code)
{
    *code = 0;
    char *pat = js_regex_translate(ecma, strict, errbuf, errlen);
    if (!pat)
        return NULL;
    PCRE2_SIZE off;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, RE_OPTIONS, code, &off, NULL);
    free(pat);
    return re;
}

/* Translates and compiles ecma without JIT: NULL with PCRE2's message in errbuf on error. */
static pcre2_code *compile_lenient(const char *ecma, char *errbuf, size_t errlen)
{
    int code;
    pcre2_code *re = compile_ecma(ecma, false, errbuf, errlen, &code);
    if (!re && code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "%s", (const char *)msg);
    }
    return re;
}

pcre2_code *js_regex_compile(const char *ecma, char *errbuf, size_t errlen)
{
    pcre2_code *re = compile_lenient(ecma, errbuf, errlen);
    /* JIT is an optimisation: when it is unavailable the interpreter is used. */
    if (re)
        (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

bool js_regex_search(const pcre2_code *re, const char *s, pcre2_match_data *md)
{
    size_t len = strlen(s);
    /* Compiled with PCRE2_MATCH_INVALID_UTF, so the subject needs no UTF-8 check (invalid
     * sequences just never match) and the JIT fast path is safe. Patterns JIT could not compile
     * go through the interpreter. */
    int rc = pcre2_jit_match(re, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
    if (rc == PCRE2_ERROR_JIT_BADOPTION || rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, PCRE2_NO_JIT, md, NULL);
    return rc >= 0; /* 0 = matched, ovector too small for the groups (we need none) */
}

bool js_regex_valid(const char *s)
{
    int code;
    pcre2_code *re = compile_ecma(s, true, NULL, 0, &code);
    if (re) {
        pcre2_code_free(re);
        return true;
    }
    /* ECMAScript allows variable-length lookbehind; PCRE2 before 10.43 cannot compile it but the
     * pattern is still valid ECMA-262. */
    return code == PCRE2_ERROR_LOOKBEHIND_NOT_FIXED_LENGTH;
}

js_re *js_re_compile(const char *ecma, char *errbuf, size_t errlen)
{
    pcre2_code *code = compile_lenient(ecma, errbuf, errlen);
    if (!code)
        return NULL;
    js_re *re = xmalloc(sizeof *re);
    re->code = code;
    re->fast = js_fastre_compile(ecma);
    /* A pattern the fast matcher takes never runs through PCRE2 (which only checked its
     * syntax), so its JIT code would be compiled for nothing: most of a schema's compile time
     * for a one-shot command such as diff or lint. */
    if (!re->fast)
        (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    return re;
}

bool js_re_search(const js_re *re, const char *s, pcre2_match_data *md)
{
    return re->fast ? js_fastre_search(re->fast, s) : js_regex_search(re->code, s, md);
}

void js_re_free(js_re *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    js_fastre_free(re->fast);
    free(re);
}
