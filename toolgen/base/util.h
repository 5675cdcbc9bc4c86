/* util.h — allocation, errors, files: the few things every module needs. */
#ifndef TG_UTIL_H
#define TG_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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

/*
 * The one out-of-memory handler: prints "toolgen: out of memory (allocating N bytes)" on stderr
 * (without the size when bytes is 0: unknown) and aborts. Out of memory is not a recoverable error for a CLI tool, so the x* allocators
 * below, the JSON and YAML loaders (cJSON's allocator) and the hash states all end here.
 */
_Noreturn void tg_oom(size_t bytes);

/* Allocation that dies (tg_oom) on failure; a size of 0 allocates 1 byte, never NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) TG_PRINTF(1, 2);
/* The va_list form of xasprintf, for functions that take a format themselves; ap is consumed. */
char *xvasprintf(const char *fmt, va_list ap);

/*
 * Reads a whole file into a NUL-terminated heap buffer. Fails (with a message naming the
 * file and the limit) when the file is larger than max_bytes (0 = no limit).
 */
char *tg_read_file(const char *path, size_t max_bytes, size_t *len_out, tg_err *err);
/*
 * The *_at forms below take a relative path under the directory open as dirfd (AT_FDCWD: the
 * current directory, which is what the path-only forms use; an absolute path ignores dirfd).
 * Library code reaches the repository through its root fd (model/repo.h), never the current
 * directory, so one process can work on several repositories at once; messages name path as
 * given.
 */
char *tg_read_file_at(int dirfd, const char *path, size_t max_bytes, size_t *len_out,
                      tg_err *err);
/* Writes all len bytes, retrying short writes and EINTR. 0, or -1 with errno set. */
int tg_write_all(int fd, const void *data, size_t len);
/*
 * Writes via a temporary file in the same directory (a unique mkstemp name, "PATH.tmp.XXXXXX")
 * + rename, so readers never see half a file and threads writing the same path at once never
 * share a temporary file: the last rename wins, whole. The file gets mode 0644 minus the umask.
 */
int tg_write_file_atomic(const char *path, const void *data, size_t len, tg_err *err);
/* tg_write_file_atomic under dirfd: the temporary file is created with O_EXCL and a random
 * suffix in the target's directory (openat), then renamed over it (renameat). */
int tg_write_file_atomic_at(int dirfd, const char *path, const void *data, size_t len,
                            tg_err *err);
bool tg_is_dir(const char *path);
bool tg_is_file(const char *path);
/* true when path (under dirfd, symlinks followed) is a directory / a regular file */
bool tg_is_dir_at(int dirfd, const char *path);
bool tg_is_file_at(int dirfd, const char *path);
/* mkdir -p */
int tg_mkdirs(const char *path, tg_err *err);
/* mkdir -p under dirfd */
int tg_mkdirs_at(int dirfd, const char *path, tg_err *err);
/* opendir(path) under dirfd (close with closedir); NULL with errno set. */
DIR *tg_opendir_at(int dirfd, const char *path);
/* Joins two path parts with exactly one '/' between them. Heap string. */
char *tg_path_join(const char *a, const char *b);
bool tg_str_endswith(const char *s, const char *suffix);
bool tg_str_startswith(const char *s, const char *prefix);
/* Levenshtein distance, for "did you mean" hints; SIZE_MAX when either string is longer than
 * 64 bytes (hints are for names and keywords, which are short). */
size_t tg_edit_distance(const char *a, const char *b);

/*
 * Directory holding toolgen's data files (schemas/, meta-schemas, runtime files):
 * $TOOLGEN_DATADIR, else PREFIX/share/toolgen next to an installed bin/, else the source tree
 * the executable was built in (bin/.. or build/<flavor>/bin/../../..). NULL when none is found.
 * Looked up once per process (pthread_once), so worker threads may call it freely.
 */
const char *tg_datadir(void);

/* The value of hex digit c ('0'-'9', 'a'-'f', 'A'-'F'), else -1 (also for negative chars); a
 * table lookup, as the state log parses hundreds of thousands of hashes. */
extern const signed char tg_hex_value_plus1[256];
static inline int tg_hexval(int c)
{
    return (c & ~0xff) ? -1 : tg_hex_value_plus1[c] - 1;
}

/* Milliseconds on the monotonic clock (CLOCK_MONOTONIC): for durations, never for dates. */
double tg_now_ms(void);
/* The time ms milliseconds from now on the clock pthread_cond_timedwait measures by default
 * (CLOCK_REALTIME), as the absolute deadline it takes. */
struct timespec tg_deadline_ms(long ms);

#endif
