/* gitstatus.c — git status of one directory against HEAD, with libgit2. */
#include "lifecycle/gitstatus.h"
#include "lifecycle/gitinit.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "base/buf.h"

void tg_git_changes_free(tg_git_changes *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->v[i].path);
    free(c->v);
    *c = (tg_git_changes){0};
}

const char *tg_git_change_name(tg_git_change_kind k)
{
    switch (k) {
    case TG_GIT_ADDED:
        return "added";
    case TG_GIT_UNTRACKED:
        return "untracked";
    case TG_GIT_REMOVED:
        return "removed";
    case TG_GIT_CHANGED:
        return "changed";
    }
    return "changed";
}

static void add(tg_git_changes *c, char *path, tg_git_change_kind k)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->v = xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = (tg_git_change){path, k};
}

static int git_fail(tg_err *err, const char *what)
{
    const git_error *ge = git_error_last();
    return tg_err_set(err, "%s: %s", what, ge && ge->message ? ge->message : "libgit2 error");
}

static tg_git_change_kind kind_of(unsigned s)
{
    if (s & (GIT_STATUS_INDEX_DELETED | GIT_STATUS_WT_DELETED))
        return TG_GIT_REMOVED;
    if (s & (GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_WT_MODIFIED | GIT_STATUS_INDEX_TYPECHANGE |
             GIT_STATUS_WT_TYPECHANGE | GIT_STATUS_INDEX_RENAMED | GIT_STATUS_WT_RENAMED))
        return TG_GIT_CHANGED;
    if (s & GIT_STATUS_INDEX_NEW)
        return TG_GIT_ADDED;
    return TG_GIT_UNTRACKED;
}

int tg_git_status_dir(const tg_repo *r, const char *dir, tg_git_changes *out, tg_err *err)
{
    tg_libgit2_start();
    git_repository *repo = NULL;
    git_status_list *list = NULL;
    char *prefix = NULL, *spec = NULL;
    int rc = -1;
    if (git_repository_open_ext(&repo, r->path, 0, NULL) != 0) {
        tg_err_set(err, "not inside a git repository: toolgen check compares the generated "
                        "files with the last commit; run it in a git working tree");
        rc = -2;
        goto out;
    }
    const char *workdir = git_repository_workdir(repo);
    if (!workdir) {
        tg_err_set(err, "the git repository is bare: toolgen check needs a working tree");
        rc = -2;
        goto out;
    }
    const char *cwd = r->path;
    char root[PATH_MAX];
    if (!realpath(workdir, root)) {
        tg_err_set(err, "cannot resolve the git working tree %s", workdir);
        goto out;
    }
    size_t rl = strlen(root);
    if (strncmp(cwd, root, rl) != 0 || (cwd[rl] != '\0' && cwd[rl] != '/')) {
        tg_err_set(err, "the repository %s is not inside the git working tree %s", cwd, root);
        goto out;
    }
    /* Paths from libgit2 are relative to the working tree root; ours to the repository's. */
    prefix = cwd[rl] ? xasprintf("%s/", cwd + rl + 1) : xstrdup("");
    spec = xasprintf("%s%s/", prefix, dir);
    char *specs[1] = {spec};
    git_status_options opts;
    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                 GIT_STATUS_OPT_SORT_CASE_SENSITIVELY | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    opts.pathspec.strings = specs;
    opts.pathspec.count = 1;
    if (git_status_list_new(&list, repo, &opts) != 0) {
        git_fail(err, "git status");
        goto out;
    }
    size_t n = git_status_list_entrycount(list), pl = strlen(prefix);
    for (size_t i = 0; i < n; i++) {
        const git_status_entry *s = git_status_byindex(list, i);
        if (s->status == GIT_STATUS_CURRENT || (s->status & GIT_STATUS_IGNORED))
            continue;
        const git_diff_delta *d = s->index_to_workdir ? s->index_to_workdir : s->head_to_index;
        if (!d)
            continue;
        const char *p = d->new_file.path ? d->new_file.path : d->old_file.path;
        if (strncmp(p, prefix, pl) != 0)
            continue;
        add(out, xstrdup(p + pl), kind_of((unsigned)s->status));
    }
    rc = 0;
out:
    git_status_list_free(list);
    git_repository_free(repo);
    free(prefix);
    free(spec);
    git_libgit2_shutdown();
    return rc;
}

int tg_git_probe(const tg_repo *r, tg_err *err)
{
    tg_libgit2_start();
    git_repository *repo = NULL;
    int rc = 0;
    if (git_repository_open_ext(&repo, r->path, 0, NULL) != 0) {
        tg_err_set(err, "not inside a git repository: toolgen check compares the generated "
                        "files with the last commit; run it in a git working tree");
        rc = -2;
    } else if (!git_repository_workdir(repo)) {
        tg_err_set(err, "the git repository is bare: toolgen check needs a working tree");
        rc = -2;
    }
    git_repository_free(repo);
    git_libgit2_shutdown();
    return rc;
}
