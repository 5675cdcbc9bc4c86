/*
 * newtool_judge.c — candidates, validation, pass@k, the repair loop and the outcome of
 * `toolgen new` (newtool.h; docs/generate.md#the-repair-loop, #samples-and-passk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/builtin.h"
#include "gen/gen_example.h"
#include "gen/newtool_int.h"
#include "quality/metrics.h"

typedef struct cand {
    char *code;
    char *model;
    tg_hash prompt_hash, request, response;
    tg_verdict ev;
} cand;

static void cand_free(cand *k)
{
    free(k->code);
    free(k->model);
    tg_verdict_release(&k->ev);
    memset(k, 0, sizeof *k);
}

/* Whether a is a better candidate than b: it passes, then more tests passed, then its score. */
static bool better(const tg_verdict *a, const tg_verdict *b)
{
    if (a->passed != b->passed)
        return a->passed;
    if (a->tests_passed != b->tests_passed)
        return a->tests_passed > b->tests_passed;
    return a->overall > b->overall;
}

void tg_gen_read_validation_config(gen_ctx *c)
{
    const tg_config *cfg = &c->repo->cfg;
    const cJSON *v = tg_config_get(cfg, "/validation/max_repair_iterations");
    c->max_repairs = cJSON_IsNumber(v) ? v->valueint : 3;
    v = tg_config_get(cfg, "/validation/quality_thresholds/functional_correctness_min");
    c->fc_min = cJSON_IsNumber(v) ? v->valuedouble : 0.9;
    v = tg_config_get(cfg, "/validation/quality_thresholds/test_pass_rate_min");
    c->tpr_min = cJSON_IsNumber(v) ? v->valuedouble : 0.95;
}

static char *manifest_of(gen_ctx *c, const cand *k, const char *status)
{
    tg_gen_provenance pv = {
        .generator = "llm",
        .model = k->model,
        .prompt_hash = k->prompt_hash,
        .code_hash = tg_hash_bytes(k->code, strlen(k->code)),
    };
    return tg_gen_manifest(c->spec_yaml, c->name, c->o->intent, status, &pv);
}

/* Writes the tool folder's files (tool.py first: the manifest is what makes it a tool). */
static int write_tool(gen_ctx *c, const char *manifest, const char *code, tg_err *err)
{
    if (!c->folder_made) {
        if (tg_gen_folder_create(c->repo, c->dir, err) != 0) {
            c->res->fail = TG_GENF_USAGE;
            return -1;
        }
        c->folder_made = true;
    }
    if (tg_gen_folder_write(c->repo, c->dir, "tool.py", code, err) != 0 ||
        tg_gen_folder_write(c->repo, c->dir, "tool.manifest.yaml", manifest, err) != 0) {
        c->res->fail = TG_GENF_ENV;
        return -1;
    }
    return 0;
}

/* Writes the tool and builds it through the gates; fills ev. */
static int validate(gen_ctx *c, const char *manifest, const char *code, tg_verdict *ev,
                    tg_err *err)
{
    if (write_tool(c, manifest, code, err) != 0)
        return -1;
    if (c->o->validate(c->o->validate_ud, c->repo, c->name, ev, err) != 0) {
        c->res->fail = TG_GENF_ENV;
        return -1;
    }
    return 0;
}

static int validate_cand(gen_ctx *c, cand *k, tg_err *err)
{
    tg_verdict_release(&k->ev);
    char *m = manifest_of(c, k, "draft");
    int rc = validate(c, m, k->code, &k->ev, err);
    free(m);
    return rc;
}

static int take_reply(cand *k, char *code, tg_llm_reply *r, tg_hash prompt_hash)
{
    k->code = code;
    k->model = xstrdup(r->model);
    k->prompt_hash = prompt_hash;
    k->request = r->key;
    k->response = r->response;
    tg_llm_reply_release(r);
    return 0;
}

static int generate_code(gen_ctx *c, int sample, cand *k, tg_err *err)
{
    char *ref = tg_prompt_read_file(c->repo, "reference/tool.py", &c->ref_code_hash, err);
    if (!ref) {
        c->res->fail = TG_GENF_USAGE;
        return -1;
    }
    const char *vars[] = {"spec", c->spec_yaml, "reference_code", ref, NULL};
    char *code;
    tg_llm_reply r;
    int rc = tg_gen_ask(c, &c->p_code, vars, sample, "python", &code, &r, err);
    free(ref);
    return rc == 0 ? take_reply(k, code, &r, c->last_prompt_hash) : -1;
}

static int repair(gen_ctx *c, const cand *from, int iteration, cand *k, tg_err *err)
{
    char it[16], fc[16], tpr[16];
    snprintf(it, sizeof it, "%d", iteration);
    snprintf(fc, sizeof fc, "%.0f%%", c->fc_min * 100);
    snprintf(tpr, sizeof tpr, "%.0f%%", c->tpr_min * 100);
    const char *vars[] = {"spec", c->spec_yaml, "code", from->code, "iteration", it,
                          "diagnostics", from->ev.diagnostics, "fc_min", fc, "tpr_min", tpr,
                          NULL};
    char *code;
    tg_llm_reply r;
    if (tg_gen_ask(c, &c->p_repair, vars, 0, "python", &code, &r, err) != 0)
        return -1;
    return take_reply(k, code, &r, c->last_prompt_hash);
}

static void note_eval(gen_ctx *c, const char *what, const tg_verdict *e, const tg_verdict *prev)
{
    char delta[64] = "";
    if (prev)
        snprintf(delta, sizeof delta, " (%+.0f points of pass rate, %+.2f score)",
                 (e->pass_rate - prev->pass_rate) * 100, e->overall - prev->overall);
    if (e->tests_ran)
        tg_gen_note(c, "%s: %d/%d tests passed (%.0f%%), correctness %.2f, score %.2f%s%s%s",
                    what, e->tests_passed, e->tests_total, e->pass_rate * 100, e->correctness,
                    e->overall, e->failed_gate ? ", failed gate " : "",
                    e->failed_gate ? e->failed_gate : "", delta);
    else
        tg_gen_note(c, "%s: did not reach the tests (%s)%s", what,
                    e->passed ? "ok" : "schema or static errors", delta);
}

static void note_pass_at_k(gen_ctx *c, int n, int correct)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_printf(&b, "samples: %d generated, %d pass:", n, correct);
    static const int ks[] = {1, 5, 10};
    for (int i = 0; i < 3; i++) {
        double v;
        tg_err e = {0};
        if (tg_pass_at_k(n, correct, ks[i], &v, &e) == 0)
            tg_buf_printf(&b, " pass@%d %.2f", ks[i], v);
        else
            tg_buf_printf(&b, " pass@%d n/a", ks[i]);
    }
    tg_gen_note(c, "%s", b.data);
    tg_buf_free(&b);
}

/* ---- the outcome ----------------------------------------------------------------------------- */

static int write_lock(gen_ctx *c, const char *manifest, const char *code, const cand *k,
                      tg_err *err)
{
    tg_gen_lock l = {.generator = k ? "llm" : "offline",
                     .provider = tg_llm_provider_name(c->cfg.provider),
                     .model = k ? k->model : NULL};
    if (tg_gen_spec_hash(manifest, &l.spec_hash, err) != 0)
        return -1;
    l.code_hash = tg_hash_bytes(code, strlen(code));
    static const char *const names[] = {"intent", "spec", "code", "repair",
                                        "reference/tool.manifest.yaml", "reference/tool.py",
                                        NULL};
    tg_hash hashes[6] = {c->p_intent.hash, c->p_spec.hash, c->p_code.hash, c->p_repair.hash,
                         c->ref_spec_hash, c->ref_code_hash};
    if (k) {
        l.prompt_names = names;
        l.prompt_hashes = hashes;
        l.request = k->request;
        l.response = k->response;
    }
    char *text = tg_gen_lock_text(&l);
    int rc = tg_gen_folder_write(c->repo, c->dir, "tool.lock", text, err);
    free(text);
    return rc;
}

/* The passing tool: status staged, tool.lock written. */
static int finish_staged(gen_ctx *c, const char *draft_manifest, const char *code,
                         const cand *k, const tg_verdict *ev, tg_err *err)
{
    char *staged = tg_gen_set_status(draft_manifest, "staged");
    int rc = tg_gen_folder_write(c->repo, c->dir, "tool.manifest.yaml", staged, err);
    if (rc == 0)
        rc = write_lock(c, staged, code, k, err);
    free(staged);
    if (rc != 0) {
        c->res->fail = TG_GENF_ENV;
        return -1;
    }
    c->res->outcome = TG_GEN_STAGED;
    tg_gen_note(c, "PASSED %s: %d/%d tests passed, score %.2f, every gate; %s/", c->name,
                ev->tests_passed, ev->tests_total, ev->overall, c->dir);
    c->res->next = c->nds ? xasprintf("toolgen run %s --arg file_path=%s", c->name, c->ds[0].path)
                          : xasprintf("toolgen build -v %s", c->name);
    return 0;
}

/* The failing tool leaves manifests/ (and what its build emitted); the last candidate and its
 * diagnostics stay under .toolgen/gen/<name>/ for a look. */
static int finish_rejected(gen_ctx *c, const char *manifest, const char *code,
                           const tg_verdict *ev, tg_err *err)
{
    char *keep = xasprintf(".toolgen/gen/%s", c->name);
    tg_gen_folder_remove(c->repo, keep);
    int rc = tg_mkdirs_at(c->repo->root_fd, keep, err);
    char *rejected = tg_gen_set_status(manifest, "rejected");
    if (rc == 0)
        rc = tg_gen_folder_write(c->repo, keep, "tool.manifest.yaml", rejected, err) |
             tg_gen_folder_write(c->repo, keep, "tool.py", code, err) |
             tg_gen_folder_write(c->repo, keep, "diagnostics.txt", ev->diagnostics, err);
    free(rejected);
    tg_gen_folder_remove(c->repo, c->dir);
    c->folder_made = false;
    char *gen = tg_path_join(c->repo->cfg.generated_dir, c->name);
    tg_gen_folder_remove(c->repo, gen);
    free(gen);
    c->res->outcome = TG_GEN_REJECTED;
    tg_gen_note(c, "REJECTED %s: %d/%d tests passed%s%s; the last candidate and its diagnostics "
                "are in %s/", c->name, ev->tests_passed, ev->tests_total,
                ev->failed_gate ? ", failed gate " : "", ev->failed_gate ? ev->failed_gate : "",
                keep);
    c->res->next = xasprintf("cat %s/diagnostics.txt; then rephrase the intent, or try "
                             "--samples 5", keep);
    free(keep);
    if (rc != 0)
        c->res->fail = TG_GENF_ENV;
    return rc == 0 ? 0 : -1;
}

/* ---- candidates and repairs ------------------------------------------------------------------ */

/* n samples, each validated; the best in *best (moved out of the array). With several
 * samples an unusable answer is a failed candidate, not the end: pass@k counts it. */
static int sample_candidates(gen_ctx *c, int n, cand *best, bool *last_is_best, tg_err *err)
{
    cand *ks = xcalloc((size_t)n, sizeof *ks);
    int correct = 0, b = -1, rc = 0, last = -1;
    for (int i = 0; i < n && rc == 0; i++) {
        char what[32];
        snprintf(what, sizeof what, n > 1 ? "candidate %d" : "code", i + 1);
        if (generate_code(c, i, &ks[i], err) != 0) {
            if (n == 1 || c->res->fail != TG_GENF_ANSWER)
                rc = -1;
            else
                tg_gen_note(c, "%s: unusable answer: %s", what, err->msg);
            continue;
        }
        if ((rc = validate_cand(c, &ks[i], err)) != 0)
            break;
        last = i;
        note_eval(c, what, &ks[i].ev, NULL);
        correct += ks[i].ev.passed;
        if (b < 0 || better(&ks[i].ev, &ks[b].ev))
            b = i;
    }
    if (rc == 0 && b < 0) {
        rc = -1; /* every answer was unusable: err holds the last reason */
    } else if (rc == 0) {
        c->res->fail = TG_GENF_NONE;
        if (n > 1)
            note_pass_at_k(c, n, correct);
        *best = ks[b];
        *last_is_best = b == last;
        memset(&ks[b], 0, sizeof ks[b]);
    }
    for (int i = 0; i < n; i++)
        cand_free(&ks[i]);
    free(ks);
    return rc;
}

int tg_gen_candidates(gen_ctx *c, tg_err *err)
{
    int n = c->o->samples > 1 ? c->o->samples : 1;
    cand best = {0};
    bool on_disk_is_best = false; /* else the best is written and validated again below */
    if (sample_candidates(c, n, &best, &on_disk_is_best, err) != 0)
        return -1;
    for (int it = 1; !best.ev.passed && it <= c->max_repairs; it++) {
        cand k = {0};
        if (repair(c, &best, it, &k, err) != 0 || validate_cand(c, &k, err) != 0) {
            cand_free(&k);
            cand_free(&best);
            return -1;
        }
        char what[32];
        snprintf(what, sizeof what, "repair %d", it);
        note_eval(c, what, &k.ev, &best.ev);
        on_disk_is_best = better(&k.ev, &best.ev) || k.ev.passed;
        if (on_disk_is_best) {
            cand_free(&best);
            best = k;
        } else {
            cand_free(&k);
        }
    }
    int rc = 0;
    if (!on_disk_is_best)
        rc = validate_cand(c, &best, err); /* the files and report of the best one */
    char *m = manifest_of(c, &best, "draft");
    if (rc == 0)
        rc = best.ev.passed ? finish_staged(c, m, best.code, &best, &best.ev, err)
                            : finish_rejected(c, m, best.code, &best.ev, err);
    free(m);
    cand_free(&best);
    return rc;
}

/* ---- the builtin provider -------------------------------------------------------------------- */

/* The example's output from a real call of the written tool (builtin.h: only a run can tell). */
static int record_example(gen_ctx *c, tg_builtin_tool *t, tg_err *err)
{
    if (write_tool(c, t->manifest_yaml, t->code, err) != 0)
        return -1;
    char *mpath = xasprintf("%s/tool.manifest.yaml", c->dir);
    bool env_problem = false;
    char *result = tg_gen_run_example(c->repo, mpath, t->example_input, &env_problem, err);
    free(mpath);
    if (!result) {
        c->res->fail = env_problem ? TG_GENF_ENV : TG_GENF_ANSWER;
        return -1;
    }
    int rc = tg_builtin_set_example_output(t, result, err);
    free(result);
    if (rc != 0)
        c->res->fail = TG_GENF_ANSWER;
    return rc;
}

int tg_gen_builtin(gen_ctx *c, tg_builtin_tool *t, tg_err *err)
{
    tg_gen_note(c, "plan: %s (builtin generator)", t->plan);
    int rc = -1;
    c->name = xstrdup(t->name);
    c->dir = tg_path_join(c->repo->cfg.manifests_dir, t->name);
    free(c->res->tool);
    c->res->tool = xstrdup(t->name);
    tg_verdict ev = {0};
    if (record_example(c, t, err) == 0 && validate(c, t->manifest_yaml, t->code, &ev, err) == 0) {
        note_eval(c, "validation", &ev, NULL);
        rc = ev.passed ? finish_staged(c, t->manifest_yaml, t->code, NULL, &ev, err)
                       : finish_rejected(c, t->manifest_yaml, t->code, &ev, err);
    }
    tg_verdict_release(&ev);
    return rc;
}
