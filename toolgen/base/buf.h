/*
 * buf.h — growable byte buffer, always NUL-terminated (git's strbuf, in toolgen's names).
 *
 * Invariants, for a buffer set up with TG_BUF_INIT or tg_buf_init:
 *   - data is never NULL: until the first growth it points at tg_buf_slopbuf, a shared empty
 *     string that must never be written (cap == 0 marks that state), so b.data can always be
 *     printed or compared without a NULL check;
 *   - data[len] == '\0' always, and once allocated len < cap (the NUL has its byte);
 *   - growth checks len + extra + 1 and the doubling for overflow and dies (tg_oom) rather
 *     than wrap around.
 * A zeroed tg_buf (from calloc or `= {0}`) is tolerated by every function below — it grows,
 * truncates and is freed like an empty one — but its data is NULL until then, so code that
 * reads data must set its buffers up with TG_BUF_INIT / tg_buf_init.
 * Ownership: the buffer owns data; tg_buf_free releases it and leaves an empty, reusable
 * buffer; tg_buf_steal hands it to the caller.
 */
#ifndef TG_BUF_H
#define TG_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/util.h"

typedef struct tg_buf {
    char *data; /* NUL-terminated; tg_buf_slopbuf until the first growth */
    size_t len; /* bytes before the NUL */
    size_t cap; /* bytes allocated (0: data is tg_buf_slopbuf, nothing allocated) */
} tg_buf;

/* The shared empty string of every unallocated buffer. Read-only in practice: never written. */
extern char tg_buf_slopbuf[1];

#define TG_BUF_INIT {tg_buf_slopbuf, 0, 0}

/* Sets b up empty; with hint > 0 it allocates room for hint bytes (plus the NUL) at once. */
void tg_buf_init(tg_buf *b, size_t hint);
/* Makes room for extra more bytes (plus the NUL) without another allocation. */
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
/*
 * Sets the length to len and writes the NUL after it, like git's strbuf_setlen: len must fit
 * the allocation (len < cap, or len == 0), e.g. after writing into the room tg_buf_reserve made.
 */
void tg_buf_setlen(tg_buf *b, size_t len);
/* Shortens to len; a len at or past the current length changes nothing. */
void tg_buf_truncate(tg_buf *b, size_t len);
/* Empties b, keeping its allocation for reuse. */
void tg_buf_reset(tg_buf *b);
/* Hands the storage to the caller (never NULL, "" when nothing was appended) and leaves b empty. */
char *tg_buf_steal(tg_buf *b);
/* Frees the storage and leaves b empty (data back at tg_buf_slopbuf), ready for reuse. */
void tg_buf_free(tg_buf *b);

#endif
