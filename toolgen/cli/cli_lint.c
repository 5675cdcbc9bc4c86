/* cli_lint.c — `toolgen lint [PATH...]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/doc.h"
#include "model/lint.h"
#include "model/manifest.h"
#include "base/util.h"

const char tg_usage_lint[] =
    "usage: toolgen lint [PATH...]\n"
    "\n"
    "Checks tool manifests (tool.manifest.yaml) and the repository config (toolgen.yaml)\n"
    "against toolgen's schemas, then what a schema cannot say: each tool's input/output\n"
    "schemas are valid 2020-12 schemas, examples and tests fit them, implementation files\n"
    "exist, command/http templates name real inputs, tool names match their folders and are\n"
    "unique, config weights add up to 1.\n"
    "\n"
    "PATH may be a manifest, a toolgen.yaml, or a directory searched recursively for both.\n"
    "With no PATH: ./toolgen.yaml and the manifests folder it names (default manifests/).\n"
    "\n"
    "Every problem is printed as FILE:LINE:COL: message. Exit status: 0 clean, 1 problems\n"
    "found, 2 usage error.\n";

/* paths.manifests of the repository's toolgen.yaml, or "manifests". */
static char *manifests_dir_from_config(const tg_repo *repo)
{
    tg_doc d = {0};
    tg_err err = {0};
    char *dir = NULL;
    if (tg_doc_load_at(repo->root_fd, "toolgen.yaml", NULL, &d, &err) == 0) {
        const char *s = tg_json_get_string(tg_json_get(d.root, "paths"), "manifests");
        if (s)
            dir = xstrdup(s);
    }
    tg_doc_free(&d);
    return dir ? dir : xstrdup("manifests");
}

int cmd_lint(int argc, char **argv)
{
    const char **paths = xcalloc((size_t)argc + 2, sizeof *paths);
    char *mdir = NULL;
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            free(paths);
            return cli_fail(TG_EXIT_USAGE, "lint: unknown option '%s'; see 'toolgen help lint'", argv[i]);
        }
        paths[n++] = argv[i];
    }
    tg_repo repo;
    tg_err err = {0};
    if (cli_repo_open(&repo, &err) != 0) {
        free(paths);
        return cli_fail(TG_EXIT_USAGE, "lint: %s", err.msg);
    }
    if (n == 0) {
        if (tg_is_file_at(repo.root_fd, "toolgen.yaml"))
            paths[n++] = "toolgen.yaml";
        mdir = manifests_dir_from_config(&repo);
        if (tg_is_dir_at(repo.root_fd, mdir))
            paths[n++] = mdir;
        if (n == 0) {
            free(mdir);
            free(paths);
            tg_repo_release(&repo);
            return cli_fail(TG_EXIT_USAGE,
                            "lint: nothing to lint here (no toolgen.yaml, no manifests/); pass paths "
                            "or run in a toolgen repository (-C DIR)");
        }
    }

    tg_schemaset ss;
    char msg[2048];
    if (tg_schemaset_open(&ss, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        free(mdir);
        free(paths);
        tg_repo_release(&repo);
        return cli_fail(TG_EXIT_ENV, "%s", msg);
    }
    tg_problems probs = {0};
    tg_lint_stats stats = {0};
    int rc = TG_EXIT_OK;
    if (tg_lint_paths(&repo, &ss, paths, n, &probs, &stats, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        rc = cli_fail(TG_EXIT_USAGE, "lint: %s", msg);
    } else {
        tg_problems_sort(&probs);
        for (size_t i = 0; i < probs.n; i++) {
            const tg_problem *p = &probs.v[i];
            if (p->line > 0)
                printf("%s:%d:%d: %s\n", p->file, p->line, p->col > 0 ? p->col : 1, p->msg);
            else
                printf("%s: %s\n", p->file, p->msg);
        }
        if (stats.manifests + stats.configs == 0)
            rc = cli_fail(TG_EXIT_USAGE, "lint: no tool.manifest.yaml or toolgen.yaml under the given paths");
        else if (probs.n) {
            fprintf(stderr, "toolgen lint: %zu problem%s in %d manifest%s and %d config%s\n", probs.n,
                    probs.n == 1 ? "" : "s", stats.manifests, stats.manifests == 1 ? "" : "s",
                    stats.configs, stats.configs == 1 ? "" : "s");
            rc = TG_EXIT_FAIL;
        } else {
            fprintf(stderr, "toolgen lint: %d manifest%s and %d config%s OK\n", stats.manifests,
                    stats.manifests == 1 ? "" : "s", stats.configs, stats.configs == 1 ? "" : "s");
        }
    }
    tg_problems_free(&probs);
    tg_schemaset_close(&ss);
    free(mdir);
    free(paths);
    tg_repo_release(&repo);
    return rc;
}
