/* cli_run.c — `toolgen run TOOL ...`: one call of a tool through the sandbox. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/modelport.h"
#include "base/buf.h"
#include "base/confine.h"
#include "cli/cli.h"
#include "cli/cli_present.h"
#include "base/doc.h"
#include "emit/artifact.h"
#include "schema/jsonschema.h"
#include "model/manifest.h"
#include "run/sandbox.h"
#include "run/toolrun.h"
#include "base/util.h"

const char tg_usage_run[] =
    "usage: toolgen run TOOL [--input JSON | --input-file FILE] [--arg NAME=VALUE]...\n"
    "                   [--json] [--out DIR]\n"
    "\n"
    "Runs one call of a tool through the sandbox: the arguments are checked against the\n"
    "tool's input_schema (defaults applied), path arguments against the data directories,\n"
    "then the implementation runs under bubblewrap with the manifest's limits, and the result\n"
    "is checked against output_schema. docs/sandbox.md explains the isolation. An http tool\n"
    "runs no process: toolgen sends its request itself, with the token from the variable its\n"
    "auth.env names; TOOLGEN_HTTP_ORIGIN_<TOOL>=URL points the tool at another origin (a\n"
    "staging or local service) for this run (docs/manifest.md#http).\n"
    "\n"
    "TOOL is a tool name (manifests/<TOOL>/, or the folder paths.manifests of toolgen.yaml\n"
    "names), a manifest folder or a tool.manifest.yaml path.\n"
    "\n"
    "  --input JSON        the arguments as one JSON object\n"
    "  --input-file FILE   the arguments from a JSON or YAML file inside the repository or a\n"
    "                      data directory (a symlink elsewhere is refused)\n"
    "  --arg NAME=VALUE    one argument (repeatable; overrides --input): VALUE is parsed as\n"
    "                      JSON when it is valid JSON (42, true, [\"a\",\"b\"]), else taken as\n"
    "                      a string (data/tips.csv)\n"
    "  --json              print the whole envelope as JSON: result, error with guidance,\n"
    "                      stdout, stderr, exit status, files, visualizations, execution time,\n"
    "                      resource usage and analysis (schemas/run_result.schema.json)\n"
    "  --html FILE         (a STAGED tool) also write the presentation as one self-contained\n"
    "                      HTML page with the tables and charts drawn inline\n"
    "  --out DIR           copy the files the tool wrote into DIR (otherwise they are listed\n"
    "                      and removed); the result then names the copies: a value or a\n"
    "                      Markdown link naming bar_chart.png becomes DIR/bar_chart.png\n"
    "\n"
    "Without --json the result is printed as Markdown: its summary_markdown when it has one,\n"
    "else a readable rendering. A STAGED tool's run is stored in its candidate folder\n"
    "(run_artifacts.json and the files) and shown as the presentation: the output, the tool\n"
    "summary and the two approval questions (docs/lifecycle.md). A failure prints its code, message and guidance (what\n"
    "happened, likely cause, how to fix) on stderr, after its result when it has one (a\n"
    "code tool's failed program: its output and error guidance, docs/code.md).\n"
    "\n"
    "Exit status: 0 success, 1 the tool failed (the code is printed), 2 usage error (unknown\n"
    "tool, bad arguments syntax, runtime not supported), 3 environment problem (no\n"
    "bubblewrap or user namespaces, interpreter missing): the message says how to fix it;\n"
    "130 interrupted (the tool's processes are killed and its files removed first).\n";

typedef struct run_opts {
    const char *tool, *input, *input_file, *out_dir, *html;
    const char **args;
    size_t nargs;
    bool json;
} run_opts;

static int parse_opts(int argc, char **argv, run_opts *o)
{
    o->args = xcalloc((size_t)argc, sizeof *o->args);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define TAKE(name)                                                                          \
    (strcmp(a, name) == 0 ? (i + 1 < argc ? (val = argv[++i], true) : false)                \
                          : (strncmp(a, name "=", strlen(name) + 1) == 0                   \
                                 ? (val = a + strlen(name) + 1, true) : false))
        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (TAKE("--input")) {
            o->input = val;
        } else if (TAKE("--input-file")) {
            o->input_file = val;
        } else if (TAKE("--arg")) {
            o->args[o->nargs++] = val;
        } else if (TAKE("--out")) {
            o->out_dir = val;
        } else if (TAKE("--html")) {
            o->html = val;
        } else if (strcmp(a, "--input") == 0 || strcmp(a, "--input-file") == 0 ||
                   strcmp(a, "--arg") == 0 || strcmp(a, "--out") == 0 ||
                   strcmp(a, "--html") == 0) {
            return cli_fail(TG_EXIT_USAGE, "run: %s needs a value; see 'toolgen help run'", a);
        } else if (a[0] == '-' && a[1]) {
            return cli_fail(TG_EXIT_USAGE, "run: unknown option '%s'; see 'toolgen help run'", a);
        } else if (!o->tool) {
            o->tool = a;
        } else {
            return cli_fail(TG_EXIT_USAGE, "run: one TOOL only ('%s' and '%s'); see 'toolgen help run'",
                            o->tool, a);
        }
#undef TAKE
    }
    if (!o->tool)
        return cli_fail(TG_EXIT_USAGE, "run: which tool? usage: toolgen run TOOL --arg NAME=VALUE ...");
    if (o->input && o->input_file)
        return cli_fail(TG_EXIT_USAGE, "run: give --input or --input-file, not both");
    return TG_EXIT_OK;
}

/*
 * --input-file must resolve inside the repository or one of the data directories
 * (sandbox.data_dirs, default data/): a link elsewhere is refused unread (base/confine.h).
 */
static int confine_input_file(const tg_repo *repo, const char *path, const cJSON *config,
                              tg_err *err)
{
    const cJSON *dirs = tg_json_get(tg_json_get(config, "sandbox"), "data_dirs");
    enum { MAX_ROOTS = 32 };
    const char *roots[MAX_ROOTS] = {".", "data"};
    size_t n = 2;
    const cJSON *d;
    if (cJSON_IsArray(dirs)) {
        n = 1;
        cJSON_ArrayForEach(d, dirs)
        {
            if (cJSON_IsString(d) && n < MAX_ROOTS)
                roots[n++] = d->valuestring;
        }
    }
    return tg_confine_in(repo->path, path, roots, n, "input file",
                      "the repository and its data directories (sandbox.data_dirs)", err);
}

/* The arguments object from --input / --input-file / --arg. */
static cJSON *build_args(const tg_repo *repo, const run_opts *o, const cJSON *config, int *code)
{
    tg_err err = {0};
    char msg[2048];
    cJSON *args = NULL;
    *code = TG_EXIT_USAGE;
    if (o->input) {
        args = tg_json_parse(o->input, strlen(o->input), NULL, NULL, NULL, &err);
        if (!args) {
            cli_fail(TG_EXIT_USAGE, "run: --input is not valid JSON: %d:%d: %s", err.line, err.col,
                     err.msg);
            return NULL;
        }
    } else if (o->input_file) {
        tg_doc d = {0};
        if (confine_input_file(repo, o->input_file, config, &err) != 0 ||
            tg_doc_load_at(repo->root_fd, o->input_file, NULL, &d, &err) != 0) {
            tg_err_format(&err, msg, sizeof msg);
            cli_fail(TG_EXIT_USAGE, "run: --input-file: %s", msg);
            return NULL;
        }
        args = d.root;
        d.root = NULL;
        tg_doc_free(&d);
    } else {
        args = cJSON_CreateObject();
    }
    if (!cJSON_IsObject(args)) {
        cJSON_Delete(args);
        cli_fail(TG_EXIT_USAGE, "run: the arguments must be a JSON object ({\"name\": value, ...})");
        return NULL;
    }
    for (size_t i = 0; i < o->nargs; i++) {
        const char *kv = o->args[i], *eq = strchr(kv, '=');
        if (!eq || eq == kv) {
            cJSON_Delete(args);
            cli_fail(TG_EXIT_USAGE, "run: --arg needs NAME=VALUE, got '%s'", kv);
            return NULL;
        }
        char *name = xstrndup(kv, (size_t)(eq - kv));
        const char *v = eq + 1;
        tg_err ignored = {0};
        cJSON *value = *v ? tg_json_parse(v, strlen(v), NULL, NULL, NULL, &ignored) : NULL;
        if (!value)
            value = cJSON_CreateString(v);
        cJSON_DeleteItemFromObjectCaseSensitive(args, name);
        cJSON_AddItemToObject(args, name, value);
        free(name);
    }
    *code = TG_EXIT_OK;
    return args;
}

static char *manifest_path_for(const tg_repo *repo, const char *tool, const cJSON *config)
{
    if (strchr(tool, '/') || tg_str_endswith(tool, ".yaml") || tg_str_endswith(tool, ".yml")) {
        if (tg_is_dir_at(repo->root_fd, tool))
            return tg_path_join(tool, "tool.manifest.yaml");
        return xstrdup(tool);
    }
    const char *dir = tg_json_get_string(tg_json_get(config, "paths"), "manifests");
    char *base = tg_path_join(dir ? dir : "manifests", tool);
    char *p = tg_path_join(base, "tool.manifest.yaml");
    free(base);
    return p;
}

/* The manifest, bound; its code file must not resolve outside the repository (base/confine.h). */
static int load_tool(const tg_repo *repo, const char *mpath, tg_manifest *m, tg_err *err)
{
    if (tg_manifest_load(repo, mpath, m, err) != 0)
        return -1;
    tg_manifest_bind(m);
    char *impl = m->impl_file ? tg_path_join(m->dir, m->impl_file) : NULL;
    int rc = impl ? tg_confine_repo_in(repo->path, impl, m->dir, "tool code", err) : 0;
    free(impl);
    return rc;
}

static js_schema *compile_schema(js_registry *reg, const cJSON *schema, const char *what,
                                 const char *file)
{
    tg_err err = {0};
    if (!cJSON_IsObject(schema)) {
        cli_fail(TG_EXIT_USAGE, "run: %s: %s is missing; run `toolgen lint %s`", file, what, file);
        return NULL;
    }
    js_schema *s = js_compile(reg, schema, &(js_options){0}, &err);
    if (!s)
        cli_fail(TG_EXIT_USAGE, "run: %s: %s does not compile: %s", file, what, err.msg);
    return s;
}

/* ---- printing ------------------------------------------------------------------------------- */

static void print_value_md(FILE *out, const char *key, const cJSON *v)
{
    if (cJSON_IsString(v) && strchr(v->valuestring, '\n')) {
        const char *s = v->valuestring;
        fprintf(out, "- **%s:**\n\n```\n%s%s```\n\n", key, s, s[strlen(s) - 1] == '\n' ? "" : "\n");
    } else if (cJSON_IsString(v)) {
        fprintf(out, "- **%s:** %s\n", key, v->valuestring);
    } else if (cJSON_IsNumber(v) || cJSON_IsBool(v) || cJSON_IsNull(v)) {
        char *s = tg_json_print_compact(v);
        fprintf(out, "- **%s:** %s\n", key, s);
        free(s);
    } else {
        char *s = tg_json_print(v);
        fprintf(out, "- **%s:**\n\n```json\n%s```\n\n", key, s);
        free(s);
    }
}

static void print_markdown(const tg_manifest *m, const cJSON *result)
{
    const char *summary = tg_json_get_string(result, "summary_markdown");
    if (summary) {
        fputs(summary, stdout);
        if (!*summary || summary[strlen(summary) - 1] != '\n')
            fputc('\n', stdout);
        return;
    }
    printf("## %s\n\n", m->title ? m->title : m->name);
    const cJSON *v;
    cJSON_ArrayForEach(v, result) print_value_md(stdout, v->string, v);
}

static void print_failure(const tg_manifest *m, const tg_call_result *r)
{
    const tg_guidance *g = &r->guidance;
    fprintf(stderr, "toolgen: run: %s failed: %s: %s\n", m->name, g->code, g->message);
    fprintf(stderr, "  what happened: %s\n", g->what);
    fprintf(stderr, "  likely cause:  %s\n", g->cause);
    for (int i = 0; i < g->n_fix; i++)
        fprintf(stderr, "  %s %s\n", i == 0 ? "how to fix:   " : "or:           ", g->fix[i]);
    fprintf(stderr, "  see:           %s\n", g->doc);
    const char *tb = tg_json_get_string(r->reply_error, "traceback");
    if (tb && g->cls == TG_CLASS_EXCEPTION)
        fprintf(stderr, "%s%s", tb, tb[0] && tb[strlen(tb) - 1] == '\n' ? "" : "\n");
}

static void print_files(const tg_call_result *r, const char *out_dir)
{
    if (!r->sb.n_files)
        return;
    fprintf(stderr, "toolgen: run: the tool wrote %zu file%s:", r->sb.n_files,
            r->sb.n_files == 1 ? "" : "s");
    for (size_t i = 0; i < r->sb.n_files; i++)
        fprintf(stderr, "%s %s (%s, %lld bytes)", i ? "," : "", r->sb.files[i].path,
                tg_file_type_name(r->sb.files[i].type), r->sb.files[i].size);
    if (out_dir)
        fprintf(stderr, "; copied to %s\n", out_dir);
    else
        fprintf(stderr, "; keep them with --out DIR\n");
}

/* The result names the files by their path in the sandbox's private working directory; once
 * they are copied into --out, it names the copies instead (docs/emit.md, "Artifacts"). */
static void refer_to_copies(tg_call_result *r, const char *out_dir)
{
    const char **paths = xcalloc(r->sb.n_files, sizeof *paths);
    for (size_t i = 0; i < r->sb.n_files; i++)
        paths[i] = r->sb.files[i].path;
    tg_emit_artifacts a = {paths, r->sb.n_files, out_dir};
    cJSON *shown = tg_emit_artifact_relink(r->result, &a);
    cJSON_Delete(r->result);
    r->result = shown;
    free(paths);
}

/* Ctrl-C / SIGTERM: the sandbox kills the tool's process tree and removes its files. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void catch_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt; /* no SA_RESTART: the sandbox's wait returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout must not kill toolgen before it cleans up */
}

/* The call's outcome on stdout: the JSON envelope with --json, else the markdown (or the
 * failure with its guidance); warnings about the result go to stderr. */
static void print_outcome(const run_opts *o, const tg_manifest *m, const tg_call_result *r)
{
    if (o->json) {
        cJSON *envelope = tg_call_result_json(r, m);
        char *s = tg_json_print(envelope);
        fputs(s, stdout);
        free(s);
        cJSON_Delete(envelope);
    } else if (r->ok) {
        print_markdown(m, r->result);
        print_files(r, o->out_dir);
        const cJSON *viz_valid = tg_json_get(r->visualizations, "valid");
        if (viz_valid && !cJSON_IsTrue(viz_valid))
            fprintf(stderr, "toolgen: run: warning: visualization_manifest.json is not valid "
                            "(see --json for the errors)\n");
        if (r->resources.status >= TG_USAGE_WARNING)
            fprintf(stderr, "toolgen: run: resources %s: %s\n",
                    tg_usage_status_name(r->resources.status), r->resources.recommendation);
    } else {
        /* a failure that still has a result (a code tool's program: its output, its error
         * guidance; docs/code.md#the-result) shows it before the guidance */
        if (r->result && r->guidance.cls != TG_CLASS_OUTPUT_SCHEMA &&
            r->guidance.cls != TG_CLASS_INVALID_RESULT) {
            print_markdown(m, r->result);
            print_files(r, o->out_dir);
        }
        print_failure(m, r);
    }
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    int code = parse_opts(argc, argv, &o);
    if (code != TG_EXIT_OK) {
        free(o.args);
        return code;
    }
    tg_err err = {0};
    char msg[2048];
    tg_doc config = {0};
    tg_repo repo;
    if (cli_repo_open(&repo, &err) != 0) {
        free(o.args);
        return cli_fail(TG_EXIT_USAGE, "run: %s", err.msg);
    }
    if (tg_is_file_at(repo.root_fd, "toolgen.yaml") &&
        tg_doc_load_at(repo.root_fd, "toolgen.yaml", NULL, &config, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        free(o.args);
        tg_repo_release(&repo);
        return cli_fail(TG_EXIT_USAGE, "run: %s", msg);
    }
    tg_manifest m = {0};
    char *mpath = manifest_path_for(&repo, o.tool, config.root);
    char *out_dir = o.out_dir ? cli_user_path(o.out_dir) : NULL;
    js_registry *reg = NULL;
    js_schema *in = NULL, *outs = NULL;
    tg_toolrun_env env = {0};
    cJSON *args = NULL;
    bool have_env = false;
    tg_app_model_port mport;
    tg_call_result r = {0};
    cli_staged staged = {0};

    if (!tg_is_file_at(repo.root_fd, mpath)) {
        code = cli_fail(TG_EXIT_USAGE, "run: no tool '%s': %s does not exist (tools are "
                                       "manifests/<name>/tool.manifest.yaml; `toolgen lint` lists "
                                       "problems)", o.tool, mpath);
        goto out;
    }
    if (load_tool(&repo, mpath, &m, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        code = cli_fail(TG_EXIT_USAGE, "run: %s", msg);
        goto out;
    }
    if (!m.name)
        m.name = o.tool;
    if ((code = cli_staged_begin(&repo, &m, o.html, &staged)) != TG_EXIT_OK)
        goto out;
    if ((args = build_args(&repo, &o, config.root, &code)) == NULL)
        goto out;
    reg = js_registry_new();
    if (js_registry_add_metaschemas(reg, &err) != 0)
        tg_err_clear(&err); /* only needed by schemas that reference the meta-schema */
    if (!(in = compile_schema(reg, m.input_schema, "input_schema", mpath)) ||
        !(outs = compile_schema(reg, m.output_schema, "output_schema", mpath))) {
        code = TG_EXIT_USAGE;
        goto out;
    }
    if (tg_toolrun_env_open(&env, &repo, config.root, &err) != 0) {
        code = cli_fail(TG_EXIT_USAGE, "run: %s", err.msg);
        goto out;
    }
    have_env = true;
    tg_app_model_port_open(&mport, &repo); /* prompt tools' model (docs/code-edit.md) */
    env.ctx.model = &mport.port;
    if (env.sandbox.isolation == TG_ISOLATION_NONE)
        fprintf(stderr, "toolgen: warning: sandbox.isolation is none in toolgen.yaml: %s runs "
                        "WITHOUT isolation: only rlimits and the timeout apply, and it can read "
                        "and write your files and use the network (its environment is still "
                        "cleared of secrets). Use this only for code you trust; see "
                        "docs/sandbox.md#isolation-none\n", m.name);

    catch_interrupts();
    tg_tool_call call = {.m = &m, .input = in, .output = outs, .args = args, .cancel = &interrupted};
    tg_call_status st = tg_tool_call_run(&env.ctx, &call, &r, &err);
    if (interrupted) {
        code = cli_fail(130, "run: interrupted; the tool's processes were killed and its files "
                             "removed");
        goto out;
    }
    if (st == TG_CALL_ENV || st == TG_CALL_UNSUPPORTED || st == TG_CALL_INTERNAL) {
        code = cli_fail(st == TG_CALL_UNSUPPORTED ? TG_EXIT_USAGE : TG_EXIT_ENV, "run: %s",
                        err.msg);
        goto out;
    }
    if (out_dir && r.sb.n_files && tg_call_result_copy_files(&r, out_dir, &err) < 0) {
        code = cli_fail(TG_EXIT_ENV, "run: --out: %s", err.msg);
        goto out;
    }
    if (o.out_dir && r.sb.n_files && r.result)
        refer_to_copies(&r, o.out_dir);
    bool presented = false;
    int staged_code = staged.dir ? cli_staged_present(&staged, &m, &r, o.json, o.html, &presented)
                                 : TG_EXIT_OK;
    if (!presented)
        print_outcome(&o, &m, &r);
    code = staged_code != TG_EXIT_OK ? staged_code : r.ok ? TG_EXIT_OK : TG_EXIT_FAIL;

out:
    cli_staged_end(&staged);
    tg_call_result_free(&r);
    cJSON_Delete(args);
    js_schema_free(in);
    js_schema_free(outs);
    js_registry_free(reg);
    if (have_env) {
        tg_toolrun_env_close(&env);
        tg_app_model_port_close(&mport);
    }
    tg_manifest_free(&m);
    tg_doc_free(&config);
    free(mpath);
    free(out_dir);
    free(o.args);
    tg_repo_release(&repo);
    return code;
}
