/*
 * emit.c — the two entry points: per-tool outputs and repository-wide outputs. They check what
 * every emitter relies on (names that become file names, schema roots, examples), then call the
 * MCP emitter, the adapters and the skill, which build on common.c and never on each other.
 */
#include "emit/emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "emit/emit_registry.h"

#define CONTRACT_DIALECT "https://json-schema.org/draft/2020-12/schema"

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

/* ---- contract schemas ----------------------------------------------------------------------- */

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

/* ---- per tool ------------------------------------------------------------------------------- */

int tg_emit_tool(const tg_manifest *m, tg_emit_files *out, tg_err *err)
{
    if (check_tool(m, err) != 0)
        return -1;
    const char *t = m->name;
    tg_emit_files_add_json(out, xasprintf("%s/input.schema.json", t),
                           tg_emit_contract_schema(m, false));
    tg_emit_files_add_json(out, xasprintf("%s/output.schema.json", t),
                           tg_emit_contract_schema(m, true));
    tg_emit_files_add_json(out, xasprintf("%s/mcp.tool.json", t), tg_emit_mcp_tool(m));
    tg_emit_files_add_json(out, xasprintf("%s/openai.json", t), tg_emit_openai_tool(m, NULL));
    tg_emit_files_add_json(out, xasprintf("%s/openai.responses.json", t),
                           tg_emit_openai_responses_tool(m));
    tg_emit_files_add_json(out, xasprintf("%s/anthropic.json", t), tg_emit_anthropic_tool(m));
    const cJSON *ex;
    cJSON_ArrayForEach(ex, m->examples)
    {
        const char *name = tg_json_get_string(ex, "name");
        tg_emit_files_add_json(out, xasprintf("%s/golden/%s.request.json", t, name),
                               tg_emit_call_request(t, tg_json_get(ex, "input")));
        tg_emit_files_add_json(out, xasprintf("%s/golden/%s.response.json", t, name),
                               tg_emit_call_response(tg_json_get(ex, "output")));
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

/* The value as its element of a repository-wide file: printed, then indented for level. */
static void put_element(tg_buf *b, cJSON *v, int level)
{
    char *text = tg_json_print(v);
    size_t len = strlen(text);
    tg_emit_put_indented(b, text, len - 1, level); /* without the final newline */
    free(text);
    cJSON_Delete(v);
}

char *tg_emit_tool_fragment(const tg_manifest *m, size_t *len, tg_err *err)
{
    if (check_tool(m, err) != 0)
        return NULL;
    tg_buf p[TG_PIECE_COUNT];
    for (int k = 0; k < TG_PIECE_COUNT; k++)
        p[k] = (tg_buf)TG_BUF_INIT;
    tg_buf_puts(&p[TG_PIECE_NAME], m->name);
    put_element(&p[TG_PIECE_MCP_TOOL], tg_emit_mcp_tool(m), 2);
    put_element(&p[TG_PIECE_BUNDLE_TOOL], tg_emit_mcp_bundle_tool(m), 2);
    if (tg_emit_auth_env(m))
        tg_buf_puts(&p[TG_PIECE_AUTH_ENV], tg_emit_auth_env(m));
    put_element(&p[TG_PIECE_OPENAI], tg_emit_openai_tool(m, NULL), 1);
    put_element(&p[TG_PIECE_OPENAI_RESPONSES], tg_emit_openai_responses_tool(m), 1);
    put_element(&p[TG_PIECE_ANTHROPIC], tg_emit_anthropic_tool(m), 1);
    tg_emit_skill_pieces(m, p);
    char *text = tg_emit_fragment_serialise(p, len);
    for (int k = 0; k < TG_PIECE_COUNT; k++)
        tg_buf_free(&p[k]);
    return text;
}

/* A JSON array of every tool's piece k, at level (0: the file is the array); pos (NULL or as
 * in tg_emit_aggregate_shared) receives their offsets in b. */
static void put_array(tg_buf *b, const tg_emit_fragment *f, size_t n, tg_emit_piece_kind k,
                      int level, size_t *pos)
{
    static const char pad[] = "        ";
    tg_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        tg_buf_puts(b, i ? ",\n" : "\n");
        tg_buf_append(b, pad, (size_t)(level + 1) * 2);
        if (pos)
            pos[i * TG_PIECE_COUNT + k] = b->len;
        tg_buf_append(b, f[i].p[k].data, f[i].p[k].len);
    }
    if (n) {
        tg_buf_putc(b, '\n');
        tg_buf_append(b, pad, (size_t)level * 2);
    }
    tg_buf_putc(b, ']');
}

static char *adapter_file(const tg_emit_fragment *f, size_t n, tg_emit_piece_kind k,
                          size_t *pos)
{
    tg_buf b = TG_BUF_INIT;
    put_array(&b, f, n, k, 0, pos);
    tg_buf_putc(&b, '\n');
    return tg_buf_steal(&b);
}

int tg_emit_aggregate_shared(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                             tg_emit_files *out, size_t *pos, tg_err *err)
{
    if (check_repo(repo, err) != 0)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(f[i - 1].p[TG_PIECE_NAME].data, f[i].p[TG_PIECE_NAME].data) >= 0)
            return tg_err_set(err, "tools out of order or twice: %s, then %s",
                              f[i - 1].p[TG_PIECE_NAME].data, f[i].p[TG_PIECE_NAME].data);
    for (size_t i = 0; pos && i < n * TG_PIECE_COUNT; i++)
        pos[i] = TG_EMIT_NOWHERE;
    tg_buf tools = TG_BUF_INIT;
    tg_buf_puts(&tools, "{\n  \"tools\": ");
    put_array(&tools, f, n, TG_PIECE_MCP_TOOL, 1, pos);
    tg_buf_puts(&tools, "\n}\n");
    tg_emit_files_add(out, "mcp/tools.json", tg_buf_steal(&tools));
    tg_emit_files_add(out, "mcp/manifest.json", tg_emit_mcp_bundle(f, n, repo, pos));
    tg_emit_files_add(out, "adapters/openai.tools.json",
                      adapter_file(f, n, TG_PIECE_OPENAI, pos));
    tg_emit_files_add(out, "adapters/openai.responses.tools.json",
                      adapter_file(f, n, TG_PIECE_OPENAI_RESPONSES, pos));
    tg_emit_files_add(out, "adapters/anthropic.tools.json",
                      adapter_file(f, n, TG_PIECE_ANTHROPIC, pos));
    char *path = xasprintf("skill/%s/SKILL.md", repo->name);
    tg_emit_files_add(out, path, tg_emit_skill_md(f, n, repo, pos));
    free(path);
    return 0;
}

int tg_emit_aggregate_fragments(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                                tg_emit_files *out, tg_err *err)
{
    if (tg_emit_aggregate_shared(f, n, repo, out, NULL, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char *path = tg_emit_reference_path(repo, f[i].p[TG_PIECE_NAME].data);
        tg_emit_files_add(out, path, xstrdup(f[i].p[TG_PIECE_REFERENCE].data));
        free(path);
    }
    tg_emit_files_add(out, TG_EMIT_SERVER_JSON, tg_emit_registry_server(repo));
    return 0;
}

char *tg_emit_reference_path(const tg_project_info *repo, const char *tool)
{
    return xasprintf("skill/%s/references/%s.md", repo->name, tool);
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
    char **texts = xcalloc(n + 1, sizeof *texts);
    tg_emit_fragment *f = xcalloc(n + 1, sizeof *f);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t len;
        texts[i] = tg_emit_tool_fragment(s[i], &len, err);
        rc = texts[i] ? tg_emit_fragment_parse(texts[i], len, &f[i], err) : -1;
    }
    tg_emit_files tmp = {0};
    if (rc == 0)
        rc = tg_emit_aggregate_fragments(f, n, repo, &tmp, err);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(f);
    free(s);
    if (rc != 0) {
        tg_emit_files_free(&tmp);
        return -1;
    }
    move_files(out, &tmp);
    return 0;
}
