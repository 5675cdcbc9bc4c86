/*
 * toolsource.h — where toolgen's builds find their tools: the folders of paths.manifests that
 * hold a manifest (model/paths.h), as the engine's tool source (engine/build.h). Every build
 * toolgen runs — `toolgen build`, the validation of one tool — hands the engine this one.
 */
#ifndef TG_TOOLSOURCE_H
#define TG_TOOLSOURCE_H

#include "engine/build.h"

extern const tg_tool_source tg_manifest_tools;

/* A build of this repository's tools with toolgen's stage table (stages/stages.h), its
 * environment's facts and tg_manifest_tools: sets b->stages, b->env and b->tool_source, leaves
 * every other field as it is. */
void tg_build_opts_toolgen(tg_build_opts *b);

#endif
