/*
 * emit_mcp.c — the MCP side of generated/: the Tool object, the tools/list result, the
 * CallToolResult of the golden fixtures and the MCP Bundle manifest. Built on common.h only.
 */
#include "emit/emit_mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* The MCP Bundle manifest points at toolgen on PATH; see docs/emit.md, "mcp/manifest.json". */
#define MCPB_MANIFEST_VERSION "0.4"

/* ---- the Tool object and the tools list ----------------------------------------------------- */

cJSON *tg_emit_mcp_tool(const tg_manifest *m)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", m->name);
    if (m->title)
        cJSON_AddStringToObject(t, "title", m->title);
    char *desc = tg_emit_description(m);
    cJSON_AddStringToObject(t, "description", desc);
    free(desc);
    cJSON_AddItemToObject(t, "inputSchema", tg_emit_mcp_schema(m->input_schema));
    cJSON_AddItemToObject(t, "outputSchema", tg_emit_mcp_schema(m->output_schema));

    /* Hints are spelled out even where they equal MCP's defaults, so a reader of the JSON (and a
     * client that gets the defaults wrong) sees the same facts. */
    cJSON *a = cJSON_AddObjectToObject(t, "annotations");
    if (m->title)
        cJSON_AddStringToObject(a, "title", m->title);
    bool ro = tg_emit_read_only(m);
    bool high = m->risk && strcmp(m->risk, "high") == 0;
    cJSON_AddBoolToObject(a, "readOnlyHint", ro);
    cJSON_AddBoolToObject(a, "destructiveHint", high && !ro);
    cJSON_AddBoolToObject(a, "idempotentHint",
                          m->idempotency && strcmp(m->idempotency, "idempotent") == 0);
    cJSON_AddBoolToObject(a, "openWorldHint", tg_emit_network(m));
    return t;
}

cJSON *tg_emit_mcp_tools_list(const tg_manifest *const *ms, size_t n)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(r, "tools");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(tools, tg_emit_mcp_tool(ms[i]));
    return r;
}

/* ---- calls ---------------------------------------------------------------------------------- */

static void add_text(cJSON *content, const char *text)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "text");
    cJSON_AddStringToObject(block, "text", text);
    cJSON_AddItemToArray(content, block);
}

cJSON *tg_emit_call_result_for(const cJSON *output, const tg_emit_artifacts *a)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    /* summary_markdown is the human-readable rendering, first for clients that show text; the
     * serialised JSON follows, as MCP asks of tools with structured results, so that a client
     * reading only content still gets every field. */
    const char *md = tg_json_get_string(output, "summary_markdown");
    if (md) {
        char *shown = tg_emit_artifact_relink_markdown(md, a);
        add_text(content, shown);
        free(shown);
    }
    char *json = tg_json_print_compact(output);
    add_text(content, json);
    free(json);
    for (size_t i = 0; a && a->base && i < a->n; i++) {
        cJSON *link = cJSON_CreateObject();
        char *uri = tg_emit_artifact_ref(a->base, a->paths[i]);
        cJSON_AddStringToObject(link, "type", "resource_link");
        cJSON_AddStringToObject(link, "uri", uri);
        cJSON_AddStringToObject(link, "name", a->paths[i]);
        cJSON_AddStringToObject(link, "mimeType", tg_emit_artifact_mime(a->paths[i]));
        cJSON_AddItemToArray(content, link);
        free(uri);
    }
    /* The whole output, summary_markdown included: structuredContent must validate against
     * outputSchema, which lists summary_markdown. */
    cJSON_AddItemToObject(r, "structuredContent", cJSON_Duplicate(output, true));
    cJSON_AddBoolToObject(r, "isError", false);
    return r;
}

cJSON *tg_emit_call_result(const cJSON *output)
{
    return tg_emit_call_result_for(output, NULL);
}

cJSON *tg_emit_call_response(const cJSON *output)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(r, "id", 1);
    cJSON_AddItemToObject(r, "result", tg_emit_call_result(output));
    return r;
}

/* ---- the MCP Bundle manifest ---------------------------------------------------------------- */

/* user_config key of a credential variable: the bundle's config keys are lowercase by custom. */
static char *env_key(const char *env)
{
    char *k = xstrdup(env);
    for (char *p = k; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return k;
}

static char *env_users(const tg_emit_fragment *f, size_t n, const char *env)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].p[TG_PIECE_AUTH_ENV].data, env) == 0)
            tg_buf_printf(&b, "%s%s", b.len ? ", " : "", f[i].p[TG_PIECE_NAME].data);
    return tg_buf_steal(&b);
}

static cJSON *bundle_server(const char **envs, size_t nenv)
{
    cJSON *server = cJSON_CreateObject();
    cJSON_AddStringToObject(server, "type", "binary");
    cJSON_AddStringToObject(server, "entry_point", "toolgen");
    cJSON *cfg = cJSON_AddObjectToObject(server, "mcp_config");
    cJSON_AddStringToObject(cfg, "command", "toolgen");
    cJSON *args = cJSON_AddArrayToObject(cfg, "args");
    cJSON_AddItemToArray(args, cJSON_CreateString("-C"));
    cJSON_AddItemToArray(args, cJSON_CreateString("${user_config.repository}"));
    cJSON_AddItemToArray(args, cJSON_CreateString("serve"));
    if (nenv) {
        cJSON *env = cJSON_AddObjectToObject(cfg, "env");
        for (size_t i = 0; i < nenv; i++) {
            char *k = env_key(envs[i]);
            char *v = xasprintf("${user_config.%s}", k);
            cJSON_AddStringToObject(env, envs[i], v);
            free(v);
            free(k);
        }
    }
    return server;
}

static cJSON *bundle_user_config(const tg_emit_fragment *f, size_t n, const char **envs,
                                 size_t nenv)
{
    cJSON *uc = cJSON_CreateObject();
    cJSON *repo = cJSON_AddObjectToObject(uc, "repository");
    cJSON_AddStringToObject(repo, "type", "directory");
    cJSON_AddStringToObject(repo, "title", "toolgen repository");
    cJSON_AddStringToObject(repo, "description",
                            "The repository whose tools toolgen serve runs (it holds "
                            "toolgen.yaml, manifests/ and the data directories).");
    cJSON_AddBoolToObject(repo, "required", true);
    for (size_t i = 0; i < nenv; i++) {
        char *k = env_key(envs[i]);
        char *users = env_users(f, n, envs[i]);
        char *d = xasprintf("Credential for %s, passed to toolgen serve as the environment "
                            "variable %s. Without it those calls fail with UNAUTHORIZED.",
                            users, envs[i]);
        cJSON *e = cJSON_AddObjectToObject(uc, k);
        cJSON_AddStringToObject(e, "type", "string");
        cJSON_AddStringToObject(e, "title", envs[i]);
        cJSON_AddStringToObject(e, "description", d);
        cJSON_AddBoolToObject(e, "required", false);
        cJSON_AddBoolToObject(e, "sensitive", true);
        free(d);
        free(users);
        free(k);
    }
    return uc;
}

/* The tools array, pre-serialised: the pieces at their place (level 2 of the document). */
static char *bundle_tools(const tg_emit_fragment *f, size_t n, size_t *pos)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        tg_buf_puts(&b, i ? ",\n    " : "\n    ");
        if (pos)
            pos[i * TG_PIECE_COUNT + TG_PIECE_BUNDLE_TOOL] = b.len;
        tg_buf_append(&b, f[i].p[TG_PIECE_BUNDLE_TOOL].data, f[i].p[TG_PIECE_BUNDLE_TOOL].len);
    }
    tg_buf_puts(&b, n ? "\n  ]" : "]");
    return tg_buf_steal(&b);
}

cJSON *tg_emit_mcp_bundle_tool(const tg_manifest *m)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", m->name);
    cJSON_AddStringToObject(t, "description", m->description);
    return t;
}

/* What toolgen.yaml's project section adds to the bundle (docs/config.md), when set. */
static void bundle_project(cJSON *b, const tg_project_info *p)
{
    if (p->long_description)
        cJSON_AddStringToObject(b, "long_description", p->long_description);
    if (p->license)
        cJSON_AddStringToObject(b, "license", p->license);
    if (p->repository) {
        cJSON *r = cJSON_AddObjectToObject(b, "repository");
        cJSON_AddStringToObject(r, "type", "git");
        cJSON_AddStringToObject(r, "url", p->repository);
    }
    if (p->homepage)
        cJSON_AddStringToObject(b, "homepage", p->homepage);
    if (p->privacy_policies)
        cJSON_AddItemToObject(b, "privacy_policies", cJSON_Duplicate(p->privacy_policies, true));
}

/* The raw tools array is printed as is after the top-level key (two spaces in: no string
 * value holds a line break), so its pieces' offsets move by where that key ends. */
static void place_tools(const char *text, size_t n, size_t *pos)
{
    static const char key[] = "\n  \"tools\": ";
    const char *at = strstr(text, key);
    for (size_t i = 0; pos && i < n; i++) {
        size_t *p = &pos[i * TG_PIECE_COUNT + TG_PIECE_BUNDLE_TOOL];
        if (*p != TG_EMIT_NOWHERE && at)
            *p += (size_t)(at - text) + sizeof key - 1;
        else
            *p = TG_EMIT_NOWHERE;
    }
}

char *tg_emit_mcp_bundle(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                         size_t *pos)
{
    const char **envs;
    size_t nenv = tg_emit_fragment_envs(f, n, &envs);
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "manifest_version", MCPB_MANIFEST_VERSION);
    cJSON_AddStringToObject(b, "name", repo->name);
    cJSON_AddStringToObject(b, "version", repo->version);
    cJSON_AddStringToObject(b, "description", tg_emit_repo_description(repo));
    cJSON *author = cJSON_AddObjectToObject(b, "author");
    cJSON_AddStringToObject(author, "name", repo->author ? repo->author : "toolgen");
    bundle_project(b, repo);
    cJSON_AddItemToObject(b, "server", bundle_server(envs, nenv));
    char *tools = bundle_tools(f, n, pos);
    cJSON_AddItemToObject(b, "tools", cJSON_CreateRaw(tools));
    free(tools);
    /* The list is fixed at build time: toolgen serve lists exactly these tools. */
    cJSON_AddBoolToObject(b, "tools_generated", false);
    cJSON *kw = cJSON_AddArrayToObject(b, "keywords");
    cJSON_AddItemToArray(kw, cJSON_CreateString("toolgen"));
    cJSON_AddItemToArray(kw, cJSON_CreateString("mcp"));
    /* The sandbox (bubblewrap, rlimits) is Linux-only. */
    cJSON *compat = cJSON_AddObjectToObject(b, "compatibility");
    cJSON *plat = cJSON_AddArrayToObject(compat, "platforms");
    cJSON_AddItemToArray(plat, cJSON_CreateString("linux"));
    cJSON_AddItemToObject(b, "user_config", bundle_user_config(f, n, envs, nenv));
    free(envs);
    char *text = tg_json_print(b);
    cJSON_Delete(b);
    place_tools(text, n, pos);
    return text;
}
