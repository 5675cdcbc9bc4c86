/* util.c — errors, dying allocation, file helpers, data-directory lookup. */
#define _GNU_SOURCE /* mkostemp: the temporary file of an atomic write is close-on-exec at once */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void vset(tg_err *err, const char *fmt, va_list ap)
{
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int tg_err_set(tg_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vset(err, fmt, ap);
    va_end(ap);
    return -1;
}

int tg_err_setpos(tg_err *err, const char *file, int line, int col, const char *fmt, ...)
{
    if (!err)
        return -1;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    va_list ap;
    va_start(ap, fmt);
    vset(err, fmt, ap);
    va_end(ap);
    return -1;
}

int tg_err_prefix(tg_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char head[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t hl = strlen(head);
    if (hl > sizeof err->msg - 3)
        hl = sizeof err->msg - 3;
    memcpy(err->msg, head, hl);
    memcpy(err->msg + hl, ": ", 2);
    size_t room = sizeof err->msg - hl - 3, ol = strnlen(old, room);
    memcpy(err->msg + hl + 2, old, ol);
    err->msg[hl + 2 + ol] = '\0';
    return -1;
}

void tg_err_format(const tg_err *err, char *out, size_t n)
{
    if (err->file[0] && err->line > 0 && err->col > 0)
        snprintf(out, n, "%s:%d:%d: %s", err->file, err->line, err->col, err->msg);
    else if (err->file[0] && err->line > 0)
        snprintf(out, n, "%s:%d: %s", err->file, err->line, err->msg);
    else if (err->file[0])
        snprintf(out, n, "%s: %s", err->file, err->msg);
    else
        snprintf(out, n, "%s", err->msg);
}

void tg_err_clear(tg_err *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

void tg_oom(size_t bytes)
{
    if (bytes)
        fprintf(stderr, "toolgen: out of memory (allocating %zu bytes)\n", bytes);
    else
        fputs("toolgen: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        tg_oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        tg_oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        tg_oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        tg_oom(0);
    char *p = xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    return p;
}

char *tg_read_file(const char *path, size_t max_bytes, size_t *len_out, tg_err *err)
{
    return tg_read_file_at(AT_FDCWD, path, max_bytes, len_out, err);
}

char *tg_read_file_at(int dirfd, const char *path, size_t max_bytes, size_t *len_out,
                      tg_err *err)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tg_err_setpos(err, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        tg_err_setpos(err, path, 0, 0, "cannot stat: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        tg_err_setpos(err, path, 0, 0, "is a directory, expected a file");
        close(fd);
        return NULL;
    }
    if (max_bytes && S_ISREG(st.st_mode) && (size_t)st.st_size > max_bytes) {
        tg_err_setpos(err, path, 0, 0,
                      "file is %lld bytes, over the limit of %zu bytes toolgen reads; make it smaller",
                      (long long)st.st_size, max_bytes);
        close(fd);
        return NULL;
    }
    /* A regular file's size, plus the NUL and one spare byte: the read that meets the end of
     * the file then has room, so a file is read without growing (and copying) the buffer. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : 65536, len = 0;
    char *data = xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            data = xrealloc(data, cap);
        }
        ssize_t r = read(fd, data + len, cap - len - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            tg_err_setpos(err, path, 0, 0, "read error: %s", strerror(errno));
            free(data);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (max_bytes && len > max_bytes) {
            tg_err_setpos(err, path, 0, 0,
                          "input is over the limit of %zu bytes toolgen reads; make it smaller",
                          max_bytes);
            free(data);
            close(fd);
            return NULL;
        }
    }
    close(fd);
    data[len] = '\0';
    if (len_out)
        *len_out = len;
    return data;
}

int tg_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static pthread_once_t umask_once = PTHREAD_ONCE_INIT;
static mode_t process_umask = 022;

/* umask() can only be read by setting it, which races with other threads creating files; the
 * kernel reports it in /proc/self/status instead (Linux 4.7 and later; else the usual 022). */
static void read_umask(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return;
    char line[256];
    unsigned mask;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &mask) == 1) {
            process_umask = (mode_t)mask & 0777;
            break;
        }
    fclose(f);
}

/* Creates "PATH.tmp.XXXXXX" under dirfd with O_EXCL: mkostemp has no *at form, so the unique
 * suffix comes from getrandom, and a name another writer holds already is simply drawn again. */
static int create_temp_at(int dirfd, const char *path, char **tmp_out)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char *tmp = xasprintf("%s.tmp.XXXXXX", path);
    char *suffix = tmp + strlen(tmp) - 6;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char rnd[6];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            uint64_t mix = (uint64_t)getpid() * 0x9E3779B97F4A7C15u +
                           (uint64_t)clock() + (uint64_t)attempt;
            memcpy(rnd, &mix, sizeof rnd);
        }
        for (int i = 0; i < 6; i++)
            suffix[i] = alnum[rnd[i] % (sizeof alnum - 1)];
        int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) {
            *tmp_out = tmp;
            return fd;
        }
    }
    *tmp_out = tmp;
    return -1;
}

int tg_write_file_atomic(const char *path, const void *data, size_t len, tg_err *err)
{
    return tg_write_file_atomic_at(AT_FDCWD, path, data, len, err);
}

int tg_write_file_atomic_at(int dirfd, const char *path, const void *data, size_t len,
                            tg_err *err)
{
    /* A unique name per call (not per process): worker threads may write the same path at
     * once, and each must rename a whole file of its own over it. */
    char *tmp = NULL;
    int fd = create_temp_at(dirfd, path, &tmp);
    if (fd < 0) {
        tg_err_setpos(err, path, 0, 0, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    pthread_once(&umask_once, read_umask);
    /* The file is created 0600 like mkstemp's; give it the mode a plain creat(0644) would have. */
    if (fchmod(fd, 0644 & ~process_umask) != 0 || tg_write_all(fd, data, len) != 0) {
        tg_err_setpos(err, path, 0, 0, "write error: %s", strerror(errno));
        close(fd);
        unlinkat(dirfd, tmp, 0);
        free(tmp);
        return -1;
    }
    if (close(fd) != 0 || renameat(dirfd, tmp, dirfd, path) != 0) {
        tg_err_setpos(err, path, 0, 0, "cannot write: %s", strerror(errno));
        unlinkat(dirfd, tmp, 0);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

bool tg_is_dir(const char *path)
{
    return tg_is_dir_at(AT_FDCWD, path);
}

bool tg_is_file(const char *path)
{
    return tg_is_file_at(AT_FDCWD, path);
}

bool tg_is_dir_at(int dirfd, const char *path)
{
    struct stat st;
    return fstatat(dirfd, path, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

bool tg_is_file_at(int dirfd, const char *path)
{
    struct stat st;
    return fstatat(dirfd, path, &st, 0) == 0 && S_ISREG(st.st_mode);
}

int tg_mkdirs(const char *path, tg_err *err)
{
    return tg_mkdirs_at(AT_FDCWD, path, err);
}

int tg_mkdirs_at(int dirfd, const char *path, tg_err *err)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdirat(dirfd, p, 0755) != 0 && errno != EEXIST) {
            tg_err_setpos(err, p, 0, 0, "cannot create directory: %s", strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (mkdirat(dirfd, p, 0755) != 0 && errno != EEXIST)
        rc = tg_err_setpos(err, p, 0, 0, "cannot create directory: %s", strerror(errno));
    free(p);
    return rc;
}

DIR *tg_opendir_at(int dirfd, const char *path)
{
    int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d)
        close(fd);
    return d;
}

char *tg_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    if (la == 0)
        return xstrdup(b);
    return xasprintf("%.*s/%s", (int)la, a, b);
}

bool tg_str_endswith(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

bool tg_str_startswith(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One row of the table at a time: the strings are short, so the quadratic time is fine. */
size_t tg_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static bool has_data(const char *dir)
{
    char *probe = tg_path_join(dir, "schemas/tool.manifest.schema.json");
    bool ok = tg_is_file(probe);
    free(probe);
    return ok;
}

static pthread_once_t datadir_once = PTHREAD_ONCE_INIT;
static char *datadir;

static void find_datadir(void)
{
    const char *env = getenv("TOOLGEN_DATADIR");
    if (env && *env) {
        datadir = xstrdup(env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0'; /* exe = directory of the executable */
    /* Installed layout first (PREFIX/bin + PREFIX/share/toolgen), then the source tree, where the
     * binary may sit one or two levels down (bin/, build/<flavor>/bin/). */
    static const char *const candidates[] = {"../share/toolgen", "..", "../../..", "../.."};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        char *dir = tg_path_join(exe, candidates[i]);
        char real[PATH_MAX];
        if (has_data(dir) && realpath(dir, real)) {
            free(dir);
            datadir = xstrdup(real);
            return;
        }
        free(dir);
    }
}

const char *tg_datadir(void)
{
    pthread_once(&datadir_once, find_datadir);
    return datadir;
}

/* '0'..'9', 'a'..'f', 'A'..'F' map to their value + 1; everything else to 0 (so: -1). */
const signed char tg_hex_value_plus1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

double tg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct timespec tg_deadline_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}
