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
 * Appends one tool's pieces of the skill to pieces[TG_PIECE_...] (common.h): its lines of
 * SKILL.md in every form, the facts SKILL.md's shared text needs (network, read-only mode), and
 * its whole reference page. The manifest must have passed tg_emit_tool's checks.
 */
void tg_emit_skill_pieces(const tg_manifest *m, tg_buf *pieces);

/* SKILL.md for tools given as fragments sorted by name and unique (as tg_emit_aggregate passes
 * them), as the file's bytes (heap). repo->name must be a valid skill name. pos (NULL, or
 * n * TG_PIECE_COUNT entries set to TG_EMIT_NOWHERE) receives the offsets of the pieces it
 * holds as such (common.h). */
char *tg_emit_skill_md(const tg_emit_fragment *f, size_t n, const tg_project_info *repo,
                       size_t *pos);
/* The piece kind (TG_PIECE_SKILL_TOOL_FULL, _COMPACT or _MINIMAL) whose pieces SKILL.md holds
 * for these fragments: the others need only their line counts. Reads every other SKILL piece. */
tg_emit_piece_kind tg_emit_skill_form(const tg_emit_fragment *f, size_t n,
                                      const tg_project_info *repo);

#endif
