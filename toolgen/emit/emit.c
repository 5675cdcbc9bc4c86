/*
 * emit.c — per-tool outputs, the MCP tools list and bundle manifest, golden fixtures.
 * The adapters (OpenAI, Anthropic) live in emit_adapters.c, SKILL.md in emit_skill.c.
 */
#include "emit/emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"

/* The MCP Bundle manifest points at toolgen on PATH; see docs/emit.md, "mcp/manifest.json". */
#define MCPB_MANIFEST_VERSION "0.3"
#define CONTRACT_DIALECT "https://json-schema.org/draft/2020-12/schema"

const char *const tg_emit_all_error_codes[] = {
    "INVALID_INPUT", "NOT_FOUND",    "CONFLICT",       "UNAUTHORIZED",   "FORBIDDEN",
    "TIMEOUT",       "RATE_LIMITED", "UPSTREAM_ERROR", "INTERNAL_ERROR", NULL,
};

/* ---- the output list ------------------------------------------------------------------------ */

void tg_emit_files_free(tg_emit_files *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].path);
        free(f->v[i].data);
    }
    free(f->v);
    *f = (tg_emit_files){0};
}

void tg_emit_files_add(tg_emit_files *f, const char *path, char *data)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 16;
        f->v = xrealloc(f->v, f->cap * sizeof *f->v);
    }
    f->v[f->n++] = (tg_emit_file){xstrdup(path), data, strlen(data)};
}

const tg_emit_file *tg_emit_files_find(const tg_emit_files *f, const char *path)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].path, path) == 0)
            return &f->v[i];
    return NULL;
}

/* Prints v as a file and frees it (every emitted JSON file goes through tg_json_print). */
static void add_json(tg_emit_files *out, char *path, cJSON *v)
{
    tg_emit_files_add(out, path, tg_json_print(v));
    free(path);
    cJSON_Delete(v);
}

static void move_files(tg_emit_files *to, tg_emit_files *from)
{
    for (size_t i = 0; i < from->n; i++) {
        tg_emit_files_add(to, from->v[i].path, from->v[i].data);
        from->v[i].data = NULL;
    }
    tg_emit_files_free(from);
}

/* ---- checks on what the emitters rely on ---------------------------------------------------- */

/* Tool and example names become file names: only ^[a-z][a-z0-9_]{0,63}$ can never escape. */
static bool snake_ok(const char *s)
{
    if (!s || !(*s >= 'a' && *s <= 'z'))
        return false;
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_'))
            return false;
    return n <= 64;
}

/* Agent Skills name rule: 1-64 of [a-z0-9-], no leading, trailing or doubled hyphen. */
static bool kebab_ok(const char *s)
{
    if (!s || !*s || s[0] == '-')
        return false;
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
        if (c == '-' && s[n + 1] == '-')
            return false;
    }
    return n <= 64 && s[n - 1] != '-';
}

static int fail_at(const tg_manifest *m, const char *pointer, tg_err *err, const char *fmt, ...)
    TG_PRINTF(4, 5);

static int fail_at(const tg_manifest *m, const char *pointer, tg_err *err, const char *fmt, ...)
{
    tg_buf b = TG_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    tg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    tg_pos p = tg_doc_pointer_pos(&m->doc, pointer);
    tg_err_setpos(err, m->doc.file ? m->doc.file : "", p.line, p.col, "%s: %s", pointer,
                  b.data);
    tg_buf_free(&b);
    return -1;
}

static int check_example(const tg_manifest *m, int i, tg_err *err)
{
    const cJSON *ex = cJSON_GetArrayItem(m->examples, i);
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/examples/%d", i);
    if (!cJSON_IsObject(ex))
        return fail_at(m, ptr, err, "an example must be an object");
    const char *name = tg_json_get_string(ex, "name");
    if (!snake_ok(name))
        return fail_at(m, ptr, err,
                       "example name must be snake_case, at most 64 characters (it names the "
                       "golden files)");
    for (int j = 0; j < i; j++)
        if (strcmp(name, tg_json_get_string(cJSON_GetArrayItem(m->examples, j), "name")) == 0)
            return fail_at(m, ptr, err, "example name \"%s\" is used twice", name);
    if (!cJSON_IsObject(tg_json_get(ex, "input")) || !cJSON_IsObject(tg_json_get(ex, "output")))
        return fail_at(m, ptr, err, "an example needs an input object and an output object");
    return 0;
}

static int check_tool(const tg_manifest *m, tg_err *err)
{
    if (!snake_ok(m->name))
        return fail_at(m, "/name", err,
                       "tool name must be snake_case, at most 64 characters (it names the "
                       "output folder)");
    if (!m->description)
        return fail_at(m, "/description", err, "the tool needs a description");
    if (!cJSON_IsObject(m->input_schema))
        return fail_at(m, "/input_schema", err, "input_schema must be an object schema");
    if (!cJSON_IsObject(m->output_schema))
        return fail_at(m, "/output_schema", err, "output_schema must be an object schema");
    int n = cJSON_IsArray(m->examples) ? cJSON_GetArraySize(m->examples) : 0;
    if (n == 0)
        return fail_at(m, "/examples", err,
                       "at least one example is needed (golden fixtures, SKILL.md)");
    for (int i = 0; i < n; i++)
        if (check_example(m, i, err) != 0)
            return -1;
    return 0;
}

/* ---- facts derived from the IR -------------------------------------------------------------- */

bool tg_emit_read_only(const tg_manifest *m)
{
    const cJSON *v = tg_json_get(m->constraints, "read_only");
    return v ? cJSON_IsTrue(v) : true;
}

bool tg_emit_network(const tg_manifest *m)
{
    return cJSON_IsTrue(tg_json_get(m->constraints, "network")) || m->runtime == TG_RUNTIME_HTTP;
}

bool tg_emit_refused_in_read_only(const tg_manifest *m)
{
    return !tg_emit_read_only(m) || (m->risk && strcmp(m->risk, "high") == 0);
}

const char *tg_emit_auth_env(const tg_manifest *m)
{
    if (m->runtime != TG_RUNTIME_HTTP)
        return NULL;
    const cJSON *auth = tg_json_get(m->implementation, "auth");
    const char *type = tg_json_get_string(auth, "type");
    if (type && strcmp(type, "none") == 0)
        return NULL;
    return tg_json_get_string(auth, "env");
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t tg_emit_auth_envs(const tg_manifest *const *ms, size_t n, const char ***out)
{
    const char **v = xmalloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = tg_emit_auth_env(ms[i]);
        if (e)
            v[k++] = e;
    }
    qsort(v, k, sizeof *v, str_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || strcmp(v[u - 1], v[i]) != 0)
            v[u++] = v[i];
    *out = v;
    return u;
}

size_t tg_emit_error_codes(const tg_manifest *m, const char ***out)
{
    const cJSON *codes = tg_json_get(m->doc.root, "error_codes");
    const char **v = xmalloc(sizeof tg_emit_all_error_codes);
    size_t k = 0;
    for (size_t i = 0; tg_emit_all_error_codes[i]; i++) {
        const char *c = tg_emit_all_error_codes[i];
        if (!strcmp(c, "INVALID_INPUT") || !strcmp(c, "INTERNAL_ERROR") || tg_json_array_has_string(codes, c))
            v[k++] = c;
    }
    *out = v;
    return k;
}

/* ---- descriptions and schemas --------------------------------------------------------------- */

/* Appends text without leading and trailing white space. */
static void put_trimmed(tg_buf *b, const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    tg_buf_append(b, s, n);
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Appends the section when it fits in max characters in all (max 0: no limit). */
static void put_section(tg_buf *b, const char *heading, const char *text, size_t max)
{
    if (!text)
        return;
    tg_buf sec = TG_BUF_INIT;
    tg_buf_printf(&sec, "\n\n%s:\n", heading);
    put_trimmed(&sec, text);
    if (!max || utf8_chars(b->data, b->len) + utf8_chars(sec.data, sec.len) <= max)
        tg_buf_append(b, sec.data, sec.len);
    tg_buf_free(&sec);
}

char *tg_emit_description_max(const tg_manifest *m, size_t max)
{
    tg_buf b = TG_BUF_INIT;
    put_trimmed(&b, m->description ? m->description : m->title ? m->title : "");
    static const char *const keys[] = {"when_to_use", "when_not_to_use", "what_it_does",
                                       "returns", "prerequisites", NULL};
    static const char *const heads[] = {"WHEN TO USE", "WHEN NOT TO USE", "WHAT IT DOES",
                                        "RETURNS", "PREREQUISITES", NULL};
    for (int i = 0; keys[i]; i++)
        put_section(&b, heads[i], tg_json_get_string(m->docs, keys[i]), max);
    return tg_buf_steal(&b);
}

char *tg_emit_description(const tg_manifest *m)
{
    return tg_emit_description_max(m, 0);
}

/*
 * Where subschemas sit in a 2020-12 schema. Walking only these (not every object member) keeps
 * a property that happens to be named "x-toolgen-..." and the values of enum/const/default/
 * examples untouched.
 */
static const char *const kw_schema_map[] = {"properties", "patternProperties", "$defs",
                                            "definitions", "dependentSchemas", NULL};
static const char *const kw_schema_one[] = {
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema", NULL};
static const char *const kw_schema_list[] = {"allOf", "anyOf", "oneOf", "prefixItems", NULL};

static void strip_private(cJSON *s, int depth)
{
    if (!cJSON_IsObject(s) || depth > 256)
        return;
    for (cJSON *c = s->child, *next; c; c = next) {
        next = c->next;
        if (tg_str_startswith(c->string, "x-toolgen-")) {
            cJSON_Delete(cJSON_DetachItemViaPointer(s, c));
            continue;
        }
        cJSON *sub;
        if ((tg_strlist_has(kw_schema_map, c->string) && cJSON_IsObject(c)) ||
            (tg_strlist_has(kw_schema_list, c->string) && cJSON_IsArray(c)) ||
            (strcmp(c->string, "items") == 0 && cJSON_IsArray(c))) {
            cJSON_ArrayForEach(sub, c) strip_private(sub, depth + 1);
        } else if (tg_strlist_has(kw_schema_one, c->string)) {
            strip_private(c, depth + 1);
        }
    }
}

cJSON *tg_emit_client_schema(const cJSON *schema)
{
    cJSON *s = cJSON_Duplicate(schema, true);
    cJSON_DeleteItemFromObjectCaseSensitive(s, "$schema");
    cJSON_DeleteItemFromObjectCaseSensitive(s, "$id");
    strip_private(s, 0);
    return s;
}

cJSON *tg_emit_contract_schema(const tg_manifest *m, bool output)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "$schema", CONTRACT_DIALECT);
    char *id = xasprintf("urn:toolgen:%s:%s", m->name, output ? "output" : "input");
    cJSON_AddStringToObject(s, "$id", id);
    free(id);
    const cJSON *src = output ? m->output_schema : m->input_schema;
    const cJSON *c;
    cJSON_ArrayForEach(c, src)
    {
        if (strcmp(c->string, "$schema") != 0 && strcmp(c->string, "$id") != 0)
            cJSON_AddItemToObject(s, c->string, cJSON_Duplicate(c, true));
    }
    return s;
}

/* ---- MCP ------------------------------------------------------------------------------------ */

cJSON *tg_emit_mcp_tool(const tg_manifest *m)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", m->name);
    if (m->title)
        cJSON_AddStringToObject(t, "title", m->title);
    char *desc = tg_emit_description(m);
    cJSON_AddStringToObject(t, "description", desc);
    free(desc);
    cJSON_AddItemToObject(t, "inputSchema", tg_emit_client_schema(m->input_schema));
    cJSON_AddItemToObject(t, "outputSchema", tg_emit_client_schema(m->output_schema));

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

cJSON *tg_emit_call_request(const char *tool, const cJSON *args)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(r, "id", 1);
    cJSON_AddStringToObject(r, "method", "tools/call");
    cJSON *p = cJSON_AddObjectToObject(r, "params");
    cJSON_AddStringToObject(p, "name", tool);
    cJSON_AddItemToObject(p, "arguments",
                          args ? cJSON_Duplicate(args, true) : cJSON_CreateObject());
    return r;
}

cJSON *tg_emit_call_result(const cJSON *output)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    cJSON *text = cJSON_CreateObject();
    cJSON_AddStringToObject(text, "type", "text");
    /* summary_markdown is the human-readable rendering; without it the client still gets the
     * serialised JSON as text, as MCP recommends for structured results. */
    const char *md = tg_json_get_string(output, "summary_markdown");
    if (md) {
        cJSON_AddStringToObject(text, "text", md);
    } else {
        char *json = tg_json_print_compact(output);
        cJSON_AddStringToObject(text, "text", json);
        free(json);
    }
    cJSON_AddItemToArray(content, text);
    /* The whole output, summary_markdown included: structuredContent must validate against
     * outputSchema, which lists summary_markdown. */
    cJSON_AddItemToObject(r, "structuredContent", cJSON_Duplicate(output, true));
    cJSON_AddBoolToObject(r, "isError", false);
    return r;
}

static cJSON *call_response(const cJSON *output)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(r, "id", 1);
    cJSON_AddItemToObject(r, "result", tg_emit_call_result(output));
    return r;
}

/* ---- per tool ------------------------------------------------------------------------------- */

int tg_emit_tool(const tg_manifest *m, tg_emit_files *out, tg_err *err)
{
    if (check_tool(m, err) != 0)
        return -1;
    const char *t = m->name;
    add_json(out, xasprintf("%s/input.schema.json", t), tg_emit_contract_schema(m, false));
    add_json(out, xasprintf("%s/output.schema.json", t), tg_emit_contract_schema(m, true));
    add_json(out, xasprintf("%s/mcp.tool.json", t), tg_emit_mcp_tool(m));
    add_json(out, xasprintf("%s/openai.json", t), tg_emit_openai_tool(m, NULL));
    add_json(out, xasprintf("%s/anthropic.json", t), tg_emit_anthropic_tool(m));
    const cJSON *ex;
    cJSON_ArrayForEach(ex, m->examples)
    {
        const char *name = tg_json_get_string(ex, "name");
        add_json(out, xasprintf("%s/golden/%s.request.json", t, name),
                 tg_emit_call_request(t, tg_json_get(ex, "input")));
        add_json(out, xasprintf("%s/golden/%s.response.json", t, name),
                 call_response(tg_json_get(ex, "output")));
    }
    return 0;
}

/* ---- repository-wide ------------------------------------------------------------------------ */

static int by_name(const void *a, const void *b)
{
    const tg_manifest *x = *(const tg_manifest *const *)a, *y = *(const tg_manifest *const *)b;
    return strcmp(x->name, y->name);
}

static int check_repo(const tg_project_info *repo, tg_err *err)
{
    if (!repo || !kebab_ok(repo->name))
        return tg_err_set(err,
                          "repository name \"%s\" is not a valid skill name: 1 to 64 lowercase "
                          "letters, digits and single hyphens, not starting or ending with one",
                          repo && repo->name ? repo->name : "");
    if (!repo->version || !*repo->version)
        return tg_err_set(err, "repository version is missing (the MCP bundle needs one)");
    return 0;
}

const char *tg_emit_repo_description(const tg_project_info *repo)
{
    return repo->description && *repo->description
               ? repo->description
               : "Tools for LLM agents, built with toolgen and served over MCP by toolgen serve.";
}

static cJSON *tools_list(const tg_manifest *const *ms, size_t n)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(r, "tools");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(tools, tg_emit_mcp_tool(ms[i]));
    return r;
}

static cJSON *adapter_list(const tg_manifest *const *ms, size_t n, bool openai)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, openai ? tg_emit_openai_tool(ms[i], NULL)
                                       : tg_emit_anthropic_tool(ms[i]));
    return a;
}

/* user_config key of a credential variable: the bundle's config keys are lowercase by custom. */
static char *env_key(const char *env)
{
    char *k = xstrdup(env);
    for (char *p = k; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return k;
}

static char *env_users(const tg_manifest *const *ms, size_t n, const char *env)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const char *e = tg_emit_auth_env(ms[i]);
        if (e && strcmp(e, env) == 0)
            tg_buf_printf(&b, "%s%s", b.len ? ", " : "", ms[i]->name);
    }
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

static cJSON *bundle_user_config(const tg_manifest *const *ms, size_t n, const char **envs,
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
        char *users = env_users(ms, n, envs[i]);
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

static cJSON *bundle_manifest(const tg_manifest *const *ms, size_t n, const tg_project_info *repo)
{
    const char **envs;
    size_t nenv = tg_emit_auth_envs(ms, n, &envs);
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "manifest_version", MCPB_MANIFEST_VERSION);
    cJSON_AddStringToObject(b, "name", repo->name);
    cJSON_AddStringToObject(b, "version", repo->version);
    cJSON_AddStringToObject(b, "description", tg_emit_repo_description(repo));
    cJSON *author = cJSON_AddObjectToObject(b, "author");
    cJSON_AddStringToObject(author, "name", repo->author ? repo->author : "toolgen");
    cJSON_AddItemToObject(b, "server", bundle_server(envs, nenv));
    cJSON *tools = cJSON_AddArrayToObject(b, "tools");
    for (size_t i = 0; i < n; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", ms[i]->name);
        cJSON_AddStringToObject(t, "description", ms[i]->description);
        cJSON_AddItemToArray(tools, t);
    }
    /* The list is fixed at build time: toolgen serve lists exactly these tools. */
    cJSON_AddBoolToObject(b, "tools_generated", false);
    cJSON *kw = cJSON_AddArrayToObject(b, "keywords");
    cJSON_AddItemToArray(kw, cJSON_CreateString("toolgen"));
    cJSON_AddItemToArray(kw, cJSON_CreateString("mcp"));
    /* The sandbox (bubblewrap, rlimits) is Linux-only. */
    cJSON *compat = cJSON_AddObjectToObject(b, "compatibility");
    cJSON *plat = cJSON_AddArrayToObject(compat, "platforms");
    cJSON_AddItemToArray(plat, cJSON_CreateString("linux"));
    cJSON_AddItemToObject(b, "user_config", bundle_user_config(ms, n, envs, nenv));
    free(envs);
    return b;
}

int tg_emit_aggregate(const tg_manifest *const *ms, size_t n, const tg_project_info *repo,
                      tg_emit_files *out, tg_err *err)
{
    if (check_repo(repo, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (check_tool(ms[i], err) != 0)
            return -1;
    const tg_manifest **s = xmalloc((n ? n : 1) * sizeof *s);
    memcpy(s, ms, n * sizeof *s);
    qsort(s, n, sizeof *s, by_name);
    for (size_t i = 1; i < n; i++)
        if (strcmp(s[i - 1]->name, s[i]->name) == 0) {
            tg_err_setpos(err, s[i]->doc.file ? s[i]->doc.file : "", 0, 0,
                          "tool name \"%s\" is used by two manifests (also %s)", s[i]->name,
                          s[i - 1]->doc.file ? s[i - 1]->doc.file : "?");
            free(s);
            return -1;
        }
    const tg_manifest *const *sorted = s;
    tg_emit_files tmp = {0};
    add_json(&tmp, xstrdup("mcp/tools.json"), tools_list(sorted, n));
    add_json(&tmp, xstrdup("mcp/manifest.json"), bundle_manifest(sorted, n, repo));
    add_json(&tmp, xstrdup("adapters/openai.tools.json"), adapter_list(sorted, n, true));
    add_json(&tmp, xstrdup("adapters/anthropic.tools.json"), adapter_list(sorted, n, false));
    int rc = tg_emit_skill(sorted, n, repo, &tmp, err);
    free(s);
    if (rc != 0) {
        tg_emit_files_free(&tmp);
        return -1;
    }
    move_files(out, &tmp);
    return 0;
}
