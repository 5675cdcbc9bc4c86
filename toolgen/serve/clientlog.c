/* clientlog.c — log levels and notifications/message (clientlog.h). */
#include "serve/clientlog.h"

#include <stdbool.h>
#include <string.h>

static const char *const levels[] = {"debug", "info",     "notice", "warning",
                                     "error", "critical", "alert",  "emergency"};

int tg_serve_log_level(const char *name)
{
    for (int i = 0; name && i < (int)(sizeof levels / sizeof *levels); i++)
        if (strcmp(name, levels[i]) == 0)
            return i;
    return -1;
}

const char *tg_serve_log_level_name(int level)
{
    return level >= 0 && level < (int)(sizeof levels / sizeof *levels) ? levels[level] : NULL;
}

cJSON *tg_serve_log_message(int level, const char *logger, const cJSON *data)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", "notifications/message");
    cJSON *p = cJSON_AddObjectToObject(n, "params");
    cJSON_AddStringToObject(p, "level", tg_serve_log_level_name(level));
    if (logger)
        cJSON_AddStringToObject(p, "logger", logger);
    cJSON_AddItemToObject(p, "data", data ? cJSON_Duplicate(data, true) : cJSON_CreateNull());
    return n;
}
