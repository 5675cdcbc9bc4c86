/* cli_serve.c — `toolgen serve`: the tools of this repository as an MCP server over stdio. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "model/config.h"
#include "model/manifest.h"
#include "run/toolrun.h"
#include "serve/core.h"
#include "serve/resources.h"
#include "serve/stdio.h"
#include "serve/tools.h"

const char tg_usage_serve[] =
    "usage: toolgen serve [-C DIR] [--dev] [--read-only] [--page-size N] [--max-message BYTES]\n"
    "\n"
    "Serves the tools of a toolgen repository to MCP clients (Claude Desktop, IDEs, agents)\n"
    "over stdio: newline-delimited JSON-RPC on stdin and stdout. stdout carries protocol\n"
    "messages only; everything else, including one JSON log line per request (id, method,\n"
    "tool, duration, status, error code; never arguments), goes to stderr. Both protocol eras\n"
    "are spoken, chosen per request: 2026-07-28 (stateless, server/discover) and 2024-11-05\n"
    "to 2025-11-25 (initialize). Every call runs in the sandbox, as `toolgen run` does, with\n"
    "progress notifications and cancellation. Resources: the Agent Skill, each tool's\n"
    "reference page and JSON Schemas, and the files the last calls wrote.\n"
    "docs/mcp.md describes what is supported.\n"
    "\n"
    "  -C DIR              serve the repository in DIR (default: the current directory)\n"
    "  --dev               every tool of the working tree's manifests/ that lints cleanly (the\n"
    "                      mode a tool author uses); the others are listed on stderr. This is\n"
    "                      the only tool source so far, and what serve uses without options\n"
    "  --read-only         refuse tools that are not read-only with FORBIDDEN (also READ_ONLY=1)\n"
    "  --page-size N       tools per tools/list page (default 100)\n"
    "  --max-message BYTES longest message accepted (default 4194304); longer ones are refused\n"
    "                      with -32600 and skipped\n"
    "\n"
    "Not yet: --staging and the registry of promoted tools, and --http HOST:PORT (Streamable\n"
    "HTTP); both are usage errors for now.\n"
    "\n"
    "The server ends when stdin closes (a call still running is killed, unless more requests\n"
    "wait) or on SIGINT/SIGTERM.\n"
    "Exit status: 0 clean end, 2 usage or configuration error, 3 environment problem (the\n"
    "reply stream broke, no manifests folder).\n";

typedef struct serve_opts {
    const char *dir;
    bool read_only;
    size_t page_size, max_message;
} serve_opts;

static bool parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0 || s[0] == '-')
        return false;
    *out = (size_t)v;
    return true;
}

static int parse_opts(int argc, char **argv, serve_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--dev") == 0) {
            continue;
        } else if (strcmp(a, "--read-only") == 0) {
            o->read_only = true;
        } else if (strcmp(a, "-C") == 0 && next) {
            o->dir = argv[++i];
        } else if (strcmp(a, "--page-size") == 0 && next) {
            if (!parse_size(argv[++i], &o->page_size))
                return cli_fail(TG_EXIT_USAGE, "serve: --page-size needs a positive number");
        } else if (strcmp(a, "--max-message") == 0 && next) {
            if (!parse_size(argv[++i], &o->max_message))
                return cli_fail(TG_EXIT_USAGE, "serve: --max-message needs a positive number of bytes");
        } else if (strcmp(a, "--staging") == 0) {
            return cli_fail(TG_EXIT_USAGE, "serve: --staging is not there yet (no registry of staged "
                                           "tools); use --dev to serve the working tree's manifests");
        } else if (strcmp(a, "--http") == 0 || strncmp(a, "--http=", 7) == 0) {
            return cli_fail(TG_EXIT_USAGE, "serve: --http is not there yet; serve speaks stdio only "
                                           "(docs/mcp.md)");
        } else {
            return cli_fail(TG_EXIT_USAGE, "serve: unknown option or missing value '%s'; see "
                                           "'toolgen help serve'", a);
        }
    }
    if (getenv("READ_ONLY") && strcmp(getenv("READ_ONLY"), "1") == 0)
        o->read_only = true;
    return TG_EXIT_OK;
}

/* SIGINT/SIGTERM/SIGHUP: stop the call in flight (the sandbox kills its tree) and the loop. */
static volatile sig_atomic_t cancel_flag, stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    cancel_flag = 1;
    stop_flag = 1;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is an error to handle, not a death */
}

static void report_tools(const tg_serve_tools *tools)
{
    for (size_t i = 0; i < tools->n_skipped; i++)
        fprintf(stderr, "toolgen: serve: left out %s (run `toolgen lint`)\n", tools->skipped[i]);
    fprintf(stderr, "toolgen: serve: %zu tool%s over stdio\n", tools->n, tools->n == 1 ? "" : "s");
}

static int serve(const serve_opts *o, int proto_fd)
{
    tg_err err = {0};
    char msg[2048];
    /* one repository, opened once, for every request the server answers */
    tg_repo repo;
    if (cli_repo_open(&repo, &err) != 0)
        return cli_fail(TG_EXIT_USAGE, "serve: %s", err.msg);
    if (tg_repo_load_config(&repo, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        tg_repo_release(&repo);
        return cli_fail(TG_EXIT_USAGE, "serve: %s", msg);
    }
    const tg_config *config = &repo.cfg;
    tg_serve_tools tools;
    if (tg_serve_tools_load_dev(&tools, &repo, &err) != 0) {
        tg_repo_release(&repo);
        return cli_fail(TG_EXIT_ENV, "serve: %s", err.msg);
    }
    report_tools(&tools);
    tg_serve_resources resources;
    tg_toolrun_env env = {0};
    int rc = TG_EXIT_OK;
    if (tg_serve_resources_build(&resources, &tools, &config->project, &err) != 0) {
        rc = cli_fail(TG_EXIT_USAGE, "serve: %s", err.msg);
        goto out_tools;
    }
    if (tg_toolrun_env_open(&env, &repo, config->doc.root, &err) != 0) {
        rc = cli_fail(TG_EXIT_USAGE, "serve: %s", err.msg);
        goto out_resources;
    }
    tg_serve_artifacts kept = {0};
    /* warm workers, one call each (docs/sandbox.md#the-warm-pool) */
    tg_pool *pool = tg_pool_new(&env.ctx);
    tg_serve_tools_prepare_pool(&tools, pool);
    tg_serve_config c = {
        .tools = &tools,
        .resources = &resources,
        .call = {.run = tg_serve_run_pool, .run_ctx = pool, .read_only = o->read_only,
                 .cancel = &cancel_flag, .artifacts = &kept},
        .page_size = o->page_size,
        .list_ttl_ms = 60000,
        .instructions = "Tools built by toolgen from this repository's manifests. Each tool's "
                        "description says when to use it; failed calls return an error code "
                        "and guidance. The resources hold the Agent Skill (SKILL.md), a "
                        "reference page per tool and the tools' JSON Schemas.",
    };
    tg_serve_stdio io = {.in_fd = 0, .out_fd = proto_fd, .log_fd = 2,
                         .max_message = o->max_message, .cancel = &cancel_flag, .stop = &stop_flag};
    catch_signals();
    if (tg_serve_stdio_run(&c, &io, &err) != 0)
        rc = cli_fail(TG_EXIT_ENV, "serve: %s", err.msg);
    tg_serve_artifacts_free(&kept);
    tg_pool_free(pool);
    tg_toolrun_env_close(&env);
out_resources:
    tg_serve_resources_free(&resources);
out_tools:
    tg_serve_tools_free(&tools);
    tg_repo_release(&repo);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    serve_opts o = {0};
    int code = parse_opts(argc, argv, &o);
    if (code != TG_EXIT_OK)
        return code;
    if (o.dir && cli_set_dir(o.dir) != 0)
        return cli_fail(TG_EXIT_USAGE, "serve: -C %s: %s", o.dir, strerror(errno));
    tg_err err = {0};
    int proto = tg_serve_stdio_claim_stdout(&err);
    if (proto < 0)
        return cli_fail(TG_EXIT_ENV, "serve: %s", err.msg);
    code = serve(&o, proto);
    close(proto);
    return code;
}
