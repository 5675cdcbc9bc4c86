/*
 * gen_files.h — the files of a generated tool: the manifest assembled from the model's spec,
 * tool.lock, and the tool folder written whole or not at all (docs/generate.md#files).
 *
 * The model writes the contract; toolgen owns the fields that say who wrote it and where it
 * stands: name, status, intent, implementation and provenance are dropped from the model's YAML
 * and written by toolgen. tool.lock pins what the code was generated from (spec, prompts, model,
 * request and response hashes), so `toolgen build` can tell when generation is due and a frozen
 * build can tell that it would be.
 */
#ifndef TG_GEN_FILES_H
#define TG_GEN_FILES_H

#include <stdbool.h>

#include "base/hash.h"
#include "base/util.h"
#include "model/repo.h"

typedef struct tg_gen_provenance {
    const char *generator;   /* "llm" or "offline" */
    const char *model;       /* "openai/gpt-4o"; NULL for offline */
    tg_hash prompt_hash;     /* the rendered code prompt (zero: none) */
    tg_hash code_hash;
} tg_gen_provenance;

/*
 * The manifest text from the model's spec YAML: toolgen's own keys removed (top-level blocks
 * name, status, intent, implementation, provenance, manifest_version), then its header and those
 * keys appended. Heap text.
 */
char *tg_gen_manifest(const char *spec_yaml, const char *name, const char *intent,
                      const char *status, const tg_gen_provenance *pv);

/* The spec hash: the manifest without provenance and status, canonical JSON, XXH3. -1 with err
 * when the text is not YAML. */
int tg_gen_spec_hash(const char *manifest_yaml, tg_hash *out, tg_err *err);

/* Replaces "status: X" (top level) with status; heap text. */
char *tg_gen_set_status(const char *manifest_yaml, const char *status);
/* text with every line that starts with prefix replaced by line (no newline in line); the
 * other lines unchanged, each ending in a newline. Heap text. */
char *tg_gen_replace_line(const char *text, const char *prefix, const char *line);

/* What tool.lock holds (JSON). */
typedef struct tg_gen_lock {
    const char *generator, *provider, *model;
    tg_hash spec_hash, code_hash, request, response;
    const char *const *prompt_names; /* NULL-terminated, with prompt_hashes in the same order */
    const tg_hash *prompt_hashes;
} tg_gen_lock;
char *tg_gen_lock_text(const tg_gen_lock *l);

/*
 * The tool folder dir (relative to the root): creates it (it must not exist: err says so and
 * names --name) and writes files[i] = contents[i] atomically. On any failure everything it
 * created is removed again. tg_gen_folder_remove deletes the folder and the files in it.
 */
int tg_gen_folder_create(const tg_repo *repo, const char *dir, tg_err *err);
int tg_gen_folder_write(const tg_repo *repo, const char *dir, const char *file,
                        const char *content, tg_err *err);
void tg_gen_folder_remove(const tg_repo *repo, const char *dir);

#endif
