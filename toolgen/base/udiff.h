/*
 * udiff.h — a unified diff of two texts, line by line (diff -u's format, 3 lines of context),
 * as a refactoring's result shows what changed (docs/code-edit.md).
 *
 * The diff is a longest common subsequence of lines, exact for texts of up to
 * TG_UDIFF_MAX_LINES lines each; beyond that the whole of a replaced text is one hunk.
 */
#ifndef TG_UDIFF_H
#define TG_UDIFF_H

#define TG_UDIFF_MAX_LINES 2000

/* "--- a_name\n+++ b_name\n@@ ... @@\n..." (heap); "" when the texts are equal. A text without a
 * final newline gets diff's "\ No newline at end of file" line. */
char *tg_udiff(const char *a, const char *b, const char *a_name, const char *b_name);

#endif
