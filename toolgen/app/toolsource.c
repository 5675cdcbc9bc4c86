/* toolsource.c — the tools of a repository (toolsource.h). */
#include "app/toolsource.h"

#include "model/paths.h"
#include "stages/stages.h"

const tg_tool_source tg_manifest_tools = {
    .list = tg_tools_list,
    .marker = tg_tools_marker,
    .refuse = tg_tools_refuse,
};

void tg_build_opts_toolgen(tg_build_opts *b)
{
    b->stages = tg_stages;
    b->tool_source = &tg_manifest_tools;
    b->env = &tgs_env;
}
