/* repo.c — a repository's root fd, path and config (see repo.h). */
#include "model/repo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tg_repo_open_dir(tg_repo *r, const char *dir, tg_err *err)
{
    *r = (tg_repo){.root_fd = -1};
    char real[PATH_MAX];
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !realpath(dir, real)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return tg_err_set(err, "%s: %s", dir, strerror(e));
    }
    r->root_fd = fd;
    r->path = xstrdup(real);
    return 0;
}

int tg_repo_load_config(tg_repo *r, tg_err *err)
{
    if (r->have_config)
        return 0;
    if (tg_config_load(&r->cfg, r->root_fd, r->path, err) != 0)
        return -1;
    r->have_config = true;
    return 0;
}

int tg_repo_open(tg_repo *r, const char *dir, tg_err *err)
{
    if (tg_repo_open_dir(r, dir, err) != 0)
        return -1;
    if (tg_repo_load_config(r, err) != 0) {
        tg_repo_release(r);
        return -1;
    }
    return 0;
}

void tg_repo_release(tg_repo *r)
{
    if (r->root_fd >= 0)
        close(r->root_fd);
    free(r->path);
    if (r->have_config)
        tg_config_free(&r->cfg);
    *r = (tg_repo){.root_fd = -1};
}
