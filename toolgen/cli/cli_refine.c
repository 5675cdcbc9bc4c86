/*
 * cli_refine.c — `toolgen reject TOOL --notes NOTES --refine` (docs/lifecycle.md
 * "Rejection"): the refinement is app/refine.h; this file prints its steps and its outcome.
 */
#include <stdio.h>

#include "app/refine.h"
#include "cli/cli.h"

static void warn(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "toolgen: reject: warning: %s\n", msg);
}

int cli_refine(const tg_repo *repo, const char *tool, const char *notes)
{
    tg_refine_opts o = {.repo = repo, .tool = tool, .notes = notes, .progress = cli_print_step,
                        .warning = warn};
    tg_refined out;
    tg_err err = {0};
    int code = TG_EXIT_OK;
    tg_refine_status st = tg_refine_tool(&o, &out, &err);
    if (st == TG_REFINE_UNUSABLE) {
        code = cli_fail(TG_EXIT_FAIL, "reject: --refine: %s", err.msg);
    } else if (st == TG_REFINE_FAILED) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        code = cli_fail(TG_EXIT_FAIL, "reject: --refine: %s; %s is as it was (the rejection "
                        "stands)", msg, out.dir);
    } else {
        printf("%s v%s: a new DRAFT from the corrections (%s/)\nnext: `toolgen stage %s`, then "
               "`toolgen run %s ...` on real data\n", tool, out.version, out.dir, tool, tool);
    }
    tg_refined_release(&out);
    return code;
}
