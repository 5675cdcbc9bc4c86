/* gitcommit.c — a commit of chosen paths, and the promotion history, with libgit2 (see
 * gitcommit.h). */
#include "lifecycle/gitcommit.h"
#include "lifecycle/gitinit.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

static int git_fail(tg_err *err, const char *what)
{
    const git_error *ge = git_error_last();
    return tg_err_set(err, "%s: %s", what, ge && ge->message ? ge->message : "libgit2 error");
}

/* The state of one commit in the making; everything here is released by session_end. */
typedef struct session {
    git_repository *repo;
    char *prefix;        /* the repository root relative to the working tree, "" or "sub/" */
    git_oid head;        /* valid when has_head */
    bool has_head, detached;
    char *branch;        /* the ref HEAD names (also when unborn); NULL when detached */
    git_index *scratch;  /* HEAD's tree plus the paths: the commit's tree */
    git_index *index;    /* the repository's index, updated the same way for those paths */
} session;

static void session_end(session *s)
{
    git_index_free(s->scratch);
    git_index_free(s->index);
    git_repository_free(s->repo);
    free(s->prefix);
    free(s->branch);
    git_libgit2_shutdown();
}

/* Opens the repository of r and finds where HEAD points. 0, -1, or -2 outside git. */
static int session_open(session *s, const tg_repo *r, tg_err *err)
{
    tg_libgit2_start();
    if (git_repository_open_ext(&s->repo, r->path, 0, NULL) != 0 ||
        !git_repository_workdir(s->repo)) {
        tg_err_set(err, "%s is not inside a git working tree: toolgen records promotions as "
                   "git commits; run `git init` there first", r->path);
        return -2;
    }
    char root[PATH_MAX];
    if (!realpath(git_repository_workdir(s->repo), root))
        return tg_err_set(err, "cannot resolve the git working tree");
    size_t rl = strlen(root);
    if (strncmp(r->path, root, rl) != 0 || (r->path[rl] && r->path[rl] != '/'))
        return tg_err_set(err, "%s is not inside the git working tree %s", r->path, root);
    s->prefix = r->path[rl] ? xasprintf("%s/", r->path + rl + 1) : xstrdup("");
    git_reference *h = NULL;
    if (git_reference_lookup(&h, s->repo, "HEAD") != 0)
        return git_fail(err, "reading HEAD");
    if (git_reference_type(h) == GIT_REFERENCE_SYMBOLIC) {
        s->branch = xstrdup(git_reference_symbolic_target(h));
    } else {
        s->detached = true;
    }
    git_reference_free(h);
    s->has_head = git_reference_name_to_id(&s->head, s->repo, "HEAD") == 0;
    if (s->detached && !s->has_head)
        return git_fail(err, "resolving HEAD");
    return 0;
}

/* Adds path (relative to the root) to idx as the working tree has it, or removes it. */
static int stage_path(session *s, const tg_repo *r, git_index *idx, const char *path,
                      const git_oid *oid, unsigned mode, tg_err *err)
{
    char *full = xasprintf("%s%s", s->prefix, path);
    int rc = 0;
    if (oid) {
        git_index_entry e;
        memset(&e, 0, sizeof e);
        e.path = full;
        e.mode = mode;
        e.id = *oid;
        if (git_index_add(idx, &e) != 0)
            rc = git_fail(err, path);
    } else if (git_index_find(NULL, idx, full) == 0 && git_index_remove(idx, full, 0) != 0) {
        rc = git_fail(err, path);
    }
    (void)r;
    free(full);
    return rc;
}

static const tg_git_override *override_of(const tg_git_commit_req *req, const char *path)
{
    for (size_t i = 0; i < req->noverrides; i++)
        if (strcmp(req->overrides[i].path, path) == 0)
            return &req->overrides[i];
    return NULL;
}

/* Both indexes get every path: a blob of the file (or of its override), or its removal. */
static int stage_paths(session *s, const tg_repo *r, const tg_git_commit_req *req, tg_err *err)
{
    for (size_t i = 0; i < req->npaths; i++) {
        const char *p = req->paths[i];
        struct stat st;
        git_oid oid;
        bool present = fstatat(r->root_fd, p, &st, 0) == 0 && S_ISREG(st.st_mode);
        const tg_git_override *ov = override_of(req, p);
        if (ov) {
            present = true;
            st.st_mode = S_IFREG | 0644;
            if (git_blob_create_from_buffer(&oid, s->repo, ov->data, ov->len) != 0)
                return git_fail(err, p);
        } else if (present) {
            char *abs = tg_path_join(r->path, p);
            int brc = git_blob_create_from_disk(&oid, s->repo, abs);
            free(abs);
            if (brc != 0)
                return git_fail(err, p);
        }
        unsigned mode = present && (st.st_mode & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                                        : GIT_FILEMODE_BLOB;
        if (stage_path(s, r, s->scratch, p, present ? &oid : NULL, mode, err) != 0 ||
            stage_path(s, r, s->index, p, present ? &oid : NULL, mode, err) != 0)
            return -1;
    }
    return 0;
}

static int make_indexes(session *s, tg_err *err)
{
    if (git_index_new(&s->scratch) != 0)
        return git_fail(err, "creating an index");
    if (s->has_head) {
        git_commit *c = NULL;
        git_tree *t = NULL;
        int rc = git_commit_lookup(&c, s->repo, &s->head) != 0 || git_commit_tree(&t, c) != 0 ||
                 git_index_read_tree(s->scratch, t) != 0;
        git_tree_free(t);
        git_commit_free(c);
        if (rc)
            return git_fail(err, "reading HEAD's tree");
    }
    if (git_repository_index(&s->index, s->repo) != 0 || git_index_read(s->index, 0) != 0)
        return git_fail(err, "reading the index");
    return 0;
}

static int signature(session *s, const tg_git_commit_req *req, git_signature **sig, tg_err *err)
{
    if (req->author_name && req->author_email)
        return git_signature_now(sig, req->author_name, req->author_email) == 0
                   ? 0 : git_fail(err, "author");
    git_signature *def = NULL;
    int rc;
    if (git_signature_default(&def, s->repo) == 0)
        rc = git_signature_now(sig, req->author_name ? req->author_name : def->name,
                               req->author_email ? req->author_email : def->email);
    else
        rc = git_signature_now(sig, req->author_name ? req->author_name : "toolgen",
                               req->author_email ? req->author_email : "toolgen@localhost");
    git_signature_free(def);
    return rc == 0 ? 0 : git_fail(err, "author");
}

static int fault(const tg_git_commit_req *req, const char *step, tg_err *err)
{
    if (req->fail_at && strcmp(req->fail_at, step) == 0)
        return tg_err_set(err, "injected failure at step \"%s\" (TOOLGEN_FAULT)", step);
    return 0;
}

/* Creates the commit object (HEAD does not move yet). */
static int create_commit(session *s, const tg_git_commit_req *req, git_oid *out, tg_err *err)
{
    git_oid tree_oid;
    git_tree *tree = NULL;
    git_commit *parent = NULL;
    git_signature *sig = NULL;
    int rc = -1;
    if (git_index_write_tree_to(&tree_oid, s->scratch, s->repo) != 0 ||
        git_tree_lookup(&tree, s->repo, &tree_oid) != 0) {
        git_fail(err, "writing the tree");
        goto out;
    }
    if (s->has_head && git_commit_lookup(&parent, s->repo, &s->head) != 0) {
        git_fail(err, "reading HEAD");
        goto out;
    }
    if (signature(s, req, &sig, err) != 0 || fault(req, "commit", err) != 0)
        goto out;
    const git_commit *parents[1] = {parent};
    if (git_commit_create(out, s->repo, NULL, sig, sig, "UTF-8", req->message, tree,
                          parent ? 1 : 0, parents) != 0) {
        git_fail(err, "creating the commit");
        goto out;
    }
    rc = 0;
out:
    git_signature_free(sig);
    git_commit_free(parent);
    git_tree_free(tree);
    return rc;
}

/* Points HEAD (its branch, or HEAD itself when detached) at oid, only if it has not moved. */
static int move_head(session *s, const git_oid *to, const char *msg, tg_err *err)
{
    git_reference *ref = NULL;
    const char *name = s->detached ? "HEAD" : s->branch;
    int rc = git_reference_create_matching(&ref, s->repo, name, to, 1,
                                           s->has_head ? &s->head : NULL, msg);
    git_reference_free(ref);
    return rc == 0 ? 0 : git_fail(err, "moving HEAD");
}

/* Puts HEAD back after a failure that followed move_head. */
static void restore_head(session *s, const git_oid *now)
{
    git_reference *ref = NULL;
    const char *name = s->detached ? "HEAD" : s->branch;
    if (s->has_head) {
        git_reference_create_matching(&ref, s->repo, name, &s->head, 1, now, "toolgen: undo");
        git_reference_free(ref);
    } else if (git_reference_lookup(&ref, s->repo, name) == 0) {
        git_reference_delete(ref);
        git_reference_free(ref);
    }
}

int tg_git_commit_paths(const tg_repo *r, const tg_git_commit_req *req, char out_oid[41],
                        tg_err *err)
{
    session s = {0};
    int rc = session_open(&s, r, err);
    git_oid oid;
    if (rc != 0)
        goto out;
    rc = -1;
    char *want = req->branch ? xasprintf("refs/heads/%s", req->branch) : NULL;
    bool elsewhere = want && (s.detached || strcmp(s.branch, want) != 0);
    if (elsewhere)
        tg_err_set(err, "promotion.git.branch is \"%s\" but HEAD is %s%s; check out %s first "
                   "or change the setting", req->branch, s.detached ? "detached" : "on ",
                   s.detached ? "" : s.branch + (strncmp(s.branch, "refs/heads/", 11) ? 0 : 11),
                   req->branch);
    free(want);
    if (elsewhere || make_indexes(&s, err) != 0 || stage_paths(&s, r, req, err) != 0 ||
        create_commit(&s, req, &oid, err) != 0 || fault(req, "ref", err) != 0)
        goto out;
    char *first = xstrndup(req->message, strcspn(req->message, "\n"));
    char *msg = xasprintf("commit (toolgen): %s", first);
    free(first);
    int mrc = move_head(&s, &oid, msg, err);
    free(msg);
    if (mrc != 0)
        goto out;
    if (fault(req, "index", err) != 0 || git_index_write(s.index) != 0) {
        if (!err || !err->msg[0])
            git_fail(err, "writing the index");
        restore_head(&s, &oid);
        goto out;
    }
    git_oid_tostr(out_oid, 41, &oid);
    rc = 0;
out:
    session_end(&s);
    return rc;
}

int tg_git_head(const tg_repo *r, char out_oid[41], tg_err *err)
{
    session s = {0};
    int rc = session_open(&s, r, err);
    out_oid[0] = '\0';
    if (rc == 0 && s.has_head)
        git_oid_tostr(out_oid, 41, &s.head);
    session_end(&s);
    return rc;
}

int tg_git_index_to_head(const tg_repo *r, const char *const *paths, size_t n, tg_err *err)
{
    session s = {0};
    int rc = session_open(&s, r, err);
    if (rc == 0)
        rc = make_indexes(&s, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *full = xasprintf("%s%s", s.prefix, paths[i]);
        const git_index_entry *e = git_index_get_bypath(s.scratch, full, 0);
        git_index_entry copy;
        if (e) {
            copy = *e;
            rc = git_index_add(s.index, &copy) == 0 ? 0 : git_fail(err, paths[i]);
        } else if (git_index_find(NULL, s.index, full) == 0) {
            rc = git_index_remove(s.index, full, 0) == 0 ? 0 : git_fail(err, paths[i]);
        }
        free(full);
    }
    if (rc == 0 && git_index_write(s.index) != 0)
        rc = git_fail(err, "writing the index");
    session_end(&s);
    return rc;
}

int tg_git_init(const char *dir, bool *created, tg_err *err)
{
    tg_libgit2_start();
    git_repository *r = NULL;
    *created = false;
    if (git_repository_open_ext(&r, dir, 0, NULL) == 0) {
        git_repository_free(r);
        return 0;
    }
    if (git_repository_init(&r, dir, 0) != 0)
        return git_fail(err, "git init");
    git_repository_free(r);
    *created = true;
    return 0;
}

/* Removes DIR/NAME.lock when it is a regular file made at or after since. */
static void clear_lock(const char *dir, const char *name, const struct timespec *since)
{
    char *path = xasprintf("%s%s.lock", dir, name);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        (st.st_mtim.tv_sec > since->tv_sec ||
         (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec >= since->tv_nsec)))
        unlink(path);
    free(path);
}

int tg_git_clear_stale_locks(const tg_repo *r, const struct timespec *since, tg_err *err)
{
    session s = {0};
    int rc = session_open(&s, r, err);
    if (rc == 0) {
        const char *gitdir = git_repository_path(s.repo);
        const char *common = git_repository_commondir(s.repo);
        clear_lock(gitdir, "index", since);
        clear_lock(gitdir, "HEAD", since);
        clear_lock(gitdir, "logs/HEAD", since);
        clear_lock(common, "packed-refs", since);
        if (s.branch) {
            char *log = xasprintf("logs/%s", s.branch);
            clear_lock(common, s.branch, since);
            clear_lock(common, log, since);
            free(log);
        }
    }
    session_end(&s);
    return rc;
}

void tg_git_log_free(tg_git_log *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].author);
        free(l->v[i].message);
    }
    free(l->v);
    *l = (tg_git_log){0};
}

static void log_add(tg_git_log *l, const git_commit *c)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    tg_git_logent *e = &l->v[l->n++];
    git_oid_tostr(e->oid, sizeof e->oid, git_commit_id(c));
    const git_signature *a = git_commit_author(c);
    e->time = (long long)a->when.time;
    e->author = xasprintf("%s <%s>", a->name, a->email);
    e->message = xstrdup(git_commit_message(c));
}

int tg_git_log_grep(const tg_repo *r, const char *prefix, size_t max, tg_git_log *out,
                    tg_err *err)
{
    session s = {0};
    git_revwalk *walk = NULL;
    int rc = session_open(&s, r, err);
    if (rc != 0 || !s.has_head)
        goto out;
    rc = -1;
    if (git_revwalk_new(&walk, s.repo) != 0 || git_revwalk_push_head(walk) != 0) {
        git_fail(err, "walking the history");
        goto out;
    }
    git_revwalk_sorting(walk, GIT_SORT_TIME | GIT_SORT_TOPOLOGICAL);
    git_oid oid;
    while ((max == 0 || out->n < max) && git_revwalk_next(&oid, walk) == 0) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, s.repo, &oid) != 0)
            continue;
        if (tg_str_startswith(git_commit_message(c), prefix))
            log_add(out, c);
        git_commit_free(c);
    }
    rc = 0;
out:
    git_revwalk_free(walk);
    session_end(&s);
    return rc;
}
