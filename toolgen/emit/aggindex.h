/*
 * aggindex.h — the aggregate's index: where each tool's pieces (common.h) lie in the
 * repository-wide files the last aggregate wrote (docs/build.md, "The aggregate"). With it, an
 * edit of one tool rewrites those files as their previous bytes with that tool's pieces
 * replaced, or (when the shared text around the pieces changes) rebuilds them from the previous
 * bytes plus the changed tools' fragments, instead of reading every tool's fragment.
 *
 * The positions are those tg_emit_aggregate_shared reported while it wrote the files (no
 * search): exact, so a piece can be replaced in place. Whoever uses the index must make sure
 * the files it reads are those it describes (the build engine vouches for a stage's previous
 * outputs, stage.h). A piece no file holds as such (a SKILL.md form not in use, the reference
 * page, the facts folded into shared text) is listed with its length and line count only; the
 * facts the shared text is made of are kept in the index itself.
 */
#ifndef TG_AGGINDEX_H
#define TG_AGGINDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "base/util.h"
#include "emit/common.h"

/* The files of tg_emit_aggregate_shared, in its order; the index refers to them by position. */
#define TG_AGGINDEX_FILES 6

typedef struct tg_aggindex_at {
    int file;     /* 0..TG_AGGINDEX_FILES-1; -1: held by no file as such */
    size_t off;   /* byte offset in that file */
    size_t len;   /* the piece's length and line count */
    size_t lines;
} tg_aggindex_at;

typedef struct tg_aggindex_tool {
    /* NUL-terminated, borrowed (from the parsed text or the fragments): auth_env, network and
     * refused "" when empty; desc, network and refused NULL when the index does not hold them
     * (a piece with a line break or, but desc, a space) */
    const char *name, *auth_env, *desc, *network, *refused;
    tg_aggindex_at at[TG_PIECE_COUNT];
} tg_aggindex_tool;

typedef struct tg_aggindex {
    const char *paths[TG_AGGINDEX_FILES]; /* the files' paths as emitted (borrowed) */
    tg_aggindex_tool *v;                  /* heap; sorted by name as written */
    size_t n;
    tg_strmap by_name;
} tg_aggindex;

/*
 * The index text (heap, *len bytes) for fragments f[0..n), the files tg_emit_aggregate_shared
 * made of them (shared: exactly those TG_AGGINDEX_FILES files, in order) and the positions it
 * reported (pos, n * TG_PIECE_COUNT entries).
 */
char *tg_aggindex_build(const tg_emit_fragment *f, size_t n, const tg_emit_files *shared,
                        const size_t *pos, size_t *len);
/* The text of an index held in memory (after tg_aggindex_splice), as tg_aggindex_build writes
 * it. Heap, *len bytes. */
char *tg_aggindex_format(const tg_aggindex *ix, size_t *len);
/* Parses text written by tg_aggindex_build; text (NUL-terminated, len bytes) is modified and
 * must outlive ix. Anything else (another version, a truncated file) fails with err. */
int tg_aggindex_parse(char *text, size_t len, tg_aggindex *ix, tg_err *err);
void tg_aggindex_free(tg_aggindex *ix);
const tg_aggindex_tool *tg_aggindex_find(const tg_aggindex *ix, const char *name);
/*
 * Tool t's pieces as views into the files (bytes[i], lens[i]: the contents of ix->paths[i]):
 * NAME, AUTH_ENV, SKILL_DESC, SKILL_NETWORK and SKILL_REFUSED (kept in the index) are
 * NUL-terminated, the others are read by length only; a piece held nowhere has data NULL
 * (unless empty). False when a position lies outside its file.
 */
bool tg_aggindex_view(const tg_aggindex_tool *t, const char *const *bytes, const size_t *lens,
                      tg_emit_fragment *f);
/*
 * Whether tool t's pieces can be replaced in place by those of f (the same tool, edited)
 * without changing any other byte of the files: the facts the shared text is made of (name,
 * credential variable, SKILL.md description piece, network, read-only refusal) are equal, and
 * every piece keeps its emptiness and its line count (so SKILL.md keeps its form and every list
 * its separators). Every piece the files hold and the facts do not cover is placed.
 */
bool tg_aggindex_replaceable(const tg_aggindex_tool *t, const tg_emit_fragment *f);
/*
 * Replaces the pieces of the tools ix->v[edit[j]] (edit ascending, each replaceable by nf[j],
 * j < ne) in the files bytes[i] (lens[i] bytes: the contents of ix->paths[i]). out[i] gets
 * the new file (heap, out_len[i] bytes) or NULL when it does not change; ix is updated to
 * describe the new files (offsets moved, the edited pieces' lengths). The result is byte for
 * byte what tg_emit_aggregate_shared would write for the new fragments. False (nothing
 * changed) when a position lies outside its file or two pieces overlap.
 */
bool tg_aggindex_splice(tg_aggindex *ix, const size_t *edit, const tg_emit_fragment *nf,
                        size_t ne, const char *const *bytes, const size_t *lens, char **out,
                        size_t *out_len);

#endif
