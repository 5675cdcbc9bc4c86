/*
 * sandbox_child.c — the forked side of a call (sb_child_run in sandbox_int.h). Everything here
 * runs between fork and exec of a process whose parent may have threads: async-signal-safe
 * calls only, no allocation, every string prepared by the parent.
 *
 * With isolation none the child sets up descriptors, rlimits and its working directory and
 * execs the tool. Under bubblewrap the child is the call's holder (docs/sandbox.md#the-holder):
 *
 *   - it makes the namespaces the whole call lives in: a mount and a pid namespace (as root),
 *     or a user namespace owning them (otherwise; its uid and gid mapped to themselves);
 *   - it mounts the work directory as a tmpfs of the call's disk budget (size and inodes), so
 *     the budget is a kernel limit and nothing the tool writes ever reaches the host's disk;
 *     a warm sandbox's calls each get a tmpfs of their own below it;
 *   - it stages every host path bwrap binds at a neutral place under the call directory: an
 *     overlay whose only layer is the path (s<i> → o<i>, "lowerdir=s<i>:e"), so the sandbox's
 *     mountinfo names no host path (a plain bind where overlayfs is unavailable);
 *   - it sends toolgen a descriptor of the work tmpfs, then forks bwrap, which is pid 1 of the
 *     new pid namespace, and waits for it, exiting as it did (so wait4 on the holder reports the
 *     tree's status and usage).
 *
 * The holder dies with the toolgen thread that forked it (PR_SET_PDEATHSIG), bwrap with the
 * holder, and every process of the pid namespace with bwrap: no process of the call outlives
 * toolgen, however it ends — also not a bwrap still setting up its sandbox, whose own
 * --die-with-parent is not armed yet.
 */
#define _GNU_SOURCE
#include "run/sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* One message on the report socket: a step that failed (stage, errno) or a fact, maybe an fd. */
static void report(int sock, int stage, int value, int pass_fd)
{
    int msg[2] = {stage, value};
    struct iovec iov = {msg, sizeof msg};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pass_fd >= 0) {
        memset(&u, 0, sizeof u);
        mh.msg_control = u.buf;
        mh.msg_controllen = sizeof u.buf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
    }
    while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
}

static _Noreturn void fail(int sock, int stage)
{
    report(sock, stage, errno, -1);
    _exit(127);
}

/* Ignored signals and the signal mask survive exec: give the tool the defaults, whatever the
 * caller's thread had (a CLI ignoring SIGPIPE, a worker blocking SIGINT). */
static void default_signals(void)
{
    static const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGXFSZ,
                               SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU};
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The call's descriptors at 0..6, the report socket at FD_FIRST_FREE, nothing else open.
 * Returns the report socket. */
static int arrange_fds(const sb_child_plan *p)
{
    /* Move every source above the targets first, so no dup2 clobbers a later source. */
    int keep = fcntl(p->report, F_DUPFD_CLOEXEC, 32);
    if (keep < 0)
        _exit(127);
    int src[7] = {p->in, p->out, p->err, p->reply, p->request, p->status, p->fonts};
    for (int i = 0; i < 7; i++)
        if (src[i] >= 0 && (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 32)) < 0)
            fail(keep, SB_FAIL_DESCRIPTORS);
    for (int i = 0; i < 7; i++) {
        if (src[i] >= 0) {
            if (dup2(src[i], i) < 0)
                fail(keep, SB_FAIL_DESCRIPTORS);
        } else {
            close(i);
        }
    }
    if (dup2(keep, FD_FIRST_FREE) < 0)
        fail(keep, SB_FAIL_DESCRIPTORS);
    keep = FD_FIRST_FREE;
    fcntl(keep, F_SETFD, FD_CLOEXEC);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, FD_FIRST_FREE + 1, ~0U, 0) != 0)
#endif
        for (int fd = FD_FIRST_FREE + 1; fd < 4096; fd++)
            close(fd);
    return keep;
}

static void set_rlimits(const sb_child_plan *p, int sock)
{
    if (setrlimit(RLIMIT_CPU, &p->cpu) != 0 || setrlimit(RLIMIT_AS, &p->as) != 0 ||
        setrlimit(RLIMIT_FSIZE, &p->fsize) != 0 || setrlimit(RLIMIT_NOFILE, &p->nofile) != 0 ||
        setrlimit(RLIMIT_NPROC, &p->nproc) != 0 ||
        setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}) != 0)
        fail(sock, SB_FAIL_RLIMITS);
}

/* Dies with the thread that started the call; exits at once when that already happened. */
static void die_with(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int enter_namespaces(const sb_child_plan *p)
{
    if (p->drop_root) {
        if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0)
            return -1;
    } else if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0 ||
               write_file("/proc/self/setgroups", "deny") != 0 ||
               write_file("/proc/self/uid_map", p->uid_map) != 0 ||
               write_file("/proc/self/gid_map", p->gid_map) != 0) {
        return -1;
    }
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* The host paths bwrap binds, each at its neutral place (relative to the call directory). */
static int stage_binds(const sb_child_plan *p)
{
    for (size_t i = 0; i < p->n_bind; i++) {
        if (mount(p->bind_from[i], p->bind_at[i], NULL, MS_BIND | MS_REC, NULL) != 0)
            return -1;
        bool overlay = p->ovl_opts[i][0] &&
                       mount("overlay", p->ovl_at[i], "overlay", MS_RDONLY, p->ovl_opts[i]) == 0;
        if (!overlay && mount(p->bind_at[i], p->ovl_at[i], NULL, MS_BIND | MS_REC, NULL) != 0)
            return -1;
    }
    return 0;
}

/* Appends the decimal digits of v to s (of room bytes, NUL-terminated). */
static void append_uint(char *s, size_t room, unsigned long v)
{
    char digits[24];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0 && n < sizeof digits);
    size_t len = strlen(s);
    while (n && len + 1 < room)
        s[len++] = digits[--n];
    s[len] = '\0';
}

static void append(char *s, size_t room, const char *t)
{
    size_t len = strlen(s), n = strlen(t);
    if (len + n < room) {
        memcpy(s + len, t, n + 1);
    }
}

/* The work tmpfs and those of the subdirectories; a descriptor of the work tmpfs, or -1. */
static int mount_work(const sb_child_plan *p, uid_t id)
{
    char opts[256] = "";
    append(opts, sizeof opts, p->work_opts);
    if (p->drop_root) { /* owned by the unprivileged uid bwrap and the tool run as */
        append(opts, sizeof opts, ",uid=");
        append_uint(opts, sizeof opts, id);
        append(opts, sizeof opts, ",gid=");
        append_uint(opts, sizeof opts, id);
    }
    if (mount("tmpfs", p->work_at, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        return -1;
    for (size_t i = 0; i < p->n_subdirs; i++)
        if ((mkdir(p->subdir_at[i], 0700) != 0 && errno != EEXIST) ||
            mount("tmpfs", p->subdir_at[i], "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
            return -1;
    return open(p->work_at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* bwrap, as pid 1 of the holder's pid namespace: rlimits, the unprivileged uid, exec. */
static _Noreturn void outer_exec(const sb_child_plan *p, int sock, uid_t id, int holder_alive)
{
    set_rlimits(p, sock);
    if (sb_filter_install() != 0) /* while the holder's capabilities allow it without NNP */
        fail(sock, SB_FAIL_FILTER);
    if (p->drop_root &&
        (setgroups(0, NULL) != 0 || setresgid(id, id, id) != 0 || setresuid(id, id, id) != 0))
        fail(sock, SB_FAIL_USER);
    /* After the uid change, which clears it. Our parent lives outside this pid namespace, so
     * getppid() says 0 either way: the pipe tells whether the holder is still there. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd pf = {holder_alive, POLLIN, 0};
    if (poll(&pf, 1, 0) != 0)
        _exit(127);
    execve(p->argv[0], p->argv, p->envp);
    fail(sock, SB_FAIL_EXEC);
}

/* Waits for bwrap and ends as it did. */
static _Noreturn void mirror(pid_t outer)
{
    int st = 0;
    while (waitpid(outer, &st, 0) < 0)
        if (errno != EINTR)
            _exit(127);
    if (WIFSIGNALED(st)) {
        signal(WTERMSIG(st), SIG_DFL);
        kill(getpid(), WTERMSIG(st));
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
}

static _Noreturn void holder(const sb_child_plan *p, int sock)
{
    die_with(p->parent);
    if (chdir(p->stage_dir) != 0) /* forked child: mounts are made relative to the call dir */
        fail(sock, SB_FAIL_CHDIR);
    if (enter_namespaces(p) != 0)
        fail(sock, SB_FAIL_NAMESPACES);
    die_with(p->parent); /* entering a user namespace changed the credentials */
    uid_t id = TG_SANDBOX_UID_BASE + (uid_t)getpid();
    if (stage_binds(p) != 0)
        fail(sock, SB_FAIL_BINDS);
    int work = mount_work(p, id);
    if (work < 0)
        fail(sock, SB_FAIL_WORK);
    report(sock, SB_REPORT_WORK, 0, work);
    close(work);
    /* Above the call's descriptors, which the holder closes once bwrap has them. */
    int made[2], alive[2];
    if (pipe2(made, O_CLOEXEC) != 0 ||
        (alive[0] = fcntl(made[0], F_DUPFD_CLOEXEC, FD_FIRST_FREE + 1)) < 0 ||
        (alive[1] = fcntl(made[1], F_DUPFD_CLOEXEC, FD_FIRST_FREE + 1)) < 0)
        fail(sock, SB_FAIL_DESCRIPTORS);
    close(made[0]);
    close(made[1]);
    pid_t outer = _Fork(); /* no atfork handlers: async-signal-safe */
    if (outer < 0)
        fail(sock, SB_FAIL_EXEC);
    if (outer == 0) {
        close(alive[1]);
        outer_exec(p, sock, id, alive[0]);
    }
    report(sock, SB_REPORT_OUTER, (int)outer, -1);
    /* The holder keeps nothing of the call's: the streams end when the tool's do. */
    for (int fd = 0; fd <= FD_FIRST_FREE; fd++)
        close(fd);
    close(alive[0]);
    mirror(outer);
}

_Noreturn void sb_child_run(const sb_child_plan *p)
{
    setpgid(0, 0);
    default_signals();
    int sock = arrange_fds(p);
    if (p->holder)
        holder(p, sock);
    set_rlimits(p, sock);
    die_with(p->parent);
    if (p->no_new_privs)
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (p->chdir_to && chdir(p->chdir_to) != 0) /* forked child: its own cwd, before exec */
        fail(sock, SB_FAIL_CHDIR);
    execve(p->argv[0], p->argv, p->envp);
    fail(sock, SB_FAIL_EXEC);
}
