/*
 * test_code_corpus.c — the code runtime's error classification measured (docs/code.md,
 * "Classification measured"): every program of tests/code_corpus/python and tests/code_corpus/node
 * runs through the real sandbox with the code toolset's manifests, two at a time. A program's
 * first line says what it must give, "# expect: NameError" (or "// expect: ..." for Node.js):
 * an error type of error_guidance, or "success" for a program that prints error-like words and
 * exits with status 0; an optional second line "# args: {...}" adds arguments (a timeout). More
 * than 90 % of the failing programs must be classified right, and no successful one may be
 * reported as failed.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strvec.h"
#include "base/util.h"
#include "model/manifest.h"
#include "model/repo.h"
#include "run/toolrun.h"
#include "schema/jsonschema.h"
#include "testlib.h"
#include "code_fixture.h"

#define CORPUS "tests/code_corpus"


typedef struct program {
    char *path;
    const code_tool *t;
    char *expect; /* an error type, or "success" */
    cJSON *args;
    char *got;    /* what the call gave */
} program;

static tg_repo repo;
static tg_toolrun_env env;
static code_tool py, js;
static program *progs;
static size_t n_progs;
static atomic_size_t next_prog;


/* The value after "expect:" / "args:" on a header line of the program, or NULL. */
static char *header(const char *text, const char *key)
{
    for (const char *line = text; line && (line[0] == '#' || line[0] == '/');
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *at = strstr(line, key);
        size_t len = strcspn(line, "\n");
        if (!at || at >= line + len)
            continue;
        const char *v = at + strlen(key);
        v += strspn(v, " ");
        size_t n = (size_t)(line + len - v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\r'))
            n--;
        return xstrndup(v, n);
    }
    return NULL;
}

static void add_program(const char *dir, const char *name, const code_tool *t)
{
    tg_err err = {0};
    size_t len = 0;
    char *path = xasprintf("%s/%s/%s", CORPUS, dir, name);
    char *text = tg_read_file(path, 1 << 20, &len, &err);
    CHECK(text != NULL, "%s: %s", path, err.msg);
    char *expect = text ? header(text, "expect:") : NULL;
    CHECK(expect != NULL, "%s: no expect: line", path);
    if (!text || !expect) {
        free(path);
        free(text);
        free(expect);
        return;
    }
    char *extra = header(text, "args:");
    cJSON *args = extra ? tg_json_parse(extra, strlen(extra), NULL, NULL, NULL, &err)
                        : cJSON_CreateObject();
    CHECK(args != NULL, "%s: args: %s", path, err.msg);
    if (!args)
        args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "code", text);
    progs = xrealloc(progs, (n_progs + 1) * sizeof *progs);
    progs[n_progs++] = (program){.path = path, .t = t, .expect = expect, .args = args};
    free(extra);
    free(text);
}

static void add_dir(const char *dir, const char *ext, const code_tool *t)
{
    char *path = xasprintf("%s/%s", CORPUS, dir);
    DIR *d = opendir(path);
    CHECK(d != NULL, "%s", path);
    tg_strv names = {0};
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (tg_str_endswith(e->d_name, ext))
            tg_strv_push(&names, e->d_name);
    if (d)
        closedir(d);
    tg_strv_sort(&names);
    for (size_t i = 0; i < names.n; i++)
        add_program(dir, names.v[i], t);
    tg_strv_free(&names);
    free(path);
}

/* What a call gave: "success", the result's error type, or how it failed without one. */
static char *outcome(const tg_call_result *r)
{
    if (r->ok)
        return xstrdup("success");
    const cJSON *t = tg_json_pointer_get(r->result, "/error_guidance/error_type");
    if (cJSON_IsString(t))
        return xstrdup(t->valuestring);
    return xasprintf("(no result: %s %s)", tg_error_class_name(r->guidance.cls), r->guidance.message);
}

static void *worker(void *arg)
{
    (void)arg;
    for (size_t i; (i = atomic_fetch_add(&next_prog, 1)) < n_progs;) {
        program *p = &progs[i];
        tg_tool_call c = {.m = &p->t->m, .input = p->t->in, .output = p->t->out, .args = p->args};
        tg_call_result r;
        tg_err err = {0};
        tg_call_status st = tg_tool_call_run(&env.ctx, &c, &r, &err);
        p->got = st == TG_CALL_DONE ? outcome(&r) : xasprintf("(status %d: %s)", st, err.msg);
        if (st == TG_CALL_DONE)
            tg_call_result_free(&r);
    }
    return NULL;
}

static void measure(void)
{
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    size_t failing = 0, right = 0, succeeding = 0, alarms = 0;
    for (size_t i = 0; i < n_progs; i++) {
        program *p = &progs[i];
        bool ok = strcmp(p->expect, p->got) == 0;
        if (strcmp(p->expect, "success") == 0) {
            succeeding++;
            alarms += !ok;
        } else {
            failing++;
            right += ok;
        }
        if (!ok)
            fprintf(stderr, "%s: expected %s, got %s\n", p->path, p->expect, p->got);
    }
    double rate = failing ? 100.0 * (double)right / (double)failing : 0;
    printf("code corpus: %zu of %zu failing programs classified right (%.1f %%); %zu false alarms "
           "in %zu succeeding programs\n", right, failing, rate, alarms, succeeding);
    CHECK(failing >= 60 && succeeding >= 20, "the corpus: %zu failing, %zu succeeding", failing,
          succeeding);
    CHECK(rate > 90.0, "classified right: %.1f %%", rate);
    CHECK(alarms == 0, "false alarms: %zu", alarms);
}

int main(void)
{
    tg_err err = {0};
    CHECK(tg_repo_open(&repo, "toolsets/code", &err) == 0, "repo: %s", err.msg);
    CHECK(tg_toolrun_env_open(&env, &repo, repo.cfg.doc.root, &err) == 0, "env: %s", err.msg);
    if (code_tool_open(&py, &repo, "python_execute") == 0 &&
        code_tool_open(&js, &repo, "node_execute") == 0) {
        add_dir("python", ".py", &py);
        add_dir("node", ".js", &js);
        measure();
    }
    for (size_t i = 0; i < n_progs; i++) {
        free(progs[i].path);
        free(progs[i].expect);
        free(progs[i].got);
        cJSON_Delete(progs[i].args);
    }
    free(progs);
    code_tool_close(&py);
    code_tool_close(&js);
    tg_toolrun_env_close(&env);
    tg_repo_release(&repo);
    return tl_finish("code corpus");
}
