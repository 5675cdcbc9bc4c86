/* cli_init.c — `toolgen init [DIR] [--name NAME]`: a new repository (app/init.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/init.h"
#include "cli/cli.h"

const char tg_usage_init[] =
    "usage: toolgen init [DIR] [--name NAME]\n"
    "\n"
    "Makes DIR (default: the -C folder, else the current one; created when missing) a toolgen\n"
    "repository: toolgen.yaml (the built-in generator: no model, no network), manifests/,\n"
    "data/ and prompts/, a CI job running `toolgen check` and `toolgen diff --check`\n"
    "(.github/workflows/toolgen.yml), .toolgen/ in .gitignore, and `git init` when DIR is not\n"
    "in a git working tree. Folders that exist are kept as they are; toolgen.yaml or the CI job\n"
    "existing is an error, and nothing is written (init never overwrites).\n"
    "  --name NAME   project.name, kebab-case (default: DIR's name in kebab-case)\n"
    "\n"
    "Exit status: 0 done, 2 usage error or DIR is a toolgen repository already, 3 a file or\n"
    "git could not be written.\n";

int cmd_init(int argc, char **argv)
{
    const char *dir = NULL, *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return cli_print_usage(tg_usage_init, TG_EXIT_OK);
        if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (argv[i][0] && argv[i][0] != '-' && !dir)
            dir = argv[i];
        else
            return cli_fail(TG_EXIT_USAGE, "init: unexpected argument '%s'\n%s", argv[i],
                            tg_usage_init);
    }
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
