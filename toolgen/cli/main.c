/* main.c — `toolgen [-C DIR] COMMAND ...`: global options, dispatch, help and version. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <yaml.h>

#include "cli/cli.h"
#include "base/version.h"
#include "run/cmdrunner.h"

static const tg_command commands[] = {
    {"build", cmd_build, "build generated/ from the manifests, incrementally (like ninja)",
     tg_usage_build},
    {"check", cmd_check, "frozen build + diff of generated/ against the last commit (for CI)",
     tg_usage_check},
    {"clean", cmd_clean, "remove what toolgen generated and its build state", tg_usage_clean},
    {"diff", cmd_diff, "review the tools changed between revisions: breaking changes, versions",
     tg_usage_diff},
    {"explain", cmd_explain, "say why each stage would run, or that it is up to date",
     tg_usage_explain},
    {"feedback", cmd_feedback, "record the user's reply to a staged tool (output, then decision)",
     tg_usage_feedback},
    {"graph", cmd_graph, "print the stage graph in Graphviz dot", tg_usage_graph},
    {"init", cmd_init,
     "make a new toolgen repository, or draft tools from OpenAPI, Python or a CLI",
     tg_usage_init},
    {"lint", cmd_lint, "check manifests and toolgen.yaml; print every problem as file:line:col",
     tg_usage_lint},
    {"log", cmd_log, "the promotion history from git (commits \"promote TOOL vVERSION\")",
     tg_usage_log},
    {"new", cmd_new, "generate, validate and stage a tool from an intent (docs/generate.md)",
     tg_usage_new},
    {"pack", cmd_pack, "write the promoted tools and their server as an MCP Bundle (.mcpb)",
     tg_usage_pack},
    {"promote", cmd_promote, "promote an approved tool into the active registry as one git commit",
     tg_usage_promote},
    {"reject", cmd_reject, "reject a staged tool with the user's notes (--refine: regenerate)",
     tg_usage_reject},
    {"run", cmd_run, "run one call of a tool in the sandbox and print its result", tg_usage_run},
    {"serve", cmd_serve, "serve the promoted tools (--dev: the manifests) to MCP clients",
     tg_usage_serve},
    {"stage", cmd_stage, "snapshot a built tool into the staging registry (DRAFT -> STAGED)",
     tg_usage_stage},
    {"status", cmd_status, "every tool's lifecycle state, versions and next command", tg_usage_lcstatus},
    {"validate", cmd_validate, "validate JSON/YAML instances against a JSON Schema (2020-12)",
     tg_usage_validate},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static const char main_usage[] =
    "usage: toolgen [-C DIR] COMMAND [ARGS...]\n"
    "       toolgen --help | --version | help COMMAND\n"
    "\n"
    "toolgen builds, validates and ships the tools that LLM agents call. Every tool is one\n"
    "manifest, manifests/<name>/tool.manifest.yaml: the single source of truth.\n"
    "\n"
    "Global options:\n"
    "  -C DIR       run as if started in DIR\n"
    "  -h, --help   show this help\n"
    "  --version    show the version\n"
    "\n"
    "Commands:\n";

static const char main_footer[] =
    "\n"
    "Exit status: 0 success, 1 the thing checked is not OK, 2 usage or configuration error,\n"
    "3 environment problem. `toolgen help COMMAND` shows a command's options.\n";

static int print_main_usage(FILE *out, int code)
{
    fputs(main_usage, out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-10s %s\n", "help", "show the help of a command");
    fputs(main_footer, out);
    return code;
}

static const tg_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "toolgen: '%s' is not a toolgen command. Commands:", name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(stderr, " %s", commands[i].name);
    fputs(". See 'toolgen --help'.\n", stderr);
    return TG_EXIT_USAGE;
}

static int print_version(void)
{
    printf("toolgen %s\n", TOOLGEN_VERSION);
    printf("libyaml %s, cJSON %s\n", yaml_get_version_string(), cJSON_Version());
    return TG_EXIT_OK;
}

int main(int argc, char **argv)
{
    int rc;
    if (tg_cmdrunner_main(argc, argv, &rc)) /* a command worker's runner, in its sandbox */
        return rc;
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return print_main_usage(stdout, TG_EXIT_OK);
        if (strcmp(a, "--version") == 0)
            return print_version();
        if (strcmp(a, "-C") == 0 || strncmp(a, "-C", 2) == 0) {
            const char *dir = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dir)
                return cli_fail(TG_EXIT_USAGE, "-C needs a directory");
            if (cli_set_dir(dir) != 0)
                return cli_fail(TG_EXIT_USAGE, "-C %s: %s", dir, strerror(errno));
            i++;
            continue;
        }
        fprintf(stderr, "toolgen: unknown option '%s'\n", a);
        return print_main_usage(stderr, TG_EXIT_USAGE);
    }
    if (i >= argc)
        return print_main_usage(stderr, TG_EXIT_USAGE);

    const char *name = argv[i];
    if (strcmp(name, "help") == 0) {
        if (i + 1 >= argc)
            return print_main_usage(stdout, TG_EXIT_OK);
        const tg_command *c = find_command(argv[i + 1]);
        if (!c)
            return unknown_command(argv[i + 1]);
        return cli_print_usage(c->usage, TG_EXIT_OK);
    }
    if (strcmp(name, "version") == 0)
        return print_version();
    const tg_command *c = find_command(name);
    if (!c)
        return unknown_command(name);
    for (int j = i + 1; j < argc; j++) {
        if (strcmp(argv[j], "--") == 0)
            break;
        if (strcmp(argv[j], "-h") == 0 || strcmp(argv[j], "--help") == 0)
            return cli_print_usage(c->usage, TG_EXIT_OK);
    }
    return c->run(argc - i, argv + i);
}
