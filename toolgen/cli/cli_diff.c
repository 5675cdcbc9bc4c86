/* cli_diff.c — `toolgen diff [BASE [HEAD]]`: review the manifests changed between revisions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli/cli.h"
#include "lifecycle/gitrev.h"
#include "lifecycle/review.h"
#include "lifecycle/review_format.h"
#include "lifecycle/review_policy.h"

const char tg_usage_diff[] =
    "usage: toolgen diff [-C DIR] [--check] [--format text|markdown|json] [BASE [HEAD]]\n"
    "\n"
    "Reviews the tools changed between two revisions: for each tool added, removed or changed,\n"
    "the semantic differences of its manifest (input and output schemas, error codes,\n"
    "constraints, docs, examples, tests, implementation, lifecycle state), each schema change\n"
    "classified as breaking, possibly breaking, compatible or informational for a caller, the\n"
    "quality scores before and after, and the emitted files that changed. Revisions are read\n"
    "through git, never checked out.\n"
    "\n"
    "BASE defaults to the merge base of HEAD with the default branch (review.default_branch,\n"
    "else origin/HEAD, main or master); HEAD defaults to the working tree.\n"
    "\n"
    "  --check          apply the version policy of toolgen.yaml (review.versioning, default\n"
    "                   semver): exit 1 listing every tool whose version bump is missing or\n"
    "                   too small\n"
    "  --format FMT     text (default), markdown (a pull-request comment) or json\n"
    "\n"
    "Exit status: 0 reviewed (and, with --check, every version bump suffices), 1 a version bump\n"
    "is missing, 2 usage error, unknown revision or not a git repository, 3 a revision could\n"
    "not be read. See docs/review.md.\n";

typedef struct diff_opts {
    bool check;
    tg_review_format format;
    const char *revs[2];
    int nrevs;
} diff_opts;

static int parse_diff(int argc, char **argv, diff_opts *o)
{
    bool dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *fmt = NULL;
        if (!dashdash && strcmp(a, "--") == 0) {
            dashdash = true;
        } else if (!dashdash && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            cli_print_usage(tg_usage_diff, TG_EXIT_OK);
            return -1; /* done: exit 0 */
        } else if (!dashdash && strcmp(a, "--check") == 0) {
            o->check = true;
        } else if (!dashdash && strcmp(a, "--format") == 0) {
            if (i + 1 >= argc)
                return cli_fail(TG_EXIT_USAGE, "diff: --format needs a value: text, markdown or "
                                               "json");
            fmt = argv[++i];
        } else if (!dashdash && strncmp(a, "--format=", 9) == 0) {
            fmt = a + 9;
        } else if (!dashdash && a[0] == '-' && a[1]) {
            return cli_fail(TG_EXIT_USAGE, "diff: unknown option '%s'; see 'toolgen help diff'",
                            a);
        } else if (o->nrevs == 2) {
            return cli_fail(TG_EXIT_USAGE, "diff: too many revisions ('%s'): give at most BASE "
                                           "and HEAD", a);
        } else {
            o->revs[o->nrevs++] = a;
        }
        if (fmt && tg_review_format_parse(fmt, &o->format) != 0)
            return cli_fail(TG_EXIT_USAGE, "diff: unknown format '%s': use text, markdown or "
                                           "json", fmt);
    }
    return 0;
}

/* The two sides: the revisions named, else the merge base and the working tree. */
static int open_revs(tg_gitrev *g, const diff_opts *o, const tg_review_policy *p, tg_rev *base,
                     tg_rev *head, tg_err *err)
{
    int rc = o->nrevs > 0 ? tg_gitrev_resolve(g, o->revs[0], base, err)
                          : tg_gitrev_merge_base(g, p->default_branch, base, err);
    if (rc != 0)
        return rc;
    if (o->nrevs < 2) {
        tg_rev_worktree(head);
        return 0;
    }
    return tg_gitrev_resolve(g, o->revs[1], head, err);
}

static int report_violations(const tg_review *r, size_t bad)
{
    fprintf(stderr, "toolgen: diff --check: %zu tool%s need%s a version bump:\n", bad,
            bad == 1 ? "" : "s", bad == 1 ? "s" : "");
    for (size_t i = 0; i < r->n; i++)
        if (!r->v[i].ok)
            fprintf(stderr, "  %s: %s\n", r->v[i].name, r->v[i].verdict);
    return TG_EXIT_FAIL;
}

static int review_and_print(tg_repo *repo, const diff_opts *o, const tg_review_policy *p)
{
    tg_err err = {0};
    tg_gitrev *g = NULL;
    int grc = tg_gitrev_open(repo, &g, &err);
    if (grc != 0)
        return cli_fail(grc == -2 ? TG_EXIT_USAGE : TG_EXIT_ENV, "diff: %s", err.msg);
    tg_rev base = {0}, head = {0};
    tg_review r = {0};
    int rc = TG_EXIT_OK;
    if (open_revs(g, o, p, &base, &head, &err) != 0) {
        rc = cli_fail(TG_EXIT_USAGE, "diff: %s", err.msg);
    } else if (tg_review_collect(repo, g, &base, &head, &r, &err) != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        rc = cli_fail(TG_EXIT_ENV, "diff: %s", msg);
    } else {
        size_t bad = o->check ? tg_review_policy_apply(p, &r) : 0;
        tg_buf out = TG_BUF_INIT;
        tg_review_render(&r, o->format, o->check, &out);
        fwrite(out.data, 1, out.len, stdout);
        fflush(stdout);
        tg_buf_free(&out);
        if (bad)
            rc = report_violations(&r, bad);
    }
    tg_review_free(&r);
    tg_rev_release(&base);
    tg_rev_release(&head);
    tg_gitrev_close(g);
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    diff_opts o = {.format = TG_REVIEW_TEXT};
    int prc = parse_diff(argc, argv, &o);
    if (prc != 0)
        return prc < 0 ? TG_EXIT_OK : prc;
    tg_repo repo;
    tg_err err = {0};
    char msg[2048];
    if (cli_repo_open(&repo, &err) != 0)
        return cli_fail(TG_EXIT_USAGE, "diff: %s", err.msg);
    tg_review_policy p;
    int rc;
    if (tg_repo_load_config(&repo, &err) != 0 || tg_review_policy_load(&repo.cfg, &p, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        rc = cli_fail(TG_EXIT_USAGE, "diff: %s", msg);
    } else {
        rc = review_and_print(&repo, &o, &p);
    }
    tg_repo_release(&repo);
    return rc;
}
