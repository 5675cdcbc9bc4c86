/* workflow.c — the workflow tools' calls (workflow.h, docs/mcp.md#the-workflow-over-mcp). */
#include "serve/workflow.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/strvec.h"
#include "lifecycle/decide.h"
#include "lifecycle/feedback.h"
#include "lifecycle/monitor.h"
#include "lifecycle/present.h"
#include "lifecycle/promote.h"
#include "lifecycle/registry.h"
#include "lifecycle/reject.h"
#include "lifecycle/runart.h"
#include "lifecycle/snapshot.h"
#include "schema/jsonschema.h"
#include "serve/approval.h"
#include "serve/core.h"
#include "serve/mrtr.h"
#include "serve/dispatch.h"
#include "serve/tools_int.h"

/* ---- results ------------------------------------------------------------------------------- */

/* The workflow tool that does what a backquoted CLI command of a lifecycle message does
 * ("toolgen feedback X --decision ..."), or NULL for a command the agent has no tool for. */
static const char *mcp_tool_of(const char *cmd)
{
    static const struct {
        const char *sub, *flag, *tool;
    } map[] = {
        {"feedback", "--output", "submit_tool_feedback (stage \"output\")"},
        {"feedback", "--decision", "submit_tool_feedback (stage \"decision\")"},
        {"promote", NULL, "promote_tool"},
        {"reject", "--refine", "reject_tool (refine: true)"},
        {"reject", NULL, "reject_tool"},
        {"run", NULL, "run_staged_tool"},
        {"stage", NULL, "generate_tool"},
        {"build", NULL, "generate_tool"},
        {"new", NULL, "generate_tool"},
    };
    const char *sub = cmd + strlen("toolgen ");
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        size_t n = strlen(map[i].sub);
        if (strncmp(sub, map[i].sub, n) == 0 && (sub[n] == ' ' || !sub[n]) &&
            (!map[i].flag || strstr(sub, map[i].flag)))
            return map[i].tool;
    }
    return NULL;
}

/* The lifecycle's messages and presentation name CLI commands (`toolgen promote X`); an agent
 * has the workflow's tools instead, so each such command is said as the tool. Heap string. */
static char *mcp_words(const char *msg)
{
    tg_buf b = TG_BUF_INIT;
    const char *p = msg;
    for (;;) {
        const char *s = strstr(p, "`toolgen ");
        const char *e = s ? strchr(s + 1, '`') : NULL;
        if (!e) {
            tg_buf_puts(&b, p);
            break;
        }
        tg_buf_append(&b, p, (size_t)(s - p));
        char *cmd = xstrndup(s + 1, (size_t)(e - s - 1));
        const char *tool = mcp_tool_of(cmd);
        if (tool)
            tg_buf_puts(&b, tool);
        else
            tg_buf_append(&b, s, (size_t)(e - s + 1));
        free(cmd);
        p = e + 1;
    }
    return tg_buf_steal(&b);
}

static cJSON *text_block(const char *text)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", "text");
    cJSON_AddStringToObject(b, "text", text);
    return b;
}

/* A result: text first (what a model reads), then sc serialised; sc as structuredContent.
 * Takes sc. */
static cJSON *result(const char *text, cJSON *sc, bool is_error)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(r, "content");
    cJSON_AddItemToArray(content, text_block(text));
    char *json = tg_json_print_compact(sc);
    cJSON_AddItemToArray(content, text_block(json));
    free(json);
    cJSON_AddItemToObject(r, "structuredContent", sc);
    cJSON_AddBoolToObject(r, "isError", is_error);
    return r;
}

static cJSON *fail(const char **code, const char *c, const char *fmt, ...) TG_PRINTF(3, 4);
static cJSON *fail(const char **code, const char *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *said = xvasprintf(fmt, ap);
    va_end(ap);
    char *msg = mcp_words(said);
    free(said);
    *code = c;
    cJSON *sc = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(sc, "error");
    cJSON_AddStringToObject(e, "code", c);
    cJSON_AddStringToObject(e, "message", msg);
    char *text = xasprintf("%s: %s", c, msg);
    cJSON *r = result(text, sc, true);
    free(text);
    free(msg);
    return r;
}

/* ---- arguments ----------------------------------------------------------------------------- */

/* NULL when args fit the staged tool's compiled inputSchema, else the INVALID_INPUT result
 * naming each problem's pointer. */
static cJSON *check_args(const js_schema *s, const cJSON *args, const char **code)
{
    js_errors errs = {0};
    cJSON *r = NULL;
    if (!js_validate(s, args, &errs)) {
        tg_buf b = TG_BUF_INIT;
        tg_buf_puts(&b, "the arguments do not fit the inputSchema:");
        for (size_t i = 0; i < errs.n; i++)
            tg_buf_printf(&b, " at \"%s\": %s;", errs.v[i].instance_location, errs.v[i].message);
        tg_buf_puts(&b, " fix these arguments and call again");
        r = fail(code, "INVALID_INPUT", "%s", b.data);
        tg_buf_free(&b);
    }
    js_errors_free(&errs);
    return r;
}

static void count(const tg_repo *repo, tg_monitor_event ev, double ms)
{
    tg_err err = {0};
    (void)tg_monitor_add(repo, ev, ms, NULL, &err); /* the registry holds the record */
}

/* ---- list_available_tools ------------------------------------------------------------------ */

/* The description in an active tool's spec.json ("" when unreadable). Heap string. */
static char *spec_description(const tg_registry *g, const char *name)
{
    char *dir = tg_registry_active_dir(g, name), *spec = tg_path_join(dir, "spec.json");
    char *text = tg_read_file_at(g->repo->root_fd, spec, 1 << 24, NULL, NULL);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    const char *d = tg_json_get_string(doc, "description");
    char *r = xstrdup(d ? d : "");
    cJSON_Delete(doc);
    free(text);
    free(spec);
    free(dir);
    return r;
}

static void list_entries(const tg_registry *g, tg_buf *md, cJSON *out, const cJSON *entries,
                         bool active)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, entries) {
        const char *state = active ? "PROMOTED" : tg_json_get_string(e, "state");
        if (!active && strcmp(state, "STAGED") != 0 && strcmp(state, "APPROVED") != 0)
            continue;
        const char *version = tg_json_get_string(e, "version");
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", e->string);
        cJSON_AddStringToObject(o, "version", version);
        cJSON_AddStringToObject(o, "state", state);
        if (active) { /* the seed's line: name, version, the spec's description */
            char *d = spec_description(g, e->string);
            cJSON_AddStringToObject(o, "description", d);
            tg_buf_printf(md, "- **%s** (v%s): %s\n", e->string, version, d);
            free(d);
        } else {
            tg_buf_printf(md, "- **%s** (v%s): %s, awaiting the user's review\n", e->string,
                          version, state);
        }
        cJSON_AddItemToArray(out, o);
    }
}

static cJSON *list_tools(const tg_registry *g, const char **code)
{
    tg_err err = {0};
    cJSON *active = tg_registry_load(g, TG_REG_ACTIVE, &err), *staging = NULL;
    if (!active || !(staging = tg_registry_load(g, TG_REG_STAGING, &err))) {
        cJSON_Delete(active);
        return fail(code, "INTERNAL_ERROR", "%s", err.msg);
    }
    cJSON *sc = cJSON_CreateObject();
    tg_buf md = TG_BUF_INIT;
    tg_buf_puts(&md, "Promoted tools:\n");
    list_entries(g, &md, cJSON_AddArrayToObject(sc, "tools"),
                 cJSON_GetObjectItemCaseSensitive(active, "tools"), true);
    tg_buf_puts(&md, "\nCandidates under review:\n");
    list_entries(g, &md, cJSON_AddArrayToObject(sc, "candidates"),
                 cJSON_GetObjectItemCaseSensitive(staging, "candidates"), false);
    cJSON *r = result(md.data, sc, false);
    tg_buf_free(&md);
    cJSON_Delete(active);
    cJSON_Delete(staging);
    *code = NULL;
    return r;
}

/* ---- the staged run ------------------------------------------------------------------------ */

/* The call's files into <candidate>/files/, listed relative to the candidate folder. */
static int keep_files(const tg_registry *g, const char *dir, const tg_call_result *r,
                      tg_strv *files, tg_err *err)
{
    if (!r->sb.n_files)
        return 0;
    char *abs = xasprintf("%s/%s/files", g->repo->path, dir);
    int rc = tg_call_result_copy_files(r, abs, err);
    free(abs);
    for (size_t i = 0; rc >= 0 && i < r->sb.n_files; i++)
        tg_strv_pushf(files, "files/%s", r->sb.files[i].path);
    return rc < 0 ? -1 : 0;
}

/* Stores the run of a staged tool and answers with its presentation. */
static cJSON *present_run(const tg_registry *g, const char *dir, const tg_serve_tool *t,
                          const tg_call_result *res, const char *preface, const char **code)
{
    tg_err err = {0};
    tg_strv files = TG_STRV_INIT;
    cJSON *env = tg_call_result_json(res, &t->m), *art = NULL, *staging = NULL, *r = NULL;
    if (keep_files(g, dir, res, &files, &err) != 0) {
        r = fail(code, "INTERNAL_ERROR", "keeping the staged run's files: %s", err.msg);
        goto out;
    }
    art = tg_runart_build(env, &t->m, &files);
    if (tg_runart_store(g, dir, art, &err) != 0 ||
        !(staging = tg_registry_load(g, TG_REG_STAGING, &err))) {
        r = fail(code, "INTERNAL_ERROR", "%s", err.msg);
        goto out;
    }
    count(g->repo, res->ok ? TG_MON_STAGED_RUN : TG_MON_STAGED_RUN_FAILED,
          tg_json_get_number(env, "execution_time_ms", 0));
    if (!res->ok) {
        const tg_guidance *gd = &res->guidance;
        r = fail(code, gd->code ? gd->code : "INTERNAL_ERROR", "the staged run of %s failed: %s",
                 t->m.name, gd->message);
        goto out;
    }
    const cJSON *entry = tg_registry_candidate(staging, t->m.name);
    char *cli_md = tg_present_markdown(art, entry);
    char *md = mcp_words(cli_md);
    free(cli_md);
    char *text = xasprintf("%s%s\nNext: show this to the user, then call submit_tool_feedback "
                           "(stage \"output\"): it asks the user whether the output is correct.",
                           preface ? preface : "", md);
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddStringToObject(sc, "tool", t->m.name);
    cJSON_AddStringToObject(sc, "version", t->m.version);
    cJSON_AddStringToObject(sc, "state", tg_json_get_string(entry, "state"));
    cJSON_AddStringToObject(sc, "candidate", dir);
    cJSON_AddItemToObject(sc, "run_artifacts", cJSON_Duplicate(art, true));
    cJSON_AddStringToObject(sc, "presentation", md);
    r = result(text, sc, false);
    *code = NULL;
    free(text);
    free(md);
out:
    cJSON_Delete(env);
    cJSON_Delete(art);
    cJSON_Delete(staging);
    tg_strv_free(&files);
    return r;
}

/* Runs the STAGED tool of the working tree's manifest (which must still be its snapshot) with
 * args, or its first example's input when args is NULL. */
static cJSON *staged_run(const tg_serve_workflow *w, const tg_serve_call *how,
                         const tg_registry *g, const char *tool, const cJSON *args,
                         const char *preface, const char **code)
{
    char *path = xasprintf("%s/%s/tool.manifest.yaml", w->repo->cfg.manifests_dir, tool);
    tg_serve_tools set;
    tg_serve_tools_begin(&set);
    tg_manifest m;
    tg_err err = {0};
    char *dir = NULL;
    cJSON *r = NULL;
    int staged;
    if (tg_manifest_load(w->repo, path, &m, &err) != 0) {
        r = fail(code, "NOT_FOUND", "%s has no manifest (%s); generate it with generate_tool",
                 tool, err.msg);
    } else if (!tg_serve_tools_add(&set, path, &m)) {
        r = fail(code, "INVALID_INPUT", "%s", set.skipped[0]);
    } else if ((staged = tg_runart_candidate(g, &set.v[0].m, &dir, &err)) <= 0) {
        r = staged < 0 ? fail(code, "STALE", "%s", err.msg)
                       : fail(code, "NOT_STAGED", "%s is not STAGED: only a staged candidate is "
                              "run for review; a promoted tool is called by its name", tool);
    }
    const tg_serve_tool *t = set.n ? &set.v[0] : NULL;
    if (!r && !args) {
        const cJSON *ex = cJSON_GetArrayItem(t->m.examples, 0);
        args = tg_json_get(ex, "input");
        if (!args)
            r = fail(code, "INVALID_INPUT", "%s has no example to run; pass arguments", tool);
    }
    if (!r)
        r = check_args(t->input, args, code);
    if (!r) {
        tg_tool_call call = {.m = &t->m, .input = t->input, .output = t->output, .args = args,
                             .args_valid = true, .cancel = how->cancel};
        tg_call_result res = {0};
        if (how->run(how->run_ctx, &call, &res, &err) != TG_CALL_DONE)
            r = fail(code, "INTERNAL_ERROR", "%s", err.msg[0] ? err.msg : "the tool could not run");
        else
            r = present_run(g, dir, t, &res, preface, code);
        tg_call_result_free(&res);
    }
    free(dir);
    free(path);
    tg_serve_tools_free(&set);
    return r;
}

/* ---- generate_tool ------------------------------------------------------------------------- */

/* A generated (or refined) and built tool: staged, run on its first example, presented. */
static cJSON *stage_and_run(const tg_serve_workflow *w, const tg_serve_call *how,
                            const tg_registry *g, const char *tool, const char *before,
                            const char **code)
{
    tg_registry_stage_result st;
    tg_err err = {0};
    if (tg_registry_stage(g, tool, &st, &err) != 0)
        return fail(code, "STAGE_FAILED", "%s", err.msg);
    if (!st.already)
        count(w->repo, TG_MON_STAGED, 0);
    char *preface = xasprintf("%s%sStaged %s v%s (%s).\n", before ? before : "",
                              before && *before ? "\n" : "", tool, st.version, st.path);
    cJSON *r = staged_run(w, how, g, tool, NULL, preface, code);
    free(preface);
    return r;
}

/* REUSE: the served tool that answers the request, and the exact call's arguments. */
static cJSON *reused(const tg_serve_generated *gen, const char **code)
{
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddStringToObject(sc, "outcome", "REUSE");
    cJSON_AddStringToObject(sc, "tool", gen->tool ? gen->tool : "");
    cJSON_AddStringToObject(sc, "summary", gen->summary ? gen->summary : "");
    cJSON *call = gen->arguments ? cJSON_Parse(gen->arguments) : NULL;
    if (cJSON_IsObject(call))
        cJSON_AddItemToObject(sc, "arguments", call);
    else
        cJSON_Delete(call);
    char *text = xasprintf("REUSE: the existing tool %s already answers this request; call "
                           "it instead of generating a new one%s%s.\n%s", gen->tool,
                           gen->arguments ? ", with the arguments " : "",
                           gen->arguments ? gen->arguments : "", gen->summary ? gen->summary : "");
    cJSON *r = result(text, sc, false);
    *code = NULL;
    free(text);
    return r;
}

/* The question the request leaves open, as the client's form shows it: one choice, the
 * options as its enum (docs/mcp.md#the-workflow-over-mcp). */
static cJSON *question_form(const tg_serve_generated *gen)
{
    cJSON *qs = cJSON_CreateArray();
    cJSON *q = cJSON_CreateObject();
    cJSON_AddItemToArray(qs, q);
    cJSON_AddStringToObject(q, "key", gen->about);
    cJSON_AddStringToObject(q, "method", "elicitation/create");
    cJSON *p = cJSON_AddObjectToObject(q, "params");
    cJSON_AddStringToObject(p, "message", gen->question);
    cJSON *rs = cJSON_AddObjectToObject(p, "requestedSchema");
    cJSON *f = cJSON_AddObjectToObject(cJSON_AddObjectToObject(rs, "properties"), "reply");
    cJSON_AddStringToObject(f, "type", "string");
    cJSON_AddStringToObject(f, "title", "Your answer");
    cJSON *e = cJSON_AddArrayToObject(f, "enum");
    for (size_t i = 0; i < gen->noptions; i++)
        cJSON_AddItemToArray(e, cJSON_CreateString(gen->options[i]));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(rs, "required"), cJSON_CreateString("reply"));
    cJSON_AddStringToObject(q, "field", "reply");
    return qs;
}

/* The question for an agent whose client cannot show the user a form: it asks the user, then
 * calls again with their answer in assume. */
static cJSON *question_result(const tg_serve_generated *gen, const char **code)
{
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddStringToObject(sc, "outcome", "QUESTION");
    cJSON_AddStringToObject(sc, "about", gen->about);
    cJSON_AddStringToObject(sc, "question", gen->question);
    cJSON *o = cJSON_AddArrayToObject(sc, "options");
    tg_buf opts = TG_BUF_INIT;
    for (size_t i = 0; i < gen->noptions; i++) {
        cJSON_AddItemToArray(o, cJSON_CreateString(gen->options[i]));
        tg_buf_printf(&opts, "%s\"%s=%s\"", i ? ", " : "", gen->about, gen->options[i]);
    }
    char *text = xasprintf("QUESTION: %s\nNothing was generated: the request leaves this open. "
                           "Ask the user, then call generate_tool again with the same intent "
                           "and data_file and assume: [one of %s].", gen->question, opts.data);
    cJSON *r = result(text, sc, false);
    *code = NULL;
    free(text);
    tg_buf_free(&opts);
    return r;
}

static void generated_release(tg_serve_generated *gen)
{
    free(gen->tool);
    free(gen->summary);
    free(gen->arguments);
    free(gen->about);
    free(gen->question);
    for (size_t i = 0; i < gen->noptions; i++)
        free(gen->options[i]);
    free(gen->options);
    cJSON_Delete(gen->sampling);
}

/* generate_tool with the user's answers so far (assume) and the client's model's (sampled);
 * what the client must be asked next in *form too: the form of a question left open, or the
 * requests for its model. */
static cJSON *generate(const tg_serve_workflow *w, const tg_serve_call *how,
                       const tg_registry *g, const cJSON *args, const tg_strv *assume,
                       const cJSON *sampled, const char **code, cJSON **form)
{
    if (!w->generate)
        return fail(code, "UNAVAILABLE", "generation is not available in this server");
    const char *intent = tg_json_get_string(args, "intent");
    const char *data = tg_json_get_string(args, "data_file");
    tg_serve_generated gen = {0};
    tg_err err = {0};
    cJSON *r = NULL;
    tg_serve_gen_request rq = {.intent = intent, .data = &data, .ndata = 1,
                               .assume = (const char *const *)assume->v, .nassume = assume->n,
                               .sampled = sampled};
    if (w->generate(w->generate_ud, w->repo, &rq, &gen, &err) != 0) {
        r = fail(code, "GENERATION_FAILED", "%s", err.msg);
    } else if (gen.sampling) { /* the result when the client cannot be asked */
        r = fail(code, "UNAVAILABLE", "llm.provider is sampling, so the client's own model "
                 "writes the tool, and this client offers no sampling: connect one that does, "
                 "or set llm.provider to openai or anthropic (docs/code-edit.md#providers)");
        *form = gen.sampling;
        gen.sampling = NULL;
    } else if (gen.question) {
        r = question_result(&gen, code);
        *form = question_form(&gen);
    } else if (gen.reused) {
        r = reused(&gen, code);
    } else if (!gen.staged) {
        r = fail(code, "REJECTED", "no tool passed the quality gates; nothing was staged:\n%s",
                 gen.summary ? gen.summary : "");
    } else {
        char *before = xasprintf("Generated %s.\n%s", gen.tool, gen.summary ? gen.summary : "");
        r = stage_and_run(w, how, g, gen.tool, before, code);
        free(before);
    }
    generated_release(&gen);
    return r;
}

/* ---- submit_tool_feedback, promote_tool ---------------------------------------------------- */

/* reply: the user's own words, which came through the client's form (serve/approval.h) */
static cJSON *feedback(const tg_serve_workflow *w, const tg_registry *g, const cJSON *args,
                       const char *reply, const char **code)
{
    const char *tool = tg_json_get_string(args, "tool");
    bool decision = strcmp(tg_json_get_string(args, "stage"), "decision") == 0;
    tg_decide_result res;
    tg_err err = {0};
    if (tg_decide_via(g, tool, decision, reply, w->user ? w->user : "user", TG_APPROVAL_VIA,
                      &res, &err) != 0)
        return fail(code, "REFUSED", "%s", err.msg);
    static const tg_monitor_event ev[] = {TG_MON_OUTPUT_ACCEPTED, TG_MON_OUTPUT_REJECTED,
                                          TG_MON_APPROVED, TG_MON_REJECTED};
    if (res.decision != TG_FB_PENDING)
        count(w->repo, ev[res.decision], 0);
    const char *next =
        res.decision == TG_FB_OUTPUT_ACCEPTED
            ? "call submit_tool_feedback with stage \"decision\": the user is asked whether to "
              "save it as a reusable tool"
        : res.decision == TG_FB_APPROVED ? "promote it with promote_tool"
        : res.decision == TG_FB_PENDING  ? "call submit_tool_feedback again: the user is asked again"
                                         : "ask the user what needs improvement; the tool is "
                                           "not saved";
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddStringToObject(sc, "tool", tool);
    cJSON_AddStringToObject(sc, "version", res.version);
    cJSON_AddStringToObject(sc, "decision", tg_fb_name(res.decision));
    cJSON_AddStringToObject(sc, "state", res.state);
    cJSON_AddStringToObject(sc, "reply", reply);
    cJSON_AddStringToObject(sc, "next", next);
    char *text = xasprintf("%s v%s: the user answered \"%s\": %s (state %s). Next: %s.", tool,
                           res.version, reply, tg_fb_name(res.decision), res.state, next);
    cJSON *r = result(text, sc, false);
    free(text);
    *code = NULL;
    return r;
}

/* *changed is set when the registry's active set changed: the served set is re-read. */
static cJSON *promote(const tg_serve_workflow *w, const tg_registry *g, const cJSON *args,
                      const char **code, bool *changed)
{
    const char *tool = tg_json_get_string(args, "tool");
    tg_promote_result res;
    tg_err err = {0};
    tg_promote_status st = tg_promote(g, tool, NULL, &res, &err);
    if (st != TG_PROMOTE_DONE && st != TG_PROMOTE_ALREADY)
        return fail(code, "REFUSED", "%s%s", err.msg,
                    st == TG_PROMOTE_FAILED ? " (nothing was changed)" : "");
    if (st == TG_PROMOTE_DONE) {
        count(w->repo, TG_MON_PROMOTED, 0);
        *changed = true;
    }
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddStringToObject(sc, "tool", tool);
    cJSON_AddStringToObject(sc, "version", res.version);
    cJSON_AddStringToObject(sc, "state", "PROMOTED");
    cJSON_AddBoolToObject(sc, "already", st == TG_PROMOTE_ALREADY);
    if (st == TG_PROMOTE_DONE)
        cJSON_AddStringToObject(sc, "commit", res.commit);
    char *text = st == TG_PROMOTE_DONE
                     ? xasprintf("%s v%s: APPROVED -> PROMOTED, commit %s \"promote %s v%s\". "
                                 "The server now offers %s: call it by name.", tool, res.version,
                                 res.commit, tool, res.version, tool)
                     : xasprintf("%s v%s: an identical tool is already active; nothing to do.",
                                 tool, res.version);
    cJSON *r = result(text, sc, false);
    free(text);
    *code = NULL;
    return r;
}

/* ---- reject_tool --------------------------------------------------------------------------- */

/* Generates the rejected tool again from the notes, then stages, runs and presents it. */
static cJSON *refine(const tg_serve_workflow *w, const tg_serve_call *how, const tg_registry *g,
                     const char *tool, const char *notes, const char *rejected,
                     const char **code)
{
    if (!w->refine)
        return fail(code, "UNAVAILABLE", "%s; refinement is not available in this server",
                    rejected);
    tg_serve_generated gen = {0};
    tg_err err = {0};
    cJSON *r;
    if (w->refine(w->generate_ud, w->repo, tool, notes, &gen, &err) != 0) {
        r = fail(code, "REFINE_FAILED", "%s; it cannot be refined: %s", rejected, err.msg);
    } else if (!gen.staged) {
        r = fail(code, "REJECTED", "%s; nothing generated from the notes passed the quality "
                 "gates, and the rejection stands:\n%s", rejected, gen.summary ? gen.summary : "");
    } else {
        char *before = xasprintf("%s\nGenerated %s again from the notes.\n%s", rejected, tool,
                                 gen.summary ? gen.summary : "");
        r = stage_and_run(w, how, g, tool, before, code);
        free(before);
    }
    free(gen.tool);
    free(gen.summary);
    return r;
}

static cJSON *reject(const tg_serve_workflow *w, const tg_serve_call *how, const tg_registry *g,
                     const cJSON *args, const char **code)
{
    const char *tool = tg_json_get_string(args, "tool");
    const char *notes = tg_json_get_string(args, "notes");
    tg_reject_result res;
    tg_err err = {0};
    if (tg_reject(g, tool, notes, &res, &err) != 0) {
        tg_strv_free(&res.categories);
        return fail(code, "REFUSED", "%s", err.msg);
    }
    (void)tg_monitor_add(w->repo, res.was_rejected ? TG_MON_REASONS : TG_MON_REJECTED, 0,
                         &res.categories, &err); /* the registry holds the record */
    tg_buf said = TG_BUF_INIT;
    tg_buf_printf(&said, "%s v%s: REJECTED with the user's notes, archived in %s (issues:",
                  tool, res.version, res.archive);
    cJSON *sc = cJSON_CreateObject(), *issues;
    cJSON_AddStringToObject(sc, "tool", tool);
    cJSON_AddStringToObject(sc, "version", res.version);
    cJSON_AddStringToObject(sc, "state", "REJECTED");
    cJSON_AddStringToObject(sc, "archive", res.archive);
    issues = cJSON_AddArrayToObject(sc, "issues");
    for (size_t i = 0; i < res.categories.n; i++) {
        tg_buf_printf(&said, " %s", res.categories.v[i]);
        cJSON_AddItemToArray(issues, cJSON_CreateString(res.categories.v[i]));
    }
    tg_buf_puts(&said, ").");
    tg_strv_free(&res.categories);
    cJSON *r;
    if (cJSON_IsTrue(tg_json_get(args, "refine"))) {
        cJSON_Delete(sc);
        r = refine(w, how, g, tool, notes, said.data, code);
    } else {
        char *text = xasprintf("%s Next: reject_tool with refine true generates it again from "
                               "notes, or generate_tool takes another request.", said.data);
        r = result(text, sc, false);
        *code = NULL;
        free(text);
    }
    tg_buf_free(&said);
    return r;
}

/* ---- the provider ------------------------------------------------------------------------- */

/* The CallToolResult of the workflow tool name with args (checked against its inputSchema by
 * the core); how runs tool code. Never NULL. */
static cJSON *workflow_call(const tg_serve_workflow *w, const tg_serve_call *how,
                            const char *name, const cJSON *args, const char *reply,
                            const tg_strv *assume, const cJSON *sampled, const char **code,
                            bool *changed, cJSON **form)
{
    tg_registry g;
    tg_err err = {0};
    if (tg_registry_open(&g, w->repo, &err) != 0)
        return fail(code, "INTERNAL_ERROR", "%s", err.msg);
    cJSON *r;
    if (strcmp(name, "list_available_tools") == 0)
        r = list_tools(&g, code);
    else if (strcmp(name, "generate_tool") == 0)
        r = generate(w, how, &g, args, assume, sampled, code, form);
    else if (strcmp(name, "run_staged_tool") == 0)
        r = staged_run(w, how, &g, tg_json_get_string(args, "tool"),
                       tg_json_get(args, "arguments"), NULL, code);
    else if (strcmp(name, "submit_tool_feedback") == 0)
        r = feedback(w, &g, args, reply, code);
    else if (strcmp(name, "reject_tool") == 0)
        r = reject(w, how, &g, args, code);
    else
        r = promote(w, &g, args, code, changed);
    tg_registry_release(&g);
    return r;
}

/* One workflow call, done without the core lock. */
typedef struct wf_job {
    tg_serve_workflow *w;
    tg_serve_call how;
    const char *name;
    const cJSON *args;
    const char *reply; /* submit_tool_feedback: the user's answer */
    tg_strv assume;    /* generate_tool: the user's answers to the generator's questions */
    const cJSON *sampled; /* generate_tool: the client's model's answers so far */
    const char *code;
    cJSON *result;
    cJSON *form;       /* generate_tool: what to ask the client next (the question left open
                        * as a form, or requests for its model); NULL: nothing */
    bool changed;
} wf_job;

static void wf_work(void *arg)
{
    wf_job *j = arg;
    pthread_mutex_lock(&j->w->mu);
    j->result = workflow_call(j->w, &j->how, j->name, j->args, j->reply, &j->assume,
                              j->sampled, &j->code, &j->changed, &j->form);
    pthread_mutex_unlock(&j->w->mu);
}

static void wf_list(void *self, const tg_serve_rx *rx, tg_serve_add_fn add, void *ud)
{
    (void)rx;
    const tg_serve_workflow *w = self;
    const cJSON *t;
    cJSON_ArrayForEach(t, w->tools)
        add(ud, tg_json_get_string(t, "name"), t);
}

static bool wf_find(void *self, const tg_serve_rx *rx, const char *name, tg_serve_entry *out)
{
    (void)rx;
    const tg_serve_workflow *w = self;
    size_t i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, w->tools) {
        const char *n = tg_json_get_string(t, "name");
        if (strcmp(n, name) == 0) {
            *out = (tg_serve_entry){.tool = t, .name = n, .input = w->inputs[i]};
            return true;
        }
        i++;
    }
    return false;
}

/* The user's answer for submit_tool_feedback, asked through the client before the call's work
 * (with the core lock, as a question waits for it); NULL with *out set when there is none. */
static char *user_reply(const tg_serve_workflow *w, const tg_serve_rx *rx, const cJSON *args,
                        tg_serve_outcome *out)
{
    tg_registry g;
    tg_err err = {0};
    if (tg_registry_open(&g, w->repo, &err) != 0) {
        out->code = "INTERNAL_ERROR";
        out->result = tg_serve_error_result(NULL, out->code, err.msg);
        return NULL;
    }
    char *reply = tg_serve_approval_reply(rx, &g, tg_json_get_string(args, "tool"),
                                          strcmp(tg_json_get_string(args, "stage"), "decision") == 0,
                                          args, out);
    tg_registry_release(&g);
    return reply;
}

/* One workflow call's work, without the core lock; j->result and j->code are the outcome. */
static void run_job(const tg_serve_rx *rx, wf_job *j)
{
    j->how.dispatch = NULL; /* the whole call runs unlocked: the tool runs inside take no lock */
    tg_serve_unlocked(rx->how.dispatch, wf_work, j);
    if (j->changed && j->w->changed) /* under the core lock again, as the change check runs */
        j->w->changed(j->w->changed_ctx);
}

/* The user's answers: the call's assume, then those given through the client's forms. */
static void assumptions(const cJSON *args, const cJSON *answers, tg_strv *out)
{
    const cJSON *a;
    cJSON_ArrayForEach(a, tg_json_get(args, "assume"))
        if (cJSON_IsString(a))
            tg_strv_push(out, a->valuestring);
    cJSON_ArrayForEach(a, answers)
        if (cJSON_IsString(a) && a->string)
            tg_strv_pushf(out, "%s=%s", a->string, a->valuestring);
}

/* Whether the client can be asked every question of qs (its capabilities cover them). */
static bool can_ask(const cJSON *qs, unsigned client_can)
{
    for (const cJSON *q = qs ? qs->child : NULL; q; q = q->next) {
        const char *m = tg_json_get_string(q, "method");
        unsigned need = m && strcmp(m, "sampling/createMessage") == 0 ? TG_CLIENT_SAMPLES
                                                                       : TG_CLIENT_ELICITS;
        if (!(client_can & need))
            return false;
    }
    return true;
}

/*
 * generate_tool: a question the request leaves open goes to the user through the client's
 * form, and a request for the client's model (llm.provider sampling) to its model (legacy: the
 * requests now; 2026-07-28: input_required, then the retry), and the generation runs again
 * with the answers — TG_MRTR_MAX_ROUNDS rounds at most. A client that cannot be asked gets the
 * question as the result (outcome QUESTION), for the agent to ask the user and call again with
 * assume, or the error that its model cannot be asked.
 */
static void generate_call(tg_serve_workflow *w, const tg_serve_rx *rx, const cJSON *args,
                          tg_serve_outcome *out)
{
    static const char who[] = "generate_tool";
    unsigned can = rx->c->mrtr ? rx->how.client_can : 0;
    cJSON *answers = can && rx->era == TG_ERA_MODERN
                         ? tg_serve_mrtr_retry_answers(rx->c->mrtr, who, NULL, args, rx->params,
                                                       out)
                         : cJSON_CreateObject();
    for (int round = 0; answers; round++) {
        wf_job j = {.w = w, .how = rx->how, .name = who, .args = args, .sampled = answers};
        assumptions(args, answers, &j.assume);
        run_job(rx, &j);
        tg_strv_free(&j.assume);
        if (!j.form || !can_ask(j.form, can) || round == TG_MRTR_MAX_ROUNDS) {
            cJSON_Delete(j.form);
            *out = (tg_serve_outcome){.result = j.result, .code = j.code};
            break;
        }
        cJSON_Delete(j.result);
        int rc = 0;
        if (rx->era == TG_ERA_MODERN)
            tg_serve_mrtr_need(rx->c->mrtr, who, rx->how.client_can, args, answers, j.form, out);
        else
            rc = tg_serve_mrtr_ask_now(&rx->how, who, NULL, j.form, answers, out);
        cJSON_Delete(j.form);
        if (rx->era == TG_ERA_MODERN || rc != 0)
            break;
    }
    cJSON_Delete(answers);
}

static void wf_call(void *self, const tg_serve_rx *rx, const tg_serve_entry *e,
                    const cJSON *args, tg_serve_outcome *out)
{
    *out = (tg_serve_outcome){0};
    char *reply = NULL;
    if (strcmp(e->name, "generate_tool") == 0) {
        generate_call(self, rx, args, out);
        return;
    }
    if (strcmp(e->name, "submit_tool_feedback") == 0 && !(reply = user_reply(self, rx, args, out)))
        return;
    wf_job j = {.w = self, .how = rx->how, .name = e->name, .args = args, .reply = reply};
    run_job(rx, &j);
    *out = (tg_serve_outcome){.result = j.result, .code = j.code};
    free(reply);
}

tg_serve_provider tg_serve_workflow_provider(tg_serve_workflow *w)
{
    return (tg_serve_provider){.name = "workflow", .self = w, .list = wf_list, .find = wf_find,
                               .call = wf_call};
}
