/*
 * openapi.c — `toolgen init --from-openapi` (openapi.h, docs/cli.md#init-from-openapi): the
 * document checked, its operations listed and named, each drafted (openapi_draft.c), and only
 * then, when every draft came out, the manifests written.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "app/drafts.h"
#include "app/openapi.h"
#include "app/openapi_int.h"
#include "base/buf.h"
#include "base/yamlout.h"

/* The first words of every manifest drafted here: how a re-run knows the drafts it may rewrite. */
#define DRAFT_MARK "# Drafted by `toolgen init --from-openapi`"

/* The methods the http runtime sends, in the order operations are listed. */
static const char *const methods[] = {"get", "put", "post", "delete", "patch", NULL};
/* OpenAPI's other operations: reported, not drafted. */
static const char *const other_methods[] = {"head", "options", "trace", NULL};

void tg_openapi_report_free(tg_openapi_report *r)
{
    tg_strv_free(&r->created);
    tg_strv_free(&r->updated);
    tg_strv_free(&r->unchanged);
    tg_strv_free(&r->kept);
    tg_strv_free(&r->skipped);
    tg_strv_free(&r->stale);
    tg_strv_free(&r->warnings);
}

static int check_document(oa_run *r)
{
    const cJSON *v = tg_json_get(r->root, "openapi");
    const char *ver = cJSON_IsString(v) ? v->valuestring : NULL;
    if (!cJSON_IsObject(r->root))
        return oa_fail(&r->c, "", "not an OpenAPI document (the top level is not a mapping)"), -1;
    if (!ver && tg_json_get(r->root, "swagger"))
        return oa_fail(&r->c, "/swagger", "Swagger 2.0 is not read; convert the document to "
                                          "OpenAPI 3 (e.g. with swagger2openapi) first"), -1;
    if (!ver || (strncmp(ver, "3.0", 3) != 0 && strncmp(ver, "3.1", 3) != 0))
        return oa_fail(&r->c, "/openapi", "expected `openapi: 3.0.x` or `3.1.x`, found %s; "
                                          "toolgen reads OpenAPI 3.0 and 3.1 documents",
                       ver ? ver : "none"), -1;
    r->c.v30 = strncmp(ver, "3.0", 3) == 0;
    const cJSON *paths = tg_json_get(r->root, "paths");
    if (!cJSON_IsObject(paths) || !paths->child)
        return oa_fail(&r->c, "/paths", "the document has no operations under `paths`"), -1;
    return 0;
}

/* servers[0].url with its variables at their defaults. Heap, or NULL with r->c.err. */
static char *server_url(oa_run *r)
{
    const cJSON *srv = cJSON_GetArrayItem(tg_json_get(r->root, "servers"), 0);
    const char *url = tg_json_get_string(srv, "url");
    if (!url)
        return oa_fail(&r->c, "/servers", "the document names no server; pass --base-url "
                                          "https://HOST[/PATH]");
    const cJSON *vars = tg_json_get(srv, "variables");
    tg_buf b = TG_BUF_INIT;
    for (const char *p = url; *p;) {
        const char *e = *p == '{' ? strchr(p, '}') : NULL;
        if (!e) {
            tg_buf_putc(&b, *p++);
            continue;
        }
        char *name = xstrndup(p + 1, (size_t)(e - p - 1));
        const char *def = tg_json_get_string(tg_json_get(vars, name), "default");
        free(name);
        if (!def) {
            tg_buf_free(&b);
            return oa_fail(&r->c, "/servers/0/url", "server variable in '%s' has no default; "
                                                    "give it one, or pass --base-url", url);
        }
        tg_buf_puts(&b, def);
        p = e + 1;
    }
    return tg_buf_steal(&b);
}

static bool loopback(const char *host_start)
{
    static const char *const hosts[] = {"localhost", "127.0.0.1", "[::1]", NULL};
    for (size_t i = 0; hosts[i]; i++) {
        size_t n = strlen(hosts[i]);
        if (strncmp(host_start, hosts[i], n) == 0 && strchr(":/", host_start[n]))
            return true;
    }
    return false;
}

/* r->base_url: --base-url or the document's server, https (or http to loopback) with a
 * literal host, no query, no trailing '/'. A remote http:// server becomes https://. */
static int base_url(oa_run *r, const char *given, tg_strv *warnings)
{
    char *url = given ? xstrdup(given) : server_url(r);
    if (!url)
        return -1;
    const char *where = given ? "--base-url" : "servers/0/url";
    if (strncmp(url, "http://", 7) == 0 && !loopback(url + 7)) {
        char *s = xasprintf("https://%s", url + 7);
        tg_strv_pushf(warnings, "%s %s is plain http to a remote host; the drafts use %s "
                                "(credentials never travel unencrypted)", where, url, s);
        free(url);
        url = s;
    }
    const char *host = strncmp(url, "https://", 8) == 0  ? url + 8
                       : strncmp(url, "http://", 7) == 0 ? url + 7 : NULL;
    size_t hn = host ? strcspn(host, ":/") : 0;
    bool ok = host && hn > 0 && strcspn(url, "?#{} \t") == strlen(url);
    for (size_t i = 0; ok && i < hn; i++)
        ok = isalnum((unsigned char)host[i]) || host[i] == '.' || host[i] == '-' ||
             (host == url + 7 && strchr("[]:", host[i]));
    if (!ok) {
        free(url);
        if (given)
            return oa_fail(&r->c, "", "--base-url %s: expected https://HOST[:PORT][/PATH] (or "
                                      "http:// to localhost)", given), -1;
        return oa_fail(&r->c, "/servers/0/url", "the server URL is relative or not a plain "
                                                "https://HOST[/PATH]; pass --base-url "
                                                "https://HOST[/PATH]"), -1;
    }
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        url[--n] = '\0';
    r->base_url = url;
    return 0;
}

static bool excluded(const oa_run *r, const oa_op *op)
{
    const cJSON *levels[] = {op->op, op->item, r->root};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *x = tg_json_get(tg_json_get(levels[i], "x-toolgen"), "exclude");
        if (!x && cJSON_IsObject(tg_json_get(levels[i], "x-mcp")))
            x = tg_json_get(tg_json_get(levels[i], "x-mcp"), "exclude");
        if (cJSON_IsBool(x))
            return cJSON_IsTrue(x);
        x = tg_json_get(levels[i], "x-mcp"); /* openapi-mcp-generator's x-mcp: false */
        if (cJSON_IsBool(x))
            return cJSON_IsFalse(x);
    }
    return false;
}

static const char *upper(const char *m, char buf[8])
{
    size_t i = 0;
    for (; m[i] && i < 7; i++)
        buf[i] = (char)toupper((unsigned char)m[i]);
    buf[i] = '\0';
    return buf;
}

static void ops_free(oa_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ops[i].where);
        free(ops[i].name);
    }
    free(ops);
}

/* The name of op: x-toolgen name (checked), else from its operationId or method and path. */
static char *name_of(oa_run *r, const oa_op *op, tg_strv *taken)
{
    const cJSON *x = tg_json_get(tg_json_get(op->op, "x-toolgen"), "name");
    if (!x && cJSON_IsObject(tg_json_get(op->op, "x-mcp")))
        x = tg_json_get(tg_json_get(op->op, "x-mcp"), "name");
    const char *hinted = oa_hints_lookup(&r->hints, op, "rename");
    if (x || hinted) {
        const char *s = hinted ? hinted : cJSON_IsString(x) ? x->valuestring : "";
        size_t n = strlen(s);
        bool ok = n > 0 && n <= (size_t)r->budget && islower((unsigned char)s[0]) &&
                  strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
        if (!ok || (taken->n && tg_strlist_has((const char *const *)taken->v, s)))
            return oa_fail(&r->c, op->where, "%s name '%s' %s", hinted ? "the hints file's" : "x-toolgen", s,
                           ok ? "is taken by another operation; choose another"
                              : "must be snake_case (a-z, 0-9, _), start with a letter and fit "
                                "the name budget");
        tg_strv_push(taken, s);
        return xstrdup(s);
    }
    char *base = oa_tool_name(tg_json_get_string(op->op, "operationId"), op->method, op->path,
                              r->budget);
    char *key = xasprintf("%s %s", op->method, op->path);
    char *name = oa_unique_name(base, key, r->budget, taken);
    free(key);
    free(base);
    return name;
}

/* The operations to draft, in document order; skipped ones reported. NULL (with *n 0) and
 * r->c.err on a bad name. */
static oa_op *list_ops(oa_run *r, const tg_openapi_opts *o, tg_openapi_report *rep, size_t *n)
{
    size_t cap = 16;
    oa_op *ops = xmalloc(cap * sizeof *ops);
    tg_strv taken = TG_STRV_INIT;
    *n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, tg_json_get(r->root, "paths"))
    {
        char up[8];
        for (const char *const *m = other_methods; *m; m++)
            if (tg_json_get(item, *m))
                tg_strv_pushf(&rep->skipped, "%s %s: the http runtime does not send %s",
                              upper(*m, up), item->string, up);
        for (const char *const *m = methods; *m; m++) {
            const cJSON *op = tg_json_get(item, *m);
            if (!op)
                continue;

            tg_buf w = TG_BUF_INIT;
            tg_buf_puts(&w, "/paths/");
            tg_buf_pointer_token(&w, item->string);
            tg_buf_printf(&w, "/%s", *m);
            oa_op cur = {.path = item->string, .method = *m, .op = op, .item = item,
                         .where = tg_buf_steal(&w)};
            const cJSON *xt = tg_json_get(op, "x-toolgen");
            if (!cJSON_IsObject(op) || (xt && !cJSON_IsObject(xt))) {
                oa_fail(&r->c, cur.where, "an operation and its x-toolgen must be mappings");
                free(cur.where);
                tg_strv_free(&taken);
                ops_free(ops, *n);
                *n = 0;
                return NULL;
            }
            const char *why = NULL;
            int hint = oa_hints_select(&r->hints, &cur, &why);
            if (hint == 0 && excluded(r, &cur))
                why = "excluded by x-toolgen / x-mcp";
            else if (hint >= 0 && o->read_only && strcmp(*m, "get") != 0)
                why = "not a read (--read-only)";
            if (why) {
                tg_strv_pushf(&rep->skipped, "%s %s: %s", upper(*m, up), item->string, why);
                free(cur.where);
                continue;
            }
            cur.name = name_of(r, &cur, &taken);
            if (*n == cap)
                ops = xrealloc(ops, (cap *= 2) * sizeof *ops);
            ops[(*n)++] = cur;
            if (!cur.name) {
                tg_strv_free(&taken);
                ops_free(ops, *n);
                *n = 0;
                return NULL;
            }
        }
    }
    tg_strv_free(&taken);
    return ops;
}

/* ---- writing ------------------------------------------------------------------------------- */

static char *manifest_text(const oa_run *r, const oa_op *op, const cJSON *m)
{
    tg_buf b = TG_BUF_INIT;
    const char *id = tg_json_get_string(op->op, "operationId");
    char up[8];
    tg_buf_printf(&b, DRAFT_MARK " from %s: %s %s", r->source,
                  upper(op->method, up), op->path);
    if (id)
        tg_buf_printf(&b, " (operationId %s)", id);
    tg_buf_puts(&b, ".\n# Review it, then move it past draft; while its status is draft, re-running "
                    "init --from-openapi\n# rewrites it (docs/cli.md#init-from-openapi).\n");
    tg_yaml_write(&b, m, 0);
    return tg_buf_steal(&b);
}

/* ---- the command ------------------------------------------------------------------------------ */

/* Every operation drafted in memory; NULL with r->c.err when one fails. */
static tg_draft *draft_all(oa_run *r, const oa_op *ops, size_t n, tg_openapi_report *rep,
                          size_t *nd)
{
    tg_draft *ds = xcalloc(n ? n : 1, sizeof *ds);
    *nd = 0;
    for (size_t i = 0; i < n; i++) {
        char *skip = NULL;
        cJSON *m = oa_draft(r, &ops[i], &skip);
        if (!m && skip) {
            char up[8];
            tg_strv_pushf(&rep->skipped, "%s %s: %s", upper(ops[i].method, up), ops[i].path,
                          skip);
            free(skip);
            continue;
        }
        if (!m) {
            tg_drafts_free(ds, *nd);
            *nd = 0;
            return NULL;
        }
        ds[*nd].name = xstrdup(ops[i].name);
        ds[*nd].text = manifest_text(r, &ops[i], m);
        ds[(*nd)++].manifest = m;
    }
    return ds;
}

static int setup(oa_run *r, const tg_openapi_opts *o, tg_doc *doc, tg_err *err)
{
    if (tg_doc_load(o->file, NULL, doc, err) != 0)
        return -2;
    r->root = doc->root;
    r->c.doc = doc;
    r->c.cur = doc->root;
    r->c.err = err;
    r->c.allow_external = o->allow_external_refs;
    const char *slash = strrchr(o->file, '/');
    r->c.base_dir = slash ? xstrndup(o->file, (size_t)(slash - o->file)) : xstrdup(".");
    r->source = slash ? slash + 1 : o->file;
    r->budget = o->name_budget ? o->name_budget : TG_OPENAPI_NAME_BUDGET;
    r->reg = js_registry_new();
    r->c.reg = r->reg;
    if (r->budget < 16 || r->budget > 64)
        return tg_err_set(err, "--name-budget %d: choose 16 to 64 characters", r->budget), -2;
    if (check_document(r) != 0)
        return -2;
    char *hints = o->hints_file ? xstrdup(o->hints_file) : tg_path_join(o->dir, "toolgen.hints.yaml");
    int hrc = oa_hints_load(&r->hints, hints, o->hints_file != NULL, r->reg, err);
    free(hints);
    if (hrc != 0)
        return -2;
    const cJSON *x = tg_json_get(tg_json_get(r->root, "x-toolgen"), "auth_env");
    const char *title = tg_json_get_string(tg_json_get(r->root, "info"), "title");
    r->auth_env = cJSON_IsString(x) ? xstrdup(x->valuestring) : oa_env_name(title);
    if (strspn(r->auth_env, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(r->auth_env) ||
        isdigit((unsigned char)r->auth_env[0]))
        return oa_fail(&r->c, "/x-toolgen/auth_env", "'%s' is not an environment variable name "
                                                     "(A-Z, 0-9, _)", r->auth_env), -2;
    return 0;
}

int tg_app_init_openapi(const tg_openapi_opts *o, tg_openapi_report *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    oa_run r = {0};
    tg_doc doc = {0};
    int rc = setup(&r, o, &doc, err);
    if (rc == 0 && base_url(&r, o->base_url, &out->warnings) != 0)
        rc = -2;
    size_t nops = 0, nd = 0;
    oa_op *ops = rc == 0 ? list_ops(&r, o, out, &nops) : NULL;
    tg_draft *ds = ops ? draft_all(&r, ops, nops, out, &nd) : NULL;
    if (rc == 0 && !ds)
        rc = -2;
    if (rc == 0) {
        out->tools = nd;
        if (nd > TG_OPENAPI_MANY_TOOLS)
            tg_strv_pushf(&out->warnings,
                          "%zu tools would be exposed: more than %d (Cursor sends 40 tools, VS Code "
                          "and OpenAI cap at 128); leave operations out with x-toolgen: "
                          "{exclude: true} or --read-only",
                          nd, TG_OPENAPI_MANY_TOOLS);
        if (r.hints.doc.root)
            oa_hints_unused(&r.hints, &out->warnings);
        if (r.bad_examples)
            tg_strv_pushf(&out->warnings, "%zu drafts have an example that does not fit their "
                                          "schemas (`toolgen lint` names them): fill them in by "
                                          "hand", r.bad_examples);
        if (r.c.cuts)
            tg_strv_pushf(&out->warnings, "%zu $refs were cut: recursive (a schema is inlined "
                                          "%d levels into itself), nested deeper than %d, or "
                                          "past the size budget (%d schema objects a tool, %d "
                                          "in all); the cut places accept any value",
                          r.c.cuts, OA_REF_REPEAT, OA_REF_DEPTH, OA_MAX_NODES, OA_MAX_TOTAL_NODES);
        tg_drafts_opts wo = {.dir = o->dir, .mark = DRAFT_MARK, .source = r.source,
                             .command = "init --from-openapi", .dry_run = o->dry_run,
                             .rename = "rename the operation with x-toolgen or the hints file",
                             .gone = "its operation is gone from the document or left out"};
        tg_drafts_out dout = {&out->created, &out->updated, &out->unchanged, &out->kept,
                              &out->stale, &out->initialised};
        rc = tg_drafts_write(&wo, ds, nd, &dout, err);
    }
    tg_drafts_free(ds, nd);
    if (ops)
        ops_free(ops, nops);
    free(r.base_url);
    free(r.auth_env);
    oa_ctx_free(&r.c);
    oa_hints_free(&r.hints);
    js_registry_free(r.reg);
    tg_doc_free(&doc);
    return rc;
}
