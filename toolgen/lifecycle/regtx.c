/* regtx.c — registry file changes that can be undone (see regtx.h). */
#include "lifecycle/regtx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"

static tg_regtx_op *push(tg_regtx *tx, const char *path);
static void note_file(tg_regtx *tx, const char *path);

void tg_regtx_init(tg_regtx *tx, int root_fd)
{
    *tx = (tg_regtx){.root_fd = root_fd, .jfd = -1};
}

/* ---- the journal ----------------------------------------------------------------------------
 * "toolgen registry journal 1\n" "<head>\n", then one record per change, each written and
 * synced before the change: "W <existed> <pathlen> <oldlen>\n<path><old bytes>\n" for a file
 * written or removed, "M <pathlen>\n<path>\n" for a folder made, "R <pathlen>\n<path>\n" for
 * one removed. A record cut short by the kill is one whose change never happened. */

#define JOURNAL_MAGIC "toolgen registry journal 1\n"

static int journal_put(tg_regtx *tx, const tg_buf *rec)
{
    if (tx->jfd < 0)
        return 0;
    return tg_write_all(tx->jfd, rec->data, rec->len) == 0 && fdatasync(tx->jfd) == 0 ? 0 : -1;
}

/* Records a change about to happen; -1 with err when the journal cannot take it. */
static int journal_op(tg_regtx *tx, char kind, const char *path, bool existed, const char *old,
                      size_t oldlen, tg_err *err)
{
    if (tx->jfd < 0)
        return 0;
    tg_buf r = TG_BUF_INIT;
    if (kind == 'W')
        tg_buf_printf(&r, "W %d %zu %zu\n", existed ? 1 : 0, strlen(path), oldlen);
    else
        tg_buf_printf(&r, "%c %zu\n", kind, strlen(path));
    tg_buf_puts(&r, path);
    if (oldlen)
        tg_buf_append(&r, old, oldlen);
    tg_buf_putc(&r, '\n');
    int rc = journal_put(tx, &r);
    tg_buf_free(&r);
    return rc == 0 ? 0 : tg_err_set(err, "cannot write %s: %s", TG_REGTX_JOURNAL, strerror(errno));
}

int tg_regtx_journal(tg_regtx *tx, const char *head, tg_err *err)
{
    mkdirat(tx->root_fd, ".toolgen", 0777);
    int fd = openat(tx->root_fd, TG_REGTX_JOURNAL, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return tg_err_set(err, "%s: %s%s", TG_REGTX_JOURNAL, strerror(errno),
                          errno == EEXIST ? " (another registry change is in progress; run the "
                                            "command again when it has ended)" : "");
    flock(fd, LOCK_EX); /* held while the transaction lives: recovery leaves it alone */
    tx->jfd = fd;
    tg_buf r = TG_BUF_INIT;
    tg_buf_printf(&r, JOURNAL_MAGIC "%s\n", head);
    int rc = journal_put(tx, &r);
    tg_buf_free(&r);
    if (rc != 0) {
        tg_err_set(err, "cannot write %s: %s", TG_REGTX_JOURNAL, strerror(errno));
        unlinkat(tx->root_fd, TG_REGTX_JOURNAL, 0);
        close(fd);
        tx->jfd = -1;
    }
    return rc;
}

/* The transaction is over (kept or undone): its journal goes. */
static void journal_end(tg_regtx *tx)
{
    if (tx->jfd < 0)
        return;
    unlinkat(tx->root_fd, TG_REGTX_JOURNAL, 0);
    close(tx->jfd);
    tx->jfd = -1;
}

void tg_regtx_keep_journal(tg_regtx *tx)
{
    if (tx->jfd >= 0)
        close(tx->jfd);
    tx->jfd = -1;
}

/* One record of text[*at..len) into tx; false at the end or at a record cut short. */
static bool journal_record(tg_regtx *tx, const char *text, size_t len, size_t *at)
{
    const char *p = text + *at, *nl = memchr(p, '\n', len - *at);
    if (!nl)
        return false;
    char kind = 0;
    int existed = 0;
    size_t plen = 0, olen = 0;
    bool ok = p[0] == 'W' ? sscanf(p, "W %d %zu %zu", &existed, &plen, &olen) == 3
                          : sscanf(p, "%c %zu", &kind, &plen) == 2 && (kind == 'M' || kind == 'R');
    size_t start = (size_t)(nl + 1 - text);
    if (!ok || plen == 0 || plen > len || olen > len || start + plen + olen + 1 > len ||
        text[start + plen + olen] != '\n')
        return false;
    tg_regtx_op *op = push(tx, "");
    free(op->path);
    op->path = xstrndup(text + start, plen);
    if (p[0] == 'W') {
        op->existed = existed == 1;
        op->oldlen = olen;
        op->old = xmalloc(olen + 1);
        memcpy(op->old, text + start + plen, olen);
        note_file(tx, op->path);
    } else {
        op->is_dir = true;
        op->created = kind == 'M';
    }
    *at = start + plen + olen + 1;
    return true;
}

int tg_regtx_recover_journal(int root_fd, tg_regtx *tx, char **head, tg_err *err)
{
    tg_regtx_init(tx, root_fd);
    *head = NULL;
    int fd = openat(root_fd, TG_REGTX_JOURNAL, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : tg_err_set(err, "%s: %s", TG_REGTX_JOURNAL, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) { /* its transaction still runs */
        close(fd);
        return 0;
    }
    size_t len = 0;
    char *text = tg_read_file_at(root_fd, TG_REGTX_JOURNAL, 0, &len, err);
    size_t magic = strlen(JOURNAL_MAGIC);
    const char *nl = text && len > magic ? memchr(text + magic, '\n', len - magic) : NULL;
    if (!text || strncmp(text, JOURNAL_MAGIC, magic) != 0 || !nl) {
        /* cut short before its header was whole: nothing was changed yet */
        free(text);
        tx->jfd = fd;
        journal_end(tx);
        return 0;
    }
    *head = xstrndup(text + magic, (size_t)(nl - text) - magic);
    size_t at = (size_t)(nl + 1 - text);
    while (journal_record(tx, text, len, &at))
        ;
    free(text);
    tx->jfd = fd;
    return 1;
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
        struct stat st;
        if (fstatat(tx->root_fd, p, &st, 0) != 0 && journal_op(tx, 'M', p, false, NULL, 0, err) != 0) {
            free(p);
            return -1;
        }
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
    if (journal_op(tx, 'W', path, exists, old, len, err) != 0) {
        free(old);
        return -1;
    }
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
    tg_err ignored = {0};
    if (journal_op(tx, 'R', path, false, NULL, 0, &ignored) == 0 &&
        unlinkat(tx->root_fd, path, AT_REMOVEDIR) == 0)
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
    journal_end(tx);
}

void tg_regtx_release(tg_regtx *tx)
{
    journal_end(tx);
    for (size_t i = 0; i < tx->n; i++) {
        free(tx->ops[i].path);
        free(tx->ops[i].old);
    }
    free(tx->ops);
    tg_strv_free(&tx->files);
    *tx = (tg_regtx){.root_fd = -1, .jfd = -1};
}
