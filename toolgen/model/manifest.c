/* manifest.c — load a manifest and bind its typed views. */
#include "model/manifest.h"

#include <stdlib.h>
#include <string.h>

#include "base/confine.h"
#include "base/strvec.h"
#include "base/util.h"

/* Indexed by the enum; the NULL ends it for tg_strlist_index. */
static const char *const status_names[] = {"draft", "staged", "approved", "rejected", "promoted",
                                           NULL};

tg_status tg_status_parse(const char *s)
{
    int i = tg_strlist_index(status_names, s);
    return i < 0 ? TG_STATUS_UNKNOWN : (tg_status)i;
}

const char *tg_status_name(tg_status s)
{
    return s < TG_STATUS_UNKNOWN ? status_names[s] : "unknown";
}

/* What a manifest read from path holds until tg_manifest_bind: its folder, and a status and a
 * runtime not known yet. */
static void start_unbound(tg_manifest *m, const char *path)
{
    const char *slash = strrchr(path, '/');
    m->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
    m->status = TG_STATUS_UNKNOWN;
    m->runtime = TG_RUNTIME_UNKNOWN;
}

int tg_manifest_load(const tg_repo *repo, const char *path, tg_manifest *m, tg_err *err)
{
    *m = (tg_manifest){0};
    if (tg_confine_repo_in(repo->path, path, NULL, "manifest", err) != 0 ||
        tg_doc_load_at(repo->root_fd, path, NULL, &m->doc, err) != 0)
        return -1;
    start_unbound(m, path);
    return 0;
}

int tg_manifest_parse(const char *text, size_t len, const char *path, const char *name,
                      tg_manifest *m, tg_err *err)
{
    *m = (tg_manifest){0};
    if (tg_doc_parse_yaml(text, len, name ? name : path, NULL, &m->doc, err) != 0)
        return -1;
    start_unbound(m, path);
    return 0;
}

void tg_manifest_bind(tg_manifest *m)
{
    const cJSON *r = m->doc.root;
    m->name = tg_json_get_string(r, "name");
    m->version = tg_json_get_string(r, "version");
    m->title = tg_json_get_string(r, "title");
    m->description = tg_json_get_string(r, "description");
    m->status = tg_status_parse(tg_json_get_string(r, "status"));
    m->risk = tg_json_get_string(r, "risk");
    m->idempotency = tg_json_get_string(r, "idempotency");
    m->timeout_ms = (long)tg_json_get_number(r, "timeout_ms", 30000);
    m->docs = tg_json_get(r, "docs");
    m->input_schema = tg_json_get(r, "input_schema");
    m->output_schema = tg_json_get(r, "output_schema");
    m->examples = tg_json_get(r, "examples");
    m->tests = tg_json_get(r, "tests");
    m->constraints = tg_json_get(r, "constraints");
    m->implementation = tg_json_get(r, "implementation");
    m->reference = tg_json_get(r, "reference");
    m->runtime = tg_runtime_parse(tg_json_get_string(m->implementation, "runtime"));
    m->impl_file = tg_json_get_string(m->implementation, "file");
    m->entrypoint = tg_json_get_string(m->implementation, "entrypoint");
}

void tg_manifest_free(tg_manifest *m)
{
    tg_doc_free(&m->doc);
    free(m->dir);
    *m = (tg_manifest){0};
}
