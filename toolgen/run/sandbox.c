/* sandbox.c — the sandbox's configuration, the limits of a call, and path arguments. */
#define _GNU_SOURCE
#include "run/sandbox.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "model/manifest.h"
#include "run/sandbox_int.h"

/* ---- configuration -------------------------------------------------------------------------- */

static const struct {
    const char *key;
    size_t off;
    long scale; /* the config counts wall time in seconds, tg_limits in ms */
} limit_keys[] = {
    {"cpu_s", offsetof(tg_limits, cpu_s), 1},
    {"memory_mb", offsetof(tg_limits, memory_mb), 1},
    {"wall_s", offsetof(tg_limits, wall_ms), 1000},
    {"output_kb", offsetof(tg_limits, output_kb), 1},
    {"files", offsetof(tg_limits, files), 1},
    {"processes", offsetof(tg_limits, processes), 1},
};
#define NLIMITS (sizeof limit_keys / sizeof *limit_keys)

static long *limit_field(tg_limits *l, size_t i)
{
    return (long *)(void *)((char *)l + limit_keys[i].off);
}

/* A relative path without ".." components, as the config schema requires. */
static bool relative_path_ok(const char *p)
{
    if (!*p || p[0] == '/')
        return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return false;
        s += n + (e ? 1 : 0);
    }
    return true;
}

static char *find_in_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = xstrdup(path), *save = NULL, *found = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *p = tg_path_join(*dir ? dir : ".", name);
        if (access(p, X_OK) == 0 && tg_is_file(p))
            found = p;
        else
            free(p);
    }
    free(copy);
    return found;
}

static char *find_runtime_dir(void)
{
    const char *data = tg_datadir();
    if (!data)
        return NULL;
    /* source tree: toolgen/run/runtime; installed: PREFIX/share/toolgen/runtime */
    static const char *const sub[] = {"toolgen/run/runtime", "runtime"};
    for (size_t i = 0; i < 2; i++) {
        char *dir = tg_path_join(data, sub[i]);
        char *probe = tg_path_join(dir, "runner.py");
        bool ok = tg_is_file(probe);
        free(probe);
        if (ok)
            return dir;
        free(dir);
    }
    return NULL;
}

int tg_sandbox_config_init(tg_sandbox_config *c, const char *root, const cJSON *config, tg_err *err)
{
    *c = (tg_sandbox_config){.isolation = TG_ISOLATION_BWRAP, .max = (tg_limits)TG_LIMITS_MAX_DEFAULT};
    char real[PATH_MAX];
    if (!realpath(root, real))
        return tg_err_set(err, "%s: %s", root, strerror(errno));
    c->root = xstrdup(real);

    const cJSON *sb = tg_json_get(config, "sandbox");
    const char *where = "toolgen.yaml: /sandbox";
    if (sb && !cJSON_IsObject(sb))
        goto bad_type;
    const cJSON *iso = tg_json_get(sb, "isolation");
    if (iso) {
        if (cJSON_IsString(iso) && strcmp(iso->valuestring, "bwrap") == 0)
            c->isolation = TG_ISOLATION_BWRAP;
        else if (cJSON_IsString(iso) && strcmp(iso->valuestring, "none") == 0)
            c->isolation = TG_ISOLATION_NONE;
        else {
            tg_sandbox_config_free(c);
            return tg_err_set(err, "%s/isolation: must be \"bwrap\" or \"none\"", where);
        }
    }
    const cJSON *dirs = tg_json_get(sb, "data_dirs");
    if (dirs) {
        if (!cJSON_IsArray(dirs) || cJSON_GetArraySize(dirs) == 0) {
            tg_sandbox_config_free(c);
            return tg_err_set(err, "%s/data_dirs: must be a non-empty list of paths", where);
        }
        const cJSON *d;
        cJSON_ArrayForEach(d, dirs)
        {
            if (!cJSON_IsString(d) || !relative_path_ok(d->valuestring)) {
                tg_sandbox_config_free(c);
                return tg_err_set(err, "%s/data_dirs: each entry must be a path relative to the "
                                       "repository root, without '..'", where);
            }
        }
        c->n_data_dirs = (size_t)cJSON_GetArraySize(dirs);
        c->data_dirs = xcalloc(c->n_data_dirs, sizeof *c->data_dirs);
        size_t i = 0;
        cJSON_ArrayForEach(d, dirs) c->data_dirs[i++] = xstrdup(d->valuestring);
    } else {
        c->n_data_dirs = 1;
        c->data_dirs = xcalloc(1, sizeof *c->data_dirs);
        c->data_dirs[0] = xstrdup("data/");
    }
    const cJSON *max = tg_json_get(sb, "max_limits");
    if (max && !cJSON_IsObject(max))
        goto bad_type;
    for (size_t i = 0; max && i < NLIMITS; i++) {
        const cJSON *v = tg_json_get(max, limit_keys[i].key);
        if (!v)
            continue;
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e9) {
            tg_sandbox_config_free(c);
            return tg_err_set(err, "%s/max_limits/%s: must be a positive integer", where,
                              limit_keys[i].key);
        }
        *limit_field(&c->max, i) = (long)v->valuedouble * limit_keys[i].scale;
    }

    c->runtime_dir = find_runtime_dir();
    const char *bw = getenv("TOOLGEN_BWRAP");
    c->bwrap = bw && *bw ? xstrdup(bw) : find_in_path("bwrap");
    const char *tmp = getenv("TMPDIR");
    c->tmp_dir = xstrdup(tmp && tmp[0] == '/' ? tmp : "/tmp");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        c->cache_dir = tg_path_join(xdg, "toolgen");
    else if (home && home[0] == '/')
        c->cache_dir = xasprintf("%s/.cache/toolgen", home);
    return 0;

bad_type:
    tg_sandbox_config_free(c);
    return tg_err_set(err, "%s: must be a mapping", where);
}

void tg_sandbox_config_free(tg_sandbox_config *c)
{
    for (size_t i = 0; i < c->n_data_dirs; i++)
        free(c->data_dirs[i]);
    free(c->data_dirs);
    free(c->root);
    free(c->runtime_dir);
    free(c->bwrap);
    free(c->tmp_dir);
    free(c->cache_dir);
    *c = (tg_sandbox_config){0};
}

void tg_limits_resolve(const cJSON *constraints, long timeout_ms, const tg_limits *max,
                       tg_limits *out)
{
    *out = (tg_limits)TG_LIMITS_DEFAULT;
    const cJSON *lim = tg_json_get(constraints, "limits");
    for (size_t i = 0; i < NLIMITS; i++) {
        const cJSON *v = tg_json_get(lim, limit_keys[i].key);
        long *f = limit_field(out, i);
        if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 1e9)
            *f = (long)v->valuedouble * limit_keys[i].scale;
        long cap = *limit_field((tg_limits *)max, i);
        if (cap > 0 && *f > cap)
            *f = cap;
    }
    if (timeout_ms > 0 && out->wall_ms > timeout_ms)
        out->wall_ms = timeout_ms;
}

/* ---- path arguments ------------------------------------------------------------------------- */

/* Places inside the sandbox a path argument may not be mounted over. */
static const char *const reserved[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                       "/libx32", "/proc", "/dev", "/tool", "/toolgen"};

static bool reserved_inside(const char *inside)
{
    /* Below /tmp or /etc is fine (a repository in /tmp); over them, not. */
    if (strcmp(inside, "/") == 0 || strcmp(inside, TG_SANDBOX_WORK) == 0 ||
        strcmp(inside, "/tmp") == 0 || strcmp(inside, "/etc") == 0)
        return true;
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (sb_path_within(inside, reserved[i]))
            return true;
    return false;
}

/*
 * Real path of p; for a path that does not exist, the real path of its deepest existing
 * ancestor plus the rest (so "missing, but inside data/" can be told from "outside").
 */
static char *resolve_host(const char *abs, bool *exists, int *errno_out)
{
    char real[PATH_MAX];
    *exists = false;
    *errno_out = 0;
    if (realpath(abs, real)) {
        *exists = true;
        return xstrdup(real);
    }
    *errno_out = errno;
    if (errno != ENOENT && errno != ENOTDIR)
        return NULL;
    char *norm = sb_normalize(abs);
    size_t len = strlen(norm);
    char *result = NULL;
    while (len > 1) {
        while (len > 1 && norm[len - 1] != '/')
            len--;
        if (len > 1)
            len--;
        char saved = norm[len];
        norm[len] = '\0';
        bool ok = realpath(len ? norm : "/", real) != NULL;
        norm[len] = saved;
        if (ok) {
            char *joined = xasprintf("%s%s", strcmp(real, "/") == 0 ? "" : real, norm + len);
            result = sb_normalize(joined);
            free(joined);
            break;
        }
    }
    free(norm);
    return result ? result : xstrdup("/");
}

static void allowed_list(const tg_sandbox_config *c, const cJSON *allowed_paths, tg_buf *b)
{
    bool first = true;
    const cJSON *a;
    if (cJSON_IsArray(allowed_paths) && cJSON_GetArraySize(allowed_paths) > 0) {
        cJSON_ArrayForEach(a, allowed_paths)
        {
            if (!cJSON_IsString(a))
                continue;
            tg_buf_printf(b, "%s%s", first ? "" : ", ", a->valuestring);
            first = false;
        }
        tg_buf_puts(b, " (constraints.allowed_paths) within ");
        first = true;
    }
    for (size_t i = 0; i < c->n_data_dirs; i++) {
        tg_buf_printf(b, "%s%s", first ? "" : ", ", c->data_dirs[i]);
        first = false;
    }
    tg_buf_puts(b, " (sandbox.data_dirs)");
}

static bool within_any(const tg_sandbox_config *c, const char *host, const cJSON *list,
                       bool use_data_dirs)
{
    size_t n = use_data_dirs ? c->n_data_dirs : (size_t)cJSON_GetArraySize(list);
    for (size_t i = 0; i < n; i++) {
        const char *rel;
        if (use_data_dirs) {
            rel = c->data_dirs[i];
        } else {
            const cJSON *e = cJSON_GetArrayItem(list, (int)i);
            if (!cJSON_IsString(e))
                continue;
            rel = e->valuestring;
        }
        char *abs = tg_path_join(c->root, rel);
        char real[PATH_MAX];
        bool inside = realpath(abs, real) && sb_path_within(host, real);
        free(abs);
        if (inside)
            return true;
    }
    return false;
}

/* A ".." component: the host would resolve it, but the sandbox shows the file only at the path
 * as given (data/sub/../x opens data/sub inside, which is not there). */
static bool climbs(const char *value)
{
    for (const char *s = value; *s;) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.')
            return true;
        s += n + (s[n] == '/');
    }
    return false;
}

/* What a path argument names when it is not a regular file, or NULL. */
static const char *not_a_file(mode_t mode)
{
    return S_ISREG(mode)    ? NULL
           : S_ISDIR(mode)  ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO (named pipe), which would block the call"
           : S_ISSOCK(mode) ? "a socket"
                            : "a device";
}

static tg_path_verdict check_one(const tg_sandbox_config *c, const char *name, const char *value,
                                 const cJSON *allowed_paths, tg_path_arg *out, tg_err *err)
{
    if (climbs(value)) {
        tg_err_set(err, "%s: path '%s' has a '..' component; pass the file's path without one, "
                        "e.g. data/file.csv (the tool opens the path as given)", name, value);
        return TG_PATH_FORBIDDEN;
    }
    bool absolute = value[0] == '/';
    char *abs = absolute ? xstrdup(value) : tg_path_join(c->root, value);
    bool exists;
    int e;
    char *host = resolve_host(abs, &exists, &e);
    free(abs);
    tg_buf allowed = TG_BUF_INIT;
    allowed_list(c, allowed_paths, &allowed);
    tg_path_verdict verdict = TG_PATH_OK;
    if (!host) {
        tg_err_set(err, "%s: path '%s' cannot be resolved (%s); path arguments must point into %s",
                   name, value, strerror(e), allowed.data);
        verdict = TG_PATH_FORBIDDEN;
    } else if (!within_any(c, host, NULL, true) ||
               (cJSON_IsArray(allowed_paths) && cJSON_GetArraySize(allowed_paths) > 0 &&
                !within_any(c, host, allowed_paths, false))) {
        tg_err_set(err, "%s: path '%s' is outside the allowed directories: it must lie in %s "
                        "after symlinks are resolved",
                   name, value, allowed.data);
        verdict = TG_PATH_FORBIDDEN;
    } else if (!exists) {
        tg_err_set(err, "%s: file not found: %s", name, value);
        verdict = TG_PATH_NOT_FOUND;
    }
    tg_buf_free(&allowed);
    if (verdict != TG_PATH_OK) {
        free(host);
        return verdict;
    }

    struct stat st;
    if (stat(host, &st) != 0) {
        free(host);
        tg_err_set(err, "%s: file not found: %s", name, value);
        return TG_PATH_NOT_FOUND;
    }
    /* One data file is what the tool gets: never a whole folder, never a pipe it would hang on. */
    const char *what = not_a_file(st.st_mode);
    if (what) {
        tg_err_set(err, "%s: '%s' is %s, not a file: a path argument names one regular file in "
                        "a data directory, e.g. data/file.csv", name, value, what);
        free(host);
        return TG_PATH_FORBIDDEN;
    }
    /* As root the tool runs as an unprivileged user (see sandbox_exec.c): it must be able to
     * read what it is given, or bubblewrap cannot even mount it. */
    if (geteuid() == 0 && c->isolation == TG_ISOLATION_BWRAP && !(st.st_mode & S_IROTH)) {
        tg_err_set(err, "%s: '%s' is not readable by other users (mode %04o); tool code runs as "
                        "an unprivileged user: make it readable (chmod o+r %s)",
                   name, value, (unsigned)(st.st_mode & 07777), value);
        free(host);
        return TG_PATH_FORBIDDEN;
    }
    char *inside;
    if (absolute) {
        inside = sb_normalize(value);
    } else {
        char *joined = tg_path_join(TG_SANDBOX_WORK, value);
        inside = sb_normalize(joined);
        free(joined);
    }
    if (reserved_inside(inside)) {
        tg_err_set(err, "%s: path '%s' would be mounted over %s inside the sandbox; pass it relative "
                        "to the repository root, e.g. data/file.csv",
                   name, value, inside);
        free(inside);
        free(host);
        return TG_PATH_FORBIDDEN;
    }
    *out = (tg_path_arg){xstrdup(name), xstrdup(value), host, inside, S_ISDIR(st.st_mode)};
    return TG_PATH_OK;
}

tg_path_verdict tg_sandbox_check_paths(const tg_sandbox_config *c, const cJSON *input_schema,
                                       const cJSON *args, const cJSON *allowed_paths,
                                       tg_path_args *out, tg_err *err)
{
    *out = (tg_path_args){0};
    const cJSON *props = tg_json_get(input_schema, "properties");
    if (!cJSON_IsObject(props))
        return TG_PATH_OK;
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        const char *marker = tg_json_get_string(p, "x-toolgen-path");
        if (!marker || strcmp(marker, "read") != 0)
            continue;
        const char *value = tg_json_get_string(args, p->string);
        if (!value)
            continue; /* absent optional argument (the input schema checked its type) */
        tg_path_arg a;
        if (!*value) {
            tg_err_set(err, "%s: empty path", p->string);
            tg_path_args_free(out);
            return TG_PATH_FORBIDDEN;
        }
        tg_path_verdict v = check_one(c, p->string, value, allowed_paths, &a, err);
        if (v != TG_PATH_OK) {
            tg_path_args_free(out);
            return v;
        }
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        out->v[out->n++] = a;
    }
    return TG_PATH_OK;
}

void tg_path_args_free(tg_path_args *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].name);
        free(p->v[i].value);
        free(p->v[i].host);
        free(p->v[i].inside);
    }
    free(p->v);
    *p = (tg_path_args){0};
}

const char *tg_file_type_name(tg_file_type t)
{
    static const char *const names[] = {"csv", "image", "json", "text", "other"};
    return t <= TG_FILE_OTHER ? names[t] : "other";
}

const char *tg_sandbox_python(void)
{
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : NULL;
}

const char *tg_sandbox_node(void)
{
    if (access("/usr/bin/node", X_OK) == 0)
        return "/usr/bin/node";
    if (access("/usr/local/bin/node", X_OK) == 0)
        return "/usr/local/bin/node";
    return NULL;
}
