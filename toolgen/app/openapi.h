/*
 * openapi.h — `toolgen init --from-openapi FILE [DIR]`: one draft manifest per operation of an
 * OpenAPI 3.0 or 3.1 document (YAML or JSON), run by the http runtime (docs/cli.md#init-from-openapi).
 *
 * Every manifest is drafted in memory first; a bad document (not OpenAPI 3.x, a dangling or
 * refused $ref, no usable server URL, a bad x-toolgen value) fails with err naming the file,
 * line and JSON Pointer and the fix, and nothing is written. DIR is made a toolgen repository
 * first when it is not one (app/init.h). A hints file (toolgen.hints.yaml) selects, renames and
 * describes operations, over the document's x-toolgen / x-mcp extensions. Re-running updates
 * the drafts it made and never touches one whose status is past draft or that it did not make.
 * Nothing here prints.
 */
#ifndef TG_APP_OPENAPI_H
#define TG_APP_OPENAPI_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strvec.h"
#include "base/util.h"

#define TG_OPENAPI_NAME_BUDGET 48 /* default: leaves room for a client's prefix under 64 */
#define TG_OPENAPI_MANY_TOOLS 40  /* more tools than this draw a warning (Cursor sends 40) */

typedef struct tg_openapi_opts {
    const char *file;         /* the OpenAPI document */
    const char *dir;          /* the repository (created / initialised when needed) */
    int name_budget;          /* longest tool name; 0: TG_OPENAPI_NAME_BUDGET (16..64) */
    bool read_only;           /* leave out every operation that is not GET */
    bool allow_external_refs; /* follow $refs to files under the document's folder */
    const char *base_url;     /* replaces the document's servers[0].url (NULL: use it) */
    bool dry_run;             /* draft and compare, write nothing */
    const char *hints_file;   /* NULL: DIR/toolgen.hints.yaml when it exists */
} tg_openapi_opts;

typedef struct tg_openapi_report {
    bool initialised;  /* DIR was made a toolgen repository first */
    tg_strv created;   /* tool names of new manifests */
    tg_strv updated;   /* "name: changed a, b" for drafts rewritten */
    tg_strv unchanged; /* drafts that came out the same */
    tg_strv kept;      /* "name (status staged)": past draft, left as they are */
    tg_strv skipped;   /* "METHOD /path: why" for operations not drafted */
    tg_strv stale;     /* "name (why)": drafts of an earlier run this one did not make */
    tg_strv warnings;  /* anything the user should look at (too many tools, cut $refs, ...) */
    size_t tools;      /* operations drafted (created + updated + unchanged + kept) */
} tg_openapi_report;

/* 0 with out filled (free with tg_openapi_report_free, also after an error); -2 with err: the
 * document or an option is refused and nothing was written; -1 with err: a write failed. */
int tg_app_init_openapi(const tg_openapi_opts *o, tg_openapi_report *out, tg_err *err);
void tg_openapi_report_free(tg_openapi_report *r);

#endif
