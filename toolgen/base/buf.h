/* buf.h — growable byte buffer, always NUL-terminated. */
#ifndef TG_BUF_H
#define TG_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/util.h"

typedef struct tg_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
} tg_buf;

#define TG_BUF_INIT {NULL, 0, 0}

void tg_buf_reserve(tg_buf *b, size_t extra);
void tg_buf_append(tg_buf *b, const void *data, size_t n);
void tg_buf_puts(tg_buf *b, const char *s);
void tg_buf_putc(tg_buf *b, char c);
void tg_buf_printf(tg_buf *b, const char *fmt, ...) TG_PRINTF(2, 3);
void tg_buf_vprintf(tg_buf *b, const char *fmt, va_list ap);
/* Appends s as a JSON string literal, quotes included. */
void tg_buf_json_string(tg_buf *b, const char *s);
/* Appends s escaped as one JSON Pointer reference token (~0, ~1). */
void tg_buf_pointer_token(tg_buf *b, const char *s);
void tg_buf_truncate(tg_buf *b, size_t len);
void tg_buf_reset(tg_buf *b);
/* Hands the storage to the caller (never NULL) and leaves b empty. */
char *tg_buf_steal(tg_buf *b);
void tg_buf_free(tg_buf *b);

#endif
