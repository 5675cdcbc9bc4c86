/* recover.c — a half-done registry change finished or undone (see recover.h). */
#include "lifecycle/recover.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lifecycle/gitcommit.h"
#include "lifecycle/regtx.h"

/* The temporary files of atomic writes to path ("PATH.tmp.XXXXXX", base/util.h) a kill left. */
static void remove_temporaries(int root_fd, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
    char *prefix = xasprintf("%s.tmp.", slash ? slash + 1 : path);
    DIR *d = tg_opendir_at(root_fd, dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    free(prefix);
    free(dir);
}

int tg_registry_recover(const tg_repo *repo, const char **what, tg_err *err)
{
    tg_regtx tx;
    char *head = NULL;
    const char *done = "none";
    int found = tg_regtx_recover_journal(repo->root_fd, &tx, &head, err);
    if (found < 0)
        return -1;
    int rc = 0;
    struct stat journal;
    /* best effort: a lock it cannot clear makes the step below fail and say so */
    if (found == 1 && fstatat(repo->root_fd, TG_REGTX_JOURNAL, &journal, 0) == 0)
        tg_git_clear_stale_locks(repo, &journal.st_mtim, err);
    tg_err_clear(err);
    if (found == 1) {
        for (size_t i = 0; i < tx.files.n; i++)
            remove_temporaries(repo->root_fd, tx.files.v[i]);
        char now[41] = "";
        bool moved = strcmp(head, "-") != 0 && tg_git_head(repo, now, err) == 0 &&
                     strcmp(now, head) != 0;
        tg_err_clear(err);
        if (moved) { /* committed: the index is all the command had left to write */
            rc = tg_git_index_to_head(repo, (const char *const *)tx.files.v, tx.files.n, err);
            done = "finished";
            if (rc < 0) /* the next command tries again */
                tg_regtx_keep_journal(&tx);
        } else {
            tg_regtx_rollback(&tx);
            done = "undone";
        }
    }
    tg_regtx_release(&tx); /* removes the journal */
    free(head);
    if (what)
        *what = done;
    return rc < 0 ? -1 : 0;
}
