/*
 * openapi_hints.c — toolgen.hints.yaml for `toolgen init --from-openapi` (openapi_int.h,
 * schemas/toolgen.hints.schema.json, docs/cli.md#hints): include / exclude rules by tag, path,
 * method and operation, renames and descriptions. The file is checked against its schema before
 * anything is drafted; entries that end up matching nothing are reported.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/openapi_int.h"
#include "base/buf.h"

void oa_hints_free(oa_hints *h)
{
    tg_doc_free(&h->doc);
    tg_strv_free(&h->used);
}

static js_schema *hints_schema(js_registry *reg, tg_doc *sd, tg_err *err)
{
    const char *data = tg_datadir();
    if (!data) {
        tg_err_set(err, "cannot find toolgen's data directory (schemas/); set TOOLGEN_DATADIR");
        return NULL;
    }
    char *path = tg_path_join(data, "schemas/toolgen.hints.schema.json");
    int rc = tg_doc_load(path, NULL, sd, err);
    free(path);
    return rc == 0 ? js_compile(reg, sd->root, &(js_options){0}, err) : NULL;
}

int oa_hints_load(oa_hints *h, const char *path, bool required, js_registry *reg, tg_err *err)
{
    memset(h, 0, sizeof *h);
    if (!path || (!required && !tg_is_file(path)))
        return 0;
    if (tg_doc_load(path, NULL, &h->doc, err) != 0)
        return -1;
    tg_doc sd = {0};
    js_schema *js = hints_schema(reg, &sd, err);
    js_errors errs = {0};
    int rc = js ? 0 : -1;
    if (js && !js_validate(js, h->doc.root, &errs) && errs.n) {
        const js_error *e = &errs.v[0];
        tg_pos pos = tg_doc_pointer_pos(&h->doc, e->instance_location);
        tg_err_setpos(err, h->doc.file, pos.line, pos.col, "%s: %s (schemas/toolgen.hints.schema.json: "
                                                            "%s; docs/cli.md#hints)",
                      e->instance_location[0] ? e->instance_location : "/", e->message,
                      e->keyword_location);
        rc = -1;
    }
    js_errors_free(&errs);
    js_schema_free(js);
    tg_doc_free(&sd);
    h->include = tg_json_get(h->doc.root, "include");
    h->exclude = tg_json_get(h->doc.root, "exclude");
    h->rename = tg_json_get(h->doc.root, "rename");
    h->descriptions = tg_json_get(h->doc.root, "descriptions");
    return rc;
}

/* "GET /pets/{petId}" */
static char *op_key(const oa_op *op)
{
    tg_buf b = TG_BUF_INIT;
    for (const char *m = op->method; *m; m++)
        tg_buf_putc(&b, (char)(*m >= 'a' && *m <= 'z' ? *m - 32 : *m));
    tg_buf_printf(&b, " %s", op->path);
    return tg_buf_steal(&b);
}

static bool names_op(const oa_op *op, const char *s)
{
    const char *id = tg_json_get_string(op->op, "operationId");
    if (id && strcmp(id, s) == 0)
        return true;
    char *key = op_key(op);
    /* the method in any case, the path exactly */
    size_t mn = strcspn(key, " ");
    bool same = strncasecmp(key, s, mn) == 0 && strcmp(key + mn, s + strcspn(s, " ")) == 0 &&
                strcspn(s, " ") == mn;
    free(key);
    return same;
}

static bool rule_matches(const cJSON *rule, const oa_op *op)
{
    const char *tag = tg_json_get_string(rule, "tag"), *path = tg_json_get_string(rule, "path");
    const char *opn = tg_json_get_string(rule, "operation"), *m = tg_json_get_string(rule, "method");
    if (tag && !tg_json_array_has_string(tg_json_get(op->op, "tags"), tag))
        return false;
    if (path && fnmatch(path, op->path, 0) != 0)
        return false;
    if (m && strcasecmp(m, op->method) != 0)
        return false;
    return !opn || names_op(op, opn);
}

/* The index of the first rule of list that matches op (marked used), or -1. */
static int first_match(oa_hints *h, const cJSON *list, const char *what, const oa_op *op)
{
    int i = 0;
    const cJSON *rule;
    cJSON_ArrayForEach(rule, list)
    {
        if (rule_matches(rule, op)) {
            char *k = xasprintf("%s/%d", what, i);
            if (!h->used.n || !tg_strlist_has((const char *const *)h->used.v, k))
                tg_strv_push(&h->used, k);
            free(k);
            return i;
        }
        i++;
    }
    return -1;
}

int oa_hints_select(oa_hints *h, const oa_op *op, const char **why)
{
    if (!h->doc.root)
        return 0;
    bool included = h->include && first_match(h, h->include, "include", op) >= 0;
    if (h->include && !included) {
        *why = "not included by the hints file";
        return -1;
    }
    if (first_match(h, h->exclude, "exclude", op) >= 0) {
        *why = "excluded by the hints file";
        return -1;
    }
    return included ? 1 : 0;
}

const char *oa_hints_lookup(oa_hints *h, const oa_op *op, const char *map)
{
    const cJSON *m = tg_json_get(h->doc.root, map), *e;
    cJSON_ArrayForEach(e, m)
    {
        if (cJSON_IsString(e) && names_op(op, e->string)) {
            char *k = xasprintf("%s/%s", map, e->string);
            if (!h->used.n || !tg_strlist_has((const char *const *)h->used.v, k))
                tg_strv_push(&h->used, k);
            free(k);
            return e->valuestring;
        }
    }
    return NULL;
}

void oa_hints_unused(const oa_hints *h, tg_strv *warnings)
{
    static const char *const lists[] = {"include", "exclude", NULL};
    for (size_t l = 0; lists[l]; l++) {
        int i = 0;
        const cJSON *rule;
        cJSON_ArrayForEach(rule, tg_json_get(h->doc.root, lists[l]))
        {
            char *k = xasprintf("%s/%d", lists[l], i);
            if (!h->used.n || !tg_strlist_has((const char *const *)h->used.v, k)) {
                char *t = tg_json_print_compact(rule);
                tg_strv_pushf(warnings, "%s: %s rule %s matches no operation", h->doc.file,
                              lists[l], t);
                free(t);
            }
            free(k);
            i++;
        }
    }
    static const char *const maps[] = {"rename", "descriptions", NULL};
    for (size_t l = 0; maps[l]; l++) {
        const cJSON *e;
        cJSON_ArrayForEach(e, tg_json_get(h->doc.root, maps[l]))
        {
            char *k = xasprintf("%s/%s", maps[l], e->string);
            if (!h->used.n || !tg_strlist_has((const char *const *)h->used.v, k))
                tg_strv_pushf(warnings, "%s: %s entry '%s' matches no drafted operation",
                              h->doc.file, maps[l], e->string);
            free(k);
        }
    }
}
