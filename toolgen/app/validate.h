/*
 * validate.h — a build of one tool, and the validation of one tool: the same build with its
 * verdict (gen/verdict.h), what `toolgen new` judges candidates by
 * (docs/generate.md#the-repair-loop).
 *
 * Both build just the tool's stages (stages/stages.h: load, emit, static, test) with the
 * engine, frozen (the stages of a candidate never call a model themselves), and print nothing.
 * A validation runs every one of them again, up to date or not, and takes the test stage's
 * report from the build itself (the engine's TG_EV_OUTPUT event), so its verdict is this run's:
 * a report an earlier build left never judges the tool. The report file the stage writes stays
 * what people read; nothing here reads it.
 */
#ifndef TG_VALIDATE_H
#define TG_VALIDATE_H

#include <stdbool.h>

#include "base/util.h"
#include "gen/verdict.h"
#include "model/repo.h"

/*
 * Builds tool. 0 when the build ran: *ok says whether it succeeded, *failures (heap; NULL when
 * there were none) holds its failure messages, one per line. -1 with err when it could not run
 * (a bad toolgen.yaml, no sandbox, another build holds the lock); *failures may be set then too.
 */
int tg_build_tool(const tg_repo *repo, const char *tool, bool *ok, char **failures, tg_err *err);

/*
 * Validates tool as its files are now. 0 with out filled (tg_verdict_release); -1 with err, out
 * left empty, when the build could not run. The signature of gen/newtool.h's
 * tg_gen_validate_fn, but for its ud: tg_validate_tool_fn is that callback.
 */
int tg_validate_tool(const tg_repo *repo, const char *tool, tg_verdict *out, tg_err *err);
int tg_validate_tool_fn(void *ud, const tg_repo *repo, const char *tool, tg_verdict *out,
                        tg_err *err);

#endif
