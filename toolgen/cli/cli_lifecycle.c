/*
 * cli_lifecycle.c — `toolgen stage|feedback|promote|reject`: the commands that move a tool
 * through its lifecycle (docs/lifecycle.md). The library (lifecycle/) does the work; this file
 * parses options, prints and picks exit codes.
 */
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lifecycle/decide.h"
#include "lifecycle/monitor.h"
#include "lifecycle/promote.h"
#include "lifecycle/reject.h"
#include "lifecycle/snapshot.h"
#include "model/paths.h"

const char tg_usage_stage[] =
    "usage: toolgen stage TOOL\n"
    "\n"
    "DRAFT -> STAGED: snapshot a built tool into the staging registry\n"
    "(registry/staging/candidates/TOOL_VERSION/: spec.json, the code, validation_report.json)\n"
    "and record both transitions in registry/staging/metadata.json. The last `toolgen build`\n"
    "must have built the manifest as it is now and passed every quality gate.\n"
    "Exit status: 0 staged (or already staged), 1 refused, 2 usage error.\n";

const char tg_usage_feedback[] =
    "usage: toolgen feedback TOOL --output REPLY\n"
    "       toolgen feedback TOOL --decision REPLY\n"
    "\n"
    "Record the user's reply to a STAGED tool, verbatim, with the time (docs/lifecycle.md).\n"
    "  --output REPLY    Stage 1, \"Is this output correct?\": accepted when REPLY holds an\n"
    "                    approve keyword of toolgen.yaml (feedback.approve_keywords) and no\n"
    "                    reject keyword or reservation (but, however, except, though).\n"
    "  --decision REPLY  Stage 2, \"Save this as a reusable tool?\" (only after Stage 1\n"
    "                    accepted): APPROVED only when REPLY starts with \"approve\" or\n"
    "                    \"approved\" and has no but/however/except/although/though; anything\n"
    "                    else (\"ok\", \"yes\", \"looks good\", \"\") is REJECTED.\n"
    "Exit status: 0 recorded, 1 refused, 2 usage error.\n";

const char tg_usage_promote[] =
    "usage: toolgen promote TOOL\n"
    "\n"
    "APPROVED -> PROMOTED: copy the approved snapshot into registry/active/tools/TOOL/, update\n"
    "registry/active/metadata.json and the promotion log, archive the candidate, and make ONE\n"
    "git commit of exactly those registry files: \"promote TOOL vVERSION\" with the trailers\n"
    "Spec-Hash, Code-Hash, Quality-Score, Approved-By and Approval. All or nothing.\n"
    "An identical tool already active: nothing to do (exit 0). A different spec at the active\n"
    "version, or a lower version: refused (bump the manifest's version).\n"
    "Exit status: 0 promoted or already active, 1 refused or failed (nothing changed),\n"
    "2 usage error or not a git working tree.\n";

const char tg_usage_reject[] =
    "usage: toolgen reject TOOL --notes NOTES [--refine]\n"
    "\n"
    "-> REJECTED: move the candidate to registry/archive/rejected/TOOL_TIMESTAMP/ with the\n"
    "notes (verbatim), the issue categories found in them (COLUMN_MISMATCH, MISSING_FILTER,\n"
    "OUTPUT_FORMAT, ...) and the feedback so far.\n"
    "  --refine   then generate the tool again from its intent with the corrections applied\n"
    "             (with the built-in generator the notes must state the corrected request,\n"
    "             e.g. \"mean tip by time\"): a new DRAFT, the next minor version, built and\n"
    "             ready for `toolgen stage`. If that fails the manifest is put back\n"
    "Exit status: 0 rejected, 1 refused, 2 usage error.\n";

/* The repository with its config and its registry, or an exit code. */
static int open_registry(const char *cmd, tg_repo *repo, tg_registry *g)
{
    tg_err err = {0};
    char msg[2048];
    if (cli_repo_open(repo, &err) != 0)
        return cli_fail(TG_EXIT_USAGE, "%s: %s", cmd, err.msg);
    if (tg_repo_load_config(repo, &err) != 0 || tg_registry_open(g, repo, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        tg_repo_release(repo);
        return cli_fail(TG_EXIT_USAGE, "%s: %s", cmd, msg);
    }
    return TG_EXIT_OK;
}

static void close_registry(tg_repo *repo, tg_registry *g)
{
    tg_registry_release(g);
    tg_repo_release(repo);
}

/* Counts an event in .toolgen/metrics.json; a failure there only warns: the command's own work
 * is done and recorded in the registry. */
static void count_event(const char *cmd, const tg_repo *repo, tg_monitor_event ev, double ms,
                        const tg_strv *reasons)
{
    tg_err err = {0};
    if (tg_monitor_add(repo, ev, ms, reasons, &err) != 0)
        fprintf(stderr, "toolgen: %s: warning: %s not updated: %s\n", cmd, TG_METRICS_PATH,
                err.msg);
}

static int fail_err(const char *cmd, int code, const tg_err *err)
{
    char msg[2048];
    tg_err_format(err, msg, sizeof msg);
    return cli_fail(code, "%s: %s", cmd, msg);
}

/* The one positional TOOL of a command, checked; NULL after printing the error. */
static const char *tool_arg(const char *cmd, const char *usage, const char *tool)
{
    if (!tool) {
        cli_print_usage(usage, TG_EXIT_USAGE);
        return NULL;
    }
    if (!tg_tool_name_ok(tool)) {
        cli_fail(TG_EXIT_USAGE, "%s: '%s' is not a tool name (lower case letters, digits and _, "
                 "starting with a letter)", cmd, tool);
        return NULL;
    }
    return tool;
}

int cmd_stage(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return cli_print_usage(tg_usage_stage, TG_EXIT_USAGE);
    const char *tool = tool_arg("stage", tg_usage_stage, argv[1]);
    if (!tool)
        return TG_EXIT_USAGE;
    tg_repo repo;
    tg_registry g;
    int code = open_registry("stage", &repo, &g);
    if (code != TG_EXIT_OK)
        return code;
    tg_err err = {0};
    tg_registry_stage_result res;
    if (tg_registry_stage(&g, tool, &res, &err) != 0) {
        code = fail_err("stage", TG_EXIT_FAIL, &err);
        if (res.gate_failed)
            count_event("stage", &repo, TG_MON_GATE_FAILED, 0, NULL);
    } else if (res.already) {
        printf("%s is already %s (%s): nothing to do\n", tool, res.state, res.path);
    } else {
        count_event("stage", &repo, TG_MON_STAGED, 0, NULL);
        printf("%s v%s: DRAFT -> STAGED (%s)\nnext: `toolgen run %s ...` on real data, then "
               "`toolgen feedback %s --output \"...\"`\n", tool, res.version, res.path, tool,
               tool);
    }
    close_registry(&repo, &g);
    return code;
}

const char *cli_answering_user(void)
{
    static const char *const vars[] = {"TOOLGEN_USER", "USER", "LOGNAME"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *u = getenv(vars[i]);
        if (u && *u)
            return u;
    }
    /* no variable (a service, a container): the account itself, never a made-up name */
    const struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_name && *pw->pw_name ? pw->pw_name : "user";
}

int cmd_feedback(int argc, char **argv)
{
    const char *tool = NULL, *reply = NULL;
    int stage = 0; /* 1 output, 2 decision */
    for (int i = 1; i < argc; i++) {
        bool out = strcmp(argv[i], "--output") == 0, dec = strcmp(argv[i], "--decision") == 0;
        if ((out || dec) && i + 1 < argc && !stage) {
            stage = out ? 1 : 2;
            reply = argv[++i];
        } else if (argv[i][0] != '-' && !tool) {
            tool = argv[i];
        } else {
            return cli_print_usage(tg_usage_feedback, TG_EXIT_USAGE);
        }
    }
    if (!stage || !tool_arg("feedback", tg_usage_feedback, tool))
        return stage ? TG_EXIT_USAGE : cli_print_usage(tg_usage_feedback, TG_EXIT_USAGE);
    tg_repo repo;
    tg_registry g;
    int code = open_registry("feedback", &repo, &g);
    if (code != TG_EXIT_OK)
        return code;
    tg_err err = {0};
    tg_decide_result res;
    if (tg_decide(&g, tool, stage == 2, reply, cli_answering_user(), &res, &err) != 0) {
        code = fail_err("feedback", TG_EXIT_FAIL, &err);
    } else {
        printf("%s v%s: %s (state %s)\n", tool, res.version, tg_fb_name(res.decision),
               res.state);
        static const tg_monitor_event ev[] = {TG_MON_OUTPUT_ACCEPTED, TG_MON_OUTPUT_REJECTED,
                                              TG_MON_APPROVED, TG_MON_REJECTED};
        if (res.decision != TG_FB_PENDING)
            count_event("feedback", &repo, ev[res.decision], 0, NULL);
        if (res.decision == TG_FB_OUTPUT_ACCEPTED)
            printf("next: should this be saved as a reusable tool? Reply `Approve` or `Reject`:"
                   " `toolgen feedback %s --decision \"...\"`\n", tool);
        else if (res.decision == TG_FB_APPROVED)
            printf("next: `toolgen promote %s`\n", tool);
        else if (res.decision == TG_FB_REJECTED || res.decision == TG_FB_OUTPUT_REJECTED)
            printf("next: say what needs improvement: `toolgen reject %s --notes \"...\"`\n",
                   tool);
    }
    close_registry(&repo, &g);
    return code;
}

int cmd_promote(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return cli_print_usage(tg_usage_promote, TG_EXIT_USAGE);
    const char *tool = tool_arg("promote", tg_usage_promote, argv[1]);
    if (!tool)
        return TG_EXIT_USAGE;
    tg_repo repo;
    tg_registry g;
    int code = open_registry("promote", &repo, &g);
    if (code != TG_EXIT_OK)
        return code;
    tg_err err = {0};
    tg_promote_result res;
    /* TOOLGEN_FAULT is a test hook: it makes one promotion step fail (docs/lifecycle.md) */
    tg_promote_status st = tg_promote(&g, tool, getenv("TOOLGEN_FAULT"), &res, &err);
    switch (st) {
    case TG_PROMOTE_DONE:
        count_event("promote", &repo, TG_MON_PROMOTED, 0, NULL);
        printf("%s v%s: APPROVED -> PROMOTED%s%s%s\ncommit %s promote %s v%s\n", tool,
               res.version, res.previous[0] ? " (replaces v" : "", res.previous,
               res.previous[0] ? ")" : "", res.commit, tool, res.version);
        break;
    case TG_PROMOTE_ALREADY:
        printf("%s v%s: an identical tool is already active; nothing to do\n", tool,
               res.previous[0] ? res.previous : res.version);
        break;
    case TG_PROMOTE_NOGIT:
        code = fail_err("promote", TG_EXIT_USAGE, &err);
        break;
    case TG_PROMOTE_REFUSED:
        code = fail_err("promote", TG_EXIT_FAIL, &err);
        break;
    case TG_PROMOTE_FAILED:
        code = fail_err("promote", TG_EXIT_FAIL, &err);
        fprintf(stderr, "toolgen: promote: nothing was changed (registry, index and HEAD are as "
                        "they were)\n");
        break;
    }
    close_registry(&repo, &g);
    return code;
}

int cmd_reject(int argc, char **argv)
{
    const char *tool = NULL, *notes = NULL;
    bool refine = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--notes") == 0 && i + 1 < argc && !notes)
            notes = argv[++i];
        else if (strcmp(argv[i], "--refine") == 0)
            refine = true;
        else if (argv[i][0] != '-' && !tool)
            tool = argv[i];
        else
            return cli_print_usage(tg_usage_reject, TG_EXIT_USAGE);
    }
    if (!notes)
        return cli_fail(TG_EXIT_USAGE, "reject: --notes is required: say what needs "
                        "improvement (wrong column, missing filter, output format, ...)");
    if (!tool_arg("reject", tg_usage_reject, tool))
        return TG_EXIT_USAGE;
    tg_repo repo;
    tg_registry g;
    int code = open_registry("reject", &repo, &g);
    if (code != TG_EXIT_OK)
        return code;
    tg_err err = {0};
    tg_reject_result res;
    if (tg_reject(&g, tool, notes, &res, &err) != 0) {
        code = fail_err("reject", TG_EXIT_FAIL, &err);
    } else {
        count_event("reject", &repo, res.was_rejected ? TG_MON_REASONS : TG_MON_REJECTED, 0,
                    &res.categories);
        printf("%s v%s: REJECTED, archived in %s\nissues:", tool, res.version, res.archive);
        for (size_t i = 0; i < res.categories.n; i++)
            printf(" %s", res.categories.v[i]);
        printf("\n");
        if (refine)
            code = cli_refine(&repo, tool, notes);
    }
    tg_strv_free(&res.categories);
    close_registry(&repo, &g);
    return code;
}

int cli_check_registry(const tg_repo *repo)
{
    tg_registry g;
    tg_err err = {0};
    tg_strv problems = {0};
    int code = TG_EXIT_OK;
    if (tg_registry_open(&g, repo, &err) != 0)
        return fail_err("check", TG_EXIT_USAGE, &err);
    if (tg_registry_verify(&g, &problems, &err) != 0) {
        code = fail_err("check", TG_EXIT_USAGE, &err);
    } else if (problems.n) {
        printf("toolgen check: the registry's snapshots differ from what their metadata records:\n");
        for (size_t i = 0; i < problems.n; i++)
            printf("  %s\n", problems.v[i]);
        code = TG_EXIT_FAIL;
    } else if (tg_is_dir_at(repo->root_fd, g.active) || tg_is_dir_at(repo->root_fd, g.staging)) {
        printf("toolgen check: every registry snapshot matches its recorded hashes\n");
    }
    tg_strv_free(&problems);
    tg_registry_release(&g);
    return code;
}
