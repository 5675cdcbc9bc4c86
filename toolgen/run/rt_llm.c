/*
 * rt_llm.c — the llm runtime's operations (runtime_ops.h, docs/code-edit.md): a prompt tool.
 *
 * The tool's implementation names a prompt template (implementation.prompt, prompts/<name>.md
 * of its repository) and the output property its code goes to (implementation.code). A call
 * renders the template with the arguments as delimited data (secrets redacted), sends it to
 * the model the port picks (ctx->model: a provider toolgen is configured for, or the client's
 * own model through sampling/createMessage), takes the fenced block of the language out of the
 * answer, and checks it in the sandbox (rt_llm_check). A failed check goes back to the model
 * with the checker's message (implementation.repair_prompt) until snippets.max_rounds answers
 * were asked for. With implementation.original (the argument holding code being changed) the
 * result also has the unified diff, and a status no_change_needed when the code came back the
 * same but for whitespace.
 *
 * The client's model answers through the call's questions (tg_call_result.ask): each answer is
 * asked for under the key "answerN" and the call is run again from the start with the answers
 * so far, so a round is the same whichever era the client speaks (serve/mrtr.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/mdcode.h"
#include "base/sampling.h"
#include "base/tmpl.h"
#include "base/udiff.h"
#include "net/secrets.h"
#include "run/rt_int.h"

#define DEFAULT_ROUNDS 2
#define MAX_ROUNDS 5
#define EXPLANATION_MAX 2000
#define SAMPLING_MAX_TOKENS 4000

typedef struct job {
    const tg_toolrun_ctx *ctx;
    const tg_tool_call *call;
    const tg_manifest *m;
    const cJSON *args;
    char lang_buf[48];
    const char *lang;         /* the language's canonical name ("python"), or NULL: refused */
    const char *code_field;   /* implementation.code */
    const char *original;     /* the code being changed (implementation.original), or NULL */
    const char *context;      /* context_code, for the checker */
    rt_llm_tmpl prompt, repair;
    char *system, *user;      /* the first request */
    tg_strv secrets;          /* replaced before anything was sent, put back into the result */
    tg_model_pick pick;
    int rounds, max_rounds;
    int tokens_in, tokens_out;
    bool tokens_known;
    char *model;              /* who answered last */
    cJSON *checks;            /* the last answer's checks */
    char *code, *explanation; /* the last answer's */
    char *error;              /* why the call failed, or NULL */
    bool asked;               /* the client was asked for an answer: no result this time */
} job;

static void job_free(job *j)
{
    rt_llm_template_free(&j->prompt);
    rt_llm_template_free(&j->repair);
    free(j->system), free(j->user), free(j->model), free(j->code), free(j->explanation);
    free(j->error);
    cJSON_Delete(j->checks);
    tg_strv_free(&j->secrets);
}

static void fail(job *j, char *msg)
{
    free(j->error);
    j->error = msg;
}

/* The template variables: every string property of input_schema as delimited data (redacted),
 * the language as its bare name. NULL-ended pairs (heap; the values too). */
static char **variables(job *j)
{
    const cJSON *props = tg_json_get(j->m->input_schema, "properties");
    size_t n = 2;
    char **vars = xcalloc((size_t)cJSON_GetArraySize(props) * 2 + 3, sizeof *vars);
    vars[0] = xstrdup("language");
    vars[1] = xstrdup(j->lang);
    for (const cJSON *p = cJSON_IsObject(props) ? props->child : NULL; p; p = p->next) {
        if (strcmp(p->string, "language") == 0)
            continue;
        const char *v = tg_json_get_string(j->args, p->string);
        char *clean = tg_secrets_redact(v ? v : "", &j->secrets);
        vars[n++] = xstrdup(p->string);
        vars[n++] = rt_llm_fence(p->string, clean);
        free(clean);
    }
    return vars;
}

static void free_vars(char **vars)
{
    for (size_t i = 0; vars && vars[i]; i++)
        free(vars[i]);
    free(vars);
}

/* What the call asks for: language, fields, templates, the first request. -1 with err when the
 * manifest cannot run as written; 1 with j->error when the arguments are refused. */
static int job_init(job *j, tg_err *err)
{
    const cJSON *impl = j->m->implementation;
    j->code_field = tg_json_get_string(impl, "code");
    const char *orig = tg_json_get_string(impl, "original");
    j->original = orig ? tg_json_get_string(j->args, orig) : NULL;
    j->context = tg_json_get_string(j->args, "context_code");
    j->max_rounds = j->ctx->model ? j->ctx->model->max_rounds : DEFAULT_ROUNDS;
    if (j->max_rounds < 1 || j->max_rounds > MAX_ROUNDS)
        j->max_rounds = DEFAULT_ROUNDS;
    if (!j->code_field || rt_llm_template(j->m, "prompt", &j->prompt, err) != 0 ||
        rt_llm_template(j->m, "repair_prompt", &j->repair, err) != 0)
        return err->msg[0] ? -1 : (tg_err_set(err, "%s: implementation.code is missing; run "
                                                   "`toolgen lint`", j->m->name), -1);
    j->lang = rt_llm_language(tg_json_get_string(j->args, "language"), j->lang_buf,
                              sizeof j->lang_buf);
    if (!j->lang) {
        fail(j, xstrdup("`language` must be a language's name (e.g. python, javascript, c), "
                        "letters, digits and + # . - _ only"));
        return 1;
    }
    char **vars = variables(j);
    j->system = tg_tmpl_render(j->prompt.path, j->prompt.system, (const char *const *)vars, err);
    j->user = j->system ? tg_tmpl_render(j->prompt.path, j->prompt.user,
                                         (const char *const *)vars, err) : NULL;
    free_vars(vars);
    return j->user ? 0 : -1;
}

/* ---- one answer ------------------------------------------------------------------------- */

/* Answer n to user: 0 with *text, 1 when the client was asked (out->ask), -1 with j->error. */
static int answer(job *j, int n, const char *system, const char *user, tg_call_result *out,
                  char **text)
{
    *text = NULL;
    if (j->pick.route == TG_MODEL_CLIENT) {
        char key[24];
        snprintf(key, sizeof key, "answer%d", n);
        const cJSON *a = tg_json_get(j->call->answers, key);
        if (!a) {
            out->ask = cJSON_CreateArray();
            cJSON_AddItemToArray(out->ask, tg_sampling_question(key, system, user,
                                                                SAMPLING_MAX_TOKENS, -1,
                                                                j->pick.model));
            j->asked = true;
            return 1;
        }
        *text = tg_sampling_text(a);
        free(j->model);
        const char *model = tg_json_get_string(a, "model");
        j->model = xasprintf("sampling/%s", model ? model : "unknown");
        return 0;
    }
    tg_model_answer ma = {0};
    tg_err e = {0};
    if (j->ctx->model->complete(j->ctx->model->ud, &j->pick, system, user, &ma,
                                &e) != 0) {
        fail(j, xasprintf("the model provider failed: %s", e.msg));
        return -1;
    }
    if (ma.tokens_in >= 0 && ma.tokens_out >= 0) {
        j->tokens_in += ma.tokens_in;
        j->tokens_out += ma.tokens_out;
        j->tokens_known = true;
    }
    free(j->model);
    j->model = ma.model;
    ma.model = NULL;
    *text = ma.text;
    ma.text = NULL;
    tg_model_answer_release(&ma);
    return 0;
}

/* text[from, to) trimmed of whitespace, appended to b after a blank line when b has text. */
static void put_trimmed(tg_buf *b, const char *text, size_t from, size_t to)
{
    while (from < to && isspace((unsigned char)text[from]))
        from++;
    while (to > from && isspace((unsigned char)text[to - 1]))
        to--;
    if (to > from) {
        tg_buf_puts(b, b->len ? "\n\n" : "");
        tg_buf_append(b, text + from, to - from);
    }
}

/* The answer's words before and after its code, trimmed and capped. */
static char *explanation_of(const char *text, size_t start, size_t end)
{
    tg_buf b = TG_BUF_INIT;
    put_trimmed(&b, text, 0, start);
    put_trimmed(&b, text, end, strlen(text));
    if (b.len > EXPLANATION_MAX) {
        size_t n = EXPLANATION_MAX;
        while (n && ((unsigned char)b.data[n] & 0xC0) == 0x80)
            n--; /* a whole character */
        tg_buf_truncate(&b, n);
    }
    return tg_buf_steal(&b);
}

/* The first failed check's tool and message (heap), or NULL when none failed. */
static char *failed_checks(const cJSON *checks)
{
    for (const cJSON *c = checks ? checks->child : NULL; c; c = c->next) {
        if (strcmp(tg_json_get_string(c, "outcome") ? tg_json_get_string(c, "outcome") : "",
                   "failed") != 0)
            continue;
        const char *msg = tg_json_get_string(c, "message");
        return xasprintf("%s: %s", tg_json_get_string(c, "tool"), msg ? msg : "failed");
    }
    return NULL;
}

/* Takes the code out of text and checks it: NULL when it passed, else what was wrong (heap). */
static char *judge_answer(job *j, const char *text, tg_call_result *out, tg_err *err)
{
    size_t start = 0, end = 0;
    char *code = tg_md_code_block(text, j->lang, &start, &end);
    free(j->code), free(j->explanation);
    j->code = code;
    j->explanation = code ? explanation_of(text, start, end) : NULL;
    cJSON_Delete(j->checks);
    j->checks = NULL;
    if (!code) {
        char head[161];
        snprintf(head, sizeof head, "%s", text);
        return xasprintf("the answer held no ```%s code block; it began: \"%s\"", j->lang,
                         head);
    }
    if (!rt_llm_checkable(j->lang))
        return NULL;
    j->checks = rt_llm_check(j->ctx, &out->limits, j->call->cancel, j->lang, code, j->context,
                             err);
    if (!j->checks)
        return xasprintf("the code could not be checked: %s", err->msg);
    return failed_checks(j->checks);
}

/* The rounds: an answer, its checks, a repair request with what failed, until one passes. */
static void rounds(job *j, tg_call_result *out, tg_err *err)
{
    char *system = xstrdup(j->system), *user = xstrdup(j->user);
    for (int n = 1; n <= j->max_rounds; n++) {
        char *text;
        if (answer(j, n, system, user, out, &text) != 0)
            break;
        j->rounds = n;
        char *wrong = judge_answer(j, text, out, err);
        if (!wrong) {
            free(text);
            fail(j, NULL);
            break;
        }
        fail(j, xasprintf("after %d answer%s the code still fails: %s", n, n == 1 ? "" : "s",
                          wrong));
        const char *vars[] = {"language", j->lang, "request", NULL, "code", NULL,
                              "errors", NULL, NULL};
        char *req = rt_llm_fence("request", j->user);
        char *code = rt_llm_fence("code", j->code ? j->code : text);
        char *errors = rt_llm_fence("errors", wrong);
        vars[3] = req, vars[5] = code, vars[7] = errors;
        free(user), free(system);
        tg_err e = {0};
        system = tg_tmpl_render(j->repair.path, j->repair.system, vars, &e);
        user = system ? tg_tmpl_render(j->repair.path, j->repair.user, vars, &e) : NULL;
        free(req), free(code), free(errors), free(wrong), free(text);
        if (!user) {
            fail(j, xstrdup(e.msg));
            break;
        }
    }
    free(user), free(system);
}

/* ---- the result ------------------------------------------------------------------------- */

/* s without whitespace differences: runs of spaces, tabs and newlines as one space, trimmed. */
static char *squeezed(const char *s)
{
    tg_buf b = TG_BUF_INIT;
    bool space = false;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) {
            space = b.len > 0;
            continue;
        }
        if (space)
            tg_buf_puts(&b, " ");
        space = false;
        tg_buf_append(&b, s, 1);
    }
    return tg_buf_steal(&b);
}

static bool same_but_whitespace(const char *a, const char *b)
{
    char *x = squeezed(a), *y = squeezed(b);
    bool same = strcmp(x, y) == 0;
    free(x), free(y);
    return same;
}

static void add_note(cJSON *v, char *note)
{
    cJSON_AddStringToObject(v, "note", note);
    free(note);
}

/* {verified, language, checks, rounds, note?}: what was checked, never more than that. */
static cJSON *verification(const job *j)
{
    cJSON *v = cJSON_CreateObject();
    bool any = false, bad = false;
    const char *missing = NULL;
    for (const cJSON *c = j->checks ? j->checks->child : NULL; c; c = c->next) {
        const char *o = tg_json_get_string(c, "outcome");
        any = any || (o && strcmp(o, "passed") == 0);
        bad = bad || !o || strcmp(o, "failed") == 0;
        if (o && strcmp(o, "unavailable") == 0 && !missing)
            missing = tg_json_get_string(c, "message");
    }
    cJSON_AddBoolToObject(v, "verified", j->code && any && !bad && !missing);
    cJSON_AddStringToObject(v, "language", j->lang ? j->lang : "");
    cJSON_AddItemToObject(v, "checks", j->checks ? cJSON_Duplicate(j->checks, true)
                                                 : cJSON_CreateArray());
    cJSON_AddNumberToObject(v, "rounds", j->rounds);
    if (j->lang && !rt_llm_checkable(j->lang))
        add_note(v, xasprintf("toolgen has no checker for %s: the code was not checked",
                              j->lang));
    else if (missing)
        add_note(v, xasprintf("%s: the code was not checked by it", missing));
    return v;
}

static void add_string_or_null(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* The result. The code was checked as the model wrote it, with the secrets' markers; the
 * caller gets it with its own secrets back (docs/code-edit.md#privacy). */
static cJSON *result_of(const job *j, double ms)
{
    cJSON *r = cJSON_CreateObject();
    char *code = j->code ? tg_secrets_restore(j->code, &j->secrets) : NULL;
    char *expl = j->explanation ? tg_secrets_restore(j->explanation, &j->secrets) : NULL;
    const char *status = j->error ? "failure"
                         : j->original && same_but_whitespace(j->original, code)
                             ? "no_change_needed" : "success";
    cJSON_AddStringToObject(r, "status", status);
    add_string_or_null(r, j->code_field, j->error ? NULL : code);
    add_string_or_null(r, "explanation", expl);
    add_string_or_null(r, "error_message", j->error);
    cJSON_AddItemToObject(r, "verification", verification(j));
    if (tg_json_get_string(j->m->implementation, "original")) {
        char *d = j->original && code && !j->error
                      ? tg_udiff(j->original, code, "a/snippet", "b/snippet") : xstrdup("");
        cJSON_AddStringToObject(r, "diff", d);
        free(d);
    }
    add_string_or_null(r, "provider", j->pick.provider[0] ? j->pick.provider : NULL);
    add_string_or_null(r, "model", j->model ? j->model : j->pick.model[0] ? j->pick.model : NULL);
    if (j->tokens_known) {
        cJSON *t = cJSON_AddObjectToObject(r, "tokens");
        cJSON_AddNumberToObject(t, "input", j->tokens_in);
        cJSON_AddNumberToObject(t, "output", j->tokens_out);
    } else {
        cJSON_AddNullToObject(r, "tokens");
    }
    cJSON_AddNumberToObject(r, "time_ms", (double)(long long)(ms + 0.5));
    cJSON_AddNumberToObject(r, "redacted", (double)j->secrets.n);
    free(code);
    free(expl);
    return r;
}

/* Which model answers: the port's choice for the call's llm_provider and model_name. */
static bool pick_model(job *j)
{
    const tg_model_port *port = j->ctx->model;
    if (!port) {
        fail(j, xstrdup("no model is configured where this call ran: prompt tools run under "
                        "`toolgen serve` or `toolgen run`, with llm.provider in toolgen.yaml "
                        "or a client that offers sampling (docs/code-edit.md#providers)"));
        return false;
    }
    bool samples = cJSON_IsTrue(tg_json_get(j->call->client, "sampling"));
    tg_err e = {0};
    if (port->resolve(port->ud, tg_json_get_string(j->args, "llm_provider"),
                      tg_json_get_string(j->args, "model_name"), samples, &j->pick, &e) != 0) {
        fail(j, xstrdup(e.msg));
        return false;
    }
    return true;
}

static tg_call_status llm_execute(const tg_toolrun_ctx *ctx, const tg_tool_call *call,
                                  tg_runtime_cmd *c, tg_run_facts *f, tg_call_result *out,
                                  tg_err *err)
{
    (void)c;
    (void)f;
    double t0 = tg_now_ms();
    job j = {.ctx = ctx, .call = call, .m = call->m, .args = out->args};
    int rc = job_init(&j, err);
    if (rc < 0) {
        job_free(&j);
        return TG_CALL_UNSUPPORTED;
    }
    out->sb.out.data = xstrdup(""); /* no process of the tool's own, no streams */
    out->sb.err.data = xstrdup("");
    if (rc == 0 && pick_model(&j))
        rounds(&j, out, err);
    out->sb.wall_ms = tg_now_ms() - t0;
    if (call->cancel && *call->cancel)
        out->sb.killed_by = TG_LIMIT_CANCEL;
    else if (!j.asked)
        out->result = result_of(&j, out->sb.wall_ms);
    job_free(&j);
    return TG_CALL_DONE;
}

const tg_runtime_ops rt_llm = {
    .execute = llm_execute,
    .exit_status = true, /* no reply: the result is what toolgen assembled */
};
