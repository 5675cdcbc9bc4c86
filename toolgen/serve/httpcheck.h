/*
 * httpcheck.h — the checks of the Streamable HTTP transport that need no socket: Host and
 * Origin against DNS rebinding, the bearer token, the MCP request headers against the body, and the HTTP status of
 * a JSON-RPC reply (docs/mcp.md, "Streamable HTTP"). Pure functions over strings and cJSON, so
 * unit tests drive them without a server; serve/http.c calls them for every request.
 */
#ifndef TG_SERVE_HTTPCHECK_H
#define TG_SERVE_HTTPCHECK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "serve/core.h"

#define TG_RPC_HEADER_MISMATCH (-32020) /* 2026-07-28 HeaderMismatch */

/* true when host (a Host header: name or address, optional :port) names this machine's
 * loopback: localhost, 127.0.0.1 or [::1]. NULL (no Host header) is false. */
bool tg_http_host_is_loopback(const char *host);

/* true when the Origin header may reach the server: absent (not a browser), a loopback origin
 * (http(s)://localhost|127.0.0.1|[::1][:port]), or one of allowed (exact, NULL-terminated; may
 * be NULL). "null" and anything else are refused. */
bool tg_http_origin_allowed(const char *origin, const char *const *allowed);
/* true when the address serve binds to (NULL: 127.0.0.1) is this machine's loopback, so that no
 * other machine can connect: 127.0.0.1, ::1 or localhost. */
bool tg_http_bind_is_loopback(const char *bind);
/* true when an Authorization header carries token as `Bearer TOKEN` (the scheme in any case).
 * The comparison takes the same time wherever the two differ (it compares their SHA-256
 * digests in constant time), so response times tell an attacker nothing of the token. */
bool tg_http_bearer_ok(const char *authorization, const char *token);

/* true when msg is a 2026-07-28 request (params._meta names a protocol version). */
bool tg_http_is_modern(const cJSON *msg);

/*
 * The 2026-07-28 header checks: MCP-Protocol-Version equal to the _meta version, Mcp-Method
 * equal to method, and for tools/call, resources/read and prompts/get Mcp-Name equal to
 * params.name / params.uri, for tasks/get, tasks/update and tasks/cancel (the tasks extension,
 * serve/tasks.h) to params.taskId (a "=?base64?...?=" value decoded first). Headers may be NULL
 * (absent). Returns NULL when they match, else a HeaderMismatch (-32020) error reply naming the
 * header, with msg's id.
 */
cJSON *tg_http_check_headers(const cJSON *msg, const char *version, const char *method,
                             const char *name);

/*
 * The 2026-07-28 Mcp-Param-{Name} checks of a tools/call msg: for each parameter the tool's
 * inputSchema marks with x-mcp-header (specs: [{header, path: [keys]}], tg_serve_header_params),
 * the header get(ctx, "Mcp-Param-Name") returns must be present when the arguments hold the value,
 * carry only what a header may (visible ASCII, spaces, tabs; else Base64 with the "=?base64?...?="
 * sentinel, decoded strictly), and equal the value (strings as they are, integers in decimal,
 * booleans true/false). NULL when they do, else a HeaderMismatch (-32020) reply with msg's id.
 */
cJSON *tg_http_check_params(const cJSON *msg, const cJSON *specs,
                            const char *(*get)(void *ctx, const char *name), void *ctx);

/* The HTTP status of reply in era: 200 for results; for errors 400 (parse, invalid request,
 * header mismatch, unsupported version, a missing client capability), 404 for an unknown method in 2026-07-28 (as its
 * transport asks), 200 otherwise. */
unsigned tg_http_status_of(const cJSON *reply, tg_serve_era era);

#endif
