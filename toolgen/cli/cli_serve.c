/* cli_serve.c — `toolgen serve`: the tools of this repository as an MCP server over stdio or
 * Streamable HTTP. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/server.h"
#include "base/util.h"
#include "cli/cli.h"
#include "model/config.h"
#include "serve/httpcheck.h"
#include "serve/mrtr.h"
#include "serve/stdio.h"

const char tg_usage_serve[] =
    "usage: toolgen serve [-C DIR] [--staging | --dev] [--toolset NAME]... [--read-only]\n"
    "                     [--no-workflow] [--http HOST:PORT] [--allow-origin O]\n"
    "                     [--max-concurrency N] [--page-size N] [--max-message BYTES]\n"
    "                     [--progress-ms MS] [--session-idle S] [--advertise URL]\n"
    "                     [--peer URL]...\n"
    "\n"
    "Serves the promoted tools of a toolgen repository's registry to MCP clients (Claude\n"
    "Desktop, IDEs, agents) — each from the snapshot the user approved, checked against its\n"
    "recorded hashes (a tampered one is left out and named on stderr) —\n"
    "over stdio by default: newline-delimited JSON-RPC on stdin and stdout. stdout carries\n"
    "protocol messages only; everything else, including one JSON log line per request (id,\n"
    "method, tool, duration, status, error code; never arguments), goes to stderr. Both\n"
    "protocol eras are spoken, chosen per request: 2026-07-28 (stateless, server/discover) and\n"
    "2024-11-05 to 2025-11-25 (initialize). Every call runs in the sandbox, as `toolgen run`\n"
    "does, with progress notifications and cancellation; several calls run at once, so a slow\n"
    "tool blocks no other request. Resources: the Agent Skill, each tool's reference page and\n"
    "JSON Schemas, and the files the last calls wrote. Prompts: the templates of prompts/, with\n"
    "completion of tool names and data files. A tool may log to the client and report its\n"
    "progress (toolgen_helpers.log, progress), and ask the client what it lacks: the user's\n"
    "choice, the client's model, its roots (toolgen_helpers.ask, sample, roots) — 2026-07-28\n"
    "input_required with a signed requestState, or legacy requests the call waits for. The\n"
    "tool set is read again when its source changes (a promotion; with --dev an edited\n"
    "manifest) and the clients are told: list_changed over stdio or a legacy session's GET\n"
    "stream, subscriptions/listen in 2026-07-28; calls in flight finish with the tools they\n"
    "started with. Long calls (a tool whose manifest says task:, a generation, a staged run)\n"
    "become tasks for 2026-07-28 clients of the tasks extension, which poll, answer and\n"
    "cancel them (tasks/get, update, cancel). docs/mcp.md describes what is supported.\n"
    "\n"
    "  -C DIR              serve the repository in DIR (default: the current directory)\n"
    "  --staging           also the STAGED and APPROVED candidates of the registry, marked as\n"
    "                      such in their title, description and _meta (in place of the active\n"
    "                      version of the same tool)\n"
    "  --dev               every tool of the working tree's manifests/ that lints cleanly (the\n"
    "                      mode a tool author uses); the others are listed on stderr\n"
    "  --toolset NAME      also serve a built-in toolset of toolgen (docs/toolsets.md), e.g.\n"
    "                      calculator, code (python_execute, node_execute and sessions),\n"
    "                      code-edit (generate_code_snippet, refactor_code_snippet: checked\n"
    "                      code from a model), files (file_system, on the code toolset's\n"
    "                      sessions) or web (web_fetch, from the hosts of web.allow_hosts;\n"
    "                      docs/web.md);\n"
    "                      repeatable, besides serve.toolsets in toolgen.yaml.\n"
    "                      Its tools come before the repository's: one of the same name hides\n"
    "                      the repository's\n"
    "  --read-only         refuse tools that are not read-only with FORBIDDEN (also READ_ONLY=1)\n"
    "  --no-workflow       leave out the workflow tools even when toolgen.yaml turns them on\n"
    "                      (serve.workflow); an MCP Bundle runs this unless packed --workflow\n"
    "  --http HOST:PORT    serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio\n"
    "                      (e.g. 127.0.0.1:8080; [::1]:8080; port 0 picks a free one). The\n"
    "                      address is printed on stderr. Beyond loopback (e.g. 0.0.0.0:8080)\n"
    "                      serve needs TOOLGEN_SERVE_TOKEN, a secret of 16 characters or more\n"
    "                      that every request must carry as 'Authorization: Bearer TOKEN';\n"
    "                      on loopback the token is asked for only when it is set\n"
    "                      Several instances behind a load balancer share one secret,\n"
    "                      TOOLGEN_SERVE_STATE_KEY (32 characters or more), with which any of\n"
    "                      them continues an input_required call or a legacy session\n"
    "                      (docs/scale.md)\n"
    "  --allow-origin O    also accept requests whose Origin header is O (exactly, e.g.\n"
    "                      https://app.example.com); loopback origins are always accepted,\n"
    "                      others get 403 (DNS rebinding protection). Repeatable\n"
    "  --max-concurrency N tool calls running at once (default 4, at most 256); more wait in\n"
    "                      a queue\n"
    "  --page-size N       tools per tools/list page (default 100)\n"
    "  --max-message BYTES longest message accepted (default 4194304); longer ones are refused\n"
    "                      with -32600 (HTTP: 413)\n"
    "  --progress-ms MS    between progress notifications of a long call (default 10000)\n"
    "  --session-idle S    HTTP: a legacy session that sends no request for S seconds ends\n"
    "                      (default 1800)\n"
    "  --advertise URL     HTTP behind a load balancer: the URL the other instances reach\n"
    "                      this one at (default: the --http address, unless 0.0.0.0 or ::),\n"
    "                      to which they hand a legacy client's answers to this one's calls\n"
    "                      and the calls of the code sessions this one holds\n"
    "  --peer URL          HTTP behind a load balancer: another instance's URL, to which a\n"
    "                      legacy notifications/cancelled goes when it names no call this\n"
    "                      one runs or relayed (so a cancel reaches its call wherever round\n"
    "                      robin sends it). Repeatable: every other instance\n"
    "\n"

    "Over stdio the server ends when stdin closes (calls still running are killed, unless more\n"
    "requests wait); both transports end on SIGINT/SIGTERM, killing the calls in flight.\n"
    "Exit status: 0 clean end, 2 usage or configuration error, 3 environment problem (the\n"
    "reply stream broke, no manifests folder, the HTTP address cannot be bound).\n";

#define MAX_ORIGINS 16
#define MAX_PEERS 64
#define MAX_TOOLSETS 32

typedef struct serve_opts {
    const char *dir;
    bool read_only;
    bool no_workflow;
    tg_serve_source source; /* default: the registry's promoted tools */
    size_t page_size, max_message, max_concurrency, progress_ms, session_idle_s;
    const char *http;          /* HOST:PORT; NULL: stdio */
    const char *advertise;     /* --advertise URL; NULL: the bound address's */
    char http_host[256];
    unsigned http_port;
    const char *origins[MAX_ORIGINS + 1];
    size_t n_origins;
    const char *peers[MAX_PEERS + 1]; /* --peer URL... */
    size_t n_peers;
    const char *toolsets[MAX_TOOLSETS];
    size_t n_toolsets;
} serve_opts;

/* HOST:PORT, [V6]:PORT or :PORT (127.0.0.1) into o->http_host / http_port. */
static bool parse_hostport(const char *s, serve_opts *o)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon - s >= (long)sizeof o->http_host)
        return false;
    size_t n = (size_t)(colon - s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        memcpy(o->http_host, s + 1, n - 2);
        o->http_host[n - 2] = '\0';
    } else if (n == 0) {
        snprintf(o->http_host, sizeof o->http_host, "127.0.0.1");
    } else {
        memcpy(o->http_host, s, n);
        o->http_host[n] = '\0';
    }
    char *end;
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || port > 65535 || colon[1] == '-')
        return false;
    o->http_port = (unsigned)port;
    return true;
}

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
        if (strcmp(a, "--dev") == 0 || strcmp(a, "--staging") == 0) {
            tg_serve_source src = a[2] == 'd' ? TG_SERVE_SOURCE_DEV : TG_SERVE_SOURCE_STAGING;
            if (o->source != TG_SERVE_SOURCE_REGISTRY && o->source != src)
                return cli_fail(TG_EXIT_USAGE, "serve: --dev and --staging exclude each other: "
                                               "--dev serves the working tree's manifests, "
                                               "--staging the registry with its candidates");
            o->source = src;
        } else if (strcmp(a, "--read-only") == 0) {
            o->read_only = true;
        } else if (strcmp(a, "--no-workflow") == 0) {
            o->no_workflow = true;
        } else if (strcmp(a, "-C") == 0 && next) {
            o->dir = argv[++i];
        } else if (strcmp(a, "--page-size") == 0 && next) {
            if (!parse_size(argv[++i], &o->page_size))
                return cli_fail(TG_EXIT_USAGE, "serve: --page-size needs a positive number");
        } else if (strcmp(a, "--max-message") == 0 && next) {
            if (!parse_size(argv[++i], &o->max_message))
                return cli_fail(TG_EXIT_USAGE, "serve: --max-message needs a positive number of bytes");
        } else if (strcmp(a, "--http") == 0 && next) {
            o->http = argv[++i];
            if (!parse_hostport(o->http, o))
                return cli_fail(TG_EXIT_USAGE, "serve: --http %s: expected HOST:PORT (e.g. "
                                               "127.0.0.1:8080, [::1]:0, :8080)", o->http);
        } else if (strcmp(a, "--max-concurrency") == 0 && next) {
            if (!parse_size(argv[++i], &o->max_concurrency) || o->max_concurrency > 256)
                return cli_fail(TG_EXIT_USAGE, "serve: --max-concurrency needs a number from 1 "
                                               "to 256");
        } else if (strcmp(a, "--progress-ms") == 0 && next) {
            if (!parse_size(argv[++i], &o->progress_ms) || o->progress_ms > 3600000)
                return cli_fail(TG_EXIT_USAGE, "serve: --progress-ms needs a number of "
                                               "milliseconds from 1 to 3600000");
        } else if (strcmp(a, "--session-idle") == 0 && next) {
            if (!parse_size(argv[++i], &o->session_idle_s) || o->session_idle_s > 86400 * 30)
                return cli_fail(TG_EXIT_USAGE, "serve: --session-idle needs a number of seconds "
                                               "from 1 to 2592000");
        } else if (strcmp(a, "--advertise") == 0 && next) {
            o->advertise = argv[++i];
            if ((!tg_str_startswith(o->advertise, "http://") &&
                 !tg_str_startswith(o->advertise, "https://")) ||
                strpbrk(o->advertise, " \t\r\n"))
                return cli_fail(TG_EXIT_USAGE, "serve: --advertise %s: expected the URL the other "
                                               "instances reach this one at, e.g. "
                                               "http://10.0.0.11:8080/mcp", o->advertise);
        } else if (strcmp(a, "--peer") == 0 && next) {
            const char *u = argv[++i];
            if (o->n_peers == MAX_PEERS)
                return cli_fail(TG_EXIT_USAGE, "serve: at most %d --peer", MAX_PEERS);
            if ((!tg_str_startswith(u, "http://") && !tg_str_startswith(u, "https://")) ||
                strpbrk(u, " \t\r\n"))
                return cli_fail(TG_EXIT_USAGE, "serve: --peer %s: expected another instance's "
                                               "URL, e.g. http://10.0.0.12:8080/mcp", u);
            o->peers[o->n_peers++] = u;
        } else if (strcmp(a, "--toolset") == 0 && next) {
            if (o->n_toolsets == MAX_TOOLSETS)
                return cli_fail(TG_EXIT_USAGE, "serve: at most %d --toolset", MAX_TOOLSETS);
            o->toolsets[o->n_toolsets++] = argv[++i];
        } else if (strcmp(a, "--allow-origin") == 0 && next) {
            if (o->n_origins == MAX_ORIGINS)
                return cli_fail(TG_EXIT_USAGE, "serve: at most %d --allow-origin", MAX_ORIGINS);
            o->origins[o->n_origins++] = argv[++i];
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

/* What serve reads at start-up, said on stderr (tg_app_serve_opts.opened). */
typedef struct report_ctx {
    tg_serve_source source;
    const char *transport;
} report_ctx;

static void report_tools(void *ud, const tg_app_serve_report *rep)
{
    const report_ctx *r = ud;
    const tg_serve_tools *tools = rep->tools;
    const tg_serve_prompts *prompts = rep->prompts;
    for (size_t i = 0; i < tools->n_skipped; i++)
        fprintf(stderr, "toolgen: serve: left out %s (run `toolgen %s`)\n", tools->skipped[i],
                r->source == TG_SERVE_SOURCE_DEV ? "lint" : "check");
    for (size_t i = 0; i < prompts->n_skipped; i++)
        fprintf(stderr, "toolgen: serve: left out the prompt template %s\n", prompts->skipped[i]);
    static const char *const from[] = {"the registry's promoted tools",
                                        "the registry's promoted and staged tools",
                                        "the working tree's manifests"};
    fprintf(stderr, "toolgen: serve: %zu tool%s over %s, and %zu prompt%s (from %s)\n",
            tools->n, tools->n == 1 ? "" : "s", r->transport, prompts->n,
            prompts->n == 1 ? "" : "s", from[r->source]);
    for (size_t i = 0; i < rep->n_sets; i++)
        fprintf(stderr, "toolgen: serve: toolset %s: %zu tool%s\n", rep->set_names[i],
                rep->sets[i].n, rep->sets[i].n == 1 ? "" : "s");
    if (strcmp(r->transport, "stdio") != 0) /* behind a load balancer, which one this is */
        fprintf(stderr, "toolgen: serve: instance %s (code session handles name it)\n",
                rep->instance);
    if (r->source == TG_SERVE_SOURCE_REGISTRY && tools->n == 0 && rep->n_sets == 0)
        fprintf(stderr, "toolgen: serve: the registry has no promoted tool yet; serve the "
                        "working tree's manifests with --dev, or promote one (docs/lifecycle.md)\n");
}

/* Tests start the server on port 0 and read the port from this line. */
static void on_listening(void *ctx, const char *host, unsigned port)
{
    (void)ctx;
    bool v6 = strchr(host, ':') != NULL;
    fprintf(stderr, "toolgen: serve: listening on http://%s%s%s:%u/mcp\n", v6 ? "[" : "", host,
            v6 ? "]" : "", port);
}

#define TOKEN_ENV "TOOLGEN_SERVE_TOKEN"
#define TOKEN_MIN 16

/* The bearer token of HTTP serving, from TOOLGEN_SERVE_TOKEN (*token NULL when unset), which is
 * then taken out of the environment: nothing serve starts inherits it. Required when the
 * server binds beyond loopback, where any machine can connect (docs/mcp.md#authentication). */
static int http_token(const char *host, char **token, tg_err *err)
{
    const char *v = getenv(TOKEN_ENV);
    *token = v && *v ? xstrdup(v) : NULL;
    unsetenv(TOKEN_ENV);
    if (!*token && !tg_http_bind_is_loopback(host))
        return tg_err_set(err, "%s is reachable from other machines, and a server there needs "
                          "a token: set " TOKEN_ENV " to a secret of %d characters or more (e.g. "
                          "`export " TOKEN_ENV "=$(head -c 24 /dev/urandom | base64)`), which "
                          "clients send as 'Authorization: Bearer TOKEN'; or bind to "
                          "127.0.0.1", host, TOKEN_MIN);
    if (*token && strlen(*token) < TOKEN_MIN) {
        free(*token);
        *token = NULL;
        return tg_err_set(err, TOKEN_ENV " is shorter than %d characters: a token that short "
                          "can be guessed; use a longer random one (e.g. `head -c 24 "
                          "/dev/urandom | base64`)", TOKEN_MIN);
    }
    return 0;
}

#define STATE_KEY_ENV "TOOLGEN_SERVE_STATE_KEY"

/* The secret several instances behind a load balancer share (docs/scale.md), from
 * TOOLGEN_SERVE_STATE_KEY (*key NULL when unset), which is then taken out of the environment as
 * the token is: no tool serve runs may read it, or it could forge what the key signs. */
static int state_key(char **key, tg_err *err)
{
    const char *v = getenv(STATE_KEY_ENV);
    *key = v && *v ? xstrdup(v) : NULL;
    unsetenv(STATE_KEY_ENV);
    tg_serve_mrtr check;
    tg_err why = {0};
    if (*key && tg_serve_mrtr_init_shared(&check, *key, &why) != 0) {
        free(*key);
        *key = NULL;
        return tg_err_set(err, STATE_KEY_ENV " is not a usable key: %s; give every instance "
                          "the same value (docs/scale.md)", why.msg);
    }
    return 0;
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
    if (o->no_workflow)
        repo.cfg.serve_workflow = false;
    char *token = NULL, *key = NULL;
    if (state_key(&key, &err) != 0) {
        tg_repo_release(&repo);
        return cli_fail(TG_EXIT_USAGE, "serve: %s", err.msg);
    }
    if (!o->http)
        unsetenv(TOKEN_ENV); /* nothing serve starts sees it, whatever the transport */
    else if (http_token(o->http_host, &token, &err) != 0) {
        tg_repo_release(&repo);
        free(key);
        return cli_fail(TG_EXIT_USAGE, "serve: --http %s: %s", o->http, err.msg);
    }
    report_ctx rep = {.source = o->source, .transport = o->http ? "Streamable HTTP" : "stdio"};
    tg_app_serve_opts ao = {
        .source = o->source, .read_only = o->read_only, .page_size = o->page_size,
        .max_message = o->max_message, .max_concurrency = o->max_concurrency,
        .progress_ms = (long)o->progress_ms, .http_host = o->http ? o->http_host : NULL,
        .session_idle_ms = (long)o->session_idle_s * 1000,
        .http_port = o->http_port, .allowed_origins = o->origins, .http_token = token,
        .state_key = key, .advertise = o->advertise, .peers = o->n_peers ? o->peers : NULL,
        .proto_fd = proto_fd,
        .log_fd = 2, .cancel = &cancel_flag, .stop = &stop_flag, .user = cli_answering_user(),
        .toolsets = o->toolsets, .n_toolsets = o->n_toolsets,
        .opened = report_tools, .listening = on_listening, .ud = &rep};
    catch_signals();
    tg_app_serve_status st = tg_app_serve(&repo, &ao, &err);
    tg_repo_release(&repo);
    free(token);
    free(key);
    if (st == TG_APP_SERVE_OK)
        return TG_EXIT_OK;
    return cli_fail(st == TG_APP_SERVE_CONFIG ? TG_EXIT_USAGE : TG_EXIT_ENV, "serve: %s", err.msg);
}

/*
 * An MCP Bundle's client fills ${user_config.NAME} in mcp_config.env from what the user set,
 * and passes the placeholder literally when the user left an optional value blank. Such a value
 * means "not set": a tool must see no variable rather than a placeholder it would take for a
 * credential (docs/mcp.md#pack).
 */
static void unset_blank_user_config(void)
{
    extern char **environ;
    char *names[64];
    size_t n = 0;
    for (char **e = environ; *e && n < sizeof names / sizeof *names; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && tg_str_startswith(eq + 1, "${user_config.") && tg_str_endswith(eq + 1, "}"))
            names[n++] = xstrndup(*e, (size_t)(eq - *e));
    }
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, "toolgen: serve: %s was left blank in the bundle's settings: unset\n",
                names[i]);
        unsetenv(names[i]);
        free(names[i]);
    }
}

int cmd_serve(int argc, char **argv)
{
    serve_opts o = {0};
    int code = parse_opts(argc, argv, &o);
    if (code != TG_EXIT_OK)
        return code;
    if (o.dir && cli_set_dir(o.dir) != 0)
        return cli_fail(TG_EXIT_USAGE, "serve: -C %s: %s", o.dir, strerror(errno));
    unset_blank_user_config();
    tg_err err = {0};
    int proto = tg_serve_stdio_claim_stdout(&err);
    if (proto < 0)
        return cli_fail(TG_EXIT_ENV, "serve: %s", err.msg);
    code = serve(&o, proto);
    close(proto);
    return code;
}
