/* registry.c — the registry's folders, metadata files and snapshot checks (see registry.h and
 * docs/lifecycle.md "Registry layout"). */
#include "lifecycle/registry.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/doc.h"
#include "base/json.h"
#include "base/sha256.h"
#include "lifecycle/recover.h"
#include "schema/jsonschema.h"

static const struct {
    const char *key, *fallback;
} path_keys[] = {
    {"/registry/active_path", "registry/active"},
    {"/registry/staging_path", "registry/staging"},
    {"/registry/archive_path", "registry/archive"},
};

/* The configured path without "./" and trailing '/', or NULL with err when unsafe. */
static char *registry_path(const tg_repo *repo, int i, tg_err *err)
{
    const cJSON *v = repo->have_config ? tg_config_get(&repo->cfg, path_keys[i].key) : NULL;
    const char *s = cJSON_IsString(v) ? v->valuestring : path_keys[i].fallback;
    while (s[0] == '.' && s[1] == '/')
        s += 2;
    char *p = xstrdup(s);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    bool climbs = strcmp(p, "..") == 0 || tg_str_startswith(p, "../") || strstr(p, "/../") ||
                  tg_str_endswith(p, "/..");
    if (n == 0 || p[0] == '/' || climbs || strcmp(p, ".") == 0) {
        tg_err_set(err, "toolgen.yaml: %s is \"%s\": the registry must be a folder inside the "
                   "repository, e.g. \"%s\"", path_keys[i].key + 1, s, path_keys[i].fallback);
        free(p);
        return NULL;
    }
    return p;
}

int tg_registry_open(tg_registry *g, const tg_repo *repo, tg_err *err)
{
    *g = (tg_registry){.repo = repo};
    char **slots[3] = {&g->active, &g->staging, &g->archive};
    for (int i = 0; i < 3; i++)
        if (!(*slots[i] = registry_path(repo, i, err))) {
            tg_registry_release(g);
            return -1;
        }
    /* a change a killed process left half done is finished or undone before anything reads */
    if (tg_registry_recover(repo, NULL, err) != 0) {
        tg_err_prefix(err, "recovering the registry from an interrupted change: ");
        tg_registry_release(g);
        return -1;
    }
    return 0;
}

void tg_registry_release(tg_registry *g)
{
    free(g->active);
    free(g->staging);
    free(g->archive);
    *g = (tg_registry){0};
}

char *tg_registry_file(const tg_registry *g, tg_reg_file f)
{
    switch (f) {
    case TG_REG_STAGING:
        return tg_path_join(g->staging, "metadata.json");
    case TG_REG_ACTIVE:
        return tg_path_join(g->active, "metadata.json");
    case TG_REG_PROMOTION_LOG:
        return tg_path_join(g->active, "promotion_log.json");
    }
    return NULL;
}

char *tg_registry_candidate_dir(const tg_registry *g, const char *tool, const char *version)
{
    return xasprintf("%s/candidates/%s_%s", g->staging, tool, version);
}

char *tg_registry_active_dir(const tg_registry *g, const char *tool)
{
    return xasprintf("%s/tools/%s", g->active, tool);
}

static const char *const schema_names[] = {"registry.staging.schema.json",
                                           "registry.active.schema.json",
                                           "registry.promotion_log.schema.json"};
static const char *const collection_keys[] = {"candidates", "tools", "promotions"};

static cJSON *empty_doc(tg_reg_file f)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "registry_version", 1);
    if (f == TG_REG_PROMOTION_LOG)
        cJSON_AddArrayToObject(d, collection_keys[f]);
    else
        cJSON_AddObjectToObject(d, collection_keys[f]);
    return d;
}

/* Validates doc against toolgen's schema for f; 0, or -1 with err at the first problem. */
static int check_schema(tg_reg_file f, const char *path, const cJSON *doc, tg_err *err)
{
    const char *data = tg_datadir();
    if (!data)
        return tg_err_set(err, "cannot find toolgen's data directory (schemas/); set "
                               "TOOLGEN_DATADIR to the source tree or PREFIX/share/toolgen");
    char *spath = xasprintf("%s/schemas/%s", data, schema_names[f]);
    tg_doc sdoc = {0};
    js_registry *reg = NULL;
    js_schema *s = NULL;
    js_errors errs = {0};
    int rc = -1;
    if (tg_doc_load(spath, NULL, &sdoc, err) != 0)
        goto out;
    reg = js_registry_new();
    js_options o = {.base_uri = NULL};
    if (!(s = js_compile(reg, sdoc.root, &o, err)))
        goto out;
    if (!js_validate(s, doc, &errs)) {
        const js_error *e = errs.n ? &errs.v[0] : NULL;
        tg_err_setpos(err, path, 0, 0,
                      "not a valid registry file (%s) at \"%s\": %s; fix it by hand or restore "
                      "it with `git checkout -- %s`",
                      schema_names[f], e ? e->instance_location : "",
                      e ? e->message : "invalid", path);
        goto out;
    }
    rc = 0;
out:
    js_errors_free(&errs);
    js_schema_free(s);
    js_registry_free(reg);
    tg_doc_free(&sdoc);
    free(spath);
    return rc;
}

cJSON *tg_registry_load(const tg_registry *g, tg_reg_file f, tg_err *err)
{
    char *path = tg_registry_file(g, f);
    cJSON *out = NULL;
    if (!tg_is_file_at(g->repo->root_fd, path)) {
        out = empty_doc(f);
        free(path);
        return out;
    }
    size_t len = 0;
    char *text = tg_read_file_at(g->repo->root_fd, path, TG_DOC_MAX_BYTES, &len, err);
    if (text) {
        const char *end = NULL;
        out = cJSON_ParseWithLengthOpts(text, len, &end, 0);
        while (out && end && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
            end++;
        if (out && end && *end) { /* something after the document */
            cJSON_Delete(out);
            out = NULL;
        }
        if (!out)
            tg_err_setpos(err, path, 0, 0, "not valid JSON near byte %ld; fix it by hand or "
                          "restore it with `git checkout -- %s`",
                          end ? (long)(end - text) : 0L, path);
        else if (check_schema(f, path, out, err) != 0) {
            cJSON_Delete(out);
            out = NULL;
        }
    }
    free(text);
    free(path);
    return out;
}

cJSON *tg_registry_candidate(cJSON *staging, const char *tool)
{
    return cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(staging, "candidates"), tool);
}

cJSON *tg_registry_active_tool(cJSON *active, const char *tool)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(active, "tools"),
                                            tool);
}

int tg_registry_list_files(const tg_registry *g, const char *dir, tg_strv *out, tg_err *err)
{
    DIR *d = tg_opendir_at(g->repo->root_fd, dir);
    if (!d)
        return tg_err_set(err, "cannot read the folder %s: %s", dir, strerror(errno));
    size_t from = out->n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *p = tg_path_join(dir, e->d_name);
        if (tg_is_file_at(g->repo->root_fd, p))
            tg_strv_push(out, e->d_name);
        free(p);
    }
    closedir(d);
    tg_strv_sort_from(out, from);
    return 0;
}

int tg_registry_sha256(const tg_registry *g, const char *path, char out[65], tg_err *err)
{
    size_t len = 0;
    char *text = tg_read_file_at(g->repo->root_fd, path, 0, &len, err);
    if (!text)
        return -1;
    tg_sha256_hex(text, len, out);
    free(text);
    return 0;
}

/* The next number of a version string, advancing *s; 0 when none. */
static unsigned long version_part(const char **s)
{
    unsigned long v = 0;
    while (isdigit((unsigned char)**s))
        v = v * 10 + (unsigned long)(*(*s)++ - '0');
    if (**s == '.')
        (*s)++;
    return v;
}

int tg_registry_check_version(const tg_registry *g, const char *tool, const char *version,
                              const cJSON *active, tg_err *err)
{
    const char *aver = tg_json_get_string(active, "version");
    if (!aver)
        return 0;
    int c = tg_version_cmp(version, aver);
    if (c < 0)
        return tg_err_set(err, "%s v%s is older than the active v%s; a promotion never goes "
                          "back: bump the manifest's version above %s", tool, version, aver,
                          aver);
    const cJSON *bump = g->repo->have_config
                            ? tg_config_get(&g->repo->cfg, "/promotion/require_version_bump")
                            : NULL;
    if (c > 0 || cJSON_IsFalse(bump))
        return 0;
    unsigned major = 0, minor = 0;
    sscanf(aver, "%u.%u", &major, &minor);
    return tg_err_set(err, "%s v%s is promoted with another spec or code, and a change needs a "
                      "new version: increment the manifest's version above %s (e.g. to "
                      "%u.%u.0), then build and stage it", tool, aver, aver, major, minor + 1);
}

int tg_version_cmp(const char *a, const char *b)
{
    for (int i = 0; i < 3; i++) {
        unsigned long x = version_part(&a), y = version_part(&b);
        if (x != y)
            return x < y ? -1 : 1;
    }
    bool pa = *a == '-', pb = *b == '-'; /* a pre-release sorts before its release */
    if (pa != pb)
        return pa ? -1 : 1;
    return strcmp(a, b) < 0 ? -1 : strcmp(a, b) > 0;
}

/* Compares the SHA-256 of dir/file with want; appends a problem when they differ. */
static void verify_file(const tg_registry *g, const char *owner, const char *dir,
                        const char *file, const char *want, tg_strv *problems)
{
    char got[TG_SHA256_HEX];
    if (!file) { /* a tool without a code file records the hash of no bytes */
        tg_sha256_hex("", 0, got);
        if (!want || strcmp(got, want) != 0)
            tg_strv_pushf(problems, "%s: %s has no code file but a code hash of some bytes; "
                          "restore the registry from git", dir, owner);
        return;
    }
    char *p = tg_path_join(dir, file);
    tg_err e = {0};
    if (tg_registry_sha256(g, p, got, &e) != 0)
        tg_strv_pushf(problems, "%s: missing or unreadable (%s): %s's snapshot is incomplete; "
                      "restore it with `git checkout -- %s`", p, e.msg, owner, dir);
    else if (!want || strcmp(got, want) != 0)
        tg_strv_pushf(problems, "%s: SHA-256 %s differs from the recorded %s: the snapshot of "
                      "%s was changed after it was written; restore it with `git checkout -- "
                      "%s` (a change to a tool goes through its manifest and a new version)",
                      p, got, want ? want : "(none)", owner, p);
    free(p);
}

static void verify_active(const tg_registry *g, const char *name, const cJSON *t,
                          tg_strv *problems)
{
    const char *dir = tg_json_get_string(t, "path");
    const char *version = tg_json_get_string(t, "version");
    verify_file(g, name, dir, "spec.json", tg_json_get_string(t, "spec_hash"), problems);
    verify_file(g, name, dir, tg_json_get_string(t, "code_file"),
                tg_json_get_string(t, "code_hash"), problems);
    char *vp = tg_path_join(dir, "VERSION");
    char *v = tg_read_file_at(g->repo->root_fd, vp, 4096, NULL, NULL);
    if (v) {
        v[strcspn(v, "\r\n")] = '\0';
    }
    if (!v || strcmp(v, version) != 0)
        tg_strv_pushf(problems, "%s: holds \"%s\" but the active registry records version %s "
                      "for %s; restore it with `git checkout -- %s`", vp, v ? v : "(missing)",
                      version, name, vp);
    free(v);
    free(vp);
}

/* Entries below the folder dir/sub (fd) that are not regular files or folders: a staged run's
 * copies are data, never links or devices. Appends one problem per entry. */
static void check_copies(int fd, const char *rel, const char *owner, int depth, tg_strv *problems)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        char *p = tg_path_join(rel, e->d_name);
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
            depth < 64) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                check_copies(sub, p, owner, depth + 1, problems);
        } else if (!S_ISREG(st.st_mode)) {
            tg_strv_pushf(problems, "%s: not a regular file, which a staged run's copies of %s "
                          "always are; remove it", p, owner);
        }
        free(p);
    }
    closedir(d);
}

/*
 * A snapshot folder holds exactly the files its snapshot lists (docs/lifecycle.md "Registry
 * layout"): anything else beside the approved code — a __pycache__, a module it would import
 * first, a link — could run instead of it. A candidate may also hold the staged run's copies
 * (files/). Appends one problem per entry that does not belong.
 */
static void check_listed(const tg_registry *g, const char *owner, const char *dir, bool active,
                         const char *code, tg_strv *problems)
{
    static const char *const active_files[] = {"spec.json", "tests.json", "VERSION", NULL};
    static const char *const candidate_files[] = {"spec.json", "validation_report.json",
                                                  "run_artifacts.json", NULL};
    const char *const *listed = active ? active_files : candidate_files;
    DIR *d = tg_opendir_at(g->repo->root_fd, dir);
    if (!d)
        return; /* a missing folder is reported by the hash checks */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        struct stat st;
        bool stat_ok = fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0;
        bool file = stat_ok && S_ISREG(st.st_mode);
        if (file && (tg_strlist_has(listed, n) || (code && strcmp(n, code) == 0)))
            continue;
        if (!active && stat_ok && S_ISDIR(st.st_mode) && strcmp(n, "files") == 0) {
            char *rel = tg_path_join(dir, n);
            int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                check_copies(sub, rel, owner, 0, problems);
            free(rel);
            continue;
        }
        tg_strv_pushf(problems, "%s/%s: not part of %s's snapshot, which lists only %s%s%s: "
                      "a file beside the approved code could run instead of it (a __pycache__, "
                      "a module it imports); remove it (`rm -r %s/%s`) or restore the folder "
                      "from git", dir, n, owner, active ? "spec.json, tests.json, VERSION"
                                                        : "spec.json, validation_report.json, "
                                                          "run_artifacts.json, files/",
                      code ? " and " : "", code ? code : "", dir, n);
    }
    closedir(d);
}

bool tg_registry_verify_entry(const tg_registry *g, const char *name, const cJSON *entry,
                              bool active, tg_strv *problems)
{
    size_t before = problems->n;
    const char *dir = tg_json_get_string(entry, "path");
    if (dir)
        check_listed(g, name, dir, active, tg_json_get_string(entry, "code_file"), problems);
    if (active) {
        verify_active(g, name, entry, problems);
    } else {
        verify_file(g, name, dir, "spec.json", tg_json_get_string(entry, "spec_hash"), problems);
        verify_file(g, name, dir, tg_json_get_string(entry, "code_file"),
                    tg_json_get_string(entry, "code_hash"), problems);
    }
    return problems->n == before;
}

int tg_registry_verify(const tg_registry *g, tg_strv *problems, tg_err *err)
{
    cJSON *active = tg_registry_load(g, TG_REG_ACTIVE, err);
    if (!active)
        return -1;
    cJSON *staging = tg_registry_load(g, TG_REG_STAGING, err);
    if (!staging) {
        cJSON_Delete(active);
        return -1;
    }
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(active, "tools"))
        tg_registry_verify_entry(g, t->string, t, true, problems);
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(staging, "candidates")) {
        const char *state = tg_json_get_string(t, "state");
        if (strcmp(state, "STAGED") != 0 && strcmp(state, "APPROVED") != 0)
            continue; /* archived snapshots are history; git keeps them */
        tg_registry_verify_entry(g, t->string, t, false, problems);
    }
    cJSON_Delete(active);
    cJSON_Delete(staging);
    return 0;
}
