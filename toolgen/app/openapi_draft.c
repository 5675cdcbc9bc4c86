/*
 * openapi_draft.c — one OpenAPI operation as a draft manifest of the http runtime
 * (openapi_int.h, docs/cli.md#init-from-openapi).
 *
 * Parameters become input properties named by identifiers (templates name identifiers only,
 * docs/manifest.md#http), a JSON request body the property `body` sent whole; the first 2xx
 * response gives output_schema (an answer that is not an object is wrapped as {result: ...}:
 * tool results are objects), the other responses the error codes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "app/drafts.h"
#include "app/openapi_int.h"
#include "base/buf.h"

/* The parts of the manifest built from the request side. */
typedef struct draft {
    cJSON *props, *required;         /* input_schema */
    cJSON *query, *headers;          /* implementation.request */
    tg_buf url;
    cJSON *example_in;               /* arguments of the example (explicit values only) */
    bool explicit_example;           /* the document gave an example of something */
    tg_strv taken;                   /* property names in use */
    tg_strv notes;                   /* limitations */
    tg_strv path_params, query_params, header_params;
    char *body_prop;                 /* the body's property, or NULL */
    const cJSON *body_examples;      /* the body media type's `examples` map */
} draft;

static void draft_free(draft *d)
{
    cJSON_Delete(d->props);
    cJSON_Delete(d->required);
    cJSON_Delete(d->query);
    cJSON_Delete(d->headers);
    cJSON_Delete(d->example_in);
    tg_buf_free(&d->url);
    tg_strv_free(&d->taken);
    tg_strv_free(&d->notes);
    tg_strv_free(&d->path_params);
    tg_strv_free(&d->query_params);
    tg_strv_free(&d->header_params);
    free(d->body_prop);
}

const cJSON *oa_ext(const oa_run *r, const oa_op *op, const char *key)
{
    const cJSON *levels[] = {op->op, op->item, r->root};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = tg_json_get(tg_json_get(levels[i], "x-toolgen"), key);
        if (!v && cJSON_IsObject(tg_json_get(levels[i], "x-mcp")))
            v = tg_json_get(tg_json_get(levels[i], "x-mcp"), key);
        if (v)
            return v;
    }
    return NULL;
}

/* Text cut to at most max bytes at a character boundary, blanks collapsed to one space. */
static char *text_cut(const char *s, size_t max)
{
    tg_buf b = TG_BUF_INIT;
    for (; s && *s; s++) {
        if (isspace((unsigned char)*s)) {
            if (b.len && b.data[b.len - 1] != ' ')
                tg_buf_putc(&b, ' ');
        } else {
            tg_buf_putc(&b, *s);
        }
    }
    size_t n = b.len;
    if (n > max) {
        n = max - 3;
        while (n > 0 && (b.data[n] & 0xC0) == 0x80)
            n--;
        tg_buf_truncate(&b, n);
        tg_buf_puts(&b, "...");
    }
    while (b.len && b.data[b.len - 1] == ' ')
        tg_buf_truncate(&b, b.len - 1);
    return b.len ? tg_buf_steal(&b) : (tg_buf_free(&b), NULL);
}

static char *sub(const char *where, const char *a, int i)
{
    tg_buf w = TG_BUF_INIT;
    tg_buf_puts(&w, where);
    tg_buf_putc(&w, '/');
    tg_buf_pointer_token(&w, a);
    if (i >= 0)
        tg_buf_printf(&w, "/%d", i);
    return tg_buf_steal(&w);
}

/* The first value of an OpenAPI `examples` map ({name: {value}}) or its `example`. */
static const cJSON *given_example(oa_run *r, const cJSON *obj, const char *where)
{
    const cJSON *ex = tg_json_get(obj, "example");
    if (ex && !cJSON_IsNull(ex))
        return ex;
    const cJSON *map = tg_json_get(obj, "examples");
    if (cJSON_IsObject(map) && map->child) {
        const cJSON *first = oa_deref(&r->c, map->child, where);
        const cJSON *v = first ? tg_json_get(first, "value") : NULL;
        return cJSON_IsNull(v) ? NULL : v;
    }
    return NULL;
}

/* The JSON media type of a content map: application/json, else the first *json* one. */
static const cJSON *json_media(const cJSON *content)
{
    if (!cJSON_IsObject(content))
        return NULL;
    const cJSON *m = tg_json_get(content, "application/json");
    if (cJSON_IsObject(m))
        return m;
    cJSON_ArrayForEach(m, content)
    {
        if (cJSON_IsObject(m) && strstr(m->string, "json"))
            return m;
    }
    return NULL;
}

/* ---- parameters ------------------------------------------------------------------------------ */

static const char *const ignored_headers[] = {"accept", "content-type", "authorization", NULL};

static bool header_name_ok(const char *s)
{
    char low[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof low)
        return false;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    if (tg_strlist_has(ignored_headers, low))
        return false;
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* The schema of a parameter: its `schema`, else that of its `content`'s first media type. */
static cJSON *param_schema(oa_run *r, const cJSON *p, const char *where)
{
    const cJSON *s = tg_json_get(p, "schema");
    char *w = sub(where, "schema", -1);
    if (!s && cJSON_IsObject(tg_json_get(p, "content")) && tg_json_get(p, "content")->child) {
        const cJSON *media = tg_json_get(p, "content")->child;
        free(w);
        w = sub(where, "content", -1);
        s = tg_json_get(media, "schema");
    }
    cJSON *out = s ? oa_schema(&r->c, s, w, OA_IN) : cJSON_CreateObject();
    free(w);
    const char *desc = tg_json_get_string(p, "description");
    if (out && cJSON_IsObject(out) && desc && !tg_json_get(out, "description")) {
        char *d = text_cut(desc, 1000);
        if (d)
            cJSON_AddStringToObject(out, "description", d);
        free(d);
    }
    return out;
}

/* One parameter (dereferenced) onto the draft. 0, or -1 with r->c.err. */
static int add_param(oa_run *r, draft *d, const cJSON *p, const char *where)
{
    const char *name = tg_json_get_string(p, "name"), *in = tg_json_get_string(p, "in");
    if (!name || !in) {
        oa_fail(&r->c, where, "a parameter needs `name` and `in`");
        return -1;
    }
    if (strcmp(in, "cookie") == 0 ||
        (strcmp(in, "header") == 0 && !header_name_ok(name))) {
        tg_strv_pushf(&d->notes, "The %s parameter %s is not sent (the http runtime sets "
                                 "Accept, Content-Type and credentials itself and sends no cookies).",
                      in, name);
        return 0;
    }
    cJSON *schema = param_schema(r, p, where);
    if (!schema)
        return -1;
    char *id = oa_ident(name, &d->taken);
    cJSON_AddItemToObject(d->props, id, schema);
    bool req = strcmp(in, "path") == 0 || cJSON_IsTrue(tg_json_get(p, "required"));
    if (req)
        cJSON_AddItemToArray(d->required, cJSON_CreateString(id));
    const cJSON *ty = tg_json_get(schema, "type");
    bool structured = (cJSON_IsString(ty) && (!strcmp(ty->valuestring, "array") ||
                                             !strcmp(ty->valuestring, "object"))) ||
                      tg_json_array_has_string(ty, "array") || tg_json_array_has_string(ty, "object");
    if (structured && strcmp(in, "path") != 0)
        tg_strv_pushf(&d->notes, "The %s parameter %s is a list or an object: the http runtime "
                                 "sends it as JSON text (e.g. [\"a\",\"b\"]), not in the form "
                                 "OpenAPI's `style` describes (repeated or comma-separated); check "
                                 "what the service accepts.", in, name);
    char *tmpl = xasprintf("{%s}", id);
    if (strcmp(in, "query") == 0) {
        cJSON_AddStringToObject(d->query, name, tmpl);
        tg_strv_push(&d->query_params, id);
    } else if (strcmp(in, "header") == 0) {
        cJSON_AddStringToObject(d->headers, name, tmpl);
        tg_strv_push(&d->header_params, id);
    } else {
        tg_strv_push(&d->path_params, name);
        tg_strv_push(&d->path_params, id);
    }
    free(tmpl);
    const cJSON *ex = given_example(r, p, where);
    if (ex) {
        d->explicit_example = true;
        cJSON_AddItemToObject(d->example_in, id, cJSON_Duplicate(ex, true));
    }
    free(id);
    return r->c.failed ? -1 : 0;
}

/* The parameters of the path item, then of the operation (which override those of the path
 * item with the same name and location). */
static int add_params(oa_run *r, const oa_op *op, draft *d)
{
    const cJSON *lists[2] = {tg_json_get(op->item, "parameters"), tg_json_get(op->op, "parameters")};
    char *where_item = xstrndup(op->where, (size_t)(strrchr(op->where, '/') - op->where));
    const char *wheres[2] = {where_item, op->where};
    int rc = 0;
    for (int l = 0; l < 2 && rc == 0; l++) {
        const cJSON *p;
        int i = 0;
        cJSON_ArrayForEach(p, lists[l])
        {
            char *w = sub(wheres[l], "parameters", i++);
            const cJSON *pd = oa_deref(&r->c, p, w);
            bool overridden = false;
            for (const cJSON *q = l == 0 && lists[1] ? lists[1]->child : NULL; pd && q; q = q->next) {
                const cJSON *qd = oa_deref(&r->c, q, w);
                const char *n1 = tg_json_get_string(pd, "name"), *n2 = tg_json_get_string(qd, "name");
                const char *i1 = tg_json_get_string(pd, "in"), *i2 = tg_json_get_string(qd, "in");
                overridden |= n1 && n2 && i1 && i2 && !strcmp(n1, n2) && !strcmp(i1, i2);
            }
            rc = !pd ? -1 : overridden ? 0 : add_param(r, d, pd, w);
            free(w);
            if (rc)
                break;
        }
    }
    free(where_item);
    return rc;
}

/* The URL template: the base URL, then the path with {name} as {identifier}. */
static int url_template(oa_run *r, const oa_op *op, draft *d)
{
    tg_buf_puts(&d->url, r->base_url);
    for (const char *p = op->path; *p;) {
        if (*p != '{') {
            unsigned char ch = (unsigned char)*p++;
            if (ch == '}' || isspace(ch) || ch < 0x20)
                tg_buf_printf(&d->url, "%%%02X", ch);
            else
                tg_buf_putc(&d->url, (char)ch);
            continue;
        }
        const char *e = strchr(p, '}');
        char *name = e ? xstrndup(p + 1, (size_t)(e - p - 1)) : xstrdup(p + 1);
        const char *id = NULL;
        for (size_t i = 0; i + 1 < d->path_params.n; i += 2)
            if (strcmp(d->path_params.v[i], name) == 0)
                id = d->path_params.v[i + 1];
        if (!e || !id) {
            oa_fail(&r->c, op->where, "the path's parameter {%s} is not declared; add it under "
                                      "`parameters` with `in: path`", name);
            free(name);
            return -1;
        }
        tg_buf_printf(&d->url, "{%s}", id);
        free(name);
        p = e + 1;
    }
    return 0;
}

/* ---- request body ---------------------------------------------------------------------------- */

/* The JSON request body as the property `body`. 0; 1 with *skip when the operation needs a
 * body the runtime cannot send; -1 with r->c.err. */
static int add_body(oa_run *r, const oa_op *op, draft *d, char **skip)
{
    const cJSON *rb0 = tg_json_get(op->op, "requestBody");
    if (!rb0)
        return 0;
    char *w = sub(op->where, "requestBody", -1);
    const cJSON *rb = oa_deref(&r->c, rb0, w);
    int rc = rb ? 0 : -1;
    bool required = cJSON_IsTrue(tg_json_get(rb, "required"));
    const cJSON *media = rb ? json_media(tg_json_get(rb, "content")) : NULL;
    if (rb && (!strcmp(op->method, "get") || !strcmp(op->method, "delete"))) {
        tg_strv_pushf(&d->notes, "The request body the API describes for %s is not sent "
                                 "(the http runtime sends none with GET or DELETE).", op->method);
    } else if (rb && !media) {
        const cJSON *first = tg_json_get(rb, "content");
        const char *type = first && first->child ? first->child->string : "none";
        if (required) {
            *skip = xasprintf("its request body is %s; the http runtime sends JSON only", type);
            rc = 1;
        } else {
            tg_strv_pushf(&d->notes, "The optional %s request body is not sent.", type);
        }
    } else if (rb) {
        char *mw = sub(w, "content", -1);
        char *mt = sub(mw, media->string, -1);
        char *sw = sub(mt, "schema", -1);
        free(mt);
        const cJSON *s = tg_json_get(media, "schema");
        cJSON *schema = s ? oa_schema(&r->c, s, sw, OA_IN) : cJSON_CreateObject();
        const char *desc = tg_json_get_string(rb, "description");
        char *dc = text_cut(desc, 1000);
        if (schema && cJSON_IsObject(schema) && dc && !tg_json_get(schema, "description"))
            cJSON_AddStringToObject(schema, "description", dc);
        free(dc);
        d->body_prop = oa_ident("body", &d->taken);
        if (schema)
            cJSON_AddItemToObject(d->props, d->body_prop, schema);
        if (required)
            cJSON_AddItemToArray(d->required, cJSON_CreateString(d->body_prop));
        const cJSON *ex = given_example(r, media, sw);
        if (ex) {
            d->explicit_example = true;
            cJSON_AddItemToObject(d->example_in, d->body_prop, cJSON_Duplicate(ex, true));
        }
        d->body_examples = tg_json_get(media, "examples");
        rc = r->c.failed || !schema ? -1 : 0;
        free(mw);
        free(sw);
    }
    free(w);
    return rc;
}

/* ---- response ------------------------------------------------------------------------------ */

typedef struct answer {
    cJSON *schema;   /* output_schema */
    cJSON *response; /* implementation.response */
    cJSON *errors;   /* error_codes */
    const cJSON *example; /* the document's example of the answer, or NULL */
    bool wrapped;
    char *returns;   /* docs.returns */
} answer;

static bool object_root(const cJSON *s)
{
    const char *t = tg_json_get_string(s, "type");
    if (t)
        return strcmp(t, "object") == 0;
    if (tg_json_get(s, "type"))
        return false; /* a list of types: an answer may be null or other than an object */
    if (tg_json_get(s, "properties") || tg_json_get(s, "additionalProperties"))
        return true;
    const cJSON *all = tg_json_get(s, "allOf"), *b;
    bool any = false;
    cJSON_ArrayForEach(b, all)
    {
        if (!object_root(b))
            return false;
        any = true;
    }
    return any;
}

/* The error code of an HTTP status (as the http runtime maps it, rt_http.c). */
static const char *status_code(const char *k)
{
    static const struct {
        const char *status, *code;
    } rows[] = {{"401", "UNAUTHORIZED"}, {"403", "FORBIDDEN"},  {"404", "NOT_FOUND"},
                {"409", "CONFLICT"},     {"408", "TIMEOUT"},    {"504", "TIMEOUT"},
                {"429", "RATE_LIMITED"}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (strcmp(k, rows[i].status) == 0)
            return rows[i].code;
    if (k[0] == '4')
        return "INVALID_INPUT";
    return k[0] == '5' || strcmp(k, "default") == 0 ? "UPSTREAM_ERROR" : NULL;
}

static cJSON *error_codes(const cJSON *responses)
{
    static const char *const order[] = {"INVALID_INPUT", "NOT_FOUND",    "CONFLICT",
                                        "UNAUTHORIZED",  "FORBIDDEN",    "TIMEOUT",
                                        "RATE_LIMITED",  "UPSTREAM_ERROR", NULL};
    bool seen[8] = {false};
    seen[5] = seen[7] = true; /* any request can time out or meet a failing service */
    const cJSON *resp;
    cJSON_ArrayForEach(resp, responses)
    {
        const char *code = status_code(resp->string);
        int i = code ? tg_strlist_index(order, code) : -1;
        if (i >= 0)
            seen[i] = true;
    }
    cJSON *out = cJSON_CreateArray();
    for (int i = 0; order[i]; i++)
        if (seen[i])
            cJSON_AddItemToArray(out, cJSON_CreateString(order[i]));
    return out;
}

/* The success response: the lowest 2xx status, else 2XX; NULL when there is none. */
static const cJSON *success(const cJSON *responses)
{
    const cJSON *best = NULL, *resp;
    cJSON_ArrayForEach(resp, responses)
    {
        const char *k = resp->string;
        if (k[0] == '2' && (!best || strcmp(k, best->string) < 0))
            best = resp;
    }
    return best;
}

static cJSON *text_output(const char *why)
{
    cJSON *s = cJSON_CreateObject(), *props = cJSON_CreateObject(), *t = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON_AddStringToObject(t, "type", "string");
    cJSON_AddStringToObject(t, "description", why);
    cJSON_AddItemToObject(props, "text", t);
    cJSON_AddItemToObject(s, "properties", props);
    cJSON *req = cJSON_CreateArray();
    cJSON_AddItemToArray(req, cJSON_CreateString("text"));
    cJSON_AddItemToObject(s, "required", req);
    return s;
}

/* schema with `type: object` as its first member (where a reader looks). */
static cJSON *typed_object(cJSON *schema)
{
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "type", "object");
    while (schema->child) {
        cJSON *m = cJSON_DetachItemViaPointer(schema, schema->child);
        cJSON_AddItemToObject(out, m->string, m);
    }
    cJSON_Delete(schema);
    return out;
}

/* The object root of an answer schema: itself when it describes an object (type: object
 * added when only implied), else {result: it} with response.wrap. */
static void shape_output(answer *a, cJSON *schema)
{
    if (object_root(schema)) {
        a->schema = tg_json_get(schema, "type") ? schema : typed_object(schema);
        return;
    }
    a->wrapped = true;
    a->schema = cJSON_CreateObject();
    cJSON_AddStringToObject(a->schema, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(a->schema, "properties");
    cJSON_AddItemToObject(props, "result", schema);
    cJSON *req = cJSON_AddArrayToObject(a->schema, "required");
    cJSON_AddItemToArray(req, cJSON_CreateString("result"));
    cJSON_AddStringToObject(a->response, "wrap", "result");
}

/* The answer of the operation: output schema, response handling, error codes. 0, or -1
 * with r->c.err. */
static int build_answer(oa_run *r, const oa_op *op, answer *a)
{
    char *w = sub(op->where, "responses", -1);
    const cJSON *responses = tg_json_get(op->op, "responses");
    if (responses && !cJSON_IsObject(responses)) {
        oa_fail(&r->c, w, "`responses` must be a mapping of status codes to responses");
        free(w);
        return -1;
    }
    const cJSON *ok0 = success(responses);
    char *ow = ok0 ? sub(w, ok0->string, -1) : NULL;
    const cJSON *ok = ok0 ? oa_deref(&r->c, ok0, ow) : NULL;
    const cJSON *media = json_media(tg_json_get(ok, "content"));
    a->response = cJSON_CreateObject();
    a->errors = error_codes(responses);
    char *desc = text_cut(tg_json_get_string(ok, "description"), 600);
    int rc = 0;
    if (media) {
        cJSON_AddStringToObject(a->response, "format", "json");
        char *cw = sub(ow, "content", -1), *mw = sub(cw, media->string, -1);
        char *sw = sub(mw, "schema", -1);
        free(cw);
        free(mw);
        const cJSON *s = tg_json_get(media, "schema");
        cJSON *schema = s ? oa_schema(&r->c, s, sw, OA_OUT) : cJSON_CreateObject();
        free(sw);
        if (schema) {
            shape_output(a, schema);
            a->example = given_example(r, media, ow);
            a->returns = xasprintf("%s%sThe service's JSON answer%s.", desc ? desc : "",
                                   !desc ? "" : strchr(".!?", desc[strlen(desc) - 1]) ? " " : ". ",
                                   a->wrapped ? " as `result`" : "");
        } else {
            rc = -1;
        }
    } else {
        cJSON_AddStringToObject(a->response, "format", "text");
        a->schema = text_output("The service's answer as text (empty when it sends none).");
        a->returns = xasprintf("%s%s{text}: the service's answer as text (empty when it sends "
                               "none).", desc ? desc : "",
                               !desc ? "" : strchr(".!?", desc[strlen(desc) - 1]) ? " " : ". ");
    }
    free(desc);
    free(ow);
    free(w);
    return r->c.failed ? -1 : rc;
}

static void answer_free(answer *a)
{
    cJSON_Delete(a->schema);
    cJSON_Delete(a->response);
    cJSON_Delete(a->errors);
    free(a->returns);
}

/* ---- credentials, examples, the manifest ----------------------------------------------------- */

/* implementation.auth from the operation's security requirements (else the document's): the
 * first scheme the runtime can send (a bearer token or an API key header) wins. */
static cJSON *auth_of(oa_run *r, const oa_op *op, char **prereq, tg_strv *notes)
{
    const cJSON *sec = tg_json_get(op->op, "security");
    if (!sec)
        sec = tg_json_get(r->root, "security");
    const cJSON *schemes = tg_json_get(tg_json_get(r->root, "components"), "securitySchemes");
    cJSON *auth = cJSON_CreateObject();
    const cJSON *req, *k;
    bool unsupported = false;
    cJSON_ArrayForEach(req, sec)
    {
        if (!cJSON_IsObject(req))
            continue; /* not a security requirement: nothing to send */
        cJSON_ArrayForEach(k, req)
        {
            const cJSON *s = tg_json_get(schemes, k->string);
            const char *type = tg_json_get_string(s, "type"), *sch = tg_json_get_string(s, "scheme");
            const char *in = tg_json_get_string(s, "in"), *hn = tg_json_get_string(s, "name");
            bool bearer = type && ((!strcmp(type, "http") && sch && !strcasecmp(sch, "bearer")) ||
                                   !strcmp(type, "oauth2") || !strcmp(type, "openIdConnect"));
            bool header = type && !strcmp(type, "apiKey") && in && !strcmp(in, "header") && hn &&
                          strspn(hn, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") ==
                              strlen(hn) && *hn;
            if (!bearer && !header) {
                unsupported = true;
                continue;
            }
            cJSON_AddStringToObject(auth, "type", bearer ? "bearer" : "header");
            cJSON_AddStringToObject(auth, "env", r->auth_env);
            if (header)
                cJSON_AddStringToObject(auth, "header", hn);
            *prereq = xasprintf("The environment variable %s must hold the API's credential (%s, "
                                "scheme %s of the document) where toolgen runs or serves the tool.",
                                r->auth_env, bearer ? "sent as a bearer token" : hn, k->string);
            return auth;
        }
    }
    if (unsupported)
        tg_strv_push(notes, "The API's security scheme (basic auth, or an API key in the query "
                            "or a cookie) is not sent by the http runtime; calls go without "
                            "credentials.");
    cJSON_AddStringToObject(auth, "type", "none");
    *prereq = xstrdup("None.");
    return auth;
}

static cJSON *example_entry(const char *name, const char *desc, const cJSON *in, const cJSON *out)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    if (desc)
        cJSON_AddStringToObject(e, "description", desc);
    cJSON_AddItemToObject(e, "input", cJSON_Duplicate(in, true));
    cJSON_AddItemToObject(e, "output", cJSON_Duplicate(out, true));
    return e;
}

static cJSON *test_entry(const char *name, const cJSON *in)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddStringToObject(t, "category", "normal");
    cJSON_AddStringToObject(t, "description", "The document's example, sent to the service; "
                                              "the answer must fit output_schema.");
    cJSON_AddItemToObject(t, "input", cJSON_Duplicate(in, true));
    cJSON *expect = cJSON_AddObjectToObject(t, "expect");
    cJSON_AddTrueToObject(expect, "schema_valid");
    return t;
}

/* A compiled schema, or NULL when it does not compile (lint reports that). */
static js_schema *compile(oa_run *r, const cJSON *schema)
{
    tg_err e = {0};
    return js_compile(r->reg, schema, &(js_options){0}, &e);
}

static bool fits(const js_schema *js, const cJSON *v)
{
    js_errors errs = {0};
    bool ok = js && js_validate(js, v, &errs);
    js_errors_free(&errs);
    return ok;
}

/* The first of the candidates (the document's, then made from the schema) that fits js; the
 * last when none does (and *bad set). Takes both. */
static cJSON *pick(const js_schema *js, cJSON *given, cJSON *made, bool *bad)
{
    if (given && fits(js, given)) {
        cJSON_Delete(made);
        return given;
    }
    cJSON_Delete(given);
    *bad |= !fits(js, made);
    return made;
}

/* The output of the example: the document's example of the answer, else one made from the
 * schema. */
static cJSON *example_output(const answer *a, const cJSON *schema, const js_schema *js, bool *bad,
                             bool *given)
{
    cJSON *doc = NULL;
    if (a->example && !a->wrapped) {
        doc = cJSON_Duplicate(a->example, true);
    } else if (a->example) {
        doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "result", cJSON_Duplicate(a->example, true));
    }
    cJSON *made = oa_example_value(schema, 0);
    *given = doc && fits(js, doc);
    return pick(js, doc, made, bad);
}

/* The arguments of the example: the document's values over ones made from the schema. */
static cJSON *example_input(const draft *d, const cJSON *in_schema, const js_schema *js,
                            bool *bad, bool *given)
{
    cJSON *made = oa_example_value(in_schema, 0);
    cJSON *doc = NULL;
    if (d->explicit_example) {
        doc = cJSON_Duplicate(made, true);
        for (const cJSON *g = d->example_in->child; g; g = g->next)
            oa_set(doc, g->string, cJSON_Duplicate(g, true));
    }
    *given = doc && fits(js, doc);
    return pick(js, doc, made, bad);
}

/* examples (and tests, from the examples the document gives) onto m. An example that does not
 * fit the drafted schemas (real documents have such) is replaced by one made from the schema. */
static void add_examples(oa_run *r, draft *d, const answer *a, const cJSON *in_schema, cJSON *m)
{
    const cJSON *out_schema = tg_json_get(m, "output_schema");
    js_schema *in_js = compile(r, in_schema), *out_js = compile(r, out_schema);
    bool bad = false, in_given = false, out_given = false;
    cJSON *out = example_output(a, out_schema, out_js, &bad, &out_given);
    cJSON *in = example_input(d, in_schema, in_js, &bad, &in_given);
    cJSON *examples = cJSON_AddArrayToObject(m, "examples");
    cJSON *tests = cJSON_CreateArray();
    tg_strv names = TG_STRV_INIT;
    const cJSON *named;
    int n = 0;
    const cJSON *named_examples = d->body_prop && cJSON_IsObject(d->body_examples)
                                      ? d->body_examples : NULL;
    cJSON_ArrayForEach(named, named_examples)
    {
        const cJSON *ne = oa_deref(&r->c, named, "/");
        cJSON *try = cJSON_Duplicate(in, true);
        oa_set(try, d->body_prop, cJSON_Duplicate(tg_json_get(ne, "value"), true));
        if (!tg_json_get(ne, "value") || !fits(in_js, try) || n++ == 5) {
            cJSON_Delete(try);
            continue;
        }
        char *base = oa_tool_name(named->string, "example", "", 40);
        char *nm = oa_unique_name(base, named->string, 40, &names);
        char *desc = text_cut(tg_json_get_string(ne, "summary"), 500);
        cJSON_AddItemToArray(examples, example_entry(nm, desc, try, out));
        cJSON_AddItemToArray(tests, test_entry(nm, try));
        cJSON_Delete(try);
        free(desc);
        free(base);
        free(nm);
    }
    if (!examples->child && (in_given || out_given)) {
        cJSON_AddItemToArray(examples, example_entry(
            "from_openapi", out_given ? "The document's example."
                                      : "The document's arguments; the output is illustrative, "
                                        "made from the schema.", in, out));
        cJSON_AddItemToArray(tests, test_entry("from_openapi", in));
    } else if (!examples->child) {
        cJSON_AddItemToArray(examples, example_entry(
            "illustrative", "Made from the schemas (the document gives no example that fits "
            "them): replace it with a real call before review.", in, out));
    }
    if (tests->child)
        cJSON_AddItemToObject(m, "tests", tests);
    else
        cJSON_Delete(tests);
    r->bad_examples += bad;
    js_schema_free(in_js);
    js_schema_free(out_js);
    tg_strv_free(&names);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static const char *const methods_upper[][2] = {
    {"get", "GET"}, {"put", "PUT"}, {"post", "POST"}, {"delete", "DELETE"}, {"patch", "PATCH"}};

static const char *upper(const char *m)
{
    for (size_t i = 0; i < 5; i++)
        if (strcmp(methods_upper[i][0], m) == 0)
            return methods_upper[i][1];
    return "GET";
}

/* docs: what the tool does, in words a model can act on. */
static cJSON *docs_of(oa_run *r, const oa_op *op, const draft *d, const answer *a, char *prereq)
{
    cJSON *docs = cJSON_CreateObject();
    char *summary = text_cut(tg_json_get_string(op->op, "summary"), 600);
    const char *api = tg_json_get_string(tg_json_get(r->root, "info"), "title");
    char *when = summary ? xasprintf("%s (%s %s of %s).", summary, upper(op->method), op->path,
                                     api ? api : "the API")
                         : xasprintf("To call %s %s of %s.", upper(op->method), op->path,
                                     api ? api : "the API");
    cJSON_AddStringToObject(docs, "when_to_use", when);
    if (cJSON_IsTrue(tg_json_get(op->op, "deprecated")))
        cJSON_AddStringToObject(docs, "when_not_to_use", "The API marks this operation deprecated: "
                                                         "prefer its replacement when there is one.");
    tg_buf what = TG_BUF_INIT;
    tg_buf_printf(&what, "Sends %s %s", upper(op->method), d->url.data);
    tg_strv parts = TG_STRV_INIT;
    const tg_strv *lists[2] = {&d->query_params, &d->header_params};
    const char *kinds[2] = {"the query parameters", "the headers"};
    for (int i = 0; i < 2; i++) {
        tg_buf l = TG_BUF_INIT;
        for (size_t j = 0; j < lists[i]->n; j++)
            tg_buf_printf(&l, "%s%s", j ? ", " : "", lists[i]->v[j]);
        if (l.len)
            tg_strv_pushf(&parts, "%s %s", kinds[i], l.data);
        tg_buf_free(&l);
    }
    if (d->body_prop)
        tg_strv_pushf(&parts, "`%s` as the JSON body", d->body_prop);
    for (size_t i = 0; i < parts.n; i++)
        tg_buf_printf(&what, "%s%s", i ? "; " : " with ", parts.v[i]);
    tg_strv_free(&parts);
    tg_buf_puts(&what, ", and returns the answer. Arguments left out are not sent; the "
                       "service's error statuses become the error codes listed.");
    cJSON_AddStringToObject(docs, "what_it_does", what.data);
    cJSON_AddStringToObject(docs, "returns", a->returns);
    cJSON_AddStringToObject(docs, "prerequisites", prereq);
    if (d->notes.n) {
        cJSON *lim = cJSON_AddArrayToObject(docs, "limitations");
        for (size_t i = 0; i < d->notes.n; i++)
            cJSON_AddItemToArray(lim, cJSON_CreateString(d->notes.v[i]));
    }
    tg_buf_free(&what);
    free(when);
    free(summary);
    return docs;
}

/* constraints and implementation onto m. */
static void add_runtime(const oa_op *op, draft *d, answer *a, bool reads, cJSON *m,
                        cJSON *auth)
{
    cJSON *cons = cJSON_AddObjectToObject(m, "constraints");
    cJSON_AddBoolToObject(cons, "read_only", reads);
    cJSON_AddTrueToObject(cons, "network");
    if (!reads) {
        cJSON *se = cJSON_AddArrayToObject(cons, "side_effects");
        char *t = xasprintf("%s %s may create, change or delete data of the service.",
                            upper(op->method), op->path);
        cJSON_AddItemToArray(se, cJSON_CreateString(t));
        free(t);
    }
    cJSON *impl = cJSON_AddObjectToObject(m, "implementation");
    cJSON_AddStringToObject(impl, "runtime", "http");
    cJSON *req = cJSON_AddObjectToObject(impl, "request");
    cJSON_AddStringToObject(req, "method", upper(op->method));
    cJSON_AddStringToObject(req, "url", d->url.data);
    if (d->query->child) {
        cJSON_AddItemToObject(req, "query", d->query);
        d->query = NULL;
    }
    cJSON *headers = cJSON_AddObjectToObject(req, "headers");
    cJSON_AddStringToObject(headers, "Accept", "application/json");
    for (cJSON *h = d->headers->child; h; h = h->next)
        cJSON_AddItemToObject(headers, h->string, cJSON_Duplicate(h, true));
    if (d->body_prop) {
        char *b = xasprintf("{%s}", d->body_prop);
        cJSON_AddStringToObject(req, "body", b);
        free(b);
    }
    cJSON_AddItemToObject(impl, "auth", auth);
    cJSON_AddItemToObject(impl, "response", a->response);
    a->response = NULL;
    if (reads) {
        cJSON *retry = cJSON_AddObjectToObject(impl, "retry");
        cJSON_AddNumberToObject(retry, "max_attempts", 3);
        cJSON_AddNumberToObject(retry, "backoff_ms", 500);
    }
}

/* The manifest from the drafted parts, members in the order docs/manifest.md lists them. */
static cJSON *manifest_of(oa_run *r, const oa_op *op, draft *d, answer *a)
{
    char *fallback = xasprintf("%s %s", upper(op->method), op->path);
    const char *summary = tg_json_get_string(op->op, "summary");
    char *title = text_cut(summary ? summary : fallback, 100);
    const cJSON *xd = oa_ext(r, op, "description");
    const char *hinted = oa_hints_lookup(&r->hints, op, "descriptions");
    const char *desc0 = hinted ? hinted : cJSON_IsString(xd) ? xd->valuestring
                                        : tg_json_get_string(op->op, "description");
    char *desc = text_cut(desc0 ? desc0 : summary, 1024);
    bool reads = strcmp(op->method, "get") == 0;
    const char *risk = reads ? "low" : strcmp(op->method, "delete") == 0 ? "high" : "medium";
    const cJSON *xrisk = oa_ext(r, op, "risk");
    if (cJSON_IsString(xrisk) && (!strcmp(xrisk->valuestring, "low") ||
                                  !strcmp(xrisk->valuestring, "medium") ||
                                  !strcmp(xrisk->valuestring, "high")))
        risk = xrisk->valuestring;
    bool idem = reads || !strcmp(op->method, "put") || !strcmp(op->method, "delete");
    cJSON *m = tg_draft_head(op->name, title ? title : fallback, desc ? desc : fallback, risk,
                             reads ? "read" : "write", idem ? "idempotent" : "non_idempotent");
    char *prereq = NULL;
    cJSON *auth = auth_of(r, op, &prereq, &d->notes);
    cJSON_AddItemToObject(m, "docs", docs_of(r, op, d, a, prereq));
    cJSON *in = cJSON_AddObjectToObject(m, "input_schema");
    cJSON_AddStringToObject(in, "type", "object");
    cJSON_AddItemToObject(in, "properties", d->props);
    d->props = NULL;
    if (d->required->child) {
        cJSON_AddItemToObject(in, "required", d->required);
        d->required = NULL;
    }
    cJSON_AddFalseToObject(in, "additionalProperties");
    cJSON_AddItemToObject(m, "output_schema", a->schema);
    a->schema = NULL;
    cJSON_AddItemToObject(m, "error_codes", a->errors);
    a->errors = NULL;
    add_examples(r, d, a, in, m);
    add_runtime(op, d, a, reads, m, auth);
    cJSON *prov = cJSON_AddObjectToObject(m, "provenance");
    cJSON_AddStringToObject(prov, "generator", "offline");
    free(prereq);
    free(title);
    free(desc);
    free(fallback);
    return m;
}

cJSON *oa_draft(oa_run *r, const oa_op *op, char **skip)
{
    draft d = {.props = cJSON_CreateObject(), .required = cJSON_CreateArray(),
               .query = cJSON_CreateObject(), .headers = cJSON_CreateObject(),
               .example_in = cJSON_CreateObject()};
    answer a = {0};
    *skip = NULL;
    r->c.nodes = 0;
    int rc = add_params(r, op, &d);
    if (rc == 0)
        rc = url_template(r, op, &d);
    if (rc == 0)
        rc = add_body(r, op, &d, skip);
    if (rc == 0)
        rc = build_answer(r, op, &a);
    cJSON *m = rc == 0 ? manifest_of(r, op, &d, &a) : NULL;
    answer_free(&a);
    draft_free(&d);
    return m;
}
