/*
 * build_cache.c — the shared cache of stage results (tg_build_cache, build.h; docs/cache.md
 * "What is cached, under which key").
 *
 * A stage's key covers its declared inputs, but not the files and facts it discovers while
 * running (the code file, the data files its tests read, the versions of its packages): a
 * result cannot be looked up under the key alone. So, as ccache's direct mode does, a stage
 * has two records:
 *
 *   deps   under its key: the names of what its last run discovered ("f <path>" for a file's
 *          content, "e <path>" for a file's presence, "v <fact>" for an environment fact);
 *   result under its key combined with the hash of each of those names as they are here: the
 *          outputs, and the summary lines ("s <line>").
 *
 * A lookup reads the deps record, hashes those files and facts here, and reads the result
 * under the combined key; any difference is another key, so a hit is a run with exactly these
 * inputs. The result is written before the deps record that leads to it.
 */
#include "engine/build_int.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_MAGIC "toolgen-cache-1"

void tg_cache_record_free(tg_cache_record *rec)
{
    for (size_t i = 0; i < rec->nfiles; i++) {
        free(rec->files[i].path);
        free(rec->files[i].data);
    }
    free(rec->files);
    free(rec->text);
    memset(rec, 0, sizeof *rec);
}

static bool cache_on(const engine *e)
{
    return e->o->cache && !e->o->force && e->o->mode == TG_MODE_BUILD;
}

static void warn(engine *e, const node *n, tg_cache_status st, const tg_err *err)
{
    if (st == TG_CACHE_WARN)
        tgb_event(e, TG_EV_WARNING, n, err->msg, TG_PLAN_RUN);
}

/* The hash of one dependency here, as commit_outputs records it (build_run.c). */
static tg_hash dep_now(engine *e, char kind, const char *name)
{
    if (kind == 'v')
        return tgb_env_hash(e, name);
    tg_hash h = {0, 0};
    tg_err err = {0};
    int rc = tg_statelog_hash_file(e->log, name, &h, &err);
    if (rc < 0)
        return (tg_hash){0, 1};
    if (kind == 'e')
        return rc == 1 ? TGB_EXISTS_HASH : (tg_hash){0, 0};
    return h;
}

static tg_hasher *result_key_start(tg_hash key)
{
    tg_hasher *h = tg_hasher_new();
    tg_hasher_str(h, 'm', CACHE_MAGIC);
    tg_hasher_hash(h, 'k', key);
    return h;
}

/*
 * A name of a deps record this machine may hash: an environment fact, or a path inside the
 * repository (relative, no ".."), as the stages report them. A record from the cache naming
 * /etc/shadow would otherwise have the client hash it into the key it then sends.
 */
static bool dep_name_ok(char kind, const char *name, size_t n)
{
    if (kind == 'v')
        return true;
    if (kind != 'f' && kind != 'e')
        return false;
    char *s = xstrndup(name, n);
    bool ok = s[0] != '/' && strcmp(s, "..") != 0 && strncmp(s, "../", 3) != 0 &&
              !strstr(s, "/../") && !tg_str_endswith(s, "/..");
    free(s);
    return ok;
}

/* The result's key from the deps record's lines, each hashed here; the lines are kept for
 * the run (r). False when the record names what this machine does not hash. */
static bool result_key(engine *e, tg_hash key, const char *deps, tg_stage_run *r, tg_hash *out)
{
    tg_hasher *h = result_key_start(key);
    bool ok = true;
    for (const char *p = deps; p && *p && ok;) {
        size_t n = strcspn(p, "\n");
        if (n > 2 && p[1] == ' ' && !(ok = dep_name_ok(p[0], p + 2, n - 2)))
            break;
        if (n > 2 && p[1] == ' ') {
            char *name = xstrndup(p + 2, n - 2);
            tg_hasher_field(h, 'd', p, n);
            tg_hasher_hash(h, 'h', dep_now(e, p[0], name));
            tg_strv *to = p[0] == 'f' ? &r->deps : p[0] == 'e' ? &r->deps_exist : &r->envs;
            tg_strv_push_owned(to, name);
        }
        p += n + (p[n] == '\n');
    }
    *out = tg_hasher_final(h);
    tg_hasher_free(h);
    return ok;
}

/* A hit's outputs must be files this stage may write, as a run's are. */
static bool paths_ok(const engine *e, const tg_cache_record *res)
{
    for (size_t i = 0; i < res->nfiles; i++)
        if (!tgb_output_path_ok(e, res->files[i].path))
            return false;
    return true;
}

static void take_result(tg_stage_run *r, tg_cache_record *res)
{
    for (size_t i = 0; i < res->nfiles; i++) {
        tgb_add_output(r, res->files[i].path, res->files[i].data, res->files[i].len);
        res->files[i].path = res->files[i].data = NULL;
    }
    for (const char *p = res->text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 2 && p[0] == 's' && p[1] == ' ') {
            char *line = xstrndup(p + 2, n - 2);
            tg_strv_push(&r->summaries, line);
            pthread_mutex_lock(&r->e->mu);
            tg_strv_push_owned(&r->e->st->summaries, line);
            pthread_mutex_unlock(&r->e->mu);
        }
        p += n + (p[n] == '\n');
    }
    tg_buf_puts(&r->notes, "outputs from the remote cache\n");
}

static void clear_discovered(tg_stage_run *r)
{
    tg_strv_free(&r->deps);
    tg_strv_free(&r->deps_exist);
    tg_strv_free(&r->envs);
}

bool tgb_cache_fetch(engine *e, node *n, tg_stage_run *r)
{
    if (!cache_on(e))
        return false;
    const tg_build_cache *c = e->o->cache;
    tg_cache_record deps = {0}, res = {0};
    tg_err err = {0};
    tg_cache_status st = c->get(c->ud, "deps", n->key, &deps, &err);
    warn(e, n, st, &err);
    if (st != TG_CACHE_HIT)
        return false;
    tg_hash k2;
    bool usable = result_key(e, n->key, deps.text, r, &k2);
    tg_cache_record_free(&deps);
    if (!usable) {
        tgb_event(e, TG_EV_WARNING, n,
                  "the remote cache's record names a file outside the repository: not used, "
                  "built locally",
                  TG_PLAN_RUN);
        clear_discovered(r);
        return false;
    }
    err = (tg_err){0};
    st = c->get(c->ud, "result", k2, &res, &err);
    warn(e, n, st, &err);
    if (st == TG_CACHE_HIT && !paths_ok(e, &res)) {
        tgb_event(e, TG_EV_WARNING, n,
                  "the remote cache's result names a file outside the folders this stage "
                  "writes: not used, built locally",
                  TG_PLAN_RUN);
        st = TG_CACHE_MISS;
    }
    if (st != TG_CACHE_HIT) {
        tg_cache_record_free(&res);
        clear_discovered(r);
        return false;
    }
    take_result(r, &res);
    tg_cache_record_free(&res);
    return true;
}

/* The deps record of n's run as recorded (rec), and the result key it leads to; false when a
 * name is one a lookup would refuse (a file outside the repository): nothing to offer. */
static bool deps_record(const tg_stage_rec *rec, const tg_stage_run *r, tg_buf *text,
                        tg_hash *out)
{
    bool ok = true;
    tg_strmap exist = TG_STRMAP_INIT;
    for (size_t i = 0; i < r->deps_exist.n; i++)
        tg_strmap_put(&exist, r->deps_exist.v[i], (void *)1);
    tg_hasher *h = result_key_start(rec->key);
    size_t plen = strlen(TGB_ENV_PREFIX);
    for (size_t i = 0; i < rec->ndep; i++) {
        const tg_named_hash *d = &rec->dep[i];
        char kind = 'f';
        const char *name = d->name;
        if (!strncmp(name, TGB_ENV_PREFIX, plen)) {
            kind = 'v';
            name += plen;
        } else if (tg_hash_eq(d->hash, TGB_EXISTS_HASH) ||
                   (tg_hash_is_zero(d->hash) && tg_strmap_get(&exist, name))) {
            kind = 'e';
        }
        ok &= dep_name_ok(kind, name, strlen(name));
        size_t at = text->len;
        tg_buf_printf(text, "%c %s\n", kind, name);
        tg_hasher_field(h, 'd', text->data + at, text->len - at - 1);
        tg_hasher_hash(h, 'h', d->hash);
    }
    tg_strmap_free(&exist);
    *out = tg_hasher_final(h);
    tg_hasher_free(h);
    return ok;
}

/* The result record: the outputs as written (read back, checked against the record). */
static bool result_record(engine *e, const tg_stage_rec *rec, const tg_stage_run *r,
                          tg_cache_record *res)
{
    res->files = xcalloc(rec->nout + 1, sizeof *res->files);
    for (size_t i = 0; i < rec->nout; i++) {
        tg_err err = {0};
        size_t len = 0;
        char *data = tg_read_file_at(e->root, rec->out[i].name, 0, &len, &err);
        if (!data || !tg_hash_eq(tg_hash_bytes(data, len), rec->out[i].hash)) {
            free(data); /* changed since it was written: nothing to offer */
            return false;
        }
        res->files[res->nfiles++] = (tg_cache_file){xstrdup(rec->out[i].name), data, len};
    }
    tg_buf text = TG_BUF_INIT;
    for (size_t i = 0; i < r->summaries.n; i++)
        tg_buf_printf(&text, "s %s\n", r->summaries.v[i]);
    res->text = tg_buf_steal(&text);
    return true;
}

void tgb_cache_store(engine *e, node *n, const tg_stage_run *r)
{
    if (!cache_on(e))
        return;
    const tg_stage_rec *rec = tg_statelog_stage(e->log, n->id);
    if (!rec || !tg_hash_eq(rec->key, n->key))
        return;
    const tg_build_cache *c = e->o->cache;
    tg_buf deps = TG_BUF_INIT;
    tg_hash k2;
    tg_cache_record res = {0};
    tg_err err = {0};
    if (deps_record(rec, r, &deps, &k2) && result_record(e, rec, r, &res)) {
        tg_cache_status st = c->put(c->ud, "result", k2, &res, &err);
        warn(e, n, st, &err);
        if (st == TG_CACHE_HIT) { /* the deps record only once its result is there */
            tg_cache_record d = {.text = tg_buf_steal(&deps)};
            st = c->put(c->ud, "deps", n->key, &d, &err);
            warn(e, n, st, &err);
            tg_cache_record_free(&d);
        }
    }
    tg_cache_record_free(&res);
    tg_buf_free(&deps);
}
