/*
 * test_serve_prompts.c — prompt templates (serve/prompts.h) and completion (serve/complete.h):
 * the template format and every way a template can be wrong, prompts/list and prompts/get and
 * completion/complete through the protocol core in both eras, each reply checked against the
 * MCP schema of its revision (tests/testdata/mcp-schema/).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/json.h"
#include "model/repo.h"
#include "schema/jsonschema.h"
#include "serve/complete.h"
#include "serve/core.h"
#include "serve/toolprov.h"
#include "serve/prompts.h"
#include "testlib.h"
#include "mcp_schemas.h"

static rev_schemas legacy_s, modern_s; /* the schemas of both revisions (mcp_schemas.h) */

/* ---- parsing --------------------------------------------------------------------------------- */

static tg_err parse_err(const char *text)
{
    tg_serve_prompt p;
    tg_err err = {0};
    int rc = tg_serve_prompt_parse("prompts/x.md", "x", text, strlen(text), &p, &err);
    CHECK(rc == -1, "expected a parse error for: %s", text);
    if (rc == 0)
        tg_serve_prompt_release(&p);
    return err;
}

static void expect_parse_error(const char *text, int line, const char *needle)
{
    tg_err err = parse_err(text);
    CHECK_CONTAINS(err.msg, needle);
    CHECK(strcmp(err.file, "prompts/x.md") == 0, "the error names the file (%s)", err.file);
    if (line)
        CHECK(err.line == line, "%s: line %d expected, got %d", needle, line, err.line);
}

static void test_parse(void)
{
    tg_serve_prompt p;
    tg_err err = {0};
    const char *plain = "Summarise {{ file }} for {{who}}; {{file}} again, {{ not a name }}, {{}}.";
    CHECK(tg_serve_prompt_parse("prompts/x.md", "x", plain, strlen(plain), &p, &err) == 0, "%s",
          err.msg);
    CHECK(p.n_args == 2, "without front matter the placeholders are the arguments (%zu)", p.n_args);
    CHECK(p.n_args == 2 && strcmp(p.args[0].name, "file") == 0 && p.args[0].required &&
              p.args[0].complete == TG_COMPLETE_DATA_FILES && strcmp(p.args[1].name, "who") == 0 &&
              p.args[1].complete == TG_COMPLETE_NONE,
          "in order of first use, required, completion by name");
    CHECK(!p.description && !p.title, "no description without front matter");
    tg_serve_prompt_release(&p);

    const char *full = "---\r\ntitle: T\ndescription: D\nmodel_hint: other readers' key\n"
                       "arguments:\n  - name: tool\n    required: true\n  - name: x\n"
                       "    description: an x\n    complete: data_files\n---\nUse {{tool}} on {{x}}.\n";
    CHECK(tg_serve_prompt_parse("prompts/x.md", "x", full, strlen(full), &p, &err) == 0, "%s",
          err.msg);
    CHECK(strcmp(p.title, "T") == 0 && strcmp(p.description, "D") == 0, "title and description");
    CHECK(p.n_args == 2 && p.args[0].required && p.args[0].complete == TG_COMPLETE_TOOLS &&
              !p.args[1].required && p.args[1].complete == TG_COMPLETE_DATA_FILES &&
              strcmp(p.args[1].description, "an x") == 0,
          "declared arguments: required defaults to false, complete by name or explicit");
    CHECK(strcmp(p.body, "Use {{tool}} on {{x}}.\n") == 0, "the body follows the front matter");
    tg_serve_prompt_release(&p);

    const char *gen = "You write {{lang}}.\n=== user ===\nTask: {{task}}\n";
    CHECK(tg_serve_prompt_parse("prompts/x.md", "x", gen, strlen(gen), &p, &err) == 0, "%s",
          err.msg);
    CHECK(strcmp(p.body, "You write {{lang}}.\n\nTask: {{task}}\n") == 0 && p.n_args == 2,
          "a generator template's system and user parts make one message: %s", p.body);
    tg_serve_prompt_release(&p);

    expect_parse_error("---\ndescription: D\nno end\n", 1, "never closed");
    expect_parse_error("---\ndescription: [1\n---\nx\n", 0, "");
    expect_parse_error("---\n- a list\n---\nx\n", 2, "must be a mapping");
    expect_parse_error("---\ndescription: 5\n---\nx\n", 2, "description must be a string");
    expect_parse_error("---\narguments: {a: 1}\n---\nx\n", 2, "arguments must be a list");
    expect_parse_error("---\narguments:\n  - just a string\n---\nx\n", 3, "each argument");
    expect_parse_error("---\narguments:\n  - name: 9lives\n---\nx\n", 3, "needs a name");
    expect_parse_error("---\narguments:\n  - name: a\n  - name: a\n---\nx\n", 4, "declared twice");
    expect_parse_error("---\narguments:\n  - name: a\n    requried: true\n---\nx\n", 4,
                       "unknown key 'requried'");
    expect_parse_error("---\narguments:\n  - name: a\n    required: yes\n---\nx\n", 4,
                       "true or false");
    expect_parse_error("---\narguments:\n  - name: a\n    complete: files\n---\nx\n", 4,
                       "complete must be");
    expect_parse_error("---\narguments:\n  - name: a\n---\n\nuse {{a}} and\n{{b}}\n", 7,
                       "placeholder {{b}} is not one of the declared arguments");
    expect_parse_error("---\nmessages: {a: 1}\n---\nx\n", 2, "messages must be a list");
    expect_parse_error("---\nmessages:\n  - image: a.png\n    text: t\n---\n", 4,
                       "exactly one of text, image, audio or resource");
    expect_parse_error("---\nmessages:\n  - role: system\n    text: t\n---\n", 3,
                       "role is user or assistant");
    expect_parse_error("---\nmessages:\n  - image: ../x.png\n---\n", 3, "names a file");
    expect_parse_error("---\nmessages:\n  - image: /etc/x.png\n---\n", 3, "names a file");
    expect_parse_error("---\nmessages:\n  - image: notes.txt\n---\n", 3, "not an image file");
    expect_parse_error("---\nmessages:\n  - text: t\n    uri: u\n---\n", 4,
                       "'uri' does not belong in a text item");
    expect_parse_error("---\narguments: []\nmessages:\n  - text: \"{{a}}\"\n---\n", 0,
                       "placeholder {{a}} is not one of the declared arguments");
    expect_parse_error("bad \xff utf-8", 0, "");
    char nul[] = "a\0b";
    err = (tg_err){0};
    CHECK(tg_serve_prompt_parse("prompts/x.md", "x", nul, 3, &p, &err) == -1, "a NUL byte");
}

/* ---- the folder ------------------------------------------------------------------------------ */

static void put(int dirfd, const char *path, const char *text)
{
    tg_err err = {0};
    SETUP(tg_write_file_atomic_at(dirfd, path, text, strlen(text), &err) == 0, "%s", err.msg);
}

static void test_load(const char *tmp)
{
    int fd = open(tmp, O_RDONLY | O_DIRECTORY);
    tg_err err = {0};
    tg_serve_prompts ps;
    CHECK(tg_serve_prompts_load(&ps, fd, "prompts", &err) == 0 && ps.n == 0,
          "no prompts folder: no prompts");
    tg_serve_prompts_free(&ps);
    tg_mkdirs_at(fd, "prompts", &err);
    put(fd, "prompts/b_second.md", "B {{x}}");
    put(fd, "prompts/a_first.txt", "A");
    put(fd, "prompts/a_first.md", "A again");
    put(fd, "prompts/broken.md", "---\narguments: 3\n---\n");
    put(fd, "prompts/notes.json", "{}");
    put(fd, "prompts/.hidden.md", "x");
    CHECK(tg_serve_prompts_load(&ps, fd, "prompts", &err) == 0, "%s", err.msg);
    CHECK(ps.n == 2 && strcmp(ps.v[0].name, "a_first") == 0 &&
              strcmp(ps.v[1].name, "b_second") == 0,
          "the .md and .txt templates, sorted by name (%zu)", ps.n);
    CHECK(ps.n_skipped == 2, "the broken one and the duplicate name are left out (%zu)",
          ps.n_skipped);
    for (size_t i = 0; i < ps.n_skipped; i++)
        CHECK(strstr(ps.skipped[i], "prompts/broken.md:2") ||
                  strstr(ps.skipped[i], "a second template named 'a_first'"),
              "why it was left out, with its place: %s", ps.skipped[i]);
    CHECK(tg_serve_prompts_find(&ps, "b_second") && !tg_serve_prompts_find(&ps, "broken"), "find");
    tg_serve_prompts_free(&ps);
    close(fd);
}

/* A template with image, resource and text parts: its files are read when the set loads, a
 * file reached through a symbolic link or missing leaves the template out, and prompts/get
 * sends the parts before the text, each a valid PromptMessage in both revisions. */
static void test_parts(const char *tmp)
{
    int fd = open(tmp, O_RDONLY | O_DIRECTORY);
    tg_err err = {0};
    tg_mkdirs_at(fd, "parts/prompts/files", &err);
    put(fd, "parts/prompts/files/pixel.png", "\x89PNG");
    put(fd, "parts/prompts/files/notes.md", "# Notes\n");
    CHECK(symlinkat("/etc/passwd", fd, "parts/prompts/files/link.md") == 0, "symlink");
    put(fd, "parts/prompts/show.md",
        "---\narguments:\n  - name: uri\n    required: true\n  - name: who\n"
        "messages:\n  - image: files/pixel.png\n  - resource: files/notes.md\n    uri: \"{{uri}}\"\n"
        "  - resource: files/notes.md\n  - role: assistant\n    text: \"Seen, {{who}}.\"\n---\n"
        "Now answer.\n");
    put(fd, "parts/prompts/only.md", "---\nmessages:\n  - text: just this\n---\n\n");
    put(fd, "parts/prompts/linked.md", "---\nmessages:\n  - resource: files/link.md\n---\nx\n");
    put(fd, "parts/prompts/gone.md", "---\nmessages:\n  - image: files/none.png\n---\nx\n");
    tg_serve_prompts ps;
    CHECK(tg_serve_prompts_load(&ps, fd, "parts/prompts", &err) == 0, "%s", err.msg);
    CHECK(ps.n == 2 && ps.n_skipped == 2, "the symlinked and the missing file leave their "
                                          "templates out (%zu, %zu)", ps.n, ps.n_skipped);
    for (size_t i = 0; i < ps.n_skipped; i++)
        CHECK_CONTAINS(ps.skipped[i], "symbolic links");
    const char *text = "{\"name\":\"show\",\"arguments\":{\"uri\":\"test://x\",\"who\":\"Ann\"}}";
    cJSON *params = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    char why[256] = "";
    cJSON *r = tg_serve_prompt_get(&ps, params, why, sizeof why);
    const cJSON *m = tg_json_get(r, "messages");
    CHECK(cJSON_GetArraySize(m) == 5, "four parts and the text (%d): %s", cJSON_GetArraySize(m),
          why);
    char *got = tg_json_print_compact(m);
    CHECK_CONTAINS(got, "{\"type\":\"image\",\"data\":\"iVBORw==\",\"mimeType\":\"image/png\"}");
    CHECK_CONTAINS(got, "\"uri\":\"test://x\",\"mimeType\":\"text/markdown\",\"text\":\"# Notes\\n\"");
    CHECK_CONTAINS(got, "\"uri\":\"toolgen://prompts/show/files/notes.md\"");
    CHECK_CONTAINS(got, "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Seen, Ann.\"}}");
    CHECK_CONTAINS(got, "\"text\":\"Now answer.\\n\"");
    free(got);
    expect_def(&legacy_s, "GetPromptResult", r, "parts, 2025-11-25");
    cJSON_AddStringToObject(r, "resultType", "complete"); /* what the core adds for 2026 */
    expect_def(&modern_s, "GetPromptResult", r, "parts, 2026-07-28");
    cJSON_Delete(r);
    cJSON_Delete(params);
    params = tg_json_parse("{\"name\":\"only\"}", 15, NULL, NULL, NULL, &err);
    r = tg_serve_prompt_get(&ps, params, why, sizeof why);
    CHECK(cJSON_GetArraySize(tg_json_get(r, "messages")) == 1, "a blank text adds no message");
    cJSON_Delete(r);
    cJSON_Delete(params);
    tg_serve_prompts_free(&ps);
    close(fd);
}

/* ---- through the core ------------------------------------------------------------------------ */

static tg_serve_config cfg;

static cJSON *rpc(tg_serve_session *s, const char *text)
{
    tg_err err = {0};
    cJSON *msg = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    SETUP(msg, "test message does not parse: %s: %s", text, err.msg);
    tg_serve_log log;
    cJSON *reply = msg ? tg_serve_handle(&cfg, s, msg, &log) : NULL;
    cJSON_Delete(msg);
    CHECK(reply, "no reply to %s", text);
    if (!reply)
        return NULL;
    rev_schemas *r = log.era == TG_ERA_MODERN ? &modern_s : &legacy_s;
    const cJSON *result = cJSON_GetObjectItem(reply, "result");
    if (!result) {
        expect_def(r, "JSONRPCErrorResponse", reply, log.method);
        return reply;
    }
    expect_def(r, "JSONRPCResultResponse", reply, log.method);
    const char *def = strcmp(log.method, "prompts/list") == 0   ? "ListPromptsResult"
                      : strcmp(log.method, "prompts/get") == 0  ? "GetPromptResult"
                      : strcmp(log.method, "initialize") == 0   ? "InitializeResult"
                      : strcmp(log.method, "server/discover") == 0 ? "DiscoverResult"
                                                                   : "CompleteResult";
    expect_def(r, def, result, log.method);
    return reply;
}

static void expect_error(tg_serve_session *s, const char *text, const char *needle)
{
    cJSON *r = rpc(s, text);
    const cJSON *e = cJSON_GetObjectItem(r, "error");
    CHECK(cJSON_GetObjectItem(e, "code") && cJSON_GetObjectItem(e, "code")->valueint == -32602,
          "-32602 for %s", text);
    CHECK_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(e, "message")), needle);
    cJSON_Delete(r);
}

static char *req(const char *meta, int id, const char *method, const char *params)
{
    return xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s%s}}", id,
                     method, meta, *meta && *params ? "," : "", params);
}

/* The values of a completion reply, comma-separated. */
static char *values_of(const cJSON *r, int *total, bool *more)
{
    const cJSON *c = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "completion");
    *total = (int)tg_json_get_number(c, "total", -1);
    *more = cJSON_IsTrue(cJSON_GetObjectItem(c, "hasMore"));
    tg_buf b;
    tg_buf_init(&b, 64);
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(c, "values"))
        tg_buf_printf(&b, "%s%s", b.len ? "," : "", v->valuestring);
    return tg_buf_steal(&b);
}

static void expect_values(tg_serve_session *s, const char *text, const char *want, int total,
                          bool more)
{
    cJSON *r = rpc(s, text);
    int t;
    bool m;
    char *got = values_of(r, &t, &m);
    if (want)
        CHECK(strcmp(got, want) == 0, "%s: values %s, expected %s", text, got, want);
    CHECK(t == total && m == more, "%s: total %d hasMore %d", text, t, m);
    free(got);
    cJSON_Delete(r);
}

static void test_protocol(tg_serve_session *s, const char *meta)
{
    cJSON *r;
    char *t = req(meta, 1, "prompts/list", "");
    r = rpc(s, t);
    const cJSON *res = cJSON_GetObjectItem(r, "result");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(res, "prompts")) == 1 &&
              cJSON_GetStringValue(cJSON_GetObjectItem(res, "nextCursor")),
          "prompts/list pages (page size 1)");
    char *cursor = xstrdup(cJSON_GetStringValue(cJSON_GetObjectItem(res, "nextCursor")));
    CHECK(*meta ? cJSON_GetObjectItem(res, "ttlMs") != NULL : !cJSON_GetObjectItem(res, "ttlMs"),
          "ttlMs in 2026-07-28 only");
    cJSON_Delete(r);
    free(t);
    char *p = xasprintf("\"cursor\":\"%s\"", cursor);
    t = req(meta, 2, "prompts/list", p);
    r = rpc(s, t);
    res = cJSON_GetObjectItem(r, "result");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(res, "prompts")) == 1 &&
              !cJSON_GetObjectItem(res, "nextCursor"), "the last page");
    cJSON_Delete(r);
    free(t);
    free(p);
    free(cursor);
    t = req(meta, 3, "prompts/list", "\"cursor\":\"forged\"");
    expect_error(s, t, "invalid cursor");
    free(t);

    t = req(meta, 4, "prompts/get", "\"name\":\"review\",\"arguments\":{\"tool\":\"csv_column_stats\"}");
    r = rpc(s, t);
    const cJSON *msg0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"),
                                                               "messages"), 0);
    CHECK_CONTAINS(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(msg0, "content"),
                                                            "text")),
                   "Review csv_column_stats with .");
    cJSON_Delete(r);
    free(t);
    struct { const char *params, *why; } bad[] = {
        {"\"arguments\":{}", "params.name"},
        {"\"name\":\"nope\"", "Unknown prompt: nope"},
        {"\"name\":\"review\"", "missing required argument 'tool'"},
        {"\"name\":\"review\",\"arguments\":{\"tool\":\"a\",\"extra\":\"b\"}", "unknown argument 'extra'"},
        {"\"name\":\"review\",\"arguments\":{\"tool\":3}", "must be a string"},
        {"\"name\":\"review\",\"arguments\":[]", "must be an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        t = req(meta, 5, "prompts/get", bad[i].params);
        expect_error(s, t, bad[i].why);
        free(t);
    }

#define REF_P(name, arg, value)                                                                 \
    "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"" name "\"},\"argument\":{\"name\":\"" arg      \
    "\",\"value\":\"" value "\"}"
    t = req(meta, 6, "completion/complete", REF_P("review", "tool", "csv"));
    expect_values(s, t, "csv_column_stats", 1, false);
    free(t);
    t = req(meta, 6, "completion/complete", REF_P("review", "file", "data/s"));
    expect_values(s, t, "data/sub/deep.csv,data/sub/z.csv", 2, false);
    free(t);
    t = req(meta, 6, "completion/complete", REF_P("review", "file", "z"));
    expect_values(s, t, "data/sub/z.csv", 1, false); /* the last component matches too */
    free(t);
    t = req(meta, 6, "completion/complete", REF_P("review", "file", "data/m"));
    expect_values(s, t, NULL, 150, true); /* 100 values of 150 */
    free(t);
    t = req(meta, 6, "completion/complete", REF_P("review", "note", ""));
    expect_values(s, t, "", 0, false);
    free(t);
    t = req(meta, 7, "completion/complete", "\"ref\":{\"type\":\"ref/resource\",\"uri\":"
            "\"toolgen://generated/{tool}/input.schema.json\"},\"argument\":{\"name\":\"tool\","
            "\"value\":\"get\"}");
    expect_values(s, t, "get_exchange_rate", 1, false);
    free(t);
    struct { const char *params, *why; } badc[] = {
        {REF_P("nope", "tool", ""), "Unknown prompt: nope"},
        {REF_P("review", "zzz", ""), "has no argument 'zzz'"},
        {"\"ref\":{\"type\":\"ref/other\"},\"argument\":{\"name\":\"a\",\"value\":\"\"}", "ref.type"},
        {"\"ref\":{\"type\":\"ref/resource\",\"uri\":\"file:///{x}\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}",
         "not one of the resource templates"},
        {"\"ref\":{\"type\":\"ref/resource\",\"uri\":\"toolgen://generated/{tool}/input.schema.json\"},"
         "\"argument\":{\"name\":\"x\",\"value\":\"\"}", "one variable, 'tool'"},
        {"\"ref\":{\"type\":\"ref/prompt\",\"name\":\"review\"}", "params.argument"},
    };
    for (size_t i = 0; i < sizeof badc / sizeof *badc; i++) {
        t = req(meta, 8, "completion/complete", badc[i].params);
        expect_error(s, t, badc[i].why);
        free(t);
    }
}

static void test_capabilities(void)
{
    tg_serve_session s = {0};
    char *t = req(META26, 1, "server/discover", "");
    cJSON *r = rpc(&s, t);
    const cJSON *caps = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "capabilities");
    CHECK(cJSON_GetObjectItem(caps, "prompts") && cJSON_GetObjectItem(caps, "completions"),
          "2026-07-28 declares prompts and completions");
    cJSON_Delete(r);
    free(t);
    r = rpc(&s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":"
                "{\"name\":\"t\",\"version\":\"1\"}}}");
    caps = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "capabilities");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "prompts"), "listChanged")) &&
              cJSON_GetObjectItem(caps, "completions"),
          "legacy declares prompts (listChanged false) and completions");
    cJSON_Delete(r);
    test_protocol(&s, "");
}

static void make_data(int fd)
{
    tg_err err = {0};
    tg_mkdirs_at(fd, "data/sub/.git", &err);
    put(fd, "data/sub/z.csv", "a\n");
    put(fd, "data/sub/deep.csv", "a\n");
    put(fd, "data/sub/.git/secret", "a\n");
    for (int i = 0; i < 150; i++) {
        char name[64];
        snprintf(name, sizeof name, "data/m%03d.csv", i);
        put(fd, name, "a\n");
    }
    SETUP(symlinkat("/etc", fd, "data/link") == 0, "symlink");
}

int main(void)
{
    tg_err err = {0};
    open_rev(&legacy_s, "2025-11-25");
    open_rev(&modern_s, "2026-07-28");
    test_parse();
    char tmp[] = "/tmp/tg-prompts-XXXXXX";
    SETUP(mkdtemp(tmp), "mkdtemp");
    test_load(tmp);
    test_parts(tmp);
    int fd = open(tmp, O_RDONLY | O_DIRECTORY);
    make_data(fd);
    put(fd, "prompts/review.md", "---\narguments:\n  - name: tool\n    required: true\n"
                                 "  - name: file\n  - name: note\n---\nReview {{tool}} with {{file}}.");

    tg_repo repo;
    tg_serve_tools tools;
    SETUP(tg_repo_open(&repo, ".", &err) == 0, "repository: %s", err.msg);
    SETUP(tg_serve_tools_load_dev(&tools, &repo, &err) == 0, "load: %s", err.msg);
    tg_serve_prompts prompts;
    CHECK(tg_serve_prompts_load(&prompts, fd, "prompts", &err) == 0 && prompts.n == 3,
          "the fixture's prompts (%zu)", prompts.n);
    char *dirs[] = {"data/", "missing/"};
    tg_serve_completion comp = {.tools = &tools, .prompts = &prompts, .root_fd = fd,
                                .data_dirs = dirs, .n_data_dirs = 2,
                                .resource_prefix = TG_SERVE_RESOURCE_PREFIX};
    /* a_first and b_second come from test_load: page size 1 gives three pages; the list
     * checks use review alone, so drop the others */
    tg_serve_prompts only = {.v = &prompts.v[2], .n = 1};
    tg_serve_prompts two = {.v = &prompts.v[1], .n = 2};
    comp.prompts = &only;
    cfg = (tg_serve_config){.tools = &tools, .providers = &tg_serve_tools_provider, .n_providers = 1,
                            .prompts = &two, .completion = &comp,
                            .page_size = 1, .list_ttl_ms = 1000};
    test_capabilities();
    tg_serve_session s = {0};
    test_protocol(&s, META26);

    tg_serve_prompts_free(&prompts);
    tg_serve_tools_free(&tools);
    tg_repo_release(&repo);
    close(fd);
    char *rm = xasprintf("rm -rf '%s'", tmp);
    SETUP(system(rm) == 0, "cleanup");
    free(rm);
    js_registry_free(legacy_s.reg);
    js_registry_free(modern_s.reg);
    return tl_finish("test_serve_prompts");
}
