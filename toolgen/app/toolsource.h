/*
 * toolsource.h — where toolgen's builds find their tools: the folders of paths.manifests that
 * hold a manifest (model/paths.h), as the engine's tool source (engine/build.h). Every build
 * toolgen runs — `toolgen build`, the validation of one tool — hands the engine this one.
 */
#ifndef TG_TOOLSOURCE_H
#define TG_TOOLSOURCE_H

#include "engine/build.h"

extern const tg_tool_source tg_manifest_tools;

#endif
