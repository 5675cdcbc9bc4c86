/*
 * gitstatus.h — what differs between a directory of the working tree and the last commit
 * (libgit2), for `toolgen check`.
 */
#ifndef TG_GITSTATUS_H
#define TG_GITSTATUS_H

#include <stddef.h>

#include "base/util.h"
#include "model/repo.h"

typedef enum tg_git_change_kind {
    TG_GIT_ADDED,     /* in the index, not in the commit */
    TG_GIT_UNTRACKED, /* in the working tree only */
    TG_GIT_REMOVED,   /* in the commit, not in the working tree (or index) */
    TG_GIT_CHANGED,   /* content, type or name differs */
} tg_git_change_kind;

typedef struct tg_git_change {
    char *path; /* relative to the repository's root */
    tg_git_change_kind kind;
} tg_git_change;

typedef struct tg_git_changes {
    tg_git_change *v;
    size_t n, cap;
} tg_git_changes;

void tg_git_changes_free(tg_git_changes *c);
const char *tg_git_change_name(tg_git_change_kind k);

/*
 * Compares dir (relative to the repository's root, which must be inside a git working tree)
 * with HEAD: staged and unstaged changes, and untracked files (recursively; ignored files are
 * not reported); paths come out relative to the repository's root. Returns 0, -1 with err on
 * failure, or -2 with err when the repository is not inside a git working tree.
 */
int tg_git_status_dir(const tg_repo *repo, const char *dir, tg_git_changes *out, tg_err *err);
/* 0 when the repository is inside a git working tree, else -2 with err (as above). */
int tg_git_probe(const tg_repo *repo, tg_err *err);

#endif
