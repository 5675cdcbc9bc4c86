/* hash.c — XXH3-128 over bytes, files, canonical JSON and key fields. */
#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "base/buf.h"
#include "base/json.h"

static tg_hash from_xxh(XXH128_hash_t x)
{
    return (tg_hash){x.high64, x.low64};
}

tg_hash tg_hash_bytes(const void *data, size_t len)
{
    return from_xxh(XXH3_128bits(data, len));
}

tg_hash tg_hash_spans(const tg_span *parts, size_t n)
{
    if (n == 1)
        return tg_hash_bytes(parts[0].data, parts[0].len);
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        tg_oom(0);
    XXH3_128bits_reset(st);
    for (size_t i = 0; i < n; i++)
        XXH3_128bits_update(st, parts[i].data, parts[i].len);
    tg_hash h = from_xxh(XXH3_128bits_digest(st));
    XXH3_freeState(st);
    return h;
}

int tg_hash_fd(int fd, const char *path, tg_hash *out, tg_err *err)
{
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        tg_oom(0); /* xxhash hides the size of its state */
    XXH3_128bits_reset(st);
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            XXH3_freeState(st);
            return tg_err_setpos(err, path, 0, 0, "read error: %s", strerror(e));
        }
        if (r == 0)
            break;
        XXH3_128bits_update(st, buf, (size_t)r);
    }
    *out = from_xxh(XXH3_128bits_digest(st));
    XXH3_freeState(st);
    return 0;
}

int tg_hash_file(const char *path, tg_hash *out, tg_err *err)
{
    return tg_hash_file_at(AT_FDCWD, path, out, err);
}

int tg_hash_file_at(int dirfd, const char *path, tg_hash *out, tg_err *err)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tg_err_setpos(err, path, 0, 0, "cannot open: %s", strerror(errno));
    int rc = tg_hash_fd(fd, path, out, err);
    close(fd);
    return rc;
}

bool tg_hash_eq(tg_hash a, tg_hash b)
{
    return a.hi == b.hi && a.lo == b.lo;
}

bool tg_hash_is_zero(tg_hash h)
{
    return h.hi == 0 && h.lo == 0;
}

void tg_hash_hex(tg_hash h, char out[TG_HASH_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[i] = digits[(h.hi >> (60 - 4 * i)) & 15];
        out[16 + i] = digits[(h.lo >> (60 - 4 * i)) & 15];
    }
    out[32] = '\0';
}

/* The state log holds hundreds of thousands of hashes: this runs on every one of them. */
bool tg_hash_parse(const char *s, tg_hash *out)
{
    uint64_t hi = 0, lo = 0;
    const unsigned char *u = (const unsigned char *)s;
    for (int i = 0; i < 16; i++) {
        int v = tg_hexval(u[i]);
        if (v < 0)
            return false;
        hi = hi << 4 | (uint64_t)v;
    }
    for (int i = 16; i < 32; i++) {
        int v = tg_hexval(u[i]);
        if (v < 0)
            return false;
        lo = lo << 4 | (uint64_t)v;
    }
    *out = (tg_hash){hi, lo};
    return true;
}

/* ---- canonical JSON ------------------------------------------------------------------------ */

static int member_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static void canonical(tg_buf *b, const cJSON *v, int depth)
{
    if (depth > TG_JSON_MAX_DEPTH) {
        tg_buf_puts(b, "\"<too deep>\"");
        return;
    }
    if (cJSON_IsObject(v)) {
        size_t n = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, v) n++;
        const cJSON **m = xcalloc(n ? n : 1, sizeof *m);
        n = 0;
        cJSON_ArrayForEach(c, v) m[n++] = c;
        qsort(m, n, sizeof *m, member_cmp);
        tg_buf_putc(b, '{');
        for (size_t i = 0; i < n; i++) {
            if (i)
                tg_buf_putc(b, ',');
            tg_buf_json_string(b, m[i]->string);
            tg_buf_putc(b, ':');
            canonical(b, m[i], depth + 1);
        }
        tg_buf_putc(b, '}');
        free(m);
    } else if (cJSON_IsArray(v)) {
        tg_buf_putc(b, '[');
        const cJSON *c;
        bool first = true;
        cJSON_ArrayForEach(c, v)
        {
            if (!first)
                tg_buf_putc(b, ',');
            first = false;
            canonical(b, c, depth + 1);
        }
        tg_buf_putc(b, ']');
    } else if (cJSON_IsString(v)) {
        tg_buf_json_string(b, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        char num[40];
        tg_buf_puts(b, tg_json_number_text(v, num));
    } else if (cJSON_IsBool(v)) {
        tg_buf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
    } else {
        tg_buf_puts(b, "null");
    }
}

tg_hash tg_hash_json(const cJSON *v)
{
    tg_buf b = TG_BUF_INIT;
    if (v)
        canonical(&b, v, 0);
    else
        tg_buf_puts(&b, "<absent>"); /* not JSON, so it differs from every value */
    tg_hash h = tg_hash_bytes(b.data, b.len);
    tg_buf_free(&b);
    return h;
}

/* ---- key fields ---------------------------------------------------------------------------- */

struct tg_hasher {
    XXH3_state_t *st;
};

tg_hasher *tg_hasher_new(void)
{
    tg_hasher *h = xmalloc(sizeof *h);
    h->st = XXH3_createState();
    if (!h->st)
        tg_oom(0); /* xxhash hides the size of its state */
    XXH3_128bits_reset(h->st);
    return h;
}

void tg_hasher_free(tg_hasher *h)
{
    if (!h)
        return;
    XXH3_freeState(h->st);
    free(h);
}

void tg_hasher_field(tg_hasher *h, char tag, const void *data, size_t len)
{
    unsigned char head[9];
    head[0] = (unsigned char)tag;
    uint64_t n = len;
    for (int i = 0; i < 8; i++)
        head[1 + i] = (unsigned char)(n >> (8 * i)); /* little-endian on every host */
    XXH3_128bits_update(h->st, head, sizeof head);
    if (len)
        XXH3_128bits_update(h->st, data, len);
}

void tg_hasher_str(tg_hasher *h, char tag, const char *s)
{
    tg_hasher_field(h, tag, s, strlen(s));
}

void tg_hasher_hash(tg_hasher *h, char tag, tg_hash v)
{
    unsigned char b[16];
    for (int i = 0; i < 8; i++) {
        b[i] = (unsigned char)(v.hi >> (56 - 8 * i));
        b[8 + i] = (unsigned char)(v.lo >> (56 - 8 * i));
    }
    tg_hasher_field(h, tag, b, sizeof b);
}

tg_hash tg_hasher_final(tg_hasher *h)
{
    return from_xxh(XXH3_128bits_digest(h->st));
}
