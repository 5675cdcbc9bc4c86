/* httpcheck.c — Host/Origin and header checks of Streamable HTTP (httpcheck.h). */
#include "serve/httpcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/json.h"
#include "base/sha256.h"
#include "base/util.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"

/* name[:port] → true when name is a loopback name; n is the length of host. */
static bool loopback_hostport(const char *host, size_t n)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t k = strlen(names[i]);
        if (n < k || strncasecmp(host, names[i], k) != 0)
            continue;
        if (n == k)
            return true;
        if (host[k] != ':' || n == k + 1)
            continue;
        bool digits = true;
        for (size_t j = k + 1; j < n; j++)
            digits = digits && host[j] >= '0' && host[j] <= '9';
        if (digits)
            return true;
    }
    return false;
}

bool tg_http_host_is_loopback(const char *host)
{
    return host && loopback_hostport(host, strlen(host));
}

bool tg_http_origin_allowed(const char *origin, const char *const *allowed)
{
    if (!origin)
        return true;
    for (size_t i = 0; allowed && allowed[i]; i++)
        if (strcmp(origin, allowed[i]) == 0)
            return true;
    const char *rest = NULL;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    if (!rest)
        return false;
    size_t n = strlen(rest);
    if (n && rest[n - 1] == '/')
        n--;
    return loopback_hostport(rest, n);
}

bool tg_http_bind_is_loopback(const char *bind)
{
    return !bind || strcmp(bind, "127.0.0.1") == 0 || strcmp(bind, "::1") == 0 ||
           strcasecmp(bind, "localhost") == 0;
}

bool tg_http_bearer_ok(const char *authorization, const char *token)
{
    if (!authorization || !token || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    const char *given = authorization + 7;
    while (*given == ' ')
        given++;
    unsigned char a[TG_SHA256_LEN], b[TG_SHA256_LEN];
    tg_sha256_ctx s;
    tg_sha256_init(&s);
    tg_sha256_update(&s, given, strlen(given));
    tg_sha256_final(&s, a);
    tg_sha256_init(&s);
    tg_sha256_update(&s, token, strlen(token));
    tg_sha256_final(&s, b);
    volatile unsigned char diff = 0;
    for (size_t i = 0; i < TG_SHA256_LEN; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

bool tg_http_is_modern(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    return cJSON_GetObjectItemCaseSensitive(meta, META_VERSION) != NULL;
}

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The value of a header that may use the "=?base64?...?=" sentinel; heap string, NULL when the
 * encoding is broken: Base64 is decoded strictly (whole 4-character groups, '=' only as the
 * last one or two), as the revision's test cases require. */
static char *header_value(const char *h)
{
    size_t n = strlen(h);
    if (n < 11 || strncmp(h, "=?base64?", 9) != 0 || strcmp(h + n - 2, "?=") != 0)
        return xstrdup(h);
    const char *b = h + 9;
    size_t len = n - 11, pad = 0;
    while (pad < 2 && pad < len && b[len - 1 - pad] == '=')
        pad++;
    if (len % 4 != 0)
        return NULL;
    char *out = xmalloc(len + 1);
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len - pad; i++) {
        int v = b64_value((unsigned char)b[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[k++] = (char)((acc >> bits) & 0xff);
        }
    }
    out[k] = '\0';
    if (strlen(out) != k || (acc & ((1u << bits) - 1)) != 0) { /* a NUL, or stray bits */
        free(out);
        return NULL;
    }
    return out;
}

/* Header values are compared after trimming the spaces HTTP allows around them. */
static bool same(const char *header, const char *body)
{
    while (*header == ' ' || *header == '\t')
        header++;
    size_t n = strlen(header);
    while (n && (header[n - 1] == ' ' || header[n - 1] == '\t'))
        n--;
    return strlen(body) == n && strncmp(header, body, n) == 0;
}

static cJSON *mismatch(const cJSON *msg, const char *fmt, const char *a, const char *b)
{
    char text[512];
    snprintf(text, sizeof text, fmt, a, b);
    return tg_serve_error_reply(cJSON_GetObjectItemCaseSensitive(msg, "id"), TG_RPC_HEADER_MISMATCH,
                                text);
}

cJSON *tg_http_check_headers(const cJSON *msg, const char *version, const char *method,
                             const char *name)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const char *body_version = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "_meta"), META_VERSION));
    const char *body_method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    if (!version)
        return mismatch(msg, "Header mismatch: the MCP-Protocol-Version header is required%s%s", "", "");
    if (body_version && !same(version, body_version))
        return mismatch(msg, "Header mismatch: MCP-Protocol-Version header value '%.100s' does not "
                             "match body value '%.100s'", version, body_version);
    if (!body_method)
        return NULL; /* the core refuses the request itself */
    if (!method)
        return mismatch(msg, "Header mismatch: the Mcp-Method header is required (%.100s)%s",
                        body_method, "");
    if (!same(method, body_method))
        return mismatch(msg, "Header mismatch: Mcp-Method header value '%.100s' does not match "
                             "body value '%.100s'", method, body_method);
    /* the tasks extension routes tasks/get, tasks/update and tasks/cancel by their taskId */
    const char *key = strcmp(body_method, "resources/read") == 0 ? "uri"
                      : strcmp(body_method, "tools/call") == 0 ||
                                strcmp(body_method, "prompts/get") == 0
                          ? "name"
                      : strcmp(body_method, "tasks/get") == 0 ||
                                strcmp(body_method, "tasks/update") == 0 ||
                                strcmp(body_method, "tasks/cancel") == 0
                          ? "taskId"
                          : NULL;
    const char *body_name = key ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, key))
                                : NULL;
    if (!body_name)
        return NULL;
    if (!name)
        return mismatch(msg, "Header mismatch: the Mcp-Name header is required for %.100s%s",
                        body_method, "");
    char *decoded = header_value(name);
    bool ok = decoded && same(decoded, body_name);
    free(decoded);
    return ok ? NULL
              : mismatch(msg, "Header mismatch: Mcp-Name header value '%.100s' does not match body "
                              "value '%.100s'", name, body_name);
}

/* A parameter's value as its header carries it: strings as they are, integers in decimal,
 * booleans as true/false; NULL for another type (not a header's). Heap. */
static char *param_text(const cJSON *v)
{
    if (cJSON_IsString(v))
        return xstrdup(v->valuestring);
    if (cJSON_IsBool(v))
        return xstrdup(cJSON_IsTrue(v) ? "true" : "false");
    if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble)
        return xasprintf("%lld", (long long)v->valuedouble);
    return NULL;
}

/* A plain header value holds visible ASCII, spaces and tabs only. */
static bool plain_chars(const char *h)
{
    for (const unsigned char *c = (const unsigned char *)h; *c; c++)
        if ((*c < 0x20 && *c != '\t') || *c > 0x7e)
            return false;
    return true;
}

cJSON *tg_http_check_params(const cJSON *msg, const cJSON *specs,
                            const char *(*get)(void *ctx, const char *name), void *ctx)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(msg, "params"), "arguments");
    const cJSON *spec;
    cJSON_ArrayForEach(spec, specs) {
        const char *name = tg_json_get_string(spec, "header");
        const cJSON *v = args, *key;
        cJSON_ArrayForEach(key, tg_json_get(spec, "path"))
            v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key->valuestring) : NULL;
        char *header = xasprintf("Mcp-Param-%s", name);
        const char *got = get(ctx, header);
        char *want = v ? param_text(v) : NULL;
        char *decoded = got && plain_chars(got) ? header_value(got) : NULL;
        cJSON *bad = NULL;
        if (got && !decoded)
            bad = mismatch(msg, "Header mismatch: %s holds characters a header may not carry, or "
                                "broken Base64%s", header, "");
        else if (want && !got)
            bad = mismatch(msg, "Header mismatch: the %s header is required: the tool's "
                                "inputSchema marks the parameter with x-mcp-header (%s)", header,
                           tg_json_get_string(spec, "header"));
        else if (got && (!want || !same(decoded, want)))
            bad = mismatch(msg, "Header mismatch: %s header value '%.100s' does not match the "
                                "body", header, got);
        free(header);
        free(want);
        free(decoded);
        if (bad)
            return bad;
    }
    return NULL;
}

unsigned tg_http_status_of(const cJSON *reply, tg_serve_era era)
{
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (!error)
        return 200;
    int code = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(error, "code"));
    switch (code) {
    case TG_RPC_PARSE_ERROR:
    case TG_RPC_INVALID_REQUEST:
    case TG_RPC_HEADER_MISMATCH:
    case TG_RPC_UNSUPPORTED_VERSION:
    case TG_RPC_MISSING_CAPABILITY:
        return 400;
    case TG_RPC_METHOD_NOT_FOUND:
        return era == TG_ERA_MODERN ? 404 : 200;
    default:
        return 200;
    }
}
