/*
 * frompython.c — `toolgen init --from-python` (frompython.h, docs/cli.md#init-from-python): the
 * module described in the sandbox by run/runtime/describe_module.py, its functions selected and
 * named (the hints and names of --from-openapi, openapi_int.h), each drafted
 * (frompython_draft.c), and only then, when every draft came out, the files written (drafts.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "app/drafts.h"
#include "app/frompython.h"
#include "app/frompython_int.h"
#include "app/openapi.h"
#include "app/openapi_int.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/yamlout.h"
#include "run/sandbox.h"

/* What describing a module may take (cpu s, memory MB, wall ms, output KB, files, processes). */
static const tg_limits describe_limits = {60, 2048, 120000, 8192, 256, 64};

void tg_frompy_report_free(tg_frompy_report *r)
{
    tg_strv_free(&r->created);
    tg_strv_free(&r->updated);
    tg_strv_free(&r->unchanged);
    tg_strv_free(&r->kept);
    tg_strv_free(&r->stale);
    tg_strv_free(&r->skipped);
    tg_strv_free(&r->warnings);
}

static bool is_file_module(const char *m)
{
    size_t n = strlen(m);
    return strchr(m, '/') || (n > 3 && strcmp(m + n - 3, ".py") == 0);
}

/* A dotted module name: identifiers joined by '.'. */
static bool module_name_ok(const char *m)
{
    for (const char *p = m;;) {
        if (!isalpha((unsigned char)*p) && *p != '_')
            return false;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (!*p)
            return true;
        if (*p++ != '.')
            return false;
    }
}

/* The last line of the describer's stderr: its one-line reason. */
static char *last_line(const tg_stream *s)
{
    size_t end = s->data ? s->len : 0;
    while (end && (s->data[end - 1] == '\n' || s->data[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start && s->data[start - 1] != '\n')
        start--;
    return xstrndup(s->data ? s->data + start : "", end - start);
}

/* describe_module.py's answer for the module. NULL with err (-2 refused, -3 environment). */
static cJSON *describe(const tg_frompy_opts *o, int *code, tg_err *err)
{
    const char *py = tg_sandbox_python();
    *code = -3;
    if (!py)
        return tg_err_set(err, "python3 is not installed at /usr/bin/python3: install it with "
                               "`sudo apt-get install python3`"), NULL;
    bool file = is_file_module(o->module);
    char *folder = NULL, *arg = NULL;
    if (file) {
        const char *slash = strrchr(o->module, '/');
        folder = slash ? xstrndup(o->module, (size_t)(slash - o->module)) : xstrdup(".");
        arg = xasprintf(TG_SANDBOX_TOOL "/%s", slash ? slash + 1 : o->module);
    }
    const char *argv[] = {py, "-B", TG_SANDBOX_RUNTIME "/describe_module.py",
                          file ? arg : o->module, NULL};
    const char *env[] = {"PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1",
                         "PYTHONIOENCODING=utf-8", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
                         "MPLBACKEND=Agg", NULL};
    tg_sandbox_cmd cmd = {.argv = argv, .env = env, .mount_runtime = true, .tool_dir = folder,
                          .limits = describe_limits};
    tg_sandbox_config sc;
    cJSON *out = NULL;
    /* the root only places data directories, of which none is mounted here: DIR may not exist */
    if (tg_sandbox_config_init(&sc, tg_is_dir(o->dir) ? o->dir : "/", NULL, err) == 0) {
        tg_sandbox_result res = {0};
        if (tg_sandbox_run(&sc, &cmd, &res, err) == TG_SANDBOX_OK) {
            char *why = last_line(&res.err);
            if (res.killed_by != TG_LIMIT_NONE || res.exit_code != 0)
                tg_err_set(err, "%s: %s%s", o->module,
                           res.exit_code == 2 && *why ? why : "describing the module failed",
                           res.killed_by != TG_LIMIT_NONE ? " (stopped by a sandbox limit)" : "");
            else if (!(out = cJSON_Parse(res.out.data ? res.out.data : "")))
                tg_err_set(err, "%s: the module describer answered no JSON; reinstall toolgen's "
                                "runtime files", o->module);
            free(why);
            *code = out ? 0 : -2;
        }
        tg_sandbox_result_free(&res);
        tg_sandbox_config_free(&sc);
    }
    free(folder);
    free(arg);
    return out;
}

/* A function as the hints file sees an operation: its name is the operationId and the path. */
typedef struct fp_op {
    oa_op op;
    cJSON *obj;
} fp_op;

static void fp_op_init(fp_op *f, const char *fname)
{
    f->obj = cJSON_CreateObject();
    cJSON_AddStringToObject(f->obj, "operationId", fname);
    f->op = (oa_op){.path = fname, .method = "", .op = f->obj, .item = NULL};
}

/* The tool name of function fname: the hints' rename (checked), else its snake_case form,
 * within budget and unique. NULL with err. */
static char *name_of(oa_hints *h, const oa_op *op, const char *fname, int budget, tg_strv *taken,
                     tg_err *err)
{
    const char *hinted = oa_hints_lookup(h, op, "rename");
    if (hinted) {
        size_t n = strlen(hinted);
        if (n > (size_t)budget || (taken->n && tg_strlist_has((const char *const *)taken->v, hinted)))
            return tg_err_set(err, "the hints file's name '%s' for %s %s; choose another", hinted,
                              fname, n > (size_t)budget ? "is over the name budget" : "is taken"),
                   NULL;
        tg_strv_push(taken, hinted);
        return xstrdup(hinted);
    }
    char *base = oa_tool_name(fname, "", "", budget);
    char *name = oa_unique_name(base, fname, budget, taken);
    free(base);
    return name;
}

typedef struct fp_state {
    const tg_frompy_opts *o;
    fp_run run;
    oa_hints hints;
    js_registry *reg;
    int budget;
    char *copy_text; /* a file module's text */
} fp_state;

static void add_draft(fp_state *s, const cJSON *fn, const oa_op *op, char *name, tg_draft *d)
{
    const char *desc = oa_hints_lookup(&s->hints, op, "descriptions");
    cJSON *m = fp_manifest(&s->run, fn, name, desc);
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, FP_DRAFT_MARK " from %s: %s.%s.\n"
                      "# Review it, then move it past draft; while its status is draft, re-running "
                      "init --from-python\n# rewrites it (docs/cli.md#init-from-python).\n",
                  s->run.source, s->run.import, tg_json_get_string(fn, "name"));
    tg_yaml_write(&b, m, 0);
    d->name = name;
    d->text = tg_buf_steal(&b);
    d->manifest = m;
    tg_strv_push(&d->files, "tool.py");
    tg_strv_push_owned(&d->files, fp_tool_py(&s->run, fn));
    if (s->run.copy_name) {
        tg_strv_push(&d->files, s->run.copy_name);
        tg_strv_push(&d->files, s->copy_text);
    }
}

/* Every selected function drafted in memory; NULL with err on a bad hinted name. */
static tg_draft *draft_all(fp_state *s, const cJSON *desc, tg_frompy_report *rep, size_t *nd,
                           tg_err *err)
{
    const cJSON *fns = tg_json_get(desc, "functions"), *fn;
    tg_draft *ds = xcalloc((size_t)cJSON_GetArraySize(fns) + 1, sizeof *ds);
    tg_strv taken = TG_STRV_INIT;
    *nd = 0;
    cJSON_ArrayForEach(fn, fns)
    {
        const char *fname = tg_json_get_string(fn, "name");
        if (!fname)
            continue;
        fp_op op;
        fp_op_init(&op, fname);
        const char *why = NULL;
        char *name = NULL;
        if (oa_hints_select(&s->hints, &op.op, &why) < 0)
            tg_strv_pushf(&rep->skipped, "%s: %s", fname, why);
        else if (!(name = name_of(&s->hints, &op.op, fname, s->budget, &taken, err))) {
            cJSON_Delete(op.obj);
            tg_strv_free(&taken);
            tg_drafts_free(ds, *nd);
            return NULL;
        } else
            add_draft(s, fn, &op.op, name, &ds[(*nd)++]);
        cJSON_Delete(op.obj);
    }
    tg_strv_free(&taken);
    return ds;
}

/* toolgen.yaml: a static_check section allowing the module's import appended when it has none
 * (the defaults of docs/config.md#static_check plus the module); a warning when it has one
 * that does not allow it. */
static int allow_import(fp_state *s, tg_frompy_report *rep, tg_err *err)
{
    char *cfg = tg_path_join(s->o->dir, "toolgen.yaml");
    size_t len = 0;
    tg_err e = {0};
    char *text = tg_read_file(cfg, TG_DOC_MAX_BYTES, &len, &e);
    int rc = 0;
    const char *top = s->run.import;
    size_t tn = strcspn(top, ".");
    char *ours = xasprintf("tool.py import %.*s\n", (int)tn, top);
    if (text && strstr(text, ours)) {
        /* appended by an earlier run for this module */
    } else if (text && (strncmp(text, "static_check:", 13) == 0 || strstr(text, "\nstatic_check:"))) {
        tg_strv_pushf(&rep->warnings, "toolgen.yaml has a static_check section: make sure its "
                                      "allowed_imports lists %.*s, or the static check refuses "
                                      "the drafts' tool.py", (int)tn, top);
    } else if (text) {
        tg_buf b = TG_BUF_INIT;
        tg_buf_puts(&b, text);
        if (b.len && b.data[b.len - 1] != '\n')
            tg_buf_putc(&b, '\n');
        tg_buf_printf(&b, "\n# Added by `toolgen init --from-python`: the drafts' tool.py import "
                          "%.*s\n# (docs/config.md#static_check lists the defaults).\n"
                          "static_check:\n  allowed_imports: [pandas, numpy, json, csv, datetime, "
                          "re, collections, itertools, functools, math,\n    statistics, typing, "
                          "dataclasses, decimal, matplotlib, %.*s]\n",
                      (int)tn, top, (int)tn, top);
        rc = s->o->dry_run ? 0 : tg_write_file_atomic(cfg, b.data, b.len, err);
        rep->config_added = true;
        tg_buf_free(&b);
    }
    free(ours);
    free(text);
    free(cfg);
    return rc;
}

static int setup(fp_state *s, const tg_frompy_opts *o, tg_err *err)
{
    s->o = o;
    s->budget = o->name_budget ? o->name_budget : TG_OPENAPI_NAME_BUDGET;
    if (s->budget < 16 || s->budget > 64)
        return tg_err_set(err, "--name-budget %d: choose 16 to 64 characters", s->budget), -2;
    if (is_file_module(o->module)) {
        size_t len = 0;
        const char *slash = strrchr(o->module, '/');
        const char *base = slash ? slash + 1 : o->module;
        size_t bn = strlen(base);
        if (!tg_is_file(o->module) || bn < 4 || strcmp(base + bn - 3, ".py") != 0)
            return tg_err_set(err, "%s: not a .py file; pass a module name (e.g. textwrap) or "
                                   "the path of a Python file", o->module), -2;
        if (!(s->copy_text = tg_read_file(o->module, TG_DOC_MAX_BYTES, &len, err)))
            return -2;
        char hex[TG_HASH_HEX];
        tg_hash_hex(tg_hash_bytes(s->copy_text, len), hex);
        s->run.copy_hash = xstrdup(hex);
        s->run.copy_name = xstrdup(base);
        s->run.import = xstrndup(base, bn - 3);
        s->run.source = s->run.copy_name;
    } else if (!module_name_ok(o->module)) {
        return tg_err_set(err, "'%s' is not a module name (identifiers joined by dots, e.g. "
                               "textwrap or os.path), nor a path ending in .py", o->module), -2;
    } else {
        s->run.import = xstrdup(o->module);
        s->run.source = s->run.import;
    }
    s->run.module = s->run.import;
    s->reg = js_registry_new();
    char *hints = o->hints_file ? xstrdup(o->hints_file) : tg_path_join(o->dir, "toolgen.hints.yaml");
    int hrc = oa_hints_load(&s->hints, hints, o->hints_file != NULL, s->reg, err);
    free(hints);
    return hrc != 0 ? -2 : 0;
}

static void state_free(fp_state *s)
{
    oa_hints_free(&s->hints);
    js_registry_free(s->reg);
    free(s->copy_text);
    free((char *)s->run.copy_hash);
    free((char *)s->run.copy_name);
    free((char *)s->run.import);
}

static void report_warnings(fp_state *s, const cJSON *desc, size_t nd, tg_frompy_report *out)
{
    const cJSON *sk;
    cJSON_ArrayForEach(sk, tg_json_get(desc, "skipped"))
        if (cJSON_IsString(sk))
            tg_strv_push(&out->skipped, sk->valuestring);
    if (nd > TG_OPENAPI_MANY_TOOLS)
        tg_strv_pushf(&out->warnings, "%zu tools would be exposed: more than %d (Cursor sends 40 "
                                      "tools, VS Code and OpenAI cap at 128); select functions "
                                      "with the hints file (docs/cli.md#hints)",
                      nd, TG_OPENAPI_MANY_TOOLS);
    if (s->hints.doc.root)
        oa_hints_unused(&s->hints, &out->warnings);
    if (s->run.placeholders)
        tg_strv_pushf(&out->warnings, "%zu drafts have a placeholder example (calling the "
                                      "function on illustrative arguments failed): write a real "
                                      "call before review", s->run.placeholders);
}

int tg_app_init_python(const tg_frompy_opts *o, tg_frompy_report *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    fp_state s = {0};
    int rc = setup(&s, o, err);
    cJSON *desc = NULL;
    if (rc == 0 && !(desc = describe(o, &rc, err)))
        rc = rc ? rc : -2;
    size_t nd = 0;
    tg_draft *ds = rc == 0 ? draft_all(&s, desc, out, &nd, err) : NULL;
    if (rc == 0 && !ds)
        rc = -2;
    if (rc == 0 && nd == 0) {
        tg_err_set(err, "%s: the hints file leaves no function to draft; loosen its include / "
                        "exclude rules", o->module);
        rc = -2;
    }
    if (rc == 0) {
        out->tools = nd;
        report_warnings(&s, desc, nd, out);
        tg_drafts_opts wo = {.dir = o->dir, .mark = FP_DRAFT_MARK, .source = s.run.source,
                             .command = "init --from-python", .dry_run = o->dry_run,
                             .rename = "rename the function's tool with the hints file",
                             .gone = "its function is gone from the module or left out"};
        tg_drafts_out dout = {&out->created, &out->updated, &out->unchanged, &out->kept,
                              &out->stale, &out->initialised};
        rc = tg_drafts_write(&wo, ds, nd, &dout, err);
        if (rc == 0)
            rc = allow_import(&s, out, err);
    }
    tg_drafts_free(ds, nd);
    cJSON_Delete(desc);
    state_free(&s);
    return rc;
}
