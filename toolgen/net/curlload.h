/*
 * curlload.h — libcurl, loaded when the first request or URL needs it (dlopen of libcurl.so.4)
 * instead of by every start of toolgen: the dynamic loader's work for libcurl and the libraries
 * it brings (TLS, Kerberos, LDAP, IDN, ...) was most of a short command's CPU time, `toolgen
 * diff` or `lint` included (docs/benchmarks.md#toolgen-diff-vs-git-diff---stat-benchdiffsh).
 *
 * Include it instead of <curl/curl.h>: after tg_curl_load succeeded, the curl_* functions the
 * net layer calls are the loaded library's (macros below). Every entry point of the net layer
 * calls tg_curl_load first; a machine without libcurl then gets an error naming the package
 * only when something is to be sent. Thread-safe: the library is loaded, and
 * curl_global_init run, once.
 */
#ifndef TG_NET_CURLLOAD_H
#define TG_NET_CURLLOAD_H

#define CURL_DISABLE_TYPECHECK /* curl.h's checking macros would hide the redirections below */
#include <curl/curl.h>

#include "base/util.h"

typedef struct tg_curl_fns {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_reset) *easy_reset;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
    __typeof__(curl_share_init) *share_init;
    __typeof__(curl_share_setopt) *share_setopt;
    __typeof__(curl_share_cleanup) *share_cleanup;
    __typeof__(curl_getdate) *getdate;
    __typeof__(curl_url) *url;
    __typeof__(curl_url_set) *url_set;
    __typeof__(curl_url_get) *url_get;
    __typeof__(curl_url_cleanup) *url_cleanup;
    __typeof__(curl_free) *free;
} tg_curl_fns;

/* The loaded functions; NULL until tg_curl_load succeeded. */
extern const tg_curl_fns *tg_curl_fn;

/* Loads libcurl (once) and runs curl_global_init: its functions, or NULL with err (may be
 * NULL) naming what is missing. */
const tg_curl_fns *tg_curl_load(tg_err *err);

#ifndef TG_CURLLOAD_IMPL
/* curl.h defines these three as themselves, to count their arguments */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_share_setopt
#define curl_easy_init (tg_curl_fn->easy_init)
#define curl_easy_cleanup (tg_curl_fn->easy_cleanup)
#define curl_easy_reset (tg_curl_fn->easy_reset)
#define curl_easy_setopt (tg_curl_fn->easy_setopt)
#define curl_easy_getinfo (tg_curl_fn->easy_getinfo)
#define curl_easy_perform (tg_curl_fn->easy_perform)
#define curl_easy_strerror (tg_curl_fn->easy_strerror)
#define curl_slist_append (tg_curl_fn->slist_append)
#define curl_slist_free_all (tg_curl_fn->slist_free_all)
#define curl_share_init (tg_curl_fn->share_init)
#define curl_share_setopt (tg_curl_fn->share_setopt)
#define curl_share_cleanup (tg_curl_fn->share_cleanup)
#define curl_getdate (tg_curl_fn->getdate)
#define curl_url (tg_curl_fn->url)
#define curl_url_set (tg_curl_fn->url_set)
#define curl_url_get (tg_curl_fn->url_get)
#define curl_url_cleanup (tg_curl_fn->url_cleanup)
#define curl_free (tg_curl_fn->free)
#endif

#endif
