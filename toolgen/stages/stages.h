/*
 * stages.h — toolgen's stages (docs/build.md "The stage graph"): load, emit, static, test,
 * aggregate. The CLI hands this table to the build engine (tg_build_opts.stages); the interface
 * every stage implements is engine/stage.h.
 */
#ifndef TG_STAGES_H
#define TG_STAGES_H

#include "engine/build.h"
#include "engine/stage.h"

/* Every stage, each after its upstream stages; NULL-terminated. */
extern const tg_stage_def *const tg_stages[];

/* The facts of the environment the gate stages name (stage_env.c): python, node, bwrap,
 * runners, python-package:NAME, node-package:NAME. */
extern const tg_build_env tgs_env;

#endif
