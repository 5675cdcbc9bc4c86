/*
 * mhdload.h — libmicrohttpd, loaded when `serve --http` starts (dlopen of libmicrohttpd.so.12)
 * instead of by every start of toolgen: it brings GnuTLS and seven more libraries, whose loading
 * every other command paid for (docs/benchmarks.md#toolgen-diff-vs-git-diff---stat-benchdiffsh).
 *
 * Include it instead of <microhttpd.h>: after tg_mhd_load succeeded, the MHD_* functions serve
 * calls are the loaded library's (macros below). Thread-safe: loaded once.
 */
#ifndef TG_SERVE_MHDLOAD_H
#define TG_SERVE_MHDLOAD_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "base/util.h"

typedef struct tg_mhd_fns {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_quiesce_daemon) *quiesce_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_suspend_connection) *suspend_connection;
    __typeof__(MHD_resume_connection) *resume_connection;
    __typeof__(MHD_set_connection_option) *set_connection_option;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_get_connection_values) *get_connection_values;
} tg_mhd_fns;

/* The loaded functions; NULL until tg_mhd_load succeeded. */
extern const tg_mhd_fns *tg_mhd_fn;

/* Loads libmicrohttpd (once): its functions, or NULL with err naming what is missing. */
const tg_mhd_fns *tg_mhd_load(tg_err *err);

#ifndef TG_MHDLOAD_IMPL
#define MHD_start_daemon (tg_mhd_fn->start_daemon)
#define MHD_stop_daemon (tg_mhd_fn->stop_daemon)
#define MHD_quiesce_daemon (tg_mhd_fn->quiesce_daemon)
#define MHD_get_daemon_info (tg_mhd_fn->get_daemon_info)
#define MHD_add_response_header (tg_mhd_fn->add_response_header)
#define MHD_queue_response (tg_mhd_fn->queue_response)
#define MHD_destroy_response (tg_mhd_fn->destroy_response)
#define MHD_create_response_from_buffer (tg_mhd_fn->create_response_from_buffer)
#define MHD_create_response_from_callback (tg_mhd_fn->create_response_from_callback)
#define MHD_suspend_connection (tg_mhd_fn->suspend_connection)
#define MHD_resume_connection (tg_mhd_fn->resume_connection)
#define MHD_set_connection_option (tg_mhd_fn->set_connection_option)
#define MHD_lookup_connection_value (tg_mhd_fn->lookup_connection_value)
#define MHD_get_connection_values (tg_mhd_fn->get_connection_values)
#endif

#endif
