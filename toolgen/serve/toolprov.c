/* toolprov.c — the served tool set as a provider of tools (toolprov.h). */
#include "serve/toolprov.h"

#include "base/json.h"
#include "emit/common.h"
#include "serve/core.h"
#include "serve/mrtr.h"

/* The provider's set: its own (a built-in toolset), else the request's pinned served set. */
static const tg_serve_tools *set_of(void *self, const tg_serve_rx *rx)
{
    return self ? (const tg_serve_tools *)self : rx->c->tools;
}

static void tools_list(void *self, const tg_serve_rx *rx, tg_serve_add_fn add, void *ud)
{
    const tg_serve_tools *t = set_of(self, rx);
    for (size_t i = 0; i < t->n; i++)
        add(ud, t->v[i].m.name, t->v[i].tool);
}

static bool tools_find(void *self, const tg_serve_rx *rx, const char *name, tg_serve_entry *out)
{
    const tg_serve_tool *t = tg_serve_tools_find(set_of(self, rx), name);
    if (!t)
        return false;
    *out = (tg_serve_entry){.tool = t->tool, .name = t->m.name, .input = t->input,
                            .output = t->output, .writes = tg_emit_refused_in_read_only(&t->m),
                            .task_asks_first = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                cJSON_GetObjectItemCaseSensitive(t->m.doc.root, "task"),
                                "ask_first")),
                            .impl = t};
    return true;
}

static void tools_call(void *self, const tg_serve_rx *rx, const tg_serve_entry *e,
                       const cJSON *args, tg_serve_outcome *out)
{
    (void)self; /* the tool found in its set comes in e */
    const tg_serve_config *c = rx->c;
    const tg_serve_tool *tool = e->impl;
    if (!c->mrtr) {
        *out = (tg_serve_outcome){0};
        out->result = tg_serve_tool_call(&rx->how, tool, args, &out->code);
    } else if (rx->era == TG_ERA_MODERN) {
        tg_serve_mrtr_call_modern(c->mrtr, &rx->how, tool, args, rx->params, out);
    } else {
        tg_serve_mrtr_call_legacy(&rx->how, tool, args, out);
    }
}

const tg_serve_provider tg_serve_tools_provider = {
    .name = "tools",
    .list = tools_list,
    .find = tools_find,
    .call = tools_call,
};

tg_serve_provider tg_serve_set_provider(const char *name, const tg_serve_tools *set)
{
    tg_serve_provider p = tg_serve_tools_provider;
    p.name = name;
    p.self = (void *)set; /* only read: the provider's functions take a const view of it */
    return p;
}
