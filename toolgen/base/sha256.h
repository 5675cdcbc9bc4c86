/*
 * sha256.h — SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), small and dependency-free.
 *
 * For integrity, not speed: toolgen serve signs the requestState of multi round-trip requests
 * with HMAC-SHA-256 under a per-server random key (docs/mcp.md#multi-round-trip-requests).
 * Content hashing for builds uses XXH3 (base/hash.h), which is not a MAC.
 */
#ifndef TG_SHA256_H
#define TG_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TG_SHA256_LEN 32

typedef struct tg_sha256_ctx {
    uint32_t h[8];
    uint64_t len;         /* bytes hashed so far */
    unsigned char buf[64];
    size_t n;             /* bytes waiting in buf */
} tg_sha256_ctx;

void tg_sha256_init(tg_sha256_ctx *s);
void tg_sha256_update(tg_sha256_ctx *s, const void *data, size_t len);
void tg_sha256_final(tg_sha256_ctx *s, unsigned char out[TG_SHA256_LEN]);
/* One call: the digest of data. */
void tg_sha256(const void *data, size_t len, unsigned char out[TG_SHA256_LEN]);
/* HMAC-SHA-256 of data under key (any length). */
void tg_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char out[TG_SHA256_LEN]);
/* Compares n bytes in time independent of where they differ (for MACs). */
bool tg_mem_equal_ct(const void *a, const void *b, size_t n);

#endif
