/*
 * test_runtime.c — the table of runtimes (model/runtime.h) and their operations
 * (run/runtime_ops.h). The built-in entries agree with the manifest schema and with their
 * operations; a FAKE runtime, added with nothing but a table entry and one set of operations
 * defined here, goes through the generic paths: a manifest naming it binds to it, lint's own
 * checks and SKILL.md read its entry, a call through run/ (single, batch, pool) reaches its
 * operations, and guidance reads their facts. Registration is safe while other threads look up.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/util.h"
#include "emit/common.h"
#include "emit/emit_skill.h"
#include "model/lint.h"
#include "model/manifest.h"
#include "model/runtime.h"
#include "run/runtime_ops.h"
#include "run/toolrun.h"
#include "run/warmpool.h"
#include "schema/schemaset.h"
#include "testlib.h"
#include "probe_fixture.h"

/* ---- the fake runtime: one entry, one set of operations --------------------------------------- */

static const tg_runtime_desc fake_desc = {
    .name = "fake",
    .language = "Fake",
    .templates = (const char *const[]){"message", NULL},
    .sandboxed = true,
    .static_skip = "a fake has no code",
    .summary = TG_RUNTIME_SUMMARY_LANGUAGE,
};

static int fake_commands, fake_reads;

/* /bin/echo with implementation.message, its {who} replaced by the argument. */
static tg_call_status fake_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                   const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                   tg_err *err)
{
    (void)ctx;
    (void)answers;
    fake_commands++;
    const char *msg = tg_json_get_string(m->implementation, "message");
    const char *at = msg ? strstr(msg, "{who}") : NULL;
    if (!at) {
        tg_err_set(err, "fake: implementation.message has no {who}");
        return TG_CALL_UNSUPPORTED;
    }
    tg_strv_push(&c->argv, "/bin/echo");
    tg_strv_pushf(&c->argv, "%.*s%s%s", (int)(at - msg), msg, tg_json_get_string(args, "who"),
                  at + strlen("{who}"));
    return TG_CALL_DONE;
}

/* The result is {"echo": stdout without its newline}. */
static void fake_read(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                      tg_call_result *out, cJSON **reply, char **problem)
{
    (void)m;
    (void)f;
    (void)reply;
    (void)problem;
    fake_reads++;
    if (sb->exit_code != 0)
        return;
    char *text = xstrndup(sb->out.data, sb->out.len && sb->out.data[sb->out.len - 1] == '\n'
                                            ? sb->out.len - 1 : sb->out.len);
    out->result = cJSON_CreateObject();
    cJSON_AddStringToObject(out->result, "echo", text);
    free(text);
}

static const tg_runtime_ops fake_ops = {
    .command = fake_command,
    .read_result = fake_read,
    .exit_status = true,
};

/* Two more entries: one this version does not run, one without operations. */
static const tg_runtime_desc remote_desc = {
    .name = "fake_remote",
    .network = true,
    .not_run = "fake remote tools are not run here",
    .static_skip = "remote",
    .summary = TG_RUNTIME_SUMMARY_REQUEST,
};
static const tg_runtime_desc bare_desc = {.name = "fake_bare", .sandboxed = true};

static const char manifest_fmt[] =
    "manifest_version: 1\n"
    "name: probe\n"
    "version: 1.0.0\n"
    "title: Greet someone\n"
    "description: Say hello to someone, through the fake runtime.\n"
    "status: draft\n"
    "risk: low\n"
    "idempotency: idempotent\n"
    "docs:\n"
    "  when_to_use: To see the runtime table at work.\n"
    "  what_it_does: Echoes a greeting.\n"
    "  returns: 'The greeting as {\"echo\": ...}.'\n"
    "  prerequisites: None.\n"
    "input_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  required: [who]\n"
    "  properties:\n"
    "    who: {type: string, description: Whom to greet., minLength: 1}\n"
    "output_schema:\n"
    "  type: object\n"
    "  additionalProperties: false\n"
    "  required: [echo]\n"
    "  properties:\n"
    "    echo: {type: string, description: The greeting.}\n"
    "examples:\n"
    "  - name: world\n"
    "    input: {who: world}\n"
    "    output: {echo: hello world}\n"
    "implementation:\n"
    "  runtime: fake\n"
    "  message: 'hello %s'\n";

static char repo_dir[64];

/* ---- the built-in table --------------------------------------------------------------------- */

/* schemas/tool.manifest.schema.json enumerates the built-in runtimes, in the table's order. */
static void test_schema_lists_builtins(void)
{
    const char *path = "schemas/tool.manifest.schema.json";
    tg_err err = {0};
    size_t len = 0;
    char *text = tg_read_file(path, 1 << 22, &len, &err);
    cJSON *doc = text ? tg_json_parse(text, len, NULL, NULL, NULL, &err) : NULL;
    CHECK(doc != NULL, "%s: %s", path, err.msg);
    const cJSON *impl = tg_json_get(tg_json_get(doc, "$defs"), "implementation");
    const cJSON *en = tg_json_get(tg_json_get(tg_json_get(impl, "properties"), "runtime"), "enum");
    CHECK(cJSON_GetArraySize(en) == TG_RUNTIME_BUILTIN, "%s: one name per built-in runtime", path);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, en)
    {
        CHECK(cJSON_IsString(v) && strcmp(v->valuestring, tg_runtime_name((tg_runtime)i)) == 0,
              "%s: runtime enum/%d is %s", path, i, tg_runtime_name((tg_runtime)i));
        i++;
    }
    cJSON_Delete(doc);
    free(text);
}

static void test_builtins(void)
{
    for (int k = 0; k < TG_RUNTIME_BUILTIN; k++) {
        const tg_runtime_desc *rt = tg_runtime_info((tg_runtime)k);
        const tg_runtime_ops *ops = tg_runtime_ops_of((tg_runtime)k);
        CHECK(rt && tg_runtime_parse(rt->name) == (tg_runtime)k, "kind %d: name and kind agree", k);
        if (!rt)
            continue;
        CHECK(rt->code_file == (rt->extensions != NULL), "%s: a code file has extensions", rt->name);
        CHECK((rt->not_run == NULL) == (ops != NULL), "%s: operations exactly when it is run",
              rt->name);
        CHECK(!ops || (ops->command && ops->read_result), "%s: a command and a reader", rt->name);
        CHECK(!rt->code_file || (ops && ops->words && rt->runner_files), "%s: a runner's words",
              rt->name);
        CHECK(rt->sandboxed || rt->not_run, "%s: run only in the sandbox", rt->name);
    }
    CHECK(tg_runtime_info(TG_RUNTIME_UNKNOWN) == NULL && tg_runtime_ops_of(TG_RUNTIME_UNKNOWN) ==
              NULL, "unknown: no entry, no operations");
    CHECK(tg_runtime_parse(NULL) == TG_RUNTIME_UNKNOWN && tg_runtime_parse("cobol") ==
              TG_RUNTIME_UNKNOWN, "unknown names");
    CHECK(strcmp(tg_runtime_name(TG_RUNTIME_UNKNOWN), "unknown") == 0, "the unknown kind's name");
    CHECK(tg_runtime_info(TG_RUNTIME_HTTP)->network && tg_runtime_info(TG_RUNTIME_HTTP)->not_run,
          "http: network, not run by this version");
}

/* ---- registration --------------------------------------------------------------------------- */

static tg_runtime register_fakes(tg_runtime *remote, tg_runtime *bare)
{
    tg_runtime kind = TG_RUNTIME_UNKNOWN, k2 = TG_RUNTIME_UNKNOWN;
    tg_err err = {0};
    CHECK(tg_runtime_register(&fake_desc, &kind, &err) == 0, "register fake: %s", err.msg);
    CHECK(kind == TG_RUNTIME_BUILTIN, "the first registered kind follows the built-in ones");
    CHECK(tg_runtime_ops_register(kind, &fake_ops, &err) == 0, "fake's operations: %s", err.msg);
    tg_err e2 = {0};
    CHECK(tg_runtime_register(&fake_desc, &k2, &e2) == -1, "a name registers once");
    CHECK_CONTAINS(e2.msg, "already");
    tg_err e3 = {0};
    CHECK(tg_runtime_ops_register(kind, &fake_ops, &e3) == -1, "operations register once");
    CHECK_CONTAINS(e3.msg, "already");
    tg_err e4 = {0};
    CHECK(tg_runtime_ops_register((tg_runtime)(TG_RUNTIME_MAX - 1), &fake_ops, &e4) == -1,
          "no operations for a kind without an entry");
    tg_runtime_desc clash = {.name = "python"};
    tg_err e5 = {0};
    CHECK(tg_runtime_register(&clash, &k2, &e5) == -1, "a built-in name is taken");
    CHECK(tg_runtime_register(&remote_desc, remote, &err) == 0 &&
              tg_runtime_register(&bare_desc, bare, &err) == 0, "two more: %s", err.msg);
    CHECK(tg_runtime_parse("fake") == kind && tg_runtime_info(kind) == &fake_desc &&
              strcmp(tg_runtime_name(kind), "fake") == 0 && tg_runtime_ops_of(kind) == &fake_ops,
          "the fake by name and by kind");
    return kind;
}

/* Lookups in other threads while an entry is added: each sees it whole or not at all. */
static const tg_runtime_desc late_desc = {.name = "fake_late", .sandboxed = true};
static int lookup_errors;
static pthread_mutex_t lookup_mu = PTHREAD_MUTEX_INITIALIZER;

static void *lookup_loop(void *arg)
{
    (void)arg;
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        tg_runtime k = tg_runtime_parse("fake_late");
        if (k != TG_RUNTIME_UNKNOWN && (!tg_runtime_info(k) ||
                                        strcmp(tg_runtime_info(k)->name, "fake_late") != 0))
            bad++;
        if (tg_runtime_parse("node") != TG_RUNTIME_NODE)
            bad++;
    }
    pthread_mutex_lock(&lookup_mu);
    lookup_errors += bad;
    pthread_mutex_unlock(&lookup_mu);
    return NULL;
}

static void test_register_while_looking_up(void)
{
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, lookup_loop, NULL);
    tg_runtime k = TG_RUNTIME_UNKNOWN;
    tg_err err = {0};
    CHECK(tg_runtime_register(&late_desc, &k, &err) == 0, "register while looking up: %s", err.msg);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(lookup_errors == 0, "%d lookups saw a half-made entry", lookup_errors);
    CHECK(tg_runtime_parse("fake_late") == k, "found afterwards");
}

/* The table has room for TG_RUNTIME_MAX kinds; then registration fails. Run last. */
static void test_full(void)
{
    static char names[TG_RUNTIME_MAX][16];
    static tg_runtime_desc fill[TG_RUNTIME_MAX];
    tg_err err = {0};
    int added = 0;
    for (int i = 0; i < TG_RUNTIME_MAX; i++) {
        snprintf(names[i], sizeof names[i], "filler%d", i);
        fill[i] = (tg_runtime_desc){.name = names[i]};
        tg_runtime k;
        if (tg_runtime_register(&fill[i], &k, &err) != 0)
            break;
        added++;
    }
    CHECK(added < TG_RUNTIME_MAX, "the table fills up");
    CHECK_CONTAINS(err.msg, "full");
}

/* ---- the fake through the generic paths ----------------------------------------------------- */

static char *manifest_text(const char *message)
{
    return xasprintf(manifest_fmt, message);
}

static void test_bind_and_emit(tg_runtime kind)
{
    char *text = manifest_text("{who}");
    tg_manifest m;
    tg_err err = {0};
    CHECK(tg_manifest_parse(text, strlen(text), "tools/probe/tool.manifest.yaml", NULL, &m, &err) ==
              0, "parse: %s", err.msg);
    tg_manifest_bind(&m);
    CHECK(m.runtime == kind, "implementation.runtime: fake binds to its kind");
    CHECK(!tg_emit_network(&m) && !tg_emit_auth_env(&m), "emit: no network, no credential");
    tg_buf pieces[TG_PIECE_COUNT];
    for (int i = 0; i < TG_PIECE_COUNT; i++)
        pieces[i] = (tg_buf)TG_BUF_INIT;
    tg_emit_skill_pieces(&m, pieces);
    CHECK(strcmp(pieces[TG_PIECE_SKILL_RUNTIME].data, "`probe` runs Fake") == 0,
          "SKILL.md says how it runs: %s", pieces[TG_PIECE_SKILL_RUNTIME].data);
    for (int i = 0; i < TG_PIECE_COUNT; i++)
        tg_buf_free(&pieces[i]);
    tg_manifest_free(&m);
    free(text);
}

static int write_manifest(const char *message)
{
    char *dir = xasprintf("%s/tools/probe", repo_dir);
    char *cmd = xasprintf("mkdir -p %s %s/data && chmod -R o+rX %s", dir, repo_dir, repo_dir);
    char *path = xasprintf("%s/tool.manifest.yaml", dir);
    char *text = manifest_text(message);
    tg_err err = {0};
    int rc = system(cmd) == 0 && tg_write_file_atomic(path, text, strlen(text), &err) == 0 &&
                     chmod(path, 0644) == 0
                 ? 0
                 : -1;
    SETUP(rc == 0, "write the manifest: %s", err.msg);
    free(text);
    free(path);
    free(cmd);
    free(dir);
    return rc;
}

/* The schema's enum refuses the fake (runtime.h says why); lint's own checks read its entry. */
static void test_lint(void)
{
    tg_schemaset ss;
    tg_repo repo;
    tg_err err = {0};
    if (write_manifest("{nobody}") != 0)
        return;
    if (tg_schemaset_open(&ss, &err) != 0) {
        CHECK(false, "schemas: %s", err.msg);
        return;
    }
    CHECK(tg_repo_open_dir(&repo, repo_dir, &err) == 0, "repository: %s", err.msg);
    const char *paths[] = {"tools/probe/tool.manifest.yaml"};
    tg_problems probs = {0};
    tg_lint_stats stats = {0};
    CHECK(tg_lint_paths(&repo, &ss, paths, 1, &probs, &stats, &err) == 0, "lint: %s", err.msg);
    bool schema = false, placeholder = false;
    for (size_t i = 0; i < probs.n; i++) {
        schema |= strstr(probs.v[i].msg, "/implementation/runtime") != NULL;
        placeholder |= strstr(probs.v[i].msg, "/implementation/message: placeholder {nobody}") !=
                       NULL;
    }
    CHECK(probs.n == 2 && schema && placeholder,
          "%zu problems: the schema's enum, and the fake's template checked by lint", probs.n);
    tg_problems_free(&probs);
    tg_repo_release(&repo);
    tg_schemaset_close(&ss);
}

static bool greeted(const tg_call_result *r, const char *who)
{
    const char *echo = tg_json_get_string(r->result, "echo");
    char *want = xasprintf("hello %s", who);
    bool ok = r->ok && echo && strcmp(echo, want) == 0;
    free(want);
    return ok;
}

static void test_call(fixture *fx)
{
    cJSON *args = cJSON_Parse("{\"who\":\"world\"}");
    tg_tool_call call = {.m = &fx->m, .input = fx->in, .output = fx->out, .args = args};
    tg_call_result r;
    tg_err err = {0};
    int before = fake_commands;
    CHECK(tg_tool_call_run(&fx->env.ctx, &call, &r, &err) == TG_CALL_DONE, "call: %s", err.msg);
    CHECK(greeted(&r, "world") && fake_commands == before + 1 && fake_reads >= 1,
          "a call reached the fake's command and reader: %s", r.guidance.message);
    tg_call_result_free(&r);

    cJSON *empty = cJSON_Parse("{\"who\":\"\"}");
    tg_tool_call bad = call;
    bad.args = empty;
    CHECK(tg_tool_call_run(&fx->env.ctx, &bad, &r, &err) == TG_CALL_DONE, "bad call: %s", err.msg);
    CHECK(!r.ok && r.guidance.cls == TG_CLASS_INPUT_SCHEMA && fake_commands == before + 1,
          "arguments refused before the runtime is asked");
    tg_call_result_free(&r);
    cJSON_Delete(empty);
    cJSON_Delete(args);
}

static void test_batch_and_pool(fixture *fx)
{
    cJSON *a = cJSON_Parse("{\"who\":\"a\"}"), *b = cJSON_Parse("{\"who\":\"b\"}");
    tg_tool_call calls[2] = {{.m = &fx->m, .input = fx->in, .output = fx->out, .args = a},
                             {.m = &fx->m, .input = fx->in, .output = fx->out, .args = b}};
    tg_tool_batch *batch = tg_tool_batch_new(&fx->env.ctx, calls, 2);
    tg_err err = {0};
    for (size_t i = 0; i < 2; i++) {
        tg_call_result r;
        CHECK(tg_tool_batch_run(batch, i, &r, &err) == TG_CALL_DONE &&
                  greeted(&r, i ? "b" : "a"), "batch call %zu: %s", i, err.msg);
        tg_call_result_free(&r);
    }
    CHECK(tg_tool_batch_warm_runs(batch) == 0, "no warm_argv: the batch runs cold");
    tg_tool_batch_free(batch);

    tg_warmpool *pool = tg_warmpool_new(&fx->env.ctx);
    tg_warmpool_prepare(pool, &fx->m);
    tg_call_result r;
    CHECK(tg_warmpool_call_run(pool, &calls[0], &r, &err) == TG_CALL_DONE && greeted(&r, "a"),
          "pool call: %s", err.msg);
    CHECK(tg_warmpool_warm_calls(pool) == 0, "no warm_argv: the pool runs it cold");
    tg_call_result_free(&r);
    tg_warmpool_free(pool);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* Entries that are not run: refused with their own message, or for lack of operations. */
static void test_not_run(fixture *fx, tg_runtime remote, tg_runtime bare)
{
    cJSON *args = cJSON_Parse("{\"who\":\"world\"}");
    tg_manifest m = fx->m;
    tg_tool_call call = {.m = &m, .input = fx->in, .output = fx->out, .args = args};
    tg_call_result r;
    tg_err err = {0};
    m.runtime = remote;
    CHECK(tg_tool_call_run(&fx->env.ctx, &call, &r, &err) == TG_CALL_UNSUPPORTED &&
              strcmp(err.msg, "probe: fake remote tools are not run here") == 0,
          "not_run: %s", err.msg);
    CHECK(tg_emit_network(&m), "a network runtime's tool needs the network");
    tg_call_result_free(&r);
    m.runtime = bare;
    err = (tg_err){0};
    CHECK(tg_tool_call_run(&fx->env.ctx, &call, &r, &err) == TG_CALL_UNSUPPORTED, "no operations");
    CHECK_CONTAINS(err.msg, "runtime fake_bare has no operations");
    tg_call_result_free(&r);
    cJSON_Delete(args);
}

/* Guidance reads the fake's facts by its name: its result is the program's exit status. */
static void test_guidance(void)
{
    tg_run_facts f = {.runtime = "fake", .ran = true, .exit_code = 3,
                      .limits = (tg_limits)TG_LIMITS_DEFAULT, .max = (tg_limits)TG_LIMITS_MAX_DEFAULT};
    tg_guidance g;
    CHECK(tg_classify(&f, &g) && g.cls == TG_CLASS_COMMAND_FAILED, "exit 3: class %s",
          tg_error_class_name(g.cls));
}

int main(void)
{
    snprintf(repo_dir, sizeof repo_dir, "/tmp/tg-runtime-%ld", (long)getpid());
    test_schema_lists_builtins();
    test_builtins();
    tg_runtime remote = TG_RUNTIME_UNKNOWN, bare = TG_RUNTIME_UNKNOWN;
    tg_runtime kind = register_fakes(&remote, &bare);
    test_register_while_looking_up();
    test_bind_and_emit(kind);
    test_lint();
    test_guidance();
    fixture fx = {0};
    char *manifest = manifest_text("{who}");
    if (fixture_open(&fx, repo_dir, manifest, "") == 0) {
        test_call(&fx);
        test_batch_and_pool(&fx);
        test_not_run(&fx, remote, bare);
    }
    fixture_close(&fx);
    free(manifest);
    test_full();
    char *cmd = xasprintf("rm -rf %s", repo_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", repo_dir);
    free(cmd);
    return tl_finish("runtime");
}
