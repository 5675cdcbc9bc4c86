/* test_recover.c — a registry change a killed process left is finished or undone
 * (lifecycle/recover.h), git's lock files of the killed change included. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lifecycle/recover.h"
#include "lifecycle/regtx.h"
#include "testlib.h"

static char dir[64];

static void sh(const char *fmt, const char *arg)
{
    char *cmd = xasprintf(fmt, dir, arg);
    SETUP(system(cmd) == 0, "%s", cmd);
    free(cmd);
}

static bool exists(const char *rel)
{
    char *p = tg_path_join(dir, rel);
    bool yes = access(p, F_OK) == 0;
    free(p);
    return yes;
}

/* A lock file at rel whose mtime is offset seconds from now. */
static void lock_file(const char *rel, int offset)
{
    char *p = tg_path_join(dir, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    SETUP(fd >= 0, "create %s", p);
    struct timespec now, times[2];
    clock_gettime(CLOCK_REALTIME, &now);
    times[0] = times[1] = (struct timespec){now.tv_sec + offset, now.tv_nsec};
    SETUP(futimens(fd, times) == 0, "futimens");
    close(fd);
    free(p);
}

/* What a promotion killed after its commit leaves: the journal, the file, HEAD moved. The child
 * ends without releasing its transaction, as a killed process would. */
static void killed_after_commit(const char *content)
{
    char head[41] = "";
    char *cmd = xasprintf("git -C '%s' rev-parse HEAD", dir);
    FILE *f = popen(cmd, "r");
    SETUP(f && fgets(head, sizeof head, f), "rev-parse");
    pclose(f);
    free(cmd);
    pid_t pid = fork();
    if (pid == 0) {
        tg_repo r;
        tg_err err = {0};
        tg_regtx tx;
        if (tg_repo_open_dir(&r, dir, &err) != 0)
            _exit(1);
        tg_regtx_init(&tx, r.root_fd);
        if (tg_regtx_journal(&tx, head, &err) != 0 ||
            tg_regtx_write(&tx, "registry/tool.txt", content, strlen(content), &err) != 0)
            _exit(2);
        char *commit = xasprintf("cd '%s' && git add registry/tool.txt && "
                                 "git -c user.name=t -c user.email=t@t commit -qm promote", dir);
        _exit(system(commit) == 0 ? 0 : 3);
    }
    int st = 0;
    SETUP(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "the killed change: %d", st);
}

static void test_stale_locks(void)
{
    tg_repo r;
    tg_err err = {0};
    killed_after_commit("v2\n");
    /* the killed change's own locks (made after its journal), and somebody else's older one */
    sh("git -C '%s' reset -q HEAD~1 -- registry/tool.txt%s", ""); /* the index it did not write */
    lock_file(".git/index.lock", 5);
    lock_file(".git/refs/heads/main.lock", 5);
    lock_file(".git/packed-refs.lock", -3600);
    SETUP(tg_repo_open_dir(&r, dir, &err) == 0, "open: %s", err.msg);
    const char *what = NULL;
    CHECK(tg_registry_recover(&r, &what, &err) == 0, "recovered: %s", err.msg);
    CHECK(what && strcmp(what, "finished") == 0, "finished: %s", what ? what : "");
    CHECK(!exists(".git/index.lock") && !exists(".git/refs/heads/main.lock"),
          "the killed change's locks are gone");
    CHECK(exists(".git/packed-refs.lock"), "an older lock is somebody else's: kept");
    CHECK(!exists(TG_REGTX_JOURNAL), "the journal is gone");
    char *cmd = xasprintf("git -C '%s' diff --cached --quiet", dir);
    CHECK(system(cmd) == 0, "the index is HEAD's");
    free(cmd);
    tg_repo_release(&r);
    sh("rm -f '%s'/.git/packed-refs.lock%s", "");

    /* an index lock older than the journal is not the change's: recovery fails, says why, and
     * keeps the journal for the next command */
    killed_after_commit("v3\n");
    sh("git -C '%s' reset -q HEAD~1 -- registry/tool.txt%s", "");
    lock_file(".git/index.lock", -3600);
    SETUP(tg_repo_open_dir(&r, dir, &err) == 0, "open: %s", err.msg);
    CHECK(tg_registry_recover(&r, &what, &err) == -1, "not recovered past a foreign lock");
    CHECK_CONTAINS(err.msg, "index");
    CHECK(exists(".git/index.lock") && exists(TG_REGTX_JOURNAL), "the lock and the journal stay");
    sh("rm -f '%s'/.git/index.lock%s", "");
    tg_err_clear(&err);
    CHECK(tg_registry_recover(&r, &what, &err) == 0 && strcmp(what, "finished") == 0,
          "the next command finishes it: %s", err.msg);
    CHECK(!exists(TG_REGTX_JOURNAL), "then the journal is gone");
    tg_repo_release(&r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tg-recover-%ld", (long)getpid());
    sh("rm -rf '%s' && mkdir -p '%s'/registry", dir);
    sh("cd '%s' && git init -q -b main && mkdir .toolgen && echo v1 > registry/tool.txt%s", "");
    sh("cd '%s' && git add -A && git -c user.name=t -c user.email=t@t commit -qm base%s", "");
    test_stale_locks();
    sh("rm -rf '%s'%s", "");
    return tl_finish("test_recover");
}
