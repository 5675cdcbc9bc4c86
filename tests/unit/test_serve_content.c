/*
 * test_serve_content.c — content blocks made from files (serve/content.h): which files become
 * image, audio and embedded resource blocks and within which sizes, and which block types each
 * protocol revision knows; each block checked against the MCP schema of 2025-11-25.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"
#include "serve/content.h"
#include "testlib.h"
#include "mcp_schemas.h"

static rev_schemas legacy_s;

static char *write_tmp(const char *dir, const char *name, const char *data, size_t len)
{
    char *path = tg_path_join(dir, name);
    tg_err err = {0};
    SETUP(tg_write_file_atomic(path, data, len, &err) == 0, "%s", err.msg);
    return path;
}

static void expect_block(const char *dir, const char *name, const char *data, size_t len,
                         const char *mime, const char *type)
{
    char *path = write_tmp(dir, name, data, len);
    cJSON *b = tg_serve_file_block(path, "toolgen://artifacts/t/x", mime, (long long)len);
    if (!type) {
        CHECK(!b, "%s (%s, %zu bytes) is only linked", name, mime, len);
    } else {
        CHECK(b && strcmp(tg_json_get_string(b, "type"), type) == 0, "%s is a %s block", name,
              type);
        expect_def(&legacy_s, "ContentBlock", b, name);
    }
    cJSON_Delete(b);
    free(path);
}

static void test_blocks(const char *dir)
{
    CHECK(strcmp(tg_serve_content_kind("image/png"), "image") == 0 &&
              strcmp(tg_serve_content_kind("audio/wav"), "audio") == 0 &&
              strcmp(tg_serve_content_kind("text/csv"), "text") == 0 &&
              strcmp(tg_serve_content_kind("application/json"), "text") == 0 &&
              strcmp(tg_serve_content_kind("image/svg+xml"), "image") == 0 &&
              !tg_serve_content_kind("application/pdf"),
          "kinds by MIME type");
    expect_block(dir, "a.wav", "RIFF....WAVE", 12, "audio/wav", "audio");
    expect_block(dir, "p.png", "\x89PNG", 4, "image/png", "image");
    expect_block(dir, "t.txt", "hello", 5, "text/plain", "resource");
    expect_block(dir, "d.json", "{\"a\":1}", 7, "application/json", "resource");
    expect_block(dir, "bad.txt", "a\xff", 2, "text/plain", NULL);
    expect_block(dir, "nul.txt", "a\0b", 3, "text/plain", NULL);
    expect_block(dir, "doc.pdf", "%PDF", 4, "application/pdf", NULL);
    char *big = xmalloc(TG_SERVE_EMBED_MAX + 2);
    memset(big, 'a', TG_SERVE_EMBED_MAX + 1);
    big[TG_SERVE_EMBED_MAX + 1] = '\0';
    expect_block(dir, "big.txt", big, TG_SERVE_EMBED_MAX + 1, "text/plain", NULL);
    free(big);
    CHECK(!tg_serve_file_block("/nonexistent/x.wav", "u", "audio/wav", 3), "unreadable: none");

    cJSON *e = tg_serve_embedded_block("test://x", "image/png", "\x89PNG", 4);
    CHECK(tg_json_get_string(tg_json_get(e, "resource"), "blob") &&
              strcmp(tg_json_get_string(tg_json_get(e, "resource"), "blob"), "iVBORw==") == 0,
          "binary embedded as a base64 blob");
    expect_def(&legacy_s, "EmbeddedResource", e, "blob");
    cJSON_Delete(e);
}

static void test_revisions(void)
{
    CHECK(!tg_serve_content_known("2024-11-05", "audio") &&
              tg_serve_content_known("2025-03-26", "audio") &&
              !tg_serve_content_known("2025-03-26", "resource_link") &&
              tg_serve_content_known("2025-06-18", "resource_link") &&
              tg_serve_content_known("2026-07-28", "resource_link") &&
              tg_serve_content_known(NULL, "audio") && tg_serve_content_known("2024-11-05", "image"),
          "audio since 2025-03-26, resource_link since 2025-06-18");
    const char *text = "[{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"resource_link\",\"uri\":\"u\","
                       "\"name\":\"n\"},{\"type\":\"audio\",\"data\":\"\",\"mimeType\":\"audio/wav\"}]";
    tg_err err = {0};
    cJSON *c = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    tg_serve_content_fit(c, "2024-11-05");
    CHECK(cJSON_GetArraySize(c) == 1, "a 2024-11-05 client gets the text block only");
    cJSON_Delete(c);
    c = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    tg_serve_content_fit(c, "2025-11-25");
    CHECK(cJSON_GetArraySize(c) == 3, "a 2025-11-25 client gets them all");
    cJSON_Delete(c);
}

int main(void)
{
    open_rev(&legacy_s, "2025-11-25");
    char dir[] = "/tmp/tg-content-XXXXXX";
    SETUP(mkdtemp(dir), "mkdtemp");
    test_blocks(dir);
    test_revisions();
    char *rm = xasprintf("rm -rf '%s'", dir);
    CHECK(system(rm) == 0, "cleanup");
    free(rm);
    js_registry_free(legacy_s.reg);
    return tl_finish("test_serve_content");
}
