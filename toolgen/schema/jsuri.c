/* jsuri.c — RFC 3986 splitting, resolution and syntax checks. */
#include "schema/jsuri.h"

#include <string.h>

#include "base/buf.h"
#include "schema/jsutf8.h"
#include "base/util.h"

void js_uri_split(const char *s, js_uri *u)
{
    memset(u, 0, sizeof *u);
    const char *p = s;
    /* scheme: a run of characters other than ":/?#" ended by ':' */
    const char *q = p;
    while (*q && !strchr(":/?#", *q))
        q++;
    if (*q == ':' && q > p) {
        u->scheme = p;
        u->scheme_len = (size_t)(q - p);
        p = q + 1;
    }
    if (p[0] == '/' && p[1] == '/') {
        p += 2;
        q = p;
        while (*q && !strchr("/?#", *q))
            q++;
        u->auth = p;
        u->auth_len = (size_t)(q - p);
        p = q;
    }
    q = p;
    while (*q && *q != '?' && *q != '#')
        q++;
    u->path = p;
    u->path_len = (size_t)(q - p);
    p = q;
    if (*p == '?') {
        q = ++p;
        while (*q && *q != '#')
            q++;
        u->query = p;
        u->query_len = (size_t)(q - p);
        p = q;
    }
    if (*p == '#') {
        u->frag = p + 1;
        u->frag_len = strlen(p + 1);
    }
}

/* RFC 3986 §5.2.4, on a NUL-terminated copy; the result is written into out. */
static void remove_dot_segments(const char *in, tg_buf *out)
{
    tg_buf_reset(out);
    tg_buf_puts(out, "");
    while (*in) {
        if (strncmp(in, "../", 3) == 0) {
            in += 3;
        } else if (strncmp(in, "./", 2) == 0) {
            in += 2;
        } else if (strncmp(in, "/./", 3) == 0) {
            in += 2;
        } else if (strcmp(in, "/.") == 0) {
            in = "/";
        } else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0) {
            in = in[3] ? in + 3 : "/";
            char *slash = strrchr(out->data, '/');
            tg_buf_truncate(out, slash ? (size_t)(slash - out->data) : 0);
        } else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0) {
            in += strlen(in);
        } else {
            const char *next = strchr(in + 1, '/');
            size_t n = next ? (size_t)(next - in) : strlen(in);
            tg_buf_append(out, in, n);
            in += n;
        }
    }
}

static void put_part(tg_buf *b, const char *pre, const char *s, size_t n)
{
    if (!s)
        return;
    tg_buf_puts(b, pre);
    tg_buf_append(b, s, n);
}

char *js_uri_resolve(const char *base, const char *ref)
{
    js_uri b, r;
    js_uri_split(base, &b);
    js_uri_split(ref, &r);
    tg_buf path = TG_BUF_INIT, tmp = TG_BUF_INIT, out = TG_BUF_INIT;
    const js_uri *auth_from, *query_from;
    const char *scheme;
    size_t scheme_len;
    if (r.scheme) {
        scheme = r.scheme;
        scheme_len = r.scheme_len;
        auth_from = query_from = &r;
        tg_buf_append(&tmp, r.path, r.path_len);
        remove_dot_segments(tmp.data, &path);
    } else {
        scheme = b.scheme;
        scheme_len = b.scheme_len;
        if (r.auth) {
            auth_from = query_from = &r;
            tg_buf_append(&tmp, r.path, r.path_len);
            remove_dot_segments(tmp.data, &path);
        } else {
            auth_from = &b;
            if (r.path_len == 0) {
                tg_buf_append(&path, b.path, b.path_len);
                query_from = r.query ? &r : &b;
            } else {
                query_from = &r;
                if (r.path[0] == '/') {
                    tg_buf_append(&tmp, r.path, r.path_len);
                } else if (b.auth && b.path_len == 0) {
                    tg_buf_putc(&tmp, '/');
                    tg_buf_append(&tmp, r.path, r.path_len);
                } else {
                    size_t keep = b.path_len;
                    while (keep > 0 && b.path[keep - 1] != '/')
                        keep--;
                    tg_buf_append(&tmp, b.path, keep);
                    tg_buf_append(&tmp, r.path, r.path_len);
                }
                remove_dot_segments(tmp.data, &path);
            }
        }
    }
    if (scheme) {
        tg_buf_append(&out, scheme, scheme_len);
        tg_buf_putc(&out, ':');
    }
    put_part(&out, "//", auth_from->auth, auth_from->auth_len);
    if (path.len)
        tg_buf_append(&out, path.data, path.len);
    put_part(&out, "?", query_from->query, query_from->query_len);
    put_part(&out, "#", r.frag, r.frag_len);
    tg_buf_puts(&out, "");
    tg_buf_free(&path);
    tg_buf_free(&tmp);
    return tg_buf_steal(&out);
}

char *js_uri_strip_fragment(const char *uri, const char **frag)
{
    const char *h = strchr(uri, '#');
    if (frag)
        *frag = h ? h + 1 : NULL;
    return h ? xstrndup(uri, (size_t)(h - uri)) : xstrdup(uri);
}

char *js_uri_pct_decode(const char *s)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "");
    for (; *s; s++) {
        if (*s != '%') {
            tg_buf_putc(&b, *s);
            continue;
        }
        int h = tg_hexval(s[1]), l = h >= 0 ? tg_hexval(s[2]) : -1;
        if (h < 0 || l < 0) {
            tg_buf_free(&b);
            return NULL;
        }
        tg_buf_putc(&b, (char)(h * 16 + l));
        s += 2;
    }
    return tg_buf_steal(&b);
}

/* ---- syntax checks ---- */

static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_unreserved(int c)
{
    return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static bool is_subdelim(int c)
{
    return c && strchr("!$&'()*+,;=", c) != NULL;
}

/* RFC 3987 ucschar, and iprivate (allowed in the query only). */
static bool is_ucschar(uint32_t c)
{
    if ((c >= 0xA0 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFEF))
        return true;
    if (c >= 0x10000 && c <= 0xEFFFD)
        return (c & 0xFFFF) <= 0xFFFD;
    return false;
}

static bool is_iprivate(uint32_t c)
{
    return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) ||
           (c >= 0x100000 && c <= 0x10FFFD);
}

/*
 * Checks s[0..n) as a run of unreserved / pct-encoded / sub-delims plus the characters in
 * `extra`; with iri, ucschar too (and iprivate when private_ok).
 */
static bool check_chars(const char *s, size_t n, const char *extra, bool iri, bool private_ok)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n || tg_hexval(s[i + 1]) < 0 || tg_hexval(s[i + 2]) < 0)
                return false;
            i += 3;
            continue;
        }
        if (c >= 0x80) {
            size_t len;
            uint32_t cp = js_utf8_next((const unsigned char *)s + i, &len);
            if (!iri || !(is_ucschar(cp) || (private_ok && is_iprivate(cp))))
                return false;
            i += len;
            continue;
        }
        if (!(is_unreserved(c) || is_subdelim(c) || (c && strchr(extra, c))))
            return false;
        i++;
    }
    return true;
}

bool js_ipv4_check(const char *s, size_t n)
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= n || s[i] != '.')
                return false;
            i++;
        }
        size_t start = i;
        int v = 0;
        while (i < n && is_digit(s[i]) && i - start < 3)
            v = v * 10 + (s[i++] - '0');
        size_t len = i - start;
        if (len == 0 || v > 255 || (len > 1 && s[start] == '0'))
            return false;
    }
    return i == n;
}

bool js_ipv6_check(const char *s, size_t n)
{
    size_t i = 0;
    int groups = 0;
    bool dbl = false;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        dbl = true;
        i = 2;
        if (i == n)
            return true;
    } else if (n > 0 && s[0] == ':') {
        return false;
    }
    for (;;) {
        size_t start = i;
        while (i < n && s[i] != ':' && s[i] != '.')
            i++;
        if (i < n && s[i] == '.') {
            /* embedded IPv4: must be the last part */
            if (!js_ipv4_check(s + start, n - start))
                return false;
            groups += 2;
            break;
        }
        size_t len = i - start;
        if (len == 0 || len > 4)
            return false;
        for (size_t k = start; k < i; k++)
            if (tg_hexval(s[k]) < 0)
                return false;
        groups++;
        if (i == n)
            break;
        i++; /* ':' */
        if (i < n && s[i] == ':') {
            if (dbl)
                return false;
            dbl = true;
            i++;
            if (i == n)
                break;
        } else if (i == n) {
            return false;
        }
        if (groups > 8)
            return false;
    }
    return dbl ? groups <= 7 : groups == 8;
}

static bool check_ip_literal(const char *s, size_t n)
{
    if (n > 0 && (s[0] == 'v' || s[0] == 'V')) {
        size_t i = 1;
        while (i < n && tg_hexval(s[i]) >= 0)
            i++;
        if (i == 1 || i >= n || s[i] != '.' || i + 1 >= n)
            return false;
        return check_chars(s + i + 1, n - i - 1, ":", false, false);
    }
    return js_ipv6_check(s, n);
}

static bool check_authority(const char *a, size_t n, bool iri)
{
    const char *at = memchr(a, '@', n);
    if (at) {
        if (!check_chars(a, (size_t)(at - a), ":", iri, false))
            return false;
        n -= (size_t)(at + 1 - a);
        a = at + 1;
    }
    size_t hl;
    if (n > 0 && a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (!close || !check_ip_literal(a + 1, (size_t)(close - a - 1)))
            return false;
        hl = (size_t)(close - a) + 1;
    } else {
        const char *colon = memchr(a, ':', n);
        hl = colon ? (size_t)(colon - a) : n;
        if (!check_chars(a, hl, "", iri, false))
            return false;
    }
    if (hl < n) {
        if (a[hl] != ':')
            return false;
        for (size_t i = hl + 1; i < n; i++)
            if (!is_digit(a[i]))
                return false;
    }
    return true;
}

bool js_uri_check(const char *s, int flags)
{
    bool iri = flags & JS_URI_IRI;
    const char *p = s;
    bool has_scheme = false;
    if (is_alpha(*p)) {
        const char *q = p + 1;
        while (is_alpha(*q) || is_digit(*q) || *q == '+' || *q == '-' || *q == '.')
            q++;
        if (*q == ':') {
            has_scheme = true;
            p = q + 1;
        }
    }
    if (!has_scheme && (flags & JS_URI_ABSOLUTE))
        return false;
    /* The rest: authority, path, query, fragment (no second scheme detection). */
    const char *q = p;
    const char *auth = NULL;
    size_t auth_len = 0;
    if (q[0] == '/' && q[1] == '/') {
        auth = q + 2;
        const char *e = auth;
        while (*e && !strchr("/?#", *e))
            e++;
        auth_len = (size_t)(e - auth);
        q = e;
    }
    const char *path = q;
    while (*q && *q != '?' && *q != '#')
        q++;
    size_t path_len = (size_t)(q - path);
    if (auth && !check_authority(auth, auth_len, iri))
        return false;
    if (!check_chars(path, path_len, ":@/", iri, false))
        return false;
    if (!has_scheme && !auth && path_len > 0 && path[0] != '/') {
        /* path-noscheme: no ':' in the first segment */
        const char *slash = memchr(path, '/', path_len);
        size_t seg = slash ? (size_t)(slash - path) : path_len;
        if (memchr(path, ':', seg))
            return false;
    }
    if (*q == '?') {
        const char *qs = ++q;
        while (*q && *q != '#')
            q++;
        if (!check_chars(qs, (size_t)(q - qs), ":@/?", iri, iri))
            return false;
    }
    if (*q == '#') {
        q++;
        if (!check_chars(q, strlen(q), ":@/?", iri, false))
            return false;
    }
    return true;
}
