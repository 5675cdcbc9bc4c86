/*
 * cmdrunner.c — the command runner's loop (cmdrunner.h): pid 1 of a command worker's sandbox,
 * one forked child per call (cmdrunner_call.c), then what runner_warm.py does after a call:
 * every process the call left killed and reaped, /tmp and /dev/shm emptied, the kept font-cache
 * folder restored. Single-threaded; it runs inside the sandbox only and ends at EOF on fd 4.
 */
#define _GNU_SOURCE
#include "run/cmdrunner_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/util.h"

enum { CTL_FD = 4, LINE_MAX_BYTES = 1 << 20, FDS_MAX = 16 };

/* What a worker keeps in /tmp between calls: the font cache toolgen may provide there
 * (docs/sandbox.md#the-runner). */
#define KEEP_IN_TMP "matplotlib"

/* ---- the control socket ------------------------------------------------------------------ */

typedef struct ctl {
    int fd;
    tg_buf in; /* bytes read past the last line */
} ctl;

static void ctl_send(ctl *c, const char *line)
{
    size_t n = strlen(line), off = 0;
    while (off < n) {
        ssize_t w = send(c->fd, line + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(0); /* toolgen went away */
        off += (size_t)w;
    }
}

static void send_ready(ctl *c, bool reuse)
{
    ctl_send(c, reuse ? "{\"ready\":true,\"preloaded\":false,\"reuse\":true}\n"
                      : "{\"ready\":true,\"preloaded\":false,\"reuse\":false}\n");
}

/* Whether a whole line is buffered. */
static bool ctl_has_line(const ctl *c)
{
    return memchr(c->in.data, '\n', c->in.len) != NULL;
}

/*
 * The next message: its JSON (NULL with *eof at EOF or past LINE_MAX_BYTES; NULL without it for
 * a line that is not JSON), with the descriptors that came with its bytes in fds (at most
 * FDS_MAX, close-on-exec). Blocks.
 */
static cJSON *ctl_read(ctl *c, int *fds, int *nfds, bool *eof)
{
    *nfds = 0;
    *eof = false;
    while (!ctl_has_line(c)) {
        char data[65536];
        char cbuf[CMSG_SPACE(FDS_MAX * sizeof(int))];
        struct iovec iov = {data, sizeof data};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof cbuf};
        ssize_t n = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
            if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
                continue;
            size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            int got[FDS_MAX];
            memcpy(got, CMSG_DATA(cm), k * sizeof(int));
            for (size_t i = 0; i < k; i++) {
                if (*nfds < FDS_MAX)
                    fds[(*nfds)++] = got[i];
                else
                    close(got[i]);
            }
        }
        if (n <= 0 || c->in.len + (size_t)n > LINE_MAX_BYTES) {
            *eof = true;
            return NULL;
        }
        tg_buf_append(&c->in, data, (size_t)n);
    }
    char *nl = memchr(c->in.data, '\n', c->in.len);
    size_t len = (size_t)(nl - c->in.data);
    cJSON *msg = cJSON_ParseWithLength(c->in.data, len);
    memmove(c->in.data, nl + 1, c->in.len - len - 1);
    tg_buf_setlen(&c->in, c->in.len - len - 1);
    return msg;
}

static void close_all(const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/* ---- one call ---------------------------------------------------------------------------- */

static void kill_call(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

/* Whether the call's child has ended (p: the poll entry of its pidfd, when it has one). */
static bool child_ended(pid_t pid, int pidfd, const struct pollfd *p)
{
    if (pidfd >= 0)
        return p->revents != 0;
    siginfo_t si = {0};
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * Waits for the call's child, killing its process group when toolgen says so; fills *status
 * and *ru. false: toolgen went away (the call killed).
 */
static bool supervise(ctl *c, pid_t pid, int *status, struct rusage *ru)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    bool on = true;
    for (;;) {
        if (!ctl_has_line(c)) {
            struct pollfd pf[2] = {{c->fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
            /* without pidfds (before Linux 5.3) the child is looked at every 10 ms */
            int got = poll(pf, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 10);
            if ((got < 0 && errno != EINTR) || child_ended(pid, pidfd, &pf[1]))
                break;
            if (got <= 0 || !pf[0].revents)
                continue;
        }
        int fds[FDS_MAX], nfds;
        bool eof;
        cJSON *msg = ctl_read(c, fds, &nfds, &eof);
        close_all(fds, nfds);
        if (eof || cJSON_IsTrue(tg_json_get(msg, "kill")))
            kill_call(pid);
        cJSON_Delete(msg);
        if (eof) {
            on = false;
            break;
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    if (!on)
        return false;
    while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* what the call started and left behind goes with it */
    return true;
}

/* Kills and reaps every process a call left behind, so that the next call starts alone (a
 * process that made itself a session leader escapes the kill of the call's group). Only as the
 * sandbox's pid 1, where kill(-1) reaches every other process of the sandbox and none outside. */
static void end_leftovers(void)
{
    if (getpid() != 1) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        return;
    }
    kill(-1, SIGKILL);
    for (;;) {
        if (waitpid(-1, NULL, 0) < 0 && errno != EINTR)
            return;
    }
}

static void send_status(ctl *c, int status, const struct rusage *ru)
{
    char line[256];
    snprintf(line, sizeof line, "{\"status\":%d,\"utime\":%.6f,\"stime\":%.6f,\"maxrss\":%ld}\n",
             status, (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6,
             (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6, ru->ru_maxrss);
    ctl_send(c, line);
}

/* ---- what a call leaves in the shared scratch folders ------------------------------------ */

/* Folders that could not be removed, by inode: not entered again. */
typedef struct stuck {
    ino_t v[64];
    size_t n;
} stuck;

static bool is_stuck(const stuck *s, int dirfd, const char *name)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return true;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == st.st_ino)
            return true;
    return false;
}

/* The first entry of the folder at dirfd that is a folder with something in it (its name, heap),
 * after removing every other entry it could; NULL when none is left. */
static char *remove_entries(int dirfd, const char *keep, const stuck *s)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    rewinddir(d); /* the offset is shared with dirfd, read to its end last time */
    char *sub = NULL;
    for (struct dirent *e; !sub && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            (keep && strcmp(e->d_name, keep) == 0))
            continue;
        if (unlinkat(dirfd, e->d_name, 0) == 0 || errno != EISDIR)
            continue;
        if (unlinkat(dirfd, e->d_name, AT_REMOVEDIR) != 0 && !is_stuck(s, dirfd, e->d_name))
            sub = xstrdup(e->d_name);
    }
    closedir(d);
    return sub;
}

/*
 * Removes everything inside the folder open at dirfd (closed here) but keep, however deep: a
 * folder is entered with its parent closed and left through "..", its name kept on a stack, so
 * neither the depth nor RLIMIT_NOFILE stops it (nothing else runs: the folders cannot move).
 * A folder the call made unreadable is made readable first; one that still cannot be removed
 * is left, and not entered again. Whether everything but keep is gone.
 */
static bool empty_tree(int dirfd, const char *keep)
{
    tg_strv names = TG_STRV_INIT; /* the folders entered below the top, outermost first */
    stuck s = {.n = 0};
    while (dirfd >= 0) {
        char *sub = remove_entries(dirfd, names.n ? NULL : keep, &s);
        if (sub) { /* go down into it */
            fchmodat(dirfd, sub, 0700, 0);
            int fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            struct stat st;
            if (fd >= 0) {
                close(dirfd);
                dirfd = fd;
                tg_strv_push(&names, sub);
            } else if (fstatat(dirfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && s.n < 64) {
                s.v[s.n++] = st.st_ino;
            } else {
                break; /* more stuck folders than the list holds: left as they are */
            }
            free(sub);
            continue;
        }
        if (!names.n) /* the top is empty */
            break;
        struct stat here;
        bool known = fstat(dirfd, &here) == 0;
        int up = openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(dirfd);
        dirfd = up;
        char *name = names.v[--names.n];
        names.v[names.n] = NULL;
        if (up >= 0 && unlinkat(up, name, AT_REMOVEDIR) != 0 && known) {
            if (s.n == 64)
                break;
            s.v[s.n++] = here.st_ino;
        }
        free(name);
    }
    bool clean = dirfd >= 0 && !names.n && s.n == 0;
    if (dirfd >= 0)
        close(dirfd);
    tg_strv_free(&names);
    return clean;
}

/* Whether path (a folder) holds nothing but keep now. */
static bool empty_dir(const char *path, const char *keep)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd >= 0 && empty_tree(fd, keep);
}

/* The regular files of /tmp/KEEP_IN_TMP when the worker started: what each call finds there. */
typedef struct kept_file {
    char *name;
    tg_buf data;
} kept_file;

typedef struct kept {
    kept_file *v;
    size_t n;
} kept;

static bool read_file(int dirfd, const char *name, tg_buf *out)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        tg_buf_append(out, chunk, (size_t)n);
    close(fd);
    return n == 0;
}

static void snapshot_kept(kept *k)
{
    int dirfd = open("/tmp/" KEEP_IN_TMP, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dirfd >= 0 ? fdopendir(dirfd) : NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        tg_buf data = TG_BUF_INIT;
        if (e->d_name[0] == '.' || !read_file(dirfd, e->d_name, &data)) {
            tg_buf_free(&data);
            continue;
        }
        k->v = xrealloc(k->v, (k->n + 1) * sizeof *k->v);
        k->v[k->n++] = (kept_file){xstrdup(e->d_name), data};
    }
    if (d)
        closedir(d);
    else if (dirfd >= 0)
        close(dirfd);
}

/* Makes /tmp/KEEP_IN_TMP exactly what it was when the worker started: a call may write there
 * (the folder and its files are its user's). */
static bool restore_kept(const kept *k)
{
    const char *folder = "/tmp/" KEEP_IN_TMP;
    struct stat st;
    if (lstat(folder, &st) == 0 && !S_ISDIR(st.st_mode))
        unlink(folder);
    mkdir(folder, 0755);
    chmod(folder, 0755);
    bool clean = empty_dir(folder, NULL); /* the kept files too: written again below */
    int dirfd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    for (size_t i = 0; dirfd >= 0 && i < k->n; i++) {
        int fd = openat(dirfd, k->v[i].name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            continue;
        for (size_t off = 0; off < k->v[i].data.len;) {
            ssize_t w = write(fd, k->v[i].data.data + off, k->v[i].data.len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        fchmod(fd, 0644);
        close(fd);
    }
    if (dirfd >= 0)
        close(dirfd);
    return clean && dirfd >= 0;
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* Runs one call: its child forked, supervised and reported. false: toolgen went away. */
static bool run_call(ctl *c, const cJSON *msg, const int fds[4], bool reuse)
{
    pid_t pid = fork();
    if (pid == 0) {
        close(c->fd);
        cr_call_child(msg, fds, reuse);
    }
    if (pid > 0)
        setpgid(pid, pid); /* also here: a kill must find the group whichever runs first */
    else
        dprintf(fds[1], "toolgen: the command runner could not start the call: %s\n",
                strerror(errno));
    close_all(fds, 4);
    int status = 70 << 8;
    struct rusage ru = {0};
    if (pid > 0 && !supervise(c, pid, &status, &ru))
        return false;
    /* before the status: toolgen lists the call's files once it has it, and a process the call
     * detached must not write there afterwards */
    end_leftovers();
    send_status(c, status, &ru);
    return true;
}

static int serve(void)
{
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* a call (same uid) must not write into the runner */
    signal(SIGINT, SIG_IGN); /* a call may signal pid 1; the kernel delivers only what it handles */
    signal(SIGPIPE, SIG_IGN);
    ctl c = {CTL_FD, TG_BUF_INIT};
    bool reuse = cr_landlock_abi() >= CR_LANDLOCK_ABI_NEEDED;
    kept k = {0};
    if (reuse)
        snapshot_kept(&k);
    send_ready(&c, reuse);
    for (;;) {
        int fds[FDS_MAX], nfds;
        bool eof;
        cJSON *msg = ctl_read(&c, fds, &nfds, &eof);
        if (eof)
            _exit(0);
        if (nfds == 0 && cJSON_IsTrue(tg_json_get(msg, "kill"))) {
            cJSON_Delete(msg); /* sent as the call ended on its own: stale */
            continue;
        }
        if (nfds != 4 || !cJSON_IsObject(msg)) {
            close_all(fds, nfds);
            _exit(2);
        }
        bool on = run_call(&c, msg, fds, reuse);
        cJSON_Delete(msg);
        if (!on)
            _exit(0);
        /* before the next message is read, so the next call never sees what this one left;
         * only as the sandbox's pid 1, whose /tmp is its own. What cannot be removed ends the
         * worker: the next call gets a fresh sandbox. */
        bool clean = true;
        if (getpid() == 1) {
            bool tmp = empty_dir("/tmp", KEEP_IN_TMP);
            clean = empty_dir("/dev/shm", NULL) && tmp;
        }
        if (reuse && !(clean && restore_kept(&k)))
            _exit(0);
        if (reuse)
            send_ready(&c, true);
    }
}

/* ---- the executable ---------------------------------------------------------------------- */

static bool runner_capable;

bool tg_cmdrunner_main(int argc, char **argv, int *rc)
{
    if (argc == 2 && strcmp(argv[1], TG_CMDRUNNER_FLAG) == 0) {
        *rc = serve();
        return true;
    }
    runner_capable = true;
    return false;
}

static char exe_path[PATH_MAX];
static bool exe_ok;

static void find_exe(void)
{
    struct stat st;
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    if (n <= 0 || exe_path[0] != '/')
        return;
    exe_path[n] = '\0'; /* " (deleted)" after it was replaced: stat fails, runner.py serves */
    if (stat(exe_path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    /* as root each call runs as another user (docs/sandbox.md#running-as-root) */
    exe_ok = geteuid() != 0 || (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH);
}

const char *tg_cmdrunner_exe(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!runner_capable)
        return NULL;
    pthread_once(&once, find_exe);
    return exe_ok ? exe_path : NULL;
}
