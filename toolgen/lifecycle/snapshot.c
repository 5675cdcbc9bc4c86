/* snapshot.c — stage a built tool into the registry (see snapshot.h). */
#include "lifecycle/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/version.h"
#include "lifecycle/lifecycle_state.h"
#include "lifecycle/regtx.h"
#include "model/manifest.h"
#include "model/paths.h"

/* What staging reads: the IR, the code and the report, checked against each other. */
typedef struct stage_inputs {
    tg_manifest m;
    bool have_m;
    char *ir;           /* canonical IR of the manifest as it is now */
    char *code;         /* the implementation's bytes, NULL without a code file */
    size_t code_len;
    const char *code_name; /* its file name (no folder) */
    char *report;       /* the validation report's bytes */
    cJSON *report_json;
} stage_inputs;

static void inputs_free(stage_inputs *in)
{
    if (in->have_m)
        tg_manifest_free(&in->m);
    free(in->ir);
    free(in->code);
    free(in->report);
    cJSON_Delete(in->report_json);
}

static int read_code(const tg_repo *repo, stage_inputs *in, tg_err *err)
{
    if (!in->m.impl_file)
        return 0;
    char *p = tg_path_join(in->m.dir, in->m.impl_file);
    in->code = tg_read_file_at(repo->root_fd, p, 0, &in->code_len, err);
    free(p);
    const char *slash = strrchr(in->m.impl_file, '/');
    in->code_name = slash ? slash + 1 : in->m.impl_file;
    return in->code ? 0 : -1;
}

/* The report must be about this version and this code, and have passed every gate. */
static int check_report(const char *tool, stage_inputs *in, bool *gate_failed, tg_err *err)
{
    const cJSON *r = in->report_json;
    const char *ver = tg_json_get_string(r, "version");
    if (!ver || strcmp(ver, in->m.version) != 0)
        return tg_err_set(err, "%s: the validation report is about version %s, the manifest "
                          "says %s; run `toolgen build` first", tool, ver ? ver : "(none)",
                          in->m.version);
    const char *rh = tg_json_get_string(r, "code_hash");
    if (in->code && rh) {
        char hex[TG_HASH_HEX];
        tg_hash_hex(tg_hash_bytes(in->code, in->code_len), hex);
        if (strcmp(hex, rh) != 0)
            return tg_err_set(err, "%s: the code changed since the last build judged it; run "
                              "`toolgen build` first", tool);
    }
    const cJSON *failed = tg_json_get(r, "failed_gate");
    *gate_failed = failed && !cJSON_IsNull(failed);
    if (*gate_failed)
        return tg_err_set(err, "%s: the build's quality gate \"%s\" failed, so the tool stays "
                          "a DRAFT; see .toolgen/reports/%s.validation.json, fix the tool and "
                          "build again", tool,
                          cJSON_IsString(failed) ? failed->valuestring : "?", tool);
    return 0;
}

static int read_inputs(const tg_repo *repo, const char *tool, stage_inputs *in,
                       bool *gate_failed, tg_err *err)
{
    char *mpath = tg_manifest_path(&repo->cfg, tool), *irp = tg_ir_path(tool);
    char *rp = tg_validation_report_path(tool), *built = NULL;
    int rc = -1;
    if (!tg_is_file_at(repo->root_fd, mpath)) {
        tg_err_set(err, "%s: no such tool (no %s)", tool, mpath);
        goto out;
    }
    if (tg_manifest_load(repo, mpath, &in->m, err) != 0)
        goto out;
    in->have_m = true;
    in->ir = tg_json_print(in->m.doc.root);
    built = tg_read_file_at(repo->root_fd, irp, 0, NULL, NULL);
    if (!built || strcmp(built, in->ir) != 0) {
        tg_err_set(err, "%s: %s; run `toolgen build` first (staging snapshots what the build "
                   "validated)", tool, built ? "the manifest changed since the last build"
                                             : "the tool was never built");
        goto out;
    }
    tg_manifest_bind(&in->m);
    if (read_code(repo, in, err) != 0)
        goto out;
    size_t rl = 0;
    if (!(in->report = tg_read_file_at(repo->root_fd, rp, 0, &rl, NULL)) ||
        !(in->report_json = cJSON_ParseWithLength(in->report, rl))) {
        tg_err_set(err, "%s: no validation report (%s): the build did not test it; run "
                   "`toolgen build` first", tool, rp);
        goto out;
    }
    rc = check_report(tool, in, gate_failed, err);
out:
    free(mpath);
    free(irp);
    free(rp);
    free(built);
    return rc;
}

static cJSON *new_entry(const tg_registry *g, const char *tool, const stage_inputs *in,
                        const char *dir, const char *now)
{
    char spec_hash[TG_SHA256_HEX], code_hash[TG_SHA256_HEX];
    tg_sha256_hex(in->ir, strlen(in->ir), spec_hash);
    tg_sha256_hex(in->code ? in->code : "", in->code ? in->code_len : 0, code_hash);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "tool", tool);
    cJSON_AddStringToObject(e, "version", in->m.version);
    cJSON_AddStringToObject(e, "path", dir);
    char *mpath = tg_manifest_path(&g->repo->cfg, tool);
    cJSON_AddStringToObject(e, "manifest", mpath);
    free(mpath);
    if (in->code_name)
        cJSON_AddStringToObject(e, "code_file", in->code_name);
    else
        cJSON_AddNullToObject(e, "code_file");
    cJSON_AddStringToObject(e, "spec_hash", spec_hash);
    cJSON_AddStringToObject(e, "code_hash", code_hash);
    cJSON_AddStringToObject(e, "created_at", now);
    cJSON_AddStringToObject(e, "created_by", "toolgen " TOOLGEN_VERSION);
    const cJSON *cm = tg_json_get(in->report_json, "code_metrics");
    const cJSON *score = tg_json_get(cm, "overall_score");
    const char *tier = tg_json_get_string(cm, "quality_tier");
    if (cJSON_IsNumber(score))
        cJSON_AddNumberToObject(e, "quality_score", score->valuedouble);
    else
        cJSON_AddNullToObject(e, "quality_score");
    if (tier)
        cJSON_AddStringToObject(e, "quality_tier", tier);
    else
        cJSON_AddNullToObject(e, "quality_tier");
    return e;
}

/* An entry already STAGED or APPROVED: the same snapshot is done, another one is refused. */
static int check_existing(const cJSON *old, const cJSON *fresh, tg_registry_stage_result *res,
                          tg_err *err)
{
    tg_lc_state s = tg_lc_state_of(old);
    if (s != TG_LC_STAGED && s != TG_LC_APPROVED)
        return 0;
    const char *keys[] = {"version", "spec_hash", "code_hash"};
    bool same = true;
    for (int i = 0; i < 3; i++)
        same = same && strcmp(tg_json_get_string(old, keys[i]),
                              tg_json_get_string(fresh, keys[i])) == 0;
    if (same) {
        res->already = true;
        snprintf(res->state, sizeof res->state, "%s", tg_lc_name(s));
        snprintf(res->path, sizeof res->path, "%s", tg_json_get_string(old, "path"));
        return 1;
    }
    return tg_err_set(err, "%s v%s is already %s with a different spec or code; reject it "
                      "first (`toolgen reject %s --notes ...`) or bump the manifest's version",
                      old->string, tg_json_get_string(old, "version"), tg_lc_name(s),
                      old->string);
}

/* The same spec and code already active: nothing to stage (1); another one at a version the
 * policy refuses: -1 with err (said now, not after the user reviewed it); else 0. */
static int already_active(const tg_registry *g, const char *tool, const cJSON *fresh,
                          tg_registry_stage_result *res, tg_err *err)
{
    cJSON *active = tg_registry_load(g, TG_REG_ACTIVE, err);
    if (!active)
        return -1;
    const cJSON *a = tg_registry_active_tool(active, tool);
    const char *sh = tg_json_get_string(fresh, "spec_hash");
    const char *ch = tg_json_get_string(fresh, "code_hash");
    int rc = a && strcmp(tg_json_get_string(a, "spec_hash"), sh) == 0 &&
             strcmp(tg_json_get_string(a, "code_hash"), ch) == 0;
    if (rc) {
        res->already = true;
        snprintf(res->state, sizeof res->state, "PROMOTED");
        snprintf(res->path, sizeof res->path, "%s", tg_json_get_string(a, "path"));
    } else if (tg_registry_check_version(g, tool, tg_json_get_string(fresh, "version"), a,
                                         err) != 0) {
        rc = -1;
    }
    cJSON_Delete(active);
    return rc;
}

static int write_candidate(tg_regtx *tx, const char *dir, const stage_inputs *in, tg_err *err)
{
    char *p = tg_path_join(dir, "spec.json");
    int rc = tg_regtx_write(tx, p, in->ir, strlen(in->ir), err);
    free(p);
    if (rc == 0 && in->code) {
        p = tg_path_join(dir, in->code_name);
        rc = tg_regtx_write(tx, p, in->code, in->code_len, err);
        free(p);
    }
    if (rc == 0) {
        p = tg_path_join(dir, "validation_report.json");
        rc = tg_regtx_write(tx, p, in->report, strlen(in->report), err);
        free(p);
    }
    return rc;
}

static int save_staging(const tg_registry *g, tg_regtx *tx, const cJSON *staging, tg_err *err)
{
    char *path = tg_registry_file(g, TG_REG_STAGING), *text = tg_json_print(staging);
    int rc = tg_regtx_write(tx, path, text, strlen(text), err);
    free(path);
    free(text);
    return rc;
}

int tg_registry_stage(const tg_registry *g, const char *tool, tg_registry_stage_result *res,
                      tg_err *err)
{
    *res = (tg_registry_stage_result){0};
    stage_inputs in = {0};
    cJSON *staging = NULL;
    char *dir = NULL;
    int rc = -1;
    if (read_inputs(g->repo, tool, &in, &res->gate_failed, err) != 0 ||
        !(staging = tg_registry_load(g, TG_REG_STAGING, err)))
        goto out;
    char now[32];
    tg_lc_now(now);
    dir = tg_registry_candidate_dir(g, tool, in.m.version);
    cJSON *entry = new_entry(g, tool, &in, dir, now);
    cJSON *cands = cJSON_GetObjectItemCaseSensitive(staging, "candidates");
    int ex = check_existing(cJSON_GetObjectItemCaseSensitive(cands, tool), entry, res, err);
    if (ex == 0)
        ex = already_active(g, tool, entry, res, err);
    if (ex != 0) {
        cJSON_Delete(entry);
        rc = ex > 0 ? 0 : -1;
        goto out;
    }
    char *note = xasprintf("manifest %s", tg_json_get_string(entry, "manifest"));
    tg_lc_transition(entry, TG_LC_DRAFT, now, note, NULL);
    tg_lc_transition(entry, TG_LC_STAGED, now, "every quality gate passed in the build", NULL);
    free(note);
    cJSON_DeleteItemFromObjectCaseSensitive(cands, tool);
    cJSON_AddItemToObject(cands, tool, entry);
    tg_regtx tx;
    tg_regtx_init(&tx, g->repo->root_fd);
    if (write_candidate(&tx, dir, &in, err) != 0 || save_staging(g, &tx, staging, err) != 0)
        tg_regtx_rollback(&tx);
    else
        rc = 0;
    tg_regtx_release(&tx);
    snprintf(res->version, sizeof res->version, "%s", in.m.version);
    snprintf(res->path, sizeof res->path, "%s", dir);
    snprintf(res->state, sizeof res->state, "STAGED");
out:
    inputs_free(&in);
    cJSON_Delete(staging);
    free(dir);
    return rc;
}
