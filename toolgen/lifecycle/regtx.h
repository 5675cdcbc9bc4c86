/*
 * regtx.h — an all-or-nothing set of file changes in the registry (docs/lifecycle.md "All or
 * nothing").
 *
 * Every write or removal first keeps the file's previous bytes in memory; tg_regtx_rollback
 * puts every file back as it was (written files restored or removed again, removed files
 * rewritten, folders the transaction created removed, folders it removed recreated), in reverse
 * order. A promotion changes a few small files, so memory is not a concern. Paths are relative
 * to the repository root (root_fd); the list of touched paths is what the promotion commits.
 *
 * Lifecycle: tg_regtx_init, then writes/removes, then tg_regtx_rollback on failure, and
 * tg_regtx_release in every case (release alone keeps the changes).
 */
#ifndef TG_REGTX_H
#define TG_REGTX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"

typedef struct tg_regtx_op {
    char *path;   /* the file or folder, relative to the root */
    bool is_dir;  /* a folder created (undo: rmdir) or removed (undo: mkdir) */
    bool created; /* is_dir: created by the transaction (else removed) */
    bool existed; /* file: it existed before (old holds its bytes) */
    char *old;
    size_t oldlen;
} tg_regtx_op;

typedef struct tg_regtx {
    int root_fd; /* borrowed */
    tg_regtx_op *ops;
    size_t n, cap;
    tg_strv files; /* every file path written or removed, once each, in order */
} tg_regtx;

void tg_regtx_init(tg_regtx *tx, int root_fd);
/* Writes path (atomically, creating missing parent folders) after keeping its old bytes. */
int tg_regtx_write(tg_regtx *tx, const char *path, const void *data, size_t len, tg_err *err);
/* Removes the file path after keeping its bytes; a missing file is not an error. */
int tg_regtx_remove(tg_regtx *tx, const char *path, tg_err *err);
/* Removes the folder path when empty (a non-empty or missing folder is left alone). */
void tg_regtx_rmdir(tg_regtx *tx, const char *path);
/* Moves every file below the folder from (recursively; hidden names included) to the same
 * place below to, then removes the emptied folders; a missing from is nothing to move. */
int tg_regtx_move_tree(tg_regtx *tx, const char *from, const char *to, tg_err *err);
/* Undoes every change, last first. Best effort: it does not stop at the first failure. */
void tg_regtx_rollback(tg_regtx *tx);
void tg_regtx_release(tg_regtx *tx);

#endif
