/*
 * devwatch.h — the served tool set, re-read when its source changes while serving
 * (docs/mcp.md#list-changes): with --dev the working tree's manifests, otherwise the registry
 * (a promotion, `toolgen stage`, a feedback that changes a candidate's state).
 *
 * The check runs before every request and about once a second while idle, so it costs the same
 * however many tools there are: inotify watches on the folders the source reads (base/fswatch.h)
 * say whether anything happened, and only then are they read — a hash of the names, sizes,
 * modification times and inode numbers of the files in the manifests folder (two levels: each
 * tool's folder and the folders in it), or in the active registry (likewise) and the staging
 * folder (its metadata). Only when that hash moved, and stayed the same at the next check, is
 * the tool set loaded again (lint, schemas, MCP objects) with its resources; the clients are
 * told (serve/notify.h) only when what tools/list shows changed. Without inotify (or past the
 * kernel's watch limit) every check reads the folders, as before.
 *
 * The watch owns the live tool set (serve/toolset.h): a reload swaps in a new snapshot, and a
 * request in flight keeps the one it started with. The check and reload are not thread-safe
 * among themselves: run them with the core's lock held (both transports do), from any thread.
 */
#ifndef TG_SERVE_DEVWATCH_H
#define TG_SERVE_DEVWATCH_H

#include <stdbool.h>

#include "base/fswatch.h"
#include "base/hash.h"
#include "model/repo.h"
#include "serve/resources.h"
#include "serve/tools.h"
#include "serve/toolset.h"

typedef struct tg_serve_devwatch {
    const tg_repo *repo;
    tg_serve_source source;
    tg_serve_live live;           /* the current snapshot (the config's live) */
    tg_hash state;                /* of the manifests folder's files, as last read */
    tg_hash settling;             /* a new state seen once, read when seen again */
    tg_hash listing;              /* of what tools/list shows */
    unsigned reloads;             /* how many times the set was read again */
    unsigned scans;               /* how many checks read the folders (tests, benchmarks) */
    tg_fswatch fs;                /* says when the folders are worth reading */
    bool unsettled;               /* state != what the folders hold: read them again */
    bool force;                   /* read the set at the next check, settled or not */
} tg_serve_devwatch;

/* Loads the set of repo (which must outlive the watch) from source. -1 with err as
 * tg_serve_tools_load_dev, tg_serve_tools_load_registry or tg_serve_resources_build. */
int tg_serve_devwatch_open(tg_serve_devwatch *w, const tg_repo *repo, tg_serve_source source,
                           tg_err *err);
void tg_serve_devwatch_close(tg_serve_devwatch *w);

/* Re-reads the set when the folder changed. Returns the lists whose contents changed
 * (TG_CHANGED_TOOLS | TG_CHANGED_RESOURCES, serve/notify.h), 0 when none did or the new set
 * could not be read (the old one is kept). ctx is the watch, so it fits tg_serve_stdio.idle. */
unsigned tg_serve_devwatch_check(void *ctx);

/* Makes the next check re-read the set without waiting for the folder to settle (a change the
 * server made itself: a promotion through MCP). ctx is the watch, so it fits
 * tg_serve_workflow.changed; call it with the core's lock held, as the check runs. */
void tg_serve_devwatch_force(void *ctx);
/* Re-reads the set now, without waiting for the folder to settle: for a change the server made
 * itself (a promotion through MCP). Returns as tg_serve_devwatch_check. */
unsigned tg_serve_devwatch_reload(tg_serve_devwatch *w);

#endif
