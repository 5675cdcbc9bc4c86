/* notify.c — list_changed notifications and subscriptions/listen (notify.h). */
#include "serve/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define META_SUB "io.modelcontextprotocol/subscriptionId"

typedef struct sub {
    cJSON *id;     /* the listen request's id */
    unsigned what; /* TG_CHANGED_* it asked for and we honour */
    cJSON *uris;   /* its resourceSubscriptions we honour, an array; NULL: none */
} sub;

struct tg_serve_subs {
    sub v[TG_SERVE_MAX_SUBS];
    size_t n;
};

static const struct {
    unsigned bit;
    const char *filter, *method;
} lists[] = {
    {TG_CHANGED_TOOLS, "toolsListChanged", "notifications/tools/list_changed"},
    {TG_CHANGED_PROMPTS, "promptsListChanged", "notifications/prompts/list_changed"},
    {TG_CHANGED_RESOURCES, "resourcesListChanged", "notifications/resources/list_changed"},
};
#define N_LISTS (sizeof lists / sizeof *lists)

static cJSON *notification(const char *method, const cJSON *sub_id)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", method);
    cJSON *p = cJSON_AddObjectToObject(n, "params");
    if (sub_id)
        cJSON_AddItemToObject(cJSON_AddObjectToObject(p, "_meta"), META_SUB,
                              cJSON_Duplicate(sub_id, true));
    return n;
}

cJSON *tg_serve_listen(tg_serve_subs **subs, const cJSON *id, const cJSON *params,
                       unsigned offered, const cJSON *watched, char *msg, size_t msg_size)
{
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(params, "notifications");
    if (!cJSON_IsObject(filter)) {
        snprintf(msg, msg_size, "subscriptions/listen: params.notifications (an object, e.g. "
                                "{\"toolsListChanged\": true}) is required");
        return NULL;
    }
    if (!*subs)
        *subs = xcalloc(1, sizeof **subs);
    tg_serve_subs *s = *subs;
    for (size_t i = 0; i < s->n; i++)
        if (cJSON_Compare(s->v[i].id, id, true)) {
            snprintf(msg, msg_size, "subscriptions/listen: a subscription with this id is open");
            return NULL;
        }
    if (s->n == TG_SERVE_MAX_SUBS) {
        snprintf(msg, msg_size, "subscriptions/listen: at most %d subscriptions per connection; "
                                "cancel one first", TG_SERVE_MAX_SUBS);
        return NULL;
    }
    unsigned what = 0;
    cJSON *ack = notification("notifications/subscriptions/acknowledged", id);
    cJSON *honoured = cJSON_AddObjectToObject(cJSON_GetObjectItem(ack, "params"), "notifications");
    for (size_t i = 0; i < N_LISTS; i++)
        if ((offered & lists[i].bit) &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(filter, lists[i].filter))) {
            what |= lists[i].bit;
            cJSON_AddBoolToObject(honoured, lists[i].filter, true);
        }
    cJSON *uris = NULL;
    if (cJSON_GetArraySize(watched) > 0) { /* the ones the caller watches (declared resources) */
        uris = cJSON_Duplicate(watched, true);
        cJSON_AddItemToObject(honoured, "resourceSubscriptions", cJSON_Duplicate(uris, true));
    }
    s->v[s->n++] = (sub){.id = cJSON_Duplicate(id, true), .what = what, .uris = uris};
    return ack;
}

bool tg_serve_unlisten(tg_serve_subs *subs, const cJSON *id)
{
    for (size_t i = 0; subs && id && i < subs->n; i++)
        if (cJSON_Compare(subs->v[i].id, id, true)) {
            cJSON_Delete(subs->v[i].id);
            cJSON_Delete(subs->v[i].uris);
            subs->v[i] = subs->v[--subs->n];
            return true;
        }
    return false;
}

size_t tg_serve_subs_count(const tg_serve_subs *subs)
{
    return subs ? subs->n : 0;
}

void tg_serve_subs_free(tg_serve_subs *subs)
{
    for (size_t i = 0; subs && i < subs->n; i++) {
        cJSON_Delete(subs->v[i].id);
        cJSON_Delete(subs->v[i].uris);
    }
    free(subs);
}

cJSON *tg_serve_changed(const tg_serve_subs *subs, bool legacy_initialized, unsigned what)
{
    cJSON *out = cJSON_CreateArray();
    for (size_t l = 0; l < N_LISTS; l++) {
        if (!(what & lists[l].bit))
            continue;
        if (legacy_initialized)
            cJSON_AddItemToArray(out, notification(lists[l].method, NULL));
        for (size_t i = 0; subs && i < subs->n; i++)
            if (subs->v[i].what & lists[l].bit)
                cJSON_AddItemToArray(out, notification(lists[l].method, subs->v[i].id));
    }
    return out;
}

static bool lists_uri(const cJSON *uris, const char *uri)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, uris)
        if (cJSON_IsString(u) && strcmp(u->valuestring, uri) == 0)
            return true;
    return false;
}

/* notifications/resources/updated for uri, tagged with sub_id when it goes to a subscription. */
static cJSON *updated(const char *uri, const cJSON *sub_id)
{
    cJSON *n = notification("notifications/resources/updated", sub_id);
    cJSON_AddStringToObject(cJSON_GetObjectItem(n, "params"), "uri", uri);
    return n;
}

cJSON *tg_serve_updated(const tg_serve_subs *subs, const cJSON *legacy_uris,
                        const cJSON *changed)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *c;
    cJSON_ArrayForEach(c, changed) {
        if (!cJSON_IsString(c))
            continue;
        if (lists_uri(legacy_uris, c->valuestring))
            cJSON_AddItemToArray(out, updated(c->valuestring, NULL));
        for (size_t i = 0; subs && i < subs->n; i++)
            if (lists_uri(subs->v[i].uris, c->valuestring))
                cJSON_AddItemToArray(out, updated(c->valuestring, subs->v[i].id));
    }
    return out;
}
