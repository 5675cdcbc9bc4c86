/* builtins.c — the built-in toolsets (builtins.h). */
#include "serve/builtins.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "model/repo.h"

static char *sets_dir(tg_err *err)
{
    const char *data = tg_datadir();
    if (!data) {
        tg_err_set(err, "toolgen's data directory was not found (set TOOLGEN_DATADIR to the "
                        "folder holding schemas/ and toolsets/)");
        return NULL;
    }
    return tg_path_join(data, "toolsets");
}

int tg_builtin_sets_list(tg_strv *out, tg_err *err)
{
    char *dir = sets_dir(err);
    if (!dir)
        return -1;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *cfg = xasprintf("%s/%s/toolgen.yaml", dir, e->d_name);
        if (e->d_name[0] != '.' && tg_is_file(cfg))
            tg_strv_push(out, e->d_name);
        free(cfg);
    }
    if (d)
        closedir(d);
    free(dir);
    tg_strv_sort(out);
    return 0;
}

/* "a, b, c", or "none" (heap). */
static char *available(void)
{
    tg_strv names = TG_STRV_INIT;
    tg_err ignored = {0};
    tg_builtin_sets_list(&names, &ignored);
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < names.n; i++)
        tg_buf_printf(&b, "%s%s", i ? ", " : "", names.v[i]);
    bool any = names.n > 0;
    tg_strv_free(&names);
    if (any)
        return tg_buf_steal(&b);
    tg_buf_free(&b);
    return xstrdup("none");
}

/* A toolset's name as toolgen.yaml's schema has it: ^[a-z][a-z0-9_-]{0,63}$; it names a folder,
 * so nothing else may reach the path. */
static bool set_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || s[0] < 'a' || s[0] > 'z')
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
              s[i] == '-'))
            return false;
    return true;
}

int tg_builtin_set_load(tg_serve_tools *t, const char *name, tg_err *err)
{
    *t = (tg_serve_tools){0};
    char *dir = sets_dir(err);
    if (!dir)
        return -1;
    char *root = tg_path_join(dir, name);
    char *cfg = tg_path_join(root, "toolgen.yaml");
    int rc = -1;
    tg_repo set;
    if (!set_name_ok(name) || !tg_is_file(cfg)) {
        char *names = available();
        tg_err_set(err, "no built-in toolset '%s' (installed: %s)", name, names);
        free(names);
    } else if (tg_repo_open(&set, root, err) == 0) {
        rc = tg_serve_tools_load_dev(t, &set, err);
        if (rc == 0 && t->n_skipped) {
            tg_err_set(err, "toolset %s: %s", name, t->skipped[0]);
            tg_serve_tools_free(t);
            rc = -1;
        }
        for (size_t i = 0; rc == 0 && i < t->n; i++) { /* runs from any repository */
            char *abs = tg_path_join(set.path, t->v[i].m.dir);
            free(t->v[i].m.dir);
            t->v[i].m.dir = abs;
        }
        tg_repo_release(&set);
    }
    free(cfg);
    free(root);
    free(dir);
    return rc;
}
