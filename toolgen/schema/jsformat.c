/*
 * jsformat.c — format checkers: RFC 3339 dates and times, ISO 8601 durations, RFC 5321/6531
 * e-mail, RFC 1123 host names with IDNA2008 (RFC 5890-5893) checks for U-labels and A-labels,
 * IPv4/IPv6, RFC 3986/3987 URIs and IRIs, RFC 6570 templates, UUIDs, JSON Pointers, ECMA-262
 * regexes.
 *
 * IDNA needs Unicode properties (general category, script, bidi class); rather than carrying
 * tables, they are asked from PCRE2's Unicode database through tiny one-class patterns.
 */
#include "schema/jsformat.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/jsonschema.h"
#include "schema/jsregex.h"
#include "schema/jsuri.h"
#include "schema/jsutf8.h"

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_hex(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* n ASCII digits at s, as a number; -1 when any is not a digit. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- RFC 3339 ---- */

static int days_in_month(int y, int m)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return d[m - 1];
}

/* full-date at s (10 chars). */
static bool check_full_date(const char *s)
{
    if (s[4] != '-' || s[7] != '-')
        return false;
    int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
    return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

static bool check_date(const char *s)
{
    return strlen(s) == 10 && check_full_date(s);
}

/* full-time: partial-time time-offset, the whole string. */
static bool check_time(const char *s)
{
    if (strlen(s) < 9 || s[2] != ':' || s[5] != ':')
        return false;
    int h = digits(s, 2), mi = digits(s + 3, 2), sec = digits(s + 6, 2);
    if (h < 0 || mi < 0 || sec < 0 || h > 23 || mi > 59 || sec > 60)
        return false;
    const char *p = s + 8;
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return false;
        while (is_digit(*p))
            p++;
    }
    int off = 0; /* minutes east of UTC */
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '+' ? 1 : -1;
        if (strlen(p) != 6 || p[3] != ':')
            return false;
        int oh = digits(p + 1, 2), om = digits(p + 4, 2);
        if (oh < 0 || om < 0 || oh > 23 || om > 59)
            return false;
        off = sign * (oh * 60 + om);
        p += 6;
    } else {
        return false;
    }
    if (*p)
        return false;
    if (sec == 60) {
        /* a leap second happens at 23:59:60 UTC only */
        int utc = ((h * 60 + mi - off) % 1440 + 1440) % 1440;
        if (utc != 23 * 60 + 59)
            return false;
    }
    return true;
}

static bool check_date_time(const char *s)
{
    if (strlen(s) < 11 || (s[10] != 'T' && s[10] != 't'))
        return false;
    return check_full_date(s) && check_time(s + 11);
}

/* ---- ISO 8601 duration, per RFC 3339 appendix A ---- */

/* 1*DIGIT followed by a unit letter: returns the unit, advances *p; 0 when absent. */
static char dur_elem(const char **p)
{
    const char *q = *p;
    if (!is_digit(*q))
        return 0;
    while (is_digit(*q))
        q++;
    if (!is_alpha(*q))
        return 0;
    *p = q + 1;
    return *q;
}

static bool dur_time(const char *p)
{
    /* p points after 'T': dur-hour / dur-minute / dur-second */
    const char *order = "HMS";
    char u = dur_elem(&p);
    if (!u || !strchr(order, u))
        return false;
    const char *pos = strchr(order, u);
    while (*p) {
        char v = dur_elem(&p);
        if (!v || !strchr(order, v))
            return false;
        const char *vp = strchr(order, v);
        if (vp != pos + 1) /* units must be consecutive: H M S, no gaps */
            return false;
        pos = vp;
    }
    return true;
}

static bool check_duration(const char *s)
{
    if (*s != 'P')
        return false;
    const char *p = s + 1;
    if (*p == 'T')
        return dur_time(p + 1);
    const char *order = "YMD";
    const char *pos = NULL;
    while (*p && *p != 'T') {
        const char *save = p;
        char u = dur_elem(&p);
        if (u == 'W')
            return pos == NULL && save == s + 1 && *p == '\0';
        const char *up = u ? strchr(order, u) : NULL;
        if (!up || (pos && up != pos + 1))
            return false;
        pos = up;
    }
    if (!pos)
        return false;
    if (*p == 'T')
        return dur_time(p + 1);
    return true;
}

/* ---- Punycode (RFC 3492) ---- */

enum { PC_BASE = 36, PC_TMIN = 1, PC_TMAX = 26, PC_SKEW = 38, PC_DAMP = 700 };

static uint32_t pc_adapt(uint32_t delta, uint32_t npoints, bool first)
{
    delta = first ? delta / PC_DAMP : delta / 2;
    delta += delta / npoints;
    uint32_t k = 0;
    while (delta > ((PC_BASE - PC_TMIN) * PC_TMAX) / 2) {
        delta /= PC_BASE - PC_TMIN;
        k += PC_BASE;
    }
    return k + (PC_BASE * delta) / (delta + PC_SKEW);
}

static uint32_t pc_t(uint32_t k, uint32_t bias)
{
    return k <= bias ? PC_TMIN : k >= bias + PC_TMAX ? PC_TMAX : k - bias;
}

#define MAX_LABEL_CPS 256

/* Decodes the part after "xn--" into out[]; returns the count or -1. */
static int punycode_decode(const char *in, size_t len, uint32_t *out)
{
    size_t b = 0;
    for (size_t j = 0; j < len; j++)
        if (in[j] == '-')
            b = j;
    if (b > MAX_LABEL_CPS)
        return -1;
    uint32_t n = 128, i = 0, bias = 72, outlen = 0;
    for (size_t j = 0; j < b; j++) {
        if ((unsigned char)in[j] >= 0x80)
            return -1;
        out[outlen++] = (unsigned char)in[j];
    }
    for (size_t pos = b > 0 ? b + 1 : 0; pos < len;) {
        uint32_t oldi = i, w = 1;
        for (uint32_t k = PC_BASE;; k += PC_BASE) {
            if (pos >= len)
                return -1;
            int c = (unsigned char)in[pos++];
            uint32_t digit = is_digit(c) ? (uint32_t)(c - '0' + 26)
                             : (c >= 'a' && c <= 'z') ? (uint32_t)(c - 'a')
                             : (c >= 'A' && c <= 'Z') ? (uint32_t)(c - 'A')
                                                      : PC_BASE;
            if (digit >= PC_BASE || digit > (UINT32_MAX - i) / w)
                return -1;
            i += digit * w;
            uint32_t t = pc_t(k, bias);
            if (digit < t)
                break;
            if (w > UINT32_MAX / (PC_BASE - t))
                return -1;
            w *= PC_BASE - t;
        }
        if (outlen >= MAX_LABEL_CPS)
            return -1;
        bias = pc_adapt(i - oldi, outlen + 1, oldi == 0);
        if (i / (outlen + 1) > UINT32_MAX - n)
            return -1;
        n += i / (outlen + 1);
        i %= outlen + 1;
        if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF))
            return -1;
        memmove(out + i + 1, out + i, (outlen - i) * sizeof *out);
        out[i++] = n;
        outlen++;
    }
    return (int)outlen;
}

static char pc_digit(uint32_t d)
{
    return (char)(d < 26 ? 'a' + d : '0' + (d - 26));
}

/* Encodes cps into out (NUL-terminated, at most cap-1 chars); returns the length or -1. */
static int punycode_encode(const uint32_t *cps, int ncp, char *out, size_t cap)
{
    size_t o = 0;
    uint32_t n = 128, delta = 0, bias = 72, h, b = 0;
    for (int j = 0; j < ncp; j++)
        if (cps[j] < 0x80) {
            if (o + 1 >= cap)
                return -1;
            out[o++] = (char)cps[j];
            b++;
        }
    h = b;
    if (b > 0) {
        if (o + 1 >= cap)
            return -1;
        out[o++] = '-';
    }
    while (h < (uint32_t)ncp) {
        uint32_t m = UINT32_MAX;
        for (int j = 0; j < ncp; j++)
            if (cps[j] >= n && cps[j] < m)
                m = cps[j];
        if ((uint64_t)(m - n) * (h + 1) > UINT32_MAX - delta)
            return -1;
        delta += (m - n) * (h + 1);
        n = m;
        for (int j = 0; j < ncp; j++) {
            if (cps[j] < n)
                delta++;
            if (cps[j] != n)
                continue;
            uint32_t q = delta;
            for (uint32_t k = PC_BASE;; k += PC_BASE) {
                uint32_t t = pc_t(k, bias);
                if (q < t)
                    break;
                if (o + 1 >= cap)
                    return -1;
                out[o++] = pc_digit(t + (q - t) % (PC_BASE - t));
                q = (q - t) / (PC_BASE - t);
            }
            if (o + 1 >= cap)
                return -1;
            out[o++] = pc_digit(q);
            bias = pc_adapt(delta, h + 1, h == b);
            delta = 0;
            h++;
        }
        delta++;
        n++;
    }
    out[o] = '\0';
    return (int)o;
}

/* ---- Unicode properties through PCRE2 ---- */

enum {
    UP_PVALID,    /* general categories IDNA2008 derives PVALID from */
    UP_MARK,      /* combining marks */
    UP_GREEK,
    UP_HEBREW,
    UP_HKH,       /* Hiragana, Katakana, Han */
    UP_JOINING,   /* letters of the cursive-joining scripts (Joining_Type D/L/R, approximately) */
    UP_TRANSP,    /* Joining_Type T, approximately: Mn, Me, Cf */
    UP_BC_L,
    UP_BC_RAL,    /* bidi R or AL */
    UP_BC_AN,
    UP_BC_EN,
    UP_BC_NSM,
    UP_BC_RTL_OK, /* classes allowed in an RTL label (RFC 5893 rule 2) */
    UP_BC_LTR_OK, /* classes allowed in an LTR label (rule 5) */
    UP_COUNT
};

static const char *const UPROP_PATTERNS[UP_COUNT] = {
    "[\\p{Ll}\\p{Lo}\\p{Lm}\\p{Mn}\\p{Mc}\\p{Nd}]",
    "\\p{M}",
    "\\p{sc:Greek}",
    "\\p{sc:Hebrew}",
    "[\\p{sc:Hiragana}\\p{sc:Katakana}\\p{sc:Han}]",
    "[\\p{sc:Arabic}\\p{sc:Syriac}\\p{sc:Nko}\\p{sc:Mongolian}\\p{sc:Mandaic}"
    "\\p{sc:Manichaean}\\p{sc:Psalter_Pahlavi}\\p{sc:Adlam}\\p{sc:Hanifi_Rohingya}"
    "\\p{sc:Sogdian}]",
    "[\\p{Mn}\\p{Me}\\p{Cf}]",
    "\\p{bc:L}",
    "[\\p{bc:R}\\p{bc:AL}]",
    "\\p{bc:AN}",
    "\\p{bc:EN}",
    "\\p{bc:NSM}",
    "[\\p{bc:R}\\p{bc:AL}\\p{bc:AN}\\p{bc:EN}\\p{bc:ES}\\p{bc:CS}\\p{bc:ET}\\p{bc:ON}"
    "\\p{bc:BN}\\p{bc:NSM}]",
    "[\\p{bc:L}\\p{bc:EN}\\p{bc:ES}\\p{bc:CS}\\p{bc:ET}\\p{bc:ON}\\p{bc:BN}\\p{bc:NSM}]",
};

/* Compiled once per process, shared read-only by all threads; never freed (static roots). */
static pcre2_code *uprop_re[UP_COUNT];
static pthread_once_t uprop_once = PTHREAD_ONCE_INIT;

static void uprop_init(void)
{
    for (int i = 0; i < UP_COUNT; i++) {
        int code;
        PCRE2_SIZE off;
        uprop_re[i] = pcre2_compile((PCRE2_SPTR)UPROP_PATTERNS[i], PCRE2_ZERO_TERMINATED,
                                    PCRE2_UTF | PCRE2_ANCHORED, &code, &off, NULL);
    }
}

static bool uprop(int which, uint32_t cp, pcre2_match_data *md)
{
    char u[4];
    int n = js_utf8_put(cp, u);
    if (!uprop_re[which] || !md)
        return false;
    return pcre2_match(uprop_re[which], (PCRE2_SPTR)u, (size_t)n, 0, 0, md, NULL) >= 0;
}

/* ---- IDNA2008 ---- */

static bool is_virama(uint32_t c)
{
    static const uint32_t v[] = {
        0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D3B, 0x0D3C,
        0x0D4D, 0x0DCA, 0x0E3A, 0x0EBA, 0x0F84, 0x1039, 0x103A, 0x1714, 0x1734, 0x17D2,
        0x1A60, 0x1B44, 0x1BAA, 0x1BAB, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA8C4, 0xA953,
        0xA9C0, 0xAAF6, 0xABED, 0x10A3F, 0x11046, 0x1107F, 0x110B9, 0x11133, 0x11134,
        0x111C0, 0x11235, 0x112EA, 0x1134D, 0x11442, 0x114C2, 0x115BF, 0x1163F, 0x116B6,
        0x1172B, 0x11839, 0x119E0, 0x11A34, 0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45,
        0x11D97,
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (v[i] == c)
            return true;
    return false;
}

/* RFC 5892 §2.6 exceptions: 1 PVALID, 0 DISALLOWED, -1 not an exception (CONTEXTO ones are
 * handled by their rules). */
static int idna_exception(uint32_t c)
{
    switch (c) {
    case 0x00DF: case 0x03C2: case 0x06FD: case 0x06FE: case 0x0F0B: case 0x3007:
        return 1;
    case 0x0640: case 0x07FA: case 0x302E: case 0x302F: case 0x3031: case 0x3032:
    case 0x3033: case 0x3034: case 0x3035: case 0x303B:
        return 0;
    default:
        return -1;
    }
}

/* ZERO WIDTH NON-JOINER between joining letters (RFC 5892 appendix A.1, second rule). */
static bool zwnj_joining_ok(const uint32_t *cp, int n, int i, pcre2_match_data *md)
{
    int j = i - 1;
    while (j >= 0 && uprop(UP_TRANSP, cp[j], md))
        j--;
    if (j < 0 || !uprop(UP_JOINING, cp[j], md))
        return false;
    j = i + 1;
    while (j < n && uprop(UP_TRANSP, cp[j], md))
        j++;
    return j < n && uprop(UP_JOINING, cp[j], md);
}

/* Every code point PVALID, or CONTEXTJ/CONTEXTO with its rule satisfied. */
static bool idna_code_points_ok(const uint32_t *cp, int n, pcre2_match_data *md)
{
    bool has_arabic_indic = false, has_ext_arabic_indic = false, has_hkh = false;
    for (int i = 0; i < n; i++) {
        has_arabic_indic |= cp[i] >= 0x0660 && cp[i] <= 0x0669;
        has_ext_arabic_indic |= cp[i] >= 0x06F0 && cp[i] <= 0x06F9;
        if (cp[i] != 0x30FB && uprop(UP_HKH, cp[i], md))
            has_hkh = true;
    }
    if (has_arabic_indic && has_ext_arabic_indic)
        return false;
    for (int i = 0; i < n; i++) {
        uint32_t c = cp[i];
        if (c < 0x80) {
            if (!((c >= 'a' && c <= 'z') || is_digit((int)c) || c == '-'))
                return false;
            continue;
        }
        int ex = idna_exception(c);
        if (ex == 0)
            return false;
        if (ex == 1)
            continue;
        bool ok;
        switch (c) {
        case 0x00B7: /* MIDDLE DOT: between two 'l' */
            ok = i > 0 && i + 1 < n && cp[i - 1] == 'l' && cp[i + 1] == 'l';
            break;
        case 0x0375: /* GREEK KERAIA: followed by Greek */
            ok = i + 1 < n && uprop(UP_GREEK, cp[i + 1], md);
            break;
        case 0x05F3:
        case 0x05F4: /* HEBREW GERESH / GERSHAYIM: preceded by Hebrew */
            ok = i > 0 && uprop(UP_HEBREW, cp[i - 1], md);
            break;
        case 0x30FB: /* KATAKANA MIDDLE DOT: some Hiragana, Katakana or Han in the label */
            ok = has_hkh;
            break;
        case 0x200D: /* ZERO WIDTH JOINER: after a virama */
            ok = i > 0 && is_virama(cp[i - 1]);
            break;
        case 0x200C: /* ZERO WIDTH NON-JOINER */
            ok = (i > 0 && is_virama(cp[i - 1])) || zwnj_joining_ok(cp, n, i, md);
            break;
        default:
            ok = (c >= 0x0660 && c <= 0x0669) || (c >= 0x06F0 && c <= 0x06F9) ||
                 uprop(UP_PVALID, c, md);
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* RFC 5893 Bidi rule for one label of a Bidi domain name. */
static bool bidi_label_ok(const uint32_t *cp, int n, pcre2_match_data *md)
{
    if (n == 0)
        return true;
    bool rtl;
    if (uprop(UP_BC_RAL, cp[0], md))
        rtl = true;
    else if (uprop(UP_BC_L, cp[0], md))
        rtl = false;
    else
        return false;
    bool en = false, an = false;
    for (int i = 0; i < n; i++) {
        if (!uprop(rtl ? UP_BC_RTL_OK : UP_BC_LTR_OK, cp[i], md))
            return false;
        en |= uprop(UP_BC_EN, cp[i], md);
        an |= uprop(UP_BC_AN, cp[i], md);
    }
    if (rtl && en && an)
        return false;
    int last = n - 1;
    while (last > 0 && uprop(UP_BC_NSM, cp[last], md))
        last--;
    if (rtl)
        return uprop(UP_BC_RAL, cp[last], md) || uprop(UP_BC_EN, cp[last], md) ||
               uprop(UP_BC_AN, cp[last], md);
    return uprop(UP_BC_L, cp[last], md) || uprop(UP_BC_EN, cp[last], md);
}

typedef struct idn_label {
    uint32_t cp[MAX_LABEL_CPS];
    int n;
    size_t alen; /* length of the ASCII (A-label or LDH) form */
} idn_label;

/* RFC 5891 §5.4 checks of a U-label (also applied to decoded A-labels). */
static bool ulabel_ok(const idn_label *l, pcre2_match_data *md)
{
    const uint32_t *cp = l->cp;
    int n = l->n;
    if (n == 0 || cp[0] == '-' || cp[n - 1] == '-')
        return false;
    if (n >= 4 && cp[2] == '-' && cp[3] == '-')
        return false;
    if (uprop(UP_MARK, cp[0], md))
        return false;
    return idna_code_points_ok(cp, n, md);
}

static bool ascii_ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (char)(y + 32);
        if (x != y)
            return false;
    }
    return true;
}

/* An all-ASCII label: LDH rules, and A-label decoding when it starts with "xn--". */
static bool ascii_label(const char *s, size_t n, idn_label *l, bool *is_alabel,
                        pcre2_match_data *md)
{
    *is_alabel = false;
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(is_alpha(s[i]) || is_digit(s[i]) || s[i] == '-'))
            return false;
    l->alen = n;
    if (n >= 4 && s[2] == '-' && s[3] == '-') {
        if (!ascii_ieq(s, "xn", 2))
            return false; /* reserved R-LDH label */
        *is_alabel = true;
        l->n = punycode_decode(s + 4, n - 4, l->cp);
        if (l->n <= 0)
            return false;
        bool non_ascii = false;
        for (int i = 0; i < l->n; i++)
            non_ascii |= l->cp[i] >= 0x80;
        if (!non_ascii)
            return false;
        char re[80];
        int rl = punycode_encode(l->cp, l->n, re, sizeof re);
        if (rl < 0 || (size_t)rl != n - 4 || !ascii_ieq(re, s + 4, n - 4))
            return false; /* not the canonical encoding */
        return ulabel_ok(l, md);
    }
    l->n = 0;
    for (size_t i = 0; i < n; i++)
        l->cp[l->n++] = (unsigned char)s[i];
    return true;
}

static bool is_label_sep(uint32_t c, bool idn)
{
    return c == '.' || (idn && (c == 0x3002 || c == 0xFF0E || c == 0xFF61));
}

typedef struct host_ctx {
    bool idn;
    pcre2_match_data *md; /* created on the first label that needs Unicode properties */
} host_ctx;

static pcre2_match_data *host_md(host_ctx *h)
{
    if (!h->md) {
        pthread_once(&uprop_once, uprop_init);
        h->md = pcre2_match_data_create(1, NULL);
    }
    return h->md;
}

/*
 * Reads the label at *pp (up to a separator or the end) into l, checks it, and advances *pp past
 * the label and its separator. *last is set when no separator followed.
 */
static bool read_label(host_ctx *h, const char **pp, idn_label *l, bool *last)
{
    const char *start = *pp, *p = start;
    bool ascii = true;
    size_t seplen = 0;
    while (*p) {
        size_t len;
        uint32_t c = js_utf8_next((const unsigned char *)p, &len);
        if (is_label_sep(c, h->idn)) {
            seplen = len;
            break;
        }
        ascii &= c < 0x80;
        p += len;
    }
    size_t n = (size_t)(p - start);
    *last = seplen == 0;
    *pp = p + seplen;
    if (ascii) {
        bool alabel;
        /* plain LDH labels need no Unicode data: only A-labels get the md */
        bool may_alabel = n >= 4 && start[2] == '-' && start[3] == '-';
        return ascii_label(start, n, l, &alabel, may_alabel ? host_md(h) : NULL);
    }
    if (!h->idn)
        return false;
    l->n = 0;
    for (const char *q = start; q < p;) {
        size_t len;
        if (l->n == MAX_LABEL_CPS)
            return false;
        l->cp[l->n++] = js_utf8_next((const unsigned char *)q, &len);
        q += len;
    }
    char a[80];
    int al = punycode_encode(l->cp, l->n, a, sizeof a);
    l->alen = al < 0 ? 64 : (size_t)al + 4;
    return l->alen <= 63 && ulabel_ok(l, host_md(h));
}

static bool label_is_rtl(const idn_label *l, pcre2_match_data *md)
{
    for (int k = 0; k < l->n; k++)
        if (l->cp[k] >= 0x80 && (uprop(UP_BC_RAL, l->cp[k], md) || uprop(UP_BC_AN, l->cp[k], md)))
            return true;
    return false;
}

/*
 * Host name check shared by hostname and idn-hostname: labels split at dots (and, for IDN, the
 * ideographic full stops), ASCII labels per RFC 1123, U-labels and A-labels per IDNA2008, and the
 * Bidi rule on every label when any label is right-to-left. Total length counts A-label forms.
 */
static bool check_host(const char *s, bool idn)
{
    if (!*s)
        return false;
    host_ctx h = {.idn = idn, .md = NULL};
    idn_label l;
    bool ok = true, last = false, bidi_domain = false;
    size_t total = 0;
    for (const char *p = s; ok && !last;) {
        ok = read_label(&h, &p, &l, &last);
        total += l.alen + (total ? 1 : 0);
        if (ok && h.md && !bidi_domain)
            bidi_domain = label_is_rtl(&l, h.md);
        if (ok && last && total > 253)
            ok = false;
    }
    /* The Bidi rule applies to every label of a domain with an RTL label: a second pass. */
    for (const char *p = s; ok && bidi_domain;) {
        ok = read_label(&h, &p, &l, &last) && bidi_label_ok(l.cp, l.n, h.md);
        if (last)
            break;
    }
    if (h.md)
        pcre2_match_data_free(h.md);
    return ok;
}

/* ---- e-mail (RFC 5321 Mailbox; RFC 6531 with idn) ---- */

static bool is_atext(unsigned char c, bool idn)
{
    if (c >= 0x80)
        return idn;
    return is_alpha(c) || is_digit(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

static bool check_email(const char *s, bool idn)
{
    const char *p = s;
    if (*p == '"') {
        p++;
        while (*p && *p != '"') {
            unsigned char c = (unsigned char)*p;
            if (c == '\\') {
                if (!(p[1] >= 32 && p[1] <= 126))
                    return false;
                p += 2;
                continue;
            }
            if (!((c >= 32 && c <= 126) || (idn && c >= 0x80)))
                return false;
            p++;
        }
        if (*p != '"')
            return false;
        p++;
    } else {
        /* Dot-string: atoms separated by single dots */
        for (;;) {
            const char *a = p;
            while (*p && is_atext((unsigned char)*p, idn))
                p++;
            if (p == a)
                return false;
            if (*p != '.')
                break;
            p++;
        }
    }
    if (*p != '@' || (size_t)(p - s) > 64)
        return false;
    const char *dom = p + 1;
    size_t dl = strlen(dom);
    if (dl > 2 && dom[0] == '[' && dom[dl - 1] == ']') {
        if (strncmp(dom + 1, "IPv6:", 5) == 0)
            return js_ipv6_check(dom + 6, dl - 7);
        return js_ipv4_check(dom + 1, dl - 2);
    }
    return check_host(dom, idn);
}

/* ---- RFC 6570 URI template ---- */

static bool check_pct(const char **p)
{
    if ((*p)[0] == '%' && is_hex((*p)[1]) && is_hex((*p)[2])) {
        *p += 3;
        return true;
    }
    return false;
}

static bool check_varspec(const char **pp)
{
    const char *p = *pp;
    bool need_char = true;
    for (;;) {
        if (is_alpha(*p) || is_digit(*p) || *p == '_') {
            p++;
        } else if (*p == '%') {
            if (!check_pct(&p))
                return false;
        } else if (*p == '.' && !need_char) {
            p++;
            need_char = true;
            continue;
        } else {
            break;
        }
        need_char = false;
    }
    if (need_char)
        return false;
    if (*p == ':') {
        p++;
        if (!(*p >= '1' && *p <= '9'))
            return false;
        int nd = 0;
        while (is_digit(*p)) {
            p++;
            nd++;
        }
        if (nd > 4)
            return false;
    } else if (*p == '*') {
        p++;
    }
    *pp = p;
    return true;
}

static bool check_uri_template(const char *s)
{
    const char *p = s;
    while (*p) {
        unsigned char c = (unsigned char)*p;
        if (c == '{') {
            p++;
            if (*p && strchr("+#./;?&", *p))
                p++;
            for (;;) {
                if (!check_varspec(&p))
                    return false;
                if (*p == ',') {
                    p++;
                    continue;
                }
                break;
            }
            if (*p != '}')
                return false;
            p++;
        } else if (c == '%') {
            if (!check_pct(&p))
                return false;
        } else if (c >= 0x80) {
            size_t len;
            js_utf8_next((const unsigned char *)p, &len);
            p += len;
        } else {
            if (c <= 0x20 || c == 0x7F || strchr("\"<>\\^`{|}", c))
                return false;
            p++;
        }
    }
    return true;
}

/* ---- small ones ---- */

static bool check_uuid(const char *s)
{
    if (strlen(s) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s[i]))
            return false;
    }
    return true;
}

static bool check_json_pointer(const char *s)
{
    if (*s && *s != '/')
        return false;
    for (; *s; s++)
        if (*s == '~' && s[1] != '0' && s[1] != '1')
            return false;
    return true;
}

static bool check_relative_json_pointer(const char *s)
{
    if (!is_digit(*s))
        return false;
    if (*s == '0' && is_digit(s[1]))
        return false;
    while (is_digit(*s))
        s++;
    if (*s == '#')
        return s[1] == '\0';
    return check_json_pointer(s);
}

static bool check_ipv4(const char *s)
{
    return js_ipv4_check(s, strlen(s));
}

static bool check_ipv6(const char *s)
{
    return js_ipv6_check(s, strlen(s));
}

static const struct {
    const char *name;
    int id;
} FORMATS[] = {
    {"date-time", JS_FMT_DATE_TIME},
    {"date", JS_FMT_DATE},
    {"time", JS_FMT_TIME},
    {"duration", JS_FMT_DURATION},
    {"email", JS_FMT_EMAIL},
    {"idn-email", JS_FMT_IDN_EMAIL},
    {"hostname", JS_FMT_HOSTNAME},
    {"idn-hostname", JS_FMT_IDN_HOSTNAME},
    {"ipv4", JS_FMT_IPV4},
    {"ipv6", JS_FMT_IPV6},
    {"uri", JS_FMT_URI},
    {"uri-reference", JS_FMT_URI_REFERENCE},
    {"iri", JS_FMT_IRI},
    {"iri-reference", JS_FMT_IRI_REFERENCE},
    {"uri-template", JS_FMT_URI_TEMPLATE},
    {"uuid", JS_FMT_UUID},
    {"json-pointer", JS_FMT_JSON_POINTER},
    {"relative-json-pointer", JS_FMT_RELATIVE_JSON_POINTER},
    {"regex", JS_FMT_REGEX},
};

int js_format_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof *FORMATS; i++)
        if (strcmp(FORMATS[i].name, name) == 0)
            return FORMATS[i].id;
    return JS_FMT_UNKNOWN;
}

bool js_format_check_id(int id, const char *v)
{
    switch (id) {
    case JS_FMT_DATE_TIME: return check_date_time(v);
    case JS_FMT_DATE: return check_date(v);
    case JS_FMT_TIME: return check_time(v);
    case JS_FMT_DURATION: return check_duration(v);
    case JS_FMT_EMAIL: return check_email(v, false);
    case JS_FMT_IDN_EMAIL: return check_email(v, true);
    case JS_FMT_HOSTNAME: return check_host(v, false);
    case JS_FMT_IDN_HOSTNAME: return check_host(v, true);
    case JS_FMT_IPV4: return check_ipv4(v);
    case JS_FMT_IPV6: return check_ipv6(v);
    case JS_FMT_URI: return js_uri_check(v, JS_URI_ABSOLUTE);
    case JS_FMT_URI_REFERENCE: return js_uri_check(v, 0);
    case JS_FMT_IRI: return js_uri_check(v, JS_URI_ABSOLUTE | JS_URI_IRI);
    case JS_FMT_IRI_REFERENCE: return js_uri_check(v, JS_URI_IRI);
    case JS_FMT_URI_TEMPLATE: return check_uri_template(v);
    case JS_FMT_UUID: return check_uuid(v);
    case JS_FMT_JSON_POINTER: return check_json_pointer(v);
    case JS_FMT_RELATIVE_JSON_POINTER: return check_relative_json_pointer(v);
    case JS_FMT_REGEX: return js_regex_valid(v);
    default: return true;
    }
}

bool js_format_check(const char *format, const char *value)
{
    if (!format || !value)
        return true;
    return js_format_check_id(js_format_lookup(format), value);
}
