/*
 * generate.h — `toolgen new` composed: the generation pipeline (gen/newtool.h) with every
 * candidate validated by a build of just that tool (app/validate.h), for the command and for
 * the server's generate_tool (docs/generate.md#the-pipeline, docs/mcp.md#the-workflow-over-mcp).
 * Nothing here prints: the pipeline's step lines go to the caller's progress callback.
 */
#ifndef TG_GENERATE_H
#define TG_GENERATE_H

#include <stddef.h>

#include "base/util.h"
#include "gen/newtool.h"
#include "model/repo.h"
#include "serve/workflow.h"

/*
 * tg_gen_new with o's options and tg_validate_tool as the validation (o->validate and
 * o->validate_ud are not used). As tg_gen_new: 0 with result filled, or -1 with result->fail
 * and err; the caller releases result (tg_gen_result_release) either way.
 */
int tg_generate_tool(const tg_gen_opts *o, tg_gen_result *result, tg_err *err);

/*
 * `toolgen new`: tg_generate_tool, then, when the tool passed its gates, the build that staging
 * snapshots and the staging itself (lifecycle/snapshot.h), so that new ends in the state it
 * prints — STAGED, a candidate in the staging registry that `toolgen status` shows, with the
 * staged run on the data as the next command. A tool that passed but could not be built or
 * staged stays in manifests/ as a DRAFT: -1, result->fail TG_GENF_ANSWER, err says why and
 * what to run.
 */
int tg_generate_and_stage(const tg_gen_opts *o, tg_gen_result *result, tg_err *err);

/*
 * serve/workflow.h's generate_tool (a tg_serve_generate_fn; ud: the server's tg_serve_live
 * tool set, or NULL): tg_generate_tool on
 * the request (with the client's model's answers, for llm.provider sampling), then, when the tool is STAGED, one more build of it, since
 * generation leaves the manifest newer than the build that validated it and staging snapshots
 * what a build validated. The step lines become out->summary (not the next command: a CLI one).
 * A REUSE names only a tool of ud's set: the agent can call no other.
 */
int tg_generate_and_build(void *ud, const tg_repo *repo, const tg_serve_gen_request *rq,
                          tg_serve_generated *out, tg_err *err);

#endif
