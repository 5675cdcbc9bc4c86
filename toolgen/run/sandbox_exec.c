/*
 * sandbox_exec.c — one call: the call directory, the bwrap command line, the fork (the forked
 * side is sandbox_child.c), the poll loop (output caps, wall clock, disk budget with isolation
 * none), reaping, artifacts.
 *
 * As root, the tool must not run as root: RLIMIT_NPROC is not enforced for uid 0 (the kernel
 * exempts INIT_USER), so a fork bomb would be unbounded. bwrap therefore runs as an
 * unprivileged uid of its own, TG_SANDBOX_UID_BASE + the holder's pid (unique among live
 * processes, so parallel calls never share a process budget), and builds the user namespace as
 * that user. What it mounts it finds at the holder's neutral staging places under the call
 * directory (plan_binds), which others can reach, so the directories above a checkout in /root
 * or a mktemp -d do not matter; what is mounted must itself be readable by others
 * (docs/sandbox.md#running-as-root). bwrap's --bind-fd would not help here: it resolves the
 * descriptor back to its path, as the unprivileged user.
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
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/strvec.h"
#include "run/sandbox_int.h"
#include "run/cmdrunner.h"



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

long long tg_sandbox_work_budget(const tg_limits *l)
{
    long long b = 16LL * l->output_kb * 1024;
    return b < WORK_BUDGET_MIN ? WORK_BUDGET_MIN : b;
}


static void bwrap_argv(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd, const char *workdir,
                       const char *font_name, const bind_sources *src, tg_strv *a)
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
    tg_strv_pushf(a, "%lld", tg_sandbox_work_budget(&cmd->limits));
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
        tg_strv_push(a, src->tool);
        tg_strv_push(a, TG_SANDBOX_TOOL);
    } else if (cmd->tool_link) {
        tg_strv_push(a, "--symlink");
        tg_strv_push(a, cmd->tool_link);
        tg_strv_push(a, TG_SANDBOX_TOOL);
    }
    if (cmd->mount_runtime) {
        tg_strv_push(a, "--ro-bind");
        tg_strv_push(a, src->runtime);
        tg_strv_push(a, TG_SANDBOX_RUNTIME);
    }
    if (cmd->runner_exe) {
        tg_strv_push(a, "--ro-bind");
        tg_strv_push(a, src->runner);
        tg_strv_push(a, TG_CMDRUNNER_PATH);
    }
    tg_strv_push(a, "--bind");
    tg_strv_push(a, workdir);
    tg_strv_push(a, TG_SANDBOX_WORK);
    for (size_t i = 0; cmd->paths && i < cmd->paths->n; i++) {
        tg_strv_push(a, "--ro-bind");
        tg_strv_push(a, src->paths[i]);
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

int sb_env_setup_failed(const char *bwrap_msg, tg_err *err)
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
                        "runs as an unprivileged user: the files it mounts must be readable by "
                        "others); see docs/sandbox.md#requirements. ");
    }
    tg_buf_puts(&b, no_isolation_hint);
    tg_err_set(err, "%s", b.data);
    tg_buf_free(&b);
    return -1;
}

/* ---- processes ------------------------------------------------------------------------------ */

/* The next process of /proc (its pid as a name), or NULL at the end. */
static const char *next_pid(DIR *d)
{
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            return e->d_name;
    return NULL;
}

/* Tasks (processes and threads) of uid: RLIMIT_NPROC counts them all, sandbox or not. */
static long count_user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long n = 0;
    const char *name;
    while ((name = next_pid(d)) != NULL) {
        struct stat st;
        if (fstatat(dirfd(d), name, &st, 0) != 0 || st.st_uid != uid)
            continue;
        char task[300];
        snprintf(task, sizeof task, "%s/task", name);
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

/* The pid of a child of parent (the first found), or 0. Only a kill needs it: bwrap reports
 * the tool's pid as its own pid namespace numbers it, not as toolgen sees it. */
static pid_t child_of(pid_t parent)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t found = 0;
    const char *name;
    while (!found && (name = next_pid(d)) != NULL) {
        char path[300], stat[512];
        snprintf(path, sizeof path, "/proc/%s/stat", name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            continue;
        stat[n] = '\0';
        const char *rp = strrchr(stat, ')'); /* after the command name, which may hold spaces */
        char state;
        long ppid;
        if (rp && sscanf(rp + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)parent)
            found = (pid_t)strtol(name, NULL, 10);
    }
    closedir(d);
    return found;
}

/* ---- output --------------------------------------------------------------------------------- */


/* false when the stream went over its cap (the call is then killed: "more fails the call"). */
bool sb_sink_read(sink *k, char *chunk)
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
        if (k->watch && k->watch->fn)
            k->watch->fn(k->watch->ctx, s->data, s->len);
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
 * not (heap), for an error that names it; *itself tells whether that place is the path itself
 * (its own mode) rather than a directory above it.
 */
static char *unreachable_for_others(const char *path, bool need_read, bool *itself)
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
            *itself = last;
            char *bad = xasprintf("%s (mode %04o)", real, (unsigned)(st.st_mode & 07777));
            *p = saved;
            return bad;
        }
        *p = saved;
        if (last)
            return NULL;
    }
}

static int make_call_dir(const tg_sandbox_config *c, bool drop_root, char **call_dir,
                         char **workdir, tg_err *err)
{
    sb_remove_stale_calls(c->tmp_dir);
    char *name = xasprintf(SB_CALL_PREFIX "%ld-XXXXXX", (long)getpid());
    char *tmpl = tg_path_join(c->tmp_dir, name);
    free(name);
    if (!mkdtemp(tmpl)) {
        int e = errno;
        free(tmpl);
        return tg_err_set(err, "cannot create a work directory in %s: %s (set TMPDIR to a "
                               "writable directory)", c->tmp_dir, strerror(e));
    }
    *call_dir = tmpl;
    *workdir = tg_path_join(tmpl, "work");
    /* tmp/: isolation none's TMPDIR; e/: the empty second layer of the holder's overlays */
    char *tmp = tg_path_join(tmpl, "tmp"), *empty = tg_path_join(tmpl, "e");
    int rc = 0;
    if (mkdir(*workdir, 0700) != 0 || mkdir(tmp, 0700) != 0 || mkdir(empty, 0755) != 0)
        rc = tg_err_set(err, "cannot create %s: %s", *workdir, strerror(errno));
    /* The unprivileged uid must reach work/ and the staged binds (0711 on the call dir). */
    if (rc == 0 && drop_root && chmod(tmpl, 0711) != 0)
        rc = tg_err_set(err, "cannot chmod %s: %s", tmpl, strerror(errno));
    free(tmp);
    free(empty);
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


void sb_call_init(sb_call *k, const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                      tg_sandbox_result *res, tg_err *err)
{
    *k = (sb_call){.c = c, .cmd = cmd, .res = res, .err = err,
                   .isolated = c->isolation == TG_ISOLATION_BWRAP,
                   .p_out = {-1, -1}, .p_err = {-1, -1}, .p_reply = {-1, -1},
                   .p_status = {-1, -1}, .p_report = {-1, -1},
                   .request_fd = -1, .fonts_fd = -1, .null_fd = -1, .work_fd = -1,
                   .pidfd = -1, .inner_pidfd = -1, .status_fd = -1};
    for (int i = 0; i < 3; i++)
        k->sinks[i].fd = -1;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/*
 * Stages host (a file: its folder) for the holder: bound at s<i> under the call directory, seen
 * through an overlay at o<i> whose only layer that is, so no mount of the sandbox names a host
 * path (sandbox_child.c). A folder staged before is reused. Returns what bwrap binds from.
 */
static const char *stage_source(sb_call *k, const char *host, bool is_dir)
{
    const char *slash = strrchr(host, '/');
    char *dir = is_dir || !slash ? xstrdup(host)
                                 : xstrndup(host, slash == host ? 1 : (size_t)(slash - host));
    size_t i = 0;
    while (i < k->bind_from.n && strcmp(k->bind_from.v[i], dir) != 0)
        i++;
    if (i == k->bind_from.n) {
        tg_strv_push(&k->bind_from, dir);
        tg_strv_pushf(&k->bind_at, "s%zu", i);
        tg_strv_pushf(&k->ovl_at, "o%zu", i);
        if (k->cmd->live_binds)
            tg_strv_push(&k->ovl_opts, ""); /* the holder binds s<i> at o<i> */
        else
            tg_strv_pushf(&k->ovl_opts, "lowerdir=s%zu:e", i);
        char *s = tg_path_join(k->call_dir, k->bind_at.v[i]);
        char *o = tg_path_join(k->call_dir, k->ovl_at.v[i]);
        mkdir(s, 0755);
        mkdir(o, 0755);
        free(s);
        free(o);
    }
    free(dir);
    if (is_dir || !slash)
        tg_strv_pushf(&k->sources, "%s/o%zu", k->call_dir, i);
    else
        tg_strv_pushf(&k->sources, "%s/o%zu/%s", k->call_dir, i, slash + 1);
    return k->sources.v[k->sources.n - 1];
}

/*
 * As root, bwrap and the tool run as the call's unprivileged uid: what they open through a
 * staged bind must be readable by others (a file, and the folder it is staged by; a folder
 * itself), and TMPDIR must be reachable, since the binds are below it. NULL, or the problem
 * (heap) for an error.
 */
static char *for_others(const char *host, bool is_dir)
{
    struct stat st, dst;
    if (stat(host, &st) != 0)
        return NULL; /* bwrap reports a missing path itself */
    mode_t need = is_dir ? S_IROTH | S_IXOTH : S_IROTH;
    if ((st.st_mode & need) != need)
        return xasprintf("%s (mode %04o)", host, (unsigned)(st.st_mode & 07777));
    if (is_dir)
        return NULL;
    char *dir = xstrdup(host), *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    char *bad = stat(dir, &dst) == 0 && !(dst.st_mode & S_IXOTH)
                    ? xasprintf("%s (mode %04o)", dir, (unsigned)(dst.st_mode & 07777)) : NULL;
    free(dir);
    return bad;
}

/* Where bwrap takes each bind from: every host path staged by the holder (stage_source). */
static tg_sandbox_status plan_binds(sb_call *k)
{
    const tg_sandbox_cmd *cmd = k->cmd;
    size_t np = cmd->paths ? cmd->paths->n : 0;
    k->src = (bind_sources){cmd->tool_dir, k->c->runtime_dir, cmd->runner_exe,
                            xcalloc(np + 1, sizeof(char *))};
    for (size_t i = 0; i < np; i++)
        k->src.paths[i] = cmd->paths->v[i].host;
    if (!k->isolated)
        return TG_SANDBOX_OK;
    bool itself = false;
    char *bad = k->drop_root ? unreachable_for_others(k->c->tmp_dir, false, &itself) : NULL;
    const char *what = "the temporary directory (TMPDIR)";
    if (cmd->tool_dir && !bad) {
        bad = k->drop_root ? for_others(cmd->tool_dir, true) : NULL;
        what = "the tool's folder";
        k->src.tool = stage_source(k, cmd->tool_dir, true);
    }
    if (cmd->mount_runtime && !bad) {
        bad = k->drop_root ? for_others(k->c->runtime_dir, true) : NULL;
        what = "toolgen's runtime files";
        k->src.runtime = stage_source(k, k->c->runtime_dir, true);
    }
    if (cmd->runner_exe && !bad) {
        bad = k->drop_root ? for_others(cmd->runner_exe, false) : NULL;
        what = "toolgen's executable (a command worker's runner)";
        k->src.runner = stage_source(k, cmd->runner_exe, false);
    }
    for (size_t i = 0; i < np && !bad; i++) {
        const tg_path_arg *a = &cmd->paths->v[i];
        bad = k->drop_root ? for_others(a->host, a->is_dir) : NULL;
        what = a->value;
        k->src.paths[i] = stage_source(k, a->host, a->is_dir);
    }
    if (!bad)
        return TG_SANDBOX_OK;
    tg_err_set(k->err, "sandbox unavailable: toolgen runs as root, so tool code runs as an "
                       "unprivileged user, which cannot read %s: %s is not accessible to other "
                       "users. Make it readable (chmod o+rx on a directory, o+r on a file) or "
                       "move it; see docs/sandbox.md#running-as-root", what, bad);
    free(bad);
    return TG_SANDBOX_ENV;
}

/* The holder's strings (sandbox_child.c): the work tmpfs, its subdirectories, the id maps. */
static void plan_holder(sb_call *k)
{
    const tg_sandbox_cmd *cmd = k->cmd;
    long long budget = tg_sandbox_work_budget(&cmd->limits);
    long long inodes = budget / 4096 > WORK_INODES_MIN ? budget / 4096 : WORK_INODES_MIN;
    k->work_opts = xasprintf("size=%lld,nr_inodes=%lld,mode=0700", budget, inodes);
    for (size_t i = 0; cmd->work_subdirs && cmd->work_subdirs[i]; i++)
        tg_strv_pushf(&k->subdir_at, "work/%s", cmd->work_subdirs[i]);
    k->uid_map = xasprintf("%lu %lu 1", (unsigned long)geteuid(), (unsigned long)geteuid());
    k->gid_map = xasprintf("%lu %lu 1", (unsigned long)getegid(), (unsigned long)getegid());
}

/* Checks the environment, makes the call directory and the call's descriptors. */
tg_sandbox_status sb_call_open(sb_call *k)
{
    const tg_sandbox_config *c = k->c;
    const tg_sandbox_cmd *cmd = k->cmd;
    if (k->isolated && (!c->bwrap || access(c->bwrap, X_OK) != 0)) {
        env_missing_bwrap(c, k->err);
        return TG_SANDBOX_ENV;
    }
    if (cmd->mount_runtime && !c->runtime_dir) {
        tg_err_set(k->err, "toolgen's runtime files (runner.py) were not found under its data "
                           "directory; set TOOLGEN_DATADIR to the source tree or PREFIX/share/toolgen");
        return TG_SANDBOX_ENV;
    }
    k->drop_root = k->isolated && geteuid() == 0;
    if (make_call_dir(c, k->drop_root, &k->call_dir, &k->workdir, k->err) != 0)
        return TG_SANDBOX_INTERNAL;
    tg_sandbox_status st = plan_binds(k);
    if (st != TG_SANDBOX_OK)
        return st;
    if (k->isolated)
        plan_holder(k);
    bool ok = pipe2(k->p_out, O_CLOEXEC) == 0 && pipe2(k->p_err, O_CLOEXEC) == 0 &&
              socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, k->p_report) == 0 &&
              (!cmd->reply_channel || pipe2(k->p_reply, O_CLOEXEC) == 0) &&
              (!k->isolated || pipe2(k->p_status, O_CLOEXEC) == 0) &&
              (k->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
    if (ok && cmd->request &&
        (k->request_fd = make_request_fd(cmd->request, cmd->request_len)) < 0)
        ok = false;
    if (!ok) {
        tg_err_set(k->err, "cannot set up the call's descriptors: %s", strerror(errno));
        return TG_SANDBOX_INTERNAL;
    }
    return TG_SANDBOX_OK;
}

/* The program's argv and environment: bwrap's command line, or the tool's own (none). */
void sb_call_command(sb_call *k)
{
    const tg_sandbox_config *c = k->c;
    const tg_sandbox_cmd *cmd = k->cmd;
    if (k->isolated) {
        const char *font_name = NULL;
        if (cmd->matplotlib_cache && (k->fonts = font_cache_file(c, tg_sandbox_python())) != NULL &&
            (k->fonts_fd = open(k->fonts, O_RDONLY | O_CLOEXEC)) >= 0)
            font_name = strrchr(k->fonts, '/') + 1;
        bwrap_argv(c, cmd, k->workdir, font_name, &k->src, &k->argv);
        tg_strv_push(&k->envp, "PATH=/usr/bin:/bin"); /* bwrap's own: nothing of the caller's */
        return;
    }
    for (size_t i = 0; cmd->argv[i]; i++) {
        char *m = map_host(c, cmd, cmd->argv[i]);
        tg_strv_push(&k->argv, m);
        free(m);
    }
    char *tmp = tg_path_join(k->call_dir, "tmp");
    base_env(&k->envp, k->workdir, tmp);
    free(tmp);
    for (size_t i = 0; cmd->env && cmd->env[i]; i++)
        add_env_value(&k->envp, c, cmd, cmd->env[i], false);
    link_paths_none(cmd, k->workdir);
    k->chdir_to = cmd->cwd && *cmd->cwd ? tg_path_join(k->workdir, cmd->cwd) : xstrdup(k->workdir);
}

/* After a failed step: what the child reported on its socket, as the call's error. */
static tg_sandbox_status spawn_failed(sb_call *k, const int failmsg[2])
{
    int st;
    waitpid(k->pid, &st, 0);
    static const char *const stage[] = {"", "descriptors", "rlimits",
                                        "switching to an unprivileged user", "chdir", "exec",
                                        "binding paths into the call's mount namespace",
                                        "creating the call's namespaces",
                                        "mounting the work directory",
                                        "loading the system call filter (seccomp)"};
    int step = failmsg[0] >= 1 && failmsg[0] <= SB_FAIL_FILTER ? failmsg[0] : 0;
    if (step == SB_FAIL_EXEC && k->isolated) {
        errno = failmsg[1];
        env_missing_bwrap(k->c, k->err);
        return TG_SANDBOX_ENV;
    }
    if (step == SB_FAIL_NAMESPACES || step == SB_FAIL_BINDS || step == SB_FAIL_WORK ||
        step == SB_FAIL_FILTER) {
        /* what bwrap would have found: the kernel or container does not allow namespaces */
        char *why = xasprintf("%s: %s (%s)", stage[step], strerror(failmsg[1]),
                              step == SB_FAIL_FILTER ? "no seccomp filters" : "no user namespace");
        sb_env_setup_failed(why, k->err);
        free(why);
        return TG_SANDBOX_ENV;
    }
    tg_err_set(k->err, "cannot start %s: %s: %s", k->argv.v[0], stage[step],
               strerror(failmsg[1]));
    return step == SB_FAIL_USER ? TG_SANDBOX_ENV : TG_SANDBOX_INTERNAL;
}

/* Reads the child's reports until its socket closes (exec succeeded, or it failed): the work
 * tmpfs and bwrap's pid (the holder), or a failed step. */
static tg_sandbox_status read_reports(sb_call *k)
{
    for (;;) {
        int msg[2];
        struct iovec iov = {msg, sizeof msg};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } u;
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                            .msg_controllen = sizeof u.buf};
        ssize_t got = recvmsg(k->p_report[0], &mh, MSG_CMSG_CLOEXEC);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)sizeof msg)
            return TG_SANDBOX_OK; /* EOF: the program runs */
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        int fd = -1;
        if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
            memcpy(&fd, CMSG_DATA(cm), sizeof fd);
        if (msg[0] == SB_REPORT_WORK && fd >= 0 && k->work_fd < 0) {
            k->work_fd = fd;
        } else if (msg[0] == SB_REPORT_OUTER) {
            k->outer_pid = (pid_t)msg[1];
        } else {
            if (fd >= 0)
                close(fd);
            if (msg[0] != SB_REPORT_WORK)
                return spawn_failed(k, msg);
        }
    }
}

/* Forks the child (sandbox_child.c) with everything it needs; waits only until exec succeeded. */
tg_sandbox_status sb_call_spawn(sb_call *k)
{
    const tg_limits *l = &k->cmd->limits;
    rlim_t nproc = (rlim_t)l->processes;
    if (k->isolated)
        nproc += 1; /* bwrap's monitor */
    /* The kernel counts the user's other tasks too (not for root, which it does not limit),
     * and the holder is one. */
    if (!k->drop_root && geteuid() != 0)
        nproc += (rlim_t)count_user_tasks(getuid()) + (k->isolated ? 1 : 0);
    /* A command worker's runner is toolgen's own code, not the tool's (an AddressSanitizer
     * build of it reserves terabytes of address space): each call's child sets the call's own
     * limit before its exec (run/cmdrunner.h). */
    rlim_t as = k->cmd->runner_exe ? RLIM_INFINITY : (rlim_t)l->memory_mb << 20;
    sb_child_plan plan = {
        .argv = k->argv.v, .envp = k->envp.v,
        .in = k->null_fd, .out = k->p_out[1], .err = k->p_err[1], .reply = k->p_reply[1],
        .request = k->request_fd, .status = k->p_status[1], .fonts = k->fonts_fd,
        .report = k->p_report[1],
        .chdir_to = k->chdir_to,
        .cpu = {(rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1},
        .as = {as, as},
        .fsize = {(rlim_t)l->output_kb << 10, (rlim_t)l->output_kb << 10},
        .nofile = {(rlim_t)l->files, (rlim_t)l->files},
        .nproc = {nproc, nproc},
        .no_new_privs = !k->isolated, /* bwrap sets it itself */
        .parent = getpid(),
        .holder = k->isolated,
        .drop_root = k->drop_root,
        .uid_map = k->uid_map, .gid_map = k->gid_map,
        .stage_dir = k->call_dir,
        .work_at = "work", .work_opts = k->work_opts,
        .subdir_at = k->subdir_at.v, .n_subdirs = k->subdir_at.n,
        .bind_from = k->bind_from.v, .bind_at = k->bind_at.v, .ovl_at = k->ovl_at.v,
        .ovl_opts = k->ovl_opts.v, .n_bind = k->bind_from.n,
    };
    struct statvfs vfs;
    k->free_at_start = !k->isolated && statvfs(k->workdir, &vfs) == 0
                           ? (long long)vfs.f_bavail * (long long)vfs.f_frsize : -1;
    k->start = tg_now_ms();
    k->pid = fork();
    if (k->pid < 0) {
        tg_err_set(k->err, "cannot start the sandbox: fork: %s", strerror(errno));
        return TG_SANDBOX_INTERNAL;
    }
    if (k->pid == 0)
        sb_child_run(&plan);
    k->pidfd = pidfd_open_(k->pid);
    /* Close the child's ends; then the report socket reads EOF once exec succeeded. */
    close_fd(&k->p_out[1]);
    close_fd(&k->p_err[1]);
    close_fd(&k->p_report[1]);
    close_fd(&k->p_reply[1]);
    close_fd(&k->p_status[1]);
    return read_reports(k);
}

/* A pidfd of the tool (bwrap's child), found only when it is to be killed; false: none. */
static bool open_tool(sb_call *k)
{
    pid_t tool = k->outer_pid > 0 && k->inner_pidfd < 0 ? child_of(k->outer_pid) : 0;
    if (tool > 0)
        k->inner_pidfd = pidfd_open_(tool);
    /* the pid could have been reused between the lookup and the pidfd: check it again */
    if (tool > 0 && k->inner_pidfd >= 0 && child_of(k->outer_pid) != tool) {
        close(k->inner_pidfd);
        k->inner_pidfd = -1;
    }
    return k->inner_pidfd >= 0;
}

/* Kills the holder (or, with isolation none, the tool) and its process group at once: bwrap
 * goes with it, and every process of the sandbox with bwrap (sandbox_child.c). */
static void kill_now(sb_call *k)
{
    kill(-k->pid, SIGKILL);
    kill(k->pid, SIGKILL);
    pidfd_kill(k->inner_pidfd);
    k->kill_outer_at = 0;
}

/*
 * Kills the whole tree once. Under bwrap the tool (its namespace's pid 1) goes first: the kernel
 * then kills and reaps everything in the namespace into the tool's usage, bwrap reaps the tool,
 * the holder reaps bwrap, and wait4 on the holder reports the CPU time of the whole tree
 * (docs/sandbox.md#resource-analysis) — killing bwrap first would leave only bwrap's own few
 * milliseconds. The holder and bwrap are killed too if they have not exited KILL_GRACE_MS later.
 */
static void call_kill(sb_call *k)
{
    if (k->killed)
        return;
    k->killed = true;
    if (k->isolated && k->tool_started && open_tool(k)) {
        pidfd_kill(k->inner_pidfd);
        k->kill_outer_at = tg_now_ms() + KILL_GRACE_MS;
    } else {
        kill_now(k);
    }
}

static void call_kill_for(sb_call *k, tg_sandbox_limit why)
{
    if (k->killed)
        return;
    k->res->killed_by = why;
    call_kill(k);
}

/* bwrap's JSON status: the line with "child-pid" says the tool runs (its pid is the sandbox's
 * number for it; open_tool finds it when it is to be killed). */
static void read_status(sb_call *k)
{
    ssize_t m = read(k->status_fd, k->status + k->status_len, STATUS_MAX - k->status_len);
    if (m <= 0 || k->status_len + (size_t)m >= STATUS_MAX)
        close_fd(&k->status_fd);
    if (m > 0)
        k->status_len += (size_t)m;
    k->status[k->status_len] = '\0';
    const char *cp = strstr(k->status, "\"child-pid\"");
    if (cp && !k->tool_started) {
        k->tool_started = true;
        if (k->killed)
            kill_now(k);
    }
}

/* The limits toolgen enforces by watching: cancel, the wall clock, the disk budget. */
static void check_limits(sb_call *k, double t)
{
    if (k->exited)
        return;
    if (k->kill_outer_at > 0 && t >= k->kill_outer_at)
        kill_now(k);
    if (k->cmd->cancel && *k->cmd->cancel)
        call_kill_for(k, TG_LIMIT_CANCEL);
    if (t >= k->deadline && !k->killed) {
        call_kill_for(k, TG_LIMIT_WALL);
        k->deadline = t + 5000; /* SIGKILL cannot be ignored; this only bounds the loop */
    }
    if (!k->isolated && t >= k->next_disk) { /* under bwrap the work tmpfs is the limit */
        k->next_disk = t + 200;
        /* Cheap check first (free space of the file system), the walk only when it moved. */
        long long budget = tg_sandbox_work_budget(&k->cmd->limits);
        struct statvfs vfs;
        if (k->free_at_start >= 0 && statvfs(k->res->workdir, &vfs) == 0 &&
            k->free_at_start - (long long)vfs.f_bavail * (long long)vfs.f_frsize > budget &&
            sb_tree_bytes(k->res->workdir, budget) > budget)
            call_kill_for(k, TG_LIMIT_DISK);
    }
}

/* How long poll may wait: until the deadline or the next disk check, bounded after exit. */
static int poll_timeout(const sb_call *k, double t)
{
    double wait = k->exited ? 1000 - (t - k->exited_at) : k->deadline - t;
    if (!k->exited && wait > k->next_disk - t)
        wait = k->next_disk - t;
    if (!k->exited && k->kill_outer_at > 0 && wait > k->kill_outer_at - t)
        wait = k->kill_outer_at - t;
    if (!k->exited && k->pidfd < 0 && wait > 20)
        wait = 20;
    return wait < 0 ? 1 : (int)(wait + 1);
}

/* The poll loop: reads the streams under their caps and enforces the watched limits until the
 * program exited and its streams closed (or 1 s after it exited: a daemon may hold them). */
static void call_supervise(sb_call *k)
{
    const tg_limits *l = &k->cmd->limits;
    tg_sandbox_result *res = k->res;
    size_t cap = (size_t)l->output_kb << 10;
    tg_stream *streams[3] = {&res->out, &res->err, &res->reply};
    static const char *const names[3] = {"stdout", "stderr", "reply"};
    int *ends[3] = {&k->p_out[0], &k->p_err[0], &k->p_reply[0]};
    for (int i = 0; i < 3; i++) {
        k->sinks[i] = (sink){*ends[i], streams[i], cap, names[i], NULL};
        *ends[i] = -1;
    }
    k->sinks[2].watch = &k->cmd->reply_watch;
    k->status_fd = k->p_status[0];
    k->p_status[0] = -1;
    k->deadline = k->start + (double)l->wall_ms;
    k->next_disk = k->start + 200;
    char *chunk = xmalloc(READ_CHUNK);
    for (;;) {
        struct pollfd pf[6];
        int idx[6], n = 0;
        for (int i = 0; i < 3; i++)
            if (k->sinks[i].fd >= 0) {
                pf[n] = (struct pollfd){k->sinks[i].fd, POLLIN, 0};
                idx[n++] = i;
            }
        bool streams_open = n > 0 || k->status_fd >= 0;
        if (k->status_fd >= 0) {
            pf[n] = (struct pollfd){k->status_fd, POLLIN, 0};
            idx[n++] = 3;
        }
        if (!k->exited && k->pidfd >= 0) {
            pf[n] = (struct pollfd){k->pidfd, POLLIN, 0};
            idx[n++] = 4;
        }
        double t = tg_now_ms();
        if (k->exited && (!streams_open || t - k->exited_at > 1000))
            break;
        int r = poll(pf, (nfds_t)n, poll_timeout(k, t));
        if (r < 0 && errno != EINTR)
            break;
        for (int i = 0; r > 0 && i < n; i++) {
            if (!pf[i].revents)
                continue;
            if (idx[i] < 3 && !sb_sink_read(&k->sinks[idx[i]], chunk) && !k->killed) {
                res->overflow_stream = k->sinks[idx[i]].name;
                call_kill_for(k, TG_LIMIT_OUTPUT);
            } else if (idx[i] == 3) {
                read_status(k);
            }
        }
        if (!k->exited && (k->pidfd < 0 || (r > 0 && n > 0)) &&
            wait4(k->pid, &k->wstatus, WNOHANG, &k->ru) == k->pid) {
            k->exited = true;
            k->exited_at = tg_now_ms();
        }
        check_limits(k, tg_now_ms());
    }
    free(chunk);
}

/* Waits for the program, and after a kill for the namespace's init: nothing outlives the call. */
static void call_reap(sb_call *k)
{
    if (!k->exited) {
        kill(-k->pid, SIGKILL);
        wait4(k->pid, &k->wstatus, 0, &k->ru);
    }
    k->end = tg_now_ms();
    if (k->killed && k->inner_pidfd >= 0) {
        /* The namespace's init dies after all its processes. */
        struct pollfd ip = {k->inner_pidfd, POLLIN, 0};
        poll(&ip, 1, 2000);
    }
    for (int i = 0; i < 3; i++) {
        close_fd(&k->sinks[i].fd);
        if (!k->sinks[i].s->data)
            k->sinks[i].s->data = xstrdup(""); /* never NULL once it ran (sandbox.h) */
    }
    close_fd(&k->status_fd);
    close_fd(&k->inner_pidfd);
    close_fd(&k->pidfd);
}

static double tv_ms(struct timeval tv)
{
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/* The call's outcome into res: exit status or signal, usage, and the files the tool wrote. */
static tg_sandbox_status call_collect(sb_call *k)
{
    tg_sandbox_result *res = k->res;
    const tg_sandbox_cmd *cmd = k->cmd;
    if (k->isolated && !k->killed && !strstr(k->status, "\"exit-code\"")) {
        /* bwrap reports the command's exit only when it started it: without that line the
         * sandbox itself could not be set up (namespaces, a mount, the program missing). */
        sb_env_setup_failed(res->err.data, k->err);
        return TG_SANDBOX_ENV;
    }
    res->wall_ms = k->end - k->start;
    res->user_ms = tv_ms(k->ru.ru_utime);
    res->sys_ms = tv_ms(k->ru.ru_stime);
    res->max_rss_kb = k->ru.ru_maxrss;
    if (WIFEXITED(k->wstatus)) {
        res->exit_code = WEXITSTATUS(k->wstatus);
        if (k->isolated && res->exit_code > 128 && res->exit_code <= 128 + 64) {
            res->signal = res->exit_code - 128;
            res->signal_inferred = true;
        }
    } else if (WIFSIGNALED(k->wstatus)) {
        res->signal = WTERMSIG(k->wstatus);
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
    if (k->isolated) {
        /* the work tmpfs goes to the result; nothing of it is on the host's disk */
        sb_collect_work(res, k->work_fd, skip, nskip);
        res->work_fd = k->work_fd;
        res->has_work_fd = k->work_fd >= 0;
        k->work_fd = -1;
        free(skip);
        return TG_SANDBOX_OK;
    }
    sb_collect_files(res->workdir, skip, nskip, res);
    free(skip);
    /* The work directory moves to the result; the rest of the call directory goes now. */
    char *final_work = xasprintf("%s.work", k->call_dir);
    if (rename(res->workdir, final_work) == 0) {
        free(res->workdir);
        res->workdir = final_work;
    } else {
        free(final_work);
    }
    return TG_SANDBOX_OK;
}

void sb_call_close(sb_call *k)
{
    int *fds[] = {&k->p_out[0], &k->p_out[1], &k->p_err[0], &k->p_err[1], &k->p_reply[0],
                  &k->p_reply[1], &k->p_status[0], &k->p_status[1], &k->p_report[0],
                  &k->p_report[1], &k->request_fd, &k->fonts_fd, &k->null_fd, &k->pidfd,
                  &k->work_fd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        close_fd(fds[i]);
    free(k->fonts);
    free(k->chdir_to);
    tg_strv_free(&k->argv);
    tg_strv_free(&k->envp);
    tg_strv *strvs[] = {&k->bind_from, &k->bind_at, &k->ovl_at, &k->ovl_opts, &k->sources,
                        &k->subdir_at};
    for (size_t i = 0; i < sizeof strvs / sizeof *strvs; i++)
        tg_strv_free(strvs[i]);
    free(k->work_opts);
    free(k->uid_map);
    free(k->gid_map);
    free(k->src.paths);
    if (k->call_dir) {
        sb_remove_tree(k->call_dir);
        free(k->call_dir);
    }
    free(k->workdir);
}

tg_sandbox_status tg_sandbox_run(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                                 tg_sandbox_result *res, tg_err *err)
{
    *res = (tg_sandbox_result){0};
    sb_call k;
    sb_call_init(&k, c, cmd, res, err);
    tg_sandbox_status st = sb_call_open(&k);
    if (st == TG_SANDBOX_OK) {
        sb_call_command(&k);
        st = sb_call_spawn(&k);
    }
    if (st == TG_SANDBOX_OK) {
        res->isolated = k.isolated;
        if (!k.isolated) { /* under bwrap the work directory is the holder's tmpfs */
            res->workdir = k.workdir;
            k.workdir = NULL;
        }
        call_supervise(&k);
        call_reap(&k);
        st = call_collect(&k);
        if (st != TG_SANDBOX_OK)
            tg_sandbox_result_free(res);
    }
    sb_call_close(&k);
    return st;
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
    if (res->has_work_fd) {
        sb_remove_tree_at(res->work_fd); /* frees the tmpfs's memory while its sandbox lives */
        close(res->work_fd);
    }
    *res = (tg_sandbox_result){0};
}

int tg_sandbox_result_open_work(const tg_sandbox_result *res)
{
    if (res->has_work_fd)
        return openat(res->work_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (res->workdir)
        return open(res->workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    errno = ENOENT;
    return -1;
}
