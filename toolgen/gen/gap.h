/*
 * gap.h — gap detection: is there already a tool for this request? (docs/generate.md#gap-detection)
 *
 * Every tool of the repository that is not rejected is scored against the request with the
 * seed's overlap score, the weights and the threshold coming from toolgen.yaml
 * (generation.overlap_weights, generation.reuse_threshold):
 *
 *   overlap = w_op·operation_match + w_in·input_compatibility + w_out·output_format_match
 *           + w_con·constraint_match + w_sem·semantic_similarity
 *
 * A tool is reused only when it also covers the request's reading, every part of it
 * (gen/cover.h): then its call is exact, and operation, inputs and output format score 1. A
 * request whose reading is unknown, or a tool that declares none, is never reused, whatever its
 * score: the score ranks and explains, the reading decides.
 *
 * "Semantic similarity" is a lexical cosine, not an embedding: the cosine of the word-count
 * vectors of the request and of the tool's name, title, description, when_to_use and intent,
 * after lowercasing, splitting snake_case, dropping stop words and folding plurals. It is
 * deterministic and needs no model. The other four are facts of the manifests (see the .c file).
 *
 * Ownership: tg_gap_find fills a caller-owned result (tg_gap_result_release).
 */
#ifndef TG_GAP_H
#define TG_GAP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/json.h"
#include "base/util.h"
#include "gen/dataset.h"
#include "gen/reading.h"
#include "model/repo.h"

typedef struct tg_gap_weights {
    double operation, inputs, output_format, constraints, semantic;
    double threshold;
} tg_gap_weights;

/* The weights of the generation section (NULL: the seed's 0.30/0.25/0.20/0.15/0.10, 0.85). */
void tg_gap_weights_from_json(const cJSON *generation, tg_gap_weights *w);

/* What the request asks for: from the LLM's intent extraction, or derived from the words. */
typedef struct tg_gap_intent {
    const char *text;          /* the request as typed */
    const char *operation;     /* count, group_by_and_aggregate, chart, ... (NULL: from text) */
    const char *output_format; /* table, number, chart, text (NULL: from text) */
    const char *const *columns;/* the columns named (may be empty) */
    size_t ncolumns;
    bool has_filters;
    const tg_reading *reading; /* the request part by part; NULL or not known: nothing is reused */
    /* which tools a reuse may name (those the caller can call, e.g. the served ones); NULL: all */
    bool (*reusable)(void *ud, const char *tool);
    void *reusable_ud;
} tg_gap_intent;

typedef struct tg_gap_result {
    bool reuse;           /* a tool covers the reading and scores >= threshold */
    char *tool;           /* the covering tool with the best score, else the best-scoring tool,
                             or NULL when the repository has none */
    bool covered;         /* tool covers the reading (gen/cover.h) */
    char *why;            /* !covered: the first part of the reading tool does not cover */
    double score;
    double parts[5];      /* operation, inputs, output_format, constraints, semantic */
    char *call;           /* covered: the exact call, {"tool": ..., "arguments": {...}} as JSON */
} tg_gap_result;

/* The operation a text speaks of (keyword classes; "other" when none matches). */
const char *tg_gap_operation(const char *text);

/* Scores every tool of repo against in; 0 (result filled, maybe without a tool) or -1 with err
 * when the manifests cannot be listed. Unloadable manifests are skipped: lint reports them. */
int tg_gap_find(const tg_repo *repo, const tg_gap_intent *in, const tg_dataset *datasets,
                size_t ndatasets, const tg_gap_weights *w, tg_gap_result *out, tg_err *err);
void tg_gap_result_release(tg_gap_result *r);

/* Whether every word of name (a column name: snake_case split, plurals folded) is a word of
 * text: "bills per day" mentions day, not total_bill. */
bool tg_gap_mentions(const char *text, const char *name);

/* The lexical cosine of two texts (0..1). */
double tg_gap_similarity(const char *a, const char *b);

#endif
