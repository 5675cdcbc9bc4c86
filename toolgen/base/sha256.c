/* sha256.c — SHA-256 and HMAC-SHA-256 (sha256.h). */
#include "base/sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void block(tg_sha256_ctx *s, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
    s->h[5] += f;
    s->h[6] += g;
    s->h[7] += h;
}

void tg_sha256_init(tg_sha256_ctx *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->n = 0;
}

void tg_sha256_update(tg_sha256_ctx *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    while (len) {
        size_t take = 64 - s->n < len ? 64 - s->n : len;
        memcpy(s->buf + s->n, p, take);
        s->n += take;
        p += take;
        len -= take;
        if (s->n == 64) {
            block(s, s->buf);
            s->n = 0;
        }
    }
}

void tg_sha256_final(tg_sha256_ctx *s, unsigned char out[TG_SHA256_LEN])
{
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80, zero = 0;
    tg_sha256_update(s, &pad, 1);
    while (s->n != 56)
        tg_sha256_update(s, &zero, 1);
    unsigned char l[8];
    for (int i = 0; i < 8; i++)
        l[i] = (unsigned char)(bits >> (56 - 8 * i));
    tg_sha256_update(s, l, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

void tg_sha256(const void *data, size_t len, unsigned char out[TG_SHA256_LEN])
{
    tg_sha256_ctx s;
    tg_sha256_init(&s);
    tg_sha256_update(&s, data, len);
    tg_sha256_final(&s, out);
}

void tg_sha256_final_hex(tg_sha256_ctx *s, char out[TG_SHA256_HEX])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char d[TG_SHA256_LEN];
    tg_sha256_final(s, d);
    for (int i = 0; i < TG_SHA256_LEN; i++) {
        out[2 * i] = digits[d[i] >> 4];
        out[2 * i + 1] = digits[d[i] & 15];
    }
    out[2 * TG_SHA256_LEN] = '\0';
}

void tg_sha256_hex(const void *data, size_t len, char out[TG_SHA256_HEX])
{
    tg_sha256_ctx s;
    tg_sha256_init(&s);
    tg_sha256_update(&s, data, len);
    tg_sha256_final_hex(&s, out);
}

void tg_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                    unsigned char out[TG_SHA256_LEN])
{
    unsigned char k[64] = {0}, pad[64], inner[TG_SHA256_LEN];
    if (key_len > 64)
        tg_sha256(key, key_len, k);
    else
        memcpy(k, key, key_len);
    tg_sha256_ctx s;
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x36;
    tg_sha256_init(&s);
    tg_sha256_update(&s, pad, 64);
    tg_sha256_update(&s, data, len);
    tg_sha256_final(&s, inner);
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x5c;
    tg_sha256_init(&s);
    tg_sha256_update(&s, pad, 64);
    tg_sha256_update(&s, inner, sizeof inner);
    tg_sha256_final(&s, out);
}

bool tg_mem_equal_ct(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= x[i] ^ y[i];
    return d == 0;
}
