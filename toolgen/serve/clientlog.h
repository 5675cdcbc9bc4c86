/*
 * clientlog.h — log messages to the MCP client (docs/mcp.md#logging): the eight levels of
 * RFC 5424 as MCP names them, the lowest level a request wants, and the notifications/message
 * that carries one message.
 *
 * A legacy client sets its level for the session with logging/setLevel (info until it does);
 * a 2026-07-28 request names it in _meta["io.modelcontextprotocol/logLevel"], and without it
 * gets no log message at all, as that revision requires. Messages come from toolgen (logger
 * "toolgen": a call's start, end and failure) and from tool code (toolgen_helpers.log, logger
 * the tool's name unless the tool names one), and travel with the request they belong to.
 */
#ifndef TG_SERVE_CLIENTLOG_H
#define TG_SERVE_CLIENTLOG_H

#include <cjson/cJSON.h>

#define TG_LOG_DEBUG 0
#define TG_LOG_INFO 1
#define TG_LOG_WARNING 3
#define TG_LOG_OFF 8 /* a threshold above every level: nothing is sent */
#define TG_LOG_LEGACY_DEFAULT TG_LOG_INFO /* a legacy session before logging/setLevel */
#define TG_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"

/* The level called name (0 debug … 7 emergency), or -1. */
int tg_serve_log_level(const char *name);
/* The name of level 0..7 ("debug" …); NULL for another number. */
const char *tg_serve_log_level_name(int level);

/* {"jsonrpc": "2.0", "method": "notifications/message", "params": {level, logger, data}};
 * logger NULL: none. New tree. */
cJSON *tg_serve_log_message(int level, const char *logger, const cJSON *data);

#endif
