/* generate.c — `toolgen new` composed (generate.h). */
#include "app/generate.h"

#include <stdlib.h>

#include "app/remotecache.h"
#include "app/validate.h"
#include "base/buf.h"

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

static void collect_step(void *ud, const char *line)
{
    tg_buf_printf(ud, "%s\n", line);
}

int tg_generate_and_build(void *ud, const tg_repo *repo, const char *intent,
                          const char *const *data, size_t ndata, tg_serve_generated *out,
                          tg_err *err)
{
    (void)ud;
    tg_buf lines = TG_BUF_INIT;
    tg_gen_opts g = {.repo = repo, .intent = intent, .data = data, .ndata = ndata,
                     .samples = 1, .progress = collect_step, .progress_ud = &lines};
    tg_gen_result r;
    int rc = tg_generate_tool(&g, &r, err);
    if (rc == 0) {
        out->reused = r.outcome == TG_GEN_REUSE;
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
