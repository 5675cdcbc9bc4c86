/*
 * build_plan.c — tools, the stage graph, keys, and the plan: which stages are up to date, which
 * must run (and why), which run only if an upstream stage changes its outputs.
 */
#include "engine/build_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/json.h"
#include "base/version.h"

/* ---- tools and graph ------------------------------------------------------------------------ */

static void probe_one(void *ctx, size_t i)
{
    engine *e = ctx;
    probe *p = &e->probes[i];
    if (e->log) {
        tg_err err = {0};
        p->rc = tg_statelog_hash_file(e->log, p->path, &p->hash, &err);
    } else {
        struct stat st;
        p->rc = fstatat(e->root, p->path, &st, 0) == 0 && S_ISREG(st.st_mode);
    }
}

int tgb_list_tools(engine *e, tg_err *err)
{
    const tg_tool_source *src = e->o->tool_source;
    if (!src || !src->list || !src->marker)
        return tg_err_set(err, "the build needs a tool source");
    tg_strv names = TG_STRV_INIT;
    if (src->list(e->repo, &names, err) != 0) {
        tg_strv_free(&names);
        return -1;
    }
    tg_strv_sort(&names);
    e->probes = xcalloc(names.n + 1, sizeof *e->probes);
    e->nprobes = names.n;
    for (size_t i = 0; i < names.n; i++) {
        e->probes[i].name = names.v[i];
        e->probes[i].path = src->marker(e->cfg, names.v[i]);
    }
    free(names.v); /* the probes own the names now */
    return 0;
}

/*
 * A candidate is a tool when its marker (the manifest) exists. The markers are hashed here, in
 * parallel, through the stat cache; the keys of the stages that read them reuse the result.
 */
void tgb_discover(engine *e)
{
    tgb_parallel_for(tgb_jobs(e), e->nprobes, probe_one, e);
    for (size_t i = 0; i < e->nprobes; i++) {
        probe *p = &e->probes[i];
        if (p->rc == 0)
            continue; /* no marker: not a tool (an unreadable one is, and its stages fail) */
        char *why = e->o->tool_source->refuse ? e->o->tool_source->refuse(p->path, p->name)
                                              : NULL;
        if (why) {
            e->bad_folders++;
            tgb_event(e, TG_EV_PROBLEM, NULL, why, TG_PLAN_RUN);
            free(why);
            continue;
        }
        tg_strmap_put(&e->memo, p->path, p);
        tg_strv_push(&e->all_tools, p->name);
    }
}

int tgb_select_tools(engine *e, tg_err *err)
{
    const tg_build_opts *o = e->o;
    if (!o->ntools) {
        for (size_t i = 0; i < e->all_tools.n; i++)
            tg_strv_push(&e->tools, e->all_tools.v[i]);
        return 0;
    }
    tg_strmap known = TG_STRMAP_INIT, seen = TG_STRMAP_INIT;
    for (size_t i = 0; i < e->all_tools.n; i++)
        tg_strmap_put(&known, e->all_tools.v[i], (void *)1);
    int rc = 0;
    for (size_t i = 0; i < o->ntools && rc == 0; i++) {
        if (!tg_strmap_get(&known, o->tools[i])) {
            tg_buf b = TG_BUF_INIT;
            for (size_t j = 0; j < e->all_tools.n; j++)
                tg_buf_printf(&b, "%s%s", j ? ", " : "", e->all_tools.v[j]);
            char *marker = o->tool_source->marker(e->cfg, o->tools[i]);
            rc = tg_err_set(err, "unknown tool '%s' (no %s); known tools: %s", o->tools[i], marker,
                            b.len ? b.data : "none");
            free(marker);
            tg_buf_free(&b);
        } else if (!tg_strmap_get(&seen, o->tools[i])) {
            tg_strmap_put(&seen, o->tools[i], (void *)1);
            tg_strv_push(&e->tools, o->tools[i]);
        }
    }
    tg_strmap_free(&known);
    tg_strmap_free(&seen);
    tg_strv_sort(&e->tools);
    return rc;
}

static void link_nodes(node *from, node *to)
{
    to->up = xrealloc(to->up, (to->nup + 1) * sizeof *to->up);
    to->up[to->nup++] = from;
    if (from->ndown == from->capdown) {
        from->capdown = from->capdown ? from->capdown * 2 : 4;
        from->down = xrealloc(from->down, from->capdown * sizeof *from->down);
    }
    from->down[from->ndown++] = to;
}

static node *new_node(engine *e, int kind, const char *tool)
{
    node *n = xcalloc(1, sizeof *n);
    n->def = e->stages[kind];
    n->kind = kind;
    n->tool = tool;
    n->id = tool ? xasprintf("%s:%s", n->def->id, tool) : xstrdup(n->def->id);
    if (n->def->inputs)
        n->def->inputs(e->cfg, tool, &n->files);
    e->nodes[e->nnodes++] = n;
    tg_strmap_put(&e->by_id, n->id, n);
    return n;
}

/* Nodes are laid out tool by tool (each tool's stages in table order), then the repository's. */
static bool kind_off(const engine *e, size_t k)
{
    /* read from the file: the typed build section (config.c) does not carry it */
    const cJSON *g = e->cfg->doc.root ? tg_json_pointer_get(e->cfg->doc.root, "/build/gates") : NULL;
    return e->stages[k]->gate && cJSON_IsFalse(g);
}

const tg_stage_def *tg_stage_def_find(const tg_stage_def *const *table, const char *id)
{
    for (size_t i = 0; table && table[i]; i++)
        if (strcmp(table[i]->id, id) == 0)
            return table[i];
    return NULL;
}

void tgb_make_graph(engine *e)
{
    size_t nkinds = e->nkinds, ntool = 0, nrepo = 0;
    for (size_t k = 0; k < nkinds; k++) {
        if (kind_off(e, k))
            continue; /* build.gates: false */
        if (e->stages[k]->scope == TG_STAGE_TOOL)
            ntool++;
        else
            nrepo++;
    }
    e->ntoolkinds = ntool;
    bool with_repo = e->o->ntools == 0;
    e->nodes = xcalloc(e->tools.n * ntool + nrepo + 1, sizeof *e->nodes);
    for (size_t t = 0; t < e->tools.n; t++) {
        for (size_t k = 0; k < nkinds; k++) {
            if (e->stages[k]->scope != TG_STAGE_TOOL || kind_off(e, k))
                continue;
            node *n = new_node(e, (int)k, e->tools.v[t]);
            for (const char *const *u = n->def->upstream; u && *u; u++) {
                char *id = xasprintf("%s:%s", *u, n->tool);
                node *up = tg_strmap_get(&e->by_id, id);
                free(id);
                if (up)
                    link_nodes(up, n);
            }
        }
    }
    for (size_t k = 0; with_repo && k < nkinds; k++) {
        if (e->stages[k]->scope != TG_STAGE_REPO)
            continue;
        node *n = new_node(e, (int)k, NULL);
        for (const char *const *u = n->def->upstream; u && *u; u++) {
            const tg_stage_def *ud = tg_stage_def_find(e->stages, *u);
            if (ud && ud->scope == TG_STAGE_REPO) {
                node *up = tg_strmap_get(&e->by_id, *u);
                if (up)
                    link_nodes(up, n);
                continue;
            }
            for (size_t t = 0; t < e->tools.n; t++) {
                char *id = xasprintf("%s:%s", *u, e->tools.v[t]);
                node *up = tg_strmap_get(&e->by_id, id);
                free(id);
                if (up)
                    link_nodes(up, n);
            }
        }
    }
}

void tgb_free_node(node *n)
{
    free(n->id);
    free(n->up);
    free(n->down);
    tg_strv_free(&n->files);
    free(n->in);
    tg_strv_free(&n->in_names);
    free(n->out);
    tg_strv_free(&n->out_names);
    tg_buf_free(&n->why);
    tg_buf_free(&n->notes);
    if (n->rec_in) {
        tgb_nidx_free(n->rec_in);
        free(n->rec_in);
    }
    free(n);
}

const named_index *tgb_rec_inputs(node *n)
{
    if (!n->rec)
        return NULL;
    if (!n->rec_in) {
        n->rec_in = xmalloc(sizeof *n->rec_in);
        tgb_nidx_init(n->rec_in, n->rec->in, n->rec->nin);
    }
    return n->rec_in;
}

static const char *display_input(const char *name, char *buf, size_t size)
{
    /* "stage:load:foo" → "load foo"; other kinds print as their path or pointer */
    if (strncmp(name, "stage:", 6) == 0) {
        snprintf(buf, size, "%s", name + 6);
        char *c = strchr(buf, ':');
        if (c)
            *c = ' ';
        return buf;
    }
    const char *c = strchr(name, ':');
    return c ? c + 1 : name;
}

/* ---- keys ----------------------------------------------------------------------------------- */

static const tg_hash *fixed_input(const engine *e, const char *name)
{
    for (size_t i = 0; i < e->nfixed; i++)
        if (strcmp(e->fixed[i].name, name) == 0)
            return &e->fixed[i].hash;
    return NULL;
}

static void add_fixed(engine *e, char *name, tg_hash h)
{
    if (fixed_input(e, name)) {
        free(name);
        return;
    }
    tg_strv_push_owned(&e->fixed_names, name);
    e->fixed = xrealloc(e->fixed, (e->nfixed + 1) * sizeof *e->fixed);
    e->fixed[e->nfixed++] = (tg_named_hash){name, h};
}

/*
 * Config values, toolgen's data files and the environment's facts are the same for every stage:
 * taken once. A stage's version input is its own version and toolgen's — not the program's
 * bytes, so two builds of one version (another build directory, another machine) share keys:
 * a change to what a stage writes bumps its version (docs/build.md "Writing a stage").
 */
int tgb_prepare_fixed(engine *e, tg_err *err)
{
    const char *datadir = tg_datadir();
    for (size_t k = 0; k < e->nkinds; k++) {
        const tg_stage_def *d = e->stages[k];
        tg_hasher *vh = tg_hasher_new();
        tg_hasher_str(vh, 'v', d->version);
        tg_hasher_str(vh, 't', TOOLGEN_VERSION);
        e->version_hash[k] = tg_hasher_final(vh);
        tg_hasher_free(vh);
        for (const char *const *p = d->config; p && *p; p++)
            add_fixed(e, xasprintf("config:%s", *p), tg_hash_json(tg_config_get(e->cfg, *p)));
        for (const char *const *p = d->env; p && *p && !kind_off(e, k); p++)
            add_fixed(e, xasprintf(TGB_ENV_PREFIX "%s", *p), tgb_env_hash(e, *p));
        for (const char *const *p = d->data; p && *p; p++) {
            if (!datadir)
                return tg_err_set(err,
                                  "cannot find toolgen's data directory (schemas/); set "
                                  "TOOLGEN_DATADIR to the source tree or PREFIX/share/toolgen");
            char *path = tg_path_join(datadir, *p);
            tg_hash h = {0, 0};
            int rc = tg_statelog_hash_file(e->log, path, &h, err);
            free(path);
            if (rc < 0)
                return -1;
            add_fixed(e, xasprintf("data:%s", *p), h);
        }
    }
    return 0;
}

static void add_in(node *n, char *name, tg_hash h)
{
    tg_strv_push_owned(&n->in_names, name);
    if (n->nin == n->capin) {
        n->capin = n->capin ? n->capin * 2 : 8;
        n->in = xrealloc(n->in, n->capin * sizeof *n->in);
    }
    n->in[n->nin++] = (tg_named_hash){name, h};
}

tg_hash tgb_combine_outputs(const tg_named_hash *v, size_t n)
{
    tg_hasher *h = tg_hasher_new();
    for (size_t i = 0; i < n; i++) {
        tg_hasher_str(h, 'p', v[i].name);
        tg_hasher_hash(h, 'h', v[i].hash);
    }
    tg_hash r = tg_hasher_final(h);
    tg_hasher_free(h);
    return r;
}

/*
 * The key: stage id and instance, version (with toolgen's), then every input as (name, hash) in
 * a fixed order — source files, data files, config values, upstream outputs. A missing file
 * hashes as zero, which no content hashes to in practice.
 */
void tgb_compute_key(engine *e, node *n)
{
    tg_strv_free(&n->in_names);
    n->nin = 0;
    add_in(n, xstrdup("version"), e->version_hash[n->kind]);
    for (size_t i = 0; i < n->files.n; i++) {
        tg_hash h = {0, 0};
        tg_err err = {0};
        const probe *p = tg_strmap_get(&e->memo, n->files.v[i]);
        if (p)
            h = p->hash;
        else if (tg_statelog_hash_file(e->log, n->files.v[i], &h, &err) < 0)
            tgb_why(n, "cannot read %s: %s", n->files.v[i], err.msg);
        add_in(n, xasprintf("file:%s", n->files.v[i]), h);
    }
    for (const char *const *p = n->def->data; p && *p; p++) {
        char *name = xasprintf("data:%s", *p);
        const tg_hash *h = fixed_input(e, name);
        add_in(n, name, h ? *h : (tg_hash){0, 0});
    }
    for (const char *const *p = n->def->config; p && *p; p++) {
        char *name = xasprintf("config:%s", *p);
        const tg_hash *h = fixed_input(e, name);
        add_in(n, name, h ? *h : (tg_hash){0, 0});
    }
    for (const char *const *p = n->def->env; p && *p; p++) {
        char *name = xasprintf(TGB_ENV_PREFIX "%s", *p);
        const tg_hash *h = fixed_input(e, name);
        add_in(n, name, h ? *h : (tg_hash){0, 0});
    }
    for (size_t i = 0; i < n->nup; i++)
        add_in(n, xasprintf("stage:%s", n->up[i]->id), n->up[i]->out_hash);
    tg_hasher *h = tg_hasher_new();
    tg_hasher_str(h, 'm', KEY_MAGIC);
    tg_hasher_str(h, 'i', n->id);
    for (size_t i = 0; i < n->nin; i++) {
        tg_hasher_str(h, 'n', n->in[i].name);
        tg_hasher_hash(h, 'h', n->in[i].hash);
    }
    n->key = tg_hasher_final(h);
    tg_hasher_free(h);
    n->key_known = true;
}

const tg_named_hash *tgb_find_named(const tg_named_hash *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

#define INDEX_MIN 16

void tgb_nidx_init(named_index *x, const tg_named_hash *v, size_t n)
{
    *x = (named_index){v, n, TG_STRMAP_INIT};
    if (n > INDEX_MIN)
        for (size_t i = 0; i < n; i++)
            tg_strmap_put(&x->map, v[i].name, (void *)&v[i]);
}

const tg_named_hash *tgb_nidx_find(const named_index *x, const char *name)
{
    if (x->n > INDEX_MIN)
        return tg_strmap_get(&x->map, name);
    return tgb_find_named(x->v, x->n, name);
}

void tgb_nidx_free(named_index *x)
{
    tg_strmap_free(&x->map);
}

/* "the environment changed: python-package:pandas is now 2.0.3" (name: "env:<fact>"). */
static void why_env(engine *e, node *n, const char *name)
{
    const char *fact = name + strlen(TGB_ENV_PREFIX);
    char *v = tgb_env_value(e, fact);
    tgb_why(n, "the environment changed: %s is now %s", fact, v);
    free(v);
}

/* Why the key differs from the recorded one, input by input. */
void tgb_explain_key(engine *e, node *n)
{
    const tg_stage_rec *r = n->rec;
    size_t before = n->why.len;
    char buf[256];
    const named_index *olds = tgb_rec_inputs(n);
    size_t found = 0; /* of the record's inputs (names are unique in both lists) */
    for (size_t i = 0; i < n->nin; i++) {
        const tg_named_hash *cur = &n->in[i];
        const tg_named_hash *old = tgb_nidx_find(olds, cur->name);
        found += old != NULL;
        if (old && tg_hash_eq(old->hash, cur->hash))
            continue;
        const char *what = display_input(cur->name, buf, sizeof buf);
        if (strcmp(cur->name, "version") == 0)
            tgb_why(n, "the stage's version or toolgen's changed");
        else if (old && !strncmp(cur->name, TGB_ENV_PREFIX, strlen(TGB_ENV_PREFIX)))
            why_env(e, n, cur->name);
        else if (!old)
            tgb_why(n, "new input %s", what);
        else if (strncmp(cur->name, "file:", 5) == 0)
            tgb_why(n, "%s %s", what,
                    tg_hash_is_zero(cur->hash)   ? "was deleted"
                    : tg_hash_is_zero(old->hash) ? "appeared"
                                                 : "changed");
        else if (strncmp(cur->name, "config:", 7) == 0)
            tgb_why(n, "toolgen.yaml %s changed", what);
        else if (strncmp(cur->name, "data:", 5) == 0)
            tgb_why(n, "toolgen's %s changed", what);
        else
            tgb_why(n, "the output of %s changed", what);
    }
    if (found < r->nin) { /* some are no longer inputs: which (a rare case) */
        named_index curs;
        tgb_nidx_init(&curs, n->in, n->nin);
        for (size_t i = 0; i < r->nin; i++)
            if (!tgb_nidx_find(&curs, r->in[i].name))
                tgb_why(n, "%s is no longer an input",
                        display_input(r->in[i].name, buf, sizeof buf));
        tgb_nidx_free(&curs);
    }
    if (n->why.len == before)
        tgb_why(n, "its key changed");
}

void tgb_output_list(const node *n, const tg_named_hash **v, size_t *count)
{
    if (n->state == N_DONE) {
        *v = n->out;
        *count = n->nout;
    } else if (n->rec) {
        *v = n->rec->out;
        *count = n->rec->nout;
    } else {
        *v = NULL;
        *count = 0;
    }
}

typedef struct fcheck {
    engine *e;
    const tg_named_hash *v;
    int *rc;
    tg_hash *h;
} fcheck;

static void fcheck_one(void *ctx, size_t i)
{
    fcheck *c = ctx;
    tg_err err = {0};
    c->rc[i] = tg_statelog_hash_file(c->e->log, c->v[i].name, &c->h[i], &err);
}

/*
 * Outputs missing or edited by hand, and discovered inputs that changed. A repository-wide
 * stage may have thousands of outputs: those are stat'ed in parallel (parallel == true).
 */
static bool check_recorded_files(engine *e, node *n, bool parallel)
{
    bool dirty = false;
    const tg_stage_rec *r = n->rec;
    for (size_t i = 0; i < r->ndep; i++) {
        if (!strncmp(r->dep[i].name, TGB_ENV_PREFIX, strlen(TGB_ENV_PREFIX))) {
            const char *fact = r->dep[i].name + strlen(TGB_ENV_PREFIX);
            if (!tg_hash_eq(tgb_env_hash(e, fact), r->dep[i].hash)) {
                why_env(e, n, r->dep[i].name);
                dirty = true;
            }
            continue;
        }
        tg_hash h = {0, 0};
        tg_err err = {0};
        int rc = tg_statelog_hash_file(e->log, r->dep[i].name, &h, &err);
        if (rc < 0)
            h = (tg_hash){0, 1};
        else if (rc == 1 && tg_hash_eq(r->dep[i].hash, TGB_EXISTS_HASH))
            h = TGB_EXISTS_HASH; /* presence-only: any content will do */
        if (!tg_hash_eq(h, r->dep[i].hash)) {
            tgb_why(n, "%s %s", r->dep[i].name,
                    rc == 0                           ? "was deleted"
                    : tg_hash_is_zero(r->dep[i].hash) ? "appeared"
                                                      : "changed");
            dirty = true;
        }
    }
    fcheck c = {e, r->out, xcalloc(r->nout + 1, sizeof(int)),
                xcalloc(r->nout + 1, sizeof(tg_hash))};
    if (parallel && r->nout > 4 * PFOR_CHUNK)
        tgb_parallel_for(tgb_jobs(e), r->nout, fcheck_one, &c);
    else
        for (size_t i = 0; i < r->nout; i++)
            fcheck_one(&c, i);
    n->outs_intact = true;
    for (size_t i = 0; i < r->nout; i++) {
        if (c.rc[i] != 1 || !tg_hash_eq(c.h[i], r->out[i].hash))
            n->outs_intact = false;
        if (c.rc[i] == 0) {
            tgb_why(n, "output %s is missing", r->out[i].name);
            dirty = true;
        } else if (c.rc[i] < 0) {
            tg_err err = {0};
            tg_hash h;
            tg_statelog_hash_file(e->log, r->out[i].name, &h, &err); /* again, for the message */
            tgb_why(n, "output %s cannot be read (%s)", r->out[i].name, err.msg);
            dirty = true;
        } else if (!tg_hash_eq(c.h[i], r->out[i].hash)) {
            tgb_why(n, "output %s was edited by hand", r->out[i].name);
            dirty = true;
        }
    }
    free(c.rc);
    free(c.h);
    return dirty;
}

static void plan_node(engine *e, node *n, bool parallel)
{
    bool ups_known = true;
    for (size_t i = 0; i < n->nup; i++)
        if (n->up[i]->state != N_CLEAN)
            ups_known = false;
    n->rec = tg_statelog_stage(e->log, n->id);
    if (ups_known)
        tgb_compute_key(e, n);
    if (!n->rec) {
        tgb_why(n, "never built");
        n->state = N_DIRTY;
        return;
    }
    bool dirty = e->o->force;
    if (dirty)
        tgb_why(n, "a forced build runs every stage");
    if (n->key_known && !tg_hash_eq(n->key, n->rec->key)) {
        tgb_explain_key(e, n);
        dirty = true;
    }
    if (check_recorded_files(e, n, parallel))
        dirty = true;
    if (dirty)
        n->state = N_DIRTY;
    else if (!n->key_known)
        n->state = N_MAYBE;
    else {
        n->state = N_CLEAN;
        n->out_hash = tgb_combine_outputs(n->rec->out, n->rec->nout);
    }
}

static void plan_tool(void *ctx, size_t t)
{
    engine *e = ctx;
    for (size_t k = 0; k < e->ntoolkinds; k++)
        plan_node(e, e->nodes[t * e->ntoolkinds + k], false);
}

/* Plans every node: per-tool chains in parallel (they are independent), then the repository's. */
void tgb_plan(engine *e)
{
    tgb_parallel_for(tgb_jobs(e), e->tools.n, plan_tool, e);
    for (size_t i = e->tools.n * e->ntoolkinds; i < e->nnodes; i++)
        plan_node(e, e->nodes[i], true);
}
