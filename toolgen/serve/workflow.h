/*
 * workflow.h — the tool lifecycle as MCP tools for an agent (docs/mcp.md#the-workflow-over-mcp),
 * offered when toolgen.yaml says serve: {workflow: true}:
 *
 *   list_available_tools   the promoted tools (seed 000, 7.2) and the candidates under review
 *   generate_tool          intent + data file → generated, built, staged, run on that file and
 *                          presented, through the same pipeline as `toolgen new` + `toolgen
 *                          build` + `toolgen stage` + `toolgen run`
 *   run_staged_tool        a staged run on the user's input: run_artifacts.json and the
 *                          presentation, as `toolgen run` on a STAGED tool
 *   submit_tool_feedback   Stage 1 (output) or Stage 2 (decision), the user's reply verbatim,
 *                          read with the same strict rules as `toolgen feedback`
 *   promote_tool           APPROVED → PROMOTED, the same git commit as `toolgen promote`
 *   reject_tool            the candidate archived with the user's notes, as `toolgen reject`;
 *                          with refine, generated again from them as the next version, staged,
 *                          run and presented, as `toolgen reject --refine` + stage + run
 *
 * The lifecycle's messages name CLI commands; the workflow says the MCP tool instead.
 * serve/ cannot see the generator or the build engine (docs/architecture.md): app/ hands in
 * the generation as a callback. Every failure is a tool result with isError and the reason, so
 * the agent can tell the user; nothing here prints.
 *
 * The tools are offered by a provider (serve/provider.h). A call does its work — a generation,
 * a build, a staged run, a promotion — without the server's core lock (tg_serve_unlocked,
 * serve/dispatch.h), so tools/list and other calls are answered meanwhile; workflow calls
 * take turns among themselves (w->mu), since they share the registry and the build's files.
 */
#ifndef TG_SERVE_WORKFLOW_H
#define TG_SERVE_WORKFLOW_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "model/repo.h"
#include "schema/jsonschema.h"
#include "serve/provider.h"

/* What the generation callback reports. All strings heap, freed by the workflow. */
typedef struct tg_serve_generated {
    char *tool;    /* the tool's name (REUSE: the existing tool); may be NULL on failure */
    char *summary; /* the pipeline's lines, for the agent */
    bool staged;   /* generated, validated and built: ready for `toolgen stage` */
    bool reused;   /* an existing tool already fits: nothing generated */
    char *arguments; /* reused: the arguments of the call that answers the request (a compact
                        JSON object), or NULL */
    /* the one question the request leaves open (nothing was generated): what it is about, the
     * question, the options; question NULL when none */
    char *about, *question;
    char **options;
    size_t noptions;
    /* llm.provider sampling: what the client's model must answer before generation can go on
     * (questions as tg_call_result.ask holds them, run/toolrun.h), or NULL */
    cJSON *sampling;
} tg_serve_generated;

/* What generate_tool asks for, with the answers so far. */
typedef struct tg_serve_gen_request {
    const char *intent;
    const char *const *data; /* paths relative to the root */
    size_t ndata;
    const char *const *assume; /* the user's answers to earlier questions, "ABOUT=MEANING" */
    size_t nassume;
    const cJSON *sampled;    /* the client's model's answers so far ({key: CreateMessageResult}),
                              * or NULL */
} tg_serve_gen_request;

/*
 * Generates a tool for rq->intent from the data files with the pipeline of `toolgen new`, then
 * builds it so it can be staged (`toolgen new --assume` for rq->assume). 0 when the pipeline
 * reached an outcome, a question for the user or requests for the client's model (see out),
 * -1 with err (bad request, the provider or sandbox unavailable).
 */
typedef int (*tg_serve_generate_fn)(void *ud, const tg_repo *repo,
                                    const tg_serve_gen_request *rq, tg_serve_generated *out,
                                    tg_err *err);

/*
 * Generates the rejected tool again from the user's notes with the pipeline of `toolgen reject
 * --refine`, as its next version, and builds it. out as for tg_serve_generate_fn (staged: the
 * new draft passed and can be staged); -1 with err when the tool cannot be refined.
 */
typedef int (*tg_serve_refine_fn)(void *ud, const tg_repo *repo, const char *tool,
                                  const char *notes, tg_serve_generated *out, tg_err *err);

#define TG_SERVE_WORKFLOW_TOOLS 6

typedef struct tg_serve_workflow {
    const tg_repo *repo;          /* borrowed, opened with its config */
    tg_serve_generate_fn generate; /* NULL: generate_tool answers that it is not available;
                                    * called without the core lock */
    void *generate_ud;
    tg_serve_refine_fn refine;    /* NULL: reject_tool does not refine; called like generate,
                                   * with generate_ud */
    void (*changed)(void *ctx);   /* the registry changed (a promotion): re-read the tool set;
                                   * called with the core lock held */
    void *changed_ctx;
    const char *user;             /* who answers feedback, for Approved-By */
    /* set by tg_serve_workflow_init: */
    cJSON *tools;                 /* the MCP Tool objects, an array */
    js_registry *reg;
    js_schema *inputs[TG_SERVE_WORKFLOW_TOOLS]; /* their compiled inputSchemas, in order */
    pthread_mutex_t mu;           /* held by the workflow call that is working */
} tg_serve_workflow;

/* Builds the tools; set the other fields before or after. */
void tg_serve_workflow_init(tg_serve_workflow *w);
/* Frees what init built; nothing when it was not called. */
void tg_serve_workflow_release(tg_serve_workflow *w);
/* The workflow's tools as a provider; w must outlive it. Every failure of a call is a tool
 * result with isError and an error code ("REFUSED", "GENERATION_FAILED", ...). */
tg_serve_provider tg_serve_workflow_provider(tg_serve_workflow *w);

#endif
