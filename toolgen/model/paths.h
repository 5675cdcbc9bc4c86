/*
 * paths.h — where things live in a toolgen repository (docs/build.md "The stage graph" and
 * "`.toolgen/`: the state directory"): a tool is a folder of paths.manifests holding
 * tool.manifest.yaml, named like the tool; the build keeps its machine-local state under
 * .toolgen/. These are conventions of the repository, shared by the stages, the build engine
 * (its own state: log, lock, temporary files) and the CLI; nothing here touches the disk
 * except the folder scan of tg_tools_list.
 *
 * Every function returning char * returns a heap string the caller frees.
 */
#ifndef TG_PATHS_H
#define TG_PATHS_H

#include <stdbool.h>

#include "base/strvec.h"
#include "base/util.h"
#include "model/config.h"
#include "model/repo.h"

/* The build's state directory, relative to the repository root, and the stages' folders in it. */
#define TG_STATE_DIR ".toolgen"
#define TG_IR_DIR TG_STATE_DIR "/ir"           /* canonical IR, one file per tool */
#define TG_REPORTS_DIR TG_STATE_DIR "/reports" /* build and validation reports */
#define TG_OUT_DIR TG_STATE_DIR "/out"         /* other per-tool results (static findings) */

/* <paths.manifests>/<tool>/tool.manifest.yaml */
char *tg_manifest_path(const tg_config *cfg, const char *tool);
/* .toolgen/ir/<tool>.json: the canonical IR (the load stage's output) */
char *tg_ir_path(const char *tool);
/* .toolgen/reports/<tool>.json: the build report (the emit stage's) */
char *tg_report_path(const char *tool);
/* .toolgen/reports/<tool>.validation.json: the test stage's report */
char *tg_validation_report_path(const char *tool);
/* .toolgen/out/<tool>.static.json: the static stage's findings */
char *tg_static_out_path(const char *tool);
/* ^[a-z][a-z0-9_]{0,63}$: the names that are safe as file names and valid for every client. */
bool tg_tool_name_ok(const char *name);

/*
 * The manifest-folder tool source (what the CLI hands the build engine, see engine/build.h
 * tg_tool_source):
 *
 * tg_tools_list appends the name of every folder of the repository's paths.manifests (hidden ones
 * aside, read under its root fd), each a
 * candidate tool; 0, or -1 with err: the folder cannot be read, or the repository is
 * not a toolgen repository (no toolgen.yaml and no manifests folder). No manifests folder next
 * to a toolgen.yaml is a repository without tools (0, nothing appended).
 */
int tg_tools_list(const tg_repo *repo, tg_strv *names, tg_err *err);
/* A candidate is a tool when this file exists: tg_manifest_path. */
char *tg_tools_marker(const tg_config *cfg, const char *name);
/* NULL when name is a valid tool name, else why not (heap), naming marker. */
char *tg_tools_refuse(const char *marker, const char *name);

#endif
