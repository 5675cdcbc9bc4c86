/*
 * core.h — the MCP protocol core of toolgen serve: one parsed JSON-RPC message in, the reply out.
 * No I/O: transports (serve/stdio.h) read and write, the core only decides; unit tests drive it
 * directly.
 *
 * Two protocol eras are served from the same core, chosen per request (docs/mcp.md):
 *
 *   - the current revision, 2026-07-28, is stateless: a request whose params._meta carries
 *     "io.modelcontextprotocol/protocolVersion" is served on its own, with no handshake;
 *     server/discover is answered, results carry resultType, list results ttlMs and cacheScope,
 *     and an unknown version gets UnsupportedProtocolVersionError (-32022) with the supported
 *     list;
 *   - the legacy era, 2024-11-05 … 2025-11-25, starts with initialize (version negotiation);
 *     afterwards requests without that _meta are served under the negotiated revision. Before
 *     initialize only ping is answered; everything else is refused with -32602, which is also
 *     what a 2026-07-28 request without its _meta gets.
 *
 * Both eras share the methods: tools/list and tools/call (the config's providers,
 * serve/provider.h, in order; the core knows none of them), resources/list,
 * resources/read and resources/templates/list (serve/resources.h, and the files calls wrote,
 * serve/artifacts.h), prompts/list and prompts/get (serve/prompts.h), completion/complete
 * (serve/complete.h).
 *
 * A session (tg_serve_session) is the per-connection state of the legacy era: one per stdio
 * process. The configuration is only read, except for the store of kept files it points to
 * (calls add to it), so one thread serves at a time: the one holding the core lock of
 * serve/dispatch.h, which long work inside a request lets go of. Every reply is a new cJSON tree
 * the caller owns; the message is never modified. Errors are JSON-RPC error replies, never
 * crashes: any input, however malformed, gets a reply or (for notifications) none.
 */
#ifndef TG_SERVE_CORE_H
#define TG_SERVE_CORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/json.h"

#include "serve/complete.h"
#include "serve/mrtr.h"
#include "serve/notify.h"
#include "serve/prompts.h"
#include "serve/provider.h"
#include "serve/resources.h"
#include "serve/toolcall.h"
#include "serve/tools.h"
#include "serve/toolset.h"

/* The revision of the stateless era. */
#define TG_SERVE_MODERN_VERSION "2026-07-28"
/* The legacy revisions initialize accepts, newest first, NULL-terminated. */
extern const char *const tg_serve_legacy_versions[];

/* JSON-RPC and MCP error codes the core answers with. */
enum {
    TG_RPC_PARSE_ERROR = -32700,
    TG_RPC_INVALID_REQUEST = -32600,
    TG_RPC_METHOD_NOT_FOUND = -32601,
    TG_RPC_INVALID_PARAMS = -32602,
    TG_RPC_INTERNAL_ERROR = -32603,
    TG_RPC_UNSUPPORTED_VERSION = -32022,
    TG_RPC_MISSING_CAPABILITY = -32021, /* MissingRequiredClientCapabilityError (2026-07-28) */
    TG_RPC_RESOURCE_NOT_FOUND_LEGACY = -32002, /* 2026-07-28 uses -32602 instead */
};

/* How the transports parse a JSON-RPC message: a lone surrogate escape is a parse error, since
 * the reply's id must be the request's, and a UTF-8 string cannot hold one. */
extern const tg_json_limits tg_serve_message_limits;

#define TG_SERVE_PAGE_SIZE 100 /* tools per tools/list page by default */

typedef struct tg_serve_config {
    tg_serve_live *live;         /* when set, the tool set that changes while serving
                                  * (serve/toolset.h): each message is handled with the snapshot
                                  * current when it began (tg_serve_pin), which then stands for
                                  * tools, resources and completion->tools below */
    const tg_serve_tools *tools; /* the served tool set (read by its provider, the resources
                                  * and completion) */
    /* where tools/list and tools/call find tools, in order: an earlier provider's tool hides a
     * later one's of the same name (serve/provider.h) */
    const tg_serve_provider *providers;
    size_t n_providers;
    const tg_serve_resources *resources; /* NULL: no resources capability */
    struct tg_serve_declared *declared;  /* the resources the repository declares, watched for
                                          * subscriptions (serve/declared.h); NULL: none */
    const tg_serve_prompts *prompts;     /* NULL: no prompts capability (serve/prompts.h) */
    const tg_serve_completion *completion; /* NULL: no completions capability (serve/complete.h) */
    const tg_serve_mrtr *mrtr;   /* NULL: a tool's question is a tool error (serve/mrtr.h) */
    struct tg_serve_tasks *tasks; /* the tasks extension's store (serve/tasks.h); NULL: no
                                   * tasks, every call runs in the foreground */
    unsigned list_changed;       /* TG_CHANGED_* lists that may change while serving, announced
                                  * as listChanged and offered by subscriptions/listen */
    tg_serve_call call;       /* how tools/call runs a tool */
    size_t page_size;         /* tools per tools/list page; 0: TG_SERVE_PAGE_SIZE */
    long list_ttl_ms;         /* ttlMs of 2026-07-28 list results */
    const char *instructions; /* for initialize / server/discover; NULL: none */
    /* A client's connection ended for good (an HTTP session deleted or idle past its time):
     * what the server kept for it alone can go (its code sessions, run/session.h). Called
     * with the core lock held; NULL: nothing to do. */
    void (*client_gone)(void *ctx, uint64_t client);
    void *client_gone_ctx;
} tg_serve_config;

typedef struct tg_serve_session {
    uint64_t client;  /* which client this connection is, for what it may read back (the files
                       * its calls wrote); 0: none known (a stateless request). The transport
                       * sets it, from tg_serve_new_client */
    bool initialized; /* initialize was answered */
    char version[16]; /* the legacy revision it negotiated */
    char log_level[16];
    unsigned client_can;         /* TG_CLIENT_* initialize declared (serve/toolcall.h) */
    char client_name[64];        /* initialize's clientInfo, cut to size ("" when none) */
    char client_version[32];
    tg_serve_subs *subs;         /* 2026-07-28 subscriptions/listen streams (serve/notify.h) */
    cJSON *res_subs;             /* URIs of resources/subscribe, an array; NULL: none */
} tg_serve_session;

/*
 * What any server needs to continue an initialized legacy session it has not seen before
 * (docs/scale.md): the negotiated version, the client's capabilities and info and the log
 * level logging/setLevel set, as a JSON
 * object (caller owns). A transport signs it into the session's id; restore sets those members
 * of a fresh session (initialized) and returns false, leaving it as it was, when state is not
 * one (a version this server does not speak).
 */
cJSON *tg_serve_session_state(const tg_serve_session *s);
bool tg_serve_session_restore(tg_serve_session *s, const cJSON *state);

/* A new client identity for a session: unique within the process, never 0. Thread-safe. */
uint64_t tg_serve_new_client(void);

#define TG_SERVE_MAX_RES_SUBS 256 /* resources/subscribe per session */

/* Frees what a session holds (its subscriptions); call it when the connection ends. */
void tg_serve_session_release(tg_serve_session *s);

/* What a transport logs about a message (never its arguments). */
typedef struct tg_serve_log {
    const cJSON *id;        /* borrowed from the message; NULL for notifications */
    char method[64];        /* "" when the message had none */
    char tool[128];         /* tools/call: the tool's name */
    tg_serve_era era;
    bool notification;
    int rpc_error;          /* the reply's JSON-RPC error code; 0 when it is a result */
    const char *tool_error; /* a tools/call result with isError: its error code (static) */
} tg_serve_log;

/*
 * Handles one parsed message (any JSON value). Returns the reply, or NULL when none is due
 * (notifications, responses). log (required) is filled for the transport's log line. With
 * c->live set the message is served with the current snapshot, held until the reply is built.
 */
cJSON *tg_serve_handle(const tg_serve_config *c, tg_serve_session *s, const cJSON *msg,
                       tg_serve_log *log);

/* What the server adds to one request (serve/dispatch.h). */
typedef struct tg_serve_reqctx {
    struct tg_serve_dispatch *dispatch;  /* whose core lock the caller holds: long work inside
                                          * the request lets go of it; NULL: none */
    const volatile sig_atomic_t *cancel; /* the request's own cancel flag; NULL: c->call's */
    uint64_t client;                     /* who asks (tg_serve_session.client), whatever the
                                          * era; 0: the session's, if any */
    struct tg_serve_call_slot *slot;     /* the call in flight the request is (serve/dispatch.h);
                                          * NULL: not a call */
} tg_serve_reqctx;
/* tg_serve_handle with the request's context (rq NULL: none, as tg_serve_handle). */
cJSON *tg_serve_handle_in(const tg_serve_config *c, tg_serve_session *s, const cJSON *msg,
                          tg_serve_log *log, const tg_serve_reqctx *rq);

/*
 * A configuration pinned to one snapshot of the live tool set: a transport that queues a
 * message pins it when the message arrives, so the request keeps the tool set it started
 * with however long it waits and runs. p->c is c with live NULL and tools, resources and
 * completion pointing into the snapshot p holds a reference to (c->live NULL: p->c is *c).
 * p must not move while p->c is used; tg_serve_unpin drops the reference.
 */
typedef struct tg_serve_pinned {
    tg_serve_config c;
    tg_serve_completion completion;
    tg_serve_toolset *set;
} tg_serve_pinned;
void tg_serve_pin(const tg_serve_config *c, tg_serve_pinned *p);
void tg_serve_unpin(tg_serve_pinned *p);

/* {"jsonrpc":"2.0","id":id,"error":{"code","message"}}; id NULL (unknown): no id member, as
 * MCP's schema has it (JSON-RPC 2.0 itself would send null). */
cJSON *tg_serve_error_reply(const cJSON *id, int code, const char *message);

/*
 * Progress and cancellation of a call in flight are the dispatch's business (serve/dispatch.h:
 * only it sees time pass and messages arrive while a call runs); these helpers keep the message
 * formats here.
 */
/* The progressToken of a tools/call request (params._meta.progressToken), or NULL. */
const cJSON *tg_serve_progress_token(const cJSON *msg);
/* A notifications/progress message for token; progress must grow from one to the next;
 * message may be NULL. */
cJSON *tg_serve_progress_notification(const cJSON *token, double progress, const char *message);
/* true when msg is notifications/cancelled naming the request id. */
bool tg_serve_cancels(const cJSON *msg, const cJSON *id);

/* The parameters tool's inputSchema marks with x-mcp-header (a string, integer or boolean
 * property reached through properties keys only, its value an HTTP token): [{header, path:
 * [keys]}], or NULL when none or no such tool (serve/httpcheck.h checks the headers). */
cJSON *tg_serve_header_params(const tg_serve_config *c, const char *tool);

/* Whether subscriptions/listen is offered: something can change (a list, declared resources). */
bool tg_serve_listens(const tg_serve_config *c);

/* The name of an era for logs: "legacy", "2026-07-28" or null-ish "". */
const char *tg_serve_era_name(tg_serve_era e);

#endif
