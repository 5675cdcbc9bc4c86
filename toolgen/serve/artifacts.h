/*
 * artifacts.h — the files tool calls wrote, kept for a while so that clients can read them back
 * as MCP resources (docs/mcp.md, "Files a call wrote").
 *
 * A call's files live in the sandbox's private working directory, removed when the call ends.
 * The store copies them first into a private temporary folder, one subfolder per call, and
 * names each by the URI "toolgen://artifacts/<token>/<path>", the token 128 random bits drawn
 * for the call; the call's result then links to those URIs (tg_emit_call_result_for's
 * resource_link blocks, relinked Markdown). The files are the client's whose call wrote them
 * (tg_serve_session.client): only that client lists them and reads them back; the files of a
 * call whose client is not known (a stateless request) are listed to no one and read by whoever
 * holds their unguessable URI. A file whose name is not UTF-8 is not kept (no URI could name
 * it). The files of the last keep_calls calls are kept; older ones are deleted, and all of them
 * when the store is freed. One store per server, used under the server's core lock.
 */
#ifndef TG_SERVE_ARTIFACTS_H
#define TG_SERVE_ARTIFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "run/toolrun.h"

#define TG_SERVE_ARTIFACT_PREFIX "toolgen://artifacts/"
#define TG_SERVE_KEEP_CALLS 16 /* calls whose files are kept, by default */

typedef struct tg_serve_artifact {
    char *uri;        /* TG_SERVE_ARTIFACT_PREFIX "<token>/<name>" */
    char *name;       /* the path the tool wrote, relative to its working directory */
    char *file;       /* the kept copy */
    const char *mime; /* static, by extension */
    long long size;
    unsigned call;
    uint64_t client;  /* whose call wrote it; 0: not known */
} tg_serve_artifact;

typedef struct tg_serve_artifacts {
    char *root;          /* the private folder; NULL until a call wrote files */
    unsigned calls;      /* calls that kept files so far */
    size_t keep_calls;   /* 0: TG_SERVE_KEEP_CALLS */
    tg_serve_artifact *v; /* oldest call first */
    size_t n;
} tg_serve_artifacts;

/* Keeps the files of r, a call of client; *base is set to the URI prefix of this call's files
 * (heap string, the caller frees it), or NULL when r wrote none. -1 with err when copying
 * failed or no random token could be drawn. */
int tg_serve_artifacts_keep(tg_serve_artifacts *a, const tg_call_result *r, uint64_t client,
                            char **base, tg_err *err);
/* Whether resources/list shows f to client, and whether client may read f. */
bool tg_serve_artifact_listed(const tg_serve_artifact *f, uint64_t client);
bool tg_serve_artifact_readable(const tg_serve_artifact *f, uint64_t client);
/* The kept file with that URI, or NULL. */
const tg_serve_artifact *tg_serve_artifacts_find(const tg_serve_artifacts *a, const char *uri);
/* Deletes every kept file and the folder. */
void tg_serve_artifacts_free(tg_serve_artifacts *a);

/* RFC 4648 base64 of data[0..n) (MCP's image content and blob resources). Heap string. */
char *tg_serve_base64(const unsigned char *data, size_t n);

#endif
