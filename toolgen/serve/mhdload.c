/* mhdload.c — libmicrohttpd loaded when `serve --http` starts (mhdload.h). */
#define _GNU_SOURCE
#define TG_MHDLOAD_IMPL
#include "serve/mhdload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const tg_mhd_fns *tg_mhd_fn;

static tg_mhd_fns fns;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SONAME "libmicrohttpd.so.12"
#define FN(field, name) {offsetof(tg_mhd_fns, field), name}
static const struct {
    size_t at;
    const char *name;
} symbols[] = {
    FN(start_daemon, "MHD_start_daemon"), FN(stop_daemon, "MHD_stop_daemon"),
    FN(quiesce_daemon, "MHD_quiesce_daemon"), FN(get_daemon_info, "MHD_get_daemon_info"),
    FN(add_response_header, "MHD_add_response_header"), FN(queue_response, "MHD_queue_response"),
    FN(destroy_response, "MHD_destroy_response"),
    FN(create_response_from_buffer, "MHD_create_response_from_buffer"),
    FN(create_response_from_callback, "MHD_create_response_from_callback"),
    FN(suspend_connection, "MHD_suspend_connection"),
    FN(resume_connection, "MHD_resume_connection"),
    FN(set_connection_option, "MHD_set_connection_option"),
    FN(lookup_connection_value, "MHD_lookup_connection_value"),
    FN(get_connection_values, "MHD_get_connection_values"),
};

static void load(void)
{
    void *lib = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL); /* never unloaded */
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : SONAME);
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++) {
        void *f = dlsym(lib, symbols[i].name);
        if (!f) {
            snprintf(why, sizeof why, SONAME " has no %s", symbols[i].name);
            return;
        }
        memcpy((char *)&fns + symbols[i].at, &f, sizeof f); /* POSIX: a function's address */
    }
    tg_mhd_fn = &fns;
}

const tg_mhd_fns *tg_mhd_load(tg_err *err)
{
    pthread_once(&once, load);
    if (!tg_mhd_fn)
        tg_err_set(err, "cannot load libmicrohttpd (%s): install Debian's libmicrohttpd12 to "
                        "serve over HTTP", why);
    return tg_mhd_fn;
}
