/*
 * gitrev.h — files of the repository at a revision, read through libgit2 without checking out
 * (docs/review.md). A revision is a commit's tree or the working tree; both are read with the
 * same calls, so `toolgen diff` compares any two of them.
 *
 * Paths are relative to the toolgen repository's root (which may be a subfolder of the git
 * working tree), as everywhere in toolgen. A tg_gitrev belongs to one thread at a time.
 */
#ifndef TG_GITREV_H
#define TG_GITREV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"
#include "model/repo.h"

typedef struct tg_gitrev tg_gitrev;

/* One side of a comparison. Owned strings; release with tg_rev_release. */
typedef struct tg_rev {
    char *label;   /* as typed ("main", "HEAD~1"), or "working tree" */
    char oid[41];  /* the commit's full id; "" for the working tree */
    bool worktree; /* read from the disk (under the repository's root fd) */
    void *tree;    /* the commit's tree (private to gitrev.c); NULL for the working tree */
} tg_rev;

/*
 * Opens the git repository holding repo (repo->path or a parent). 0; -2 with err when repo is not
 * inside a git working tree (or the repository is bare); -1 with err otherwise. *out is owned by
 * the caller: tg_gitrev_close. Every tg_rev must be released before the tg_gitrev is closed.
 */
int tg_gitrev_open(const tg_repo *repo, tg_gitrev **out, tg_err *err);
void tg_gitrev_close(tg_gitrev *g);

/* The working tree as a revision. */
void tg_rev_worktree(tg_rev *out);
/*
 * Resolves a revision spec (anything `git rev-parse` takes that names a commit: a branch, a tag,
 * an id, HEAD~2, main^) to its commit. -1 with err naming spec and the fix when it names nothing
 * or not a commit.
 */
int tg_gitrev_resolve(tg_gitrev *g, const char *spec, tg_rev *out, tg_err *err);
/*
 * The merge base of HEAD with the default branch: branch when not NULL, else what origin/HEAD
 * points at, else main, else master; HEAD itself when none of these exists. -1 with err when
 * HEAD has no commit yet or the branch does not exist.
 */
int tg_gitrev_merge_base(tg_gitrev *g, const char *branch, tg_rev *out, tg_err *err);
void tg_rev_release(tg_rev *r);

/*
 * Reads the file at path in rev: 1 with *data (heap, NUL-terminated, caller frees) and *len;
 * 0 when there is no such file; -1 with err (a read failure, or a file over max_bytes).
 * In the working tree, a file whose real path leaves the repository is refused (base/confine.h).
 */
int tg_gitrev_read(tg_gitrev *g, const tg_rev *rev, const char *path, size_t max_bytes,
                   char **data, size_t *len, tg_err *err);
/*
 * The git object id of the file or folder at path in rev, as 40 hex digits: 1 found, 0 absent,
 * -1 with err. In the working tree only regular files have one (hashed as git would store
 * them); a symlink or a folder there is reported absent, so callers fall back to reading
 * through tg_gitrev_read, which confines.
 */
int tg_gitrev_object_id(tg_gitrev *g, const tg_rev *rev, const char *path, char out[41],
                        tg_err *err);
/* Appends the names of the subfolders of dir in rev (hidden ones aside), sorted. 0 or -1. */
int tg_gitrev_list_dirs(tg_gitrev *g, const tg_rev *rev, const char *dir, tg_strv *out,
                        tg_err *err);
/* Appends the paths (relative to the repository's root) of every file under dir in rev,
 * recursively, sorted. A missing dir appends nothing. 0 or -1. */
int tg_gitrev_list_files(tg_gitrev *g, const tg_rev *rev, const char *dir, tg_strv *out,
                         tg_err *err);

/*
 * Appends the paths (relative to the repository's root) under dir that differ between a and b,
 * sorted: what git diff would list, untracked files of a working tree included. a must be a
 * commit; b a commit or the working tree, compared through the index's stat cache as git does,
 * so unchanged files are not read. 0 or -1 with err.
 */
int tg_gitrev_changed_paths(tg_gitrev *g, const tg_rev *a, const tg_rev *b, const char *dir,
                            tg_strv *out, tg_err *err);

#endif
