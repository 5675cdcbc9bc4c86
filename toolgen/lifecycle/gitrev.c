/* gitrev.c — files at a revision (a commit's tree or the working tree), with libgit2. */
#include "lifecycle/gitrev.h"
#include "lifecycle/gitinit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "base/buf.h"
#include "base/confine.h"

struct tg_gitrev {
    git_repository *git;
    const tg_repo *repo;
    char *prefix; /* the repository's root relative to the git working tree: "" or "sub/dir/" */
};

static int git_fail(tg_err *err, const char *what)
{
    const git_error *ge = git_error_last();
    return tg_err_set(err, "%s: %s", what, ge && ge->message ? ge->message : "libgit2 error");
}

int tg_gitrev_open(const tg_repo *repo, tg_gitrev **out, tg_err *err)
{
    *out = NULL;
    tg_libgit2_start();
    /* A manifests folder of a thousand tools is a tree of tens of KiB, over libgit2's default
     * 4 KiB cache limit for trees: every path lookup would inflate it again. */
    git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, (int)GIT_OBJECT_TREE, (size_t)1 << 20);
    tg_gitrev *g = xcalloc(1, sizeof *g);
    g->repo = repo;
    char root[PATH_MAX];
    const char *workdir;
    if (git_repository_open_ext(&g->git, repo->path, 0, NULL) != 0) {
        tg_err_set(err, "not inside a git repository: %s; toolgen diff compares revisions of a "
                        "git repository (run `git init` and commit, or use -C DIR)", repo->path);
        tg_gitrev_close(g);
        return -2;
    }
    workdir = git_repository_workdir(g->git);
    if (!workdir) {
        tg_err_set(err, "the git repository is bare: toolgen diff needs a working tree");
        tg_gitrev_close(g);
        return -2;
    }
    if (!realpath(workdir, root)) {
        tg_err_set(err, "cannot resolve the git working tree %s", workdir);
        tg_gitrev_close(g);
        return -1;
    }
    size_t rl = strlen(root);
    const char *p = repo->path;
    if (strncmp(p, root, rl) != 0 || (p[rl] != '\0' && p[rl] != '/')) {
        tg_err_set(err, "the repository %s is not inside the git working tree %s", p, root);
        tg_gitrev_close(g);
        return -1;
    }
    g->prefix = p[rl] ? xasprintf("%s/", p + rl + 1) : xstrdup("");
    *out = g;
    return 0;
}

void tg_gitrev_close(tg_gitrev *g)
{
    if (!g)
        return;
    git_repository_free(g->git);
    free(g->prefix);
    free(g);
    git_libgit2_shutdown();
}

void tg_rev_worktree(tg_rev *out)
{
    *out = (tg_rev){.label = xstrdup("working tree"), .worktree = true};
}

static int rev_of_commit(git_commit *c, const char *label, tg_rev *out, tg_err *err)
{
    git_tree *tree = NULL;
    if (git_commit_tree(&tree, c) != 0)
        return git_fail(err, label);
    *out = (tg_rev){.label = xstrdup(label), .tree = tree};
    git_oid_tostr(out->oid, sizeof out->oid, git_commit_id(c));
    return 0;
}

int tg_gitrev_resolve(tg_gitrev *g, const char *spec, tg_rev *out, tg_err *err)
{
    *out = (tg_rev){0};
    git_object *obj = NULL;
    git_commit *c = NULL;
    int rc = -1;
    if (git_revparse_single(&obj, g->git, spec) != 0) {
        const git_error *ge = git_error_last();
        tg_err_set(err, "unknown revision '%s' (%s): name a commit, e.g. main, HEAD~1 or a "
                        "commit id (see `git log --oneline`)",
                   spec, ge && ge->message ? ge->message : "not found");
        goto out;
    }
    if (git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) != 0) {
        tg_err_set(err, "revision '%s' is a %s, not a commit: name a commit, e.g. a branch, a "
                        "tag or a commit id", spec, git_object_type2string(git_object_type(obj)));
        goto out;
    }
    rc = rev_of_commit(c, spec, out, err);
out:
    git_commit_free(c);
    git_object_free(obj);
    return rc;
}

/* The default branch's ref name (heap), or NULL when the repository has none of the usual. */
static char *default_branch(tg_gitrev *g)
{
    git_reference *ref = NULL;
    char *name = NULL;
    if (git_reference_lookup(&ref, g->git, "refs/remotes/origin/HEAD") == 0 &&
        git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC)
        name = xstrdup(git_reference_symbolic_target(ref));
    git_reference_free(ref);
    static const char *const usual[] = {"refs/heads/main", "refs/heads/master"};
    for (size_t i = 0; !name && i < sizeof usual / sizeof *usual; i++) {
        git_oid oid;
        if (git_reference_name_to_id(&oid, g->git, usual[i]) == 0)
            name = xstrdup(usual[i]);
    }
    return name;
}

int tg_gitrev_merge_base(tg_gitrev *g, const char *branch, tg_rev *out, tg_err *err)
{
    *out = (tg_rev){0};
    git_oid head, other, base;
    if (git_reference_name_to_id(&head, g->git, "HEAD") != 0)
        return tg_err_set(err, "HEAD has no commit yet: commit once, or name the revisions to "
                               "compare (toolgen diff BASE HEAD)");
    char *name = branch ? xstrdup(branch) : default_branch(g);
    int rc = -1;
    git_commit *c = NULL;
    if (!name) {
        base = head;
    } else {
        git_object *obj = NULL;
        int found = git_revparse_single(&obj, g->git, name) == 0;
        if (found)
            other = *git_object_id(obj);
        git_object_free(obj);
        if (!found) {
            tg_err_set(err, "the default branch '%s' does not exist: set review.default_branch "
                            "in toolgen.yaml, or name BASE (toolgen diff BASE)", name);
            goto out;
        }
        if (git_merge_base(&base, g->git, &head, &other) != 0) {
            tg_err_set(err, "HEAD and '%s' have no common ancestor: name BASE (toolgen diff "
                            "BASE)", name);
            goto out;
        }
    }
    if (git_commit_lookup(&c, g->git, &base) != 0) {
        git_fail(err, "merge base");
        goto out;
    }
    char label[128];
    snprintf(label, sizeof label, "merge base with %s",
             name ? (strncmp(name, "refs/heads/", 11) == 0   ? name + 11
                     : strncmp(name, "refs/remotes/", 13) == 0 ? name + 13
                                                               : name)
                  : "HEAD");
    rc = rev_of_commit(c, label, out, err);
out:
    git_commit_free(c);
    free(name);
    return rc;
}

void tg_rev_release(tg_rev *r)
{
    git_tree_free(r->tree);
    free(r->label);
    *r = (tg_rev){0};
}

/* The tree entry at path (relative to the repository's root) in a commit's tree. */
static git_tree_entry *entry_at(tg_gitrev *g, const tg_rev *rev, const char *path)
{
    git_tree_entry *e = NULL;
    char *full = xasprintf("%s%s", g->prefix, path);
    if (git_tree_entry_bypath(&e, rev->tree, full) != 0)
        e = NULL;
    free(full);
    return e;
}

static int read_worktree(tg_gitrev *g, const char *path, size_t max, char **data, size_t *len,
                         tg_err *err)
{
    struct stat st;
    if (fstatat(g->repo->root_fd, path, &st, 0) != 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : tg_err_set(err, "%s: %s", path,
                                                                     strerror(errno));
    if (!S_ISREG(st.st_mode))
        return 0;
    if (tg_confine_repo_in(g->repo->path, path, NULL, "file", err) != 0)
        return -1;
    *data = tg_read_file_at(g->repo->root_fd, path, max, len, err);
    return *data ? 1 : -1;
}

int tg_gitrev_read(tg_gitrev *g, const tg_rev *rev, const char *path, size_t max_bytes,
                   char **data, size_t *len, tg_err *err)
{
    *data = NULL;
    *len = 0;
    if (rev->worktree)
        return read_worktree(g, path, max_bytes, data, len, err);
    git_tree_entry *e = entry_at(g, rev, path);
    if (!e)
        return 0;
    int rc = 0;
    git_blob *blob = NULL;
    if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
        rc = 0;
    } else if (git_blob_lookup(&blob, g->git, git_tree_entry_id(e)) != 0) {
        rc = git_fail(err, path);
    } else {
        size_t n = (size_t)git_blob_rawsize(blob);
        if (max_bytes && n > max_bytes) {
            rc = tg_err_set(err, "%s:%s: %zu bytes, over the limit of %zu", rev->label, path, n,
                            max_bytes);
        } else {
            *data = xmalloc(n + 1);
            memcpy(*data, git_blob_rawcontent(blob), n);
            (*data)[n] = '\0';
            *len = n;
            rc = 1;
        }
    }
    git_blob_free(blob);
    git_tree_entry_free(e);
    return rc;
}

int tg_gitrev_object_id(tg_gitrev *g, const tg_rev *rev, const char *path, char out[41],
                        tg_err *err)
{
    out[0] = '\0';
    if (rev->worktree) {
        /* Only a hash leaves this function, never the bytes, so a regular file (not a symlink)
         * is hashed without the confinement check: realpath on every file of a large
         * repository would cost more than the diff. */
        struct stat st;
        if (fstatat(g->repo->root_fd, path, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            return 0;
        size_t len;
        char *data = tg_read_file_at(g->repo->root_fd, path, 0, &len, err);
        if (!data)
            return -1;
        int rc;
        git_oid oid;
        rc = git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) == 0 ? 1 : git_fail(err, path);
        free(data);
        if (rc == 1)
            git_oid_tostr(out, 41, &oid);
        return rc;
    }
    git_tree_entry *e = entry_at(g, rev, path);
    if (!e)
        return 0;
    git_oid_tostr(out, 41, git_tree_entry_id(e));
    git_tree_entry_free(e);
    return 1;
}

/* The tree at dir in a commit (owned by the caller), or NULL when absent or not a folder. */
static git_tree *subtree(tg_gitrev *g, const tg_rev *rev, const char *dir)
{
    char *full = xasprintf("%s%s", g->prefix, dir);
    size_t n = strlen(full);
    while (n && full[n - 1] == '/')
        full[--n] = '\0';
    git_tree *t = NULL;
    if (!n) {
        git_tree_dup(&t, rev->tree);
    } else {
        git_tree_entry *e = NULL;
        if (git_tree_entry_bypath(&e, rev->tree, full) == 0 &&
            git_tree_entry_type(e) == GIT_OBJECT_TREE)
            git_tree_lookup(&t, g->git, git_tree_entry_id(e));
        git_tree_entry_free(e);
    }
    free(full);
    return t;
}

static int list_worktree(tg_gitrev *g, const char *dir, bool dirs_only, tg_strv *out,
                         tg_err *err)
{
    int fd = openat(g->repo->root_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : tg_err_set(err, "%s: %s", dir,
                                                                     strerror(errno));
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return tg_err_set(err, "%s: %s", dir, strerror(errno));
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char *p = xasprintf("%s/%s", dir, de->d_name);
        struct stat st;
        if (fstatat(g->repo->root_fd, p, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            free(p);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (dirs_only)
                tg_strv_push(out, de->d_name);
            else
                rc = list_worktree(g, p, false, out, err);
        } else if (!dirs_only && S_ISREG(st.st_mode)) {
            tg_strv_push(out, p);
        }
        free(p);
    }
    closedir(d);
    return rc;
}

static int list_tree(tg_gitrev *g, git_tree *t, const char *dir, bool dirs_only, tg_strv *out)
{
    size_t n = git_tree_entrycount(t);
    for (size_t i = 0; i < n; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(t, i);
        const char *name = git_tree_entry_name(e);
        git_object_t type = git_tree_entry_type(e);
        if (name[0] == '.')
            continue;
        if (dirs_only) {
            if (type == GIT_OBJECT_TREE)
                tg_strv_push(out, name);
            continue;
        }
        char *p = xasprintf("%s/%s", dir, name);
        if (type == GIT_OBJECT_TREE) {
            git_tree *sub = NULL;
            if (git_tree_lookup(&sub, g->git, git_tree_entry_id(e)) == 0)
                list_tree(g, sub, p, false, out);
            git_tree_free(sub);
        } else if (type == GIT_OBJECT_BLOB) {
            tg_strv_push(out, p);
        }
        free(p);
    }
    return 0;
}

static int list_at(tg_gitrev *g, const tg_rev *rev, const char *dir, bool dirs_only,
                   tg_strv *out, tg_err *err)
{
    size_t from = out->n;
    int rc = 0;
    if (rev->worktree) {
        rc = list_worktree(g, dir, dirs_only, out, err);
    } else {
        git_tree *t = subtree(g, rev, dir);
        if (t)
            rc = list_tree(g, t, dir, dirs_only, out);
        git_tree_free(t);
    }
    tg_strv_sort_from(out, from);
    return rc;
}

int tg_gitrev_list_dirs(tg_gitrev *g, const tg_rev *rev, const char *dir, tg_strv *out,
                        tg_err *err)
{
    return list_at(g, rev, dir, true, out, err);
}

int tg_gitrev_list_files(tg_gitrev *g, const tg_rev *rev, const char *dir, tg_strv *out,
                         tg_err *err)
{
    return list_at(g, rev, dir, false, out, err);
}

int tg_gitrev_changed_paths(tg_gitrev *g, const tg_rev *a, const tg_rev *b, const char *dir,
                            tg_strv *out, tg_err *err)
{
    if (a->worktree)
        return tg_err_set(err, "the working tree can only be the second revision of a diff");
    char *spec = xasprintf("%s%s/", g->prefix, dir);
    char *specs[1] = {spec};
    git_diff_options opts;
    git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
    opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
                 GIT_DIFF_INCLUDE_TYPECHANGE;
    opts.pathspec.strings = specs;
    opts.pathspec.count = 1;
    git_diff *d = NULL;
    int rc = b->worktree ? git_diff_tree_to_workdir_with_index(&d, g->git, a->tree, &opts)
                         : git_diff_tree_to_tree(&d, g->git, a->tree, b->tree, &opts);
    if (rc != 0) {
        free(spec);
        return git_fail(err, "git diff");
    }
    size_t n = git_diff_num_deltas(d), pl = strlen(g->prefix), from = out->n;
    for (size_t i = 0; i < n; i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);
        const char *paths[2] = {dd->old_file.path, dd->new_file.path};
        for (int k = 0; k < 2; k++)
            if (paths[k] && strncmp(paths[k], g->prefix, pl) == 0 &&
                (k == 0 || !paths[0] || strcmp(paths[0], paths[1]) != 0))
                tg_strv_push(out, paths[k] + pl);
    }
    git_diff_free(d);
    free(spec);
    tg_strv_sort_from(out, from);
    return 0;
}
