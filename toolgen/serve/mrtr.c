/* mrtr.c — tools that ask: signed requestState, input_required, requests to the client
 * (mrtr.h). */
#include "serve/mrtr.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/buf.h"
#include "base/errcode.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/strvec.h"
#include "serve/core.h"
#include "serve/dispatch.h"

#define STATE_PREFIX "tg1."
#define STATE_MAX (64u << 10) /* a state longer than this is not one of ours */

/* ---- the signed state ------------------------------------------------------------------------ */

int tg_serve_mrtr_init(tg_serve_mrtr *m, tg_err *err)
{
    *m = (tg_serve_mrtr){.ttl_s = TG_MRTR_TTL_S};
    size_t got = 0;
    while (got < sizeof m->key) {
        ssize_t n = getrandom(m->key + got, sizeof m->key - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return tg_err_set(err, "no random source for the requestState key: %s",
                              strerror(errno));
        got += (size_t)n;
    }
    return 0;
}

static void put_hex(tg_buf *b, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        tg_buf_putc(b, digits[p[i] >> 4]);
        tg_buf_putc(b, digits[p[i] & 15]);
    }
}

int tg_serve_mrtr_init_shared(tg_serve_mrtr *m, const char *secret, tg_err *err)
{
    *m = (tg_serve_mrtr){.ttl_s = TG_MRTR_TTL_S, .shared = true};
    size_t n = strlen(secret);
    for (size_t i = 0; i < n; i++)
        if (secret[i] <= ' ' || secret[i] > '~')
            return tg_err_set(err, "it holds a character other than printable ASCII (a space, "
                                   "a newline or a control character at position %zu): use a "
                                   "random one, e.g. `head -c 32 /dev/urandom | base64`", i + 1);
    if (n < TG_MRTR_SECRET_MIN)
        return tg_err_set(err, "it is %zu characters long, fewer than %d: a key that short can be "
                               "guessed; use a random one, e.g. `head -c 32 /dev/urandom | "
                               "base64`", n, TG_MRTR_SECRET_MIN);
    tg_sha256(secret, n, m->key);
    return 0;
}

/* The MAC of a token of domain over text. */
static void token_mac(const tg_serve_mrtr *m, const char *domain, const void *text, size_t n,
                      unsigned char mac[TG_SHA256_LEN])
{
    tg_buf b;
    tg_buf_init(&b, n + 32);
    tg_buf_puts(&b, domain);
    tg_buf_putc(&b, '\n');
    tg_buf_append(&b, text, n);
    tg_hmac_sha256(m->key, sizeof m->key, b.data, b.len, mac);
    tg_buf_free(&b);
}

char *tg_serve_mrtr_sign_hex(const tg_serve_mrtr *m, const char *domain, const cJSON *payload)
{
    char *text = tg_json_print_compact(payload);
    unsigned char mac[TG_SHA256_LEN];
    token_mac(m, domain, text, strlen(text), mac);
    tg_buf b;
    tg_buf_init(&b, 2 * (strlen(text) + sizeof mac) + 1);
    put_hex(&b, mac, sizeof mac);
    put_hex(&b, (const unsigned char *)text, strlen(text));
    free(text);
    return tg_buf_steal(&b);
}

/* Decodes n hex digits at s into out (n/2 bytes); false on a non-digit. */
static bool get_hex(const char *s, size_t n, unsigned char *out)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        int hi = tg_hexval(s[i]), lo = tg_hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i / 2] = (unsigned char)(hi << 4 | lo);
    }
    return n % 2 == 0;
}

#define TOKEN_MAX 4096u /* hex digits: a session id fits an HTTP header line with room */

cJSON *tg_serve_mrtr_open_hex(const tg_serve_mrtr *m, const char *domain, const char *token)
{
    size_t len = strlen(token), hex_mac = 2 * TG_SHA256_LEN;
    unsigned char mac[TG_SHA256_LEN], want[TG_SHA256_LEN];
    if (len > TOKEN_MAX || len <= hex_mac || !get_hex(token, hex_mac, mac))
        return NULL;
    size_t n = len - hex_mac;
    unsigned char *text = xmalloc(n / 2 + 1);
    cJSON *payload = NULL;
    if (get_hex(token + hex_mac, n, text)) {
        text[n / 2] = '\0';
        token_mac(m, domain, text, n / 2, want);
        if (tg_mem_equal_ct(mac, want, sizeof mac))
            payload = tg_json_parse((const char *)text, n / 2, NULL, NULL, NULL, NULL);
    }
    free(text);
    if (!cJSON_IsObject(payload)) {
        cJSON_Delete(payload);
        return NULL;
    }
    return payload;
}

char *tg_serve_mrtr_seal(const tg_serve_mrtr *m, const cJSON *payload)
{
    char *text = tg_json_print_compact(payload);
    unsigned char mac[TG_SHA256_LEN];
    tg_hmac_sha256(m->key, sizeof m->key, text, strlen(text), mac);
    tg_buf b;
    tg_buf_init(&b, 2 * strlen(text) + 80);
    tg_buf_puts(&b, STATE_PREFIX);
    put_hex(&b, mac, sizeof mac);
    tg_buf_putc(&b, '.');
    put_hex(&b, (const unsigned char *)text, strlen(text));
    free(text);
    return tg_buf_steal(&b);
}

cJSON *tg_serve_mrtr_open(const tg_serve_mrtr *m, const char *state, time_t now, char *msg,
                          size_t msg_size)
{
    size_t len = strlen(state), hex_mac = 2 * TG_SHA256_LEN, start = strlen(STATE_PREFIX);
    unsigned char mac[TG_SHA256_LEN], want[TG_SHA256_LEN];
    if (len > STATE_MAX || !tg_str_startswith(state, STATE_PREFIX) || len < start + hex_mac + 1 ||
        state[start + hex_mac] != '.' || !get_hex(state + start, hex_mac, mac)) {
        snprintf(msg, msg_size, "requestState is not one this server issued");
        return NULL;
    }
    const char *hex = state + start + hex_mac + 1;
    size_t n = strlen(hex);
    unsigned char *text = xmalloc(n / 2 + 1);
    cJSON *payload = NULL;
    if (get_hex(hex, n, text)) {
        text[n / 2] = '\0';
        tg_hmac_sha256(m->key, sizeof m->key, text, n / 2, want);
        if (tg_mem_equal_ct(mac, want, sizeof mac))
            payload = tg_json_parse((const char *)text, n / 2, NULL, NULL, NULL, NULL);
    }
    free(text);
    if (!cJSON_IsObject(payload)) {
        cJSON_Delete(payload);
        snprintf(msg, msg_size, "requestState failed verification (altered, or issued by "
                                "another server or an earlier run of this one; instances "
                                "behind one load balancer need the same "
                                "TOOLGEN_SERVE_STATE_KEY)");
        return NULL;
    }
    if (tg_json_get_number(payload, "exp", 0) < (double)now) {
        cJSON_Delete(payload);
        snprintf(msg, msg_size, "requestState has expired");
        return NULL;
    }
    return payload;
}

/* Canonical JSON: object members sorted by key, no whitespace. */
static int by_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static void canonical(tg_buf *b, const cJSON *v)
{
    if (cJSON_IsObject(v)) {
        size_t n = (size_t)cJSON_GetArraySize(v), i = 0;
        const cJSON **kids = xcalloc(n + 1, sizeof *kids);
        for (const cJSON *k = v->child; k; k = k->next)
            kids[i++] = k;
        qsort(kids, n, sizeof *kids, by_key);
        tg_buf_putc(b, '{');
        for (i = 0; i < n; i++) {
            tg_buf_puts(b, i ? "," : "");
            tg_buf_json_string(b, kids[i]->string);
            tg_buf_putc(b, ':');
            canonical(b, kids[i]);
        }
        tg_buf_putc(b, '}');
        free(kids);
    } else if (cJSON_IsArray(v)) {
        tg_buf_putc(b, '[');
        for (const cJSON *k = v->child; k; k = k->next) {
            tg_buf_puts(b, k == v->child ? "" : ",");
            canonical(b, k);
        }
        tg_buf_putc(b, ']');
    } else {
        char *t = tg_json_print_compact(v);
        tg_buf_puts(b, t);
        free(t);
    }
}

char *tg_serve_mrtr_digest(const cJSON *args)
{
    tg_buf b;
    tg_buf_init(&b, 256);
    canonical(&b, args);
    unsigned char d[TG_SHA256_LEN];
    tg_sha256(b.data, b.len, d);
    tg_buf_reset(&b);
    put_hex(&b, d, sizeof d);
    return tg_buf_steal(&b);
}

/* ---- questions ------------------------------------------------------------------------------- */

/* The requests a server may send its client, and the capability each needs. */
static const struct {
    const char *method;
    unsigned can;
    const char *capability;
} kinds[] = {
    {"elicitation/create", TG_CLIENT_ELICITS, "elicitation"},
    {"sampling/createMessage", TG_CLIENT_SAMPLES, "sampling"},
    {"roots/list", TG_CLIENT_ROOTS, "roots"},
};

static size_t kind_of(const cJSON *q)
{
    const char *method = tg_json_get_string(q, "method");
    for (size_t i = 0; method && i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(method, kinds[i].method) == 0)
            return i;
    return 0; /* the runner checked the method (run/rt_runner.c) */
}

/* A copy of the members of o named in keep (an object; missing o: an empty one). */
static cJSON *kept(const cJSON *o, const char *const *keep)
{
    cJSON *r = cJSON_CreateObject();
    for (const cJSON *k = cJSON_IsObject(o) ? o->child : NULL; k; k = k->next)
        if (tg_strlist_has(keep, k->string))
            cJSON_AddItemToObject(r, k->string, cJSON_Duplicate(k, true));
    return r;
}

/* A form's schema with the keywords MCP's PrimitiveSchemaDefinition and its enum variants
 * have (titled and multi-select enums, defaults), each field's members and no others. */
static cJSON *form_schema(const cJSON *rs)
{
    static const char *const field[] = {"type", "title", "description", "enum", "enumNames",
                                        "oneOf", "anyOf", "items", "minItems", "maxItems",
                                        "minimum", "maximum", "minLength", "maxLength", "format",
                                        "default", NULL};
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(out, "properties");
    const cJSON *in = tg_json_get(rs, "properties");
    for (const cJSON *p = cJSON_IsObject(in) ? in->child : NULL; p; p = p->next)
        cJSON_AddItemToObject(props, p->string, kept(p, field));
    const cJSON *req = tg_json_get(rs, "required");
    cJSON *required = cJSON_AddArrayToObject(out, "required");
    for (const cJSON *r = cJSON_IsArray(req) ? req->child : NULL; r; r = r->next)
        if (cJSON_IsString(r) && cJSON_GetObjectItemCaseSensitive(props, r->valuestring))
            cJSON_AddItemToArray(required, cJSON_CreateString(r->valuestring));
    return out;
}

/* The params the client is sent for question q, rebuilt with only what MCP defines. */
static cJSON *clean_params(const cJSON *q)
{
    static const char *const sampling[] = {"messages", "maxTokens", "systemPrompt",
                                           "temperature", "stopSequences", "modelPreferences",
                                           NULL};
    const cJSON *in = tg_json_get(q, "params");
    size_t kind = kind_of(q);
    if (kind == 1)
        return kept(in, sampling);
    if (kind == 2)
        return cJSON_CreateObject();
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "mode", "form");
    const char *message = tg_json_get_string(in, "message");
    cJSON_AddStringToObject(p, "message", message ? message : "");
    cJSON_AddItemToObject(p, "requestedSchema", form_schema(tg_json_get(in, "requestedSchema")));
    return p;
}

static void tool_error(tg_serve_outcome *out, const js_schema *output, const char *message)
{
    out->code = tg_errcode_name(TG_ERR_INVALID_INPUT);
    out->result = tg_serve_error_result(output, out->code, message);
}

/* What the question q asks, for messages. */
static const char *question_text(const cJSON *q)
{
    const char *m = tg_json_get_string(tg_json_get(q, "params"), "message");
    if (!m)
        m = tg_json_get_string(q, "question");
    return m ? m : kind_of(q) == 1 ? "a model's answer (sampling)" : "the client's roots";
}

/*
 * The answer in result (the client's ElicitResult, CreateMessageResult or ListRootsResult) to
 * question q, into answers[key]: an accepted form's content (or its one field), the sampling
 * result, the list of roots. false with out set when the user declined or cancelled. A result
 * that is missing or malformed leaves answers as they were: the question is asked again, as
 * MCP advises.
 */
static bool take_answer(const cJSON *q, const cJSON *result, cJSON *answers, const char *name,
                        const js_schema *output, tg_serve_outcome *out)
{
    const char *key = tg_json_get_string(q, "key");
    size_t kind = kind_of(q);
    const char *action = tg_json_get_string(result, "action");
    if (kind == 0 && action && (strcmp(action, "decline") == 0 || strcmp(action, "cancel") == 0)) {
        char *msg = xasprintf("the user %s the question \"%s\", so %s did not run to the end; "
                              "call it again with the choice in its arguments, or ask the user",
                              strcmp(action, "decline") == 0 ? "declined" : "cancelled",
                              question_text(q), name);
        tool_error(out, output, msg);
        free(msg);
        return false;
    }
    const cJSON *v = NULL;
    if (kind == 0 && action && strcmp(action, "accept") == 0) {
        const char *field = tg_json_get_string(q, "field");
        v = field ? tg_json_get(tg_json_get(result, "content"), field) : tg_json_get(result, "content");
    } else if (kind == 1 && cJSON_IsObject(tg_json_get(result, "content"))) {
        v = result;
    } else if (kind == 2 && cJSON_IsArray(tg_json_get(result, "roots"))) {
        v = tg_json_get(result, "roots");
    }
    if (v && !cJSON_GetObjectItemCaseSensitive(answers, key))
        cJSON_AddItemToObject(answers, key, cJSON_Duplicate(v, true));
    return true;
}

/* Runs the call with answers; its questions come back in *ask. */
static cJSON *run_round(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                        const cJSON *answers, cJSON **ask, tg_serve_outcome *out)
{
    *ask = NULL;
    cJSON *r = tg_serve_tool_call_answered(how, tool, args, answers, ask, &out->code);
    if (*ask && cJSON_GetArraySize(answers) + cJSON_GetArraySize(*ask) > TG_MRTR_MAX_ROUNDS) {
        tool_error(out, tool->output, "the tool asked more questions than a call may (16)");
        cJSON_Delete(*ask);
        *ask = NULL;
        return out->result;
    }
    return r;
}

/* The capabilities questions need that client_can lacks, as ClientCapabilities; NULL: none. */
static cJSON *missing_capabilities(const cJSON *questions, unsigned client_can)
{
    cJSON *missing = NULL;
    for (const cJSON *q = questions->child; q; q = q->next) {
        size_t k = kind_of(q);
        if (client_can & kinds[k].can)
            continue;
        if (!missing)
            missing = cJSON_CreateObject();
        if (!cJSON_GetObjectItemCaseSensitive(missing, kinds[k].capability))
            cJSON_AddObjectToObject(missing, kinds[k].capability);
    }
    return missing;
}

/* The capability names of missing, "sampling and roots" (heap). */
static char *capability_names(const cJSON *missing)
{
    tg_buf b = TG_BUF_INIT;
    for (const cJSON *c = missing->child; c; c = c->next)
        tg_buf_printf(&b, "%s%s", b.len ? (c->next ? ", " : " and ") : "", c->string);
    return tg_buf_steal(&b);
}

/* ---- 2026-07-28 ------------------------------------------------------------------------------ */

/* The payload of a retry's requestState when it is this server's and this call's; NULL with
 * out set (-32602) otherwise. */
static cJSON *open_state(const tg_serve_mrtr *m, const char *name, const cJSON *args,
                         const cJSON *state, tg_serve_outcome *out)
{
    char why[256];
    cJSON *p = cJSON_IsString(state) ? tg_serve_mrtr_open(m, state->valuestring, time(NULL), why,
                                                          sizeof why)
                                     : NULL;
    if (!cJSON_IsString(state))
        snprintf(why, sizeof why, "requestState must be a string");
    char *digest = p ? tg_serve_mrtr_digest(args) : NULL;
    if (p && (!tg_json_get_string(p, "tool") || strcmp(tg_json_get_string(p, "tool"), name) ||
              !tg_json_get_string(p, "args") || strcmp(tg_json_get_string(p, "args"), digest))) {
        snprintf(why, sizeof why, "requestState belongs to another call (a different tool or "
                                  "arguments)");
        cJSON_Delete(p);
        p = NULL;
    }
    free(digest);
    if (!p) {
        out->rpc_error = TG_RPC_INVALID_PARAMS;
        snprintf(out->msg, sizeof out->msg, "%s: %s; call again without requestState and "
                                            "inputResponses", name, why);
    }
    return p;
}

cJSON *tg_serve_mrtr_retry_answers(const tg_serve_mrtr *m, const char *name,
                                   const js_schema *output, const cJSON *args,
                                   const cJSON *params, tg_serve_outcome *out)
{
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(params, "requestState");
    if (!state)
        return cJSON_CreateObject();
    cJSON *p = open_state(m, name, args, state, out);
    if (!p)
        return NULL;
    cJSON *answers = cJSON_DetachItemFromObject(p, "answers");
    if (!cJSON_IsObject(answers)) {
        cJSON_Delete(answers);
        answers = cJSON_CreateObject();
    }
    const cJSON *responses = tg_json_get(params, "inputResponses");
    const cJSON *pending = tg_json_get(p, "pending");
    for (const cJSON *q = cJSON_IsArray(pending) ? pending->child : NULL; q; q = q->next) {
        const cJSON *r = tg_json_get(responses, tg_json_get_string(q, "key"));
        if (r && !take_answer(q, r, answers, name, output, out)) {
            cJSON_Delete(answers);
            answers = NULL;
            break;
        }
    }
    cJSON_Delete(p);
    return answers;
}

/* What the state keeps of a question: what take_answer and its messages need. */
static cJSON *pending_of(const cJSON *q)
{
    static const char *const keep[] = {"key", "method", "field", NULL};
    cJSON *p = kept(q, keep);
    const char *m = tg_json_get_string(tg_json_get(q, "params"), "message");
    if (m)
        cJSON_AddStringToObject(p, "question", m);
    return p;
}

void tg_serve_mrtr_need(const tg_serve_mrtr *m, const char *name, unsigned client_can,
                        const cJSON *args, const cJSON *answers, const cJSON *questions,
                        tg_serve_outcome *out)
{
    cJSON *missing = missing_capabilities(questions, client_can);
    if (missing) {
        char *names = capability_names(missing);
        out->rpc_error = TG_RPC_MISSING_CAPABILITY;
        snprintf(out->msg, sizeof out->msg, "%s needs the client's %s, which the request's "
                                            "clientCapabilities do not declare", name, names);
        free(names);
        out->rpc_data = cJSON_CreateObject();
        cJSON_AddItemToObject(out->rpc_data, "requiredCapabilities", missing);
        return;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "resultType", "input_required");
    cJSON *reqs = cJSON_AddObjectToObject(r, "inputRequests");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "tool", name);
    char *digest = tg_serve_mrtr_digest(args);
    cJSON_AddStringToObject(p, "args", digest);
    free(digest);
    cJSON_AddItemToObject(p, "answers", cJSON_Duplicate(answers, true));
    cJSON *pending = cJSON_AddArrayToObject(p, "pending");
    for (const cJSON *q = questions->child; q; q = q->next) {
        cJSON *req = cJSON_AddObjectToObject(reqs, tg_json_get_string(q, "key"));
        cJSON_AddStringToObject(req, "method", tg_json_get_string(q, "method"));
        cJSON_AddItemToObject(req, "params", clean_params(q));
        cJSON_AddItemToArray(pending, pending_of(q));
    }
    cJSON_AddNumberToObject(p, "exp", (double)(time(NULL) + (m->ttl_s ? m->ttl_s : TG_MRTR_TTL_S)));
    char *state = tg_serve_mrtr_seal(m, p);
    cJSON_AddStringToObject(r, "requestState", state);
    free(state);
    cJSON_Delete(p);
    out->result = r;
}

void tg_serve_mrtr_call_modern(const tg_serve_mrtr *m, const tg_serve_call *how,
                               const tg_serve_tool *tool, const cJSON *args, const cJSON *params,
                               tg_serve_outcome *out)
{
    *out = (tg_serve_outcome){0};
    cJSON *answers = tg_serve_mrtr_retry_answers(m, tool->m.name, tool->output, args, params, out);
    if (!answers)
        return;
    cJSON *ask;
    cJSON *r = run_round(how, tool, args, answers, &ask, out);
    if (ask)
        tg_serve_mrtr_need(m, tool->m.name, how->client_can, args, answers, ask, out);
    else
        out->result = r;
    cJSON_Delete(ask);
    cJSON_Delete(answers);
}

/* ---- legacy ---------------------------------------------------------------------------------- */

int tg_serve_mrtr_ask_now(const tg_serve_call *how, const char *name, const js_schema *output,
                          const cJSON *questions, cJSON *answers, tg_serve_outcome *out)
{
    cJSON *missing = missing_capabilities(questions, how->client_can);
    if (missing) {
        char *names = capability_names(missing);
        char *msg = xasprintf("%s needs what the client cannot be asked for (it did not declare "
                              "the %s capability): %s Pass the choice in the arguments if the "
                              "input schema has it.", name, names, question_text(questions->child));
        tool_error(out, output, msg);
        free(msg);
        free(names);
        cJSON_Delete(missing);
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(questions), i = 0;
    const char **methods = xcalloc(n + 1, sizeof *methods);
    cJSON **params = xcalloc(n + 1, sizeof *params), **responses = xcalloc(n + 1, sizeof *responses);
    for (const cJSON *q = questions->child; q; q = q->next, i++) {
        methods[i] = tg_json_get_string(q, "method");
        params[i] = clean_params(q);
    }
    char why[256];
    int rc = tg_serve_call_ask(how->slot, methods, (const cJSON *const *)params, responses, n,
                               TG_MRTR_WAIT_MS, why, sizeof why);
    if (rc != 0) {
        char *msg = xasprintf("%s could not ask the client: %s", name, why);
        tool_error(out, output, msg);
        free(msg);
    }
    i = 0;
    for (const cJSON *q = questions->child; q && rc == 0; q = q->next, i++) {
        const cJSON *result = tg_json_get(responses[i], "result");
        if (!cJSON_IsObject(result)) { /* the client answered with an error */
            char *msg = xasprintf("the client could not answer the %s request of %s (it answered "
                                  "with an error)", methods[i], name);
            tool_error(out, output, msg);
            free(msg);
            rc = -1;
        } else if (!take_answer(q, result, answers, name, output, out)) {
            rc = -1;
        }
    }
    for (i = 0; i < n; i++) {
        cJSON_Delete(params[i]);
        cJSON_Delete(responses[i]);
    }
    free(methods);
    free(params);
    free(responses);
    return rc;
}

void tg_serve_mrtr_call_legacy(const tg_serve_call *how, const tg_serve_tool *tool,
                               const cJSON *args, tg_serve_outcome *out)
{
    *out = (tg_serve_outcome){0};
    cJSON *answers = cJSON_CreateObject();
    for (;;) {
        cJSON *ask;
        cJSON *r = run_round(how, tool, args, answers, &ask, out);
        if (!ask) {
            out->result = r;
            break;
        }
        int rc = tg_serve_mrtr_ask_now(how, tool->m.name, tool->output, ask, answers, out);
        cJSON_Delete(ask);
        if (rc != 0)
            break;
    }
    cJSON_Delete(answers);
}
