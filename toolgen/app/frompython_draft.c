/*
 * frompython_draft.c — one described Python function as a draft manifest of the python runtime
 * and the tool.py that calls it (frompython_int.h, docs/cli.md#init-from-python).
 *
 * Tool results are objects, so a function that is not annotated to return a dict has its
 * value wrapped as {"result": value}, in the code, the output schema and every example.
 */
#include <stdlib.h>
#include <string.h>

#include "app/drafts.h"
#include "app/frompython_int.h"
#include "base/buf.h"

/* s with blanks folded to one space, at most max bytes (cut at a character boundary with
 * "..."); NULL when nothing is left. */
static char *folded(const char *s, size_t max)
{
    tg_buf b = TG_BUF_INIT;
    for (; s && *s; s++) {
        bool blank = *s == ' ' || *s == '\n' || *s == '\t' || *s == '\r';
        if (!blank)
            tg_buf_putc(&b, *s);
        else if (b.len && b.data[b.len - 1] != ' ')
            tg_buf_putc(&b, ' ');
    }
    while (b.len && b.data[b.len - 1] == ' ')
        tg_buf_truncate(&b, b.len - 1);
    if (b.len > max) {
        size_t n = max - 3;
        while (n > 0 && (b.data[n] & 0xC0) == 0x80)
            n--;
        tg_buf_truncate(&b, n);
        tg_buf_puts(&b, "...");
    }
    return b.len ? tg_buf_steal(&b) : (tg_buf_free(&b), NULL);
}

static bool wrapped(const cJSON *fn)
{
    return !cJSON_IsFalse(tg_json_get(fn, "wrapped"));
}

/* The output as the tool returns it: {"result": v} when wrapped. New. */
static cJSON *as_result(const cJSON *fn, const cJSON *v)
{
    cJSON *copy = v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
    if (!wrapped(fn)) {
        if (cJSON_IsObject(copy))
            return copy;
        cJSON_Delete(copy);
        return cJSON_CreateObject();
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "result", copy);
    return o;
}

static cJSON *input_schema(const cJSON *fn, const char *qual)
{
    cJSON *in = cJSON_CreateObject();
    cJSON_AddStringToObject(in, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(in, "properties");
    cJSON *req = cJSON_CreateArray();
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(fn, "params"))
    {
        const char *name = tg_json_get_string(p, "name");
        cJSON *s = cJSON_Duplicate(tg_json_get(p, "schema"), true);
        if (!name || !cJSON_IsObject(s)) {
            cJSON_Delete(s);
            continue;
        }
        if (!tg_json_get(s, "description")) {
            char *d = xasprintf("Parameter %s of %s.", name, qual);
            cJSON_AddStringToObject(s, "description", d);
            free(d);
        }
        cJSON_AddItemToObject(props, name, s);
        if (cJSON_IsTrue(tg_json_get(p, "required")))
            cJSON_AddItemToArray(req, cJSON_CreateString(name));
    }
    if (req->child)
        cJSON_AddItemToObject(in, "required", req);
    else
        cJSON_Delete(req);
    cJSON_AddFalseToObject(in, "additionalProperties");
    return in;
}

static cJSON *output_schema(const cJSON *fn)
{
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "type", "object");
    if (!wrapped(fn))
        return out;
    const cJSON *ret = tg_json_get(fn, "returns");
    cJSON *props = cJSON_AddObjectToObject(out, "properties");
    cJSON *res = cJSON_IsObject(ret) ? cJSON_Duplicate(ret, true) : cJSON_CreateObject();
    cJSON_AddStringToObject(res, "description", cJSON_IsObject(ret)
                                                    ? "The function's return value."
                                                    : "The function's return value (its type is "
                                                      "not annotated: any JSON value).");
    cJSON_AddItemToObject(props, "result", res);
    cJSON *req = cJSON_AddArrayToObject(out, "required");
    cJSON_AddItemToArray(req, cJSON_CreateString("result"));
    cJSON_AddFalseToObject(out, "additionalProperties");
    return out;
}

/* examples, and a test for each doctest, onto m. */
static void add_examples(fp_run *r, const cJSON *fn, cJSON *m)
{
    cJSON *examples = cJSON_AddArrayToObject(m, "examples");
    cJSON *tests = cJSON_CreateArray();
    int n = 0;
    const cJSON *ex;
    cJSON_ArrayForEach(ex, tg_json_get(fn, "examples"))
    {
        const char *src = tg_json_get_string(ex, "source");
        bool doctest = src && strcmp(src, "doctest") == 0;
        char *name = doctest ? xasprintf("doctest_%d", ++n) : xstrdup("illustrative");
        char *desc = doctest ? xasprintf("From the docstring: %s", tg_json_get_string(ex, "call"))
                     : strcmp(src ? src : "", "call") == 0
                         ? xstrdup("The function's answer to illustrative arguments, computed "
                                   "when the draft was made: replace it with a telling call.")
                         : xstrdup("A placeholder: calling the function on illustrative "
                                   "arguments failed (docs.limitations says how); write a real "
                                   "call before review.");
        r->placeholders += !doctest && strcmp(src ? src : "", "call") != 0;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", name);
        cJSON_AddStringToObject(e, "description", desc);
        cJSON_AddItemToObject(e, "input", cJSON_Duplicate(tg_json_get(ex, "input"), true));
        cJSON_AddItemToObject(e, "output", as_result(fn, tg_json_get(ex, "output")));
        cJSON_AddItemToArray(examples, e);
        if (doctest) {
            cJSON *t = cJSON_CreateObject();
            cJSON_AddStringToObject(t, "name", name);
            cJSON_AddStringToObject(t, "category", "normal");
            cJSON_AddStringToObject(t, "description", desc);
            cJSON_AddItemToObject(t, "input", cJSON_Duplicate(tg_json_get(ex, "input"), true));
            cJSON *expect = cJSON_AddObjectToObject(t, "expect");
            cJSON_AddItemToObject(expect, "output", as_result(fn, tg_json_get(ex, "output")));
            cJSON_AddItemToArray(tests, t);
        }
        free(name);
        free(desc);
    }
    if (tests->child)
        cJSON_AddItemToObject(m, "tests", tests);
    else
        cJSON_Delete(tests);
}

static cJSON *docs_of(const fp_run *r, const cJSON *fn, const char *qual, const char *summary)
{
    cJSON *docs = cJSON_CreateObject();
    char *when = xasprintf("To call the Python function %s: %s", qual, summary);
    cJSON_AddStringToObject(docs, "when_to_use", when);
    tg_buf what = TG_BUF_INIT;
    tg_buf_printf(&what, "Calls %s(", qual);
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, tg_json_get(fn, "params"))
        tg_buf_printf(&what, "%s%s", i++ ? ", " : "", tg_json_get_string(p, "name"));
    tg_buf_puts(&what, ") with the arguments given, in the sandbox, and returns its result.");
    const char *details = tg_json_get_string(fn, "details");
    if (details && *details)
        tg_buf_printf(&what, "\n\n%s", details);
    cJSON_AddStringToObject(docs, "what_it_does", what.data);
    cJSON_AddStringToObject(docs, "returns", wrapped(fn)
                                                 ? "An object whose `result` is the function's "
                                                   "return value."
                                                 : "The object (dict) the function returns.");
    char *pre = r->copy_name
                    ? xasprintf("None: %s is copied beside tool.py; re-run `toolgen init "
                                "--from-python` to refresh the copy.", r->copy_name)
                    : xasprintf("None: %s comes with /usr/bin/python3.", r->module);
    cJSON_AddStringToObject(docs, "prerequisites", pre);
    const cJSON *lim = tg_json_get(fn, "limitations");
    if (cJSON_IsArray(lim) && lim->child)
        cJSON_AddItemToObject(docs, "limitations", cJSON_Duplicate(lim, true));
    tg_buf_free(&what);
    free(pre);
    free(when);
    return docs;
}

cJSON *fp_manifest(fp_run *r, const cJSON *fn, const char *name, const char *desc)
{
    const char *fname = tg_json_get_string(fn, "name");
    char *qual = xasprintf("%s.%s", r->module, fname ? fname : "?");
    char *fallback = xasprintf("Calls the Python function %s.", qual);
    char *summary = folded(tg_json_get_string(fn, "summary"), 1000);
    char *d = folded(desc ? desc : summary, 1024);
    char *title = folded(qual, 100);
    /* risk low: the sandbox bounds what a call can do; a reviewer says more once the function
     * is known */
    cJSON *m = tg_draft_head(name, title, d ? d : fallback, "low", NULL, "unknown");
    cJSON_AddItemToObject(m, "docs", docs_of(r, fn, qual, summary ? summary : fallback));
    cJSON_AddItemToObject(m, "input_schema", input_schema(fn, qual));
    cJSON_AddItemToObject(m, "output_schema", output_schema(fn));
    add_examples(r, fn, m);
    cJSON *cons = cJSON_AddObjectToObject(m, "constraints");
    cJSON_AddTrueToObject(cons, "read_only");
    cJSON_AddFalseToObject(cons, "network");
    cJSON *impl = cJSON_AddObjectToObject(m, "implementation");
    cJSON_AddStringToObject(impl, "runtime", "python");
    cJSON_AddStringToObject(impl, "file", "tool.py");
    cJSON_AddStringToObject(impl, "entrypoint", "run");
    cJSON *prov = cJSON_AddObjectToObject(m, "provenance");
    cJSON_AddStringToObject(prov, "generator", "offline");
    free(title);
    free(d);
    free(summary);
    free(fallback);
    free(qual);
    return m;
}

char *fp_tool_py(const fp_run *r, const cJSON *fn)
{
    const char *fname = tg_json_get_string(fn, "name");
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, FP_DRAFT_MARK " from %s: calls %s.%s\n"
                      "# (docs/cli.md#init-from-python).\n",
                  r->source, r->import, fname);
    if (r->copy_name)
        tg_buf_printf(&b, "# %s is a copy of the module (xxh3 %s).\n", r->copy_name, r->copy_hash);
    tg_buf_printf(&b, "import %s\n", r->import);
    tg_buf positional = TG_BUF_INIT;
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(fn, "params"))
    {
        if (cJSON_IsTrue(tg_json_get(p, "positional")))
            tg_buf_printf(&positional, "\"%s\", ", tg_json_get_string(p, "name"));
    }
    if (positional.len)
        tg_buf_printf(&b, "\n# Positional-only parameters, in order.\nPOSITIONAL = (%s)\n",
                      positional.data);
    tg_buf_printf(&b, "\n\ndef run(**args):\n    \"\"\"Calls %s.%s with the arguments%s.\"\"\"\n",
                  r->import, fname, wrapped(fn) ? "; its value is returned as {\"result\": value}"
                                                : "; it returns a dict");
    if (positional.len)
        tg_buf_puts(&b, "    positional = []\n    for name in POSITIONAL:\n"
                        "        if name not in args:\n            break\n"
                        "        positional.append(args.pop(name))\n");
    tg_buf_printf(&b, "    value = %s.%s(%s**args)\n", r->import, fname,
                  positional.len ? "*positional, " : "");
    tg_buf_puts(&b, wrapped(fn) ? "    return {\"result\": value}\n" : "    return value\n");
    tg_buf_free(&positional);
    return tg_buf_steal(&b);
}
