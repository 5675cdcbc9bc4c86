/*
 * builtin_ask.c — the questions the built-in generator asks instead of guessing
 * (docs/generate.md#questions): a word that may name several columns, a request that says
 * what to group and measure but not how to aggregate, a period of a file with several date
 * columns. The user's answer ("ABOUT=OPTION", `toolgen new --assume`) settles it; until then
 * the first option stands in, so that the rest of the request is still checked.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/builtin.h"
#include "gen/builtin_int.h"

/* Whether a and b are the same words, ignoring case and runs of spaces. */
static bool same_words(const char *a, const char *b)
{
    while (*a && *b) {
        if (isspace((unsigned char)*a) && isspace((unsigned char)*b)) {
            while (isspace((unsigned char)*a))
                a++;
            while (isspace((unsigned char)*b))
                b++;
            continue;
        }
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
        a++, b++;
    }
    while (isspace((unsigned char)*a))
        a++;
    while (isspace((unsigned char)*b))
        b++;
    return !*a && !*b;
}

const char *bt_assumed(const bt_ctx *x, const char *about)
{
    for (size_t i = 0; x && i < x->nassume; i++) {
        const char *eq = strchr(x->assume[i], '=');
        if (!eq)
            continue;
        char *key = xstrndup(x->assume[i], (size_t)(eq - x->assume[i]));
        bool hit = same_words(key, about);
        free(key);
        if (hit)
            return eq + 1;
    }
    return NULL;
}

const char *bt_question(bt_ctx *x, const char *about, const char *const *options, size_t n,
                        const char *fmt, ...)
{
    const char *answer = bt_assumed(x, about);
    if (answer) {
        for (size_t i = 0; i < n; i++)
            if (strcasecmp(options[i], answer) == 0)
                return options[i];
        return NULL;
    }
    if (x->q && !x->q->text && n) {
        va_list ap;
        va_start(ap, fmt);
        x->q->text = xvasprintf(fmt, ap);
        va_end(ap);
        x->q->about = xstrdup(about);
        x->q->options = xcalloc(n, sizeof *x->q->options);
        for (size_t i = 0; i < n; i++)
            x->q->options[i] = xstrdup(options[i]);
        x->q->noptions = n;
    }
    return n ? options[0] : NULL;
}

void tg_builtin_question_release(tg_builtin_question *q)
{
    free(q->about);
    free(q->text);
    for (size_t i = 0; i < q->noptions; i++)
        free(q->options[i]);
    free(q->options);
    memset(q, 0, sizeof *q);
}
