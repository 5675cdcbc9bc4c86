/*
 * build_roots.c — the folders the stages write under (tg_stage_def.roots): which paths a stage
 * may write, and removing outputs with the directories they leave empty. The engine learns
 * these folders from the stages; it names only its own state directory (TG_STATE_DIR).
 */
#include "engine/build_int.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void push_unique(tg_strv *to, const tg_strv *from)
{
    for (size_t i = 0; i < from->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < to->n && !seen; j++)
            seen = strcmp(to->v[j], from->v[i]) == 0;
        if (!seen)
            tg_strv_push(to, from->v[i]);
    }
}

/* Several stages share a root (emit and aggregate both write generated/): each is kept once. */
void tgb_roots_init(engine *e)
{
    for (size_t k = 0; k < e->nkinds; k++) {
        if (!e->stages[k]->roots)
            continue;
        tg_strv shared = TG_STRV_INIT, own = TG_STRV_INIT;
        e->stages[k]->roots(&e->cfg, &shared, &own);
        push_unique(&e->shared_roots, &shared);
        push_unique(&e->own_roots, &own);
        tg_strv_free(&shared);
        tg_strv_free(&own);
    }
}

bool tgb_is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static const char *root_of(const tg_strv *roots, const char *path)
{
    for (size_t i = 0; i < roots->n; i++)
        if (tgb_is_under(path, roots->v[i]))
            return roots->v[i];
    return NULL;
}

const char *tgb_shared_root_of(const engine *e, const char *path)
{
    return root_of(&e->shared_roots, path);
}

bool tgb_output_path_ok(const engine *e, const char *p)
{
    if (!*p || p[0] == '/' || strpbrk(p, " \t\r\n") || strstr(p, "//"))
        return false;
    for (const char *s = p; *s;) {
        size_t n = strcspn(s, "/");
        if ((n == 2 && s[0] == '.' && s[1] == '.') || (n == 1 && s[0] == '.'))
            return false;
        s += n;
        if (*s == '/')
            s++;
    }
    return root_of(&e->shared_roots, p) || root_of(&e->own_roots, p);
}

/* Removes now-empty directories from path's parent up to (not including) top. */
static void prune_dirs(const char *path, const char *top)
{
    char *p = xstrdup(path);
    for (;;) {
        char *slash = strrchr(p, '/');
        if (!slash)
            break;
        *slash = '\0';
        if (strcmp(p, top) == 0 || !tgb_is_under(p, top) || rmdir(p) != 0)
            break;
    }
    free(p);
}

bool tgb_remove_output(const engine *e, const char *path)
{
    if (unlink(path) != 0)
        return false;
    /* a shared root stays (it is the user's folder); the state directory's subfolders go */
    const char *top = tgb_is_under(path, TG_STATE_DIR) ? TG_STATE_DIR : NULL;
    if (!top)
        top = root_of(&e->shared_roots, path);
    if (!top)
        top = root_of(&e->own_roots, path);
    if (top)
        prune_dirs(path, top);
    return true;
}

void tgb_empty_dir(const char *dir, bool rmdir_too)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = tg_path_join(dir, de->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    if (rmdir_too)
        rmdir(dir);
}
