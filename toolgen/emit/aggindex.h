/*
 * aggindex.h — the aggregate's index: where each tool's pieces (common.h) lie in the
 * repository-wide files the last aggregate wrote (docs/build.md, "The aggregate"). With it, an
 * edit of one tool rewrites those files as their previous bytes with that tool's pieces
 * replaced, or (when the shared text around the pieces changes) rebuilds them from the previous
 * bytes plus the changed tools' fragments, instead of reading every tool's fragment.
 *
 * The positions are those tg_emit_aggregate_shared reported while it wrote the files (no
 * search): exact, so a piece can be replaced in place; the edits made so since are listed
 * beside the index (tg_aggindex_edits) rather than written into it. Whoever uses the index must make sure
 * the files it reads are those it describes (the build engine vouches for a stage's previous
 * outputs, stage.h). A piece no file holds as such (a SKILL.md form not in use, the reference
 * page, the facts folded into shared text) is listed with its length and line count only; the
 * facts the shared text is made of are kept in the index itself.
 */
#ifndef TG_AGGINDEX_H
#define TG_AGGINDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hash.h"
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
 * The index text (heap, *len bytes) for fragments f[0..n) (sorted by name), the files
 * tg_emit_aggregate_shared made of them (shared: exactly those TG_AGGINDEX_FILES files, in
 * order) and the positions it reported (pos, n * TG_PIECE_COUNT entries).
 */
char *tg_aggindex_build(const tg_emit_fragment *f, size_t n, const tg_emit_files *shared,
                        const size_t *pos, size_t *len);
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

/* ---- the edits since the index was written ---------------------------------------------------
 *
 * Replacing pieces in place moves every later offset of their files. Rather than writing the
 * index again (one line per tool), the aggregate keeps it as it was (the base, describing the
 * files as they were made anew) and lists the replaced ranges beside it: a position read from
 * the base moves by the change in length of the edits before it. */

typedef struct tg_aggindex_edit {
    int file;                  /* 0..TG_AGGINDEX_FILES-1 */
    size_t base_off, base_len; /* the piece's range in the files the base describes */
    size_t len;                /* its length now */
    ptrdiff_t before;          /* the change in length of the file's edits before it */
} tg_aggindex_edit;

typedef struct tg_aggindex_edits {
    tg_aggindex_edit *v; /* heap; sorted by file, then base_off */
    size_t n, cap;
} tg_aggindex_edits;

/* Text written by tg_aggindex_edits_format (not modified). Fails on anything else. */
int tg_aggindex_edits_parse(const char *text, size_t len, tg_aggindex_edits *ed, tg_err *err);
char *tg_aggindex_edits_format(const tg_aggindex_edits *ed, size_t *len);
void tg_aggindex_edits_free(tg_aggindex_edits *ed);
/* t's positions, as read from the base, moved to the files as they are after the edits (a
 * piece no file holds keeps the base's length: only its line count, which an edit in place
 * keeps, is ever used). */
void tg_aggindex_edits_apply(const tg_aggindex_edits *ed, tg_aggindex_tool *t);

/* The hash of the tool names (sorted, as the index lists them) that the base records. */
tg_hash tg_aggindex_names_hash(const char *const *names, size_t n);
/*
 * Reads of base text (len bytes, not modified) only its header and the lines of the tools
 * at[0..na) (ascending line numbers, each below the count): ix gets the paths, ix->n the count
 * of tools, ix->v the na tools asked for (not findable by name), *names the recorded
 * tg_aggindex_names_hash. *keep (heap) holds the strings they borrow. Fails on anything
 * malformed, as tg_aggindex_parse does.
 */
int tg_aggindex_peek(const char *text, size_t len, const size_t *at, size_t na, tg_aggindex *ix,
                     tg_hash *names, char **keep, tg_err *err);
/* A file after tg_aggindex_splice, as parts: ranges of the previous file (borrowed) and of
 * keep (heap: the new pieces' bytes, copied). spans NULL: the file does not change. */
typedef struct tg_aggindex_out {
    tg_span *spans; /* heap */
    size_t n;
    char *keep;
} tg_aggindex_out;

/*
 * Replaces the pieces of ne tools in the files bytes[i] (lens[i] bytes: the contents of the
 * index's paths[i] after the edits ed): cur[j] is tool j's entry moved to those files
 * (tg_aggindex_edits_apply), base[j] the same as read from the base, nf[j] its new fragment
 * (replaceable). out[i] gets the new file as parts (bytes[i] must outlive them), and ed lists
 * the replacements. The result is byte for byte what tg_emit_aggregate_shared writes for the
 * new fragments. False (nothing changed) when a position lies outside its file or two pieces
 * overlap.
 */
bool tg_aggindex_splice(const tg_aggindex_tool *cur, const tg_aggindex_tool *base,
                        const tg_emit_fragment *nf, size_t ne, const char *const *bytes,
                        const size_t *lens, tg_aggindex_edits *ed, tg_aggindex_out *out);
void tg_aggindex_out_free(tg_aggindex_out *o);

#endif
