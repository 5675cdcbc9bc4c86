/* sandbox_fs.c — the work directory from the host's side: listing, sizing, removing it.
 *
 * The tree was written by untrusted code, so every walk goes through directory descriptors
 * (openat + O_NOFOLLOW, fstatat + AT_SYMLINK_NOFOLLOW): a symlink the tool planted is never
 * followed, whatever it points at.
 */
#define _GNU_SOURCE
#include "run/sandbox_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"

#define MAX_DEPTH 32

char *sb_normalize(const char *abs_path)
{
    size_t n = strlen(abs_path);
    char *out = xmalloc(n + 2);
    size_t len = 0;
    const char *p = abs_path;
    while (*p) {
        while (*p == '/')
            p++;
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t seg = (size_t)(p - start);
        if (seg == 0 || (seg == 1 && start[0] == '.'))
            continue;
        if (seg == 2 && start[0] == '.' && start[1] == '.') {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--; /* drop the '/' too; ".." of "/" is "/" */
            continue;
        }
        out[len++] = '/';
        memcpy(out + len, start, seg);
        len += seg;
    }
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    return out;
}

bool sb_path_within(const char *path, const char *dir)
{
    if (strcmp(dir, "/") == 0)
        return path[0] == '/';
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

tg_file_type sb_file_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/'))
        return TG_FILE_OTHER;
    static const struct {
        const char *ext;
        tg_file_type type;
    } map[] = {
        {".csv", TG_FILE_CSV},   {".tsv", TG_FILE_CSV},   {".png", TG_FILE_IMAGE},
        {".jpg", TG_FILE_IMAGE}, {".jpeg", TG_FILE_IMAGE}, {".gif", TG_FILE_IMAGE},
        {".svg", TG_FILE_IMAGE}, {".webp", TG_FILE_IMAGE}, {".json", TG_FILE_JSON},
        {".txt", TG_FILE_TEXT},  {".md", TG_FILE_TEXT},   {".log", TG_FILE_TEXT},
        {".html", TG_FILE_TEXT}, {".xml", TG_FILE_TEXT},  {".yaml", TG_FILE_TEXT},
        {".yml", TG_FILE_TEXT},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcasecmp(dot, map[i].ext) == 0)
            return map[i].type;
    return TG_FILE_OTHER;
}

/* ---- walking -------------------------------------------------------------------------------- */

typedef struct walk {
    const char *const *skip;
    size_t nskip;
    tg_sandbox_result *res; /* listing, or NULL when only counting bytes */
    size_t cap;
    long long bytes, stop_after;
    bool stop;
} walk;

static bool skipped(const walk *w, const char *rel)
{
    for (size_t i = 0; i < w->nskip; i++)
        if (strcmp(w->skip[i], rel) == 0)
            return true;
    return false;
}

static void walk_dir(walk *w, int dfd, tg_buf *rel, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while (!w->stop && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        size_t mark = rel->len;
        if (rel->len)
            tg_buf_putc(rel, '/');
        tg_buf_puts(rel, e->d_name);
        if (S_ISDIR(st.st_mode)) {
            if (depth < MAX_DEPTH) {
                int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                    walk_dir(w, sub, rel, depth + 1);
            }
        } else if (S_ISREG(st.st_mode) && !skipped(w, rel->data)) {
            w->bytes += (long long)st.st_size;
            if (w->stop_after > 0 && w->bytes > w->stop_after)
                w->stop = true;
            if (w->res) {
                tg_sandbox_result *r = w->res;
                if (r->n_files >= TG_SANDBOX_MAX_FILES) {
                    r->files_truncated = true;
                } else {
                    if (r->n_files == w->cap) {
                        w->cap = w->cap ? w->cap * 2 : 16;
                        r->files = xrealloc(r->files, w->cap * sizeof *r->files);
                    }
                    r->files[r->n_files++] = (tg_artifact){xstrdup(rel->data),
                                                           sb_file_type(e->d_name),
                                                           (long long)st.st_size};
                }
            }
        }
        tg_buf_truncate(rel, mark);
    }
    closedir(d);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const tg_artifact *)a)->path, ((const tg_artifact *)b)->path);
}

void sb_collect_files(const char *workdir, const char *const *skip, size_t nskip,
                      tg_sandbox_result *res)
{
    int fd = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    walk w = {.skip = skip, .nskip = nskip, .res = res};
    tg_buf rel = TG_BUF_INIT;
    tg_buf_puts(&rel, "");
    walk_dir(&w, fd, &rel, 0);
    tg_buf_free(&rel);
    res->files_bytes = w.bytes;
    if (res->n_files > 1)
        qsort(res->files, res->n_files, sizeof *res->files, by_path);
}

long long sb_tree_bytes(const char *dir, long long stop_after)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    walk w = {.stop_after = stop_after};
    tg_buf rel = TG_BUF_INIT;
    tg_buf_puts(&rel, "");
    walk_dir(&w, fd, &rel, 0);
    tg_buf_free(&rel);
    return w.bytes;
}

/* ---- removing ------------------------------------------------------------------------------- */

static void remove_in(int dfd, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < 4 * MAX_DEPTH) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0 && errno == EACCES) {
                /* a tool may leave a directory without permissions (chmod 000) */
                fchmodat(dirfd(d), e->d_name, 0700, 0);
                sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            }
            if (sub >= 0) {
                if ((st.st_mode & 0700) != 0700)
                    fchmod(sub, 0700);
                remove_in(sub, depth + 1);
            }
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        } else {
            unlinkat(dirfd(d), e->d_name, 0);
        }
    }
    closedir(d);
}

int sb_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        remove_in(fd, 0);
    return rmdir(path);
}

/* ---- call directories a killed process left behind ------------------------------------------ */

/* The owner's pid in "toolgen-call-<pid>-XXXXXX[.work]", or 0 when the name is not one. */
static long call_owner(const char *name)
{
    size_t n = strlen(SB_CALL_PREFIX);
    if (strncmp(name, SB_CALL_PREFIX, n) != 0)
        return 0;
    char *end;
    long pid = strtol(name + n, &end, 10);
    return pid > 0 && *end == '-' ? pid : 0;
}

void sb_remove_stale_calls(const char *tmp_dir)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return;
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long owner = call_owner(e->d_name);
        if (owner == 0 || owner == self)
            continue;
        /* Gone: kill(pid, 0) fails with ESRCH. EPERM means it lives (as another user). */
        if (kill((pid_t)owner, 0) == 0 || errno != ESRCH)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        char *path = tg_path_join(tmp_dir, e->d_name);
        sb_remove_tree(path);
        free(path);
    }
    closedir(d);
}
