/*
 * recover.h — finishing or undoing a registry change a killed process left half done
 * (docs/reliability.md "Crash consistency").
 *
 * A registry change keeps a journal while it runs (lifecycle/regtx.h). When its process was
 * killed, the journal stays, unlocked, with the git HEAD the change started from:
 *   - HEAD has not moved: the change's own commit was not made (or it makes none), so every
 *     file is put back as it was — as if the command had never run;
 *   - HEAD has moved: the commit was made (its files were all written before it), so the files
 *     stay and only the index entries of the changed paths are set to HEAD's, as the command
 *     would have done last.
 * Either way the journal goes, and registry, index and HEAD agree again. First, git's lock files
 * the killed process left (made since the journal was) are removed, or git would refuse both.
 */
#ifndef TG_RECOVER_H
#define TG_RECOVER_H

#include <stdbool.h>

#include "base/util.h"
#include "model/repo.h"

/* Recovers the repository's registry if a killed process left it half changed. 0 (*what, when
 * not NULL, says "none", "undone" or "finished"), -1 with err. */
int tg_registry_recover(const tg_repo *repo, const char **what, tg_err *err);

#endif
