/*
 * fswatch.h — "did anything change under these folders?" answered without reading them: inotify
 * watches on a few folder trees, drained without blocking.
 *
 * Used where a check runs before every message (serve's change check, docs/mcp.md#list-changes):
 * its cost must not grow with the number of files watched. When nothing happened since the last
 * drain, tg_fswatch_changed is one read() that finds no event. A watch that cannot be kept —
 * inotify unavailable, the kernel's watch limit reached, the event queue overflowed — says
 * "changed" at every drain until re-armed, so the caller falls back to reading the folders:
 * slower, never wrong.
 *
 * Ownership: the watch owns its inotify descriptor (close-on-exec). Not thread-safe.
 * Lifecycle: tg_fswatch_init, tg_fswatch_add_tree per tree (again after tg_fswatch_rearm),
 * tg_fswatch_close.
 */
#ifndef TG_FSWATCH_H
#define TG_FSWATCH_H

#include <stdbool.h>

typedef struct tg_fswatch {
    int fd;      /* the inotify instance; -1 when it could not be made or was given up */
    bool missed; /* an event may have been missed (overflow, a watch not added): say changed */
    bool off;    /* no inotify (it could not be made; tests set it): every drain says changed */
} tg_fswatch;

/* Opens the inotify instance (without one, off: every drain says changed). */
void tg_fswatch_init(tg_fswatch *w);
/* Watches dir (absolute) for entries made, removed, renamed, written or changed in their
 * attributes, and the folders below it down to depth levels (depth 1: dir alone), skipping
 * names that start with '.'; also watches dir's parent, so that dir made, removed or replaced
 * is seen. A dir that does not exist is fine (its parent's watch sees it come). */
void tg_fswatch_add_tree(tg_fswatch *w, const char *dir, int depth);
/* Drains the pending events: true when there was one (or the watch cannot tell). Never blocks. */
bool tg_fswatch_changed(tg_fswatch *w);
/* Drops every watch and starts afresh (call tg_fswatch_add_tree again): after a change, since
 * folders may have come or gone. */
void tg_fswatch_rearm(tg_fswatch *w);
void tg_fswatch_close(tg_fswatch *w);

#endif
