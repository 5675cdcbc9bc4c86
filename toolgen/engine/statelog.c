/* statelog.c — .toolgen/log: stat cache + stage records, append-only with compaction. */
#include "engine/statelog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "base/arena.h"
#include "base/buf.h"

#define LOG_HEADER "# toolgen log v1\n"
/* Rewrite the log when it is this many times larger than its live entries (ninja uses 3 for
 * lines; bytes here, as one repository-wide record can be as long as thousands of lines). */
#define COMPACT_RATIO 3
#define COMPACT_MIN_BYTES (64 * 1024)

typedef struct fentry {
    char *path;
    tg_hash hash;
    int64_t size, mtime, ctime;
    uint64_t ino;
    bool trusted; /* the stat was taken at a later clock tick than the file's last change */
    bool used;    /* looked up or written in this session: compaction keeps it */
    bool pending; /* changed in this session: to be appended */
    bool settle;  /* changed in this session but not trusted yet: hash again in finish */
} fentry;

struct tg_statelog {
    pthread_mutex_t mu;
    int root;     /* the repository's root fd: dir, path and the cached files are under it */
    char *dir, *path;
    bool writable;
    int fd;       /* append descriptor; -1 until the first write */
    bool rewrite; /* the file is absent, torn or foreign: write it whole before appending */
    tg_arena arena;
    tg_strmap files;  /* path → fentry */
    tg_strmap stages; /* id → tg_stage_rec */
    fentry **pend;
    size_t npend, cappend;
    bool have_config;
    tg_hash config;
    size_t bytes;  /* size of the file on disk */
    bool appended; /* something was appended in this session */
};

int64_t tg_clock_coarse_ns(void)
{
    struct timespec ts;
#ifdef CLOCK_REALTIME_COARSE
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
#else
    clock_gettime(CLOCK_REALTIME, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t ts_ns(struct timespec ts)
{
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool stat_matches(const fentry *e, const struct stat *st)
{
    return e->size == (int64_t)st->st_size && e->mtime == ts_ns(st->st_mtim) &&
           e->ctime == ts_ns(st->st_ctim) && e->ino == (uint64_t)st->st_ino;
}

static void set_stat(fentry *e, const struct stat *st)
{
    e->size = (int64_t)st->st_size;
    e->mtime = ts_ns(st->st_mtim);
    e->ctime = ts_ns(st->st_ctim);
    e->ino = (uint64_t)st->st_ino;
}

static int64_t last_change(const fentry *e)
{
    return e->mtime > e->ctime ? e->mtime : e->ctime;
}

/* ---- parsing ------------------------------------------------------------------------------- */

typedef struct cursor {
    const char *p, *end; /* one line, without its '\n' */
} cursor;

static bool tok(cursor *c, const char **s, size_t *n)
{
    if (c->p >= c->end)
        return false;
    const char *sp = memchr(c->p, ' ', (size_t)(c->end - c->p));
    const char *e = sp ? sp : c->end;
    *s = c->p;
    *n = (size_t)(e - c->p);
    c->p = sp ? sp + 1 : c->end;
    return *n > 0;
}

static bool tok_u64(cursor *c, uint64_t *out)
{
    const char *s;
    size_t n;
    if (!tok(c, &s, &n) || n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

static bool tok_i64(cursor *c, int64_t *out)
{
    bool neg = c->p < c->end && *c->p == '-';
    if (neg)
        c->p++;
    uint64_t v;
    if (!tok_u64(c, &v))
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

static bool tok_hash(cursor *c, tg_hash *h)
{
    const char *s;
    size_t n;
    return tok(c, &s, &n) && n == 32 && tg_hash_parse(s, h);
}

static char *arena_str(tg_arena *a, const char *s, size_t n)
{
    return tg_arena_strndup(a, s, n);
}

static bool parse_list(tg_statelog *l, cursor *c, tg_named_hash **out, size_t *nout)
{
    uint64_t n;
    if (!tok_u64(c, &n) || n > (uint64_t)(c->end - c->p))
        return false;
    tg_named_hash *v = n ? tg_arena_alloc(&l->arena, (size_t)n * sizeof *v) : NULL;
    for (uint64_t i = 0; i < n; i++) {
        const char *s;
        size_t len;
        if (!tok(c, &s, &len) || !tok_hash(c, &v[i].hash))
            return false;
        v[i].name = arena_str(&l->arena, s, len);
    }
    *out = v;
    *nout = (size_t)n;
    return true;
}

static fentry *file_entry(tg_statelog *l, const char *path, size_t n)
{
    char tmp[4096];
    if (n >= sizeof tmp)
        return NULL;
    memcpy(tmp, path, n);
    tmp[n] = '\0';
    fentry *e = tg_strmap_get(&l->files, tmp);
    if (!e) {
        e = tg_arena_alloc(&l->arena, sizeof *e);
        e->path = arena_str(&l->arena, path, n);
        tg_strmap_put(&l->files, e->path, e);
    }
    return e;
}

static void parse_line(tg_statelog *l, const char *line, size_t len)
{
    cursor c = {line + 2, line + len};
    if (len < 3 || line[1] != ' ')
        return;
    switch (line[0]) {
    case 'f': {
        tg_hash h;
        int64_t size, mtime, ctime;
        uint64_t ino;
        const char *flag;
        size_t fl;
        if (!tok_hash(&c, &h) || !tok_i64(&c, &size) || !tok_i64(&c, &mtime) ||
            !tok_i64(&c, &ctime) || !tok_u64(&c, &ino) || !tok(&c, &flag, &fl) || fl != 1 ||
            c.p >= c.end)
            return;
        /* the path is the rest of the line: it may hold spaces (the data directory's path) */
        fentry *e = file_entry(l, c.p, (size_t)(c.end - c.p));
        if (!e)
            return;
        e->hash = h;
        e->size = size;
        e->mtime = mtime;
        e->ctime = ctime;
        e->ino = ino;
        e->trusted = flag[0] == 't';
        return;
    }
    case 's': {
        const char *id;
        size_t idn;
        tg_stage_rec *r = tg_arena_alloc(&l->arena, sizeof *r);
        if (!tok(&c, &id, &idn) || !tok_hash(&c, &r->key) || !parse_list(l, &c, &r->in, &r->nin) ||
            !parse_list(l, &c, &r->out, &r->nout) || !parse_list(l, &c, &r->dep, &r->ndep) ||
            c.p < c.end)
            return;
        r->id = arena_str(&l->arena, id, idn);
        tg_strmap_put(&l->stages, r->id, r);
        return;
    }
    case 'x': {
        char *id = arena_str(&l->arena, c.p, (size_t)(c.end - c.p));
        tg_strmap_del(&l->stages, id);
        return;
    }
    case 'c':
        if (tok_hash(&c, &l->config))
            l->have_config = true;
        return;
    default:
        return;
    }
}

static int load(tg_statelog *l, tg_err *err)
{
    size_t len = 0;
    tg_err e2 = {0};
    char *text = tg_read_file_at(l->root, l->path, 0, &len, &e2);
    if (!text) {
        if (errno == ENOENT || !tg_is_file_at(l->root, l->path)) {
            l->rewrite = true;
            return 0;
        }
        *err = e2;
        return -1;
    }
    size_t hl = strlen(LOG_HEADER);
    if (len < hl || memcmp(text, LOG_HEADER, hl) != 0) {
        /* another format (an older toolgen): start over; everything will rebuild once */
        l->rewrite = true;
        free(text);
        return 0;
    }
    const char *p = text + hl, *end = text + len;
    l->bytes = len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            l->rewrite = true; /* a torn last line: never append after it */
            break;
        }
        parse_line(l, p, (size_t)(nl - p));
        p = nl + 1;
    }
    free(text);
    return 0;
}

int tg_statelog_open(int root, const char *dir, bool writable, tg_statelog **out, tg_err *err)
{
    tg_statelog *l = xcalloc(1, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->root = root;
    l->dir = xstrdup(dir);
    l->path = tg_path_join(dir, "log");
    l->writable = writable;
    l->fd = -1;
    if (load(l, err) != 0) {
        tg_statelog_close(l);
        return -1;
    }
    *out = l;
    return 0;
}

void tg_statelog_close(tg_statelog *l)
{
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd);
    tg_strmap_free(&l->files);
    tg_strmap_free(&l->stages);
    tg_arena_free(&l->arena);
    free(l->pend);
    free(l->dir);
    free(l->path);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* ---- writing ------------------------------------------------------------------------------- */

static void put_hash(tg_buf *b, tg_hash h)
{
    char hex[TG_HASH_HEX];
    tg_hash_hex(h, hex);
    tg_buf_append(b, hex, 32);
}

static void fmt_file(tg_buf *b, const fentry *e)
{
    tg_buf_puts(b, "f ");
    put_hash(b, e->hash);
    tg_buf_printf(b, " %lld %lld %lld %llu %c %s\n", (long long)e->size, (long long)e->mtime,
                  (long long)e->ctime, (unsigned long long)e->ino, e->trusted ? 't' : 'r', e->path);
}

static void fmt_list(tg_buf *b, const tg_named_hash *v, size_t n)
{
    tg_buf_printf(b, " %zu", n);
    for (size_t i = 0; i < n; i++) {
        tg_buf_putc(b, ' ');
        tg_buf_puts(b, v[i].name);
        tg_buf_putc(b, ' ');
        put_hash(b, v[i].hash);
    }
}

static void fmt_stage(tg_buf *b, const tg_stage_rec *r)
{
    tg_buf_printf(b, "s %s ", r->id);
    put_hash(b, r->key);
    fmt_list(b, r->in, r->nin);
    fmt_list(b, r->out, r->nout);
    fmt_list(b, r->dep, r->ndep);
    tg_buf_putc(b, '\n');
}

static int id_cmp(const void *a, const void *b)
{
    return strcmp((*(tg_stage_rec *const *)a)->id, (*(tg_stage_rec *const *)b)->id);
}

static void mark_referenced(tg_strmap *refs, const tg_named_hash *v, size_t n, const char *prefix)
{
    size_t pl = prefix ? strlen(prefix) : 0;
    for (size_t i = 0; i < n; i++) {
        if (prefix && strncmp(v[i].name, prefix, pl) != 0)
            continue;
        tg_strmap_put(refs, v[i].name + pl, (void *)1);
    }
}

/* The whole log, live entries only, written to a temporary file and renamed over the log. */
static int rewrite_log(tg_statelog *l, tg_err *err)
{
    if (tg_mkdirs_at(l->root, l->dir, err) != 0)
        return -1;
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, LOG_HEADER);
    if (l->have_config) {
        tg_buf_puts(&b, "c ");
        put_hash(&b, l->config);
        tg_buf_putc(&b, '\n');
    }
    tg_stage_rec **recs = xcalloc(l->stages.n + 1, sizeof *recs);
    size_t nrec = 0, i = 0;
    const char *k;
    void *v;
    tg_strmap refs = TG_STRMAP_INIT;
    while (tg_strmap_next(&l->stages, &i, &k, &v)) {
        tg_stage_rec *r = v;
        recs[nrec++] = r;
        mark_referenced(&refs, r->out, r->nout, NULL);
        mark_referenced(&refs, r->dep, r->ndep, NULL);
        mark_referenced(&refs, r->in, r->nin, "file:");
    }
    qsort(recs, nrec, sizeof *recs, id_cmp);
    i = 0;
    while (tg_strmap_next(&l->files, &i, &k, &v)) {
        fentry *e = v;
        if (e->used || tg_strmap_get(&refs, e->path)) {
            fmt_file(&b, e);
            }
        e->pending = false;
    }
    l->npend = 0;
    for (size_t j = 0; j < nrec; j++) {
        fmt_stage(&b, recs[j]);
    }
    free(recs);
    tg_strmap_free(&refs);

    char *tmp = xasprintf("%s.tmp", l->path);
    int rc = -1;
    int fd = openat(l->root, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        tg_err_setpos(err, tmp, 0, 0, "cannot create: %s", strerror(errno));
    } else if (tg_write_all(fd, b.data, b.len) != 0) {
        tg_err_setpos(err, tmp, 0, 0, "write error: %s", strerror(errno));
        close(fd);
        unlinkat(l->root, tmp, 0);
    } else if (close(fd) != 0 || renameat(l->root, tmp, l->root, l->path) != 0) {
        tg_err_setpos(err, l->path, 0, 0, "cannot write: %s", strerror(errno));
        unlinkat(l->root, tmp, 0);
    } else {
        rc = 0;
    }
    free(tmp);
    size_t written = b.len;
    tg_buf_free(&b);
    if (rc != 0)
        return -1;
    if (l->fd >= 0)
        close(l->fd); /* it points at the replaced file */
    l->fd = -1;
    l->rewrite = false;
    l->bytes = written;
    return 0;
}

/* Appends text (whole lines) to the log; in read-only mode it only updates memory. */
static int append(tg_statelog *l, const tg_buf *b, tg_err *err)
{
    if (!l->writable || !b->len)
        return 0;
    if (l->rewrite)
        return rewrite_log(l, err); /* memory already holds the new state */
    if (l->fd < 0) {
        l->fd = openat(l->root, l->path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (l->fd < 0)
            return tg_err_setpos(err, l->path, 0, 0, "cannot open for appending: %s",
                                 strerror(errno));
    }
    if (tg_write_all(l->fd, b->data, b->len) != 0)
        return tg_err_setpos(err, l->path, 0, 0, "write error: %s", strerror(errno));
    l->bytes += b->len;
    l->appended = true;
    return 0;
}

/* ---- the stat cache ------------------------------------------------------------------------ */

static void mark_pending(tg_statelog *l, fentry *e)
{
    if (e->pending)
        return;
    e->pending = true;
    if (l->npend == l->cappend) {
        l->cappend = l->cappend ? l->cappend * 2 : 64;
        l->pend = xrealloc(l->pend, l->cappend * sizeof *l->pend);
    }
    l->pend[l->npend++] = e;
}

/*
 * Hashes an open file and says whether the result can be trusted: the file did not change while
 * it was read, and its last change is older than the clock tick at which we started.
 */
static int hash_path(int root, const char *path, tg_hash *h, struct stat *st, bool *trusted,
                     tg_err *err)
{
    int64_t stamp = tg_clock_coarse_ns();
    int fd = openat(root, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        return tg_err_setpos(err, path, 0, 0, "cannot open: %s", strerror(errno));
    }
    struct stat before, after;
    if (fstat(fd, &before) != 0) {
        close(fd);
        return tg_err_setpos(err, path, 0, 0, "cannot stat: %s", strerror(errno));
    }
    if (!S_ISREG(before.st_mode)) {
        close(fd);
        return tg_err_setpos(err, path, 0, 0, "not a regular file");
    }
    tg_hash d;
    if (tg_hash_fd(fd, path, &d, err) != 0) {
        close(fd);
        return -1;
    }
    bool same = fstat(fd, &after) == 0 && after.st_size == before.st_size &&
                ts_ns(after.st_mtim) == ts_ns(before.st_mtim) &&
                ts_ns(after.st_ctim) == ts_ns(before.st_ctim);
    close(fd);
    *h = d;
    *st = before;
    int64_t changed = ts_ns(before.st_mtim) > ts_ns(before.st_ctim) ? ts_ns(before.st_mtim)
                                                                    : ts_ns(before.st_ctim);
    *trusted = same && changed < stamp;
    return 1;
}

static void store(tg_statelog *l, const char *path, tg_hash h, const struct stat *st, bool trusted)
{
    fentry *e = file_entry(l, path, strlen(path));
    if (!e)
        return; /* an absurdly long path is simply not cached */
    e->hash = h;
    set_stat(e, st);
    e->trusted = trusted;
    e->used = true;
    e->settle = !trusted;
    mark_pending(l, e);
}

int tg_statelog_hash_file(tg_statelog *l, const char *path, tg_hash *out, tg_err *err)
{
    struct stat st;
    if (fstatat(l->root, path, &st, 0) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        return tg_err_setpos(err, path, 0, 0, "cannot stat: %s", strerror(errno));
    }
    pthread_mutex_lock(&l->mu);
    fentry *e = tg_strmap_get(&l->files, path);
    if (e && e->trusted && stat_matches(e, &st)) {
        e->used = true;
        *out = e->hash;
        pthread_mutex_unlock(&l->mu);
        return 1;
    }
    pthread_mutex_unlock(&l->mu);

    bool trusted;
    int rc = hash_path(l->root, path, out, &st, &trusted, err);
    if (rc != 1)
        return rc;
    if (strchr(path, '\n'))
        return 1; /* cannot be a log line */
    pthread_mutex_lock(&l->mu);
    store(l, path, *out, &st, trusted);
    pthread_mutex_unlock(&l->mu);
    return 1;
}

bool tg_statelog_vouch(tg_statelog *l, const char *path, const struct stat *st, tg_hash *out)
{
    pthread_mutex_lock(&l->mu);
    fentry *e = tg_strmap_get(&l->files, path);
    bool ok = e && e->trusted && stat_matches(e, st);
    if (ok) {
        e->used = true;
        *out = e->hash;
    }
    pthread_mutex_unlock(&l->mu);
    return ok;
}

void tg_statelog_wrote(tg_statelog *l, const char *path, tg_hash h)
{
    struct stat st;
    if (fstatat(l->root, path, &st, 0) != 0 || strchr(path, '\n'))
        return;
    pthread_mutex_lock(&l->mu);
    store(l, path, h, &st, false); /* written this very tick: finish() confirms it */
    pthread_mutex_unlock(&l->mu);
}

void tg_statelog_forget(tg_statelog *l, const char *path)
{
    pthread_mutex_lock(&l->mu);
    fentry *e = tg_strmap_get(&l->files, path);
    if (e) {
        e->trusted = false;
        e->settle = false;
        e->used = false;
    }
    pthread_mutex_unlock(&l->mu);
}

/* ---- stage records ------------------------------------------------------------------------- */

static tg_named_hash *copy_list(tg_statelog *l, const tg_named_hash *v, size_t n)
{
    if (!n)
        return NULL;
    tg_named_hash *c = tg_arena_alloc(&l->arena, n * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        c[i].name = arena_str(&l->arena, v[i].name, strlen(v[i].name));
        c[i].hash = v[i].hash;
    }
    return c;
}

const tg_stage_rec *tg_statelog_stage(tg_statelog *l, const char *id)
{
    pthread_mutex_lock(&l->mu);
    const tg_stage_rec *r = tg_strmap_get(&l->stages, id);
    pthread_mutex_unlock(&l->mu);
    return r;
}

static bool loggable(const char *s)
{
    return *s && !strpbrk(s, " \n\r\t");
}

int tg_statelog_put_stage(tg_statelog *l, const tg_stage_rec *rec, tg_err *err)
{
    bool ok = loggable(rec->id);
    for (size_t i = 0; ok && i < rec->nin; i++)
        ok = loggable(rec->in[i].name);
    for (size_t i = 0; ok && i < rec->nout; i++)
        ok = loggable(rec->out[i].name);
    for (size_t i = 0; ok && i < rec->ndep; i++)
        ok = loggable(rec->dep[i].name);
    if (!ok)
        return tg_err_set(err, "stage %s: a name or path with white space cannot be recorded",
                          rec->id);
    pthread_mutex_lock(&l->mu);
    tg_stage_rec *r = tg_arena_alloc(&l->arena, sizeof *r);
    r->id = arena_str(&l->arena, rec->id, strlen(rec->id));
    r->key = rec->key;
    r->in = copy_list(l, rec->in, r->nin = rec->nin);
    r->out = copy_list(l, rec->out, r->nout = rec->nout);
    r->dep = copy_list(l, rec->dep, r->ndep = rec->ndep);
    tg_strmap_put(&l->stages, r->id, r);
    tg_buf b = TG_BUF_INIT;
    fmt_stage(&b, r);
    int rc = append(l, &b, err);
    pthread_mutex_unlock(&l->mu);
    tg_buf_free(&b);
    return rc;
}

int tg_statelog_drop_stage(tg_statelog *l, const char *id, tg_err *err)
{
    pthread_mutex_lock(&l->mu);
    int rc = 0;
    if (tg_strmap_get(&l->stages, id)) {
        tg_strmap_del(&l->stages, id);
        tg_buf b = TG_BUF_INIT;
        tg_buf_printf(&b, "x %s\n", id);
        rc = append(l, &b, err);
        tg_buf_free(&b);
    }
    pthread_mutex_unlock(&l->mu);
    return rc;
}

void tg_statelog_stage_ids(tg_statelog *l, tg_strv *out)
{
    pthread_mutex_lock(&l->mu);
    size_t i = 0;
    const char *k;
    void *v;
    while (tg_strmap_next(&l->stages, &i, &k, &v))
        tg_strv_push(out, k);
    pthread_mutex_unlock(&l->mu);
    tg_strv_sort(out);
}

bool tg_statelog_config_checked(tg_statelog *l, tg_hash h)
{
    pthread_mutex_lock(&l->mu);
    bool ok = l->have_config && tg_hash_eq(l->config, h);
    pthread_mutex_unlock(&l->mu);
    return ok;
}

int tg_statelog_set_config_checked(tg_statelog *l, tg_hash h, tg_err *err)
{
    pthread_mutex_lock(&l->mu);
    l->have_config = true;
    l->config = h;
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "c ");
    put_hash(&b, h);
    tg_buf_putc(&b, '\n');
    int rc = append(l, &b, err);
    tg_buf_free(&b);
    pthread_mutex_unlock(&l->mu);
    return rc;
}

/* ---- the end of a build -------------------------------------------------------------------- */

/* About how large the log would be rewritten (an estimate is enough to decide). */
static size_t live_bytes(const tg_statelog *l)
{
    size_t n = sizeof LOG_HEADER + 36, i = 0;
    const char *k;
    void *v;
    while (tg_strmap_next(&l->files, &i, &k, &v))
        n += strlen(k) + 90;
    i = 0;
    while (tg_strmap_next(&l->stages, &i, &k, &v)) {
        const tg_stage_rec *r = v;
        n += strlen(r->id) + 50;
        for (size_t j = 0; j < r->nin; j++)
            n += strlen(r->in[j].name) + 34;
        for (size_t j = 0; j < r->nout; j++)
            n += strlen(r->out[j].name) + 34;
        for (size_t j = 0; j < r->ndep; j++)
            n += strlen(r->dep[j].name) + 34;
    }
    return n;
}

static void settle(tg_statelog *l)
{
    int64_t newest = 0;
    size_t n = 0;
    for (size_t i = 0; i < l->npend; i++) {
        fentry *e = l->pend[i];
        if (e->settle && !e->trusted) {
            n++;
            if (last_change(e) > newest)
                newest = last_change(e);
        }
    }
    if (!n)
        return;
    /* Wait for the clock to leave the tick of the newest change (one tick: a few ms). Files
     * stamped in the future (clock skew, a network file system) are not waited for: they stay
     * untrusted and are hashed again by the next build. */
    if (newest > tg_clock_coarse_ns() + 50 * 1000000)
        return;
    for (int tries = 0; tg_clock_coarse_ns() <= newest && tries < 100; tries++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    for (size_t i = 0; i < l->npend; i++) {
        fentry *e = l->pend[i];
        if (!e->settle || e->trusted)
            continue;
        e->settle = false;
        tg_hash h;
        struct stat st;
        bool trusted;
        tg_err ignore = {0};
        if (hash_path(l->root, e->path, &h, &st, &trusted, &ignore) == 1) {
            e->hash = h; /* if someone changed it meanwhile, the stage record tells */
            set_stat(e, &st);
            e->trusted = trusted;
        }
    }
}

int tg_statelog_finish(tg_statelog *l, bool do_settle, tg_err *err)
{
    pthread_mutex_lock(&l->mu);
    int rc = 0;
    if (l->writable) {
        if (do_settle)
            settle(l);
        if (l->rewrite || (l->appended && l->bytes > COMPACT_MIN_BYTES &&
                           l->bytes > COMPACT_RATIO * live_bytes(l))) {
            rc = rewrite_log(l, err);
        } else if (l->npend) {
            tg_buf b = TG_BUF_INIT;
            for (size_t i = 0; i < l->npend; i++) {
                fmt_file(&b, l->pend[i]);
                l->pend[i]->pending = false;
            }
            l->npend = 0;
            rc = append(l, &b, err);
            tg_buf_free(&b);
        }
    }
    pthread_mutex_unlock(&l->mu);
    return rc;
}
