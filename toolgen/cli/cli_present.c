/*
 * cli_present.c — `toolgen run` on a STAGED tool (docs/lifecycle.md "Staged run" and
 * "Presentation"): the call's files and run_artifacts.json go into the candidate folder, and
 * the terminal shows the presentation (primary output, tool summary, the two questions)
 * instead of the bare result; --html FILE writes the self-contained page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "cli/cli.h"
#include "cli/cli_present.h"
#include "lifecycle/monitor.h"
#include "lifecycle/present.h"
#include "lifecycle/reviewpage.h"
#include "lifecycle/runart.h"

int cli_staged_begin(tg_repo *repo, const tg_manifest *m, const char *html, cli_staged *s)
{
    *s = (cli_staged){0};
    tg_err err = {0};
    char msg[2048];
    if (tg_repo_load_config(repo, &err) != 0 || tg_registry_open(&s->g, repo, &err) != 0) {
        if (!html) /* a plain run does not need the registry: the run reports config problems */
            return TG_EXIT_OK;
        tg_err_format(&err, msg, sizeof msg);
        return cli_fail(TG_EXIT_USAGE, "run: %s", msg);
    }
    s->open = true;
    int rc = tg_runart_candidate(&s->g, m, &s->dir, &err);
    if (rc < 0)
        return cli_fail(TG_EXIT_FAIL, "run: %s", err.msg);
    if (rc == 0 && html)
        return cli_fail(TG_EXIT_USAGE, "run: --html presents the run of a STAGED tool, and %s "
                        "is not staged; stage it with `toolgen stage %s` (after `toolgen "
                        "build`)", m->name, m->name);
    return TG_EXIT_OK;
}

void cli_staged_end(cli_staged *s)
{
    if (s->open)
        tg_registry_release(&s->g);
    free(s->dir);
    *s = (cli_staged){0};
}

/* The call's files into <candidate>/files/, listed relative to the candidate folder. */
static int keep_files(cli_staged *s, const tg_call_result *r, tg_strv *files, tg_err *err)
{
    if (!r->sb.n_files)
        return 0;
    char *abs = xasprintf("%s/%s/files", s->g.repo->path, s->dir);
    int rc = tg_call_result_copy_files(r, abs, err);
    free(abs);
    for (size_t i = 0; rc >= 0 && i < r->sb.n_files; i++)
        tg_strv_pushf(files, "files/%s", r->sb.files[i].path);
    return rc < 0 ? -1 : 0;
}

static int write_html(cli_staged *s, const cJSON *art, const cJSON *entry, const char *html)
{
    char *page = tg_review_page(&s->g, s->dir, art, entry);
    char *path = cli_user_path(html);
    tg_err err = {0};
    int rc = tg_write_file_atomic(path, page, strlen(page), &err);
    if (rc == 0)
        fprintf(stderr, "toolgen: run: presentation written to %s\n", path);
    free(page);
    free(path);
    return rc == 0 ? TG_EXIT_OK : cli_fail(TG_EXIT_ENV, "run: --html: %s", err.msg);
}

int cli_staged_present(cli_staged *s, const tg_manifest *m, const tg_call_result *r,
                       bool json, const char *html, bool *printed)
{
    *printed = false;
    tg_err err = {0};
    tg_strv files = {0};
    cJSON *env = tg_call_result_json(r, m), *art = NULL, *staging = NULL;
    int code = TG_EXIT_OK;
    if (keep_files(s, r, &files, &err) != 0) {
        code = cli_fail(TG_EXIT_ENV, "run: keeping the staged run's files: %s", err.msg);
        goto out;
    }
    art = tg_runart_build(env, m, &files);
    if (tg_runart_store(&s->g, s->dir, art, &err) != 0 ||
        !(staging = tg_registry_load(&s->g, TG_REG_STAGING, &err))) {
        code = cli_fail(TG_EXIT_ENV, "run: %s", err.msg);
        goto out;
    }
    fprintf(stderr, "toolgen: run: staged run of %s stored in %s/run_artifacts.json\n", m->name,
            s->dir);
    if (tg_monitor_add(s->g.repo, r->ok ? TG_MON_STAGED_RUN : TG_MON_STAGED_RUN_FAILED,
                       tg_json_get_number(env, "execution_time_ms", 0), NULL, &err) != 0)
        fprintf(stderr, "toolgen: run: warning: %s not updated: %s\n", TG_METRICS_PATH, err.msg);
    const cJSON *entry = tg_registry_candidate(staging, m->name);
    if (!json && r->ok) {
        char *md = tg_present_markdown(art, entry);
        fputs(md, stdout);
        free(md);
        *printed = true;
    }
    if (html && r->ok)
        code = write_html(s, art, entry, html);
out:
    cJSON_Delete(env);
    cJSON_Delete(art);
    cJSON_Delete(staging);
    tg_strv_free(&files);
    return code;
}
