/*
 * cmdrunner_call.c — one call's child of the command runner (cmdrunner.h): between fork and the
 * exec of the call's program it takes the call's descriptors, folder, links, environment and
 * rlimits, confines itself with Landlock when the worker serves several calls, and restores the
 * signal dispositions a fresh process has. It never returns: the program runs, or the child
 * says on the call's stderr why not and exits 127 (no such program) or 70 (the set-up failed),
 * as runner_warm.py's child does.
 */
#define _GNU_SOURCE
#include "run/cmdrunner_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/util.h"

enum { SETUP_FAILED = 70, NOT_RUN = 127 };

static _Noreturn void setup_failed(const char *what, int err)
{
    dprintf(2, "toolgen: the command runner could not prepare the call: %s: %s\n", what,
            strerror(err));
    _exit(SETUP_FAILED);
}

/* ---- Landlock (docs/sandbox.md#the-warm-pool) -------------------------------------------- */

/* The system call numbers are the same on every architecture; the kernel headers of older
 * distributions lack ABI 3's rights, so the values are spelt out here. */
#define LL_CREATE_RULESET 444
#define LL_ADD_RULE 445
#define LL_RESTRICT_SELF 446
#define LL_CREATE_RULESET_VERSION 1u
#define LL_RULE_PATH_BENEATH 1
/* execute, write, read, truncate, ioctl on devices: what a rule on a file (not a folder) may grant */
#define LL_FILE_RIGHTS ((1ull << 0) | (1ull << 1) | (1ull << 2) | (1ull << 14) | (1ull << 15))

struct ll_path_beneath {
    uint64_t allowed;
    int32_t parent_fd;
} __attribute__((packed));

int cr_landlock_abi(void)
{
    long abi = syscall(LL_CREATE_RULESET, NULL, (size_t)0, LL_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

/* Every filesystem right the ABI knows: 13 in version 1, refer in 2, truncate in 3, ioctl on
 * devices from 5. */
static uint64_t fs_rights(int abi)
{
    int bits = abi <= 1 ? 13 : abi == 2 ? 14 : abi <= 4 ? 15 : 16;
    return (1ull << bits) - 1;
}

static void allow_beneath(int ruleset, const char *path, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return; /* a dangling link (/tool of a worker without a tool) */
    struct stat st;
    uint64_t rights = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? handled : handled & LL_FILE_RIGHTS;
    struct ll_path_beneath rule = {rights, fd};
    if (syscall(LL_ADD_RULE, ruleset, LL_RULE_PATH_BENEATH, &rule, 0u) != 0)
        setup_failed("landlock_add_rule", errno);
    close(fd);
}

/*
 * Limits this process and what it execs to its own folder below /work: the rest of /work (the
 * folders of the worker's other calls, kept until toolgen has read them) can be neither listed,
 * read nor written; everything outside /work keeps the access its mounts give. The call must
 * not run unconfined: a kernel that says no fails it.
 */
static void confine(const char *work)
{
    int abi = cr_landlock_abi();
    if (abi < CR_LANDLOCK_ABI_NEEDED)
        setup_failed("Landlock", ENOSYS);
    uint64_t handled = fs_rights(abi);
    int ruleset = (int)syscall(LL_CREATE_RULESET, &handled, sizeof handled, 0u);
    if (ruleset < 0)
        setup_failed("landlock_create_ruleset", errno);
    DIR *root = opendir("/");
    if (!root)
        setup_failed("/", errno);
    for (struct dirent *e; (e = readdir(root)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "work") == 0)
            continue;
        char *path = xasprintf("/%s", e->d_name);
        allow_beneath(ruleset, path, handled);
        free(path);
    }
    closedir(root);
    allow_beneath(ruleset, work, handled);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(LL_RESTRICT_SELF, ruleset, 0u) != 0)
        setup_failed("landlock_restrict_self", errno);
    close(ruleset);
}

/* ---- the call's folder, links and limits -------------------------------------------------- */

static void mkdirs_or_fail(const char *path)
{
    tg_err e = {0};
    if (tg_mkdirs(path, &e) != 0)
        setup_failed(path, errno ? errno : EIO);
}

/* /tool of a pool worker points at the call's tool: the link replaced, not edited in place. */
static void point_tool_link(const char *link, const char *target)
{
    char *fresh = xasprintf("%s.new", link);
    unlink(fresh);
    if (symlink(target, fresh) != 0 || rename(fresh, link) != 0)
        setup_failed(link, errno);
    free(fresh);
}

/* The call's path arguments: symlinks (relative to its folder) to where the worker mounts them. */
static void make_links(const cJSON *links)
{
    const cJSON *pair;
    cJSON_ArrayForEach(pair, links)
    {
        const cJSON *l = cJSON_GetArrayItem(pair, 0), *t = cJSON_GetArrayItem(pair, 1);
        if (!cJSON_IsString(l) || !cJSON_IsString(t))
            setup_failed("links", EINVAL);
        const char *slash = strrchr(l->valuestring, '/');
        if (slash && slash != l->valuestring) {
            char *parent = xstrndup(l->valuestring, (size_t)(slash - l->valuestring));
            mkdirs_or_fail(parent);
            free(parent);
        }
        if (symlink(t->valuestring, l->valuestring) != 0)
            setup_failed(l->valuestring, errno);
    }
}

static void set_limit(int what, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard};
    if (setrlimit(what, &r) != 0)
        setup_failed("setrlimit", errno);
}

static void set_limits(const cJSON *msg)
{
    rlim_t cpu = (rlim_t)tg_json_get_number(msg, "cpu_s", 0);
    rlim_t mem = (rlim_t)tg_json_get_number(msg, "memory_mb", 0) << 20;
    rlim_t out = (rlim_t)tg_json_get_number(msg, "output_kb", 0) << 10;
    rlim_t files = (rlim_t)tg_json_get_number(msg, "files", 0);
    set_limit(RLIMIT_CPU, cpu, cpu + 1);
    set_limit(RLIMIT_AS, mem, mem);
    set_limit(RLIMIT_FSIZE, out, out);
    set_limit(RLIMIT_NOFILE, files, files);
}

/* ---- the program ------------------------------------------------------------------------- */

/* The request's JSON, read from the memfd toolgen filled (from where toolgen left its offset). */
static cJSON *read_request(int fd)
{
    tg_buf b = TG_BUF_INIT;
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            setup_failed("the request", errno);
        if (n == 0)
            break;
        tg_buf_append(&b, chunk, (size_t)n);
    }
    close(fd);
    cJSON *req = cJSON_ParseWithLength(b.data, b.len);
    tg_buf_free(&b);
    if (!cJSON_IsArray(tg_json_get(req, "exec_argv")) ||
        !cJSON_GetArraySize(tg_json_get(req, "exec_argv")))
        setup_failed("the request has no exec_argv", EINVAL);
    return req;
}

/* environ with the call's NAME=value entries in place of (or beside) the runner's own. */
static void call_env(const cJSON *exec_env, tg_strv *env)
{
    extern char **environ;
    for (char **e = environ; *e; e++)
        tg_strv_push(env, *e);
    const cJSON *item;
    cJSON_ArrayForEach(item, exec_env)
    {
        if (!cJSON_IsString(item))
            continue;
        const char *eq = strchr(item->valuestring, '=');
        size_t name_len = eq ? (size_t)(eq - item->valuestring) : strlen(item->valuestring);
        size_t i = 0;
        while (i < env->n && !(strncmp(env->v[i], item->valuestring, name_len) == 0 &&
                               env->v[i][name_len] == '='))
            i++;
        char *entry = eq ? xstrdup(item->valuestring) : xasprintf("%s=", item->valuestring);
        if (i < env->n) {
            free(env->v[i]);
            env->v[i] = entry;
        } else {
            tg_strv_push(env, entry);
            free(entry);
        }
    }
}

/* Execs the call's program with its environment and folder, confined to its folder when
 * asked, under the call's rlimits (set last: nothing of the runner's is allocated after them),
 * with the dispositions and mask a fresh process has (an exec keeps what is ignored: the runner
 * ignores SIGINT and SIGPIPE). */
static _Noreturn void exec_program(const cJSON *msg, const cJSON *req, const char *cwd,
                                   bool confined)
{
    tg_strv argv = TG_STRV_INIT, env = TG_STRV_INIT;
    const cJSON *a;
    cJSON_ArrayForEach(a, tg_json_get(req, "exec_argv"))
        tg_strv_push(&argv, cJSON_IsString(a) ? a->valuestring : "");
    call_env(tg_json_get(req, "exec_env"), &env);
    const char *sub = tg_json_get_string(req, "exec_cwd");
    if (sub && *sub) {
        char *dir = sub[0] == '/' ? xstrdup(sub) : tg_path_join(cwd, sub);
        if (chdir(dir) != 0) { /* in the call's forked child */
            dprintf(2, "toolgen: cannot run %s: %s\n", argv.v[0], strerror(errno));
            _exit(NOT_RUN);
        }
        free(dir);
    }
    if (confined)
        confine(cwd);
    set_limits(msg);
    static const int reset[] = {SIGPIPE, SIGXFSZ, SIGINT, SIGCHLD};
    for (size_t i = 0; i < sizeof reset / sizeof *reset; i++)
        signal(reset[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    syscall(SYS_close_range, 3u, ~0u, 0u); /* the call's program gets 0, 1 and 2 only */
    execve(argv.v[0], argv.v, env.v);
    dprintf(2, "toolgen: cannot run %s: %s\n", argv.v[0], strerror(errno));
    _exit(NOT_RUN);
}

void cr_call_child(const cJSON *msg, const int fds[4], bool confined)
{
    setpgid(0, 0);
    if (dup2(fds[0], 1) < 0 || dup2(fds[1], 2) < 0)
        _exit(SETUP_FAILED);
    close(fds[2]); /* the reply pipe: a command has no reply */
    cJSON *req = read_request(fds[3]);
    const char *cwd = tg_json_get_string(msg, "cwd");
    if (!cwd || cwd[0] != '/')
        setup_failed("the call's folder", EINVAL);
    mkdirs_or_fail(cwd);
    if (chdir(cwd) != 0) /* in the call's forked child */
        setup_failed(cwd, errno);
    const char *link = tg_json_get_string(msg, "tool_link");
    const char *tool = tg_json_get_string(msg, "tool");
    if (link && tool)
        point_tool_link(link, tool);
    make_links(tg_json_get(msg, "links"));
    const char *home = tg_json_get_string(msg, "home");
    if (home && setenv("HOME", home, 1) != 0)
        setup_failed("HOME", errno);
    exec_program(msg, req, cwd, confined);
}
