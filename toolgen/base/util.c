/* util.c — errors, dying allocation, file helpers, data-directory lookup. */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void oom(size_t n)
{
    fprintf(stderr, "toolgen: out of memory (allocating %zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
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

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom(0);
    char *p = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

char *tg_read_file(const char *path, size_t max_bytes, size_t *len_out, tg_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
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
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, len = 0;
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

int tg_write_file_atomic(const char *path, const void *data, size_t len, tg_err *err)
{
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        tg_err_setpos(err, path, 0, 0, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            tg_err_setpos(err, path, 0, 0, "write error: %s", strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        tg_err_setpos(err, path, 0, 0, "cannot write: %s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

bool tg_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool tg_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int tg_mkdirs(const char *path, tg_err *err)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            tg_err_setpos(err, p, 0, 0, "cannot create directory: %s", strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        rc = tg_err_setpos(err, p, 0, 0, "cannot create directory: %s", strerror(errno));
    free(p);
    return rc;
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

static bool has_data(const char *dir)
{
    char *probe = tg_path_join(dir, "schemas/tool.manifest.schema.json");
    bool ok = tg_is_file(probe);
    free(probe);
    return ok;
}

const char *tg_datadir(void)
{
    static char *cached;
    static bool done;
    if (done)
        return cached;
    done = true;
    const char *env = getenv("TOOLGEN_DATADIR");
    if (env && *env) {
        cached = xstrdup(env);
        return cached;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0'; /* exe = directory of the executable */
    /* Installed layout first (PREFIX/bin + PREFIX/share/toolgen), then the source tree, where the
     * binary may sit one or two levels down (bin/, build/<flavor>/bin/). */
    static const char *const candidates[] = {"../share/toolgen", "..", "../../..", "../.."};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        char *dir = tg_path_join(exe, candidates[i]);
        char real[PATH_MAX];
        if (has_data(dir) && realpath(dir, real)) {
            free(dir);
            cached = xstrdup(real);
            return cached;
        }
        free(dir);
    }
    return NULL;
}
