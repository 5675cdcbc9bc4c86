/* prompts.c — prompt templates: parse, load, list and render (prompts.h, docs/mcp.md#prompts). */
#include "serve/prompts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/json.h"
#include "base/strvec.h"
#include "serve/promptparts.h"

#define NAME_MAX_LEN 64
/* errors at a front-matter node: the helper the parts share (serve/promptparts.h) */
#define fm_fail tg_serve_fm_fail

/* ---- placeholders --------------------------------------------------------------------------- */

static bool name_char(char c, bool first)
{
    return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

/*
 * The next {{name}} at or after s: its start, the byte after it and the name (NUL-terminated in
 * name). false when there is none. "{{" that does not open a well-formed placeholder is text.
 */
static bool next_placeholder(const char *s, const char **start, const char **end,
                             char name[NAME_MAX_LEN + 1])
{
    for (const char *p = strstr(s, "{{"); p; p = strstr(p + 1, "{{")) {
        const char *q = p + 2;
        while (*q == ' ')
            q++;
        size_t n = 0;
        while (name_char(q[n], n == 0) && n < NAME_MAX_LEN)
            n++;
        const char *r = q + n;
        while (*r == ' ')
            r++;
        if (n == 0 || r[0] != '}' || r[1] != '}')
            continue;
        memcpy(name, q, n);
        name[n] = '\0';
        *start = p;
        *end = r + 2;
        return true;
    }
    return false;
}

static int line_of(const char *text, const char *at, int first_line)
{
    int line = first_line;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* ---- front matter ---------------------------------------------------------------------------- */

/* Splits "---\nYAML\n---\nBODY": *fm (may be empty) and the body with the line it starts on.
 * No front matter: the whole text is the body. -1 with err when the opening line is never
 * closed. */
static int split_front_matter(const char *file, const char *text, const char **fm,
                              size_t *fm_len, const char **body, int *body_line, tg_err *err)
{
    *fm = NULL;
    *fm_len = 0;
    *body = text;
    *body_line = 1;
    if (strncmp(text, "---\n", 4) != 0 && strncmp(text, "---\r\n", 5) != 0)
        return 0;
    const char *start = strchr(text, '\n') + 1;
    for (const char *line = start; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (n && line[n - 1] == '\r')
            n--;
        if (n == 3 && strncmp(line, "---", 3) == 0) {
            *fm = start;
            *fm_len = (size_t)(line - start);
            *body = nl ? nl + 1 : line + strlen(line);
            *body_line = line_of(text, *body, 1);
            return 0;
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    return tg_err_setpos(err, file, 1, 1, "the front matter opened by '---' is never closed; "
                                          "end it with a line holding only '---'");
}

static tg_prompt_complete complete_by_name(const char *name)
{
    static const char *const tools[] = {"tool", "tool_name", NULL};
    static const char *const files[] = {"file", "file_path", "path", "dataset", "data_file", NULL};
    if (tg_strlist_has(tools, name))
        return TG_COMPLETE_TOOLS;
    if (tg_strlist_has(files, name))
        return TG_COMPLETE_DATA_FILES;
    return TG_COMPLETE_NONE;
}

static bool valid_arg_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > NAME_MAX_LEN)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i], i == 0))
            return false;
    return true;
}

static int parse_complete(const char *file, const tg_doc *d, const cJSON *c,
                          tg_serve_prompt_arg *a, tg_err *err)
{
    const char *v = cJSON_GetStringValue(c);
    if (v && strcmp(v, "tools") == 0)
        a->complete = TG_COMPLETE_TOOLS;
    else if (v && strcmp(v, "data_files") == 0)
        a->complete = TG_COMPLETE_DATA_FILES;
    else if (v && strcmp(v, "none") == 0)
        a->complete = TG_COMPLETE_NONE;
    else
        return fm_fail(file, d, c, err, "argument '%s': complete must be \"tools\", "
                                         "\"data_files\" or \"none\"", a->name);
    return 0;
}

/* One item of arguments: {name, description?, required?, complete?}. */
static int parse_arg(const char *file, const tg_doc *d, const cJSON *item, tg_serve_prompt *p,
                     tg_err *err)
{
    if (!cJSON_IsObject(item))
        return fm_fail(file, d, item, err, "each argument is a mapping with a name, e.g. "
                                           "'- name: file'");
    const char *name = tg_json_get_string(item, "name");
    if (!name || !valid_arg_name(name))
        return fm_fail(file, d, item, err, "an argument needs a name of letters, digits and '_' "
                                           "(not starting with a digit, at most 64)");
    if (tg_serve_prompt_arg_find(p, name))
        return fm_fail(file, d, item, err, "argument '%s' is declared twice", name);
    for (const cJSON *k = item->child; k; k = k->next)
        if (strcmp(k->string, "name") && strcmp(k->string, "description") &&
            strcmp(k->string, "required") && strcmp(k->string, "complete") &&
            strcmp(k->string, "ask"))
            return fm_fail(file, d, k, err, "argument '%s': unknown key '%s' (allowed: name, "
                                            "description, required, complete, ask)", name,
                           k->string);
    const cJSON *desc = tg_json_get(item, "description");
    const cJSON *req = tg_json_get(item, "required");
    const cJSON *ask = tg_json_get(item, "ask");
    if (desc && !cJSON_IsString(desc))
        return fm_fail(file, d, desc, err, "argument '%s': description must be a string", name);
    if (ask && (!cJSON_IsString(ask) || !*ask->valuestring || cJSON_IsTrue(req)))
        return fm_fail(file, d, ask, err, "argument '%s': ask is the question the user is asked "
                                          "when the argument is not given (a string), for an "
                                          "argument that is not required", name);
    if (req && !cJSON_IsBool(req))
        return fm_fail(file, d, req, err, "argument '%s': required must be true or false", name);
    tg_serve_prompt_arg *a = &p->args[p->n_args++];
    *a = (tg_serve_prompt_arg){.name = xstrdup(name),
                               .description = desc ? xstrdup(desc->valuestring) : NULL,
                               .required = cJSON_IsTrue(req),
                               .complete = complete_by_name(name),
                               .ask = ask ? xstrdup(ask->valuestring) : NULL};
    const cJSON *c = tg_json_get(item, "complete");
    return c ? parse_complete(file, d, c, a, err) : 0;
}

static int string_key(const char *file, const tg_doc *d, const char *key, char **out,
                      tg_err *err)
{
    const cJSON *v = tg_json_get(d->root, key);
    if (!v)
        return 0;
    if (!cJSON_IsString(v))
        return fm_fail(file, d, v, err, "%s must be a string", key);
    *out = xstrdup(v->valuestring);
    return 0;
}

/* description, title, arguments; other keys belong to other readers (the generator). */
static int parse_front_matter(const char *file, const char *fm, size_t len, tg_serve_prompt *p,
                              bool *declared, tg_err *err)
{
    tg_doc d = {0};
    if (tg_doc_parse_yaml(fm, len, file, NULL, &d, err) != 0) {
        if (err->line)
            err->line++;
        return -1;
    }
    int rc = 0;
    if (d.root && !cJSON_IsNull(d.root) && !cJSON_IsObject(d.root))
        rc = fm_fail(file, &d, d.root, err, "the front matter must be a mapping (description:, "
                                            "arguments:)");
    if (rc == 0 && cJSON_IsObject(d.root))
        rc = string_key(file, &d, "description", &p->description, err) ||
             string_key(file, &d, "title", &p->title, err) ? -1 : 0;
    const cJSON *args = rc == 0 ? tg_json_get(d.root, "arguments") : NULL;
    if (args && !cJSON_IsArray(args))
        rc = fm_fail(file, &d, args, err, "arguments must be a list of mappings "
                                          "({name, description, required})");
    if (rc == 0 && args) {
        *declared = true;
        p->args = xcalloc((size_t)cJSON_GetArraySize(args) + 1, sizeof *p->args);
        for (const cJSON *it = args->child; it && rc == 0; it = it->next)
            rc = parse_arg(file, &d, it, p, err);
    }
    const cJSON *parts = rc == 0 ? tg_json_get(d.root, "messages") : NULL;
    if (parts)
        rc = tg_serve_prompt_parts_parse(file, &d, parts, p->name, &p->parts, &p->n_parts, err);
    tg_doc_free(&d);
    return rc;
}

/* The placeholders of text (which starts on line first_line, 0: unknown) must name declared
 * arguments; without a declaration the placeholders are the arguments, all required. */
static int check_text(const char *file, const char *text, int first_line, tg_serve_prompt *p,
                      bool declared, tg_err *err)
{
    const char *s = text, *start, *end;
    char name[NAME_MAX_LEN + 1];
    while (next_placeholder(s, &start, &end, name)) {
        if (!tg_serve_prompt_arg_find(p, name)) {
            if (declared)
                return tg_err_setpos(err, file, first_line ? line_of(text, start, first_line) : 0,
                                     0, "placeholder {{%s}} is not one of the declared "
                                        "arguments; add it to arguments: in the front matter",
                                     name);
            p->args = xrealloc(p->args, (p->n_args + 1) * sizeof *p->args);
            p->args[p->n_args++] = (tg_serve_prompt_arg){
                .name = xstrdup(name), .required = true, .complete = complete_by_name(name)};
        }
        s = end;
    }
    return 0;
}

/* The placeholders of the parts (in order), then of the body. */
static int check_placeholders(const char *file, int body_line, tg_serve_prompt *p, bool declared,
                              tg_err *err)
{
    for (size_t i = 0; i < p->n_parts; i++)
        if (p->parts[i].text && check_text(file, p->parts[i].text, 0, p, declared, err) != 0)
            return -1;
    return check_text(file, p->body, body_line, p, declared, err);
}

/* A generator template's "=== user ===" line (docs/generate.md#prompts) parts its system and
 * user messages; an MCP prompt has no system role, so both go into the one user message, a
 * blank line between them. */
static char *join_sections(const char *body)
{
    static const char sep[] = "=== user ===\n";
    const char *at = strncmp(body, sep, sizeof sep - 1) == 0 ? body : NULL;
    for (const char *p = strstr(body, "\n=== user ===\n"); !at && p; p = NULL)
        at = p + 1;
    if (!at)
        return xstrdup(body);
    return xasprintf("%.*s\n%s", (int)(at - body), body, at + sizeof sep - 1);
}

int tg_serve_prompt_parse(const char *file, const char *name, const char *text, size_t len,
                          tg_serve_prompt *out, tg_err *err)
{
    *out = (tg_serve_prompt){0};
    if (strlen(text) != len)
        return tg_err_setpos(err, file, 0, 0, "the template holds a NUL byte");
    if (tg_utf8_validate(text, len, err) != 0) {
        snprintf(err->file, sizeof err->file, "%s", file);
        return -1;
    }
    const char *fm, *body;
    size_t fm_len;
    int body_line;
    if (split_front_matter(file, text, &fm, &fm_len, &body, &body_line, err) != 0)
        return -1;
    out->name = xstrdup(name);
    out->body = join_sections(body);
    bool declared = false;
    if ((fm && parse_front_matter(file, fm, fm_len, out, &declared, err) != 0) ||
        check_placeholders(file, body_line, out, declared, err) != 0) {
        tg_serve_prompt_release(out);
        return -1;
    }
    return 0;
}

void tg_serve_prompt_release(tg_serve_prompt *p)
{
    for (size_t i = 0; i < p->n_args; i++) {
        free(p->args[i].name);
        free(p->args[i].description);
        free(p->args[i].ask);
    }
    free(p->args);
    tg_serve_prompt_parts_free(p->parts, p->n_parts);
    free(p->name);
    free(p->title);
    free(p->description);
    free(p->body);
    *p = (tg_serve_prompt){0};
}

/* ---- the folder ------------------------------------------------------------------------------ */

/* NAME.md / NAME.txt with NAME a valid prompt name: the name (heap), else NULL. */
static char *template_name(const char *file)
{
    const char *dot = strrchr(file, '.');
    if (file[0] == '.' || !dot || (strcmp(dot, ".md") && strcmp(dot, ".txt")))
        return NULL;
    char *name = xstrndup(file, (size_t)(dot - file));
    for (const char *c = name; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-')) {
            free(name);
            return NULL;
        }
    return name;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const tg_serve_prompt *)a)->name, ((const tg_serve_prompt *)b)->name);
}

static void load_one(tg_serve_prompts *ps, tg_strv *skipped, int root_fd, const char *dir,
                     const char *file, char *name)
{
    char *path = tg_path_join(dir, file);
    tg_err err = {0};
    size_t len = 0;
    char *text = tg_read_file_at(root_fd, path, TG_SERVE_PROMPT_MAX_BYTES, &len, &err);
    tg_serve_prompt p;
    if (text && tg_serve_prompts_find(ps, name))
        tg_err_setpos(&err, path, 0, 0, "a second template named '%s' (.md and .txt); keep one",
                      name);
    else if (text && tg_serve_prompt_parse(path, name, text, len, &p, &err) == 0 &&
             tg_serve_prompt_parts_read(p.parts, p.n_parts, root_fd, dir, &err) != 0)
        tg_serve_prompt_release(&p);
    else if (text && !err.msg[0]) {
        ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof *ps->v);
        ps->v[ps->n++] = p;
        qsort(ps->v, ps->n, sizeof *ps->v, by_name); /* keeps find's bsearch valid */
        err.msg[0] = '\0';
    }
    if (err.msg[0]) {
        char where[2048];
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", path);
        tg_err_format(&err, where, sizeof where);
        tg_strv_push(skipped, where);
    }
    free(text);
    free(path);
    free(name);
}

int tg_serve_prompts_load(tg_serve_prompts *ps, int root_fd, const char *dir, tg_err *err)
{
    *ps = (tg_serve_prompts){0};
    if (!tg_is_dir_at(root_fd, dir))
        return 0;
    DIR *d = tg_opendir_at(root_fd, dir);
    if (!d)
        return tg_err_set(err, "%s: cannot read the prompt templates' folder", dir);
    tg_strv files = TG_STRV_INIT, skipped = TG_STRV_INIT;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            tg_strv_push(&files, e->d_name);
    closedir(d);
    tg_strv_sort(&files);
    for (size_t i = 0; i < files.n; i++) {
        char *name = template_name(files.v[i]);
        if (name)
            load_one(ps, &skipped, root_fd, dir, files.v[i], name);
    }
    tg_strv_free(&files);
    ps->skipped = skipped.v;
    ps->n_skipped = skipped.n;
    return 0;
}

void tg_serve_prompts_free(tg_serve_prompts *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        tg_serve_prompt_release(&ps->v[i]);
    free(ps->v);
    for (size_t i = 0; i < ps->n_skipped; i++)
        free(ps->skipped[i]);
    free(ps->skipped);
    *ps = (tg_serve_prompts){0};
}

const tg_serve_prompt *tg_serve_prompts_find(const tg_serve_prompts *ps, const char *name)
{
    if (!ps || !ps->n)
        return NULL;
    tg_serve_prompt key = {.name = (char *)name};
    return bsearch(&key, ps->v, ps->n, sizeof *ps->v, by_name);
}

const tg_serve_prompt_arg *tg_serve_prompt_arg_find(const tg_serve_prompt *p, const char *name)
{
    for (size_t i = 0; i < p->n_args; i++)
        if (strcmp(p->args[i].name, name) == 0)
            return &p->args[i];
    return NULL;
}

/* ---- MCP ------------------------------------------------------------------------------------- */

cJSON *tg_serve_prompt_json(const tg_serve_prompt *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    if (p->title)
        cJSON_AddStringToObject(o, "title", p->title);
    if (p->description)
        cJSON_AddStringToObject(o, "description", p->description);
    cJSON *args = cJSON_AddArrayToObject(o, "arguments");
    for (size_t i = 0; i < p->n_args; i++) {
        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "name", p->args[i].name);
        if (p->args[i].description)
            cJSON_AddStringToObject(a, "description", p->args[i].description);
        cJSON_AddBoolToObject(a, "required", p->args[i].required);
        cJSON_AddItemToArray(args, a);
    }
    return o;
}

/* NULL when args fit the prompt, else why (in msg). */
static bool check_args(const tg_serve_prompt *p, const cJSON *args, char *msg, size_t n)
{
    if (args && !cJSON_IsObject(args)) {
        snprintf(msg, n, "prompts/get %s: params.arguments must be an object of strings", p->name);
        return false;
    }
    for (const cJSON *a = args ? args->child : NULL; a; a = a->next) {
        if (!tg_serve_prompt_arg_find(p, a->string)) {
            snprintf(msg, n, "prompts/get %s: unknown argument '%.100s' (prompts/list shows its "
                             "arguments)", p->name, a->string);
            return false;
        }
        if (!cJSON_IsString(a)) {
            snprintf(msg, n, "prompts/get %s: argument '%.100s' must be a string", p->name,
                     a->string);
            return false;
        }
    }
    for (size_t i = 0; i < p->n_args; i++)
        if (p->args[i].required && !cJSON_GetObjectItemCaseSensitive(args, p->args[i].name)) {
            snprintf(msg, n, "prompts/get %s: missing required argument '%s'", p->name,
                     p->args[i].name);
            return false;
        }
    return true;
}

static char *render(const char *text, const cJSON *args)
{
    tg_buf b;
    tg_buf_init(&b, strlen(text) + 256);
    const char *s = text, *start, *end;
    char name[NAME_MAX_LEN + 1];
    while (next_placeholder(s, &start, &end, name)) {
        tg_buf_append(&b, s, (size_t)(start - s));
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, name));
        tg_buf_puts(&b, v ? v : "");
        s = end;
    }
    tg_buf_puts(&b, s);
    return tg_buf_steal(&b);
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

cJSON *tg_serve_prompt_get(const tg_serve_prompts *ps, const cJSON *params, char *msg,
                           size_t msg_size)
{
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
    if (!name) {
        snprintf(msg, msg_size, "prompts/get: params.name (a string) is required");
        return NULL;
    }
    const tg_serve_prompt *p = tg_serve_prompts_find(ps, name);
    if (!p) {
        snprintf(msg, msg_size, "Unknown prompt: %.200s (prompts/list names them)", name);
        return NULL;
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    if (!check_args(p, args, msg, msg_size))
        return NULL;
    cJSON *r = cJSON_CreateObject();
    if (p->description)
        cJSON_AddStringToObject(r, "description", p->description);
    cJSON *messages = cJSON_AddArrayToObject(r, "messages");
    for (size_t i = 0; i < p->n_parts; i++) {
        char *text = p->parts[i].text ? render(p->parts[i].text, args) : NULL;
        cJSON_AddItemToArray(messages, tg_serve_prompt_part_message(&p->parts[i], text));
        free(text);
    }
    if (p->n_parts && blank(p->body))
        return r; /* the parts are the whole prompt */
    cJSON *m = cJSON_CreateObject();
    cJSON_AddItemToArray(messages, m);
    cJSON_AddStringToObject(m, "role", "user");
    cJSON *c = cJSON_AddObjectToObject(m, "content");
    cJSON_AddStringToObject(c, "type", "text");
    char *text = render(p->body, args);
    cJSON_AddStringToObject(c, "text", text);
    free(text);
    return r;
}

cJSON *tg_serve_prompt_questions(const tg_serve_prompt *p, const cJSON *args)
{
    cJSON *qs = NULL;
    for (size_t i = 0; i < p->n_args; i++) {
        const tg_serve_prompt_arg *a = &p->args[i];
        if (!a->ask || cJSON_GetObjectItemCaseSensitive(args, a->name))
            continue;
        if (!qs)
            qs = cJSON_CreateArray();
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "key", a->name);
        cJSON_AddStringToObject(q, "method", "elicitation/create");
        cJSON *params = cJSON_AddObjectToObject(q, "params");
        cJSON_AddStringToObject(params, "message", a->ask);
        cJSON *rs = cJSON_AddObjectToObject(params, "requestedSchema");
        cJSON *field = cJSON_AddObjectToObject(cJSON_AddObjectToObject(rs, "properties"), a->name);
        cJSON_AddStringToObject(field, "type", "string");
        if (a->description)
            cJSON_AddStringToObject(field, "description", a->description);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(rs, "required"), cJSON_CreateString(a->name));
        cJSON_AddStringToObject(q, "field", a->name);
        cJSON_AddItemToArray(qs, q);
    }
    return qs;
}
