/* generate.c — `toolgen new` composed (generate.h). */
#include "app/generate.h"

#include <stdlib.h>

#include "app/remotecache.h"
#include "app/validate.h"
#include "base/buf.h"
#include "lifecycle/monitor.h"
#include "lifecycle/snapshot.h"
#include "serve/toolset.h"

int tg_generate_tool(const tg_gen_opts *o, tg_gen_result *result, tg_err *err)
{
    tg_gen_opts g = *o;
    g.validate = tg_validate_tool_fn;
    g.validate_ud = NULL;
    /* model answers from the team's remote cache too (docs/cache.md); a cache that cannot be
     * opened (an unset token variable) is left out here: the build reports it */
    tg_remote_cache *remote = NULL;
    tg_err rerr = {0};
    if (tg_remote_cache_open(o->repo, NULL, &remote, &rerr) == 0 && remote)
        g.llm_remote = tg_remote_cache_llm(remote);
    int rc = tg_gen_new(&g, result, err);
    tg_remote_cache_close(remote);
    return rc;
}

/* The build staging snapshots, then the staging; a line through o->progress. */
static int stage(const tg_gen_opts *o, tg_gen_result *r, tg_err *err)
{
    bool ok = false;
    char *fails = NULL;
    int rc = tg_build_tool(o->repo, r->tool, &ok, &fails, err);
    if (rc == 0 && !ok)
        rc = tg_err_set(err, "%s passed its gates, but the build after generation failed:\n%s",
                        r->tool, fails ? fails : "");
    free(fails);
    tg_registry g;
    tg_registry_stage_result st = {0};
    if (rc == 0 && (rc = tg_registry_open(&g, o->repo, err)) == 0) {
        rc = tg_registry_stage(&g, r->tool, &st, err);
        tg_registry_release(&g);
    }
    if (rc != 0) {
        tg_err_prefix(err, "%s was generated and validated but not staged (it stays a DRAFT in "
                           "manifests/%s/; fix what follows, then `toolgen build %s && toolgen "
                           "stage %s`)", r->tool, r->tool, r->tool, r->tool);
        r->outcome = TG_GEN_FAILED;
        r->fail = TG_GENF_ANSWER;
        return -1;
    }
    tg_err merr = {0};
    if (!st.already)
        (void)tg_monitor_add(o->repo, TG_MON_STAGED, 0, NULL, &merr); /* the registry holds it */
    if (o->progress) {
        char *line = xasprintf("STAGED %s%s%s: %s (%s)", r->tool, st.version[0] ? " v" : "",
                               st.version, st.path,
                               st.already ? "already staged" : "DRAFT -> STAGED");
        o->progress(o->progress_ud, line);
        free(line);
    }
    return 0;
}

int tg_generate_and_stage(const tg_gen_opts *o, tg_gen_result *result, tg_err *err)
{
    int rc = tg_generate_tool(o, result, err);
    if (rc != 0 || result->outcome != TG_GEN_STAGED)
        return rc;
    return stage(o, result, err);
}

static void collect_step(void *ud, const char *line)
{
    tg_buf_printf(ud, "%s\n", line);
}

/* Is tool one of the served set's (ud: a tg_serve_live)? */
static bool served(void *ud, const char *tool)
{
    tg_serve_toolset *set = tg_serve_live_get(ud);
    bool found = tg_serve_tools_find(&set->tools, tool) != NULL;
    tg_serve_toolset_unref(set);
    return found;
}

/* The generator's question, for the server to ask the user (out owns copies). */
static void copy_question(const tg_builtin_question *q, tg_serve_generated *out)
{
    out->about = xstrdup(q->about);
    out->question = xstrdup(q->text);
    out->options = xcalloc(q->noptions + 1, sizeof *out->options);
    for (size_t i = 0; i < q->noptions; i++)
        out->options[i] = xstrdup(q->options[i]);
    out->noptions = q->noptions;
}

int tg_generate_and_build(void *ud, const tg_repo *repo, const tg_serve_gen_request *rq,
                          tg_serve_generated *out, tg_err *err)
{
    tg_buf lines = TG_BUF_INIT;
    tg_gen_opts g = {.repo = repo, .intent = rq->intent, .data = rq->data, .ndata = rq->ndata,
                     .samples = 1, .progress = collect_step, .progress_ud = &lines,
                     .reusable = ud ? served : NULL, .reusable_ud = ud,
                     .assume = rq->assume, .nassume = rq->nassume, .sampled = rq->sampled};
    tg_gen_result r;
    int rc = tg_generate_tool(&g, &r, err);
    if (rc != 0 && r.fail == TG_GENF_ASK && r.question.text) {
        copy_question(&r.question, out); /* asked, not failed: nothing was written */
        rc = 0;
    } else if (rc != 0 && r.fail == TG_GENF_SAMPLE && r.sampling) {
        out->sampling = r.sampling; /* the client's model answers, then it runs again */
        r.sampling = NULL;
        rc = 0;
    } else if (rc == 0) {
        out->reused = r.outcome == TG_GEN_REUSE;
        out->arguments = r.arguments ? xstrdup(r.arguments) : NULL;
        if (r.outcome == TG_GEN_STAGED) {
            bool ok = false;
            char *fails = NULL;
            rc = tg_build_tool(repo, r.tool, &ok, &fails, err);
            if (rc == 0 && !ok)
                tg_buf_printf(&lines, "the build after generation failed:\n%s",
                              fails ? fails : "");
            out->staged = rc == 0 && ok;
            free(fails);
        }
    }
    /* no "next:" line: it names a CLI command, and the workflow says what comes next itself */
    out->tool = r.tool ? xstrdup(r.tool) : NULL;
    out->summary = tg_buf_steal(&lines);
    tg_buf_free(&lines);
    tg_gen_result_release(&r);
    return rc;
}
