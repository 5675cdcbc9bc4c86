/* llm_int.h — private to llm/: the provider dialects and the cache (llm.h describes both). */
#ifndef TG_LLM_INT_H
#define TG_LLM_INT_H

#include "llm/llm.h"
#include "net/httpreq.h"

/* The JSON body of a request to model in the dialect of p (openai or anthropic); heap text. */
char *tg_llm_body(tg_llm_provider p, const tg_llm_config *cfg, const char *model,
                  const tg_llm_request *rq);
/* The endpoint URL (heap): {base_url}/chat/completions, or {base_url}/v1/messages for
 * Anthropic (without a second /v1 when base_url ends in one). */
char *tg_llm_endpoint(tg_llm_provider p, const tg_llm_config *cfg);
/* The request's headers into h (room for TG_LLM_MAX_HEADERS), Content-Type first; returns how
 * many. The key's header only when key is not NULL; a value built around the key is heap in
 * *owned (wipe and free it after the request), else *owned is NULL. */
#define TG_LLM_MAX_HEADERS 3
size_t tg_llm_headers(tg_llm_provider p, const char *key, tg_http_header *h, char **owned);
/* The answer's text from a 200 body, or NULL with err saying what was wrong (malformed,
 * truncated, refused, empty), naming the provider and quoting the start of what came back.
 * tokens: the input and output tokens the answer reports, -1 each when it reports none (set
 * whenever the body is a JSON object). */
char *tg_llm_parse_answer(tg_llm_provider p, const char *body, size_t len, int tokens[2],
                          tg_err *err);

/* The cached answer of key (text and model, heap) or -1 when absent or unreadable. */
int tg_llm_cache_get(int root_fd, const char *dir, tg_hash key, char **text, char **model);
/* The answer of key in an entry's bytes (text and model, heap); -1 when they hold none, or the
 * answer of another key. */
int tg_llm_cache_parse(const char *bytes, size_t len, tg_hash key, char **text, char **model);
/* The bytes of a cache entry (heap, *len): what the local cache file and the remote cache hold. */
char *tg_llm_cache_entry(tg_hash key, const char *canonical, const char *text,
                         const char *model, size_t *len);
/* Stores an entry's bytes atomically as key's; 0 or -1 with err. */
int tg_llm_cache_write(int root_fd, const char *dir, tg_hash key, const char *entry, size_t len,
                       tg_err *err);

/* The sampling provider's answer to rq, whose cache key is key: from c->sampled (TG_LLM_OK with
 * out's text and model), else a question added to c->pending (TG_LLM_SAMPLE, err says so). */
tg_llm_status tg_llm_sampled(tg_llm_client *c, const tg_llm_request *rq, tg_hash key,
                             tg_llm_reply *out, tg_err *err);

#endif
