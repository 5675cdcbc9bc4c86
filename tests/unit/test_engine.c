/*
 * test_engine.c — the build engine driven with stages of its own, no manifest at all: the
 * stages below are defined here, read src/<tool>.txt and write under out/ (the engine's own
 * roots) and pub/ (a shared root, like generated/), and the tools come from a tool source that
 * lists a fixed set of names. What it proves (docs/build.md "When a stage runs"):
 *
 *   - a second build does nothing; a changed input reruns exactly the stages that depend on it;
 *   - early cut-off: an upstream stage that reruns but writes the same bytes spares its
 *     downstream stages;
 *   - a failing stage skips its downstream stages, the others run; -k stops starting stages;
 *   - a forced build runs every stage, and hands the caller the outputs it wrote when asked;
 *   - a deleted output is recreated, a hand-edited one rewritten and reported;
 *   - a stage's previous outputs are handed back (mapped) only when intact, and one changed in
 *     place while the stage reads it fails the stage;
 *   - a key changes when, and only when, one of its declared inputs changes (source file,
 *     config value, data file, upstream output, version), seen through explain;
 *   - the environment's facts: one a stage declares is in its key, one it reports while
 *     running (tg_stage_env) is checked like a discovered file; a simulated upgrade of either
 *     reruns exactly the stages that depend on it, and explain names the fact and its value;
 *
 *   - a shared cache (tg_build_cache), here in memory: a second repository with the same
 *     sources builds with every stage a hit (no run() called) and the same outputs; a record
 *     naming a file outside the repository is not used;
 *
 *   - the engine works on the repository it is given, not on the current directory: two
 *     repositories built one after the other from a third directory each get their own outputs
 *     and state, and the third directory stays empty.
 *
 * The tests but the last chdir into the repository only for their own file helpers.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strvec.h"
#include "base/util.h"
#include "engine/build.h"
#include "testlib.h"

/* ---- the fake stages ------------------------------------------------------------------------ */

static pthread_mutex_t runs_mu = PTHREAD_MUTEX_INITIALIZER;
static tg_strv runs; /* "gen:a", "pub:b", "all": the stages that ran in the last build */

static void ran(const char *stage, const char *tool)
{
    pthread_mutex_lock(&runs_mu);
    tg_strv_push_owned(&runs, tool ? xasprintf("%s:%s", stage, tool) : xstrdup(stage));
    pthread_mutex_unlock(&runs_mu);
}

static void src_inputs(const tg_config *cfg, const char *tool, tg_strv *out)
{
    (void)cfg;
    tg_strv_push_owned(out, xasprintf("src/%s.txt", tool));
}

static void out_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    (void)cfg;
    (void)shared;
    tg_strv_push(own, "out");
}

static void pub_roots(const tg_config *cfg, tg_strv *shared, tg_strv *own)
{
    (void)cfg;
    (void)own;
    tg_strv_push(shared, "pub");
}

/* gen T: src/T.txt without its '#' lines → out/T.gen (a comment edit changes nothing). Fails
 * on a line FAIL. */
static tg_stage_status gen_run(tg_stage_run *r, tg_err *err)
{
    const char *tool = tg_stage_tool(r);
    ran("gen", tool);
    char *path = xasprintf("src/%s.txt", tool);
    size_t len = 0;
    char *text = tg_read_file_at(tg_stage_repo(r)->root_fd, path, 0, &len, err);
    free(path);
    if (!text)
        return TG_STAGE_FAILED;
    tg_buf out = TG_BUF_INIT;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#')
            tg_buf_printf(&out, "%s\n", line);
    free(text);
    if (out.data && strstr(out.data, "FAIL\n")) {
        tg_stage_problem(r, "src/%s.txt:1:1: FAIL", tool);
        tg_buf_free(&out);
        return tg_err_set(err, "gen %s: told to fail", tool);
    }
    tg_stage_output(r, xasprintf("out/%s.gen", tool), out.data ? out.data : xstrdup(""),
                    out.len);
    return TG_STAGE_DONE;
}

/* What the pub stages of a build share (tg_stage_shared): counted, and refused while
 * shared_refuse is set. */
static int shared_opens, shared_closes, shared_askers, shared_others;
static bool shared_refuse;
static void *shared_first; /* the object the first asker of a build got */

static void *shared_open(tg_stage_run *r, tg_err *err)
{
    (void)r;
    shared_opens++; /* serialised by the engine */
    if (shared_refuse) {
        tg_err_set(err, "refused");
        return NULL;
    }
    return xstrdup("shared");
}

static void shared_close(void *obj)
{
    shared_closes++;
    free(obj);
}

static const tg_stage_shared_def pub_shared = {shared_open, shared_close};

/* pub T: gen's output, framed → pub/T.txt */
static tg_stage_status pub_run(tg_stage_run *r, tg_err *err)
{
    const char *tool = tg_stage_tool(r);
    ran("pub", tool);
    void *obj = tg_stage_shared(r, &pub_shared, err);
    if (!obj)
        return TG_STAGE_FAILED;
    pthread_mutex_lock(&runs_mu);
    if (!shared_first)
        shared_first = obj;
    shared_others += obj != shared_first;
    shared_askers++;
    pthread_mutex_unlock(&runs_mu);
    size_t len = 0;
    char *gen = tg_stage_read_upstream(r, "gen", tool, &len, err);
    if (!gen)
        return TG_STAGE_FAILED;
    char *text = xasprintf("[%s]\n%s", tool, gen);
    free(gen);
    tg_stage_output(r, xasprintf("pub/%s.txt", tool), text, strlen(text));
    tg_stage_env(r, "pkg"); /* as the test stage reports a package the tool declares */
    return TG_STAGE_DONE;
}

/* With all_pages, all also writes pub/page/T.txt (T's gen output) for every tool, handing over
 * the page of a tool whose gen output it saw last time without its bytes when the engine
 * vouches for it (tg_stage_output_unchanged). */
static bool all_pages;
static int pages_kept, pages_written, undeclared_unchanged;

static void all_write_pages(tg_stage_run *r, const char *tool, const char *gen)
{
    if (tg_stage_upstream_unchanged(r, "pub", tool))
        undeclared_unchanged++; /* pub is not an upstream stage of all: never "unchanged" */
    if (tg_stage_upstream_unchanged(r, "gen", tool) &&
        tg_stage_output_unchanged(r, xasprintf("pub/page/%s.txt", tool))) {
        pages_kept++;
        return;
    }
    pages_written++;
    tg_stage_output(r, xasprintf("pub/page/%s.txt", tool), xstrdup(gen), strlen(gen));
}

/* With all_map, all maps its previous pub/all.txt (tg_stage_map_previous_output) into
 * all_mapped ("(none)" when the engine does not vouch for it); with all_poke, it then changes
 * that file in place, as an editor writing while the build runs would. */
static bool all_map, all_poke;
static char all_mapped[256];

static void all_map_previous(tg_stage_run *r)
{
    size_t len = 0;
    tg_err merr = {0};
    const char *prev = tg_stage_map_previous_output(r, "pub/all.txt", &len, &merr);
    snprintf(all_mapped, sizeof all_mapped, "%.*s", prev ? (int)len : 6, prev ? prev : "(none)");
    if (prev && all_poke) {
        FILE *f = fopen("pub/all.txt", "r+");
        CHECK(f && fputc('A', f) != EOF && fclose(f) == 0, "poke pub/all.txt");
    }
}

/* all: every tool's gen output → pub/all.txt */
static tg_stage_status all_run(tg_stage_run *r, tg_err *err)
{
    ran("all", NULL);
    if (all_map)
        all_map_previous(r);
    const char *const *tools;
    size_t n = tg_stage_tools(r, &tools);
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        char *gen = tg_stage_read_upstream(r, "gen", tools[i], &len, err);
        if (!gen) {
            tg_buf_free(&b);
            return TG_STAGE_FAILED;
        }
        tg_buf_printf(&b, "%s: %s", tools[i], gen);
        if (all_pages)
            all_write_pages(r, tools[i], gen);
        free(gen);
    }
    tg_stage_output(r, xstrdup("pub/all.txt"), b.data ? b.data : xstrdup(""), b.len);
    return TG_STAGE_DONE;
}

static const char *const up_gen[] = {"gen", NULL};
static const char *const gen_config[] = {"/project/description", NULL};
static const char *const gen_data[] = {"fake.dat", NULL};
static const char *const gen_env[] = {"interp", NULL};

/* not const: the key test bumps gen's version */
static tg_stage_def stage_gen = {
    .id = "gen",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .config = gen_config,
    .data = gen_data,
    .env = gen_env,
    .inputs = src_inputs,
    .roots = out_roots,
    .run = gen_run,
};
/* pub's estimate: pub_cost[T - 'a'], counted (0 for all: every stage is as cheap as gen). */
static double pub_cost[3];
static int estimates_asked;

static double pub_estimate(tg_stage_run *r)
{
    const char *tool = tg_stage_tool(r);
    pthread_mutex_lock(&runs_mu);
    estimates_asked++;
    pthread_mutex_unlock(&runs_mu);
    return tool[0] >= 'a' && tool[0] <= 'c' ? pub_cost[tool[0] - 'a'] : 0;
}

static const tg_stage_def stage_pub = {
    .id = "pub",
    .version = "1",
    .scope = TG_STAGE_TOOL,
    .upstream = up_gen,
    .roots = pub_roots,
    .run = pub_run,
    .estimate = pub_estimate,
};
static const tg_stage_def stage_all = {
    .id = "all",
    .version = "1",
    .scope = TG_STAGE_REPO,
    .upstream = up_gen,
    .roots = pub_roots,
    .run = all_run,
};
static const tg_stage_def *const fake_stages[] = {&stage_gen, &stage_pub, &stage_all, NULL};

/* ---- the tool source: a fixed list, src/<tool>.txt marks a tool ---------------------------- */

static int list_tools(const tg_repo *repo, tg_strv *names, tg_err *err)
{
    (void)repo;
    (void)err;
    static const char *const all[] = {"c", "a", "b", "nofile"};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        tg_strv_push(names, all[i]);
    return 0;
}

static char *tool_marker(const tg_config *cfg, const char *name)
{
    (void)cfg;
    return xasprintf("src/%s.txt", name);
}

static const tg_tool_source fake_tools = {.list = list_tools, .marker = tool_marker};

/* ---- the environment: two facts whose values a test changes, as an upgrade would ---------- */

static const char *env_interp = "1.0", *env_pkg = "2.0";
static int env_opens, env_closes;

static void *env_open(const tg_repo *repo, bool writable)
{
    (void)repo;
    (void)writable;
    env_opens++;
    return &env_opens;
}

static void env_fact(void *ctx, const char *name, tg_buf *value)
{
    CHECK(ctx == &env_opens, "the context of open");
    tg_buf_puts(value, !strcmp(name, "interp") ? env_interp
                       : !strcmp(name, "pkg")  ? env_pkg
                                               : "unknown");
}

static void env_close(void *ctx)
{
    (void)ctx;
    env_closes++;
}

static const tg_build_env fake_env = {.open = env_open, .fact = env_fact, .close = env_close};

/* ---- a shared cache in memory ------------------------------------------------------------- */

typedef struct mem_ent {
    char kind[8];
    tg_hash key;
    tg_cache_record rec;
} mem_ent;

static pthread_mutex_t mem_mu = PTHREAD_MUTEX_INITIALIZER;
static mem_ent mem[64];
static size_t nmem;
static bool use_cache; /* the next build_with: with the cache */

static void rec_copy(tg_cache_record *to, const tg_cache_record *from)
{
    to->nfiles = from->nfiles;
    to->files = xcalloc(from->nfiles + 1, sizeof *to->files);
    for (size_t i = 0; i < from->nfiles; i++) {
        to->files[i].path = xstrdup(from->files[i].path);
        to->files[i].data = xmalloc(from->files[i].len + 1);
        memcpy(to->files[i].data, from->files[i].data, from->files[i].len);
        to->files[i].data[from->files[i].len] = '\0';
        to->files[i].len = from->files[i].len;
    }
    to->text = from->text ? xstrdup(from->text) : NULL;
}

static mem_ent *mem_find(const char *kind, tg_hash key)
{
    for (size_t i = 0; i < nmem; i++)
        if (!strcmp(mem[i].kind, kind) && tg_hash_eq(mem[i].key, key))
            return &mem[i];
    return NULL;
}

static tg_cache_status mem_get(void *ud, const char *kind, tg_hash key, tg_cache_record *out,
                               tg_err *err)
{
    (void)ud;
    (void)err;
    pthread_mutex_lock(&mem_mu);
    mem_ent *m = mem_find(kind, key);
    if (m)
        rec_copy(out, &m->rec);
    pthread_mutex_unlock(&mem_mu);
    return m ? TG_CACHE_HIT : TG_CACHE_MISS;
}

static tg_cache_status mem_put(void *ud, const char *kind, tg_hash key,
                               const tg_cache_record *rec, tg_err *err)
{
    (void)ud;
    (void)err;
    pthread_mutex_lock(&mem_mu);
    mem_ent *m = mem_find(kind, key);
    if (!m && nmem < sizeof mem / sizeof *mem) {
        m = &mem[nmem++];
        snprintf(m->kind, sizeof m->kind, "%s", kind);
        m->key = key;
    } else if (m) {
        tg_cache_record_free(&m->rec);
    }
    if (m)
        rec_copy(&m->rec, rec);
    pthread_mutex_unlock(&mem_mu);
    return TG_CACHE_HIT;
}

static const tg_build_cache mem_cache = {.get = mem_get, .put = mem_put};

/* ---- running a build ------------------------------------------------------------------------ */

typedef struct result {
    tg_build_status status;
    tg_build_stats st;
    tg_strv events; /* "START gen a", "CUTOFF pub a", "PLAN run gen b: <why>", "WARNING ..." */
    char ran[256];  /* the stages that ran, sorted, space-separated */
    char order[256]; /* the same in the order they ran */
} result;

static void on_event(void *ud, const tg_build_event *ev)
{
    static const char *const kinds[] = {"START",   "DONE",    "FAILED",  "CUTOFF",
                                        "SKIPPED", "PLAN",    "REMOVED", "KEPT",
                                        "WARNING", "PROBLEM", "OUTPUT"};
    static const char *const plans[] = {"up-to-date", "run", "maybe", "remove"};
    result *res = ud;
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, kinds[ev->kind]);
    if (ev->kind == TG_EV_PLAN)
        tg_buf_printf(&b, " %s", plans[ev->plan]);
    if (ev->stage)
        tg_buf_printf(&b, " %s", ev->stage);
    if (ev->tool)
        tg_buf_printf(&b, " %s", ev->tool);
    if (ev->text && ev->kind != TG_EV_DONE)
        tg_buf_printf(&b, ": %s", ev->text);
    if (ev->kind == TG_EV_OUTPUT)
        tg_buf_printf(&b, " = %.*s", ev->data ? (int)ev->len : 4, ev->data ? ev->data : "NULL");
    tg_strv_push(&res->events, b.data);
    tg_buf_free(&b);
}

static void result_free(result *res)
{
    tg_build_stats_free(&res->st);
    tg_strv_free(&res->events);
}

static bool has_event(const result *res, const char *prefix)
{
    for (size_t i = 0; i < res->events.n; i++)
        if (strncmp(res->events.v[i], prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

static bool listed(const tg_strv *v, const char *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i], s) == 0)
            return true;
    return false;
}

static const char *build_dir = "."; /* the repository build_with builds */
static bool force_next;              /* the next build_with: force and report_outputs */

static void build_with(result *res, tg_build_mode mode, int keep_going, int jobs)
{
    *res = (result){0};
    tg_strv_free(&runs);
    tg_repo repo;
    tg_err oerr = {0};
    /* opened per build, as each toolgen process does: toolgen.yaml edits between builds count */
    if (tg_repo_open(&repo, build_dir, &oerr) != 0) {
        CHECK(false, "open %s: %s", build_dir, oerr.msg);
        res->status = TG_BUILD_USAGE;
        return;
    }
    tg_build_opts o = {.repo = &repo,
                       .stages = fake_stages,
                       .tool_source = &fake_tools,
                       .env = &fake_env,
                       .cache = use_cache ? &mem_cache : NULL,
                       .mode = mode,
                       .jobs = jobs,
                       .keep_going = keep_going,
                       .force = force_next,
                       .report_outputs = force_next,
                       .on_event = on_event,
                       .ud = res};
    force_next = false;
    tg_err err = {0};
    res->status = tg_build(&o, &res->st, &err);
    tg_repo_release(&repo);
    if (res->status != TG_BUILD_OK && res->status != TG_BUILD_FAILED)
        fprintf(stderr, "build: status %d: %s\n", res->status, err.msg);
    size_t off = 0;
    for (size_t i = 0; i < runs.n && off < sizeof res->order; i++)
        off += (size_t)snprintf(res->order + off, sizeof res->order - off, "%s%s", i ? " " : "",
                                runs.v[i]);
    tg_strv_sort(&runs);
    off = 0;
    for (size_t i = 0; i < runs.n && off < sizeof res->ran; i++)
        off += (size_t)snprintf(res->ran + off, sizeof res->ran - off, "%s%s", i ? " " : "",
                                runs.v[i]);
}

static void build(result *res)
{
    build_with(res, TG_MODE_BUILD, 0, 1);
}

static void write_text(const char *path, const char *text)
{
    tg_err err = {0};
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        tg_mkdirs(dir, &err);
    }
    free(dir);
    SETUP(tg_write_file_atomic(path, text, strlen(text), &err) == 0, "write %s: %s", path,
          err.msg);
}

static char *read_text(const char *path)
{
    tg_err err = {0};
    size_t len;
    return tg_read_file(path, 0, &len, &err);
}

#define CHECK_RAN(res, want)                                                                \
    CHECK(strcmp((res).ran, want) == 0, "ran \"%s\", expected \"%s\"", (res).ran, want)

/* ---- incremental builds --------------------------------------------------------------------- */

static void test_incremental(void)
{
    write_text("src/a.txt", "alpha\n");
    write_text("src/b.txt", "beta\n");
    write_text("src/c.txt", "gamma\n");
    result r;
    build_with(&r, TG_MODE_BUILD, 0, 4);
    CHECK(r.status == TG_BUILD_OK, "first build: %d", r.status);
    CHECK_RAN(r, "all gen:a gen:b gen:c pub:a pub:b pub:c");
    CHECK(r.st.tools == 3, "%d tools ('nofile' has no marker)", r.st.tools);
    char *pub = read_text("pub/a.txt"), *all = read_text("pub/all.txt");
    CHECK(pub && strcmp(pub, "[a]\nalpha\n") == 0, "pub/a.txt: %s", pub ? pub : "(none)");
    CHECK(all && strcmp(all, "a: alpha\nb: beta\nc: gamma\n") == 0, "pub/all.txt: %s",
          all ? all : "(none)");
    free(pub);
    free(all);
    CHECK(r.st.outputs.n == 4 && listed(&r.st.outputs, "pub/all.txt") &&
              !listed(&r.st.outputs, "out/a.gen"),
          "outputs list the shared root only (%zu)", r.st.outputs.n);
    result_free(&r);

    build(&r);
    CHECK(r.status == TG_BUILD_OK && r.st.ran == 0 && r.st.up_to_date == 7,
          "no-op build: ran %d, up to date %d", r.st.ran, r.st.up_to_date);
    CHECK_RAN(r, "");
    result_free(&r);

    /* a changed input reruns exactly what depends on it */
    write_text("src/b.txt", "BETA\n");
    build(&r);
    CHECK_RAN(r, "all gen:b pub:b");
    CHECK(r.st.up_to_date == 4, "up to date %d", r.st.up_to_date);
    result_free(&r);

    /* early cut-off: gen a reruns, writes the same bytes, and spares pub a and all */
    write_text("src/a.txt", "# a comment\nalpha\n");
    build(&r);
    CHECK_RAN(r, "gen:a");
    CHECK(r.st.cut_off == 2 && has_event(&r, "CUTOFF pub a") && has_event(&r, "CUTOFF all"),
          "cut off %d", r.st.cut_off);
    result_free(&r);
}

/* ---- outputs handed over without their bytes ---------------------------------------------- */

static void check_page(const char *tool, const char *want)
{
    char *path = xasprintf("pub/page/%s.txt", tool), *got = read_text(path);
    CHECK(got && strcmp(got, want) == 0, "%s: \"%s\", expected \"%s\"", path,
          got ? got : "(none)", want);
    free(got);
    free(path);
}

static void build_pages(result *r)
{
    pages_kept = pages_written = undeclared_unchanged = 0;
    build(r);
    CHECK(r->status == TG_BUILD_OK, "build: %d", r->status);
    CHECK(undeclared_unchanged == 0, "an undeclared upstream was called unchanged");
}

static void test_unchanged_outputs(void)
{
    result r;
    all_pages = true;
    write_text("src/c.txt", "GAMMA\n"); /* all runs; its record has no page yet: all written */
    build_pages(&r);
    CHECK(pages_kept == 0 && pages_written == 3, "new pages: kept %d, written %d", pages_kept,
          pages_written);
    check_page("a", "alpha\n");
    result_free(&r);

    write_text("src/b.txt", "beta2\n"); /* the pages of a and c are vouched for */
    build_pages(&r);
    CHECK(pages_kept == 2 && pages_written == 1, "one change: kept %d, written %d", pages_kept,
          pages_written);
    check_page("a", "alpha\n");
    check_page("b", "beta2\n");
    check_page("c", "GAMMA\n");
    result_free(&r);
    build_pages(&r);
    CHECK_RAN(r, "");
    result_free(&r);

    /* a hand edit since: the plan did not find the outputs intact, nothing is vouched for */
    write_text("pub/page/a.txt", "hand edit\n");
    write_text("src/c.txt", "gamma3\n");
    build_pages(&r);
    CHECK(pages_kept == 0 && pages_written == 3, "after a hand edit: kept %d, written %d",
          pages_kept, pages_written);
    check_page("a", "alpha\n");
    check_page("c", "gamma3\n");
    CHECK(has_event(&r, "WARNING all: pub/page/a.txt was edited by hand"), "no warning");
    result_free(&r);

    /* a deleted page: the same */
    remove("pub/page/b.txt");
    write_text("src/c.txt", "gamma\n");
    build_pages(&r);
    CHECK(pages_kept == 0 && pages_written == 3, "after a deletion: kept %d, written %d",
          pages_kept, pages_written);
    check_page("b", "beta2\n");
    result_free(&r);

    /* back to the state the later tests expect: no pages (removed as no longer produced) */
    all_pages = false;
    write_text("src/b.txt", "BETA\n");
    build(&r);
    CHECK(r.status == TG_BUILD_OK && access("pub/page/a.txt", F_OK) != 0, "pages not removed");
    result_free(&r);
}

/* ---- previous outputs mapped ---------------------------------------------------------------- */

static void test_mapped_outputs(void)
{
    result r;
    all_map = true;
    write_text("src/b.txt", "beta\n"); /* vouched for: the bytes the last run wrote */
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "build: %d", r.status);
    CHECK(strcmp(all_mapped, "a: alpha\nb: BETA\nc: gamma\n") == 0, "mapped \"%s\"",
          all_mapped);
    result_free(&r);

    /* edited by hand before the build: not vouched for, overwritten with a warning */
    write_text("pub/all.txt", "hand edit\n");
    write_text("src/b.txt", "beta2\n");
    build(&r);
    CHECK(r.status == TG_BUILD_OK && strcmp(all_mapped, "(none)") == 0, "mapped \"%s\"",
          all_mapped);
    CHECK(has_event(&r, "WARNING all: pub/all.txt was edited by hand"), "no warning");
    result_free(&r);

    /* changed in place while the stage read it: the stage fails, nothing is built on it, and
     * the next build overwrites the edit with a warning */
    all_poke = true;
    write_text("src/b.txt", "beta3\n");
    build(&r);
    CHECK(r.status == TG_BUILD_FAILED && has_event(&r, "FAILED all: pub/all.txt: changed while "
                                                       "the build read it"),
          "poked: status %d", r.status);
    result_free(&r);
    all_poke = false;
    build(&r);
    CHECK(r.status == TG_BUILD_OK && has_event(&r, "WARNING all: pub/all.txt was edited by hand"),
          "after the poke: status %d", r.status);
    char *all = read_text("pub/all.txt");
    CHECK(all && strcmp(all, "a: alpha\nb: beta3\nc: gamma\n") == 0, "pub/all.txt: %s",
          all ? all : "(none)");
    free(all);
    result_free(&r);

    all_map = false;
    write_text("src/b.txt", "BETA\n");
    build(&r);
    result_free(&r);
}

/* ---- failures and -k ------------------------------------------------------------------------ */

static void test_failures(void)
{
    result r;
    /* gen c fails: pub c and all are skipped, a's stages run (keep going: never stop) */
    write_text("src/a.txt", "alpha 2\n");
    write_text("src/c.txt", "FAIL\n");
    build(&r);
    CHECK(r.status == TG_BUILD_FAILED, "status %d", r.status);
    CHECK_RAN(r, "gen:a gen:c pub:a");
    CHECK(r.st.failed == 1 && r.st.skipped == 2, "failed %d skipped %d", r.st.failed,
          r.st.skipped);
    CHECK(has_event(&r, "FAILED gen c: src/c.txt:1:1: FAIL") && has_event(&r, "SKIPPED pub c") &&
              has_event(&r, "SKIPPED all"),
          "failure events");
    CHECK(r.st.failed_ids.n == 1 && strcmp(r.st.failed_ids.v[0], "gen c") == 0, "failed ids");
    result_free(&r);

    /* -k 1: after the first failure no stage starts. One job: gen a, then gen c (which fails),
     * and pub a, queued behind it, never starts. */
    write_text("src/a.txt", "alpha 3\n");
    build_with(&r, TG_MODE_BUILD, 1, 1);
    CHECK(r.status == TG_BUILD_FAILED, "status %d", r.status);
    CHECK_RAN(r, "gen:a gen:c");
    CHECK(r.st.not_started == 1, "not started %d", r.st.not_started);
    result_free(&r);

    /* fixed: what did not run catches up; gen c's input is back to what it last built from
     * (a failed run records nothing), so gen c and pub c are up to date */
    write_text("src/c.txt", "gamma\n");
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "status %d", r.status);
    CHECK_RAN(r, "all pub:a");
    result_free(&r);
}

/* ---- a forced build that reports its outputs ---------------------------------------------- */

static void test_forced(void)
{
    result r;
    build(&r); /* up to date first */
    CHECK_RAN(r, "");
    CHECK(!has_event(&r, "OUTPUT"), "outputs reported though not asked for");
    result_free(&r);

    force_next = true;
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "forced build: %d", r.status);
    CHECK_RAN(r, "all gen:a gen:b gen:c pub:a pub:b pub:c");
    CHECK(r.st.cut_off == 0 && r.st.up_to_date == 0, "forced: cut off %d, up to date %d",
          r.st.cut_off, r.st.up_to_date);
    CHECK(has_event(&r, "OUTPUT gen a: out/a.gen = alpha 3\n") &&
              has_event(&r, "OUTPUT pub b: pub/b.txt = [b]\nBETA\n") &&
              has_event(&r, "OUTPUT all: pub/all.txt = a: alpha 3\nb: BETA\nc: gamma\n"),
          "the outputs of the stages that ran are reported with their bytes");
    result_free(&r);

    /* a failed stage reports nothing it did not write */
    write_text("src/c.txt", "FAIL\n");
    force_next = true;
    build(&r);
    CHECK(r.status == TG_BUILD_FAILED, "forced failing build: %d", r.status);
    CHECK(!has_event(&r, "OUTPUT gen c") && has_event(&r, "OUTPUT gen a"),
          "a failed stage's outputs are not reported");
    result_free(&r);
    write_text("src/c.txt", "gamma\n");
    build(&r);
    result_free(&r);
}

/* ---- what the stages of a build share ------------------------------------------------------ */

static void test_shared_objects(void)
{
    result r;
    build(&r); /* up to date first */
    result_free(&r);
    shared_opens = shared_closes = shared_askers = shared_others = 0;
    shared_first = NULL;
    force_next = true;
    build_with(&r, TG_MODE_BUILD, 0, 3);
    CHECK(r.status == TG_BUILD_OK && shared_askers == 3, "three pub stages asked: %d",
          shared_askers);
    CHECK(shared_opens == 1 && shared_others == 0,
          "one object made for the build (%d made), every stage got it (%d others)",
          shared_opens, shared_others);
    CHECK(shared_closes == 1, "closed once, after the build: %d", shared_closes);
    result_free(&r);

    /* an object that cannot be made: each asker fails with the reason and the next tries again */
    shared_opens = shared_closes = 0;
    shared_refuse = true;
    force_next = true;
    build_with(&r, TG_MODE_BUILD, 0, 1);
    CHECK(r.status == TG_BUILD_FAILED && shared_opens == 3 && shared_closes == 0,
          "refused: build %d, %d tries, %d closed", r.status, shared_opens, shared_closes);
    CHECK(has_event(&r, "FAILED pub a: refused"),
          "the stage failed with the reason");
    result_free(&r);
    shared_refuse = false;
    force_next = true; /* the failed stages' inputs did not change: their last outputs stand */
    build(&r);
    CHECK(r.status == TG_BUILD_OK && shared_opens == 4 && shared_closes == 1,
          "made again by the next build: %d tries, %d closed", shared_opens, shared_closes);
    result_free(&r);
}

/* ---- the order of the ready stages ---------------------------------------------------------- */

static void test_scheduling(void)
{
    result r;
    build(&r); /* up to date first */
    result_free(&r);
    /* without estimates (all 0) one job runs the stages in the order they became ready */
    force_next = true;
    build_with(&r, TG_MODE_BUILD, 0, 1);
    CHECK(strcmp(r.order, "gen:a gen:b gen:c pub:a pub:b pub:c all") == 0,
          "first ready, first run: %s", r.order);
    result_free(&r);

    /* the highest estimate first, and the stage before it too: gen T waits for nothing, and its
     * next stage pub T waits for gen T alone, so gen T takes pub T's estimate */
    pub_cost[0] = 1, pub_cost[1] = 30, pub_cost[2] = 20;
    estimates_asked = 0;
    force_next = true;
    build_with(&r, TG_MODE_BUILD, 0, 1);
    CHECK(r.status == TG_BUILD_OK, "build with estimates: %d", r.status);
    CHECK(strcmp(r.order, "gen:b pub:b gen:c pub:c gen:a pub:a all") == 0,
          "the longest chain first: %s", r.order);
    CHECK(estimates_asked == 3, "each pub's estimate asked once (for its gen, kept for it): %d",
          estimates_asked);
    result_free(&r);

    /* an estimate orders the build and changes nothing it writes */
    char *all = read_text("pub/all.txt");
    CHECK(all && strcmp(all, "a: alpha 3\nb: BETA\nc: gamma\n") == 0, "pub/all.txt: %s",
          all ? all : "(none)");
    free(all);
    build(&r);
    CHECK_RAN(r, "");
    result_free(&r);

    pub_cost[0] = pub_cost[1] = pub_cost[2] = 0;
}

/* ---- outputs deleted or edited by hand ------------------------------------------------------ */

static void test_outputs(void)
{
    result r;
    CHECK(unlink("pub/b.txt") == 0, "unlink");
    build(&r);
    CHECK_RAN(r, "pub:b");
    CHECK(listed(&r.st.recreated, "pub/b.txt"), "recreated not reported");
    char *text = read_text("pub/b.txt");
    CHECK(text && strcmp(text, "[b]\nBETA\n") == 0, "pub/b.txt: %s", text ? text : "(none)");
    free(text);
    result_free(&r);

    write_text("pub/a.txt", "edited by hand\n");
    build(&r);
    CHECK_RAN(r, "pub:a");
    CHECK(listed(&r.st.edited, "pub/a.txt"), "edit not reported");
    CHECK(has_event(&r, "WARNING pub a: pub/a.txt was edited by hand"), "no warning");
    text = read_text("pub/a.txt");
    CHECK(text && strcmp(text, "[a]\nalpha 3\n") == 0, "not rewritten: %s", text ? text : "");
    free(text);
    result_free(&r);

    /* a file of the shared root toolgen did not write is kept by clean; everything else goes */
    write_text("pub/mine.txt", "mine\n");
    tg_repo repo;
    tg_err err = {0};
    SETUP(tg_repo_open(&repo, ".", &err) == 0, "open: %s", err.msg);
    tg_build_opts o = {.repo = &repo, .stages = fake_stages, .on_event = on_event, .ud = &r};
    r = (result){0};
    CHECK(tg_build_clean(&o, &r.st, &err) == TG_BUILD_OK, "clean: %s", err.msg);
    tg_repo_release(&repo);
    CHECK(r.st.kept == 1 && has_event(&r, "KEPT: pub/mine.txt"), "kept %d", r.st.kept);
    CHECK(r.st.removed == 7, "removed %d", r.st.removed);
    CHECK(!tg_is_dir("out") && !tg_is_dir(".toolgen") && tg_is_file("pub/mine.txt"),
          "clean left the wrong things");
    result_free(&r);
    unlink("pub/mine.txt");
    rmdir("pub");
}

/* ---- keys ----------------------------------------------------------------------------------- */

/* Explain after a change: the stages it would run ("gen:a pub:a ...", sorted). */
static void explain(char *out, size_t size, const char *why_has)
{
    result r;
    build_with(&r, TG_MODE_EXPLAIN, 0, 1);
    tg_strv would = TG_STRV_INIT;
    bool why_found = why_has == NULL;
    for (size_t i = 0; i < r.events.n; i++) {
        const char *e = r.events.v[i];
        if (strncmp(e, "PLAN run ", 9) != 0 && strncmp(e, "PLAN maybe ", 11) != 0)
            continue;
        const char *s = strchr(e + 5, ' ') + 1;
        size_t n = strcspn(s, ":");
        char *id = xstrndup(s, n);
        char *sp = strchr(id, ' ');
        if (sp)
            *sp = ':';
        tg_strv_push_owned(&would, id);
        if (why_has && strstr(e, why_has))
            why_found = true;
    }
    tg_strv_sort(&would);
    size_t off = 0;
    out[0] = '\0';
    for (size_t i = 0; i < would.n && off < size; i++)
        off += (size_t)snprintf(out + off, size - off, "%s%s", i ? " " : "", would.v[i]);
    CHECK(why_found, "no reason mentions \"%s\"", why_has);
    tg_strv_free(&would);
    result_free(&r);
}

static void expect_plan(const char *what, const char *want, const char *why_has)
{
    char got[256];
    explain(got, sizeof got, why_has);
    CHECK(strcmp(got, want) == 0, "%s: would run \"%s\", expected \"%s\"", what, got, want);
}

static void settle(void)
{
    result r;
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "build: %d", r.status);
    result_free(&r);
    expect_plan("after a build", "", NULL);
}

static void test_keys(const char *datadir)
{
    write_text("toolgen.yaml", "project:\n  description: one\n  author: me\n");
    char *dat = tg_path_join(datadir, "fake.dat");
    write_text(dat, "data 1\n");
    settle();

    /* not inputs: an undeclared config value, a file nobody declared, key order */
    write_text("toolgen.yaml", "project:\n  description: one\n  author: someone else\n");
    expect_plan("undeclared config key", "", NULL);
    write_text("toolgen.yaml", "project:\n  author: someone else\n  description: one\n");
    expect_plan("reordered keys", "", NULL);
    write_text("src/unrelated.txt", "x\n");
    expect_plan("undeclared file", "", NULL);

    /* inputs: each one changes the key of gen (every tool), its downstream may follow */
    write_text("toolgen.yaml", "project:\n  description: two\n  author: me\n");
    expect_plan("declared config value", "all gen:a gen:b gen:c pub:a pub:b pub:c",
                "toolgen.yaml /project/description changed");
    settle();
    write_text(dat, "data 2\n");
    expect_plan("declared data file", "all gen:a gen:b gen:c pub:a pub:b pub:c",
                "toolgen's fake.dat changed");
    settle();
    write_text("src/b.txt", "beta 2\n");
    expect_plan("source file", "all gen:b pub:b", "src/b.txt changed");
    settle();
    stage_gen.version = "2";
    expect_plan("version", "all gen:a gen:b gen:c pub:a pub:b pub:c", "the stage's version");
    settle();
    /* an upstream output: pub's key holds gen's outputs, so a hand edit of out/a.gen reruns gen
     * (rewriting it), and pub only if gen's output then differs from what pub was built from */
    write_text("out/a.gen", "tampered\n");
    expect_plan("edited upstream output", "all gen:a pub:a", "out/a.gen was edited by hand");
    result r;
    build(&r);
    CHECK_RAN(r, "gen:a");
    result_free(&r);
    free(dat);
}

static void test_env(void)
{
    settle();
    env_interp = "1.1"; /* a fact in gen's key */
    expect_plan("declared fact", "all gen:a gen:b gen:c pub:a pub:b pub:c",
                "the environment changed: interp is now 1.1");
    settle();
    env_pkg = "3.0"; /* a fact pub reported while running */
    expect_plan("discovered fact", "pub:a pub:b pub:c", "the environment changed: pkg is now 3.0");
    settle();
    CHECK(env_opens > 0 && env_opens == env_closes, "opened %d, closed %d", env_opens,
          env_closes);
}

/* ---- two repositories, built from a third directory --------------------------------------- */

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void expect_text(const char *dir, const char *rel, const char *want)
{
    char *path = tg_path_join(dir, rel);
    char *text = read_text(path);
    if (want)
        CHECK(text && strcmp(text, want) == 0, "%s: \"%s\", expected \"%s\"", path,
              text ? text : "(none)", want);
    else
        CHECK(!text, "%s exists", path);
    free(text);
    free(path);
}

static void test_shared_cache(const char *tmpdir)
{
    char *one = tg_path_join(tmpdir, "cache1"), *two = tg_path_join(tmpdir, "cache2");
    char *three = tg_path_join(tmpdir, "cache3"), *p;
    const char *dirs[3] = {one, two, three};
    for (int d = 0; d < 3; d++) {
        write_text(p = tg_path_join(dirs[d], "src/a.txt"), "alpha\n"), free(p);
        write_text(p = tg_path_join(dirs[d], "src/b.txt"), "beta\n"), free(p);
    }
    use_cache = true;
    result r;
    build_dir = one;
    build(&r);
    CHECK(r.status == TG_BUILD_OK && r.st.cache_hits == 0, "first: %d", r.status);
    CHECK_RAN(r, "all gen:a gen:b pub:a pub:b");
    result_free(&r);
    size_t stored = nmem;
    CHECK(stored == 10, "a deps and a result record per stage: %zu", stored);

    build_dir = two; /* the same sources elsewhere: every stage a hit, nothing run */
    build(&r);
    CHECK(r.status == TG_BUILD_OK && r.st.cache_hits == 5, "hits: %d", r.st.cache_hits);
    CHECK_RAN(r, "");
    CHECK(r.st.ran == 5, "hits count as stages that ran: %d", r.st.ran);
    result_free(&r);
    expect_text(two, "pub/all.txt", "a: alpha\nb: beta\n");
    expect_text(two, "pub/a.txt", "[a]\nalpha\n");
    build(&r);
    CHECK_RAN(r, "");
    CHECK(r.st.ran == 0, "then up to date: %d", r.st.ran);
    result_free(&r);
    CHECK(nmem == stored, "hits are not uploaded again");

    /* a deps record naming a file outside the repository is not followed */
    for (size_t i = 0; i < nmem; i++)
        if (!strcmp(mem[i].kind, "deps")) {
            free(mem[i].rec.text);
            mem[i].rec.text = xstrdup("f /etc/passwd\n");
        }
    build_dir = three;
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "three: %d", r.status);
    CHECK_RAN(r, "all gen:a gen:b pub:a pub:b");
    CHECK(has_event(&r, "WARNING gen a: the remote cache's record names a file outside"),
          "warned");
    result_free(&r);
    use_cache = false;
    build_dir = ".";
    for (size_t i = 0; i < nmem; i++)
        tg_cache_record_free(&mem[i].rec);
    nmem = 0;
    free(one);
    free(two);
    free(three);
}

static void test_two_repos(const char *tmpdir)
{
    char *one = tg_path_join(tmpdir, "one"), *two = tg_path_join(tmpdir, "two");
    char *elsewhere = tg_path_join(tmpdir, "elsewhere");
    char *p;
    write_text(p = tg_path_join(one, "src/a.txt"), "one\n"), free(p);
    write_text(p = tg_path_join(two, "src/a.txt"), "two\n"), free(p);
    write_text(p = tg_path_join(two, "src/b.txt"), "two b\n"), free(p);
    mkdir(elsewhere, 0755);
    SETUP(chdir(elsewhere) == 0, "chdir %s", elsewhere);

    result r;
    build_dir = one;
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "build one: %d", r.status);
    CHECK_RAN(r, "all gen:a pub:a");
    result_free(&r);
    build_dir = two;
    build(&r);
    CHECK(r.status == TG_BUILD_OK, "build two: %d", r.status);
    CHECK_RAN(r, "all gen:a gen:b pub:a pub:b");
    result_free(&r);

    expect_text(one, "pub/a.txt", "[a]\none\n");
    expect_text(one, "pub/b.txt", NULL);
    expect_text(one, "pub/all.txt", "a: one\n");
    expect_text(two, "pub/a.txt", "[a]\ntwo\n");
    expect_text(two, "pub/all.txt", "a: two\nb: two b\n");
    p = tg_path_join(one, ".toolgen/log");
    CHECK(tg_is_file(p), "no state log in %s", one);
    free(p);
    CHECK(entries(elsewhere) == 0, "the build wrote into the current directory");

    /* each repository's state is its own: both are up to date, a change in one rebuilds one */
    build_dir = one;
    build(&r);
    CHECK_RAN(r, "");
    result_free(&r);
    write_text(p = tg_path_join(two, "src/b.txt"), "two b 2\n"), free(p);
    build(&r);
    CHECK_RAN(r, "");
    result_free(&r);
    build_dir = two;
    build(&r);
    CHECK_RAN(r, "all gen:b pub:b");
    result_free(&r);
    CHECK(entries(elsewhere) == 0, "the build wrote into the current directory");
    build_dir = ".";
    free(one);
    free(two);
    free(elsewhere);
}

int main(void)
{
    char cwd[1024], tmpdir[] = "/tmp/toolgen-test-engine-XXXXXX";
    if (!getcwd(cwd, sizeof cwd) || !mkdtemp(tmpdir)) {
        perror("set-up");
        return 1;
    }
    /* toolgen's data directory: its schemas (toolgen.yaml is checked against one) and the
     * fake data file the gen stage declares */
    char *datadir = tg_path_join(tmpdir, "data");
    char *schemas = tg_path_join(cwd, "schemas"), *link = tg_path_join(datadir, "schemas");
    mkdir(datadir, 0755);
    SETUP(symlink(schemas, link) == 0, "symlink %s", link);
    setenv("TOOLGEN_DATADIR", datadir, 1);
    char *repo = tg_path_join(tmpdir, "repo");
    mkdir(repo, 0755);
    SETUP(chdir(repo) == 0, "chdir");

    test_incremental();
    test_unchanged_outputs();
    test_mapped_outputs();
    test_failures();
    test_forced();
    test_shared_objects();
    test_scheduling();
    test_outputs();
    test_keys(datadir);
    test_env();
    test_shared_cache(tmpdir);
    test_two_repos(tmpdir);

    SETUP(chdir(cwd) == 0, "chdir back");
    char *cmd = xasprintf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    free(cmd);
    free(datadir);
    free(schemas);
    free(link);
    free(repo);
    tg_strv_free(&runs);
    return tl_finish("unit-engine");
}
