/*
 * confine.h — the files toolgen reads on a repository's behalf stay inside the repository.
 *
 * A manifest, a tool's implementation or reference file and a run's input file are named by
 * paths inside the repository, but a symlink (the file itself, or a folder on the way) can make
 * such a path resolve anywhere: /etc/shadow, a root-only key. toolgen may run as root (CI), so
 * following the link would read what the repository's author cannot, and error messages about
 * the "manifest" would show its lines. So before such a file is read, its real location
 * (symlinks resolved) must lie inside the real location of an allowed root, and it must be a
 * regular file (not a directory, FIFO or device); otherwise the error names the file, what it
 * resolves to and the fix (docs/manifest.md#files-outside-the-repository).
 *
 * The repository is the folder relative paths are under: the *_in forms take its absolute path
 * as base (model/repo.h: the repository's root, so the check does not depend on the working
 * directory); the plain forms use the working directory. A path given on the command line that
 * lies outside it (`toolgen lint /elsewhere/x`) is confined to its own folder instead.
 *
 * The check precedes the read: it keeps a repository's links from reaching out, not a local
 * attacker who swaps a file for a link between the two.
 */
#ifndef TG_CONFINE_H
#define TG_CONFINE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/*
 * 0 when path resolves inside one of roots (each a folder; a root that does not exist is
 * skipped) and is a regular file, or when path does not exist (reading it reports that);
 * -1 with err (file = path) otherwise. what names the file in the message ("manifest",
 * "implementation file"); where names the roots ("the repository").
 */
int tg_confine(const char *path, const char *const *roots, size_t nroots, const char *what,
               const char *where, tg_err *err);
/* tg_confine with relative paths (path and roots) under the folder base (NULL: cwd). */
int tg_confine_in(const char *base, const char *path, const char *const *roots, size_t nroots,
                  const char *what, const char *where, tg_err *err);

/*
 * The root a path is confined to: "." (the repository) when the path lies inside the working
 * directory, else the path's own folder. Heap string.
 */
char *tg_confine_root_of(const char *path);
/* tg_confine_root_of with the repository at base (NULL: cwd). */
char *tg_confine_root_of_in(const char *base, const char *path);

/*
 * tg_confine with the one root tg_confine_root_of(anchor): anchor is the path as the user named
 * it (NULL: path itself), e.g. the manifest's folder for the code file it names, so that a path
 * composed with ".." cannot pick its own root.
 */
int tg_confine_repo(const char *path, const char *anchor, const char *what, tg_err *err);
/* tg_confine_repo with the repository at base (NULL: cwd). */
int tg_confine_repo_in(const char *base, const char *path, const char *anchor, const char *what,
                       tg_err *err);

/* A name written in a repository's files for one of its files (a declared resource, a prompt's
 * part): relative, at most max bytes, no empty, "." or ".." component and no hidden one. Only
 * the spelling: tg_confine_repo checks where it leads. */
bool tg_path_is_plain(const char *s, size_t max);

#endif
