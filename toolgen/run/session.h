/*
 * session.h — code sessions (docs/code.md#sessions): persistent interpreters, one per session,
 * each in its own warm sandbox (run/warm.h) running runner_session.py, so that a program's
 * variables, imports and files survive until the next program of the same session.
 *
 * A store holds at most `max` sessions, and at most `per_client` of one identified client. Each
 * has a server-minted handle ("sess_", the store's instance — 8 hex digits drawn when it is
 * made, naming the serve process —, "_" and 32 hex digits from getrandom: unguessable), the
 * client that created it (0: none known, and then
 * the handle alone admits), and a last-use time; a session idle for `idle_ms` expires at the
 * next sweep (tg_sessions_sweep; every store call sweeps first). Ended sessions are remembered
 * (the last TG_SESSION_TOMBS of them) so that a call names why its handle no longer works:
 * expired, closed, or unknown. A handle of another client is answered exactly like an unknown
 * one, so that its existence does not leak; one of another instance (another process behind
 * the same load balancer, when serve could not hand the call on to it) is unknown too, with an
 * error that names both instances (docs/scale.md#code-sessions).
 *
 * A call runs through the session's warm sandbox in the session's directory (/work/s), which
 * stays (the interpreter makes it on the first call, as the sandbox's user); the call's result lists the files the call created or changed, copied into a
 * directory of their own that lives as long as the result (so that a later call cannot change
 * what an earlier result showed). A limit toolgen enforces interrupts the program and the
 * session keeps its state; a call that ends the interpreter (it would not stop, a signal,
 * os._exit) leaves the session alive with a new interpreter: files kept, variables lost,
 * *restarted set. A session whose sandbox itself ended is closed.
 *
 * Threads: every function may be called from any thread; one call runs per session at a time
 * (a second is refused with TG_SESSION_BUSY); calls of different sessions run in parallel.
 */
#ifndef TG_SESSION_H
#define TG_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "run/sandbox.h"

#define TG_SESSION_ID_MAX 512 /* a handle with its route (tg_sessions_set_route) */
#define TG_SESSION_INSTANCE_LEN 8 /* hex digits of the instance in a handle */
#define TG_SESSION_TOMBS 256
#define TG_SESSIONS_MAX_DEFAULT 8
#define TG_SESSIONS_PER_CLIENT_DEFAULT 4
#define TG_SESSION_IDLE_MS_DEFAULT (10L * 60 * 1000)

typedef struct tg_sessions tg_sessions;

typedef enum tg_session_status {
    TG_SESSION_OK = 0,
    TG_SESSION_UNKNOWN, /* no such handle (never made here, another client's, or from before
                         * the server started) */
    TG_SESSION_EXPIRED, /* it was idle longer than idle_ms */
    TG_SESSION_CLOSED,  /* close_session ended it */
    TG_SESSION_BUSY,    /* another call of it is running */
    TG_SESSION_FULL,    /* create: max sessions are open, or per_client of this client's */
    TG_SESSION_LANG,    /* run: the session is of another language than the tool's */
    TG_SESSION_START,   /* create: its sandbox did not start (err; TG_SANDBOX_ENV in *sb_status) */
} tg_session_status;

/* The store for sandbox c (borrowed, must outlive it): at most max sessions, at most
 * per_client of one identified client; 0 for any of max, per_client, idle_ms: the default. */
tg_sessions *tg_sessions_new(const tg_sandbox_config *c, size_t max, size_t per_client,
                             long idle_ms);
/* The store's instance (TG_SESSION_INSTANCE_LEN hex digits), in every handle it makes. */
const char *tg_sessions_instance(const tg_sessions *s);
/*
 * Behind a load balancer (docs/scale.md#code-sessions): the handles made from now on end with
 * "." and route (copied), which names where this process is reached, signed with the key the
 * instances share, so that any of them can send a call with the handle here (serve/forward.h).
 * The store neither reads nor checks it: a handle is one opaque string to it. NULL, or longer
 * than leaves room for the rest of a handle: none (handles as without a load balancer).
 */
void tg_sessions_set_route(tg_sessions *s, const char *route);
/* Ends every session and frees the store; NULL is fine. */
void tg_sessions_free(tg_sessions *s);
/* Ends the sessions idle for longer than idle_ms; returns how many. */
size_t tg_sessions_sweep(tg_sessions *s);
size_t tg_sessions_max(const tg_sessions *s);
long tg_sessions_idle_ms(const tg_sessions *s);

/*
 * Starts a session of language lang ("python", "node") whose sandbox runs cmd (argv, env and
 * mounts of runner_session.py; its limits the session's: memory for the whole session; its
 * paths the read-only mounts, the data directories below /work/s). cmd and what it points to
 * are copied. *id gets the handle. TG_SESSION_START with err (and
 * *sb_status) when the sandbox did not start; TG_SESSION_FULL when max are open (err names
 * the client's own sessions).
 */
tg_session_status tg_session_create(tg_sessions *s, const char *lang, const tg_sandbox_cmd *cmd,
                                    uint64_t client, char id[TG_SESSION_ID_MAX],
                                    tg_sandbox_status *sb_status, tg_err *err);

/*
 * Runs one call of session id (of client) with cmd's request, limits and cancel flag (its argv
 * is ignored: the session's interpreter runs it); lang NULL: a session of any language. TG_SESSION_OK: *sb_status is the sandbox's
 * status and res is filled as by tg_sandbox_run (free it with tg_sandbox_result_free), its
 * files those the call created or changed; *restarted: the call ended the interpreter.
 * Anything else: nothing ran and err says why and what to do.
 */
tg_session_status tg_session_run(tg_sessions *s, const char *id, uint64_t client,
                                 const char *lang, const tg_sandbox_cmd *cmd,
                                 tg_sandbox_result *res, bool *restarted,
                                 tg_sandbox_status *sb_status, tg_err *err);

/*
 * Saves data (len bytes) as the file `name` in session id's working directory (where its
 * programs run: open(name) reads it), replacing a file of that name; data NULL only checks
 * that client may use the session. name is one file name: no '/', not "." or "..", not a data
 * directory's mount point. The file is written by toolgen itself (web_fetch's `file` format,
 * docs/web.md#file), atomically (a temporary file renamed), owned by the sandbox's user, and
 * never through a symbolic link a program left there. One call of the session at a time, as
 * tg_session_run (TG_SESSION_BUSY). TG_SESSION_OK, or why not (err): TG_SESSION_LANG for a
 * name that is not one file name, TG_SESSION_START when the write itself failed (the disk
 * budget of the session's directory, ENOSPC).
 */
tg_session_status tg_session_put_file(tg_sessions *s, const char *id, uint64_t client,
                                      const char *name, const void *data, size_t len,
                                      tg_err *err);

/* Ends every session of client (not 0) that is not running a program (one that is expires
 * later); a later call with one of their handles is told that its client went away. Returns
 * how many ended. */
size_t tg_sessions_end_client(tg_sessions *s, uint64_t client);

/* Ends session id of client. TG_SESSION_OK, or why not (err). */
tg_session_status tg_session_close(tg_sessions *s, const char *id, uint64_t client, tg_err *err);

/* {session_id, runtime, created_at, idle_timeout_s, expires_in_s, calls} of session id, or
 * NULL when it is not client's open session. */
cJSON *tg_session_info(tg_sessions *s, const char *id, uint64_t client);

/* The error code of a status (NOT_FOUND, CONFLICT, RATE_LIMITED, ...) and its error type
 * (SESSION_EXPIRED, SESSION_NOT_FOUND, ...), both static. */
const char *tg_session_code(tg_session_status st);
const char *tg_session_type(tg_session_status st);

#endif
