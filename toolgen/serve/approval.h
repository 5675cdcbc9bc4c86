/*
 * approval.h — the user's own words for the workflow's two questions (docs/mcp.md#the-workflow-
 * over-mcp): "is this output correct?" and "should this be saved as a reusable tool?".
 *
 * An agent must not be able to approve a tool by writing "Approve" into a tool's arguments: the
 * reply submit_tool_feedback records comes only from the person, through the client's form
 * (MCP elicitation) — an elicitation/create request the call waits for in the legacy era, an
 * input_required form in 2026-07-28. A client that cannot show a form is refused, and told the
 * command the person runs instead (`toolgen feedback`). The reply is recorded verbatim, with
 * "via": "mcp-elicitation", which the promotion commit carries as its Approved-Via trailer.
 */
#ifndef TG_SERVE_APPROVAL_H
#define TG_SERVE_APPROVAL_H

#include <stdbool.h>

#include "lifecycle/registry.h"
#include "serve/provider.h"

#define TG_APPROVAL_VIA "mcp-elicitation"

/*
 * The person's reply to the question of stage (Stage 2 when decision) about tool, for the
 * call rx of submit_tool_feedback with args; asked first when this request does not carry it.
 * The reply (heap), or NULL with *out set: the question itself (2026-07-28: input_required),
 * a refusal (the stage cannot take a reply now, or the client cannot show a form), or the
 * user's decline. Called with the core lock held (a legacy call waits for the answer).
 */
char *tg_serve_approval_reply(const tg_serve_rx *rx, const tg_registry *g, const char *tool,
                              bool decision, const cJSON *args, tg_serve_outcome *out);

#endif
