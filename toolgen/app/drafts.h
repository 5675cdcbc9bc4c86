/*
 * drafts.h — writing the draft manifests of `toolgen init --from-*` (docs/cli.md#init-from-openapi,
 * docs/cli.md#init-from-python): the rules of re-running, shared by every source.
 *
 * A draft is a manifest's text (which starts with the source's mark, a comment line) and the
 * files beside it. A new tool is written; an existing manifest is rewritten only while its
 * status is draft and it starts with the same mark (a draft that source made); anything else
 * is kept as it is and reported. Drafts an earlier run of the same source made that this run
 * did not are reported as stale, never removed. DIR is made a toolgen repository first when it
 * has no toolgen.yaml (app/init.h). A draft with an override, DIR/overrides/NAME.yaml, is
 * written with it applied as a JSON Merge Patch (docs/cli.md#overrides), so a person's changes
 * to a draft survive re-running; an override that does not load stops the run before anything
 * is written. Nothing here prints.
 */
#ifndef TG_APP_DRAFTS_H
#define TG_APP_DRAFTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/json.h"
#include "base/strvec.h"
#include "base/util.h"

typedef struct tg_draft {
    char *name;      /* the tool name: manifests/NAME/ */
    char *text;      /* tool.manifest.yaml, starting with the mark */
    cJSON *manifest; /* its content, for saying which members changed */
    tg_strv files;   /* pairs: a file name beside the manifest, its text (e.g. tool.py) */
} tg_draft;

/* Where the outcome goes (the report of the caller's command); each a list of tool names or
 * "name: why" lines. */
typedef struct tg_drafts_out {
    tg_strv *created, *updated, *unchanged, *kept, *stale;
    bool *initialised;
} tg_drafts_out;

typedef struct tg_drafts_opts {
    const char *dir;      /* the repository */
    const char *mark;     /* "# Drafted by `toolgen init --from-python`": the first words */
    const char *source;   /* what follows the mark and " from " on a draft's first line up to
                             ": " (the document or module): finds the stale drafts */
    const char *command;  /* "init --from-python", for messages */
    const char *rename;   /* how to draft a kept tool under another name, for messages */
    const char *gone;     /* why a stale draft is stale: "its operation is gone from the
                             document or left out" */
    bool dry_run;         /* decide and report, write nothing */
} tg_drafts_opts;

/* A new draft manifest with the members every source starts with, in the order manifests
 * write them: manifest_version 1, name, version 0.1.0, title, description, status draft,
 * risk, category (NULL: none), idempotency, timeout_ms 30000. The caller adds the rest. */
cJSON *tg_draft_head(const char *name, const char *title, const char *description,
                     const char *risk, const char *category, const char *idempotency);

/* Writes (or with dry_run only decides) ds[0..n). 0; -2 with err when an override does not
 * load or is not a mapping (nothing written); -1 with err when a write failed. */
int tg_drafts_write(const tg_drafts_opts *o, const tg_draft *ds, size_t n, tg_drafts_out *out,
                    tg_err *err);
void tg_drafts_free(tg_draft *ds, size_t n);

#endif
