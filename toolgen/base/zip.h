/*
 * zip.h — writes a ZIP archive in memory (PKWARE APPNOTE 6.3, the subset every reader takes):
 * entries stored without compression, with their CRC-32, Unix permissions, and a fixed date
 * (1980-01-01), so the same files always give the same bytes. An MCP Bundle (.mcpb) is such an
 * archive (toolgen pack, docs/mcp.md#pack).
 *
 * Limits of the format without its 64-bit extension, checked before anything is written: at
 * most 65,535 entries, each and the whole archive under 4 GiB.
 */
#ifndef TG_ZIP_H
#define TG_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/util.h"

typedef struct tg_zip {
    tg_buf out;     /* local headers and data so far */
    tg_buf central; /* the central directory so far */
    size_t n;       /* entries */
} tg_zip;

void tg_zip_init(tg_zip *z);
/* CRC-32 (ISO 3309, as ZIP and gzip use it). */
uint32_t tg_crc32(const void *data, size_t len);
/* Adds the file name (a relative path with '/', no "..", at most 65,535 bytes) holding len
 * bytes of data with the permission bits mode (e.g. 0644, 0755). -1 with err past a limit or
 * for a bad name. */
int tg_zip_add(tg_zip *z, const char *name, const void *data, size_t len, unsigned mode,
               tg_err *err);
/* The archive's bytes (heap, *len); z is empty afterwards. -1-ish: NULL with err past a limit. */
char *tg_zip_finish(tg_zip *z, size_t *len, tg_err *err);
void tg_zip_free(tg_zip *z);

#endif
