/*
 * tools_int.h — building a tool set, shared by the loaders of serve/ (tools.c: the working
 * tree; regtools.c: the registry). Private to serve/.
 */
#ifndef TG_SERVE_TOOLS_INT_H
#define TG_SERVE_TOOLS_INT_H

#include "serve/tools.h"

/* An empty set with its schema registry, ready for tg_serve_tools_add. */
void tg_serve_tools_begin(tg_serve_tools *t);
/* Adds the tool of m (loaded, not yet bound), taking m whatever happens; path names it in
 * t->skipped when its schemas do not compile. True when added (it is then t->v[t->n - 1]). */
bool tg_serve_tools_add(tg_serve_tools *t, const char *path, tg_manifest *m);
/* Removes the last tool added (to refuse it after all). */
void tg_serve_tools_free_last(tg_serve_tools *t);
/* Records "path: why" in t->skipped. */
void tg_serve_tools_skip(tg_serve_tools *t, const char *path, const char *why);
/* Sorts the set by name: the order of tools/list and of tg_serve_tools_find. */
void tg_serve_tools_finish(tg_serve_tools *t);

#endif
