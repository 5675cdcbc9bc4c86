/* mhdload.c — libmicrohttpd loaded when `serve --http` starts (mhdload.h). */
#define TG_MHDLOAD_IMPL
#include "serve/mhdload.h"

#include "base/dlib.h"

#include <pthread.h>

const tg_mhd_fns *tg_mhd_fn;

static tg_mhd_fns fns;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const tg_dl_sym syms[] = {
        {"MHD_start_daemon", &fns.start_daemon}, {"MHD_stop_daemon", &fns.stop_daemon},
        {"MHD_quiesce_daemon", &fns.quiesce_daemon}, {"MHD_get_daemon_info", &fns.get_daemon_info},
        {"MHD_add_response_header", &fns.add_response_header},
        {"MHD_queue_response", &fns.queue_response},
        {"MHD_destroy_response", &fns.destroy_response},
        {"MHD_create_response_from_buffer", &fns.create_response_from_buffer},
        {"MHD_create_response_from_callback", &fns.create_response_from_callback},
        {"MHD_suspend_connection", &fns.suspend_connection},
        {"MHD_resume_connection", &fns.resume_connection},
        {"MHD_set_connection_option", &fns.set_connection_option},
        {"MHD_lookup_connection_value", &fns.lookup_connection_value},
        {"MHD_get_connection_values", &fns.get_connection_values},
    };
    if (tg_dl_load("libmicrohttpd.so.12", syms, sizeof syms / sizeof *syms, why, sizeof why) == 0)
        tg_mhd_fn = &fns; /* never unloaded */
}

const tg_mhd_fns *tg_mhd_load(tg_err *err)
{
    pthread_once(&once, load);
    if (!tg_mhd_fn)
        tg_err_set(err, "cannot load libmicrohttpd (%s): install Debian's libmicrohttpd12 to "
                        "serve over HTTP", why);
    return tg_mhd_fn;
}
