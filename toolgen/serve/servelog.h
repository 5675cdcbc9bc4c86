/*
 * servelog.h — the log line every transport writes per message (docs/mcp.md, "Logs"): time,
 * request id, method, tool, era, duration, status, error code — never arguments or results.
 * Safe from several threads: each line goes out in one write.
 */
#ifndef TG_SERVE_SERVELOG_H
#define TG_SERVE_SERVELOG_H

#include "serve/core.h"

/* Writes lg's line to fd (-1: nothing). status NULL: derived from lg ("ok", "error",
 * "tool_error", "notification"); otherwise e.g. "cancelled". A failed write is ignored: a lost
 * log line must not stop serving. */
void tg_serve_log_line(int fd, const tg_serve_log *lg, const char *status, double ms);

/* Fills lg for a tools/call msg that was cancelled before it started (so tg_serve_handle never
 * filled it): its id, the method and the tool it names, so its "cancelled" line says which
 * call it was. lg->id points into msg. */
void tg_serve_log_unstarted(tg_serve_log *lg, const cJSON *msg);

/* Writes all n bytes of s to fd, retrying after EINTR; -1 when fd broke. */
int tg_serve_write_all(int fd, const char *s, size_t n);

#endif
