/*
 * fromcli_help.c — reading a program's --help text (fromcli_int.h, docs/cli.md#init-from-cli):
 * the usage line's positionals, the option lines ("-v, --verbose  text", "--jobs <n>  text",
 * "--[no-]progress", a description on the next line) and a "... commands" listing of
 * subcommands. The formats are GNU getopt's, git's parse-options and jq's / curl's own; what
 * does not look like one of them is left out rather than guessed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "app/fromcli_int.h"
#include "base/buf.h"
#include "base/util.h"

void fc_help_free(fc_help *h)
{
    for (size_t i = 0; i < h->nopts; i++) {
        free(h->opts[i].flag);
        free(h->opts[i].metavar);
        free(h->opts[i].desc);
    }
    for (size_t i = 0; i < h->npos; i++)
        free(h->pos[i].name);
    free(h->opts);
    free(h->pos);
    free(h->usage);
    free(h->summary);
    tg_strv_free(&h->subs);
    tg_strv_free(&h->sub_desc);
    tg_strv_free(&h->examples);
    memset(h, 0, sizeof *h);
}

static char *trimmed(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return xstrndup(s, n);
}

/* Where the spec of an option line ends: the first run of two spaces or a tab. */
static const char *spec_end(const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p == '\t' || (p[0] == ' ' && p[1] == ' '))
            return p;
    return s + strlen(s);
}

/* One item of a spec ("-o", "--[no-]origin <name>", "--jobs=<n>", "--recursive[=<x>]"). */
static void spec_item(const char *item, fc_opt *o)
{
    const char *p = item;
    while (*p && *p != ' ' && *p != '=' && *p != '[')
        p++;
    if (strncmp(item, "--[no-]", 7) == 0) { /* git: --[no-]progress is --progress */
        p = item + 7;
        while (*p && *p != ' ' && *p != '=' && *p != '[')
            p++;
    }
    char *flag = xstrndup(item, (size_t)(p - item));
    if (strncmp(flag, "--[no-]", 7) == 0)
        memmove(flag + 2, flag + 7, strlen(flag + 7) + 1);
    bool is_long = flag[1] == '-';
    if (!o->flag || (is_long && !o->is_long)) {
        free(o->flag);
        o->flag = flag;
        o->is_long = is_long;
    } else {
        free(flag);
    }
    if (*p == '[') /* an optional value: drafted as a switch */
        return;
    if (*p == '=' || *p == ' ')
        p++;
    char *mv = trimmed(p, strlen(p));
    char *gt = mv[0] == '<' ? strchr(mv, '>') : NULL;
    if (gt && gt[1] == ' ') { /* curl: "--user <user:password> Server user and password" */
        free(o->desc);
        o->desc = trimmed(gt + 2, strlen(gt + 2));
        gt[1] = '\0';
    }
    if (*mv && !o->metavar)
        o->metavar = mv;
    else
        free(mv);
}

/* An option line; next is the line after it (its description when the spec fills the line).
 * Returns true with o filled; false for "--" (sets *dashdash) and lines that are not options. */
static bool parse_opt(const char *line, const char *next, fc_opt *o, bool *dashdash)
{
    memset(o, 0, sizeof *o);
    const char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (s == line || s[0] != '-')
        return false;
    const char *end = spec_end(s);
    char *spec = xstrndup(s, (size_t)(end - s));
    if (strcmp(spec, "--") == 0) {
        /* listed, but not trusted: jq 1.6 lists "--" and refuses it; only a usage line's
         * "[--]" (parse_usage) counts */
        (void)dashdash;
        free(spec);
        return false;
    }
    for (char *item = spec; item && *item;) {
        char *comma = strstr(item, ", ");
        if (comma)
            *comma = '\0';
        char *t = trimmed(item, strlen(item));
        if (t[0] == '-' && t[1] && t[1] != ' ')
            spec_item(t, o);
        free(t);
        item = comma ? comma + 2 : NULL;
    }
    free(spec);
    if (!o->desc || *end) {
        free(o->desc);
        o->desc = trimmed(end, strlen(end));
    }
    if (!*o->desc && next && (next[0] == ' ' || next[0] == '\t')) {
        const char *n = next;
        while (*n == ' ' || *n == '\t')
            n++;
        if (*n && *n != '-') {
            free(o->desc);
            o->desc = trimmed(n, strlen(n));
        }
    }
    if (!o->flag || strlen(o->flag) < 2) {
        free(o->flag);
        free(o->metavar);
        free(o->desc);
        return false;
    }
    return true;
}

/* Splits a usage line into words, keeping "<jq filter>" and "[-v | --version]" whole. */
static void usage_words(const char *u, tg_strv *out)
{
    tg_buf w = TG_BUF_INIT;
    int depth = 0;
    for (const char *p = u;; p++) {
        if (!*p || (isspace((unsigned char)*p) && depth == 0)) {
            if (w.len)
                tg_strv_push(out, w.data);
            tg_buf_truncate(&w, 0);
            if (!*p)
                break;
            continue;
        }
        if (*p == '[' || *p == '<' || *p == '{')
            depth++;
        else if ((*p == ']' || *p == '>' || *p == '}') && depth > 0)
            depth--;
        tg_buf_putc(&w, *p);
    }
    tg_buf_free(&w);
}

/* snake_case of a positional's word: "<jq filter>" → jq_filter, "[FILES...]" → files. */
static char *pos_name(const char *word)
{
    tg_buf b = TG_BUF_INIT;
    for (const char *p = word; *p; p++) {
        if (isalnum((unsigned char)*p))
            tg_buf_putc(&b, (char)tolower((unsigned char)*p));
        else if (b.len && b.data[b.len - 1] != '_' && !strchr("<>[].", *p))
            tg_buf_putc(&b, '_');
    }
    while (b.len && b.data[b.len - 1] == '_')
        tg_buf_truncate(&b, b.len - 1);
    return tg_buf_steal(&b);
}

static void add_positional(fc_help *h, const char *word)
{
    bool opt = word[0] == '[';
    size_t n = strlen(word);
    char *inner = xstrndup(word + opt, n - opt - (opt && word[n - 1] == ']'));
    char *lower = xstrdup(inner);
    for (char *p = lower; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    bool skip = inner[0] == '-' || strstr(lower, "option") || strchr(inner, '|') ||
                strstr(lower, "command") || strcmp(lower, "<args>") == 0 || inner[0] == '[';
    char *name = skip ? NULL : pos_name(inner);
    if (name && *name && isalpha((unsigned char)name[0])) {
        h->pos = xrealloc(h->pos, (h->npos + 1) * sizeof *h->pos);
        h->pos[h->npos++] = (fc_pos){.name = name, .optional = opt, .many = strstr(inner, "...") != NULL};
        name = NULL;
    }
    free(name);
    free(lower);
    free(inner);
}

/* The positionals of the usage line u ("git clone [<options>] [--] <repo> [<dir>]"). */
static void parse_usage(fc_help *h, const char *u, const char *prog, const char *sub)
{
    tg_strv words = TG_STRV_INIT;
    usage_words(u, &words);
    size_t i = 0;
    if (i < words.n && (strcmp(words.v[i], prog) == 0 || strchr(words.v[i], '/')))
        i++;
    if (sub && i < words.n && strcmp(words.v[i], sub) == 0)
        i++;
    for (; i < words.n; i++) {
        if (strcmp(words.v[i], "[--]") == 0 || strcmp(words.v[i], "--") == 0)
            h->dashdash = true;
        else
            add_positional(h, words.v[i]);
    }
    tg_strv_free(&words);
}

/* "   clone     Clone a repository": a subcommand line of a commands listing. */
static bool sub_line(const char *line, tg_strv *names, tg_strv *descs)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (p - line < 2 || !islower((unsigned char)*p))
        return false;
    const char *e = p;
    while (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '-')
        e++;
    if (!(*e == '\t' || (e[0] == ' ' && e[1] == ' ')))
        return false;
    const char *d = e;
    while (*d == ' ' || *d == '\t')
        d++;
    if (!*d)
        return false;
    char *name = xstrndup(p, (size_t)(e - p));
    if (strcmp(name, "help") != 0 && names->n < FC_MAX_SUBS &&
        !(names->n && tg_strlist_has((const char *const *)names->v, name))) {
        tg_strv_push(names, name);
        tg_strv_push_owned(descs, trimmed(d, strlen(d)));
    }
    free(name);
    return true;
}

/* The first sentence of the paragraph starting at lines[i] (lines joined until an empty or
 * indented one), at most 300 bytes. Heap. */
static char *paragraph(const tg_strv *lines, size_t i)
{
    tg_buf b = TG_BUF_INIT;
    for (; i < lines->n && lines->v[i][0] && lines->v[i][0] != ' ' && lines->v[i][0] != '\t'; i++) {
        if (b.len)
            tg_buf_putc(&b, ' ');
        tg_buf_puts(&b, lines->v[i]);
    }
    const char *dot = strstr(b.data, ". ");
    size_t n = dot ? (size_t)(dot - b.data) + 1 : b.len;
    if (n > 300)
        n = 300;
    char *s = trimmed(b.data, n);
    tg_buf_free(&b);
    return s;
}

static bool starts_usage(const char *line, const char **rest)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (strncasecmp(line, "usage:", 6) != 0)
        return false;
    *rest = line + 6;
    return true;
}

void fc_help_parse(fc_help *h, const char *text, const char *prog, const char *sub)
{
    memset(h, 0, sizeof *h);
    tg_strv lines = TG_STRV_INIT;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        tg_strv_push_owned(&lines, xstrndup(p, n));
        p += n + (p[n] == '\n');
    }
    bool in_commands = false;
    for (size_t i = 0; i < lines.n; i++) {
        const char *line = lines.v[i], *rest = NULL;
        if (!h->has_usage && starts_usage(line, &rest)) {
            h->has_usage = true;
            h->usage = trimmed(rest, strlen(rest));
            parse_usage(h, h->usage, prog, sub);
            continue;
        }
        fc_opt o;
        if (parse_opt(line, i + 1 < lines.n ? lines.v[i + 1] : NULL, &o, &h->dashdash)) {
            h->opts = xrealloc(h->opts, (h->nopts + 1) * sizeof *h->opts);
            h->opts[h->nopts++] = o;
            continue;
        }
        if (line[0] && line[0] != ' ' && line[0] != '\t') {
            char *low = xstrdup(line);
            for (char *q = low; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            if (strstr(low, "commands"))
                in_commands = true;
            else if (h->has_usage && !h->summary && !in_commands && strlen(line) > 10 &&
                     !strchr(line, '$'))
                h->summary = paragraph(&lines, i);
            free(low);
        } else if (in_commands) {
            sub_line(line, &h->subs, &h->sub_desc);
        }
        const char *cmd = line + strspn(line, " \t");
        if (cmd[0] == '$' && cmd[1] == ' ')
            tg_strv_push_owned(&h->examples, trimmed(cmd + 2, strlen(cmd + 2)));
    }
    tg_strv_free(&lines);
}
