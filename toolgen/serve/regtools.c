/* regtools.c — the registry's snapshots as the tool set of toolgen serve (tools.h,
 * docs/mcp.md#tool-sources). */
#include "serve/regtools.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/json.h"
#include "base/strvec.h"
#include "lifecycle/registry.h"
#include "serve/tools_int.h"

/* The manifest of a snapshot: its spec.json (the canonical IR, JSON) with the code beside it.
 * The IR names the code file as the manifest's folder had it; the snapshot keeps its base
 * name, so the call must find it there. */
static int load_snapshot(const tg_registry *g, const char *dir, tg_manifest *m, tg_err *err)
{
    *m = (tg_manifest){0};
    char *spec = tg_path_join(dir, "spec.json");
    size_t len = 0;
    char *text = tg_read_file_at(g->repo->root_fd, spec, TG_DOC_MAX_BYTES, &len, err);
    int rc = text ? tg_doc_parse_json(text, len, spec, NULL, &m->doc, err) : -1;
    free(text);
    free(spec);
    if (rc != 0)
        return -1;
    m->dir = xstrdup(dir);
    return 0;
}

static const char *base_name(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? slash + 1 : p;
}

/* A staged candidate must not pass for a promoted tool: a client that shows titles or
 * descriptions shows the mark, and _meta says it to programs. promoted: the active tool it
 * would replace, served beside it under its own name (NULL: none). */
static void mark_staged(tg_serve_tool *tool, const cJSON *entry, const char *name,
                        const cJSON *promoted)
{
    const char *state = tg_json_get_string(entry, "state");
    const char *version = tg_json_get_string(entry, "version");
    bool approved = strcmp(state, "APPROVED") == 0;
    cJSON *o = tool->tool;
    const char *title = tg_json_get_string(o, "title");
    char *t = xasprintf("[candidate v%s, %s] %s", version,
                        approved ? "approved, not promoted" : "not approved",
                        title ? title : tool->m.name);
    char *also = promoted ? xasprintf(" The promoted version is %s v%s.", name,
                                      tg_json_get_string(promoted, "version"))
                          : xstrdup("");
    const char *desc = tg_json_get_string(o, "description");
    char *d = xasprintf("CANDIDATE v%s of %s, %s: use it only to review its output.%s %s",
                        version, name, approved ? "approved by the user but not yet promoted"
                                                : "staged for review, not approved by the user",
                        also, desc ? desc : "");
    /* replaced in place: the members keep their order */
    cJSON_ReplaceItemInObjectCaseSensitive(o, "title", cJSON_CreateString(t));
    cJSON_ReplaceItemInObjectCaseSensitive(o, "description", cJSON_CreateString(d));
    cJSON *ann = cJSON_GetObjectItemCaseSensitive(o, "annotations");
    if (cJSON_GetObjectItemCaseSensitive(ann, "title"))
        cJSON_ReplaceItemInObjectCaseSensitive(ann, "title", cJSON_CreateString(t));
    free(also);
    free(d);
    free(t);
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "_meta");
    if (!meta)
        meta = cJSON_AddObjectToObject(o, "_meta");
    cJSON *lc = cJSON_AddObjectToObject(meta, "dev.toolgen/lifecycle");
    cJSON_AddStringToObject(lc, "state", state);
    cJSON_AddStringToObject(lc, "version", version);
}

static bool has_tool(const tg_serve_tools *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].m.name, name) == 0)
            return true;
    return false;
}

/* The name a candidate is served under: its own, or NAME_staged beside the promoted NAME. */
#define STAGED_SUFFIX "_staged"

/* Adds the snapshot of one metadata entry once its hashes check out; a candidate (promoted:
 * NULL for an active entry) beside the promoted tool of its name is served as NAME_staged. */
static bool add_entry(tg_serve_tools *t, const tg_registry *g, const char *name,
                      const cJSON *entry, bool active, const cJSON *promoted)
{
    const char *dir = tg_json_get_string(entry, "path");
    tg_strv problems = TG_STRV_INIT;
    bool ok = dir && tg_registry_verify_entry(g, name, entry, active, &problems);
    if (!ok) {
        tg_buf why = TG_BUF_INIT;
        tg_buf_puts(&why, "the snapshot does not match its recorded hashes:");
        for (size_t i = 0; i < problems.n; i++)
            tg_buf_printf(&why, " %s", problems.v[i]);
        tg_serve_tools_skip(t, dir ? dir : name, why.data);
        tg_buf_free(&why);
        tg_strv_free(&problems);
        return false;
    }
    tg_strv_free(&problems);
    tg_manifest m;
    tg_err err = {0};
    if (load_snapshot(g, dir, &m, &err) != 0) {
        tg_serve_tools_skip(t, dir, err.msg);
        return false;
    }
    const char *named = tg_json_get_string(m.doc.root, "name");
    if (!named || strcmp(named, name) != 0) {
        tg_serve_tools_skip(t, dir, "its spec.json names another tool; restore the registry "
                                    "from git");
        tg_manifest_free(&m);
        return false;
    }
    if (promoted) {
        char *as = xasprintf("%s" STAGED_SUFFIX, name);
        cJSON_ReplaceItemInObject(m.doc.root, "name", cJSON_CreateString(as));
        free(as);
    }
    if (!tg_serve_tools_add(t, dir, &m))
        return false;
    tg_serve_tool *tool = &t->v[t->n - 1];
    if (tool->m.impl_file)
        tool->m.impl_file = base_name(tool->m.impl_file);
    if (!active)
        mark_staged(tool, entry, name, promoted);
    return true;
}

static int add_candidates(tg_serve_tools *t, const tg_registry *g, const cJSON *active,
                          tg_err *err)
{
    cJSON *staging = tg_registry_load(g, TG_REG_STAGING, err);
    if (!staging)
        return -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(staging, "candidates")) {
        const char *state = tg_json_get_string(e, "state");
        const cJSON *promoted = has_tool(t, e->string)
                                    ? tg_registry_active_tool((cJSON *)active, e->string)
                                    : NULL;
        if (strcmp(state, "STAGED") == 0 || strcmp(state, "APPROVED") == 0)
            add_entry(t, g, e->string, e, false, promoted);
    }
    cJSON_Delete(staging);
    return 0;
}

int tg_serve_tools_load_registry(tg_serve_tools *t, const tg_repo *repo, bool staging,
                                 tg_err *err)
{
    tg_registry g;
    if (tg_registry_open(&g, repo, err) != 0)
        return -1;
    tg_serve_tools_begin(t);
    cJSON *active = tg_registry_load(&g, TG_REG_ACTIVE, err);
    int rc = active ? 0 : -1;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(active, "tools"))
        add_entry(t, &g, e->string, e, true, NULL);
    /* a candidate never hides the promoted tool it would replace: both are served */
    if (rc == 0 && staging)
        rc = add_candidates(t, &g, active, err);
    cJSON_Delete(active);
    tg_registry_release(&g);
    if (rc != 0) {
        tg_serve_tools_free(t);
        return -1;
    }
    tg_serve_tools_finish(t);
    return 0;
}

int tg_serve_tools_load(tg_serve_tools *t, const tg_repo *repo, tg_serve_source source,
                        tg_err *err)
{
    if (source == TG_SERVE_SOURCE_DEV)
        return tg_serve_tools_load_dev(t, repo, err);
    return tg_serve_tools_load_registry(t, repo, source == TG_SERVE_SOURCE_STAGING, err);
}
