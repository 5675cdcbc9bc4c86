/* cli_init.c — `toolgen init [DIR] [--name NAME]`: a new repository (app/init.h); with
 * --from-openapi FILE, draft manifests from an OpenAPI document (app/openapi.h); with
 * --from-python MODULE, from a Python module's functions (app/frompython.h); with --from-cli
 * CMD, from a program's --help (app/fromcli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/fromcli.h"
#include "app/frompython.h"
#include "app/init.h"
#include "app/openapi.h"
#include "cli/cli.h"

const char tg_usage_init[] =
    "usage: toolgen init [DIR] [--name NAME]\n"
    "       toolgen init --from-openapi FILE [DIR] [--read-only] [--name-budget N]\n"
    "                    [--base-url URL] [--allow-external-refs] [--hints FILE] [--dry-run]\n"
    "       toolgen init --from-python MODULE [DIR] [--name-budget N] [--hints FILE] [--dry-run]\n"
    "       toolgen init --from-cli CMD [DIR] [--name-budget N] [--hints FILE] [--dry-run]\n"
    "\n"
    "Makes DIR (default: the -C folder, else the current one; created when missing) a toolgen\n"
    "repository: toolgen.yaml (the built-in generator: no model, no network), manifests/,\n"
    "data/ and prompts/, a CI job running `toolgen check` and `toolgen diff --check`\n"
    "(.github/workflows/toolgen.yml), .toolgen/ in .gitignore, and `git init` when DIR is not\n"
    "in a git working tree. Folders that exist are kept as they are; toolgen.yaml or the CI job\n"
    "existing is an error, and nothing is written (init never overwrites).\n"
    "  --name NAME   project.name, kebab-case (default: DIR's name in kebab-case)\n"
    "\n"
    "With --from-openapi FILE (OpenAPI 3.0 or 3.1, YAML or JSON): one draft manifest of the\n"
    "http runtime per operation, manifests/NAME/tool.manifest.yaml, DIR made a repository\n"
    "first when it is not one. Local $refs are inlined (a recursive schema is cut 2 levels\n"
    "deep); a bad document is refused, naming the place, and nothing is written. Re-running\n"
    "updates the drafts it made, never a manifest past draft, and says what changed.\n"
    "  --read-only            only GET operations (the others are listed as left out)\n"
    "  --name-budget N        longest tool name, 16..64 (default 48: room for a client's prefix)\n"
    "  --base-url URL         the API's https://HOST[/PATH] instead of the document's servers\n"
    "  --allow-external-refs  follow $refs to files under the document's folder (URLs never)\n"
    "  --hints FILE           the selection, names and descriptions to apply (default:\n"
    "                         DIR/toolgen.hints.yaml when it exists; docs/cli.md#hints)\n"
    "  --dry-run              say what would be written, write nothing\n"
    "Operations with x-toolgen: {exclude: true} or x-mcp: false are left out; x-toolgen:\n"
    "{name: N} names one (docs/cli.md#init-from-openapi).\n"
    "\n"
    "With --from-python MODULE (a module /usr/bin/python3 imports, e.g. textwrap, or the path\n"
    "of a .py file, which is copied beside each tool.py): one draft manifest of the python\n"
    "runtime per public function, from its signature, annotations, docstring and doctests.\n"
    "The module is imported in the sandbox, without network; a function without a doctest is\n"
    "called once there on illustrative arguments for its example. *args, **kwargs and\n"
    "optional parameters without a JSON form are left out (said in docs.limitations). The\n"
    "hints file selects and renames functions by name; re-running works as above. A\n"
    "static_check section allowing the import is appended to toolgen.yaml when it has none\n"
    "(docs/cli.md#init-from-python).\n"
    "\n"
    "With --from-cli CMD (one program: a name on PATH or an absolute path, no arguments, no\n"
    "shell): runs `CMD --help` and each subcommand's `CMD SUB --help` in the sandbox and drafts\n"
    "one manifest of the command runtime per subcommand (or one for CMD). Options become typed\n"
    "properties, every value one argument after its flag; positionals keep their order; there\n"
    "is no free-form argv property. Options naming config or output files or running programs\n"
    "(--config, --output, --exec, ...) are left out and listed in docs.limitations. A program\n"
    "not found, not executable or whose --help fails is refused, and nothing is written. Re-runs\n"
    "behave as above; the hints file selects, renames and describes subcommands as it does\n"
    "operations (a subcommand's name is its operation and path; docs/cli.md#init-from-cli).\n"
    "\n"
    "Exit status: 0 done, 2 usage error, a refused document, or DIR is a toolgen repository\n"
    "already, 3 a file or git could not be written.\n";

static void print_list(const char *label, const tg_strv *v)
{
    for (size_t i = 0; i < v->n; i++)
        printf("  %-10s %s\n", label, v->v[i]);
}

/* What a run of init --from-* did with each tool (app/drafts.h), in the lists' order. */
static void print_outcome(const tg_strv *created, const tg_strv *updated, const tg_strv *unchanged,
                          const tg_strv *kept, const tg_strv *skipped, const tg_strv *stale)
{
    print_list("created", created);
    print_list("updated", updated);
    print_list("unchanged", unchanged);
    print_list("kept", kept);
    print_list("left out", skipped);
    print_list("stale", stale);
}

static int init_openapi(const char *dir, tg_openapi_opts *o)
{
    char *path = dir ? cli_user_path(dir) : xstrdup(cli_dir());
    char *file = cli_user_path(o->file);
    char *hints = o->hints_file ? cli_user_path(o->hints_file) : NULL;
    o->dir = path;
    o->file = file;
    o->hints_file = hints;
    tg_openapi_report r;
    tg_err err = {0};
    int rc = tg_app_init_openapi(o, &r, &err);
    for (size_t i = 0; i < r.warnings.n; i++)
        fprintf(stderr, "toolgen: warning: %s\n", r.warnings.v[i]);
    if (rc != 0) {
        char msg[2200];
        tg_err_format(&err, msg, sizeof msg); /* file:line:col: when the place is known */
        tg_openapi_report_free(&r);
        free(path);
        free(file);
        free(hints);
        return cli_fail(rc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV,
                        "init --from-openapi: %s\nNothing was written.", msg);
    }
    printf("toolgen: %s%zu tools from %s%s\n", o->dry_run ? "would draft " : "drafted ", r.tools,
           o->file, r.initialised ? " (the folder was made a toolgen repository first)" : "");
    print_outcome(&r.created, &r.updated, &r.unchanged, &r.kept, &r.skipped, &r.stale);
    if (r.tools)
        printf("Next: review the drafts (their examples are illustrative unless the document\n"
               "gave some), then `toolgen lint` and `toolgen build`.\n");
    tg_openapi_report_free(&r);
    free(path);
    free(file);
    free(hints);
    return TG_EXIT_OK;
}

static int init_python(const char *dir, tg_frompy_opts *o)
{
    char *path = dir ? cli_user_path(dir) : xstrdup(cli_dir());
    bool file = strchr(o->module, '/') || (strlen(o->module) > 3 &&
                                           !strcmp(o->module + strlen(o->module) - 3, ".py"));
    char *module = file ? cli_user_path(o->module) : xstrdup(o->module);
    char *hints = o->hints_file ? cli_user_path(o->hints_file) : NULL;
    const char *shown = o->module;
    o->dir = path;
    o->module = module;
    o->hints_file = hints;
    tg_frompy_report r;
    tg_err err = {0};
    int rc = tg_app_init_python(o, &r, &err);
    for (size_t i = 0; i < r.warnings.n; i++)
        fprintf(stderr, "toolgen: warning: %s\n", r.warnings.v[i]);
    if (rc == 0) {
        printf("toolgen: %s%zu tools from %s%s\n", o->dry_run ? "would draft " : "drafted ",
               r.tools, shown, r.initialised ? " (the folder was made a toolgen repository first)" : "");
        print_outcome(&r.created, &r.updated, &r.unchanged, &r.kept, &r.skipped, &r.stale);
        if (r.config_added)
            printf("  %-10s static_check.allowed_imports in toolgen.yaml (the drafts import it)\n",
                   o->dry_run ? "would add" : "added");
        printf("Next: review the drafts (an example marked illustrative is the function's answer\n"
               "to made-up arguments), then `toolgen lint` and `toolgen build`.\n");
    }
    tg_frompy_report_free(&r);
    free(path);
    free(module);
    free(hints);
    if (rc != 0)
        return cli_fail(rc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV,
                        "init --from-python: %s\nNothing was written.", err.msg);
    return TG_EXIT_OK;
}

static int init_fromcli(const char *dir, tg_fromcli_opts *o)
{
    char *path = dir ? cli_user_path(dir) : xstrdup(cli_dir());
    char *hints = o->hints_file ? cli_user_path(o->hints_file) : NULL;
    o->dir = path;
    o->hints_file = hints;
    tg_openapi_report r;
    tg_err err = {0};
    int rc = tg_app_init_fromcli(o, &r, &err);
    for (size_t i = 0; i < r.warnings.n; i++)
        fprintf(stderr, "toolgen: warning: %s\n", r.warnings.v[i]);
    char msg[2200];
    if (rc != 0) {
        tg_err_format(&err, msg, sizeof msg); /* a hints file's file:line:col: */
    } else {
        printf("toolgen: %s%zu tools from %s%s\n", o->dry_run ? "would draft " : "drafted ",
               r.tools, o->cmd, r.initialised ? " (the folder was made a toolgen repository first)" : "");
        print_outcome(&r.created, &r.updated, &r.unchanged, &r.kept, &r.skipped, &r.stale);
        if (r.tools)
            printf("Next: review the drafts (types, defaults, risk, and examples a warning names),\n"
                   "then `toolgen lint` and `toolgen build`.\n");
    }
    tg_openapi_report_free(&r);
    free(path);
    free(hints);
    if (rc != 0)
        return cli_fail(rc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV,
                        "init --from-cli: %s\nNothing was written.", msg);
    return TG_EXIT_OK;
}

int cmd_init(int argc, char **argv)
{
    const char *dir = NULL, *name = NULL;
    tg_openapi_opts oa = {0};
    tg_frompy_opts py = {0};
    tg_fromcli_opts fc = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return cli_print_usage(tg_usage_init, TG_EXIT_OK);
        if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (strcmp(argv[i], "--from-openapi") == 0 && i + 1 < argc)
            oa.file = argv[++i];
        else if (strcmp(argv[i], "--from-python") == 0 && i + 1 < argc)
            py.module = argv[++i];
        else if (strcmp(argv[i], "--from-cli") == 0 && i + 1 < argc)
            fc.cmd = argv[++i];
        else if (strcmp(argv[i], "--hints") == 0 && i + 1 < argc)
            oa.hints_file = argv[++i];
        else if (strcmp(argv[i], "--base-url") == 0 && i + 1 < argc)
            oa.base_url = argv[++i];
        else if (strcmp(argv[i], "--name-budget") == 0 && i + 1 < argc)
            oa.name_budget = atoi(argv[++i]) ? atoi(argv[i]) : -1;
        else if (strcmp(argv[i], "--read-only") == 0)
            oa.read_only = true;
        else if (strcmp(argv[i], "--allow-external-refs") == 0)
            oa.allow_external_refs = true;
        else if (strcmp(argv[i], "--dry-run") == 0)
            oa.dry_run = true;
        else if (argv[i][0] && argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return cli_fail(TG_EXIT_USAGE, "init: unexpected argument '%s'\n%s", argv[i],
                            tg_usage_init);
    }
    bool oa_opt = oa.base_url || oa.name_budget || oa.read_only || oa.allow_external_refs ||
                  oa.dry_run || oa.hints_file;
    if (oa.file && name)
        return cli_fail(TG_EXIT_USAGE, "init: --name is for a new repository; with "
                                       "--from-openapi, run `toolgen init --name` first");
    if (!oa.file && !py.module && !fc.cmd && oa_opt)
        return cli_fail(TG_EXIT_USAGE, "init: that option goes with --from-openapi FILE\n%s",
                        tg_usage_init);
    if (fc.cmd) {
        if (oa.file || py.module || name || oa.base_url || oa.read_only || oa.allow_external_refs)
            return cli_fail(TG_EXIT_USAGE, "init: --from-cli takes --name-budget, --hints and "
                                           "--dry-run only\n%s", tg_usage_init);
        fc.name_budget = oa.name_budget;
        fc.hints_file = oa.hints_file;
        fc.dry_run = oa.dry_run;
        return init_fromcli(dir, &fc);
    }
    if (py.module) {
        bool other = oa.file || oa.base_url || oa.read_only || oa.allow_external_refs || name;
        if (other)
            return cli_fail(TG_EXIT_USAGE, "init: --from-python takes --name-budget, --hints and "
                                           "--dry-run only\n%s", tg_usage_init);
        py.name_budget = oa.name_budget;
        py.hints_file = oa.hints_file;
        py.dry_run = oa.dry_run;
        return init_python(dir, &py);
    }
    if (oa.file)
        return init_openapi(dir, &oa);
    char *path = dir ? cli_user_path(dir) : xstrdup(cli_dir());
    tg_init_report r;
    tg_err err = {0};
    int rc = tg_app_init(path, name, &r, &err);
    if (rc != 0) {
        free(path);
        return cli_fail(rc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV, "init: %s", err.msg);
    }
    printf("toolgen: initialised %s as project %s\n", path, r.name);
    for (size_t i = 0; i < r.written.n; i++)
        printf("  wrote      %s\n", r.written.v[i]);
    if (r.gitignore_added)
        printf("  appended   /.toolgen/ to .gitignore\n");
    if (r.git_created)
        printf("  git init   (a new git repository: promotions are its commits)\n");
    /* the folder as the user typed it, quoted when a shell would split it */
    char *c = !dir ? xstrdup("")
              : strpbrk(dir, " \t'\"$`\\*?&;|<>()") ? xasprintf(" -C '%s'", dir)
                                                       : xasprintf(" -C %s", dir);
    printf("Next: put a CSV file in data/, then\n"
           "  toolgen%s new \"average price by region\" --data data/FILE.csv\n"
           "  toolgen%s build\n",
           c, c);
    free(c);
    tg_init_report_free(&r);
    free(path);
    return TG_EXIT_OK;
}
