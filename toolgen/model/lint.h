/*
 * lint.h — check manifests and toolgen.yaml: the manifest schema, then what a schema cannot say
 * (each tool's own schemas compile, examples and tests fit them, files exist, templates name
 * real inputs, names match folders and are unique, config weights add up).
 */
#ifndef TG_LINT_H
#define TG_LINT_H

#include <stddef.h>

#include "base/json.h"
#include "model/repo.h"
#include "schema/schemaset.h"

typedef struct tg_problem {
    char *file;     /* both printable: bytes that are not UTF-8, and control characters, are */
    int line, col;  /* written \xNN (file and folder names are any bytes) */
    char *msg;
    size_t seq; /* insertion order, so sorting keeps equal places in the order found */
} tg_problem;

typedef struct tg_problems {
    tg_problem *v;
    size_t n, cap;
} tg_problems;

void tg_problems_add(tg_problems *p, const char *file, tg_pos pos, const char *fmt, ...)
    TG_PRINTF(4, 5);
/* Orders by file, line, column; equal places keep the order they were found in. */
void tg_problems_sort(tg_problems *p);
void tg_problems_free(tg_problems *p);

typedef struct tg_lint_stats {
    int manifests, configs;
} tg_lint_stats;

/*
 * Lints each path: a manifest file, a toolgen.yaml, or a directory searched recursively for
 * both (hidden directories and node_modules are skipped). Relative paths are relative to the
 * repository's root (repo needs no config). Problems go to out; -1 only when linting itself
 * could not run (err set).
 */
int tg_lint_paths(const tg_repo *repo, tg_schemaset *ss, const char *const *paths, size_t n,
                  tg_problems *out, tg_lint_stats *stats, tg_err *err);

#endif
