/*
 * stage_test.c — test T: every example and test of T run through tg_tool_call_run in the
 * sandbox, checked (tg_expect_check, output_schema), scored (quality/metrics.h) and judged by
 * the gates; writes .toolgen/reports/T.validation.json and the lifecycle verdict
 * (docs/build.md "Validation gates").
 *
 * The stage does not write the manifest: it is the source of truth and an input of the build,
 * so a build that rewrote `status:` would change its own inputs (and `toolgen check` would
 * never be clean). The verdict lives in the report and on the console; a manifest that claims
 * a status its gates do not support is a build failure.
 *
 * One run: collect the cases, open the tool-run environment (as `toolgen run` does), run the
 * cases (and the reference implementation), judge the gates, decide the verdict, write the
 * report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/confine.h"
#include "base/errcode.h"
#include "base/hash.h"
#include "base/json.h"
#include "quality/metrics.h"
#include "run/toolrun.h"
#include "run/warmpool.h"
#include "schema/jsonschema.h"
#include "stages/stages_int.h"

static const char *const test_config[] = {"/validation", "/sandbox", "/static_check", "/code",
                                          NULL};
static const char *const test_data[] = {"schemas/visualization_manifest.schema.json", NULL};
static const char *const up_static[] = {"load", "static", NULL};

static void test_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    (void)cfg;
    (void)shared;
    tg_strv_push(own, TG_REPORTS_DIR);
}

/* Milliseconds rounded to 0.1: the report is for people, not for diffing. */
static double ms_round(double ms)
{
    return ms < 0 ? 0 : round(ms * 10) / 10;
}

/* ---- cases ---------------------------------------------------------------------------------- */

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

static bool known_code(const char *c)
{
    return tg_errcode_lookup(c) != NULL;
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

/*
 * A copy of a result without the top-level members output_schema marks `x-toolgen-volatile`:
 * values measured per call (a time, a resource usage) that an example records but cannot
 * reproduce (docs/manifest.md#examples). Their presence and type are output_schema's to check.
 */
static cJSON *without_volatile(const cJSON *output_schema, const cJSON *v)
{
    cJSON *copy = cJSON_Duplicate(v, true);
    const cJSON *p;
    cJSON_ArrayForEach(p, tg_json_get(output_schema, "properties"))
    {
        if (cJSON_IsTrue(tg_json_get(p, "x-toolgen-volatile")) && cJSON_IsObject(copy))
            cJSON_DeleteItemFromObjectCaseSensitive(copy, p->string);
    }
    return copy;
}

static void judge(tcase *c, const cJSON *output_schema)
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
    cJSON *want = without_volatile(output_schema, c->output);
    cJSON *got = without_volatile(output_schema, o->result);
    bool same = tg_json_match(want, got, TG_MATCH_EQUAL, &mo, &why);
    cJSON_Delete(want);
    cJSON_Delete(got);
    if (!same) {
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
    size_t nsc = 0;
    const tg_analysis_score *sc = tg_code_analysis_scores(&nsc);
    for (size_t i = 0; i < nsc; i++)
        cJSON_AddNumberToObject(s, sc[i].name, tg_code_analysis_score(ca, &sc[i]));
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
 * the reference file: same contract, same sandbox; through the build's pool when there is one)
 * and measures agreement and CodeBLEU. DONE, FAILED (err) or NO_ENVIRONMENT.
 */
static tg_stage_status run_reference(tg_stage_run *r, const tg_toolrun_ctx *ctx,
                                     struct tg_warmpool *pool, const tg_manifest *m,
                                     const js_schema *in, const js_schema *out, tcase *cs,
                                     size_t n, refinfo *ri, tg_err *err)
{
    double t0 = tg_now_ms();
    const char *file = tg_json_get_string(m->reference, "file");
    const char *entry = tg_json_get_string(m->reference, "entrypoint");
    char *ref_path = tgs_code_path(m, file);
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    if (!ref_path || !entry || n == 0 || !rt || !rt->code_file) {
        free(ref_path);
        return TG_STAGE_DONE;
    }
    tg_stage_dep(r, ref_path);
    tg_manifest ref = *m; /* shallow: same tree, another file and entry point */
    ref.impl_file = file;
    ref.entrypoint = entry;
    tcase *rc_ = xcalloc(n, sizeof *rc_);
    tg_call_outcome *gen = xcalloc(n, sizeof *gen), *refo = xcalloc(n, sizeof *refo);
    tg_stage_status rc = TG_STAGE_DONE;
    size_t ran = 0;
    tg_tool_call *calls = xcalloc(n, sizeof *calls);
    for (size_t i = 0; i < n; i++)
        calls[i] = (tg_tool_call){.m = &ref, .input = in, .output = out, .args = cs[i].input};
    tg_tool_batch *batch = tg_tool_batch_new(ctx, calls, n);
    tg_tool_batch_use_pool(batch, pool);
    for (; ran < n; ran++) {
        tg_call_status st = tg_tool_batch_run(batch, ran, &rc_[ran].res, err);
        if (st != TG_CALL_DONE) {
            rc = st == TG_CALL_ENV ? TG_STAGE_NO_ENVIRONMENT : TG_STAGE_FAILED;
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
        rc = TG_STAGE_FAILED;
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
    char *cand_path = tgs_code_path(m, m->impl_file);
    if (rt->code_analysis && cand_path) {
        size_t l1 = 0, l2 = 0;
        const tg_repo *repo = tg_stage_repo(r);
        char *cand = tg_confine_repo_in(repo->path, cand_path, m->dir, "tool code", err) == 0 &&
                             tg_confine_repo_in(repo->path, ref_path, m->dir, "tool code",
                                                err) == 0
                         ? tg_read_file_at(repo->root_fd, cand_path, TGS_CODE_MAX_BYTES, &l1, err)
                         : NULL;
        char *refc = cand ? tg_read_file_at(repo->root_fd, ref_path, TGS_CODE_MAX_BYTES, &l2, err)
                          : NULL;
        cJSON *req = refc ? tg_code_analysis_request(cand, refc) : NULL, *reply = NULL;
        if (!refc)
            rc = TG_STAGE_FAILED;
        else
            rc = tgs_run_script(ctx->sandbox, "code_analysis.py", req, &reply, err);
        if (rc == TG_STAGE_DONE && tg_code_analysis_read(reply, &ri->ca, err) != 0)
            rc = TG_STAGE_FAILED;
        if (rc == TG_STAGE_DONE) {
            rc = tg_code_bleu_compute(cand, refc, ri->ca.ast_match, ri->ca.dataflow_match,
                                      &ri->bleu.weights, NULL, 0, &ri->bleu, err) == 0
                     ? TG_STAGE_DONE
                     : TG_STAGE_FAILED;
            ri->has_bleu = rc == TG_STAGE_DONE;
        }
        cJSON_Delete(req);
        cJSON_Delete(reply);
        free(cand);
        free(refc);
    }
    free(cand_path);
out:
    tg_tool_batch_free(batch);
    free(calls);
    for (size_t i = 0; i < ran; i++) {
        free(rc_[i].artifacts);
        tg_call_result_free(&rc_[i].res);
    }
    free(rc_);
    free(gen);
    free(refo);
    free(ref_path);
    ri->ms = tg_now_ms() - t0;
    return rc;
}

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

/* ---- one run of the test stage ------------------------------------------------------------- */

/* Everything one run of the test stage works with, from the cases to the verdict. */
typedef struct test_run_state {
    tg_stage_run *r;
    const tg_config *cfg;
    const char *tool;
    double t0;
    tg_metrics_config mc;
    tg_manifest m;
    bool have_m;
    char *code_path;
    cJSON *static_rep; /* the static stage's findings (moves into the report) */
    tcase *cs;
    size_t n, ran;     /* cases; cases started (their results need freeing) */
    char *not_run;     /* why no case ran (runtime http, an unsupported runtime), or NULL */
    tg_toolrun_env *env; /* the build's (test_shared), set up as `toolgen run` does */
    struct tg_warmpool *pool; /* the build's workers, or NULL: each tool's own warm sandbox */
    js_registry *reg;  /* the manifest's own schemas */
    js_schema *in, *outs;
    refinfo ri;
    bool schema_ok, sandbox_ok;
    double t_tests, t_metrics;
    /* the gates */
    tg_validation_input vin;
    tg_validation_result vr;
    size_t npassed, nfailed;
    /* the verdict */
    tg_status from, to;
    const tg_gate *failed;
    char *reason;
    bool claims; /* the manifest says staged, approved or promoted: every gate must pass */
} test_run_state;

/* Every example (its recorded output is the expectation) and every test, in manifest order. */
static void collect_cases(test_run_state *t)
{
    const tg_manifest *m = &t->m;
    size_t nex = (size_t)cJSON_GetArraySize(m->examples), nt = (size_t)cJSON_GetArraySize(m->tests);
    t->cs = xcalloc(nex + nt + 1, sizeof *t->cs);
    const cJSON *it;
    /* A tool that declares it reaches the network (constraints.network: web_fetch) records
     * examples the build cannot re-run: the sandbox has no network. Its tests still run, and
     * must not need it (docs/build.md#the-test-stage). */
    const cJSON *examples = cJSON_IsTrue(tg_json_get(m->constraints, "network")) ? NULL
                                                                                : m->examples;
    /* names are required by the manifest schema, which load enforced */
    cJSON_ArrayForEach(it, examples)
    {
        tcase *c = &t->cs[t->n++];
        c->example = true;
        c->name = tg_json_get_string(it, "name");
        c->cat = TG_CAT_NORMAL;
        c->input = tg_json_get(it, "input");
        c->output = tg_json_get(it, "output");
    }
    cJSON_ArrayForEach(it, m->tests)
    {
        tcase *c = &t->cs[t->n++];
        c->name = tg_json_get_string(it, "name");
        const char *cat = tg_json_get_string(it, "category");
        c->cat = cat ? tg_test_category_parse(cat) : TG_CAT_NORMAL;
        if (c->cat == TG_CAT_COUNT)
            c->cat = TG_CAT_NORMAL;
        c->input = tg_json_get(it, "input");
        c->expect = tg_json_get(it, "expect");
    }
}

/*
 * What the test stages of one build share: the tool-run environment (the same for every tool)
 * and, where a worker serves several calls, a pool of warm workers whose calls wait for a busy
 * worker instead of running cold — so the tools that depend on the same packages import them
 * once per build, not once per tool (docs/build.md#the-test-stage).
 */
typedef struct test_shared {
    tg_toolrun_env env;
    struct tg_warmpool *pool;
} test_shared;

static void *test_shared_open(tg_stage_run *r, tg_err *err)
{
    test_shared *sh = xcalloc(1, sizeof *sh);
    if (tg_toolrun_env_open(&sh->env, tg_stage_repo(r), tg_stage_config(r)->doc.root, err) != 0) {
        free(sh);
        return NULL;
    }
    if (sh->env.sandbox.isolation == TG_ISOLATION_BWRAP && tg_warmpool_reuse_possible()) {
        sh->pool = tg_warmpool_new(&sh->env.ctx);
        /* as many idle interpreters as stages run at once, not one per dependency set */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        tg_warmpool_set_waiting(sh->pool, true, cpus > 2 ? (size_t)cpus : 2);
    }
    return sh;
}

static void test_shared_close(void *obj)
{
    test_shared *sh = obj;
    tg_warmpool_free(sh->pool); /* before the environment it borrows */
    tg_toolrun_env_close(&sh->env);
    free(sh);
}

static const tg_stage_shared_def test_shared_def = {test_shared_open, test_shared_close};

/*
 * The tool-run environment, as `toolgen run` sets it up (tg_toolrun_env_open: the sandbox from
 * toolgen.yaml, the visualization-manifest schema, the import allowlist), plus the manifest's
 * compiled schemas. A tool whose runtime is not sandboxed (http: remote) is not run:
 * t->not_run says why.
 */
static tg_stage_status open_env(test_run_state *t, tg_err *err)
{
    const tg_manifest *m = &t->m;
    const tg_runtime_desc *rt = tg_runtime_info(m->runtime);
    if (rt && !rt->sandboxed) {
        t->not_run = xasprintf("runtime %s: the sandbox has no network, so remote tools are not "
                               "run by the build", rt->name);
        return TG_STAGE_DONE;
    }
    test_shared *sh = tg_stage_shared(t->r, &test_shared_def, err);
    if (!sh)
        return TG_STAGE_FAILED;
    t->env = &sh->env;
    t->pool = sh->pool;
    tgs_warn_isolation(t->r, "the test stage", &t->env->sandbox);
    tgs_env_packages(t->r, m);
    t->reg = js_registry_new();
    tg_err ignored = {0};
    if (js_registry_add_metaschemas(t->reg, &ignored) != 0)
        tg_err_clear(&ignored); /* only schemas that reference the meta-schema need it */
    if (!(t->in = compile_or_fail(t->reg, m->input_schema, "input_schema", m->doc.file, err)) ||
        !(t->outs = compile_or_fail(t->reg, m->output_schema, "output_schema", m->doc.file, err)))
        return TG_STAGE_FAILED;
    return TG_STAGE_DONE;
}

/* Runs every case (and the reference implementation on the same inputs) and judges each. */
static tg_stage_status run_cases(test_run_state *t, tg_err *err)
{
    double t_start = tg_now_ms();
    if (t->not_run) /* a remote tool: no environment was opened, nothing runs */
        return TG_STAGE_DONE;
    /* The build's workers, or one warm sandbox for all the cases (docs/build.md#the-test-stage) */
    tg_tool_call *calls = xcalloc(t->n + 1, sizeof *calls);
    for (size_t i = 0; i < t->n; i++)
        calls[i] = (tg_tool_call){.m = &t->m, .input = t->in, .output = t->outs,
                                  .args = t->cs[i].input};
    tg_tool_batch *batch = tg_tool_batch_new(&t->env->ctx, calls, t->n);
    tg_tool_batch_use_pool(batch, t->pool);
    tg_stage_status rc = TG_STAGE_DONE;
    for (; !t->not_run && t->ran < t->n;) {
        size_t i = t->ran++;
        tcase *c = &t->cs[i];
        dep_path_args(t->r, &t->m, c->input);
        double ts = tg_now_ms();
        tg_call_status st = tg_tool_batch_run(batch, i, &c->res, err);
        c->ms = tg_now_ms() - ts;
        c->ran = true;
        if (st == TG_CALL_UNSUPPORTED) {
            t->not_run = xasprintf("%s", err->msg);
            tg_err_clear(err);
            break;
        }
        if (st == TG_CALL_ENV) {
            rc = TG_STAGE_NO_ENVIRONMENT;
            break;
        }
        if (st != TG_CALL_DONE) {
            tg_err_prefix(err, "%s %s", c->example ? "example" : "test", c->name);
            rc = TG_STAGE_FAILED;
            break;
        }
        make_outcome(c);
        judge(c, t->m.output_schema);
        tg_error_class cls = c->res.guidance.cls;
        if (cls == TG_CLASS_SIGNATURE_MISMATCH || cls == TG_CLASS_ENTRYPOINT_MISSING)
            t->schema_ok = false; /* docs/metrics.md#gates-and-the-status-transition */
        if (cls == TG_CLASS_CRASH)
            t->sandbox_ok = false;
    }
    tg_tool_batch_free(batch);
    free(calls);
    if (rc != TG_STAGE_DONE)
        return rc;
    t->t_tests = tg_now_ms() - t_start;
    if (!t->not_run && t->m.reference)
        return run_reference(t->r, &t->env->ctx, t->pool, &t->m, t->in, t->outs, t->cs, t->n,
                             &t->ri, err);
    return TG_STAGE_DONE;
}

/* The metrics and the gates (quality/metrics.h) over the cases' results. */
static int judge_gates(test_run_state *t, tg_err *err)
{
    double t_start = tg_now_ms();
    tg_test_outcome *outc = xcalloc(t->n + 1, sizeof *outc);
    size_t nout = 0;
    for (size_t i = 0; !t->not_run && i < t->n; i++) {
        outc[nout++] = (tg_test_outcome){t->cs[i].cat, t->cs[i].passed};
        t->npassed += t->cs[i].passed;
        t->nfailed += !t->cs[i].passed;
    }
    /* pass@k of a hand-written (or pinned) tool: one candidate, correct when it passes every
     * test (HumanEval's n samples per problem with n = 1), so pass@1 is 0 or 1 and pass@5 does
     * not apply; sampling several candidates is the code-generation stage's business. */
    t->vin = (tg_validation_input){
        .schema_ok = t->schema_ok,
        .static_ok = cJSON_IsTrue(tg_json_get(t->static_rep, "ok")),
        .tests = outc,
        .n_tests = nout,
        .has_reference = t->ri.has,
        .reference_similarity = t->ri.similarity,
        .has_code_bleu = t->ri.has_bleu,
        .code_bleu = t->ri.bleu.score,
        .candidates = t->not_run || nout == 0 ? 0 : 1,
        .correct = nout && t->npassed == nout ? 1 : 0,
    };
    int rc = tg_validation_evaluate(&t->mc, &t->vin, &t->vr, err);
    free(outc);
    t->vin.tests = NULL;
    t->t_metrics = tg_now_ms() - t_start;
    return rc;
}

/* The lifecycle rule (docs/build.md "Validation gates"): where the tool's status would go. */
static void decide_verdict(test_run_state *t)
{
    const tg_validation_result *vr = &t->vr;
    t->from = t->m.status == TG_STATUS_UNKNOWN ? TG_STATUS_DRAFT : t->m.status;
    t->to = t->from;
    for (int g = 0; g < TG_GATE_COUNT; g++)
        if (vr->failed_gate && strcmp(vr->gates[g].name, vr->failed_gate) == 0)
            t->failed = &vr->gates[g];
    if (t->not_run) {
        t->reason = xasprintf("not run: %s", t->not_run);
    } else if (!t->failed) {
        if (t->from == TG_STATUS_DRAFT)
            t->to = TG_STATUS_STAGED;
        t->reason = xstrdup("all gates passed");
    } else {
        char *gw = gate_why(t->failed);
        if (t->from != TG_STATUS_REJECTED)
            t->to = TG_STATUS_DRAFT;
        t->reason = xasprintf("gate %s failed: %s", t->failed->name, gw);
        free(gw);
    }
    t->claims = t->from == TG_STATUS_STAGED || t->from == TG_STATUS_APPROVED ||
                t->from == TG_STATUS_PROMOTED;
}

/* ---- the validation report (schemas and fields: docs/build.md "Validation gates") ---------- */

/* What was tested: the tool, its code, the yes/no checks and every case's result. */
static void report_cases(test_run_state *t, cJSON *report)
{
    const tg_manifest *m = &t->m;
    cJSON_AddNumberToObject(report, "report_version", 1);
    cJSON_AddStringToObject(report, "tool", m->name ? m->name : t->tool);
    cJSON_AddStringToObject(report, "version", m->version ? m->version : "0.0.0");
    cJSON_AddStringToObject(report, "manifest", m->doc.file);
    tg_hash ch;
    tg_err herr = {0};
    if (t->code_path &&
        tg_hash_file_at(tg_stage_repo(t->r)->root_fd, t->code_path, &ch, &herr) == 0) {
        char hex[TG_HASH_HEX];
        tg_hash_hex(ch, hex);
        cJSON_AddStringToObject(report, "code_hash", hex);
    }
    cJSON_AddBoolToObject(report, "schema_ok", t->schema_ok);
    cJSON_AddBoolToObject(report, "sandbox_ok", t->sandbox_ok);
    bool tests_ok = t->vr.rates.overall.ok;
    for (int k = 0; k < TG_CAT_COUNT; k++)
        tests_ok = tests_ok && t->vr.rates.category[k].ok;
    cJSON_AddBoolToObject(report, "tests_ok", tests_ok && !t->not_run);
    cJSON_AddItemToObject(report, "static_check", t->static_rep);
    t->static_rep = NULL;
    cJSON *tests_j = cJSON_AddArrayToObject(report, "tests");
    for (size_t i = 0; !t->not_run && i < t->n; i++) {
        tcase *c = &t->cs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "test_id", c->name);
        cJSON_AddStringToObject(o, "kind", c->example ? "example" : "test");
        cJSON_AddStringToObject(o, "category", tg_test_category_name(c->cat));
        cJSON_AddBoolToObject(o, "passed", c->passed);
        cJSON_AddNumberToObject(o, "duration_ms", ms_round(c->ms));
        if (!c->oc.ok && known_code(c->oc.error_code))
            cJSON_AddStringToObject(o, "error_code", c->oc.error_code);
        if (c->failure)
            cJSON_AddStringToObject(o, "failure", c->failure);
        if (t->ri.agrees)
            cJSON_AddBoolToObject(o, "reference_agrees", t->ri.agrees[i]);
        cJSON_AddItemToArray(tests_j, o);
    }
}

/* Pass rates and the code metrics (docs/metrics.md). */
static void report_metrics(const test_run_state *t, cJSON *report)
{
    const tg_validation_result *vr = &t->vr;
    const refinfo *ri = &t->ri;
    cJSON *pr = cJSON_AddObjectToObject(report, "pass_rates");
    cJSON_AddItemToObject(pr, "overall", rate_json(&vr->rates.overall));
    cJSON *cats = cJSON_AddObjectToObject(pr, "categories");
    for (int k = 0; k < TG_CAT_COUNT; k++)
        cJSON_AddItemToObject(cats, tg_test_category_name((tg_test_category)k),
                              rate_json(&vr->rates.category[k]));
    cJSON *cm = cJSON_AddObjectToObject(report, "code_metrics");
    cJSON *fc = cJSON_AddObjectToObject(cm, "functional_correctness");
    if (ri->has)
        cJSON_AddNumberToObject(fc, "reference_solution_similarity", ri->similarity);
    else
        cJSON_AddNullToObject(fc, "reference_solution_similarity");
    if (ri->disagreement)
        cJSON_AddStringToObject(fc, "reference_disagreement", ri->disagreement);
    cJSON_AddNumberToObject(fc, "test_cases_passed", vr->rates.overall.passed);
    cJSON_AddNumberToObject(fc, "test_cases_total", vr->rates.overall.total);
    cJSON_AddNumberToObject(fc, "test_case_pass_rate", vr->rates.overall.rate);
    cJSON_AddNumberToObject(fc, "correctness_score", vr->functional_correctness);
    cJSON *pk = cJSON_AddObjectToObject(cm, "pass_at_k");
    if (vr->has_pass_at_1)
        cJSON_AddNumberToObject(pk, "1", vr->pass_at_1);
    if (vr->has_pass_at_5)
        cJSON_AddNumberToObject(pk, "5", vr->pass_at_5);
    if (t->vin.candidates) {
        cJSON *cand = cJSON_AddObjectToObject(cm, "candidates");
        cJSON_AddNumberToObject(cand, "n", t->vin.candidates);
        cJSON_AddNumberToObject(cand, "c", t->vin.correct);
    }
    cJSON_AddNumberToObject(cm, "test_pass_rate", vr->rates.overall.rate);
    if (ri->has_bleu)
        cJSON_AddItemToObject(cm, "semantic_closeness", bleu_json(&ri->bleu, &ri->ca));
    else
        cJSON_AddNullToObject(cm, "semantic_closeness");
    cJSON_AddNumberToObject(cm, "overall_score", vr->overall.score);
    cJSON_AddStringToObject(cm, "quality_tier", tg_quality_tier_name(vr->overall.tier));
    cJSON *mw = cJSON_AddObjectToObject(cm, "metric_weights");
    cJSON_AddNumberToObject(mw, "functional_correctness", vr->overall.applied.functional_correctness);
    cJSON_AddNumberToObject(mw, "test_pass_rate", vr->overall.applied.test_pass_rate);
    cJSON_AddNumberToObject(mw, "code_bleu", vr->overall.applied.code_bleu);
    cJSON_AddNumberToObject(mw, "pass_at_1", vr->overall.applied.pass_at_1);
}

/* Every gate, the first that failed, and the lifecycle verdict. */
static void report_gates(const test_run_state *t, cJSON *report)
{
    const tg_validation_result *vr = &t->vr;
    cJSON *gates = cJSON_AddArrayToObject(report, "gates");
    for (int g = 0; g < TG_GATE_COUNT; g++) {
        const tg_gate *gt = &vr->gates[g];
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
    if (vr->failed_gate)
        cJSON_AddStringToObject(report, "failed_gate", vr->failed_gate);
    else
        cJSON_AddNullToObject(report, "failed_gate");
    cJSON *stj = cJSON_AddObjectToObject(report, "status");
    cJSON_AddStringToObject(stj, "from", tg_status_name(t->from));
    cJSON_AddStringToObject(stj, "to", tg_status_name(t->to));
    cJSON_AddStringToObject(stj, "reason", t->reason);
}

/* One log line per case (also a -v note) and one error per failed case (also a problem). */
static void report_logs(const test_run_state *t, cJSON *report)
{
    cJSON *logs = cJSON_AddArrayToObject(report, "logs");
    cJSON *errors = cJSON_AddArrayToObject(report, "errors");
    if (t->not_run) {
        char *l = xasprintf("not run: %s", t->not_run);
        tg_stage_note(t->r, "%s", l);
        cJSON_AddItemToArray(logs, cJSON_CreateString(l));
        free(l);
    }
    for (size_t i = 0; !t->not_run && i < t->n; i++) {
        const tcase *c = &t->cs[i];
        const char *kind = c->example ? "example" : "test";
        char *l = xasprintf("%s %s %s (%s, %.0f ms)%s%s", c->passed ? "PASS" : "FAIL", kind,
                            c->name, tg_test_category_name(c->cat), c->ms, c->failure ? ": " : "",
                            c->failure ? c->failure : "");
        cJSON_AddItemToArray(logs, cJSON_CreateString(l));
        tg_stage_note(t->r, "%s", l);
        free(l);
        if (!c->passed) {
            char *e = xasprintf("%s: %s %s: %s", t->m.doc.file, kind, c->name,
                                c->failure ? c->failure : "failed");
            cJSON_AddItemToArray(errors, cJSON_CreateString(e));
            tg_stage_problem(t->r, "%s", e);
            free(e);
        }
    }
    if (t->ri.has)
        tg_stage_note(t->r, "reference agreement %.2f%s%s", t->ri.similarity,
                      t->ri.disagreement ? ": " : "", t->ri.disagreement ? t->ri.disagreement : "");
}

static cJSON *build_report(test_run_state *t)
{
    cJSON *report = cJSON_CreateObject();
    report_cases(t, report);
    report_metrics(t, report);
    report_gates(t, report);
    report_logs(t, report);
    cJSON *tm = cJSON_AddObjectToObject(report, "timings");
    cJSON_AddNumberToObject(tm, "total_ms", ms_round(tg_now_ms() - t->t0));
    cJSON_AddNumberToObject(tm, "tests_ms", ms_round(t->not_run ? 0 : t->t_tests));
    if (t->ri.has)
        cJSON_AddNumberToObject(tm, "reference_ms", ms_round(t->ri.ms));
    cJSON_AddNumberToObject(tm, "metrics_ms", ms_round(t->t_metrics));
    return report;
}

/* ---- the verdict ---------------------------------------------------------------------------- */

/* The summary line of the tool ("3/3 tests passed ..., lifecycle: draft → staged"). */
static void summarise(const test_run_state *t)
{
    const char *tool = t->tool;
    if (t->not_run) {
        tg_stage_summary(t->r, "%s: tests not run (%s); lifecycle: stays %s", tool, t->not_run,
                         tg_status_name(t->from));
        return;
    }
    char life[256];
    const char *from = tg_status_name(t->from);
    if (!t->failed && t->from == TG_STATUS_DRAFT)
        snprintf(life, sizeof life, "draft → staged");
    else if (!t->failed)
        snprintf(life, sizeof life, "%s (all gates pass)", from);
    else if (t->from == TG_STATUS_DRAFT || t->from == TG_STATUS_REJECTED)
        snprintf(life, sizeof life, "stays %s (gate %s failed)", from, t->failed->name);
    else
        snprintf(life, sizeof life, "%s → draft: gate %s failed", from, t->failed->name);
    tg_stage_summary(t->r, "%s: %zu/%zu tests passed (%.0f%%), score %.2f %s, lifecycle: %s", tool,
                     t->npassed, t->n, t->vr.rates.overall.rate * 100, t->vr.overall.score,
                     tg_quality_tier_name(t->vr.overall.tier), life);
}

/*
 * Failed cases fail the stage; so does a failed gate when the manifest claims a status that
 * needs every gate. Either way the report is written (tg_stage_output_always).
 */
static tg_stage_status finish(test_run_state *t, tg_err *err)
{
    cJSON *report = build_report(t); /* first: its per-case notes come before the verdict's */
    summarise(t);
    char *rp = tg_validation_report_path(t->tool);
    const char *from = tg_status_name(t->from);
    tg_buf msg = TG_BUF_INIT;
    if (!t->not_run && t->nfailed) {
        if (t->claims)
            tg_buf_printf(&msg,
                          "%zu of %zu tests failed: %s (the manifest says status: %s, which "
                          "needs every gate to pass); report: %s",
                          t->nfailed, t->n, t->reason, from, rp);
        else
            tg_buf_printf(&msg, "%zu of %zu tests failed; %s stays %s (%s); report: %s",
                          t->nfailed, t->n, t->tool, tg_status_name(t->to), t->reason, rp);
    } else if (!t->not_run && t->failed && t->claims) {
        tg_buf_printf(&msg,
                      "gate %s failed, but the manifest says status: %s, which needs every gate "
                      "to pass (%s); fix the tool or set status: draft; report: %s",
                      t->failed->name, from, t->reason, rp);
    } else if (!t->not_run && t->failed) {
        tg_stage_note(t->r, "%s stays %s: %s", t->tool, tg_status_name(t->to), t->reason);
    }
    if (msg.len)
        tg_err_setpos(err, t->m.doc.file, 0, 0, "%s", msg.data);
    tg_stage_status rc = msg.len ? TG_STAGE_FAILED : TG_STAGE_DONE;
    tg_buf_free(&msg);
    char *text = tg_json_print(report);
    cJSON_Delete(report);
    tg_stage_output_always(t->r, rp, text, strlen(text));
    return rc;
}

static void test_run_state_free(test_run_state *t)
{
    for (size_t i = 0; i < t->ran; i++) {
        free(t->cs[i].artifacts);
        free(t->cs[i].failure);
        tg_call_result_free(&t->cs[i].res);
    }
    free(t->cs);
    free(t->ri.agrees);
    free(t->ri.disagreement);
    free(t->not_run);
    free(t->code_path);
    free(t->reason);
    cJSON_Delete(t->static_rep);
    js_schema_free(t->in);
    js_schema_free(t->outs);
    js_registry_free(t->reg);
    if (t->have_m)
        tg_manifest_free(&t->m);
}

static tg_stage_status test_run(tg_stage_run *r, tg_err *err)
{
    test_run_state t = {.r = r, .t0 = tg_now_ms(), .schema_ok = true, .sandbox_ok = true};
    t.cfg = tg_stage_config(r);
    t.tool = tg_stage_tool(r);
    if (tg_metrics_config_from_json(tg_config_get(t.cfg, "/validation"), &t.mc, err) != 0) {
        tg_err_prefix(err, "%s", t.cfg->path ? t.cfg->path : "toolgen.yaml");
        return TG_STAGE_FAILED;
    }
    t.ri.bleu.weights = t.mc.bleu_weights;
    if (tgs_manifest(r, t.tool, &t.m, err) != 0)
        return TG_STAGE_FAILED;
    t.have_m = true;
    tg_stage_status rc = TG_STAGE_FAILED;
    t.code_path = tgs_code_path(&t.m, t.m.impl_file);
    if (!(t.static_rep = load_static_report(r, err)))
        goto out;
    if (t.code_path)
        tg_stage_dep(r, t.code_path);
    collect_cases(&t);
    if ((rc = open_env(&t, err)) != TG_STAGE_DONE || (rc = run_cases(&t, err)) != TG_STAGE_DONE)
        goto out;
    rc = TG_STAGE_FAILED;
    if (judge_gates(&t, err) != 0)
        goto out;
    decide_verdict(&t);
    rc = finish(&t, err);
out:
    test_run_state_free(&t);
    return rc;
}

/*
 * A tool's cases cost about one call each, and a call costs more the more packages its sandbox
 * imports (pandas and matplotlib: ~0.6 s to start, a chart ~90 ms to draw; no package: a cold
 * interpreter, a few ms a call warm): so a clean build starts the tool with the most cases
 * times packages first, and the long pole of the build no longer starts last
 * (docs/build.md#scheduling). A remote tool runs nothing.
 */
static double test_estimate(tg_stage_run *r)
{
    tg_manifest m;
    tg_err err = {0};
    if (tgs_manifest(r, tg_stage_tool(r), &m, &err) != 0)
        return 0;
    const tg_runtime_desc *rt = tg_runtime_info(m.runtime);
    double est = 0;
    if (!rt || rt->sandboxed) { /* as open_env: only a runtime known not to be is not run */
        double cases = cJSON_GetArraySize(m.examples) + cJSON_GetArraySize(m.tests);
        double deps = cJSON_GetArraySize(tg_json_get(m.implementation, "dependencies"));
        est = cases * (1 + deps);
    }
    tg_manifest_free(&m);
    return est;
}

/* ---- the stage definition ------------------------------------------------------------------- */

const tg_stage_def tgs_test = {
    .id = "test",
    .version = "2",
    .scope = TG_STAGE_TOOL,
    .upstream = up_static,
    .config = test_config,
    .data = test_data,
    .env = tgs_env_sandbox,
    .roots = test_roots,
    .run = test_run,
    .estimate = test_estimate,
    .gate = true,
    .summary = "every example and test in the sandbox, metrics, gates, lifecycle → "
               ".toolgen/reports/<tool>.validation.json",
};
