/* workflow_defs.c — the MCP Tool objects of the workflow tools (workflow.h). Their
 * descriptions teach the agent the lifecycle's rules (docs/mcp.md#the-workflow-over-mcp):
 * above all, the user's words reach submit_tool_feedback only through the client's form. */
#include <stdlib.h>
#include <string.h>

#include "serve/workflow.h"

static const char *const defs[] = {
    "{\"name\":\"list_available_tools\",\"title\":\"List available tools\","
    "\"description\":\"Lists the tools of the registry: every promoted tool with its version and "
    "description, then the candidates under review (STAGED or APPROVED) with their state. Use it "
    "before generate_tool: a promoted tool that already answers the request should be called, "
    "not generated again.\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}},"
    "\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,"
    "\"openWorldHint\":false}}",

    "{\"name\":\"generate_tool\",\"title\":\"Generate a tool from a request\","
    "\"description\":\"Turns the user's data-analysis request into a tested tool: generates the "
    "contract and code for the data file, validates them through the quality gates in the "
    "sandbox, stages the candidate and runs it once on the data file. Returns the presentation "
    "of that staged run: the output first, then the tool summary, then two questions. Show the "
    "presentation to the user, then call submit_tool_feedback with stage \\\"output\\\": it asks "
    "the user the first question. A REUSE answer names an existing tool that already fits: "
    "call that instead, with the arguments it gives. When the request leaves one thing open "
    "(which column a word means, how to aggregate), the user is asked through a form; a "
    "QUESTION answer (a client without forms) is for the user: ask them, then call again with "
    "their choice in assume.\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"intent\",\"data_file\"],\"properties\":{"
    "\"intent\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":2000,"
    "\"description\":\"The user's request in their words, e.g. \\\"average tip by day\\\".\"},"
    "\"data_file\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024,"
    "\"description\":\"A CSV file under a data directory, relative to the repository, e.g. "
    "data/tips.csv.\"},"
    "\"assume\":{\"type\":\"array\",\"maxItems\":8,\"items\":{\"type\":\"string\","
    "\"pattern\":\"^[^=]+=.+$\",\"maxLength\":200},"
    "\"description\":\"The user's answers to questions an earlier call returned, as "
    "ABOUT=CHOICE, e.g. \\\"bill=total_bill\\\". Only what the user chose.\"}}},"
    "\"execution\":{\"taskSupport\":\"optional\"},"
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":false,"
    "\"openWorldHint\":false}}",

    "{\"name\":\"run_staged_tool\",\"title\":\"Run a staged tool\","
    "\"description\":\"Runs a STAGED candidate on the user's input and stores the run for review "
    "(run_artifacts.json). Returns the presentation: the output, the tool summary and the two "
    "questions. Show it to the user, then call submit_tool_feedback, which asks them.\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"tool\"],\"properties\":{"
    "\"tool\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{0,63}$\","
    "\"description\":\"The staged tool's name.\"},"
    "\"arguments\":{\"type\":\"object\",\"description\":\"The tool's arguments; default: its "
    "first example's.\"}}},"
    "\"execution\":{\"taskSupport\":\"optional\"},"
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":true,"
    "\"openWorldHint\":false}}",

    "{\"name\":\"submit_tool_feedback\",\"title\":\"Ask the user for their feedback\","
    "\"description\":\"Asks the USER, through the client's form, one of the two questions about a "
    "staged tool and records their answer verbatim. The answer comes only from the user's "
    "form: you cannot answer it, and nothing you pass approves a tool. Stage \\\"output\\\" asks "
    "'is this output correct?' (show the user the presentation first); stage \\\"decision\\\" "
    "asks 'should this be saved as a reusable tool?' and is taken only after an accepted "
    "output. The decision is strict: only a reply starting with approve/approved and free of "
    "but/however/except/although/though approves; anything else rejects the tool. A client "
    "that cannot show forms is told the command the user runs instead.\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"tool\",\"stage\"],\"properties\":{"
    "\"tool\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{0,63}$\"},"
    "\"stage\":{\"enum\":[\"output\",\"decision\"],\"description\":\"output: Stage 1; "
    "decision: Stage 2.\"}}},"
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":false,"
    "\"openWorldHint\":false}}",

    "{\"name\":\"promote_tool\",\"title\":\"Promote an approved tool\","
    "\"description\":\"Promotes a tool the USER approved (submit_tool_feedback, stage decision) "
    "into the active registry as one git commit; refused for a tool that is not APPROVED. "
    "Afterwards the tool is offered by this server and can be called at once.\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"tool\"],\"properties\":{"
    "\"tool\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{0,63}$\"}}},"
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":true,"
    "\"openWorldHint\":false}}",

    "{\"name\":\"reject_tool\",\"title\":\"Reject a candidate, and refine it\","
    "\"description\":\"Rejects a staged candidate (or one the user's decision rejected) with "
    "the USER's notes on what needs improvement, passed VERBATIM (never write them yourself: ask "
    "the user), and archives it with them. With refine true it then generates the tool again "
    "from those notes as its next version, stages it and runs it, and returns the presentation "
    "as generate_tool does, so the review goes on.\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"tool\",\"notes\"],\"properties\":{"
    "\"tool\":{\"type\":\"string\",\"pattern\":\"^[a-z][a-z0-9_]{0,63}$\"},"
    "\"notes\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4000,\"description\":"
    "\"What needs improvement, in the user's words (wrong column, metric, missing filter, ...).\"},"
    "\"refine\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Generate it "
    "again from the notes as the next version.\"}}},"
    "\"execution\":{\"taskSupport\":\"optional\"},"
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,"
    "\"openWorldHint\":false}}",
};

void tg_serve_workflow_init(tg_serve_workflow *w)
{
    _Static_assert(sizeof defs / sizeof *defs == TG_SERVE_WORKFLOW_TOOLS, "one input per tool");
    w->tools = cJSON_CreateArray();
    w->reg = js_registry_new();
    for (size_t i = 0; i < sizeof defs / sizeof *defs; i++) {
        cJSON *t = cJSON_Parse(defs[i]);
        tg_err err = {0};
        w->inputs[i] = t ? js_compile(w->reg, cJSON_GetObjectItemCaseSensitive(t, "inputSchema"),
                                      &(js_options){0}, &err)
                         : NULL;
        if (!w->inputs[i])
            abort(); /* a typo in the table above: caught by every test that lists tools */
        cJSON_AddItemToArray(w->tools, t);
    }
    pthread_mutex_init(&w->mu, NULL);
}

void tg_serve_workflow_release(tg_serve_workflow *w)
{
    if (!w->tools)
        return;
    for (size_t i = 0; i < TG_SERVE_WORKFLOW_TOOLS; i++) {
        js_schema_free(w->inputs[i]);
        w->inputs[i] = NULL;
    }
    js_registry_free(w->reg);
    w->reg = NULL;
    cJSON_Delete(w->tools);
    w->tools = NULL;
    pthread_mutex_destroy(&w->mu);
}
