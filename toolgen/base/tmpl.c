/* tmpl.c — the prompt template format (tmpl.h). */
#include "base/tmpl.h"

#include <string.h>

#include "base/buf.h"

#define SEPARATOR "\n=== user ===\n"

int tg_tmpl_split(const char *text, const char *path, char **system, char **user, tg_err *err)
{
    const char *sep = strstr(text, SEPARATOR);
    if (!sep) {
        tg_err_setpos(err, path, 1, 1, "a prompt template needs a line '=== user ===' between "
                                       "the system message and the user message");
        return -1;
    }
    *system = xstrndup(text, (size_t)(sep - text));
    *user = xstrdup(sep + strlen(SEPARATOR));
    return 0;
}

static const char *lookup(const char *const *vars, const char *key, size_t n)
{
    for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2)
        if (strlen(vars[i]) == n && strncmp(vars[i], key, n) == 0)
            return vars[i + 1];
    return NULL;
}

char *tg_tmpl_render(const char *path, const char *tmpl, const char *const *vars, tg_err *err)
{
    tg_buf b = TG_BUF_INIT;
    const char *s = tmpl;
    const char *open;
    while ((open = strstr(s, "{{")) != NULL) {
        const char *close = strstr(open + 2, "}}");
        if (!close)
            break;
        tg_buf_append(&b, s, (size_t)(open - s));
        const char *key = open + 2;
        size_t n = (size_t)(close - key);
        const char *val = lookup(vars, key, n);
        if (!val) {
            tg_err_set(err, "%s: placeholder {{%.*s}} has no value; the placeholders a template "
                            "may use are listed in docs/generate.md#prompts",
                       path, (int)(n > 64 ? 64 : n), key);
            tg_buf_free(&b);
            return NULL;
        }
        tg_buf_puts(&b, val);
        s = close + 2;
    }
    tg_buf_puts(&b, s);
    return tg_buf_steal(&b);
}
