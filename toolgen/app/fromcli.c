/*
 * fromcli.c — `toolgen init --from-cli` (fromcli.h, docs/cli.md#init-from-cli): the program
 * found, its --help run in the sandbox (and each subcommand's), read (fromcli_help.c), every
 * manifest drafted in memory (fromcli_draft.c), and only then written by the re-run rules every
 * init --from-* shares (app/drafts.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/drafts.h"
#include "app/fromcli.h"
#include "app/fromcli_int.h"
#include "app/openapi_int.h"
#include "base/buf.h"
#include "base/doc.h"
#include "base/json.h"
#include "base/yamlout.h"
#include "run/sandbox.h"

/* The first words of every manifest drafted here: how a re-run knows the drafts it may rewrite. */
#define FC_MARK "# Drafted by `toolgen init --from-cli`"

/* Limits of one --help run: a help text is small and quick. */
static const tg_limits help_limits = {10, 512, 15000, 512, 64, 32};

static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* CMD as an absolute path: itself when absolute, else the first match on $PATH. Heap, or NULL
 * with err saying what is wrong. */
static char *resolve_program(const char *cmd, tg_err *err)
{
    if (!*cmd || strpbrk(cmd, " \t\n;|&$`'\"<>(){}*?\\"))
        return tg_err_set(err, "'%s' is not one program: give its name (found on PATH) or "
                               "absolute path, without arguments; no shell is involved", cmd),
               NULL;
    if (strchr(cmd, '/')) {
        if (cmd[0] != '/')
            return tg_err_set(err, "'%s': give the program's absolute path or its name on PATH",
                              cmd), NULL;
        if (!executable_file(cmd))
            return tg_err_set(err, "'%s' is not an executable file", cmd), NULL;
        return xstrdup(cmd);
    }
    const char *path = getenv("PATH");
    tg_strv dirs = TG_STRV_INIT;
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        tg_strv_push_owned(&dirs, xstrndup(p, n));
        p += n + (p[n] == ':');
    }
    char *found = NULL;
    for (size_t i = 0; i < dirs.n && !found; i++) {
        char *c = tg_path_join(dirs.v[i][0] ? dirs.v[i] : ".", cmd);
        if (c[0] == '/' && executable_file(c))
            found = c;
        else
            free(c);
    }
    tg_strv_free(&dirs);
    if (!found)
        tg_err_set(err, "'%s' was not found on PATH (or is not executable); install it or give "
                        "its absolute path", cmd);
    return found;
}

/* Under bubblewrap the sandbox sees the host's /usr, /bin, /sbin and /lib* only (run/sandbox.h). */
static bool visible_in_sandbox(const tg_sandbox_config *sc, const char *prog)
{
    static const char *const roots[] = {"/usr/", "/bin/", "/sbin/", NULL};
    if (sc->isolation == TG_ISOLATION_NONE)
        return true;
    for (size_t i = 0; roots[i]; i++)
        if (strncmp(prog, roots[i], strlen(roots[i])) == 0)
            return true;
    return false;
}

typedef struct fc_run {
    tg_sandbox_config sc;
    bool have_sc;
    char *prog;       /* absolute */
    const char *base; /* its base name */
    int budget;
    tg_strv failed; /* "name (exit status N)": drafts whose example did not run */
    oa_hints hints; /* toolgen.hints.yaml (doc.root NULL: none) */
    js_registry *reg;
    tg_err *err;
} fc_run;

/* The help text of argv (stdout, else stderr), or NULL: *why says why (static text or the
 * program's last words), or err is set when the sandbox could not run (*fatal true). */
static char *run_help(fc_run *r, const char *const *argv, char **why, bool *fatal)
{
    static const char *const env[] = {"COLUMNS=100", "PAGER=cat", "GIT_PAGER=cat", NULL};
    tg_sandbox_cmd cmd = {.argv = argv, .env = env, .limits = help_limits};
    tg_sandbox_result res = {0};
    *why = NULL;
    tg_sandbox_status st = tg_sandbox_run(&r->sc, &cmd, &res, r->err);
    if (st != TG_SANDBOX_OK) {
        *fatal = true;
        return NULL;
    }
    const tg_stream *s = res.out.len ? &res.out : &res.err;
    char *text = NULL;
    fc_help probe;
    fc_help_parse(&probe, s->data ? s->data : "", r->base, NULL);
    bool usable = s->len && (res.exit_code == 0 || probe.has_usage) &&
                  res.killed_by == TG_LIMIT_NONE && (!res.signal || res.signal_inferred);
    /* (git's -h exits 129, which bwrap's report makes look like signal 1) */
    fc_help_free(&probe);
    tg_err u8 = {0};
    if (usable && tg_utf8_validate(s->data, s->len, &u8) != 0) { /* the drafts are YAML text */
        *why = xstrdup("its help is not UTF-8 text");
    } else if (usable) {
        text = xstrndup(s->data, s->len);
    } else {
        size_t n = res.err.len;
        while (n && (res.err.data[n - 1] == '\n' || res.err.data[n - 1] == ' '))
            n--;
        size_t start = n;
        while (start && res.err.data[start - 1] != '\n' && n - start < 200)
            start--;
        *why = res.killed_by != TG_LIMIT_NONE
                   ? xstrdup("it was stopped by a sandbox limit (15 s, 512 MiB)")
                   : xasprintf("it exited with status %d%s%.*s", res.exit_code, n ? ": " : "",
                               (int)(n - start), res.err.data ? res.err.data + start : "");
    }
    tg_sandbox_result_free(&res);
    return text;
}

/* Loads DIR's sandbox settings (its toolgen.yaml, when it has one). */
static int setup_sandbox(fc_run *r, const char *dir, tg_err *err)
{
    char *cfg = tg_path_join(dir, "toolgen.yaml");
    tg_doc doc = {0};
    int rc = 0;
    if (tg_is_file(cfg) && tg_doc_load(cfg, NULL, &doc, err) != 0)
        rc = -2;
    /* DIR, or its nearest folder that exists (DIR is made later): the help runs read no data */
    char *probe = xstrdup(dir);
    for (char *slash; !tg_is_dir(probe) && (slash = strrchr(probe, '/'));) {
        if (slash == probe)
            slash++; /* "/x" → "/" */
        *slash = '\0';
    }
    char *root = rc == 0 ? realpath(tg_is_dir(probe) ? probe : "/", NULL) : NULL;
    free(probe);
    if (rc == 0 && !root)
        rc = (tg_err_set(err, "%s: cannot resolve the folder", dir), -2);
    if (rc == 0 && tg_sandbox_config_init(&r->sc, root, doc.root, err) != 0)
        rc = -2;
    r->have_sc = rc == 0;
    free(root);
    free(cfg);
    tg_doc_free(&doc);
    return rc;
}

static char *manifest_text(const fc_run *r, const char *sub, const cJSON *m)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, FC_MARK " from %s: `%s%s%s --help`.\n", r->base, r->base, sub ? " " : "",
                  sub ? sub : "");
    tg_buf_puts(&b, "# Review it, then move it past draft; while its status is draft, re-running "
                    "init --from-cli\n# rewrites it (docs/cli.md#init-from-cli).\n");
    tg_yaml_write(&b, m, 0);
    return tg_buf_steal(&b);
}

/* The arguments the command runtime passes for the example input in: switches off, absent
 * options dropped, each placeholder's value one argument (docs/manifest.md#command). */
static void example_argv(const cJSON *m, const cJSON *in, tg_strv *argv)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, tg_json_get(tg_json_get(m, "implementation"), "argv"))
    {
        const char *s = cJSON_IsString(e) ? e->valuestring : NULL;
        const char *open = s ? strchr(s, '{') : NULL, *close = open ? strchr(open, '}') : NULL;
        if (!s || !open || !close) {
            if (s)
                tg_strv_push(argv, s);
            continue;
        }
        char *name = xstrndup(open + 1, (size_t)(close - open - 1));
        const cJSON *v = tg_json_get(in, name), *item;
        if (!v) /* toolgen run applies the schema's defaults */
            v = tg_json_get(tg_json_get(tg_json_get(tg_json_get(m, "input_schema"), "properties"),
                                        name), "default");
        free(name);
        if (cJSON_IsArray(v)) {
            cJSON_ArrayForEach(item, v)
            {
                if (cJSON_IsString(item))
                    tg_strv_push(argv, item->valuestring);
            }
        } else if (cJSON_IsString(v)) {
            tg_strv_pushf(argv, "%.*s%s%s", (int)(open - s), s, v->valuestring, close + 1);
        } else if (cJSON_IsNumber(v)) { /* drafted defaults are integers or short decimals */
            tg_strv_pushf(argv, "%.*s%.15g%s", (int)(open - s), s, v->valuedouble, close + 1);
        }
    }
}

/* Runs the draft's example in the sandbox, as `toolgen run` would, and records its output; an
 * example that fails keeps its placeholder output and is named in a warning. -3 with r->err:
 * no sandbox. */
static int record_example(fc_run *r, cJSON *m)
{
    cJSON *ex = cJSON_GetArrayItem(tg_json_get(m, "examples"), 0);
    tg_strv argv = TG_STRV_INIT;
    example_argv(m, tg_json_get(ex, "input"), &argv);
    tg_sandbox_cmd cmd = {.argv = (const char *const *)argv.v, .limits = help_limits};
    tg_sandbox_result res = {0};
    int rc = 0;
    if (tg_sandbox_run(&r->sc, &cmd, &res, r->err) != TG_SANDBOX_OK) {
        rc = -3;
    } else if (res.exit_code == 0 && res.killed_by == TG_LIMIT_NONE && !res.signal &&
               !res.out.truncated) {
        tg_err e = {0};
        size_t n = res.out.len;
        while (n && (res.out.data[n - 1] == '\n' || res.out.data[n - 1] == '\r'))
            n--;
        if (tg_utf8_validate(res.out.data, n, &e) == 0) {
            char *text = xstrndup(res.out.data, n);
            oa_set(cJSON_GetObjectItem(ex, "output"), "text", cJSON_CreateString(text));
            free(text);
            oa_set(ex, "description", cJSON_CreateString(
                "Run by init --from-cli in the sandbox: the output is what the program printed."));
        }
    } else {
        tg_strv_pushf(&r->failed, "%s (exit status %d)", tg_json_get_string(m, "name"),
                      res.exit_code);
    }
    tg_sandbox_result_free(&res);
    tg_strv_free(&argv);
    return rc;
}

/* The help of one subcommand: `CMD SUB --help`, else `CMD SUB -h` (git's --help opens the
 * manual). NULL with *why, or with err and *fatal. */
static char *sub_help(fc_run *r, const char *sub, char **why, bool *fatal)
{
    const char *argv[] = {r->prog, sub, "--help", NULL};
    char *text = run_help(r, argv, why, fatal);
    fc_help h;
    fc_help_parse(&h, text ? text : "", r->base, sub);
    bool ok = text && h.has_usage;
    fc_help_free(&h);
    if (ok || *fatal)
        return text;
    free(text);
    free(*why);
    argv[2] = "-h";
    return run_help(r, argv, why, fatal);
}

/* What the hints file says of sub: -1 left out (reported in rep), 0 drafted, with src->name and
 * src->description from its rename and descriptions; -2 with err: a rename that is taken or
 * longer than the name budget. */
static int apply_hints(fc_run *r, const char *sub, fc_source *src, const tg_strv *taken,
                       tg_openapi_report *rep)
{
    if (!sub || !r->hints.doc.root)
        return 0;
    /* a subcommand's name is its operation and its path, as a function's is (frompython.c) */
    cJSON *id = cJSON_CreateObject();
    cJSON_AddStringToObject(id, "operationId", sub);
    oa_op op = {.path = sub, .method = "", .op = id};
    const char *why = NULL;
    int rc = 0;
    if (oa_hints_select(&r->hints, &op, &why) < 0) {
        tg_strv_pushf(&rep->skipped, "%s %s: %s", r->base, sub, why);
        rc = -1;
    } else {
        src->name = oa_hints_lookup(&r->hints, &op, "rename");
        src->description = oa_hints_lookup(&r->hints, &op, "descriptions");
        if (src->name && (strlen(src->name) > (size_t)r->budget ||
                          (taken->n && tg_strlist_has((const char *const *)taken->v, src->name))))
            rc = (tg_err_set(r->err, "the hints file's name '%s' for %s %s %s", src->name,
                             r->base, sub, strlen(src->name) > (size_t)r->budget
                                               ? "is longer than the name budget"
                                               : "is taken by another tool; choose another"),
                  -2);
    }
    cJSON_Delete(id);
    return rc;
}

/* Drafts the program's tools into *ds: one per subcommand, or one for the program. */
static int draft_all(fc_run *r, const char *top, tg_draft **ds, size_t *nd,
                     tg_openapi_report *rep)
{
    fc_help h;
    fc_help_parse(&h, top, r->base, NULL);
    tg_strv taken = TG_STRV_INIT;
    size_t n = h.subs.n ? h.subs.n : 1;
    *ds = xcalloc(n, sizeof **ds);
    *nd = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *sub = h.subs.n ? h.subs.v[i] : NULL;
        char *why = NULL, *text = NULL;
        bool fatal = false;
        fc_source src = {.prog = r->prog, .base = r->base, .sub = sub,
                         .listed = sub ? h.sub_desc.v[i] : NULL, .budget = r->budget};
        int hint = apply_hints(r, sub, &src, &taken, rep);
        if (hint == -2) {
            rc = -2;
            break;
        }
        if (hint < 0)
            continue;
        if (sub) {
            text = sub_help(r, sub, &why, &fatal);
            if (fatal) {
                rc = -3;
                break;
            }
            if (!text) {
                tg_strv_pushf(&rep->skipped, "%s %s: its --help failed (%s)", r->base, sub, why);
                free(why);
                continue;
            }
        }
        fc_help sh;
        fc_help_parse(&sh, sub ? text : top, r->base, sub);
        cJSON *m = fc_draft(&src, &sh, &taken);
        rc = record_example(r, m);
        (*ds)[*nd].name = xstrdup(tg_json_get_string(m, "name"));
        (*ds)[*nd].text = manifest_text(r, sub, m);
        (*ds)[(*nd)++].manifest = m;
        fc_help_free(&sh);
        free(text);
    }
    if (r->hints.doc.root && h.subs.n)
        oa_hints_unused(&r->hints, &rep->warnings);
    if (r->failed.n) {
        tg_buf b = TG_BUF_INIT;
        for (size_t i = 0; i < r->failed.n; i++)
            tg_buf_printf(&b, "%s%s", i ? ", " : "", r->failed.v[i]);
        tg_strv_pushf(&rep->warnings, "%zu drafts have an example that did not run in the "
                                      "sandbox with placeholder values: %s; give them real "
                                      "input and output before `toolgen build` can pass their "
                                      "tests", r->failed.n, b.data);
        tg_buf_free(&b);
    }
    if (h.subs.n == FC_MAX_SUBS)
        tg_strv_pushf(&rep->warnings, "only the first %d subcommands were read", FC_MAX_SUBS);
    tg_strv_free(&taken);
    fc_help_free(&h);
    return rc;
}

static int check_and_help(fc_run *r, const tg_fromcli_opts *o, char **top, tg_err *err)
{
    int budget = o->name_budget ? o->name_budget : TG_OPENAPI_NAME_BUDGET;
    if (budget < 16 || budget > 64)
        return tg_err_set(err, "--name-budget %d: choose 16 to 64 characters", budget), -2;
    r->budget = budget;
    r->prog = resolve_program(o->cmd, err);
    if (!r->prog)
        return -2;
    r->base = strrchr(r->prog, '/') + 1;
    if (setup_sandbox(r, o->dir, err) != 0)
        return -2;
    r->reg = js_registry_new();
    char *hints = o->hints_file ? xstrdup(o->hints_file) : tg_path_join(o->dir, "toolgen.hints.yaml");
    int hrc = oa_hints_load(&r->hints, hints, o->hints_file != NULL, r->reg, err);
    free(hints);
    if (hrc != 0)
        return -2;
    if (!visible_in_sandbox(&r->sc, r->prog))
        return tg_err_set(err, "%s is not where the sandbox sees programs (/usr, /bin, /sbin); "
                               "install it there (or set sandbox.isolation: none in "
                               "toolgen.yaml, docs/sandbox.md#isolation-none)", r->prog), -2;
    const char *argv[] = {r->prog, "--help", NULL};
    char *why = NULL;
    bool fatal = false;
    *top = run_help(r, argv, &why, &fatal);
    if (fatal)
        return -3;
    if (!*top) {
        tg_err_set(err, "`%s --help` failed in the sandbox: %s", r->prog, why);
        free(why);
        return -2;
    }
    return 0;
}

int tg_app_init_fromcli(const tg_fromcli_opts *o, tg_openapi_report *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    fc_run r = {.err = err};
    char *top = NULL;
    tg_draft *ds = NULL;
    size_t nd = 0;
    int rc = check_and_help(&r, o, &top, err);
    if (rc == 0)
        rc = draft_all(&r, top, &ds, &nd, out);
    if (rc == 0) {
        out->tools = nd;
        if (nd > TG_OPENAPI_MANY_TOOLS)
            tg_strv_pushf(&out->warnings,
                          "%zu tools would be exposed: more than %d (Cursor sends 40 tools, VS Code "
                          "and OpenAI cap at 128); remove the drafts you do not need",
                          nd, TG_OPENAPI_MANY_TOOLS);
        tg_drafts_opts wo = {.dir = o->dir, .mark = FC_MARK, .source = r.base,
                             .command = "init --from-cli",
                             .rename = "rename the subcommand's tool with the hints file",
                             .gone = "its subcommand is gone from the program's --help or left "
                                     "out",
                             .dry_run = o->dry_run};
        tg_drafts_out dout = {&out->created, &out->updated, &out->unchanged, &out->kept,
                              &out->stale, &out->initialised};
        rc = tg_drafts_write(&wo, ds, nd, &dout, err);
    }
    tg_drafts_free(ds, nd);
    free(top);
    free(r.prog);
    tg_strv_free(&r.failed);
    oa_hints_free(&r.hints);
    if (r.reg)
        js_registry_free(r.reg);
    if (r.have_sc)
        tg_sandbox_config_free(&r.sc);
    return rc;
}
