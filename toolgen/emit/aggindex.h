/*
 * aggindex.h — the aggregate's index: where each tool's pieces (common.h) lie in the
 * repository-wide files the last aggregate wrote (docs/build.md, "The aggregate"). With it, an
 * edit of one tool rebuilds those files from their previous bytes plus the changed tools'
 * fragments, instead of reading every tool's fragment.
 *
 * The index only says where bytes equal to a piece were found (every position is checked when
 * the index is built, against the very files it describes): whoever uses it must make sure the
 * files it reads are those (the build engine vouches for a stage's previous outputs, stage.h).
 * A piece found nowhere (a form of SKILL.md not in use, the reference page) is listed with its
 * length and line count only; a caller that needs its bytes reads the tool's fragment instead.
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
    int file;     /* 0..TG_AGGINDEX_FILES-1; -1: found nowhere (or empty) */
    size_t off;   /* byte offset in that file */
    size_t len;   /* the piece's length and line count */
    size_t lines;
} tg_aggindex_at;

typedef struct tg_aggindex_tool {
    /* borrowed from the parsed text: auth_env "" when none, desc (the SKILL_DESC piece) NULL
     * when the index does not hold it */
    const char *name, *auth_env, *desc;
    tg_aggindex_at at[TG_PIECE_COUNT];
} tg_aggindex_tool;

typedef struct tg_aggindex {
    const char *paths[TG_AGGINDEX_FILES]; /* the files' paths as emitted (borrowed) */
    tg_aggindex_tool *v;                  /* heap; sorted by name as written */
    size_t n;
    tg_strmap by_name;
} tg_aggindex;

/*
 * The index text (heap, *len bytes) for fragments f[0..n) and the files tg_emit_aggregate_shared
 * made of them (shared: exactly those TG_AGGINDEX_FILES files, in order). form is
 * tg_emit_skill_form's answer for f: the other forms are not looked for.
 */
char *tg_aggindex_build(const tg_emit_fragment *f, size_t n, const tg_emit_files *shared,
                        tg_emit_piece_kind form, size_t *len);
/* Parses text written by tg_aggindex_build; text (NUL-terminated, len bytes) is modified and
 * must outlive ix. Anything else (another version, a truncated file) fails with err. */
int tg_aggindex_parse(char *text, size_t len, tg_aggindex *ix, tg_err *err);
void tg_aggindex_free(tg_aggindex *ix);
const tg_aggindex_tool *tg_aggindex_find(const tg_aggindex *ix, const char *name);
/*
 * Tool t's pieces as views into the files (bytes[i], lens[i]: the contents of ix->paths[i]):
 * NAME, AUTH_ENV and SKILL_DESC (kept in the index) are NUL-terminated, the others are read
 * by length only; a piece found nowhere has data NULL (unless empty). False when a position
 * lies outside its file.
 */
bool tg_aggindex_view(const tg_aggindex_tool *t, const char *const *bytes, const size_t *lens,
                      tg_emit_fragment *f);

#endif
