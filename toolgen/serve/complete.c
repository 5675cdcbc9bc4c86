/* complete.c — completion/complete: tool names and data files (complete.h, docs/mcp.md). */
#include "serve/complete.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strvec.h"

/* value matches typed: a prefix of it, or of its last path component. */
static bool matches(const char *value, const char *typed)
{
    if (tg_str_startswith(value, typed))
        return true;
    const char *slash = strrchr(value, '/');
    return slash && tg_str_startswith(slash + 1, typed);
}

typedef struct scan {
    tg_strv *out;
    const char *typed;
    size_t seen; /* entries looked at, bounded by TG_COMPLETE_MAX_SCAN */
} scan;

/* The regular files under dirfd (open on the folder called prefix), depth first. */
static void walk(scan *s, int dirfd, const char *prefix, int depth)
{
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) && s->seen < TG_COMPLETE_MAX_SCAN;) {
        if (e->d_name[0] == '.')
            continue; /* hidden files and folders are nobody's data */
        s->seen++;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        char *path = tg_path_join(prefix, e->d_name);
        if (S_ISREG(st.st_mode) && matches(path, s->typed)) {
            tg_strv_push(s->out, path);
        } else if (S_ISDIR(st.st_mode) && depth < TG_COMPLETE_MAX_DEPTH) {
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                walk(s, sub, path, depth + 1);
        }
        free(path);
    }
    closedir(d);
}

static void data_files(const tg_serve_completion *c, const char *typed, tg_strv *out)
{
    scan s = {.out = out, .typed = typed};
    for (size_t i = 0; i < c->n_data_dirs; i++) {
        char *dir = xstrdup(c->data_dirs[i]);
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            dir[--n] = '\0';
        int fd = openat(c->root_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0)
            walk(&s, fd, dir, 1);
        free(dir);
    }
}

static void tool_names(const tg_serve_completion *c, const char *typed, tg_strv *out)
{
    for (size_t i = 0; i < c->tools->n; i++)
        if (tg_str_startswith(c->tools->v[i].m.name, typed))
            tg_strv_push(out, c->tools->v[i].m.name);
}

/* {completion: {values (at most 100, sorted), total, hasMore}} */
static cJSON *result_of(tg_strv *found)
{
    tg_strv_sort(found);
    cJSON *r = cJSON_CreateObject();
    cJSON *comp = cJSON_AddObjectToObject(r, "completion");
    cJSON *values = cJSON_AddArrayToObject(comp, "values");
    for (size_t i = 0; i < found->n && i < TG_COMPLETE_MAX_VALUES; i++)
        cJSON_AddItemToArray(values, cJSON_CreateString(found->v[i]));
    cJSON_AddNumberToObject(comp, "total", (double)found->n);
    cJSON_AddBoolToObject(comp, "hasMore", found->n > TG_COMPLETE_MAX_VALUES);
    tg_strv_free(found);
    return r;
}

/* What the argument of ref completes to; false (msg set) when ref or the argument is unknown. */
static bool source_of(const tg_serve_completion *c, const cJSON *ref, const char *arg,
                      tg_prompt_complete *kind, char *msg, size_t n)
{
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "type"));
    if (type && strcmp(type, "ref/prompt") == 0) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name"));
        const tg_serve_prompt *p = name ? tg_serve_prompts_find(c->prompts, name) : NULL;
        const tg_serve_prompt_arg *a = p ? tg_serve_prompt_arg_find(p, arg) : NULL;
        if (!name)
            snprintf(msg, n, "completion/complete: params.ref.name (a string) is required");
        else if (!p)
            snprintf(msg, n, "completion/complete: Unknown prompt: %.200s", name);
        else if (!a)
            snprintf(msg, n, "completion/complete: prompt %s has no argument '%.100s'", name, arg);
        *kind = a ? a->complete : TG_COMPLETE_NONE;
        return a != NULL;
    }
    if (type && strcmp(type, "ref/resource") == 0) {
        const char *uri = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "uri"));
        bool ours = uri && tg_str_startswith(uri, c->resource_prefix) && strstr(uri, "{tool}");
        if (!ours)
            snprintf(msg, n, "completion/complete: %.200s is not one of the resource templates "
                             "(resources/templates/list)", uri ? uri : "params.ref.uri");
        else if (strcmp(arg, "tool") != 0)
            snprintf(msg, n, "completion/complete: the template has one variable, 'tool'");
        *kind = TG_COMPLETE_TOOLS;
        return ours && strcmp(arg, "tool") == 0;
    }
    snprintf(msg, n, "completion/complete: params.ref.type must be \"ref/prompt\" or "
                     "\"ref/resource\"");
    return false;
}

cJSON *tg_serve_complete(const tg_serve_completion *c, const cJSON *params, char *msg,
                         size_t msg_size)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(params, "ref");
    const cJSON *argument = cJSON_GetObjectItemCaseSensitive(params, "argument");
    const char *arg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(argument, "name"));
    const char *typed = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(argument, "value"));
    if (!cJSON_IsObject(ref) || !arg || !typed) {
        snprintf(msg, msg_size, "completion/complete: params.ref (an object) and params.argument "
                                "{name, value} (strings) are required");
        return NULL;
    }
    tg_prompt_complete kind;
    if (!source_of(c, ref, arg, &kind, msg, msg_size))
        return NULL;
    tg_strv found = TG_STRV_INIT;
    if (kind == TG_COMPLETE_TOOLS)
        tool_names(c, typed, &found);
    else if (kind == TG_COMPLETE_DATA_FILES)
        data_files(c, typed, &found);
    return result_of(&found);
}
