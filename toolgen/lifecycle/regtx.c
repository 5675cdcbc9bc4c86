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
