/* curlload.c — libcurl loaded on first use (curlload.h). */
#define _GNU_SOURCE
#define TG_CURLLOAD_IMPL
#include "net/curlload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const tg_curl_fns *tg_curl_fn;

static tg_curl_fns fns;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SONAME "libcurl.so.4"
#define FN(field, name) {offsetof(tg_curl_fns, field), name}
static const struct {
    size_t at;
    const char *name;
} symbols[] = {
    FN(global_init, "curl_global_init"), FN(easy_init, "curl_easy_init"),
    FN(easy_cleanup, "curl_easy_cleanup"), FN(easy_reset, "curl_easy_reset"),
    FN(easy_setopt, "curl_easy_setopt"), FN(easy_getinfo, "curl_easy_getinfo"),
    FN(easy_perform, "curl_easy_perform"), FN(easy_strerror, "curl_easy_strerror"),
    FN(slist_append, "curl_slist_append"), FN(slist_free_all, "curl_slist_free_all"),
    FN(share_init, "curl_share_init"), FN(share_setopt, "curl_share_setopt"),
    FN(share_cleanup, "curl_share_cleanup"), FN(getdate, "curl_getdate"),
    FN(url, "curl_url"), FN(url_set, "curl_url_set"), FN(url_get, "curl_url_get"),
    FN(url_cleanup, "curl_url_cleanup"), FN(free, "curl_free"),
};

static void load(void)
{
    /* never unloaded: its handles live in threads until they end */
    void *lib = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : SONAME);
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++) {
        void *f = dlsym(lib, symbols[i].name);
        if (!f) {
            snprintf(why, sizeof why, SONAME " has no %s (libcurl 7.62 or later is needed)",
                     symbols[i].name);
            return;
        }
        memcpy((char *)&fns + symbols[i].at, &f, sizeof f); /* POSIX: a function's address */
    }
    if (fns.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(why, sizeof why, "curl_global_init failed");
        return;
    }
    tg_curl_fn = &fns;
}

const tg_curl_fns *tg_curl_load(tg_err *err)
{
    pthread_once(&once, load);
    if (!tg_curl_fn && err)
        tg_err_set(err, "cannot load libcurl (%s): install Debian's libcurl4 to send requests",
                   why);
    return tg_curl_fn;
}
