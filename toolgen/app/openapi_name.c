/*
 * openapi_name.c — tool and property names of `toolgen init --from-openapi` (openapi_int.h).
 *
 * Names must work in every client (^[a-zA-Z0-9_-]{1,64}$) and leave room for the prefix a
 * client puts before them, hence the budget (docs/cli.md#init-from-openapi). Shortening and
 * collisions are resolved by a hash of the full name or of the operation, never by the order
 * of a list, so a name does not change when another operation is added.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/openapi_int.h"
#include "base/buf.h"
#include "base/hash.h"

/* snake_case of s: words split at non-alphanumerics and at case changes (getHTTPServer →
 * get_http_server), lowercase, single underscores, none at the ends. */
static void snake(tg_buf *b, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch) || ch > 127) {
            if (b->len && b->data[b->len - 1] != '_')
                tg_buf_putc(b, '_');
            continue;
        }
        unsigned char prev = i ? (unsigned char)s[i - 1] : 0;
        unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        bool boundary = isupper(ch) && i > 0 &&
                        (islower(prev) || isdigit(prev) || (isupper(prev) && islower(next)));
        if (boundary && b->len && b->data[b->len - 1] != '_')
            tg_buf_putc(b, '_');
        tg_buf_putc(b, (char)tolower(ch));
    }
    while (b->len && b->data[b->len - 1] == '_')
        tg_buf_truncate(b, b->len - 1);
}

static bool taken_has(const tg_strv *taken, const char *s)
{
    return taken->n && tg_strlist_has((const char *const *)taken->v, s);
}

static void hash8(char out[9], const char *s)
{
    tg_hash h = tg_hash_bytes(s, strlen(s));
    snprintf(out, 9, "%08x", (unsigned)(h.hi >> 32));
}

/* s cut to keep characters and trailing '_' removed, then "_" and the hash of what. */
static char *cut_with_hash(const char *s, size_t keep, const char *what)
{
    char h[9];
    hash8(h, what);
    size_t n = strlen(s) < keep ? strlen(s) : keep;
    while (n > 0 && s[n - 1] == '_')
        n--;
    return xasprintf("%.*s_%s", (int)n, s, h);
}

char *oa_tool_name(const char *operation_id, const char *method, const char *path, int budget)
{
    tg_buf b = TG_BUF_INIT;
    if (operation_id && *operation_id) {
        snake(&b, operation_id);
    }
    if (!b.len) {
        /* GET /pets/{petId} → get_pets_by_pet_id */
        tg_buf raw = TG_BUF_INIT;
        tg_buf_puts(&raw, method);
        for (const char *p = path; *p; p++) {
            if (*p == '{')
                tg_buf_puts(&raw, "_by_");
            else
                tg_buf_putc(&raw, *p);
        }
        snake(&b, raw.data);
        tg_buf_free(&raw);
    }
    if (!b.len || !isalpha((unsigned char)b.data[0])) {
        tg_buf t = TG_BUF_INIT;
        tg_buf_printf(&t, "op_%s", b.data ? b.data : "");
        tg_buf_free(&b);
        b = t;
    }
    if (b.len <= (size_t)budget)
        return tg_buf_steal(&b);
    char *out = cut_with_hash(b.data, (size_t)budget - 9, b.data);
    tg_buf_free(&b);
    return out;
}

char *oa_unique_name(const char *name, const char *key, int budget, tg_strv *taken)
{
    char *n = xstrdup(name);
    for (int round = 0; taken_has(taken, n); round++) {
        char *salted = round ? xasprintf("%s#%d", key, round) : xstrdup(key);
        free(n);
        n = cut_with_hash(name, (size_t)budget - 9, salted);
        free(salted);
    }
    tg_strv_push(taken, n);
    return n;
}

char *oa_ident(const char *name, tg_strv *taken)
{
    tg_buf b = TG_BUF_INIT;
    for (const char *p = name; *p; p++)
        tg_buf_putc(&b, isalnum((unsigned char)*p) && (unsigned char)*p < 128 ? *p : '_');
    if (!b.len || isdigit((unsigned char)b.data[0])) {
        tg_buf t = TG_BUF_INIT;
        tg_buf_printf(&t, "_%s", b.data ? b.data : "");
        tg_buf_free(&b);
        b = t;
    }
    char *base = tg_buf_steal(&b), *n = xstrdup(base);
    for (int i = 2; taken_has(taken, n); i++) {
        free(n);
        n = xasprintf("%s_%d", base, i);
    }
    free(base);
    tg_strv_push(taken, n);
    return n;
}

char *oa_env_name(const char *title)
{
    tg_buf b = TG_BUF_INIT;
    snake(&b, title ? title : "");
    for (size_t i = 0; i < b.len; i++)
        b.data[i] = (char)toupper((unsigned char)b.data[i]);
    if (b.len > 40)
        tg_buf_truncate(&b, 40);
    while (b.len && b.data[b.len - 1] == '_')
        tg_buf_truncate(&b, b.len - 1);
    char *out = xasprintf("%s%sAPI_TOKEN", b.len && !isdigit((unsigned char)b.data[0]) ? b.data : "",
                          b.len && !isdigit((unsigned char)b.data[0]) ? "_" : "");
    tg_buf_free(&b);
    return out;
}
