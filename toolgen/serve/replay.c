/* replay.c — the events of a legacy session's streams, kept for resumption (replay.h). */
#include "serve/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/util.h"

struct tg_replay_stream {
    unsigned no, seq;   /* its number; events so far */
    const char *tag;    /* its session's (tg_replays.tag) */
    tg_buf log;         /* their SSE text */
    size_t *ends;       /* where event i+1 ends in log */
    bool call, ended, lost; /* lost: over TG_REPLAY_BYTES, no longer resumable */
    int holds;
    void *follower;
    tg_replay_stream *next;
};

static void stream_free(tg_replay_stream *st)
{
    tg_buf_free(&st->log);
    free(st->ends);
    free(st);
}

/* Drops the oldest stream that ended and that nobody holds or follows; false when none. */
static bool evict(tg_replays *rs)
{
    tg_replay_stream **victim = NULL;
    for (tg_replay_stream **p = &rs->head; *p; p = &(*p)->next)
        if ((*p)->ended && !(*p)->holds && !(*p)->follower)
            victim = p;
    if (!victim)
        return false;
    tg_replay_stream *st = *victim;
    *victim = st->next;
    stream_free(st);
    rs->n--;
    return true;
}

tg_replay_stream *tg_replay_open(tg_replays *rs, bool call)
{
    if (rs->n >= TG_REPLAY_STREAMS && !evict(rs))
        return NULL;
    tg_replay_stream *st = xcalloc(1, sizeof *st);
    st->no = ++rs->next;
    st->tag = rs->tag;
    st->call = call;
    st->holds = 1;
    st->next = rs->head;
    rs->head = st;
    rs->n++;
    return st;
}

void tg_replay_hold(tg_replay_stream *st)
{
    st->holds++;
}

void tg_replay_release(tg_replay_stream *st)
{
    if (st)
        st->holds--;
}

char *tg_replay_event(tg_replay_stream *st, const cJSON *msg)
{
    char *json = msg ? tg_json_print_compact(msg) : NULL;
    const char *dot = st->tag ? "." : "", *tag = st->tag ? st->tag : "";
    char *text = json ? xasprintf("id: %u-%u%s%s\nevent: message\ndata: %s\n\n", st->no,
                                  st->seq + 1, dot, tag, json)
                      : xasprintf("id: %u-%u%s%s\ndata: \n\n", st->no, st->seq + 1, dot, tag);
    free(json);
    if (!st->lost && st->log.len + strlen(text) > TG_REPLAY_BYTES) {
        st->lost = true; /* the client may still read it live; it can no longer resume it */
        tg_buf_free(&st->log);
    }
    st->seq++;
    if (!st->lost) {
        tg_buf_puts(&st->log, text);
        st->ends = xrealloc(st->ends, st->seq * sizeof *st->ends);
        st->ends[st->seq - 1] = st->log.len;
    }
    return text;
}

void tg_replay_end(tg_replay_stream *st)
{
    st->ended = true;
}

bool tg_replay_ended(const tg_replay_stream *st)
{
    return st->ended;
}

bool tg_replay_is_call(const tg_replay_stream *st)
{
    return st->call;
}

void *tg_replay_follower(const tg_replay_stream *st)
{
    return st->follower;
}

void tg_replay_set_follower(tg_replay_stream *st, void *follower)
{
    st->follower = follower;
}

tg_replay_stream *tg_replay_find(tg_replays *rs, const char *last_event_id, char **after)
{
    unsigned no, seq;
    char tail;
    int got = last_event_id ? sscanf(last_event_id, "%u-%u%c", &no, &seq, &tail) : 0;
    if (got != 2 && !(got == 3 && tail == '.')) /* the tag: the caller checked whose it is */
        return NULL;
    for (tg_replay_stream *st = rs->head; st; st = st->next) {
        if (st->no != no)
            continue;
        if (st->lost || seq > st->seq)
            return NULL;
        size_t from = seq ? st->ends[seq - 1] : 0;
        *after = xstrndup(st->log.data ? st->log.data + from : "", st->log.len - from);
        return st;
    }
    return NULL;
}

void tg_replays_free(tg_replays *rs)
{
    while (rs->head) {
        tg_replay_stream *st = rs->head;
        rs->head = st->next;
        stream_free(st);
    }
    *rs = (tg_replays){0};
}
