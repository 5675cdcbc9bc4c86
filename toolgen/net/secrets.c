/* secrets.c — credentials out of outgoing text (secrets.h). */
#include "net/secrets.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "net/redact.h"

static bool token_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-';
}

/* The length of a prefixed token at s (0: none): a known prefix at a word start, then at least
 * the prefix's minimum of token characters. */
static size_t prefixed_token(const char *start, const char *s)
{
    static const struct { const char *prefix; size_t min; } known[] = {
        {"sk-", 20}, {"sk_live_", 16}, {"sk_test_", 16}, {"rk_live_", 16}, {"pk_live_", 16},
        {"ghp_", 30}, {"gho_", 30}, {"ghs_", 30}, {"ghu_", 30}, {"ghr_", 30},
        {"github_pat_", 30}, {"xoxb-", 10}, {"xoxp-", 10}, {"xoxa-", 10}, {"xoxs-", 10},
        {"AKIA", 16}, {"ASIA", 16}, {"AIza", 30}, {"glpat-", 20}, {"hf_", 30},
        {"npm_", 30}, {"pypi-", 30}};
    if (s > start && token_char((unsigned char)s[-1]))
        return 0;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        size_t p = strlen(known[i].prefix);
        if (strncmp(s, known[i].prefix, p) != 0)
            continue;
        size_t n = p;
        while (token_char((unsigned char)s[n]))
            n++;
        if (n - p >= known[i].min)
            return n;
    }
    return 0;
}

/* A JSON Web Token at s: eyJ... three base64url parts joined by dots. */
static size_t jwt(const char *start, const char *s)
{
    if (strncmp(s, "eyJ", 3) != 0 || (s > start && token_char((unsigned char)s[-1])))
        return 0;
    size_t n = 0;
    int dots = 0;
    while (token_char((unsigned char)s[n]) || (s[n] == '.' && dots < 2 && ++dots))
        n++;
    return dots == 2 && n >= 30 ? n : 0;
}

/* A private-key block at s, through the end of its END line (or of the text). */
static size_t key_block(const char *s)
{
    if (strncmp(s, "-----BEGIN ", 11) != 0)
        return 0;
    const char *eol = strchr(s, '\n');
    const char *kind = strstr(s, "PRIVATE KEY-----");
    if (!kind || (eol && kind > eol))
        return 0;
    const char *end = strstr(s, "-----END ");
    if (!end)
        return strlen(s);
    const char *close = strstr(end + 9, "-----");
    return close ? (size_t)(close + 5 - s) : strlen(s);
}

/* Whether the identifier ending at s (exclusive) names a secret. */
static bool secret_name(const char *start, const char *s)
{
    static const char *const words[] = {"password", "passwd", "secret", "token", "api_key",
                                        "apikey", "api-key", "access_key", "private_key",
                                        "client_secret", "auth_token", "authorization",
                                        "bearer", "credential", NULL};
    /* names that hold a word above and are not secrets: an author, a tokenizer, a token count */
    static const char *const not[] = {"tokeniz", "tokens", "token_type", "token_count", NULL};
    const char *b = s;
    while (b > start && (token_char((unsigned char)b[-1]) || b[-1] == '.'))
        b--;
    char name[64];
    size_t n = (size_t)(s - b);
    if (n == 0 || n >= sizeof name)
        return false;
    for (size_t i = 0; i < n; i++)
        name[i] = (char)tolower((unsigned char)b[i]);
    name[n] = '\0';
    for (size_t i = 0; not[i]; i++)
        if (strstr(name, not[i]))
            return false;
    for (size_t i = 0; words[i]; i++)
        if (strstr(name, words[i]))
            return true;
    return false;
}

/*
 * An assignment of a literal to a secret name at s (s at the name's end, quote included):
 * `name = "value"`, `name: 'value'`, `"name": "value"`, `NAME=value`. Sets *v and *vlen to
 * the value to replace; false when there is none (a call, a short value, a placeholder).
 */
static bool assigned_value(const char *start, const char *s, const char **v, size_t *vlen)
{
    const char *name_end = s;
    if ((*s == '"' || *s == '\'') && s > start)
        s++;
    else if (s == start || !token_char((unsigned char)s[-1])) /* a name ends before s */
        return false;
    if (!secret_name(start, name_end))
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == ':' || *s == '=')
        s += (s[0] == '=' && s[1] == '>') ? 2 : 1;
    else
        return false;
    if (*s == '=') /* ==: a comparison */
        return false;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '"' || *s == '\'') {
        const char *close = strchr(s + 1, *s);
        const char *eol = strchr(s + 1, '\n');
        if (!close || (eol && eol < close) || close - s - 1 < 6)
            return false;
        *v = s + 1;
        *vlen = (size_t)(close - s - 1);
        return true;
    }
    size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./+=");
    if (n < 8 || s[n] == '(' || s[n] == '.' || s[n] == '[')
        return false;
    *v = s;
    *vlen = n;
    return true;
}

/* A password in a URL's userinfo at s ("://user:pw@"): sets *v, *vlen. */
static bool url_password(const char *s, const char **v, size_t *vlen)
{
    if (strncmp(s, "://", 3) != 0)
        return false;
    const char *u = s + 3;
    size_t n = strcspn(u, "/?# \t\n\"'@");
    if (u[n] != '@')
        return false;
    const char *colon = memchr(u, ':', n);
    if (!colon || colon + 1 == u + n)
        return false;
    *v = colon + 1;
    *vlen = (size_t)(u + n - colon - 1);
    return true;
}

static void mark(tg_buf *b, tg_strv *secrets, const char *v, size_t n)
{
    tg_strv_push(secrets, "");
    free(secrets->v[secrets->n - 1]);
    secrets->v[secrets->n - 1] = xstrndup(v, n);
    tg_buf_printf(b, TG_SECRET_MARK "%zu]", secrets->n);
}

char *tg_secrets_redact(const char *text, tg_strv *secrets)
{
    tg_buf b = TG_BUF_INIT;
    const char *s = text;
    while (*s) {
        size_t n = key_block(s);
        if (!n)
            n = prefixed_token(text, s);
        if (!n)
            n = jwt(text, s);
        if (n) {
            mark(&b, secrets, s, n);
            s += n;
            continue;
        }
        const char *v;
        size_t vlen;
        if (url_password(s, &v, &vlen) || assigned_value(text, s, &v, &vlen)) {
            tg_buf_append(&b, s, (size_t)(v - s));
            mark(&b, secrets, v, vlen);
            s = v + vlen;
            continue;
        }
        tg_buf_append(&b, s, 1);
        s++;
    }
    return tg_buf_steal(&b);
}

char *tg_secrets_restore(const char *text, const tg_strv *secrets)
{
    tg_buf b = TG_BUF_INIT;
    const char *s = text, *m;
    size_t k = strlen(TG_SECRET_MARK);
    while ((m = strstr(s, TG_SECRET_MARK)) != NULL) {
        char *end;
        unsigned long i = strtoul(m + k, &end, 10);
        bool ours = end > m + k && *end == ']' && i >= 1 && i <= secrets->n;
        tg_buf_append(&b, s, (size_t)(m - s));
        if (ours)
            tg_buf_puts(&b, secrets->v[i - 1]);
        else
            tg_buf_append(&b, m, k);
        s = ours ? end + 1 : m + k;
    }
    tg_buf_puts(&b, s);
    return tg_buf_steal(&b);
}
