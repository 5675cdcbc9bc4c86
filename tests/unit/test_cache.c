/*
 * test_cache.c — the remote cache's pieces without a server (the server tests are
 * tests/cli/remote_cache.sh): REAPI ActionResult bytes (cache/actionres.h) as protobuf encodes
 * them, decoded back, with fields toolgen does not use skipped and unusable ones refused; the
 * wire keys (cache/remote.h); a client's refusals at open; a server that is not there is one
 * DOWN and then quiet misses.
 */
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "cache/actionres.h"
#include "cache/remote.h"
#include "testlib.h"

/* The bytes protoc would write for ActionResult{output_files: [{path: "a", digest: {hash:
 * sha256(""), size_bytes: 0}}], exit_code: 0, stdout_raw: "hi"}, plus an unknown field
 * (execution_metadata, 9) toolgen skips. Written out by hand from the wire format. */
static size_t sample(unsigned char *buf)
{
    static const char empty[] =
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    size_t n = 0;
    unsigned char digest[80], file[100];
    size_t dn = 0, fn = 0;
    digest[dn++] = 0x0a; /* hash, length-delimited */
    digest[dn++] = 64;
    memcpy(digest + dn, empty, 64);
    dn += 64;
    file[fn++] = 0x0a; /* path */
    file[fn++] = 1;
    file[fn++] = 'a';
    file[fn++] = 0x12; /* digest */
    file[fn++] = (unsigned char)dn;
    memcpy(file + fn, digest, dn);
    fn += dn;
    buf[n++] = 0x12; /* output_files */
    buf[n++] = (unsigned char)fn;
    memcpy(buf + n, file, fn);
    n += fn;
    buf[n++] = 0x2a; /* stdout_raw */
    buf[n++] = 2;
    buf[n++] = 'h';
    buf[n++] = 'i';
    buf[n++] = 0x4a; /* execution_metadata: unknown here */
    buf[n++] = 2;
    buf[n++] = 0x0a;
    buf[n++] = 0;
    return n;
}

static void test_decode_sample(void)
{
    unsigned char buf[256];
    size_t n = sample(buf);
    tg_action_result ar;
    tg_err err = {0};
    CHECK(tg_ar_decode(buf, n, &ar, &err) == 0, "decode: %s", err.msg);
    CHECK(ar.nfiles == 1 && !strcmp(ar.files[0].path, "a") && ar.files[0].size == 0, "file");
    CHECK(ar.outlen == 2 && !strcmp((char *)ar.out, "hi"), "stdout_raw");
    tg_ar_free(&ar);
}

static void test_roundtrip(void)
{
    tg_action_result ar = {0};
    tg_ar_add_file(&ar, "generated/x/openai.json", "{}\n", 3, false);
    tg_ar_add_file(&ar, ".toolgen/ir/x.json", "xy", 2, true);
    ar.out = (unsigned char *)"s x: 3/3 tests passed\n";
    ar.outlen = strlen((char *)ar.out);
    size_t len = 0;
    unsigned char *bytes = tg_ar_encode(&ar, &len);
    ar.out = NULL;
    tg_action_result back;
    tg_err err = {0};
    CHECK(tg_ar_decode(bytes, len, &back, &err) == 0, "decode: %s", err.msg);
    CHECK(back.nfiles == 2, "files: %zu", back.nfiles);
    CHECK(!strcmp(back.files[0].path, "generated/x/openai.json") && back.files[0].size == 3 &&
              !strcmp(back.files[0].hash, ar.files[0].hash),
          "first file");
    char want[TG_SHA256_HEX];
    tg_sha256_hex("{}\n", 3, want);
    CHECK(!strcmp(back.files[0].hash, want), "its SHA-256");
    CHECK(!back.files[0].inline_data, "not inlined");
    CHECK(back.files[1].inline_len == 2 && !memcmp(back.files[1].inline_data, "xy", 2),
          "inlined contents come back");
    CHECK_CONTAINS((char *)back.out, "3/3 tests passed");
    tg_ar_free(&back);
    tg_ar_free(&ar);
    free(bytes);
}

static void test_refused(void)
{
    tg_action_result ar;
    tg_err err = {0};
    CHECK(tg_ar_decode("\xff\xff\xff", 3, &ar, &err) != 0, "garbage is not an ActionResult");
    /* an output file whose digest is not a SHA-256 */
    unsigned char bad[] = {0x12, 0x0a, 0x0a, 0x01, 'a', 0x12, 0x05, 0x0a, 0x03, 'x', 'y', 'z'};
    err = (tg_err){0};
    CHECK(tg_ar_decode(bad, sizeof bad, &ar, &err) != 0, "a short digest is refused");
    CHECK_CONTAINS(err.msg, "SHA-256");
}

static void test_keys_and_open(void)
{
    char a[TG_SHA256_HEX], b[TG_SHA256_HEX];
    tg_remote_key("result", "00112233445566778899aabbccddeeff", a);
    tg_remote_key("deps", "00112233445566778899aabbccddeeff", b);
    CHECK(strlen(a) == 64 && strcmp(a, b) != 0, "kinds have their own keys");
    tg_remote *rc;
    tg_err err = {0};
    tg_remote_config cfg = {.url = "ftp://example/"};
    CHECK(tg_remote_open(&cfg, &rc, &err) != 0, "ftp refused");
    unsetenv("TG_TEST_NO_SUCH_TOKEN");
    cfg = (tg_remote_config){.url = "http://127.0.0.1:9/", .token_env = "TG_TEST_NO_SUCH_TOKEN"};
    err = (tg_err){0};
    CHECK(tg_remote_open(&cfg, &rc, &err) != 0, "an unset token variable");
    CHECK_CONTAINS(err.msg, "TG_TEST_NO_SUCH_TOKEN");
}

/* Port 9 (discard) on loopback has no listener here: refused at once. */
static void test_down(void)
{
    setenv("TG_TEST_TOKEN", "sekret-value", 1);
    tg_remote_config cfg = {.url = "http://127.0.0.1:9/c/", .token_env = "TG_TEST_TOKEN",
                            .upload = true, .timeout_ms = 2000};
    tg_remote *rc;
    tg_err err = {0};
    CHECK(tg_remote_open(&cfg, &rc, &err) == 0, "open: %s", err.msg);
    char key[TG_SHA256_HEX];
    tg_remote_key("result", "00", key);
    tg_remote_action a;
    tg_remote_status st = tg_remote_get(rc, key, &a, &err);
    CHECK(st == TG_REMOTE_DOWN, "first failure: DOWN, got %d", st);
    CHECK_CONTAINS(err.msg, "cannot be used");
    CHECK(!strstr(err.msg, "sekret-value"), "no token in: %s", err.msg);
    err = (tg_err){0};
    CHECK(tg_remote_get(rc, key, &a, &err) == TG_REMOTE_MISS && !err.msg[0], "then quiet misses");
    tg_action_result ar = {0};
    CHECK(tg_remote_put(rc, key, &ar, NULL, &err) == TG_REMOTE_SKIPPED, "and no uploads");
    tg_remote_close(rc);
}

int main(void)
{
    test_decode_sample();
    test_roundtrip();
    test_refused();
    test_keys_and_open();
    test_down();
    return tl_finish("unit-cache");
}
