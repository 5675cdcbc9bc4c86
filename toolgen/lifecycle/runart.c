/* runart.c — the artifacts of a staged run (see runart.h, docs/lifecycle.md "Staged run"). */
#include "lifecycle/runart.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/sha256.h"
#include "lifecycle/lifecycle_state.h"

static bool hash_is(const char *want, const void *data, size_t len)
{
    char got[TG_SHA256_HEX];
    tg_sha256_hex(data, len, got);
    return want && strcmp(want, got) == 0;
}

int tg_runart_candidate(const tg_registry *g, const tg_manifest *m, char **dir, tg_err *err)
{
    *dir = NULL;
    tg_err lerr = {0};
    cJSON *staging = tg_registry_load(g, TG_REG_STAGING, &lerr);
    const cJSON *e = staging && m->name ? tg_registry_candidate(staging, m->name) : NULL;
    int rc = 0;
    if (e && tg_lc_state_of(e) == TG_LC_STAGED) {
        char *ir = tg_json_print(m->doc.root), *code = NULL;
        size_t len = 0;
        if (m->impl_file) {
            char *p = tg_path_join(m->dir, m->impl_file);
            code = tg_read_file_at(g->repo->root_fd, p, 0, &len, NULL);
            free(p);
        }
        if (hash_is(tg_json_get_string(e, "spec_hash"), ir, strlen(ir)) &&
            hash_is(tg_json_get_string(e, "code_hash"), code ? code : "", code ? len : 0)) {
            *dir = xstrdup(tg_json_get_string(e, "path"));
            rc = 1;
        } else {
            rc = tg_err_set(err, "%s is STAGED, but its manifest or code changed since: this "
                            "run would not be about the staged snapshot. Build and stage it "
                            "again (`toolgen build && toolgen reject %s --notes ... && toolgen "
                            "stage %s` after a version bump)", m->name, m->name, m->name);
        }
        free(ir);
        free(code);
    }
    cJSON_Delete(staging);
    return rc;
}

const cJSON *tg_runart_rows(const cJSON *result)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, result)
        if (cJSON_IsArray(v) && cJSON_IsObject(cJSON_GetArrayItem(v, 0)))
            return v;
    return NULL;
}

static cJSON *rows_processed(const cJSON *result)
{
    /* rows read before rows of the result: rows_in (the built-in generator's tools) is the
     * input, row_count the groups it came to */
    static const char *const keys[] = {"rows_processed", "total_rows", "rows_in", "row_count",
                                       "rows"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const cJSON *v = tg_json_get(result, keys[i]);
        if (cJSON_IsNumber(v))
            return cJSON_CreateNumber(v->valuedouble);
    }
    return cJSON_CreateNull();
}

static cJSON *dup_or(const cJSON *v, cJSON *fallback)
{
    if (v) {
        cJSON_Delete(fallback);
        return cJSON_Duplicate(v, 1);
    }
    return fallback;
}

cJSON *tg_runart_build(const cJSON *envelope, const tg_manifest *m, const tg_strv *files)
{
    const cJSON *result = tg_json_get(envelope, "result");
    cJSON *a = cJSON_CreateObject();
    char now[32];
    tg_lc_now(now);
    cJSON_AddStringToObject(a, "tool", m->name);
    cJSON_AddStringToObject(a, "version", m->version ? m->version : "");
    cJSON_AddStringToObject(a, "ran_at", now);
    cJSON_AddBoolToObject(a, "success", cJSON_IsTrue(tg_json_get(envelope, "success")));
    cJSON_AddItemToObject(a, "arguments", dup_or(tg_json_get(envelope, "arguments"),
                                                 cJSON_CreateObject()));
    cJSON_AddItemToObject(a, "result", dup_or(result, cJSON_CreateObject()));
    const char *md = tg_json_get_string(result, "summary_markdown");
    cJSON *outputs = cJSON_AddObjectToObject(a, "outputs");
    if (md) {
        cJSON_AddStringToObject(a, "summary_markdown", md);
        cJSON_AddStringToObject(outputs, "markdown_table", md);
    } else {
        cJSON_AddNullToObject(a, "summary_markdown");
    }
    cJSON *fl = cJSON_AddArrayToObject(a, "files");
    for (size_t i = 0; files && i < files->n; i++)
        cJSON_AddItemToArray(fl, cJSON_CreateString(files->v[i]));
    const cJSON *rows = tg_runart_rows(result);
    cJSON *sample = cJSON_AddArrayToObject(a, "sample_rows");
    for (int i = 0; rows && i < 5 && i < cJSON_GetArraySize(rows); i++)
        cJSON_AddItemToArray(sample, cJSON_Duplicate(cJSON_GetArrayItem(rows, i), 1));
    cJSON_AddItemToObject(a, "rows_processed", rows_processed(result));
    cJSON_AddNumberToObject(a, "execution_time_ms",
                            tg_json_get_number(envelope, "execution_time_ms", 0));
    cJSON *meta = cJSON_AddObjectToObject(a, "metadata");
    const char *what = tg_json_get_string(m->docs, "what_it_does");
    if (!what)
        what = m->description ? m->description : "";
    cJSON_AddStringToObject(meta, "what_it_does", what);
    cJSON_AddItemToObject(meta, "assumptions", dup_or(tg_json_get(m->docs, "assumptions"),
                                                      cJSON_CreateArray()));
    cJSON_AddItemToObject(meta, "limitations", dup_or(tg_json_get(m->docs, "limitations"),
                                                      cJSON_CreateArray()));
    const cJSON *viz = tg_json_get(envelope, "visualizations");
    const cJSON *vm = cJSON_IsTrue(tg_json_get(viz, "valid")) ? tg_json_get(viz, "manifest") : NULL;
    cJSON_AddItemToObject(a, "visualizations", dup_or(vm, cJSON_CreateNull()));
    return a;
}

int tg_runart_store(const tg_registry *g, const char *dir, const cJSON *art, tg_err *err)
{
    char *p = tg_path_join(dir, "run_artifacts.json"), *text = tg_json_print(art);
    int rc = tg_write_file_atomic_at(g->repo->root_fd, p, text, strlen(text), err);
    free(p);
    free(text);
    return rc;
}

cJSON *tg_runart_load(const tg_registry *g, const char *dir, tg_err *err)
{
    char *p = tg_path_join(dir, "run_artifacts.json");
    char *text = tg_read_file_at(g->repo->root_fd, p, 0, NULL, err);
    cJSON *a = text ? cJSON_Parse(text) : NULL;
    if (text && !a)
        tg_err_set(err, "%s: not valid JSON; run the staged tool again", p);
    free(text);
    free(p);
    return a;
}
