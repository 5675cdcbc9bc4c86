/*
 * build_run.c — running the plan: the API a stage sees (stage.h), writing its outputs
 * atomically and only when they changed, recording it, and the scheduler (a pool of threads,
 * early cut-off, keep-going, interruption).
 */
#include "engine/build_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the stage run API ---------------------------------------------------------------------- */

const tg_config *tg_stage_config(const tg_stage_run *r)
{
    return r->e->cfg;
}

const tg_repo *tg_stage_repo(const tg_stage_run *r)
{
    return r->e->repo;
}

const char *tg_stage_tool(const tg_stage_run *r)
{
    return r->n->tool;
}

bool tg_stage_frozen(const tg_stage_run *r)
{
    return r->e->o->frozen;
}

size_t tg_stage_tools(const tg_stage_run *r, const char *const **names)
{
    *names = (const char *const *)r->e->tools.v;
    return r->e->tools.n;
}

tg_schemaset *tg_stage_schemaset(tg_stage_run *r, tg_err *err)
{
    worker *w = r->w;
    if (!w->ss_open) {
        if (tg_schemaset_open(&w->ss, err) != 0)
            return NULL;
        w->ss_open = true;
    }
    return &w->ss;
}

void *tg_stage_shared(tg_stage_run *r, const tg_stage_shared_def *def, tg_err *err)
{
    engine *e = r->e;
    pthread_mutex_lock(&e->shared_mu);
    void *obj = NULL;
    for (size_t i = 0; i < e->nshared && !obj; i++)
        if (e->shared[i].def == def)
            obj = e->shared[i].obj;
    if (!obj && (obj = def->open(r, err)) != NULL) {
        e->shared = xrealloc(e->shared, (e->nshared + 1) * sizeof *e->shared);
        e->shared[e->nshared++] = (struct shared_obj){def, obj};
    }
    pthread_mutex_unlock(&e->shared_mu);
    return obj;
}

void tgb_shared_free(engine *e)
{
    for (size_t i = e->nshared; i-- > 0;)
        e->shared[i].def->close(e->shared[i].obj);
    free(e->shared);
    e->shared = NULL;
    e->nshared = 0;
}

/* "stage:<stage>:<tool>" ("stage:<stage>" without a tool): the key input naming an upstream
 * instance, whose id follows "stage:". In buf when it fits (a repository-wide stage asks once
 * per tool: no printf), else on the heap. */
static char *upstream_input_name(char *buf, size_t size, const char *stage, const char *tool)
{
    size_t ls = strlen(stage), lt = tool ? strlen(tool) : 0, need = 6 + ls + 1 + lt + 1;
    char *s = need <= size ? buf : xmalloc(need), *w = s;
    memcpy(w, "stage:", 6);
    memcpy(w += 6, stage, ls);
    w += ls;
    if (tool) {
        *w++ = ':';
        memcpy(w, tool, lt);
        w += lt;
    }
    *w = '\0';
    return s;
}

/* The upstream node of this stage for (stage, tool), if the stage declared it; name is its
 * upstream_input_name. */
static node *declared_upstream_named(tg_stage_run *r, const char *stage, const char *tool,
                                     const char *name, tg_err *err)
{
    /* Only what the stage declared: its key covers nothing else. */
    bool declared = false;
    for (const char *const *u = r->n->def->upstream; u && *u; u++)
        declared |= strcmp(*u, stage) == 0;
    if (r->n->tool && (!tool || strcmp(tool, r->n->tool) != 0))
        declared = false; /* a per-tool stage reads its own tool's upstream only */
    node *up = declared ? tg_strmap_get(&r->e->by_id, name + 6) : NULL;
    if (!up)
        tg_err_set(err, "stage %s reads %s, which is not one of its declared upstream stages",
                   r->n->id, name + 6);
    return up;
}

static node *declared_upstream(tg_stage_run *r, const char *stage, const char *tool, tg_err *err)
{
    char buf[256], *name = upstream_input_name(buf, sizeof buf, stage, tool);
    node *up = declared_upstream_named(r, stage, tool, name, err);
    if (name != buf)
        free(name);
    return up;
}

/* The declared upstream instance of r and its outputs; NULL (err set) when not declared. */
static node *upstream_outputs(tg_stage_run *r, const char *stage, const char *tool,
                              const tg_named_hash **outs, size_t *n, tg_err *err)
{
    node *up = declared_upstream(r, stage, tool, err);
    if (up)
        tgb_output_list(up, outs, n);
    return up;
}

char *tg_stage_read_upstream(tg_stage_run *r, const char *stage, const char *tool, size_t *len,
                             tg_err *err)
{
    const tg_named_hash *outs;
    size_t n;
    node *up = upstream_outputs(r, stage, tool, &outs, &n, err);
    if (!up)
        return NULL;
    if (!n) {
        tg_err_set(err, "%s has no output", up->id);
        return NULL;
    }
    return tg_read_file_at(r->e->root, outs[0].name, 0, len, err);
}

char *tg_stage_read_upstream_file(tg_stage_run *r, const char *stage, const char *tool,
                                  const char *path, size_t *len, tg_err *err)
{
    const tg_named_hash *outs;
    size_t n;
    node *up = upstream_outputs(r, stage, tool, &outs, &n, err);
    if (!up)
        return NULL;
    if (!tgb_find_named(outs, n, path)) {
        tg_err_set(err, "%s has no output %s", up->id, path);
        return NULL;
    }
    return tg_read_file_at(r->e->root, path, 0, len, err);
}

static void add_output(tg_stage_run *r, char *path, char *data, size_t len, bool always);

void tgb_add_output(tg_stage_run *r, char *path, char *data, size_t len)
{
    add_output(r, path, data, len, false);
}

static void add_output(tg_stage_run *r, char *path, char *data, size_t len, bool always)
{
    if (r->nouts == r->capouts) {
        r->capouts = r->capouts ? r->capouts * 2 : 16;
        r->outs = xrealloc(r->outs, r->capouts * sizeof *r->outs);
    }
    r->outs[r->nouts].path = path;
    r->outs[r->nouts].data = data;
    r->outs[r->nouts].len = len;
    r->outs[r->nouts].always = always;
    r->outs[r->nouts].kept = false;
    r->outs[r->nouts].spans = NULL;
    r->outs[r->nouts].nspans = 0;
    r->nouts++;
}

/* The record's entry named name in its inputs (inputs) or outputs; the lists are indexed on
 * first need, since a repository-wide stage asks once per tool of long lists. */
static const tg_named_hash *prev_entry(tg_stage_run *r, bool inputs, const char *name)
{
    const tg_stage_rec *rec = r->n->rec;
    if (!rec)
        return NULL;
    if (inputs)
        return tgb_nidx_find(tgb_rec_inputs(r->n), name);
    if (!r->prev_out) {
        r->prev_out = xmalloc(sizeof *r->prev_out);
        tgb_nidx_init(r->prev_out, rec->out, rec->nout);
    }
    return tgb_nidx_find(r->prev_out, name);
}

/* Whether the last recorded run was by the same toolgen and stage version (the key's
 * "version" input); asked once per run. */
static bool same_version(tg_stage_run *r)
{
    if (!r->version_known) {
        const tg_named_hash *ver = prev_entry(r, true, "version");
        const tg_named_hash *cur = tgb_find_named(r->n->in, r->n->nin, "version");
        r->version_same = ver && cur && tg_hash_eq(ver->hash, cur->hash);
        r->version_known = true;
    }
    return r->version_same;
}

bool tg_stage_upstream_unchanged(tg_stage_run *r, const char *stage, const char *tool)
{
    tg_err err = {0};
    char buf[256], *name = upstream_input_name(buf, sizeof buf, stage, tool);
    node *up = declared_upstream_named(r, stage, tool, name, &err);
    const tg_named_hash *was = up && same_version(r) ? prev_entry(r, true, name) : NULL;
    if (name != buf)
        free(name);
    return was && tg_hash_eq(was->hash, up->out_hash);
}

bool tg_stage_own_inputs_unchanged(tg_stage_run *r)
{
    if (!r->n->rec)
        return false;
    size_t own = 0, was_own = 0;
    for (size_t i = 0; i < r->n->nin; i++) {
        const tg_named_hash *in = &r->n->in[i];
        if (!strncmp(in->name, "stage:", 6))
            continue;
        const tg_named_hash *was = prev_entry(r, true, in->name);
        if (!was || !tg_hash_eq(was->hash, in->hash))
            return false;
        own++;
    }
    for (size_t i = 0; i < r->n->rec->nin; i++) /* and none of the last run's is gone */
        was_own += strncmp(r->n->rec->in[i].name, "stage:", 6) != 0;
    return own == was_own;
}

char *tg_stage_read_previous_output(tg_stage_run *r, const char *path, size_t *len, tg_err *err)
{
    const tg_named_hash *was = r->n->outs_intact ? prev_entry(r, false, path) : NULL;
    if (!was) {
        tg_err_set(err, "%s: no previous output of %s found intact", path, r->n->id);
        return NULL;
    }
    char *data = tg_read_file_at(r->e->root, path, 0, len, err);
    /* The plan trusted the stat cache; what is built on these bytes must not be wrong. */
    if (data && !tg_hash_eq(tg_hash_bytes(data, *len), was->hash)) {
        tg_err_set(err, "%s changed since the plan checked it", path);
        free(data);
        return NULL;
    }
    return data;
}

/* One file of tg_stage_map_previous_output: kept open, so that its stat can be taken again on
 * the very inode mapped when run() returns. */
struct mapped_output {
    char *path;
    void *addr;
    size_t len;
    int fd;
    struct stat st;
};

static bool same_stat(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_ino == b->st_ino &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Maps fd (st: its stat) read-only; "" for an empty file. NULL with err on failure. */
static void *map_fd(int fd, const struct stat *st, const char *path, tg_err *err)
{
    if (!st->st_size)
        return (void *)"";
    void *p = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        tg_err_setpos(err, path, 0, 0, "cannot map: %s", strerror(errno));
        return NULL;
    }
    return p;
}

const char *tg_stage_map_previous_output(tg_stage_run *r, const char *path, size_t *len,
                                         tg_err *err)
{
    const tg_named_hash *was = r->n->outs_intact ? prev_entry(r, false, path) : NULL;
    if (!was) {
        tg_err_set(err, "%s: no previous output of %s found intact", path, r->n->id);
        return NULL;
    }
    struct mapped_output m = {.path = NULL, .fd = -1};
    m.fd = openat(r->e->root, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (m.fd < 0 || fstat(m.fd, &m.st) != 0 || !S_ISREG(m.st.st_mode)) {
        tg_err_setpos(err, path, 0, 0, "cannot open: %s", m.fd < 0 ? strerror(errno) : "not a file");
        if (m.fd >= 0)
            close(m.fd);
        return NULL;
    }
    m.len = (size_t)m.st.st_size;
    m.addr = map_fd(m.fd, &m.st, path, err);
    tg_hash h;
    if (m.addr && !tg_statelog_vouch(r->e->log, path, &m.st, &h))
        h = tg_hash_bytes(m.addr, m.len); /* racy or unknown: the bytes themselves */
    if (m.addr && !tg_hash_eq(h, was->hash)) {
        tg_err_set(err, "%s changed since the plan checked it", path);
        if (m.len)
            munmap(m.addr, m.len);
        m.addr = NULL;
    }
    if (!m.addr) {
        close(m.fd);
        return NULL;
    }
    m.path = xstrdup(path);
    r->maps = xrealloc(r->maps, (r->nmaps + 1) * sizeof *r->maps);
    r->maps[r->nmaps++] = m;
    *len = m.len;
    return m.addr;
}

/* After run(): whether every mapped file still has the stat it was mapped with. */
static int check_maps(tg_stage_run *r, tg_err *err)
{
    for (size_t i = 0; i < r->nmaps; i++) {
        struct stat st;
        if (fstat(r->maps[i].fd, &st) != 0 || !same_stat(&st, &r->maps[i].st))
            return tg_err_setpos(err, r->maps[i].path, 0, 0,
                                 "changed while the build read it; run the build again");
    }
    return 0;
}

static void unmap_all(tg_stage_run *r)
{
    for (size_t i = 0; i < r->nmaps; i++) {
        if (r->maps[i].len)
            munmap(r->maps[i].addr, r->maps[i].len);
        close(r->maps[i].fd);
        free(r->maps[i].path);
    }
    free(r->maps);
}

bool tg_stage_output_unchanged(tg_stage_run *r, char *path)
{
    const tg_named_hash *was = r->n->outs_intact ? prev_entry(r, false, path) : NULL;
    if (!was) {
        free(path);
        return false;
    }
    add_output(r, path, NULL, 0, false);
    r->outs[r->nouts - 1].kept = true;
    r->outs[r->nouts - 1].hash = was->hash;
    return true;
}

void tg_stage_output(tg_stage_run *r, char *path, char *data, size_t len)
{
    add_output(r, path, data, len, false);
}

void tg_stage_output_spans(tg_stage_run *r, char *path, const tg_span *parts, size_t n,
                           char *keep)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += parts[i].len;
    add_output(r, path, keep, len, false);
    r->outs[r->nouts - 1].spans = xmalloc((n ? n : 1) * sizeof *parts);
    memcpy(r->outs[r->nouts - 1].spans, parts, n * sizeof *parts);
    r->outs[r->nouts - 1].nspans = n;
}

void tg_stage_output_always(tg_stage_run *r, char *path, char *data, size_t len)
{
    add_output(r, path, data, len, true);
}

void tg_stage_dep_exists(tg_stage_run *r, const char *path)
{
    tg_strv_push(&r->deps_exist, path);
}

/* Appends one formatted line to b (problems and notes are one line each). */
static void append_line(tg_buf *b, const char *fmt, va_list ap)
{
    tg_buf_vprintf(b, fmt, ap);
    tg_buf_putc(b, '\n');
}

/* The formatted text (heap), for warnings and summary lines. */
static char *format_text(const char *fmt, va_list ap)
{
    return xvasprintf(fmt, ap);
}

void tg_stage_warning(tg_stage_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = format_text(fmt, ap);
    va_end(ap);
    tgb_event(r->e, TG_EV_WARNING, r->n, text, TG_PLAN_RUN);
    free(text);
}

void tg_stage_summary(tg_stage_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = format_text(fmt, ap);
    va_end(ap);
    tg_strv_push(&r->summaries, text);
    pthread_mutex_lock(&r->e->mu);
    tg_strv_push_owned(&r->e->st->summaries, text);
    pthread_mutex_unlock(&r->e->mu);
}

void tg_stage_dep(tg_stage_run *r, const char *path)
{
    tg_strv_push(&r->deps, path);
}

void tg_stage_env(tg_stage_run *r, const char *fact)
{
    tg_strv_push(&r->envs, fact);
}

void tg_stage_problem(tg_stage_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_line(&r->problems, fmt, ap);
    va_end(ap);
}

void tg_stage_note(tg_stage_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_line(&r->notes, fmt, ap);
    va_end(ap);
}

static void run_free(tg_stage_run *r)
{
    for (size_t i = 0; i < r->nouts; i++) {
        free(r->outs[i].path);
        free(r->outs[i].data);
        free(r->outs[i].spans);
    }
    free(r->outs);
    if (r->prev_out) {
        tgb_nidx_free(r->prev_out);
        free(r->prev_out);
    }
    unmap_all(r);
    tg_strv_free(&r->deps);
    tg_strv_free(&r->deps_exist);
    tg_strv_free(&r->envs);
    tg_strv_free(&r->summaries);
    tg_buf_free(&r->problems);
    tg_buf_free(&r->notes);
}

/* ---- writing outputs ------------------------------------------------------------------------ */

/*
 * Atomic write: the temporary file lives in .toolgen/tmp/, not next to the output, so that a
 * build killed mid-write leaves nothing in the output folders (the next build sweeps
 * .toolgen/tmp/).
 */
static int ensure_dir(engine *e, const char *dir, tg_err *err)
{
    pthread_mutex_lock(&e->dir_mu);
    bool known = tg_strmap_get(&e->dirs, dir) != NULL;
    pthread_mutex_unlock(&e->dir_mu);
    if (known)
        return 0;
    if (tg_mkdirs_at(e->root, dir, err) != 0)
        return -1;
    pthread_mutex_lock(&e->dir_mu);
    if (!tg_strmap_get(&e->dirs, dir)) {
        tg_strv_push(&e->dir_keys, dir);
        tg_strmap_put(&e->dirs, e->dir_keys.v[e->dir_keys.n - 1], (void *)1);
    }
    pthread_mutex_unlock(&e->dir_mu);
    return 0;
}

/* The parts of output i: its spans, or its bytes as one. */
static const tg_span *out_spans(const tg_stage_run *r, size_t i, tg_span *one, size_t *n)
{
    if (r->outs[i].spans) {
        *n = r->outs[i].nspans;
        return r->outs[i].spans;
    }
    *one = (tg_span){r->outs[i].data, r->outs[i].len};
    *n = 1;
    return one;
}

static int write_spans(int fd, const tg_span *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tg_write_all(fd, parts[i].data, parts[i].len) != 0)
            return -1;
    return 0;
}

/* An output folder on another file system: a temporary file next to the output. */
static int write_elsewhere(engine *e, const char *path, const tg_span *parts, size_t n,
                           tg_err *err)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        tg_buf_append(&b, parts[i].data, parts[i].len);
    int rc = tg_write_file_atomic_at(e->root, path, b.data ? b.data : "", b.len, err);
    tg_buf_free(&b);
    return rc;
}

static int write_output(engine *e, const char *path, const tg_span *parts, size_t n,
                        tg_err *err)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        if (ensure_dir(e, dir, err) != 0) {
            free(dir);
            return -1;
        }
    }
    free(dir);
    char *tmp = xasprintf(TG_STATE_DIR "/tmp/%ld.%u", e->pid, atomic_fetch_add(&e->tmpseq, 1));
    int fd = openat(e->root, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        tg_err_setpos(err, tmp, 0, 0, "cannot create: %s", strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = 0;
    bool renamed = false;
    if (write_spans(fd, parts, n) != 0) {
        rc = tg_err_setpos(err, path, 0, 0, "write error: %s", strerror(errno));
        close(fd);
    } else if (close(fd) != 0) {
        rc = tg_err_setpos(err, path, 0, 0, "write error: %s", strerror(errno));
    } else if (renameat(e->root, tmp, e->root, path) == 0) {
        renamed = true;
    } else if (errno == EXDEV) {
        rc = write_elsewhere(e, path, parts, n, err);
    } else {
        rc = tg_err_setpos(err, path, 0, 0, "cannot write: %s", strerror(errno));
    }
    if (!renamed)
        unlinkat(e->root, tmp, 0);
    free(tmp);
    return rc;
}

/* "generated/, .toolgen/ir/, ...": where stages may write, for a message. */
static char *roots_list(const engine *e)
{
    tg_buf b = TG_BUF_INIT;
    const tg_strv *lists[2] = {&e->shared_roots, &e->own_roots};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->n; i++)
            tg_buf_printf(&b, "%s%s/", b.len ? ", " : "", lists[l]->v[i]);
    if (!b.len) {
        tg_buf_free(&b);
        return xstrdup("none");
    }
    return tg_buf_steal(&b);
}

static int out_cmp(const void *a, const void *b)
{
    return strcmp(((const tg_named_hash *)a)->name, ((const tg_named_hash *)b)->name);
}

static void add_restored(engine *e, tg_strv *list, const char *path)
{
    pthread_mutex_lock(&e->mu);
    tg_strv_push(list, path);
    pthread_mutex_unlock(&e->mu);
}

/*
 * The discovered dependencies of a run as recorded: files with their content hash (zero when
 * missing); presence-only ones with TGB_EXISTS_HASH (a path that is also a content dependency
 * keeps its content hash); environment facts as "env:<fact>" with their value's hash. Sorted,
 * unique; names borrowed from r->deps.
 */
static tg_named_hash *recorded_deps(engine *e, tg_stage_run *r, size_t *count)
{
    tg_strmap content = TG_STRMAP_INIT;
    for (size_t i = 0; i < r->deps.n; i++)
        tg_strmap_put(&content, r->deps.v[i], (void *)1);
    for (size_t i = 0; i < r->deps_exist.n; i++)
        if (!tg_strmap_get(&content, r->deps_exist.v[i]))
            tg_strv_push(&r->deps, r->deps_exist.v[i]);
    for (size_t i = 0; i < r->envs.n; i++) /* facts: "env:<fact>", the value's hash */
        tg_strv_push_owned(&r->deps, xasprintf(TGB_ENV_PREFIX "%s", r->envs.v[i]));
    tg_named_hash *deps = xcalloc(r->deps.n + 1, sizeof *deps);
    tg_strv_sort(&r->deps);
    size_t ndep = 0;
    for (size_t i = 0; i < r->deps.n; i++) {
        if (ndep && strcmp(deps[ndep - 1].name, r->deps.v[i]) == 0)
            continue;
        if (!strncmp(r->deps.v[i], TGB_ENV_PREFIX, strlen(TGB_ENV_PREFIX))) {
            const char *fact = r->deps.v[i] + strlen(TGB_ENV_PREFIX);
            deps[ndep++] = (tg_named_hash){r->deps.v[i], tgb_env_hash(e, fact)};
            continue;
        }
        tg_hash h = {0, 0};
        tg_err derr = {0};
        int hrc = tg_statelog_hash_file(e->log, r->deps.v[i], &h, &derr);
        if (hrc < 0)
            h = (tg_hash){0, 1};
        else if (hrc == 1 && !tg_strmap_get(&content, r->deps.v[i]))
            h = TGB_EXISTS_HASH;
        deps[ndep++] = (tg_named_hash){r->deps.v[i], h};
    }
    tg_strmap_free(&content);
    *count = ndep;
    return deps;
}

static int commit_outputs(engine *e, node *n, tg_stage_run *r, tg_err *err)
{
    const tg_stage_rec *rec = n->rec;
    tg_named_hash *outs = xcalloc(r->nouts + 1, sizeof *outs);
    tg_strv names = TG_STRV_INIT; /* owns the names of outs */
    size_t nout = 0;
    int rc = 0;
    tg_strmap seen = TG_STRMAP_INIT; /* outputs of this run */
    named_index was_out;
    tgb_nidx_init(&was_out, rec ? rec->out : NULL, rec ? rec->nout : 0);
    for (size_t i = 0; i < r->nouts && rc == 0; i++) {
        const char *path = r->outs[i].path;
        if (!tgb_output_path_ok(e, path)) {
            char *roots = roots_list(e);
            rc = tg_err_set(err, "stage %s produced '%s', outside the folders stages write (%s)",
                            n->id, path, roots);
            free(roots);
            break;
        }
        if (tg_strmap_get(&seen, path)) {
            rc = tg_err_set(err, "stage %s produced %s twice", n->id, path);
            break;
        }
        tg_span one;
        size_t nspans;
        const tg_span *spans = out_spans(r, i, &one, &nspans);
        tg_hash h = r->outs[i].kept ? r->outs[i].hash : tg_hash_spans(spans, nspans);
        tg_strv_push(&names, path);
        outs[nout] = (tg_named_hash){names.v[names.n - 1], h};
        tg_strmap_put(&seen, outs[nout].name, &outs[nout]);
        nout++;
        if (r->outs[i].kept)
            continue; /* the plan found it holding these bytes (tg_stage_output_unchanged) */
        const tg_named_hash *was = tgb_nidx_find(&was_out, path);
        /* The plan found this file holding its recorded bytes moments ago: the same bytes again
         * need not even a stat (a repository-wide stage hands over thousands of unchanged
         * files). A hand edit made since is caught by the next build, like one made after it. */
        if (n->outs_intact && was && tg_hash_eq(h, was->hash))
            continue;
        tg_hash cur;
        tg_err ferr = {0};
        int have = tg_statelog_hash_file(e->log, path, &cur, &ferr);
        if (have == 1 && tg_hash_eq(cur, h))
            continue; /* same bytes: leave the file (and its mtime) alone */
        if (have == 1 && was && !tg_hash_eq(cur, was->hash)) {
            tgb_eventf(e, TG_EV_WARNING, n,
                       "%s was edited by hand; overwritten with the generated version (generated "
                       "files are not to be edited: change the manifest instead)",
                       path);
            add_restored(e, &e->st->edited, path);
        } else if (have == 0 && was && tg_hash_eq(h, was->hash)) {
            add_restored(e, &e->st->recreated, path); /* deleted by someone: put back */
        }
        rc = write_output(e, path, spans, nspans, err);
        if (rc == 0) {
            tg_statelog_wrote(e->log, path, h);
            tg_buf_printf(&n->notes, "wrote %s\n", path);
        }
    }
    if (rc == 0 && rec) {
        /* Outputs this run no longer produces: they were ours, so they go. */
        for (size_t i = 0; i < rec->nout; i++) {
            if (tg_strmap_get(&seen, rec->out[i].name))
                continue;
            if (tgb_remove_output(e, rec->out[i].name)) {
                tg_buf_printf(&n->notes, "removed %s (no longer produced)\n", rec->out[i].name);
                pthread_mutex_lock(&e->mu);
                e->st->removed++;
                pthread_mutex_unlock(&e->mu);
            }
            tg_statelog_forget(e->log, rec->out[i].name);
        }
    }
    tg_strmap_free(&seen);
    tgb_nidx_free(&was_out);
    if (rc != 0) {
        tg_strv_free(&names);
        free(outs);
        return -1;
    }
    qsort(outs, nout, sizeof *outs, out_cmp);
    size_t ndep = 0;
    tg_named_hash *deps = recorded_deps(e, r, &ndep);
    tg_stage_rec nr = {n->id, n->key, n->in, outs, deps, n->nin, nout, ndep};
    rc = tg_statelog_put_stage(e->log, &nr, err);
    free(deps);
    n->out = outs;
    n->nout = nout;
    n->out_names = names;
    n->out_hash = tgb_combine_outputs(outs, nout);
    return rc;
}

/* TG_EV_OUTPUT for output i of r, when the caller asked for outputs (report_outputs). */
static void report_output(engine *e, const node *n, const tg_stage_run *r, size_t i)
{
    if (!e->o->report_outputs)
        return;
    if (r->outs[i].kept) {
        tgb_event_output(e, n, r->outs[i].path, NULL, 0);
        return;
    }
    tg_span one;
    size_t nspans;
    const tg_span *spans = out_spans(r, i, &one, &nspans);
    if (nspans == 1) {
        tgb_event_output(e, n, r->outs[i].path, spans[0].data, spans[0].len);
        return;
    }
    tg_buf b = TG_BUF_INIT; /* an output made of parts is assembled only for this */
    for (size_t k = 0; k < nspans; k++)
        tg_buf_append(&b, spans[k].data, spans[k].len);
    tgb_event_output(e, n, r->outs[i].path, b.data, b.len);
    tg_buf_free(&b);
}

/*
 * A failed stage's reports (tg_stage_output_always) are written, unrecorded: the stage has no
 * new record, so it runs again next build, and its report says why it failed meanwhile.
 */
static void write_always(engine *e, node *n, tg_stage_run *r)
{
    bool dropped = false;
    for (size_t i = 0; i < r->nouts; i++) {
        if (!r->outs[i].always || !tgb_output_path_ok(e, r->outs[i].path))
            continue;
        if (!dropped && n->rec) {
            /* The old record's hash of this report would make the next run call it edited by
             * hand; without a record the stage simply runs again ("never built"). */
            tg_err derr = {0};
            n->rec = NULL;
            tg_statelog_drop_stage(e->log, n->id, &derr);
            dropped = true;
        }
        tg_err err = {0};
        tg_span one;
        size_t nspans;
        const tg_span *spans = out_spans(r, i, &one, &nspans);
        if (write_output(e, r->outs[i].path, spans, nspans, &err) == 0) {
            tg_buf_printf(&r->notes, "wrote %s\n", r->outs[i].path);
            report_output(e, n, r, i);
        } else {
            tg_buf_printf(&r->problems, "%s\n", err.msg);
        }
    }
}

/* ---- running -------------------------------------------------------------------------------- */

bool tgb_should_stop(const engine *e)
{
    if (e->o->interrupted && *e->o->interrupted)
        return true;
    return e->o->keep_going > 0 && e->failures >= e->o->keep_going;
}

/* Whether n's place in the ready queue needs an estimate: its own, or one of the next stage's. */
static bool wants_estimate(const node *n)
{
    if (n->def->estimate)
        return true;
    for (size_t i = 0; i < n->ndown; i++)
        if (n->down[i]->def->estimate)
            return true;
    return false;
}

static void push_ready(engine *e, node *n)
{
    tgb_ready_add(&e->ready, n, wants_estimate(n));
}

/* Under mu: n is finished (ran, cut off, failed or skipped); release its downstream nodes. */
static void resolve(engine *e, node *n)
{
    e->unresolved--;
    bool bad = n->state == N_FAILED || n->state == N_SKIPPED;
    for (size_t i = 0; i < n->ndown; i++) {
        node *d = n->down[i];
        if (d->state != N_DIRTY && d->state != N_MAYBE)
            continue;
        if (bad) {
            d->state = N_SKIPPED;
            e->total--;
            e->st->skipped++;
            tgb_event(e, TG_EV_SKIPPED, d, n->id, TG_PLAN_RUN);
            resolve(e, d);
        } else if (--d->pending == 0) {
            push_ready(e, d);
        }
    }
}

/* Runs one node (not under mu). Sets its state. */
static void process(worker *w, node *n)
{
    engine *e = w->e;
    if (!n->key_known)
        tgb_compute_key(e, n);
    if (n->state == N_MAYBE) {
        if (n->rec && tg_hash_eq(n->key, n->rec->key)) {
            n->state = N_CLEAN;
            n->cut_off = true;
            n->out_hash = tgb_combine_outputs(n->rec->out, n->rec->nout);
            return;
        }
        if (n->rec)
            tgb_explain_key(e, n);
        else
            tgb_why(n, "never built");
    }
    pthread_mutex_lock(&e->mu);
    tgb_event(e, TG_EV_START, n, n->why.data, TG_PLAN_RUN);
    pthread_mutex_unlock(&e->mu);

    tg_stage_run r = {.e = e, .w = w, .n = n};
    tg_err err = {0};
    bool hit = tgb_cache_fetch(e, n, &r);
    int rc = hit ? TG_STAGE_DONE : n->def->run(&r, &err);
    bool env = rc == TG_STAGE_NO_ENVIRONMENT;
    if (rc == 0)
        rc = check_maps(&r, &err);
    if (rc == 0)
        rc = commit_outputs(e, n, &r, &err);
    else
        write_always(e, n, &r);
    if (rc == 0 && !hit)
        tgb_cache_store(e, n, &r);
    if (rc == 0 && hit) {
        pthread_mutex_lock(&e->mu);
        e->st->cache_hits++;
        pthread_mutex_unlock(&e->mu);
    }
    for (size_t i = 0; rc == 0 && i < r.nouts; i++)
        report_output(e, n, &r, i);
    if (env) {
        pthread_mutex_lock(&e->mu);
        e->env_failures++;
        pthread_mutex_unlock(&e->mu);
    }
    if (rc != 0) {
        char msg[2048];
        tg_err_format(&err, msg, sizeof msg);
        tg_buf_printf(&r.problems, "%s\n", msg);
        n->state = N_FAILED;
        tg_buf_free(&n->notes);
        n->notes = r.problems;
        r.problems = (tg_buf)TG_BUF_INIT;
    } else {
        n->state = N_DONE;
        if (r.notes.len)
            tg_buf_append(&n->notes, r.notes.data, r.notes.len);
    }
    run_free(&r);
}

static void finish_node(engine *e, node *n)
{
    /* under mu */
    if (n->cut_off) {
        e->total--;
        e->st->cut_off++;
        e->st->up_to_date++;
        tgb_event(e, TG_EV_CUTOFF, n, NULL, TG_PLAN_RUN);
    } else {
        e->done++;
        e->st->ran++;
        e->st->kind_ran[n->kind]++;
        if (n->state == N_FAILED) {
            e->failures++;
            e->st->failed++;
            char *d = tgb_display(n);
            tg_strv_push_owned(&e->st->failed_ids, d);
            tgb_event(e, TG_EV_FAILED, n, n->notes.data, TG_PLAN_RUN);
        } else {
            tgb_event(e, TG_EV_DONE, n, n->notes.len ? n->notes.data : NULL, TG_PLAN_RUN);
        }
    }
    resolve(e, n);
}

static double ask_estimate(worker *w, node *n)
{
    tg_stage_run r = {.e = w->e, .w = w, .n = n};
    double est = n->def->estimate(&r);
    run_free(&r);
    return est > 0 ? est : 0;
}

/*
 * Under mu: gives the nodes that became ready their place in the queue, then queues them. The
 * place is the node's own estimate or, when larger, that of a next stage that waits for this
 * node alone (the other upstream outputs it reads are there): so a tool's static check runs
 * early when its tests will be long (docs/build.md#scheduling). Each node's estimate is asked
 * once, outside mu (it reads upstream outputs), and kept for when that node becomes ready.
 */
static void estimate_ready(worker *w)
{
    engine *e = w->e;
    node *n;
    while ((n = tgb_ready_take_deferred(&e->ready))) {
        node *ask[9]; /* n and its next stages, those whose estimate is not known yet */
        size_t k = 0;
        if (n->def->estimate && !n->own_known)
            ask[k++] = n;
        for (size_t i = 0; i < n->ndown && k < sizeof ask / sizeof *ask; i++) {
            node *d = n->down[i];
            if (d->def->estimate && d->pending == 1 && !d->own_known)
                ask[k++] = d;
        }
        double got[9];
        pthread_mutex_unlock(&e->mu);
        for (size_t i = 0; i < k; i++)
            got[i] = ask_estimate(w, ask[i]);
        pthread_mutex_lock(&e->mu);
        for (size_t i = 0; i < k; i++) {
            ask[i]->own_est = got[i];
            ask[i]->own_known = true;
        }
        double est = n->own_known ? n->own_est : 0;
        for (size_t i = 0; i < n->ndown; i++) {
            const node *d = n->down[i];
            if (d->own_known && d->pending == 1 && d->own_est > est)
                est = d->own_est;
        }
        n->est = est;
        tgb_ready_push(&e->ready, n);
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        if (!e->stop && tgb_should_stop(e)) {
            e->stop = true;
            pthread_cond_broadcast(&e->cv);
        }
        if (e->stop || e->unresolved == 0)
            break;
        node *n = tgb_ready_pop(&e->ready);
        if (!n) {
            /* timed: a signal handler cannot signal the condition variable */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50 * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&e->cv, &e->mu, &ts);
            continue;
        }
        pthread_mutex_unlock(&e->mu);
        process(w, n);
        pthread_mutex_lock(&e->mu);
        finish_node(e, n);
        estimate_ready(w);
        pthread_cond_broadcast(&e->cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

void tgb_run_graph(engine *e)
{
    for (size_t i = 0; i < e->nnodes; i++) {
        node *n = e->nodes[i];
        if (n->state != N_DIRTY && n->state != N_MAYBE)
            continue;
        e->unresolved++;
        for (size_t j = 0; j < n->nup; j++)
            if (n->up[j]->state == N_DIRTY || n->up[j]->state == N_MAYBE)
                n->pending++;
    }
    if (!e->unresolved)
        return;
    int nth = tgb_jobs(e);
    if ((size_t)nth > e->unresolved)
        nth = (int)e->unresolved;
    worker *ws = xcalloc((size_t)nth, sizeof *ws);
    bool *started = xcalloc((size_t)nth, sizeof *started);
    for (int i = 0; i < nth; i++)
        ws[i].e = e;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < e->nnodes; i++) {
        node *n = e->nodes[i];
        if ((n->state == N_DIRTY || n->state == N_MAYBE) && n->pending == 0)
            push_ready(e, n);
    }
    estimate_ready(&ws[0]);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < nth; i++) {
        /* a thread that cannot be created just means fewer workers */
        if (i > 0)
            started[i] = pthread_create(&ws[i].th, NULL, worker_main, &ws[i]) == 0;
    }
    worker_main(&ws[0]); /* the calling thread works too */
    for (int i = 1; i < nth; i++)
        if (started[i])
            pthread_join(ws[i].th, NULL);
    free(started);
    for (int i = 0; i < nth; i++)
        if (ws[i].ss_open)
            tg_schemaset_close(&ws[i].ss);
    free(ws);
    e->st->not_started = (int)e->unresolved;
}
