/* core.c — the MCP protocol core: message checks, era selection, dispatch (core.h). */
#include "serve/core.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errcode.h"
#include "base/json.h"
#include "base/util.h"
#include "base/version.h"
#include "serve/clientlog.h"
#include "serve/content.h"
#include "serve/declared.h"
#include "serve/tasks.h"

const tg_json_limits tg_serve_message_limits = {.pairs_only = true};

const char *const tg_serve_legacy_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                "2024-11-05", NULL};


#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER "io.modelcontextprotocol/serverInfo"

bool tg_serve_listens(const tg_serve_config *c)
{
    return c->list_changed || (c->declared && c->declared->n);
}

const char *tg_serve_era_name(tg_serve_era e)
{
    return e == TG_ERA_LEGACY ? "legacy" : e == TG_ERA_MODERN ? TG_SERVE_MODERN_VERSION : "";
}

/* ---- replies -------------------------------------------------------------------------------- */

static cJSON *envelope(const cJSON *id)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    /* MCP's JSONRPCErrorResponse makes id optional but never null (JSON-RPC 2.0 would send
     * null): an error about a message whose id is unknown has none. */
    if (id)
        cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, true));
    return r;
}

/* An error reply with data (taken; may be NULL). */
static cJSON *error_with(const cJSON *id, int code, const char *message, cJSON *data)
{
    cJSON *r = envelope(id);
    cJSON *e = cJSON_AddObjectToObject(r, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    if (data)
        cJSON_AddItemToObject(e, "data", data);
    return r;
}

cJSON *tg_serve_error_reply(const cJSON *id, int code, const char *message)
{
    return error_with(id, code, message, NULL);
}

/* Replies with an error and notes its code for the log. */
static cJSON *fail(tg_serve_log *log, const cJSON *id, int code, const char *fmt, ...)
    TG_PRINTF(4, 5);

static cJSON *fail(tg_serve_log *log, const cJSON *id, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log->rpc_error = code;
    return error_with(id, code, msg, NULL);
}

static cJSON *server_info(void)
{
    cJSON *i = cJSON_CreateObject();
    cJSON_AddStringToObject(i, "name", "toolgen");
    cJSON_AddStringToObject(i, "title", "toolgen serve");
    cJSON_AddStringToObject(i, "version", TOOLGEN_VERSION);
    return i;
}

/* The reply carrying result (taken); a 2026-07-28 result gets resultType and the server's
 * identity in _meta, a cacheable one (ttl_ms >= 0) also ttlMs and cacheScope. */
static cJSON *result_reply(const cJSON *id, tg_serve_era era, cJSON *result, long ttl_ms)
{
    if (era == TG_ERA_MODERN) {
        if (!cJSON_GetObjectItemCaseSensitive(result, "resultType")) /* else input_required */
            cJSON_AddStringToObject(result, "resultType", "complete");
        cJSON *meta = cJSON_AddObjectToObject(result, "_meta");
        cJSON_AddItemToObject(meta, META_SERVER, server_info());
        if (ttl_ms >= 0) {
            cJSON_AddNumberToObject(result, "ttlMs", (double)ttl_ms);
            /* the tool set is the working tree's: never share it across users */
            cJSON_AddStringToObject(result, "cacheScope", "private");
        }
    }
    cJSON *r = envelope(id);
    cJSON_AddItemToObject(r, "result", result);
    return r;
}

/* ---- methods -------------------------------------------------------------------------------- */

static cJSON *capabilities(const tg_serve_config *c, tg_serve_era era)
{
    cJSON *caps = cJSON_CreateObject();
    cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
    cJSON *res = c->resources ? cJSON_AddObjectToObject(caps, "resources") : NULL;
    if (era == TG_ERA_LEGACY) {
        cJSON_AddBoolToObject(tools, "listChanged", c->list_changed & TG_CHANGED_TOOLS);
        if (res) {
            cJSON_AddBoolToObject(res, "subscribe", c->declared && c->declared->n);
            cJSON_AddBoolToObject(res, "listChanged", c->list_changed & TG_CHANGED_RESOURCES);
        }
        cJSON_AddObjectToObject(caps, "logging"); /* logging/setLevel is accepted */
    }
    if (c->prompts) {
        cJSON *p = cJSON_AddObjectToObject(caps, "prompts");
        if (era == TG_ERA_LEGACY)
            cJSON_AddBoolToObject(p, "listChanged", c->list_changed & TG_CHANGED_PROMPTS);
    }
    if (c->completion)
        cJSON_AddObjectToObject(caps, "completions");
    if (era == TG_ERA_MODERN && (c->list_changed & TG_CHANGED_TOOLS)) /* subscriptions/listen */
        cJSON_AddBoolToObject(tools, "listChanged", true);
    if (era == TG_ERA_MODERN && res && (c->list_changed & TG_CHANGED_RESOURCES))
        cJSON_AddBoolToObject(res, "listChanged", true);
    if (era == TG_ERA_MODERN && res && c->declared && c->declared->n) /* resourceSubscriptions */
        cJSON_AddBoolToObject(res, "subscribe", true);
    if (era == TG_ERA_MODERN && c->tasks) /* docs/mcp.md#tasks */
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "extensions"), TG_TASKS_EXTENSION);
    return caps;
}

/* What a client's capabilities say it can be asked (TG_CLIENT_*). */
static unsigned client_can(const cJSON *caps)
{
    static const struct { const char *name; unsigned bit; } kinds[] = {
        {"elicitation", TG_CLIENT_ELICITS}, {"sampling", TG_CLIENT_SAMPLES}, {"roots", TG_CLIENT_ROOTS}};
    unsigned can = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, kinds[i].name)))
            can |= kinds[i].bit;
    return can;
}

static cJSON *do_initialize(const tg_serve_config *c, tg_serve_session *s, const cJSON *id,
                            const cJSON *params, tg_serve_log *log)
{
    if (s->initialized)
        return fail(log, id, TG_RPC_INVALID_REQUEST, "initialize was already answered on this "
                                                     "connection (version %s)", s->version);
    const char *asked = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "protocolVersion"));
    if (!asked)
        return fail(log, id, TG_RPC_INVALID_PARAMS, "initialize: params.protocolVersion (a string) "
                                                    "is required");
    /* The client's version when we speak it, else our newest legacy one: the client decides
     * whether it can live with that (2025-11-25 basic/lifecycle, "Version Negotiation"). */
    const char *version = tg_serve_legacy_versions[0];
    for (size_t i = 0; tg_serve_legacy_versions[i]; i++)
        if (strcmp(asked, tg_serve_legacy_versions[i]) == 0)
            version = tg_serve_legacy_versions[i];
    s->initialized = true;
    snprintf(s->version, sizeof s->version, "%s", version);
    s->client_can = client_can(cJSON_GetObjectItemCaseSensitive(params, "capabilities"));
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "clientInfo");
    const char *cname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "name"));
    const char *cver = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "version"));
    snprintf(s->client_name, sizeof s->client_name, "%s", cname ? cname : "");
    snprintf(s->client_version, sizeof s->client_version, "%s", cver ? cver : "");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", version);
    cJSON_AddItemToObject(r, "capabilities", capabilities(c, TG_ERA_LEGACY));
    cJSON_AddItemToObject(r, "serverInfo", server_info());
    if (c->instructions)
        cJSON_AddStringToObject(r, "instructions", c->instructions);
    return result_reply(id, TG_ERA_LEGACY, r, -1);
}

static cJSON *do_discover(const tg_serve_config *c, const cJSON *id)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *v = cJSON_AddArrayToObject(r, "supportedVersions");
    cJSON_AddItemToArray(v, cJSON_CreateString(TG_SERVE_MODERN_VERSION));
    cJSON_AddItemToObject(r, "capabilities", capabilities(c, TG_ERA_MODERN));
    if (c->instructions)
        cJSON_AddStringToObject(r, "instructions", c->instructions);
    return result_reply(id, TG_ERA_MODERN, r, c->list_ttl_ms);
}

static cJSON *do_set_level(tg_serve_session *s, const cJSON *id,
                           const cJSON *params, tg_serve_log *log)
{
    const char *level = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "level"));
    if (tg_serve_log_level(level) >= 0) {
        snprintf(s->log_level, sizeof s->log_level, "%s", level);
        return result_reply(id, TG_ERA_LEGACY, cJSON_CreateObject(), -1);
    }
    return fail(log, id, TG_RPC_INVALID_PARAMS, "logging/setLevel: params.level must be one of "
                                                "debug, info, notice, warning, error, critical, "
                                                "alert, emergency");
}

static cJSON *do_tools_call(const tg_serve_rx *rx, const cJSON *params, tg_serve_log *log);
static cJSON *outcome_reply(const cJSON *id, tg_serve_era era, tg_serve_outcome *o,
                            tg_serve_log *log);
static cJSON *do_tools_list(const tg_serve_rx *rx, const cJSON *params, tg_serve_log *log);

/* Cursors are opaque to clients; ours is "tg1." and the offset of the page's first tool. */
static bool parse_cursor(const char *cursor, size_t n, size_t *offset)
{
    if (strncmp(cursor, "tg1.", 4) != 0 || cursor[4] < '0' || cursor[4] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(cursor + 4, &end, 10);
    if (errno || *end || v == 0 || v >= n)
        return false;
    *offset = (size_t)v;
    return true;
}

/* The page [*offset, *end) of a list of n items that params.cursor asks for; an error reply
 * when the cursor is not one we issued. */
static cJSON *page_of(const tg_serve_config *c, const cJSON *id, const cJSON *params, size_t n,
                      size_t *offset, size_t *end, tg_serve_log *log)
{
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    *offset = 0;
    if (cursor && !(cJSON_IsString(cursor) && parse_cursor(cursor->valuestring, n, offset)))
        return fail(log, id, TG_RPC_INVALID_PARAMS, "%s: invalid cursor (pass back the nextCursor "
                                                    "of the previous page, unchanged)", log->method);
    size_t page = c->page_size ? c->page_size : TG_SERVE_PAGE_SIZE;
    *end = n - *offset > page ? *offset + page : n;
    return NULL;
}

static void add_next_cursor(cJSON *r, size_t end, size_t n)
{
    if (end < n) {
        char next[32];
        snprintf(next, sizeof next, "tg1.%zu", end);
        cJSON_AddStringToObject(r, "nextCursor", next);
    }
}

/* ---- tools: the providers (serve/provider.h) ---------------------------------------------- */

/* Who asks: the transport says so for every era; without it, the legacy session. */
static uint64_t client_of(const tg_serve_session *s, const tg_serve_reqctx *rq)
{
    return rq && rq->client ? rq->client : s ? s->client : 0;
}

/* A request as the providers see it. */
static tg_serve_rx request_of(const tg_serve_config *c, tg_serve_session *s, const cJSON *id,
                              tg_serve_era era, const cJSON *params, const tg_serve_reqctx *rq)
{
    tg_serve_rx rx = {.c = c, .s = s, .id = id, .params = params, .era = era, .how = c->call};
    if (rq && rq->cancel)
        rx.how.cancel = rq->cancel;
    rx.how.dispatch = rq ? rq->dispatch : NULL;
    rx.how.client = client_of(s, rq);
    rx.how.revision = era == TG_ERA_MODERN ? TG_SERVE_MODERN_VERSION
                      : s && s->initialized ? s->version : NULL;
    rx.how.slot = rq ? rq->slot : NULL;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (era == TG_ERA_MODERN) { /* what this request says; the era's checks passed */
        rx.how.client_can = client_can(cJSON_GetObjectItemCaseSensitive(meta, META_CAPS));
        const cJSON *level = cJSON_GetObjectItemCaseSensitive(meta, TG_META_LOG_LEVEL);
        rx.how.log_level = level ? tg_serve_log_level(level->valuestring) : TG_LOG_OFF;
    } else {
        rx.how.client_can = s ? s->client_can : 0;
        rx.how.log_level = s && s->log_level[0] ? tg_serve_log_level(s->log_level)
                                                : TG_LOG_LEGACY_DEFAULT;
    }
    return rx;
}

/* The provider before `upto` that has name, if any: its tool hides the others'. */
static bool hidden(const tg_serve_rx *rx, size_t upto, const char *name)
{
    tg_serve_entry e;
    for (size_t i = 0; i < upto; i++) {
        const tg_serve_provider *p = &rx->c->providers[i];
        if (p->find(p->self, rx, name, &e))
            return true;
    }
    return false;
}

typedef struct listing {
    const tg_serve_rx *rx;
    size_t provider; /* the one listing now */
    const cJSON **v;
    size_t n, cap;
} listing;

static void add_listed(void *ud, const char *name, const cJSON *tool)
{
    listing *l = ud;
    if (l->provider && hidden(l->rx, l->provider, name))
        return;
    if (l->n == l->cap)
        l->v = xrealloc(l->v, (l->cap = l->cap ? l->cap * 2 : 64) * sizeof *l->v);
    l->v[l->n++] = tool;
}

static cJSON *do_tools_list(const tg_serve_rx *rx, const cJSON *params, tg_serve_log *log)
{
    const tg_serve_config *c = rx->c;
    listing l = {.rx = rx};
    for (l.provider = 0; l.provider < c->n_providers; l.provider++) {
        const tg_serve_provider *p = &c->providers[l.provider];
        p->list(p->self, rx, add_listed, &l);
    }
    size_t offset, end;
    cJSON *bad = page_of(c, rx->id, params, l.n, &offset, &end, log);
    if (bad) {
        free(l.v);
        return bad;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(r, "tools");
    for (size_t i = offset; i < end; i++) {
        cJSON *t = cJSON_Duplicate(l.v[i], true);
        /* taskSupport is the 2026-07-28 extension's; the legacy era's own tasks (2025-11-25,
         * capabilities.tasks) are not offered, so legacy clients are not told of it */
        if (rx->era == TG_ERA_LEGACY)
            cJSON_DeleteItemFromObjectCaseSensitive(t, "execution");
        cJSON_AddItemToArray(tools, t);
    }
    free(l.v);
    add_next_cursor(r, end, l.n);
    return result_reply(rx->id, rx->era, r, c->list_ttl_ms);
}

/* ---- resources ------------------------------------------------------------------------------ */

static cJSON *resource_json(const char *uri, const char *name, const char *description,
                            const char *mime, long long size)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "uri", uri);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "description", description);
    cJSON_AddStringToObject(o, "mimeType", mime);
    cJSON_AddNumberToObject(o, "size", (double)size);
    return o;
}

/* The generated resources, then the ones the repository declares, then the files the
 * client's calls wrote that are still kept. */
static cJSON *do_resources_list(const tg_serve_config *c, const cJSON *id, tg_serve_era era,
                                const cJSON *params, uint64_t client, tg_serve_log *log)
{
    const tg_serve_artifacts *all = c->call.artifacts;
    const tg_serve_artifact **mine = xcalloc(all ? all->n + 1 : 1, sizeof *mine);
    size_t n_mine = 0;
    for (size_t i = 0; all && i < all->n; i++)
        if (tg_serve_artifact_listed(&all->v[i], client))
            mine[n_mine++] = &all->v[i];
    size_t ng = c->resources->n, nd = tg_serve_declared_count(c->declared);
    size_t ns = ng + nd, n = ns + n_mine, offset, end;
    cJSON *bad = page_of(c, id, params, n, &offset, &end, log);
    if (bad) {
        free(mine);
        return bad;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(r, "resources");
    for (size_t i = offset; i < end; i++) {
        if (i < ng) {
            const tg_serve_resource *res = &c->resources->v[i];
            cJSON_AddItemToArray(list, resource_json(res->uri, res->name, res->description,
                                                     res->mime, (long long)strlen(res->text)));
        } else if (i < ns) {
            cJSON_AddItemToArray(list, tg_serve_declared_resource(c->declared, i - ng));
        } else {
            const tg_serve_artifact *f = mine[i - ns];
            char desc[96];
            snprintf(desc, sizeof desc, "A file tool call %u wrote (kept for the last calls only).",
                     f->call);
            cJSON_AddItemToArray(list, resource_json(f->uri, f->name, desc, f->mime, f->size));
        }
    }
    add_next_cursor(r, end, n);
    free(mine);
    /* kept files come and go with calls: such a list is stale at once */
    return result_reply(id, era, r, n_mine ? 0 : c->list_ttl_ms);
}

/* The contents of a kept file: text for text types in UTF-8, else base64. NULL: unreadable. */
static cJSON *artifact_contents(const tg_serve_artifact *f)
{
    size_t len = 0;
    tg_err err = {0};
    char *data = tg_read_file(f->file, 64u << 20, &len, &err);
    if (!data)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "uri", f->uri);
    cJSON_AddStringToObject(o, "mimeType", f->mime);
    bool textual = tg_str_startswith(f->mime, "text/") || strcmp(f->mime, "application/json") == 0;
    if (textual && strlen(data) == len && tg_utf8_validate(data, len, &err) == 0) {
        cJSON_AddStringToObject(o, "text", data);
    } else {
        char *b64 = tg_serve_base64((const unsigned char *)data, len);
        cJSON_AddStringToObject(o, "blob", b64);
        free(b64);
    }
    free(data);
    return o;
}

static void add_template(cJSON *list, const char *uri, const char *name, const char *desc,
                         const char *mime)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "uriTemplate", uri);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "description", desc);
    cJSON_AddStringToObject(o, "mimeType", mime);
    cJSON_AddItemToArray(list, o);
}

static cJSON *do_templates_list(const tg_serve_config *c, const cJSON *id, tg_serve_era era,
                                const cJSON *params, tg_serve_log *log)
{
    if (cJSON_GetObjectItemCaseSensitive(params, "cursor"))
        return fail(log, id, TG_RPC_INVALID_PARAMS, "resources/templates/list: invalid cursor "
                                                    "(the list has one page)");
    cJSON *r = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(r, "resourceTemplates");
    add_template(list, TG_SERVE_RESOURCE_PREFIX "{tool}/input.schema.json", "input schema",
                 "JSON Schema of a tool's arguments; {tool} is its name.", "application/schema+json");
    add_template(list, TG_SERVE_RESOURCE_PREFIX "{tool}/output.schema.json", "output schema",
                 "JSON Schema of a tool's result; {tool} is its name.", "application/schema+json");
    if (c->resources->skill_dir) {
        char *uri = xasprintf(TG_SERVE_RESOURCE_PREFIX "%s/references/{tool}.md",
                              c->resources->skill_dir);
        add_template(list, uri, "reference page",
                     "A tool's reference page in the Agent Skill; {tool} is its name.", "text/markdown");
        free(uri);
    }
    tg_serve_declared_list(c->declared, NULL, list);
    return result_reply(id, era, r, c->list_ttl_ms);
}

/* Resource not found (-32602 in 2026-07-28, -32002 before), with the URI in data as the
 * revisions advise; why (NULL: none) says why a declared resource cannot be read. */
static cJSON *not_found(const cJSON *id, tg_serve_era era, const char *uri, const char *why,
                        tg_serve_log *log)
{
    char *msg = xasprintf("Resource not found: %.300s%s%s", uri, why ? ": " : "",
                          why ? why : tg_str_startswith(uri, TG_SERVE_ARTIFACT_PREFIX)
                              ? " (the files of older calls are deleted, and a file is read back "
                                "only by the client whose call wrote it)" : "");
    cJSON *data = cJSON_CreateObject();
    cJSON_AddStringToObject(data, "uri", uri);
    log->rpc_error = era == TG_ERA_MODERN ? TG_RPC_INVALID_PARAMS : TG_RPC_RESOURCE_NOT_FOUND_LEGACY;
    cJSON *r = error_with(id, log->rpc_error, msg, data);
    free(msg);
    return r;
}

/* resources/subscribe and resources/unsubscribe of a legacy session: the declared resources
 * can be watched (serve/declared.h); notifications/resources/updated follow their changes. */
static cJSON *do_subscribe(const tg_serve_config *c, tg_serve_session *s, const cJSON *id,
                           const cJSON *params, bool on, tg_serve_log *log)
{
    const char *uri = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "uri"));
    if (!uri)
        return fail(log, id, TG_RPC_INVALID_PARAMS, "%s: params.uri (a string) is required",
                    log->method);
    cJSON *subs = s->res_subs;
    int at = -1;
    for (int i = 0; i < cJSON_GetArraySize(subs); i++)
        if (strcmp(cJSON_GetArrayItem(subs, i)->valuestring, uri) == 0)
            at = i;
    if (!on) {
        if (at >= 0)
            cJSON_DeleteItemFromArray(subs, at);
        return result_reply(id, TG_ERA_LEGACY, cJSON_CreateObject(), -1);
    }
    if (!c->declared || !tg_serve_declared_has(c->declared, uri))
        return tg_serve_resources_find(c->resources, uri)
                   ? fail(log, id, TG_RPC_INVALID_PARAMS, "resources/subscribe: %.300s changes "
                          "only with the tool set, which notifications/resources/list_changed "
                          "announces; the resources a repository declares can be subscribed to",
                          uri)
                   : not_found(id, TG_ERA_LEGACY, uri, NULL, log);
    if (at < 0 && (cJSON_GetArraySize(subs) >= TG_SERVE_MAX_RES_SUBS ||
                   !tg_serve_declared_watch(c->declared, uri)))
        return fail(log, id, TG_RPC_INVALID_PARAMS, "resources/subscribe: too many subscriptions; "
                                                    "unsubscribe from some first");
    if (at < 0) {
        if (!s->res_subs)
            s->res_subs = cJSON_CreateArray();
        cJSON_AddItemToArray(s->res_subs, cJSON_CreateString(uri));
    }
    return result_reply(id, TG_ERA_LEGACY, cJSON_CreateObject(), -1);
}

static cJSON *do_resources_read(const tg_serve_config *c, const cJSON *id, tg_serve_era era,
                                const cJSON *params, uint64_t client, tg_serve_log *log)
{
    const char *uri = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "uri"));
    if (!uri)
        return fail(log, id, TG_RPC_INVALID_PARAMS, "resources/read: params.uri (a string) is required");
    const tg_serve_resource *res = tg_serve_resources_find(c->resources, uri);
    cJSON *o = NULL;
    char why[300] = "";
    int declared = res ? 0 : tg_serve_declared_read(c->declared, uri, &o, why, sizeof why);
    const tg_serve_artifact *f = res || declared ? NULL
                                                 : tg_serve_artifacts_find(c->call.artifacts, uri);
    if (f && !tg_serve_artifact_readable(f, client))
        f = NULL; /* another client's: as if it did not exist */
    if (res) {
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "uri", res->uri);
        cJSON_AddStringToObject(o, "mimeType", res->mime);
        cJSON_AddStringToObject(o, "text", res->text);
    } else if (f) {
        o = artifact_contents(f);
    }
    if (declared < 0 || !o)
        return not_found(id, era, uri, declared < 0 ? why : NULL, log);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "contents"), o);
    return result_reply(id, era, r, c->list_ttl_ms);
}

/* ---- prompts and completion (serve/prompts.h, serve/complete.h) ----------------------------- */

static cJSON *do_prompts_list(const tg_serve_config *c, const cJSON *id, tg_serve_era era,
                              const cJSON *params, tg_serve_log *log)
{
    size_t n = c->prompts->n, offset, end;
    cJSON *bad = page_of(c, id, params, n, &offset, &end, log);
    if (bad)
        return bad;
    cJSON *r = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(r, "prompts");
    for (size_t i = offset; i < end; i++)
        cJSON_AddItemToArray(list, tg_serve_prompt_json(&c->prompts->v[i]));
    add_next_cursor(r, end, n);
    return result_reply(id, era, r, c->list_ttl_ms);
}

/* The reply an outcome of serve/mrtr.h's parts comes to outside a tool call: a question the
 * user declined is -32602 (there is no tool result to carry it). */
static cJSON *asked_reply(const cJSON *id, tg_serve_outcome *o, tg_serve_log *log)
{
    if (o->result && o->code) {
        const char *text = tg_json_get_string(cJSON_GetArrayItem(tg_json_get(o->result, "content"), 0),
                                              "text");
        cJSON *r = fail(log, id, TG_RPC_INVALID_PARAMS, "%s", text ? text : "declined");
        cJSON_Delete(o->result);
        return r;
    }
    return outcome_reply(id, TG_ERA_MODERN, o, log);
}

/* A copy of a prompt's arguments with the user's answers joined (as text). */
static cJSON *with_answers(const cJSON *args, const cJSON *answers)
{
    cJSON *all = cJSON_IsObject(args) ? cJSON_Duplicate(args, true) : cJSON_CreateObject();
    for (const cJSON *a = answers ? answers->child : NULL; a; a = a->next) {
        char *text = cJSON_IsString(a) ? xstrdup(a->valuestring) : tg_json_print_compact(a);
        if (!cJSON_GetObjectItemCaseSensitive(all, a->string))
            cJSON_AddStringToObject(all, a->string, text);
        free(text);
    }
    return all;
}

/* prompts/get of a 2026-07-28 client: the arguments with a question (`ask:`) that the request
 * does not give are asked of the user (input_required, serve/mrtr.h) and then join the
 * others. NULL when the prompt asks nothing: the plain prompts/get answers. */
static cJSON *prompt_asking(const tg_serve_config *c, const cJSON *id, const cJSON *params,
                            tg_serve_log *log)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
    const tg_serve_prompt *p = name ? tg_serve_prompts_find(c->prompts, name) : NULL;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    cJSON *none = NULL;
    bool asks = false;
    for (size_t i = 0; p && i < p->n_args; i++)
        asks = asks || p->args[i].ask;
    if (!asks || !c->mrtr || (args && !cJSON_IsObject(args)))
        return NULL;
    if (!args)
        args = none = cJSON_CreateObject();
    char *who = xasprintf("prompt %s", name);
    tg_serve_outcome o = {0};
    cJSON *r = NULL, *answers = tg_serve_mrtr_retry_answers(c->mrtr, who, NULL, args, params, &o);
    cJSON *all = answers ? with_answers(args, answers) : NULL;
    cJSON *qs = all ? tg_serve_prompt_questions(p, all) : NULL;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (qs)
        tg_serve_mrtr_need(c->mrtr, who, client_can(cJSON_GetObjectItemCaseSensitive(meta, META_CAPS)),
                           args, answers, qs, &o);
    if (!answers || qs) {
        r = asked_reply(id, &o, log);
    } else {
        cJSON *filled = cJSON_Duplicate(params, true);
        /* params may have no arguments to replace (the prompt's are all asked) */
        cJSON_DeleteItemFromObjectCaseSensitive(filled, "arguments");
        cJSON_AddItemToObject(filled, "arguments", cJSON_Duplicate(all, true));
        char why[512] = "";
        cJSON *got = tg_serve_prompt_get(c->prompts, filled, why, sizeof why);
        r = got ? result_reply(id, TG_ERA_MODERN, got, -1)
                : fail(log, id, TG_RPC_INVALID_PARAMS, "%s", why);
        cJSON_Delete(filled);
    }
    cJSON_Delete(qs);
    cJSON_Delete(all);
    cJSON_Delete(answers);
    cJSON_Delete(none);
    free(who);
    return r;
}

/* prompts/get, completion/complete: the module answers, or says why params do not fit. */
static cJSON *dispatch_extra(const tg_serve_config *c, const cJSON *id, tg_serve_era era,
                             const char *method, const cJSON *params, tg_serve_log *log)
{
    char why[512] = "";
    cJSON *r;
    if (c->prompts && strcmp(method, "prompts/list") == 0)
        return do_prompts_list(c, id, era, params, log);
    if (c->prompts && strcmp(method, "prompts/get") == 0 && era == TG_ERA_MODERN &&
        (r = prompt_asking(c, id, params, log)))
        return r;
    if (c->prompts && strcmp(method, "prompts/get") == 0)
        r = tg_serve_prompt_get(c->prompts, params, why, sizeof why);
    else if (c->completion && strcmp(method, "completion/complete") == 0)
        r = tg_serve_complete(c->completion, params, why, sizeof why);
    else
        return NULL;
    return r ? result_reply(id, era, r, -1) : fail(log, id, TG_RPC_INVALID_PARAMS, "%s", why);
}

/* The methods both eras share; NULL when method is none of them. */
static cJSON *dispatch_common(const tg_serve_config *c, tg_serve_session *s, const cJSON *id,
                              tg_serve_era era, const char *method, const cJSON *params,
                              tg_serve_log *log, const tg_serve_reqctx *rq)
{
    if (strcmp(method, "tools/list") == 0 || strcmp(method, "tools/call") == 0) {
        tg_serve_rx rx = request_of(c, s, id, era, params, rq);
        return method[6] == 'l' ? do_tools_list(&rx, params, log) : do_tools_call(&rx, params, log);
    }
    cJSON *extra = dispatch_extra(c, id, era, method, params, log);
    if (extra)
        return extra;
    if (!c->resources)
        return NULL;
    if (strcmp(method, "resources/list") == 0)
        return do_resources_list(c, id, era, params, client_of(s, rq), log);
    if (strcmp(method, "resources/read") == 0)
        return do_resources_read(c, id, era, params, client_of(s, rq), log);
    if (strcmp(method, "resources/templates/list") == 0)
        return do_templates_list(c, id, era, params, log);
    return NULL;
}

/* The reply a call's outcome calls for. */
static cJSON *outcome_reply(const cJSON *id, tg_serve_era era, tg_serve_outcome *o,
                            tg_serve_log *log)
{
    log->tool_error = o->code;
    if (o->rpc_error && o->rpc_data) {
        log->rpc_error = o->rpc_error;
        return error_with(id, o->rpc_error, o->msg, o->rpc_data);
    }
    if (o->rpc_error)
        return fail(log, id, o->rpc_error, "%s", o->msg);
    return result_reply(id, era, o->result, -1);
}

/* The core's checks of a call, the same for every provider: read-only mode admits the tool
 * and the arguments fit its inputSchema. NULL when they pass, else the tool error result. */
static cJSON *refuse_call(const tg_serve_rx *rx, const tg_serve_entry *e, const cJSON *args,
                          const char **code)
{
    if (rx->how.read_only && e->writes) {
        *code = tg_errcode_name(TG_ERR_FORBIDDEN);
        char *msg = xasprintf("%s is not read-only and the server runs in read-only mode "
                              "(--read-only or READ_ONLY=1); use a read-only tool, or ask the "
                              "user to restart the server without read-only mode", e->name);
        cJSON *r = tg_serve_error_result(e->output, *code, msg);
        free(msg);
        return r;
    }
    js_errors errs = {0};
    cJSON *r = NULL;
    if (e->input && !js_validate(e->input, args, &errs)) {
        *code = tg_errcode_name(TG_ERR_INVALID_INPUT);
        r = tg_serve_input_error_result(e->output, &errs);
    }
    js_errors_free(&errs);
    return r;
}

/*
 * A 2026-07-28 call of a task-supporting tool (serve/tasks.h): the CreateTaskResult reply of a
 * task for it, or MissingRequiredClientCapability when the tool needs one and the client did
 * not declare the extension; NULL when the call runs in the foreground (no task support, a
 * client without the extension, a task's own run, the first round of a tool that asks first,
 * or no room for another task).
 */
static cJSON *as_task(const tg_serve_rx *rx, const tg_serve_entry *e, const cJSON *params,
                      tg_serve_log *log)
{
    tg_serve_tasks *tasks = rx->c->tasks;
    int support = tg_serve_task_support(e->tool);
    if (rx->era != TG_ERA_MODERN || !tasks || !support || tg_serve_tasks_is_run(tasks, rx->id))
        return NULL;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (!tg_serve_tasks_declared(cJSON_GetObjectItemCaseSensitive(meta, META_CAPS))) {
        if (support < 2)
            return NULL;
        log->rpc_error = TG_RPC_MISSING_CAPABILITY;
        char *msg = xasprintf("%s runs only as a task: declare the " TG_TASKS_EXTENSION
                              " extension in the request's client capabilities", e->name);
        cJSON *r = error_with(rx->id, TG_RPC_MISSING_CAPABILITY, msg,
                              tg_serve_tasks_required_data());
        free(msg);
        return r;
    }
    if (!rx->how.dispatch ||
        (e->task_asks_first && !cJSON_GetObjectItemCaseSensitive(params, "inputResponses")))
        return NULL;
    cJSON *created = tg_serve_tasks_start(tasks, rx->how.dispatch, params);
    return created ? result_reply(rx->id, TG_ERA_MODERN, created, -1) : NULL;
}

static cJSON *do_tools_call(const tg_serve_rx *rx, const cJSON *params, tg_serve_log *log)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
    if (!name)
        return fail(log, rx->id, TG_RPC_INVALID_PARAMS, "tools/call: params.name (a string) is "
                                                        "required");
    snprintf(log->tool, sizeof log->tool, "%s", name);
    const tg_serve_provider *p = NULL;
    tg_serve_entry e;
    for (size_t i = 0; i < rx->c->n_providers && !p; i++)
        if (rx->c->providers[i].find(rx->c->providers[i].self, rx, name, &e))
            p = &rx->c->providers[i];
    if (!p)
        return fail(log, rx->id, TG_RPC_INVALID_PARAMS, "Unknown tool: %.200s", name);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    cJSON *empty = NULL;
    if (!args)
        args = empty = cJSON_CreateObject();
    else if (!cJSON_IsObject(args))
        return fail(log, rx->id, TG_RPC_INVALID_PARAMS, "tools/call: params.arguments must be an "
                                                        "object");
    tg_serve_outcome o = {0};
    o.result = refuse_call(rx, &e, args, &o.code);
    cJSON *task = o.result ? NULL : as_task(rx, &e, params, log);
    if (task) {
        cJSON_Delete(empty);
        return task;
    }
    if (!o.result)
        p->call(p->self, rx, &e, args, &o);
    /* blocks a client's revision does not know (audio, resource_link) are left out */
    tg_serve_content_fit(cJSON_GetObjectItemCaseSensitive(o.result, "content"), rx->how.revision);
    cJSON_Delete(empty);
    return outcome_reply(rx->id, rx->era, &o, log);
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/* The URIs of a listen filter's resourceSubscriptions that name declared resources, now
 * watched (serve/declared.h); the others are not honoured. NULL: none. */
static cJSON *watch_listed(const tg_serve_config *c, const cJSON *params)
{
    const cJSON *asked = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "notifications"), "resourceSubscriptions");
    cJSON *watched = NULL;
    const cJSON *u;
    for (u = cJSON_IsArray(asked) ? asked->child : NULL; u; u = u->next) {
        if (!cJSON_IsString(u) || !c->declared || cJSON_GetArraySize(watched) >= TG_SERVE_MAX_RES_SUBS ||
            !tg_serve_declared_watch(c->declared, u->valuestring))
            continue;
        if (!watched)
            watched = cJSON_CreateArray();
        cJSON_AddItemToArray(watched, cJSON_CreateString(u->valuestring));
    }
    return watched;
}

/* tasks/get, tasks/update, tasks/cancel (serve/tasks.h), for a request that declares the
 * extension; tasks/result and tasks/list, which the extension removed, are not found. */
static cJSON *do_tasks(const tg_serve_config *c, const cJSON *id, const char *method,
                       const cJSON *params, tg_serve_log *log, const tg_serve_reqctx *rq)
{
    tg_serve_outcome o;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    bool known = strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
                 strcmp(method, "tasks/cancel") == 0;
    if (!known)
        return fail(log, id, TG_RPC_METHOD_NOT_FOUND, "Method not found: %.100s", method);
    if (!tg_serve_tasks_declared(cJSON_GetObjectItemCaseSensitive(meta, META_CAPS))) {
        log->rpc_error = TG_RPC_MISSING_CAPABILITY;
        return error_with(id, TG_RPC_MISSING_CAPABILITY,
                          "tasks: declare the " TG_TASKS_EXTENSION " extension in the request's "
                          "client capabilities", tg_serve_tasks_required_data());
    }
    tg_serve_tasks_request(c->tasks, rq ? rq->dispatch : NULL, method, params, &o);
    return outcome_reply(id, TG_ERA_MODERN, &o, log);
}

static cJSON *dispatch_modern(const tg_serve_config *c, tg_serve_session *s, const cJSON *id,
                              const char *method, const cJSON *params, tg_serve_log *log,
                              const tg_serve_reqctx *rq)
{
    if (strcmp(method, "server/discover") == 0)
        return do_discover(c, id);
    if (tg_serve_listens(c) && strcmp(method, "subscriptions/listen") == 0) {
        /* acknowledged now, answered never on stdio: the stream ends when the client cancels;
         * offered where lists or declared resources change */
        char why[256];
        cJSON *watched = watch_listed(c, params);
        cJSON *ack = tg_serve_listen(&s->subs, id, params, c->list_changed, watched, why,
                                     sizeof why);
        cJSON_Delete(watched);
        return ack ? ack : fail(log, id, TG_RPC_INVALID_PARAMS, "%s", why);
    }
    if (c->tasks && strncmp(method, "tasks/", 6) == 0)
        return do_tasks(c, id, method, params, log, rq);
    cJSON *r = dispatch_common(c, NULL, id, TG_ERA_MODERN, method, params, log, rq);
    if (r)
        return r;
    /* initialize, ping and logging/setLevel do not exist in this revision */
    return fail(log, id, TG_RPC_METHOD_NOT_FOUND, "Method not found: %.100s", method);
}

static cJSON *dispatch_legacy(const tg_serve_config *c, tg_serve_session *s, const cJSON *id,
                              const char *method, const cJSON *params, tg_serve_log *log,
                              const tg_serve_reqctx *rq)
{
    if (strcmp(method, "initialize") == 0)
        return do_initialize(c, s, id, params, log);
    if (strcmp(method, "ping") == 0)
        return result_reply(id, TG_ERA_LEGACY, cJSON_CreateObject(), -1);
    if (!s->initialized)
        return fail(log, id, TG_RPC_INVALID_PARAMS,
                    "%.100s: params._meta lacks \"" META_VERSION "\" and \"" META_CAPS "\" "
                    "(required by protocol version " TG_SERVE_MODERN_VERSION "); a client of "
                    "an earlier version must send initialize first", method);
    if (strcmp(method, "logging/setLevel") == 0)
        return do_set_level(s, id, params, log);
    if (c->resources && (strcmp(method, "resources/subscribe") == 0 ||
                         strcmp(method, "resources/unsubscribe") == 0))
        return do_subscribe(c, s, id, params, method[10] == 's', log);
    cJSON *r = dispatch_common(c, s, id, TG_ERA_LEGACY, method, params, log, rq);
    if (r)
        return r;
    return fail(log, id, TG_RPC_METHOD_NOT_FOUND, "Method not found: %.100s", method);
}

/*
 * The era of a request: 2026-07-28 when its _meta names a protocol version (which must then be
 * ours, and come with client capabilities), the legacy era otherwise. Returns an error reply
 * when the request cannot be served in the era it asks for.
 */
static cJSON *choose_era(const cJSON *id, const cJSON *params, tg_serve_log *log)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
    if (!version) {
        log->era = TG_ERA_LEGACY;
        return NULL;
    }
    log->era = TG_ERA_MODERN;
    if (!cJSON_IsObject(meta) || !cJSON_IsString(version))
        return fail(log, id, TG_RPC_INVALID_PARAMS, "params._meta[\"" META_VERSION "\"] must be "
                                                    "a string");
    if (strcmp(version->valuestring, TG_SERVE_MODERN_VERSION) != 0) {
        cJSON *data = cJSON_CreateObject();
        cJSON *sup = cJSON_AddArrayToObject(data, "supported");
        cJSON_AddItemToArray(sup, cJSON_CreateString(TG_SERVE_MODERN_VERSION));
        cJSON_AddStringToObject(data, "requested", version->valuestring);
        log->rpc_error = TG_RPC_UNSUPPORTED_VERSION;
        return error_with(id, TG_RPC_UNSUPPORTED_VERSION, "Unsupported protocol version", data);
    }
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(meta, META_CAPS)))
        return fail(log, id, TG_RPC_INVALID_PARAMS, "params._meta[\"" META_CAPS "\"] (an object) "
                                                    "is required");
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(meta, TG_META_LOG_LEVEL);
    if (level && tg_serve_log_level(cJSON_GetStringValue(level)) < 0)
        return fail(log, id, TG_RPC_INVALID_PARAMS, "params._meta[\"" TG_META_LOG_LEVEL "\"] must "
                                                    "be one of debug, info, notice, warning, "
                                                    "error, critical, alert, emergency");
    return NULL;
}

/* A JSON-RPC id MCP accepts: a string or an integer (never null). */
static bool valid_id(const cJSON *id)
{
    if (cJSON_IsString(id))
        return true;
    return cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble);
}

static void handle_notification(tg_serve_session *s, const char *method, const cJSON *params)
{
    /* notifications/initialized needs nothing: requests are served once initialize was
     * answered. notifications/cancelled for a call is acted on by the transport while the call
     * runs (tg_serve_cancels); here it can only end a subscriptions/listen stream (notify.h).
     * Unknown notifications are ignored, as JSON-RPC asks. */
    if (strcmp(method, "notifications/cancelled") == 0)
        tg_serve_unlisten(s->subs, cJSON_GetObjectItemCaseSensitive(params, "requestId"));
}

uint64_t tg_serve_new_client(void)
{
    static atomic_uint_fast64_t next;
    return (uint64_t)atomic_fetch_add(&next, 1) + 1;
}

cJSON *tg_serve_session_state(const tg_serve_session *s)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "v", s->version);
    cJSON_AddNumberToObject(st, "c", s->client_can);
    cJSON_AddStringToObject(st, "cn", s->client_name);
    cJSON_AddStringToObject(st, "cv", s->client_version);
    if (s->log_level[0])
        cJSON_AddStringToObject(st, "l", s->log_level);
    return st;
}

bool tg_serve_session_restore(tg_serve_session *s, const cJSON *state)
{
    const char *v = tg_json_get_string(state, "v");
    const cJSON *can = cJSON_GetObjectItemCaseSensitive(state, "c");
    bool known = false;
    for (size_t i = 0; v && tg_serve_legacy_versions[i]; i++)
        known = known || strcmp(v, tg_serve_legacy_versions[i]) == 0;
    if (!known || !cJSON_IsNumber(can) || can->valuedouble < 0 || can->valuedouble > 0xffff)
        return false;
    s->initialized = true;
    snprintf(s->version, sizeof s->version, "%s", v);
    s->client_can = (unsigned)can->valuedouble;
    const char *cn = tg_json_get_string(state, "cn"), *cv = tg_json_get_string(state, "cv");
    snprintf(s->client_name, sizeof s->client_name, "%s", cn ? cn : "");
    snprintf(s->client_version, sizeof s->client_version, "%s", cv ? cv : "");
    const char *level = tg_json_get_string(state, "l");
    snprintf(s->log_level, sizeof s->log_level, "%s",
             level && tg_serve_log_level(level) >= 0 ? level : "");
    return true;
}

void tg_serve_session_release(tg_serve_session *s)
{
    tg_serve_subs_free(s->subs);
    s->subs = NULL;
    cJSON_Delete(s->res_subs);
    s->res_subs = NULL;
}

void tg_serve_pin(const tg_serve_config *c, tg_serve_pinned *p)
{
    p->c = *c;
    p->set = NULL;
    if (!c->live)
        return;
    p->set = tg_serve_live_get(c->live);
    p->c.live = NULL;
    p->c.tools = &p->set->tools;
    p->c.resources = &p->set->resources;
    if (c->completion) {
        p->completion = *c->completion;
        p->completion.tools = &p->set->tools;
        p->c.completion = &p->completion;
    }
}

void tg_serve_unpin(tg_serve_pinned *p)
{
    tg_serve_toolset_unref(p->set);
    p->set = NULL;
}

cJSON *tg_serve_handle(const tg_serve_config *c, tg_serve_session *s, const cJSON *msg,
                       tg_serve_log *log)
{
    return tg_serve_handle_in(c, s, msg, log, NULL);
}

cJSON *tg_serve_handle_in(const tg_serve_config *c, tg_serve_session *s, const cJSON *msg,
                          tg_serve_log *log, const tg_serve_reqctx *rq)
{
    if (c->live) {
        tg_serve_pinned p;
        tg_serve_pin(c, &p);
        cJSON *reply = tg_serve_handle_in(&p.c, s, msg, log, rq);
        tg_serve_unpin(&p);
        return reply;
    }
    *log = (tg_serve_log){0};
    if (!cJSON_IsObject(msg))
        return fail(log, NULL, TG_RPC_INVALID_REQUEST, cJSON_IsArray(msg)
                        ? "Invalid Request: JSON-RPC batches are not supported; send one message per line"
                        : "Invalid Request: a JSON-RPC message is an object");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const char *jsonrpc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc"));
    if (cJSON_IsString(method))
        snprintf(log->method, sizeof log->method, "%s", method->valuestring);
    if (!method && id && (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
                          cJSON_GetObjectItemCaseSensitive(msg, "error"))) {
        /* a response: a call waiting for it has it from the transport (serve/dispatch.h,
         * tg_serve_dispatch_answer); any other is ignored */
        log->notification = true;
        return NULL;
    }
    bool well_formed = jsonrpc && strcmp(jsonrpc, "2.0") == 0 && cJSON_IsString(method) &&
                       (!params || cJSON_IsObject(params));
    if (!id && cJSON_IsString(method)) {
        log->notification = true; /* never answered, even when malformed */
        if (well_formed)
            handle_notification(s, method->valuestring, params);
        return NULL;
    }
    if (!valid_id(id))
        return fail(log, NULL, TG_RPC_INVALID_REQUEST, "Invalid Request: id must be a string or an "
                                                       "integer");
    log->id = id;
    if (!well_formed)
        return fail(log, id, TG_RPC_INVALID_REQUEST, "Invalid Request: needs \"jsonrpc\": \"2.0\", "
                                                     "a string method and params that are an object");
    cJSON *refused = choose_era(id, params, log);
    if (refused)
        return refused;
    if (log->era == TG_ERA_MODERN)
        return dispatch_modern(c, s, id, method->valuestring, params, log, rq);
    return dispatch_legacy(c, s, id, method->valuestring, params, log, rq);
}

/* ---- progress and cancellation -------------------------------------------------------------- */

const cJSON *tg_serve_progress_token(const cJSON *msg)
{
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    if (!method || strcmp(method, "tools/call") != 0 || !cJSON_GetObjectItemCaseSensitive(msg, "id"))
        return NULL;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(msg, "params"), "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    return cJSON_IsString(token) || valid_id(token) ? token : NULL;
}

cJSON *tg_serve_progress_notification(const cJSON *token, double progress, const char *message)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", "notifications/progress");
    cJSON *p = cJSON_AddObjectToObject(n, "params");
    cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(token, true));
    cJSON_AddNumberToObject(p, "progress", progress);
    if (message)
        cJSON_AddStringToObject(p, "message", message);
    return n;
}

bool tg_serve_cancels(const cJSON *msg, const cJSON *id)
{
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    if (!id || !method || strcmp(method, "notifications/cancelled") != 0 ||
        cJSON_GetObjectItemCaseSensitive(msg, "id"))
        return false;
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(msg, "params"), "requestId");
    return rid && cJSON_Compare(rid, id, true);
}

/* ---- parameters mirrored into headers ------------------------------------------------------- */

/* An x-mcp-header value: an HTTP token (RFC 9110 tchar), at most 64 characters. */
static bool header_token(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 64)
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || strchr("!#$%&'*+-.^_`|~", *s)))
            return false;
    return true;
}

/* The annotated properties under props (reached through properties keys only), path so far. */
static void annotated(const cJSON *props, cJSON *path, cJSON *out)
{
    for (const cJSON *p = cJSON_IsObject(props) ? props->child : NULL; p; p = p->next) {
        cJSON_AddItemToArray(path, cJSON_CreateString(p->string));
        const char *header = tg_json_get_string(p, "x-mcp-header");
        const char *type = tg_json_get_string(p, "type");
        if (header_token(header) && type && (strcmp(type, "string") == 0 ||
                                             strcmp(type, "integer") == 0 ||
                                             strcmp(type, "boolean") == 0)) {
            cJSON *spec = cJSON_CreateObject();
            cJSON_AddStringToObject(spec, "header", header);
            cJSON_AddItemToObject(spec, "path", cJSON_Duplicate(path, true));
            cJSON_AddItemToArray(out, spec);
        }
        annotated(tg_json_get(p, "properties"), path, out);
        cJSON_DeleteItemFromArray(path, cJSON_GetArraySize(path) - 1);
    }
}

cJSON *tg_serve_header_params(const tg_serve_config *c, const char *tool)
{
    tg_serve_pinned pin;
    tg_serve_pin(c, &pin);
    tg_serve_rx rx = request_of(&pin.c, NULL, NULL, TG_ERA_MODERN, NULL, NULL);
    tg_serve_entry e;
    cJSON *out = NULL;
    for (size_t i = 0; tool && i < pin.c.n_providers && !out; i++) {
        const tg_serve_provider *p = &pin.c.providers[i];
        if (p->find(p->self, &rx, tool, &e)) {
            out = cJSON_CreateArray();
            cJSON *path = cJSON_CreateArray();
            annotated(tg_json_get(tg_json_get(e.tool, "inputSchema"), "properties"), path, out);
            cJSON_Delete(path);
        }
    }
    tg_serve_unpin(&pin);
    if (out && !cJSON_GetArraySize(out)) {
        cJSON_Delete(out);
        out = NULL;
    }
    return out;
}
