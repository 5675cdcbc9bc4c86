/*
 * test_code_edit.c — the pure parts of the code-edit toolset (docs/code-edit.md): secrets found
 * and replaced before code leaves the machine (net/secrets), the unified diff of a refactoring
 * (base/udiff), the code block taken out of an answer in the language's usual names
 * (base/mdcode), and the toolset's descriptions within OpenAI's 1024 characters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mdcode.h"
#include "base/udiff.h"
#include "base/util.h"
#include "emit/common.h"
#include "model/repo.h"
#include "net/secrets.h"
#include "testlib.h"
#include "code_fixture.h"

/* text redacted: how many were found and what is left; restored, it is text again. */
static void redacts(const char *text, size_t want, const char *want_text)
{
    tg_strv secrets = TG_STRV_INIT;
    char *out = tg_secrets_redact(text, &secrets);
    CHECK(secrets.n == want, "%s: %zu secrets found, want %zu (%s)", text, secrets.n, want, out);
    if (want_text)
        CHECK(strcmp(out, want_text) == 0, "%s: got \"%s\", want \"%s\"", text, out, want_text);
    char *back = tg_secrets_restore(out, &secrets);
    CHECK(strcmp(back, text) == 0, "%s: restored as \"%s\"", text, back);
    free(back);
    free(out);
    tg_strv_free(&secrets);
}

static void test_secrets(void)
{
    redacts("key = \"sk-proj-abcdefghijklmnopqrstuvwx\"", 1, "key = \"[REDACTED_1]\"");
    redacts("API_KEY = 'q8Zf3kLm0pXw'", 1, "API_KEY = '[REDACTED_1]'");
    redacts("{\"password\": \"correct horse\"}", 1, "{\"password\": \"[REDACTED_1]\"}");
    redacts("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", 1,
            "export GITHUB_TOKEN=[REDACTED_1]");
    redacts("aws = AKIAIOSFODNN7EXAMPLE", 1, "aws = [REDACTED_1]");
    redacts("url = 'postgres://app:s3cr3t@db:5432/x'", 1, "url = 'postgres://app:[REDACTED_1]@db:5432/x'");
    redacts("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nx = 1", 1,
            "[REDACTED_1]\nx = 1");
    redacts("jwt = eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.abcdefghijk_lmnop", 1, NULL);
    redacts("a = 'sk-aaaaaaaaaaaaaaaaaaaaaaaa'\nb = 'sk-bbbbbbbbbbbbbbbbbbbbbbbb'", 2,
            "a = '[REDACTED_1]'\nb = '[REDACTED_2]'");
    /* what only looks like one is left alone */
    redacts("password = input('Password: ')", 0, NULL);
    redacts("token = get_token()", 0, NULL);
    redacts("if token == expected:\n    pass", 0, NULL);
    redacts("def tokenize(s):\n    return s.split()", 0, NULL);
    redacts("secret = ''", 0, NULL);
    redacts("risk-free task: skip", 0, NULL);
    redacts("author = 'Jane Doe'", 0, NULL);
    redacts("tokenizer_name = 'bert-base-uncased'", 0, NULL);
    redacts("headers = {'Authorization': 'Bearer abcdef123456'}", 1,
            "headers = {'Authorization': '[REDACTED_1]'}");
    redacts("AUTH_TOKEN=abcdef1234567890", 1, "AUTH_TOKEN=[REDACTED_1]");
    redacts("", 0, "");
    /* a marker the list does not hold stays as it is */
    tg_strv one = TG_STRV_INIT;
    tg_strv_push(&one, "s3cr3t");
    char *back = tg_secrets_restore("[REDACTED_1] [REDACTED_2] [REDACTED_x", &one);
    CHECK(strcmp(back, "s3cr3t [REDACTED_2] [REDACTED_x") == 0, "restore: %s", back);
    free(back);
    tg_strv_free(&one);
}

static void differs(const char *a, const char *b, const char *want)
{
    char *d = tg_udiff(a, b, "a/snippet", "b/snippet");
    CHECK(strcmp(d, want) == 0, "diff:\n%s\nwant:\n%s", d, want);
    free(d);
}

static void test_udiff(void)
{
    differs("x\n", "x\n", "");
    differs("a\nb\nc\n", "a\nB\nc\n",
            "--- a/snippet\n+++ b/snippet\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    differs("", "new\n", "--- a/snippet\n+++ b/snippet\n@@ -0,0 +1,1 @@\n+new\n");
    differs("old", "old\n",
            "--- a/snippet\n+++ b/snippet\n@@ -1,1 +1,1 @@\n-old\n\\ No newline at end of file\n+old\n");
    /* two changes ten lines apart are two hunks of three lines of context */
    char a[256] = "", b[256] = "";
    for (int i = 1; i <= 12; i++) {
        snprintf(a + strlen(a), sizeof a - strlen(a), "%d\n", i);
        snprintf(b + strlen(b), sizeof b - strlen(b), "%s\n",
                 i == 1 ? "one" : i == 12 ? "twelve" : (char[8]){0});
        if (i != 1 && i != 12)
            snprintf(b + strlen(b) - 1, sizeof b - strlen(b) + 1, "%d\n", i);
    }
    char *d = tg_udiff(a, b, "a", "b");
    CHECK(strstr(d, "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n"),
          "two hunks: %s", d);
    free(d);
}

static void block(const char *text, const char *lang, const char *want)
{
    size_t s = 0, e = 0;
    char *got = tg_md_code_block(text, lang, &s, &e);
    CHECK(want ? got && strcmp(got, want) == 0 : got == NULL, "%s in \"%s\": got \"%s\"", lang,
          text, got ? got : "(none)");
    if (got)
        CHECK(strncmp(text + s, "```", 3) == 0 && strncmp(text + e - 3, "```", 3) == 0,
              "the span is the whole block");
    free(got);
}

static void test_blocks(void)
{
    block("Sure:\n```py\nx = 1\n```\nDone.", "python", "x = 1\n");
    block("```ts\nlet x: number = 1;\n```", "typescript", "let x: number = 1;\n");
    block("```C++\nint x;\n```", "cpp", "int x;\n");
    block("```bash\necho hi\n```", "shell", "echo hi\n");
    block("```js\nno();\n```\n```python\nyes()\n```", "python", "yes()\n");
    block("```\nplain\n```", "rust", "plain\n");
    block("```python\nunclosed", "python", NULL);
    block("no code at all", "python", NULL);
}

/* The composed descriptions fit OpenAI's 1024 characters without a cut, and teach. */
static void test_descriptions(void)
{
    tg_repo repo;
    tg_err err = {0};
    SETUP(tg_repo_open(&repo, "toolsets/code-edit", &err) == 0, "repo: %s", err.msg);
    const char *names[] = {"generate_code_snippet", "refactor_code_snippet"};
    for (size_t i = 0; i < 2; i++) {
        code_tool t = {0};
        if (code_tool_open(&t, &repo, names[i]) == 0) {
            char *full = tg_emit_description(&t.m);
            char *cut = tg_emit_description_max(&t.m, 1024);
            CHECK(full && cut && strcmp(full, cut) == 0 && strlen(full) <= 1024,
                  "%s: description within its budget (%zu characters)", names[i],
                  full ? strlen(full) : 0);
            CHECK(full && strstr(full, "WHEN TO USE") && strstr(full, "Example"),
                  "%s: when to use, an example", names[i]);
            free(full);
            free(cut);
        }
        code_tool_close(&t);
    }
    tg_repo_release(&repo);
}

int main(void)
{
    test_secrets();
    test_udiff();
    test_blocks();
    test_descriptions();
    return tl_finish("code_edit");
}
