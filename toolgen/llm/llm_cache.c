/*
 * llm_cache.c — the content-addressed answer cache (docs/generate.md#the-response-cache): one
 * JSON file per canonical request, <cache_dir>/<xx>/<key>.json, written atomically once the
 * answer is complete, so a crash never leaves a half answer that a rebuild would trust.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "llm/llm_int.h"

#define CACHE_MAX_BYTES (8u << 20)

static char *entry_path(const char *dir, tg_hash key)
{
    char hex[TG_HASH_HEX];
    tg_hash_hex(key, hex);
    return xasprintf("%s/%.2s/%s.json", dir, hex, hex);
}

int tg_llm_cache_parse(const char *bytes, size_t len, tg_hash key, char **text, char **model)
{
    *text = *model = NULL;
    tg_err err = {0};
    cJSON *root = tg_json_parse(bytes, len, NULL, NULL, NULL, &err);
    char hex[TG_HASH_HEX];
    tg_hash_hex(key, hex);
    const char *k = root ? tg_json_get_string(root, "key") : NULL;
    const char *t = root ? tg_json_get_string(root, "text") : NULL;
    const char *m = root ? tg_json_get_string(root, "model") : NULL;
    if (t && m && (!k || strcmp(k, hex) == 0)) { /* an entry of another request is no answer */
        *text = xstrdup(t);
        *model = xstrdup(m);
    }
    cJSON_Delete(root);
    return *text ? 0 : -1;
}

int tg_llm_cache_get(int root_fd, const char *dir, tg_hash key, char **text, char **model)
{
    *text = *model = NULL;
    char *path = entry_path(dir, key);
    tg_err err = {0};
    size_t len = 0;
    char *bytes = tg_read_file_at(root_fd, path, CACHE_MAX_BYTES, &len, &err);
    free(path);
    if (!bytes)
        return -1;
    int rc = tg_llm_cache_parse(bytes, len, key, text, model);
    free(bytes);
    return rc; /* an unreadable entry is a miss: the request is made again */
}

char *tg_llm_cache_entry(tg_hash key, const char *canonical, const char *text,
                         const char *model, size_t *len)
{
    char hex[TG_HASH_HEX];
    tg_hash_hex(key, hex);
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "{\"key\":");
    tg_buf_json_string(&b, hex);
    tg_buf_puts(&b, ",\n\"model\":");
    tg_buf_json_string(&b, model);
    tg_buf_puts(&b, ",\n\"request\":");
    tg_buf_puts(&b, canonical);
    tg_buf_puts(&b, ",\n\"text\":");
    tg_buf_json_string(&b, text);
    tg_buf_puts(&b, "}\n");
    *len = b.len;
    return tg_buf_steal(&b);
}

int tg_llm_cache_write(int root_fd, const char *dir, tg_hash key, const char *entry, size_t len,
                       tg_err *err)
{
    char hex[TG_HASH_HEX];
    tg_hash_hex(key, hex);
    char *sub = xasprintf("%s/%.2s", dir, hex);
    int rc = tg_mkdirs_at(root_fd, sub, err);
    free(sub);
    if (rc != 0)
        return -1;
    char *path = entry_path(dir, key);
    rc = tg_write_file_atomic_at(root_fd, path, entry, len, err);
    free(path);
    return rc;
}
