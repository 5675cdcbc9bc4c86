/*
 * newtool.c — the `toolgen new` pipeline (newtool.h; docs/generate.md#the-pipeline). The model
 * steps live here; the validation callback, the candidates and the outcome in newtool_judge.c.
 */
#include "gen/newtool.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/builtin.h"
#include "gen/newtool_int.h"
#include "model/paths.h"

void tg_gen_note(gen_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = xvasprintf(fmt, ap);
    va_end(ap);
    tg_buf_printf(&c->summary, "%s\n", line);
    if (c->o->progress)
        c->o->progress(c->o->progress_ud, line);
    free(line);
}

int tg_gen_fail_llm(gen_ctx *c, tg_llm_status st)
{
    c->res->fail = st == TG_LLM_BAD_ANSWER ? TG_GENF_ANSWER
                 : st == TG_LLM_FROZEN     ? TG_GENF_FROZEN
                 : st == TG_LLM_CONFIG     ? TG_GENF_USAGE
                 : st == TG_LLM_SAMPLE     ? TG_GENF_SAMPLE
                                           : TG_GENF_ENV;
    return -1;
}

/* Renders prompt p with vars, asks the model (sample), and extracts the ```lang block. */
int tg_gen_ask(gen_ctx *c, const tg_prompt *p, const char *const *vars, int sample,
               const char *lang, char **block, tg_llm_reply *reply, tg_err *err)
{
    char *sys = tg_prompt_render(p, p->system, vars, err);
    char *user = sys ? tg_prompt_render(p, p->user, vars, err) : NULL;
    if (!user) {
        free(sys);
        c->res->fail = TG_GENF_USAGE;
        return -1;
    }
    tg_llm_request rq = {.system = sys, .user = user, .sample = sample, .block = lang};
    tg_llm_status st = tg_llm_complete(&c->llm, &rq, reply, err);
    if (st == TG_LLM_OK)
        c->last_prompt_hash = tg_hash_bytes(user, strlen(user));
    free(sys);
    free(user);
    if (st != TG_LLM_OK)
        return tg_gen_fail_llm(c, st);
    *block = tg_llm_code_block(reply->text, lang);
    if (!*block) {
        char q[200];
        char head[121] = {0};
        strncpy(head, reply->text, 120);
        tg_json_quote_for_message(head, q, sizeof q);
        tg_err_set(err, "%s: the answer to the %s prompt has no ```%s code block; it began %s",
                   reply->model, p->name, lang, q);
        tg_llm_reply_release(reply);
        c->res->fail = TG_GENF_ANSWER;
        return -1;
    }
    return 0;
}

/* ---- step 1: datasets and the intent ------------------------------------------------------- */

static int read_datasets(gen_ctx *c, tg_err *err)
{
    const tg_gen_opts *o = c->o;
    c->ds = xcalloc(o->ndata ? o->ndata : 1, sizeof *c->ds);
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < o->ndata; i++) {
        if (tg_dataset_read(c->repo, o->data[i], &c->ds[i], err) != 0) {
            cJSON_Delete(arr);
            c->res->fail = TG_GENF_USAGE;
            return -1;
        }
        c->nds++;
        char *js = tg_dataset_to_json(&c->ds[i]);
        cJSON *node = cJSON_Parse(js);
        free(js);
        cJSON_AddItemToArray(arr, node ? node : cJSON_CreateNull());
    }
    c->ds_json = tg_json_print(arr);
    cJSON_Delete(arr);
    return 0;
}

static int extract_intent(gen_ctx *c, tg_err *err)
{
    const char *vars[] = {"intent", c->o->intent, "datasets", c->ds_json, NULL};
    char *block;
    tg_llm_reply r;
    if (tg_gen_ask(c, &c->p_intent, vars, 0, "json", &block, &r, err) != 0)
        return -1;
    tg_err jerr = {0};
    c->intent = tg_json_parse(block, strlen(block), NULL, NULL, NULL, &jerr);
    free(block);
    if (!cJSON_IsObject(c->intent)) {
        tg_err_set(err, "%s: the intent is not a JSON object (%s at %d:%d)", r.model,
                   c->intent ? "another type" : jerr.msg, jerr.line, jerr.col);
        tg_llm_reply_release(&r);
        c->res->fail = TG_GENF_ANSWER;
        return -1;
    }
    const char *op = tg_json_get_string(c->intent, "operation");
    tg_gen_note(c, "intent: %s (%s%s)", op ? op : "operation unknown", r.model,
                r.cached ? ", cached" : "");
    tg_llm_reply_release(&r);
    return 0;
}

/* The tool name: --name, else the model's, else derived from the intent's words. */
static int choose_name(gen_ctx *c, const char *proposed, tg_err *err)
{
    const char *n = c->o->name ? c->o->name : proposed;
    if (!n || !tg_tool_name_ok(n)) {
        c->res->fail = TG_GENF_USAGE;
        if (c->o->name || !n)
            return tg_err_set(err, "'%s' is not a valid tool name (lowercase snake_case, a "
                                   "letter first, at most 64 characters); give one with --name",
                              n ? n : "");
        return tg_err_set(err, "the model proposed the tool name '%s', which is not snake_case; "
                               "give one with --name NAME", n);
    }
    c->name = xstrdup(n);
    c->dir = tg_path_join(c->repo->cfg.manifests_dir, n);
    c->res->tool = xstrdup(n);
    return 0;
}

/* ---- step 2: gap detection ----------------------------------------------------------------- */

static void intent_columns(gen_ctx *c, tg_strv *cols)
{
    const cJSON *arr = c->intent ? tg_json_get(c->intent, "columns") : NULL;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) {
        if (cJSON_IsString(x))
            tg_strv_push(cols, x->valuestring);
    }
    if (arr)
        return;
    /* without a model: the dataset columns the request names as words */
    for (size_t d = 0; d < c->nds; d++)
        for (size_t i = 0; i < c->ds[d].ncols; i++)
            if (tg_gap_mentions(c->o->intent, c->ds[d].cols[i].name))
                tg_strv_push(cols, c->ds[d].cols[i].name);
}

static int detect_gap(gen_ctx *c, const tg_reading *reading, tg_err *err)
{
    tg_gap_weights w;
    tg_gap_weights_from_json(tg_config_get(&c->repo->cfg, "/generation"), &w);
    tg_strv cols = {0};
    intent_columns(c, &cols);
    tg_gap_intent in = {
        .text = c->o->intent,
        .operation = NULL, /* the score's classes, from the words for both readers */
        .output_format = c->intent ? tg_json_get_string(c->intent, "output_format") : NULL,
        .columns = (const char *const *)cols.v,
        .ncolumns = cols.n,
        .has_filters = reading->filters.n > 0 || !reading->known,
        .reading = reading,
        .reusable = c->o->reusable,
        .reusable_ud = c->o->reusable_ud,
    };
    tg_gap_result g;
    int rc = tg_gap_find(c->repo, &in, c->ds, c->nds, &w, &g, err);
    tg_strv_free(&cols);
    if (rc != 0) {
        c->res->fail = TG_GENF_USAGE;
        return -1;
    }
    if (g.reuse) {
        tg_gen_note(c, "REUSE %s: it covers every part of the reading; overlap %.2f >= %.2f "
                    "(operation %.0f, inputs %.2f, output %.0f, constraints %.0f, similarity "
                    "%.2f)", g.tool, g.score, w.threshold, g.parts[0], g.parts[1], g.parts[2],
                    g.parts[3], g.parts[4]);
        c->res->outcome = TG_GEN_REUSE;
        free(c->res->tool);
        c->res->tool = xstrdup(g.tool);
        cJSON *call = cJSON_Parse(g.call);
        char *args = tg_json_print_compact(tg_json_get(call, "arguments"));
        c->res->next = xasprintf("toolgen run %s --input '%s'", g.tool, args);
        c->res->arguments = args;
        cJSON_Delete(call);
    } else if (g.tool && g.covered) {
        tg_gen_note(c, "gap: %s covers the reading but overlaps %.2f < %.2f: generating a new "
                    "one", g.tool, g.score, w.threshold);
    } else if (g.tool) {
        tg_gen_note(c, "gap: the closest tool, %s (overlap %.2f), does not cover the reading: "
                    "%s; generating a new one", g.tool, g.score, g.why);
    }
    tg_gap_result_release(&g);
    return 0;
}

/* The reading, shown before anything else is done with it. */
static void note_reading(gen_ctx *c, const tg_reading *r)
{
    char *text = tg_reading_text(r);
    tg_gen_note(c, "reading: %s", text);
    free(text);
}

/* ---- step 3: the contract ------------------------------------------------------------------ */

static int write_spec(gen_ctx *c, tg_err *err)
{
    char *ref = tg_prompt_read_file(c->repo, "reference/tool.manifest.yaml", &c->ref_spec_hash, err);
    if (!ref) {
        c->res->fail = TG_GENF_USAGE;
        return -1;
    }
    char *ij = c->intent ? tg_json_print_compact(c->intent) : xstrdup("{}");
    const char *vars[] = {"intent", c->o->intent, "intent_json", ij, "name", c->name,
                          "datasets", c->ds_json, "reference_manifest", ref, NULL};
    tg_llm_reply r;
    int rc = tg_gen_ask(c, &c->p_spec, vars, 0, "yaml", &c->spec_yaml, &r, err);
    free(ij);
    free(ref);
    if (rc != 0)
        return -1;
    c->model = xstrdup(r.model);
    tg_llm_reply_release(&r);
    tg_gen_note(c, "spec: %s/tool.manifest.yaml (status draft)", c->dir);
    return 0;
}

/* ---- the whole pipeline -------------------------------------------------------------------- */

static int load_prompts(gen_ctx *c, tg_err *err)
{
    static const char *const names[] = {"intent", "spec", "code", "repair"};
    tg_prompt *ps[] = {&c->p_intent, &c->p_spec, &c->p_code, &c->p_repair};
    for (int i = 0; i < 4; i++)
        if (tg_prompt_load(c->repo, names[i], ps[i], err) != 0) {
            c->res->fail = TG_GENF_USAGE;
            return -1;
        }
    return 0;
}

/* What the model's intent leaves open is named, not dropped: the request is refused. */
static int unclear_parts(gen_ctx *c, tg_err *err)
{
    const cJSON *u = cJSON_GetArrayItem(tg_json_get(c->intent, "unclear"), 0);
    if (!u)
        return 0;
    const char *text = cJSON_IsString(u) ? u->valuestring : tg_json_get_string(u, "text");
    c->res->fail = TG_GENF_USAGE;
    return tg_err_set(err, "the model could not map '%s' of the request to the data; say what "
                           "it means (a column or a value of %s) and run again",
                      text ? text : "?", c->nds ? c->ds[0].path : "the data");
}

static int run_llm(gen_ctx *c, tg_err *err)
{
    if (load_prompts(c, err) != 0 || extract_intent(c, err) != 0)
        return -1;
    tg_reading r;
    tg_reading_from_intent(c->intent, c->ds, c->nds, &r);
    note_reading(c, &r);
    int rc = unclear_parts(c, err);
    if (rc == 0)
        rc = detect_gap(c, &r, err);
    tg_reading_release(&r);
    if (rc != 0)
        return -1;
    if (c->res->outcome == TG_GEN_REUSE)
        return 0;
    if (choose_name(c, tg_json_get_string(c->intent, "name"), err) != 0 ||
        write_spec(c, err) != 0)
        return -1;
    return tg_gen_candidates(c, err);
}

static bool folder_exists(const gen_ctx *c, const char *name)
{
    char *dir = tg_path_join(c->repo->cfg.manifests_dir, name);
    struct stat st;
    bool found = fstatat(c->repo->root_fd, dir, &st, AT_SYMLINK_NOFOLLOW) == 0;
    free(dir);
    return found;
}

/*
 * The name derived from the plan leaves out the filters' values ("mean_fare_where_age" for
 * "age over 50" and "age is missing"): when a tool of that name exists (and was not reused: it
 * answers another request), t is compiled again as NAME_2, NAME_3, ... — the first free one.
 */
static tg_builtin_status free_name(gen_ctx *c, const char *const *answers, size_t n,
                                   tg_builtin_tool *t, tg_builtin_question *q, tg_err *err)
{
    if (!folder_exists(c, t->name))
        return TG_BUILTIN_OK;
    char *base = xstrdup(t->name);
    tg_builtin_status st = TG_BUILTIN_OK;
    for (int i = 2; i < 100 && st == TG_BUILTIN_OK; i++) {
        char *name = xasprintf("%.*s_%d", 60, base, i);
        if (!folder_exists(c, name)) {
            tg_builtin_tool_release(t);
            tg_builtin_question_release(q);
            st = tg_builtin_compile(c->o->intent, c->ds, c->nds, name, answers, n, t, q, err);
            free(name);
            break;
        }
        free(name);
    }
    free(base);
    return st;
}

/* The builtin's tool, with the user's answers: those given, then those the ask callback gets
 * (three questions at most). A question left open ends with TG_GENF_ASK. */
static int compile_builtin(gen_ctx *c, tg_builtin_tool *t, tg_err *err)
{
    tg_strv answers = {0};
    for (size_t i = 0; i < c->o->nassume; i++)
        tg_strv_push(&answers, c->o->assume[i]);
    tg_builtin_status st;
    tg_builtin_question q;
    for (int asked = 0;; asked++) {
        st = tg_builtin_compile(c->o->intent, c->ds, c->nds, c->o->name,
                                (const char *const *)answers.v, answers.n, t, &q, err);
        char *answer = NULL;
        if (st != TG_BUILTIN_ASK || asked >= 3 || !c->o->ask ||
            c->o->ask(c->o->ask_ud, &q, &answer) != 0 || !answer)
            break;
        tg_gen_note(c, "answer: '%s' means %s", q.about, answer);
        tg_strv_pushf(&answers, "%s=%s", q.about, answer);
        free(answer);
        tg_builtin_question_release(&q);
    }
    if (st == TG_BUILTIN_OK && !c->o->name)
        st = free_name(c, (const char *const *)answers.v, answers.n, t, &q, err);
    tg_strv_free(&answers);
    if (st == TG_BUILTIN_OK)
        return 0;
    if (st == TG_BUILTIN_ASK) {
        c->res->fail = TG_GENF_ASK;
        c->res->question = q;
        tg_err_set(err, "the request leaves one thing open: %s Answer it (toolgen new --assume "
                        "'%s=...'), or say it in the request", q.text, q.about);
        return -1;
    }
    tg_builtin_question_release(&q);
    c->res->fail = TG_GENF_USAGE;
    return -1;
}

/* The builtin compiles the request first: its plan is the reading gap detection checks. */
static int run_builtin(gen_ctx *c, tg_err *err)
{
    tg_builtin_tool t;
    if (compile_builtin(c, &t, err) != 0)
        return -1;
    note_reading(c, &t.reading);
    int rc = detect_gap(c, &t.reading, err);
    if (rc == 0 && c->res->outcome != TG_GEN_REUSE)
        rc = tg_gen_builtin(c, &t, err);
    tg_builtin_tool_release(&t);
    return rc;
}

static void ctx_free(gen_ctx *c)
{
    for (size_t i = 0; i < c->nds; i++)
        tg_dataset_release(&c->ds[i]);
    free(c->ds);
    free(c->ds_json);
    free(c->name);
    free(c->dir);
    free(c->spec_yaml);
    free(c->model);
    cJSON_Delete(c->intent);
    tg_prompt_release(&c->p_intent);
    tg_prompt_release(&c->p_spec);
    tg_prompt_release(&c->p_code);
    tg_prompt_release(&c->p_repair);
    tg_buf_free(&c->summary);
    tg_llm_client_release(&c->llm);
    tg_llm_config_release(&c->cfg);
}

int tg_gen_new(const tg_gen_opts *o, tg_gen_result *res, tg_err *err)
{
    memset(res, 0, sizeof *res);
    gen_ctx c = {.o = o, .repo = o->repo, .res = res};
    tg_buf_init(&c.summary, 512);
    int rc = -1;
    if (tg_llm_config_from_json(tg_config_get(&o->repo->cfg, "/llm"), o->provider, &c.cfg,
                                err) != 0) {
        res->fail = TG_GENF_USAGE;
        res->outcome = TG_GEN_FAILED;
        tg_buf_free(&c.summary);
        return -1;
    }
    tg_llm_client_init(&c.llm, &c.cfg, o->repo->root_fd, o->frozen);
    c.llm.no_cache = o->no_cache;
    c.llm.remote = o->llm_remote;
    c.llm.sampled = o->sampled;
    tg_gen_read_validation_config(&c);
    if (c.cfg.provider == TG_LLM_BUILTIN && o->ndata == 0) {
        res->fail = TG_GENF_USAGE;
        tg_err_set(err, "the builtin generator needs a data file: add --data FILE (e.g. --data "
                        "data/tips.csv), or configure a model (llm.provider, docs/generate.md)");
    } else if (read_datasets(&c, err) == 0) {
        rc = c.cfg.provider == TG_LLM_BUILTIN ? run_builtin(&c, err) : run_llm(&c, err);
    }
    if (rc != 0 && c.folder_made)
        tg_gen_folder_remove(c.repo, c.dir); /* nothing half-written stays */
    if (rc != 0)
        res->outcome = TG_GEN_FAILED;
    res->requests = c.llm.requests;
    res->cache_hits = c.llm.cache_hits;
    if (rc != 0 && res->fail == TG_GENF_SAMPLE) {
        res->sampling = c.llm.pending;
        c.llm.pending = NULL;
    }
    res->summary = tg_buf_steal(&c.summary);
    ctx_free(&c);
    return rc;
}

void tg_gen_result_release(tg_gen_result *r)
{
    free(r->tool);
    free(r->summary);
    free(r->next);
    free(r->arguments);
    cJSON_Delete(r->sampling);
    tg_builtin_question_release(&r->question);
    memset(r, 0, sizeof *r);
}
