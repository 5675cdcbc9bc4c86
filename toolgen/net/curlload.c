/* curlload.c — libcurl loaded on first use (curlload.h). */
#define TG_CURLLOAD_IMPL
#include "net/curlload.h"

#include "base/dlib.h"

#include <pthread.h>
#include <stdio.h>

const tg_curl_fns *tg_curl_fn;

static tg_curl_fns fns;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SONAME "libcurl.so.4"

static void load(void)
{
    const tg_dl_sym syms[] = {
        {"curl_global_init", &fns.global_init}, {"curl_easy_init", &fns.easy_init},
        {"curl_easy_cleanup", &fns.easy_cleanup}, {"curl_easy_reset", &fns.easy_reset},
        {"curl_easy_setopt", &fns.easy_setopt}, {"curl_easy_getinfo", &fns.easy_getinfo},
        {"curl_easy_perform", &fns.easy_perform}, {"curl_easy_strerror", &fns.easy_strerror},
        {"curl_slist_append", &fns.slist_append}, {"curl_slist_free_all", &fns.slist_free_all},
        {"curl_share_init", &fns.share_init}, {"curl_share_setopt", &fns.share_setopt},
        {"curl_share_cleanup", &fns.share_cleanup}, {"curl_getdate", &fns.getdate},
        {"curl_url", &fns.url}, {"curl_url_set", &fns.url_set}, {"curl_url_get", &fns.url_get},
        {"curl_url_cleanup", &fns.url_cleanup}, {"curl_free", &fns.free},
    };
    /* never unloaded: its handles live in threads until they end */
    if (tg_dl_load(SONAME, syms, sizeof syms / sizeof *syms, why, sizeof why) != 0)
        return;
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
