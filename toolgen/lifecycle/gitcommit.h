/*
 * gitcommit.h — commits made and read by toolgen with libgit2 (docs/lifecycle.md "The
 * promotion commit").
 *
 * tg_git_commit_paths commits exactly the listed paths as they are in the working tree (present:
 * added or updated; absent: removed) on top of HEAD's tree, whatever else the working tree or
 * the index holds: other staged or unstaged changes are neither committed nor lost. It works on
 * a branch, on a detached HEAD and on an unborn branch (the first commit). HEAD moves only
 * after the commit object exists, and the index is written last; if that fails, HEAD is put
 * back, so a failure leaves HEAD and the index as they were.
 *
 * A path may instead be committed with given bytes (an override): the commit and the index get
 * those bytes, the working tree keeps its own. A promotion uses it for a file several tools
 * share, so that only the promoted tool's part is committed (docs/lifecycle.md "The promotion
 * commit"); `git status` then shows the rest as the unstaged change it is.
 */
#ifndef TG_GITCOMMIT_H
#define TG_GITCOMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/strvec.h"

#include "base/util.h"
#include "model/repo.h"

typedef struct tg_git_override {
    const char *path; /* one of the request's paths */
    const char *data; /* the bytes to commit for it (borrowed) */
    size_t len;
} tg_git_override;

typedef struct tg_git_commit_req {
    const char *const *paths; /* relative to the repository's root */
    size_t npaths;
    const tg_git_override *overrides; /* may be NULL */
    size_t noverrides;
    const char *message;      /* the whole message, trailers included */
    const char *author_name;  /* NULL: the repository's user.name, else "toolgen" */
    const char *author_email; /* NULL: the repository's user.email, else "toolgen@localhost" */
    const char *branch;       /* NULL: wherever HEAD is; else HEAD must be on this branch */
    /* Tests only: fail on purpose at "commit" (before the commit object), "ref" (before HEAD
     * moves) or "index" (after HEAD moved, before the index is written). NULL in real use. */
    const char *fail_at;
} tg_git_commit_req;

/*
 * Makes the commit; out_oid gets its 40 hex digits. 0, -1 with err, or -2 with err when the
 * repository is not inside a git working tree (nothing was touched).
 */
int tg_git_commit_paths(const tg_repo *repo, const tg_git_commit_req *req, char out_oid[41],
                        tg_err *err);

/* The commit HEAD points at (40 hex digits; "" on an unborn branch). 0, -1, or -2 outside git. */
int tg_git_head(const tg_repo *repo, char out_oid[41], tg_err *err);
/*
 * Sets the index entries of paths (relative to the root) to HEAD's version — removed where HEAD
 * has none — as `git reset -- PATHS` does: what finishing a promotion whose commit was made but
 * whose index was not written needs. 0, -1 with err, or -2 outside git.
 */
int tg_git_index_to_head(const tg_repo *repo, const char *const *paths, size_t n, tg_err *err);
/*
 * Removes the lock files git leaves when a process is killed while it writes the index, HEAD,
 * the branch, their reflogs or packed-refs — only those made at or after since (the last write
 * of the killed change's journal, which git's part of a change follows), which are that change's
 * own: an older lock belongs to somebody else.
 * Without this a promotion killed inside git would block every later one ("the index is
 * locked"). 0, -1 with err, or -2 outside git.
 */
/* Makes dir a git repository (`git init`) unless it is inside a git working tree already;
 * *created says which. 0, or -1 with err. */
int tg_git_init(const char *dir, bool *created, tg_err *err);
int tg_git_clear_stale_locks(const tg_repo *repo, const struct timespec *since, tg_err *err);

typedef struct tg_git_logent {
    char oid[41];
    long long time; /* author time, seconds since the epoch */
    char *author;   /* "Name <email>" */
    char *message;  /* the whole message */
} tg_git_logent;

typedef struct tg_git_log {
    tg_git_logent *v;
    size_t n, cap;
} tg_git_log;

/*
 * The commits reachable from HEAD whose message starts with prefix (e.g. "promote "), newest
 * first, at most max (0: all). An unborn branch has none. 0, -1 with err, or -2 with err outside
 * a git working tree.
 */
int tg_git_log_grep(const tg_repo *repo, const char *prefix, size_t max, tg_git_log *out,
                    tg_err *err);
void tg_git_log_free(tg_git_log *l);

#endif
