/* yamlout.c — JSON values as block-style YAML (yamlout.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/yamlout.h"

/* Words the YAML 1.1 or 1.2 core schema would read as another type: always quoted. */
static const char *const reserved[] = {"true", "false", "null", "yes", "no", "on", "off",
                                       "y", "n", NULL};

static bool plain_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 200 || !isalpha((unsigned char)s[0]) || s[n - 1] == ' ')
        return false;
    for (size_t i = 0; reserved[i]; i++)
        if (strcasecmp(s, reserved[i]) == 0)
            return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && !strchr(" _.,/()-", c))
            return false;
        if (c == ' ' && s[i + 1] == ' ')
            return false;
    }
    return true;
}

static void put_string(tg_buf *b, const char *s)
{
    if (plain_ok(s))
        tg_buf_puts(b, s);
    else
        tg_buf_json_string(b, s);
}

static void put_scalar(tg_buf *b, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        put_string(b, v->valuestring);
    } else {
        char *t = tg_json_print_compact(v); /* numbers, booleans, null, flow containers */
        tg_buf_puts(b, t);
        free(t);
    }
}

static void indent_to(tg_buf *b, int indent)
{
    for (int i = 0; i < indent; i++)
        tg_buf_putc(b, ' ');
}

/* The items of a non-empty array, each "- " at indent. */
static void write_items(tg_buf *b, const cJSON *arr, int indent)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        indent_to(b, indent);
        tg_buf_puts(b, "- ");
        if (cJSON_IsObject(e) && e->child) {
            /* the first member on the dash's line, the others under it */
            tg_buf b2 = TG_BUF_INIT;
            tg_yaml_write(&b2, e, indent + 2);
            tg_buf_puts(b, b2.data + indent + 2);
            tg_buf_free(&b2);
        } else {
            put_scalar(b, e);
            tg_buf_putc(b, '\n');
        }
    }
}

static void write_value(tg_buf *b, const cJSON *v, int indent)
{
    if (cJSON_IsObject(v) && v->child) {
        tg_buf_putc(b, '\n');
        tg_yaml_write(b, v, indent + 2);
    } else if (cJSON_IsArray(v) && v->child) {
        tg_buf_putc(b, '\n');
        write_items(b, v, indent + 2);
    } else {
        tg_buf_putc(b, ' ');
        put_scalar(b, v);
        tg_buf_putc(b, '\n');
    }
}

void tg_yaml_write(tg_buf *b, const cJSON *obj, int indent)
{
    if (!cJSON_IsObject(obj) || !obj->child) {
        indent_to(b, indent);
        put_scalar(b, obj);
        tg_buf_putc(b, '\n');
        return;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, obj)
    {
        indent_to(b, indent);
        put_string(b, m->string);
        tg_buf_putc(b, ':');
        write_value(b, m, indent);
    }
}
