/*
 * common.c — the bottom of emit/: the output list, facts derived from the IR, the composed
 * description, client schemas, the tools/call request and the error model's codes. common.h
 * says why these live together.
 */
#include "emit/common.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errcode.h"
#include "base/json.h"
#include "base/strvec.h"

/* ---- the output list ------------------------------------------------------------------------ */

void tg_emit_files_free(tg_emit_files *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].path);
        free(f->v[i].data);
    }
    free(f->v);
    *f = (tg_emit_files){0};
}

void tg_emit_files_add(tg_emit_files *f, const char *path, char *data)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 16;
        f->v = xrealloc(f->v, f->cap * sizeof *f->v);
    }
    f->v[f->n++] = (tg_emit_file){xstrdup(path), data, strlen(data)};
}

const tg_emit_file *tg_emit_files_find(const tg_emit_files *f, const char *path)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].path, path) == 0)
            return &f->v[i];
    return NULL;
}

void tg_emit_files_add_json(tg_emit_files *f, char *path, cJSON *v)
{
    tg_emit_files_add(f, path, tg_json_print(v));
    free(path);
    cJSON_Delete(v);
}

/* ---- fragments ------------------------------------------------------------------------------ */

#define FRAGMENT_MAGIC "toolgen-fragment 1\n"

static size_t count_newlines(const char *s, size_t n)
{
    size_t k = 0;
    for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        k++;
    return k;
}

char *tg_emit_fragment_serialise(const tg_buf *pieces, size_t *len)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, FRAGMENT_MAGIC);
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        const char *d = pieces[k].data;
        size_t n = pieces[k].len;
        tg_buf_printf(&b, "%zu %zu\n", n, count_newlines(d, n));
        tg_buf_append(&b, d, n);
        tg_buf_putc(&b, '\0');
    }
    *len = b.len;
    return tg_buf_steal(&b);
}

static bool parse_size(const char **p, const char *end, char stop, size_t *out)
{
    size_t v = 0;
    const char *s = *p;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (v > (SIZE_MAX - 9) / 10)
            return false;
        v = v * 10 + (size_t)(*s - '0');
    }
    if (s >= end || *s != stop)
        return false;
    *p = s + 1;
    *out = v;
    return true;
}

int tg_emit_fragment_parse(const char *data, size_t len, tg_emit_fragment *f, tg_err *err)
{
    size_t ml = strlen(FRAGMENT_MAGIC);
    if (len < ml || memcmp(data, FRAGMENT_MAGIC, ml) != 0)
        return tg_err_set(err, "not a fragment of this toolgen");
    const char *p = data + ml, *end = data + len;
    for (int k = 0; k < TG_PIECE_COUNT; k++) {
        size_t n, lines;
        if (!parse_size(&p, end, ' ', &n) || !parse_size(&p, end, '\n', &lines) ||
            n >= (size_t)(end - p) || p[n] != '\0')
            return tg_err_set(err, "a truncated or damaged fragment (piece %d)", k);
        f->p[k] = (tg_emit_piece){p, n, lines};
        p += n + 1;
    }
    if (p != end)
        return tg_err_set(err, "a fragment with trailing bytes");
    return 0;
}

void tg_emit_put_indented(tg_buf *b, const char *text, size_t len, int level)
{
    static const char sp[] = "                ";
    size_t pad = (size_t)level * 2;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        tg_buf_append(b, p, n);
        p += n;
        for (size_t left = nl ? pad : 0; left;) {
            size_t k = left < sizeof sp - 1 ? left : sizeof sp - 1;
            tg_buf_append(b, sp, k);
            left -= k;
        }
    }
}

/* ---- small helpers -------------------------------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void tg_emit_put_trimmed(tg_buf *b, const char *s)
{
    while (s && is_space(*s))
        s++;
    size_t n = s ? strlen(s) : 0;
    while (n && is_space(s[n - 1]))
        n--;
    tg_buf_append(b, s, n);
}

/* ---- facts derived from the IR -------------------------------------------------------------- */

bool tg_emit_read_only(const tg_manifest *m)
{
    const cJSON *v = tg_json_get(m->constraints, "read_only");
    return v ? cJSON_IsTrue(v) : true;
}

bool tg_emit_network(const tg_manifest *m)
{
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    return cJSON_IsTrue(tg_json_get(m->constraints, "network")) || (rt && rt->network);
}

bool tg_emit_refused_in_read_only(const tg_manifest *m)
{
    return !tg_emit_read_only(m) || (m->risk && strcmp(m->risk, "high") == 0);
}

const char *tg_emit_auth_env(const tg_manifest *m)
{
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    if (!rt || !rt->auth)
        return NULL;
    const cJSON *auth = tg_json_get(m->implementation, "auth");
    const char *type = tg_json_get_string(auth, "type");
    if (type && strcmp(type, "none") == 0)
        return NULL;
    return tg_json_get_string(auth, "env");
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t tg_emit_fragment_envs(const tg_emit_fragment *f, size_t n, const char ***out)
{
    const char **v = xmalloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = f[i].p[TG_PIECE_AUTH_ENV].data;
        if (*e)
            v[k++] = e;
    }
    qsort(v, k, sizeof *v, str_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || strcmp(v[u - 1], v[i]) != 0)
            v[u++] = v[i];
    *out = v;
    return u;
}

size_t tg_emit_artifact_names(const tg_manifest *m, const char ***out)
{
    size_t k = 0, cap = 8;
    const char **v = xmalloc(cap * sizeof *v);
    const cJSON *t, *a;
    cJSON_ArrayForEach(t, m->tests)
    {
        cJSON_ArrayForEach(a, tg_json_get(tg_json_get(t, "expect"), "artifacts"))
        {
            bool seen = !cJSON_IsString(a);
            for (size_t i = 0; !seen && i < k; i++)
                seen = strcmp(v[i], a->valuestring) == 0;
            if (seen)
                continue;
            if (k == cap)
                v = xrealloc(v, (cap *= 2) * sizeof *v);
            v[k++] = a->valuestring;
        }
    }
    *out = v;
    return k;
}

const char *tg_emit_repo_description(const tg_project_info *repo)
{
    return repo->description && *repo->description
               ? repo->description
               : "Tools for LLM agents, built with toolgen and served over MCP by toolgen serve.";
}

/* ---- the error model ------------------------------------------------------------------------ */

/* (The query below keeps its own name for the shared helper: its body is the one place that
 * changes when the error model's table moves.) */
static bool codes_contain(const cJSON *codes, const char *code)
{
    return tg_json_array_has_string(codes, code);
}

size_t tg_emit_error_codes(const tg_manifest *m, const char ***out)
{
    const cJSON *codes = tg_json_get(m->doc.root, "error_codes");
    const char **v = xmalloc(TG_ERRCODE_COUNT * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < TG_ERRCODE_COUNT; i++) {
        const char *c = tg_errcode_name((tg_errcode)i);
        if (!strcmp(c, "INVALID_INPUT") || !strcmp(c, "INTERNAL_ERROR") || codes_contain(codes, c))
            v[k++] = c;
    }
    *out = v;
    return k;
}

/* ---- descriptions and schemas --------------------------------------------------------------- */

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

enum { N_SECTIONS = 5, SECTION_MIN_TEXT = 24 };
static const char *const section_keys[] = {"when_to_use", "when_not_to_use", "what_it_does",
                                           "returns", "prerequisites"};
static const char *const section_heads[] = {"WHEN TO USE", "WHEN NOT TO USE", "WHAT IT DOES",
                                            "RETURNS", "PREREQUISITES"};

/* Byte length of the longest prefix of s[0..len) with at most max characters. */
static size_t prefix_bytes(const char *s, size_t len, size_t max)
{
    size_t chars = 0, i = 0;
    for (; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == max)
            break;
    }
    return i;
}

/*
 * Appends text (trimmed) cut to at most max characters: whole when it fits, else up to its last
 * sentence end that fits (when that keeps at least half of max), else up to its last word that
 * fits, followed by "...". Returns the characters appended.
 */
static size_t put_shortened(tg_buf *b, const char *text, size_t max)
{
    tg_buf t = TG_BUF_INIT;
    tg_emit_put_trimmed(&t, text);
    size_t start = b->len;
    if (utf8_chars(t.data, t.len) <= max) {
        tg_buf_append(b, t.data, t.len);
        tg_buf_free(&t);
        return utf8_chars(b->data + start, b->len - start);
    }
    size_t cut = prefix_bytes(t.data, t.len, max);
    /* a sentence ends at ".", "!" or "?" followed by white space */
    while (cut > 0 && !(strchr(".!?", t.data[cut - 1]) && cut < t.len && is_space(t.data[cut])))
        cut--;
    if (cut > 0 && utf8_chars(t.data, cut) >= max / 2) {
        tg_buf_append(b, t.data, cut);
    } else {
        cut = prefix_bytes(t.data, t.len, max >= 3 ? max - 3 : 0);
        while (cut > 0 && !is_space(t.data[cut]))
            cut--;
        while (cut > 0 && is_space(t.data[cut - 1]))
            cut--;
        if (cut == 0) /* one long word: cut it, at a character boundary */
            cut = prefix_bytes(t.data, t.len, max >= 3 ? max - 3 : 0);
        tg_buf_append(b, t.data, cut);
        tg_buf_puts(b, "...");
    }
    tg_buf_free(&t);
    return utf8_chars(b->data + start, b->len - start);
}

enum { DROPPED = -1, UNSET = -2 };

/*
 * The character budget of each section's text (max 0: unlimited), by water-filling: sections
 * shorter than an equal share keep all their text, the others share what remains equally.
 * When that would leave fewer than SECTION_MIN_TEXT characters each, sections are dropped
 * (DROPPED), the last first. used: the characters of the one-line description.
 */
static void section_budgets(const char *const *texts, size_t used, size_t max,
                            long budget[N_SECTIONS])
{
    size_t len[N_SECTIONS], total = 0;
    int open = 0;
    for (int i = 0; i < N_SECTIONS; i++) {
        budget[i] = texts[i] ? UNSET : DROPPED;
        len[i] = 0;
        if (!texts[i])
            continue;
        tg_buf t = TG_BUF_INIT;
        tg_emit_put_trimmed(&t, texts[i]);
        len[i] = utf8_chars(t.data, t.len);
        tg_buf_free(&t);
        used += strlen(section_heads[i]) + 4; /* "\n\n" HEADING ":\n", always whole */
        total += len[i];
        open++;
    }
    if (!max || used + total <= max) {
        for (int i = 0; i < N_SECTIONS; i++)
            budget[i] = texts[i] ? (long)len[i] : DROPPED;
        return;
    }
    while (open > 0 && (used < max ? max - used : 0) / (size_t)open < SECTION_MIN_TEXT) {
        int last = N_SECTIONS - 1;
        while (budget[last] == DROPPED)
            last--;
        budget[last] = DROPPED;
        used -= strlen(section_heads[last]) + 4;
        open--;
    }
    size_t left = used < max ? max - used : 0;
    bool settled = false;
    while (!settled && open > 0) { /* short sections first; each frees room for the others */
        settled = true;
        for (int i = 0; i < N_SECTIONS && open > 0; i++)
            if (budget[i] == UNSET && len[i] <= left / (size_t)open) {
                budget[i] = (long)len[i];
                left -= len[i];
                open--;
                settled = false;
            }
    }
    for (int i = 0; i < N_SECTIONS; i++)
        if (budget[i] == UNSET)
            budget[i] = (long)(left / (size_t)open);
}

char *tg_emit_description_max(const tg_manifest *m, size_t max)
{
    tg_buf b = TG_BUF_INIT;
    tg_emit_put_trimmed(&b, m->description ? m->description : m->title ? m->title : "");
    const char *texts[N_SECTIONS];
    for (int i = 0; i < N_SECTIONS; i++)
        texts[i] = tg_json_get_string(m->docs, section_keys[i]);
    long budget[N_SECTIONS];
    section_budgets(texts, utf8_chars(b.data, b.len), max, budget);
    size_t spare = 0; /* what a cut section left of its share goes to the next ones */
    for (int i = 0; i < N_SECTIONS; i++) {
        if (budget[i] == DROPPED)
            continue;
        tg_buf_printf(&b, "\n\n%s:\n", section_heads[i]);
        size_t share = (size_t)budget[i] + (max ? spare : 0);
        spare = share - put_shortened(&b, texts[i], share);
    }
    return tg_buf_steal(&b);
}

char *tg_emit_description(const tg_manifest *m)
{
    return tg_emit_description_max(m, 0);
}

/*
 * Where subschemas sit in a 2020-12 schema. Walking only these (not every object member) keeps
 * a property that happens to be named "x-toolgen-..." and the values of enum/const/default/
 * examples untouched.
 */
static const char *const kw_schema_map[] = {"properties", "patternProperties", "$defs",
                                            "definitions", "dependentSchemas", NULL};
static const char *const kw_schema_one[] = {
    "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema", NULL};
static const char *const kw_schema_list[] = {"allOf", "anyOf", "oneOf", "prefixItems", NULL};

static void strip_private(cJSON *s, int depth)
{
    if (!cJSON_IsObject(s) || depth > 256)
        return;
    for (cJSON *c = s->child, *next; c; c = next) {
        next = c->next;
        if (tg_str_startswith(c->string, "x-toolgen-")) {
            cJSON_Delete(cJSON_DetachItemViaPointer(s, c));
            continue;
        }
        cJSON *sub;
        if ((tg_strlist_has(kw_schema_map, c->string) && cJSON_IsObject(c)) ||
            (tg_strlist_has(kw_schema_list, c->string) && cJSON_IsArray(c)) ||
            (strcmp(c->string, "items") == 0 && cJSON_IsArray(c))) {
            cJSON_ArrayForEach(sub, c) strip_private(sub, depth + 1);
        } else if (tg_strlist_has(kw_schema_one, c->string)) {
            strip_private(c, depth + 1);
        }
    }
}

static cJSON *client_copy(const cJSON *schema, bool keep_dialect)
{
    cJSON *s = cJSON_Duplicate(schema, true);
    if (!keep_dialect)
        cJSON_DeleteItemFromObjectCaseSensitive(s, "$schema");
    cJSON_DeleteItemFromObjectCaseSensitive(s, "$id");
    strip_private(s, 0);
    return s;
}

cJSON *tg_emit_client_schema(const cJSON *schema)
{
    return client_copy(schema, false);
}

cJSON *tg_emit_mcp_schema(const cJSON *schema)
{
    return client_copy(schema, true);
}

/* ---- the tools/call request ----------------------------------------------------------------- */

cJSON *tg_emit_call_request(const char *tool, const cJSON *args)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(r, "id", 1);
    cJSON_AddStringToObject(r, "method", "tools/call");
    cJSON *p = cJSON_AddObjectToObject(r, "params");
    cJSON_AddStringToObject(p, "name", tool);
    cJSON_AddItemToObject(p, "arguments",
                          args ? cJSON_Duplicate(args, true) : cJSON_CreateObject());
    return r;
}
