/*
 * actionres.h — an action result as a remote cache holds it: REAPI's ActionResult protobuf
 * (build.bazel.remote.execution.v2, cache/reapi.proto), the only file besides the generated
 * code that sees protobuf-c (docs/cache.md "On the wire").
 *
 * toolgen uses the few fields a stage result needs: the output files (path and the SHA-256
 * digest of the CAS blob holding its bytes; a small file's bytes inlined too, as REAPI servers
 * inline them on request), the exit code (0), and stdout_raw, inline bytes
 * that carry what toolgen keeps beside a result (the dependencies a stage discovered, its
 * summary lines). Decoding is strict about what it uses and lenient about the rest: unknown
 * fields are skipped, a digest that is not 64 hex digits or a negative size is an error.
 */
#ifndef TG_ACTIONRES_H
#define TG_ACTIONRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sha256.h"
#include "base/util.h"

typedef struct tg_ar_file {
    char *path;
    char hash[TG_SHA256_HEX]; /* lower-case hex SHA-256 of the contents */
    int64_t size;
    /* contents inlined in the message (OutputFile.contents), or NULL: fetch the blob */
    unsigned char *inline_data;
    size_t inline_len;
} tg_ar_file;

typedef struct tg_action_result {
    tg_ar_file *files;
    size_t nfiles;
    int exit_code;
    unsigned char *out; /* stdout_raw (NUL-terminated for convenience), outlen bytes */
    size_t outlen;
} tg_action_result;

/* The encoded ActionResult (heap, *len bytes). Files need path, hash and size. */
unsigned char *tg_ar_encode(const tg_action_result *ar, size_t *len);
/* Decodes len bytes; 0, or -1 with err (not an ActionResult toolgen can use). */
int tg_ar_decode(const void *data, size_t len, tg_action_result *ar, tg_err *err);
void tg_ar_free(tg_action_result *ar);
/* Adds an output file (path copied) whose contents are data; inline_too: the contents go into
 * the message as well (OutputFile.contents), sparing a reader the blob's request. */
void tg_ar_add_file(tg_action_result *ar, const char *path, const void *data, size_t len,
                    bool inline_too);

#endif
