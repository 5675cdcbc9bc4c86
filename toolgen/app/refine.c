/* refine.c — a rejected tool generated again from the user's corrections (refine.h). */
#include "app/refine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/generate.h"
#include "app/validate.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
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
    const tg_refine_opts *o;
    const tg_repo *repo;
    tg_refined *out;   /* dir and version */
    char *aside, *manifest, *intent;
    tg_strv data;
} refine_ctx;

static int prepare(refine_ctx *c, tg_err *err)
{
    const char *dir = c->out->dir;
    c->manifest = tg_path_join(dir, "tool.manifest.yaml");
    c->aside = xasprintf(".toolgen/refine/%s", c->o->tool);
    tg_manifest m;
    if (tg_manifest_load(c->repo, c->manifest, &m, err) != 0)
        return -1;
    tg_manifest_bind(&m);
    example_data(&m, &c->data);
    c->out->version = next_minor(m.version);
    const char *intent = tg_json_get_string(m.doc.root, "intent");
    c->intent = intent ? xstrdup(intent) : NULL;
    int rc = 0;
    if (!c->out->version)
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
    if (renameat(c->repo->root_fd, dir, c->repo->root_fd, c->aside) != 0)
        return tg_err_set(err, "%s: cannot move it aside to %s: %s", dir, c->aside,
                          strerror(errno));
    return 0;
}

static void restore(refine_ctx *c)
{
    const char *dir = c->out->dir;
    tg_gen_folder_remove(c->repo, dir);
    if (renameat(c->repo->root_fd, c->aside, c->repo->root_fd, dir) != 0 && c->o->warning) {
        char *msg = xasprintf("could not put %s back from %s: %s", dir, c->aside,
                              strerror(errno));
        c->o->warning(c->o->ud, msg);
        free(msg);
    }
}

/* The pipeline on the refined request; then the new version, built so it can be staged. */
static int regenerate(refine_ctx *c, tg_err *err)
{
    const char *tool = c->o->tool, *version = c->out->version;
    char *intent = refined_intent(c->repo, c->intent, c->o->notes);
    tg_gen_opts g = {.repo = c->repo, .intent = intent, .data = (const char *const *)c->data.v,
                     .ndata = c->data.n, .name = tool, .samples = 1,
                     .progress = c->o->progress, .progress_ud = c->o->ud};
    tg_gen_result r;
    int rc = tg_generate_tool(&g, &r, err);
    if (rc == 0 && r.outcome != TG_GEN_STAGED)
        rc = tg_err_set(err, "the refined request was %s, not a new version of %s%s%s",
                        r.outcome == TG_GEN_REUSE ? "answered by an existing tool" : "rejected",
                        tool, r.tool ? ": " : "", r.tool && r.outcome == TG_GEN_REUSE ? r.tool : "");
    tg_gen_result_release(&r);
    free(intent);
    bool ok = false;
    char *fails = NULL;
    if (rc == 0 && (set_version(c->repo, c->manifest, version, err) != 0 ||
                    tg_build_tool(c->repo, tool, &ok, &fails, err) != 0))
        rc = -1;
    else if (rc == 0 && !ok)
        rc = tg_err_set(err, "the build of v%s failed:\n%s", version, fails ? fails : "");
    free(fails);
    return rc;
}

tg_refine_status tg_refine_tool(const tg_refine_opts *o, tg_refined *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    out->dir = tg_path_join(o->repo->cfg.manifests_dir, o->tool);
    refine_ctx c = {.o = o, .repo = o->repo, .out = out};
    tg_refine_status st = TG_REFINE_OK;
    if (prepare(&c, err) != 0) {
        st = TG_REFINE_UNUSABLE;
    } else if (regenerate(&c, err) != 0) {
        restore(&c);
        st = TG_REFINE_FAILED;
    } else {
        tg_gen_folder_remove(o->repo, c.aside);
    }
    free(c.aside);
    free(c.manifest);
    free(c.intent);
    tg_strv_free(&c.data);
    return st;
}

void tg_refined_release(tg_refined *r)
{
    free(r->dir);
    free(r->version);
    memset(r, 0, sizeof *r);
}

static void collect_line(void *ud, const char *line)
{
    tg_buf_printf(ud, "%s\n", line);
}

int tg_refine_and_build(void *ud, const tg_repo *repo, const char *tool, const char *notes,
                        tg_serve_generated *out, tg_err *err)
{
    (void)ud;
    tg_buf lines = TG_BUF_INIT;
    tg_refine_opts o = {.repo = repo, .tool = tool, .notes = notes, .progress = collect_line,
                        .warning = collect_line, .ud = &lines};
    tg_refined r;
    tg_refine_status st = tg_refine_tool(&o, &r, err);
    if (st == TG_REFINE_FAILED)
        tg_buf_printf(&lines, "%s; %s is as it was\n", err->msg, r.dir ? r.dir : tool);
    out->tool = xstrdup(tool);
    out->staged = st == TG_REFINE_OK;
    out->summary = tg_buf_steal(&lines);
    tg_refined_release(&r);
    return st == TG_REFINE_UNUSABLE ? -1 : 0;
}
