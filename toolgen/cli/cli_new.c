/*
 * cli_new.c — `toolgen new "INTENT"`: generate, validate and stage a tool
 * (docs/generate.md, docs/cli.md#new). The pipeline is gen/newtool.h, composed with the
 * validation of each candidate in app/generate.h; this file parses the options and prints the
 * steps, the outcome and the next command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/generate.h"
#include "cli/cli.h"
#include "gen/newtool.h"

const char tg_usage_new[] =
    "usage: toolgen new \"INTENT\" [--data FILE]... [--name NAME] [--provider P]\n"
    "                   [--samples N] [--frozen | --no-cache] [--assume ABOUT=MEANING]...\n"
    "\n"
    "Turns a data-analysis request into a tested tool: reads the data files' schemas, reuses an\n"
    "existing tool when one fits (REUSE, with the exact call), else writes the contract\n"
    "(manifests/NAME/tool.manifest.yaml), the code (tool.py) and tool.lock, validates them\n"
    "through the gates (a build of just that tool) and repairs failing code with the\n"
    "diagnostics, up to validation.max_repair_iterations times. A tool that passes its gates\n"
    "is built and staged: it ends STAGED (a candidate in the staging registry, as `toolgen\n"
    "stage` makes), and the next command runs it on the data; one that does not ends\n"
    "REJECTED (removed from manifests/, kept under .toolgen/gen/NAME/). docs/generate.md.\n"
    "\n"
    "Options:\n"
    "  --data FILE     a CSV file under a data directory (repeatable; the builtin generator\n"
    "                  needs one)\n"
    "  --name NAME     the tool's name (default: the generator's choice)\n"
    "  --provider P    builtin, openai, anthropic or replay (default: llm.provider)\n"
    "  --samples N     generate N candidates, report pass@1/5/10, keep the best (default 1)\n"
    "  --frozen        send no request: answers only from the response cache\n"
    "  --no-cache      ask the model even when the answer is cached (the new answer replaces\n"
    "                  it); unusable answers are never cached in any case\n"
    "  --assume A=M    the answer to a question the built-in generator asks instead of\n"
    "                  guessing (\"bill=total_bill\", \"aggregate=mean\"); repeatable. On a\n"
    "                  terminal it asks; elsewhere a question ends with exit status 2\n"
    "\n"
    "Exit status: 0 STAGED or REUSE, 1 REJECTED or an unusable answer (or --frozen with an\n"
    "answer missing), 2 usage or configuration error, a request not understood, or a question\n"
    "left unanswered, 3 the provider or the sandbox is unavailable.\n";

typedef struct new_opts {
    tg_gen_opts g;
    const char **data;
    const char **assume;
    tg_repo repo;
} new_opts;

void cli_print_step(void *ud, const char *line)
{
    (void)ud;
    printf("%s\n", line);
    fflush(stdout);
}

/* ---- options ----------------------------------------------------------------------------------- */

static int parse_samples(const char *s, int *out)
{
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || *end || end == s || v < 1 || v > 100)
        return cli_fail(TG_EXIT_USAGE, "new: --samples needs a number from 1 to 100");
    *out = (int)v;
    return 0;
}

static int parse(int argc, char **argv, new_opts *o)
{
    o->data = xcalloc((size_t)argc + 1, sizeof *o->data);
    o->assume = xcalloc((size_t)argc + 1, sizeof *o->assume);
    o->g.samples = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return cli_print_usage(tg_usage_new, TG_EXIT_OK) + 100;
        if (strcmp(a, "--frozen") == 0) {
            o->g.frozen = true;
            continue;
        }
        if (strcmp(a, "--no-cache") == 0) {
            o->g.no_cache = true;
            continue;
        }
        if (a[0] != '-') {
            if (o->g.intent)
                return cli_fail(TG_EXIT_USAGE, "new: one intent, in quotes; unexpected '%s'", a);
            o->g.intent = a;
            continue;
        }
        if (!v)
            return cli_fail(TG_EXIT_USAGE, "new: %s needs a value; see 'toolgen help new'", a);
        i++;
        if (strcmp(a, "--data") == 0)
            o->data[o->g.ndata++] = v;
        else if (strcmp(a, "--assume") == 0 && strchr(v, '=') && v[0] != '=')
            o->assume[o->g.nassume++] = v;
        else if (strcmp(a, "--assume") == 0)
            return cli_fail(TG_EXIT_USAGE, "new: --assume needs ABOUT=MEANING, e.g. "
                                           "--assume 'bill=total_bill'");
        else if (strcmp(a, "--name") == 0)
            o->g.name = v;
        else if (strcmp(a, "--provider") == 0)
            o->g.provider = v;
        else if (strcmp(a, "--samples") == 0) {
            if (parse_samples(v, &o->g.samples) != 0)
                return TG_EXIT_USAGE;
        } else
            return cli_fail(TG_EXIT_USAGE, "new: unknown option '%s'; see 'toolgen help new'", a);
    }
    if (o->g.frozen && o->g.no_cache)
        return cli_fail(TG_EXIT_USAGE, "new: --frozen answers only from the cache and "
                                       "--no-cache never does: give one of them");
    if (!o->g.intent || !*o->g.intent)
        return cli_fail(TG_EXIT_USAGE, "new: what should the tool do? usage: toolgen new "
                                       "\"average tip by day\" --data data/tips.csv");
    o->g.data = o->data;
    o->g.assume = o->assume;
    return 0;
}

/* The generator's question on a terminal: the options numbered, the answer read from stdin. */
static int ask_terminal(void *ud, const tg_builtin_question *q, char **answer)
{
    (void)ud;
    printf("question: %s\n", q->text);
    for (size_t i = 0; i < q->noptions; i++)
        printf("  %zu. %s\n", i + 1, q->options[i]);
    printf("answer (1-%zu, or nothing to stop): ", q->noptions);
    fflush(stdout);
    char line[256];
    if (!fgets(line, sizeof line, stdin))
        return -1;
    line[strcspn(line, "\r\n")] = 0;
    char *end;
    long n = strtol(line, &end, 10);
    if (*line && !*end && n >= 1 && (size_t)n <= q->noptions) {
        *answer = xstrdup(q->options[n - 1]);
        return 0;
    }
    for (size_t i = 0; *line && i < q->noptions; i++)
        if (strcmp(line, q->options[i]) == 0) {
            *answer = xstrdup(line);
            return 0;
        }
    return -1;
}

/* How to answer a question that ended the command: one --assume per option. */
static void print_answers(const tg_builtin_question *q)
{
    fprintf(stderr, "toolgen: new: answer with one of:");
    for (size_t i = 0; i < q->noptions; i++)
        fprintf(stderr, "%s --assume '%s=%s'", i ? "," : "", q->about, q->options[i]);
    fprintf(stderr, " (on a terminal, toolgen new asks)\n");
}

static int exit_of(const tg_gen_result *r)
{
    switch (r->outcome) {
    case TG_GEN_STAGED:
    case TG_GEN_REUSE:
        return TG_EXIT_OK;
    case TG_GEN_REJECTED:
        return TG_EXIT_FAIL;
    default:
        return r->fail == TG_GENF_USAGE || r->fail == TG_GENF_ASK ||
                       r->fail == TG_GENF_SAMPLE ? TG_EXIT_USAGE
             : r->fail == TG_GENF_ENV   ? TG_EXIT_ENV
                                        : TG_EXIT_FAIL;
    }
}

int cmd_new(int argc, char **argv)
{
    new_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc != 0) {
        free(o.data);
        free(o.assume);
        return rc >= 100 ? rc - 100 : rc;
    }
    tg_err err = {0};
    if (cli_repo_open(&o.repo, &err) != 0 || tg_repo_load_config(&o.repo, &err) != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        if (o.repo.root_fd > 0)
            tg_repo_release(&o.repo);
        free(o.data);
        free(o.assume);
        return cli_fail(TG_EXIT_USAGE, "new: %s", msg);
    }
    o.g.repo = &o.repo;
    o.g.progress = cli_print_step;
    if (isatty(0) && isatty(1))
        o.g.ask = ask_terminal;
    tg_gen_result r;
    if (tg_generate_and_stage(&o.g, &r, &err) != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        cli_fail(exit_of(&r), "new: %s", msg);
        if (r.fail == TG_GENF_ASK)
            print_answers(&r.question);
        if (r.fail == TG_GENF_SAMPLE)
            fprintf(stderr, "toolgen: new: llm.provider is sampling: only a client of `toolgen "
                            "serve` can answer (generate_tool); on the command line use "
                            "--provider openai or anthropic (docs/code-edit.md#providers)\n");
        if (r.fail == TG_GENF_FROZEN)
            fprintf(stderr, "toolgen: new: --frozen: %s needs generation; run without --frozen "
                            "to ask llm.provider\n", r.tool ? r.tool : "the tool");
    } else if (r.next) {
        printf("next: %s\n", r.next);
    }
    if (r.requests || r.cache_hits)
        printf("llm: %d request%s sent, %d answer%s from the cache\n", r.requests,
               r.requests == 1 ? "" : "s", r.cache_hits, r.cache_hits == 1 ? "" : "s");
    rc = exit_of(&r);
    tg_gen_result_release(&r);
    tg_repo_release(&o.repo);
    free(o.data);
    free(o.assume);
    return rc;
}
