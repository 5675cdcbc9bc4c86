/* paths.c — the repository's conventions: where manifests, IR and reports live; tool names. */
#include "model/paths.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

char *tg_manifest_path(const tg_config *cfg, const char *tool)
{
    return xasprintf("%s/%s/tool.manifest.yaml", cfg->manifests_dir, tool);
}

char *tg_ir_path(const char *tool)
{
    return xasprintf(TG_IR_DIR "/%s.json", tool);
}

char *tg_report_path(const char *tool)
{
    return xasprintf(TG_REPORTS_DIR "/%s.json", tool);
}

char *tg_validation_report_path(const char *tool)
{
    return xasprintf(TG_REPORTS_DIR "/%s.validation.json", tool);
}

char *tg_static_out_path(const char *tool)
{
    return xasprintf(TG_OUT_DIR "/%s.static.json", tool);
}

bool tg_tool_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64 || name[0] < 'a' || name[0] > 'z')
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '_'))
            return false;
    return true;
}

int tg_tools_list(const tg_repo *repo, tg_strv *names, tg_err *err)
{
    const tg_config *cfg = &repo->cfg;
    DIR *d = tg_opendir_at(repo->root_fd, cfg->manifests_dir);
    if (!d) {
        if (errno != ENOENT)
            return tg_err_setpos(err, cfg->manifests_dir, 0, 0, "cannot read: %s",
                                 strerror(errno));
        if (cfg->path)
            return 0; /* toolgen.yaml but no tools yet */
        return tg_err_set(err,
                          "not a toolgen repository: no toolgen.yaml and no %s/ here or in a "
                          "folder above; run it in a repository or pass -C DIR",
                          cfg->manifests_dir);
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN || de->d_type == DT_LNK)
            tg_strv_push(names, de->d_name);
    }
    closedir(d);
    return 0;
}

char *tg_tools_marker(const tg_config *cfg, const char *name)
{
    return tg_manifest_path(cfg, name);
}

char *tg_tools_refuse(const char *marker, const char *name)
{
    if (tg_tool_name_ok(name))
        return NULL;
    /* the name comes from the file system: any bytes, printed escaped */
    char *m = tg_utf8_printable(marker), *n = tg_utf8_printable(name);
    char *msg = xasprintf("%s: folder name '%s' is not a valid tool name "
                          "(^[a-z][a-z0-9_]{0,63}$); name the folder after the tool", m, n);
    free(m);
    free(n);
    return msg;
}
