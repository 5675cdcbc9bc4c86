/*
 * rt_web.c — web_fetch, the web toolset's tool (docs/web.md): toolgen fetches a URL itself,
 * through net/ (the one HTTP client), and hands back its text, its parsed JSON, the readable
 * text of an HTML page (base/html.h), or saves it as a file in a code session's working
 * directory (run/session.h), where python_execute reads it. No code of the call runs, so no
 * sandbox is involved; what keeps a fetch in its lane is checked here, before any byte is sent:
 *
 *   - the host: every host is refused until web.allow_hosts of the serving repository's
 *     toolgen.yaml lists it (exact names, "*.example.com" for the subdomains, a port after ':'
 *     when it is not the scheme's default, ":*" for any port); loopback addresses and localhost
 *     are hosts like any other, refused unless listed, and a name that resolves to a loopback
 *     or link-local address is fetched only when that address is listed too (peer_allowed);
 *   - redirects are followed by this file, not by curl, so that every hop's host is checked
 *     against the same list (at most web.max_redirects hops); no credentials are ever sent: a
 *     URL with a user name or password is refused, on the first request and on every hop;
 *   - one limit of requests per minute for the whole server (web.requests_per_minute), a
 *     size cap on the body (web.max_mb, 50 MB by default), and a timeout for the whole fetch
 *     (the smaller of web.timeout_s and the tool's wall clock);
 *   - what comes back inline (text, html, json) is at most INLINE_MAX; bigger bodies go to a
 *     file (`file`).
 *
 * Every refusal and failure is a runner-style reply with phase "web" (rt_code_refusal), whose
 * error type codeguide.c maps to an error code and guidance naming the fix.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/html.h"
#include "base/json.h"
#include "net/httpreq.h"
#include "net/ratelimit.h"
#include "run/rt_int.h"
#include "run/session.h"

/* The most text (or JSON) a result carries: a model reads it; larger bodies are saved as files
 * (docs/web.md#limits). */
#define INLINE_MAX ((size_t)1 << 20)
#define LINKS_MAX 200
#define FILENAME_MAX_LEN 128

typedef struct fetch {
    const tg_toolrun_ctx *ctx;
    const tg_tool_call *call;
    const cJSON *allow; /* web.allow_hosts */
    tg_url url;         /* the current hop's */
    cJSON *hops;        /* the URLs redirected to */
    tg_http_response resp;
    bool have_resp;
    const char *type;   /* the refusal's error type, once there is one (static) */
    char *msg;          /* and its message */
    double timeout_ms;  /* the whole fetch's */
    char peer[80];      /* the address check_peer refused, else empty */
} fetch;

static int refuse(fetch *x, const char *type, const char *fmt, ...) TG_PRINTF(3, 4);

static int refuse(fetch *x, const char *type, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(x->msg);
    x->msg = xvasprintf(fmt, ap);
    va_end(ap);
    x->type = type;
    return -1;
}

/* Text that is not UTF-8 with each byte above 0x7F as '?', so that what a server sent can go
 * into a JSON result or message. */
static void make_utf8(char *s, size_t len)
{
    tg_err e = {0};
    if (tg_utf8_validate(s, len, &e) == 0)
        return;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            s[i] = '?';
}

static void add_text(cJSON *o, const char *key, const char *value)
{
    char *copy = xstrdup(value);
    make_utf8(copy, strlen(copy));
    cJSON_AddStringToObject(o, key, copy);
    free(copy);
}

/* ---- the allowlist -------------------------------------------------------------------------- */

/* Whether entry (host, "[v6]", "*.suffix", each with an optional ":port" or ":*") admits u. */
static bool entry_admits(const char *entry, const tg_url *u)
{
    char host[256];
    const char *port = NULL;
    if (entry[0] == '[') {
        const char *close = strchr(entry, ']');
        if (!close || (size_t)(close - entry + 1) >= sizeof host)
            return false;
        snprintf(host, sizeof host, "%.*s", (int)(close - entry + 1), entry);
        port = close[1] == ':' ? close + 2 : NULL;
    } else {
        const char *colon = strrchr(entry, ':');
        size_t n = colon ? (size_t)(colon - entry) : strlen(entry);
        if (n >= sizeof host)
            return false;
        snprintf(host, sizeof host, "%.*s", (int)n, entry);
        port = colon ? colon + 1 : NULL;
    }
    size_t n = strlen(host);
    if (n > 1 && host[n - 1] == '.')
        host[--n] = '\0';
    bool host_ok;
    if (strncmp(host, "*.", 2) == 0) { /* the subdomains, at any depth; not the name itself,
                                         * and never an address (127.0.0.1 ends in ".0.0.1") */
        size_t hn = strlen(u->host), sn = n - 1; /* ".example.com" */
        bool address = u->host[0] == '[' || strspn(u->host, "0123456789.") == hn;
        host_ok = !address && hn > sn && strcasecmp(u->host + hn - sn, host + 1) == 0;
    } else {
        host_ok = strcasecmp(u->host, host) == 0;
    }
    if (!host_ok)
        return false;
    if (port && strcmp(port, "*") == 0)
        return true;
    if (port)
        return strtol(port, NULL, 10) == u->port;
    return u->port == (strcmp(u->scheme, "https") == 0 ? 443 : 80);
}

static bool allowed(const cJSON *allow, const tg_url *u)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, allow)
    {
        if (cJSON_IsString(e) && entry_admits(e->valuestring, u))
            return true;
    }
    return false;
}

/* The entry that would admit u, as the fix names it: "host" or "host:port". */
static char *entry_for(const tg_url *u)
{
    bool dflt = u->port == (strcmp(u->scheme, "https") == 0 ? 443 : 80);
    return dflt ? xstrdup(u->host) : xasprintf("%s:%ld", u->host, u->port);
}

/* Whether ip is a loopback, link-local or unspecified address (127.0.0.0/8, ::1, 169.254.0.0/16
 * — cloud metadata services —, fe80::/10, 0.0.0.0, ::, and IPv4 mapped into IPv6). */
static bool special_address(const char *ip)
{
    if (strncasecmp(ip, "::ffff:", 7) == 0 && strchr(ip + 7, '.'))
        ip += 7;
    if (strchr(ip, '.'))
        return strncmp(ip, "127.", 4) == 0 || strncmp(ip, "169.254.", 8) == 0 ||
               strcmp(ip, "0.0.0.0") == 0;
    return strcmp(ip, "::1") == 0 || strcmp(ip, "::") == 0 || strncasecmp(ip, "fe8", 3) == 0 ||
           strncasecmp(ip, "fe9", 3) == 0 || strncasecmp(ip, "fea", 3) == 0 ||
           strncasecmp(ip, "feb", 3) == 0;
}

/* net/'s check_peer: a name that resolved to a loopback or link-local address is fetched only
 * when that address is listed itself (docs/web.md#allowed-hosts), so that neither localhost nor
 * a DNS name pointing at 127.0.0.1 or 169.254.169.254 reaches the machine's own services. */
static bool peer_allowed(void *ud, const char *ip, long port)
{
    fetch *x = ud;
    if (!special_address(ip))
        return true;
    char host[80];
    snprintf(host, sizeof host, strchr(ip, ':') ? "[%s]" : "%s", ip);
    tg_url addr = {.scheme = x->url.scheme, .host = host, .port = port};
    if (allowed(x->allow, &addr))
        return true;
    snprintf(x->peer, sizeof x->peer, "%s", host);
    return false;
}

/* 0 when the hop to u may be made; else the refusal. from_host: the host that redirected to
 * u, NULL for the URL of the call. */
static int check_url(fetch *x, const tg_url *u, const char *from_host)
{
    if (u->userinfo)
        return refuse(x, from_host ? "RedirectNotAllowed" : "InvalidURL",
                      "%s carries a user name or password: web_fetch never sends credentials; "
                      "%s", from_host ? "the redirect's URL" : "the URL",
                      from_host ? "the redirect was not followed"
                                : "remove the 'user:password@' part");
    if (allowed(x->allow, u))
        return 0;
    char *entry = entry_for(u);
    bool none = cJSON_GetArraySize(x->allow) == 0;
    if (from_host)
        refuse(x, "RedirectNotAllowed", "%s redirected to host %s, which is not in "
               "web.allow_hosts; the redirect was not followed (to allow it, add '%s' to "
               "web.allow_hosts in the serving repository's toolgen.yaml)", from_host, entry,
               entry);
    else
        refuse(x, "HostNotAllowed", "host %s is not in web.allow_hosts%s: add '%s' to "
               "web.allow_hosts in the serving repository's toolgen.yaml to allow it "
               "(docs/web.md#allowed-hosts)", entry,
               none ? " (it is empty: web_fetch refuses every host until it lists some)" : "",
               entry);
    free(entry);
    return -1;
}

/* ---- fetching ------------------------------------------------------------------------------- */

static double web_number(const fetch *x, const char *key, double dflt)
{
    return tg_json_get_number(x->ctx->web, key, dflt);
}

/* One hop: x->url fetched into x->resp. 0, or -1 with the refusal. */
static int send_one(fetch *x, double deadline, size_t cap)
{
    static const char *const keep[] = {"location", "content-type", NULL};
    double left = deadline - tg_now_ms();
    tg_http_request rq = {.method = TG_HTTP_GET, .url = x->url.url, .timeout_ms = (long)left,
                          .max_bytes = cap, .keep_headers = keep, .cancel = x->call->cancel,
                          .user_agent = "toolgen-web-fetch", .check_peer = peer_allowed,
                          .check_peer_ud = x};
    tg_err e = {0};
    tg_http_result r = left < 1 ? TG_HTTP_TIMEOUT : tg_http_request_send(&rq, &x->resp, &e);
    x->have_resp = r == TG_HTTP_OK;
    if (x->peer[0])
        return refuse(x, "HostNotAllowed", "%s resolved to %s, a loopback or link-local address, "
                      "which web_fetch reaches only when the address itself is in "
                      "web.allow_hosts: add '%s:%ld' to web.allow_hosts in the serving "
                      "repository's toolgen.yaml to allow it", x->url.host, x->peer, x->peer,
                      x->url.port);
    switch (r) {
    case TG_HTTP_OK: return 0;
    case TG_HTTP_TIMEOUT:
        return refuse(x, "FetchTimeout", "%s did not answer completely within %.0f s (web."
                      "timeout_s in toolgen.yaml, or the tool's own limit)", x->url.host,
                      x->timeout_ms / 1000.0);
    case TG_HTTP_TOO_BIG:
        return refuse(x, "ResponseTooLarge", "the answer of %s is larger than %g MB "
                      "(web.max_mb in toolgen.yaml); nothing was kept", x->url.host,
                      (double)cap / 1048576.0);
    case TG_HTTP_CANCELLED: return refuse(x, "Cancelled", "the fetch was cancelled");
    case TG_HTTP_CONNECT:
        return refuse(x, "ConnectionFailed", "cannot connect to %s: %s", x->url.host, e.msg);
    default: return refuse(x, "FetchFailed", "fetching from %s failed: %s", x->url.host, e.msg);
    }
}

/* Follows redirects, each hop checked, until an answer that is not one. 0, or -1. */
static int fetch_all(fetch *x)
{
    double deadline = tg_now_ms() + x->timeout_ms;
    size_t cap = (size_t)(web_number(x, "max_mb", TG_WEB_MAX_MB_DEFAULT) * 1048576.0);
    int max_hops = (int)web_number(x, "max_redirects", TG_WEB_MAX_REDIRECTS_DEFAULT);
    for (int hop = 0;; hop++) {
        if (send_one(x, deadline, cap) != 0)
            return -1;
        const char *loc = tg_http_response_header(&x->resp, "location");
        long st = x->resp.status;
        if (st < 300 || st >= 400 || st == 304 || !loc)
            return 0;
        if (hop >= max_hops)
            return refuse(x, "TooManyRedirects", "more than %d redirects (web.max_redirects); "
                          "the last went to %s", max_hops, x->url.host);
        tg_url next;
        tg_err e = {0};
        if (tg_url_parse(x->url.url, loc, &next, &e) != 0)
            return refuse(x, "RedirectNotAllowed", "%s redirected to %s; the redirect was not "
                          "followed", x->url.host, e.msg);
        char *from = xstrdup(x->url.host);
        int rc = check_url(x, &next, from);
        free(from);
        if (rc != 0) {
            tg_url_free(&next);
            return -1;
        }
        tg_url_free(&x->url);
        x->url = next;
        char *shown = xstrdup(x->url.url);
        make_utf8(shown, strlen(shown));
        cJSON_AddItemToArray(x->hops, cJSON_CreateString(shown));
        free(shown);
        tg_http_response_release(&x->resp);
        x->have_resp = false;
    }
}

/* ---- the answer ----------------------------------------------------------------------------- */

/* The start of a body as one line, for an error's message. */
static void excerpt(tg_buf *b, const char *body, size_t len)
{
    size_t n = len < 160 ? len : 160;
    while (n < len && n > 0 && ((unsigned char)body[n] & 0xC0) == 0x80)
        n--;
    for (size_t i = 0; i < n; i++)
        tg_buf_putc(b, (unsigned char)body[i] < 0x20 ? ' ' : body[i]);
    make_utf8(b->data, b->len);
    if (n < len)
        tg_buf_puts(b, "...");
}

static int status_error(fetch *x)
{
    long st = x->resp.status;
    tg_buf b = TG_BUF_INIT;
    excerpt(&b, x->resp.body, x->resp.len);
    const char *type = st == 404 || st == 410 ? "HTTPNotFound"
                       : st == 429            ? "UpstreamRateLimited"
                                              : "HTTPError";
    refuse(x, type, "%s answered HTTP %ld%s%s", x->url.host, st, b.len ? ": " : "",
           b.len ? b.data : "");
    tg_buf_free(&b);
    return -1;
}

/* The charset of a Content-Type ("text/html; charset=ISO-8859-1"), heap, or NULL. */
static char *charset_of(const char *ctype)
{
    const char *c = ctype ? strcasestr(ctype, "charset=") : NULL;
    if (!c)
        return NULL;
    c += 8;
    if (*c == '"')
        c++;
    size_t n = strcspn(c, "\"; \t");
    return n ? xstrndup(c, n) : NULL;
}

static bool is_text(const tg_http_response *r)
{
    tg_err e = {0};
    return !memchr(r->body, '\0', r->len) && tg_utf8_validate(r->body, r->len, &e) == 0;
}

static int as_text(fetch *x, cJSON *res)
{
    if (!is_text(&x->resp))
        return refuse(x, "NotText", "the answer of %s is not UTF-8 text (binary data or "
                      "another encoding): fetch it with type \"file\" into a session, or with "
                      "type \"html\" for a page in another encoding", x->url.host);
    size_t n = x->resp.len < INLINE_MAX ? x->resp.len : INLINE_MAX;
    while (n < x->resp.len && n > 0 && ((unsigned char)x->resp.body[n] & 0xC0) == 0x80)
        n--;
    char *text = xstrndup(x->resp.body, n);
    cJSON_AddStringToObject(res, "text", text);
    free(text);
    cJSON_AddBoolToObject(res, "truncated", n < x->resp.len);
    return 0;
}

static int as_json(fetch *x, cJSON *res)
{
    if (x->resp.len > INLINE_MAX)
        return refuse(x, "ResponseTooLarge", "the JSON of %s is %zu bytes, more than the %zu "
                      "a result carries: fetch it with type \"file\" into a session and load "
                      "it in python_execute", x->url.host, x->resp.len, INLINE_MAX);
    tg_err e = {0};
    cJSON *doc = tg_json_parse(x->resp.body, x->resp.len, NULL, NULL, NULL, &e);
    if (!doc) {
        tg_buf b = TG_BUF_INIT;
        excerpt(&b, x->resp.body, x->resp.len);
        refuse(x, "InvalidJSON", "the answer of %s is not JSON (%d:%d: %s); it starts: %s",
               x->url.host, e.line, e.col, e.msg, b.len ? b.data : "(empty)");
        tg_buf_free(&b);
        return -1;
    }
    cJSON_AddItemToObject(res, "json", doc);
    return 0;
}

static int as_html(fetch *x, cJSON *res)
{
    char *cs = charset_of(tg_http_response_header(&x->resp, "content-type"));
    tg_html_doc d;
    tg_err e = {0};
    int rc = tg_html_extract(x->resp.body, x->resp.len, cs, LINKS_MAX, &d, &e);
    free(cs);
    if (rc != 0)
        return refuse(x, "NotHTML", "the answer of %s: %s", x->url.host, e.msg);
    if (d.title)
        cJSON_AddStringToObject(res, "title", d.title);
    size_t n = strlen(d.text);
    bool cut = n > INLINE_MAX;
    if (cut) {
        n = INLINE_MAX;
        while (n > 0 && ((unsigned char)d.text[n] & 0xC0) == 0x80)
            n--;
        d.text[n] = '\0';
    }
    cJSON_AddStringToObject(res, "text", d.text);
    cJSON_AddBoolToObject(res, "truncated", cut);
    cJSON *links = cJSON_AddArrayToObject(res, "links");
    for (size_t i = 0; i < d.nlinks; i++) {
        tg_url u;
        tg_err ue = {0};
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "text", d.links[i].text);
        bool ok = tg_url_parse(x->url.url, d.links[i].href, &u, &ue) == 0;
        add_text(l, "url", ok ? u.url : d.links[i].href); /* absolute */
        if (ok)
            tg_url_free(&u);
        cJSON_AddItemToArray(links, l);
    }
    if (d.links_total > d.nlinks)
        cJSON_AddNumberToObject(res, "links_total", (double)d.links_total);
    tg_html_doc_free(&d);
    return 0;
}

/* ---- file ----------------------------------------------------------------------------------- */

/* A file name of letters, digits, '.', '-' and '_', not starting with '.'. */
static bool good_name(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > FILENAME_MAX_LEN || s[0] == '.')
        return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
            return false;
    return true;
}

/* The file name from the URL's last path segment (what good_name allows of it), else
 * "download". */
static char *name_from_url(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? strchr(p + 3, '/') : NULL;
    size_t end = p ? strcspn(p, "?#") : 0;
    const char *seg = p;
    for (size_t i = 0; p && i < end; i++)
        if (p[i] == '/')
            seg = p + i + 1;
    tg_buf b = TG_BUF_INIT;
    for (const char *c = seg; c && c < p + end && b.len < FILENAME_MAX_LEN; c++)
        if (isalnum((unsigned char)*c) || strchr("._-", *c))
            tg_buf_putc(&b, *c);
    while (b.len && b.data[0] == '.')
        memmove(b.data, b.data + 1, b.len--);
    if (!b.len)
        tg_buf_puts(&b, "download");
    return tg_buf_steal(&b);
}

static int as_file(fetch *x, const char *id, const char *name, cJSON *res)
{
    char *own = name ? NULL : name_from_url(x->url.url);
    tg_err e = {0};
    tg_session_status ss = tg_session_put_file(x->ctx->sessions, id, x->call->client_id,
                                               name ? name : own, x->resp.body, x->resp.len, &e);
    if (ss == TG_SESSION_OK) {
        cJSON_AddStringToObject(res, "path", name ? name : own);
        cJSON_AddNumberToObject(res, "size", (double)x->resp.len);
        cJSON_AddStringToObject(res, "session_id", id);
    } else {
        refuse(x, ss == TG_SESSION_START ? "SaveFailed" : ss == TG_SESSION_LANG ? "InvalidFilename"
                                                                                : tg_session_type(ss),
               "%s", e.msg);
    }
    free(own);
    return ss == TG_SESSION_OK ? 0 : -1;
}

/* ---- the call ------------------------------------------------------------------------------- */

/* What is checked before a byte is sent: the format's needs, the URL, the host, the rate. */
static int precheck(fetch *x, const cJSON *args)
{
    const char *url = tg_json_get_string(args, "url"), *type = tg_json_get_string(args, "type");
    const char *id = tg_json_get_string(args, "session_id");
    const char *name = tg_json_get_string(args, "filename");
    bool file = type && strcmp(type, "file") == 0;
    if (file && !id)
        return refuse(x, "SessionRequired", "type \"file\" saves into a code session's working "
                      "directory: call create_session first and pass its session_id (or fetch "
                      "with type \"text\", \"json\" or \"html\" to get the content inline)");
    if (name && !file)
        return refuse(x, "InvalidArgument", "filename is for type \"file\" only");
    if (name && !good_name(name))
        return refuse(x, "InvalidFilename", "filename '%s': use one file name of letters, "
                      "digits, '.', '-' and '_' (at most %d, not starting with '.'), e.g. "
                      "data.csv", name, FILENAME_MAX_LEN);
    if (file) {
        tg_err e = {0};
        tg_session_status ss = !x->ctx->sessions ? TG_SESSION_UNKNOWN
                               : tg_session_put_file(x->ctx->sessions, id, x->call->client_id,
                                                     NULL, NULL, 0, &e);
        if (ss != TG_SESSION_OK) {
            x->type = tg_session_type(ss);
            x->msg = xstrdup(e.msg[0] ? e.msg : "unknown session: sessions are kept by a "
                                                "running server (toolgen serve)");
            return -1;
        }
    }
    tg_err e = {0};
    if (tg_url_parse(NULL, url, &x->url, &e) != 0)
        return refuse(x, "InvalidURL", "%s", e.msg);
    if (check_url(x, &x->url, NULL) != 0)
        return -1;
    double retry_ms = 0;
    if (x->ctx->web_rate && !tg_ratelimit_take(x->ctx->web_rate, tg_now_ms(), &retry_ms))
        return refuse(x, "RateLimited", "web_fetch made %d requests in the last minute, its "
                      "limit (web.requests_per_minute in toolgen.yaml); try again in %.0f s",
                      tg_ratelimit_max(x->ctx->web_rate), retry_ms / 1000.0 + 0.5);
    return 0;
}

static cJSON *result_of(fetch *x, const cJSON *args)
{
    const char *type = tg_json_get_string(args, "type");
    cJSON *res = cJSON_CreateObject();
    add_text(res, "url", x->url.url);
    cJSON_AddNumberToObject(res, "status", (double)x->resp.status);
    const char *ctype = tg_http_response_header(&x->resp, "content-type");
    if (ctype)
        add_text(res, "content_type", ctype);
    cJSON_AddNumberToObject(res, "bytes", (double)x->resp.len);
    cJSON_AddStringToObject(res, "type", type ? type : "text");
    if (cJSON_GetArraySize(x->hops))
        cJSON_AddItemToObject(res, "redirects", cJSON_Duplicate(x->hops, true)); /* add_text'ed */
    int rc;
    if (!type || strcmp(type, "text") == 0)
        rc = as_text(x, res);
    else if (strcmp(type, "json") == 0)
        rc = as_json(x, res);
    else if (strcmp(type, "html") == 0)
        rc = as_html(x, res);
    else
        rc = as_file(x, tg_json_get_string(args, "session_id"),
                     tg_json_get_string(args, "filename"), res);
    if (rc != 0) {
        cJSON_Delete(res);
        return NULL;
    }
    return res;
}

tg_call_status rt_web_fetch(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                            struct tr_call *p, tg_call_result *out, tg_err *err)
{
    (void)err;
    fetch x = {.ctx = ctx, .call = call, .allow = tg_json_get(ctx->web, "allow_hosts"),
               .hops = cJSON_CreateArray()};
    x.timeout_ms = web_number(&x, "timeout_s", TG_WEB_TIMEOUT_S_DEFAULT) * 1000.0;
    if ((double)out->limits.wall_ms < x.timeout_ms) /* the tool's own wall clock caps it */
        x.timeout_ms = (double)out->limits.wall_ms;
    const cJSON *args = out->args;
    cJSON *res = NULL;
    if (precheck(&x, args) == 0 && fetch_all(&x) == 0) {
        long st = x.resp.status;
        if (st < 200 || st >= 300)
            status_error(&x);
        else
            res = result_of(&x, args);
    }
    cJSON *reply = res ? rt_code_success(res)
                       : rt_code_refusal(x.type && strncmp(x.type, "SESSION_", 8) == 0
                                             ? "session" : "web", x.type ? x.type : "FetchFailed",
                                         x.msg ? x.msg : "the fetch failed");
    if (x.have_resp)
        tg_http_response_release(&x.resp);
    tg_url_free(&x.url);
    cJSON_Delete(x.hops);
    free(x.msg);
    rt_code_answer(ctx, call, p, out, reply);
    return TG_CALL_DONE;
}
