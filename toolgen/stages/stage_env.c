/*
 * stage_env.c — the environment's facts the gate stages depend on (tg_build_env, engine/build.h;
 * docs/build.md "The environment fingerprint"):
 *
 *   python                  "CPython 3.11.2" — the interpreter the sandbox runs
 *   node                    "v18.19.0", or "absent"
 *   bwrap                   "bubblewrap 0.8.0", or "absent"
 *   runners                 a hash of toolgen's runner files (toolgen/run/runtime/)
 *   python-package:NAME     the installed version of distribution NAME, or "absent"
 *   node-package:NAME       the version in NAME's package.json in Node's global folders
 *
 * Asking an interpreter costs tens of milliseconds, too much for every no-op build, so the
 * answers are kept in .toolgen/env with the signature of what they came from: the program's
 * real path, size, mtime and inode, and for Python the mtimes of its sys.path folders (an
 * installed or removed distribution changes its folder). A signature that still matches is
 * trusted; any other is asked again. Python is asked once for every distribution it has. The
 * answers are the machine's, so they are also kept in <cache dir>/env.json, where a repository
 * without them (a clean build, a new checkout) finds them, under the same signatures.
 */
#define _GNU_SOURCE /* pipe2: no other thread's child may inherit the pipe */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/json.h"
#include "stages/stages.h"
#include "stages/stages_int.h"

extern char **environ;

#define ENV_CACHE TG_STATE_DIR "/env"
#define PROBE_MAX_BYTES (1u << 20)
#define PROBE_TIMEOUT_MS 20000

typedef struct env_ctx {
    const tg_repo *repo;
    bool writable, dirty;
    cJSON *cache;  /* {"python": {"sig": ..., "value": ...}, ...} as read from .toolgen/env */
    char *machine_path; /* the same for every repository: <cache dir>/env.json; NULL: none */
    cJSON *machine;
    bool machine_dirty;
    cJSON *python; /* the probe's answer: version, path, packages */
    tg_sandbox_config sc; /* where bwrap and the runner files are */
    bool have_sc;
} env_ctx;

/* ---- running a program ---------------------------------------------------------------------- */

/* Reads fd until EOF, the cap or the deadline; false on a timeout. */
static bool read_all(int fd, tg_buf *out, double deadline)
{
    char chunk[4096];
    for (;;) {
        double left = deadline - tg_now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return false;
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return true;
        if (out->len + (size_t)n <= PROBE_MAX_BYTES)
            tg_buf_append(out, chunk, (size_t)n);
    }
}

/* argv's stdout when it exits 0 within the timeout; NULL otherwise. Run directly, not in the
 * sandbox: these are the machine's own programs asked for their versions, and the sandbox
 * mounts the same /usr. */
static char *capture(const char *const *argv)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return NULL;
    }
    tg_buf out = TG_BUF_INIT;
    bool done = read_all(fds[0], &out, tg_now_ms() + PROBE_TIMEOUT_MS);
    close(fds[0]);
    if (!done)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        tg_buf_free(&out);
        return NULL;
    }
    return tg_buf_steal(&out);
}

/* ---- signatures and the cache file ---------------------------------------------------------- */

/* "<real path> <size> <mtime_ns> <inode>" of a program, or NULL when it is not there. */
static char *file_sig(const char *path)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0)
        return NULL;
    return xasprintf("%s %lld %lld %llu", real, (long long)st.st_size,
                     (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
                     (unsigned long long)st.st_ino);
}

/* The program's signature, plus each folder's mtime (Python's sys.path). */
static char *full_sig(const char *prog, const cJSON *dirs)
{
    char *sig = file_sig(prog);
    if (!sig)
        return NULL;
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, sig);
    free(sig);
    const cJSON *d;
    cJSON_ArrayForEach(d, dirs)
    {
        struct stat st;
        if (cJSON_IsString(d) && stat(d->valuestring, &st) == 0)
            tg_buf_printf(&b, "|%s %lld", d->valuestring,
                          (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
    }
    return tg_buf_steal(&b);
}

static const cJSON *matching(const cJSON *cache, const char *fact, const char *sig)
{
    const cJSON *ent = tg_json_get(cache, fact);
    const char *was = tg_json_get_string(ent, "sig");
    return sig && was && strcmp(was, sig) == 0 ? tg_json_get(ent, "value") : NULL;
}

static void put(cJSON *cache, const char *fact, const char *sig, cJSON *value)
{
    cJSON *ent = cJSON_CreateObject();
    cJSON_AddStringToObject(ent, "sig", sig);
    cJSON_AddItemToObject(ent, "value", value);
    cJSON_DeleteItemFromObjectCaseSensitive(cache, fact);
    cJSON_AddItemToObject(cache, fact, ent);
}

/* The cached value of fact when its signature is sig (the repository's cache's own cJSON),
 * else NULL. The machine's facts are the same for every repository, so a repository without
 * the answer (a clean build, a new checkout) takes the machine cache's, under the same
 * signature check. */
static const cJSON *cached(env_ctx *c, const char *fact, const char *sig)
{
    const cJSON *v = matching(c->cache, fact, sig), *m = matching(c->machine, fact, sig);
    if (v && c->machine && !m) { /* the machine's copy learns it too */
        put(c->machine, fact, sig, cJSON_Duplicate(v, true));
        c->machine_dirty = true;
    }
    if (v || !m)
        return v;
    put(c->cache, fact, sig, cJSON_Duplicate(m, true));
    c->dirty = true;
    return matching(c->cache, fact, sig);
}

static void remember(env_ctx *c, const char *fact, const char *sig, cJSON *value)
{
    if (!sig) {
        cJSON_Delete(value);
        return;
    }
    if (c->machine) {
        put(c->machine, fact, sig, cJSON_Duplicate(value, true));
        c->machine_dirty = true;
    }
    put(c->cache, fact, sig, value);
    c->dirty = true;
}

/* A cache file's JSON object; an empty one when it is missing or damaged (asked again). */
static cJSON *read_cache(int dirfd, const char *path)
{
    tg_err err = {0};
    size_t len = 0;
    char *text = tg_read_file_at(dirfd, path, PROBE_MAX_BYTES, &len, &err);
    cJSON *v = text ? tg_json_parse(text, len, NULL, NULL, NULL, &err) : NULL;
    free(text);
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        v = cJSON_CreateObject();
    }
    return v;
}

/* A cache that cannot be written is asked again next time. */
static void write_cache(int dirfd, const char *path, const cJSON *cache)
{
    char *text = tg_json_print(cache);
    tg_err err = {0};
    if (tg_write_file_atomic_at(dirfd, path, text, strlen(text), &err) != 0) {
    }
    free(text);
}

static void *env_open(const tg_repo *repo, bool writable)
{
    env_ctx *c = xcalloc(1, sizeof *c);
    c->repo = repo;
    c->writable = writable;
    tg_err err = {0};
    c->have_sc = tg_sandbox_config_init(&c->sc, repo->path, NULL, &err) == 0;
    c->cache = read_cache(repo->root_fd, ENV_CACHE);
    if (c->have_sc && c->sc.cache_dir) {
        c->machine_path = tg_path_join(c->sc.cache_dir, "env.json");
        c->machine = read_cache(AT_FDCWD, c->machine_path);
    }
    return c;
}

static void env_close(void *ctx)
{
    env_ctx *c = ctx;
    if (!c)
        return;
    if (c->dirty && c->writable)
        write_cache(c->repo->root_fd, ENV_CACHE, c->cache);
    tg_err err = {0};
    if (c->machine_dirty && c->writable && tg_mkdirs(c->sc.cache_dir, &err) == 0)
        write_cache(AT_FDCWD, c->machine_path, c->machine);
    cJSON_Delete(c->cache);
    cJSON_Delete(c->machine);
    free(c->machine_path);
    cJSON_Delete(c->python);
    if (c->have_sc)
        tg_sandbox_config_free(&c->sc);
    free(c);
}

/* ---- the facts ------------------------------------------------------------------------------ */

/* The interpreter, its sys.path folders and every distribution it has, with versions under
 * names normalised as PEP 503 says (lower case, runs of -_. as one -). */
static const char py_probe[] =
    "import json, os, platform, re, sys\n"
    "from importlib import metadata\n"
    "pk = {}\n"
    "for d in metadata.distributions():\n"
    "    n = d.metadata['Name']\n"
    "    if n: pk.setdefault(re.sub(r'[-_.]+', '-', n).lower(), d.version)\n"
    "print(json.dumps({'version': platform.python_implementation() + ' ' +\n"
    "    platform.python_version(), 'path': [p for p in sys.path if os.path.isdir(p)],\n"
    "    'packages': pk}, sort_keys=True))\n";

static const cJSON *python_facts(env_ctx *c)
{
    if (c->python)
        return c->python;
    const char *py = tg_sandbox_python();
    if (!py)
        return NULL;
    const cJSON *was = tg_json_get(c->cache, "python");
    if (!was) /* the folders whose mtimes the signature holds: the machine cache knows them */
        was = tg_json_get(c->machine, "python");
    char *sig = full_sig(py, tg_json_get(tg_json_get(was, "value"), "path"));
    const cJSON *hit = cached(c, "python", sig);
    free(sig);
    if (hit)
        return c->python = cJSON_Duplicate(hit, true);
    const char *argv[] = {py, "-I", "-c", py_probe, NULL};
    char *out = capture(argv);
    tg_err err = {0};
    cJSON *v = out ? tg_json_parse(out, strlen(out), NULL, NULL, NULL, &err) : NULL;
    free(out);
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        return NULL;
    }
    c->python = v;
    sig = full_sig(py, tg_json_get(v, "path"));
    remember(c, "python", sig, cJSON_Duplicate(v, true));
    free(sig);
    return v;
}

/* A program's --version, first line, through the cache ("absent" without the program). */
static void program_version(env_ctx *c, const char *fact, const char *prog, tg_buf *value)
{
    char *sig = prog ? file_sig(prog) : NULL;
    if (!sig) {
        tg_buf_puts(value, "absent");
        return;
    }
    const cJSON *hit = cached(c, fact, sig);
    if (cJSON_IsString(hit)) {
        tg_buf_puts(value, hit->valuestring);
        free(sig);
        return;
    }
    const char *argv[] = {prog, "--version", NULL};
    char *out = capture(argv);
    char *line = out ? xstrndup(out, strcspn(out, "\r\n")) : xstrdup("unknown");
    free(out);
    tg_buf_puts(value, line);
    remember(c, fact, sig, cJSON_CreateString(line));
    free(sig);
    free(line);
}

static void python_package(env_ctx *c, const char *name, tg_buf *value)
{
    tg_buf norm = TG_BUF_INIT;
    for (const char *p = name; *p; p++) {
        bool sep = *p == '-' || *p == '_' || *p == '.';
        if (!sep)
            tg_buf_putc(&norm, (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
        else if (norm.len && norm.data[norm.len - 1] != '-')
            tg_buf_putc(&norm, '-');
    }
    const char *v = tg_json_get_string(tg_json_get(python_facts(c), "packages"),
                                       norm.len ? norm.data : "");
    tg_buf_puts(value, v ? v : "absent");
    tg_buf_free(&norm);
}

/* Node finds global packages in these folders (Debian's first). */
static void npm_package(const char *name, tg_buf *value)
{
    static const char *const dirs[] = {"/usr/share/nodejs", "/usr/lib/nodejs",
                                       "/usr/lib/node_modules", "/usr/local/lib/node_modules"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !strstr(name, ".."); i++) {
        char *path = xasprintf("%s/%s/package.json", dirs[i], name);
        tg_err err = {0};
        size_t len = 0;
        char *text = tg_read_file(path, PROBE_MAX_BYTES, &len, &err);
        free(path);
        cJSON *pj = text ? tg_json_parse(text, len, NULL, NULL, NULL, &err) : NULL;
        free(text);
        const char *v = tg_json_get_string(pj, "version");
        if (v)
            tg_buf_puts(value, v);
        cJSON_Delete(pj);
        if (v)
            return;
    }
    tg_buf_puts(value, "absent");
}

/* A hash of every file in toolgen's runtime folder (names and bytes, in name order). */
static void runner_files(env_ctx *c, tg_buf *value)
{
    const char *dir = c->have_sc ? c->sc.runtime_dir : NULL;
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        tg_buf_puts(value, "absent");
        return;
    }
    tg_strv names = TG_STRV_INIT;
    for (struct dirent *de; (de = readdir(d));)
        if (de->d_name[0] != '.')
            tg_strv_push(&names, de->d_name);
    closedir(d);
    tg_strv_sort(&names);
    tg_hasher *h = tg_hasher_new();
    for (size_t i = 0; i < names.n; i++) {
        char *path = tg_path_join(dir, names.v[i]);
        tg_hash fh = {0, 0};
        tg_err err = {0};
        if (tg_is_file(path) && tg_hash_file_at(AT_FDCWD, path, &fh, &err) == 0) {
            tg_hasher_str(h, 'n', names.v[i]);
            tg_hasher_hash(h, 'h', fh);
        }
        free(path);
    }
    char hex[TG_HASH_HEX];
    tg_hash_hex(tg_hasher_final(h), hex);
    tg_hasher_free(h);
    tg_buf_printf(value, "xxh3:%s", hex);
    tg_strv_free(&names);
}

static void env_fact(void *ctx, const char *name, tg_buf *value)
{
    env_ctx *c = ctx;
    if (!strcmp(name, "python")) {
        const char *v = tg_json_get_string(python_facts(c), "version");
        tg_buf_puts(value, v ? v : "absent");
    } else if (!strcmp(name, "node")) {
        program_version(c, name, tg_sandbox_node(), value);
    } else if (!strcmp(name, "bwrap")) {
        program_version(c, name, c->have_sc ? c->sc.bwrap : NULL, value);
    } else if (!strcmp(name, "runners")) {
        runner_files(c, value);
    } else if (!strncmp(name, "python-package:", 15)) {
        python_package(c, name + 15, value);
    } else if (!strncmp(name, "node-package:", 13)) {
        npm_package(name + 13, value);
    } else {
        tg_buf_puts(value, "unknown");
    }
}

const tg_build_env tgs_env = {.open = env_open, .fact = env_fact, .close = env_close};
