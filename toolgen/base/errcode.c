/* errcode.c — the table of deterministic error codes (see errcode.h). */
#include "base/errcode.h"

#include <string.h>

/* The meaning and advice texts are what generated/skill/ prints: changing one changes every
 * emitted SKILL.md (toolgen check shows it). */
static const tg_errcode_info table[TG_ERRCODE_COUNT] = {
    {TG_ERR_INVALID_INPUT, "INVALID_INPUT",
     "The arguments do not fit the input schema or make no sense for the data (e.g. an unknown "
     "column).",
     "Fix the argument the message names (check the Inputs list); do not retry unchanged.", 1,
     false, TG_JSONRPC_INVALID_PARAMS},
    {TG_ERR_NOT_FOUND, "NOT_FOUND", "A named file, record or resource does not exist.",
     "Check the name or path; list or inspect what exists first. Do not retry unchanged.", 1,
     false, 0},
    {TG_ERR_CONFLICT, "CONFLICT",
     "The request conflicts with the current state (e.g. it already exists).",
     "Read the current state, then adjust the request.", 1, false, 0},
    {TG_ERR_UNAUTHORIZED, "UNAUTHORIZED", "Credentials are missing or invalid.",
     "Tell the user which environment variable to set (see Operational notes); retrying does "
     "not help.",
     1, false, 0},
    {TG_ERR_FORBIDDEN, "FORBIDDEN",
     "Not allowed: a path outside the data directories or allowed paths, or a refused tool in "
     "read-only mode.",
     "Use an allowed path, or ask the user; do not try to work around it.", 1, false, 0},
    {TG_ERR_TIMEOUT, "TIMEOUT", "The call took longer than its timeout and was stopped.",
     "Retry once with a smaller request (fewer rows, a narrower question).", 1, true, 0},
    {TG_ERR_RATE_LIMITED, "RATE_LIMITED", "Too many calls in a short time.",
     "Wait about a minute, then retry.", 1, true, 0},
    {TG_ERR_UPSTREAM_ERROR, "UPSTREAM_ERROR", "A remote service or external program failed.",
     "Retry later; if it persists, report the message to the user.", 1, true, 0},
    {TG_ERR_INTERNAL_ERROR, "INTERNAL_ERROR", "The tool itself failed or broke its output contract.",
     "Do not retry; report the message to the user (it is a bug in the tool).", 1, false,
     TG_JSONRPC_INTERNAL_ERROR},
};

const tg_errcode_info *tg_errcode_get(tg_errcode code)
{
    return (unsigned)code < TG_ERRCODE_COUNT ? &table[code] : NULL;
}

const char *tg_errcode_name(tg_errcode code)
{
    const tg_errcode_info *i = tg_errcode_get(code);
    return i ? i->name : NULL;
}

const tg_errcode_info *tg_errcode_lookup(const char *s)
{
    for (size_t i = 0; s && i < TG_ERRCODE_COUNT; i++)
        if (strcmp(s, table[i].name) == 0)
            return &table[i];
    return NULL;
}

const char *tg_errcode_canonical(const char *s)
{
    const tg_errcode_info *i = tg_errcode_lookup(s);
    return i ? i->name : NULL;
}
