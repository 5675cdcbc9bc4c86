/* devwatch.c — re-read the --dev tool set when the manifests change (devwatch.h). */
#include "serve/devwatch.h"
#include "serve/regtools.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strvec.h"
#include "lifecycle/registry.h"
#include "serve/notify.h"

/* Names, sizes, times and inodes of the files under dirfd, depth levels down, in a stable
 * order (sorted names). */
static void hash_dir(tg_hasher *h, int dirfd, int depth)
{
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return;
    }
    tg_strv names = TG_STRV_INIT;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            tg_strv_push(&names, e->d_name);
    tg_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++) {
        struct stat st;
        if (fstatat(dirfd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
            long long facts[5] = {(long long)st.st_size, (long long)st.st_mtim.tv_sec,
                                  (long long)st.st_mtim.tv_nsec, (long long)st.st_ino,
                                  (long long)st.st_mode};
            tg_hasher_str(h, 'n', names.v[i]);
            tg_hasher_field(h, 's', facts, sizeof facts);
            int sub = S_ISDIR(st.st_mode) && depth > 1
                          ? openat(dirfd, names.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                          : -1;
            if (sub >= 0)
                hash_dir(h, sub, depth - 1);
        }
    }
    tg_strv_free(&names);
    closedir(d);
}

static void hash_folder(tg_hasher *h, const tg_repo *repo, const char *dir, int depth)
{
    int fd = dir ? openat(repo->root_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    tg_hasher_str(h, 'd', fd >= 0 ? "present" : "absent");
    if (fd >= 0)
        hash_dir(h, fd, depth);
}

/* Watches the folders folder_state reads, afresh: folders may have come or gone. */
static void arm(tg_serve_devwatch *w)
{
    tg_fswatch_rearm(&w->fs);
    const char *dirs[2] = {NULL, NULL};
    int depth[2] = {3, 1};
    tg_registry g;
    tg_err err = {0};
    bool open = false;
    if (w->source == TG_SERVE_SOURCE_DEV) {
        dirs[0] = w->repo->cfg.manifests_dir;
    } else if ((open = tg_registry_open(&g, w->repo, &err) == 0)) {
        dirs[0] = g.active;
        dirs[1] = g.staging;
    } else {
        w->fs.missed = true; /* no registry yet: read at every check until there is one */
    }
    for (int i = 0; i < 2; i++) {
        if (!dirs[i])
            continue;
        char *abs = tg_path_join(w->repo->path, dirs[i]);
        tg_fswatch_add_tree(&w->fs, abs, depth[i]);
        free(abs);
    }
    if (open)
        tg_registry_release(&g);
}

/* The folders the source reads: the manifests (the folder, each tool's folder, the folders in
 * those), or the registry's active snapshots and the staging metadata. */
static tg_hash folder_state(tg_serve_devwatch *w)
{
    w->scans++;
    tg_hasher *h = tg_hasher_new();
    if (w->source == TG_SERVE_SOURCE_DEV) {
        hash_folder(h, w->repo, w->repo->cfg.manifests_dir, 3);
    } else {
        tg_registry g;
        tg_err err = {0};
        bool open = tg_registry_open(&g, w->repo, &err) == 0;
        hash_folder(h, w->repo, open ? g.active : NULL, 3);
        hash_folder(h, w->repo, open ? g.staging : NULL, 1);
        if (open)
            tg_registry_release(&g);
    }
    tg_hash r = tg_hasher_final(h);
    tg_hasher_free(h);
    return r;
}

static tg_hash listing_of(const tg_serve_tools *t)
{
    cJSON *all = cJSON_CreateArray();
    for (size_t i = 0; i < t->n; i++)
        cJSON_AddItemReferenceToArray(all, t->v[i].tool);
    tg_hash h = tg_hash_json(all);
    cJSON_Delete(all);
    return h;
}


static int load(tg_serve_tools *t, tg_serve_resources *r, const tg_repo *repo,
                tg_serve_source source, tg_err *err)
{
    if (tg_serve_tools_load(t, repo, source, err) != 0)
        return -1;
    if (tg_serve_resources_build(r, t, &repo->cfg.project, err) != 0) {
        tg_serve_tools_free(t);
        return -1;
    }
    return 0;
}

int tg_serve_devwatch_open(tg_serve_devwatch *w, const tg_repo *repo, tg_serve_source source,
                           tg_err *err)
{
    *w = (tg_serve_devwatch){.repo = repo, .source = source};
    tg_fswatch_init(&w->fs);
    arm(w); /* before reading: a change while loading is seen next time */
    w->state = folder_state(w);
    tg_serve_tools t;
    tg_serve_resources r;
    if (load(&t, &r, repo, source, err) != 0)
        return -1;
    w->listing = listing_of(&t);
    tg_serve_live_init(&w->live, tg_serve_toolset_new(&t, &r));
    return 0;
}

void tg_serve_devwatch_close(tg_serve_devwatch *w)
{
    tg_serve_live_destroy(&w->live);
    tg_fswatch_close(&w->fs);
}

unsigned tg_serve_devwatch_check(void *ctx)
{
    tg_serve_devwatch *w = ctx;
    if (w->force) {
        w->force = false;
        return tg_serve_devwatch_reload(w);
    }
    if (tg_fswatch_changed(&w->fs))
        arm(w); /* before reading, so that what changes while it reads is seen next time */
    else if (!w->unsettled)
        return 0; /* nothing happened: the common case, as cheap as one read() */
    tg_hash now = folder_state(w);
    w->unsettled = !tg_hash_eq(now, w->state);
    if (!w->unsettled)
        return 0;
    /* Editors and tools write files in steps (truncate, then write): read the set only once
     * the folder looks the same at two checks in a row, never half-written. */
    if (!tg_hash_eq(now, w->settling)) {
        w->settling = now;
        return 0;
    }
    w->state = now;
    w->unsettled = false;
    return tg_serve_devwatch_reload(w);
}

unsigned tg_serve_devwatch_reload(tg_serve_devwatch *w)
{
    tg_serve_tools t;
    tg_serve_resources r;
    tg_err err = {0};
    w->state = folder_state(w);
    if (load(&t, &r, w->repo, w->source, &err) != 0)
        return 0; /* e.g. the folder is being replaced: keep serving the old set */
    tg_hash listing = listing_of(&t);
    tg_serve_live_swap(&w->live, tg_serve_toolset_new(&t, &r));
    w->reloads++;
    if (tg_hash_eq(listing, w->listing))
        return 0;
    w->listing = listing;
    return TG_CHANGED_TOOLS | TG_CHANGED_RESOURCES;
}

void tg_serve_devwatch_force(void *ctx)
{
    ((tg_serve_devwatch *)ctx)->force = true;
}
