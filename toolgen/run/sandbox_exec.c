/*
 * sandbox_exec.c — one call: the call directory, the bwrap command line, fork/exec with rlimits,
 * the poll loop (output caps, wall clock, disk budget), reaping, artifacts.
 *
 * As root, the tool must not run as root: RLIMIT_NPROC is not enforced for uid 0 (the kernel
 * exempts INIT_USER), so a fork bomb would be unbounded. The child therefore switches to an
 * unprivileged uid of its own, TG_SANDBOX_UID_BASE + its pid (unique among live processes, so
 * parallel calls never share a process budget), and bwrap builds the user namespace as that
 * user. Files it must mount have to be readable by others; the work directory is chowned to it.
 */
#define _GNU_SOURCE
#include "run/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/strvec.h"
#include "run/sandbox_int.h"

#define TG_SANDBOX_UID_BASE 0x70000000u
#define READ_CHUNK 65536
#define STATUS_MAX 4096
/* The work directory may hold this much (files are capped one by one by RLIMIT_FSIZE). */
#define WORK_BUDGET_MIN (100LL << 20)
#define SHM_BYTES (64LL << 20)

/* Child-side fds: 0 stdin, 1 stdout, 2 stderr, 3 reply, 4 request, 5 bwrap status, 6 font cache. */
enum { FD_REPLY = 3, FD_REQUEST = 4, FD_STATUS = 5, FD_FONTS = 6, FD_FIRST_FREE = 7 };

/* ---- environment ---------------------------------------------------------------------------- */

/* The whole environment of the tool: nothing is inherited from the caller (no secrets). */
static void base_env(tg_strv *env, const char *home, const char *tmp)
{
    tg_strv_push(env, "PATH=/usr/local/bin:/usr/bin:/bin");
    tg_strv_pushf(env, "HOME=%s", home);
    tg_strv_pushf(env, "TMPDIR=%s", tmp);
    tg_strv_push(env, "LANG=C.UTF-8");
    tg_strv_push(env, "TZ=UTC");
    tg_strv_push(env, "USER=sandbox");
    tg_strv_push(env, "LOGNAME=sandbox");
    tg_strv_pushf(env, "MPLCONFIGDIR=%s/matplotlib", tmp);
}

/* "/tool/x" → tool_dir/x and "/toolgen/x" → runtime_dir/x (isolation none only). */
static char *map_host(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd, const char *s)
{
    if (cmd->tool_dir && tg_str_startswith(s, TG_SANDBOX_TOOL "/"))
        return tg_path_join(cmd->tool_dir, s + strlen(TG_SANDBOX_TOOL "/"));
    if (c->runtime_dir && tg_str_startswith(s, TG_SANDBOX_RUNTIME "/"))
        return tg_path_join(c->runtime_dir, s + strlen(TG_SANDBOX_RUNTIME "/"));
    return xstrdup(s);
}

static void add_env_value(tg_strv *env, const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                          const char *kv, bool isolated)
{
    if (isolated) {
        tg_strv_push(env, kv);
        return;
    }
    const char *eq = strchr(kv, '=');
    if (!eq) {
        tg_strv_push(env, kv);
        return;
    }
    char *val = map_host(c, cmd, eq + 1);
    tg_strv_pushf(env, "%.*s=%s", (int)(eq - kv), kv, val);
    free(val);
}

/* ---- the bwrap command line ----------------------------------------------------------------- */

static void system_mounts(tg_strv *a)
{
    tg_strv_push(a, "--ro-bind");
    tg_strv_push(a, "/usr");
    tg_strv_push(a, "/usr");
    static const char *const top[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        struct stat st;
        if (lstat(top[i], &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlink(top[i], target, sizeof target - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            tg_strv_push(a, "--symlink");
            tg_strv_push(a, target);
            tg_strv_push(a, top[i]);
        } else if (S_ISDIR(st.st_mode)) {
            tg_strv_push(a, "--ro-bind");
            tg_strv_push(a, top[i]);
            tg_strv_push(a, top[i]);
        }
    }
    /* Only what the loader, fontconfig and matplotlib read: no passwd, shadow, hosts, ssl. */
    static const char *const etc[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                      "/etc/alternatives", "/etc/fonts", "/etc/matplotlibrc"};
    for (size_t i = 0; i < sizeof etc / sizeof *etc; i++) {
        tg_strv_push(a, "--ro-bind-try");
        tg_strv_push(a, etc[i]);
        tg_strv_push(a, etc[i]);
    }
}

static long long work_budget(const tg_limits *l)
{
    long long b = 16LL * l->output_kb * 1024;
    return b < WORK_BUDGET_MIN ? WORK_BUDGET_MIN : b;
}

static void bwrap_argv(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd, const char *workdir,
                       const char *font_name, tg_strv *a)
{
    tg_strv_push(a, c->bwrap);
    tg_strv_push(a, "--unshare-all");
    tg_strv_push(a, "--unshare-user"); /* required, not "-try": --disable-userns and NPROC need it */
    tg_strv_push(a, "--disable-userns");
    /* The tool is the namespace's pid 1: when it exits, everything it started is killed, and
     * wait4 on bwrap sees the tool's own CPU time and peak RSS (bwrap's reaper hides them). */
    tg_strv_push(a, "--as-pid-1");
    tg_strv_push(a, "--die-with-parent");
    tg_strv_push(a, "--new-session");
    tg_strv_push(a, "--cap-drop");
    tg_strv_push(a, "ALL");
    tg_strv_push(a, "--hostname");
    tg_strv_push(a, "sandbox");
    tg_strv_push(a, "--clearenv");
    tg_strv env = TG_STRV_INIT;
    base_env(&env, TG_SANDBOX_WORK, "/tmp");
    for (size_t i = 0; cmd->env && cmd->env[i]; i++)
        tg_strv_push(&env, cmd->env[i]);
    for (size_t i = 0; i < env.n; i++) {
        const char *eq = strchr(env.v[i], '=');
        if (!eq)
            continue;
        tg_strv_push(a, "--setenv");
        tg_strv_pushf(a, "%.*s", (int)(eq - env.v[i]), env.v[i]);
        tg_strv_push(a, eq + 1);
    }
    tg_strv_free(&env);
    system_mounts(a);
    tg_strv_push(a, "--proc");
    tg_strv_push(a, "/proc");
    tg_strv_push(a, "--dev");
    tg_strv_push(a, "/dev");
    tg_strv_push(a, "--size");
    tg_strv_pushf(a, "%lld", SHM_BYTES);
    tg_strv_push(a, "--tmpfs");
    tg_strv_push(a, "/dev/shm");
    tg_strv_push(a, "--size");
    tg_strv_pushf(a, "%lld", work_budget(&cmd->limits));
    tg_strv_push(a, "--tmpfs");
    tg_strv_push(a, "/tmp");
    tg_strv_push(a, "--dir");
    tg_strv_push(a, "/tmp/matplotlib");
    if (font_name) {
        tg_strv_push(a, "--perms");
        tg_strv_push(a, "0644");
        tg_strv_push(a, "--file");
        tg_strv_pushf(a, "%d", FD_FONTS);
        tg_strv_pushf(a, "/tmp/matplotlib/%s", font_name);
    }
    if (cmd->tool_dir) {
        tg_strv_push(a, "--ro-bind");
        tg_strv_push(a, cmd->tool_dir);
        tg_strv_push(a, TG_SANDBOX_TOOL);
    }
    if (cmd->mount_runtime) {
        tg_strv_push(a, "--ro-bind");
        tg_strv_push(a, c->runtime_dir);
        tg_strv_push(a, TG_SANDBOX_RUNTIME);
    }
    tg_strv_push(a, "--bind");
    tg_strv_push(a, workdir);
    tg_strv_push(a, TG_SANDBOX_WORK);
    for (size_t i = 0; cmd->paths && i < cmd->paths->n; i++) {
        tg_strv_push(a, "--ro-bind");
        tg_strv_push(a, cmd->paths->v[i].host);
        tg_strv_push(a, cmd->paths->v[i].inside);
    }
    /* Last: everything above needed a writable root to create its mount point. */
    tg_strv_push(a, "--remount-ro");
    tg_strv_push(a, "/dev");
    tg_strv_push(a, "--remount-ro");
    tg_strv_push(a, "/");
    tg_strv_push(a, "--chdir");
    if (cmd->cwd && *cmd->cwd && strcmp(cmd->cwd, ".") != 0)
        tg_strv_pushf(a, "%s/%s", TG_SANDBOX_WORK, cmd->cwd);
    else
        tg_strv_push(a, TG_SANDBOX_WORK);
    tg_strv_push(a, "--json-status-fd");
    tg_strv_pushf(a, "%d", FD_STATUS);
    tg_strv_push(a, "--");
    for (size_t i = 0; cmd->argv[i]; i++)
        tg_strv_push(a, cmd->argv[i]);
}

/* ---- matplotlib's font cache ---------------------------------------------------------------- */

/*
 * matplotlib scans every font on first import and caches the list in MPLCONFIGDIR; in a fresh
 * sandbox that is ~1 s per call. toolgen builds the cache once on the host, running only
 * matplotlib's own code (no tool code) with an empty environment, and hands each call a copy.
 */
static char *font_cache_file(const tg_sandbox_config *c, const char *python)
{
    if (!c->cache_dir || !python)
        return NULL;
    char *dir = tg_path_join(c->cache_dir, "matplotlib");
    char *found = NULL;
    for (int attempt = 0; attempt < 2 && !found; attempt++) {
        DIR *d = opendir(dir);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL)
                if (tg_str_startswith(e->d_name, "fontlist-") && tg_str_endswith(e->d_name, ".json")) {
                    free(found);
                    found = tg_path_join(dir, e->d_name);
                }
            closedir(d);
        }
        if (found || attempt == 1)
            break;
        tg_err ignored = {0};
        if (tg_mkdirs(dir, &ignored) != 0)
            break;
        char *tmp = xasprintf("%s/.build-XXXXXX", dir);
        if (!mkdtemp(tmp)) {
            free(tmp);
            break;
        }
        /* Everything the child needs is prepared here: after fork only async-signal-safe calls. */
        char *home = xasprintf("HOME=%s", tmp), *mpl = xasprintf("MPLCONFIGDIR=%s", tmp);
        char *envp[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", home, mpl, NULL};
        char *argv[] = {(char *)python, "-c",
                        "import matplotlib; matplotlib.use('Agg'); import matplotlib.font_manager",
                        NULL};
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, 0);
                dup2(null, 1);
                dup2(null, 2);
            }
            execve(python, argv, envp);
            _exit(127);
        }
        int st = 0;
        if (pid > 0)
            waitpid(pid, &st, 0);
        free(home);
        free(mpl);
        DIR *t = opendir(tmp);
        if (t) {
            struct dirent *e;
            while ((e = readdir(t)) != NULL)
                if (tg_str_startswith(e->d_name, "fontlist-") && tg_str_endswith(e->d_name, ".json")) {
                    char *from = tg_path_join(tmp, e->d_name), *to = tg_path_join(dir, e->d_name);
                    rename(from, to); /* atomic: a parallel call sees the whole file or none */
                    free(from);
                    free(to);
                }
            closedir(t);
        }
        sb_remove_tree(tmp);
        free(tmp);
    }
    free(dir);
    return found;
}

/* ---- diagnosing a sandbox that would not start ---------------------------------------------- */

static long read_long_file(const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

static const char no_isolation_hint[] =
    "Only on a development machine, for code you trust, `sandbox: {isolation: none}` in "
    "toolgen.yaml runs tools without isolation (see docs/sandbox.md#isolation-none).";

static int env_missing_bwrap(const tg_sandbox_config *c, tg_err *err)
{
    if (c->bwrap)
        return tg_err_set(err,
                          "sandbox unavailable: bubblewrap is not executable at %s (TOOLGEN_BWRAP). "
                          "Install it with `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo "
                          "dnf install bubblewrap`, or unset TOOLGEN_BWRAP. %s",
                          c->bwrap, no_isolation_hint);
    return tg_err_set(err,
                      "sandbox unavailable: bubblewrap (bwrap) was not found on PATH, and toolgen "
                      "does not run untrusted tool code without it. Install it with `sudo apt-get "
                      "install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap` "
                      "(Fedora); see docs/sandbox.md#requirements. %s",
                      no_isolation_hint);
}

static int env_setup_failed(const char *bwrap_msg, tg_err *err)
{
    tg_buf b = TG_BUF_INIT;
    const char *msg = bwrap_msg && *bwrap_msg ? bwrap_msg : "(no message)";
    size_t mlen = strcspn(msg, "\n");
    tg_buf_printf(&b, "sandbox unavailable: bubblewrap could not create the sandbox: %.*s. ",
                  (int)(mlen > 500 ? 500 : mlen), msg);
    if (strstr(msg, "Unknown option") || strstr(msg, "unrecognized option")) {
        tg_buf_puts(&b, "This bubblewrap is too old: toolgen needs version 0.8 or newer (for "
                        "--disable-userns and --json-status-fd); upgrade the bubblewrap package.");
        tg_err_set(err, "%s", b.data);
        tg_buf_free(&b);
        return -1;
    }
    const char *execvp = strstr(msg, "execvp ");
    if (execvp) {
        tg_buf_puts(&b, "The program is not installed in the sandbox's /usr (or is not executable): "
                        "install it (e.g. `sudo apt-get install python3 python3-pandas` or `nodejs`) "
                        "or fix the command's argv[0]; see docs/sandbox.md#requirements.");
        tg_err_set(err, "%s", b.data);
        tg_buf_free(&b);
        return -1;
    }
    bool userns = strstr(msg, "namespace") || strstr(msg, "uid map") || strstr(msg, "setting up uid") ||
                  strstr(msg, "Operation not permitted") || strstr(msg, "No space left");
    if (userns) {
        long clone = read_long_file("/proc/sys/kernel/unprivileged_userns_clone");
        long maxns = read_long_file("/proc/sys/user/max_user_namespaces");
        long apparmor = read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
        tg_buf_puts(&b, "Unprivileged user namespaces are unavailable");
        if (clone == 0)
            tg_buf_puts(&b, ": kernel.unprivileged_userns_clone is 0; enable them with `sudo sysctl "
                            "-w kernel.unprivileged_userns_clone=1`");
        else if (maxns == 0)
            tg_buf_puts(&b, ": user.max_user_namespaces is 0; enable them with `sudo sysctl -w "
                            "user.max_user_namespaces=15000`");
        else if (apparmor == 1)
            tg_buf_puts(&b, ": AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns"
                            "=1); allow bwrap with an AppArmor profile or run `sudo sysctl -w "
                            "kernel.apparmor_restrict_unprivileged_userns=0`");
        else
            tg_buf_puts(&b, " (in a container, the container runtime's seccomp or AppArmor profile "
                            "blocks them: run it with `--security-opt seccomp=unconfined "
                            "--security-opt apparmor=unconfined`, or give the container its own "
                            "user namespace)");
        tg_buf_puts(&b, "; see docs/sandbox.md#requirements. ");
    } else {
        tg_buf_puts(&b, "Check that the paths it mounts exist and are readable (as root, tool code "
                        "runs as an unprivileged user: the repository must be readable by others); "
                        "see docs/sandbox.md#requirements. ");
    }
    tg_buf_puts(&b, no_isolation_hint);
    tg_err_set(err, "%s", b.data);
    tg_buf_free(&b);
    return -1;
}

/* ---- processes ------------------------------------------------------------------------------ */

/* Tasks (processes and threads) of uid: RLIMIT_NPROC counts them all, sandbox or not. */
static long count_user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) != 0 || st.st_uid != uid)
            continue;
        char task[300];
        snprintf(task, sizeof task, "%s/task", e->d_name);
        struct stat ts;
        n += fstatat(dirfd(d), task, &ts, 0) == 0 && ts.st_nlink > 2 ? (long)ts.st_nlink - 2 : 1;
    }
    closedir(d);
    return n;
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

static void pidfd_kill(int pidfd)
{
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0)
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
#else
    (void)pidfd;
#endif
}

typedef struct child_plan {
    char *const *argv;
    char *const *envp;
    int in, out, err, reply, request, status, fonts, exec_err;
    const char *chdir_to; /* NULL under bwrap (--chdir) */
    const char *workdir;  /* chowned to the unprivileged uid (drop_root) */
    struct rlimit cpu, as, fsize, nofile, nproc;
    bool drop_root;
    bool no_new_privs;
    pid_t parent;
} child_plan;

static void child_fail(int fd, int stage)
{
    int msg[2] = {stage, errno};
    ssize_t ignored = write(fd, msg, sizeof msg);
    (void)ignored;
    _exit(127);
}

/* Runs in the forked child: async-signal-safe calls only (the parent may have threads). */
static void child_exec(const child_plan *p)
{
    setpgid(0, 0);
    /* Ignored signals and the signal mask survive exec: give the tool the defaults, whatever
     * the caller's thread had (a CLI ignoring SIGPIPE, a worker blocking SIGINT). */
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
    /* Move every source above the targets first, so no dup2 clobbers a later source. */
    int keep = fcntl(p->exec_err, F_DUPFD_CLOEXEC, 32);
    if (keep < 0)
        _exit(127);
    int src[7] = {p->in, p->out, p->err, p->reply, p->request, p->status, p->fonts};
    for (int i = 0; i < 7; i++)
        if (src[i] >= 0 && (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 32)) < 0)
            child_fail(keep, 1);
    for (int i = 0; i < 7; i++) {
        if (src[i] >= 0) {
            if (dup2(src[i], i) < 0)
                child_fail(keep, 1);
        } else {
            close(i);
        }
    }
    if (dup2(keep, FD_FIRST_FREE) < 0)
        child_fail(keep, 1);
    keep = FD_FIRST_FREE;
    fcntl(keep, F_SETFD, FD_CLOEXEC);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, FD_FIRST_FREE + 1, ~0U, 0) != 0)
#endif
        for (int fd = FD_FIRST_FREE + 1; fd < 4096; fd++)
            close(fd);
    if (setrlimit(RLIMIT_CPU, &p->cpu) != 0 || setrlimit(RLIMIT_AS, &p->as) != 0 ||
        setrlimit(RLIMIT_FSIZE, &p->fsize) != 0 || setrlimit(RLIMIT_NOFILE, &p->nofile) != 0 ||
        setrlimit(RLIMIT_NPROC, &p->nproc) != 0 ||
        setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}) != 0)
        child_fail(keep, 2);
    if (p->drop_root) {
        uid_t id = TG_SANDBOX_UID_BASE + (uid_t)getpid();
        if (chown(p->workdir, id, id) != 0 || setgroups(0, NULL) != 0 ||
            setresgid(id, id, id) != 0 || setresuid(id, id, id) != 0)
            child_fail(keep, 3);
    }
    /* After the uid change, which clears it: die with the thread that started the call. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != p->parent)
        _exit(127);
    if (p->no_new_privs)
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (p->chdir_to && chdir(p->chdir_to) != 0)
        child_fail(keep, 4);
    execve(p->argv[0], p->argv, p->envp);
    child_fail(keep, 5);
}

/* ---- output --------------------------------------------------------------------------------- */

typedef struct sink {
    int fd;
    tg_stream *s;
    size_t cap;
    const char *name;
} sink;

/* false when the stream went over its cap (the call is then killed: "more fails the call"). */
static bool sink_read(sink *k, char *chunk)
{
    ssize_t n = read(k->fd, chunk, READ_CHUNK);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return true;
        n = 0;
    }
    if (n == 0) {
        close(k->fd);
        k->fd = -1;
        return true;
    }
    tg_stream *s = k->s;
    s->total += (size_t)n;
    size_t room = k->cap > s->len ? k->cap - s->len : 0;
    size_t take = (size_t)n < room ? (size_t)n : room;
    if (take) {
        s->data = xrealloc(s->data, s->len + take + 1);
        memcpy(s->data + s->len, chunk, take);
        s->len += take;
        s->data[s->len] = '\0';
    }
    if (take < (size_t)n) {
        s->truncated = true;
        return false;
    }
    return true;
}

/* ---- the call ------------------------------------------------------------------------------- */

/*
 * As root the tool runs as an unprivileged uid, and so does bwrap while it mounts: every path it
 * mounts must be reachable by "others". Returns NULL when it is, else the first place that is
 * not (heap), for an error that names it.
 */
static char *unreachable_for_others(const char *path, bool need_read)
{
    char real[4096];
    if (!realpath(path, real))
        return NULL; /* bwrap reports a missing path itself */
    for (char *p = real + 1;; p++) {
        bool last = *p == '\0';
        if (*p != '/' && !last)
            continue;
        char saved = *p;
        *p = '\0';
        struct stat st;
        bool ok = stat(real, &st) == 0;
        if (ok) {
            mode_t need = S_ISDIR(st.st_mode) ? S_IXOTH : 0;
            if (last && need_read)
                need |= S_IROTH;
            ok = (st.st_mode & need) == need;
        }
        if (!ok) {
            char *bad = xasprintf("%s (mode %04o)", real, (unsigned)(st.st_mode & 07777));
            *p = saved;
            return bad;
        }
        *p = saved;
        if (last)
            return NULL;
    }
}

static int check_reachable(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd, tg_err *err)
{
    typedef struct reach {
        const char *path, *what;
        bool read;
    } reach;
    reach need[4 + 64];
    size_t n = 0;
    need[n++] = (reach){c->tmp_dir, "the temporary directory (TMPDIR)", false};
    if (cmd->tool_dir)
        need[n++] = (reach){cmd->tool_dir, "the tool's folder", true};
    if (cmd->mount_runtime)
        need[n++] = (reach){c->runtime_dir, "toolgen's runtime files", true};
    for (size_t i = 0; cmd->paths && i < cmd->paths->n && n < sizeof need / sizeof *need; i++)
        need[n++] = (reach){cmd->paths->v[i].host, cmd->paths->v[i].value, true};
    for (size_t i = 0; i < n; i++) {
        char *bad = unreachable_for_others(need[i].path, need[i].read);
        if (bad) {
            tg_err_set(err, "sandbox unavailable: toolgen runs as root, so tool code runs as an "
                            "unprivileged user, which cannot reach %s: %s is not accessible to "
                            "other users. Make it readable (chmod o+rx on the directories, o+r on "
                            "files) or move it; see docs/sandbox.md#running-as-root",
                       need[i].what, bad);
            free(bad);
            return -1;
        }
    }
    return 0;
}

static int make_call_dir(const tg_sandbox_config *c, bool drop_root, char **call_dir,
                         char **workdir, tg_err *err)
{
    char *tmpl = tg_path_join(c->tmp_dir, "toolgen-call-XXXXXX");
    if (!mkdtemp(tmpl)) {
        int e = errno;
        free(tmpl);
        return tg_err_set(err, "cannot create a work directory in %s: %s (set TMPDIR to a "
                               "writable directory)", c->tmp_dir, strerror(e));
    }
    *call_dir = tmpl;
    *workdir = tg_path_join(tmpl, "work");
    char *tmp = tg_path_join(tmpl, "tmp");
    int rc = 0;
    if (mkdir(*workdir, 0700) != 0 || mkdir(tmp, 0700) != 0)
        rc = tg_err_set(err, "cannot create %s: %s", *workdir, strerror(errno));
    /* The unprivileged uid must reach work/ (0711 on the call dir); the child, which knows the
     * uid, makes it the owner of work/ before it drops root. */
    if (rc == 0 && drop_root && chmod(tmpl, 0711) != 0)
        rc = tg_err_set(err, "cannot chmod %s: %s", tmpl, strerror(errno));
    free(tmp);
    return rc;
}

static int make_request_fd(const char *data, size_t len)
{
    int fd = memfd_create("toolgen-request", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (tg_write_all(fd, data, len) != 0) {
        close(fd);
        return -1;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* none: links the path arguments into the work directory where the tool will look for them. */
static void link_paths_none(const tg_sandbox_cmd *cmd, const char *workdir)
{
    for (size_t i = 0; cmd->paths && i < cmd->paths->n; i++) {
        const char *inside = cmd->paths->v[i].inside;
        if (!tg_str_startswith(inside, TG_SANDBOX_WORK "/"))
            continue; /* absolute: the tool opens the host path itself */
        char *dst = tg_path_join(workdir, inside + strlen(TG_SANDBOX_WORK "/"));
        char *slash = strrchr(dst, '/');
        *slash = '\0';
        tg_err ignored = {0};
        tg_mkdirs(dst, &ignored);
        *slash = '/';
        if (symlink(cmd->paths->v[i].host, dst) != 0 && errno != EEXIST) {
            /* the tool will report the file as missing */
        }
        free(dst);
    }
}

int tg_sandbox_run(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd, tg_sandbox_result *res,
                   tg_err *err)
{
    *res = (tg_sandbox_result){0};
    bool isolated = c->isolation == TG_ISOLATION_BWRAP;
    if (isolated && (!c->bwrap || access(c->bwrap, X_OK) != 0)) {
        env_missing_bwrap(c, err);
        return TG_SANDBOX_ENV;
    }
    if (cmd->mount_runtime && !c->runtime_dir) {
        tg_err_set(err, "toolgen's runtime files (runner.py) were not found under its data "
                        "directory; set TOOLGEN_DATADIR to the source tree or PREFIX/share/toolgen");
        return TG_SANDBOX_ENV;
    }
    bool drop_root = isolated && geteuid() == 0;
    if (drop_root && check_reachable(c, cmd, err) != 0)
        return TG_SANDBOX_ENV;
    const tg_limits *l = &cmd->limits;
    char *call_dir = NULL, *workdir = NULL;
    if (make_call_dir(c, drop_root, &call_dir, &workdir, err) != 0) {
        if (call_dir)
            sb_remove_tree(call_dir);
        free(call_dir);
        free(workdir);
        return TG_SANDBOX_INTERNAL;
    }

    /* Descriptors, all close-on-exec in the parent (no other thread's child inherits them). */
    int p_out[2] = {-1, -1}, p_err[2] = {-1, -1}, p_reply[2] = {-1, -1}, p_status[2] = {-1, -1};
    int p_exec[2] = {-1, -1}, request_fd = -1, fonts_fd = -1, null_fd = -1;
    tg_strv argv = TG_STRV_INIT, envp = TG_STRV_INIT;
    char *fonts = NULL;
    int rc = TG_SANDBOX_INTERNAL;
    bool ok = pipe2(p_out, O_CLOEXEC) == 0 && pipe2(p_err, O_CLOEXEC) == 0 &&
              pipe2(p_exec, O_CLOEXEC) == 0 &&
              (!cmd->reply_channel || pipe2(p_reply, O_CLOEXEC) == 0) &&
              (!isolated || pipe2(p_status, O_CLOEXEC) == 0) &&
              (null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
    if (ok && cmd->request && (request_fd = make_request_fd(cmd->request, cmd->request_len)) < 0)
        ok = false;
    if (!ok) {
        tg_err_set(err, "cannot set up the call's descriptors: %s", strerror(errno));
        goto out;
    }

    if (isolated) {
        const char *font_name = NULL;
        if (cmd->matplotlib_cache && (fonts = font_cache_file(c, tg_sandbox_python())) != NULL &&
            (fonts_fd = open(fonts, O_RDONLY | O_CLOEXEC)) >= 0)
            font_name = strrchr(fonts, '/') + 1;
        bwrap_argv(c, cmd, workdir, font_name, &argv);
        tg_strv_push(&envp, "PATH=/usr/bin:/bin"); /* bwrap's own: nothing of the caller's */
    } else {
        for (size_t i = 0; cmd->argv[i]; i++) {
            char *m = map_host(c, cmd, cmd->argv[i]);
            tg_strv_push(&argv, m);
            free(m);
        }
        char *tmp = tg_path_join(call_dir, "tmp");
        base_env(&envp, workdir, tmp);
        free(tmp);
        for (size_t i = 0; cmd->env && cmd->env[i]; i++)
            add_env_value(&envp, c, cmd, cmd->env[i], false);
        link_paths_none(cmd, workdir);
    }
    char *chdir_to = NULL;
    if (!isolated)
        chdir_to = cmd->cwd && *cmd->cwd ? tg_path_join(workdir, cmd->cwd) : xstrdup(workdir);

    rlim_t nproc = (rlim_t)l->processes;
    if (isolated)
        nproc += 1; /* bwrap's monitor */
    /* The kernel counts the user's other tasks too (not for root, which it does not limit). */
    if (!drop_root && geteuid() != 0)
        nproc += (rlim_t)count_user_tasks(getuid());
    child_plan plan = {
        .argv = argv.v, .envp = envp.v,
        .in = null_fd, .out = p_out[1], .err = p_err[1], .reply = p_reply[1],
        .request = request_fd, .status = p_status[1], .fonts = fonts_fd, .exec_err = p_exec[1],
        .chdir_to = chdir_to,
        .workdir = workdir,
        .cpu = {(rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1},
        .as = {(rlim_t)l->memory_mb << 20, (rlim_t)l->memory_mb << 20},
        .fsize = {(rlim_t)l->output_kb << 10, (rlim_t)l->output_kb << 10},
        .nofile = {(rlim_t)l->files, (rlim_t)l->files},
        .nproc = {nproc, nproc},
        .drop_root = drop_root,
        .no_new_privs = !isolated, /* bwrap sets it itself */
        .parent = getpid(),
    };

    struct statvfs vfs;
    long long free_at_start = statvfs(workdir, &vfs) == 0 ? (long long)vfs.f_bavail * (long long)vfs.f_frsize : -1;
    double start = tg_now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        tg_err_set(err, "cannot start the sandbox: fork: %s", strerror(errno));
        free(chdir_to);
        goto out;
    }
    if (pid == 0)
        child_exec(&plan);
    free(chdir_to);
    int pidfd = pidfd_open_(pid);

    /* Close the child's ends; then the exec-error pipe reads EOF once exec succeeded. */
    close(p_out[1]);
    close(p_err[1]);
    close(p_exec[1]);
    p_out[1] = p_err[1] = p_exec[1] = -1;
    if (p_reply[1] >= 0) {
        close(p_reply[1]);
        p_reply[1] = -1;
    }
    if (p_status[1] >= 0) {
        close(p_status[1]);
        p_status[1] = -1;
    }
    int failmsg[2];
    ssize_t got;
    do
        got = read(p_exec[0], failmsg, sizeof failmsg);
    while (got < 0 && errno == EINTR);
    if (got == (ssize_t)sizeof failmsg) {
        int st;
        waitpid(pid, &st, 0);
        if (pidfd >= 0)
            close(pidfd);
        static const char *const stage[] = {"", "descriptors", "rlimits", "switching to an unprivileged user",
                                            "chdir", "exec"};
        if (failmsg[0] == 5 && isolated) {
            errno = failmsg[1];
            env_missing_bwrap(c, err);
            rc = TG_SANDBOX_ENV;
        } else {
            tg_err_set(err, "cannot start %s: %s: %s", argv.v[0],
                       stage[failmsg[0] >= 1 && failmsg[0] <= 5 ? failmsg[0] : 0], strerror(failmsg[1]));
            rc = failmsg[0] == 3 ? TG_SANDBOX_ENV : TG_SANDBOX_INTERNAL;
        }
        goto out;
    }

    res->isolated = isolated;
    res->workdir = workdir;
    workdir = NULL;
    size_t cap = (size_t)l->output_kb << 10;
    sink sinks[3] = {{p_out[0], &res->out, cap, "stdout"},
                     {p_err[0], &res->err, cap, "stderr"},
                     {p_reply[0], &res->reply, cap, "reply"}};
    p_out[0] = p_err[0] = p_reply[0] = -1;
    int status_fd = p_status[0];
    p_status[0] = -1;
    char status[STATUS_MAX + 1] = "";
    size_t status_len = 0;
    int inner_pidfd = -1;
    bool exited = false, killed = false;
    int wstatus = 0;
    struct rusage ru = {0};
    double deadline = start + (double)l->wall_ms, exited_at = 0, next_disk = start + 200;
    long long budget = work_budget(l);
    char *chunk = xmalloc(READ_CHUNK);

#define KILL_ALL()                                                                           \
    do {                                                                                     \
        if (!killed) {                                                                       \
            kill(-pid, SIGKILL);                                                             \
            kill(pid, SIGKILL);                                                              \
            pidfd_kill(inner_pidfd);                                                         \
            killed = true;                                                                   \
        }                                                                                    \
    } while (0)

    for (;;) {
        struct pollfd pf[6];
        int idx[6], n = 0;
        for (int i = 0; i < 3; i++)
            if (sinks[i].fd >= 0) {
                pf[n] = (struct pollfd){sinks[i].fd, POLLIN, 0};
                idx[n++] = i;
            }
        bool streams_open = n > 0 || status_fd >= 0;
        if (status_fd >= 0) {
            pf[n] = (struct pollfd){status_fd, POLLIN, 0};
            idx[n++] = 3;
        }
        if (!exited && pidfd >= 0) {
            pf[n] = (struct pollfd){pidfd, POLLIN, 0};
            idx[n++] = 4;
        }
        double t = tg_now_ms();
        if (exited && (!streams_open || t - exited_at > 1000))
            break; /* (isolation none) a daemon may hold the pipes: stop reading after 1 s */
        double wait = exited ? 1000 - (t - exited_at) : deadline - t;
        if (!exited && wait > next_disk - t)
            wait = next_disk - t;
        if (!exited && pidfd < 0 && wait > 20)
            wait = 20;
        if (wait < 0)
            wait = 0;
        int r = poll(pf, (nfds_t)n, (int)(wait + 1));
        if (r < 0 && errno != EINTR)
            break;
        for (int i = 0; r > 0 && i < n; i++) {
            if (!pf[i].revents)
                continue;
            if (idx[i] < 3) {
                if (!sink_read(&sinks[idx[i]], chunk) && !killed) {
                    res->killed_by = TG_LIMIT_OUTPUT;
                    res->overflow_stream = sinks[idx[i]].name;
                    KILL_ALL();
                }
            } else if (idx[i] == 3) {
                ssize_t m = read(status_fd, status + status_len, STATUS_MAX - status_len);
                if (m <= 0 || status_len + (size_t)m >= STATUS_MAX) {
                    close(status_fd);
                    status_fd = -1;
                }
                if (m > 0)
                    status_len += (size_t)m;
                status[status_len] = '\0';
                const char *cp = strstr(status, "\"child-pid\"");
                if (cp && strchr(cp, ':') && inner_pidfd < 0) {
                    long inner = strtol(strchr(cp, ':') + 1, NULL, 10);
                    if (inner > 0)
                        inner_pidfd = pidfd_open_((pid_t)inner);
                    if (killed)
                        pidfd_kill(inner_pidfd);
                }
            }
        }
        if (!exited && (pidfd < 0 || (r > 0 && n > 0))) {
            pid_t w = wait4(pid, &wstatus, WNOHANG, &ru);
            if (w == pid) {
                exited = true;
                exited_at = tg_now_ms();
            }
        }
        t = tg_now_ms();
        if (!exited && !killed && cmd->cancel && *cmd->cancel) {
            res->killed_by = TG_LIMIT_CANCEL;
            KILL_ALL();
        }
        if (!exited && t >= deadline && !killed) {
            res->killed_by = TG_LIMIT_WALL;
            KILL_ALL();
            deadline = t + 5000; /* SIGKILL cannot be ignored; this only bounds the loop */
        }
        if (!exited && t >= next_disk) {
            next_disk = t + 200;
            /* Cheap check first (free space of the file system), the walk only when it moved. */
            if (free_at_start >= 0 && statvfs(res->workdir, &vfs) == 0 &&
                free_at_start - (long long)vfs.f_bavail * (long long)vfs.f_frsize > budget &&
                sb_tree_bytes(res->workdir, budget) > budget && !killed) {
                res->killed_by = TG_LIMIT_DISK;
                KILL_ALL();
            }
        }
    }
#undef KILL_ALL
    free(chunk);
    if (!exited) {
        kill(-pid, SIGKILL);
        wait4(pid, &wstatus, 0, &ru);
    }
    double end = tg_now_ms();
    if (killed && inner_pidfd >= 0) {
        /* The namespace's init dies after all its processes: wait for it, so that nothing the
         * tool started outlives the call. */
        struct pollfd ip = {inner_pidfd, POLLIN, 0};
        poll(&ip, 1, 2000);
    }
    for (int i = 0; i < 3; i++) {
        if (sinks[i].fd >= 0)
            close(sinks[i].fd);
        if (!sinks[i].s->data)
            sinks[i].s->data = xstrdup(""); /* never NULL once it ran (sandbox.h) */
    }
    if (status_fd >= 0)
        close(status_fd);
    if (inner_pidfd >= 0)
        close(inner_pidfd);
    if (pidfd >= 0)
        close(pidfd);

    if (isolated && !killed && !strstr(status, "\"exit-code\"")) {
        /* bwrap reports the command's exit only when it started it: without that line the
         * sandbox itself could not be set up (namespaces, a mount, the program missing). */
        env_setup_failed(res->err.data, err);
        tg_sandbox_result_free(res);
        rc = TG_SANDBOX_ENV;
        goto out;
    }

    res->wall_ms = end - start;
    res->user_ms = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
    res->sys_ms = (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
    res->max_rss_kb = ru.ru_maxrss;
    if (WIFEXITED(wstatus)) {
        res->exit_code = WEXITSTATUS(wstatus);
        if (isolated && res->exit_code > 128 && res->exit_code <= 128 + 64) {
            res->signal = res->exit_code - 128;
            res->signal_inferred = true;
        }
    } else if (WIFSIGNALED(wstatus)) {
        res->signal = WTERMSIG(wstatus);
        res->exit_code = 128 + res->signal;
    }

    /* Mount stubs bwrap created for the path arguments are not the tool's files. */
    const char **skip = NULL;
    size_t nskip = 0;
    if (cmd->paths && cmd->paths->n) {
        skip = xcalloc(cmd->paths->n, sizeof *skip);
        for (size_t i = 0; i < cmd->paths->n; i++)
            if (tg_str_startswith(cmd->paths->v[i].inside, TG_SANDBOX_WORK "/"))
                skip[nskip++] = cmd->paths->v[i].inside + strlen(TG_SANDBOX_WORK "/");
    }
    sb_collect_files(res->workdir, skip, nskip, res);
    free(skip);
    /* The work directory moves to the result; the rest of the call directory goes now. */
    char *final_work = xasprintf("%s.work", call_dir);
    if (rename(res->workdir, final_work) == 0) {
        free(res->workdir);
        res->workdir = final_work;
    } else {
        free(final_work);
    }
    rc = 0;

out:
    for (int i = 0; i < 2; i++) {
        if (p_out[i] >= 0)
            close(p_out[i]);
        if (p_err[i] >= 0)
            close(p_err[i]);
        if (p_reply[i] >= 0)
            close(p_reply[i]);
        if (p_status[i] >= 0)
            close(p_status[i]);
        if (p_exec[i] >= 0)
            close(p_exec[i]);
    }
    if (request_fd >= 0)
        close(request_fd);
    if (fonts_fd >= 0)
        close(fonts_fd);
    if (null_fd >= 0)
        close(null_fd);
    free(fonts);
    tg_strv_free(&argv);
    tg_strv_free(&envp);
    if (call_dir) {
        sb_remove_tree(call_dir);
        free(call_dir);
    }
    free(workdir);
    return rc;
}

void tg_sandbox_result_free(tg_sandbox_result *res)
{
    free(res->out.data);
    free(res->err.data);
    free(res->reply.data);
    for (size_t i = 0; i < res->n_files; i++)
        free(res->files[i].path);
    free(res->files);
    if (res->workdir && !res->keep_workdir)
        sb_remove_tree(res->workdir);
    free(res->workdir);
    *res = (tg_sandbox_result){0};
}
