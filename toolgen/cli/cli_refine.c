/*
 * cli_refine.c — `toolgen reject TOOL --notes NOTES --refine` (docs/lifecycle.md
 * "Rejection"): after the rejection, generation starts again at the spec step with the
 * user's corrections, in the tool's own folder, as a new draft version (the minor version
 * after the rejected one). The rejected manifest folder is kept aside while the pipeline runs
 * and put back when it produces nothing, so a failed refinement loses nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "cli/cli.h"
#include "gen/gen_files.h"
#include "gen/newtool.h"
#include "model/manifest.h"

/* The data files the tool was generated for: its first example's path arguments. */
static void example_data(const tg_manifest *m, tg_strv *out)
{
    const cJSON *input = tg_json_get(cJSON_GetArrayItem(m->examples, 0), "input");
    const cJSON *props = tg_json_get(m->input_schema, "properties"), *p;
    cJSON_ArrayForEach(p, props) {
        const cJSON *v = tg_json_get(input, p->string);
        if (tg_json_get(p, "x-toolgen-path") && cJSON_IsString(v))
            tg_strv_push(out, v->valuestring);
    }
}

/* "1.4.2" -> "1.5.0"; NULL when the version is not MAJOR.MINOR.PATCH. Heap string. */
static char *next_minor(const char *v)
{
    unsigned long major, minor;
    int n = 0;
    if (!v || sscanf(v, "%lu.%lu.%*u%n", &major, &minor, &n) != 2 || n == 0)
        return NULL;
    return xasprintf("%lu.%lu.0", major, minor + 1);
}

/*
 * The request the generator gets: a model sees the original intent and the corrections
 * together, as the seed's refinement asks. The built-in generator compiles requests, not
 * reviews, so for it the notes must state the corrected request ("mean tip by time").
 */
static char *refined_intent(const tg_repo *repo, const char *intent, const char *notes)
{
    const cJSON *prov = tg_config_get(&repo->cfg, "/llm/provider");
    if (!cJSON_IsString(prov) || strcmp(prov->valuestring, "builtin") == 0)
        return xstrdup(notes);
    return xasprintf("%s\n\nCorrections from the user's review of the previous version (apply "
                     "them): %s", intent ? intent : "", notes);
}

/* Sets the manifest's version line to version. */
static int set_version(const tg_repo *repo, const char *path, const char *version, tg_err *err)
{
    size_t len = 0;
    char *text = tg_read_file_at(repo->root_fd, path, 0, &len, err);
    if (!text)
        return -1;
    char *line = strstr(text, "\nversion: ");
    int rc = -1;
    if (!line) {
        rc = tg_err_set(err, "%s: no version line to bump", path);
    } else {
        char *end = strchr(line + 1, '\n');
        tg_buf b = TG_BUF_INIT;
        tg_buf_append(&b, text, (size_t)(line - text));
        tg_buf_printf(&b, "\nversion: %s%s", version, end ? end : "\n");
        rc = tg_write_file_atomic_at(repo->root_fd, path, b.data, b.len, err);
        tg_buf_free(&b);
    }
    free(text);
    return rc;
}

typedef struct refine_ctx {
    const tg_repo *repo;
    const char *tool;
    char *dir, *aside, *manifest, *version, *intent;
    tg_strv data;
} refine_ctx;

static int prepare(refine_ctx *c, tg_err *err)
{
    c->dir = tg_path_join(c->repo->cfg.manifests_dir, c->tool);
    c->manifest = tg_path_join(c->dir, "tool.manifest.yaml");
    c->aside = xasprintf(".toolgen/refine/%s", c->tool);
    tg_manifest m;
    if (tg_manifest_load(c->repo, c->manifest, &m, err) != 0)
        return -1;
    tg_manifest_bind(&m);
    example_data(&m, &c->data);
    c->version = next_minor(m.version);
    const char *intent = tg_json_get_string(m.doc.root, "intent");
    c->intent = intent ? xstrdup(intent) : NULL;
    int rc = 0;
    if (!c->version)
        rc = tg_err_set(err, "%s: version %s is not MAJOR.MINOR.PATCH", c->manifest,
                        m.version ? m.version : "(none)");
    else if (!c->data.n)
        rc = tg_err_set(err, "%s: no example names the data file it was made for; run `toolgen "
                        "new` with --data instead", c->manifest);
    tg_manifest_free(&m);
    if (rc != 0)
        return -1;
    /* the folder of the rejected version goes aside; the pipeline writes a new one */
    tg_gen_folder_remove(c->repo, c->aside);
    if (tg_mkdirs_at(c->repo->root_fd, ".toolgen/refine", err) != 0)
        return -1;
    if (renameat(c->repo->root_fd, c->dir, c->repo->root_fd, c->aside) != 0)
        return tg_err_set(err, "%s: cannot move it aside to %s: %s", c->dir, c->aside,
                          strerror(errno));
    return 0;
}

static void restore(refine_ctx *c)
{
    tg_gen_folder_remove(c->repo, c->dir);
    if (renameat(c->repo->root_fd, c->aside, c->repo->root_fd, c->dir) != 0)
        fprintf(stderr, "toolgen: reject: warning: could not put %s back from %s: %s\n", c->dir,
                c->aside, strerror(errno));
}

/* The pipeline on the refined request; then the new version, built so it can be staged. */
static int regenerate(refine_ctx *c, const char *notes, tg_err *err)
{
    char *intent = refined_intent(c->repo, c->intent, notes);
    tg_gen_opts o = {.repo = c->repo, .intent = intent, .data = (const char *const *)c->data.v,
                     .ndata = c->data.n, .name = c->tool, .samples = 1,
                     .validate = cli_build_one, .progress = cli_print_step};
    tg_gen_result r;
    int rc = tg_gen_new(&o, &r, err);
    if (rc == 0 && r.outcome != TG_GEN_STAGED)
        rc = tg_err_set(err, "the refined request was %s, not a new version of %s%s%s",
                        r.outcome == TG_GEN_REUSE ? "answered by an existing tool" : "rejected",
                        c->tool, r.tool ? ": " : "", r.tool && r.outcome == TG_GEN_REUSE ? r.tool : "");
    tg_gen_result_release(&r);
    free(intent);
    bool ok = false;
    char *fails = NULL;
    if (rc == 0 && (set_version(c->repo, c->manifest, c->version, err) != 0 ||
                    cli_build_one(NULL, c->repo, c->tool, &ok, &fails, err) != 0))
        rc = -1;
    else if (rc == 0 && !ok)
        rc = tg_err_set(err, "the build of v%s failed:\n%s", c->version, fails ? fails : "");
    free(fails);
    return rc;
}

int cli_refine(const tg_repo *repo, const char *tool, const char *notes)
{
    refine_ctx c = {.repo = repo, .tool = tool};
    tg_err err = {0};
    int code = TG_EXIT_OK;
    if (prepare(&c, &err) != 0) {
        code = cli_fail(TG_EXIT_FAIL, "reject: --refine: %s", err.msg);
    } else if (regenerate(&c, notes, &err) != 0) {
        restore(&c);
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        code = cli_fail(TG_EXIT_FAIL, "reject: --refine: %s; %s is as it was (the rejection "
                        "stands)", msg, c.dir);
    } else {
        tg_gen_folder_remove(repo, c.aside);
        printf("%s v%s: a new DRAFT from the corrections (%s/)\nnext: `toolgen stage %s`, then "
               "`toolgen run %s ...` on real data\n", tool, c.version, c.dir, tool, tool);
    }
    free(c.dir);
    free(c.aside);
    free(c.manifest);
    free(c.version);
    free(c.intent);
    tg_strv_free(&c.data);
    return code;
}
