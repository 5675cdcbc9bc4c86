/* stages.c — the table of toolgen's stages, and what they share: the IR read back, roots. */
#include "stages/stages.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "stages/stages_int.h"

const tg_stage_def *const tg_stages[] = {&tgs_load, &tgs_emit,      &tgs_static,
                                         &tgs_test, &tgs_aggregate, NULL};

const char *const tgs_up_load[] = {"load", NULL};

/* There are no positions: the IR's lines are not the manifest's. */
int tgs_manifest(tg_stage_run *r, const char *tool, tg_manifest *m, tg_err *err)
{
    size_t len = 0;
    char *ir = tg_stage_read_upstream(r, "load", tool, &len, err);
    if (!ir)
        return -1;
    *m = (tg_manifest){0};
    cJSON *root = tg_json_parse(ir, len, NULL, NULL, NULL, err);
    free(ir);
    char *path = tg_manifest_path(tg_stage_config(r), tool);
    if (!root) {
        tg_err_prefix(err, "%s (the IR of %s)", TG_IR_DIR, path);
        free(path);
        return -1;
    }
    m->doc.root = root;
    m->doc.file = path;
    const char *slash = strrchr(path, '/');
    m->dir = xstrndup(path, (size_t)(slash - path));
    tg_manifest_bind(m);
    return 0;
}

char *tgs_fragment_path(const char *tool)
{
    return xasprintf(TG_OUT_DIR "/%s.fragment", tool);
}

void tgs_root_generated(const tg_config *cfg, tg_strv *shared)
{
    tg_strv_push(shared, cfg->generated_dir);
}
