/* confine.c — refusing files that resolve outside the repository (see confine.h). */
#include "base/confine.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* real lies at or below root (both real paths). */
static bool below(const char *real, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return true;
    return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/*
 * Lexically inside the working directory: a relative path that never climbs above it, or an
 * absolute one below its real location. Symlinks are deliberately not followed here: where the
 * path leads is tg_confine's question.
 */
static bool inside_cwd(const char *path)
{
    if (path[0] == '/') {
        char cwd[PATH_MAX];
        return realpath(".", cwd) && below(path, cwd);
    }
    long depth = 0;
    for (const char *s = path; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            if (--depth < 0)
                return false;
        } else if (n > 0 && !(n == 1 && s[0] == '.')) {
            depth++;
        }
        s += n;
        while (*s == '/')
            s++;
    }
    return true;
}

char *tg_confine_root_of(const char *path)
{
    if (inside_cwd(path))
        return xstrdup(".");
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return xstrdup(path);
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

int tg_confine(const char *path, const char *const *roots, size_t nroots, const char *what,
               const char *where, tg_err *err)
{
    struct stat lst;
    char real[PATH_MAX];
    /* Missing, or a dangling link: the read that follows reports it ("cannot open"). */
    if (lstat(path, &lst) != 0 || !realpath(path, real))
        return 0;
    char first[PATH_MAX] = "";
    bool inside = false;
    for (size_t i = 0; i < nroots && !inside; i++) {
        char root[PATH_MAX];
        if (!realpath(roots[i], root))
            continue;
        if (!first[0])
            memcpy(first, root, sizeof first);
        inside = below(real, root);
    }
    if (!inside) {
        const char *how = S_ISLNK(lst.st_mode) ? "is a symlink to" : "resolves through a symlink to";
        return tg_err_setpos(err, path, 0, 0,
                             "%s %s, outside %s (%s); toolgen reads no %s from outside it: replace "
                             "the link with a copy of the file, or make it point inside (see "
                             "docs/manifest.md#files-outside-the-repository)",
                             how, real, where, first[0] ? first : nroots ? roots[0] : "?", what);
    }
    struct stat st;
    if (stat(real, &st) == 0 && !S_ISREG(st.st_mode))
        return tg_err_setpos(err, path, 0, 0, "is %s, not a file: the %s must be a regular file",
                             S_ISDIR(st.st_mode) ? "a directory" : "a FIFO, socket or device",
                             what);
    return 0;
}

int tg_confine_repo(const char *path, const char *anchor, const char *what, tg_err *err)
{
    char *root = tg_confine_root_of(anchor ? anchor : path);
    const char *roots[1] = {root};
    int rc = tg_confine(path, roots, 1, what,
                        strcmp(root, ".") == 0 ? "the repository" : "the folder given", err);
    free(root);
    return rc;
}
