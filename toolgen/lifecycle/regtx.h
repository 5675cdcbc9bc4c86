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
 *
 * A process killed in the middle cannot roll back from memory, so a transaction can also keep
 * a journal on disk (tg_regtx_journal): .toolgen/registry.journal holds, written and synced
 * before each change, what rollback needs (the old bytes, the folders made), and the git HEAD
 * the transaction started from. It is removed by tg_regtx_release and tg_regtx_rollback, and
 * locked (flock) while its transaction lives. The next registry command finds a journal whose
 * lock is free — its process is gone — and finishes or undoes the transaction
 * (lifecycle/recover.h, docs/reliability.md).
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
    int jfd;       /* the journal while it is kept (tg_regtx_journal); -1: none */
} tg_regtx;

#define TG_REGTX_JOURNAL ".toolgen/registry.journal"

void tg_regtx_init(tg_regtx *tx, int root_fd);
/*
 * Keeps the journal from now on (call it before the first change). head is the commit the
 * transaction's own commit will follow ("" for an unborn branch), or "-" when it makes no
 * commit (recovery then always undoes it). -1 with err when it cannot be written, or when a
 * journal is there already (another change in progress).
 */
int tg_regtx_journal(tg_regtx *tx, const char *head, tg_err *err);
/* Closes the journal and leaves it on disk: a recovery that could not finish leaves the work to
 * the next registry command. */
void tg_regtx_keep_journal(tg_regtx *tx);
/*
 * The journal a killed process left: 1 with tx filled (its ops; tx->files the paths) and *head
 * (heap) — the caller rolls back (tg_regtx_rollback, which removes the journal) or keeps the
 * changes (tg_regtx_release, which removes it too) —; 0 when there is none or its transaction
 * still runs; -1 with err when it cannot be read.
 */
int tg_regtx_recover_journal(int root_fd, tg_regtx *tx, char **head, tg_err *err);
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
