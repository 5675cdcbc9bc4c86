/* httpreq.c — libcurl behind one call (httpreq.h); docs/architecture.md. */
#include "net/httpreq.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "net/curlload.h"
#include "net/redact.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

/*
 * Connections (and resolved names) are shared by every request of the process, each handle
 * still its own: a client that sends thousands of small requests to one server (a remote
 * cache, docs/cache.md) pays for one TCP connection per thread rather than one per request.
 * curl checks a kept connection before reusing it and retries on a fresh one when the server
 * closed it.
 */
static CURLSH *share;
static pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *ud)
{
    (void)h;
    (void)a;
    (void)ud;
    pthread_mutex_lock(&share_mu[d]);
}

static void share_unlock(CURL *h, curl_lock_data d, void *ud)
{
    (void)h;
    (void)ud;
    pthread_mutex_unlock(&share_mu[d]);
}

/*
 * Each thread keeps one easy handle (reset before each request): a new handle per request
 * costs a socket pair and a dozen system calls of set-up, which a client sending thousands of
 * small requests (a remote cache) pays thousands of times. Freed when the thread ends.
 */
static pthread_key_t handle_key;

static void handle_free(void *h)
{
    curl_easy_cleanup(h);
}

static CURL *thread_handle(void)
{
    CURL *h = pthread_getspecific(handle_key);
    if (h) {
        curl_easy_reset(h);
        return h;
    }
    h = curl_easy_init();
    if (h && pthread_setspecific(handle_key, h) != 0) {
        curl_easy_cleanup(h);
        h = NULL;
    }
    return h;
}

/* After tg_curl_load (which ran curl_global_init). */
static void curl_setup(void)
{
    pthread_key_create(&handle_key, handle_free);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&share_mu[i], NULL);
    share = curl_share_init();
    if (share && (curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
                  curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
                  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT) != CURLSHE_OK ||
                  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK)) {
        curl_share_cleanup(share); /* each request then connects on its own, as before */
        share = NULL;
    }
}

static const char *const method_names[] = {"GET",    "HEAD",  "POST",   "PUT",
                                           "DELETE", "PATCH", "OPTIONS"};

const char *tg_http_method_name(tg_http_method m)
{
    return (unsigned)m < sizeof method_names / sizeof *method_names ? method_names[m] : "?";
}

bool tg_http_method_idempotent(tg_http_method m)
{
    return m != TG_HTTP_POST && m != TG_HTTP_PATCH;
}

tg_http_class tg_http_status_class(long status)
{
    if (status < 100 || status > 599)
        return TG_HTTP_CLASS_INVALID;
    return (tg_http_class)(TG_HTTP_CLASS_INFO + (status / 100 - 1));
}

/* Header names whose values are secret whatever the caller marked. */
static const char *const always_secret[] = {"authorization", "proxy-authorization", "cookie",
                                            "x-api-key", NULL};

static bool is_secret(const tg_http_header *h)
{
    for (size_t i = 0; always_secret[i]; i++)
        if (strcasecmp(h->name, always_secret[i]) == 0)
            return true;
    return h->secret;
}

static bool is_token(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
            return false;
    return true;
}

/* Frees the header lines handed to curl, wiped first: one of them may hold a key. */
static void wipe_free_slist(struct curl_slist *l)
{
    for (struct curl_slist *p = l; p; p = p->next)
        memset(p->data, 0, strlen(p->data));
    curl_slist_free_all(l);
}

/* Appends a line to curl's header list; curl copies it. Out of memory ends here, as every
 * allocation of toolgen does (base/util.h). */
static void append(struct curl_slist **l, const char *line)
{
    struct curl_slist *nl = curl_slist_append(*l, line);
    if (!nl)
        tg_oom(0);
    *l = nl;
}

/* The header list curl sends in *out; -1 with err on a bad header, named by its position or
 * name, never its value. A header without a value goes as "Name;", curl's way to send it
 * empty. */
static int header_list(const tg_http_request *rq, const char *url, struct curl_slist **out,
                       tg_err *err)
{
    struct curl_slist *l = NULL;
    bool has_type = false;
    for (size_t i = 0; i < rq->nheaders; i++) {
        const tg_http_header *h = &rq->headers[i];
        if (!h->name || !is_token(h->name)) {
            wipe_free_slist(l);
            return tg_err_set(err, "%s: request header %zu has no valid name", url, i + 1);
        }
        if (!h->value || strpbrk(h->value, "\r\n")) {
            wipe_free_slist(l);
            return tg_err_set(err, "%s: the value of request header %s is missing or has a line "
                                   "break", url, h->name);
        }
        has_type |= strcasecmp(h->name, "content-type") == 0;
        char *line = *h->value ? xasprintf("%s: %s", h->name, h->value)
                               : xasprintf("%s;", h->name);
        append(&l, line);
        memset(line, 0, strlen(line));
        free(line);
    }
    if (rq->body && !has_type)
        append(&l, "Content-Type: application/octet-stream");
    *out = l;
    return 0;
}

typedef struct sink {
    tg_buf body;
    size_t max;
    int too_big;
    const tg_http_request *rq;
    tg_http_field *fields;
    size_t nfields, cap;
    size_t head_bytes; /* of the kept headers */
    int head_too_big;
    int peer_refused; /* check_peer said no */
    char peer[64];    /* to this address */
    double retry_after;
    CURL *h;          /* for the status of a streamed response */
    int head_sent;    /* on_head was called */
    int stream_stop;  /* on_data said stop */
} sink;

/* The most bytes of response headers kept: curl bounds each line, not how many come. */
#define HEAD_MAX_BYTES ((size_t)64 << 10)

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (s->rq->on_data) { /* streamed: handed on as it comes, nothing kept */
        if (!s->head_sent) {
            long status = 0;
            curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
            s->head_sent = 1;
            if (s->rq->on_head)
                s->rq->on_head(s->rq->stream_ud, status, s->fields, s->nfields);
        }
        if (!s->rq->on_data(s->rq->stream_ud, data, len)) {
            s->stream_stop = 1;
            return 0; /* aborts the transfer */
        }
        return len;
    }
    if (s->body.len + len > s->max) {
        s->too_big = 1;
        return 0; /* aborts the transfer */
    }
    tg_buf_append(&s->body, data, len);
    return len;
}

static void drop_fields(sink *s)
{
    for (size_t i = 0; i < s->nfields; i++) {
        free(s->fields[i].name);
        free(s->fields[i].value);
    }
    s->nfields = 0;
}

static bool wanted(const tg_http_request *rq, const char *name)
{
    if (rq->all_headers)
        return true;
    for (size_t i = 0; rq->keep_headers && rq->keep_headers[i]; i++)
        if (strcasecmp(rq->keep_headers[i], name) == 0)
            return true;
    return false;
}

/* One header line of a response. A status line starts a new response (an interim 100, a
 * redirect followed): what an earlier one said is forgotten, so only the final one's remain. */
static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    sink *s = ud;
    size_t len = size * n;
    if (len >= 5 && memcmp(data, "HTTP/", 5) == 0) {
        drop_fields(s);
        s->head_bytes = 0;
        s->retry_after = -1;
        return len;
    }
    const char *colon = memchr(data, ':', len);
    if (!colon || colon == data)
        return len; /* the blank line at the end, or a line that is no header */
    char *name = xstrndup(data, (size_t)(colon - data));
    for (char *p = name; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    const char *v = colon + 1, *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    char *value = xstrndup(v, (size_t)(end - v));
    if (strcmp(name, "retry-after") == 0)
        s->retry_after = tg_http_retry_after(value, time(NULL));
    if (!wanted(s->rq, name)) {
        free(name);
        free(value);
        return len;
    }
    s->head_bytes += len;
    if (s->head_bytes > HEAD_MAX_BYTES) {
        free(name);
        free(value);
        s->head_too_big = 1;
        return 0; /* aborts the transfer */
    }
    if (s->nfields == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->fields = xrealloc(s->fields, s->cap * sizeof *s->fields);
    }
    s->fields[s->nfields++] = (tg_http_field){name, value};
    return len;
}

/* curl's progress callback, a few times a second while a transfer waits: nonzero stops it. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    const volatile sig_atomic_t *cancel = ud;
    return *cancel ? 1 : 0;
}

/* curl's hook between connecting and sending: the caller's check_peer. */
static int on_prereq(void *ud, char *ip, char *local_ip, int port, int local_port)
{
    (void)local_ip, (void)local_port;
    sink *s = ud;
    if (s->rq->check_peer(s->rq->check_peer_ud, ip, port))
        return CURL_PREREQFUNC_OK;
    s->peer_refused = 1;
    snprintf(s->peer, sizeof s->peer, "%s", ip);
    return CURL_PREREQFUNC_ABORT;
}

static tg_http_result classify(CURLcode rc, const sink *s, const char *url, tg_err *err)
{
    if (s->peer_refused) {
        tg_err_set(err, "%s: the connection to %s was refused (its address is not allowed)",
                   url, s->peer);
        return TG_HTTP_ERROR;
    }
    if (rc == CURLE_ABORTED_BY_CALLBACK && s->rq->cancel && *s->rq->cancel) {
        tg_err_set(err, "%s: cancelled", url);
        return TG_HTTP_CANCELLED;
    }
    if (s->stream_stop) {
        tg_err_set(err, "%s: the receiver of the streamed answer stopped it", url);
        return TG_HTTP_DROPPED;
    }
    if (s->too_big || rc == CURLE_FILESIZE_EXCEEDED) {
        tg_err_set(err, "%s: the answer is larger than %zu bytes", url, s->max);
        return TG_HTTP_TOO_BIG;
    }
    if (s->head_too_big) {
        tg_err_set(err, "%s: the answer's headers are larger than %zu bytes", url,
                   HEAD_MAX_BYTES);
        return TG_HTTP_TOO_BIG;
    }
    tg_err_set(err, "%s: %s", url, curl_easy_strerror(rc));
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        return TG_HTTP_TIMEOUT;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return TG_HTTP_CONNECT;
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
        return TG_HTTP_DROPPED;
    default:
        return TG_HTTP_ERROR;
    }
}

/* The method and the body. A POST, PUT or PATCH always sends a body (empty: Content-Length 0);
 * curl's POSTFIELDS carries it, with the method named when it is not POST. */
static int set_method(CURL *h, const tg_http_request *rq, const char *url, tg_err *err)
{
    tg_http_method m = rq->method;
    if ((unsigned)m >= sizeof method_names / sizeof *method_names)
        return tg_err_set(err, "%s: unknown request method %d", url, (int)m);
    if (rq->body && (m == TG_HTTP_GET || m == TG_HTTP_HEAD))
        return tg_err_set(err, "%s: a %s request has no body", url, method_names[m]);
    if (m == TG_HTTP_HEAD)
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    if (m != TG_HTTP_GET && m != TG_HTTP_HEAD && m != TG_HTTP_POST)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method_names[m]);
    if (rq->body || m == TG_HTTP_POST || m == TG_HTTP_PUT || m == TG_HTTP_PATCH) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body ? (const char *)rq->body : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)(rq->body ? rq->body_len : 0));
    }
    return 0;
}

static void set_transfer(CURL *h, const tg_http_request *rq, struct curl_slist *hl, sink *s)
{
    curl_easy_setopt(h, CURLOPT_URL, rq->url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     rq->connect_timeout_ms ? rq->connect_timeout_ms : rq->timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
    if (share)
        curl_easy_setopt(h, CURLOPT_SHARE, share);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    if (rq->max_redirects > 0) {
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(h, CURLOPT_MAXREDIRS, (long)rq->max_redirects);
    }
    /* a Content-Length above the cap fails before the body is read (a streamed body has none) */
    if (!rq->on_data)
        curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->max);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(h, CURLOPT_USERAGENT, rq->user_agent ? rq->user_agent : "toolgen");
    if (rq->check_peer) {
        curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, on_prereq);
        curl_easy_setopt(h, CURLOPT_PREREQDATA, s);
    }
    if (rq->cancel) {
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)rq->cancel);
    }
}

tg_http_result tg_http_request_send(const tg_http_request *rq, tg_http_response *out,
                                    tg_err *err)
{
    memset(out, 0, sizeof *out);
    if (!rq->url) {
        tg_err_set(err, "an HTTP request without a URL");
        return TG_HTTP_ERROR;
    }
    char url[1024];
    tg_url_redact(rq->url, url, sizeof url);
    if (!tg_curl_load(err))
        return TG_HTTP_ERROR;
    pthread_once(&curl_once, curl_setup);
    struct curl_slist *hl = NULL;
    if (header_list(rq, url, &hl, err) != 0)
        return TG_HTTP_ERROR;
    CURL *h = thread_handle();
    if (!h) {
        wipe_free_slist(hl);
        tg_err_set(err, "%s: cannot start an HTTP client", url);
        return TG_HTTP_ERROR;
    }
    sink s = {.max = rq->max_bytes ? rq->max_bytes : TG_HTTP_MAX_BYTES_DEFAULT, .rq = rq,
              .retry_after = -1, .h = h};
    tg_buf_init(&s.body, 4096);
    tg_http_result res = TG_HTTP_ERROR;
    if (set_method(h, rq, url, err) == 0) {
        set_transfer(h, rq, hl, &s);
        CURLcode rc = curl_easy_perform(h);
        res = rc == CURLE_OK ? TG_HTTP_OK : classify(rc, &s, url, err);
    }
    if (res == TG_HTTP_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
        out->len = s.body.len;
        out->body = tg_buf_steal(&s.body);
        out->headers = s.fields;
        out->nheaders = s.nfields;
        out->retry_after_s = s.retry_after;
    } else {
        tg_buf_free(&s.body);
        drop_fields(&s);
        free(s.fields);
    }
    /* the handle forgets the header list: curl_easy_reset before the next request */
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    wipe_free_slist(hl);
    return res;
}

void tg_http_response_release(tg_http_response *r)
{
    free(r->body);
    for (size_t i = 0; i < r->nheaders; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    free(r->headers);
    memset(r, 0, sizeof *r);
}

const char *tg_http_response_header(const tg_http_response *r, const char *name)
{
    for (size_t i = 0; i < r->nheaders; i++)
        if (strcasecmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}

void tg_http_mask_secrets(const tg_http_request *rq, char *text)
{
    for (size_t i = 0; i < rq->nheaders; i++) {
        const tg_http_header *h = &rq->headers[i];
        if (!h->name || !h->value || !is_secret(h))
            continue;
        /* the credentials first, so an echoed "Bearer KEY" still says which scheme it was */
        const char *cred = strchr(h->value, ' ');
        if (cred)
            tg_secret_mask(text, cred + strspn(cred, " "));
        tg_secret_mask(text, h->value);
    }
    /* the password of https://user:password@host/ */
    const char *ui;
    size_t ulen = rq->url ? tg_url_userinfo(rq->url, &ui) : 0;
    const char *colon = ulen ? memchr(ui, ':', ulen - 1) : NULL;
    if (colon) {
        char *pw = xstrndup(colon + 1, (size_t)(ui + ulen - 1 - colon - 1));
        tg_secret_mask(text, pw);
        memset(pw, 0, strlen(pw));
        free(pw);
    }
}

double tg_http_retry_after(const char *value, time_t now)
{
    while (*value == ' ' || *value == '\t')
        value++;
    if (isdigit((unsigned char)*value)) {
        /* delta-seconds; a fraction is read too, as servers send them */
        char *end;
        double v = strtod(value, &end);
        return v >= 0 ? v : -1;
    }
    if (!tg_curl_load(NULL))
        return -1;
    time_t t = curl_getdate(value, NULL);
    if (t == -1)
        return -1;
    return t > now ? (double)(t - now) : 0;
}

/* ---- URLs (curl's URL parser: the one the requests themselves use) ------------------------- */

static char *url_part(CURLU *u, CURLUPart part, unsigned flags)
{
    char *v = NULL;
    if (curl_url_get(u, part, &v, flags) != CURLUE_OK)
        return NULL;
    char *copy = xstrdup(v);
    curl_free(v);
    return copy;
}

int tg_url_parse(const char *base, const char *ref, tg_url *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    char shown[512];
    tg_url_redact(ref ? ref : "", shown, sizeof shown);
    if (!tg_curl_load(err))
        return -1;
    CURLU *u = curl_url();
    if (!u)
        return tg_err_set(err, "cannot parse URLs: out of memory");
    int rc = 0;
    if (base && curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK)
        rc = tg_err_set(err, "'%s' is not a URL", shown);
    else if (!ref || !*ref || strpbrk(ref, " \t\r\n") ||
             curl_url_set(u, CURLUPART_URL, ref, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
        rc = tg_err_set(err, "'%s' is not a URL: write it as https://host/path", shown);
    if (rc == 0) {
        out->scheme = url_part(u, CURLUPART_SCHEME, 0);
        out->host = url_part(u, CURLUPART_HOST, 0);
        char *port = url_part(u, CURLUPART_PORT, 0);
        char *dport = url_part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT);
        out->explicit_port = port != NULL;
        out->port = dport ? strtol(dport, NULL, 10) : 0;
        free(port);
        free(dport);
        char *user = url_part(u, CURLUPART_USER, 0), *pw = url_part(u, CURLUPART_PASSWORD, 0);
        out->userinfo = user || pw;
        free(user);
        free(pw);
        curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0); /* never sent; not part of what is fetched */
        out->url = url_part(u, CURLUPART_URL, 0);
        for (char *p = out->scheme; p && *p; p++)
            *p = (char)tolower((unsigned char)*p);
        for (char *p = out->host; p && *p; p++)
            *p = (char)tolower((unsigned char)*p);
        size_t n = out->host ? strlen(out->host) : 0;
        if (n > 1 && out->host[n - 1] == '.')
            out->host[n - 1] = '\0';
        if (!out->scheme || (strcmp(out->scheme, "http") != 0 && strcmp(out->scheme, "https") != 0))
            rc = tg_err_set(err, "'%s': only http:// and https:// URLs can be fetched", shown);
        else if (!out->host || !*out->host || !out->url)
            rc = tg_err_set(err, "'%s' names no host", shown);
    }
    curl_url_cleanup(u);
    if (rc != 0)
        tg_url_free(out);
    return rc;
}

void tg_url_free(tg_url *u)
{
    free(u->url);
    free(u->scheme);
    free(u->host);
    memset(u, 0, sizeof *u);
}
