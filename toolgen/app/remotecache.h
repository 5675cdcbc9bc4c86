/*
 * remotecache.h — the remote cache of a command (docs/cache.md): cache.* of toolgen.yaml, or a
 * URL given on the command line, opened as a client of cache/remote.h and offered to the
 * build engine as its shared cache of stage results (tg_build_cache, engine/build.h), with the
 * counts a summary line reports. Prints nothing: the line is returned.
 */
#ifndef TG_REMOTECACHE_H
#define TG_REMOTECACHE_H

#include "engine/build.h"
#include "llm/llm.h"
#include "model/repo.h"

typedef struct tg_remote_cache tg_remote_cache;

/*
 * Opens the remote cache of repo's toolgen.yaml, or url_override (non-NULL: the command line's
 * --remote-cache). 0 with *out NULL when none is configured; -1 with err on a bad URL or an
 * unset token variable (a configuration error).
 */
int tg_remote_cache_open(const tg_repo *repo, const char *url_override, tg_remote_cache **out,
                         tg_err *err);
void tg_remote_cache_close(tg_remote_cache *rc);
/* The engine's view of it: set tg_build_opts.cache to this. */
const tg_build_cache *tg_remote_cache_build(tg_remote_cache *rc);
/* The same cache as a shared cache of model answers (llm/llm.h): each answer one action result
 * whose one file is the local cache entry's bytes, under its own kind of key. */
const tg_llm_remote *tg_remote_cache_llm(tg_remote_cache *rc);
/* "remote cache: 41 hits, 3 misses, 1 rejected blob, uploads 3" (heap; "(read-only)" after
 * the uploads of a client that does not upload). */
char *tg_remote_cache_summary(const tg_remote_cache *rc);

#endif
