/*
 * notify.h — telling clients that a list changed (docs/mcp.md#list-changes).
 *
 * Two eras, two ways: a legacy client that has initialized gets notifications/tools/list_changed
 * (and .../resources/list_changed) on its connection; a 2026-07-28 client opens a stream with
 * subscriptions/listen and gets those of the notifications it opted in to, each tagged with
 * "io.modelcontextprotocol/subscriptionId" (the listen request's id). The request stays open:
 * the server acknowledges it at once (notifications/subscriptions/acknowledged, with the filter
 * it honours) and answers it only when the subscription ends — on stdio, when the client
 * cancels it (notifications/cancelled), which needs no answer.
 *
 * Subscriptions belong to a connection (tg_serve_subs, kept in the session). Only the protocol
 * messages are built here; when a list changes is the tool source's business (serve/devwatch.h)
 * and sending them the transport's.
 */
#ifndef TG_SERVE_NOTIFY_H
#define TG_SERVE_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* What changed (a bit set). */
enum {
    TG_CHANGED_TOOLS = 1,
    TG_CHANGED_RESOURCES = 2,
    TG_CHANGED_PROMPTS = 4,
    TG_CHANGED_CONTENT = 8, /* watched resources changed (serve/declared.h): their URIs */
};

#define TG_SERVE_MAX_SUBS 32 /* open subscriptions per connection */

typedef struct tg_serve_subs tg_serve_subs;

/*
 * subscriptions/listen with request id and params.notifications: the acknowledgement to send,
 * honouring of the filter what `offered` (TG_CHANGED_*) can change, and of its
 * resourceSubscriptions the URIs in watched (an array of strings the caller watches; NULL:
 * none). *subs is created on first use. NULL with why in msg (for -32602) when the filter is
 * not an object, the id is in use, or the connection has too many subscriptions.
 */
cJSON *tg_serve_listen(tg_serve_subs **subs, const cJSON *id, const cJSON *params,
                       unsigned offered, const cJSON *watched, char *msg, size_t msg_size);
/* Ends the subscription opened by request id (notifications/cancelled); false when none. */
bool tg_serve_unlisten(tg_serve_subs *subs, const cJSON *id);
/* Open subscriptions. */
size_t tg_serve_subs_count(const tg_serve_subs *subs);
void tg_serve_subs_free(tg_serve_subs *subs);

/*
 * The notifications due on a connection when the lists in `what` changed: the legacy ones
 * when legacy_initialized, then one per subscription and changed list it asked for. A new
 * array (possibly empty).
 */
cJSON *tg_serve_changed(const tg_serve_subs *subs, bool legacy_initialized, unsigned what);
/*
 * The notifications/resources/updated due on a connection when the resources in changed (an
 * array of URIs) changed: one per URI the legacy session subscribed to (legacy_uris, an array;
 * may be NULL), then one per subscription that listed it. A new array (possibly empty).
 */
cJSON *tg_serve_updated(const tg_serve_subs *subs, const cJSON *legacy_uris,
                        const cJSON *changed);

#endif
