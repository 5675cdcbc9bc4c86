/* zip.c — stored ZIP archives (zip.h). */
#include "base/zip.h"

#include <pthread.h>
#include <string.h>

#define ZIP_LIMIT 0xFFFFFFFFu

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_build(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t tg_crc32(const void *data, size_t len)
{
    /* built once for all threads: pack and the server may zip at the same time */
    pthread_once(&crc_once, crc_table_build);
    const uint32_t *table = crc_table;
    uint32_t c = 0xFFFFFFFFu;
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void le16(tg_buf *b, unsigned v)
{
    unsigned char x[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    tg_buf_append(b, x, 2);
}

static void le32(tg_buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    tg_buf_append(b, x, 4);
}

void tg_zip_init(tg_zip *z)
{
    tg_buf_init(&z->out, 1 << 16);
    tg_buf_init(&z->central, 4096);
    z->n = 0;
}

/* A relative path of non-empty segments, none of them "..". */
static bool good_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 0xFFFF)
        return false;
    for (const char *seg = name;;) {
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0 || (len == 2 && strncmp(seg, "..", 2) == 0))
            return false;
        if (!slash)
            return true;
        seg = slash + 1;
    }
}

/* The fields local and central headers share, from "version needed" to the name's length. */
static void common(tg_buf *b, uint32_t crc, size_t len, size_t name_len)
{
    le16(b, 10);     /* version needed: 1.0, stored */
    le16(b, 0x0800); /* flags: the name is UTF-8 */
    le16(b, 0);      /* method: stored */
    le16(b, 0);      /* time 00:00:00 */
    le16(b, 0x21);   /* date 1980-01-01 */
    le32(b, crc);
    le32(b, (uint32_t)len); /* compressed */
    le32(b, (uint32_t)len); /* uncompressed */
    le16(b, (unsigned)name_len);
}

int tg_zip_add(tg_zip *z, const char *name, const void *data, size_t len, unsigned mode,
               tg_err *err)
{
    if (!good_name(name))
        return tg_err_set(err, "%s: not a relative path an archive may hold", name);
    size_t name_len = strlen(name);
    if (z->n == 0xFFFF || len >= ZIP_LIMIT || z->out.len + 30 + name_len + len >= ZIP_LIMIT)
        return tg_err_set(err, "%s: the archive would pass the ZIP limits (65,535 files, 4 GiB)",
                          name);
    uint32_t crc = tg_crc32(data, len);
    uint32_t offset = (uint32_t)z->out.len;
    le32(&z->out, 0x04034b50);
    common(&z->out, crc, len, name_len);
    le16(&z->out, 0); /* extra */
    tg_buf_append(&z->out, name, name_len);
    tg_buf_append(&z->out, data, len);

    le32(&z->central, 0x02014b50);
    le16(&z->central, 3 << 8 | 20); /* made by: Unix, 2.0 (so the mode below is read) */
    common(&z->central, crc, len, name_len);
    le16(&z->central, 0); /* extra */
    le16(&z->central, 0); /* comment */
    le16(&z->central, 0); /* disk */
    le16(&z->central, 0); /* internal attributes */
    le32(&z->central, (uint32_t)(0100000u | (mode & 0777)) << 16); /* a regular file, mode */
    le32(&z->central, offset);
    tg_buf_append(&z->central, name, name_len);
    z->n++;
    return 0;
}

char *tg_zip_finish(tg_zip *z, size_t *len, tg_err *err)
{
    if (z->out.len + z->central.len + 22 >= ZIP_LIMIT) {
        tg_err_set(err, "the archive would pass the ZIP limit of 4 GiB");
        return NULL;
    }
    uint32_t cd_offset = (uint32_t)z->out.len;
    tg_buf_append(&z->out, z->central.data, z->central.len);
    le32(&z->out, 0x06054b50);
    le16(&z->out, 0); /* this disk */
    le16(&z->out, 0); /* the central directory's disk */
    le16(&z->out, (unsigned)z->n);
    le16(&z->out, (unsigned)z->n);
    le32(&z->out, (uint32_t)z->central.len);
    le32(&z->out, cd_offset);
    le16(&z->out, 0); /* comment */
    *len = z->out.len;
    char *bytes = tg_buf_steal(&z->out);
    tg_zip_free(z);
    return bytes;
}

void tg_zip_free(tg_zip *z)
{
    tg_buf_free(&z->out);
    tg_buf_free(&z->central);
    z->n = 0;
}
