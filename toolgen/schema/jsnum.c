/* jsnum.c — exact decimal comparisons, multipleOf and equality for the schema validator. */
#include "schema/jsnum.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Exponents beyond this are clamped: no JSON text can be long enough for the difference to matter
 * (a literal would need ~1e15 digits to reach them). */
#define EXP_CLAMP 1000000000000000L

static void dec_zero(js_dec *d)
{
    d->neg = false;
    d->dig = d->inl;
    d->nd = 0;
    d->exp = 0;
    d->heap = NULL;
    d->inl[0] = '\0';
}

bool js_dec_parse(js_dec *d, const char *text)
{
    dec_zero(d);
    const char *p = text;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    } else if (*p == '+') {
        p++;
    }
    const char *ip = p;
    while (*p >= '0' && *p <= '9')
        p++;
    size_t ni = (size_t)(p - ip);
    const char *fp = p;
    size_t nf = 0;
    if (*p == '.') {
        fp = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        nf = (size_t)(p - fp);
    }
    if (ni + nf == 0)
        return false;
    long e = 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        bool eneg = false;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9') {
            if (e < EXP_CLAMP)
                e = e * 10 + (*p - '0');
            p++;
        }
        if (eneg)
            e = -e;
    }
    if (*p != '\0')
        return false;

    /* Collect the significant digits: skip leading zeros, then drop trailing zeros. */
    size_t total = ni + nf, k = 0;
    char *out = total < sizeof d->inl ? d->inl : (d->heap = xmalloc(total + 1));
    long int_digits_left = 0; /* integer-part digits kept so far, to place the decimal point */
    bool started = false;
    long lead_frac_zeros = 0;
    for (size_t i = 0; i < total; i++) {
        char c = i < ni ? ip[i] : fp[i - ni];
        if (!started && c == '0') {
            if (i >= ni)
                lead_frac_zeros++;
            continue;
        }
        started = true;
        out[k++] = c;
        if (i < ni)
            int_digits_left++;
    }
    while (k > 0 && out[k - 1] == '0')
        k--;
    out[k] = '\0';
    d->dig = out;
    d->nd = k;
    if (k == 0) {
        d->exp = 0;
        return true;
    }
    d->neg = neg;
    /* 0.d1d2... * 10^exp: the point sits after the integer digits, or before the fraction's
     * leading zeros when the integer part is all zeros. */
    long pos = int_digits_left > 0 ? int_digits_left : -lead_frac_zeros;
    long ex = pos + e;
    if (ex > EXP_CLAMP)
        ex = EXP_CLAMP;
    if (ex < -EXP_CLAMP)
        ex = -EXP_CLAMP;
    d->exp = ex;
    return true;
}

void js_dec_free(js_dec *d)
{
    free(d->heap);
    d->heap = NULL;
}

static int mag_cmp(const js_dec *a, const js_dec *b)
{
    if (a->exp != b->exp)
        return a->exp < b->exp ? -1 : 1;
    size_t n = a->nd < b->nd ? a->nd : b->nd;
    int c = memcmp(a->dig, b->dig, n);
    if (c)
        return c < 0 ? -1 : 1;
    if (a->nd == b->nd)
        return 0;
    return a->nd < b->nd ? -1 : 1; /* the longer one has more non-zero digits */
}

int js_dec_cmp(const js_dec *a, const js_dec *b)
{
    int sa = a->nd == 0 ? 0 : a->neg ? -1 : 1;
    int sb = b->nd == 0 ? 0 : b->neg ? -1 : 1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    int m = mag_cmp(a, b);
    return sa > 0 ? m : -m;
}

bool js_dec_is_integer(const js_dec *d)
{
    return d->nd == 0 || d->exp >= (long)d->nd;
}

/* a*b mod m for a, b < m < 2^62, without 128-bit types. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    uint64_t r = 0;
    a %= m;
    while (b) {
        if (b & 1)
            r = (r + a) % m;
        a = (a << 1) % m;
        b >>= 1;
    }
    return r;
}

static uint64_t pow10mod(long e, uint64_t m)
{
    uint64_t r = 1 % m, base = 10 % m;
    while (e > 0) {
        if (e & 1)
            r = mulmod(r, base, m);
        base = mulmod(base, base, m);
        e >>= 1;
    }
    return r;
}

int js_dec_multiple_of(const js_dec *x, const js_dec *m)
{
    if (x->nd == 0)
        return 1;
    if (m->nd == 0)
        return 0;
    if (m->nd > 18)
        return -1;
    /* x = X * 10^a, m = M * 10^b with X, M integers without trailing zeros. x/m is an integer iff
     * X * 10^(a-b) is divisible by M; when a < b that needs 10^(b-a) | X, impossible since X
     * does not end in 0. */
    long a = x->exp - (long)x->nd, b = m->exp - (long)m->nd;
    if (a < b)
        return 0;
    uint64_t M = 0;
    for (size_t i = 0; i < m->nd; i++)
        M = M * 10 + (uint64_t)(m->dig[i] - '0');
    uint64_t r = 0;
    for (size_t i = 0; i < x->nd; i++)
        r = (r * 10 + (uint64_t)(x->dig[i] - '0')) % M;
    r = mulmod(r, pow10mod(a - b, M), M);
    return r == 0;
}

/* ---- number nodes ---- */

static const char *shortest(double v, char buf[40])
{
    if (isinf(v))
        return v > 0 ? "1e999" : "-1e999";
    if (isnan(v))
        return "0";
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 40, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

const char *js_num_text(const cJSON *n, char buf[40])
{
    if (n->valuestring && n->valuestring[0])
        return n->valuestring;
    return shortest(n->valuedouble, buf);
}

/* Literal without fraction or exponent: an integer whatever its size. */
static bool plain_int_literal(const char *t)
{
    if (*t == '-')
        t++;
    if (!*t)
        return false;
    for (; *t; t++)
        if (*t < '0' || *t > '9')
            return false;
    return true;
}

bool js_num_is_integer(const cJSON *n)
{
    const char *t = n->valuestring;
    if (t && t[0]) {
        if (plain_int_literal(t))
            return true;
        js_dec d;
        if (js_dec_parse(&d, t)) {
            bool r = js_dec_is_integer(&d);
            js_dec_free(&d);
            return r;
        }
    }
    double v = n->valuedouble;
    return isfinite(v) && floor(v) == v;
}

static bool has_literal(const cJSON *n)
{
    return n->valuestring && n->valuestring[0];
}

int js_num_cmp(const cJSON *a, const cJSON *b)
{
    double x = a->valuedouble, y = b->valuedouble;
    /* Rounding to double is monotonic: distinct doubles order their exact values correctly. */
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    if (!has_literal(a) && !has_literal(b))
        return 0;
    char ba[40], bb[40];
    js_dec da, db;
    if (!js_dec_parse(&da, js_num_text(a, ba)))
        return 0;
    if (!js_dec_parse(&db, js_num_text(b, bb))) {
        js_dec_free(&da);
        return 0;
    }
    int c = js_dec_cmp(&da, &db);
    js_dec_free(&da);
    js_dec_free(&db);
    return c;
}

/* The value as an int64 when it is an exact integer below 2^53, for the cheap multipleOf path. */
static bool small_int(const cJSON *n, long long *out)
{
    double v = n->valuedouble;
    if (!(fabs(v) < 9007199254740992.0) || floor(v) != v)
        return false;
    if (has_literal(n) && !plain_int_literal(n->valuestring))
        return false;
    *out = (long long)v;
    return true;
}

bool js_num_multiple_of(const cJSON *a, const cJSON *b)
{
    long long x, y;
    if (small_int(a, &x) && small_int(b, &y) && y != 0)
        return x % y == 0;
    char ba[40], bb[40];
    js_dec dx, dm;
    int r = -1;
    if (js_dec_parse(&dx, js_num_text(a, ba))) {
        if (js_dec_parse(&dm, js_num_text(b, bb))) {
            r = js_dec_multiple_of(&dx, &dm);
            js_dec_free(&dm);
        }
        js_dec_free(&dx);
    }
    if (r >= 0)
        return r == 1;
    double q = a->valuedouble / b->valuedouble;
    return isfinite(q) && floor(q) == q;
}

/* ---- equality and hashing ---- */

bool js_json_equal(const cJSON *a, const cJSON *b)
{
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta != tb)
        return false;
    switch (ta) {
    case cJSON_Number:
        return js_num_cmp(a, b) == 0;
    case cJSON_String:
    case cJSON_Raw:
        return a->valuestring && b->valuestring && strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_Array: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!js_json_equal(x, y))
                return false;
        return !x && !y;
    }
    case cJSON_Object: {
        size_t na = 0, nb = 0;
        for (const cJSON *x = a->child; x; x = x->next)
            na++;
        for (const cJSON *y = b->child; y; y = y->next)
            nb++;
        if (na != nb)
            return false;
        for (const cJSON *x = a->child; x; x = x->next) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (!y || !js_json_equal(x, y))
                return false;
        }
        return true;
    }
    default:
        return true; /* null, true, false */
    }
}

static unsigned long long fnv(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static unsigned long long mix(unsigned long long h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

unsigned long long js_json_hash(const cJSON *v)
{
    int t = v->type & 0xFF;
    unsigned long long h = (unsigned long long)t * 0x9E3779B97F4A7C15ULL;
    switch (t) {
    case cJSON_Number: {
        double d = v->valuedouble;
        if (d == 0)
            d = 0; /* -0 == 0 */
        unsigned long long bits;
        memcpy(&bits, &d, sizeof bits);
        return mix(h ^ bits);
    }
    case cJSON_String:
    case cJSON_Raw:
        return mix(h ^ fnv(v->valuestring));
    case cJSON_Array:
        for (const cJSON *x = v->child; x; x = x->next)
            h = mix(h * 31 + js_json_hash(x));
        return h;
    case cJSON_Object: {
        unsigned long long sum = 0; /* order-independent */
        for (const cJSON *x = v->child; x; x = x->next)
            sum += mix(fnv(x->string) * 31 + js_json_hash(x));
        return mix(h ^ sum);
    }
    default:
        return mix(h);
    }
}
