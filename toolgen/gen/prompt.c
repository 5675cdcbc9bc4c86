/* prompt.c — loading and rendering the templates of prompts/ (prompt.h). */
#include "gen/prompt.h"

#include <stdlib.h>
#include <string.h>

#include "base/tmpl.h"

#define PROMPT_MAX_BYTES (256u << 10)

static char *read_prompt_file(const tg_repo *repo, const char *file, char **path, tg_err *err)
{
    char *rel = xasprintf("prompts/%s", file);
    if (tg_is_file_at(repo->root_fd, rel)) {
        *path = rel;
        return tg_read_file_at(repo->root_fd, rel, PROMPT_MAX_BYTES, NULL, err);
    }
    const char *dd = tg_datadir();
    if (dd) {
        char *abs = xasprintf("%s/%s", dd, rel);
        if (tg_is_file(abs)) {
            free(rel);
            *path = abs;
            return tg_read_file(abs, PROMPT_MAX_BYTES, NULL, err);
        }
        free(abs);
    }
    tg_err_set(err, "%s: no such prompt file (in the repository or toolgen's data "
                    "directory); restore it from toolgen's prompts/", rel);
    free(rel);
    return NULL;
}

int tg_prompt_load(const tg_repo *repo, const char *name, tg_prompt *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = NULL;
    char *file = xasprintf("%s.md", name);
    char *text = read_prompt_file(repo, file, &path, err);
    free(file);
    if (!text) {
        free(path);
        return -1;
    }
    if (tg_tmpl_split(text, path, &out->system, &out->user, err) != 0) {
        free(text);
        free(path);
        return -1;
    }
    out->name = xstrdup(name);
    out->path = path;
    out->hash = tg_hash_bytes(text, strlen(text));
    free(text);
    return 0;
}

void tg_prompt_release(tg_prompt *p)
{
    free(p->name);
    free(p->path);
    free(p->system);
    free(p->user);
    memset(p, 0, sizeof *p);
}

char *tg_prompt_render(const tg_prompt *p, const char *tmpl, const char *const *vars, tg_err *err)
{
    return tg_tmpl_render(p->path, tmpl, vars, err);
}

char *tg_prompt_read_file(const tg_repo *repo, const char *file, tg_hash *hash, tg_err *err)
{
    char *path = NULL;
    char *text = read_prompt_file(repo, file, &path, err);
    free(path);
    if (text && hash)
        *hash = tg_hash_bytes(text, strlen(text));
    return text;
}
