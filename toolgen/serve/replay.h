/*
 * replay.h — the events of a legacy session's event streams, kept so that a client that lost a
 * stream resumes it (docs/mcp.md#streamable-http): Streamable HTTP's "resumability and
 * redelivery" of 2025-03-26 to 2025-11-25. 2026-07-28 streams are not resumable (the revision
 * says so), and get no ids.
 *
 * Each event of a kept stream carries the id "<stream>-<seq>" (unique within the session), and
 * behind a load balancer ".<route>", the instance that keeps it (serve/forward.h), so that a
 * GET with it that reaches another instance is relayed here (docs/scale.md#the-rest);
 * a client that reconnects with GET and Last-Event-ID gets the events after that one, on the
 * stream it names, then whatever the stream sends from then on. A session keeps at most
 * TG_REPLAY_STREAMS streams (the oldest ended ones give way) and each at most TG_REPLAY_BYTES of
 * events; a stream over that is no longer resumable. Socket-free, not thread-safe: the caller
 * holds one lock around every use.
 */
#ifndef TG_SERVE_REPLAY_H
#define TG_SERVE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define TG_REPLAY_STREAMS 32
#define TG_REPLAY_BYTES (1u << 20)

typedef struct tg_replay_stream tg_replay_stream;

typedef struct tg_replays {
    const char *tag;        /* after the ids' "." (borrowed; NULL: none) */
    tg_replay_stream *head; /* newest first */
    unsigned next;          /* the next stream's number */
    size_t n;
} tg_replays;

/* A new stream, held once (tg_replay_release); NULL when TG_REPLAY_STREAMS streams are kept
 * and none can give way: the stream is not resumable. call: it carries a call's reply. */
tg_replay_stream *tg_replay_open(tg_replays *rs, bool call);
/* Holds st once more (a request that resumed it), and lets go of a hold; a stream nobody holds
 * may give way once it ended. */
void tg_replay_hold(tg_replay_stream *st);
void tg_replay_release(tg_replay_stream *st);
/* The SSE text of one event holding msg on st (heap): its id line, then the event; logged.
 * msg NULL: the priming event, an id and empty data, which a stream starts with so that a
 * client that loses it at once can still resume it. */
char *tg_replay_event(tg_replay_stream *st, const cJSON *msg);
/* Marks that st sent its last event (a call's reply). */
void tg_replay_end(tg_replay_stream *st);
bool tg_replay_ended(const tg_replay_stream *st);
bool tg_replay_is_call(const tg_replay_stream *st);
/* Who follows st now (the request that resumed it); NULL: none. */
void *tg_replay_follower(const tg_replay_stream *st);
void tg_replay_set_follower(tg_replay_stream *st, void *follower);

/*
 * The stream last_event_id ("<stream>-<seq>", with a tag or not: the caller has checked whose
 * it is) names, and in *after the SSE text of its events after that one (heap, "" when none);
 * NULL when no kept stream has it, or its events are no longer all kept.
 */
tg_replay_stream *tg_replay_find(tg_replays *rs, const char *last_event_id, char **after);

/* Frees every stream (nobody holds them any more). */
void tg_replays_free(tg_replays *rs);

#endif
