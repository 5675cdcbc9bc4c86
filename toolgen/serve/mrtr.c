/* mrtr.c — tools that ask: signed requestState, input_required, elicitation (mrtr.h). */
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
                                "another server or an earlier run of this one)");
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

/* ---- the question ---------------------------------------------------------------------------- */

/* The elicitation/create params of a question: a form with one field, the answer. Only the
 * keywords of MCP's PrimitiveSchemaDefinition are passed on. */
static cJSON *elicit_params(const cJSON *ask)
{
    static const char *const keep[] = {"type", "title", "description", "enum", "enumNames",
                                       "minimum", "maximum", "minLength", "maxLength",
                                       "format", "default", NULL};
    const char *key = tg_json_get_string(ask, "key");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "mode", "form");
    cJSON_AddStringToObject(p, "message", tg_json_get_string(ask, "message"));
    cJSON *rs = cJSON_AddObjectToObject(p, "requestedSchema");
    cJSON_AddStringToObject(rs, "type", "object");
    cJSON *field = cJSON_CreateObject();
    for (const cJSON *k = tg_json_get(ask, "schema")->child; k; k = k->next)
        if (tg_strlist_has(keep, k->string))
            cJSON_AddItemToObject(field, k->string, cJSON_Duplicate(k, true));
    cJSON_AddItemToObject(cJSON_AddObjectToObject(rs, "properties"), key, field);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rs, "required"), cJSON_CreateString(key));
    return p;
}

static void tool_error(tg_serve_outcome *out, const tg_serve_tool *tool, const char *message)
{
    out->code = tg_errcode_name(TG_ERR_INVALID_INPUT);
    out->result = tg_serve_error_result(tool->output, out->code, message);
}

/* The answer of an ElicitResult for key into answers; false (out filled) when the user said
 * no. A response that is missing or malformed leaves answers as they were: the question is
 * asked again, as MCP advises. */
static bool take_answer(const cJSON *resp, const char *key, const char *question,
                        cJSON *answers, const tg_serve_tool *tool, tg_serve_outcome *out)
{
    const char *action = tg_json_get_string(resp, "action");
    if (action && (strcmp(action, "decline") == 0 || strcmp(action, "cancel") == 0)) {
        char *m = xasprintf("the user %s the question \"%s\", so %s did not run to the end; "
                            "call it again with the choice in its arguments, or ask the user",
                            strcmp(action, "decline") == 0 ? "declined" : "cancelled",
                            question, tool->m.name);
        tool_error(out, tool, m);
        free(m);
        return false;
    }
    const cJSON *v = tg_json_get(tg_json_get(resp, "content"), key);
    if (action && strcmp(action, "accept") == 0 && v && !cJSON_GetObjectItemCaseSensitive(answers, key))
        cJSON_AddItemToObject(answers, key, cJSON_Duplicate(v, true));
    return true;
}

/* Runs the call with answers; a question comes back in *ask. */
static cJSON *run_round(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                        const cJSON *answers, cJSON **ask, tg_serve_outcome *out)
{
    *ask = NULL;
    cJSON *r = tg_serve_tool_call_answered(how, tool, args, answers, ask, &out->code);
    if (*ask && cJSON_GetArraySize(answers) >= TG_MRTR_MAX_ROUNDS) {
        tool_error(out, tool, "the tool asked more questions than a call may (16)");
        cJSON_Delete(*ask);
        *ask = NULL;
        return out->result;
    }
    return r;
}

static void cannot_ask(tg_serve_outcome *out, const tg_serve_tool *tool, const cJSON *ask)
{
    char *m = xasprintf("%s needs an answer the client cannot be asked for (it did not declare "
                        "the elicitation capability): %s Pass the choice in the arguments if "
                        "the input schema has it (e.g. '%s').", tool->m.name,
                        tg_json_get_string(ask, "message"), tg_json_get_string(ask, "key"));
    tool_error(out, tool, m);
    free(m);
}

/* ---- 2026-07-28 ------------------------------------------------------------------------------ */

/* The answers carried by a retry's requestState (+ inputResponses); NULL with out set. */
static cJSON *answers_of_retry(const tg_serve_mrtr *m, const tg_serve_tool *tool,
                               const cJSON *args, const cJSON *params, tg_serve_outcome *out)
{
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(params, "requestState");
    if (!state)
        return cJSON_CreateObject();
    char why[256];
    cJSON *p = cJSON_IsString(state) ? tg_serve_mrtr_open(m, state->valuestring, time(NULL), why,
                                                          sizeof why)
                                     : NULL;
    if (!cJSON_IsString(state))
        snprintf(why, sizeof why, "requestState must be a string");
    char *digest = p ? tg_serve_mrtr_digest(args) : NULL;
    if (p && (!tg_json_get_string(p, "tool") || strcmp(tg_json_get_string(p, "tool"), tool->m.name) ||
              !tg_json_get_string(p, "args") || strcmp(tg_json_get_string(p, "args"), digest))) {
        snprintf(why, sizeof why, "requestState belongs to another call (a different tool or "
                                  "arguments)");
        cJSON_Delete(p);
        p = NULL;
    }
    free(digest);
    if (!p) {
        out->rpc_error = -32602;
        snprintf(out->msg, sizeof out->msg, "tools/call: %s; call the tool again without "
                                            "requestState and inputResponses", why);
        return NULL;
    }
    cJSON *answers = cJSON_DetachItemFromObject(p, "answers");
    if (!cJSON_IsObject(answers)) {
        cJSON_Delete(answers);
        answers = cJSON_CreateObject();
    }
    const char *key = tg_json_get_string(p, "pending");
    const cJSON *resp = key ? tg_json_get(tg_json_get(params, "inputResponses"), key) : NULL;
    if (resp && !take_answer(resp, key, tg_json_get_string(p, "question"), answers, tool, out)) {
        cJSON_Delete(answers);
        answers = NULL;
    }
    cJSON_Delete(p);
    return answers;
}

static cJSON *input_required(const tg_serve_mrtr *m, const tg_serve_tool *tool,
                             const cJSON *args, cJSON *answers, const cJSON *ask)
{
    const char *key = tg_json_get_string(ask, "key");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "resultType", "input_required");
    cJSON *req = cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "inputRequests"), key);
    cJSON_AddStringToObject(req, "method", "elicitation/create");
    cJSON_AddItemToObject(req, "params", elicit_params(ask));
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "tool", tool->m.name);
    char *digest = tg_serve_mrtr_digest(args);
    cJSON_AddStringToObject(p, "args", digest);
    free(digest);
    cJSON_AddItemReferenceToObject(p, "answers", answers);
    cJSON_AddStringToObject(p, "pending", key);
    cJSON_AddStringToObject(p, "question", tg_json_get_string(ask, "message"));
    cJSON_AddNumberToObject(p, "exp", (double)(time(NULL) + (m->ttl_s ? m->ttl_s : TG_MRTR_TTL_S)));
    char *state = tg_serve_mrtr_seal(m, p);
    cJSON_AddStringToObject(r, "requestState", state);
    free(state);
    cJSON_Delete(p);
    return r;
}

void tg_serve_mrtr_call_modern(const tg_serve_mrtr *m, const tg_serve_call *how,
                               const tg_serve_tool *tool, const cJSON *args, const cJSON *params,
                               const cJSON *client_caps, tg_serve_outcome *out)
{
    *out = (tg_serve_outcome){0};
    cJSON *answers = answers_of_retry(m, tool, args, params, out);
    if (!answers)
        return;
    cJSON *ask;
    cJSON *r = run_round(how, tool, args, answers, &ask, out);
    if (ask) {
        if (cJSON_GetObjectItemCaseSensitive(client_caps, "elicitation"))
            out->result = input_required(m, tool, args, answers, ask);
        else
            cannot_ask(out, tool, ask);
        cJSON_Delete(ask);
    } else {
        out->result = r;
    }
    cJSON_Delete(answers);
}

/* ---- legacy ---------------------------------------------------------------------------------- */

struct tg_serve_pending {
    char server_id[32]; /* the id of our elicitation/create request */
    const void *owner;  /* whose tool set the call's tool is in (tg_serve_mrtr_call_legacy) */
    cJSON *call_id;     /* the tools/call's id */
    char *tool;
    cJSON *args, *answers;
    char *key, *question;
};

void tg_serve_pending_free(tg_serve_pending *p)
{
    if (!p)
        return;
    cJSON_Delete(p->call_id);
    cJSON_Delete(p->args);
    cJSON_Delete(p->answers);
    free(p->tool);
    free(p->key);
    free(p->question);
    free(p);
}

/* The elicitation/create request that asks the client; the call waits in a new *pending. */
static cJSON *elicit_request(const tg_serve_tool *tool, const cJSON *args, const cJSON *call_id,
                             cJSON *answers, const cJSON *ask, const void *owner,
                             tg_serve_pending **pending)
{
    /* several connections' calls may ask at once (HTTP): each question gets its own id */
    static atomic_ulong counter;
    tg_serve_pending *p = xcalloc(1, sizeof *p);
    snprintf(p->server_id, sizeof p->server_id, "toolgen-ask-%lu",
             atomic_fetch_add(&counter, 1) + 1);
    p->owner = owner;
    p->call_id = cJSON_Duplicate(call_id, true);
    p->tool = xstrdup(tool->m.name);
    p->args = cJSON_Duplicate(args, true);
    p->answers = answers;
    p->key = xstrdup(tg_json_get_string(ask, "key"));
    p->question = xstrdup(tg_json_get_string(ask, "message"));
    *pending = p;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddStringToObject(r, "id", p->server_id);
    cJSON_AddStringToObject(r, "method", "elicitation/create");
    cJSON_AddItemToObject(r, "params", elicit_params(ask));
    return r;
}

/* One round of a legacy call: the result, or a question sent as a request. Takes answers. */
static void legacy_round(const tg_serve_call *how, const tg_serve_tool *tool, const cJSON *args,
                         const cJSON *call_id, cJSON *answers, bool client_elicits,
                         const void *owner, tg_serve_pending **pending, tg_serve_outcome *out)
{
    cJSON *ask;
    cJSON *r = run_round(how, tool, args, answers, &ask, out);
    if (!ask) {
        out->result = r;
        cJSON_Delete(answers);
        return;
    }
    if (!client_elicits || *pending) {
        cannot_ask(out, tool, ask);
        cJSON_Delete(answers);
    } else {
        out->request = elicit_request(tool, args, call_id, answers, ask, owner, pending);
    }
    cJSON_Delete(ask);
}

void tg_serve_mrtr_call_legacy(const tg_serve_mrtr *m, const tg_serve_call *how,
                               const tg_serve_tool *tool, const cJSON *args, const cJSON *id,
                               bool client_elicits, const void *owner,
                               tg_serve_pending **pending, tg_serve_outcome *out)
{
    (void)m;
    *out = (tg_serve_outcome){0};
    legacy_round(how, tool, args, id, cJSON_CreateObject(), client_elicits, owner, pending, out);
}

bool tg_serve_mrtr_resume(const tg_serve_mrtr *m, const tg_serve_call *how,
                          const tg_serve_tools *tools, const void *owner,
                          const cJSON *response, tg_serve_pending **pending, cJSON **reply_id,
                          tg_serve_outcome *out)
{
    (void)m;
    *out = (tg_serve_outcome){0};
    tg_serve_pending *p = *pending;
    const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(response, "id"));
    if (!p || p->owner != owner || !rid || strcmp(rid, p->server_id) != 0)
        return false;
    *pending = NULL;
    *reply_id = p->call_id;
    p->call_id = NULL;
    const tg_serve_tool *tool = tg_serve_tools_find(tools, p->tool);
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(response, "result");
    if (!tool) {
        out->rpc_error = -32603;
        snprintf(out->msg, sizeof out->msg, "tools/call: %s is no longer served", p->tool);
    } else if (!cJSON_IsObject(result)) {
        /* the client answered our request with an error: it could not ask the user */
        tool_error(out, tool, "the client could not ask the user (it answered the "
                              "elicitation/create request with an error)");
    } else if (take_answer(result, p->key, p->question, p->answers, tool, out)) {
        cJSON *answers = p->answers;
        p->answers = NULL;
        legacy_round(how, tool, p->args, *reply_id, answers, true, owner, pending, out);
    }
    tg_serve_pending_free(p);
    return true;
}
