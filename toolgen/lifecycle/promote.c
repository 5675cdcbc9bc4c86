/* promote.c — APPROVED → PROMOTED, all or nothing, as one commit (see promote.h and
 * docs/lifecycle.md "Promotion"). */
#include "lifecycle/promote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "lifecycle/gitcommit.h"
#include "lifecycle/gitrev.h"
#include "lifecycle/gitstatus.h"
#include "lifecycle/lifecycle_state.h"
#include "lifecycle/regtx.h"

typedef struct promo {
    const tg_registry *g;
    const char *tool, *fail_at;
    cJSON *staging, *active, *log;
    cJSON *entry;          /* borrowed from staging */
    const cJSON *existing; /* borrowed from active; NULL when the tool is new */
    char now[32];
    char *cand_dir, *active_dir, *archive_dir;
    tg_regtx tx;
} promo;

static bool config_bool(const tg_registry *g, const char *ptr, bool fallback)
{
    const cJSON *v = g->repo->have_config ? tg_config_get(&g->repo->cfg, ptr) : NULL;
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : fallback;
}

static const char *config_str(const tg_registry *g, const char *ptr)
{
    const cJSON *v = g->repo->have_config ? tg_config_get(&g->repo->cfg, ptr) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int fault(const promo *p, const char *step, tg_err *err)
{
    if (p->fail_at && strcmp(p->fail_at, step) == 0)
        return tg_err_set(err, "injected failure at step \"%s\" (TOOLGEN_FAULT)", step);
    return 0;
}

static const char *str(const cJSON *o, const char *k)
{
    const char *s = tg_json_get_string(o, k);
    return s ? s : "";
}

/* The seed's can_promote, plus the registry's own preconditions. */
static tg_promote_status can_promote(promo *p, tg_err *err)
{
    const char *tool = p->tool;
    if (!p->entry)
        return tg_err_set(err, "%s has no staged candidate; stage it with `toolgen stage %s`",
                          tool, tool), TG_PROMOTE_REFUSED;
    const char *ver = str(p->entry, "version");
    if (p->existing && strcmp(str(p->existing, "spec_hash"), str(p->entry, "spec_hash")) == 0 &&
        strcmp(str(p->existing, "code_hash"), str(p->entry, "code_hash")) == 0)
        return TG_PROMOTE_ALREADY;
    tg_lc_state s = tg_lc_state_of(p->entry);
    if (s != TG_LC_APPROVED)
        return tg_err_set(err, "%s v%s must be APPROVED to be promoted (current: %s); approve "
                          "it with `toolgen feedback %s --decision \"Approve\"`", tool, ver,
                          tg_lc_name(s), tool), TG_PROMOTE_REFUSED;
    if (tg_registry_check_version(p->g, tool, ver, p->existing, err) != 0)
        return TG_PROMOTE_REFUSED;
    return TG_PROMOTE_DONE;
}

/* Git must be there and the active registry clean, so the commit holds only this promotion. */
static tg_promote_status check_git(promo *p, tg_err *err)
{
    if (tg_git_probe(p->g->repo, err) != 0) {
        tg_err_set(err, "%s is not inside a git working tree: a promotion is recorded as a git "
                   "commit; run `git init` (and commit) first", p->g->repo->path);
        return TG_PROMOTE_NOGIT;
    }
    tg_git_changes ch = {0};
    if (tg_git_status_dir(p->g->repo, p->g->active, &ch, err) != 0)
        return TG_PROMOTE_FAILED;
    tg_promote_status st = TG_PROMOTE_DONE;
    if (ch.n) {
        tg_err_set(err, "the active registry has uncommitted changes (%s %s%s): commit or "
                   "restore them first (`git status %s`), so the promotion commit holds only "
                   "the promotion", ch.v[0].path, tg_git_change_name(ch.v[0].kind),
                   ch.n > 1 ? ", ..." : "", p->g->active);
        st = TG_PROMOTE_REFUSED;
    } else if (tg_is_dir_at(p->g->repo->root_fd, p->archive_dir)) {
        tg_err_set(err, "%s already exists: a promotion of this version was archived before; "
                   "remove it or bump the version", p->archive_dir);
        st = TG_PROMOTE_REFUSED;
    }
    tg_git_changes_free(&ch);
    return st;
}

static int copy_file(promo *p, const char *from_dir, const char *to_dir, const char *name,
                     tg_err *err)
{
    char *src = tg_path_join(from_dir, name), *dst = tg_path_join(to_dir, name);
    size_t len = 0;
    char *data = tg_read_file_at(p->g->repo->root_fd, src, 0, &len, err);
    int rc = data ? tg_regtx_write(&p->tx, dst, data, len, err) : -1;
    free(data);
    free(src);
    free(dst);
    return rc;
}

static int write_json(promo *p, const char *path, const cJSON *doc, tg_err *err)
{
    char *text = tg_json_print(doc);
    int rc = tg_regtx_write(&p->tx, path, text, strlen(text), err);
    free(text);
    return rc;
}

/* active/tools/<tool>/: spec.json, the code, tests.json (the manifest's tests), VERSION. */
static int step_copy(promo *p, tg_err *err)
{
    const char *code = tg_json_get_string(p->entry, "code_file");
    if (copy_file(p, p->cand_dir, p->active_dir, "spec.json", err) != 0 ||
        (code && copy_file(p, p->cand_dir, p->active_dir, code, err) != 0))
        return -1;
    char *sp = tg_path_join(p->cand_dir, "spec.json");
    char *spec = tg_read_file_at(p->g->repo->root_fd, sp, 0, NULL, err);
    free(sp);
    cJSON *ir = spec ? cJSON_Parse(spec) : NULL;
    free(spec);
    if (!ir)
        return tg_err_set(err, "%s/spec.json: not valid JSON; stage the tool again",
                          p->cand_dir);
    cJSON *tests = cJSON_CreateObject();
    cJSON_AddStringToObject(tests, "tool", p->tool);
    const cJSON *t = tg_json_get(ir, "tests");
    cJSON_AddItemToObject(tests, "tests", t ? cJSON_Duplicate(t, 1) : cJSON_CreateArray());
    char *tp = tg_path_join(p->active_dir, "tests.json");
    int rc = write_json(p, tp, tests, err);
    free(tp);
    cJSON_Delete(tests);
    cJSON_Delete(ir);
    char *vp = tg_path_join(p->active_dir, "VERSION");
    char *v = xasprintf("%s\n", str(p->entry, "version"));
    if (rc == 0)
        rc = tg_regtx_write(&p->tx, vp, v, strlen(v), err);
    free(vp);
    free(v);
    /* files of the version replaced that the new one does not have (a renamed code file) */
    tg_strv old = {0};
    if (rc == 0 && tg_registry_list_files(p->g, p->active_dir, &old, err) == 0)
        for (size_t i = 0; rc == 0 && i < old.n; i++) {
            const char *n = old.v[i];
            if (strcmp(n, "spec.json") && strcmp(n, "tests.json") && strcmp(n, "VERSION") &&
                (!code || strcmp(n, code))) {
                char *x = tg_path_join(p->active_dir, n);
                rc = tg_regtx_remove(&p->tx, x, err);
                free(x);
            }
        }
    tg_strv_free(&old);
    return rc == 0 ? fault(p, "copy", err) : rc;
}

static const char *approval_of(const cJSON *entry)
{
    return str(tg_json_get(tg_json_get(entry, "feedback"), "decision"), "reply");
}

static const char *approver_of(const cJSON *entry)
{
    const char *by = tg_json_get_string(
        tg_json_get(tg_json_get(entry, "feedback"), "decision"), "by");
    return by ? by : "user";
}

static int step_metadata(promo *p, tg_err *err)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "version", str(p->entry, "version"));
    cJSON_AddStringToObject(t, "path", p->active_dir);
    cJSON_AddItemToObject(t, "code_file",
                          cJSON_Duplicate(tg_json_get(p->entry, "code_file"), 1));
    cJSON_AddStringToObject(t, "spec_hash", str(p->entry, "spec_hash"));
    cJSON_AddStringToObject(t, "code_hash", str(p->entry, "code_hash"));
    cJSON_AddStringToObject(t, "promoted_at", p->now);
    cJSON_AddStringToObject(t, "created_by", str(p->entry, "created_by"));
    cJSON_AddStringToObject(t, "approved_by", approver_of(p->entry));
    cJSON_AddStringToObject(t, "approval", approval_of(p->entry));
    cJSON_AddItemToObject(t, "quality_score",
                          cJSON_Duplicate(tg_json_get(p->entry, "quality_score"), 1));
    cJSON_AddItemToObject(t, "quality_tier",
                          cJSON_Duplicate(tg_json_get(p->entry, "quality_tier"), 1));
    cJSON *tools = cJSON_GetObjectItemCaseSensitive(p->active, "tools");
    cJSON_DeleteItemFromObjectCaseSensitive(tools, p->tool); /* p->existing dangles from here */
    p->existing = NULL;
    cJSON_AddItemToObject(tools, p->tool, t);
    char *path = tg_registry_file(p->g, TG_REG_ACTIVE);
    int rc = write_json(p, path, p->active, err);
    free(path);
    return rc == 0 ? fault(p, "metadata", err) : rc;
}

static int step_log(promo *p, const char *previous, tg_err *err)
{
    if (!config_bool(p->g, "/promotion/keep_promotion_log", true))
        return fault(p, "log", err);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "tool_id", p->tool);
    cJSON_AddStringToObject(e, "version", str(p->entry, "version"));
    cJSON_AddStringToObject(e, "promoted_at", p->now);
    cJSON_AddStringToObject(e, "approved_by", approver_of(p->entry));
    cJSON_AddStringToObject(e, "spec_hash", str(p->entry, "spec_hash"));
    cJSON_AddStringToObject(e, "code_hash", str(p->entry, "code_hash"));
    if (previous[0])
        cJSON_AddStringToObject(e, "previous_version", previous);
    else
        cJSON_AddNullToObject(e, "previous_version");
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(p->log, "promotions"), e);
    char *path = tg_registry_file(p->g, TG_REG_PROMOTION_LOG);
    int rc = write_json(p, path, p->log, err);
    free(path);
    return rc == 0 ? fault(p, "log", err) : rc;
}

/* The candidate moves to <archive>/promoted/<tool>_<version>/, its run's files included. */
static int step_archive(promo *p, tg_err *err)
{
    if (tg_regtx_move_tree(&p->tx, p->cand_dir, p->archive_dir, err) != 0)
        return -1;
    return fault(p, "archive", err);
}

static int step_state(promo *p, const char *commit_note, tg_err *err)
{
    if (tg_lc_transition(p->entry, TG_LC_PROMOTED, p->now, commit_note, err) != 0)
        return -1;
    cJSON_ReplaceItemInObjectCaseSensitive(p->entry, "path", cJSON_CreateString(p->archive_dir));
    char *path = tg_registry_file(p->g, TG_REG_STAGING);
    int rc = write_json(p, path, p->staging, err);
    free(path);
    return rc == 0 ? fault(p, "state", err) : rc;
}

char *tg_promote_message(const char *tool, const cJSON *entry, const char *active_dir,
                         const char *archive_dir)
{
    char score[64] = "n/a";
    const cJSON *q = tg_json_get(entry, "quality_score");
    const char *tier = tg_json_get_string(entry, "quality_tier");
    if (cJSON_IsNumber(q))
        snprintf(score, sizeof score, "%.4g%s%s%s", q->valuedouble, tier ? " (" : "",
                 tier ? tier : "", tier ? ")" : "");
    /* a trailer is one line: line breaks of the verbatim reply become spaces */
    char *approval = xstrdup(approval_of(entry));
    for (char *c = approval; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    /* how the user's words reached toolgen, when the feedback says (an MCP client's form) */
    const char *via = tg_json_get_string(
        tg_json_get(tg_json_get(entry, "feedback"), "decision"), "via");
    char *m = xasprintf("promote %s v%s\n\nThe user approved %s v%s after its staged run; "
                        "snapshot %s/, candidate archived in %s/.\n\n"
                        "Spec-Hash: sha256:%s\nCode-Hash: sha256:%s\nQuality-Score: %s\n"
                        "Approved-By: %s\nApproval: %s\n%s%s%s",
                        tool, str(entry, "version"), tool, str(entry, "version"), active_dir,
                        archive_dir, str(entry, "spec_hash"), str(entry, "code_hash"), score,
                        approver_of(entry), approval, via ? "Approved-Via: " : "", via ? via : "",
                        via ? "\n" : "");
    free(approval);
    return m;
}

/* The staging metadata as HEAD has it: 1 with *doc, 0 when HEAD has none (no git, an unborn
 * branch, a first staging), -1 when HEAD's file is not a registry document. */
static int staging_at_head(const promo *p, const char *path, cJSON **doc)
{
    *doc = NULL;
    tg_gitrev *gr = NULL;
    tg_err ignored = {0};
    if (tg_gitrev_open(p->g->repo, &gr, &ignored) != 0)
        return 0;
    tg_rev head = {0};
    char *text = NULL;
    size_t len = 0;
    int found = tg_gitrev_resolve(gr, "HEAD", &head, &ignored) == 0
                    ? tg_gitrev_read(gr, &head, path, 64u << 20, &text, &len, &ignored)
                    : 0;
    if (found == 1)
        *doc = cJSON_ParseWithLength(text, len);
    free(text);
    tg_rev_release(&head);
    tg_gitrev_close(gr);
    if (found == 1 && !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(*doc, "candidates"))) {
        cJSON_Delete(*doc);
        *doc = NULL;
        return -1;
    }
    return found == 1 ? 1 : found < 0 ? -1 : 0;
}

/* What the commit holds of the staging metadata, which every tool's entry shares: HEAD's
 * version with only this tool's entry replaced, so that other tools' uncommitted entries (their
 * candidates are not in the commit either) stay out of it (docs/lifecycle.md "The promotion
 * commit"). Heap text, or NULL when HEAD's version cannot be read as one: then the working
 * tree's file is committed whole, which loses no entry. */
static char *staging_as_committed(const promo *p, const char *path)
{
    cJSON *doc = NULL;
    int at_head = staging_at_head(p, path, &doc);
    if (at_head < 0)
        return NULL;
    if (at_head == 0) {
        doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "registry_version",
                              cJSON_Duplicate(tg_json_get(p->staging, "registry_version"), true));
        cJSON_AddObjectToObject(doc, "candidates");
    }
    cJSON *cands = cJSON_GetObjectItemCaseSensitive(doc, "candidates");
    cJSON *entry = cJSON_Duplicate(p->entry, true);
    if (cJSON_GetObjectItemCaseSensitive(cands, p->tool))
        cJSON_ReplaceItemInObjectCaseSensitive(cands, p->tool, entry);
    else
        cJSON_AddItemToObject(cands, p->tool, entry);
    char *text = tg_json_print(doc);
    cJSON_Delete(doc);
    return text;
}

static int apply(promo *p, tg_promote_result *res, tg_err *err)
{
    char *msg = tg_promote_message(p->tool, p->entry, p->active_dir, p->archive_dir);
    tg_git_commit_req req = {
        .message = msg,
        .author_name = config_str(p->g, "/promotion/git/author_name"),
        .author_email = config_str(p->g, "/promotion/git/author_email"),
        .branch = config_str(p->g, "/promotion/git/branch"),
        .fail_at = p->fail_at,
    };
    char *staging_path = tg_registry_file(p->g, TG_REG_STAGING), *staged = NULL;
    tg_git_override ov = {0};
    int rc = -1;
    if (step_copy(p, err) == 0 && step_metadata(p, err) == 0 &&
        step_log(p, res->previous, err) == 0 && step_archive(p, err) == 0 &&
        step_state(p, "promotion commit", err) == 0) {
        req.paths = (const char *const *)p->tx.files.v;
        req.npaths = p->tx.files.n;
        if ((staged = staging_as_committed(p, staging_path))) {
            ov = (tg_git_override){.path = staging_path, .data = staged, .len = strlen(staged)};
            req.overrides = &ov;
            req.noverrides = 1;
        }
        rc = tg_git_commit_paths(p->g->repo, &req, res->commit, err) == 0 ? 0 : -1;
    }
    free(staged);
    free(staging_path);
    free(msg);
    return rc;
}

static tg_promote_status load(promo *p, tg_err *err)
{
    if (!(p->staging = tg_registry_load(p->g, TG_REG_STAGING, err)) ||
        !(p->active = tg_registry_load(p->g, TG_REG_ACTIVE, err)) ||
        !(p->log = tg_registry_load(p->g, TG_REG_PROMOTION_LOG, err)))
        return TG_PROMOTE_FAILED;
    p->entry = tg_registry_candidate(p->staging, p->tool);
    p->existing = tg_registry_active_tool(p->active, p->tool);
    return TG_PROMOTE_DONE;
}

tg_promote_status tg_promote(const tg_registry *g, const char *tool, const char *fail_at,
                             tg_promote_result *res, tg_err *err)
{
    *res = (tg_promote_result){0};
    promo p = {.g = g, .tool = tool, .fail_at = fail_at};
    tg_regtx_init(&p.tx, g->repo->root_fd);
    tg_lc_now(p.now);
    tg_promote_status st = load(&p, err);
    if (st == TG_PROMOTE_DONE)
        st = can_promote(&p, err);
    if (p.entry)
        snprintf(res->version, sizeof res->version, "%s", str(p.entry, "version"));
    if (p.existing)
        snprintf(res->previous, sizeof res->previous, "%s", str(p.existing, "version"));
    if (st == TG_PROMOTE_DONE) {
        p.cand_dir = xstrdup(str(p.entry, "path"));
        p.active_dir = tg_registry_active_dir(g, tool);
        p.archive_dir = xasprintf("%s/promoted/%s_%s", g->archive, tool, res->version);
        st = check_git(&p, err);
    }
    char head[41] = "";
    if (st == TG_PROMOTE_DONE && (tg_git_head(g->repo, head, err) != 0 ||
                                  tg_regtx_journal(&p.tx, head, err) != 0))
        st = TG_PROMOTE_FAILED; /* nothing changed yet */
    if (st == TG_PROMOTE_DONE && apply(&p, res, err) != 0) {
        tg_regtx_rollback(&p.tx);
        st = TG_PROMOTE_FAILED;
    }
    tg_regtx_release(&p.tx);
    cJSON_Delete(p.staging);
    cJSON_Delete(p.active);
    cJSON_Delete(p.log);
    free(p.cand_dir);
    free(p.active_dir);
    free(p.archive_dir);
    return st;
}
