/*
 * jsonschema_suite.c — runs the official JSON-Schema-Test-Suite (draft2020-12) against the
 * validator.
 *
 * $JSTS_DIR (default tests/testdata/json-schema-test-suite, see tests/testdata/README.md) holds tests/draft2020-12/ and
 * remotes/, which is served as http://localhost:1234/. Each case's schema is compiled once and
 * checked against its meta-schema; each test's data is validated and compared with "valid".
 * Tests under optional/ are counted apart (optional/format/ with format assertion on). The tests
 * toolgen cannot run, listed in tests/jsonschema-known-failures.txt (required and optional
 * alike), are skipped, one "SKIP [known] file | case | test: why" line each; any other failure
 * is a failure. Prints one line per failure, then the result line and the parts it adds up:
 *   jsonschema-suite: N passed, N failed, N skipped
 *     required tests: passed=N failed=N skipped=N
 *     optional tests: passed=N failed=N skipped=N
 *     meta-schema check: N schemas accepted, N rejected
 * Exits 1 on a failure, or when a required case's schema is rejected by its meta-schema. Set
 * JSTS_VERBOSE=1 to print the validator's errors too.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "schema/jsonschema.h"
#include "base/util.h"

#define KNOWN_FILE "tests/jsonschema-known-failures.txt"

typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;

static void sl_add(strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files directly in dir, as names relative to the tests root, sorted. */
static void list_json(const char *root, const char *sub, strlist *out)
{
    char *dir = sub[0] ? tg_path_join(root, sub) : xstrdup(root);
    DIR *d = opendir(dir);
    free(dir);
    if (!d)
        return;
    strlist names = {NULL, 0, 0};
    struct dirent *e;
    while ((e = readdir(d)))
        if (tg_str_endswith(e->d_name, ".json"))
            sl_add(&names, sub[0] ? xasprintf("%s/%s", sub, e->d_name) : xstrdup(e->d_name));
    closedir(d);
    qsort(names.v, names.n, sizeof *names.v, str_cmp);
    for (size_t i = 0; i < names.n; i++)
        sl_add(out, names.v[i]);
    free(names.v);
}

typedef struct tally {
    int pass, fail, known;
} tally;

typedef struct suite {
    js_registry *reg;
    strlist known;      /* "file | case | test" */
    strlist failures;   /* lines to print */
    tally req, opt;
    int meta_ok, meta_bad, meta_bad_required;
    bool verbose;
} suite;

static void load_known(suite *S)
{
    char *text = tg_read_file(KNOWN_FILE, 0, NULL, NULL);
    if (!text)
        return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ')
            line++;
        if (*line && *line != '#')
            sl_add(&S->known, xstrdup(line));
    }
    free(text);
}

static bool is_known(const suite *S, const char *key)
{
    for (size_t i = 0; i < S->known.n; i++)
        if (strcmp(S->known.v[i], key) == 0)
            return true;
    return false;
}

static void print_errors(const js_errors *e)
{
    for (size_t i = 0; i < e->n && i < 8; i++)
        printf("      at \"%s\" (%s): %s\n", e->v[i].instance_location, e->v[i].keyword_location,
               e->v[i].message);
}

static void record(suite *S, bool optional, bool ok, const char *file, const char *cdesc,
                   const char *tdesc, const char *why)
{
    tally *t = optional ? &S->opt : &S->req;
    if (ok) {
        t->pass++;
        return;
    }
    char *key = xasprintf("%s | %s | %s", file, cdesc, tdesc);
    if (is_known(S, key)) {
        t->known++;
        sl_add(&S->failures, xasprintf("SKIP [known] %s: %s (docs/jsonschema.md)", key, why));
    } else {
        t->fail++;
        sl_add(&S->failures, xasprintf("FAIL%s %s (%s)", optional ? " optional" : "", key, why));
    }
    free(key);
}

static const char *str_or(const cJSON *o, const char *k, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

static void check_meta(suite *S, const cJSON *schema, bool optional, const char *file,
                       const char *cdesc)
{
    tg_err err;
    tg_err_clear(&err);
    js_errors errs = {NULL, 0, 0};
    int rc = js_schema_check_meta(S->reg, schema, &errs, &err);
    if (rc == 1) {
        S->meta_ok++;
    } else {
        S->meta_bad++;
        if (!optional)
            S->meta_bad_required++;
        sl_add(&S->failures, xasprintf("META %s%s | %s: %s", optional ? "optional " : "", file,
                                       cdesc, rc < 0 ? err.msg
                                              : errs.n ? errs.v[0].message : "rejected"));
    }
    js_errors_free(&errs);
}

static void run_case(suite *S, const cJSON *tc, const char *file, bool optional, bool fmt)
{
    const char *cdesc = str_or(tc, "description", "?");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(tc, "schema");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(tc, "tests");
    check_meta(S, schema, optional, file, cdesc);
    tg_err err;
    tg_err_clear(&err);
    js_options opt = {.format_assert = fmt, .base_uri = NULL};
    js_schema *s = js_compile(S->reg, schema, &opt, &err);
    js_errors errs = {NULL, 0, 0};
    for (const cJSON *t = tests ? tests->child : NULL; t; t = t->next) {
        const char *tdesc = str_or(t, "description", "?");
        bool expect = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "valid"));
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(t, "data");
        if (!s) {
            record(S, optional, false, file, cdesc, tdesc, err.msg);
            continue;
        }
        bool fast = js_validate(s, data, NULL);
        js_errors_clear(&errs);
        bool full = js_validate(s, data, &errs);
        bool ok = fast == expect && full == expect && (full || errs.n > 0);
        const char *why = fast != full ? "fast and error-collecting paths disagree"
                          : expect     ? "expected valid, got invalid"
                                       : "expected invalid, got valid";
        record(S, optional, ok, file, cdesc, tdesc, why);
        if (!ok && S->verbose)
            print_errors(&errs);
    }
    js_errors_free(&errs);
    js_schema_free(s);
}

/* Byte spans of the elements of the top-level JSON array in text (strings and nesting aware). */
static size_t split_array(const char *t, size_t len, size_t spans[][2], size_t max)
{
    size_t n = 0, i = 0;
    int depth = 0;
    bool in_str = false;
    size_t start = 0;
    for (; i < len; i++) {
        char ch = t[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
            continue;
        }
        if (ch == '"') {
            in_str = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth == 1)
                start = i + 1;
        } else if (ch == ']' || ch == '}' || ch == ',') {
            if (depth == 1 && n < max && i > start) {
                spans[n][0] = start;
                spans[n][1] = i;
                n++;
                start = i + 1;
            }
            if (ch != ',')
                depth--;
        }
    }
    return n;
}

/* Stands in for U+0000 (which toolgen's parser refuses): the noncharacter U+10FFFE. */
#define NUL_MARK "\xF4\x8F\xBF\xBE"

static bool has_nul_mark(const cJSON *v)
{
    if ((v->string && strstr(v->string, NUL_MARK)) ||
        (cJSON_IsString(v) && strstr(v->valuestring, NUL_MARK)))
        return true;
    for (const cJSON *x = v->child; x; x = x->next)
        if (has_nul_mark(x))
            return true;
    return false;
}

/*
 * A case our parser rejects. Only U+0000 in strings is expected: cJSON strings are
 * NUL-terminated, so toolgen's parser refuses it rather than silently truncating. The case is
 * parsed again with the escape replaced by a marker; tests whose schema or data hold the marker
 * cannot run and are recorded as failures, the others run normally.
 */
static void run_case_with_nul(suite *S, const char *text, size_t len, const char *file,
                              bool optional, bool fmt, const char *why)
{
    tg_buf b = TG_BUF_INIT;
    for (size_t i = 0; i < len; i++) {
        if (i + 6 <= len && memcmp(text + i, "\\u0000", 6) == 0) {
            tg_buf_puts(&b, "\\udbff\\udffe");
            i += 5;
        } else {
            tg_buf_putc(&b, text[i]);
            if (text[i] == '\\' && i + 1 < len)
                tg_buf_putc(&b, text[++i]); /* keep escaped backslashes paired */
        }
    }
    tg_err err;
    tg_err_clear(&err);
    cJSON *tc = tg_json_parse(b.data ? b.data : "", b.len, NULL, NULL, NULL, &err);
    tg_buf_free(&b);
    if (!tc) {
        record(S, optional, false, file, "(unparsable case)", "(case)", why);
        return;
    }
    const char *cdesc = str_or(tc, "description", "?");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(tc, "schema");
    cJSON *tests = cJSON_GetObjectItemCaseSensitive(tc, "tests");
    bool schema_nul = schema && has_nul_mark(schema);
    for (cJSON *t = tests ? tests->child : NULL; t;) {
        cJSON *next = t->next;
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(t, "data");
        if (schema_nul || (data && has_nul_mark(data))) {
            record(S, optional, false, file, cdesc, str_or(t, "description", "?"),
                   "contains U+0000, which cJSON strings cannot hold");
            cJSON_Delete(cJSON_DetachItemViaPointer(tests, t));
        }
        t = next;
    }
    if (tests && tests->child)
        run_case(S, tc, file, optional, fmt);
    cJSON_Delete(tc);
}

static void run_file(suite *S, const char *root, const char *file)
{
    bool optional = tg_str_startswith(file, "optional/");
    bool fmt = tg_str_startswith(file, "optional/format/");
    char *path = tg_path_join(root, file);
    tg_err err;
    tg_err_clear(&err);
    size_t len;
    char *text = tg_read_file(path, 0, &len, &err);
    free(path);
    if (!text) {
        record(S, optional, false, file, "(file)", "(read)", err.msg);
        return;
    }
    /* Cases are parsed one by one, so that a case the parser refuses does not hide the rest. */
    static size_t spans[4096][2];
    size_t n = split_array(text, len, spans, sizeof spans / sizeof *spans);
    for (size_t i = 0; i < n; i++) {
        const char *ct = text + spans[i][0];
        size_t cl = spans[i][1] - spans[i][0];
        tg_err_clear(&err);
        cJSON *tc = tg_json_parse(ct, cl, NULL, NULL, NULL, &err);
        if (tc)
            run_case(S, tc, file, optional, fmt);
        else
            run_case_with_nul(S, ct, cl, file, optional, fmt, err.msg);
        cJSON_Delete(tc);
    }
    if (n == 0)
        record(S, optional, false, file, "(file)", "(no test cases)", "not a JSON array of cases");
    free(text);
}

int main(void)
{
    const char *jsts = getenv("JSTS_DIR");
    if (!jsts || !*jsts)
        jsts = "tests/testdata/json-schema-test-suite";
    suite S;
    memset(&S, 0, sizeof S);
    S.verbose = getenv("JSTS_VERBOSE") && *getenv("JSTS_VERBOSE") == '1';
    S.reg = js_registry_new();
    tg_err err;
    tg_err_clear(&err);
    char *remotes = tg_path_join(jsts, "remotes");
    char *tests = tg_path_join(jsts, "tests/draft2020-12");
    if (js_registry_add_metaschemas(S.reg, &err) != 0 ||
        js_registry_add_dir(S.reg, "http://localhost:1234/", remotes, &err) != 0) {
        char msg[2200];
        tg_err_format(&err, msg, sizeof msg);
        printf("%s\njsonschema-suite: 0 passed, 1 failed, 0 skipped\n", msg);
        js_registry_free(S.reg);
        free(remotes);
        free(tests);
        return 1;
    }
    load_known(&S);
    strlist files = {NULL, 0, 0};
    list_json(tests, "", &files);
    list_json(tests, "optional", &files);
    list_json(tests, "optional/format", &files);
    for (size_t i = 0; i < files.n; i++)
        run_file(&S, tests, files.v[i]);

    for (size_t i = 0; i < S.failures.n; i++)
        printf("%s\n", S.failures.v[i]);
    if (files.n == 0)
        printf("no test files found under %s\n", tests);
    int failed = S.req.fail + S.opt.fail + (files.n == 0);
    printf("jsonschema-suite: %d passed, %d failed, %d skipped\n", S.req.pass + S.opt.pass, failed,
           S.req.known + S.opt.known);
    printf("  required tests: passed=%d failed=%d skipped=%d\n", S.req.pass, S.req.fail,
           S.req.known);
    printf("  optional tests: passed=%d failed=%d skipped=%d\n", S.opt.pass, S.opt.fail,
           S.opt.known);
    printf("  meta-schema check: %d schemas accepted, %d rejected\n", S.meta_ok, S.meta_bad);
    int rc = failed > 0 || S.meta_bad_required > 0 ? 1 : 0;
    sl_free(&files);
    sl_free(&S.failures);
    sl_free(&S.known);
    js_registry_free(S.reg);
    free(remotes);
    free(tests);
    return rc;
}
