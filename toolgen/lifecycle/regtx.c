/* regtx.c — registry file changes that can be undone (see regtx.h). */
#include "lifecycle/regtx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tg_regtx_init(tg_regtx *tx, int root_fd)
{
    *tx = (tg_regtx){.root_fd = root_fd};
}

static tg_regtx_op *push(tg_regtx *tx, const char *path)
{
    if (tx->n == tx->cap) {
        tx->cap = tx->cap ? tx->cap * 2 : 16;
        tx->ops = xrealloc(tx->ops, tx->cap * sizeof *tx->ops);
    }
    tg_regtx_op *op = &tx->ops[tx->n++];
    *op = (tg_regtx_op){.path = xstrdup(path)};
    return op;
}

static void note_file(tg_regtx *tx, const char *path)
{
    for (size_t i = 0; i < tx->files.n; i++)
        if (strcmp(tx->files.v[i], path) == 0)
            return;
    tg_strv_push(&tx->files, path);
}

/* Creates the missing folders above path one by one, recording each so rollback removes it. */
static int make_parents(tg_regtx *tx, const char *path, tg_err *err)
{
    char *p = xstrdup(path);
    for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdirat(tx->root_fd, p, 0777) == 0) {
            tg_regtx_op *op = push(tx, p);
            op->is_dir = op->created = true;
        } else if (errno != EEXIST) {
            tg_err_set(err, "cannot create the folder %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

/* Records the file's current bytes (or its absence) as a new op. */
static int keep_old(tg_regtx *tx, const char *path, tg_err *err)
{
    bool exists = tg_is_file_at(tx->root_fd, path);
    char *old = NULL;
    size_t len = 0;
    if (exists && !(old = tg_read_file_at(tx->root_fd, path, 0, &len, err)))
        return -1;
    tg_regtx_op *op = push(tx, path);
    op->existed = exists;
    op->old = old;
    op->oldlen = len;
    note_file(tx, path);
    return 0;
}

int tg_regtx_write(tg_regtx *tx, const char *path, const void *data, size_t len, tg_err *err)
{
    if (make_parents(tx, path, err) != 0 || keep_old(tx, path, err) != 0)
        return -1;
    return tg_write_file_atomic_at(tx->root_fd, path, data, len, err);
}

int tg_regtx_remove(tg_regtx *tx, const char *path, tg_err *err)
{
    if (!tg_is_file_at(tx->root_fd, path))
        return 0;
    if (keep_old(tx, path, err) != 0)
        return -1;
    if (unlinkat(tx->root_fd, path, 0) != 0)
        return tg_err_set(err, "cannot remove %s: %s", path, strerror(errno));
    return 0;
}

void tg_regtx_rmdir(tg_regtx *tx, const char *path)
{
    if (unlinkat(tx->root_fd, path, AT_REMOVEDIR) == 0)
        push(tx, path)->is_dir = true;
}

int tg_regtx_move_tree(tg_regtx *tx, const char *from, const char *to, tg_err *err)
{
    DIR *d = tg_opendir_at(tx->root_fd, from);
    if (!d)
        return errno == ENOENT ? 0 : tg_err_set(err, "cannot read %s: %s", from, strerror(errno));
    tg_strv names = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            tg_strv_push(&names, e->d_name);
    closedir(d);
    tg_strv_sort(&names);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        char *src = tg_path_join(from, names.v[i]), *dst = tg_path_join(to, names.v[i]);
        struct stat st;
        if (fstatat(tx->root_fd, src, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = tg_err_set(err, "cannot read %s: %s", src, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            rc = tg_regtx_move_tree(tx, src, dst, err);
        } else if (S_ISREG(st.st_mode)) {
            size_t len = 0;
            char *data = tg_read_file_at(tx->root_fd, src, 0, &len, err);
            rc = data && tg_regtx_write(tx, dst, data, len, err) == 0
                     ? tg_regtx_remove(tx, src, err) : -1;
            free(data);
        } else {
            rc = tg_err_set(err, "%s is neither a file nor a folder; remove it first", src);
        }
        free(src);
        free(dst);
    }
    tg_strv_free(&names);
    if (rc == 0)
        tg_regtx_rmdir(tx, from);
    return rc;
}

void tg_regtx_rollback(tg_regtx *tx)
{
    for (size_t i = tx->n; i-- > 0;) {
        tg_regtx_op *op = &tx->ops[i];
        if (op->is_dir) {
            if (op->created)
                unlinkat(tx->root_fd, op->path, AT_REMOVEDIR);
            else
                mkdirat(tx->root_fd, op->path, 0777);
        } else if (op->existed) {
            tg_write_file_atomic_at(tx->root_fd, op->path, op->old, op->oldlen, NULL);
        } else {
            unlinkat(tx->root_fd, op->path, 0);
        }
    }
}

void tg_regtx_release(tg_regtx *tx)
{
    for (size_t i = 0; i < tx->n; i++) {
        free(tx->ops[i].path);
        free(tx->ops[i].old);
    }
    free(tx->ops);
    tg_strv_free(&tx->files);
    *tx = (tg_regtx){.root_fd = -1};
}
