/* regen.c — regenerating a generated tool's code in `toolgen build` (regen.h). */
#include "gen/regen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "gen/gen_files.h"
#include "gen/prompt.h"
#include "llm/llm.h"
#include "model/paths.h"

#define LOCK_MAX_BYTES (1u << 20)

/* The prompts the code depends on (the spec is the user's contract once written). */
static const char *const code_prompts[] = {"code", "repair", "reference/tool.py", NULL};

static cJSON *read_json(const tg_repo *repo, const char *path)
{
    tg_err err = {0};
    size_t len = 0;
    char *text = tg_read_file_at(repo->root_fd, path, LOCK_MAX_BYTES, &len, &err);
    cJSON *v = text ? tg_json_parse(text, len, NULL, NULL, NULL, &err) : NULL;
    free(text);
    return v;
}

static bool hash_differs(const cJSON *obj, const char *key, tg_hash now)
{
    tg_hash was;
    const char *s = obj ? tg_json_get_string(obj, key) : NULL;
    return !s || !tg_hash_parse(s, &was) || !tg_hash_eq(was, now);
}

static tg_hash prompt_hash(const tg_repo *repo, const char *name)
{
    tg_hash h = {0};
    tg_err err = {0};
    if (strchr(name, '/')) {
        free(tg_prompt_read_file(repo, name, &h, &err));
    } else {
        tg_prompt p;
        if (tg_prompt_load(repo, name, &p, &err) == 0) {
            h = p.hash;
            tg_prompt_release(&p);
        }
    }
    return h;
}

/* Why tool's code is due ("" when it is not), or NULL when it does not opt in. */
static char *due_reason(const tg_repo *repo, const char *dir, bool *edited)
{
    char *lock_path = xasprintf("%s/tool.lock", dir);
    cJSON *lock = read_json(repo, lock_path);
    free(lock_path);
    const char *gen = lock ? tg_json_get_string(lock, "generator") : NULL;
    if (!gen || strcmp(gen, "llm") != 0) {
        cJSON_Delete(lock);
        return NULL;
    }
    tg_buf why = TG_BUF_INIT;
    char *mpath = xasprintf("%s/tool.manifest.yaml", dir);
    char *manifest = tg_read_file_at(repo->root_fd, mpath, LOCK_MAX_BYTES, NULL, &(tg_err){0});
    free(mpath);
    tg_hash spec;
    if (manifest && tg_gen_spec_hash(manifest, &spec, &(tg_err){0}) == 0 &&
        hash_differs(lock, "spec_hash", spec))
        tg_buf_puts(&why, "spec changed");
    free(manifest);
    const cJSON *prompts = tg_json_get(lock, "prompts");
    for (int i = 0; code_prompts[i]; i++)
        if (hash_differs(prompts, code_prompts[i], prompt_hash(repo, code_prompts[i])))
            tg_buf_printf(&why, "%sprompt %s changed", why.len ? ", " : "", code_prompts[i]);
    char *cpath = xasprintf("%s/tool.py", dir);
    tg_hash code = {0};
    *edited = tg_hash_file_at(repo->root_fd, cpath, &code, &(tg_err){0}) != 0 ||
              hash_differs(lock, "code_hash", code);
    free(cpath);
    cJSON_Delete(lock);
    return tg_buf_steal(&why);
}

int tg_regen_find(const tg_repo *repo, tg_regen_plan *plan, tg_err *err)
{
    memset(plan, 0, sizeof *plan);
    tg_strv names = {0};
    if (tg_tools_list(repo, &names, err) != 0)
        return -1;
    tg_strv_sort_from(&names, 0);
    for (size_t i = 0; i < names.n; i++) {
        char *dir = tg_path_join(repo->cfg.manifests_dir, names.v[i]);
        bool edited = false;
        char *why = due_reason(repo, dir, &edited);
        if (why && *why && edited) {
            tg_strv_push(&plan->edited, names.v[i]);
        } else if (why && *why) {
            tg_strv_push(&plan->due, names.v[i]);
            tg_strv_push(&plan->why, why);
        }
        free(why);
        free(dir);
    }
    tg_strv_free(&names);
    return 0;
}

void tg_regen_plan_release(tg_regen_plan *plan)
{
    tg_strv_free(&plan->due);
    tg_strv_free(&plan->why);
    tg_strv_free(&plan->edited);
}

static void set_hash(cJSON *o, const char *key, tg_hash h)
{
    char hex[TG_HASH_HEX];
    tg_hash_hex(h, hex);
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddStringToObject(o, key, hex);
}

static int write_outputs(const tg_repo *repo, const char *dir, const char *manifest,
                         const char *code, const tg_llm_reply *r, tg_hash rendered,
                         tg_err *err)
{
    /* both hash lines are there to replace: toolgen new always writes them */
    char hex[TG_HASH_HEX], line[80];
    tg_hash code_hash = tg_hash_bytes(code, strlen(code));
    tg_hash_hex(code_hash, hex);
    snprintf(line, sizeof line, "  code_hash: '%s'", hex);
    char *m1 = tg_gen_replace_line(manifest, "  code_hash:", line);
    tg_hash_hex(rendered, hex);
    snprintf(line, sizeof line, "  prompt_hash: '%s'", hex);
    char *m2 = tg_gen_replace_line(m1, "  prompt_hash:", line);
    free(m1);
    char *lock_path = xasprintf("%s/tool.lock", dir);
    cJSON *lock = read_json(repo, lock_path);
    int rc = lock ? 0 : tg_err_set(err, "%s: unreadable", lock_path);
    tg_hash spec;
    if (rc == 0 && (rc = tg_gen_spec_hash(m2, &spec, err)) == 0) {
        set_hash(lock, "spec_hash", spec);
        set_hash(lock, "code_hash", code_hash);
        set_hash(lock, "request", r->key);
        set_hash(lock, "response", r->response);
        cJSON *prompts = (cJSON *)tg_json_get(lock, "prompts");
        if (!prompts)
            prompts = cJSON_AddObjectToObject(lock, "prompts");
        for (int i = 0; code_prompts[i]; i++)
            set_hash(prompts, code_prompts[i], prompt_hash(repo, code_prompts[i]));
        cJSON_DeleteItemFromObjectCaseSensitive(lock, "model");
        cJSON_AddStringToObject(lock, "model", r->model);
        char *ltext = tg_json_print(lock);
        char *lfile = xasprintf("%s\n", ltext);
        rc = tg_gen_folder_write(repo, dir, "tool.py", code, err);
        if (rc == 0)
            rc = tg_gen_folder_write(repo, dir, "tool.manifest.yaml", m2, err);
        if (rc == 0)
            rc = tg_gen_folder_write(repo, dir, "tool.lock", lfile, err);
        free(ltext);
        free(lfile);
    }
    cJSON_Delete(lock);
    free(lock_path);
    free(m2);
    return rc;
}

/* Renders the code prompt for manifest and asks the model: the code block, or NULL. */
static char *ask_code(const tg_repo *repo, tg_llm_client *llm, const char *manifest,
                      tg_llm_reply *r, tg_hash *rendered, tg_err *err)
{
    tg_prompt p;
    if (tg_prompt_load(repo, "code", &p, err) != 0)
        return NULL;
    char *ref = tg_prompt_read_file(repo, "reference/tool.py", NULL, err);
    const char *vars[] = {"spec", manifest, "reference_code", ref ? ref : "", NULL};
    char *sys = ref ? tg_prompt_render(&p, p.system, vars, err) : NULL;
    char *user = sys ? tg_prompt_render(&p, p.user, vars, err) : NULL;
    char *code = NULL;
    if (user) {
        *rendered = tg_hash_bytes(user, strlen(user));
        tg_llm_request rq = {.system = sys, .user = user, .block = "python"};
        if (tg_llm_complete(llm, &rq, r, err) == TG_LLM_OK) {
            code = tg_llm_code_block(r->text, "python");
            if (!code) {
                tg_err_set(err, "%s: the answer to the code prompt has no ```python code block",
                           r->model);
                tg_llm_reply_release(r);
            }
        }
    }
    free(sys);
    free(user);
    free(ref);
    tg_prompt_release(&p);
    return code;
}

int tg_regen_tool(const tg_repo *repo, const char *tool, int *requests, tg_err *err)
{
    tg_llm_config cfg;
    if (tg_llm_config_from_json(tg_config_get(&repo->cfg, "/llm"), NULL, &cfg, err) != 0)
        return -1;
    if (cfg.provider == TG_LLM_BUILTIN) {
        tg_llm_config_release(&cfg);
        return tg_err_set(err, "%s needs its code generated again, but llm.provider is builtin: "
                               "configure the model that wrote it (docs/generate.md)", tool);
    }
    tg_llm_client llm;
    tg_llm_client_init(&llm, &cfg, repo->root_fd, false);
    char *dir = tg_path_join(repo->cfg.manifests_dir, tool);
    char *mpath = xasprintf("%s/tool.manifest.yaml", dir);
    char *manifest = tg_read_file_at(repo->root_fd, mpath, LOCK_MAX_BYTES, NULL, err);
    int rc = -1;
    tg_llm_reply r = {0};
    tg_hash rendered = {0};
    char *code = manifest ? ask_code(repo, &llm, manifest, &r, &rendered, err) : NULL;
    if (code)
        rc = write_outputs(repo, dir, manifest, code, &r, rendered, err);
    if (rc != 0)
        tg_err_prefix(err, "%s: generating the code again", tool);
    *requests += llm.requests;
    free(code);
    tg_llm_reply_release(&r);
    free(manifest);
    free(mpath);
    free(dir);
    tg_llm_config_release(&cfg);
    return rc;
}
