/* jsutf8.h — the UTF-8 helpers the schema modules share. */
#ifndef TG_JSUTF8_H
#define TG_JSUTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes one code point at s (which must not be at the terminating NUL) and advances *len by
 * its byte count. Malformed bytes decode as U+FFFD one byte at a time, so loops always advance.
 */
static inline uint32_t js_utf8_next(const unsigned char *s, size_t *len)
{
    unsigned c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
    if (n < 0 || c > 0xF4) {
        *len = 1;
        return 0xFFFD;
    }
    uint32_t cp = c & (0x3Fu >> n);
    for (int i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *len = 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    *len = (size_t)n + 1;
    return cp;
}

/* Number of code points (continuation bytes are not counted). */
static inline size_t js_utf8_count(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

/* Encodes cp (<= 0x10FFFF) into out, returns the byte count (1..4). */
static inline int js_utf8_put(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

#endif
