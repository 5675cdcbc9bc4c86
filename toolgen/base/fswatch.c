/* fswatch.c — inotify watches on folder trees (fswatch.h). */
#include "base/fswatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

/* What changes a folder's listing or its files' contents and facts; reads (IN_ACCESS, IN_OPEN,
 * IN_CLOSE_NOWRITE) are left out, so the reader's own reads raise nothing. */
#define WATCH_MASK                                                                            \
    (IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM |         \
     IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

void tg_fswatch_init(tg_fswatch *w)
{
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->missed = false;
    w->off = w->fd < 0;
}

/* One folder; false when the watch could not be added for another reason than its absence. */
static bool watch_one(tg_fswatch *w, const char *dir)
{
    if (w->off || w->fd < 0)
        return false;
    if (inotify_add_watch(w->fd, dir, WATCH_MASK) >= 0 || errno == ENOENT || errno == ENOTDIR)
        return true;
    w->missed = true; /* e.g. ENOSPC: the kernel's limit on watches */
    return false;
}

static void watch_tree(tg_fswatch *w, const char *dir, int depth)
{
    if (!watch_one(w, dir) || depth <= 1)
        return;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = tg_path_join(dir, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            watch_tree(w, sub, depth - 1);
        free(sub);
    }
    if (d)
        closedir(d);
}

void tg_fswatch_add_tree(tg_fswatch *w, const char *dir, int depth)
{
    const char *slash = strrchr(dir, '/');
    if (slash) {
        char *parent = slash == dir ? xstrdup("/") : xstrndup(dir, (size_t)(slash - dir));
        watch_one(w, parent);
        free(parent);
    }
    watch_tree(w, dir, depth);
}

bool tg_fswatch_changed(tg_fswatch *w)
{
    if (w->off || w->fd < 0)
        return true;
    bool any = w->missed;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n > 0) {
            any = true; /* any event, IN_Q_OVERFLOW included, means "look" */
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        break; /* EAGAIN: drained */
    }
    return any;
}

void tg_fswatch_rearm(tg_fswatch *w)
{
    bool off = w->off;
    tg_fswatch_close(w);
    if (!off)
        tg_fswatch_init(w);
    w->off = off;
}

void tg_fswatch_close(tg_fswatch *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    w->missed = false;
}
