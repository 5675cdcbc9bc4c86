/*
 * common.h — what every emitter of generated/ builds on: the output list, the facts derived
 * from a bound manifest (read-only, network, credentials, error codes), the composed tool
 * description, the client form of a schema and the MCP tools/call request.
 *
 * Emission flows one way (docs/emit.md, "Library API"): this module at the bottom; the MCP
 * emitter (emit_mcp.h), the adapters (emit_adapters.h) and the Agent Skill (emit_skill.h) on
 * top of it, none of them calling into another; emit.h's two entry points on top of all. A
 * helper two emitters need belongs here, not in one of them.
 *
 * Everything is pure and deterministic: no disk, no printing, nothing from the host. Functions
 * take manifests that were loaded and bound (tg_manifest_load + tg_manifest_bind) and never
 * modify them. Returned heap strings and cJSON trees belong to the caller; strings inside
 * manifests are borrowed.
 */
#ifndef TG_EMIT_COMMON_H
#define TG_EMIT_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/util.h"
#include "model/config.h"
#include "model/manifest.h"

/* ---- the output list ------------------------------------------------------------------------ */

typedef struct tg_emit_file {
    char *path; /* relative to generated/, '/'-separated, never absolute, never ".." */
    char *data; /* NUL-terminated (the NUL is not part of len) */
    size_t len;
} tg_emit_file;

typedef struct tg_emit_files {
    tg_emit_file *v;
    size_t n, cap;
} tg_emit_files;

void tg_emit_files_free(tg_emit_files *f);
/* Appends a file; takes ownership of data (a heap string). */
void tg_emit_files_add(tg_emit_files *f, const char *path, char *data);
/* Appends v printed as a JSON file (two-space indentation, final newline); takes ownership of
 * path (a heap string) and v. Every emitted JSON file goes through here. */
void tg_emit_files_add_json(tg_emit_files *f, char *path, cJSON *v);
/* NULL when no file has that path. */
const tg_emit_file *tg_emit_files_find(const tg_emit_files *f, const char *path);

/* ---- per-tool fragments of the repository-wide files ---------------------------------------- */

/*
 * What one tool contributes to the repository-wide files (mcp/, adapters/, skill/), already
 * serialised: emit.h's tg_emit_tool_fragment builds them from the tool alone, and the
 * repository-wide files are these pieces concatenated in name order with text that depends on
 * the repository and a few facts of each tool (docs/build.md, "The aggregate"). So editing one
 * tool re-renders one fragment, and the aggregate copies bytes instead of rebuilding JSON.
 * Pieces never hold a NUL byte; an empty piece is "".
 */
typedef enum tg_emit_piece_kind {
    TG_PIECE_NAME,             /* the tool's name */
    TG_PIECE_MCP_TOOL,         /* element of mcp/tools.json, indented for its place */
    TG_PIECE_BUNDLE_TOOL,      /* element of mcp/manifest.json "tools", indented */
    TG_PIECE_AUTH_ENV,         /* the credential variable, or "" */
    TG_PIECE_OPENAI,           /* element of adapters/openai.tools.json, indented */
    TG_PIECE_OPENAI_RESPONSES, /* element of adapters/openai.responses.tools.json */
    TG_PIECE_ANTHROPIC,        /* element of adapters/anthropic.tools.json */
    TG_PIECE_SKILL_DESC,       /* "name (title)" of the SKILL.md description */
    TG_PIECE_SKILL_NETWORK,    /* the name when the tool needs the network, else "" */
    TG_PIECE_SKILL_INTRO,      /* its row of the tool table */
    TG_PIECE_SKILL_WHEN,       /* its "When to use it" bullet, or "" */
    TG_PIECE_SKILL_WHEN_NOT,   /* its "When not to use it" bullet, or "" */
    TG_PIECE_SKILL_TOOL_FULL,  /* its section under "## Tools", full form */
    TG_PIECE_SKILL_TOOL_COMPACT, /* the same, compact form (many tools) */
    TG_PIECE_SKILL_TOOL_MINIMAL, /* the same, minimal form (very many tools) */
    TG_PIECE_SKILL_REFUSED,    /* its code-span name when READ_ONLY=1 refuses it, else "" */
    TG_PIECE_SKILL_SAFETY,     /* its row of the safety table */
    TG_PIECE_SKILL_SIDE_EFFECTS, /* its side-effect bullets, or "" */
    TG_PIECE_SKILL_LIMITS,     /* its "Other constraints" bullets (constraints.notes), or "" */
    TG_PIECE_SKILL_RUNTIME,    /* "`name` runs ..." of the operational notes */
    TG_PIECE_SKILL_NOTES,      /* its docs.notes bullet, or "" */
    TG_PIECE_REFERENCE,        /* skill/<name>/references/<tool>.md, whole */
    TG_PIECE_COUNT
} tg_emit_piece_kind;

typedef struct tg_emit_piece {
    const char *data; /* NUL-terminated */
    size_t len;       /* bytes, without the NUL */
    size_t lines;     /* '\n' characters in it */
} tg_emit_piece;

/* One tool's pieces, borrowed from wherever they live (a parsed fragment file). */
typedef struct tg_emit_fragment {
    tg_emit_piece p[TG_PIECE_COUNT];
} tg_emit_fragment;

/*
 * Where the repository-wide files hold each tool's pieces, as tg_emit_aggregate_shared can
 * report it: pos[i * TG_PIECE_COUNT + k] is the byte offset of tool i's piece k in the file
 * holding kind k, or TG_EMIT_NOWHERE when no file holds it as such (a piece folded into shared
 * text such as the credential variable, a SKILL.md form not in use, the reference page). The
 * aggregate's index (aggindex.h) is made of these, so that an edit can replace a tool's pieces
 * in the previous files in place (docs/build.md, "The aggregate").
 */
#define TG_EMIT_NOWHERE ((size_t)-1)

/* The fragment file of pieces[0..TG_PIECE_COUNT) (heap, *len bytes): a version line, then each
 * piece as "<len> <lines>\n", its bytes and a NUL. */
char *tg_emit_fragment_serialise(const tg_buf *pieces, size_t *len);
/* Views into data (which must outlive f). Fails on anything tg_emit_fragment_serialise did not
 * write (another version, a truncated file). */
int tg_emit_fragment_parse(const char *data, size_t len, tg_emit_fragment *f, tg_err *err);
/* Appends text with every line break followed by 2*level spaces: a JSON value printed at level
 * 0 becomes the same value printed inside level-deep containers. */
void tg_emit_put_indented(tg_buf *b, const char *text, size_t len, int level);

/* ---- facts derived from the IR -------------------------------------------------------------- */

/* constraints with their schema defaults: read_only true, network false (true for http). */
bool tg_emit_read_only(const tg_manifest *m);
bool tg_emit_network(const tg_manifest *m);
/* Refused with FORBIDDEN when READ_ONLY=1: not read-only, or risk high. */
bool tg_emit_refused_in_read_only(const tg_manifest *m);
/* The environment variable an http tool reads its credential from; NULL when none. */
const char *tg_emit_auth_env(const tg_manifest *m);
/* The distinct credential variables of the tools (their AUTH_ENV pieces), sorted. *out is a
 * heap array of borrowed strings (free the array only); returns the count. */
size_t tg_emit_fragment_envs(const tg_emit_fragment *f, size_t n, const char ***out);
/* The deterministic error codes of the tool: its error_codes in the fixed order of the error
 * model, plus INVALID_INPUT and INTERNAL_ERROR, which every call can return. Heap array of static
 * strings; returns the count. */
size_t tg_emit_error_codes(const tg_manifest *m, const char ***out);
/* The files the tool is known to write (its artifacts): the distinct names its tests expect
 * (tests[].expect.artifacts), in the order first seen. *out is a heap array of borrowed strings
 * (free the array only); returns the count. */
size_t tg_emit_artifact_names(const tg_manifest *m, const char ***out);
/* repo->description, or a generic sentence when it has none. */
const char *tg_emit_repo_description(const tg_project_info *repo);

/* ---- the description and the client schemas ------------------------------------------------- */

/* The description every client sees: the one-line description, then WHEN TO USE, WHEN NOT TO
 * USE, WHAT IT DOES, RETURNS and PREREQUISITES sections as plain text. Heap string. */
char *tg_emit_description(const tg_manifest *m);
/*
 * The same within max characters (0: no limit), every section kept (docs/emit.md, "The tool
 * description"): when the whole is too long, each section gets a share of what the one-line
 * description and the headings leave (a short section keeps all its text, the long ones share
 * the rest; what a cut leaves unused goes to the next section) and a long section is cut after
 * its last sentence that fits, else its last word ("..." marks that cut). Sections are dropped,
 * the last first, only when max leaves fewer than a few words each. The one-line description
 * always stays whole (the manifest schema caps it at 1024).
 */
char *tg_emit_description_max(const tg_manifest *m, size_t max);
/* Deep copy of a tool schema for clients: without x-toolgen-* keywords, and without the root's
 * $schema / $id (the clients' formats define the dialect). */
cJSON *tg_emit_client_schema(const cJSON *schema);
/* The same for MCP's inputSchema / outputSchema, but the root's $schema stays where the manifest
 * has one: MCP lets a schema name its dialect and clients must see it unchanged (docs/emit.md,
 * "mcp.tool.json"). Only $id and x-toolgen-* go, as for the other formats. */
cJSON *tg_emit_mcp_schema(const cJSON *schema);

/* {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}} */
cJSON *tg_emit_call_request(const char *tool, const cJSON *args);

/* ---- small helpers the emitters share ------------------------------------------------------- */

/* Appends s (NULL: nothing) without its leading and trailing white space. */
void tg_emit_put_trimmed(tg_buf *b, const char *s);

#endif
