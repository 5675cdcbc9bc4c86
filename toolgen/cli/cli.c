/* cli.c — helpers shared by the commands. */
#include "cli/cli.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *repo_dir; /* NULL: "." */

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

const char *cli_dir(void)
{
    return repo_dir ? repo_dir : ".";
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
