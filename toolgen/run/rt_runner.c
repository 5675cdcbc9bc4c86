/*
 * rt_runner.c — what the Python and Node.js runtimes share: toolgen's runner (run/runtime/)
 * loads the tool file in the sandbox, reads its request on fd 4 and replies on fd 3
 * (docs/sandbox.md#the-runner).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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

/* A question a tool asked (toolgen_helpers.ask): {key, message, schema}, key a short name,
 * schema one primitive JSON Schema (what an MCP elicitation form can hold). */
static bool valid_ask(const cJSON *ask)
{
    const char *key = tg_json_get_string(ask, "key");
    const char *msg = tg_json_get_string(ask, "message");
    const char *type = tg_json_get_string(tg_json_get(ask, "schema"), "type");
    static const char *const primitive[] = {"string", "number", "integer", "boolean", NULL};
    if (!key || !msg || !type || !tg_strlist_has(primitive, type) || !*key || strlen(key) > 64 ||
        strlen(msg) > 2000)
        return false;
    for (const char *c = key; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_'))
            return false;
    return true;
}

cJSON *rt_runner_parse(const tg_sandbox_result *sb, bool *garbled)
{
    if (!sb->reply.len || sb->reply.truncated)
        return NULL;
    tg_err perr = {0};
    cJSON *reply = tg_json_parse(sb->reply.data, sb->reply.len, NULL, NULL, NULL, &perr);
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
