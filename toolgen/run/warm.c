/*
 * warm.c — a warm sandbox (warm.h): one sandbox started like a cold call's (sandbox_exec.c's
 * steps), whose runner talks to toolgen over a socket on fd 4 (runner_warm.py has the protocol).
 * toolgen keeps the parts of supervision that must not be the runner's word: the output caps, the
 * wall clock and cancel are watched here, and the runner is only told to kill; the disk budget
 * is each call's own tmpfs, made by the sandbox's holder (work_subdirs).
 */
#define _GNU_SOURCE
#include "run/warm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "run/sandbox_int.h"

#define LINE_MAX_BYTES 4096
#define DRAIN_KEEP 8192 /* bytes of the runner's own stderr kept for error messages */

struct tg_warm {
    sb_call k;
    tg_sandbox_result zres; /* the runner's own streams (its imports may print) */
    int ctl;                /* toolgen's end of the socket */
    char line[LINE_MAX_BYTES + 1];
    size_t line_len;
    bool preloaded, broken, ready, restarted, reusable;
    bool was_ready; /* its runner said ready at least once */
    long start_wall_ms;
    char *chunk;
    char work_path[32]; /* /proc/self/fd/N of k.work_fd (tg_warm_workdir) */
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Reads the runner's own stdout/stderr so it never blocks; keeps the tail of stderr. */
static void drain(tg_warm *w, int *fd, bool keep)
{
    ssize_t n = read(*fd, w->chunk, READ_CHUNK);
    if (n <= 0) {
        if (n == 0 || (errno != EINTR && errno != EAGAIN))
            close_fd(fd);
        return;
    }
    if (!keep)
        return;
    tg_stream *s = &w->zres.err;
    size_t take = (size_t)n > DRAIN_KEEP ? DRAIN_KEEP : (size_t)n;
    if (s->len + take > DRAIN_KEEP) {
        size_t drop = s->len + take - DRAIN_KEEP;
        memmove(s->data, s->data + drop, s->len - drop);
        s->len -= drop;
    }
    s->data = xrealloc(s->data, s->len + take + 1);
    memcpy(s->data + s->len, w->chunk + (size_t)n - take, take);
    s->len += take;
    s->data[s->len] = '\0';
}

/*
 * Reads from the socket; returns a parsed line (caller deletes), or NULL: no whole line yet
 * (*eof false) or the runner went away (*eof true).
 */
static cJSON *read_line(tg_warm *w, bool *eof)
{
    *eof = false;
    char *nl = memchr(w->line, '\n', w->line_len);
    if (!nl) {
        ssize_t n = read(w->ctl, w->line + w->line_len, LINE_MAX_BYTES - w->line_len);
        if (n <= 0 && (n == 0 || (errno != EINTR && errno != EAGAIN))) {
            *eof = true;
            return NULL;
        }
        if (n > 0)
            w->line_len += (size_t)n;
        nl = memchr(w->line, '\n', w->line_len);
        if (!nl) {
            *eof = w->line_len == LINE_MAX_BYTES; /* a line this long is not the runner's */
            return NULL;
        }
    }
    size_t len = (size_t)(nl - w->line);
    tg_err ignored = {0};
    cJSON *msg = tg_json_parse(w->line, len, NULL, NULL, NULL, &ignored);
    memmove(w->line, nl + 1, w->line_len - len - 1);
    w->line_len -= len + 1;
    if (!cJSON_IsObject(msg)) {
        cJSON_Delete(msg);
        *eof = true;
        return NULL;
    }
    return msg;
}

/* The poll set every wait shares: the socket, the runner's streams and bwrap's pidfd. */
static int poll_runner(tg_warm *w, struct pollfd *pf, int n, int timeout_ms)
{
    int base = n;
    pf[n++] = (struct pollfd){w->ctl, POLLIN, 0};
    pf[n++] = (struct pollfd){w->k.p_out[0], POLLIN, 0};
    pf[n++] = (struct pollfd){w->k.p_err[0], POLLIN, 0};
    pf[n++] = (struct pollfd){w->k.pidfd, POLLIN, 0};
    int r = poll(pf, (nfds_t)n, timeout_ms);
    if (r > 0 && pf[base + 1].revents)
        drain(w, &w->k.p_out[0], false);
    if (r > 0 && pf[base + 2].revents)
        drain(w, &w->k.p_err[0], true);
    if (r > 0 && pf[base + 3].revents)
        w->broken = true; /* bwrap ended: the runner (its pid 1) is gone */
    return r;
}

static void stop_now(tg_warm *w)
{
    close_fd(&w->ctl);
    if (w->k.pid > 0) {
        struct pollfd p = {w->k.pidfd, POLLIN, 0};
        if (w->k.pidfd < 0 || poll(&p, 1, 1000) <= 0) {
            kill(-w->k.pid, SIGKILL);
            kill(w->k.pid, SIGKILL);
        }
        int st;
        waitpid(w->k.pid, &st, 0);
        w->k.pid = 0;
    }
}

/* Whether msg is the runner's "ready", taking what it says of itself. */
static bool note_ready(tg_warm *w, const cJSON *msg)
{
    if (!cJSON_IsTrue(tg_json_get(msg, "ready")))
        return false;
    w->preloaded = cJSON_IsTrue(tg_json_get(msg, "preloaded"));
    w->reusable = cJSON_IsTrue(tg_json_get(msg, "reuse")) && sb_filter_available();
    return true;
}

/* Until the runner is ready; a set cancel flag (checked every 200 ms) gives up at once. */
static tg_sandbox_status wait_ready(tg_warm *w, long wall_ms, const volatile sig_atomic_t *cancel,
                                    tg_err *err)
{
    double deadline = tg_now_ms() + (double)wall_ms;
    for (;;) {
        double left = deadline - tg_now_ms();
        if (left <= 0) {
            tg_err_set(err, "the warm runner did not finish importing the tool within %ld ms",
                       wall_ms);
            return TG_SANDBOX_INTERNAL;
        }
        if (cancel && *cancel) {
            tg_err_set(err, "cancelled while the warm runner was importing");
            return TG_SANDBOX_INTERNAL;
        }
        /* a worker that serves several calls may have sent "ready" right behind a status,
         * read with it: a whole line already here is not waited for */
        bool buffered = memchr(w->line, '\n', w->line_len) != NULL;
        struct pollfd pf[4];
        poll_runner(w, pf, 0, buffered ? 0 : left > 200 ? 201 : (int)left + 1);
        bool eof = false;
        cJSON *msg = buffered || pf[0].revents ? read_line(w, &eof) : NULL;
        if (msg) {
            bool ready = note_ready(w, msg);
            cJSON_Delete(msg);
            if (ready)
                return TG_SANDBOX_OK;
            eof = true;
        }
        if (eof || w->broken) {
            const char *why = w->zres.err.data ? w->zres.err.data : "";
            /* bwrap's own complaint (namespaces, a mount) is an environment problem */
            if (strstr(why, "bwrap:")) {
                sb_env_setup_failed(why, err);
                return TG_SANDBOX_ENV;
            }
            tg_err_set(err, "the warm runner ended before it was ready: %.300s", why);
            return TG_SANDBOX_INTERNAL;
        }
    }
}

static tg_sandbox_status wait_for(tg_warm *w, const volatile sig_atomic_t *cancel, tg_err *err)
{
    if (w->ready)
        return TG_SANDBOX_OK;
    if (w->broken) {
        tg_err_set(err, "the warm sandbox has ended");
        return TG_SANDBOX_INTERNAL;
    }
    tg_sandbox_status st = wait_ready(w, w->start_wall_ms, cancel, err);
    if (st == TG_SANDBOX_OK)
        w->ready = w->was_ready = true;
    else if (!(cancel && *cancel))
        w->broken = true;
    return st;
}

tg_sandbox_status tg_warm_wait(tg_warm *w, tg_err *err)
{
    return wait_for(w, NULL, err);
}

tg_sandbox_status tg_warm_start(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                                tg_warm **out, tg_err *err)
{
    tg_sandbox_status st = tg_warm_spawn(c, cmd, out, err);
    if (st == TG_SANDBOX_OK && (st = tg_warm_wait(*out, err)) != TG_SANDBOX_OK) {
        tg_warm_stop(*out);
        *out = NULL;
    }
    return st;
}

tg_sandbox_status tg_warm_spawn(const tg_sandbox_config *c, const tg_sandbox_cmd *cmd,
                                tg_warm **out, tg_err *err)
{
    *out = NULL;
    if (c->isolation != TG_ISOLATION_BWRAP || cmd->request || cmd->reply_channel) {
        tg_err_set(err, "a warm sandbox needs bubblewrap isolation and no request or reply fd");
        return TG_SANDBOX_INTERNAL;
    }
    tg_warm *w = xcalloc(1, sizeof *w);
    w->ctl = -1;
    w->start_wall_ms = cmd->limits.wall_ms;
    w->chunk = xmalloc(READ_CHUNK);
    sb_call_init(&w->k, c, cmd, &w->zres, err);
    int sv[2];
    tg_sandbox_status st = sb_call_open(&w->k);
    if (st == TG_SANDBOX_OK && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        tg_err_set(err, "cannot create the warm sandbox's socket: %s", strerror(errno));
        st = TG_SANDBOX_INTERNAL;
    }
    if (st == TG_SANDBOX_OK) {
        w->ctl = sv[0];
        w->k.request_fd = sv[1]; /* the child's fd 4 */
        sb_call_command(&w->k);
        st = sb_call_spawn(&w->k);
        close_fd(&w->k.request_fd);
    }
    if (st != TG_SANDBOX_OK) {
        tg_warm_stop(w);
        return st;
    }
    *out = w;
    return TG_SANDBOX_OK;
}

bool tg_warm_preloaded(const tg_warm *w)
{
    return w && w->preloaded;
}

bool tg_warm_never_ready(const tg_warm *w)
{
    return w->broken && !w->was_ready;
}

bool tg_warm_reusable(const tg_warm *w)
{
    return w && w->reusable && !w->broken;
}

bool tg_warm_restarted(const tg_warm *w)
{
    return w && w->restarted;
}

const char *tg_warm_workdir(tg_warm *w)
{
    /* /work is a tmpfs mounted in the sandbox's own namespace, so the host reaches it only
     * through the descriptor the holder passed back; its /proc link resolves into that mount */
    snprintf(w->work_path, sizeof w->work_path, "/proc/self/fd/%d", w->k.work_fd);
    return w->work_path;
}

void tg_warm_close(tg_warm *w)
{
    close_fd(&w->ctl);
    w->broken = true;
}

bool tg_warm_try_stop(tg_warm *w)
{
    close_fd(&w->ctl);
    struct pollfd p = {w->k.pidfd, POLLIN, 0};
    if (w->k.pid > 0 && (w->k.pidfd < 0 || poll(&p, 1, 0) <= 0))
        return false;
    tg_warm_stop(w);
    return true;
}

void tg_warm_stop(tg_warm *w)
{
    if (!w)
        return;
    stop_now(w);
    sb_call_close(&w->k);
    tg_sandbox_result_free(&w->zres);
    free(w->chunk);
    free(w);
}

/* ---- one call ------------------------------------------------------------------------------- */

typedef struct warm_run {
    tg_warm *w;
    const tg_warm_call *call;
    tg_sandbox_result *res;
    int out[2], errp[2], reply[2], req;
    sink sinks[3];
    bool kill_sent, done;
    bool ready_again; /* the runner's next "ready" came while the call's streams were read */
    cJSON *status;
    double start, end, deadline, done_at;
} warm_run;

/* The call's line for the runner (runner_warm.py). */
static char *call_message(const tg_warm_call *call)
{
    cJSON *o = cJSON_CreateObject();
    char *cwd = xasprintf("%s/%s", TG_SANDBOX_WORK, call->subdir);
    cJSON_AddStringToObject(o, "cwd", cwd);
    cJSON_AddStringToObject(o, "home", cwd);
    free(cwd);
    cJSON_AddNumberToObject(o, "cpu_s", (double)call->limits.cpu_s);
    cJSON_AddNumberToObject(o, "memory_mb", (double)call->limits.memory_mb);
    cJSON_AddNumberToObject(o, "output_kb", (double)call->limits.output_kb);
    cJSON_AddNumberToObject(o, "files", (double)call->limits.files);
    if (call->tool) {
        char *target = xasprintf("%s/%s", TG_WARM_TOOLS, call->tool);
        cJSON_AddStringToObject(o, "tool_link", TG_WARM_TOOL_LINK);
        cJSON_AddStringToObject(o, "tool", target);
        free(target);
    }
    cJSON *links = cJSON_AddArrayToObject(o, "links");
    for (size_t i = 0; call->links && call->links[i] && call->links[i + 1]; i += 2) {
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, cJSON_CreateString(call->links[i]));
        cJSON_AddItemToArray(pair, cJSON_CreateString(call->links[i + 1]));
        cJSON_AddItemToArray(links, pair);
    }
    char *text = tg_json_print_compact(o);
    cJSON_Delete(o);
    char *line = xasprintf("%s\n", text);
    free(text);
    return line;
}

static int send_call(warm_run *r)
{
    char *msg = call_message(r->call);
    int fds[4] = {r->out[1], r->errp[1], r->reply[1], r->req};
    char cbuf[CMSG_SPACE(sizeof fds)];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec iov = {msg, strlen(msg)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof cbuf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cm), fds, sizeof fds);
    ssize_t n;
    do
        n = sendmsg(r->w->ctl, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    int rc = n == (ssize_t)iov.iov_len ? 0 : -1; /* a short line: the socket buffer is far larger */
    free(msg);
    return rc;
}

static void kill_for(warm_run *r, tg_sandbox_limit why)
{
    if (r->kill_sent || r->done)
        return;
    r->kill_sent = true;
    r->res->killed_by = why;
    static const char kill_msg[] = "{\"kill\":true}\n";
    if (send(r->w->ctl, kill_msg, sizeof kill_msg - 1, MSG_NOSIGNAL) < 0)
        r->w->broken = true;
}

/* cancel, the wall clock, the disk budget of the call's own directory */
static void check_limits(warm_run *r, double t)
{
    if (r->done)
        return;
    if (r->call->cancel && *r->call->cancel)
        kill_for(r, TG_LIMIT_CANCEL);
    if (t >= r->deadline)
        kill_for(r, TG_LIMIT_WALL);
    /* the disk budget is the call's own tmpfs (sandbox_child.c): the kernel enforces it */
}

/* Until the runner reported the child's end and its streams closed (or 1 s after the end). */
static void supervise(warm_run *r)
{
    for (;;) {
        double t = tg_now_ms();
        /* A stream past its cap is no longer read: its writer blocks until the kill (sent by
         * the runner, later than a cold call's signal) lands, so it cannot finish first and
         * end otherwise than a cold call does (docs/sandbox.md#warm-sandboxes). */
        bool open = false;
        for (int i = 0; i < 3; i++)
            open |= r->sinks[i].fd >= 0 && !r->sinks[i].s->truncated;
        if (r->w->broken || (r->done && (!open || t - r->done_at > 1000)))
            return;
        double wait = r->done ? 1000 - (t - r->done_at) : r->deadline - t;
        if (!r->done && wait > 200)
            wait = 200; /* cancel is a flag: look at it at least this often */
        if (!r->done && r->kill_sent && wait < 50)
            wait = 50; /* told to kill: the runner answers (a session's, after its interrupt) */
        struct pollfd pf[7];
        int n = 0, idx[3];
        for (int i = 0; i < 3; i++)
            if (r->sinks[i].fd >= 0 && !r->sinks[i].s->truncated) {
                idx[n] = i;
                pf[n++] = (struct pollfd){r->sinks[i].fd, POLLIN, 0};
            }
        int base = n;
        int got = poll_runner(r->w, pf, n, wait < 0 ? 1 : (int)wait + 1);
        for (int i = 0; got > 0 && i < base; i++)
            if (pf[i].revents && !sb_sink_read(&r->sinks[idx[i]], r->w->chunk) && !r->kill_sent) {
                r->res->overflow_stream = r->sinks[idx[i]].name;
                kill_for(r, TG_LIMIT_OUTPUT);
            }
        bool eof = false;
        cJSON *msg = got > 0 && pf[base].revents ? read_line(r->w, &eof) : NULL;
        if (msg && cJSON_IsNumber(tg_json_get(msg, "status")) && !r->done) {
            r->status = msg;
            r->done = true;
            r->done_at = r->end = tg_now_ms();
        } else {
            /* a reused worker's runner says ready for the next call as soon as its child is
             * forked, maybe before this call's streams end: dropped, the next call would wait
             * for it until the start timeout */
            if (msg && r->done && note_ready(r->w, msg))
                r->ready_again = true;
            cJSON_Delete(msg);
        }
        if (eof)
            r->w->broken = true;
        check_limits(r, tg_now_ms());
    }
}

/* The child's wait status and usage, as tg_sandbox_run reports a cold call's. */
static void collect(warm_run *r)
{
    tg_sandbox_result *res = r->res;
    int ws = (int)tg_json_get_number(r->status, "status", 0);
    res->wall_ms = r->end - r->start;
    res->user_ms = tg_json_get_number(r->status, "utime", 0) * 1e3;
    res->sys_ms = tg_json_get_number(r->status, "stime", 0) * 1e3;
    res->max_rss_kb = (long)tg_json_get_number(r->status, "maxrss", 0);
    if (WIFEXITED(ws)) {
        res->exit_code = WEXITSTATUS(ws);
    } else if (WIFSIGNALED(ws)) {
        /* A cold call's tool is bwrap's child, which reports a signal as 128+N: the same. */
        res->exit_code = 128 + WTERMSIG(ws);
    }
    if (res->exit_code > 128 && res->exit_code <= 128 + 64) {
        res->signal = res->exit_code - 128;
        res->signal_inferred = true;
    }
    for (int i = 0; i < 3; i++)
        if (!r->sinks[i].s->data)
            r->sinks[i].s->data = xstrdup("");
    r->w->restarted = cJSON_IsTrue(tg_json_get(r->status, "restarted"));
    if (r->call->keep_dir)
        return;
    const tg_path_args *p = r->call->paths;
    const char **skip = xcalloc(p && p->n ? p->n : 1, sizeof *skip);
    size_t nskip = 0;
    char *prefix = xasprintf("%s/%s/", TG_SANDBOX_WORK, r->call->subdir);
    for (size_t i = 0; p && i < p->n; i++)
        if (tg_str_startswith(p->v[i].inside, prefix))
            skip[nskip++] = p->v[i].inside + strlen(prefix);
    free(prefix);
    /* The call's own tmpfs, opened while the sandbox (and so its mount) lives; the result
     * keeps it, and empties it when freed. */
    int fd = openat(r->w->k.work_fd, r->call->subdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                      O_CLOEXEC);
    sb_collect_work(res, fd, skip, nskip);
    free(skip);
    res->work_fd = fd;
    res->has_work_fd = fd >= 0;
}

static void run_close(warm_run *r)
{
    int *fds[] = {&r->out[0], &r->out[1], &r->errp[0], &r->errp[1], &r->reply[0], &r->reply[1],
                  &r->req, &r->sinks[0].fd, &r->sinks[1].fd, &r->sinks[2].fd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        close_fd(fds[i]);
    cJSON_Delete(r->status);
}

/* The call's pipes and request. The pipes are writable by anyone who may open them: a Node.js
 * worker's node opens them again through the runner's /proc/<pid>/fd (runner_warm.js; node has
 * no dup2 or SCM_RIGHTS), which only the sandbox's user can, and only while the runner lets it;
 * toolgen's own user may differ from the sandbox's (root), and a pipe is its creator's, 0600. */
static int open_call(warm_run *r)
{
    const mode_t writable = S_IRUSR | S_IWUSR | S_IWGRP | S_IWOTH;
    bool ok = pipe2(r->out, O_CLOEXEC) == 0 && pipe2(r->errp, O_CLOEXEC) == 0 &&
              pipe2(r->reply, O_CLOEXEC) == 0 && fchmod(r->out[1], writable) == 0 &&
              fchmod(r->errp[1], writable) == 0 && fchmod(r->reply[1], writable) == 0 &&
              (r->req = memfd_create("toolgen-request", MFD_CLOEXEC)) >= 0 &&
              tg_write_all(r->req, r->call->request, r->call->request_len) == 0 &&
              lseek(r->req, 0, SEEK_SET) == 0;
    return ok ? 0 : -1;
}

tg_sandbox_status tg_warm_run(tg_warm *w, const tg_warm_call *call, tg_sandbox_result *res,
                              tg_err *err)
{
    *res = (tg_sandbox_result){0};
    if (wait_for(w, call->cancel, err) != TG_SANDBOX_OK)
        return TG_SANDBOX_INTERNAL; /* cancelled while waiting: the cold call reports it */
    warm_run r = {.w = w, .call = call, .res = res, .out = {-1, -1}, .errp = {-1, -1},
                  .reply = {-1, -1}, .req = -1};
    for (int i = 0; i < 3; i++)
        r.sinks[i].fd = -1;
    if (open_call(&r) != 0) {
        tg_err_set(err, "cannot set up the call's descriptors: %s", strerror(errno));
        run_close(&r);
        return TG_SANDBOX_INTERNAL;
    }
    r.start = tg_now_ms();
    r.deadline = r.start + (double)call->limits.wall_ms;
    if (send_call(&r) != 0)
        w->broken = true;
    close_fd(&r.out[1]);
    close_fd(&r.errp[1]);
    close_fd(&r.reply[1]);
    close_fd(&r.req);
    size_t cap = (size_t)call->limits.output_kb << 10;
    tg_stream *streams[3] = {&res->out, &res->err, &res->reply};
    static const char *const names[3] = {"stdout", "stderr", "reply"};
    int *ends[3] = {&r.out[0], &r.errp[0], &r.reply[0]};
    for (int i = 0; i < 3; i++) {
        r.sinks[i] = (sink){*ends[i], streams[i], cap, names[i], NULL};
        *ends[i] = -1;
    }
    r.sinks[2].watch = &call->reply_watch;
    if (!w->broken)
        supervise(&r);
    if (w->broken || !r.done) {
        tg_err_set(err, "the warm sandbox's runner ended during a call");
        w->broken = true;
        run_close(&r);
        tg_sandbox_result_free(res);
        return TG_SANDBOX_INTERNAL;
    }
    res->isolated = true;
    collect(&r);
    run_close(&r);
    if (w->reusable) /* its runner says ready again once the next call's child is warm */
        w->ready = r.ready_again;
    return TG_SANDBOX_OK;
}
