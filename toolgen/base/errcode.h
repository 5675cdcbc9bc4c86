/*
 * errcode.h — the deterministic error codes of a tool call: the one table every part of toolgen
 * takes them from (docs/manifest.md#error-codes).
 *
 * A failed call carries exactly one of these nine codes, whoever noticed the failure: toolgen
 * before the tool ran (arguments, paths), the sandbox (limits), the runner (the tool raised a
 * ToolError with a code), or a command's exit status. Each row holds the code's name, what it
 * means and what a caller (an agent, a person) should do about it — the texts the Agent Skill
 * prints — plus how the code leaves toolgen:
 *
 *   - CLI: `toolgen run` exits with exit_status when the call failed with the code (today 1,
 *     "the thing checked is not OK", for every code; see docs/cli.md).
 *   - MCP (JSON-RPC 2.0): a call the server accepted and ran — or refused on its arguments —
 *     is answered with a tool *result* whose isError is true and whose structuredContent.error
 *     .code is the name: the model reads it and can correct itself. That holds for every code.
 *     Only a request the server cannot accept as a call at all (unknown tool, params that are
 *     not an object, the server's own failure before any call) is a JSON-RPC *protocol* error;
 *     jsonrpc_error is the JSON-RPC error code used then, 0 for codes that never are one.
 *
 * The Python and Node.js runners (toolgen/run/runtime/runner.{py,js}) run inside the sandbox
 * without toolgen's C code, so they hold a literal copy of the names: tests/unit/test_errcode.c
 * proves that copy, and the schemas' enums, equal this table.
 *
 * The table is static, immutable and thread-safe; every string is borrowed, never freed.
 */
#ifndef TG_ERRCODE_H
#define TG_ERRCODE_H

#include <stdbool.h>
#include <stddef.h>

/* In the fixed order of the error model (the order SKILL.md and the schemas list them in). */
typedef enum tg_errcode {
    TG_ERR_INVALID_INPUT,
    TG_ERR_NOT_FOUND,
    TG_ERR_CONFLICT,
    TG_ERR_UNAUTHORIZED,
    TG_ERR_FORBIDDEN,
    TG_ERR_TIMEOUT,
    TG_ERR_RATE_LIMITED,
    TG_ERR_UPSTREAM_ERROR,
    TG_ERR_INTERNAL_ERROR,
    TG_ERRCODE_COUNT
} tg_errcode;

/* JSON-RPC 2.0 error codes an MCP server answers protocol errors with. */
#define TG_JSONRPC_INVALID_PARAMS (-32602)
#define TG_JSONRPC_INTERNAL_ERROR (-32603)

typedef struct tg_errcode_info {
    tg_errcode code;
    const char *name;    /* "INVALID_INPUT": what JSON output, manifests and runners use */
    const char *meaning; /* one sentence: what the code says happened */
    const char *advice;  /* one or two sentences: what the caller should do */
    int exit_status;     /* `toolgen run`'s exit status for a call that failed with it */
    bool retryable;      /* the same call may succeed later, unchanged */
    int jsonrpc_error;   /* JSON-RPC error code when it is a protocol error; 0: never one */
} tg_errcode_info;

/* The row of code (TG_ERRCODE_COUNT or more: NULL). */
const tg_errcode_info *tg_errcode_get(tg_errcode code);
/* The name of code, or NULL when code is out of range. */
const char *tg_errcode_name(tg_errcode code);
/* The row whose name is exactly s (case-sensitive); NULL for NULL or an unknown name. */
const tg_errcode_info *tg_errcode_lookup(const char *s);
/* tg_errcode_lookup(s)->name (a static string that outlives s), or NULL: validates a code. */
const char *tg_errcode_canonical(const char *s);

#endif
