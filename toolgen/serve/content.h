/*
 * content.h — MCP content blocks made from files: images, audio and embedded resources, for the
 * files a call wrote (serve/toolcall.h) and the parts of prompt templates (serve/prompts.h);
 * and which block types each protocol revision knows (docs/mcp.md, "Tools").
 *
 * A file's block depends on its MIME type and size: PNG, JPEG, GIF and WebP images up to
 * TG_SERVE_MEDIA_MAX bytes are `image` blocks, audio files up to the same size `audio` blocks,
 * and text files (text types, JSON) up to TG_SERVE_EMBED_MAX bytes in UTF-8 embedded `resource`
 * blocks carrying their text. Anything else, or anything larger, is only linked.
 * Pure functions of their inputs; thread-safe.
 */
#ifndef TG_SERVE_CONTENT_H
#define TG_SERVE_CONTENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define TG_SERVE_MEDIA_MAX (1 << 20) /* larger images and audio are only linked */
#define TG_SERVE_EMBED_MAX (16 << 10) /* larger text files are only linked */

/* "image", "audio", "text" (embeddable as text) or NULL: how a file of mime is carried. */
const char *tg_serve_content_kind(const char *mime);

/* An image or audio block (kind "image" or "audio") of data[0..len), base64-encoded. */
cJSON *tg_serve_media_block(const char *kind, const char *mime, const char *data, size_t len);
/* An embedded resource block {type: resource, resource: {uri, mimeType, text | blob}}: text
 * when mime is textual and data is UTF-8 without NUL, else base64 blob. */
cJSON *tg_serve_embedded_block(const char *uri, const char *mime, const char *data, size_t len);

/* The block that carries the file at path (mime by its name) within the limits above, uri
 * naming it for an embedded resource; NULL when it is only to be linked, or unreadable. */
cJSON *tg_serve_file_block(const char *path, const char *uri, const char *mime, long long size);

/* Opens path (relative, "/"-separated) under dirfd for reading one component at a time, never
 * following a symbolic link: a file a repository names stays inside it. -1 with errno. */
int tg_serve_open_beneath(int dirfd, const char *path);

/* Whether a client of revision (a legacy revision, or "2026-07-28"; NULL: the newest) knows
 * content blocks of type: audio came with 2025-03-26, resource_link with 2025-06-18. */
bool tg_serve_content_known(const char *revision, const char *type);
/* Removes from the array content the blocks revision does not know. */
void tg_serve_content_fit(cJSON *content, const char *revision);

#endif
