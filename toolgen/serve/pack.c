/* pack.c — the MCP Bundle of a repository (pack.h, docs/mcp.md#pack). */
#include "serve/pack.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/strvec.h"
#include "base/zip.h"
#include "emit/emit.h"
#include "lifecycle/registry.h"
#include "serve/regtools.h"

#define PACK_FILE_MAX ((size_t)512 << 20) /* per file */

typedef struct packer {
    tg_zip zip;
    size_t files;
} packer;

static int add_bytes(packer *p, const char *name, const void *data, size_t len, unsigned mode,
                     tg_err *err)
{
    if (tg_zip_add(&p->zip, name, data, len, mode, err) != 0)
        return -1;
    p->files++;
    return 0;
}

/* Every regular file under dirfd's path (relative to dirfd), as prefix/...; hidden entries and
 * symbolic links are skipped. A missing folder adds nothing. */
static int add_tree(packer *p, int dirfd, const char *path, const char *prefix, tg_err *err)
{
    int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    tg_strv names = TG_STRV_INIT;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            tg_strv_push(&names, e->d_name);
    tg_strv_sort(&names); /* the same tree, the same archive */
    int rc = 0;
    for (size_t i = 0; i < names.n && rc == 0; i++) {
        struct stat st;
        if (fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        char *name = tg_path_join(prefix, names.v[i]);
        if (S_ISDIR(st.st_mode)) {
            rc = add_tree(p, fd, names.v[i], name, err);
        } else if (S_ISREG(st.st_mode)) {
            size_t len = 0;
            char *data = tg_read_file_at(fd, names.v[i], PACK_FILE_MAX, &len, err);
            rc = data ? add_bytes(p, name, data, len, st.st_mode & 0111 ? 0755 : 0644, err) : -1;
            free(data);
        }
        free(name);
    }
    tg_strv_free(&names);
    closedir(d);
    return rc;
}

/* toolgen's own files: the executable, its schemas and runners, where an install puts them. */
static int add_toolgen(packer *p, tg_err *err)
{
    size_t len = 0;
    char *exe = tg_read_file("/proc/self/exe", PACK_FILE_MAX, &len, err);
    if (!exe)
        return tg_err_prefix(err, "reading toolgen's own executable");
    int rc = add_bytes(p, "bin/toolgen", exe, len, 0755, err);
    free(exe);
    const char *data = tg_datadir();
    if (rc != 0 || !data)
        return rc != 0 ? -1 : tg_err_set(err, "toolgen's data files (schemas/) were not found: "
                                              "set TOOLGEN_DATADIR or run an installed toolgen");
    int dfd = open(data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return tg_err_set(err, "%s: cannot open toolgen's data folder", data);
    /* an install has runtime/; the source tree keeps the runners in toolgen/run/runtime/ */
    const char *runtime = tg_is_dir_at(dfd, "runtime") ? "runtime" : "toolgen/run/runtime";
    rc = add_tree(p, dfd, "schemas", "share/toolgen/schemas", err);
    if (rc == 0)
        rc = add_tree(p, dfd, runtime, "share/toolgen/runtime", err);
    close(dfd);
    return rc;
}

static int add_repo_dir(packer *p, const tg_repo *repo, const char *dir, tg_err *err)
{
    char *prefix = tg_path_join("repo", dir);
    int rc = add_tree(p, repo->root_fd, dir, prefix, err);
    free(prefix);
    return rc;
}

/* The repository's part: its config, prompts and data, and what the bundle's server reads —
 * the registry's folders or the manifests, by what it serves (pack.h). */
static int add_repository(packer *p, const tg_repo *repo, const tg_pack_opts *o, tg_err *err)
{
    size_t len = 0;
    if (repo->cfg.path) {
        char *y = tg_read_file_at(repo->root_fd, repo->cfg.path, TG_DOC_MAX_BYTES, &len, err);
        int rc = y ? add_bytes(p, "repo/toolgen.yaml", y, len, 0644, err) : -1;
        free(y);
        if (rc != 0)
            return -1;
    }
    int rc = 0;
    if (o->source == TG_SERVE_SOURCE_DEV || o->workflow)
        rc = add_repo_dir(p, repo, repo->cfg.manifests_dir, err);
    if (rc == 0 && (o->source != TG_SERVE_SOURCE_DEV || o->workflow)) {
        tg_registry g;
        if (tg_registry_open(&g, repo, err) != 0)
            return -1;
        rc = add_repo_dir(p, repo, g.active, err);
        if (rc == 0 && (o->source == TG_SERVE_SOURCE_STAGING || o->workflow))
            rc = add_repo_dir(p, repo, g.staging, err);
        tg_registry_release(&g);
    }
    if (rc == 0)
        rc = add_tree(p, repo->root_fd, "prompts", "repo/prompts", err);
    const cJSON *dirs = tg_config_get(&repo->cfg, "/sandbox/data_dirs"), *d;
    if (!cJSON_IsArray(dirs)) {
        if (rc == 0)
            rc = add_tree(p, repo->root_fd, "data", "repo/data", err);
        return rc;
    }
    cJSON_ArrayForEach(d, dirs) {
        if (rc != 0 || !cJSON_IsString(d) || d->valuestring[0] == '/')
            continue; /* an absolute data folder is the user's machine's, not the bundle's */
        char *dir = xstrdup(d->valuestring);
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = '\0';
        rc = add_repo_dir(p, repo, dir, err);
        free(dir);
    }
    return rc;
}

/* The lifecycle state of a served candidate (regtools marks it in _meta), or NULL. */
static const char *candidate_state(const tg_serve_tool *tool)
{
    const cJSON *lc = tg_json_get(tg_json_get(tool->tool, "_meta"), "dev.toolgen/lifecycle");
    return tg_json_get_string(lc, "state");
}

/* A tool that reaches an external service, or NULL. */
static const char *external_tool(const tg_serve_tools *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (tg_emit_network(&t->v[i].m))
            return t->v[i].m.name;
    return NULL;
}

/* The server section: the bundle's own toolgen on the bundle's repository, serving what was
 * packed, and the workflow only when asked for. */
static void bundle_server(cJSON *m, const tg_pack_opts *o)
{
    cJSON *server = cJSON_GetObjectItemCaseSensitive(m, "server");
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(server, "mcp_config");
    cJSON_ReplaceItemInObject(server, "entry_point", cJSON_CreateString("bin/toolgen"));
    cJSON_ReplaceItemInObject(cfg, "command", cJSON_CreateString("${__dirname}/bin/toolgen"));
    cJSON *args = cJSON_CreateArray();
    const char *argv[] = {"-C", "${__dirname}/repo", "serve"};
    for (size_t i = 0; i < sizeof argv / sizeof *argv; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
    if (o->source != TG_SERVE_SOURCE_REGISTRY)
        cJSON_AddItemToArray(args, cJSON_CreateString(o->source == TG_SERVE_SOURCE_DEV
                                                          ? "--dev" : "--staging"));
    if (!o->workflow)
        cJSON_AddItemToArray(args, cJSON_CreateString("--no-workflow"));
    cJSON_ReplaceItemInObject(cfg, "args", args);
    /* the repository travels in the bundle: no setting for it */
    cJSON *uc = cJSON_GetObjectItemCaseSensitive(m, "user_config");
    cJSON_DeleteItemFromObjectCaseSensitive(uc, "repository");
    if (uc && !uc->child)
        cJSON_DeleteItemFromObjectCaseSensitive(m, "user_config");
}

/* The MCP Bundle manifest of the tools served, emitted as the build emits
 * generated/mcp/manifest.json; a candidate's entry says it is one, as its served title does. */
static char *bundle_manifest(const tg_repo *repo, const tg_pack_opts *o,
                             const tg_serve_tools *t, tg_err *err)
{
    const tg_manifest **ms = xmalloc((t->n ? t->n : 1) * sizeof *ms);
    for (size_t i = 0; i < t->n; i++)
        ms[i] = &t->v[i].m;
    tg_emit_files files = {0};
    int rc = tg_emit_aggregate(ms, t->n, &repo->cfg.project, &files, err);
    free(ms);
    const tg_emit_file *f = rc == 0 ? tg_emit_files_find(&files, "mcp/manifest.json") : NULL;
    cJSON *m = f ? tg_json_parse(f->data, f->len, NULL, NULL, NULL, err) : NULL;
    tg_emit_files_free(&files);
    if (!m)
        return NULL;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(m, "tools")) {
        const tg_serve_tool *tool = tg_serve_tools_find(t, tg_json_get_string(entry, "name"));
        if (!tool || !candidate_state(tool))
            continue;
        const char *title = tg_json_get_string(tool->tool, "title");
        const char *end = strstr(title, "] "); /* the mark: "[candidate v1.1.0, not approved]" */
        char *d = xasprintf("%.*s %s", end ? (int)(end - title + 1) : 0, title,
                            tg_json_get_string(entry, "description"));
        cJSON_ReplaceItemInObject((cJSON *)entry, "description", cJSON_CreateString(d));
        free(d);
    }
    bundle_server(m, o);
    char *out = tg_json_print(m);
    cJSON_Delete(m);
    return out;
}

/* The tools the bundle's server will serve, named in info; -1 when there is nothing to serve
 * or they are not fit to ship. */
static int load_served(const tg_repo *repo, const tg_pack_opts *o, tg_serve_tools *t,
                       tg_pack_info *info, tg_err *err)
{
    if (o->workflow && !repo->cfg.serve_workflow)
        return tg_err_setpos(err, repo->cfg.path ? repo->cfg.path : "toolgen.yaml", 0, 0,
                             "--workflow: this repository does not turn the workflow on; add "
                             "`serve: {workflow: true}` first");
    if (tg_serve_tools_load(t, repo, o->source, err) != 0)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const char *state = candidate_state(&t->v[i]);
        tg_strv_pushf(&info->tools, "%s v%s%s%s%s", t->v[i].m.name, t->v[i].m.version,
                      state ? " (" : "", state ? state : "", state ? ")" : "");
    }
    for (size_t i = 0; i < t->n_skipped; i++)
        tg_strv_push(&info->skipped, t->skipped[i]);
    const char *cfg = repo->cfg.path ? repo->cfg.path : "toolgen.yaml";
    if (t->n == 0 && !o->workflow)
        return tg_err_set(err, "%s", o->source == TG_SERVE_SOURCE_DEV
            ? "no manifest lints cleanly: nothing to serve (`toolgen lint` says why)"
            : "the registry has no promoted tool: a bundle serves the tools the user approved. "
              "Promote one first (`toolgen status` says what each tool needs), or pack --dev "
              "to ship the working tree's manifests unreviewed");
    const char *ext = external_tool(t);
    if (!repo->cfg.project.privacy_policies && ext)
        return tg_err_setpos(err, cfg, 0, 0,
                             "%s reaches an external service, and a bundle must then name its "
                             "privacy policy: add project.privacy_policies (a list of URLs)",
                             ext);
    return 0;
}

void tg_pack_info_release(tg_pack_info *info)
{
    tg_strv_free(&info->tools);
    tg_strv_free(&info->skipped);
}

int tg_serve_pack(const tg_repo *repo, const tg_pack_opts *opts, int out_dirfd, const char *out,
                  tg_pack_info *info, tg_err *err)
{
    *info = (tg_pack_info){.tools = TG_STRV_INIT, .skipped = TG_STRV_INIT};
    tg_serve_tools tools = {0}; /* freeing it empty is a no-op */
    if (load_served(repo, opts, &tools, info, err) != 0) {
        tg_serve_tools_free(&tools);
        return -1;
    }
    char *manifest = bundle_manifest(repo, opts, &tools, err);
    tg_serve_tools_free(&tools);
    if (!manifest)
        return -1;
    packer p = {.files = 0};
    tg_zip_init(&p.zip);
    int rc = add_bytes(&p, "manifest.json", manifest, strlen(manifest), 0644, err);
    free(manifest);
    if (rc == 0)
        rc = add_toolgen(&p, err);
    if (rc == 0)
        rc = add_repository(&p, repo, opts, err);
    size_t len = 0;
    char *bytes = rc == 0 ? tg_zip_finish(&p.zip, &len, err) : NULL;
    tg_zip_free(&p.zip);
    if (!bytes)
        return -1;
    rc = tg_write_file_atomic_at(out_dirfd, out, bytes, len, err);
    tg_sha256_hex(bytes, len, info->sha256);
    free(bytes);
    info->files = p.files;
    info->bytes = len;
    return rc;
}
