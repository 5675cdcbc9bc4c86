/*
 * newtool.h — `toolgen new`: from an intent to a validated tool (docs/generate.md#the-pipeline).
 *
 *   1. the datasets' schemas (gen/dataset.h) and, with a model, the intent extracted as JSON;
 *   2. the reading of the request, part by part (gen/reading.h: the builtin's plan, or the
 *      model's intent), shown first; gap detection (gen/gap.h): an existing tool that covers
 *      every part of it (gen/cover.h) is REUSE, with the exact call, and nothing is generated;
 *   3. the contract: manifests/<name>/tool.manifest.yaml, status draft, intent, provenance;
 *   4. the code: tool.py (N samples with --samples N) and tool.lock;
 *   5. validation through the gates — the caller's validate callback builds just that tool (this
 *      layer cannot see the build engine; app/validate.h is the one toolgen uses) and hands back
 *      a verdict (gen/verdict.h) — then the repair loop, up to
 *      validation.max_repair_iterations, each request carrying the verdict's diagnostics;
 *   6. STAGED (status staged, the best candidate kept) or REJECTED (the tool folder removed, the
 *      last candidate and its report kept under .toolgen/gen/<name>/).
 * On any error nothing is left in manifests/: the folder is written whole or removed again.
 * The provider builtin runs the offline generator (gen/builtin.h) instead of steps 1, 3 and 4.
 *
 * Ownership: tg_gen_new fills a caller-owned result (tg_gen_result_release).
 */
#ifndef TG_NEWTOOL_H
#define TG_NEWTOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "gen/builtin.h"
#include "gen/verdict.h"
#include "llm/llm.h"
#include "model/repo.h"

/* Builds just tool through the gates, as its files are now. 0 when the build ran, with out
 * filled (the pipeline releases it); -1 with err, out left empty, when it could not run (no
 * sandbox, the lock is held). */
typedef int (*tg_gen_validate_fn)(void *ud, const tg_repo *repo, const char *tool,
                                  tg_verdict *out, tg_err *err);

typedef struct tg_gen_opts {
    const tg_repo *repo;
    const char *intent;
    const char *const *data; /* --data files, relative to the root */
    size_t ndata;
    const char *name;        /* NULL: the model's (or the builtin's) choice */
    const char *provider;    /* NULL: llm.provider */
    int samples;             /* candidates; 1 = no sampling */
    bool frozen;             /* no requests: answers only from the cache */
    bool no_cache;           /* ask the model even when an answer is cached (it is replaced) */
    const tg_llm_remote *llm_remote; /* a shared cache of answers (llm/llm.h), or NULL */
    tg_gen_validate_fn validate;
    void *validate_ud;
    void (*progress)(void *ud, const char *line); /* one line per step; may be NULL */
    void *progress_ud;
    /* which existing tools a REUSE may name (e.g. those a server serves); NULL: every tool */
    bool (*reusable)(void *ud, const char *tool);
    void *reusable_ud;
    /* the user's answers to the generator's questions, "ABOUT=MEANING" (`--assume`) */
    const char *const *assume;
    size_t nassume;
    /* asks the user q (a terminal); 0 with *answer (heap: one of q's options) or -1: no answer.
     * NULL: a question ends the pipeline (TG_GENF_ASK, result->question). */
    int (*ask)(void *ud, const tg_builtin_question *q, char **answer);
    void *ask_ud;
    /* the client's model's answers so far (llm.provider sampling; tg_llm_client.sampled), or
     * NULL */
    const cJSON *sampled;
} tg_gen_opts;

typedef enum tg_gen_outcome {
    TG_GEN_STAGED,
    TG_GEN_REJECTED,
    TG_GEN_REUSE,
    TG_GEN_FAILED,    /* see fail; err says why */
} tg_gen_outcome;

typedef enum tg_gen_fail {
    TG_GENF_NONE,
    TG_GENF_USAGE,    /* bad arguments or config, the folder exists, builtin did not understand */
    TG_GENF_ANSWER,   /* the model's answer is unusable */
    TG_GENF_ENV,      /* the provider is unreachable, the sandbox cannot run */
    TG_GENF_FROZEN,   /* generation needed, requests not allowed */
    TG_GENF_ASK,      /* one question settles the request: result->question */
    TG_GENF_SAMPLE,   /* llm.provider sampling: the client's model must answer first
                       * (result->sampling); run again with its answers in opts.sampled */
} tg_gen_fail;

typedef struct tg_gen_result {
    tg_gen_outcome outcome;
    tg_gen_fail fail;
    char *tool;          /* the tool's name (REUSE: the existing tool) */
    char *summary;       /* a few lines for humans: steps, iterations, pass@k, gates */
    char *next;          /* the next command to run */
    char *arguments;     /* REUSE: the exact call's arguments (compact JSON object), else NULL */
    int requests, cache_hits;
    tg_builtin_question question; /* TG_GENF_ASK: the question left open */
    cJSON *sampling;     /* TG_GENF_SAMPLE: the requests for the client's model, as questions
                          * (tg_llm_client.pending) */
} tg_gen_result;

/* Runs the pipeline. 0 with result filled (any outcome but FAILED), or -1 with result->fail
 * and err. */
int tg_gen_new(const tg_gen_opts *o, tg_gen_result *result, tg_err *err);
void tg_gen_result_release(tg_gen_result *r);

#endif
