/*
 * rt_llm_check.c — the llm runtime's parts around the model (docs/code-edit.md): the prompt
 * template a tool names, the call's arguments as delimited data, the language's name, and the
 * checks a snippet passes in the sandbox (runtime/checker/check_snippet.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/tmpl.h"
#include "run/rt_int.h"
#include "run/warmpool.h"

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

/* The checker as a tool of its own (runtime/checker/check_snippet.py, entry check), so that it
 * runs through the warm pool like any Python tool: pyflakes imported once per worker. */
#define CHECKER_MANIFEST                                                                      \
    "{\"manifest_version\": 1, \"name\": \"check_snippet\", \"version\": \"1.0.0\","         \
    " \"title\": \"Check a snippet\", \"description\": \"toolgen's snippet checker\","       \
    " \"input_schema\": {\"type\": \"object\", \"properties\": {\"language\": {\"type\":"       \
    " \"string\"}, \"code\": {\"type\": \"string\"}, \"context\": {\"type\": \"string\"}}, \"required\": [\"language\", \"code\"]}," \
    " \"output_schema\": {\"type\": \"object\"},"                                             \
    " \"constraints\": {\"read_only\": true, \"network\": false,"                          \
    " \"limits\": {\"cpu_s\": 20, \"memory_mb\": 1024, \"wall_s\": 20, \"output_kb\": 256,"    \
    " \"files\": 128, \"processes\": 64}},"                                                \
    " \"implementation\": {\"runtime\": \"python\", \"file\": \"check_snippet.py\","         \
    " \"entrypoint\": \"check\", \"dependencies\": [\"pyflakes.api\"]}}"

static struct {
    pthread_mutex_t mu; /* guards the first load; the loaded parts are read-only after */
    bool loaded;
    tg_manifest m;
    js_registry *reg;
    js_schema *in, *out;
    bool ok;
    tg_err err;
} checker = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Loads the checker's manifest once per process, from runtime_dir (the sandbox's runtime
 * files, the same for every call of the process). */
static void checker_load(const char *runtime_dir)
{
    pthread_mutex_lock(&checker.mu);
    if (checker.loaded) {
        pthread_mutex_unlock(&checker.mu);
        return;
    }
    checker.loaded = true;
    char *path = xasprintf("%s/checker/tool.manifest.yaml", runtime_dir);
    const char *text = CHECKER_MANIFEST;
    if (tg_manifest_parse(text, strlen(text), path, "toolgen's snippet checker", &checker.m,
                          &checker.err) == 0) {
        tg_manifest_bind(&checker.m);
        checker.reg = js_registry_new();
        checker.in = js_compile(checker.reg, checker.m.input_schema, &(js_options){0},
                                &checker.err);
        checker.out = js_compile(checker.reg, checker.m.output_schema, &(js_options){0},
                                 &checker.err);
        checker.ok = checker.in && checker.out;
    }
    free(path);
    pthread_mutex_unlock(&checker.mu);
}

cJSON *rt_llm_check(const tg_toolrun_ctx *ctx, const tg_limits *limits,
                    const volatile sig_atomic_t *cancel, const char *lang, const char *code,
                    const char *context, tg_err *err)
{
    (void)limits; /* the checker's own limits apply: it is toolgen's code, not the tool's */
    if (!ctx->sandbox->runtime_dir) {
        tg_err_set(err, "toolgen's runtime files are missing, and the snippet checker is one: "
                        "reinstall toolgen");
        return NULL;
    }
    checker_load(ctx->sandbox->runtime_dir);
    if (!checker.ok) {
        *err = checker.err;
        return NULL;
    }
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "language", lang);
    cJSON_AddStringToObject(args, "code", code);
    cJSON_AddStringToObject(args, "context", context ? context : "");
    tg_tool_call call = {.m = &checker.m, .input = checker.in, .output = checker.out,
                         .args = args, .args_valid = true, .cancel = cancel};
    tg_call_result r = {0};
    tg_call_status st = ctx->pool ? tg_warmpool_call_run(ctx->pool, &call, &r, err)
                                  : tg_tool_call_run(ctx, &call, &r, err);
    cJSON *checks = NULL;
    if (st == TG_CALL_DONE && r.ok)
        checks = cJSON_DetachItemFromObjectCaseSensitive(r.result, "checks");
    if (st == TG_CALL_DONE && !cJSON_IsArray(checks))
        tg_err_set(err, "the snippet checker failed: %s", r.guidance.message);
    if (!cJSON_IsArray(checks)) {
        cJSON_Delete(checks);
        checks = NULL;
    }
    tg_call_result_free(&r);
    cJSON_Delete(args);
    return checks;
}
