/*
 * rt_llm_check.c — the llm runtime's parts around the model (docs/code-edit.md): the prompt
 * template a tool names, the call's arguments as delimited data, the language's name, and the
 * checks a snippet passes in the sandbox (runtime/check_snippet.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/tmpl.h"
#include "run/rt_int.h"

#define PROMPT_MAX_BYTES (256u << 10)

/* ---- the template ----------------------------------------------------------------------- */

/* prompts/<name>.md of the repository holding the tool (the nearest folder above m->dir with a
 * toolgen.yaml), else of toolgen's data directory; heap path or NULL. */
static char *find_prompt(const char *tool_dir, const char *name)
{
    char *dir = xstrdup(tool_dir ? tool_dir : ".");
    char *found = NULL;
    for (int depth = 0; depth < 8 && !found; depth++) {
        char *cfg = xasprintf("%s/toolgen.yaml", dir);
        bool root = access(cfg, F_OK) == 0;
        free(cfg);
        if (root) {
            char *p = xasprintf("%s/prompts/%s.md", dir, name);
            if (access(p, R_OK) == 0)
                found = p;
            else
                free(p);
            break;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = '\0';
    }
    free(dir);
    const char *dd = found ? NULL : tg_datadir();
    if (dd) {
        char *p = xasprintf("%s/prompts/%s.md", dd, name);
        if (access(p, R_OK) == 0)
            found = p;
        else
            free(p);
    }
    return found;
}

int rt_llm_template(const tg_manifest *m, const char *member, rt_llm_tmpl *t, tg_err *err)
{
    memset(t, 0, sizeof *t);
    const char *name = tg_json_get_string(m->implementation, member);
    if (!name) {
        tg_err_set(err, "%s: implementation.%s names no prompt; run `toolgen lint`", m->name,
                   member);
        return -1;
    }
    t->path = find_prompt(m->dir, name);
    if (!t->path) {
        tg_err_set(err, "%s: prompts/%s.md (implementation.%s) is in neither the tool's "
                        "repository nor toolgen's data directory", m->name, name, member);
        return -1;
    }
    char *text = tg_read_file(t->path, PROMPT_MAX_BYTES, NULL, err);
    if (!text || tg_tmpl_split(text, t->path, &t->system, &t->user, err) != 0) {
        free(text);
        rt_llm_template_free(t);
        return -1;
    }
    free(text);
    return 0;
}

void rt_llm_template_free(rt_llm_tmpl *t)
{
    free(t->path);
    free(t->system);
    free(t->user);
    memset(t, 0, sizeof *t);
}

/* ---- data, never instructions ----------------------------------------------------------- */

char *rt_llm_fence(const char *name, const char *value)
{
    /* the marker carries a digest of the value, so the value cannot hold its own end line */
    tg_hash h = tg_hash_bytes(value, strlen(value));
    char id[17];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)h.lo);
    size_t n = strlen(value);
    return xasprintf("----- begin %s %.8s -----\n%s%s----- end %s %.8s -----", name, id, value,
                     n && value[n - 1] == '\n' ? "" : "\n", name, id);
}

const char *rt_llm_language(const char *given, char *out, size_t cap)
{
    static const char *const names[][6] = {
        {"python", "py", "python3", NULL},
        {"javascript", "js", "node", "nodejs", "node.js", NULL},
        {"typescript", "ts", NULL},
        {"c", NULL},
        {"cpp", "c++", "cxx", NULL},
        {"shell", "sh", "posix shell", NULL},
        {"bash", NULL}};
    size_t n = given ? strlen(given) : 0;
    if (n == 0 || n >= cap || n > 40)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = given[i];
        if (!(c == ' ' || c == '+' || c == '#' || c == '.' || c == '-' || c == '_' ||
              (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return NULL; /* a language is a name, never a sentence for the model */
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    out[n] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        for (size_t j = 0; names[i][j]; j++)
            if (strcmp(out, names[i][j]) == 0)
                return names[i][0];
    return out;
}

/* ---- checks ----------------------------------------------------------------------------- */

bool rt_llm_checkable(const char *lang)
{
    static const char *const langs[] = {"python", "javascript", "typescript", "c", "cpp",
                                        "shell", "bash", NULL};
    return tg_strlist_has(langs, lang);
}

/* The checker's command: check_snippet.py with the request on fd 4, the reply on fd 3. */
static void check_command(const tg_toolrun_ctx *ctx, const tg_limits *limits, const char *req,
                          tg_strv *argv, tg_strv *env, tg_sandbox_cmd *cmd)
{
    (void)ctx;
    tg_strv_push(argv, tg_sandbox_python());
    tg_strv_push(argv, "-B");
    tg_strv_push(argv, TG_SANDBOX_RUNTIME "/check_snippet.py");
    rt_python_env(env);
    *cmd = (tg_sandbox_cmd){.argv = (const char *const *)argv->v,
                            .env = (const char *const *)env->v,
                            .mount_runtime = true, .request = req,
                            .request_len = strlen(req), .reply_channel = true,
                            .limits = *limits};
    if (cmd->limits.wall_ms > 20000)
        cmd->limits.wall_ms = 20000;
}

cJSON *rt_llm_check(const tg_toolrun_ctx *ctx, const tg_limits *limits,
                    const volatile sig_atomic_t *cancel, const char *lang, const char *code,
                    const char *context, tg_err *err)
{
    if (!tg_sandbox_python()) {
        tg_err_set(err, "python3 is not installed (/usr/bin/python3), and the snippet checker "
                        "runs under it: install it with `sudo apt-get install python3`");
        return NULL;
    }
    cJSON *rq = cJSON_CreateObject();
    cJSON_AddStringToObject(rq, "language", lang);
    cJSON_AddStringToObject(rq, "code", code);
    cJSON_AddStringToObject(rq, "context", context ? context : "");
    char *req = tg_json_print_compact(rq);
    cJSON_Delete(rq);
    tg_strv argv = TG_STRV_INIT, env = TG_STRV_INIT;
    tg_sandbox_cmd cmd;
    check_command(ctx, limits, req, &argv, &env, &cmd);
    cmd.cancel = cancel;
    tg_sandbox_result sb = {0};
    cJSON *checks = NULL;
    if (tg_sandbox_run(ctx->sandbox, &cmd, &sb, err) == TG_SANDBOX_OK) {
        bool garbled = false;
        cJSON *reply = rt_runner_parse(&sb, &garbled);
        checks = cJSON_DetachItemFromObjectCaseSensitive(reply, "checks");
        if (!cJSON_IsArray(checks)) {
            cJSON_Delete(checks);
            checks = NULL;
            tg_err_set(err, "the snippet checker gave no answer (exit status %d%s): %.300s",
                       sb.exit_code, sb.killed_by ? ", stopped by a limit" : "",
                       sb.err.data ? sb.err.data : "");
        }
        cJSON_Delete(reply);
        tg_sandbox_result_free(&sb);
    }
    tg_strv_free(&argv);
    tg_strv_free(&env);
    free(req);
    return checks;
}
