/* llm_extract.c — code blocks out of a model's answer (llm.h, tg_llm_code_block). */
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"

/* The block whose fence starts at p (just past "```"): info string, then the body up to a
 * closing fence at the start of a line. NULL when the block is not closed (a truncated
 * answer never yields code). */
static char *block_body(const char *p, const char **info, size_t *info_len)
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
        if (q == body || q[-1] == '\n')
            return xstrndup(body, (size_t)(q - body));
    }
    return NULL;
}

static bool info_is(const char *info, size_t n, const char *lang)
{
    if (strlen(lang) == n && strncmp(info, lang, n) == 0)
        return true;
    /* common synonyms */
    if (strcmp(lang, "python") == 0)
        return (n == 2 && strncmp(info, "py", 2) == 0) || (n == 7 && !strncmp(info, "python3", 7));
    if (strcmp(lang, "yaml") == 0)
        return n == 3 && strncmp(info, "yml", 3) == 0;
    if (strcmp(lang, "javascript") == 0)
        return n == 2 && strncmp(info, "js", 2) == 0;
    return false;
}

char *tg_llm_code_block(const char *text, const char *lang)
{
    char *untagged = NULL;
    const char *p = text;
    while ((p = strstr(p, "```")) != NULL) {
        if (p != text && p[-1] != '\n') {
            p += 3;
            continue;
        }
        const char *info;
        size_t n;
        char *body = block_body(p + 3, &info, &n);
        if (!body)
            break;
        if (info_is(info, n, lang)) {
            free(untagged);
            return body;
        }
        if (n == 0 && !untagged)
            untagged = body;
        else
            free(body);
        /* skip past this block's closing fence */
        const char *eol = strchr(p + 3, '\n');
        const char *close = eol ? strstr(eol + 1, "```") : NULL;
        while (close && close[-1] != '\n')
            close = strstr(close + 3, "```");
        if (!close)
            break;
        p = close + 3;
    }
    return untagged;
}
