/* util.h — allocation, errors, files: the few things every module needs. */
#ifndef TG_UTIL_H
#define TG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Library layers never print or exit: they fill a tg_err and return -1 (or NULL).
 * file/line/col are optional (empty / 0 when unknown); the CLI formats the
 * message as "file:line:col: msg".
 */
typedef struct tg_err {
    char file[512];
    int line, col;
    char msg[1536];
} tg_err;

#if defined(__GNUC__)
#define TG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TG_PRINTF(a, b)
#endif

/* Both return -1 so that callers can write `return tg_err_set(err, ...);`. err may be NULL. */
int tg_err_set(tg_err *err, const char *fmt, ...) TG_PRINTF(2, 3);
int tg_err_setpos(tg_err *err, const char *file, int line, int col, const char *fmt, ...)
    TG_PRINTF(5, 6);
/* Prefixes the existing message: "context: old message". */
int tg_err_prefix(tg_err *err, const char *fmt, ...) TG_PRINTF(2, 3);
/* "file:line:col: msg" (parts that are unknown are left out). */
void tg_err_format(const tg_err *err, char *out, size_t n);
void tg_err_clear(tg_err *err);

/* Allocation that dies on failure: out of memory is not a recoverable error for a CLI tool. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) TG_PRINTF(1, 2);

/*
 * Reads a whole file into a NUL-terminated heap buffer. Fails (with a message naming the
 * file and the limit) when the file is larger than max_bytes (0 = no limit).
 */
char *tg_read_file(const char *path, size_t max_bytes, size_t *len_out, tg_err *err);
/* Writes via a temporary file in the same directory + rename, so readers never see half a file. */
int tg_write_file_atomic(const char *path, const void *data, size_t len, tg_err *err);
bool tg_is_dir(const char *path);
bool tg_is_file(const char *path);
/* mkdir -p */
int tg_mkdirs(const char *path, tg_err *err);
/* Joins two path parts with exactly one '/' between them. Heap string. */
char *tg_path_join(const char *a, const char *b);
bool tg_str_endswith(const char *s, const char *suffix);
bool tg_str_startswith(const char *s, const char *prefix);

/*
 * Directory holding toolgen's data files (schemas/, meta-schemas, runtime files):
 * $TOOLGEN_DATADIR, else the source tree the executable was built in (bin/..),
 * else PREFIX/share/toolgen next to an installed bin/. NULL when none is found.
 */
const char *tg_datadir(void);

#endif
