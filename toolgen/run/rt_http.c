/*
 * rt_http.c — the http runtime's operations (runtime_ops.h): toolgen sends the request of
 * implementation.request itself, through net/ (docs/manifest.md#http). No code of the tool runs,
 * so there is no sandbox; what keeps a call in its lane is how the request is built:
 *
 *   - the scheme, host and port are the manifest's (or the operator's origin override, below),
 *     never an argument's: placeholders start in the path, and each value is percent-encoded as
 *     one path segment (a '/', '?', '#', '%' or '.' in it stays data);
 *   - query names and values are percent-encoded; header values with CR or LF are refused;
 *   - the credential is read from the environment variable auth.env at each call and sent only
 *     in the request to that origin: redirects are not followed (a 3xx is UPSTREAM_ERROR), and
 *     the body of the answer is masked before it is read, so an echo of the token never reaches
 *     a result, a message or a log;
 *   - the whole call, retries included, ends within the call's wall clock (the smaller of
 *     constraints.limits.wall_s and timeout_ms), and the body is read up to output_kb;
 *   - retries (net/retry.h's rules and backoff) only for an idempotent tool whose method is GET,
 *     PUT or DELETE, up to retry.max_attempts;
 *   - a cancelled call (tg_tool_call.cancel) stops its wait at once and its request within
 *     about a second.
 *
 * The origin override: TOOLGEN_HTTP_ORIGIN_<TOOL> (the tool's name in upper case), e.g.
 * TOOLGEN_HTTP_ORIGIN_GET_EXCHANGE_RATE=http://127.0.0.1:8080, replaces the URL's scheme, host
 * and port for every call of the process — a staging service, or a local one in tests. It
 * follows the URL rule of the manifest (https, or http to the loopback host) and carries no path.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/json.h"
#include "net/redact.h"
#include "net/retry.h"
#include "run/rt_int.h"

#define ORIGIN_ENV_PREFIX "TOOLGEN_HTTP_ORIGIN_"
#define MAX_HEADERS 64

/* ---- the request ----------------------------------------------------------------------------- */

/* The request being built and the strings it owns (header values wiped on release). */
typedef struct hreq {
    tg_http_request rq;
    tg_http_header headers[MAX_HEADERS];
    char *values[MAX_HEADERS];
    tg_buf url, body;
} hreq;

static void hreq_release(hreq *h)
{
    for (size_t i = 0; i < h->rq.nheaders; i++) {
        if (h->values[i]) {
            memset(h->values[i], 0, strlen(h->values[i]));
            free(h->values[i]);
        }
    }
    tg_buf_free(&h->url);
    tg_buf_free(&h->body);
}

static bool unreserved(unsigned char c, bool dot)
{
    return isalnum(c) || c == '-' || c == '_' || c == '~' || (dot && c == '.');
}

/* s percent-encoded onto b; '.' too when !dot (so "." and ".." cannot be path segments). */
static void pct_encode(tg_buf *b, const char *s, size_t n, bool dot)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c, dot))
            tg_buf_putc(b, (char)c);
        else
            tg_buf_printf(b, "%%%02X", c);
    }
}

/* The origin (scheme://host[:port]) the request goes to, and where the template's path starts. */
static int origin_of(const tg_manifest *m, const char *tpl, tg_buf *url, const char **path,
                     tg_err *err)
{
    const char *p = strstr(tpl, "://");
    if (!p)
        return tg_err_set(err, "implementation.request.url has no scheme: %s", tpl);
    *path = p + 3 + strcspn(p + 3, "/");
    if (memchr(tpl, '{', (size_t)(*path - tpl)))
        return tg_err_set(err, "implementation.request.url: placeholders may start only in the "
                               "path (the host is the manifest's)");
    tg_buf name = TG_BUF_INIT;
    tg_buf_puts(&name, ORIGIN_ENV_PREFIX);
    for (const char *c = m->name ? m->name : ""; *c; c++)
        tg_buf_putc(&name, (char)toupper((unsigned char)*c));
    const char *over = getenv(name.data);
    int rc = 0;
    if (over && *over) {
        bool https = tg_str_startswith(over, "https://");
        const char *host = over + (https ? 8 : 7);
        bool loopback = false;
        static const char *const hosts[] = {"http://localhost", "http://127.0.0.1", "http://[::1]"};
        for (size_t i = 0; i < 3; i++) /* the whole host: not http://localhost.example.com */
            loopback |= tg_str_startswith(over, hosts[i]) &&
                        strchr(":", over[strlen(hosts[i])]); /* ':' or the end */
        if ((!https && !loopback) || !*host || strpbrk(host, "/?#@ "))
            rc = tg_err_set(err, "%s must be https://HOST[:PORT] or http:// to the loopback "
                                 "host, without a path: '%s'", name.data, over);
        else
            tg_buf_puts(url, over);
    } else {
        tg_buf_append(url, tpl, (size_t)(*path - tpl));
    }
    tg_buf_free(&name);
    return rc;
}

/* The path of the URL template with each argument percent-encoded as one segment. */
static int render_path(const char *t, const cJSON *args, tg_buf *url, tg_err *err)
{
    for (const char *p = t; *p;) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            tg_buf_putc(url, *p);
            p += 2;
            continue;
        }
        const char *e = p[0] == '{' ? strchr(p, '}') : NULL;
        if (!e) {
            tg_buf_putc(url, *p++);
            continue;
        }
        char *name = xstrndup(p + 1, (size_t)(e - p - 1));
        const cJSON *v = tg_json_get(args, name);
        if (!v) {
            tg_err_set(err, "implementation.request.url: {%s} names an argument the call does "
                            "not have (make it required)", name);
            free(name);
            return -1;
        }
        free(name);
        tg_buf val = TG_BUF_INIT;
        rt_render_value(&val, v);
        pct_encode(url, val.data ? val.data : "", val.len, false);
        tg_buf_free(&val);
        p = e + 1;
    }
    return 0;
}

/* "?name=value&..." from implementation.request.query; a lone placeholder of an absent argument
 * leaves its parameter out. */
static void render_query(const cJSON *query, const cJSON *args, tg_buf *url)
{
    const cJSON *q;
    bool first = !strchr(url->data ? url->data : "", '?');
    cJSON_ArrayForEach(q, query)
    {
        if (!cJSON_IsString(q))
            continue;
        tg_buf val = TG_BUF_INIT;
        if (rt_render_template(q->valuestring, args, &val)) {
            tg_buf_putc(url, first ? '?' : '&');
            first = false;
            pct_encode(url, q->string, strlen(q->string), true);
            tg_buf_putc(url, '=');
            pct_encode(url, val.data ? val.data : "", val.len, true);
        }
        tg_buf_free(&val);
    }
}

/* Adds the header (value: heap, taken). -1 with err: too many (the manifest's fault); 1 with
 * err: a line break in the value, which the arguments put there. */
static int add_header(hreq *h, const char *name, char *value, bool secret, tg_err *err)
{
    if (h->rq.nheaders >= MAX_HEADERS) {
        free(value);
        return tg_err_set(err, "implementation.request.headers: more than %d", MAX_HEADERS);
    }
    if (strpbrk(value, "\r\n")) {
        free(value);
        tg_err_set(err, "header %s: the arguments put a line break in its value, which is "
                        "never sent", name);
        return 1;
    }
    h->values[h->rq.nheaders] = value;
    h->headers[h->rq.nheaders++] = (tg_http_header){.name = name, .value = value, .secret = secret};
    return 0;
}

/* A body value: a string that is exactly one placeholder becomes the argument's JSON value
 * (NULL when it is absent); other strings are text templates; containers recursively. */
static cJSON *render_body(const cJSON *t, const cJSON *args)
{
    if (cJSON_IsString(t)) {
        const char *s = t->valuestring;
        size_t n = strlen(s);
        if (n > 2 && s[0] == '{' && s[n - 1] == '}' && s[1] != '{' && !memchr(s + 1, '{', n - 2)) {
            char *name = xstrndup(s + 1, n - 2);
            const cJSON *v = tg_json_get(args, name);
            free(name);
            return v ? cJSON_Duplicate(v, true) : NULL;
        }
        tg_buf b = TG_BUF_INIT;
        bool ok = rt_render_template(s, args, &b);
        cJSON *out = ok ? cJSON_CreateString(b.data ? b.data : "") : NULL;
        tg_buf_free(&b);
        return out;
    }
    if (!cJSON_IsObject(t) && !cJSON_IsArray(t))
        return cJSON_Duplicate(t, true);
    cJSON *out = cJSON_IsObject(t) ? cJSON_CreateObject() : cJSON_CreateArray();
    const cJSON *e;
    cJSON_ArrayForEach(e, t)
    {
        cJSON *v = render_body(e, args);
        if (v && cJSON_IsObject(t))
            cJSON_AddItemToObject(out, e->string, v);
        else if (v)
            cJSON_AddItemToArray(out, v);
    }
    return out;
}

static tg_http_method method_of(const char *s)
{
    static const struct {
        const char *name;
        tg_http_method m;
    } rows[] = {{"POST", TG_HTTP_POST}, {"PUT", TG_HTTP_PUT}, {"PATCH", TG_HTTP_PATCH},
                {"DELETE", TG_HTTP_DELETE}};
    for (size_t i = 0; s && i < sizeof rows / sizeof *rows; i++)
        if (strcmp(rows[i].name, s) == 0)
            return rows[i].m;
    return TG_HTTP_GET;
}

/* The credential header of implementation.auth; 1 with f->credential_missing when its variable
 * is unset (nothing is then sent). */
static int add_auth(hreq *h, const cJSON *auth, tg_runtime_cmd *c, tg_run_facts *f, tg_err *err)
{
    const char *type = tg_json_get_string(auth, "type"), *env = tg_json_get_string(auth, "env");
    if (!type || strcmp(type, "none") == 0 || !env)
        return 0;
    const char *secret = getenv(env);
    if (!secret || !*secret || strpbrk(secret, "\r\n")) {
        c->problem = xasprintf("the environment variable %s (implementation.auth.env) is %s, so "
                               "no request was sent", env, secret && *secret ? "not one line"
                                                                             : "not set");
        f->credential_missing = true;
        f->remote_problem = c->problem;
        return 1;
    }
    bool bearer = strcmp(type, "bearer") == 0;
    const char *name = bearer ? "Authorization" : tg_json_get_string(auth, "header");
    return add_header(h, name ? name : "Authorization",
                      bearer ? xasprintf("Bearer %s", secret) : xstrdup(secret), true, err);
}

/* Refuses a call whose arguments cannot make a request (err says why), as input_schema does. */
static int refuse_args(tg_runtime_cmd *c, tg_run_facts *f, tg_err *err)
{
    c->problem = xstrdup(err->msg);
    tg_err_clear(err);
    f->pre = TG_CLASS_INPUT_SCHEMA;
    f->pre_message = c->problem;
    return 1;
}

/* The request of a call; -1 with err when the manifest cannot be sent as written, 1 when it is
 * not sent: the credential is missing or the arguments cannot make it (f says so). */
static int build(const tg_manifest *m, const cJSON *args, const tg_limits *l, hreq *h,
                 tg_runtime_cmd *c, tg_run_facts *f, tg_err *err)
{
    const cJSON *impl = m->implementation, *req = tg_json_get(impl, "request");
    const char *tpl = tg_json_get_string(req, "url"), *path = NULL;
    if (!tpl)
        return tg_err_set(err, "implementation.request.url is missing");
    h->rq.method = method_of(tg_json_get_string(req, "method"));
    if (origin_of(m, tpl, &h->url, &path, err) != 0)
        return -1;
    if (render_path(path, args, &h->url, err) != 0)
        return refuse_args(c, f, err);
    render_query(tg_json_get(req, "query"), args, &h->url);
    h->rq.url = h->url.data;
    const cJSON *hd;
    cJSON_ArrayForEach(hd, tg_json_get(req, "headers"))
    {
        tg_buf v = TG_BUF_INIT;
        int rc = cJSON_IsString(hd) && rt_render_template(hd->valuestring, args, &v)
                     ? add_header(h, hd->string, tg_buf_steal(&v), false, err)
                     : 0;
        tg_buf_free(&v);
        if (rc)
            return rc < 0 ? -1 : refuse_args(c, f, err);
    }
    const cJSON *bt = tg_json_get(req, "body");
    if (bt && h->rq.method != TG_HTTP_GET && h->rq.method != TG_HTTP_DELETE) {
        cJSON *body = render_body(bt, args);
        char *text = body ? tg_json_print_compact(body) : xstrdup("null");
        tg_buf_puts(&h->body, text);
        free(text);
        cJSON_Delete(body);
        h->rq.body = h->body.data;
        h->rq.body_len = h->body.len;
        if (add_header(h, "Content-Type", xstrdup("application/json"), false, err) != 0)
            return -1;
    }
    h->rq.headers = h->headers;
    h->rq.max_bytes = (size_t)l->output_kb * 1024;
    h->rq.max_redirects = 0; /* the credential goes to the manifest's host only */
    return add_auth(h, tg_json_get(impl, "auth"), c, f, err);
}

/* ---- sending --------------------------------------------------------------------------------- */

/* Attempts allowed: retry.max_attempts for an idempotent tool with GET, PUT or DELETE, else 1. */
static int attempts_of(const tg_manifest *m, tg_http_method method)
{
    const char *idem = m->idempotency;
    if (!idem || strcmp(idem, "idempotent") != 0 ||
        !(method == TG_HTTP_GET || method == TG_HTTP_PUT || method == TG_HTTP_DELETE))
        return 1;
    const cJSON *n = tg_json_get(tg_json_get(m->implementation, "retry"), "max_attempts");
    return cJSON_IsNumber(n) && n->valuedouble >= 1 ? (int)n->valuedouble : 1;
}

/* Sleeps ms in short slices; false when the call was cancelled meanwhile. */
static bool pause_ms(double ms, const volatile sig_atomic_t *cancel)
{
    while (ms > 0) {
        if (cancel && *cancel)
            return false;
        double step = ms < 50 ? ms : 50;
        struct timespec ts = {0, (long)(step * 1e6)};
        nanosleep(&ts, NULL);
        ms -= step;
    }
    return !(cancel && *cancel);
}

/* Sends h until an answer needs no retry, the attempts are used up, or the next wait would pass
 * the deadline; each attempt gets the time left. */
static tg_http_result send_all(const tg_manifest *m, hreq *h, double deadline,
                               const volatile sig_atomic_t *cancel, tg_http_response *resp,
                               bool *cancelled, tg_err *err)
{
    int max = attempts_of(m, h->rq.method);
    const cJSON *retry = tg_json_get(m->implementation, "retry");
    const cJSON *backoff = tg_json_get(retry, "backoff_ms");
    int base = cJSON_IsNumber(backoff) ? (int)backoff->valuedouble : 500;
    tg_retry_policy pol = {.max_retries = max - 1, .base_ms = base, .max_ms = base * 16};
    unsigned rng = (unsigned)tg_now_ms();
    tg_http_result r = TG_HTTP_TIMEOUT;
    for (int i = 0; i < max; i++) {
        double left = deadline - tg_now_ms();
        if (left < 1)
            return TG_HTTP_TIMEOUT;
        h->rq.timeout_ms = (long)left;
        h->rq.cancel = cancel;
        tg_err_clear(err);
        r = tg_http_request_send(&h->rq, resp, err);
        if (r == TG_HTTP_CANCELLED) {
            *cancelled = true;
            return r;
        }
        long status = r == TG_HTTP_OK ? resp->status : 0;
        if (i + 1 >= max || !tg_retry_wanted(&h->rq, r, status))
            return r;
        double wait = tg_retry_delay_ms(&pol, i, r == TG_HTTP_OK ? resp->retry_after_s : -1, &rng);
        if (tg_now_ms() + wait >= deadline)
            return r; /* the last answer stands: no time for another attempt */
        if (r == TG_HTTP_OK)
            tg_http_response_release(resp);
        if (!pause_ms(wait, cancel)) {
            *cancelled = true;
            return TG_HTTP_CANCELLED;
        }
    }
    return r;
}

/* ---- the answer ------------------------------------------------------------------------------ */

/* implementation.status_codes's code for status, or NULL. */
static const char *mapped_here(const tg_manifest *m, long status)
{
    char key[16];
    snprintf(key, sizeof key, "%ld", status);
    return tg_json_get_string(tg_json_get(m->implementation, "status_codes"), key);
}

/* The code of an error status: implementation.status_codes first, then the defaults
 * (docs/manifest.md#http); NULL for a success. */
static const char *status_code(const tg_manifest *m, long status)
{
    const char *mapped = mapped_here(m, status);
    if (mapped)
        return mapped;
    switch (status) {
    case 401: return "UNAUTHORIZED";
    case 403: return "FORBIDDEN";
    case 404: return "NOT_FOUND";
    case 409: return "CONFLICT";
    case 408:
    case 504: return "TIMEOUT";
    case 429: return "RATE_LIMITED";
    }
    if (status >= 200 && status < 300)
        return NULL;
    return status >= 400 && status < 500 ? "INVALID_INPUT" : "UPSTREAM_ERROR";
}

/* A 2xx body as the result, per implementation.response. */
static void read_body(const tg_manifest *m, const tg_http_response *resp, tg_runtime_cmd *c,
                      tg_run_facts *f, tg_call_result *out)
{
    const cJSON *spec = tg_json_get(m->implementation, "response");
    const char *format = tg_json_get_string(spec, "format");
    tg_err perr = {0};
    if (tg_utf8_validate(resp->body, resp->len, &perr) != 0) {
        c->problem = xstrdup("the service's answer is not UTF-8 text");
    } else if (format && strcmp(format, "text") == 0) {
        out->result = cJSON_CreateObject();
        cJSON_AddStringToObject(out->result, "text", resp->body);
    } else {
        cJSON *doc = tg_json_parse(resp->body, resp->len, NULL, NULL, NULL, &perr);
        const char *ptr = tg_json_get_string(spec, "pointer");
        const char *wrap = tg_json_get_string(spec, "wrap");
        const cJSON *part = doc ? tg_json_pointer_get(doc, ptr ? ptr : "") : NULL;
        if (!doc)
            c->problem = xasprintf("the service's answer is not JSON: %d:%d: %s", perr.line,
                                   perr.col, perr.msg);
        else if (wrap && part) { /* an array or a scalar answer: the result is {wrap: it} */
            out->result = cJSON_CreateObject();
            cJSON_AddItemToObject(out->result, wrap, cJSON_Duplicate(part, true));
        } else if (!cJSON_IsObject(part))
            c->problem = xasprintf("the service's answer has no object at %s "
                                   "(implementation.response.pointer)", ptr ? ptr : "its root");
        else
            out->result = cJSON_Duplicate(part, true);
        cJSON_Delete(doc);
    }
    f->result_problem = c->problem;
}

#define EXCERPT_MAX 200

/* The start of an error answer as one line for its message: up to EXCERPT_MAX bytes, cut at a
 * character, control characters and broken UTF-8 as blanks and '?'; NULL for an empty body. */
static char *excerpt(const char *body, size_t len)
{
    size_t n = len < EXCERPT_MAX ? len : EXCERPT_MAX;
    while (n < len && n > 0 && ((unsigned char)body[n] & 0xC0) == 0x80)
        n--; /* not inside a character */
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        tg_buf_putc(&b, (unsigned char)body[i] < 0x20 ? ' ' : body[i]);
    tg_err e = {0};
    if (b.len && tg_utf8_validate(b.data, b.len, &e) != 0)
        for (size_t i = 0; i < b.len; i++)
            if ((unsigned char)b.data[i] >= 0x80)
                b.data[i] = '?';
    if (b.len && n < len)
        tg_buf_puts(&b, "...");
    return b.len ? tg_buf_steal(&b) : (tg_buf_free(&b), NULL);
}

/* What one call's last outcome tells guidance (runtime_ops.h, execute). */
static void outcome(const tg_manifest *m, const hreq *h, tg_http_result r, tg_http_response *resp,
                    const tg_err *err, tg_runtime_cmd *c, tg_run_facts *f, tg_call_result *out)
{
    if (r == TG_HTTP_TIMEOUT) {
        out->sb.killed_by = TG_LIMIT_WALL;
    } else if (r == TG_HTTP_TOO_BIG) {
        out->sb.killed_by = TG_LIMIT_OUTPUT;
        out->sb.overflow_stream = "response";
    } else if (r != TG_HTTP_OK) {
        c->problem = xstrdup(err->msg[0] ? err->msg : "the request failed");
    } else if (resp->status >= 300 && resp->status < 400 && !mapped_here(m, resp->status)) {
        c->problem = xasprintf("the service redirected the request (HTTP %ld); redirects are "
                               "not followed", resp->status);
    } else {
        bool nul = memchr(resp->body, '\0', resp->len) != NULL;
        tg_http_mask_secrets(&h->rq, resp->body); /* an echo of the credential stays out */
        resp->len = strlen(resp->body);             /* masking shortens it */
        f->http_status = resp->status;
        f->mapped_code = status_code(m, resp->status);
        if (!f->mapped_code && nul)
            f->result_problem = c->problem = xstrdup("the service's answer has a NUL byte: it is "
                                                     "not text");
        else if (!f->mapped_code)
            read_body(m, resp, c, f, out);
        else
            f->http_excerpt = c->problem = excerpt(resp->body, resp->len);
        return;
    }
    if (c->problem) {
        tg_http_mask_secrets(&h->rq, c->problem);
        f->remote_problem = c->problem;
        f->mapped_code = "UPSTREAM_ERROR";
    }
}

static tg_call_status http_execute(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                                   tg_runtime_cmd *c, tg_run_facts *f, tg_call_result *out,
                                   tg_err *err)
{
    (void)ctx;
    const tg_manifest *m = call->m;
    double t0 = tg_now_ms();
    hreq h = {0};
    f->remote = true;
    out->sb.out.data = xstrdup(""); /* no process, no streams */
    out->sb.err.data = xstrdup("");
    int rc = build(m, out->args, &out->limits, &h, c, f, err);
    if (rc < 0) {
        hreq_release(&h);
        return TG_CALL_UNSUPPORTED;
    }
    if (rc == 0) {
        tg_http_response resp = {0};
        tg_err e = {0};
        bool cancelled = false;
        tg_http_result r = send_all(m, &h, t0 + (double)out->limits.wall_ms, call->cancel, &resp,
                                    &cancelled, &e);
        if (cancelled)
            out->sb.killed_by = TG_LIMIT_CANCEL;
        else
            outcome(m, &h, r, &resp, &e, c, f, out);
        if (r == TG_HTTP_OK)
            tg_http_response_release(&resp);
    }
    out->sb.wall_ms = tg_now_ms() - t0;
    hreq_release(&h);
    return TG_CALL_DONE;
}

const tg_runtime_ops rt_http = {
    .execute = http_execute,
};
