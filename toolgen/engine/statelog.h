/*
 * statelog.h — the build's memory, .toolgen/log (like ninja's .ninja_log): a stat cache of the
 * files toolgen hashed, and one record per stage run (its key, the inputs that made the key,
 * the outputs it wrote with their hashes, the files it discovered it reads).
 *
 * The file is line-based text, append-only while a build runs (one write() per record, so a
 * killed build leaves whole lines; a torn last line is ignored), and rewritten atomically when
 * dead lines dominate. Format (docs/build.md):
 *
 *   # toolgen log v1
 *   f <hash> <size> <mtime_ns> <ctime_ns> <inode> <t|r> <path>     stat cache entry
 *   s <id> <key> <n> (<name> <hash>)*n <n> (<path> <hash>)*n <n> (<path> <hash>)*n
 *                                             stage record: inputs, outputs, discovered deps
 *   x <id>                                    stage record removed
 *   c <hash>                                  toolgen.yaml with these bytes passed its checks
 *
 * Later lines win. Every function is thread-safe (one internal mutex).
 */
#ifndef TG_STATELOG_H
#define TG_STATELOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "base/strmap.h"
#include "base/strvec.h"
#include "base/util.h"

/*
 * A name (path, or key input such as "file:<path>") with a hash. It always borrows its name:
 * whoever builds an array of them keeps the names alive for as long as the array (the log's
 * records: the log; the engine: a tg_strv next to the array).
 */
typedef struct tg_named_hash {
    const char *name; /* borrowed */
    tg_hash hash;
} tg_named_hash;

typedef struct tg_stage_rec {
    const char *id;       /* "load:csv_column_stats", "aggregate" */
    tg_hash key;
    tg_named_hash *in;    /* what the key was made of, in key order (for explain) */
    tg_named_hash *out;   /* outputs: path relative to the repository root, hash written */
    tg_named_hash *dep;   /* files the stage reported reading; zero hash = it was missing */
    size_t nin, nout, ndep;
} tg_stage_rec;

typedef struct tg_statelog tg_statelog;

/*
 * Reads DIR/log when it exists, DIR relative to the repository's root fd root (as are the
 * relative paths the stat cache is asked about). writable: the first change creates DIR and the
 * log; otherwise (dry run, explain) changes stay in memory and nothing on disk is touched.
 */
int tg_statelog_open(int root, const char *dir, bool writable, tg_statelog **out, tg_err *err);
void tg_statelog_close(tg_statelog *l);

/*
 * Content hash of a file through the stat cache: when size, mtime, ctime and inode match an
 * entry recorded at a later clock tick than the file's mtime, the cached hash is used and the
 * file is not read; otherwise it is read and hashed, and the entry updated.
 * Returns 1 (hash set), 0 (no such file) or -1 (err set).
 */
int tg_statelog_hash_file(tg_statelog *l, const char *path, tg_hash *out, tg_err *err);
/*
 * The hash of path's trusted cache entry when the stat st (taken by the caller, e.g. with fstat
 * on the descriptor it reads) matches it, as tg_statelog_hash_file would take it without
 * reading; false otherwise (nothing is read or stored).
 */
struct stat;
bool tg_statelog_vouch(tg_statelog *l, const char *path, const struct stat *st, tg_hash *out);
/* The engine just wrote path with contents hashing to h. */
void tg_statelog_wrote(tg_statelog *l, const char *path, tg_hash h);
void tg_statelog_forget(tg_statelog *l, const char *path);

/* The latest record of a stage, or NULL. Records stay valid until close. */
const tg_stage_rec *tg_statelog_stage(tg_statelog *l, const char *id);
/* Stores a copy of rec and appends it to the log at once. */
int tg_statelog_put_stage(tg_statelog *l, const tg_stage_rec *rec, tg_err *err);
int tg_statelog_drop_stage(tg_statelog *l, const char *id, tg_err *err);
/* The ids of every stage record, sorted. */
void tg_statelog_stage_ids(tg_statelog *l, tg_strv *out);

bool tg_statelog_config_checked(tg_statelog *l, tg_hash h);
int tg_statelog_set_config_checked(tg_statelog *l, tg_hash h, tg_err *err);

/*
 * Ends a build: entries whose stat was taken in the same clock tick as the file's last change
 * (e.g. every output just written) cannot vouch for the content yet, so they are hashed once
 * more after the clock has moved on (at most one tick, a few ms) — like git's racy-clean check,
 * but paid now rather than by the next no-op build. Then pending cache entries are appended and
 * the log is compacted when most of its lines are dead.
 */
int tg_statelog_finish(tg_statelog *l, bool settle, tg_err *err);

/* Coarse real-time clock in ns: the clock file timestamps are taken from. */
int64_t tg_clock_coarse_ns(void);

#endif
