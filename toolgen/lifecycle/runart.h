/*
 * runart.h — staged execution (seed step 5, docs/lifecycle.md "Staged run"): what a run of a
 * STAGED tool on the user's real input leaves in its candidate folder, run_artifacts.json (the
 * seed's RunArtifacts: result, summary, files, sample rows, rows processed, execution time,
 * assumptions and limitations), next to the files the call wrote (<candidate>/files/).
 */
#ifndef TG_RUNART_H
#define TG_RUNART_H

#include <cjson/cJSON.h>

#include "base/strvec.h"
#include "base/util.h"
#include "lifecycle/registry.h"
#include "model/manifest.h"

/*
 * The candidate folder of m's STAGED entry when the snapshot is the manifest and code as they
 * are now: 1 with *dir set (heap), 0 when the tool has no STAGED entry (a normal run), -1 with
 * err when it is staged but the manifest or code changed since (stage it again).
 */
int tg_runart_candidate(const tg_registry *g, const tg_manifest *m, char **dir, tg_err *err);

/*
 * run_artifacts.json of one call: envelope is tg_call_result_json's; files are the paths the
 * call's files were copied to, relative to the candidate folder. Caller frees the tree.
 */
cJSON *tg_runart_build(const cJSON *envelope, const tg_manifest *m, const tg_strv *files);

/* The rows a table of the result shows: the first of its members that is an array of objects
 * (borrowed), or NULL. sample_rows are its first five. */
const cJSON *tg_runart_rows(const cJSON *result);

/* Writes art as <dir>/run_artifacts.json, atomically. 0 or -1. */
int tg_runart_store(const tg_registry *g, const char *dir, const cJSON *art, tg_err *err);

/* Loads <dir>/run_artifacts.json; NULL with err when absent or not JSON. */
cJSON *tg_runart_load(const tg_registry *g, const char *dir, tg_err *err);

#endif
