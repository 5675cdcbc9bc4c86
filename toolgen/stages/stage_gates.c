/*
 * stage_gates.c — the validation gates as build stages (docs/build.md "Validation gates"):
 *
 *   static T   the static check of T's code (runtime/static_check.py, Python's own ast) run in
 *              the sandbox; a finding fails the stage with file:line:col.
 *   test T     every example and test of T run through tg_tool_call_run in the sandbox, checked
 *              (tg_expect_check, output_schema), scored (metrics.h) and judged by the gates;
 *              writes .toolgen/reports/T.validation.json and the lifecycle verdict.
 *
 * Neither stage writes the manifest: it is the source of truth and an input of the build, so a
 * build that rewrote `status:` would change its own inputs (and `toolgen check` would never be
 * clean). The verdict lives in the report and on the console; a manifest that claims a status
 * its gates do not support is a build failure.
 */
#include "stages/stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/confine.h"
#include "base/hash.h"
#include "base/json.h"
#include "schema/jsonschema.h"
#include "model/manifest.h"
#include "quality/metrics.h"
#include "run/sandbox.h"
#include "run/toolrun.h"

#define CODE_MAX_BYTES (4u << 20)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Milliseconds rounded to 0.1: the report is for people, not for diffing. */
static double ms_round(double ms)
{
    return ms < 0 ? 0 : round(ms * 10) / 10;
}

static int open_sandbox(tg_stage_run *r, const char *stage, tg_sandbox_config *sc, tg_err *err)
{
    if (tg_sandbox_config_init(sc, ".", tg_stage_config(r)->doc.root, err) != 0)
        return -1;
    if (sc->isolation == TG_ISOLATION_NONE)
        tg_stage_warning(r,
                         "sandbox.isolation is none in toolgen.yaml: %s runs the code of %s "
                         "WITHOUT isolation (only rlimits and the timeout apply); use this only "
                         "for code you trust; see docs/sandbox.md#isolation-none",
                         stage, tg_stage_tool(r));
    return 0;
}

/* The runtime file's host path as a discovered input: editing runner.py reruns the tests. */
static void dep_runtime(tg_stage_run *r, const tg_sandbox_config *sc, const char *file)
{
    if (!sc->runtime_dir)
        return;
    char *p = tg_path_join(sc->runtime_dir, file);
    tg_stage_dep(r, p);
    free(p);
}

/*
 * The runtime scripts read their request on stdin; the sandbox hands a request over on fd 4
 * (stdin is /dev/null there), so this shim rebinds stdin and runs the script as __main__.
 */
static const char py_stdin_shim[] = "import io, os, runpy, sys\n"
                                    "sys.stdin = io.TextIOWrapper(os.fdopen(4, 'rb'), "
                                    "encoding='utf-8')\n"
                                    "path = sys.argv[1]\n"
                                    "sys.argv = sys.argv[1:]\n"
                                    "runpy.run_path(path, run_name='__main__')\n";

/*
 * Runs toolgen/run/runtime/<script> with the system Python in the sandbox and parses the JSON object
 * it prints. 0 with *reply set; -1 with err; TG_STAGE_ENV when there is no usable sandbox.
 */
static int run_script(tg_stage_run *r, const tg_sandbox_config *sc, const char *script,
                      const cJSON *req, cJSON **reply, tg_err *err)
{
    *reply = NULL;
    const char *py = tg_sandbox_python();
    if (!py) {
        tg_err_set(err, "python3 is not installed at /usr/bin/python3 (needed to run "
                        "toolgen/run/runtime/%s): install it with `sudo apt-get install "
                        "python3` (or `make deps`)",
                   script);
        return TG_STAGE_ENV;
    }
    dep_runtime(r, sc, script);
    char *inside = xasprintf(TG_SANDBOX_RUNTIME "/%s", script);
    const char *argv[] = {py, "-I", "-B", "-c", py_stdin_shim, inside, NULL};
    char *text = tg_json_print_compact(req);
    tg_sandbox_cmd cmd = {.argv = argv,
                          .mount_runtime = true,
                          .request = text,
                          .request_len = strlen(text)};
    tg_limits_resolve(NULL, 0, &sc->max, &cmd.limits);
    tg_sandbox_result res = {0};
    int src = tg_sandbox_run(sc, &cmd, &res, err);
    int rc = -1;
    if (src == TG_SANDBOX_ENV) {
        rc = TG_STAGE_ENV;
        goto out;
    }
    if (src != 0)
        goto out;
    if (res.exit_code != 0 || res.killed_by != TG_LIMIT_NONE) {
        const char *e = res.err.data ? res.err.data : "";
        size_t n = strlen(e);
        tg_err_set(err, "toolgen/run/runtime/%s failed in the sandbox (exit status %d%s): %s", script,
                   res.exit_code, res.killed_by ? ", killed by a limit" : "",
                   n > 400 ? e + n - 400 : e);
        goto out;
    }
    tg_err perr = {0};
    *reply = tg_json_parse(res.out.data ? res.out.data : "", res.out.len, NULL, NULL, NULL, &perr);
    if (!cJSON_IsObject(*reply)) {
        cJSON_Delete(*reply);
        *reply = NULL;
        tg_err_set(err, "toolgen/run/runtime/%s printed no JSON object: %s", script, perr.msg);
        goto out;
    }
    rc = 0;
out:
    if (src == 0)
        tg_sandbox_result_free(&res);
    free(text);
    free(inside);
    return rc;
}

static char *code_path_of(const tg_manifest *m, const char *file)
{
    if (!file || file[0] == '/' || strstr(file, ".."))
        return NULL;
    return tg_path_join(m->dir, file);
}

/* ---- static --------------------------------------------------------------------------------- */

static const char *static_skip_reason(tg_runtime rt)
{
    switch (rt) {
    case TG_RUNTIME_NODE:
        return "runtime node: no static check of JavaScript yet (static_check.node in "
               "toolgen.yaml is not enforced); the sandbox still confines it";
    case TG_RUNTIME_COMMAND:
        return "runtime command: no code of its own to check (an argv template)";
    case TG_RUNTIME_HTTP:
        return "runtime http: no code runs locally";
    default:
        return "no implementation file";
    }
}

static int static_run(tg_stage_run *r, tg_err *err)
{
    const char *tool = tg_stage_tool(r);
    tg_manifest m;
    if (tg_stage_manifest(r, &m, err) != 0)
        return -1;
    char *code_path = code_path_of(&m, m.impl_file);
    cJSON *out = NULL;
    char *code = NULL;
    cJSON *req = NULL;
    tg_sandbox_config sc = {0};
    bool have_sc = false;
    int rc = -1;
    if (m.runtime != TG_RUNTIME_PYTHON || !code_path) {
        const char *why = static_skip_reason(m.runtime);
        out = cJSON_CreateObject();
        cJSON_AddBoolToObject(out, "ok", true);
        cJSON_AddStringToObject(out, "skipped", why);
        cJSON_AddStringToObject(out, "file", code_path ? code_path : m.doc.file);
        cJSON_AddArrayToObject(out, "findings");
        cJSON_AddArrayToObject(out, "warnings");
        tg_stage_note(r, "static check skipped: %s", why);
        rc = 0;
        goto emit;
    }
    tg_stage_dep(r, code_path);
    size_t len = 0;
    /* a link out of the repository would be read with toolgen's rights (base/confine.h) */
    if (tg_confine_repo(code_path, m.dir, "tool code", err) != 0 ||
        !(code = tg_read_file(code_path, CODE_MAX_BYTES, &len, err)))
        goto done;
    if (open_sandbox(r, "the static stage", &sc, err) != 0)
        goto done;
    have_sc = true;
    req = tg_static_check_request(code, code_path, tg_config_get(tg_stage_config(r), "/static_check"));
    rc = run_script(r, &sc, "static_check.py", req, &out, err);
    if (rc != 0)
        goto done;
    rc = -1;
    const cJSON *findings = tg_json_get(out, "findings"), *f;
    if (!cJSON_IsArray(findings) || !cJSON_IsArray(tg_json_get(out, "warnings"))) {
        tg_err_set(err, "toolgen/run/runtime/static_check.py replied without findings/warnings");
        goto done;
    }
    int nfind = cJSON_GetArraySize(findings);
    cJSON_ArrayForEach(f, findings)
    {
        tg_stage_problem(r, "%s:%d:%d: %s (%s)", code_path,
                         (int)tg_json_get_number(f, "line", 1), (int)tg_json_get_number(f, "col", 1),
                         tg_json_get_string(f, "message") ? tg_json_get_string(f, "message") : "?",
                         tg_json_get_string(f, "rule") ? tg_json_get_string(f, "rule") : "?");
    }
    cJSON_ArrayForEach(f, tg_json_get(out, "warnings"))
    {
        tg_stage_note(r, "%s:%d:%d: warning: %s (%s)", code_path,
                      (int)tg_json_get_number(f, "line", 1), (int)tg_json_get_number(f, "col", 1),
                      tg_json_get_string(f, "message") ? tg_json_get_string(f, "message") : "?",
                      tg_json_get_string(f, "rule") ? tg_json_get_string(f, "rule") : "?");
    }
    if (nfind || !cJSON_IsTrue(tg_json_get(out, "ok"))) {
        tg_err_setpos(err, code_path, 0, 0,
                      "static check: %d finding%s; the gate static_check fails and %s stays "
                      "draft (rules: toolgen.yaml static_check, docs/metrics.md#static-check)",
                      nfind, nfind == 1 ? "" : "s", tool);
        goto done;
    }
    tg_stage_note(r, "static check: ok (%d warning%s)", cJSON_GetArraySize(tg_json_get(out, "warnings")),
                  cJSON_GetArraySize(tg_json_get(out, "warnings")) == 1 ? "" : "s");
    rc = 0;
emit:
    if (rc == 0) {
        /* deterministic (no timings): the test stage reads it, and early cut-off works */
        char *text = tg_json_print(out);
        tg_stage_output(r, tg_static_out_path(tool), text, strlen(text));
    }
done:
    cJSON_Delete(out);
    cJSON_Delete(req);
    free(code);
    free(code_path);
    if (have_sc)
        tg_sandbox_config_free(&sc);
    tg_manifest_free(&m);
    return rc;
}

/* ---- test ----------------------------------------------------------------------------------- */

typedef struct tcase {
    const char *name;
    bool example;
    tg_test_category cat;
    const cJSON *input, *output, *expect;
    tg_call_result res;
    bool ran;
    const char **artifacts;
    tg_call_outcome oc;
    bool passed;
    char *failure;
    double ms;
} tcase;

static const char *const error_codes[] = {"INVALID_INPUT", "NOT_FOUND", "CONFLICT",
                                          "UNAUTHORIZED",  "FORBIDDEN", "TIMEOUT",
                                          "RATE_LIMITED",  "UPSTREAM_ERROR", "INTERNAL_ERROR"};

static bool known_code(const char *c)
{
    for (size_t i = 0; c && i < sizeof error_codes / sizeof *error_codes; i++)
        if (strcmp(c, error_codes[i]) == 0)
            return true;
    return false;
}

/* Path arguments are inputs of the stage: editing data/tips.csv reruns the tests that read it. */
static void dep_path_args(tg_stage_run *r, const tg_manifest *m, const cJSON *args)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(m->input_schema, "properties"))
    {
        const char *mark = tg_json_get_string(p, "x-toolgen-path");
        const char *v = p->string ? tg_json_get_string(args, p->string) : NULL;
        if (!mark || !v || !*v || v[0] == '/' || strstr(v, ".."))
            continue;
        while (v[0] == '.' && v[1] == '/')
            v += 2;
        tg_stage_dep(r, v);
    }
}

/* The outcome view metrics.h judges, over a call result (borrowed). */
static void make_outcome(tcase *c)
{
    tg_call_result *res = &c->res;
    tg_call_outcome *o = &c->oc;
    *o = (tg_call_outcome){0};
    bool schema_broken = res->guidance.cls == TG_CLASS_OUTPUT_SCHEMA;
    o->ok = res->ok || (schema_broken && res->result);
    o->result = res->result;
    if (!o->ok) {
        o->error_code = res->guidance.code;
        o->message = res->guidance.message;
    }
    o->schema_ok = res->ok;
    o->schema_error = schema_broken ? res->guidance.message : NULL;
    c->artifacts = xcalloc(res->sb.n_files + 1, sizeof *c->artifacts);
    for (size_t i = 0; i < res->sb.n_files; i++)
        c->artifacts[i] = res->sb.files[i].path;
    o->artifacts = c->artifacts;
    o->n_artifacts = res->sb.n_files;
}

static void judge(tcase *c)
{
    const tg_call_outcome *o = &c->oc;
    if (!c->example) {
        tg_err e = {0};
        char *why = NULL;
        int v = tg_expect_check(c->expect, o, &why, &e);
        c->passed = v == 1;
        if (v < 0)
            c->failure = xasprintf("the expect block is malformed: %s", e.msg);
        else if (v == 0)
            c->failure = why ? why : xstrdup("expectation not met");
        else
            free(why);
        return;
    }
    /* an example: its recorded output, exactly (numbers with the default tolerance) */
    if (!o->ok) {
        c->failure = xasprintf("expected the recorded output, got %s: %s",
                               o->error_code ? o->error_code : "an error",
                               o->message ? o->message : "");
        return;
    }
    char *why = NULL;
    tg_match_opts mo = {.tolerance = -1};
    if (!tg_json_match(c->output, o->result, TG_MATCH_EQUAL, &mo, &why)) {
        c->failure = xasprintf("output: %s", why ? why : "differs from the recorded output");
        free(why);
        return;
    }
    if (!o->schema_ok) {
        c->failure = xasprintf("output_schema: %s", o->schema_error ? o->schema_error : "invalid");
        return;
    }
    c->passed = true;
}

static cJSON *rate_json(const tg_rate *rt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "passed", rt->passed);
    cJSON_AddNumberToObject(o, "total", rt->total);
    cJSON_AddNumberToObject(o, "rate", rt->rate);
    cJSON_AddNumberToObject(o, "min", rt->min);
    cJSON_AddBoolToObject(o, "applicable", rt->applicable);
    cJSON_AddBoolToObject(o, "ok", rt->ok);
    return o;
}

static cJSON *bleu_json(const tg_code_bleu *cb, const tg_code_analysis *ca)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddNumberToObject(s, "ngram_match_score", cb->ngram.score);
    cJSON *p = cJSON_AddObjectToObject(s, "ngram_precision");
    for (int i = 0; i < TG_BLEU_MAX_N; i++) {
        char k[4];
        snprintf(k, sizeof k, "%d", i + 1);
        cJSON_AddNumberToObject(p, k, cb->ngram.precision[i]);
    }
    cJSON_AddNumberToObject(s, "brevity_penalty", cb->ngram.brevity_penalty);
    cJSON_AddNumberToObject(s, "candidate_tokens", (double)cb->ngram.candidate_len);
    cJSON_AddNumberToObject(s, "reference_tokens", (double)cb->ngram.reference_len);
    cJSON_AddNumberToObject(s, "weighted_ngram_score", cb->weighted_ngram.score);
    cJSON *kw = cJSON_AddObjectToObject(s, "keyword_weights");
    size_t nkw = 0;
    const tg_keyword_weight *w = tg_default_keyword_weights(&nkw);
    for (size_t i = 0; i < nkw; i++) /* the table ends with its own __default__ */
        cJSON_AddNumberToObject(kw, w[i].token, w[i].weight);
    cJSON_AddNumberToObject(s, "ast_match_score", ca->ast_match);
    cJSON_AddNumberToObject(s, "ast_node_overlap", ca->ast_node_overlap);
    cJSON_AddNumberToObject(s, "ast_depth_similarity", ca->ast_depth_similarity);
    cJSON_AddNumberToObject(s, "ast_node_sequence_similarity", ca->ast_sequence_similarity);
    cJSON_AddNumberToObject(s, "dataflow_match_score", ca->dataflow_match);
    cJSON_AddNumberToObject(s, "variable_flow_similarity", ca->variable_flow_similarity);
    cJSON_AddNumberToObject(s, "dependency_graph_similarity", ca->dependency_graph_similarity);
    cJSON_AddNumberToObject(s, "assignment_order_similarity", ca->assignment_order_similarity);
    if (!ca->ok) {
        char *e = xasprintf("%s:%d:%d", ca->error, ca->error_line, ca->error_col);
        cJSON_AddStringToObject(s, "analysis_error", e);
        free(e);
    }
    cJSON_AddNumberToObject(s, "code_bleu_score", cb->score);
    cJSON *bw = cJSON_AddObjectToObject(s, "weights");
    cJSON_AddNumberToObject(bw, "ngram", cb->weights.ngram);
    cJSON_AddNumberToObject(bw, "weighted_ngram", cb->weights.weighted_ngram);
    cJSON_AddNumberToObject(bw, "ast", cb->weights.ast);
    cJSON_AddNumberToObject(bw, "dataflow", cb->weights.dataflow);
    return s;
}

/* What the test stage learnt from the reference implementation. */
typedef struct refinfo {
    bool has;           /* a reference ran */
    double similarity;
    char *disagreement; /* the first one */
    bool *agrees;       /* per case */
    bool has_bleu;
    tg_code_bleu bleu;
    tg_code_analysis ca;
    double ms;
} refinfo;

/*
 * Runs the reference implementation on every case's input (a copy of the manifest pointing at
 * the reference file: same contract, same sandbox) and measures agreement and CodeBLEU.
 * 0, -1 (err) or TG_STAGE_ENV.
 */
static int run_reference(tg_stage_run *r, const tg_toolrun_ctx *ctx, const tg_manifest *m,
                         const js_schema *in, const js_schema *out, tcase *cs, size_t n,
                         refinfo *ri, tg_err *err)
{
    double t0 = now_ms();
    const char *file = tg_json_get_string(m->reference, "file");
    const char *entry = tg_json_get_string(m->reference, "entrypoint");
    char *ref_path = code_path_of(m, file);
    if (!ref_path || !entry || n == 0 ||
        (m->runtime != TG_RUNTIME_PYTHON && m->runtime != TG_RUNTIME_NODE)) {
        free(ref_path);
        return 0;
    }
    tg_stage_dep(r, ref_path);
    tg_manifest ref = *m; /* shallow: same tree, another file and entry point */
    ref.impl_file = file;
    ref.entrypoint = entry;
    tcase *rc_ = xcalloc(n, sizeof *rc_);
    tg_call_outcome *gen = xcalloc(n, sizeof *gen), *refo = xcalloc(n, sizeof *refo);
    int rc = 0;
    size_t ran = 0;
    for (; ran < n; ran++) {
        tg_tool_call call = {.m = &ref, .input = in, .output = out, .args = cs[ran].input};
        tg_call_status st = tg_tool_call_run(ctx, &call, &rc_[ran].res, err);
        if (st != TG_CALL_DONE) {
            rc = st == TG_CALL_ENV ? TG_STAGE_ENV : -1;
            tg_err_prefix(err, "reference implementation %s", ref_path);
            ran++;
            goto out;
        }
        make_outcome(&rc_[ran]);
        gen[ran] = cs[ran].oc;
        refo[ran] = rc_[ran].oc;
    }
    tg_match_opts mo = {.tolerance = -1, .ignore_summary = true};
    if (tg_reference_agreement(gen, refo, n, &mo, &ri->similarity, &ri->disagreement, err) != 0) {
        rc = -1;
        goto out;
    }
    ri->agrees = xcalloc(n, sizeof *ri->agrees);
    for (size_t i = 0; i < n; i++) {
        double one = 0;
        tg_err e1 = {0};
        ri->agrees[i] =
            tg_reference_agreement(&gen[i], &refo[i], 1, &mo, &one, NULL, &e1) == 0 && one >= 1.0;
    }
    ri->has = true;
    /* CodeBLEU compares Python code (tg_py_tokenize and code_analysis.py are Python's) */
    char *cand_path = code_path_of(m, m->impl_file);
    if (m->runtime == TG_RUNTIME_PYTHON && cand_path) {
        size_t l1 = 0, l2 = 0;
        char *cand = tg_confine_repo(cand_path, m->dir, "tool code", err) == 0 &&
                             tg_confine_repo(ref_path, m->dir, "tool code", err) == 0
                         ? tg_read_file(cand_path, CODE_MAX_BYTES, &l1, err)
                         : NULL;
        char *refc = cand ? tg_read_file(ref_path, CODE_MAX_BYTES, &l2, err) : NULL;
        cJSON *req = refc ? tg_code_analysis_request(cand, refc) : NULL, *reply = NULL;
        if (!refc)
            rc = -1;
        else
            rc = run_script(r, ctx->sandbox, "code_analysis.py", req, &reply, err);
        if (rc == 0 && tg_code_analysis_read(reply, &ri->ca, err) != 0)
            rc = -1;
        if (rc == 0) {
            rc = tg_code_bleu_compute(cand, refc, ri->ca.ast_match, ri->ca.dataflow_match,
                                      &ri->bleu.weights, NULL, 0, &ri->bleu, err);
            ri->has_bleu = rc == 0;
        }
        cJSON_Delete(req);
        cJSON_Delete(reply);
        free(cand);
        free(refc);
    }
    free(cand_path);
out:
    for (size_t i = 0; i < ran; i++) {
        free(rc_[i].artifacts);
        tg_call_result_free(&rc_[i].res);
    }
    free(rc_);
    free(gen);
    free(refo);
    free(ref_path);
    ri->ms = now_ms() - t0;
    return rc;
}

static const char *const test_config[] = {"/validation", "/sandbox", "/static_check", NULL};
static const char *const test_data[] = {"schemas/visualization_manifest.schema.json", NULL};
static const char *const up_static[] = {"load", "static", NULL};

/* "0.9 < 0.95" for a failed metric gate, "failed" for the yes/no ones. */
static char *gate_why(const tg_gate *g)
{
    if (strcmp(g->name, "schema") == 0 || strcmp(g->name, "static_check") == 0)
        return xstrdup("failed");
    return xasprintf("%.4g < %.4g", g->value, g->min);
}

static cJSON *load_static_report(tg_stage_run *r, tg_err *err)
{
    size_t len = 0;
    char *text = tg_stage_read_upstream(r, "static", tg_stage_tool(r), &len, err);
    if (!text)
        return NULL;
    cJSON *j = tg_json_parse(text, len, NULL, NULL, NULL, err);
    free(text);
    return j;
}

static js_schema *compile_or_fail(js_registry *reg, const cJSON *schema, const char *what,
                                  const char *file, tg_err *err)
{
    if (!cJSON_IsObject(schema)) {
        tg_err_setpos(err, file, 0, 0, "%s is missing", what);
        return NULL;
    }
    js_schema *s = js_compile(reg, schema, &(js_options){0}, err);
    if (!s)
        tg_err_prefix(err, "%s: %s does not compile", file, what);
    return s;
}

static int test_run(tg_stage_run *r, tg_err *err)
{
    double t0 = now_ms();
    const tg_config *cfg = tg_stage_config(r);
    const char *tool = tg_stage_tool(r);
    tg_metrics_config mc;
    if (tg_metrics_config_from_json(tg_config_get(cfg, "/validation"), &mc, err) != 0) {
        tg_err_prefix(err, "%s", cfg->path ? cfg->path : "toolgen.yaml");
        return -1;
    }
    tg_manifest m;
    if (tg_stage_manifest(r, &m, err) != 0)
        return -1;
    int rc = -1;
    cJSON *static_rep = NULL, *report = NULL, *tests_j = NULL, *logs = NULL, *errors = NULL;
    js_registry *reg = NULL;
    js_schema *in = NULL, *outs = NULL, *viz = NULL;
    tg_doc viz_doc = {0};
    tg_sandbox_config sc = {0};
    bool have_sc = false;
    tcase *cs = NULL;
    size_t n = 0, ran = 0;
    refinfo ri = {.bleu.weights = mc.bleu_weights};
    char *not_run = NULL;
    tg_buf stage_err = TG_BUF_INIT;

    char *code_path = code_path_of(&m, m.impl_file);
    if (!(static_rep = load_static_report(r, err)))
        goto out;
    if (code_path)
        tg_stage_dep(r, code_path);

    size_t nex = (size_t)cJSON_GetArraySize(m.examples), nt = (size_t)cJSON_GetArraySize(m.tests);
    cs = xcalloc(nex + nt + 1, sizeof *cs);
    const cJSON *it;
    cJSON_ArrayForEach(it, m.examples)
    {
        tcase *c = &cs[n++];
        c->example = true;
        c->name = tg_json_get_string(it, "name");
        c->cat = TG_CAT_NORMAL;
        c->input = tg_json_get(it, "input");
        c->output = tg_json_get(it, "output");
        if (!c->name) {
            /* examples may be unnamed: "example_<n>" */
            static const char *const digits[] = {"example_1", "example_2", "example_3",
                                                 "example_4", "example_5", "example_6",
                                                 "example_7", "example_8", "example_9"};
            c->name = n <= 9 ? digits[n - 1] : "example";
        }
    }
    cJSON_ArrayForEach(it, m.tests)
    {
        tcase *c = &cs[n++];
        c->name = tg_json_get_string(it, "name") ? tg_json_get_string(it, "name") : "test";
        const char *cat = tg_json_get_string(it, "category");
        c->cat = cat ? tg_test_category_parse(cat) : TG_CAT_NORMAL;
        if (c->cat == TG_CAT_COUNT)
            c->cat = TG_CAT_NORMAL;
        c->input = tg_json_get(it, "input");
        c->expect = tg_json_get(it, "expect");
    }

    if (m.runtime == TG_RUNTIME_HTTP) {
        not_run = xstrdup("runtime http: the sandbox has no network, so remote tools are not run "
                          "by the build");
    } else {
        if (open_sandbox(r, "the test stage", &sc, err) != 0)
            goto out;
        have_sc = true;
        if (m.runtime == TG_RUNTIME_PYTHON) {
            dep_runtime(r, &sc, "runner.py");
            dep_runtime(r, &sc, "toolgen_helpers.py");
        } else if (m.runtime == TG_RUNTIME_NODE) {
            dep_runtime(r, &sc, "runner.js");
        }
        reg = js_registry_new();
        tg_err ignored = {0};
        if (js_registry_add_metaschemas(reg, &ignored) != 0)
            tg_err_clear(&ignored); /* only schemas that reference the meta-schema need it */
        if (!(in = compile_or_fail(reg, m.input_schema, "input_schema", m.doc.file, err)) ||
            !(outs = compile_or_fail(reg, m.output_schema, "output_schema", m.doc.file, err)))
            goto out;
        const char *dd = tg_datadir();
        if (dd) {
            char *vp = tg_path_join(dd, test_data[0]);
            if (tg_doc_load(vp, NULL, &viz_doc, &ignored) == 0)
                viz = js_compile(reg, viz_doc.root, &(js_options){0}, &ignored);
            free(vp);
        }
    }
    tg_toolrun_ctx ctx = {
        .sandbox = &sc,
        .visualization = viz,
        .allowed_imports = tg_json_get(tg_config_get(cfg, "/static_check"), "allowed_imports"),
    };
    double t_tests = now_ms();
    bool schema_ok = true, sandbox_ok = true;
    for (; !not_run && ran < n; ran++) {
        tcase *c = &cs[ran];
        dep_path_args(r, &m, c->input);
        tg_tool_call call = {.m = &m, .input = in, .output = outs, .args = c->input};
        double ts = now_ms();
        tg_call_status st = tg_tool_call_run(&ctx, &call, &c->res, err);
        c->ms = now_ms() - ts;
        c->ran = true;
        if (st == TG_CALL_UNSUPPORTED) {
            not_run = xasprintf("%s", err->msg);
            tg_err_clear(err);
            ran++;
            break;
        }
        if (st == TG_CALL_ENV) {
            rc = TG_STAGE_ENV;
            ran++;
            goto out;
        }
        if (st != TG_CALL_DONE) {
            tg_err_prefix(err, "%s %s", c->example ? "example" : "test", c->name);
            ran++;
            goto out;
        }
        make_outcome(c);
        judge(c);
        tg_error_class cls = c->res.guidance.cls;
        if (cls == TG_CLASS_SIGNATURE_MISMATCH || cls == TG_CLASS_ENTRYPOINT_MISSING)
            schema_ok = false; /* seed 4.1: the entry function must match input_schema */
        if (cls == TG_CLASS_CRASH)
            sandbox_ok = false;
    }
    t_tests = now_ms() - t_tests;
    if (!not_run && m.reference) {
        int rrc = run_reference(r, &ctx, &m, in, outs, cs, n, &ri, err);
        if (rrc != 0) {
            rc = rrc;
            goto out;
        }
    }

    /* ---- metrics and gates ---- */
    double t_metrics = now_ms();
    tg_test_outcome *outc = xcalloc(n + 1, sizeof *outc);
    size_t nout = 0, npassed = 0;
    for (size_t i = 0; !not_run && i < n; i++) {
        outc[nout++] = (tg_test_outcome){cs[i].cat, cs[i].passed};
        npassed += cs[i].passed;
    }
    bool static_ok = cJSON_IsTrue(tg_json_get(static_rep, "ok"));
    /* pass@k of a hand-written (or pinned) tool: one candidate, correct when it passes every
     * test (HumanEval's n samples per problem with n = 1), so pass@1 is 0 or 1 and pass@5 does
     * not apply; sampling several candidates is the code-generation stage's business. */
    tg_validation_input vin = {
        .schema_ok = schema_ok,
        .static_ok = static_ok,
        .tests = outc,
        .n_tests = nout,
        .has_reference = ri.has,
        .reference_similarity = ri.similarity,
        .has_code_bleu = ri.has_bleu,
        .code_bleu = ri.bleu.score,
        .candidates = not_run || nout == 0 ? 0 : 1,
        .correct = nout && npassed == nout ? 1 : 0,
    };
    tg_validation_result vr;
    int erc = tg_validation_evaluate(&mc, &vin, &vr, err);
    free(outc);
    if (erc != 0)
        goto out;
    t_metrics = now_ms() - t_metrics;

    /* ---- lifecycle ---- */
    tg_status from = m.status == TG_STATUS_UNKNOWN ? TG_STATUS_DRAFT : m.status;
    tg_status to = from;
    char *reason;
    const tg_gate *failed = NULL;
    for (int g = 0; g < TG_GATE_COUNT; g++)
        if (vr.failed_gate && strcmp(vr.gates[g].name, vr.failed_gate) == 0)
            failed = &vr.gates[g];
    if (not_run) {
        reason = xasprintf("not run: %s", not_run);
    } else if (!failed) {
        if (from == TG_STATUS_DRAFT)
            to = TG_STATUS_STAGED;
        reason = xstrdup("all gates passed");
    } else {
        char *gw = gate_why(failed);
        if (from != TG_STATUS_REJECTED)
            to = TG_STATUS_DRAFT;
        reason = xasprintf("gate %s failed: %s", failed->name, gw);
        free(gw);
    }
    size_t nfailed = 0;
    for (size_t i = 0; !not_run && i < n; i++)
        nfailed += !cs[i].passed;
    bool claims = from == TG_STATUS_STAGED || from == TG_STATUS_APPROVED ||
                  from == TG_STATUS_PROMOTED;

    /* ---- the report ---- */
    report = cJSON_CreateObject();
    cJSON_AddNumberToObject(report, "report_version", 1);
    cJSON_AddStringToObject(report, "tool", m.name ? m.name : tool);
    cJSON_AddStringToObject(report, "version", m.version ? m.version : "0.0.0");
    cJSON_AddStringToObject(report, "manifest", m.doc.file);
    tg_hash ch;
    tg_err herr = {0};
    if (code_path && tg_hash_file(code_path, &ch, &herr) == 0) {
        char hex[TG_HASH_HEX];
        tg_hash_hex(ch, hex);
        cJSON_AddStringToObject(report, "code_hash", hex);
    }
    cJSON_AddBoolToObject(report, "schema_ok", schema_ok);
    cJSON_AddBoolToObject(report, "sandbox_ok", sandbox_ok);
    bool tests_ok = vr.rates.overall.ok;
    for (int k = 0; k < TG_CAT_COUNT; k++)
        tests_ok = tests_ok && vr.rates.category[k].ok;
    cJSON_AddBoolToObject(report, "tests_ok", tests_ok && !not_run);
    cJSON_AddItemToObject(report, "static_check", static_rep);
    static_rep = NULL;
    tests_j = cJSON_AddArrayToObject(report, "tests");
    for (size_t i = 0; !not_run && i < n; i++) {
        tcase *c = &cs[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "test_id", c->name);
        cJSON_AddStringToObject(t, "kind", c->example ? "example" : "test");
        cJSON_AddStringToObject(t, "category", tg_test_category_name(c->cat));
        cJSON_AddBoolToObject(t, "passed", c->passed);
        cJSON_AddNumberToObject(t, "duration_ms", ms_round(c->ms));
        if (!c->oc.ok && known_code(c->oc.error_code))
            cJSON_AddStringToObject(t, "error_code", c->oc.error_code);
        if (c->failure)
            cJSON_AddStringToObject(t, "failure", c->failure);
        if (ri.agrees)
            cJSON_AddBoolToObject(t, "reference_agrees", ri.agrees[i]);
        cJSON_AddItemToArray(tests_j, t);
    }
    cJSON *pr = cJSON_AddObjectToObject(report, "pass_rates");
    cJSON_AddItemToObject(pr, "overall", rate_json(&vr.rates.overall));
    cJSON *cats = cJSON_AddObjectToObject(pr, "categories");
    for (int k = 0; k < TG_CAT_COUNT; k++)
        cJSON_AddItemToObject(cats, tg_test_category_name((tg_test_category)k),
                              rate_json(&vr.rates.category[k]));
    cJSON *cm = cJSON_AddObjectToObject(report, "code_metrics");
    cJSON *fc = cJSON_AddObjectToObject(cm, "functional_correctness");
    if (ri.has)
        cJSON_AddNumberToObject(fc, "reference_solution_similarity", ri.similarity);
    else
        cJSON_AddNullToObject(fc, "reference_solution_similarity");
    if (ri.disagreement)
        cJSON_AddStringToObject(fc, "reference_disagreement", ri.disagreement);
    cJSON_AddNumberToObject(fc, "test_cases_passed", vr.rates.overall.passed);
    cJSON_AddNumberToObject(fc, "test_cases_total", vr.rates.overall.total);
    cJSON_AddNumberToObject(fc, "test_case_pass_rate", vr.rates.overall.rate);
    cJSON_AddNumberToObject(fc, "correctness_score", vr.functional_correctness);
    cJSON *pk = cJSON_AddObjectToObject(cm, "pass_at_k");
    if (vr.has_pass_at_1)
        cJSON_AddNumberToObject(pk, "1", vr.pass_at_1);
    if (vr.has_pass_at_5)
        cJSON_AddNumberToObject(pk, "5", vr.pass_at_5);
    if (vin.candidates) {
        cJSON *cand = cJSON_AddObjectToObject(cm, "candidates");
        cJSON_AddNumberToObject(cand, "n", vin.candidates);
        cJSON_AddNumberToObject(cand, "c", vin.correct);
    }
    cJSON_AddNumberToObject(cm, "test_pass_rate", vr.rates.overall.rate);
    if (ri.has_bleu)
        cJSON_AddItemToObject(cm, "semantic_closeness", bleu_json(&ri.bleu, &ri.ca));
    else
        cJSON_AddNullToObject(cm, "semantic_closeness");
    cJSON_AddNumberToObject(cm, "overall_score", vr.overall.score);
    cJSON_AddStringToObject(cm, "quality_tier", tg_quality_tier_name(vr.overall.tier));
    cJSON *mw = cJSON_AddObjectToObject(cm, "metric_weights");
    cJSON_AddNumberToObject(mw, "functional_correctness", vr.overall.applied.functional_correctness);
    cJSON_AddNumberToObject(mw, "test_pass_rate", vr.overall.applied.test_pass_rate);
    cJSON_AddNumberToObject(mw, "code_bleu", vr.overall.applied.code_bleu);
    cJSON_AddNumberToObject(mw, "pass_at_1", vr.overall.applied.pass_at_1);
    cJSON *gates = cJSON_AddArrayToObject(report, "gates");
    for (int g = 0; g < TG_GATE_COUNT; g++) {
        const tg_gate *gt = &vr.gates[g];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", gt->name);
        cJSON_AddBoolToObject(o, "applicable", gt->applicable);
        cJSON_AddBoolToObject(o, "passed", gt->passed);
        if (gt->applicable && isfinite(gt->value))
            cJSON_AddNumberToObject(o, "value", gt->value);
        if (gt->applicable && isfinite(gt->min))
            cJSON_AddNumberToObject(o, "min", gt->min);
        cJSON_AddItemToArray(gates, o);
    }
    if (vr.failed_gate)
        cJSON_AddStringToObject(report, "failed_gate", vr.failed_gate);
    else
        cJSON_AddNullToObject(report, "failed_gate");
    cJSON *stj = cJSON_AddObjectToObject(report, "status");
    cJSON_AddStringToObject(stj, "from", tg_status_name(from));
    cJSON_AddStringToObject(stj, "to", tg_status_name(to));
    cJSON_AddStringToObject(stj, "reason", reason);
    logs = cJSON_AddArrayToObject(report, "logs");
    errors = cJSON_AddArrayToObject(report, "errors");
    if (not_run) {
        char *l = xasprintf("not run: %s", not_run);
        tg_stage_note(r, "%s", l);
        cJSON_AddItemToArray(logs, cJSON_CreateString(l));
        free(l);
    }
    for (size_t i = 0; !not_run && i < n; i++) {
        tcase *c = &cs[i];
        char *l = xasprintf("%s %s %s (%s, %.0f ms)%s%s", c->passed ? "PASS" : "FAIL",
                            c->example ? "example" : "test", c->name,
                            tg_test_category_name(c->cat), c->ms, c->failure ? ": " : "",
                            c->failure ? c->failure : "");
        cJSON_AddItemToArray(logs, cJSON_CreateString(l));
        tg_stage_note(r, "%s", l);
        free(l);
        if (!c->passed) {
            char *e = xasprintf("%s: %s %s: %s", m.doc.file, c->example ? "example" : "test",
                                c->name, c->failure ? c->failure : "failed");
            cJSON_AddItemToArray(errors, cJSON_CreateString(e));
            tg_stage_problem(r, "%s", e);
            free(e);
        }
    }
    if (ri.has)
        tg_stage_note(r, "reference agreement %.2f%s%s", ri.similarity,
                      ri.disagreement ? ": " : "", ri.disagreement ? ri.disagreement : "");
    cJSON *tm = cJSON_AddObjectToObject(report, "timings");
    cJSON_AddNumberToObject(tm, "total_ms", ms_round(now_ms() - t0));
    cJSON_AddNumberToObject(tm, "tests_ms", ms_round(not_run ? 0 : t_tests));
    if (ri.has)
        cJSON_AddNumberToObject(tm, "reference_ms", ms_round(ri.ms));
    cJSON_AddNumberToObject(tm, "metrics_ms", ms_round(t_metrics));

    /* ---- verdict ---- */
    char *rp = tg_validation_report_path(tool);
    if (not_run) {
        tg_stage_summary(r, "%s: tests not run (%s); lifecycle: stays %s", tool, not_run,
                         tg_status_name(from));
    } else {
        char life[256];
        if (!failed && from == TG_STATUS_DRAFT)
            snprintf(life, sizeof life, "draft → staged");
        else if (!failed)
            snprintf(life, sizeof life, "%s (all gates pass)", tg_status_name(from));
        else if (from == TG_STATUS_DRAFT || from == TG_STATUS_REJECTED)
            snprintf(life, sizeof life, "stays %s (gate %s failed)", tg_status_name(from),
                     failed->name);
        else
            snprintf(life, sizeof life, "%s → draft: gate %s failed", tg_status_name(from),
                     failed->name);
        tg_stage_summary(r,
                         "%s: %zu/%zu tests passed (%.0f%%), score %.2f %s, lifecycle: %s", tool,
                         npassed, n, vr.rates.overall.rate * 100, vr.overall.score,
                         tg_quality_tier_name(vr.overall.tier), life);
    }
    rc = 0;
    if (!not_run && nfailed) {
        if (claims)
            tg_buf_printf(&stage_err,
                          "%zu of %zu tests failed: %s (the manifest says status: %s, which "
                          "needs every gate to pass); report: %s",
                          nfailed, n, reason, tg_status_name(from), rp);
        else
            tg_buf_printf(&stage_err, "%zu of %zu tests failed; %s stays %s (%s); report: %s",
                          nfailed, n, tool, tg_status_name(to), reason, rp);
        rc = -1;
    } else if (!not_run && failed && claims) {
        tg_buf_printf(&stage_err,
                      "gate %s failed, but the manifest says status: %s, which needs every gate "
                      "to pass (%s); fix the tool or set status: draft; report: %s",
                      failed->name, tg_status_name(from), reason, rp);
        rc = -1;
    } else if (!not_run && failed) {
        tg_stage_note(r, "%s stays %s: %s", tool, tg_status_name(to), reason);
    }
    if (rc != 0)
        tg_err_setpos(err, m.doc.file, 0, 0, "%s", stage_err.data);
    char *text = tg_json_print(report);
    tg_stage_output_always(r, rp, text, strlen(text));
    free(reason);
out:
    for (size_t i = 0; i < ran; i++) {
        free(cs[i].artifacts);
        free(cs[i].failure);
        tg_call_result_free(&cs[i].res);
    }
    free(cs);
    free(ri.agrees);
    free(ri.disagreement);
    free(not_run);
    free(code_path);
    tg_buf_free(&stage_err);
    cJSON_Delete(report);
    cJSON_Delete(static_rep);
    js_schema_free(in);
    js_schema_free(outs);
    js_schema_free(viz);
    js_registry_free(reg);
    tg_doc_free(&viz_doc);
    if (have_sc)
        tg_sandbox_config_free(&sc);
    tg_manifest_free(&m);
    return rc;
}

/* ---- the stage definitions ------------------------------------------------------------------ */

static const char *const up_load[] = {"load", NULL};
static const char *const static_config[] = {"/static_check", "/sandbox", NULL};

const tg_stage_def tg_stage_static = {
    .id = "static",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .upstream = up_load,
    .config = static_config,
    .run = static_run,
    .gate = true,
    .summary = "static check of the tool's Python code in the sandbox (ast: forbidden calls and "
               "modules, import allowlist) → .toolgen/out/<tool>.static.json",
};

const tg_stage_def tg_stage_test = {
    .id = "test",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .upstream = up_static,
    .config = test_config,
    .data = test_data,
    .run = test_run,
    .gate = true,
    .summary = "every example and test in the sandbox, metrics, gates, lifecycle → "
               ".toolgen/reports/<tool>.validation.json",
};
