/* buf.c — growable byte buffer. */
#include "base/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char tg_buf_slopbuf[1];

void tg_buf_init(tg_buf *b, size_t hint)
{
    *b = (tg_buf)TG_BUF_INIT;
    if (hint)
        tg_buf_reserve(b, hint);
}

void tg_buf_reserve(tg_buf *b, size_t extra)
{
    if (extra > SIZE_MAX - 1 - b->len)
        tg_oom(SIZE_MAX);
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    /* The slopbuf (or the NULL of a zeroed buffer) is not ours to realloc. */
    char *data = b->cap ? xrealloc(b->data, cap) : xmalloc(cap);
    if (!b->cap)
        data[0] = '\0';
    b->data = data;
    b->cap = cap;
}

void tg_buf_append(tg_buf *b, const void *data, size_t n)
{
    tg_buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tg_buf_puts(tg_buf *b, const char *s)
{
    tg_buf_append(b, s, strlen(s));
}

void tg_buf_putc(tg_buf *b, char c)
{
    tg_buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void tg_buf_vprintf(tg_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        tg_buf_append(b, small, (size_t)n);
        return;
    }
    tg_buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    tg_buf_setlen(b, b->len + (size_t)n);
}

void tg_buf_printf(tg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void tg_buf_json_string(tg_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    tg_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': tg_buf_append(b, "\\\"", 2); break;
        case '\\': tg_buf_append(b, "\\\\", 2); break;
        case '\n': tg_buf_append(b, "\\n", 2); break;
        case '\r': tg_buf_append(b, "\\r", 2); break;
        case '\t': tg_buf_append(b, "\\t", 2); break;
        case '\b': tg_buf_append(b, "\\b", 2); break;
        case '\f': tg_buf_append(b, "\\f", 2); break;
        default:
            if (*p < 0x20) {
                char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};
                tg_buf_append(b, esc, 6);
            } else {
                tg_buf_putc(b, (char)*p);
            }
        }
    }
    tg_buf_putc(b, '"');
}

void tg_buf_pointer_token(tg_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '~')
            tg_buf_append(b, "~0", 2);
        else if (*s == '/')
            tg_buf_append(b, "~1", 2);
        else
            tg_buf_putc(b, *s);
    }
}

void tg_buf_setlen(tg_buf *b, size_t len)
{
    if (!b->cap && len == 0)
        return; /* the slopbuf already reads "" and is never written */
    if (len >= b->cap)
        abort(); /* past what was reserved: a caller bug, never a write out of bounds */
    b->len = len;
    b->data[len] = '\0';
}

void tg_buf_truncate(tg_buf *b, size_t len)
{
    if (len < b->len)
        tg_buf_setlen(b, len);
}

void tg_buf_reset(tg_buf *b)
{
    tg_buf_truncate(b, 0);
}

char *tg_buf_steal(tg_buf *b)
{
    char *p = b->cap ? b->data : xstrdup("");
    *b = (tg_buf)TG_BUF_INIT;
    return p;
}

void tg_buf_free(tg_buf *b)
{
    if (b->cap)
        free(b->data);
    *b = (tg_buf)TG_BUF_INIT;
}
