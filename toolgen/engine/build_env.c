/*
 * build_env.c — the environment's facts (tg_build_env, build.h) as the engine keeps them: each
 * asked once per build, serialised, its value hashed for keys and discovered dependencies,
 * kept for the explanation ("python-package:pandas is now 2.0.3").
 */
#include "engine/build_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct env_fact {
    char *name; /* the map's key */
    char *value;
    tg_hash hash;
} env_fact;

void tgb_env_init(engine *e)
{
    pthread_mutex_init(&e->env_mu, NULL);
    e->env_memo = (tg_strmap)TG_STRMAP_INIT;
}

void tgb_env_free(engine *e)
{
    if (e->env_ctx && e->o->env && e->o->env->close)
        e->o->env->close(e->env_ctx);
    e->env_ctx = NULL;
    size_t i = 0;
    const char *k;
    void *v;
    while (tg_strmap_next(&e->env_memo, &i, &k, &v)) {
        env_fact *f = v;
        free(f->name);
        free(f->value);
        free(f);
    }
    tg_strmap_free(&e->env_memo);
    pthread_mutex_destroy(&e->env_mu);
}

/* Under env_mu: the fact, asked of the environment the first time. */
static env_fact *lookup(engine *e, const char *name)
{
    env_fact *f = tg_strmap_get(&e->env_memo, name);
    if (f)
        return f;
    const tg_build_env *env = e->o->env;
    if (env && !e->env_opened) {
        /* a build that holds the lock may keep the environment's cache under .toolgen/ */
        e->env_ctx = env->open ? env->open(e->repo, e->lockfd >= 0) : NULL;
        e->env_opened = true;
    }
    tg_buf v = TG_BUF_INIT;
    if (env && env->fact)
        env->fact(e->env_ctx, name, &v);
    else
        tg_buf_puts(&v, "unknown");
    f = xmalloc(sizeof *f);
    f->name = xstrdup(name);
    f->value = tg_buf_steal(&v);
    f->hash = tg_hash_bytes(f->value, strlen(f->value));
    tg_strmap_put(&e->env_memo, f->name, f);
    return f;
}

tg_hash tgb_env_hash(engine *e, const char *name)
{
    pthread_mutex_lock(&e->env_mu);
    tg_hash h = lookup(e, name)->hash;
    pthread_mutex_unlock(&e->env_mu);
    return h;
}

char *tgb_env_value(engine *e, const char *name)
{
    pthread_mutex_lock(&e->env_mu);
    char *v = xstrdup(lookup(e, name)->value);
    pthread_mutex_unlock(&e->env_mu);
    return v;
}
