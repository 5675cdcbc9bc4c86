/* cli_build.c — `toolgen build`, `explain`, `graph`, `clean` and `check`. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/regenerate.h"
#include "app/remotecache.h"
#include "app/toolsource.h"
#include "engine/build.h"
#include "cli/cli.h"
#include "lifecycle/gitstatus.h"
#include "base/strmap.h"
#include "base/util.h"

const char tg_usage_build[] =
    "usage: toolgen build [-C DIR] [-j N] [-k N] [-n] [-v] [--frozen] [--remote-cache URL]\n"
    "                     [TOOL...]\n"
    "\n"
    "Builds every manifest (or the named TOOLs) through the stage graph: load (manifest →\n"
    "canonical IR, with every lint check), emit (generated/<tool>/), static (the static check\n"
    "of the tool's code, in the sandbox), test (every example and test in the sandbox, the\n"
    "metrics and gates, .toolgen/reports/<tool>.validation.json), aggregate (generated/mcp/,\n"
    "generated/adapters/, generated/skill/). A stage runs only when its key — a hash of its\n"
    "inputs, version and the config it reads — changed, or an output is missing or was edited\n"
    "by hand (it is then overwritten, with a warning). Naming TOOLs builds only their stages;\n"
    "the repository-wide stages then do not run.\n"
    "\n"
    "Options:\n"
    "  -C DIR        run in DIR (the repository root)\n"
    "  -j N          run N stages in parallel (default: build.jobs, else the CPU count)\n"
    "  -k N          keep going until N stages failed (default 1; 0 = never stop)\n"
    "  -n            dry run: say what would run, change nothing\n"
    "  -v            say why each stage runs, which files it writes, and every test's result\n"
    "  --frozen      a build that must not call an LLM (what `toolgen check` runs)\n"
    "  --remote-cache URL\n"
    "                read and write stage results at a Bazel HTTP cache (http://HOST:PORT[/PREFIX];\n"
    "                overrides cache.remote of toolgen.yaml; docs/cache.md)\n"
    "\n"
    "After the stages, one line per tested tool: tests passed, pass rate, score and quality\n"
    "tier, and the lifecycle verdict (draft → staged when every gate passes). The manifest's\n"
    "status is not rewritten; a tool whose manifest says staged (or approved, promoted) but\n"
    "fails a gate fails the build. docs/build.md#validation-gates explains the rules.\n"
    "\n"
    "Exit status: 0 built, 1 a stage failed (a test, a gate, a static-check finding), 2 usage\n"
    "or configuration error, 3 environment problem (e.g. another build holds .toolgen/lock, no\n"
    "bubblewrap for the sandbox), 130 interrupted.\n";

const char tg_usage_explain[] =
    "usage: toolgen explain [-C DIR] [TOOL...]\n"
    "\n"
    "Says, for every stage (or the named tools' stages), whether it is up to date or why the next\n"
    "build would run it: never built, an input changed (which file, upstream output or\n"
    "toolgen.yaml key), an output is missing or was edited by hand. Changes nothing.\n";

const char tg_usage_graph[] =
    "usage: toolgen graph [-C DIR] [TOOL...]\n"
    "\n"
    "Prints the stage graph in Graphviz dot: stages (boxes), source files (notes), toolgen.yaml\n"
    "keys (ellipses) and the edges between them. Render it with `toolgen graph | dot -Tsvg`.\n";

const char tg_usage_clean[] =
    "usage: toolgen clean [-C DIR] [-v]\n"
    "\n"
    "Removes every file the state log says toolgen wrote (under generated/ and .toolgen/),\n"
    "directories left empty, and the build state in .toolgen/ (the LLM cache stays). Files\n"
    "under generated/ that toolgen did not write are kept and listed.\n";

const char tg_usage_check[] =
    "usage: toolgen check [-C DIR] [-j N] [-v]\n"
    "\n"
    "What CI runs: a frozen build (no LLM calls), then a comparison of generated/ with the last\n"
    "commit. Exit 0 when they are identical; exit 1 listing every file that is added, removed,\n"
    "changed or untracked under generated/, restored by the build after a hand edit, or not\n"
    "produced by any manifest. Exit 2 outside a git repository.\n";

/* ---- options -------------------------------------------------------------------------------- */

typedef struct cli_opts {
    const char *cmd; /* for messages: "build", "check", ... */
    tg_build_opts b;
    const char **tools;
    bool allow_tools, allow_jobs, allow_build_flags;
    bool config_later; /* check: the git probe comes before toolgen.yaml's errors */
    tg_repo repo;      /* o->b.repo */
    const char *remote_url; /* --remote-cache */
    tg_remote_cache *remote;
} cli_opts;

static void opts_free(cli_opts *o)
{
    tg_remote_cache_close(o->remote);
    free(o->tools);
    if (o->b.repo) /* opened */
        tg_repo_release(&o->repo);
}

static int parse_count(const char *cmd, const char *opt, const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : -1;
    if (!s || errno || *end || end == s || v < 0 || v > 100000)
        return cli_fail(TG_EXIT_USAGE, "%s: %s needs a number (0 or more); see 'toolgen help %s'",
                        cmd, opt, cmd);
    *out = (int)v;
    return 0;
}

/* The repository (cli_dir()) and, unless o->config_later, its config; -1 when it printed why
 * not (a config error is a usage error, as the build would report it). */
static int open_repo(cli_opts *o)
{
    tg_err err = {0};
    if (cli_repo_open(&o->repo, &err) != 0) {
        cli_fail(TG_EXIT_USAGE, "%s: %s", o->cmd, err.msg);
        return -1;
    }
    o->b.repo = &o->repo;
    if (o->config_later || tg_repo_load_config(&o->repo, &err) == 0)
        return 0;
    char msg[2048];
    tg_err_format(&err, msg, sizeof msg);
    cli_fail(TG_EXIT_USAGE, "%s: %s", o->cmd, msg);
    return -1;
}

/* Parses argv into o (and sets up the build: toolgen's stages, tools from manifests/); returns
 * -1 when it printed a usage error. */
static int parse(int argc, char **argv, cli_opts *o)
{
    const char *cmd = argv[0];
    o->cmd = cmd;
    tg_build_opts_toolgen(&o->b);
    o->tools = xcalloc((size_t)argc + 1, sizeof *o->tools);
    o->b.keep_going = 1;
    bool dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash || a[0] != '-' || !a[1]) {
            if (!o->allow_tools) {
                cli_fail(TG_EXIT_USAGE, "%s: unexpected argument '%s'; see 'toolgen help %s'", cmd,
                         a, cmd);
                return -1;
            }
            o->tools[o->b.ntools++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            dashdash = true;
        } else if (strncmp(a, "-C", 2) == 0) {
            const char *dir = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!dir) {
                cli_fail(TG_EXIT_USAGE, "%s: -C needs a directory", cmd);
                return -1;
            }
            if (cli_set_dir(dir) != 0) {
                cli_fail(TG_EXIT_USAGE, "%s: -C %s: %s", cmd, dir, strerror(errno));
                return -1;
            }
        } else if ((strncmp(a, "-j", 2) == 0 || strcmp(a, "--jobs") == 0) && o->allow_jobs) {
            const char *v = a[1] == 'j' && a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (parse_count(cmd, "-j", v, &o->b.jobs) != 0)
                return -1;
        } else if ((strncmp(a, "-k", 2) == 0 || strcmp(a, "--keep-going") == 0) &&
                   o->allow_build_flags) {
            const char *v = a[1] == 'k' && a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (parse_count(cmd, "-k", v, &o->b.keep_going) != 0)
                return -1;
        } else if ((strcmp(a, "-n") == 0 || strcmp(a, "--dry-run") == 0) && o->allow_build_flags) {
            o->b.mode = TG_MODE_DRY_RUN;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->b.verbose = true;
        } else if (strcmp(a, "--frozen") == 0 && o->allow_build_flags) {
            o->b.frozen = true;
        } else if (strcmp(a, "--remote-cache") == 0 && o->allow_build_flags) {
            if (!(o->remote_url = i + 1 < argc ? argv[++i] : NULL)) {
                cli_fail(TG_EXIT_USAGE, "%s: --remote-cache needs a URL", cmd);
                return -1;
            }
        } else {
            cli_fail(TG_EXIT_USAGE, "%s: unknown option '%s'; see 'toolgen help %s'", cmd, a, cmd);
            return -1;
        }
    }
    o->b.tools = o->tools;
    return open_repo(o);
}

/* ---- progress and messages ------------------------------------------------------------------ */

typedef struct ui {
    bool tty; /* one updating status line */
    bool verbose;
    bool status_shown; /* the status line holds text that needs a newline before other output */
    tg_build_mode mode;
} ui;

/* Before other output: clear the status line (keep == false) or leave it as a line. */
static void end_status(ui *u, bool keep)
{
    if (u->status_shown) {
        fputs(keep ? "\n" : "\r\033[K", stdout);
        fflush(stdout);
        u->status_shown = false;
    }
}

/* The updating line, cut to the terminal's width so that it never wraps. */
static void status_line(ui *u, const tg_build_event *ev, const char *name)
{
    char line[512];
    int n = snprintf(line, sizeof line, "[%d/%d] %s", ev->done, ev->total, name);
    struct winsize ws;
    if (n > 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 4 &&
        (size_t)n >= ws.ws_col)
        line[ws.ws_col - 1] = '\0';
    printf("\r%s\033[K", line);
    u->status_shown = true;
}

static void stage_name(char *out, size_t n, const tg_build_event *ev)
{
    if (ev->tool)
        snprintf(out, n, "%s %s", ev->stage, ev->tool);
    else
        snprintf(out, n, "%s", ev->stage ? ev->stage : "");
}

static void print_indented(FILE *f, const char *text, const char *indent)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%s%.*s\n", indent, (int)n, p);
        p += n;
        if (*p == '\n')
            p++;
    }
}

static void on_event(void *ud, const tg_build_event *ev)
{
    ui *u = ud;
    char name[256];
    stage_name(name, sizeof name, ev);
    switch (ev->kind) {
    case TG_EV_START:
        if (u->tty && !u->verbose)
            status_line(u, ev, name);
        break;
    case TG_EV_DONE:
        if (u->tty && !u->verbose) {
            status_line(u, ev, name);
        } else {
            printf("[%d/%d] %s\n", ev->done, ev->total, name);
            if (u->verbose && ev->why)
                printf("  because %s\n", ev->why);
            if (u->verbose && ev->text)
                print_indented(stdout, ev->text, "  ");
        }
        break;
    case TG_EV_FAILED:
        end_status(u, false);
        fflush(stdout);
        fprintf(stderr, "FAILED: [%d/%d] %s\n", ev->done, ev->total, name);
        print_indented(stderr, ev->text, "");
        break;
    case TG_EV_CUTOFF:
        if (u->verbose)
            printf("%s: up to date after all (the outputs it reads came out unchanged)\n", name);
        break;
    case TG_EV_SKIPPED:
        if (u->verbose) {
            char up[256];
            snprintf(up, sizeof up, "%s", ev->text ? ev->text : "");
            char *c = strchr(up, ':');
            if (c)
                *c = ' ';
            printf("%s: skipped (%s did not build)\n", name, up);
        }
        break;
    case TG_EV_PLAN:
        if (ev->plan == TG_PLAN_UP_TO_DATE)
            printf("%s: up to date\n", name);
        else if (ev->plan == TG_PLAN_REMOVE)
            printf("%s\n", ev->text);
        else if (ev->plan == TG_PLAN_MAYBE)
            printf("%s: %s\n", name, ev->text);
        else
            printf("%s: would run: %s\n", name, ev->text ? ev->text : "");
        break;
    case TG_EV_REMOVED:
        if (u->verbose)
            printf("  removed %s\n", ev->text);
        break;
    case TG_EV_KEPT:
        printf("kept %s (toolgen did not write it)\n", ev->text);
        break;
    case TG_EV_WARNING:
        end_status(u, false);
        fflush(stdout);
        fprintf(stderr, "toolgen: warning: %s\n", ev->text);
        break;
    case TG_EV_PROBLEM:
        end_status(u, false);
        fflush(stdout);
        fprintf(stderr, "%s\n", ev->text);
        break;
    case TG_EV_OUTPUT: /* not asked for (report_outputs) */
        break;
    }
    fflush(stdout);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/*
 * First Ctrl-C (or SIGTERM): stop starting stages, let running ones finish. A second one kills
 * at once (SA_RESETHAND), which is safe too: every write is atomic and the log append-only.
 * A signal the parent ignores (a background job of a script) stays ignored.
 */
static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

static int exit_code(tg_build_status s)
{
    switch (s) {
    case TG_BUILD_OK:
        return TG_EXIT_OK;
    case TG_BUILD_FAILED:
        return TG_EXIT_FAIL;
    case TG_BUILD_USAGE:
        return TG_EXIT_USAGE;
    case TG_BUILD_ENV:
        return TG_EXIT_ENV;
    case TG_BUILD_INTERRUPTED:
        return 130;
    }
    return TG_EXIT_FAIL;
}

static int fail_status(const char *cmd, tg_build_status s, const tg_err *err)
{
    char msg[2048];
    tg_err_format(err, msg, sizeof msg);
    return cli_fail(exit_code(s), "%s: %s", cmd, msg);
}

static void print_summary(const tg_build_stats *st, tg_build_status s)
{
    if (s == TG_BUILD_INTERRUPTED) {
        printf("toolgen: interrupted: %d stage%s finished and recorded, %d not started\n", st->ran,
               st->ran == 1 ? "" : "s", st->not_started);
        return;
    }
    if (st->failed) {
        printf("toolgen: %d stage%s failed:", st->failed, st->failed == 1 ? "" : "s");
        for (size_t i = 0; i < st->failed_ids.n; i++)
            printf("%s %s", i ? "," : "", st->failed_ids.v[i]);
        if (!st->failed_ids.n)
            printf(" a tool folder is unusable");
        printf("; %d ran, %d skipped, %d not started\n", st->ran, st->skipped, st->not_started);
        return;
    }
    if (st->ran == 0) {
        if (st->removed)
            printf("toolgen: removed %d file%s of deleted tools; nothing else to do.\n",
                   st->removed, st->removed == 1 ? "" : "s");
        else
            printf("toolgen: no work to do.\n");
        return;
    }
    printf("toolgen: ran %d stage%s (", st->ran, st->ran == 1 ? "" : "s");
    bool first = true;
    for (int k = 0; k < st->nkinds; k++) {
        if (!st->kind_ran[k])
            continue;
        printf("%s%s %d", first ? "" : ", ", st->kind_id[k], st->kind_ran[k]);
        first = false;
    }
    printf(")");
    if (st->cache_hits)
        printf(", %d from the remote cache", st->cache_hits);
    printf(", %d up to date", st->up_to_date);
    if (st->cut_off)
        printf(" (%d after early cut-off)", st->cut_off);
    if (st->removed)
        printf(", removed %d file%s", st->removed, st->removed == 1 ? "" : "s");
    printf(", in %.2fs\n", st->seconds);
}

/* ---- generation before the build ---------------------------------------------------------- */

static void warn_edited(void *ud, const char *tool)
{
    (void)ud;
    fprintf(stderr, "toolgen: warning: %s: tool.py was edited by hand, so it is not generated "
                    "again though its spec or prompts changed\n", tool);
}

static void say_generate(void *ud, const char *tool, const char *why)
{
    (void)ud;
    printf("generate %s (%s)\n", tool, why);
}

/* The code of generated tools whose spec or prompts changed, generated again (with frozen,
 * listed as a failure instead): TG_EXIT_OK, or the exit code after printing why. */
static int generate_due(const cli_opts *o)
{
    tg_due_progress p = {.edited = warn_edited, .generating = say_generate};
    tg_strv due = TG_STRV_INIT;
    tg_err err = {0};
    int rc = TG_EXIT_OK;
    if (tg_generate_due(o->b.repo, o->b.tools, o->b.ntools, o->b.frozen, &p, &due, &err) != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        rc = cli_fail(TG_EXIT_FAIL, "%s: %s", o->cmd, msg);
    }
    if (due.n) {
        tg_buf list = TG_BUF_INIT;
        for (size_t i = 0; i < due.n; i++)
            tg_buf_printf(&list, "  %s\n", due.v[i]);
        rc = cli_fail(TG_EXIT_FAIL, "%s --frozen: these tools need their code generated again "
                                    "(run toolgen build without --frozen):\n%s",
                      o->cmd, list.data);
        tg_buf_free(&list);
    }
    tg_strv_free(&due);
    return rc;
}

static int run_build(cli_opts *o, tg_build_stats *st, tg_build_status *status)
{
    ui u = {.tty = isatty(STDOUT_FILENO) && getenv("TERM") && strcmp(getenv("TERM"), "dumb") != 0,
            .verbose = o->b.verbose,
            .mode = o->b.mode};
    o->b.on_event = on_event;
    o->b.ud = &u;
    o->b.interrupted = &interrupted;
    catch_signals();
    if (o->b.mode == TG_MODE_BUILD) { /* generated code whose spec or prompts changed */
        int g = generate_due(o);
        if (g != TG_EXIT_OK) {
            memset(st, 0, sizeof *st); /* the callers free it */
            *status = TG_BUILD_FAILED;
            return g;
        }
    }
    tg_err err = {0};
    if (o->b.mode == TG_MODE_BUILD &&
        tg_remote_cache_open(o->b.repo, o->remote_url, &o->remote, &err) != 0) {
        memset(st, 0, sizeof *st);
        *status = TG_BUILD_USAGE;
        return fail_status(o->cmd, *status, &err);
    }
    if (o->remote)
        o->b.cache = tg_remote_cache_build(o->remote);
    *status = tg_build(&o->b, st, &err);
    end_status(&u, true);
    if (*status == TG_BUILD_ENV && st->env_failed) {
        /* stages ran, some could not (no sandbox): their messages are above */
        for (size_t i = 0; i < st->summaries.n; i++)
            printf("%s\n", st->summaries.v[i]);
        print_summary(st, TG_BUILD_FAILED);
        return fail_status(o->cmd, *status, &err);
    }
    if (*status == TG_BUILD_USAGE || *status == TG_BUILD_ENV)
        return fail_status(o->cmd, *status, &err);
    if (o->b.mode == TG_MODE_DRY_RUN) {
        if (st->would_run || st->removed)
            printf("toolgen: dry run: %d stage%s would run, %d file%s of deleted tools would be "
                   "removed (nothing was changed)\n",
                   st->would_run, st->would_run == 1 ? "" : "s", st->removed,
                   st->removed == 1 ? "" : "s");
        else
            printf("toolgen: no work to do.\n");
        return TG_EXIT_OK;
    }
    /* one line per tool whose test stage ran: tests, score, tier, lifecycle */
    for (size_t i = 0; i < st->summaries.n; i++)
        printf("%s\n", st->summaries.v[i]);
    print_summary(st, *status);
    if (o->remote) {
        char *line = tg_remote_cache_summary(o->remote);
        printf("%s\n", line);
        free(line);
    }
    return exit_code(*status);
}

int cmd_build(int argc, char **argv)
{
    cli_opts o = {.allow_tools = true, .allow_jobs = true, .allow_build_flags = true};
    if (parse(argc, argv, &o) != 0) {
        opts_free(&o);
        return TG_EXIT_USAGE;
    }
    tg_build_stats st;
    tg_build_status status;
    int rc = run_build(&o, &st, &status);
    tg_build_stats_free(&st);
    opts_free(&o);
    return rc;
}

int cmd_explain(int argc, char **argv)
{
    cli_opts o = {.allow_tools = true};
    if (parse(argc, argv, &o) != 0) {
        opts_free(&o);
        return TG_EXIT_USAGE;
    }
    o.b.mode = TG_MODE_EXPLAIN;
    ui u = {.mode = TG_MODE_EXPLAIN};
    o.b.on_event = on_event;
    o.b.ud = &u;
    tg_build_stats st;
    tg_err err = {0};
    tg_build_status s = tg_build(&o.b, &st, &err);
    int rc = TG_EXIT_OK;
    if (s != TG_BUILD_OK)
        rc = fail_status("explain", s, &err);
    else if (st.would_run)
        printf("toolgen: %d stage%s would run, %d up to date\n", st.would_run,
               st.would_run == 1 ? "" : "s", st.up_to_date);
    else
        printf("toolgen: everything is up to date\n");
    tg_build_stats_free(&st);
    opts_free(&o);
    return rc;
}

int cmd_graph(int argc, char **argv)
{
    cli_opts o = {.allow_tools = true};
    if (parse(argc, argv, &o) != 0) {
        opts_free(&o);
        return TG_EXIT_USAGE;
    }
    tg_buf out = TG_BUF_INIT;
    tg_err err = {0};
    tg_build_status s = tg_build_graph(&o.b, &out, &err);
    int rc = TG_EXIT_OK;
    if (s != TG_BUILD_OK)
        rc = fail_status("graph", s, &err);
    else
        fwrite(out.data, 1, out.len, stdout);
    tg_buf_free(&out);
    opts_free(&o);
    return rc;
}

int cmd_clean(int argc, char **argv)
{
    cli_opts o = {0};
    if (parse(argc, argv, &o) != 0) {
        opts_free(&o);
        return TG_EXIT_USAGE;
    }
    ui u = {.verbose = o.b.verbose};
    o.b.on_event = on_event;
    o.b.ud = &u;
    tg_build_stats st;
    tg_err err = {0};
    tg_build_status s = tg_build_clean(&o.b, &st, &err);
    int rc = TG_EXIT_OK;
    if (s != TG_BUILD_OK) {
        rc = fail_status("clean", s, &err);
    } else {
        printf("toolgen: removed %d file%s toolgen wrote, and the build state in .toolgen/\n",
               st.removed, st.removed == 1 ? "" : "s");
        if (st.kept)
            printf("toolgen: kept %d file%s under %s/ that toolgen did not write\n", st.kept,
                   st.kept == 1 ? "" : "s", st.generated_dir);
    }
    tg_build_stats_free(&st);
    opts_free(&o);
    return rc;
}

/* ---- check ---------------------------------------------------------------------------------- */

typedef struct drift {
    char *path;
    const char *kind; /* added, untracked, removed, changed, stale */
    const char *note;
} drift;

typedef struct drifts {
    drift *v;
    size_t n, cap;
    tg_strmap seen;
} drifts;

static void add_drift(drifts *d, const char *path, const char *kind, const char *note)
{
    if (tg_strmap_get(&d->seen, path))
        return;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->v = xrealloc(d->v, d->cap * sizeof *d->v);
    }
    d->v[d->n].path = xstrdup(path);
    d->v[d->n].kind = kind;
    d->v[d->n].note = note;
    tg_strmap_put(&d->seen, d->v[d->n].path, (void *)1);
    d->n++;
}

static int drift_cmp(const void *a, const void *b)
{
    return strcmp(((const drift *)a)->path, ((const drift *)b)->path);
}

/* Files under dir that no stage produced: stale leftovers, or files someone put there. */
static void find_strays(int root, const char *dir, const tg_strmap *outputs, drifts *d,
                        int depth)
{
    DIR *dp = tg_opendir_at(root, dir);
    if (!dp || depth > 64) {
        if (dp)
            closedir(dp);
        return;
    }
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = tg_path_join(dir, de->d_name);
        struct stat st;
        if (fstatat(root, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            find_strays(root, p, outputs, d, depth + 1);
        else if (!tg_strmap_get(outputs, p))
            add_drift(d, p, "stale", "no manifest produces it");
        free(p);
    }
    closedir(dp);
}

int cmd_check(int argc, char **argv)
{
    cli_opts o = {.allow_jobs = true, .config_later = true};
    if (parse(argc, argv, &o) != 0) {
        opts_free(&o);
        return TG_EXIT_USAGE;
    }
    tg_err err = {0};
    if (tg_git_probe(&o.repo, &err) != 0) {
        opts_free(&o);
        return cli_fail(TG_EXIT_USAGE, "check: %s", err.msg);
    }
    if (tg_repo_load_config(&o.repo, &err) != 0) {
        opts_free(&o);
        return fail_status("check", TG_BUILD_USAGE, &err);
    }
    o.b.frozen = true;
    tg_build_stats st;
    tg_build_status status;
    int rc = run_build(&o, &st, &status);
    if (status != TG_BUILD_OK) {
        fprintf(stderr, "toolgen check: the frozen build did not succeed\n");
        tg_build_stats_free(&st);
        opts_free(&o);
        return rc;
    }
    tg_git_changes ch = {0};
    int grc = tg_git_status_dir(&o.repo, st.generated_dir, &ch, &err);
    if (grc != 0) {
        rc = cli_fail(grc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV, "check: %s", err.msg);
        goto out;
    }
    drifts d = {0};
    for (size_t i = 0; i < st.edited.n; i++)
        add_drift(&d, st.edited.v[i], "changed", "edited by hand; restored by this build");
    for (size_t i = 0; i < st.recreated.n; i++)
        add_drift(&d, st.recreated.v[i], "removed", "deleted; restored by this build");
    for (size_t i = 0; i < ch.n; i++)
        add_drift(&d, ch.v[i].path, tg_git_change_name(ch.v[i].kind), NULL);
    tg_strmap outs = TG_STRMAP_INIT;
    for (size_t i = 0; i < st.outputs.n; i++)
        tg_strmap_put(&outs, st.outputs.v[i], (void *)1);
    find_strays(o.repo.root_fd, st.generated_dir, &outs, &d, 0);
    tg_strmap_free(&outs);
    if (d.n) {
        qsort(d.v, d.n, sizeof *d.v, drift_cmp);
        printf("toolgen check: %s/ differs from the last commit:\n", st.generated_dir);
        for (size_t i = 0; i < d.n; i++)
            printf("  %-10s %s%s%s%s\n", d.v[i].kind, d.v[i].path, d.v[i].note ? " (" : "",
                   d.v[i].note ? d.v[i].note : "", d.v[i].note ? ")" : "");
        printf("toolgen check: %zu file%s differ%s; run `toolgen build`, review and commit %s/ "
               "(never edit generated files by hand)\n",
               d.n, d.n == 1 ? "" : "s", d.n == 1 ? "s" : "", st.generated_dir);
        rc = TG_EXIT_FAIL;
    } else {
        printf("toolgen check: %s/ is up to date and matches the last commit (%zu files)\n",
               st.generated_dir, st.outputs.n);
        rc = TG_EXIT_OK;
    }
    int reg_rc = cli_check_registry(&o.repo); /* snapshots against their hashes */
    if (reg_rc > rc)
        rc = reg_rc;
    for (size_t i = 0; i < d.n; i++)
        free(d.v[i].path);
    free(d.v);
    tg_strmap_free(&d.seen);
out:
    tg_git_changes_free(&ch);
    tg_build_stats_free(&st);
    opts_free(&o);
    return rc;
}
