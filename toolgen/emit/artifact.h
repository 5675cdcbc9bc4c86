/*
 * artifact.h — references to the files a tool call wrote (its artifacts), as a client can open
 * them.
 *
 * A tool names the files it writes by their path relative to its working directory
 * ("bar_chart.png" in its result, "![chart](bar_chart.png)" in its summary_markdown). That
 * directory is the sandbox's private /work, which no client can reach. Whoever hands the files
 * out decides where they can be opened — its *base* — and rewrites the references with these
 * functions:
 *
 *   - `toolgen run --out DIR` copies the files into DIR keeping their relative paths; the base
 *     is DIR as given, so "bar_chart.png" becomes "DIR/bar_chart.png";
 *   - an MCP server exposing the files as resources passes its resource URI prefix (e.g.
 *     "toolgen://artifacts/<call>/"), so the same name becomes a URI; tg_emit_call_result_for
 *     (emit_mcp.h) adds a resource_link block for each file.
 *
 * docs/emit.md, "Artifacts", states the rule. Only exact references are rewritten: a string
 * value equal to an artifact path (with or without a leading "./"), and Markdown link or image
 * targets equal to one; other text is left alone. Pure functions: inputs are borrowed, results
 * are new heap values the caller owns.
 */
#ifndef TG_EMIT_ARTIFACT_H
#define TG_EMIT_ARTIFACT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The artifacts of one call and where the client can open them. */
typedef struct tg_emit_artifacts {
    const char *const *paths; /* relative to the working directory, '/'-separated */
    size_t n;
    const char *base; /* a directory path or a URI prefix; NULL: references stay as they are */
} tg_emit_artifacts;

/* The reference of path under base: base + path, with one '/' between them. Heap string. */
char *tg_emit_artifact_ref(const char *base, const char *path);
/* Which artifact s names exactly ("x.png" or "./x.png"); NULL when none (or a is NULL). */
const char *tg_emit_artifact_named(const tg_emit_artifacts *a, const char *s);
/* md with every link / image target that names an artifact replaced by its reference (in <>
 * when the reference holds a space or a parenthesis). Heap string. */
char *tg_emit_artifact_relink_markdown(const char *md, const tg_emit_artifacts *a);
/* A deep copy of result where every string value naming an artifact is replaced by its
 * reference and the Markdown links in the other strings are relinked; keys are never changed.
 * With a NULL or a base-less a, a plain copy. */
cJSON *tg_emit_artifact_relink(const cJSON *result, const tg_emit_artifacts *a);
/* The MIME type MCP's resource_link carries, by extension ("image/png", "text/csv", ...;
 * "application/octet-stream" when unknown). Static string. */
const char *tg_emit_artifact_mime(const char *path);

#endif
