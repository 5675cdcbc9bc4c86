/* cli_pack.c — `toolgen pack`: the repository as an MCP Bundle (.mcpb) (serve/pack.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "model/repo.h"
#include "serve/pack.h"

const char tg_usage_pack[] =
    "usage: toolgen pack [-C DIR] [-o FILE] [--staging | --dev] [--workflow]\n"
    "\n"
    "Writes the repository as an MCP Bundle (.mcpb) that serves the tools the user approved:\n"
    "the promoted tools of the registry, as `toolgen serve` does. The bundle holds its MCP\n"
    "Bundle manifest (the tools it serves), this toolgen executable with its schemas and\n"
    "runners, and the repository's toolgen.yaml, registry, prompts and data directories; a\n"
    "client that installs it runs `toolgen serve` on the repository inside the bundle. What it\n"
    "serves is printed, and the bundle's SHA-256, which the official MCP registry's entry\n"
    "(generated/mcp/server.json) needs as fileSha256. Tools that reach an external service\n"
    "need project.privacy_policies in toolgen.yaml. docs/mcp.md#pack says what a user's\n"
    "machine must have.\n"
    "\n"
    "  -C DIR      pack the repository in DIR (default: the current directory)\n"
    "  -o FILE     where to write the bundle (default: dist/NAME-VERSION.mcpb in the repository,\n"
    "              from toolgen.yaml's project section; a dist/ that pack creates ignores itself\n"
    "              in git); a relative FILE is relative to the current directory\n"
    "  --staging   also serve the candidates awaiting approval, marked as such\n"
    "  --dev       serve every tool of the working tree's manifests that lints, reviewed or not\n"
    "              (what a tool author tries out; nobody approved them)\n"
    "  --workflow  keep the workflow tools toolgen.yaml turns on (serve.workflow: generate_tool,\n"
    "              promote_tool, ...); without it the bundle's server leaves them out\n"
    "\n"
    "Exit status: 0 written, 2 usage or configuration error (no promoted tool to serve, no\n"
    "privacy policy), 3 environment problem (toolgen's data files missing, the file cannot be\n"
    "written).\n";

static int parse_opts(int argc, char **argv, const char **dir, const char **out,
                      tg_pack_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-C") == 0 && i + 1 < argc) {
            *dir = argv[++i];
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            *out = argv[++i];
        } else if (strcmp(a, "--dev") == 0 || strcmp(a, "--staging") == 0) {
            tg_serve_source src = a[2] == 'd' ? TG_SERVE_SOURCE_DEV : TG_SERVE_SOURCE_STAGING;
            if (o->source != TG_SERVE_SOURCE_REGISTRY && o->source != src)
                return cli_fail(TG_EXIT_USAGE, "pack: --dev and --staging exclude each other");
            o->source = src;
        } else if (strcmp(a, "--workflow") == 0) {
            o->workflow = true;
        } else {
            return cli_fail(TG_EXIT_USAGE, "pack: unknown option or missing value '%s'; see "
                                           "'toolgen help pack'", a);
        }
    }
    return TG_EXIT_OK;
}

/* What the bundle serves, said before where it went: a bundle of unreviewed tools must not
 * pass for one of approved tools. */
static void report(const tg_repo *repo, const tg_pack_opts *o, const tg_pack_info *info)
{
    static const char *const what[] = {
        "the promoted tools of the registry",
        "--staging: the promoted tools and the candidates awaiting the user's approval, marked as "
        "such",
        "--dev: every tool of the working tree's manifests that lints, reviewed or not (nobody "
        "approved them)"};
    printf("toolgen pack: the bundle serves %s: %zu tool%s", what[o->source], info->tools.n,
           info->tools.n == 1 ? "" : "s");
    for (size_t i = 0; i < info->tools.n; i++)
        printf("%s%s", i ? ", " : " (", info->tools.v[i]);
    printf("%s\n", info->tools.n ? ")" : "");
    for (size_t i = 0; i < info->skipped.n; i++)
        printf("toolgen pack: left out %s\n", info->skipped.v[i]);
    if (o->workflow)
        printf("toolgen pack: --workflow: the agent can also generate, stage and promote tools "
               "in the bundle (generate_tool, promote_tool, ...)\n");
    else if (repo->cfg.serve_workflow)
        printf("toolgen pack: toolgen.yaml turns the workflow on; the bundle leaves it out "
               "(pack --workflow keeps it)\n");
}

#define PACK_DIR "dist"

/* The default output's folder: a build product, so one pack creates ignores itself in git
 * (as Python's build backends do); a folder the user made is left as it is. *made: created
 * now (and to be removed if nothing is written into it). */
static int make_dist(const tg_repo *repo, bool *made, tg_err *err)
{
    *made = false;
    if (tg_is_dir_at(repo->root_fd, PACK_DIR))
        return 0;
    if (tg_mkdirs_at(repo->root_fd, PACK_DIR, err) != 0)
        return -1;
    *made = true;
    static const char ignore[] = "# written by toolgen pack: bundles are build products\n*\n";
    return tg_write_file_atomic_at(repo->root_fd, PACK_DIR "/.gitignore", ignore,
                                   sizeof ignore - 1, err);
}

static void unmake_dist(const tg_repo *repo)
{
    unlinkat(repo->root_fd, PACK_DIR "/.gitignore", 0);
    unlinkat(repo->root_fd, PACK_DIR, AT_REMOVEDIR);
}

int cmd_pack(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    tg_pack_opts o = {.source = TG_SERVE_SOURCE_REGISTRY};
    int prc = parse_opts(argc, argv, &dir, &out, &o);
    if (prc != TG_EXIT_OK)
        return prc;
    if (dir && cli_set_dir(dir) != 0)
        return cli_fail(TG_EXIT_USAGE, "pack: -C %s: %s", dir, strerror(errno));
    tg_err err = {0};
    char msg[2048];
    tg_repo repo;
    if (cli_repo_open(&repo, &err) != 0)
        return cli_fail(TG_EXIT_USAGE, "pack: %s", err.msg);
    if (tg_repo_load_config(&repo, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        tg_repo_release(&repo);
        return cli_fail(TG_EXIT_USAGE, "pack: %s", msg);
    }
    char *name = out ? xstrdup(out) : xasprintf(PACK_DIR "/%s-%s.mcpb", repo.cfg.project.name,
                                                repo.cfg.project.version);
    tg_pack_info info = {0};
    int rc = TG_EXIT_OK;
    bool made = false;
    if (!out && make_dist(&repo, &made, &err) != 0) {
        rc = cli_fail(TG_EXIT_ENV, "pack: cannot create %s/: %s", PACK_DIR, err.msg);
    } else if (tg_serve_pack(&repo, &o, out ? AT_FDCWD : repo.root_fd, name, &info, &err) != 0) {
        if (made)
            unmake_dist(&repo);
        tg_err_format(&err, msg, sizeof msg);
        bool env = strstr(err.msg, "data files") || strstr(err.msg, "cannot") ||
                   strstr(err.msg, "executable");
        rc = cli_fail(env ? TG_EXIT_ENV : TG_EXIT_USAGE, "pack: %s", msg);
    } else {
        report(&repo, &o, &info);
        printf("toolgen pack: wrote %s%s%s (%zu files, %zu bytes)\n", out ? "" : repo.path,
               out ? "" : "/", name, info.files, info.bytes);
        /* what the registry's entry (generated/mcp/server.json) needs once it is uploaded */
        printf("toolgen pack: sha256 %s (fileSha256 of its package in mcp/server.json)\n",
               info.sha256);
    }
    tg_pack_info_release(&info);
    free(name);
    tg_repo_release(&repo);
    return rc;
}
