/*
 * fromcli_draft.c — one draft manifest of the command runtime from a read --help text
 * (fromcli_int.h, docs/cli.md#init-from-cli): options become typed properties (boolean switches,
 * integer / number / string values, enums from "{a,b}" or "one of a, b", defaults from
 * "(default: x)"), positionals keep their order, and the argv template passes every value as
 * one argument that can never become an option (docs/manifest.md#command).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "app/drafts.h"
#include "app/fromcli_int.h"
#include "app/openapi_int.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/util.h"

/* Options whose long name holds one of these (as whole dash-separated words: --config-env,
 * --exec-path, but not --recurse-submodules) are left out: they name configuration or output
 * files, run programs or hooks, or point the program elsewhere (a model must never be able to
 * pass --config or --output; docs/cli.md#init-from-cli). */
static const char *const dangerous[] = {
    "config", "output", "exec", "upload-pack", "receive-pack", "hook", "hooks", "template",
    "editor", "pager", "cookie", "cookie-jar", "dump-header", "trace", "trace-ascii", "libcurl",
    "stderr", "upload-file", "ssh", "command", "socket", "proxy", "plugin", "git-dir",
    "work-tree", "namespace", "remote-name", "remote-name-all", "netrc", "netrc-file",
    "create-dirs", "write-out", "engine", "key", "cert", "cacert", "capath", "crlfile", "unix",
    "abstract-unix-socket", "script", NULL};

/* Whether word occurs in name bounded by its start or end or '-'. */
static bool has_word(const char *name, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = name; (p = strstr(p, word)); p++)
        if ((p == name || p[-1] == '-') && (p[n] == '\0' || p[n] == '-'))
            return true;
    return false;
}

/* Value names that mean a file or folder on the host: such options are left out too. */
static const char *const file_words[] = {"file", "path", "dir", "directory", "filename", NULL};

static const char *const int_words[] = {"n", "num", "number", "count", "int", "integer", "depth",
                                        "lines", "jobs", "port", "max", "level", "size",
                                        "columns", "width", "limit", "indent", NULL};

static char *lowered(const char *s)
{
    char *l = xstrdup(s);
    for (char *p = l; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return l;
}

/* The words of a value name: "<fractional seconds>" → "fractional seconds". Heap. */
static char *metaword(const char *mv)
{
    tg_buf b = TG_BUF_INIT;
    for (const char *p = mv; *p; p++)
        if (!strchr("<>[]", *p))
            tg_buf_putc(&b, (char)tolower((unsigned char)*p));
    return tg_buf_steal(&b);
}

/* Why opt is left out (static text), or NULL. */
static const char *left_out(const fc_opt *o)
{
    char *flag = lowered(o->flag);
    const char *why = NULL;
    if (!strcmp(flag, "--help") || !strcmp(flag, "-h") || !strcmp(flag, "--version"))
        why = "";
    for (size_t i = 0; !why && o->is_long && dangerous[i]; i++)
        if (has_word(flag + 2, dangerous[i]))
            why = "names configuration or output files, runs programs or points the program "
                  "elsewhere";
    char *mw = o->metavar ? metaword(o->metavar) : NULL;
    int depth = 0;
    for (const char *p = o->metavar; !why && p && *p; p++) {
        depth += *p == '<' || *p == '[' || *p == '{';
        depth -= (*p == '>' || *p == ']' || *p == '}') && depth > 0;
        if (*p == ' ' && depth == 0)
            why = "takes more than one value";
    }
    for (size_t i = 0; !why && mw && file_words[i]; i++)
        if (strstr(mw, file_words[i]))
            why = "names a file or folder of the host";
    if (!why && mw && strchr(mw, '='))
        why = "sets name=value settings";
    free(mw);
    free(flag);
    return why;
}

/* Enum values from "{a,b,c}" or "(a|b)" in s, or after "one of " in s. NULL when none. */
static cJSON *enum_from(const char *s)
{
    const char *open = strpbrk(s, "{(");
    const char *close = open ? strchr(open, *open == '{' ? '}' : ')') : NULL;
    const char *one = strstr(s, "one of ");
    while (one && one != s && isalnum((unsigned char)one[-1])) /* not "clone of that" */
        one = strstr(one + 1, "one of ");
    tg_strv v = TG_STRV_INIT;
    if (open && close && (memchr(open, ',', (size_t)(close - open)) ||
                          memchr(open, '|', (size_t)(close - open)))) {
        char *in = xstrndup(open + 1, (size_t)(close - open - 1));
        for (char *t = strtok(in, ",|"); t; t = strtok(NULL, ",|")) {
            t += strspn(t, " ");
            if (strncmp(t, "or ", 3) == 0) /* "(merge, diff3, or zdiff3)" */
                t += 3;
            tg_strv_push_owned(&v, xstrndup(t, strcspn(t, " ")));
        }
        free(in);
    } else if (one) {
        char *in = xstrndup(one + 7, strcspn(one + 7, ".;()[\n"));
        for (char *t = strtok(in, ", "); t; t = strtok(NULL, ", "))
            if (strcmp(t, "or") != 0)
                tg_strv_push_owned(&v, xstrndup(t + strspn(t, "'\"`"), strcspn(t + strspn(t, "'\"`"), "'\"`")));
        free(in);
    }
    bool ok = v.n >= 2 && v.n <= 32;
    for (size_t i = 0; ok && i < v.n; i++)
        ok = *v.v[i] && strspn(v.v[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_.-") == strlen(v.v[i]);
    cJSON *e = ok ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; e && i < v.n; i++)
        if (!tg_json_array_has_string(e, v.v[i]))
            cJSON_AddItemToArray(e, cJSON_CreateString(v.v[i]));
    tg_strv_free(&v);
    return e;
}

/* The default in "(default: x)", "(default x)", "[default: x]" of desc. Heap, or NULL. */
static char *default_from(const char *desc)
{
    const char *d = strstr(desc, "default");
    if (!d || d == desc || !strchr("([", d[-1]))
        return NULL;
    d += 7;
    d += strspn(d, ": ");
    size_t n = strcspn(d, ")]");
    if (!n || !d[n])
        return NULL;
    return xstrndup(d + (*d == '\'' || *d == '"'), n - 2 * (*d == '\'' || *d == '"'));
}

static const char *value_type(const char *mv)
{
    char *w = metaword(mv);
    const char *t = "string";
    if (strstr(w, "fractional") || strstr(w, "float") || strstr(w, "seconds"))
        t = "number";
    for (size_t i = 0; int_words[i]; i++)
        if (!strcmp(w, int_words[i]))
            t = "integer";
    free(w);
    return t;
}

/* The property of one valued option (its type, enum and default). */
static cJSON *value_prop(const fc_opt *o, const char *desc)
{
    cJSON *p = cJSON_CreateObject();
    size_t ml = strlen(o->metavar);
    /* the value name is the list itself ("{a,b}", "<(a|b)>"), not a part of it */
    bool listed = ml > 2 && strchr("{(", o->metavar[o->metavar[0] == '<']) &&
                  strchr("})", o->metavar[ml - 1 - (o->metavar[ml - 1] == '>')]);
    cJSON *en = listed ? enum_from(o->metavar) : NULL;
    if (!en)
        en = enum_from(o->desc);
    const char *type = en ? "string" : value_type(o->metavar);
    cJSON_AddStringToObject(p, "type", type);
    cJSON_AddStringToObject(p, "description", desc);
    char *def = default_from(o->desc);
    if (en)
        cJSON_AddItemToObject(p, "enum", en);
    if (def && !strcmp(type, "string") && (!en || tg_json_array_has_string(en, def)))
        cJSON_AddStringToObject(p, "default", def);
    else if (def && strcmp(type, "string") && strspn(def, "0123456789.-") == strlen(def) &&
             (strcmp(type, "integer") || !strchr(def, '.')))
        cJSON_AddNumberToObject(p, "default", atof(def));
    free(def);
    if (!strcmp(type, "string"))
        cJSON_AddNumberToObject(p, "minLength", 1);
    return p;
}

/* The property name of an option: --no-checkout → no_checkout; -R → flag_r_upper. Heap. */
static char *opt_ident(const fc_opt *o, tg_strv *taken)
{
    tg_buf b = TG_BUF_INIT;
    if (o->is_long) {
        for (const char *p = o->flag + 2; *p; p++)
            tg_buf_putc(&b, isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_');
    } else {
        tg_buf_printf(&b, "flag_%c%s", tolower((unsigned char)o->flag[1]),
                      isupper((unsigned char)o->flag[1]) ? "_upper" : "");
    }
    char *id = oa_ident(b.data, taken);
    tg_buf_free(&b);
    return id;
}

typedef struct fc_build {
    cJSON *props, *required, *argv, *limits, *example;
    tg_strv taken; /* property names so far */
    tg_strv left;  /* "--output <file>: why" for the options left out */
    tg_strv pos;   /* the positionals' property names, in order */
} fc_build;

static void add_options(fc_build *b, const fc_help *h)
{
    for (size_t i = 0; i < h->nopts; i++) {
        const fc_opt *o = &h->opts[i];
        const char *why = left_out(o);
        if (why) {
            if (*why)
                tg_strv_pushf(&b->left, "%s%s%s: %s", o->flag, o->metavar ? " " : "",
                              o->metavar ? o->metavar : "", why);
            continue;
        }
        char *id = opt_ident(o, &b->taken);
        char *desc = *o->desc ? xstrdup(o->desc) : xasprintf("The %s option.", o->flag);
        if (!o->metavar) {
            cJSON *p = cJSON_AddObjectToObject(b->props, id);
            cJSON_AddStringToObject(p, "type", "boolean");
            cJSON_AddStringToObject(p, "description", desc);
            cJSON *sw = cJSON_CreateObject();
            cJSON_AddStringToObject(sw, "when", id);
            cJSON_AddStringToObject(sw, "arg", o->flag);
            cJSON_AddItemToArray(b->argv, sw);
        } else {
            cJSON_AddItemToObject(b->props, id, value_prop(o, desc));
            /* --flag=VALUE / -fVALUE: the value is glued to its flag, so "-x" stays a value */
            char *el = xasprintf(o->is_long ? "%s={%s}" : "%s{%s}", o->flag, id);
            cJSON_AddItemToArray(b->argv, cJSON_CreateString(el));
            free(el);
        }
        free(desc);
        free(id);
    }
}

static bool file_name(const char *n)
{
    static const char *const names[] = {"file", "files", "filename", "input_file", "file_name",
                                        "infile", NULL};
    return tg_strlist_has(names, n);
}

static void add_positionals(fc_build *b, const fc_help *h)
{
    if (h->npos && h->dashdash)
        cJSON_AddItemToArray(b->argv, cJSON_CreateString("--"));
    for (size_t i = 0; i < h->npos; i++) {
        const fc_pos *ps = &h->pos[i];
        char *id = oa_ident(ps->name, &b->taken);
        tg_strv_push(&b->pos, id);
        cJSON *p = cJSON_AddObjectToObject(b->props, id);
        cJSON *str = p;
        if (file_name(ps->name)) {
            cJSON_AddStringToObject(p, "type", "string");
            cJSON_AddStringToObject(p, "description", "A file under the data directories "
                                                      "(data/), read-only, passed to the program.");
            cJSON_AddStringToObject(p, "x-toolgen-path", "read");
        } else if (ps->many) {
            cJSON_AddStringToObject(p, "type", "array");
            cJSON_AddStringToObject(p, "description", "Positional arguments, in order.");
            str = cJSON_AddObjectToObject(p, "items");
            cJSON_AddStringToObject(str, "type", "string");
            if (!ps->optional)
                cJSON_AddNumberToObject(p, "minItems", 1);
        } else {
            cJSON_AddStringToObject(p, "type", "string");
            char *d = xasprintf("The positional argument %s.", ps->name);
            cJSON_AddStringToObject(p, "description", d);
            free(d);
        }
        cJSON_AddNumberToObject(str, "minLength", 1);
        if (!h->dashdash) /* no "--": a value starting with '-' would be read as an option */
            cJSON_AddStringToObject(str, "pattern", "^[^-]");
        if (!ps->optional) {
            cJSON_AddItemToArray(b->required, cJSON_CreateString(id));
            cJSON_AddItemToObject(b->example, id, ps->many && !file_name(ps->name)
                                                      ? cJSON_CreateStringArray((const char *[]){ps->name}, 1)
                                                      : cJSON_CreateString(ps->name));
        }
        char *el = xasprintf("{%s}", id);
        cJSON_AddItemToArray(b->argv, cJSON_CreateString(el));
        free(el);
        free(id);
    }
}

/* Words of a command line, quotes removed ('a b' and "a b" are one word). */
static void shell_words(const char *s, tg_strv *out)
{
    tg_buf w = TG_BUF_INIT;
    bool have = false;
    for (char q = 0;; s++) {
        if (!*s || (!q && (*s == ' ' || *s == '\t'))) {
            if (have)
                tg_strv_push(out, w.data ? w.data : "");
            tg_buf_truncate(&w, 0);
            have = false;
            if (!*s)
                break;
        } else if (!q && (*s == '\'' || *s == '"')) {
            q = *s;
            have = true;
        } else if (q && *s == q) {
            q = 0;
        } else {
            tg_buf_putc(&w, *s);
            have = true;
        }
    }
    tg_buf_free(&w);
}

/* The example input from one of h's example lines ("$ echo '{}' | jq ."): the words after the
 * program (and subcommand) as the positionals, in order. NULL when no line fits. */
static cJSON *example_from_help(const fc_source *s, const fc_help *h, const fc_build *b,
                                size_t nreq)
{
    cJSON *in = NULL;
    for (size_t i = 0; i < h->examples.n && !in; i++) {
        const char *bar = strrchr(h->examples.v[i], '|');
        tg_strv w = TG_STRV_INIT;
        shell_words(bar ? bar + 1 : h->examples.v[i], &w);
        const char *prog = w.n ? strrchr(w.v[0], '/') : NULL;
        size_t k = 1 + (s->sub != NULL);
        bool ok = w.n >= k && strcmp(prog ? prog + 1 : w.v[0], s->base) == 0 &&
                  (!s->sub || strcmp(w.v[1], s->sub) == 0) && w.n - k >= nreq &&
                  w.n - k <= b->pos.n;
        for (size_t j = k; ok && j < w.n; j++)
            ok = w.v[j][0] && w.v[j][0] != '-';
        if (ok) {
            in = cJSON_CreateObject();
            for (size_t j = k; j < w.n; j++) {
                const cJSON *p = tg_json_get(b->props, b->pos.v[j - k]);
                const char *type = tg_json_get_string(p, "type");
                cJSON_AddItemToObject(in, b->pos.v[j - k],
                                      type && !strcmp(type, "array")
                                          ? cJSON_CreateStringArray((const char *[]){w.v[j]}, 1)
                                          : cJSON_CreateString(w.v[j]));
            }
        }
        tg_strv_free(&w);
    }
    return in;
}

static cJSON *docs_of(const fc_source *s, const fc_help *h, const char *what, const tg_strv *out)
{
    cJSON *d = cJSON_CreateObject();
    char *call = xasprintf("%s%s%s", s->base, s->sub ? " " : "", s->sub ? s->sub : "");
    char *t = xasprintf("When the task needs `%s`: %s", call, what);
    cJSON_AddStringToObject(d, "when_to_use", t);
    free(t);
    t = xasprintf("Runs %s%s%s in the sandbox with the options and arguments given, each value "
                  "one argument (no shell is involved).%s%s",
                  s->prog, s->sub ? " " : "", s->sub ? s->sub : "", h->usage ? " Usage: " : "",
                  h->usage ? h->usage : "");
    cJSON_AddStringToObject(d, "what_it_does", t);
    free(t);
    cJSON_AddStringToObject(d, "returns", "{text}: what the program wrote to standard output, "
                                          "trailing newlines removed. A non-zero exit status is "
                                          "an error carrying the end of its standard error.");
    t = xasprintf("%s installed where the sandbox sees it; files it reads under data/.", s->prog);
    cJSON_AddStringToObject(d, "prerequisites", t);
    free(t);
    cJSON *lim = cJSON_AddArrayToObject(d, "limitations");
    cJSON_AddItemToArray(lim, cJSON_CreateString(
        "Drafted from --help by toolgen init --from-cli: check the types, enums and defaults, "
        "and the example, before moving it past draft."));
    for (size_t i = 0; i < out->n; i++) {
        char *l = xasprintf("Left out: %s (docs/cli.md#init-from-cli).", out->v[i]);
        cJSON_AddItemToArray(lim, cJSON_CreateString(l));
        free(l);
    }
    free(call);
    return d;
}

static cJSON *output_schema(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "object");
    cJSON *text = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "properties"), "text");
    cJSON_AddStringToObject(text, "type", "string");
    cJSON_AddStringToObject(text, "description", "The program's standard output.");
    cJSON_AddItemToObject(o, "required", cJSON_CreateStringArray((const char *[]){"text"}, 1));
    cJSON_AddFalseToObject(o, "additionalProperties");
    return o;
}

static char *tool_name(const fc_source *s, tg_strv *taken)
{
    char *raw = xasprintf("%s%s%s", s->base, s->sub ? "_" : "", s->sub ? s->sub : "");
    char *base = oa_tool_name(raw, "run", s->base, s->budget);
    char *name = oa_unique_name(base, raw, s->budget, taken);
    free(base);
    free(raw);
    return name;
}

cJSON *fc_draft(const fc_source *s, const fc_help *h, tg_strv *taken)
{
    fc_build b = {.props = cJSON_CreateObject(), .required = cJSON_CreateArray(),
                  .argv = cJSON_CreateArray(), .example = cJSON_CreateObject(),
                  .taken = TG_STRV_INIT, .left = TG_STRV_INIT, .pos = TG_STRV_INIT};
    cJSON_AddItemToArray(b.argv, cJSON_CreateString(s->prog));
    if (s->sub)
        cJSON_AddItemToArray(b.argv, cJSON_CreateString(s->sub));
    add_options(&b, h);
    add_positionals(&b, h);
    cJSON *from_help = example_from_help(s, h, &b, (size_t)cJSON_GetArraySize(b.required));
    if (from_help) {
        cJSON_Delete(b.example);
        b.example = from_help;
    }
    char *name = s->name ? xstrdup(s->name) : tool_name(s, taken);
    if (s->name)
        tg_strv_push(taken, s->name);
    const char *what = s->description ? s->description : s->listed ? s->listed
                                                       : h->summary ? h->summary : NULL;
    char *title = xasprintf("%s%s%s", s->base, s->sub ? " " : "", s->sub ? s->sub : "");
    char *fallback = xasprintf("Runs `%s`.", title);
    cJSON *m = tg_draft_head(name, title, what ? what : fallback, "medium", NULL, "unknown");
    cJSON_AddItemToObject(m, "docs", docs_of(s, h, what ? what : fallback, &b.left));
    cJSON *in = cJSON_AddObjectToObject(m, "input_schema");
    cJSON_AddStringToObject(in, "type", "object");
    cJSON_AddItemToObject(in, "properties", b.props);
    if (b.required->child)
        cJSON_AddItemToObject(in, "required", b.required);
    else
        cJSON_Delete(b.required);
    cJSON_AddFalseToObject(in, "additionalProperties");
    cJSON_AddItemToObject(m, "output_schema", output_schema());
    cJSON *ex = cJSON_CreateObject();
    cJSON_AddStringToObject(ex, "name", from_help ? "from_help" : "usage");
    cJSON_AddStringToObject(ex, "description", from_help
                                                   ? "The arguments of the example in --help."
                                                   : "From the usage line, with placeholder "
                                                     "values: replace them and the output with a "
                                                     "real call.");
    cJSON_AddItemToObject(ex, "input", b.example);
    cJSON *out = cJSON_AddObjectToObject(ex, "output");
    cJSON_AddStringToObject(out, "text", "");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(m, "examples"), ex);
    cJSON *cons = cJSON_AddObjectToObject(m, "constraints");
    cJSON_AddFalseToObject(cons, "read_only");
    cJSON *impl = cJSON_AddObjectToObject(m, "implementation");
    cJSON_AddStringToObject(impl, "runtime", "command");
    cJSON_AddItemToObject(impl, "argv", b.argv);
    cJSON_AddStringToObject(impl, "stdout", "text");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "provenance"), "generator", "offline");
    tg_strv_free(&b.taken);
    tg_strv_free(&b.left);
    tg_strv_free(&b.pos);
    free(title);
    free(fallback);
    free(name);
    return m;
}
