/*
 * mrtr.h — a tool asks the client for input it lacks (docs/mcp.md#asking-the-user).
 *
 * A tool asks through its runner (toolgen_helpers.ask(key, message, schema) in Python): the call
 * ends with the question instead of a result (tg_call_result.ask, run/toolrun.h), and is run
 * again from the start with every answer so far in tg_tool_call.answers. Re-running is what
 * MCP's Multi Round-Trip Requests ask of a server, and it keeps the server stateless: nothing
 * of a call survives between rounds except what the client carries back.
 *
 *   - 2026-07-28: the tools/call result is an InputRequiredResult (resultType "input_required")
 *     with an elicitation/create form in inputRequests and a requestState: the tool, a SHA-256
 *     digest of the arguments, the answers so far, the pending question's key and an expiry,
 *     signed with HMAC-SHA-256 under a random key drawn when the server starts. The client
 *     retries tools/call with inputResponses and the requestState; a state that was altered,
 *     signed by another server (or an earlier run of this one), expired, or presented with
 *     another tool or other arguments is refused with -32602.
 *   - legacy: the server sends the client an elicitation/create request (when the client
 *     declared the elicitation capability at initialize) and keeps the call pending in the
 *     session; the client's response resumes it, and the final reply goes to the original
 *     tools/call id.
 *
 * A client that cannot be asked gets a tool error (INVALID_INPUT) that says what the tool
 * needed. Declining or cancelling the question ends the call with a tool error too.
 */
#ifndef TG_SERVE_MRTR_H
#define TG_SERVE_MRTR_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "serve/provider.h"
#include "serve/tools.h"

#define TG_MRTR_KEY_LEN 32
#define TG_MRTR_TTL_S 600      /* a requestState expires 10 minutes after it was issued */
#define TG_MRTR_MAX_ROUNDS 16  /* questions per call */

typedef struct tg_serve_mrtr {
    unsigned char key[TG_MRTR_KEY_LEN]; /* the HMAC key, random per server */
    long ttl_s;                         /* 0: TG_MRTR_TTL_S */
} tg_serve_mrtr;

/* Draws the key from the kernel's random source. -1 with err when none is available. */
int tg_serve_mrtr_init(tg_serve_mrtr *m, tg_err *err);

/* "tg1.<hex HMAC>.<hex payload>" for the JSON object payload (heap). */
char *tg_serve_mrtr_seal(const tg_serve_mrtr *m, const cJSON *payload);
/* The payload of a state this server sealed, not expired at now; NULL with why in msg. */
cJSON *tg_serve_mrtr_open(const tg_serve_mrtr *m, const char *state, time_t now, char *msg,
                          size_t msg_size);
/* Hex SHA-256 of args in canonical form (object keys sorted, no spaces), heap. */
char *tg_serve_mrtr_digest(const cJSON *args);

/* A legacy call waiting for the client's answer (owned by the session). */
typedef struct tg_serve_pending tg_serve_pending;
void tg_serve_pending_free(tg_serve_pending *p);

/*
 * tools/call of tool with args in the 2026-07-28 era: params carry requestState and
 * inputResponses on a retry, client_caps the request's clientCapabilities.
 */
void tg_serve_mrtr_call_modern(const tg_serve_mrtr *m, const tg_serve_call *how,
                               const tg_serve_tool *tool, const cJSON *args, const cJSON *params,
                               const cJSON *client_caps, tg_serve_outcome *out);

/*
 * tools/call in the legacy era: a question becomes an elicitation/create request when
 * client_elicits, and the call waits in *pending (replacing — and answering with an error —
 * none: a second question while one waits is refused as a tool error). id is the call's;
 * owner tags the tool set tool came from, so that only its provider resumes the call.
 */
void tg_serve_mrtr_call_legacy(const tg_serve_mrtr *m, const tg_serve_call *how,
                               const tg_serve_tool *tool, const cJSON *args, const cJSON *id,
                               bool client_elicits, const void *owner,
                               tg_serve_pending **pending, tg_serve_outcome *out);

/*
 * A JSON-RPC response from the client: when it answers *pending of owner, the call runs again
 * (its tool looked up in tools) and out holds its outcome, due to *reply_id (a new copy of the
 * original call's id, the caller's); returns false when the response is not for us.
 */
bool tg_serve_mrtr_resume(const tg_serve_mrtr *m, const tg_serve_call *how,
                          const tg_serve_tools *tools, const void *owner,
                          const cJSON *response, tg_serve_pending **pending, cJSON **reply_id,
                          tg_serve_outcome *out);

#endif
