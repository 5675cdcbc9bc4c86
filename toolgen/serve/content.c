/* content.c — content blocks from files, and the block types of each revision (content.h). */
#include "serve/content.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "serve/artifacts.h"

const char *tg_serve_content_kind(const char *mime)
{
    static const char *const images[] = {"image/png", "image/jpeg", "image/gif", "image/webp",
                                         "image/svg+xml"};
    for (size_t i = 0; i < sizeof images / sizeof *images; i++)
        if (strcmp(mime, images[i]) == 0)
            return "image";
    if (tg_str_startswith(mime, "audio/"))
        return "audio";
    if (tg_str_startswith(mime, "text/") || strcmp(mime, "application/json") == 0)
        return "text";
    return NULL;
}

cJSON *tg_serve_media_block(const char *kind, const char *mime, const char *data, size_t len)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", kind);
    char *b64 = tg_serve_base64((const unsigned char *)data, len);
    cJSON_AddStringToObject(b, "data", b64);
    free(b64);
    cJSON_AddStringToObject(b, "mimeType", mime);
    return b;
}

cJSON *tg_serve_embedded_block(const char *uri, const char *mime, const char *data, size_t len)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", "resource");
    cJSON *r = cJSON_AddObjectToObject(b, "resource");
    cJSON_AddStringToObject(r, "uri", uri);
    cJSON_AddStringToObject(r, "mimeType", mime);
    tg_err err = {0};
    const char *kind = tg_serve_content_kind(mime);
    if (kind && strcmp(kind, "text") == 0 && strlen(data) == len &&
        tg_utf8_validate(data, len, &err) == 0) {
        cJSON_AddStringToObject(r, "text", data);
    } else {
        char *b64 = tg_serve_base64((const unsigned char *)data, len);
        cJSON_AddStringToObject(r, "blob", b64);
        free(b64);
    }
    return b;
}

cJSON *tg_serve_file_block(const char *path, const char *uri, const char *mime, long long size)
{
    const char *kind = tg_serve_content_kind(mime);
    bool text = kind && strcmp(kind, "text") == 0;
    long long max = text ? TG_SERVE_EMBED_MAX : TG_SERVE_MEDIA_MAX;
    if (!kind || size < 0 || size > max)
        return NULL;
    size_t len = 0;
    tg_err err = {0};
    char *data = tg_read_file(path, (size_t)max, &len, &err);
    if (!data)
        return NULL;
    cJSON *b = NULL;
    if (!text)
        b = tg_serve_media_block(kind, mime, data, len);
    else if (strlen(data) == len && tg_utf8_validate(data, len, &err) == 0)
        b = tg_serve_embedded_block(uri, mime, data, len); /* a text that is not UTF-8 is linked */
    free(data);
    return b;
}

int tg_serve_open_beneath(int dirfd, const char *path)
{
    char *copy = xstrdup(path);
    int fd = dup(dirfd);
    for (char *part = copy, *next; fd >= 0 && part; part = next) {
        char *slash = strchr(part, '/');
        next = slash ? slash + 1 : NULL;
        if (slash)
            *slash = '\0';
        int nd = openat(fd, part, (next ? O_DIRECTORY : 0) | O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = nd;
    }
    free(copy);
    return fd;
}

bool tg_serve_content_known(const char *revision, const char *type)
{
    /* dated revisions compare as strings; the current one (2026-07-28) knows every type */
    if (!revision || !type)
        return true;
    if (strcmp(type, "audio") == 0)
        return strcmp(revision, "2025-03-26") >= 0;
    if (strcmp(type, "resource_link") == 0)
        return strcmp(revision, "2025-06-18") >= 0;
    return true;
}

void tg_serve_content_fit(cJSON *content, const char *revision)
{
    for (cJSON *b = content ? content->child : NULL, *next; b; b = next) {
        next = b->next;
        if (!tg_serve_content_known(revision, tg_json_get_string(b, "type")))
            cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
    }
}
