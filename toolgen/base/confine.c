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
static bool inside_base(const char *base, const char *path)
{
    if (path[0] == '/') {
        char cwd[PATH_MAX];
        return realpath(base ? base : ".", cwd) && below(path, cwd);
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

/* path as the kernel should see it: relative paths are under base (NULL: the working
 * directory). Heap string. */
static char *under(const char *base, const char *path)
{
    return base && path[0] != '/' ? tg_path_join(base, path) : xstrdup(path);
}

/* Some folder on the way to path (under base) is a symlink: only then does the path "resolve
 * through a symlink". */
static bool through_link(const char *base, const char *path)
{
    char *full = under(base, path);
    bool found = false;
    for (char *p = full + 1; *p && !found; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        struct stat st;
        found = lstat(full, &st) == 0 && S_ISLNK(st.st_mode);
        *p = '/';
    }
    free(full);
    return found;
}

char *tg_confine_root_of(const char *path)
{
    return tg_confine_root_of_in(NULL, path);
}

char *tg_confine_root_of_in(const char *base, const char *path)
{
    if (inside_base(base, path))
        return xstrdup(".");
    struct stat st;
    char *full = under(base, path);
    bool dir = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
    free(full);
    if (dir)
        return xstrdup(path);
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

int tg_confine(const char *path, const char *const *roots, size_t nroots, const char *what,
               const char *where, tg_err *err)
{
    return tg_confine_in(NULL, path, roots, nroots, what, where, err);
}

/* realpath of path under base; false when it does not resolve. */
static bool real_under(const char *base, const char *path, char real[PATH_MAX])
{
    char *full = under(base, path);
    bool ok = realpath(full, real) != NULL;
    free(full);
    return ok;
}

int tg_confine_in(const char *base, const char *path, const char *const *roots, size_t nroots,
                  const char *what, const char *where, tg_err *err)
{
    struct stat lst;
    char real[PATH_MAX];
    char *full = under(base, path);
    bool exists = lstat(full, &lst) == 0;
    free(full);
    /* Missing, or a dangling link: the read that follows reports it ("cannot open"). */
    if (!exists || !real_under(base, path, real))
        return 0;
    char first[PATH_MAX] = "";
    bool inside = false;
    for (size_t i = 0; i < nroots && !inside; i++) {
        char root[PATH_MAX];
        if (!real_under(base, roots[i], root))
            continue;
        if (!first[0])
            memcpy(first, root, sizeof first);
        inside = below(real, root);
    }
    if (!inside) {
        bool link = S_ISLNK(lst.st_mode), through = !link && through_link(base, path);
        const char *how = link ? "is a symlink to" : through ? "resolves through a symlink to"
                                                            : "resolves to";
        return tg_err_setpos(err, path, 0, 0,
                             "%s %s, outside %s (%s); toolgen reads no %s from outside it: %s (see "
                             "docs/manifest.md#files-outside-the-repository)",
                             how, real, where, first[0] ? first : nroots ? roots[0] : "?", what,
                             link || through ? "replace the link with a copy of the file, or "
                                               "make it point inside"
                                             : "name a file inside it (no '..' out of it)");
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
    return tg_confine_repo_in(NULL, path, anchor, what, err);
}

int tg_confine_repo_in(const char *base, const char *path, const char *anchor, const char *what,
                       tg_err *err)
{
    char *root = tg_confine_root_of_in(base, anchor ? anchor : path);
    const char *roots[1] = {root};
    int rc = tg_confine_in(base, path, roots, 1, what,
                        strcmp(root, ".") == 0 ? "the repository" : "the folder given", err);
    free(root);
    return rc;
}

bool tg_path_is_plain(const char *s, size_t max)
{
    size_t len = strlen(s);
    if (!len || s[0] == '/' || s[len - 1] == '/' || len > max)
        return false;
    for (const char *c = s; *c;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 0 || c[0] == '.')
            return false;
        c += n + (slash ? 1 : 0);
    }
    return true;
}
