/*
 * declared.h — the resources a repository declares for its clients (docs/mcp.md#resources),
 * `serve.resources` in toolgen.yaml: files of the repository, each under a URI of its choosing,
 * or a URI template whose variables pick the file:
 *
 *   serve:
 *     resources:
 *       - uri: docs://glossary                 # one resource: this file
 *         file: docs/glossary.md
 *         title: Glossary                      # name, title, description, mime_type: optional
 *       - uri_template: data://tables/{table}  # a template: {table} fills the file's {table}
 *         file: data/{table}.csv
 *
 * A file is read at each resources/read, so its current bytes are served: text for textual
 * types in UTF-8, else a base64 blob, with the MIME type of its extension unless mime_type says
 * otherwise. It is named relative to the repository and reached without symbolic links; a
 * template's variable takes letters, digits, '_', '-' and '.' (not first), never a '/'.
 *
 * Subscriptions (legacy resources/subscribe, 2026-07-28 resourceSubscriptions) watch a declared
 * resource: tg_serve_declared_poll, run with the change checks, says which watched files changed
 * (their size, modification time or inode), and the clients hear notifications/resources/
 * updated. One set per server; watch and poll under the core lock, the rest only reads.
 */
#ifndef TG_SERVE_DECLARED_H
#define TG_SERVE_DECLARED_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "model/repo.h"

#define TG_SERVE_DECLARED_MAX 256      /* declared resources */
#define TG_SERVE_WATCHED_MAX 1024      /* URIs watched for subscriptions */
#define TG_SERVE_DECLARED_READ_MAX (16u << 20) /* the largest file read */

typedef struct tg_serve_declared_res {
    char *uri;          /* the URI, or the URI template */
    bool is_template;
    char *file;         /* relative to the repository; a template's holds its variables */
    char *name, *title, *description; /* title, description: NULL when not given */
    char *mime;         /* NULL: by the file's extension */
} tg_serve_declared_res;

typedef struct tg_serve_watched tg_serve_watched;

typedef struct tg_serve_declared {
    int root_fd;                 /* the repository's, borrowed */
    tg_serve_declared_res *v;
    size_t n;
    tg_serve_watched *w;         /* watched URIs and their files' last state */
    size_t nw;
    cJSON *changed;              /* the URIs the last poll found changed (an array) */
} tg_serve_declared;

/* serve.resources of repo's toolgen.yaml; none is an empty set. -1 with err naming the entry
 * and what to fix. */
int tg_serve_declared_load(tg_serve_declared *d, const tg_repo *repo, tg_err *err);
void tg_serve_declared_free(tg_serve_declared *d);

/* Appends the Resource objects of the plain resources (resources/list) to list, and the
 * ResourceTemplate objects of the templates (resources/templates/list) to templates. */
void tg_serve_declared_list(const tg_serve_declared *d, cJSON *list, cJSON *templates);
/* The plain resources' count (their place in resources/list) and the i-th one's object. */
size_t tg_serve_declared_count(const tg_serve_declared *d);
cJSON *tg_serve_declared_resource(const tg_serve_declared *d, size_t i);

/* Whether uri names a declared resource (a plain one, or an instance of a template). */
bool tg_serve_declared_has(const tg_serve_declared *d, const char *uri);
/* The ResourceContents of uri: 1 with *out; 0 when uri is not declared; -1 when it is but its
 * file cannot be read (why says which). */
int tg_serve_declared_read(const tg_serve_declared *d, const char *uri, cJSON **out, char *why,
                           size_t why_size);

/* Starts watching uri (a subscription); false when it is not declared or too many are. */
bool tg_serve_declared_watch(tg_serve_declared *d, const char *uri);
/* Looks at the watched files; the count that changed since the last look, their URIs in
 * d->changed. */
size_t tg_serve_declared_poll(tg_serve_declared *d);

#endif
