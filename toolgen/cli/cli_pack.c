/* cli_pack.c — `toolgen pack`: the repository as an MCP Bundle (.mcpb) (serve/pack.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli.h"
#include "model/repo.h"
#include "serve/pack.h"

const char tg_usage_pack[] =
    "usage: toolgen pack [-C DIR] [-o FILE]\n"
    "\n"
    "Writes the repository as an MCP Bundle (.mcpb): the manifest `toolgen build` emitted\n"
    "(generated/mcp/manifest.json), this toolgen executable with its schemas and runners, and\n"
    "the repository's toolgen.yaml, manifests, prompts and data directories. A client that\n"
    "installs it runs `toolgen serve --dev` on the repository inside the bundle. Run `toolgen\n"
    "build` first. Tools that reach an external service need project.privacy_policies in\n"
    "toolgen.yaml. docs/mcp.md#pack says what a user's machine must have.\n"
    "\n"
    "  -C DIR    pack the repository in DIR (default: the current directory)\n"
    "  -o FILE   where to write the bundle (default: NAME-VERSION.mcpb in the repository, from\n"
    "            toolgen.yaml's project section); a relative FILE is relative to the current\n"
    "            directory\n"
    "\n"
    "Exit status: 0 written, 2 usage or configuration error (nothing built, no privacy policy),\n"
    "3 environment problem (toolgen's data files missing, the file cannot be written).\n";

int cmd_pack(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-C") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else
            return cli_fail(TG_EXIT_USAGE, "pack: unknown option or missing value '%s'; see "
                                           "'toolgen help pack'", argv[i]);
    }
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
    char *name = out ? xstrdup(out) : xasprintf("%s-%s.mcpb", repo.cfg.project.name,
                                                repo.cfg.project.version);
    tg_pack_info info = {0};
    int rc = TG_EXIT_OK;
    if (tg_serve_pack(&repo, out ? AT_FDCWD : repo.root_fd, name, &info, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        bool env = strstr(err.msg, "data files") || strstr(err.msg, "cannot") ||
                   strstr(err.msg, "executable");
        rc = cli_fail(env ? TG_EXIT_ENV : TG_EXIT_USAGE, "pack: %s", msg);
    } else {
        printf("toolgen pack: wrote %s%s%s (%zu files, %zu bytes)\n", out ? "" : repo.path,
               out ? "" : "/", name, info.files, info.bytes);
    }
    free(name);
    tg_repo_release(&repo);
    return rc;
}
