/*
 * hash.h — XXH3-128 content hashes, and the canonical encoding that build keys are hashed from.
 *
 * A build key must change exactly when something a stage reads changes, so every field is
 * length-prefixed and tagged: no two different field lists can encode to the same bytes.
 */
#ifndef TG_HASH_H
#define TG_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/util.h"

typedef struct tg_hash {
    uint64_t hi, lo;
} tg_hash;

#define TG_HASH_HEX 33 /* 32 hex digits + NUL */

tg_hash tg_hash_bytes(const void *data, size_t len);
/* Bytes in several parts: what a file made of ranges of others holds, without assembling it. */
typedef struct tg_span {
    const char *data;
    size_t len;
} tg_span;
/* tg_hash_bytes of the parts' concatenation. */
tg_hash tg_hash_spans(const tg_span *parts, size_t n);
/* Streams the file through the hash (no size limit, constant memory). */
int tg_hash_file(const char *path, tg_hash *out, tg_err *err);
/* tg_hash_file for a path under the directory open as dirfd (see tg_read_file_at). */
int tg_hash_file_at(int dirfd, const char *path, tg_hash *out, tg_err *err);
/* Hashes the rest of an open file (path only names it in messages); the caller closes fd. */
int tg_hash_fd(int fd, const char *path, tg_hash *out, tg_err *err);
bool tg_hash_eq(tg_hash a, tg_hash b);
bool tg_hash_is_zero(tg_hash h);
/* Lower-case hex, high half first (like xxhsum's canonical form). */
void tg_hash_hex(tg_hash h, char out[TG_HASH_HEX]);
/* Parses exactly 32 hex digits at s; false when they are not there. */
bool tg_hash_parse(const char *s, tg_hash *out);

/*
 * Canonical JSON hash: object members sorted by key, numbers as written, no whitespace. Used for
 * config values, so that reordering keys in toolgen.yaml does not count as a change.
 * v == NULL (an absent value) hashes differently from any JSON value, null included.
 */
tg_hash tg_hash_json(const cJSON *v);

/* Incremental hasher for keys: a sequence of (tag, bytes) fields. */
typedef struct tg_hasher tg_hasher;
tg_hasher *tg_hasher_new(void);
void tg_hasher_free(tg_hasher *h);
void tg_hasher_field(tg_hasher *h, char tag, const void *data, size_t len);
void tg_hasher_str(tg_hasher *h, char tag, const char *s);
void tg_hasher_hash(tg_hasher *h, char tag, tg_hash v);
tg_hash tg_hasher_final(tg_hasher *h);

#endif
