/* mdcode.c — fenced code blocks out of Markdown text (mdcode.h). */
#include "base/mdcode.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The block whose fence starts at p (just past "```"): info string, then the body up to a
 * closing fence at the start of a line. NULL when the block is not closed (a truncated
 * answer never yields code). */
static char *block_body(const char *p, const char **info, size_t *info_len, const char **end)
{
    const char *eol = strchr(p, '\n');
    if (!eol)
        return NULL;
    *info = p;
    *info_len = (size_t)(eol - p);
    while (*info_len && ((*info)[*info_len - 1] == '\r' || (*info)[*info_len - 1] == ' '))
        (*info_len)--;
    const char *body = eol + 1;
    for (const char *q = body; (q = strstr(q, "```")) != NULL; q += 3) {
        if (q == body || q[-1] == '\n') {
            *end = q + 3;
            return xstrndup(body, (size_t)(q - body));
        }
    }
    return NULL;
}

static bool info_is(const char *info, size_t n, const char *lang)
{
    /* the names models write for a language besides its own (case-insensitive) */
    static const char *const synonyms[][5] = {
        {"python", "py", "python3", NULL},      {"yaml", "yml", NULL},
        {"javascript", "js", "node", "mjs", NULL}, {"typescript", "ts", NULL},
        {"cpp", "c++", "cxx", "cc", NULL},      {"shell", "sh", "bash", "console", NULL},
        {"bash", "sh", "shell", NULL}};
    if (strlen(lang) == n && strncasecmp(info, lang, n) == 0)
        return true;
    for (size_t i = 0; i < sizeof synonyms / sizeof *synonyms; i++) {
        if (strcmp(synonyms[i][0], lang) != 0)
            continue;
        for (size_t j = 1; synonyms[i][j]; j++)
            if (strlen(synonyms[i][j]) == n && strncasecmp(info, synonyms[i][j], n) == 0)
                return true;
    }
    return false;
}

char *tg_md_code_block(const char *text, const char *lang, size_t *start, size_t *end)
{
    char *untagged = NULL;
    size_t ustart = 0, uend = 0;
    const char *p = text;
    while ((p = strstr(p, "```")) != NULL) {
        if (p != text && p[-1] != '\n') {
            p += 3;
            continue;
        }
        const char *info, *close_end = NULL;
        size_t n;
        char *body = block_body(p + 3, &info, &n, &close_end);
        if (!body)
            break;
        if (info_is(info, n, lang)) {
            free(untagged);
            if (start)
                *start = (size_t)(p - text), *end = (size_t)(close_end - text);
            return body;
        }
        if (n == 0 && !untagged) {
            untagged = body;
            ustart = (size_t)(p - text);
            uend = (size_t)(close_end - text);
        } else {
            free(body);
        }
        /* skip past this block's closing fence */
        const char *eol = strchr(p + 3, '\n');
        const char *close = eol ? strstr(eol + 1, "```") : NULL;
        while (close && close[-1] != '\n')
            close = strstr(close + 3, "```");
        if (!close)
            break;
        p = close + 3;
    }
    if (untagged && start)
        *start = ustart, *end = uend;
    return untagged;
}
