/*
 * httpfake.h — a scripted HTTP/1.1 server on loopback for the unit tests of HTTP clients
 * (net/ and what is built on it).
 *
 * One thread accepts one connection at a time, reads one request (headers and a
 * Content-Length body), records it, answers with the next answer of its script (the last one
 * repeats) and closes the connection. An answer can be delayed (it stops waiting when the
 * client hangs up, so a client's timeout costs the test nothing), dropped (closed without a
 * word), oversized, or sent without a Content-Length.
 *
 *     hf_server s;
 *     hf_start(&s);
 *     hf_answer a[] = {{.status = 503}, {.body = "ok"}};
 *     hf_script(&s, a, 2);       // also forgets the requests seen so far
 *     ... requests to http://127.0.0.1:<s.port>/ ...
 *     hf_count(&s), s.seen[i]    // what the server read
 *     hf_stop(&s);
 */
#ifndef TG_HTTPFAKE_H
#define TG_HTTPFAKE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct hf_answer {
    int status;          /* 0: 200 */
    const char *headers; /* extra header lines, each ending in "\r\n"; NULL: none */
    const char *body;    /* NULL: empty */
    size_t big;          /* > 0: a body of this many 'x' bytes instead */
    bool no_length;      /* no Content-Length: the body ends when the connection closes */
    int delay_ms;        /* wait before answering (ends early when the client hangs up) */
    bool drop;           /* close the connection without an answer */
} hf_answer;

typedef struct hf_seen {
    char method[16];
    char target[512];
    char head[4096]; /* the header lines, as received */
    char body[8192];
    size_t body_len;
} hf_seen;

#define HF_MAX_SEEN 64

typedef struct hf_server {
    int fd, port;
    pthread_t thread;
    atomic_int stop;
    pthread_mutex_t mu;
    const hf_answer *script;
    size_t nscript, next;
    hf_seen seen[HF_MAX_SEEN];
    size_t nseen;
} hf_server;

/* The value of header name in a recorded head (a static copy), or NULL. */
static inline const char *hf_header(const hf_seen *r, const char *name)
{
    static _Thread_local char v[1024];
    size_t n = strlen(name);
    for (const char *p = r->head; *p;) {
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *s = p + n + 1;
            s += strspn(s, " \t");
            snprintf(v, sizeof v, "%.*s", (int)strcspn(s, "\r\n"), s);
            return v;
        }
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return NULL;
}

static inline size_t hf_count(hf_server *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->nseen;
    pthread_mutex_unlock(&s->mu);
    return n;
}

static inline void hf_script(hf_server *s, const hf_answer *a, size_t n)
{
    pthread_mutex_lock(&s->mu);
    s->script = a;
    s->nscript = n;
    s->next = 0;
    s->nseen = 0;
    pthread_mutex_unlock(&s->mu);
}

/* Reads one request into r; 0, or -1 when the client sent no complete one. */
static inline int hf_read_request(int c, hf_seen *r)
{
    char buf[16384];
    size_t len = 0;
    char *end = NULL;
    while (!end) {
        ssize_t k = recv(c, buf + len, sizeof buf - 1 - len, 0);
        if (k <= 0)
            return -1;
        len += (size_t)k;
        buf[len] = 0;
        end = strstr(buf, "\r\n\r\n");
        if (!end && len == sizeof buf - 1)
            return -1;
    }
    memset(r, 0, sizeof *r);
    sscanf(buf, "%15s %511s", r->method, r->target);
    const char *h = strstr(buf, "\r\n") + 2;
    snprintf(r->head, sizeof r->head, "%.*s", (int)(end + 2 - h), h);
    const char *cl = hf_header(r, "Content-Length");
    size_t want = cl ? (size_t)strtoul(cl, NULL, 10) : 0;
    if (want > sizeof r->body)
        want = sizeof r->body;
    if (hf_header(r, "Expect"))
        send(c, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
    size_t have = len - (size_t)(end + 4 - buf);
    memcpy(r->body, end + 4, have < want ? have : want);
    r->body_len = have < want ? have : want;
    while (r->body_len < want) {
        ssize_t k = recv(c, r->body + r->body_len, want - r->body_len, 0);
        if (k <= 0)
            return -1;
        r->body_len += (size_t)k;
    }
    return 0;
}

static inline void hf_answer_one(int c, const hf_seen *r, const hf_answer *a)
{
    if (a->delay_ms > 0) { /* readable means the client closed: stop waiting */
        struct pollfd p = {.fd = c, .events = POLLIN};
        poll(&p, 1, a->delay_ms);
    }
    if (a->drop)
        return;
    size_t blen = a->big ? a->big : a->body ? strlen(a->body) : 0;
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d Scripted\r\n", a->status ? a->status : 200);
    send(c, head, (size_t)n, MSG_NOSIGNAL);
    if (a->headers)
        send(c, a->headers, strlen(a->headers), MSG_NOSIGNAL);
    n = 0;
    if (!a->no_length)
        n += snprintf(head + n, sizeof head - (size_t)n, "Content-Length: %zu\r\n", blen);
    n += snprintf(head + n, sizeof head - (size_t)n, "Connection: close\r\n\r\n");
    send(c, head, (size_t)n, MSG_NOSIGNAL);
    if (strcmp(r->method, "HEAD") == 0)
        return;
    if (!a->big) {
        send(c, a->body ? a->body : "", blen, MSG_NOSIGNAL);
        return;
    }
    char xs[4096];
    memset(xs, 'x', sizeof xs);
    for (size_t sent = 0; sent < a->big;) {
        size_t k = a->big - sent < sizeof xs ? a->big - sent : sizeof xs;
        if (send(c, xs, k, MSG_NOSIGNAL) <= 0)
            break; /* the client stopped reading (its size cap) */
        sent += k;
    }
}

static inline void *hf_main(void *ud)
{
    hf_server *s = ud;
    while (!atomic_load(&s->stop)) {
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        if (poll(&p, 1, 20) <= 0)
            continue;
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            continue;
        hf_seen r;
        if (hf_read_request(c, &r) == 0) {
            hf_answer a = {.status = 500, .body = "no script"};
            pthread_mutex_lock(&s->mu);
            if (s->nseen < HF_MAX_SEEN)
                s->seen[s->nseen++] = r;
            if (s->nscript)
                a = s->script[s->next < s->nscript ? s->next++ : s->nscript - 1];
            pthread_mutex_unlock(&s->mu);
            hf_answer_one(c, &r, &a);
        }
        shutdown(c, SHUT_WR);
        close(c);
    }
    return NULL;
}

/* Listens on 127.0.0.1, an ephemeral port (s->port); 0, or -1 when it cannot. */
static inline int hf_start(hf_server *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(s->fd, 64) != 0 || getsockname(s->fd, (struct sockaddr *)&sa, &sl) != 0)
        return -1;
    s->port = ntohs(sa.sin_port);
    return pthread_create(&s->thread, NULL, hf_main, s) == 0 ? 0 : -1;
}

static inline void hf_stop(hf_server *s)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->thread, NULL);
    close(s->fd);
    pthread_mutex_destroy(&s->mu);
}

/* A loopback port nothing listens on (bound, then closed): connecting to it is refused. */
static inline int hf_closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    close(fd);
    return ntohs(sa.sin_port);
}

#endif
