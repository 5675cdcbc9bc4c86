/*
 * cli_status.c — `toolgen status [--json]` and `toolgen log [TOOL]`: where every tool stands in
 * its lifecycle and what to run next, like `git status` for tools, and the promotion history
 * from git (docs/lifecycle.md "Status and history").
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/json.h"
#include "base/sha256.h"
#include "base/strmap.h"
#include "cli/cli.h"
#include "lifecycle/gitcommit.h"
#include "lifecycle/lifecycle_state.h"
#include "lifecycle/registry.h"
#include "model/manifest.h"
#include "model/paths.h"

const char tg_usage_lcstatus[] =
    "usage: toolgen status [--json]\n"
    "\n"
    "Every tool (manifests, staged candidates, active tools) with its lifecycle state, the\n"
    "manifest's version, the active version, its quality tier, whether the last build is about\n"
    "the manifest as it is now, and the next command to run.\n"
    "  --json   one JSON document instead of the table\n";

const char tg_usage_log[] =
    "usage: toolgen log [TOOL]\n"
    "\n"
    "The promotion history from git: every commit \"promote TOOL vVERSION\" reachable from HEAD,\n"
    "newest first, with its approver and approval.\n";

/* What the manifest says now, against the registry. */
typedef struct facts {
    bool have, built; /* a manifest; .toolgen/ir holds its current IR */
    bool differs;     /* its spec or code is not the active snapshot's */
} facts;

/* Whether the manifest's spec (its IR, as staging hashes it) or code differ from active's. */
static bool differs_from(const tg_repo *repo, tg_manifest *m, const char *ir,
                         const cJSON *active)
{
    char hex[TG_SHA256_HEX];
    tg_sha256_hex(ir, strlen(ir), hex);
    if (strcmp(hex, tg_json_get_string(active, "spec_hash")) != 0)
        return true;
    tg_manifest_bind(m);
    if (!m->impl_file)
        return false;
    char *code = tg_path_join(m->dir, m->impl_file);
    size_t len = 0;
    char *text = tg_read_file_at(repo->root_fd, code, 0, &len, NULL);
    tg_sha256_hex(text ? text : "", text ? len : 0, hex);
    free(text);
    free(code);
    return strcmp(hex, tg_json_get_string(active, "code_hash")) != 0;
}

/* The manifest's version (NULL without one) and its facts. */
static const char *manifest_facts(const tg_repo *repo, const char *tool, const cJSON *active,
                                  tg_manifest *m, facts *f)
{
    char *mp = tg_manifest_path(&repo->cfg, tool), *irp = tg_ir_path(tool);
    tg_err err = {0};
    *f = (facts){0};
    f->have = tg_is_file_at(repo->root_fd, mp) && tg_manifest_load(repo, mp, m, &err) == 0;
    const char *ver = NULL;
    if (f->have) {
        char *ir = tg_json_print(m->doc.root);
        char *on_disk = tg_read_file_at(repo->root_fd, irp, 0, NULL, NULL);
        f->built = on_disk && strcmp(on_disk, ir) == 0;
        ver = tg_json_get_string(m->doc.root, "version");
        f->differs = active && differs_from(repo, m, ir, active);
        free(ir);
        free(on_disk);
    }
    free(mp);
    free(irp);
    return ver;
}

static char *next_step(const char *tool, const facts *f, const cJSON *entry,
                       const cJSON *active, const char *mver)
{
    tg_lc_state s = tg_lc_state_of(entry);
    const char *out = tg_json_get_string(
        tg_json_get(tg_json_get(entry, "feedback"), "output"), "decision");
    const char *aver = tg_json_get_string(active, "version");
    /* a change at the active version goes nowhere: say so before the review, not after */
    if (f->have && f->differs && aver && mver && tg_version_cmp(mver, aver) <= 0)
        return xasprintf("bump the version above %s, build, then toolgen stage %s", aver, tool);
    if (s == TG_LC_STAGED && out && strcmp(out, "OUTPUT_ACCEPTED") == 0)
        return xasprintf("toolgen feedback %s --decision \"...\"", tool);
    if (s == TG_LC_STAGED)
        return xasprintf("toolgen run %s ..., then toolgen feedback %s --output \"...\"", tool,
                         tool);
    if (s == TG_LC_APPROVED)
        return xasprintf("toolgen promote %s", tool);
    if (!f->have)
        return xstrdup("-");
    if (!f->built)
        return xstrdup("toolgen build");
    const char *ever = tg_json_get_string(entry, "version");
    if (aver && mver && strcmp(aver, mver) == 0)
        return xstrdup("- (active)");
    if (s == TG_LC_REJECTED && ever && mver && strcmp(ever, mver) == 0)
        return xstrdup("bump the version, build, then toolgen stage");
    return xasprintf("toolgen stage %s", tool);
}

static void add_names(tg_strv *names, tg_strmap *seen, const cJSON *obj)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
        if (!tg_strmap_get(seen, it->string)) {
            tg_strmap_put(seen, it->string, (void *)1);
            tg_strv_push(names, it->string);
        }
}

static cJSON *status_json(const tg_repo *repo, cJSON *staging, cJSON *active,
                          const tg_strv *names)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "tools");
    for (size_t i = 0; i < names->n; i++) {
        const char *t = names->v[i];
        tg_manifest m = {0};
        facts f;
        const cJSON *e = tg_registry_candidate(staging, t), *a = tg_registry_active_tool(active, t);
        const char *mver = manifest_facts(repo, t, a, &m, &f);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "tool", t);
        cJSON_AddStringToObject(o, "state", e ? tg_json_get_string(e, "state") : "DRAFT");
        const char *tier = tg_json_get_string(e, "quality_tier");
        cJSON_AddItemToObject(o, "version", mver ? cJSON_CreateString(mver) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "candidate_version",
                              e ? cJSON_CreateString(tg_json_get_string(e, "version"))
                                : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "active_version",
                              a ? cJSON_CreateString(tg_json_get_string(a, "version"))
                                : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "quality_tier", tier ? cJSON_CreateString(tier)
                                                      : cJSON_CreateNull());
        cJSON_AddBoolToObject(o, "manifest", f.have);
        cJSON_AddBoolToObject(o, "built", f.built);
        char *next = next_step(t, &f, e, a, mver);
        cJSON_AddStringToObject(o, "next", next);
        free(next);
        cJSON_AddItemToArray(arr, o);
        if (f.have)
            tg_manifest_free(&m);
    }
    return doc;
}

static void print_table(const cJSON *doc)
{
    /* columns as wide as their longest value (a tool name may have 64 characters) */
    int w[4] = {4, 5, 7, 6};
    const cJSON *o;
    static const char *const keys[] = {"tool", "state", "version", "active_version"};
    cJSON_ArrayForEach(o, tg_json_get(doc, "tools"))
        for (int k = 0; k < 4; k++) {
            const char *s = tg_json_get_string(o, keys[k]);
            if (s && (int)strlen(s) > w[k])
                w[k] = (int)strlen(s);
        }
    printf("%-*s  %-*s  %-*s  %-*s  %-10s %s\n", w[0], "TOOL", w[1], "STATE", w[2], "VERSION",
           w[3], "ACTIVE", "TIER", "NEXT");
    cJSON_ArrayForEach(o, tg_json_get(doc, "tools")) {
        const char *v = tg_json_get_string(o, "version");
        const char *a = tg_json_get_string(o, "active_version");
        const char *tier = tg_json_get_string(o, "quality_tier");
        printf("%-*s  %-*s  %-*s  %-*s  %-10s %s\n", w[0], tg_json_get_string(o, "tool"), w[1],
               tg_json_get_string(o, "state"), w[2], v ? v : "-", w[3], a ? a : "-",
               tier ? tier : "-", tg_json_get_string(o, "next"));
    }
}

int cmd_status(int argc, char **argv)
{
    bool json = argc == 2 && strcmp(argv[1], "--json") == 0;
    if (argc > 2 || (argc == 2 && !json))
        return cli_print_usage(tg_usage_lcstatus, TG_EXIT_USAGE);
    tg_repo repo;
    tg_registry g;
    tg_err err = {0};
    char msg[2048];
    if (tg_repo_open(&repo, cli_dir(), &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        return cli_fail(TG_EXIT_USAGE, "status: %s", msg);
    }
    cJSON *staging = NULL, *active = NULL;
    tg_strv names = {0};
    int code = TG_EXIT_OK;
    if (tg_registry_open(&g, &repo, &err) != 0 || tg_tools_list(&repo, &names, &err) != 0 ||
        !(staging = tg_registry_load(&g, TG_REG_STAGING, &err)) ||
        !(active = tg_registry_load(&g, TG_REG_ACTIVE, &err))) {
        tg_err_format(&err, msg, sizeof msg);
        code = cli_fail(TG_EXIT_USAGE, "status: %s", msg);
        goto out;
    }
    tg_strmap seen = TG_STRMAP_INIT;
    for (size_t i = 0; i < names.n; i++)
        tg_strmap_put(&seen, names.v[i], (void *)1);
    add_names(&names, &seen, tg_json_get(staging, "candidates"));
    add_names(&names, &seen, tg_json_get(active, "tools"));
    tg_strmap_free(&seen);
    tg_strv_sort(&names);
    cJSON *doc = status_json(&repo, staging, active, &names);
    if (json) {
        char *s = tg_json_print(doc);
        fputs(s, stdout);
        free(s);
    } else {
        print_table(doc);
    }
    cJSON_Delete(doc);
out:
    cJSON_Delete(staging);
    cJSON_Delete(active);
    tg_strv_free(&names);
    tg_registry_release(&g);
    tg_repo_release(&repo);
    return code;
}

/* The value of a trailer ("Approved-By") in a commit message, or "" (into out). */
static void trailer(const char *msg, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *l = msg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, kl) == 0 && l[kl] == ':') {
            const char *v = l + kl + 1 + (l[kl + 1] == ' ');
            snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
            return;
        }
}

int cmd_log(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return cli_print_usage(tg_usage_log, TG_EXIT_USAGE);
    tg_repo repo;
    tg_err err = {0};
    if (cli_repo_open(&repo, &err) != 0)
        return cli_fail(TG_EXIT_USAGE, "log: %s", err.msg);
    char *prefix = argc == 2 ? xasprintf("promote %s v", argv[1]) : xstrdup("promote ");
    tg_git_log log = {0};
    int rc = tg_git_log_grep(&repo, prefix, 0, &log, &err), code = TG_EXIT_OK;
    if (rc != 0) {
        code = cli_fail(rc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV, "log: %s", err.msg);
    } else if (log.n == 0) {
        printf("no promotions yet%s%s\n", argc == 2 ? " of " : "", argc == 2 ? argv[1] : "");
    }
    for (size_t i = 0; i < log.n; i++) {
        const tg_git_logent *e = &log.v[i];
        char when[32], by[256], approval[512], spec[128];
        time_t t = (time_t)e->time;
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        trailer(e->message, "Approved-By", by, sizeof by);
        trailer(e->message, "Approval", approval, sizeof approval);
        trailer(e->message, "Spec-Hash", spec, sizeof spec);
        printf("%.12s %s %.*s\n    approved by %s: \"%s\"  %s\n", e->oid, when,
               (int)strcspn(e->message, "\n"), e->message, by[0] ? by : "?", approval,
               spec);
    }
    tg_git_log_free(&log);
    free(prefix);
    tg_repo_release(&repo);
    return code;
}
