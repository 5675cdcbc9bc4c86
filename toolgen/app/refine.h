/*
 * refine.h — `toolgen reject TOOL --notes NOTES --refine` after the rejection
 * (docs/lifecycle.md "Rejection"): generation starts again at the spec step with the user's
 * corrections, in the tool's own folder, as a new draft version (the minor version after the
 * rejected one), validated by tg_validate_tool and then built. The rejected manifest folder is
 * kept aside (.toolgen/refine/TOOL) while the pipeline runs and put back when it produces
 * nothing, so a failed refinement loses nothing. Nothing here prints.
 */
#ifndef TG_REFINE_H
#define TG_REFINE_H

#include "base/util.h"
#include "model/repo.h"
#include "serve/workflow.h"

typedef struct tg_refine_opts {
    const tg_repo *repo; /* opened with its config */
    const char *tool;
    const char *notes;   /* the user's corrections */
    void (*progress)(void *ud, const char *line); /* the pipeline's step lines; may be NULL */
    void (*warning)(void *ud, const char *msg);   /* something left undone; may be NULL */
    void *ud;
} tg_refine_opts;

typedef enum tg_refine_status {
    TG_REFINE_OK,       /* a new draft, out->version, in out->dir */
    TG_REFINE_UNUSABLE, /* the tool cannot be refined (err says why); nothing was changed */
    TG_REFINE_FAILED,   /* the refinement failed (err says why); out->dir is as it was */
} tg_refine_status;

typedef struct tg_refined {
    char *dir;     /* the tool's folder, manifests/TOOL */
    char *version; /* the new draft's version; NULL until it is known */
} tg_refined;

/* Refines o->tool. Fills out whatever the status (tg_refined_release). */
tg_refine_status tg_refine_tool(const tg_refine_opts *o, tg_refined *out, tg_err *err);
void tg_refined_release(tg_refined *r);

/* tg_refine_tool for the server's reject_tool (serve/workflow.h, tg_serve_refine_fn): the step
 * lines, and why a failed refinement changed nothing, become out->summary; -1 with err when
 * the tool cannot be refined. */
int tg_refine_and_build(void *ud, const tg_repo *repo, const char *tool, const char *notes,
                        tg_serve_generated *out, tg_err *err);

#endif
