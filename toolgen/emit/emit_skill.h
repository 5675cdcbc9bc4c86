/*
 * emit_skill.h — the Agent Skills package: skill/<name>/SKILL.md and references/<tool>.md.
 *
 * Built on common.h only. docs/emit.md, "skill/<name>/SKILL.md", describes both files and the
 * compact forms SKILL.md falls back to with many tools.
 */
#ifndef TG_EMIT_SKILL_H
#define TG_EMIT_SKILL_H

#include "emit/artifact.h"
#include "emit/common.h"

/*
 * SKILL.md and references/<tool>.md for manifests already sorted by name and unique (as
 * tg_emit_aggregate passes them), appended to out. repo->name must be a valid skill name.
 */
int tg_emit_skill(const tg_manifest *const *sorted, size_t n, const tg_project_info *repo,
                  tg_emit_files *out, tg_err *err);

#endif
