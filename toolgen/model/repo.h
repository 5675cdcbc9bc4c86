/*
 * repo.h — one repository: its root directory, open once, and its configuration.
 *
 * Library code never relies on the process's current directory: every file of a repository is
 * reached relative to its root directory fd (the *_at helpers of base/util.h), so one process
 * can work on several repositories, in several threads, while its working directory is
 * anywhere (`toolgen -C DIR`, the server). The absolute path is there only for what needs a
 * path rather than an fd: messages, the sandbox's bind mounts, libgit2, and the confinement
 * check (base/confine.h), which compares real paths. Paths inside toolgen stay relative to the
 * root ("manifests/x/tool.manifest.yaml", ".toolgen/log"), as users see them in messages.
 *
 * Lifecycle: tg_repo_open (or tg_repo_open_dir) fills a caller-owned struct; tg_repo_release
 * closes the fd and frees the strings and the config. A repository is read-only after opening,
 * so threads may share one.
 */
#ifndef TG_REPO_H
#define TG_REPO_H

#include <stdbool.h>

#include "base/util.h"
#include "model/config.h"

typedef struct tg_repo {
    int root_fd;      /* the root directory, O_DIRECTORY|O_CLOEXEC; -1 when not open */
    char *path;       /* its absolute real path (symlinks resolved) */
    tg_config cfg;    /* toolgen.yaml with defaults; all zero after tg_repo_open_dir */
    bool have_config; /* cfg was loaded (tg_repo_open) */
} tg_repo;

/*
 * Opens the repository at dir (relative to the current directory, or absolute) and loads its
 * toolgen.yaml. 0, or -1 with err: dir is not a directory (err names it), or the config is
 * unusable (err as tg_config_load; the repository is then released).
 */
int tg_repo_open(tg_repo *r, const char *dir, tg_err *err);

/* Opens dir like tg_repo_open without loading toolgen.yaml (lint checks that file itself). */
int tg_repo_open_dir(tg_repo *r, const char *dir, tg_err *err);
/* Loads the config of a repository opened with tg_repo_open_dir (once: a no-op when loaded).
 * 0, or -1 with err as tg_config_load (the repository stays open, without config). */
int tg_repo_load_config(tg_repo *r, tg_err *err);

/* Closes the root fd and frees what the repository owns; r is all zero (root_fd -1) after. */
void tg_repo_release(tg_repo *r);

#endif
