/* toolsource.c — the tools of a repository (toolsource.h). */
#include "app/toolsource.h"

#include "model/paths.h"

const tg_tool_source tg_manifest_tools = {
    .list = tg_tools_list,
    .marker = tg_tools_marker,
    .refuse = tg_tools_refuse,
};
