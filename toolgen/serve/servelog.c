/* servelog.c — one JSON log line per message (servelog.h). */
#include "serve/servelog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/json.h"

int tg_serve_write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

void tg_serve_log_line(int fd, const tg_serve_log *lg, const char *status, double ms)
{
    if (fd < 0)
        return;
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "time", stamp);
    cJSON_AddItemToObject(o, "id", lg->id ? cJSON_Duplicate(lg->id, true) : cJSON_CreateNull());
    if (lg->method[0])
        cJSON_AddStringToObject(o, "method", lg->method);
    if (lg->tool[0])
        cJSON_AddStringToObject(o, "tool", lg->tool);
    if (lg->era != TG_ERA_NONE)
        cJSON_AddStringToObject(o, "era", tg_serve_era_name(lg->era));
    cJSON_AddNumberToObject(o, "duration_ms", (double)(long long)(ms * 1000) / 1000);
    if (!status)
        status = lg->notification ? "notification"
                 : lg->rpc_error  ? "error"
                 : lg->tool_error ? "tool_error"
                                  : "ok";
    cJSON_AddStringToObject(o, "status", status);
    if (lg->rpc_error)
        cJSON_AddNumberToObject(o, "error_code", lg->rpc_error);
    else if (lg->tool_error)
        cJSON_AddStringToObject(o, "error_code", lg->tool_error);
    char *s = tg_json_print_compact(o);
    size_t n = strlen(s);
    s[n] = '\n'; /* replaces the NUL: written as n + 1 bytes */
    (void)tg_serve_write_all(fd, s, n + 1);
    free(s);
    cJSON_Delete(o);
}

void tg_serve_log_unstarted(tg_serve_log *lg, const cJSON *msg)
{
    lg->id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    snprintf(lg->method, sizeof lg->method, "tools/call");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(msg, "params"), "name");
    if (cJSON_IsString(name))
        snprintf(lg->tool, sizeof lg->tool, "%s", name->valuestring);
}
