/*
 * sha256.h — SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), small and dependency-free.
 *
 * Two users: the registry's spec and code hashes (docs/lifecycle.md "Hashes"), which the seed
 * asks to be SHA-256 so that anyone can recheck a snapshot with sha256sum; and toolgen serve,
 * which signs the requestState of multi round-trip requests with HMAC-SHA-256 under a
 * per-server random key (docs/mcp.md#asking-the-user). The build's content keys use XXH3
 * (base/hash.h), which is neither.
 */
#ifndef TG_SHA256_H
#define TG_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TG_SHA256_LEN 32
#define TG_SHA256_HEX 65 /* 64 lower-case hex digits + NUL */

typedef struct tg_sha256_ctx {
    uint32_t h[8];
    uint64_t len;         /* bytes hashed so far */
    unsigned char buf[64];
    size_t n;             /* bytes waiting in buf */
} tg_sha256_ctx;

void tg_sha256_init(tg_sha256_ctx *s);
void tg_sha256_update(tg_sha256_ctx *s, const void *data, size_t len);
/* The digest; s must be re-initialised after (also for the _hex form). */
void tg_sha256_final(tg_sha256_ctx *s, unsigned char out[TG_SHA256_LEN]);
/* The digest as lower-case hex (what sha256sum prints). */
void tg_sha256_final_hex(tg_sha256_ctx *s, char out[TG_SHA256_HEX]);
/* One-shot: the hex digest of len bytes at data. */
void tg_sha256_hex(const void *data, size_t len, char out[TG_SHA256_HEX]);
/* One call: the digest of data. */
void tg_sha256(const void *data, size_t len, unsigned char out[TG_SHA256_LEN]);
/* HMAC-SHA-256 of data under key (any length). */
void tg_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char out[TG_SHA256_LEN]);
/* Compares n bytes in time independent of where they differ (for MACs). */
bool tg_mem_equal_ct(const void *a, const void *b, size_t n);

#endif
