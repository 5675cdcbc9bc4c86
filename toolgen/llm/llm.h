/*
 * llm.h — a language model behind one call: the providers, retries and the response cache
 * (docs/generate.md#providers, #the-response-cache).
 *
 * A request is a system and a user message. tg_llm_complete answers it from the cache when it
 * can (a content-addressed file under llm.cache_dir, keyed by XXH3 of the canonical request:
 * provider dialect, model, parameters, messages, sample number — never the API key), else asks
 * the provider over net/: OpenAI-compatible /chat/completions or Anthropic /v1/messages, with
 * a timeout, retries with exponential backoff and jitter on 408, 429, 5xx, timeouts and
 * connection errors (honouring Retry-After; net/retry.h), then the fallback model. Only a
 * complete, usable answer is cached (the request says what usable means: the code block the
 * caller reads); an unusable one is returned for the caller to report, and asked again next
 * time, as is an unusable answer an older cache holds. The API key is read from the environment variable
 * llm.api_key_env at request time and goes into one HTTP header; it never reaches an error
 * message, the cache or a log.
 *
 * Ownership: tg_llm_config_from_json fills a config whose strings it owns
 * (tg_llm_config_release). A client borrows the config and holds no other resource; it counts
 * what it did (requests sent, cache hits) for reports and tests. Not thread-safe per client.
 */
#ifndef TG_LLM_H
#define TG_LLM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hash.h"
#include "base/json.h"
#include "base/util.h"

typedef enum tg_llm_provider {
    TG_LLM_BUILTIN = 0, /* the offline generator (gen/builtin.h): no requests at all */
    TG_LLM_OPENAI,      /* any OpenAI-compatible /chat/completions server */
    TG_LLM_ANTHROPIC,   /* /v1/messages */
    TG_LLM_REPLAY,      /* answers only from the cache (llm.replay_of names the dialect) */
    TG_LLM_SAMPLING,    /* the MCP client's own model (sampling/createMessage), through the
                         * questions of a served call; tg_llm_complete answers none itself */
} tg_llm_provider;

typedef struct tg_llm_config {
    tg_llm_provider provider;
    tg_llm_provider replay_of; /* replay: whose cache entries answer (openai or anthropic) */
    char *model;               /* NULL only with builtin */
    char *fallback_model;      /* tried after the model failed every retry; NULL: none */
    char *base_url;            /* without a trailing '/' */
    char *api_key_env;         /* NAME of the variable holding the key */
    bool api_key_required;     /* api_key_env was set explicitly: an unset variable is an error */
    char *cache_dir;           /* relative to the repository root */
    double temperature, top_p;
    int max_tokens;
    int timeout_s;             /* one attempt */
    int max_retries;           /* attempts after the first */
    int retry_base_ms, retry_max_ms; /* backoff: base * 2^attempt, capped, with jitter */
} tg_llm_config;

/*
 * The llm section of toolgen.yaml (NULL: every default) as a config. provider_override (from
 * the command line; NULL: none) replaces llm.provider. -1 with err on an unknown provider or a
 * missing model.
 */
int tg_llm_config_from_json(const cJSON *llm, const char *provider_override, tg_llm_config *c,
                            tg_err *err);
void tg_llm_config_release(tg_llm_config *c);
/* "builtin", "openai", "anthropic", "replay", "sampling"; TG_LLM_PARSE_ERROR for others
 * ("offline" is accepted as builtin). */
#define TG_LLM_PARSE_ERROR (-1)
int tg_llm_provider_parse(const char *name);
const char *tg_llm_provider_name(tg_llm_provider p);

typedef enum tg_llm_status {
    TG_LLM_OK = 0,
    TG_LLM_BAD_ANSWER, /* malformed, truncated, refused, empty: err names provider and content */
    TG_LLM_UNAVAILABLE,/* timeouts, connection errors, 429/5xx after the last retry, 4xx */
    TG_LLM_FROZEN,     /* the answer is not cached and requests are not allowed */
    TG_LLM_CONFIG,     /* the key variable is unset, a bad base_url: err says what to set */
    TG_LLM_SAMPLE,     /* the sampling provider: the client's model must answer first; the
                        * question is in the client's pending list (tg_llm_client) */
} tg_llm_status;

/*
 * A shared cache of answers beside the local one (docs/cache.md "Model answers"), e.g. a
 * remote cache: asked after a local miss (an unusable answer there is a miss), offered every
 * usable answer. An entry is the bytes
 * of a local cache file; one that is not the answer of the key asked is a miss.
 */
typedef struct tg_llm_remote {
    char *(*get)(void *ud, tg_hash key, size_t *len); /* heap entry, or NULL */
    void (*put)(void *ud, tg_hash key, const char *entry, size_t len);
    void *ud;
} tg_llm_remote;

typedef struct tg_llm_client {
    const tg_llm_config *cfg;
    const tg_llm_remote *remote; /* NULL: none (set after tg_llm_client_init) */
    int root_fd;        /* the repository: the cache lives under it */
    bool frozen;        /* no requests: a cache miss is TG_LLM_FROZEN */
    bool no_cache;      /* ask even when an answer is cached; a usable new answer replaces it */
    /* The sampling provider (docs/code-edit.md#providers): the client's answers so far, by
     * question key ({key: CreateMessageResult}; borrowed, may be NULL), and the questions an
     * unanswered request added (a JSON array the client owns; NULL until the first): each
     * {key, method "sampling/createMessage", params}, for the server to ask its client and
     * then run the work again with the answers. */
    const cJSON *sampled;
    cJSON *pending;
    int requests;       /* HTTP requests sent (all attempts) */
    int cache_hits;     /* local or remote */
    unsigned rng;       /* jitter */
} tg_llm_client;

void tg_llm_client_init(tg_llm_client *c, const tg_llm_config *cfg, int root_fd, bool frozen);
/* Frees what the client holds (its pending questions). */
void tg_llm_client_release(tg_llm_client *c);

typedef struct tg_llm_request {
    const char *system;
    const char *user;
    int sample;          /* candidate number (0, 1, ...): distinct samples are distinct keys */
    const char *block;   /* the fenced block a usable answer holds (python, yaml; json: one that
                          * parses as an object), or NULL: any complete answer is usable */
} tg_llm_request;

typedef struct tg_llm_reply {
    char *text;          /* the answer's text */
    char *model;         /* "provider/model" that answered, e.g. openai/gpt-4o */
    tg_hash key;         /* the cache key (the canonical request's hash) */
    tg_hash response;    /* hash of text */
    bool cached;
    int attempts;        /* requests this answer took (0 when cached) */
    int tokens_in, tokens_out; /* what the provider reported for all attempts; -1 when cached */
} tg_llm_reply;

/* Answers rq (see above). Fills out on TG_LLM_OK (tg_llm_reply_release; out->cached false for
 * an answer that was not usable, hence not stored); err otherwise. */
tg_llm_status tg_llm_complete(tg_llm_client *c, const tg_llm_request *rq, tg_llm_reply *out,
                              tg_err *err);
void tg_llm_reply_release(tg_llm_reply *r);

/* The canonical request as JSON text (caller frees) and its hash: what the cache keys on. */
char *tg_llm_canonical_request(const tg_llm_config *cfg, const tg_llm_request *rq);

/*
 * The first fenced code block of text whose info string is lang (```python, ```yaml, ...; an
 * untagged block matches too when no tagged one exists). Heap copy, or NULL when there is none.
 */
char *tg_llm_code_block(const char *text, const char *lang);

#endif
