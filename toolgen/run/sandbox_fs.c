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
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/buf.h"

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

/*
 * One walk over a tree of any depth, without recursion and with one directory open at a time:
 * going down opens the child from its parent's descriptor (O_NOFOLLOW), going up opens ".." and
 * checks it is the directory it left (device and inode), then resumes reading where it stopped
 * (telldir/seekdir). A tool can nest thousands of folders: neither the stack nor the descriptors
 * nor PATH_MAX bound what is seen or removed. Mount points (another device) are not entered.
 */
typedef enum walk_step { WALK_NEXT, WALK_DESCEND, WALK_STOP } walk_step;

typedef struct walk_level {
    long cookie;       /* the parent's read position after this directory's entry */
    dev_t dev;         /* the parent, to check ".." against */
    ino_t ino;
    size_t rel_len;    /* the parent's relative path length */
    char *name;        /* this directory's name in the parent */
} walk_level;

typedef struct walk_ops {
    /* An entry of the directory dfd; rel is its path relative to the root. */
    walk_step (*entry)(void *ctx, int dfd, const char *name, const struct stat *st,
                       const tg_buf *rel);
    /* After every entry of the directory name (in parent_fd) was visited; may be NULL. */
    void (*leave)(void *ctx, int parent_fd, const char *name);
} walk_ops;

static int open_subdir(int dfd, const char *name)
{
    return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Back up one level: d's parent, read from where the walk left it; NULL when it is not the
 * directory the walk came from (the tree moved under it). */
static DIR *walk_up(DIR *d, const walk_level *lv)
{
    int up = openat(dirfd(d), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    closedir(d);
    struct stat st;
    if (up < 0 || fstat(up, &st) != 0 || st.st_dev != lv->dev || st.st_ino != lv->ino) {
        if (up >= 0)
            close(up);
        return NULL;
    }
    DIR *p = fdopendir(up);
    if (!p) {
        close(up);
        return NULL;
    }
    seekdir(p, lv->cookie);
    return p;
}

static void walk_tree(int root_fd, const walk_ops *ops, void *ctx)
{
    int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own position */
    struct stat root;
    DIR *d = fd >= 0 && fstat(fd, &root) == 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0)
        close(fd);
    walk_level *stack = NULL;
    size_t depth = 0, cap = 0;
    tg_buf rel = TG_BUF_INIT;
    while (d) {
        struct dirent *e = readdir(d);
        if (!e) {
            if (depth == 0)
                break;
            walk_level *lv = &stack[--depth];
            d = walk_up(d, lv);
            if (d && ops->leave)
                ops->leave(ctx, dirfd(d), lv->name);
            tg_buf_truncate(&rel, lv->rel_len);
            free(lv->name);
            continue;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        size_t mark = rel.len;
        if (rel.len)
            tg_buf_putc(&rel, '/');
        tg_buf_puts(&rel, e->d_name);
        walk_step step = ops->entry(ctx, dirfd(d), e->d_name, &st, &rel);
        if (step == WALK_STOP)
            break;
        int sub = step == WALK_DESCEND && S_ISDIR(st.st_mode) && st.st_dev == root.st_dev
                      ? open_subdir(dirfd(d), e->d_name) : -1;
        struct stat here;
        DIR *child = sub >= 0 && fstat(dirfd(d), &here) == 0 ? fdopendir(sub) : NULL;
        if (!child) {
            if (sub >= 0)
                close(sub);
            tg_buf_truncate(&rel, mark);
            continue;
        }
        if (depth == cap) {
            cap = cap ? cap * 2 : 16;
            stack = xrealloc(stack, cap * sizeof *stack);
        }
        stack[depth++] = (walk_level){telldir(d), here.st_dev, here.st_ino, mark,
                                      xstrdup(e->d_name)};
        closedir(d);
        d = child;
    }
    if (d)
        closedir(d);
    while (depth)
        free(stack[--depth].name);
    free(stack);
    tg_buf_free(&rel);
}

/* ---- listing and sizing --------------------------------------------------------------------- */

/* Artifacts deeper than this (relative path length) are counted but not listed. */
#define ARTIFACT_PATH_MAX 1024

typedef struct listing {
    const char *const *skip;
    size_t nskip;
    tg_sandbox_result *res; /* listing, or NULL when only counting bytes */
    size_t cap;
    long long bytes, stop_after;
} listing;

static bool skipped(const listing *w, const char *rel)
{
    for (size_t i = 0; i < w->nskip; i++)
        if (strcmp(w->skip[i], rel) == 0)
            return true;
    return false;
}

static void list_file(listing *w, const char *name, const struct stat *st, const tg_buf *rel)
{
    tg_sandbox_result *r = w->res;
    if (r->n_files >= TG_SANDBOX_MAX_FILES || rel->len > ARTIFACT_PATH_MAX) {
        r->files_truncated = true;
        return;
    }
    if (r->n_files == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        r->files = xrealloc(r->files, w->cap * sizeof *r->files);
    }
    r->files[r->n_files++] = (tg_artifact){xstrdup(rel->data), sb_file_type(name),
                                           (long long)st->st_size};
}

static walk_step list_entry(void *ctx, int dfd, const char *name, const struct stat *st,
                            const tg_buf *rel)
{
    (void)dfd;
    listing *w = ctx;
    if (S_ISDIR(st->st_mode))
        return WALK_DESCEND;
    if (!S_ISREG(st->st_mode) || skipped(w, rel->data))
        return WALK_NEXT;
    w->bytes += (long long)st->st_size;
    if (w->res)
        list_file(w, name, st, rel);
    return w->stop_after > 0 && w->bytes > w->stop_after ? WALK_STOP : WALK_NEXT;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const tg_artifact *)a)->path, ((const tg_artifact *)b)->path);
}

void sb_collect_files_at(int dirfd, const char *const *skip, size_t nskip, tg_sandbox_result *res)
{
    listing w = {.skip = skip, .nskip = nskip, .res = res};
    static const walk_ops ops = {list_entry, NULL};
    walk_tree(dirfd, &ops, &w);
    res->files_bytes = w.bytes;
    if (res->n_files > 1)
        qsort(res->files, res->n_files, sizeof *res->files, by_path);
}

void sb_collect_files(const char *workdir, const char *const *skip, size_t nskip,
                      tg_sandbox_result *res)
{
    int fd = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    sb_collect_files_at(fd, skip, nskip, res);
    close(fd);
}

long long sb_tree_bytes(const char *dir, long long stop_after)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    listing w = {.stop_after = stop_after};
    static const walk_ops ops = {list_entry, NULL};
    walk_tree(fd, &ops, &w);
    close(fd);
    return w.bytes;
}

bool sb_work_full(int dirfd)
{
    struct statvfs vfs;
    return fstatvfs(dirfd, &vfs) == 0 && (vfs.f_bavail == 0 || vfs.f_favail == 0);
}

void sb_collect_work(tg_sandbox_result *res, int dirfd, const char *const *skip, size_t nskip)
{
    if (dirfd < 0)
        return;
    sb_collect_files_at(dirfd, skip, nskip, res);
    if (res->killed_by == TG_LIMIT_NONE && sb_work_full(dirfd))
        res->killed_by = TG_LIMIT_DISK;
}

/* ---- removing ------------------------------------------------------------------------------- */

static walk_step remove_entry(void *ctx, int dfd, const char *name, const struct stat *st,
                              const tg_buf *rel)
{
    (void)ctx;
    (void)rel;
    if (!S_ISDIR(st->st_mode)) {
        unlinkat(dfd, name, 0);
        return WALK_NEXT;
    }
    /* a tool may leave a directory without permissions (chmod 000): make it removable */
    if ((st->st_mode & 0700) != 0700)
        fchmodat(dfd, name, 0700, 0);
    return WALK_DESCEND;
}

static void remove_dir(void *ctx, int parent_fd, const char *name)
{
    (void)ctx;
    unlinkat(parent_fd, name, AT_REMOVEDIR);
}

int sb_remove_tree_at(int dirfd)
{
    static const walk_ops ops = {remove_entry, remove_dir};
    struct stat st;
    if (fstat(dirfd, &st) == 0 && (st.st_mode & 0700) != 0700)
        fchmod(dirfd, 0700);
    walk_tree(dirfd, &ops, NULL);
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d && fd >= 0)
        close(fd);
    bool empty = true;
    struct dirent *e;
    while (d && empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    if (d)
        closedir(d);
    return empty ? 0 : -1;
}

int sb_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        sb_remove_tree_at(fd);
        close(fd);
    }
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
