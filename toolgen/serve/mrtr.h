/*
 * mrtr.h — a tool asks the client for what it lacks (docs/mcp.md#asking-the-user): the user's
 * choice (elicitation/create), an answer of the client's model (sampling/createMessage), the
 * client's roots (roots/list) — one question or several at once.
 *
 * A tool asks through its runner (toolgen_helpers.ask, sample, roots in Python): the call ends
 * with its questions instead of a result (tg_call_result.ask, run/toolrun.h), and is run again
 * from the start with every answer so far in tg_tool_call.answers. What the client is shown is
 * rebuilt from the tool's question with only what MCP defines for it (a form's fields keep the
 * keywords of PrimitiveSchemaDefinition and its enum variants).
 *
 *   - 2026-07-28 (Multi Round-Trip Requests): the tools/call result is an InputRequiredResult
 *     with the questions in inputRequests (by key) and a requestState: the tool, a SHA-256
 *     digest of the arguments, the answers so far, the pending questions and an expiry, signed
 *     with HMAC-SHA-256 under the server's key: drawn at random when it starts, or derived
 *     from a secret every instance behind a load balancer shares (TOOLGEN_SERVE_STATE_KEY,
 *     docs/scale.md), so that any of them continues the call. The client retries
 *     tools/call with inputResponses and the requestState; a state that was altered, signed by
 *     another server (or an earlier run of this one), expired, or presented with another tool
 *     or other arguments is refused with -32602. A question the client's capabilities do not
 *     cover is MissingRequiredClientCapabilityError (-32021, data.requiredCapabilities).
 *   - legacy: the server sends the client the questions as requests on the call's own
 *     connection (serve/dispatch.h: tg_serve_call_ask) and the call waits for the responses —
 *     its progress and cancellation going on — then runs again with the answers, until it
 *     ends. A client without the capability a question needs gets a tool error that says what
 *     the tool needed.
 *
 * Declining or cancelling a question ends the call with a tool error (INVALID_INPUT), and so
 * does a client that answers a request with an error.
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
#define TG_MRTR_WAIT_MS (10 * 60 * 1000L) /* how long a legacy call waits for answers */

#define TG_MRTR_SECRET_MIN 32 /* characters of a shared secret (TOOLGEN_SERVE_STATE_KEY) */

typedef struct tg_serve_mrtr {
    unsigned char key[TG_MRTR_KEY_LEN]; /* the HMAC key */
    bool shared;                        /* derived from a secret other instances hold too: what
                                         * this one signs, they accept, and the other way round */
    long ttl_s;                         /* 0: TG_MRTR_TTL_S */
} tg_serve_mrtr;

/* Draws the key from the kernel's random source. -1 with err when none is available. */
int tg_serve_mrtr_init(tg_serve_mrtr *m, tg_err *err);
/* The key of the instances that share secret (TG_MRTR_SECRET_MIN or more printable ASCII
 * characters, no spaces: e.g. `head -c 32 /dev/urandom | base64`): its SHA-256. -1 with err
 * saying what is wrong with it (never its value). */
int tg_serve_mrtr_init_shared(tg_serve_mrtr *m, const char *secret, tg_err *err);

/*
 * A signed token in lowercase hex digits only (an HTTP header value as it is): the HMAC of
 * domain and the payload's compact JSON, then the JSON itself. domain keeps tokens of one use
 * (a session id, "session") from passing for another's. Heap.
 */
char *tg_serve_mrtr_sign_hex(const tg_serve_mrtr *m, const char *domain, const cJSON *payload);
/* The payload of a token tg_serve_mrtr_sign_hex made under this key and domain (an object),
 * or NULL (not hex, too long, altered, or signed under another key). */
cJSON *tg_serve_mrtr_open_hex(const tg_serve_mrtr *m, const char *domain, const char *token);

/* "tg1.<hex HMAC>.<hex payload>" for the JSON object payload (heap). */
char *tg_serve_mrtr_seal(const tg_serve_mrtr *m, const cJSON *payload);
/* The payload of a state this server sealed, not expired at now; NULL with why in msg. */
cJSON *tg_serve_mrtr_open(const tg_serve_mrtr *m, const char *state, time_t now, char *msg,
                          size_t msg_size);
/* Hex SHA-256 of args in canonical form (object keys sorted, no spaces), heap. */
char *tg_serve_mrtr_digest(const cJSON *args);

/*
 * tools/call of tool with args in the 2026-07-28 era: params carry requestState and
 * inputResponses on a retry; how->client_can says what the client can be asked.
 */
void tg_serve_mrtr_call_modern(const tg_serve_mrtr *m, const tg_serve_call *how,
                               const tg_serve_tool *tool, const cJSON *args, const cJSON *params,
                               tg_serve_outcome *out);

/*
 * tools/call in the legacy era: each round's questions go to the client through the call's
 * connection (how->slot), answered ones make the next round, until the tool returns.
 */
void tg_serve_mrtr_call_legacy(const tg_serve_call *how, const tg_serve_tool *tool,
                               const cJSON *args, tg_serve_outcome *out);

/*
 * The parts, for callers other than a served tool (the workflow's questions to the user):
 * questions is an array of {key, method, params, field?} as a runner writes them; name and
 * output (NULL: none) say whose questions they are, for the state and the tool errors.
 */
/* 2026-07-28: the answers a retry's requestState and inputResponses carry ({} on a first
 * call); NULL with out set (a refused state, or a declined question). */
cJSON *tg_serve_mrtr_retry_answers(const tg_serve_mrtr *m, const char *name,
                                   const js_schema *output, const cJSON *args,
                                   const cJSON *params, tg_serve_outcome *out);
/* 2026-07-28: the InputRequiredResult asking questions (answers: those so far), or -32021 when
 * the client cannot be asked them; into out. */
void tg_serve_mrtr_need(const tg_serve_mrtr *m, const char *name, unsigned client_can,
                        const cJSON *args, const cJSON *answers, const cJSON *questions,
                        tg_serve_outcome *out);
/* legacy: asks the client questions now and adds the answers to answers; 0, or -1 with out
 * set (the client cannot be asked, said no, or failed to answer). */
int tg_serve_mrtr_ask_now(const tg_serve_call *how, const char *name, const js_schema *output,
                          const cJSON *questions, cJSON *answers, tg_serve_outcome *out);

#endif
