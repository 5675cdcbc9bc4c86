/*
 * rt_runner.c — what the Python and Node.js runtimes share: toolgen's runner (run/runtime/)
 * loads the tool file in the sandbox, reads its request on fd 4 and replies on fd 3
 * (docs/sandbox.md#the-runner). Before the reply the runner may write events on fd 3, one JSON
 * object per line ({"event": "log" | "progress", ...}); the reply itself is the text after the
 * last newline (compact JSON holds none).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "run/rt_int.h"

/* The runner's request on fd 4: file, entry point, arguments, input_schema. */
static char *runner_request(const tg_toolrun_ctx *ctx, const tg_manifest *m, const char *tool_dir,
                            const cJSON *args, const cJSON *answers)
{
    cJSON *req = cJSON_CreateObject();
    /* With isolation none the runner sees host paths. */
    char *file = ctx->sandbox->isolation == TG_ISOLATION_NONE
                     ? tg_path_join(tool_dir, m->impl_file)
                     : tg_path_join(TG_SANDBOX_TOOL, m->impl_file);
    cJSON_AddStringToObject(req, "file", file);
    free(file);
    cJSON_AddStringToObject(req, "entrypoint", m->entrypoint);
    cJSON_AddItemToObject(req, "args", cJSON_Duplicate(args, true));
    cJSON_AddItemToObject(req, "input_schema", cJSON_Duplicate(m->input_schema, true));
    if (cJSON_IsObject(answers))
        cJSON_AddItemToObject(req, "answers", cJSON_Duplicate(answers, true));
    char *text = tg_json_print_compact(req);
    cJSON_Delete(req);
    return text;
}

tg_call_status rt_runner_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                 const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                 tg_err *err)
{
    if (!m->impl_file || !m->entrypoint) {
        tg_err_set(err, "%s: implementation.file and implementation.entrypoint are required",
                   m->name ? m->name : "tool");
        return TG_CALL_UNSUPPORTED;
    }
    /* m->dir is relative to the repository's root (the sandbox's root), not to the cwd */
    char real[4096];
    char *dir = m->dir[0] == '/' ? xstrdup(m->dir) : tg_path_join(ctx->sandbox->root, m->dir);
    c->tool_dir = realpath(dir, real) ? xstrdup(real) : xstrdup(dir);
    free(dir);
    c->request = runner_request(ctx, m, c->tool_dir, args, answers);
    c->cmd.tool_dir = c->tool_dir;
    c->cmd.mount_runtime = true;
    c->cmd.request = c->request;
    c->cmd.request_len = strlen(c->request);
    c->cmd.reply_channel = true;
    return TG_CALL_DONE;
}

/* The events of one call read so far: the lines before `done` were handed on. */
typedef struct rt_events {
    size_t done;
    void (*on_event)(void *ctx, const cJSON *event);
    void *ctx;
} rt_events;

/* The reply channel grew: every complete line not yet seen is an event (a line that is not a
 * JSON object with a string "event" is skipped; the runner writes none). */
static void watch_events(void *arg, const char *data, size_t len)
{
    rt_events *ev = arg;
    for (const char *nl; ev->done < len &&
                         (nl = memchr(data + ev->done, '\n', len - ev->done)) != NULL;) {
        size_t n = (size_t)(nl - (data + ev->done));
        tg_err perr = {0};
        cJSON *e = tg_json_parse(data + ev->done, n, NULL, NULL, NULL, &perr);
        if (cJSON_IsObject(e) && tg_json_get_string(e, "event"))
            ev->on_event(ev->ctx, e);
        cJSON_Delete(e);
        ev->done += n + 1;
    }
}

void rt_runner_context(tg_runtime_cmd *c, const tg_tool_call *call)
{
    cJSON *req = call->client ? tg_json_parse(c->request, strlen(c->request), NULL, NULL, NULL,
                                              NULL) : NULL;
    if (req) {
        cJSON *client = cJSON_Duplicate(call->client, true);
        /* the runner keeps its events within a quarter of the reply's cap */
        cJSON_AddNumberToObject(client, "events_max", (double)(c->cmd.limits.output_kb << 8));
        cJSON_AddItemToObject(req, "client", client);
        free(c->request);
        c->request = tg_json_print_compact(req);
        c->cmd.request = c->request;
        c->cmd.request_len = strlen(c->request);
        cJSON_Delete(req);
    }
    if (call->on_event && c->cmd.reply_channel) {
        rt_events *ev = xcalloc(1, sizeof *ev);
        *ev = (rt_events){.on_event = call->on_event, .ctx = call->event_ctx};
        c->events = ev;
        c->cmd.reply_watch = (tg_reply_watch){watch_events, ev};
    }
}

/* One question a tool asked (toolgen_helpers.ask, sample, roots): {key, method, params,
 * field?}, key a short name, method one of the requests MCP lets a server send its client,
 * params an object; what the client is shown is rebuilt from it by toolgen serve. */
static bool valid_question(const cJSON *q)
{
    static const char *const methods[] = {"elicitation/create", "sampling/createMessage",
                                          "roots/list", NULL};
    const char *key = tg_json_get_string(q, "key");
    const char *method = tg_json_get_string(q, "method");
    const cJSON *field = tg_json_get(q, "field");
    if (!key || !*key || strlen(key) > 64 || !method || !tg_strlist_has(methods, method) ||
        !cJSON_IsObject(tg_json_get(q, "params")) || (field && !cJSON_IsString(field)))
        return false;
    for (const char *c = key; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return false;
    return true;
}

/* The questions of a call: 1 to TG_ASK_MAX of them, their keys distinct. */
static bool valid_ask(const cJSON *ask)
{
    int n = cJSON_GetArraySize(ask);
    if (!cJSON_IsArray(ask) || n < 1 || n > TG_ASK_MAX)
        return false;
    for (const cJSON *q = ask->child; q; q = q->next) {
        if (!valid_question(q))
            return false;
        for (const cJSON *o = ask->child; o != q; o = o->next)
            if (strcmp(tg_json_get_string(o, "key"), tg_json_get_string(q, "key")) == 0)
                return false;
    }
    return true;
}

cJSON *rt_runner_parse(const tg_sandbox_result *sb, bool *garbled)
{
    /* the events before the reply end with newlines; the reply is what follows the last one */
    const char *text = sb->reply.data;
    size_t len = text ? sb->reply.len : 0;
    for (const char *nl; len && (nl = memchr(text, '\n', len));) {
        len -= (size_t)(nl + 1 - text);
        text = nl + 1;
    }
    if (!len || sb->reply.truncated)
        return NULL;
    tg_err perr = {0};
    cJSON *reply = tg_json_parse(text, len, NULL, NULL, NULL, &perr);
    if (!reply || !cJSON_IsObject(reply) || !cJSON_IsBool(tg_json_get(reply, "ok"))) {
        cJSON_Delete(reply);
        *garbled = true;
        return NULL;
    }
    return reply;
}

void rt_runner_read(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                    tg_call_result *out, cJSON **reply, char **problem)
{
    (void)m;
    *reply = rt_runner_parse(sb, &f->reply_garbled);
    f->reply = *reply;
    if (*reply && cJSON_IsTrue(tg_json_get(*reply, "ok"))) {
        cJSON *res = cJSON_DetachItemFromObject(*reply, "result");
        if (cJSON_IsObject(res)) {
            out->result = res;
        } else {
            cJSON_Delete(res);
            *problem = xstrdup("the reply holds no result object");
        }
    } else if (*reply && valid_ask(tg_json_get(*reply, "ask"))) {
        out->ask = cJSON_DetachItemFromObject(*reply, "ask");
    } else if (*reply) {
        out->reply_error = cJSON_Duplicate(tg_json_get(*reply, "error"), true);
    }
}
