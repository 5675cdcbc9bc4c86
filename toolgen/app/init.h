/*
 * init.h — `toolgen init [DIR]`: a new toolgen repository (docs/cli.md#init). It writes
 * toolgen.yaml (the built-in generator, so nothing needs a model or the network), the folders a
 * repository keeps (manifests/, data/, prompts/, each with a .gitkeep when it is made), a CI job
 * running `toolgen check` and `toolgen diff --check` (.github/workflows/toolgen.yml), and
 * `.toolgen/` in .gitignore (appended to one that exists); then `git init` when DIR is not inside
 * a git working tree. generated/ and registry/ come with the first build and promotion.
 *
 * It never overwrites: when toolgen.yaml or the CI job exists, nothing is written and err names
 * the file. Nothing here prints.
 */
#ifndef TG_APP_INIT_H
#define TG_APP_INIT_H

#include <stdbool.h>

#include "base/strvec.h"
#include "base/util.h"

typedef struct tg_init_report {
    tg_strv written;      /* the paths written, relative to DIR, in order */
    bool gitignore_added; /* .toolgen/ appended to an existing .gitignore */
    bool git_created;     /* DIR was not in a git working tree: git init made one */
    char *name;           /* project.name written to toolgen.yaml (heap) */
} tg_init_report;

/* The project name a folder suggests: its base name in kebab-case ("My Tools" → my-tools), or
 * "toolgen-tools" when nothing of it is usable. Heap string. */
char *tg_init_default_name(const char *dir);
/* Whether name is a valid project.name (kebab-case, at most 64 characters). */
bool tg_init_name_ok(const char *name);

/* Makes DIR (created when missing) a toolgen repository named name (NULL: the default name).
 * 0 with out filled (free with tg_init_report_free); -2 with err: refused before anything was
 * written (a bad name, an existing toolgen.yaml or CI job); -1 with err: a write that failed,
 * named. */
int tg_app_init(const char *dir, const char *name, tg_init_report *out, tg_err *err);
void tg_init_report_free(tg_init_report *r);

#endif
