/*
 * sha256.h — SHA-256 (FIPS 180-4), for the registry's spec and code hashes (docs/lifecycle.md
 * "Hashes"): the seed asks for SHA-256 so that anyone can recheck a snapshot with sha256sum,
 * which the build's XXH3 keys (base/hash.h) do not allow.
 */
#ifndef TG_SHA256_H
#define TG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define TG_SHA256_HEX 65 /* 64 lower-case hex digits + NUL */

typedef struct tg_sha256_ctx {
    uint32_t h[8];
    uint64_t len;      /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
} tg_sha256_ctx;

void tg_sha256_init(tg_sha256_ctx *c);
void tg_sha256_update(tg_sha256_ctx *c, const void *data, size_t len);
/* Writes the digest as lower-case hex (what sha256sum prints). c must be re-initialised after. */
void tg_sha256_final_hex(tg_sha256_ctx *c, char out[TG_SHA256_HEX]);
/* One-shot: the hex digest of len bytes at data. */
void tg_sha256_hex(const void *data, size_t len, char out[TG_SHA256_HEX]);

#endif
