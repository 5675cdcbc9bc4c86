/* redact.c — secrets out of URLs and echoed text (redact.h). */
#include "net/redact.h"

#include <string.h>

/* Appends len bytes of s to out[*k..n), keeping room for the NUL. */
static void put(char *out, size_t n, size_t *k, const char *s, size_t len)
{
    while (len-- > 0 && *k + 1 < n)
        out[(*k)++] = *s++;
}

/* The authority of url: after "scheme://" (when the scheme comes before any '/', '?' or '#':
 * a "://" in the path or the query is no scheme), up to the path, query or fragment. */
static const char *authority(const char *url, size_t *len)
{
    const char *scheme = strstr(url, "://");
    const char *auth = scheme && scheme < url + strcspn(url, "/?#") ? scheme + 3 : url;
    *len = strcspn(auth, "/?#");
    return auth;
}

size_t tg_url_userinfo(const char *url, const char **start)
{
    size_t alen;
    const char *auth = authority(url, &alen);
    const char *at = NULL;
    for (const char *p = auth; p < auth + alen; p++)
        if (*p == '@')
            at = p; /* the last '@' of the authority ends the userinfo */
    *start = auth;
    return at ? (size_t)(at - auth) + 1 : 0;
}

char *tg_url_redact(const char *url, char *out, size_t n)
{
    if (n == 0)
        return out;
    size_t k = 0;
    const char *auth;
    size_t ulen = tg_url_userinfo(url, &auth);
    put(out, n, &k, url, (size_t)(auth - url));
    if (ulen) {
        put(out, n, &k, "***", 3);
        auth += ulen - 1; /* at the '@' */
    }
    const char *q = auth + strcspn(auth, "?#");
    put(out, n, &k, auth, (size_t)(q - auth));
    if (*q == '?') {
        const char *end = q + strcspn(q, "#");
        for (const char *p = q; p < end;) { /* p at '?' or '&' */
            size_t field = strcspn(p + 1, "&#") + 1;
            const char *eq = memchr(p, '=', field);
            put(out, n, &k, p, eq ? (size_t)(eq - p) + 1 : field);
            if (eq)
                put(out, n, &k, "***", 3);
            p += field;
        }
    }
    out[k] = 0;
    return out;
}

void tg_secret_mask(char *text, const char *secret)
{
    size_t n = secret ? strlen(secret) : 0;
    if (!text || n < 4)
        return;
    for (char *p = text; (p = strstr(p, secret)) != NULL; p += 3) {
        memcpy(p, "***", 3);
        memmove(p + 3, p + n, strlen(p + n) + 1);
    }
}
