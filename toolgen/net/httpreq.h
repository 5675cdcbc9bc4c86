/*
 * httpreq.h — one HTTP request over libcurl, the only door to it (docs/architecture.md).
 *
 * A request is a method, a URL, headers and an optional body; the answer is the status, the
 * headers the caller asked for and the body, held in memory under a size cap. One call is one
 * attempt: retries are net/retry.h's. Redirects are not followed unless the caller allows a
 * number of them; only http and https are spoken, on the first request and on every redirect.
 *
 * Secrets: no message of this module carries a header value or the URL's userinfo or query
 * values (URLs appear as tg_url_redact, net/redact.h, makes them). The header lines handed to
 * curl are wiped before they are freed. Authorization, Proxy-Authorization, Cookie and
 * x-api-key are secret whatever the caller says; tg_http_mask_secrets masks secrets in what
 * a server echoes. Following a redirect to another host, curl drops the caller's Authorization
 * and Cookie but sends every other header, x-api-key and headers marked secret included: a
 * request that carries such a header should not allow redirects to hosts it does not trust.
 *
 * Thread-safe: curl's global state is set up once (pthread_once); each call has its own
 * handle and no call keeps state.
 */
#ifndef TG_HTTPREQ_H
#define TG_HTTPREQ_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>

#include "base/util.h"

typedef enum tg_http_method {
    TG_HTTP_GET = 0,
    TG_HTTP_HEAD,
    TG_HTTP_POST,
    TG_HTTP_PUT,
    TG_HTTP_DELETE,
    TG_HTTP_PATCH,
    TG_HTTP_OPTIONS,
} tg_http_method;

/* "GET", "HEAD", ...; and whether sending the request twice means the same as once (RFC 9110
 * 9.2.2: all but POST and PATCH), which decides whether it may be retried (net/retry.h). */
const char *tg_http_method_name(tg_http_method m);
bool tg_http_method_idempotent(tg_http_method m);

typedef enum tg_http_result {
    TG_HTTP_OK = 0,   /* an answer arrived (any status); see the response's status */
    TG_HTTP_TIMEOUT,  /* no complete answer within a timeout (the request may have been seen) */
    TG_HTTP_CONNECT,  /* no connection: refused, unreachable, name not resolved; nothing was sent */
    TG_HTTP_DROPPED,  /* the connection broke or closed without a complete answer */
    TG_HTTP_TOO_BIG,  /* the body exceeds max_bytes (or the kept headers 64 KiB) */
    TG_HTTP_ERROR,    /* anything else (bad URL or header, unsupported scheme, TLS, ...) */
    TG_HTTP_CANCELLED, /* the request's cancel flag was set while it was under way */
} tg_http_result;

/* The class of a status code, for callers that branch on it (a cache's 404 is a miss, a fetch's
 * 3xx a redirect not followed). */
typedef enum tg_http_class {
    TG_HTTP_CLASS_INFO = 1,     /* 1xx (never the final status of a completed request) */
    TG_HTTP_CLASS_SUCCESS,      /* 2xx */
    TG_HTTP_CLASS_REDIRECT,     /* 3xx */
    TG_HTTP_CLASS_CLIENT_ERROR, /* 4xx */
    TG_HTTP_CLASS_SERVER_ERROR, /* 5xx */
    TG_HTTP_CLASS_INVALID,      /* anything else */
} tg_http_class;

tg_http_class tg_http_status_class(long status);

typedef struct tg_http_header {
    const char *name;  /* a token: "Authorization", "Content-Type" */
    const char *value; /* no CR, LF or NUL; may be empty */
    bool secret;       /* masked by tg_http_mask_secrets (no message of net/ holds any value) */
} tg_http_header;

typedef struct tg_http_field {
    char *name;  /* in lower case */
    char *value; /* without the surrounding blanks */
} tg_http_field;

#define TG_HTTP_MAX_BYTES_DEFAULT ((size_t)16 << 20)

typedef struct tg_http_request {
    tg_http_method method;
    const char *url;                /* http:// or https:// */
    const tg_http_header *headers;  /* borrowed, nheaders of them, sent in this order */
    size_t nheaders;
    /* The body (POST, PUT, PATCH; allowed with any method but GET and HEAD); NULL: none.
     * Without a Content-Type header, a body is sent as application/octet-stream. */
    const void *body;
    size_t body_len;
    long timeout_ms;         /* the whole attempt, connecting included; 0: no limit */
    long connect_timeout_ms; /* connecting; 0: timeout_ms */
    size_t max_bytes;        /* the body's cap; 0: TG_HTTP_MAX_BYTES_DEFAULT */
    /* 0: a 3xx is the answer; n > 0: up to n followed. Meant for GET and HEAD: curl turns a
     * POST into a GET after 301, 302 and 303, and keeps any other method as it is. */
    int max_redirects;
    /* The response headers to keep: a NULL-terminated list of names (case-insensitive), or
     * all of them with all_headers; none when both are unset. Retry-After is always read. */
    const char *const *keep_headers;
    bool all_headers;
    /* A POST or PATCH the caller knows may be sent twice (an LLM completion): retried like an
     * idempotent request (net/retry.h). Ignored for idempotent methods. */
    bool repeatable;
    const char *user_agent;  /* NULL: "toolgen" */
    /* Set to nonzero by another thread or a signal handler: the attempt stops within about a
     * second (curl's progress callback, which it calls at least once a second while it waits;
     * TG_HTTP_CANCELLED). NULL: it runs to its end or its timeout. A tool call's cancellation
     * (toolgen serve, Ctrl-C) uses it. */
    const volatile sig_atomic_t *cancel;
    /* Called once the connection is made (or an open one reused), before anything is sent,
     * with the address connected to ("127.0.0.1", "::1") and its port: false stops the request
     * there (TG_HTTP_ERROR, "the connection to ADDRESS was refused"). For a caller that decides
     * where a request may go by where its name resolves (web_fetch, docs/web.md). NULL: any. */
    bool (*check_peer)(void *ud, const char *ip, long port);
    void *check_peer_ud;
    /* Streams the final response's body instead of keeping it (a proxy relaying an event
     * stream, docs/scale.md#code-sessions): on_head once, as its first bytes arrive, with its
     * status and kept headers, then on_data with each piece as it arrives; on_data returning
     * false stops the transfer (TG_HTTP_DROPPED). max_bytes does not apply, and the response
     * then holds an empty body. A response without a body calls neither: the caller reads its
     * status and headers from the response. NULL: the body is kept, as always. */
    void (*on_head)(void *ud, long status, const tg_http_field *headers, size_t nheaders);
    bool (*on_data)(void *ud, const char *data, size_t n);
    void *stream_ud;
} tg_http_request;

typedef struct tg_http_response {
    long status;
    char *body;             /* NUL-terminated (empty for HEAD), heap; owned by the response */
    size_t len;
    tg_http_field *headers; /* the kept headers of the final response, in the order received */
    size_t nheaders;
    double retry_after_s;   /* Retry-After in seconds from now (either form); -1 when absent */
} tg_http_response;

/*
 * Sends rq once. TG_HTTP_OK fills out (release with tg_http_response_release), whatever the
 * status; otherwise out is all zero and err says what went wrong, naming the redacted URL (for
 * the transport failures: "URL: curl's description").
 */
tg_http_result tg_http_request_send(const tg_http_request *rq, tg_http_response *out,
                                    tg_err *err);

void tg_http_response_release(tg_http_response *r);

/* The value of the first kept header called name (case-insensitive), or NULL. */
const char *tg_http_response_header(const tg_http_response *r, const char *name);

/*
 * Masks (tg_secret_mask, net/redact.h) in text, in place, the secrets rq carries: the value of
 * each secret header and its credentials alone ("KEY" of "Bearer KEY"), and the URL's
 * password. For what a server sends back, which may echo the request, before it is quoted or
 * kept anywhere.
 */
void tg_http_mask_secrets(const tg_http_request *rq, char *text);

/* A Retry-After value in seconds from now: delta-seconds ("120") or an HTTP-date (any of the
 * three forms of RFC 9110 5.6.7; a date in the past is 0). -1 when it is neither. */
double tg_http_retry_after(const char *value, time_t now);

/*
 * A URL taken apart (tg_url_parse): what a caller that decides where a request may go needs.
 * Strings are heap, owned by the struct (tg_url_free).
 */
typedef struct tg_url {
    char *url;    /* the absolute URL, normalised by curl (relative references resolved), without
                   * its #fragment */
    char *scheme; /* "http" or "https" (another scheme is refused) */
    char *host;   /* lower case, without a trailing dot; an IPv6 address in brackets "[::1]" */
    long port;    /* the URL's port, or the scheme's default (80, 443) */
    bool explicit_port; /* the URL names its port */
    bool userinfo;      /* it carries a user name or password ("user:pw@host") */
} tg_url;

/*
 * Parses ref, an absolute URL or, with base set, a reference relative to base (a redirect's
 * Location), into out. -1 with err (naming the redacted text) when it is no URL, has no host,
 * or its scheme is not http or https; out is then zeroed. Pure: no request is made.
 */
int tg_url_parse(const char *base, const char *ref, tg_url *out, tg_err *err);
void tg_url_free(tg_url *u);

#endif
