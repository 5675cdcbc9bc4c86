/*
 * test_zip.c — the ZIP writer (base/zip.h): CRC-32 against its check value, names an archive
 * must not hold, and the layout of a written archive (local headers, central directory, end
 * record) read back field by field. tests/cli/pack.sh reads whole bundles with the mcpb CLI and
 * Python's zipfile.
 */
#include <stdlib.h>
#include <string.h>

#include "base/zip.h"
#include "testlib.h"

static unsigned rd16(const unsigned char *p)
{
    return p[0] | p[1] << 8;
}

static unsigned long rd32(const unsigned char *p)
{
    return (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 |
           (unsigned long)p[3] << 24;
}

int main(void)
{
    CHECK(tg_crc32("123456789", 9) == 0xCBF43926u, "the CRC-32 check value");
    CHECK(tg_crc32("", 0) == 0, "the CRC-32 of nothing");

    tg_zip z;
    tg_zip_init(&z);
    tg_err err = {0};
    const char *bad[] = {"", "/abs", "a/../b", "..", "../x", "dir/", "a//b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err = (tg_err){0};
        CHECK(tg_zip_add(&z, bad[i], "x", 1, 0644, &err) == -1 && strstr(err.msg, "relative path"),
              "refused: '%s'", bad[i]);
    }
    CHECK(tg_zip_add(&z, "manifest.json", "{}", 2, 0644, &err) == 0, "%s", err.msg);
    CHECK(tg_zip_add(&z, "bin/tool", "#!", 2, 0755, &err) == 0, "%s", err.msg);
    size_t len = 0;
    unsigned char *a = (unsigned char *)tg_zip_finish(&z, &len, &err);
    CHECK(a && len > 22, "finished");
    if (a && len > 22) {
        const unsigned char *end = a + len - 22;
        CHECK(rd32(end) == 0x06054b50 && rd16(end + 10) == 2, "the end record counts 2 entries");
        const unsigned char *cd = a + rd32(end + 16);
        CHECK(rd32(cd) == 0x02014b50 && rd16(cd + 28) == 13 && memcmp(cd + 46, "manifest.json", 13) == 0,
              "the central directory names the first file");
        CHECK(rd32(cd + 38) >> 16 == 0100644, "its Unix mode");
        const unsigned char *cd2 = cd + 46 + 13;
        CHECK(rd32(cd2 + 38) >> 16 == 0100755, "the second is executable");
        CHECK(rd32(a) == 0x04034b50 && rd32(a + 14) == tg_crc32("{}", 2) && rd32(a + 18) == 2 &&
                  memcmp(a + 30 + 13, "{}", 2) == 0,
              "the first local header: CRC, size, data stored as is");
    }
    free(a);
    tg_zip_free(&z);
    return tl_finish("test_zip");
}
