/* prompt.c — loading and rendering the templates of prompts/ (prompt.h). */
#include "gen/prompt.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define PROMPT_MAX_BYTES (256u << 10)
#define SEPARATOR "\n=== user ===\n"

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
    const char *sep = strstr(text, SEPARATOR);
    if (!sep) {
        tg_err_setpos(err, path, 1, 1, "a prompt template needs a line '=== user ===' between "
                                       "the system message and the user message");
        free(text);
        free(path);
        return -1;
    }
    out->name = xstrdup(name);
    out->path = path;
    out->system = xstrndup(text, (size_t)(sep - text));
    out->user = xstrdup(sep + strlen(SEPARATOR));
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

static const char *lookup(const char *const *vars, const char *key, size_t n)
{
    for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2)
        if (strlen(vars[i]) == n && strncmp(vars[i], key, n) == 0)
            return vars[i + 1];
    return NULL;
}

char *tg_prompt_render(const tg_prompt *p, const char *tmpl, const char *const *vars, tg_err *err)
{
    tg_buf b = TG_BUF_INIT;
    const char *s = tmpl;
    const char *open;
    while ((open = strstr(s, "{{")) != NULL) {
        const char *close = strstr(open + 2, "}}");
        if (!close)
            break;
        tg_buf_append(&b, s, (size_t)(open - s));
        const char *key = open + 2;
        size_t n = (size_t)(close - key);
        const char *val = lookup(vars, key, n);
        if (!val) {
            tg_err_set(err, "%s: placeholder {{%.*s}} has no value; the placeholders of the %s "
                            "prompt are listed in docs/generate.md#prompts",
                       p->path, (int)(n > 64 ? 64 : n), key, p->name);
            tg_buf_free(&b);
            return NULL;
        }
        tg_buf_puts(&b, val);
        s = close + 2;
    }
    tg_buf_puts(&b, s);
    return tg_buf_steal(&b);
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
