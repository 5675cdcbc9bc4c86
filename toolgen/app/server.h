/*
 * server.h — `toolgen serve` composed (docs/mcp.md): the tool set of a source, watched for
 * changes (serve/devwatch.h); the built-in toolsets asked for (serve/builtins.h); the prompts;
 * the sandbox with its warm pool; the key that signs
 * questions to the client; the workflow tools when toolgen.yaml turns them on, with the
 * generation of app/generate.h; the table of tool providers and the core's configuration that
 * ties them together; and the transport the options name (stdio, or Streamable HTTP).
 *
 * Nothing here prints: what the command reports at start-up (the tools and prompts left out,
 * how many are served) reaches it through the opened callback, and errors through tg_err with
 * a status that says whose fault they are.
 */
#ifndef TG_SERVER_H
#define TG_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "model/repo.h"
#include "serve/prompts.h"
#include "serve/tools.h"

/* What the server read at start-up, for the command's report. */
typedef struct tg_app_serve_report {
    const tg_serve_tools *tools;     /* the source's tool set (with what it left out) */
    const tg_serve_prompts *prompts;
    const char *const *set_names;    /* the built-in toolsets served, in order */
    const tg_serve_tools *sets;      /* their tools, one set each */
    size_t n_sets;
    const char *instance;            /* this process's instance in code session handles
                                      * (run/session.h), which name where they live */
} tg_app_serve_report;

typedef struct tg_app_serve_opts {
    tg_serve_source source;     /* the registry (default), with its candidates, or --dev */
    bool read_only;             /* refuse tools that are not read-only */
    size_t page_size;           /* tools per tools/list page; 0: the default */
    size_t max_message;         /* bytes per message; 0: the default */
    size_t max_concurrency;     /* calls at once; 0: the default */
    long progress_ms;           /* between progress notifications; 0: the default */
    long session_idle_ms;       /* HTTP: a legacy session unused this long ends; 0: default */
    const char *http_host;      /* Streamable HTTP on http_host:http_port; NULL: stdio */
    unsigned http_port;
    const char *const *allowed_origins; /* HTTP: Origins besides loopback; NULL-terminated */
    const char *http_token;     /* HTTP: the bearer token requests must carry; NULL: none */
    const char *advertise;      /* HTTP: the URL the other instances reach this one at
                                 * (serve/http.h); NULL: the bound address's, if not a wildcard */
    const char *const *peers;   /* HTTP: the other instances' URLs (--peer), NULL-terminated, to
                                 * which a cancel found nowhere here goes; NULL: none */
    const char *state_key;      /* the secret the instances behind one load balancer share,
                                 * which signs requestState and legacy session ids
                                 * (serve/mrtr.h, docs/scale.md); NULL: a random key */
    int proto_fd;               /* stdio: the protocol's descriptor (serve/stdio.h) */
    int log_fd;                 /* one JSON line per request; -1: none */
    volatile sig_atomic_t *cancel; /* set by a signal: the calls in flight stop */
    volatile sig_atomic_t *stop;   /* set by a signal: serving ends (required) */
    const char *user;           /* who answers feedback through the workflow (Approved-By) */
    const char *const *toolsets; /* built-in toolsets to serve (--toolset), besides those of
                                  * serve.toolsets in toolgen.yaml */
    size_t n_toolsets;
    /* called once the tool sets and prompts are read, before serving starts; may be NULL */
    void (*opened)(void *ud, const tg_app_serve_report *report);
    /* HTTP: called once the socket listens, with the port bound; may be NULL */
    void (*listening)(void *ud, const char *host, unsigned port);
    void *ud;
} tg_app_serve_opts;

typedef enum tg_app_serve_status {
    TG_APP_SERVE_OK = 0,
    TG_APP_SERVE_CONFIG, /* the repository or its configuration is wrong, or a toolset asked
                          * for does not exist (err says) */
    TG_APP_SERVE_ENV,    /* the environment failed: no manifests folder, no random source,
                          * the address cannot be bound, the reply stream broke */
} tg_app_serve_status;

/*
 * Opens what repo (opened with its config; it must outlive the call) serves and serves it
 * until stdin ends (stdio) or *o->stop is set. TG_APP_SERVE_OK on a clean end, else the kind
 * of failure with err.
 */
tg_app_serve_status tg_app_serve(const tg_repo *repo, const tg_app_serve_opts *o, tg_err *err);

#endif
