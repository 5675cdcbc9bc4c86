/*
 * session.c — code sessions (session.h): the store, the handles, expiry, and the files a call
 * of a session changed. The interpreter itself is runner_session.py's business; the sandbox
 * and its supervision are run/warm.c's.
 */
#define _GNU_SOURCE
#include "run/session.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/strvec.h"
#include "run/sandbox_int.h"
#include "run/warm.h"

#define SESSION_DIR "s" /* the session's directory below /work */

typedef struct sess {
    char id[TG_SESSION_ID_MAX];
    char lang[16];
    uint64_t client;
    tg_warm *w;
    tg_strv argv, env; /* the sandbox command's strings, owned */
    tg_path_args paths; /* its read-only mounts (the data directories), owned */
    tg_strv skip;       /* their mount points below the session's directory, not its files */
    tg_sandbox_cmd cmd;
    double created, last; /* tg_now_ms() */
    long calls;
    bool busy;
} sess;

typedef struct tomb {
    char id[TG_SESSION_ID_MAX];
    tg_session_status why; /* EXPIRED or CLOSED */
    bool broke;            /* CLOSED because its sandbox ended on its own */
    bool orphaned;         /* CLOSED because its client's connection ended */
    double when;
    long idle_min;
} tomb;

struct tg_sessions {
    pthread_mutex_t mu;
    const tg_sandbox_config *c;
    size_t max, per_client;
    long idle_ms;
    sess **v;
    size_t n;
    tomb tombs[TG_SESSION_TOMBS];
    size_t n_tombs, next_tomb;
    char instance[TG_SESSION_INSTANCE_LEN + 1]; /* in every handle: whose sessions they are */
    char *route; /* after the handles' "."; NULL: none (under mu) */
};

/* n random bytes as 2n hex digits into out. */
static void random_hex(char *out, size_t n)
{
    unsigned char rnd[32];
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(rnd + got, n - got, 0);
        if (k > 0)
            got += (size_t)k;
        else if (errno != EINTR)
            abort(); /* cannot happen for 32 bytes or fewer once the pool is ready */
    }
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", rnd[i]);
}

const char *tg_sessions_instance(const tg_sessions *s)
{
    return s->instance;
}

/* "sess_" + instance + "_" + 32 hex digits + "." + route + NUL */
#define ROUTE_MAX (TG_SESSION_ID_MAX - 5 - TG_SESSION_INSTANCE_LEN - 1 - 32 - 2)

void tg_sessions_set_route(tg_sessions *s, const char *route)
{
    pthread_mutex_lock(&s->mu);
    free(s->route);
    s->route = route && *route && strlen(route) <= ROUTE_MAX ? xstrdup(route) : NULL;
    pthread_mutex_unlock(&s->mu);
}

tg_sessions *tg_sessions_new(const tg_sandbox_config *c, size_t max, size_t per_client,
                             long idle_ms)
{
    tg_sessions *s = xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->c = c;
    s->max = max ? max : TG_SESSIONS_MAX_DEFAULT;
    s->per_client = per_client ? per_client : TG_SESSIONS_PER_CLIENT_DEFAULT;
    s->idle_ms = idle_ms > 0 ? idle_ms : TG_SESSION_IDLE_MS_DEFAULT;
    s->v = xcalloc(s->max, sizeof *s->v);
    random_hex(s->instance, TG_SESSION_INSTANCE_LEN / 2);
    return s;
}

static void sess_free(sess *x)
{
    tg_warm_stop(x->w);
    tg_strv_free(&x->argv);
    tg_strv_free(&x->env);
    tg_path_args_free(&x->paths);
    tg_strv_free(&x->skip);
    free(x);
}

void tg_sessions_free(tg_sessions *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        sess_free(s->v[i]);
    free(s->v);
    free(s->route);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

size_t tg_sessions_max(const tg_sessions *s)
{
    return s->max;
}

long tg_sessions_idle_ms(const tg_sessions *s)
{
    return s->idle_ms;
}

/* ---- the table (with mu held) --------------------------------------------------------------- */

static void bury(tg_sessions *s, const sess *x, tg_session_status why)
{
    tomb *t = &s->tombs[s->next_tomb];
    snprintf(t->id, sizeof t->id, "%s", x->id);
    t->why = why;
    t->broke = t->orphaned = false;
    t->when = tg_now_ms();
    t->idle_min = s->idle_ms / 60000;
    s->next_tomb = (s->next_tomb + 1) % TG_SESSION_TOMBS;
    if (s->n_tombs < TG_SESSION_TOMBS)
        s->n_tombs++;
}

/* Takes entry i out of the table (the caller stops it outside the lock). */
static sess *unlink_at(tg_sessions *s, size_t i)
{
    sess *x = s->v[i];
    s->v[i] = s->v[--s->n];
    s->v[s->n] = NULL;
    return x;
}

static size_t find(const tg_sessions *s, const char *id)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i]->id, id) == 0)
            return i;
    return (size_t)-1;
}

/* Moves the idle ones (not busy) into out (capacity s->max); returns how many. */
static size_t take_expired(tg_sessions *s, sess **out)
{
    size_t n = 0;
    double now = tg_now_ms();
    for (size_t i = 0; i < s->n;) {
        sess *x = s->v[i];
        if (!x->busy && now - x->last > (double)s->idle_ms) {
            bury(s, x, TG_SESSION_EXPIRED);
            out[n++] = unlink_at(s, i);
        } else {
            i++;
        }
    }
    return n;
}

size_t tg_sessions_sweep(tg_sessions *s)
{
    sess **gone = xcalloc(s->max, sizeof *gone);
    pthread_mutex_lock(&s->mu);
    size_t n = take_expired(s, gone);
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n; i++)
        sess_free(gone[i]);
    free(gone);
    return n;
}

/* Why id is not an open session of client: expired, closed or unknown, said so in err. */
static tg_session_status why_not(const tg_sessions *s, const char *id, tg_err *err)
{
    for (size_t k = 0; k < s->n_tombs; k++) {
        const tomb *t = &s->tombs[k];
        if (strcmp(t->id, id) != 0)
            continue;
        long ago = (long)((tg_now_ms() - t->when) / 1000);
        if (t->why == TG_SESSION_EXPIRED)
            tg_err_set(err, "session %s expired %ld s ago after %ld minutes without a call: its "
                            "variables, imports and files are gone and it cannot be revived. "
                            "Call create_session for a new one and run the setup code again "
                            "(imports, loading data) before continuing", id, ago, t->idle_min);
        else if (t->orphaned)
            tg_err_set(err, "session %s ended %ld s ago with the MCP session of the client that "
                            "created it: its state is gone. Call create_session for a new one "
                            "and run the setup again", id, ago);
        else if (t->broke)
            tg_err_set(err, "session %s ended %ld s ago when its sandbox stopped unexpectedly: "
                            "its state is gone. Call create_session for a new one and run the "
                            "setup again", id, ago);
        else
            tg_err_set(err, "session %s was closed %ld s ago (close_session): its state is gone. "
                            "Call create_session for a new one, or leave session_id out for a "
                            "one-shot program", id, ago);
        return t->why;
    }
    size_t pre = strlen("sess_"), len = TG_SESSION_INSTANCE_LEN, n = strcspn(id, ".");
    if (n == pre + len + 1 + 32 && strncmp(id, "sess_", pre) == 0 && id[pre + len] == '_' &&
        strncmp(id + pre, s->instance, len) != 0) {
        /* a handle with a route that verified was handed on by serve before it got here */
        tg_err_set(err, "session %.*s lives in another toolgen serve process (instance %.*s; "
                        "this is instance %s), or in an earlier run of this one: a code "
                        "session's interpreter runs in the process that created it. Behind a "
                        "load balancer, the instances must share TOOLGEN_SERVE_STATE_KEY (and "
                        "reach each other) for a call to be handed on to the instance its handle "
                        "names (docs/scale.md#code-sessions); or call create_session here for a "
                        "new one", (int)n, id, (int)len, id + pre, s->instance);
        return TG_SESSION_UNKNOWN;
    }
    tg_err_set(err, "unknown session %s: no open session of yours has this id (sessions end when "
                    "the server stops, and an id works only for the client that created it). "
                    "Call create_session for a new one, or leave session_id out for a one-shot "
                    "program", id);
    return TG_SESSION_UNKNOWN;
}

/* The open session id of client with mu held, or NULL with the reason in err. */
static sess *lookup(tg_sessions *s, const char *id, uint64_t client, tg_session_status *st,
                    tg_err *err)
{
    size_t i = find(s, id);
    if (i == (size_t)-1 || (s->v[i]->client && s->v[i]->client != client)) {
        *st = why_not(s, id, err);
        return NULL;
    }
    *st = TG_SESSION_OK;
    return s->v[i];
}

/* "sess_a, sess_b" of client's open sessions, or "none" (heap); with mu held. */
static char *sessions_of(const tg_sessions *s, uint64_t client)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < s->n; i++)
        if (!s->v[i]->client || s->v[i]->client == client)
            tg_buf_printf(&b, "%s%s", b.len ? ", " : "", s->v[i]->id);
    if (!b.len)
        tg_buf_puts(&b, "none");
    return tg_buf_steal(&b);
}

/* ---- create and close ----------------------------------------------------------------------- */

/* "sess_", the store's instance, "_" and 32 random hex digits; then "." and the route, if
 * any. With mu held. */
static void new_id(const tg_sessions *s, char id[TG_SESSION_ID_MAX])
{
    char rnd[33];
    random_hex(rnd, 16);
    snprintf(id, TG_SESSION_ID_MAX, "sess_%s_%s%s%s", s->instance, rnd, s->route ? "." : "",
             s->route ? s->route : "");
}

static void copy_strs(tg_strv *to, const char *const *from)
{
    for (size_t i = 0; from && from[i]; i++)
        tg_strv_push(to, from[i]);
}

/* The mounts of from into x (deep), and the mount points below /work/s to leave out of its
 * files. */
static void copy_paths(sess *x, const tg_path_args *from)
{
    static const char prefix[] = TG_SANDBOX_WORK "/" SESSION_DIR "/";
    size_t n = from ? from->n : 0;
    x->paths.v = n ? xcalloc(n, sizeof *x->paths.v) : NULL;
    x->paths.n = n;
    for (size_t i = 0; i < n; i++) {
        const tg_path_arg *a = &from->v[i];
        x->paths.v[i] = (tg_path_arg){.name = xstrdup(a->name ? a->name : ""),
                                      .value = xstrdup(a->value ? a->value : ""),
                                      .host = xstrdup(a->host), .inside = xstrdup(a->inside),
                                      .is_dir = a->is_dir};
        if (tg_str_startswith(a->inside, prefix))
            tg_strv_push(&x->skip, a->inside + strlen(prefix));
    }
}

tg_session_status tg_session_create(tg_sessions *s, const char *lang, const tg_sandbox_cmd *cmd,
                                    uint64_t client, char id[TG_SESSION_ID_MAX],
                                    tg_sandbox_status *sb_status, tg_err *err)
{
    tg_sessions_sweep(s);
    *sb_status = TG_SANDBOX_OK;
    if (s->c->isolation != TG_ISOLATION_BWRAP) {
        tg_err_set(err, "sessions need the bubblewrap sandbox (sandbox.isolation: bwrap in "
                        "toolgen.yaml); without it, run one-shot programs (no session_id)");
        return TG_SESSION_START;
    }
    pthread_mutex_lock(&s->mu);
    size_t own = 0;
    for (size_t i = 0; client && i < s->n; i++)
        own += s->v[i]->client == client;
    if (s->n >= s->max || own >= s->per_client) {
        char *mine = sessions_of(s, client);
        if (own >= s->per_client)
            tg_err_set(err, "too many sessions: you have %zu open, the most one client may "
                            "(yours: %s). Close one you no longer need with close_session, or "
                            "run one-shot programs without session_id", own, mine);
        else
            tg_err_set(err, "too many sessions: %zu are open, the most this server keeps "
                            "(yours: %s). Close one you no longer need with close_session, or "
                            "run one-shot programs without session_id", s->n, mine);
        free(mine);
        pthread_mutex_unlock(&s->mu);
        return TG_SESSION_FULL;
    }
    sess *x = xcalloc(1, sizeof *x);
    s->v[s->n++] = x; /* holds the place while the sandbox starts, outside the lock */
    x->busy = true;
    new_id(s, x->id);
    pthread_mutex_unlock(&s->mu);

    snprintf(x->lang, sizeof x->lang, "%s", lang);
    x->client = client;
    copy_strs(&x->argv, cmd->argv);
    copy_strs(&x->env, cmd->env);
    x->cmd = *cmd;
    x->cmd.argv = (const char *const *)x->argv.v;
    x->cmd.env = (const char *const *)x->env.v;
    copy_paths(x, cmd->paths);
    x->cmd.paths = &x->paths;
    x->cmd.cwd = NULL;
    x->cmd.cancel = NULL;
    x->cmd.tool_dir = x->cmd.tool_link = NULL;
    *sb_status = tg_warm_start(s->c, &x->cmd, &x->w, err); /* /work/s: made by its first call */
    pthread_mutex_lock(&s->mu);
    x->busy = false;
    x->created = x->last = tg_now_ms();
    if (*sb_status != TG_SANDBOX_OK)
        unlink_at(s, find(s, x->id));
    else
        snprintf(id, TG_SESSION_ID_MAX, "%s", x->id);
    pthread_mutex_unlock(&s->mu);
    if (*sb_status != TG_SANDBOX_OK) {
        sess_free(x);
        return TG_SESSION_START;
    }
    return TG_SESSION_OK;
}

size_t tg_sessions_end_client(tg_sessions *s, uint64_t client)
{
    if (!s || !client)
        return 0;
    sess **gone = xcalloc(s->max, sizeof *gone);
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->n;) {
        if (s->v[i]->client == client && !s->v[i]->busy) {
            bury(s, s->v[i], TG_SESSION_CLOSED);
            s->tombs[(s->next_tomb + TG_SESSION_TOMBS - 1) % TG_SESSION_TOMBS].orphaned = true;
            gone[n++] = unlink_at(s, i);
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n; i++)
        sess_free(gone[i]);
    free(gone);
    return n;
}

tg_session_status tg_session_close(tg_sessions *s, const char *id, uint64_t client, tg_err *err)
{
    tg_sessions_sweep(s);
    tg_session_status st;
    pthread_mutex_lock(&s->mu);
    sess *x = lookup(s, id, client, &st, err);
    if (x && x->busy) {
        tg_err_set(err, "session %s is running a program: wait for its result, then close it", id);
        st = TG_SESSION_BUSY;
        x = NULL;
    }
    if (x) {
        bury(s, x, TG_SESSION_CLOSED);
        unlink_at(s, find(s, id));
    }
    pthread_mutex_unlock(&s->mu);
    if (x)
        sess_free(x);
    return st;
}

cJSON *tg_session_info(tg_sessions *s, const char *id, uint64_t client)
{
    tg_err ignored = {0};
    tg_session_status st;
    pthread_mutex_lock(&s->mu);
    sess *x = lookup(s, id, client, &st, &ignored);
    cJSON *o = NULL;
    if (x) {
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "session_id", x->id);
        cJSON_AddStringToObject(o, "runtime", x->lang);
        cJSON_AddNumberToObject(o, "idle_timeout_s", (double)(s->idle_ms / 1000));
        cJSON_AddNumberToObject(o, "calls", (double)x->calls);
        cJSON_AddNumberToObject(o, "open_sessions", (double)s->n);
        cJSON_AddNumberToObject(o, "max_sessions", (double)s->max);
    }
    pthread_mutex_unlock(&s->mu);
    return o;
}

/* ---- a call: the files it created or changed ------------------------------------------------ */

/* The files below dir with their change stamps ("path\tmtime_ns\tsize\tino"), sorted;
 * the mount points of skip left out. */
static void stamps(const char *dir, const tg_strv *skip, tg_strv *out)
{
    tg_sandbox_result listing = {0};
    sb_collect_files(dir, (const char *const *)skip->v, skip->n, &listing);
    for (size_t i = 0; i < listing.n_files; i++) {
        char *p = tg_path_join(dir, listing.files[i].path);
        struct stat st;
        if (lstat(p, &st) == 0)
            tg_strv_pushf(out, "%s\t%lld.%09ld\t%lld\t%llu", listing.files[i].path,
                          (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                          (long long)st.st_size, (unsigned long long)st.st_ino);
        free(p);
    }
    tg_sandbox_result_free(&listing);
}

static bool has(const tg_strv *v, const char *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i], s) == 0)
            return true;
    return false;
}

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    char buf[65536];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (tg_write_all(out, buf, (size_t)n) != 0)
            n = -1;
    close(in);
    if (out >= 0)
        close(out);
    return out >= 0 && n == 0 ? 0 : -1;
}

/* Copies the files of dir not in before (changed or new) below copy; parents made. */
static void copy_changed(const char *dir, const tg_strv *skip, const tg_strv *before,
                         const char *copy)
{
    tg_strv after = TG_STRV_INIT;
    stamps(dir, skip, &after);
    for (size_t i = 0; i < after.n; i++) {
        if (has(before, after.v[i]))
            continue;
        char *rel = xstrdup(after.v[i]);
        *strchr(rel, '\t') = '\0';
        char *to = tg_path_join(copy, rel);
        for (char *sl = strchr(to + strlen(copy) + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
            *sl = '\0';
            mkdir(to, 0700);
            *sl = '/';
        }
        char *from = tg_path_join(dir, rel);
        copy_file(from, to);
        free(from);
        free(to);
        free(rel);
    }
    tg_strv_free(&after);
}

/* A directory for the call's files, named as a call's work directory is (sandbox_int.h). */
static char *call_copy_dir(const tg_sessions *s)
{
    char *tmpl = xasprintf("%s/" SB_CALL_PREFIX "%d-XXXXXX", s->c->tmp_dir, (int)getpid());
    if (!mkdtemp(tmpl)) {
        free(tmpl);
        return NULL;
    }
    char *work = xasprintf("%s.work", tmpl);
    if (rename(tmpl, work) != 0) {
        rmdir(tmpl);
        free(work);
        work = NULL;
    }
    free(tmpl);
    return work;
}

tg_session_status tg_session_run(tg_sessions *s, const char *id, uint64_t client,
                                 const char *lang, const tg_sandbox_cmd *cmd,
                                 tg_sandbox_result *res, bool *restarted,
                                 tg_sandbox_status *sb_status, tg_err *err)
{
    tg_sessions_sweep(s);
    *restarted = false;
    *sb_status = TG_SANDBOX_OK;
    tg_session_status st;
    pthread_mutex_lock(&s->mu);
    sess *x = lookup(s, id, client, &st, err);
    if (x && x->busy) {
        tg_err_set(err, "session %s is already running a program: sessions run one program at a "
                        "time; wait for its result, or use another session", id);
        st = TG_SESSION_BUSY;
    } else if (x && lang && strcmp(x->lang, lang) != 0) {
        tg_err_set(err, "session %s runs %s, not %s: use %s_execute with it, or create a %s "
                        "session", id, x->lang, lang, x->lang, lang);
        st = TG_SESSION_LANG;
    } else if (x) {
        x->busy = true;
    }
    pthread_mutex_unlock(&s->mu);
    if (st != TG_SESSION_OK)
        return st;

    char *dir = tg_path_join(tg_warm_workdir(x->w), SESSION_DIR);
    tg_strv before = TG_STRV_INIT;
    stamps(dir, &x->skip, &before);
    tg_warm_call call = {.request = cmd->request, .request_len = cmd->request_len,
                         .subdir = SESSION_DIR, .limits = cmd->limits, .cancel = cmd->cancel,
                         .reply_watch = cmd->reply_watch, .keep_dir = true};
    *sb_status = tg_warm_run(x->w, &call, res, err);
    if (*sb_status == TG_SANDBOX_OK) {
        *restarted = tg_warm_restarted(x->w);
        res->workdir = call_copy_dir(s);
        if (res->workdir) {
            copy_changed(dir, &x->skip, &before, res->workdir);
            sb_collect_files(res->workdir, NULL, 0, res);
        }
    }
    tg_strv_free(&before);
    free(dir);

    pthread_mutex_lock(&s->mu);
    x->busy = false;
    x->calls++;
    x->last = tg_now_ms();
    sess *broken = NULL;
    if (*sb_status != TG_SANDBOX_OK) { /* the sandbox itself ended: so did the session */
        bury(s, x, TG_SESSION_CLOSED);
        s->tombs[(s->next_tomb + TG_SESSION_TOMBS - 1) % TG_SESSION_TOMBS].broke = true;
        broken = unlink_at(s, find(s, id));
    }
    pthread_mutex_unlock(&s->mu);
    if (broken)
        sess_free(broken);
    return TG_SESSION_OK;
}

/* ---- files put by toolgen ------------------------------------------------------------------- */

/* The session directory's descriptor below the work tmpfs at work (made, owned like work,
 * when no program ran yet), never through a link. -1 with err. */
static int session_dirfd(const char *work, tg_err *err)
{
    int wfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (wfd < 0 || fstat(wfd, &st) != 0) {
        if (wfd >= 0)
            close(wfd);
        tg_err_set(err, "the session's working directory is gone: %s", strerror(errno));
        return -1;
    }
    if (mkdirat(wfd, SESSION_DIR, 0700) == 0 && geteuid() == 0)
        (void)fchownat(wfd, SESSION_DIR, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW);
    int dfd = openat(wfd, SESSION_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        tg_err_set(err, "cannot open the session's working directory: %s", strerror(errno));
    close(wfd);
    return dfd;
}

/* Writes data into a new file of dfd and renames it to name; 0, or -1 with err. */
static int write_into(int dfd, const char *name, const void *data, size_t len, tg_err *err)
{
    struct stat st;
    if (fstat(dfd, &st) != 0)
        return tg_err_set(err, "cannot read the session's directory: %s", strerror(errno));
    char tmp[64];
    int fd = -1;
    for (int i = 0; i < 100 && fd < 0; i++) {
        snprintf(tmp, sizeof tmp, ".toolgen-put-%d-%d", (int)getpid(), i);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return tg_err_set(err, "cannot create a file in the session's directory: %s",
                          strerror(errno));
    const char *p = data;
    size_t left = len;
    int rc = 0;
    while (left && rc == 0) {
        ssize_t n = write(fd, p, left);
        if (n > 0) {
            p += n;
            left -= (size_t)n;
        } else if (n < 0 && errno != EINTR) {
            rc = tg_err_set(err, "writing %s into the session's directory failed: %s%s", name,
                            strerror(errno), errno == ENOSPC ? " (its disk budget is used up: "
                            "delete files there, or start a new session)" : "");
        }
    }
    if (geteuid() == 0)
        (void)fchown(fd, st.st_uid, st.st_gid); /* its programs run as the directory's owner */
    if (close(fd) != 0 && rc == 0)
        rc = tg_err_set(err, "writing %s failed: %s", name, strerror(errno));
    /* rename replaces a link of that name, never follows it */
    if (rc == 0 && renameat(dfd, tmp, dfd, name) != 0)
        rc = tg_err_set(err, "cannot save %s in the session's directory: %s%s", name,
                        strerror(errno), errno == EISDIR || errno == ENOTEMPTY
                                             ? " (a folder has that name: choose another)" : "");
    if (rc != 0)
        unlinkat(dfd, tmp, 0);
    return rc;
}

tg_session_status tg_session_put_file(tg_sessions *s, const char *id, uint64_t client,
                                      const char *name, const void *data, size_t len,
                                      tg_err *err)
{
    tg_sessions_sweep(s);
    tg_session_status st;
    pthread_mutex_lock(&s->mu);
    sess *x = lookup(s, id, client, &st, err);
    if (x && x->busy) {
        tg_err_set(err, "session %s is running a program: wait for its result, then fetch "
                        "again", id);
        st = TG_SESSION_BUSY;
    }
    bool mount_point = false;
    for (size_t i = 0; x && name && i < x->skip.n; i++) {
        size_t n = strcspn(x->skip.v[i], "/");
        mount_point |= strlen(name) == n && strncmp(name, x->skip.v[i], n) == 0;
    }
    if (st == TG_SESSION_OK && data && (mount_point || !name || !*name || strchr(name, '/') ||
                                        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)) {
        tg_err_set(err, "'%s' cannot be a file of the session: %s", name ? name : "",
                   mount_point ? "a data directory has that name" : "give one file name");
        st = TG_SESSION_LANG;
    }
    if (st == TG_SESSION_OK && data)
        x->busy = true;
    pthread_mutex_unlock(&s->mu);
    if (st != TG_SESSION_OK || !data)
        return st;
    int dfd = session_dirfd(tg_warm_workdir(x->w), err);
    int rc = dfd < 0 ? -1 : write_into(dfd, name, data, len, err);
    if (dfd >= 0)
        close(dfd);
    pthread_mutex_lock(&s->mu);
    x->busy = false;
    x->last = tg_now_ms();
    pthread_mutex_unlock(&s->mu);
    return rc == 0 ? TG_SESSION_OK : TG_SESSION_START;
}

const char *tg_session_code(tg_session_status st)
{
    switch (st) {
    case TG_SESSION_OK: return NULL;
    case TG_SESSION_UNKNOWN:
    case TG_SESSION_EXPIRED:
    case TG_SESSION_CLOSED: return "NOT_FOUND";
    case TG_SESSION_BUSY: return "CONFLICT";
    case TG_SESSION_FULL: return "RATE_LIMITED";
    case TG_SESSION_LANG: return "INVALID_INPUT";
    case TG_SESSION_START: return "INTERNAL_ERROR";
    }
    return "INTERNAL_ERROR";
}

const char *tg_session_type(tg_session_status st)
{
    switch (st) {
    case TG_SESSION_OK: return NULL;
    case TG_SESSION_UNKNOWN: return "SESSION_NOT_FOUND";
    case TG_SESSION_EXPIRED: return "SESSION_EXPIRED";
    case TG_SESSION_CLOSED: return "SESSION_CLOSED";
    case TG_SESSION_BUSY: return "SESSION_BUSY";
    case TG_SESSION_FULL: return "SESSION_LIMIT";
    case TG_SESSION_LANG: return "SESSION_RUNTIME_MISMATCH";
    case TG_SESSION_START: return "SESSION_START_FAILED";
    }
    return "SESSION_START_FAILED";
}
