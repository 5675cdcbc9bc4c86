/* remotecache.c — the remote cache as the build engine's shared cache (remotecache.h). */
#include "app/remotecache.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "cache/remote.h"

#define INLINE_MAX ((size_t)16 << 10)     /* a file inlined in an action result, at most */
#define INLINE_TOTAL ((size_t)1 << 20)    /* all of one action result's inlined files */

struct tg_remote_cache {
    tg_remote *client;
    tg_build_cache ops;
    tg_llm_remote llm;
    bool upload;
    atomic_int hits, misses, uploads;
};

int tg_remote_cache_open(const tg_repo *repo, const char *url_override, tg_remote_cache **out,
                         tg_err *err)
{
    *out = NULL;
    const cJSON *c = tg_config_get(&repo->cfg, "/cache");
    const char *url = url_override ? url_override : tg_json_get_string(c, "remote");
    if (!url || !*url)
        return 0;
    const cJSON *up = tg_json_get(c, "remote_upload");
    const cJSON *to = tg_json_get(c, "remote_timeout_s");
    tg_remote_config rcfg = {.url = url,
                             .token_env = tg_json_get_string(c, "remote_token_env"),
                             .upload = !cJSON_IsFalse(up),
                             .timeout_ms = cJSON_IsNumber(to) ? (long)to->valuedouble * 1000 : 0};
    tg_remote *client;
    if (tg_remote_open(&rcfg, &client, err) != 0)
        return -1;
    tg_remote_cache *rc = xcalloc(1, sizeof *rc);
    rc->client = client;
    rc->upload = rcfg.upload;
    *out = rc;
    return 0;
}

void tg_remote_cache_close(tg_remote_cache *rc)
{
    if (!rc)
        return;
    tg_remote_close(rc->client);
    free(rc);
}

static void local_hex(tg_hash key, const char *kind, char out[TG_SHA256_HEX])
{
    char hex[TG_HASH_HEX];
    tg_hash_hex(key, hex);
    tg_remote_key(kind, hex, out);
}

static tg_cache_status cache_get(void *ud, const char *kind, tg_hash key, tg_cache_record *out,
                                 tg_err *err)
{
    tg_remote_cache *rc = ud;
    memset(out, 0, sizeof *out);
    char wire[TG_SHA256_HEX];
    local_hex(key, kind, wire);
    tg_remote_action a;
    tg_remote_status st = tg_remote_get(rc->client, wire, &a, err);
    /* the counts are of stages: a stage's lookup is a hit at its result, a miss at its first
     * miss (model answers are not counted) */
    bool result = strcmp(kind, "result") == 0, stage = result || strcmp(kind, "deps") == 0;
    if (st != TG_REMOTE_HIT) {
        if (stage)
            atomic_fetch_add(&rc->misses, 1);
        return st == TG_REMOTE_MISS ? TG_CACHE_MISS : TG_CACHE_WARN;
    }
    if (result)
        atomic_fetch_add(&rc->hits, 1);
    out->files = xcalloc(a.ar.nfiles + 1, sizeof *out->files);
    for (size_t i = 0; i < a.ar.nfiles; i++) {
        out->files[i] = (tg_cache_file){xstrdup(a.ar.files[i].path), a.data[i],
                                        (size_t)a.ar.files[i].size};
        a.data[i] = NULL;
    }
    out->nfiles = a.ar.nfiles;
    out->text = (char *)a.ar.out; /* NUL-terminated by tg_ar_decode */
    a.ar.out = NULL;
    tg_remote_action_free(&a);
    return TG_CACHE_HIT;
}

static tg_cache_status cache_put(void *ud, const char *kind, tg_hash key,
                                 const tg_cache_record *rec, tg_err *err)
{
    tg_remote_cache *rc = ud;
    char wire[TG_SHA256_HEX];
    local_hex(key, kind, wire);
    tg_action_result ar = {0};
    tg_span *blobs = xcalloc(rec->nfiles + 1, sizeof *blobs);
    size_t inlined = 0;
    for (size_t i = 0; i < rec->nfiles; i++) {
        /* small files travel in the action result too: a hit then costs one request, not one
         * per file (each is still uploaded as a blob, which a validating server requires) */
        bool in = rec->files[i].len <= INLINE_MAX && inlined + rec->files[i].len <= INLINE_TOTAL;
        inlined += in ? rec->files[i].len : 0;
        tg_ar_add_file(&ar, rec->files[i].path, rec->files[i].data, rec->files[i].len, in);
        blobs[i] = (tg_span){rec->files[i].data, rec->files[i].len};
    }
    ar.out = (unsigned char *)(rec->text ? rec->text : "");
    ar.outlen = strlen((const char *)ar.out);
    tg_remote_status st = tg_remote_put(rc->client, wire, &ar, blobs, err);
    ar.out = NULL; /* borrowed */
    tg_ar_free(&ar);
    free(blobs);
    if (st == TG_REMOTE_STORED && strcmp(kind, "result") == 0)
        atomic_fetch_add(&rc->uploads, 1);
    return st == TG_REMOTE_DOWN ? TG_CACHE_WARN : TG_CACHE_HIT;
}

const tg_build_cache *tg_remote_cache_build(tg_remote_cache *rc)
{
    rc->ops = (tg_build_cache){.get = cache_get, .put = cache_put, .ud = rc};
    return &rc->ops;
}

char *tg_remote_cache_summary(const tg_remote_cache *rc)
{
    int h = atomic_load(&rc->hits), m = atomic_load(&rc->misses);
    int rej = tg_remote_rejected(rc->client), up = atomic_load(&rc->uploads);
    return xasprintf("remote cache: %d hit%s, %d miss%s, %d rejected blob%s, uploads %d%s", h,
                     h == 1 ? "" : "s", m, m == 1 ? "" : "es", rej, rej == 1 ? "" : "s", up,
                     rc->upload ? "" : " (read-only)");
}

/* ---- model answers -------------------------------------------------------------------------- */

#define ANSWER_FILE "answer.json"

static char *llm_get(void *ud, tg_hash key, size_t *len)
{
    tg_remote_cache *rc = ud;
    tg_cache_record rec;
    tg_err err = {0}; /* a miss either way: generation goes on with the provider */
    if (cache_get(rc, "llm", key, &rec, &err) != TG_CACHE_HIT)
        return NULL;
    char *entry = NULL;
    if (rec.nfiles == 1 && !strcmp(rec.files[0].path, ANSWER_FILE)) {
        entry = rec.files[0].data;
        *len = rec.files[0].len;
        rec.files[0].data = NULL;
    }
    tg_cache_record_free(&rec);
    return entry;
}

static void llm_put(void *ud, tg_hash key, const char *entry, size_t len)
{
    tg_cache_file f = {(char *)ANSWER_FILE, (char *)entry, len};
    tg_cache_record rec = {.files = &f, .nfiles = 1};
    tg_err err = {0};
    cache_put(ud, "llm", key, &rec, &err);
}

const tg_llm_remote *tg_remote_cache_llm(tg_remote_cache *rc)
{
    rc->llm = (tg_llm_remote){.get = llm_get, .put = llm_put, .ud = rc};
    return &rc->llm;
}
