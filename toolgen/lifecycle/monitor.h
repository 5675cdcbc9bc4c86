/*
 * monitor.h — monitoring of the lifecycle (seed 000 section 7.3, docs/lifecycle.md
 * "Monitoring"): .toolgen/metrics.json counts what the lifecycle commands did — tools staged
 * and refused by the gates (the validation failure rate), outputs accepted or not, approvals,
 * rejections with their issue categories (the common rejection reasons), promotions, staged runs
 * and their time. Machine-local state like the rest of .toolgen/: never committed.
 */
#ifndef TG_MONITOR_H
#define TG_MONITOR_H

#include "base/strvec.h"
#include "base/util.h"
#include "model/repo.h"

#define TG_METRICS_PATH ".toolgen/metrics.json"
#define TG_METRICS_LOCK_PATH ".toolgen/metrics.lock"

typedef enum tg_monitor_event {
    TG_MON_STAGED,          /* a tool was staged */
    TG_MON_GATE_FAILED,     /* staging refused: a quality gate failed (validation failure) */
    TG_MON_OUTPUT_ACCEPTED, /* Stage 1 yes */
    TG_MON_OUTPUT_REJECTED, /* Stage 1 no */
    TG_MON_APPROVED,        /* Stage 2 approve */
    TG_MON_REJECTED,        /* Stage 2 anything else, or toolgen reject (with reasons) */
    TG_MON_PROMOTED,
    TG_MON_STAGED_RUN,      /* a staged run (ms: its execution time) */
    TG_MON_STAGED_RUN_FAILED,
    TG_MON_REASONS,         /* only the reasons of a rejection already counted */
} tg_monitor_event;

/*
 * Adds one event to .toolgen/metrics.json (created when missing; a file that is not valid JSON
 * is started afresh, since it only holds counts) and recomputes the rates and averages. ms is
 * the duration of a staged run (else ignored); reasons are rejection categories, counted
 * whatever the event (may be NULL). Safe to call from several processes and threads at once:
 * the update holds an exclusive flock of .toolgen/metrics.lock, so no event is lost.
 * 0, or -1 with err when the file cannot be written.
 */
int tg_monitor_add(const tg_repo *repo, tg_monitor_event ev, double ms, const tg_strv *reasons,
                   tg_err *err);

#endif
