/*
 * rt_command.c — the command runtime's operations (runtime_ops.h): an installed program run
 * from the argv, env and cwd templates of implementation (never a shell), its result its stdout
 * and its exit status (docs/manifest.md#command).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "run/cmdrunner.h"
#include "run/rt_int.h"

/* ---- command templates (docs/manifest.md#templates) ------------------------------------------ */

void rt_render_value(tg_buf *b, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        tg_buf_puts(b, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        tg_buf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == floor(d) && fabs(d) < 1e15) {
            tg_buf_printf(b, "%lld", (long long)d);
        } else {
            cJSON tmp = *v;
            tmp.valuestring = NULL; /* shortest round-trip form, not the literal */
            char nb[40];
            tg_buf_puts(b, tg_json_number_text(&tmp, nb));
        }
    } else if (cJSON_IsNull(v)) {
        tg_buf_puts(b, "null");
    } else {
        char *s = tg_json_print_compact(v);
        tg_buf_puts(b, s);
        free(s);
    }
}

static bool ident_char(char c, bool first)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

bool rt_render_template(const char *t, const cJSON *args, tg_buf *out)
{
    for (const char *p = t; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            tg_buf_putc(out, '{');
            p += 2;
        } else if (p[0] == '}' && p[1] == '}') {
            tg_buf_putc(out, '}');
            p += 2;
        } else if (p[0] == '{') {
            const char *e = p + 1;
            while (ident_char(*e, e == p + 1))
                e++;
            if (*e != '}' || e == p + 1) { /* lint rejects this; keep it literal */
                tg_buf_putc(out, *p++);
                continue;
            }
            char *name = xstrndup(p + 1, (size_t)(e - p - 1));
            const cJSON *v = tg_json_get(args, name);
            free(name);
            if (!v)
                return false;
            rt_render_value(out, v);
            p = e + 1;
        } else {
            tg_buf_putc(out, *p++);
        }
    }
    return true;
}

/* A whole-element placeholder "{name}": its name, else NULL. */
static char *whole_placeholder(const char *t)
{
    size_t n = strlen(t);
    if (n < 3 || t[0] != '{' || t[n - 1] != '}' || t[1] == '{')
        return NULL;
    for (size_t i = 1; i < n - 1; i++)
        if (!ident_char(t[i], i == 1))
            return NULL;
    return xstrndup(t + 1, n - 2);
}

static char *find_program(const char *name)
{
    if (name[0] == '/')
        return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    static const char *const dirs[] = {"/usr/local/bin", "/usr/bin", "/bin"};
    for (size_t i = 0; i < 3; i++) {
        char *p = tg_path_join(dirs[i], name);
        if (access(p, X_OK) == 0)
            return p;
        free(p);
    }
    return NULL;
}

/* A command tool's argv, env and cwd from its templates. TG_CALL_ENV when the program is not
 * installed, TG_CALL_UNSUPPORTED when the templates are unusable. */
static tg_call_status cmd_command(const tg_toolrun_ctx *ctx, const tg_manifest *m,
                                  const cJSON *args, const cJSON *answers, tg_runtime_cmd *c,
                                  tg_err *err)
{
    (void)ctx;
    (void)answers; /* a program cannot ask */
    const cJSON *impl = m->implementation;
    tg_strv *argv = &c->argv, *env = &c->env;
    char **cwd = &c->cwd;
    const cJSON *tpl = tg_json_get(impl, "argv"), *e;
    if (!cJSON_IsArray(tpl) || cJSON_GetArraySize(tpl) == 0 || !cJSON_IsString(tpl->child)) {
        tg_err_set(err, "implementation.argv must be a non-empty list of strings");
        return TG_CALL_UNSUPPORTED;
    }
    char *prog = find_program(tpl->child->valuestring);
    if (!prog) {
        tg_err_set(err, "the program '%s' (implementation.argv[0]) is not installed in "
                        "/usr/local/bin, /usr/bin or /bin, where the sandbox looks for it",
                   tpl->child->valuestring);
        return TG_CALL_ENV;
    }
    tg_strv_push_owned(argv, prog);
    for (e = tpl->child->next; e; e = e->next) {
        if (cJSON_IsObject(e)) { /* a switch {when, arg}: arg only when the boolean is true */
            const char *flag = tg_json_get_string(e, "arg");
            const char *when = tg_json_get_string(e, "when");
            if (flag && when && cJSON_IsTrue(tg_json_get(args, when)))
                tg_strv_push(argv, flag);
            continue;
        }
        if (!cJSON_IsString(e))
            continue;
        char *name = whole_placeholder(e->valuestring);
        if (name) {
            const cJSON *v = tg_json_get(args, name);
            free(name);
            if (!v)
                continue;
            if (cJSON_IsArray(v)) {
                const cJSON *item;
                cJSON_ArrayForEach(item, v)
                {
                    tg_buf b = TG_BUF_INIT;
                    rt_render_value(&b, item);
                    tg_strv_push_owned(argv, tg_buf_steal(&b));
                }
                continue;
            }
        }
        tg_buf b = TG_BUF_INIT;
        if (rt_render_template(e->valuestring, args, &b))
            tg_strv_push_owned(argv, tg_buf_steal(&b));
        tg_buf_free(&b);
    }
    const cJSON *envt = tg_json_get(impl, "env");
    cJSON_ArrayForEach(e, envt)
    {
        if (!cJSON_IsString(e))
            continue;
        tg_buf b = TG_BUF_INIT;
        tg_buf_printf(&b, "%s=", e->string);
        if (rt_render_template(e->valuestring, args, &b))
            tg_strv_push_owned(env, tg_buf_steal(&b));
        tg_buf_free(&b);
    }
    const char *cwdt = tg_json_get_string(impl, "cwd");
    if (cwdt) {
        tg_buf b = TG_BUF_INIT;
        rt_render_template(cwdt, args, &b);
        *cwd = tg_buf_steal(&b);
        if (strstr(*cwd, "..") || (*cwd)[0] == '/') {
            tg_err_set(err, "implementation.cwd must stay inside the working directory: '%s'", *cwd);
            free(*cwd);
            *cwd = NULL;
            return TG_CALL_UNSUPPORTED;
        }
    }
    return TG_CALL_DONE;
}

/* A command's result: its stdout as JSON (stdout: json) or as {"text": ...}. */
static void cmd_read(const tg_manifest *m, const tg_sandbox_result *sb, tg_run_facts *f,
                     tg_call_result *out, cJSON **reply, char **problem)
{
    (void)reply; /* there is none */
    if (sb->exit_code != 0) {
        char key[16];
        snprintf(key, sizeof key, "%d", sb->exit_code);
        f->mapped_code = tg_json_get_string(tg_json_get(m->implementation, "exit_codes"), key);
        return;
    }
    if (sb->signal || sb->killed_by != TG_LIMIT_NONE)
        return;
    const char *mode = tg_json_get_string(m->implementation, "stdout");
    const char *text = sb->out.data; /* never NULL once the call ran (sandbox.h) */
    tg_err perr = {0};
    if (tg_utf8_validate(text, sb->out.len, &perr) != 0) {
        *problem = xstrdup("the program's output is not UTF-8 text");
    } else if (mode && strcmp(mode, "json") == 0) {
        cJSON *res = tg_json_parse(text, sb->out.len, NULL, NULL, NULL, &perr);
        if (!cJSON_IsObject(res)) {
            *problem = res ? xstrdup("stdout is JSON but not an object")
                           : xasprintf("stdout is not JSON: %d:%d: %s", perr.line, perr.col, perr.msg);
            cJSON_Delete(res);
        } else {
            out->result = res;
        }
    } else {
        size_t n = sb->out.len;
        while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
            n--;
        char *t = xstrndup(text, n);
        out->result = cJSON_CreateObject();
        cJSON_AddStringToObject(out->result, "text", t);
        free(t);
    }
}

/* A pool worker for commands (docs/sandbox.md#commands-in-the-pool): toolgen's own command
 * runner (run/cmdrunner.h) when this program can serve as one, else runner.py as a worker that
 * imports nothing (which needs python3 in the sandbox); each call's child execs the command. */
static bool cmd_warm_ok(const tg_manifest *m)
{
    (void)m;
    return tg_cmdrunner_exe() != NULL || tg_sandbox_python() != NULL;
}

bool tg_command_warm_argv_py(tg_strv *argv)
{
    const char *py = tg_sandbox_python();
    if (!py)
        return false;
    tg_strv_push(argv, py);
    tg_strv_push(argv, "-B");
    tg_strv_push(argv, "-s");
    tg_strv_push(argv, TG_SANDBOX_RUNTIME "/runner.py");
    tg_strv_push(argv, "--warm");
    tg_strv_push(argv, "-");
    return true;
}

static void cmd_warm_argv(const tg_manifest *m, const tg_runtime_cmd *cold, const char *file,
                          tg_strv *argv)
{
    (void)m;
    (void)cold;
    (void)file;
    if (tg_cmdrunner_exe()) {
        tg_strv_push(argv, TG_CMDRUNNER_PATH);
        tg_strv_push(argv, TG_CMDRUNNER_FLAG);
        return;
    }
    tg_command_warm_argv_py(argv);
}

const tg_runtime_ops rt_command = {
    .command = cmd_command,
    .read_result = cmd_read,
    .warm_argv = cmd_warm_argv,
    .warm_ok = cmd_warm_ok,
    .warm_exec = true,
    .exit_status = true,
};
