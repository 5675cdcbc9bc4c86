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
#include "emit/common.h"
#include "serve/tools.h"

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

/* The repository's part: what toolgen serve --dev reads, and the data the tools read. */
static int add_repository(packer *p, const tg_repo *repo, tg_err *err)
{
    size_t len = 0;
    if (repo->cfg.path) {
        char *y = tg_read_file_at(repo->root_fd, repo->cfg.path, TG_DOC_MAX_BYTES, &len, err);
        int rc = y ? add_bytes(p, "repo/toolgen.yaml", y, len, 0644, err) : -1;
        free(y);
        if (rc != 0)
            return -1;
    }
    char *m = tg_path_join("repo", repo->cfg.manifests_dir);
    int rc = add_tree(p, repo->root_fd, repo->cfg.manifests_dir, m, err);
    free(m);
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
        char *prefix = tg_path_join("repo", dir);
        rc = add_tree(p, repo->root_fd, dir, prefix, err);
        free(prefix);
        free(dir);
    }
    return rc;
}

/* A tool that reaches an external service, or NULL. */
static const char *external_tool(const tg_repo *repo, char *name, size_t n)
{
    tg_serve_tools tools;
    tg_err err = {0};
    if (tg_serve_tools_load_dev(&tools, repo, &err) != 0)
        return NULL;
    const char *found = NULL;
    for (size_t i = 0; i < tools.n && !found; i++)
        if (tg_emit_network(&tools.v[i].m)) {
            snprintf(name, n, "%s", tools.v[i].m.name);
            found = name;
        }
    tg_serve_tools_free(&tools);
    return found;
}

/* generated/mcp/manifest.json, its server section pointing into the bundle. */
static char *bundle_manifest(const tg_repo *repo, tg_err *err)
{
    char *path = xasprintf("%s/mcp/manifest.json", repo->cfg.generated_dir);
    size_t len = 0;
    char *text = tg_read_file_at(repo->root_fd, path, TG_DOC_MAX_BYTES, &len, err);
    cJSON *m = text ? tg_json_parse(text, len, NULL, NULL, NULL, err) : NULL;
    free(text);
    if (!cJSON_IsObject(m)) {
        tg_err_set(err, "%s is missing or unreadable: run `toolgen build` first, then pack", path);
        free(path);
        cJSON_Delete(m);
        return NULL;
    }
    free(path);
    cJSON *server = cJSON_GetObjectItemCaseSensitive(m, "server");
    cJSON *cfg = cJSON_GetObjectItemCaseSensitive(server, "mcp_config");
    cJSON_ReplaceItemInObject(server, "entry_point", cJSON_CreateString("bin/toolgen"));
    cJSON_ReplaceItemInObject(cfg, "command", cJSON_CreateString("${__dirname}/bin/toolgen"));
    cJSON *args = cJSON_CreateArray();
    const char *argv[] = {"-C", "${__dirname}/repo", "serve", "--dev"};
    for (size_t i = 0; i < sizeof argv / sizeof *argv; i++)
        cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
    cJSON_ReplaceItemInObject(cfg, "args", args);
    /* the repository travels in the bundle: no setting for it */
    cJSON *uc = cJSON_GetObjectItemCaseSensitive(m, "user_config");
    cJSON_DeleteItemFromObjectCaseSensitive(uc, "repository");
    if (uc && !uc->child)
        cJSON_DeleteItemFromObjectCaseSensitive(m, "user_config");
    char *out = tg_json_print(m);
    cJSON_Delete(m);
    return out;
}

int tg_serve_pack(const tg_repo *repo, int out_dirfd, const char *out, tg_pack_info *info,
                  tg_err *err)
{
    char *manifest = bundle_manifest(repo, err);
    if (!manifest)
        return -1;
    char tool[128];
    if (!repo->cfg.project.privacy_policies && external_tool(repo, tool, sizeof tool)) {
        free(manifest);
        return tg_err_setpos(err, repo->cfg.path ? repo->cfg.path : "toolgen.yaml", 0, 0,
                             "%s reaches an external service, and a bundle must then name its "
                             "privacy policy: add project.privacy_policies (a list of URLs)",
                             tool);
    }
    packer p = {.files = 0};
    tg_zip_init(&p.zip);
    int rc = add_bytes(&p, "manifest.json", manifest, strlen(manifest), 0644, err);
    free(manifest);
    if (rc == 0)
        rc = add_toolgen(&p, err);
    if (rc == 0)
        rc = add_repository(&p, repo, err);
    size_t len = 0;
    char *bytes = rc == 0 ? tg_zip_finish(&p.zip, &len, err) : NULL;
    tg_zip_free(&p.zip);
    if (!bytes)
        return -1;
    rc = tg_write_file_atomic_at(out_dirfd, out, bytes, len, err);
    free(bytes);
    if (rc == 0 && info)
        *info = (tg_pack_info){.files = p.files, .bytes = len};
    return rc;
}
