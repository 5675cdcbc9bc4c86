/*
 * build.c — the engine's entry points: set-up (config, lock, state log, toolgen.yaml checks),
 * tg_build (plan, remove what deleted tools left, run), tg_build_graph and tg_build_clean.
 * build_plan.c decides what must run, build_run.c runs it (build_int.h has the map).
 */
#include "engine/build_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/lint.h"

/* ---- deleted tools -------------------------------------------------------------------------- */

/* Records whose stage instance is gone from the graph (the manifest was deleted). */
static void collect_orphans(engine *e, tg_strv *ids)
{
    tg_strv all = TG_STRV_INIT;
    tg_statelog_stage_ids(e->log, &all);
    for (size_t i = 0; i < all.n; i++)
        if (!tg_strmap_get(&e->by_id, all.v[i]))
            tg_strv_push(ids, all.v[i]);
    tg_strv_free(&all);
}

static int remove_orphans(engine *e, bool dry, tg_err *err)
{
    tg_strv ids = TG_STRV_INIT;
    collect_orphans(e, &ids);
    int rc = 0;
    for (size_t i = 0; i < ids.n && rc == 0; i++) {
        const tg_stage_rec *r = tg_statelog_stage(e->log, ids.v[i]);
        if (!r)
            continue;
        if (dry) {
            tg_buf b = TG_BUF_INIT;
            char *c = strchr(ids.v[i], ':');
            tg_buf_printf(&b, "%.*s%s%s: its tool is gone; would remove",
                          (int)strcspn(ids.v[i], ":"), ids.v[i], c ? " " : "", c ? c + 1 : "");
            for (size_t j = 0; j < r->nout; j++)
                tg_buf_printf(&b, " %s", r->out[j].name);
            tgb_event(e, TG_EV_PLAN, NULL, b.data, TG_PLAN_REMOVE);
            tg_buf_free(&b);
            e->st->removed += (int)r->nout;
            continue;
        }
        for (size_t j = 0; j < r->nout; j++) {
            const char *p = r->out[j].name;
            if (tgb_remove_output(e, p)) {
                e->st->removed++;
                tgb_event(e, TG_EV_REMOVED, NULL, p, TG_PLAN_RUN);
            }
            tg_statelog_forget(e->log, p);
        }
        rc = tg_statelog_drop_stage(e->log, ids.v[i], err);
    }
    tg_strv_free(&ids);
    return rc;
}

/* ---- set-up and tear-down ------------------------------------------------------------------- */

static int take_lock(engine *e, tg_err *err)
{
    e->created_state = !tg_is_dir_at(e->root, TG_STATE_DIR);
    if (tg_mkdirs_at(e->root, TG_STATE_DIR, err) != 0)
        return -1;
    int fd = openat(e->root, TG_STATE_DIR "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return tg_err_set(err, "cannot open " TG_STATE_DIR "/lock: %s", strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(fd);
        return tg_err_set(err,
                          "another toolgen is building this repository (%s%s holds " TG_STATE_DIR
                          "/lock); wait for it to finish, then run this again",
                          pid[0] ? "pid " : "a process", pid);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)len, 0) < 0) {
        /* the pid is only for the message above */
    }
    e->lockfd = fd;
    return 0;
}

static void release_lock(engine *e)
{
    if (e->lockfd >= 0) {
        close(e->lockfd); /* releases the flock */
        e->lockfd = -1;
    }
}

/* toolgen.yaml gets the full lint check whenever its bytes change. */
static int check_config(engine *e, bool record, tg_err *err)
{
    if (!e->cfg->path || tg_statelog_config_checked(e->log, e->cfg->hash))
        return 0;
    tg_schemaset ss;
    if (tg_schemaset_open(&ss, err) != 0)
        return -2;
    tg_problems probs = {0};
    tg_lint_stats stats = {0};
    const char *paths[1] = {e->cfg->path};
    int rc = tg_lint_paths(e->repo, &ss, paths, 1, &probs, &stats, err) == 0 ? 0 : -2;
    if (rc == 0 && probs.n) {
        tg_problems_sort(&probs);
        for (size_t i = 0; i < probs.n; i++) {
            const tg_problem *p = &probs.v[i];
            if (p->line > 0)
                tgb_eventf(e, TG_EV_PROBLEM, NULL, "%s:%d:%d: %s", p->file, p->line,
                           p->col > 0 ? p->col : 1, p->msg);
            else
                tgb_eventf(e, TG_EV_PROBLEM, NULL, "%s: %s", p->file, p->msg);
        }
        rc = tg_err_set(err, "%s has %zu problem%s; fix %s (see docs/config.md)", e->cfg->path,
                        probs.n, probs.n == 1 ? "" : "s", probs.n == 1 ? "it" : "them");
    }
    tg_problems_free(&probs);
    tg_schemaset_close(&ss);
    if (rc == 0 && record)
        rc = tg_statelog_set_config_checked(e->log, e->cfg->hash, err) == 0 ? 0 : -2;
    return rc;
}

/*
 * A build refused before it started (bad toolgen.yaml, unknown tool) leaves no trace when it
 * was the first: the state directory it created for the lock goes again.
 */
static void undo_state_dir(engine *e)
{
    if (!e->created_state || e->lockfd < 0)
        return;
    unlinkat(e->root, TG_STATE_DIR "/tmp", AT_REMOVEDIR);
    unlinkat(e->root, TG_STATE_DIR "/log", 0);
    unlinkat(e->root, TG_STATE_DIR "/lock", 0);
    unlinkat(e->root, TG_STATE_DIR, AT_REMOVEDIR);
}

static void engine_free(engine *e)
{
    for (size_t i = 0; i < e->nnodes; i++)
        tgb_free_node(e->nodes[i]);
    free(e->nodes);
    tg_strmap_free(&e->by_id);
    free(e->fixed);
    tg_strv_free(&e->fixed_names);
    tg_strv_free(&e->shared_roots);
    tg_strv_free(&e->own_roots);
    tgb_ready_free(&e->ready);
    tg_strv_free(&e->all_tools);
    tg_strv_free(&e->tools);
    for (size_t i = 0; i < e->nprobes; i++) {
        free(e->probes[i].name);
        free(e->probes[i].path);
    }
    free(e->probes);
    tg_strmap_free(&e->memo);
    tg_strmap_free(&e->dirs);
    tg_strv_free(&e->dir_keys);
    pthread_mutex_destroy(&e->dir_mu);
    tgb_shared_free(e);
    pthread_mutex_destroy(&e->shared_mu);
    tgb_env_free(e);
    tg_statelog_close(e->log);
    release_lock(e);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->ev_mu);
    pthread_cond_destroy(&e->cv);
}

static void engine_init(engine *e, const tg_build_opts *o, tg_build_stats *st)
{
    *e = (engine){0};
    e->o = o;
    e->repo = o->repo;
    e->root = o->repo ? o->repo->root_fd : -1;
    e->stages = o->stages;
    for (e->nkinds = 0; e->stages && e->stages[e->nkinds];)
        e->nkinds++;
    e->st = st;
    e->lockfd = -1;
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->ev_mu, NULL);
    pthread_mutex_init(&e->dir_mu, NULL);
    pthread_mutex_init(&e->shared_mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    tgb_env_init(e);
    e->pid = (long)getpid();
    *st = (tg_build_stats){0};
    for (size_t k = 0; k < e->nkinds && k < TG_BUILD_MAX_STAGE_KINDS; k++) {
        st->kind_id[k] = e->stages[k]->id;
        st->nkinds = (int)k + 1;
    }
}

/* The config and the stages' roots: what every command needs first. */
static tg_build_status load_config(engine *e, tg_err *err)
{
    if (!e->stages || e->nkinds > TG_BUILD_MAX_STAGE_KINDS) {
        tg_err_set(err, "the build needs a stage table of at most %d stages",
                   TG_BUILD_MAX_STAGE_KINDS);
        return TG_BUILD_USAGE;
    }
    if (!e->repo || !e->repo->have_config) {
        tg_err_set(err, "the build needs a repository opened with its config (tg_repo_open)");
        return TG_BUILD_USAGE;
    }
    e->cfg = &e->repo->cfg;
    e->st->generated_dir = xstrdup(e->cfg->generated_dir);
    tgb_roots_init(e);
    return TG_BUILD_OK;
}

/*
 * Config, candidate tools, lock, state log (building: writable; explain, dry run: read-only;
 * graph: none), toolgen.yaml's checks, tools and graph: what every command needs.
 */
static tg_build_status open_repo(engine *e, bool building, bool with_log, tg_err *err)
{
    tg_build_status status = load_config(e, err);
    if (status != TG_BUILD_OK)
        return status;
    if (tgb_list_tools(e, err) != 0)
        return TG_BUILD_USAGE;
    if (building) {
        if (take_lock(e, err) != 0)
            return TG_BUILD_ENV;
        tgb_empty_dir(e, TG_STATE_DIR "/tmp", false); /* what a killed build left */
        if (tg_mkdirs_at(e->root, TG_STATE_DIR "/tmp", err) != 0)
            return TG_BUILD_ENV;
    }
    if (with_log) {
        if (tg_statelog_open(e->root, TG_STATE_DIR, building, &e->log, err) != 0)
            return TG_BUILD_ENV;
        int crc = check_config(e, building, err);
        if (crc != 0)
            return crc == -2 ? TG_BUILD_ENV : TG_BUILD_USAGE;
    }
    tgb_discover(e);
    if (tgb_select_tools(e, err) != 0)
        return TG_BUILD_USAGE;
    tgb_make_graph(e);
    e->st->tools = (int)e->tools.n;
    e->st->stages = (int)e->nnodes;
    return TG_BUILD_OK;
}

void tg_build_stats_free(tg_build_stats *s)
{
    tg_strv_free(&s->failed_ids);
    tg_strv_free(&s->edited);
    tg_strv_free(&s->recreated);
    tg_strv_free(&s->outputs);
    tg_strv_free(&s->summaries);
    free(s->generated_dir);
    *s = (tg_build_stats){0};
}

static void report_plan(engine *e)
{
    bool explain = e->o->mode == TG_MODE_EXPLAIN;
    for (size_t i = 0; i < e->nnodes; i++) {
        node *n = e->nodes[i];
        if (n->state == N_CLEAN) {
            e->st->up_to_date++;
            if (explain)
                tgb_event(e, TG_EV_PLAN, n, "up to date", TG_PLAN_UP_TO_DATE);
        } else if (n->state == N_DIRTY) {
            e->st->would_run++;
            tgb_event(e, TG_EV_PLAN, n, n->why.data, TG_PLAN_RUN);
        } else if (n->state == N_MAYBE) {
            e->st->would_run++;
            tg_buf b = TG_BUF_INIT;
            tg_buf_puts(&b, "runs only if ");
            size_t k = 0;
            for (size_t j = 0; j < n->nup; j++) {
                if (n->up[j]->state == N_CLEAN)
                    continue;
                char *d = tgb_display(n->up[j]);
                tg_buf_printf(&b, "%s%s", k++ ? ", " : "", d);
                free(d);
            }
            tg_buf_printf(&b, " change%s %s output", k == 1 ? "s" : "", k == 1 ? "its" : "their");
            tgb_event(e, TG_EV_PLAN, n, b.data, TG_PLAN_MAYBE);
            tg_buf_free(&b);
        }
    }
}

static void collect_outputs(engine *e)
{
    for (size_t i = 0; i < e->nnodes; i++) {
        const tg_named_hash *v;
        size_t n;
        tgb_output_list(e->nodes[i], &v, &n);
        for (size_t j = 0; j < n; j++)
            if (tgb_shared_root_of(e, v[j].name))
                tg_strv_push(&e->st->outputs, v[j].name);
    }
    tg_strv_sort(&e->st->outputs);
}

tg_build_status tg_build(const tg_build_opts *o, tg_build_stats *st, tg_err *err)
{
    double t0 = tg_now_ms();
    engine e;
    engine_init(&e, o, st);
    bool building = o->mode == TG_MODE_BUILD;
    (void)tg_datadir(); /* resolve (and cache) it before any thread asks */
    tg_build_status status = open_repo(&e, building, true, err);
    if (status != TG_BUILD_OK) {
        undo_state_dir(&e);
        goto out;
    }
    if (tgb_prepare_fixed(&e, err) != 0) {
        status = TG_BUILD_ENV;
        goto out;
    }
    tgb_plan(&e);
    if (e.bad_folders) {
        /* a repository-wide stage would silently leave the unusable tool out */
        for (size_t i = e.tools.n * e.ntoolkinds; i < e.nnodes; i++) {
            node *n = e.nodes[i];
            if (n->state == N_DIRTY || n->state == N_MAYBE || n->state == N_CLEAN) {
                n->state = N_SKIPPED;
                st->skipped++;
                tgb_event(&e, TG_EV_SKIPPED, n, "an unusable tool folder", TG_PLAN_RUN);
            }
        }
    }
    if (!building) {
        report_plan(&e);
        if (!o->ntools && remove_orphans(&e, true, err) != 0)
            status = TG_BUILD_ENV;
        goto out;
    }
    if (!o->ntools && remove_orphans(&e, false, err) != 0) {
        status = TG_BUILD_ENV;
        goto out;
    }
    for (size_t i = 0; i < e.nnodes; i++) {
        if (e.nodes[i]->state == N_DIRTY || e.nodes[i]->state == N_MAYBE)
            e.total++;
        else if (e.nodes[i]->state == N_CLEAN)
            st->up_to_date++;
    }
    e.failures = e.bad_folders;
    if (!tgb_should_stop(&e))
        tgb_run_graph(&e);
    else
        st->not_started = e.total;
    bool interrupted = o->interrupted && *o->interrupted;
    if (tg_statelog_finish(e.log, !interrupted, err) != 0) {
        status = TG_BUILD_ENV;
        goto out;
    }
    if (!o->ntools)
        collect_outputs(&e);
    tg_strv_sort(&st->summaries);
    if (interrupted) {
        status = TG_BUILD_INTERRUPTED;
    } else if (e.env_failures) {
        /* The message of each is printed with its FAILED line; this one says what follows. */
        st->env_failed = e.env_failures;
        status = TG_BUILD_ENV;
        tg_err_set(err, "%d stage%s could not run in this environment (see the message above); "
                        "the build is incomplete", e.env_failures, e.env_failures == 1 ? "" : "s");
    } else if (e.failures) {
        status = TG_BUILD_FAILED;
    }
out:
    st->failed += e.bad_folders;
    st->seconds = (tg_now_ms() - t0) / 1e3;
    engine_free(&e);
    return status;
}

/* ---- graph ---------------------------------------------------------------------------------- */

static void dot_id(tg_buf *b, const char *s)
{
    tg_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            tg_buf_putc(b, '\\');
        tg_buf_putc(b, *s);
    }
    tg_buf_putc(b, '"');
}

tg_build_status tg_build_graph(const tg_build_opts *o, tg_buf *out, tg_err *err)
{
    engine e;
    tg_build_stats st;
    engine_init(&e, o, &st);
    tg_build_status status = open_repo(&e, false, false, err);
    if (status != TG_BUILD_OK)
        goto done;
    tg_buf_puts(out,
                "digraph toolgen {\n  rankdir=LR;\n  node [shape=box, fontname=\"sans-serif\"];\n");
    tg_strmap seen = TG_STRMAP_INIT;
    tg_strv names = TG_STRV_INIT;
    for (size_t i = 0; i < e.nnodes; i++) {
        node *n = e.nodes[i];
        char *label = tgb_display(n);
        tg_buf_puts(out, "  ");
        dot_id(out, n->id);
        tg_buf_puts(out, " [label=");
        dot_id(out, label);
        tg_buf_puts(out, "];\n");
        free(label);
        for (size_t j = 0; j < n->files.n; j++) {
            tg_buf_puts(out, "  ");
            dot_id(out, n->files.v[j]);
            tg_buf_puts(out, " [shape=note];\n  ");
            dot_id(out, n->files.v[j]);
            tg_buf_puts(out, " -> ");
            dot_id(out, n->id);
            tg_buf_puts(out, ";\n");
        }
        for (const char *const *p = n->def->config; p && *p; p++) {
            char *c = xasprintf("toolgen.yaml#%s", *p);
            if (!tg_strmap_get(&seen, c)) {
                tg_strv_push_owned(&names, c); /* names owns it, the map borrows it */
                tg_strmap_put(&seen, c, (void *)1);
                tg_buf_puts(out, "  ");
                dot_id(out, c);
                tg_buf_puts(out, " [shape=ellipse];\n");
            }
            tg_buf_puts(out, "  ");
            dot_id(out, c);
            tg_buf_puts(out, " -> ");
            dot_id(out, n->id);
            tg_buf_puts(out, ";\n");
            if (!names.n || names.v[names.n - 1] != c)
                free(c);
        }
        for (size_t j = 0; j < n->nup; j++) {
            tg_buf_puts(out, "  ");
            dot_id(out, n->up[j]->id);
            tg_buf_puts(out, " -> ");
            dot_id(out, n->id);
            tg_buf_puts(out, ";\n");
        }
    }
    tg_buf_puts(out, "}\n");
    tg_strmap_free(&seen);
    tg_strv_free(&names);
done:
    engine_free(&e);
    tg_build_stats_free(&st);
    return status;
}

/* ---- clean ---------------------------------------------------------------------------------- */

static void walk_kept(engine *e, const char *dir, int depth)
{
    DIR *d = tg_opendir_at(e->root, dir);
    if (!d || depth > 64) {
        if (d)
            closedir(d);
        return;
    }
    tg_strv names = TG_STRV_INIT;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            tg_strv_push(&names, de->d_name);
    closedir(d);
    tg_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++) {
        char *p = tg_path_join(dir, names.v[i]);
        struct stat st;
        if (fstatat(e->root, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
            walk_kept(e, p, depth + 1);
            unlinkat(e->root, p, AT_REMOVEDIR); /* empty directories toolgen left behind */
        } else {
            tgb_event(e, TG_EV_KEPT, NULL, p, TG_PLAN_RUN);
            e->st->kept++;
        }
        free(p);
    }
    tg_strv_free(&names);
}

static bool any_dir(int root, const tg_strv *dirs)
{
    for (size_t i = 0; i < dirs->n; i++)
        if (tg_is_dir_at(root, dirs->v[i]))
            return true;
    return false;
}

tg_build_status tg_build_clean(const tg_build_opts *o, tg_build_stats *st, tg_err *err)
{
    engine e;
    engine_init(&e, o, st);
    tg_build_status status = load_config(&e, err);
    if (status != TG_BUILD_OK)
        goto out;
    if (!tg_is_dir_at(e.root, TG_STATE_DIR) && !any_dir(e.root, &e.shared_roots))
        goto out; /* nothing was ever built here */
    if (take_lock(&e, err) != 0) {
        status = TG_BUILD_ENV;
        goto out;
    }
    if (tg_statelog_open(e.root, TG_STATE_DIR, false, &e.log, err) != 0) {
        status = TG_BUILD_ENV;
        goto out;
    }
    tg_strv ids = TG_STRV_INIT;
    tg_statelog_stage_ids(e.log, &ids);
    for (size_t i = 0; i < ids.n; i++) {
        const tg_stage_rec *r = tg_statelog_stage(e.log, ids.v[i]);
        for (size_t j = 0; r && j < r->nout; j++) {
            const char *p = r->out[j].name;
            if (tgb_remove_output(&e, p)) {
                st->removed++;
                if (o->verbose)
                    tgb_event(&e, TG_EV_REMOVED, NULL, p, TG_PLAN_RUN);
            }
        }
    }
    tg_strv_free(&ids);
    for (size_t i = 0; i < e.shared_roots.n; i++) {
        const char *root = e.shared_roots.v[i];
        if (tg_is_dir_at(e.root, root)) {
            walk_kept(&e, root, 0);
            unlinkat(e.root, root, AT_REMOVEDIR); /* only when nothing is left */
        }
    }
    tgb_empty_dir(&e, TG_STATE_DIR "/tmp", true);
    for (size_t i = 0; i < e.own_roots.n; i++)
        unlinkat(e.root, e.own_roots.v[i], AT_REMOVEDIR);
    unlinkat(e.root, TG_STATE_DIR "/log", 0);
    unlinkat(e.root, TG_STATE_DIR "/log.tmp", 0);
    unlinkat(e.root, TG_STATE_DIR "/lock", 0);
    release_lock(&e);
    unlinkat(e.root, TG_STATE_DIR, AT_REMOVEDIR); /* stays when it holds more (the LLM cache) */
out:
    engine_free(&e);
    return status;
}
