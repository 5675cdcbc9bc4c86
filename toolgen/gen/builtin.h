/*
 * builtin.h — the built-in offline generator: a deterministic intent compiler
 * (docs/generate.md#the-built-in-generator).
 *
 * It parses an intent in English against the vocabulary of the datasets (column names and the
 * values of categorical columns) into a small query plan — filters, group keys, aggregates,
 * ordering, chart — and writes from that plan the tool's contract (a manifest: schemas, docs,
 * examples, tests derived from the dataset) and its Python implementation. The same intent in
 * other words gives the same plan and so the same bytes. An intent it cannot compile is refused
 * with the closest phrasings it supports; it never writes a tool that answers another question.
 *
 * Pure: no files, no processes, no network. The caller (gen/ pipeline) writes the files and runs
 * them through the gates.
 */
#ifndef TG_BUILTIN_H
#define TG_BUILTIN_H

#include <stddef.h>

#include "base/util.h"
#include "gen/dataset.h"
#include "gen/reading.h"

typedef enum tg_builtin_status {
    TG_BUILTIN_OK = 0,
    TG_BUILTIN_REFUSED,   /* not understood: err holds the reason and the closest phrasings */
    TG_BUILTIN_ERROR,     /* bad arguments (no dataset, a name that is not a tool name): err says */
    TG_BUILTIN_ASK,       /* understood but for one thing the user must settle: the question */
} tg_builtin_status;

/*
 * A question the request leaves open ("By 'bill', do you mean total_bill or bill_length_mm?").
 * The rest of the request was understood: answered with "ABOUT=OPTION" (tg_builtin_compile's
 * assume, `toolgen new --assume`), it compiles. Only one is asked at a time.
 */
typedef struct tg_builtin_question {
    char *about;          /* what is asked about: the request's words ("bill"), or "aggregate",
                             "date" (which date column), "percentage" (of which column) */
    char *text;           /* the question for people */
    char **options;       /* what ABOUT may mean: columns, or aggregates */
    size_t noptions;
} tg_builtin_question;

void tg_builtin_question_release(tg_builtin_question *q);

typedef struct tg_builtin_tool {
    char *name;           /* the tool name: the caller's, or derived from the plan */
    char *manifest_yaml;  /* the whole tool.manifest.yaml, status draft, intent and provenance */
    char *code;           /* tool.py */
    char *plan;           /* the compiled plan as one line of text, for messages and the report */
    char *example_input;  /* the input of the manifest's one example, as JSON; its output is a
                             placeholder until tg_builtin_set_example_output */
    tg_reading reading;   /* the plan as a reading, part by part (gen/reading.h): shown to the
                             user, and what an existing tool must cover to be reused */
} tg_builtin_tool;

/*
 * Compiles intent against datasets[0..ndatasets) (at least one; a merge takes two). name may be
 * NULL (derived from the plan). Fills out (caller releases) on TG_BUILTIN_OK; otherwise out is
 * all zero and err says why.
 */
tg_builtin_status tg_builtin_generate(const char *intent, const tg_dataset *datasets,
                                      size_t ndatasets, const char *name, tg_builtin_tool *out,
                                      tg_err *err);

/*
 * tg_builtin_generate with the user's answers to earlier questions (assume[0..nassume),
 * "ABOUT=MEANING", case-insensitive ABOUT; may be NULL). TG_BUILTIN_ASK: q (caller releases)
 * holds the one question left, and err says it; tg_builtin_generate returns such a question as
 * TG_BUILTIN_REFUSED, for callers that cannot ask.
 */
tg_builtin_status tg_builtin_compile(const char *intent, const tg_dataset *datasets,
                                     size_t ndatasets, const char *name,
                                     const char *const *assume, size_t nassume,
                                     tg_builtin_tool *out, tg_builtin_question *q, tg_err *err);

/*
 * The manifest's example must show what the tool really returns, which only a run can tell:
 * the caller runs the tool once with example_input (in the sandbox, like a test) and passes the
 * result (a JSON object) here, which writes it into manifest_yaml in place of the placeholder.
 * 0, or -1 with err when result_json is not a JSON object or the placeholder is gone.
 */
int tg_builtin_set_example_output(tg_builtin_tool *t, const char *result_json, tg_err *err);

void tg_builtin_tool_release(tg_builtin_tool *t);

#endif
