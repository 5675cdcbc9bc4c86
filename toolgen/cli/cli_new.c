/*
 * cli_new.c — `toolgen new "INTENT"`: generate, validate and stage a tool
 * (docs/generate.md, docs/cli.md#new). The pipeline is gen/newtool.h; this file parses the
 * options, validates candidates by building just that tool with the build engine and toolgen's
 * stages, and prints the steps, the outcome and the next command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli/cli.h"
#include "engine/build.h"
#include "gen/newtool.h"
#include "gen/regen.h"
#include "model/paths.h"
#include "serve/workflow.h"
#include "stages/stages.h"

const char tg_usage_new[] =
    "usage: toolgen new \"INTENT\" [--data FILE]... [--name NAME] [--provider P]\n"
    "                   [--samples N] [--frozen]\n"
    "\n"
    "Turns a data-analysis request into a tested tool: reads the data files' schemas, reuses an\n"
    "existing tool when one fits (REUSE, with the exact call), else writes the contract\n"
    "(manifests/NAME/tool.manifest.yaml), the code (tool.py) and tool.lock, validates them\n"
    "through the gates (a build of just that tool) and repairs failing code with the\n"
    "diagnostics, up to validation.max_repair_iterations times. The tool ends STAGED, or\n"
    "REJECTED (removed from manifests/, kept under .toolgen/gen/NAME/). docs/generate.md.\n"
    "\n"
    "Options:\n"
    "  --data FILE     a CSV file under a data directory (repeatable; the builtin generator\n"
    "                  needs one)\n"
    "  --name NAME     the tool's name (default: the generator's choice)\n"
    "  --provider P    builtin, openai, anthropic or replay (default: llm.provider)\n"
    "  --samples N     generate N candidates, report pass@1/5/10, keep the best (default 1)\n"
    "  --frozen        send no request: answers only from the response cache\n"
    "\n"
    "Exit status: 0 STAGED or REUSE, 1 REJECTED or an unusable answer (or --frozen with an\n"
    "answer missing), 2 usage or configuration error, 3 the provider or the sandbox is\n"
    "unavailable.\n";

typedef struct new_opts {
    tg_gen_opts g;
    const char **data;
    tg_repo repo;
} new_opts;

/* ---- validation: a build of one tool --------------------------------------------------------- */

static const tg_tool_source manifest_tools = {
    .list = tg_tools_list,
    .marker = tg_tools_marker,
    .refuse = tg_tools_refuse,
};

static void collect_failures(void *ud, const tg_build_event *ev)
{
    tg_buf *b = ud;
    if ((ev->kind == TG_EV_FAILED || ev->kind == TG_EV_PROBLEM) && ev->text)
        tg_buf_printf(b, "%s%s", ev->text, ev->text[strlen(ev->text) - 1] == '\n' ? "" : "\n");
}

int cli_build_one(void *ud, const tg_repo *repo, const char *tool, bool *build_ok,
                         char **failures, tg_err *err)
{
    (void)ud;
    tg_buf fails = TG_BUF_INIT;
    const char *tools[] = {tool};
    tg_build_opts b = {
        .repo = repo,
        .stages = tg_stages,
        .tool_source = &manifest_tools,
        .tools = tools,
        .ntools = 1,
        .frozen = true, /* the stages of a candidate never call a model themselves */
        .on_event = collect_failures,
        .ud = &fails,
    };
    tg_build_stats st = {0};
    tg_build_status s = tg_build(&b, &st, err);
    tg_build_stats_free(&st);
    *build_ok = s == TG_BUILD_OK;
    *failures = fails.len ? tg_buf_steal(&fails) : NULL;
    tg_buf_free(&fails);
    return s == TG_BUILD_OK || s == TG_BUILD_FAILED ? 0 : -1;
}

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
    if (!o->g.intent || !*o->g.intent)
        return cli_fail(TG_EXIT_USAGE, "new: what should the tool do? usage: toolgen new "
                                       "\"average tip by day\" --data data/tips.csv");
    o->g.data = o->data;
    return 0;
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
        return r->fail == TG_GENF_USAGE ? TG_EXIT_USAGE
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
        return rc >= 100 ? rc - 100 : rc;
    }
    tg_err err = {0};
    if (cli_repo_open(&o.repo, &err) != 0 || tg_repo_load_config(&o.repo, &err) != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        if (o.repo.root_fd > 0)
            tg_repo_release(&o.repo);
        free(o.data);
        return cli_fail(TG_EXIT_USAGE, "new: %s", msg);
    }
    o.g.repo = &o.repo;
    o.g.validate = cli_build_one;
    o.g.progress = cli_print_step;
    tg_gen_result r;
    if (tg_gen_new(&o.g, &r, &err) != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        cli_fail(exit_of(&r), "new: %s", msg);
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
    return rc;
}

/* ---- toolgen serve: generate_tool --------------------------------------------------------- */

static void collect_step(void *ud, const char *line)
{
    tg_buf_printf(ud, "%s\n", line);
}

int cli_serve_generate(void *ud, const tg_repo *repo, const char *intent,
                       const char *const *data, size_t ndata, tg_serve_generated *out,
                       tg_err *err)
{
    (void)ud;
    tg_buf lines = TG_BUF_INIT;
    tg_gen_opts g = {.repo = repo, .intent = intent, .data = data, .ndata = ndata,
                     .samples = 1, .validate = cli_build_one, .progress = collect_step,
                     .progress_ud = &lines};
    tg_gen_result r;
    int rc = tg_gen_new(&g, &r, err);
    if (rc == 0) {
        out->reused = r.outcome == TG_GEN_REUSE;
        if (r.outcome == TG_GEN_STAGED) {
            /* generation leaves the manifest newer than its last build (status: staged);
             * staging snapshots what a build validated, so build it once more */
            bool ok = false;
            char *fails = NULL;
            rc = cli_build_one(NULL, repo, r.tool, &ok, &fails, err);
            if (rc == 0 && !ok)
                tg_buf_printf(&lines, "the build after generation failed:\n%s",
                              fails ? fails : "");
            out->staged = rc == 0 && ok;
            free(fails);
        }
    }
    if (r.next)
        tg_buf_printf(&lines, "next: %s\n", r.next);
    out->tool = r.tool ? xstrdup(r.tool) : NULL;
    out->summary = tg_buf_steal(&lines);
    tg_buf_free(&lines);
    tg_gen_result_release(&r);
    return rc;
}

/* ---- toolgen build: generation that is due -------------------------------------------------- */

static bool in_scope(const char *tool, const char *const *tools, size_t ntools)
{
    for (size_t i = 0; i < ntools; i++)
        if (strcmp(tools[i], tool) == 0)
            return true;
    return ntools == 0;
}

int cli_generate_due(const tg_repo *repo, const char *const *tools, size_t ntools, bool frozen,
                     const char *cmd)
{
    tg_regen_plan plan;
    tg_err err = {0};
    if (tg_regen_find(repo, &plan, &err) != 0)
        return TG_EXIT_OK; /* the build reports an unreadable manifests folder itself */
    for (size_t i = 0; i < plan.edited.n; i++)
        if (in_scope(plan.edited.v[i], tools, ntools))
            fprintf(stderr, "toolgen: warning: %s: tool.py was edited by hand, so it is not "
                            "generated again though its spec or prompts changed\n",
                    plan.edited.v[i]);
    int rc = TG_EXIT_OK, requests = 0;
    tg_buf frozen_list = TG_BUF_INIT;
    for (size_t i = 0; i < plan.due.n && rc == TG_EXIT_OK; i++) {
        const char *t = plan.due.v[i];
        if (!in_scope(t, tools, ntools))
            continue;
        if (frozen) {
            tg_buf_printf(&frozen_list, "  %s: %s\n", t, plan.why.v[i]);
            continue;
        }
        printf("generate %s (%s)\n", t, plan.why.v[i]);
        if (tg_regen_tool(repo, t, &requests, &err) != 0) {
            char msg[2048];
            tg_err_format(&err, msg, sizeof msg);
            rc = cli_fail(TG_EXIT_FAIL, "%s: %s", cmd, msg);
        }
    }
    if (frozen_list.len)
        rc = cli_fail(TG_EXIT_FAIL, "%s --frozen: these tools need their code generated again "
                                    "(run toolgen build without --frozen):\n%s",
                      cmd, frozen_list.data);
    tg_buf_free(&frozen_list);
    tg_regen_plan_release(&plan);
    return rc;
}
