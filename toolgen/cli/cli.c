/* cli.c — helpers shared by the commands. */
#include "cli/cli.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *repo_dir; /* -C DIR; NULL: the folder found from the current one */

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("toolgen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_print_usage(const char *usage, int code)
{
    fputs(usage, code == TG_EXIT_OK ? stdout : stderr);
    return code;
}

static bool holds(const char *dir, const char *name, bool want_dir)
{
    char *p = tg_path_join(dir, name);
    bool yes = want_dir ? tg_is_dir(p) : tg_is_file(p);
    free(p);
    return yes;
}

/* The nearest folder at or above the current one that holds toolgen.yaml or manifests/, as
 * git finds its repository from a subfolder; the search stops at a folder holding .git (the
 * top of a git repository). NULL when it is the current folder, or none is. */
static char *find_root(void)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    char *dir = xstrdup(cwd);
    for (;;) {
        if (holds(dir, "toolgen.yaml", false) || holds(dir, "manifests", true)) {
            if (strcmp(dir, cwd) != 0)
                return dir;
            break;
        }
        char *slash = strrchr(dir, '/');
        if (holds(dir, ".git", true) || holds(dir, ".git", false) || !slash || slash == dir)
            break;
        *slash = '\0';
    }
    free(dir);
    return NULL;
}

const char *cli_dir(void)
{
    static bool searched;
    static char *found;
    if (repo_dir)
        return repo_dir;
    if (!searched) {
        searched = true;
        found = find_root();
    }
    return found ? found : ".";
}

char *cli_user_path(const char *path)
{
    return path[0] == '/' || !repo_dir ? xstrdup(path) : tg_path_join(repo_dir, path);
}

int cli_set_dir(const char *dir)
{
    char *p = cli_user_path(dir);
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        free(p);
        return -1;
    }
    close(fd);
    free(repo_dir);
    repo_dir = p;
    return 0;
}

int cli_repo_open(tg_repo *r, tg_err *err)
{
    return tg_repo_open_dir(r, cli_dir(), err);
}
