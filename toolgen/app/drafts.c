/*
 * drafts.c — the drafts of `toolgen init --from-*` onto disk by the rules of re-running
 * (drafts.h): new tools written, drafts the same source made rewritten when they changed,
 * reviewed manifests and other drafts kept, drafts no longer made reported.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "app/drafts.h"
#include "app/init.h"
#include "base/buf.h"
#include "base/doc.h"
#include "base/yamlout.h"

static int write_all(const tg_drafts_opts *o, const tg_draft *ds, size_t n, tg_drafts_out *out,
                     tg_err *err);

cJSON *tg_draft_head(const char *name, const char *title, const char *description,
                     const char *risk, const char *category, const char *idempotency)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "manifest_version", 1);
    cJSON_AddStringToObject(m, "name", name);
    cJSON_AddStringToObject(m, "version", "0.1.0");
    cJSON_AddStringToObject(m, "title", title);
    cJSON_AddStringToObject(m, "description", description);
    cJSON_AddStringToObject(m, "status", "draft");
    cJSON_AddStringToObject(m, "risk", risk);
    if (category)
        cJSON_AddStringToObject(m, "category", category);
    cJSON_AddStringToObject(m, "idempotency", idempotency);
    cJSON_AddNumberToObject(m, "timeout_ms", 30000);
    return m;
}

void tg_drafts_free(tg_draft *ds, size_t n)
{
    for (size_t i = 0; ds && i < n; i++) {
        free(ds[i].name);
        free(ds[i].text);
        cJSON_Delete(ds[i].manifest);
        tg_strv_free(&ds[i].files);
    }
    free(ds);
}

typedef struct change_list {
    tg_buf b;
} change_list;

static void note_change(void *ctx, const char *key, const cJSON *before, const cJSON *after)
{
    change_list *c = ctx;
    tg_buf_printf(&c->b, "%s%s%s", c->b.len ? ", " : "changed ", key,
                  !before ? " (added)" : !after ? " (removed)" : "");
}

/* The files beside the manifest of d whose text on disk differs (names, comma-separated, or
 * an empty buffer). */
static void changed_files(const char *tdir, const tg_draft *d, tg_buf *out)
{
    for (size_t i = 0; i + 1 < d->files.n; i += 2) {
        char *f = tg_path_join(tdir, d->files.v[i]);
        tg_err ignored = {0};
        size_t len = 0;
        char *text = tg_is_file(f) ? tg_read_file(f, TG_DOC_MAX_BYTES, &len, &ignored) : NULL;
        if (!text || strcmp(text, d->files.v[i + 1]) != 0)
            tg_buf_printf(out, "%s%s", out->len ? ", " : "", d->files.v[i]);
        free(text);
        free(f);
    }
}

/* The manifest and the files of d written into tdir. */
static int write_files(const char *tdir, const tg_draft *d, tg_err *err)
{
    if (tg_mkdirs(tdir, err) != 0)
        return -1;
    for (size_t i = 0; i + 1 < d->files.n; i += 2) {
        char *f = tg_path_join(tdir, d->files.v[i]);
        int rc = tg_write_file_atomic(f, d->files.v[i + 1], strlen(d->files.v[i + 1]), err);
        free(f);
        if (rc != 0)
            return -1;
    }
    char *file = tg_path_join(tdir, "tool.manifest.yaml");
    int rc = tg_write_file_atomic(file, d->text, strlen(d->text), err);
    free(file);
    return rc;
}

/* An existing manifest of d's name: rewritten, kept or unchanged by the rules of drafts.h. */
static int write_existing(const tg_drafts_opts *o, const tg_draft *d, const char *tdir,
                          const char *file, tg_drafts_out *out, tg_err *err)
{
    tg_doc old;
    tg_err e = {0};
    if (tg_doc_load(file, NULL, &old, &e) != 0) {
        tg_strv_pushf(out->kept, "%s (it does not load: %s; left as it is)", d->name, e.msg);
        return 0;
    }
    int rc = 0;
    size_t len = 0;
    const char *status = tg_json_get_string(old.root, "status");
    char *text = tg_read_file(file, TG_DOC_MAX_BYTES, &len, &e);
    tg_buf files = TG_BUF_INIT;
    changed_files(tdir, d, &files);
    if (!status || strcmp(status, "draft") != 0) {
        tg_strv_pushf(out->kept, "%s (status %s: reviewed manifests are left as they are)",
                      d->name, status ? status : "missing");
    } else if (!text || strncmp(text, o->mark, strlen(o->mark)) != 0) {
        /* a draft of a person, of `toolgen new` or another source: not ours to rewrite */
        tg_strv_pushf(out->kept, "%s (a draft not made by %s: left as it is; %s)", d->name,
                      o->command, o->rename);
    } else if (strcmp(text, d->text) == 0 && !files.len) {
        tg_strv_push(out->unchanged, d->name);
    } else {
        change_list c = {TG_BUF_INIT};
        tg_json_diff_members(old.root, d->manifest, note_change, &c);
        if (files.len)
            tg_buf_printf(&c.b, "%s%s", c.b.len ? ", " : "changed ", files.data);
        tg_strv_pushf(out->updated, "%s: %s", d->name, c.b.len ? c.b.data : "changed comments");
        tg_buf_free(&c.b);
        rc = o->dry_run ? 0 : write_files(tdir, d, err);
    }
    tg_buf_free(&files);
    free(text);
    tg_doc_free(&old);
    return rc;
}

static int write_one(const tg_drafts_opts *o, const tg_draft *d, tg_drafts_out *out, tg_err *err)
{
    char *rel = xasprintf("manifests/%s", d->name);
    char *tdir = tg_path_join(o->dir, rel);
    char *file = tg_path_join(tdir, "tool.manifest.yaml");
    int rc = 0;
    if (tg_is_file(file)) {
        rc = write_existing(o, d, tdir, file, out, err);
    } else {
        rc = o->dry_run ? 0 : write_files(tdir, d, err);
        if (rc == 0)
            tg_strv_push(out->created, d->name);
    }
    free(file);
    free(tdir);
    free(rel);
    return rc;
}

/* The drafts an earlier run made from the same source that this run did not make (the
 * operation or function is gone or now left out): reported, never removed (a person may have
 * built on them). Known by their first line. */
static void find_stale(const tg_drafts_opts *o, const tg_draft *ds, size_t n, tg_drafts_out *out)
{
    char *dir = tg_path_join(o->dir, "manifests");
    DIR *d = opendir(dir);
    char *mark = xasprintf("%s from %s: ", o->mark, o->source);
    tg_strv stale = TG_STRV_INIT;
    for (struct dirent *e; d && (e = readdir(d));) {
        bool ours = e->d_name[0] == '.';
        for (size_t i = 0; i < n && !ours; i++)
            ours = strcmp(ds[i].name, e->d_name) == 0;
        if (ours)
            continue;
        char *file = xasprintf("%s/%s/tool.manifest.yaml", dir, e->d_name);
        tg_err ignored = {0};
        size_t len = 0;
        char *text = tg_is_file(file) ? tg_read_file(file, TG_DOC_MAX_BYTES, &len, &ignored) : NULL;
        if (text && strncmp(text, mark, strlen(mark)) == 0)
            tg_strv_pushf(&stale, "%s (%s: left as it is; remove the folder if it is no longer "
                                  "wanted)", e->d_name, o->gone);
        free(text);
        free(file);
    }
    if (d)
        closedir(d);
    tg_strv_sort(&stale); /* readdir's order is the file system's */
    for (size_t i = 0; i < stale.n; i++)
        tg_strv_push(out->stale, stale.v[i]);
    tg_strv_free(&stale);
    free(mark);
    free(dir);
}

/* The lines of comments a draft's text starts with (its mark and the review note). */
static size_t header_len(const char *text)
{
    const char *p = text;
    while (*p == '#') {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    return (size_t)(p - text);
}

/*
 * d with DIR/overrides/NAME.yaml applied as a JSON Merge Patch (docs/cli.md#overrides), into
 * *to (a copy the caller frees); a copy of d when there is none. -1 with err when the override
 * does not load or is not a mapping.
 */
static int with_override(const tg_drafts_opts *o, const tg_draft *d, tg_draft *to, tg_err *err)
{
    char *rel = xasprintf("overrides/%s.yaml", d->name);
    char *file = tg_path_join(o->dir, rel);
    *to = (tg_draft){.name = xstrdup(d->name), .manifest = cJSON_Duplicate(d->manifest, true)};
    for (size_t i = 0; i < d->files.n; i++)
        tg_strv_push(&to->files, d->files.v[i]);
    int rc = 0;
    tg_doc doc = {0};
    if (!tg_is_file(file)) {
        to->text = xstrdup(d->text);
    } else if (tg_doc_load(file, NULL, &doc, err) != 0) {
        rc = -1;
    } else if (!cJSON_IsObject(doc.root)) {
        tg_err_setpos(err, rel, 1, 1, "an override is a mapping of the manifest's members to "
                                      "replace, a null removing one (docs/cli.md#overrides)");
        rc = -1;
    } else {
        tg_json_merge_patch(&to->manifest, doc.root);
        tg_buf b = TG_BUF_INIT;
        tg_buf_append(&b, d->text, header_len(d->text));
        tg_buf_printf(&b, "# With %s applied over the draft (kept across re-runs).\n", rel);
        tg_yaml_write(&b, to->manifest, 0);
        to->text = tg_buf_steal(&b);
    }
    tg_doc_free(&doc);
    free(file);
    free(rel);
    return rc;
}

int tg_drafts_write(const tg_drafts_opts *o, const tg_draft *given, size_t n, tg_drafts_out *out,
                    tg_err *err)
{
    /* every override first: one that does not apply stops the run before anything is written */
    tg_draft *ds = xcalloc(n ? n : 1, sizeof *ds);
    for (size_t i = 0; i < n; i++)
        if (with_override(o, &given[i], &ds[i], err) != 0) {
            tg_drafts_free(ds, i + 1);
            return -2; /* the user's file: a usage error */
        }
    int rc = write_all(o, ds, n, out, err);
    tg_drafts_free(ds, n);
    return rc;
}

static int write_all(const tg_drafts_opts *o, const tg_draft *ds, size_t n, tg_drafts_out *out,
                     tg_err *err)
{
    find_stale(o, ds, n, out);
    char *cfg = tg_path_join(o->dir, "toolgen.yaml");
    bool init = !tg_is_file(cfg);
    free(cfg);
    if (init && !o->dry_run) {
        tg_init_report ir;
        if (tg_app_init(o->dir, NULL, &ir, err) != 0)
            return -1;
        tg_init_report_free(&ir);
        *out->initialised = true;
    }
    for (size_t i = 0; i < n; i++)
        if (write_one(o, &ds[i], out, err) != 0)
            return -1;
    return 0;
}
