/*
 * test_llm.c — the pure parts of generation: code blocks out of answers, the llm config and its
 * errors, the canonical request (what the cache keys on, never the key), the lexical cosine and
 * the operation classes of gap detection, manifest assembly and the spec hash
 * (docs/generate.md); a shared cache of answers (tg_llm_remote, docs/cache.md) answering a
 * local miss and kept locally, and an entry of another request refused. The network, the
 * cache and the pipeline are tests/cli/new_llm.sh's.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "base/json.h"
#include "gen/gap.h"
#include "gen/gen_files.h"
#include "llm/llm.h"
#include "testlib.h"

static void test_code_blocks(void)
{
    char *b = tg_llm_code_block("Sure.\n```python\nprint(1)\n```\nDone.", "python");
    CHECK(b && strcmp(b, "print(1)\n") == 0, "python block: %s", b ? b : "(null)");
    free(b);
    b = tg_llm_code_block("```yaml\na: 1\n```\n```py\nx = 2\n```\n", "python");
    CHECK(b && strcmp(b, "x = 2\n") == 0, "the block with the language, not the first: %s",
          b ? b : "(null)");
    free(b);
    b = tg_llm_code_block("```\nx = 3\n```\n", "python");
    CHECK(b && strcmp(b, "x = 3\n") == 0, "an untagged block serves");
    free(b);
    b = tg_llm_code_block("```python\nimport pandas\n", "python");
    CHECK(b == NULL, "an unclosed (truncated) block is no code");
    b = tg_llm_code_block("I would compute the mean.", "python");
    CHECK(b == NULL, "prose is no code");
    b = tg_llm_code_block("```python\ns = '```'\n```\n", "python");
    CHECK(b && strcmp(b, "s = '```'\n") == 0, "a fence inside a line does not close: %s",
          b ? b : "(null)");
    free(b);
}

static cJSON *J(const char *text)
{
    tg_err err = {0};
    return tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
}

static void test_config(void)
{
    tg_llm_config c;
    tg_err err = {0};
    CHECK(tg_llm_config_from_json(NULL, NULL, &c, &err) == 0, "defaults: %s", err.msg);
    CHECK(c.provider == TG_LLM_BUILTIN, "builtin is the default");
    CHECK(strcmp(c.cache_dir, ".toolgen/llm-cache") == 0, "cache dir");
    tg_llm_config_release(&c);
    CHECK(tg_llm_provider_parse("offline") == TG_LLM_BUILTIN, "offline is an alias");
    cJSON *j = J("{\"provider\":\"openai\"}");
    CHECK(tg_llm_config_from_json(j, NULL, &c, &err) == -1, "openai needs a model");
    CHECK_CONTAINS(err.msg, "llm.model is not set");
    cJSON_Delete(j);
    CHECK(tg_llm_config_from_json(NULL, "gpt", &c, &err) == -1, "unknown provider");
    CHECK_CONTAINS(err.msg, "unknown LLM provider 'gpt'");
    j = J("{\"provider\":\"anthropic\",\"model\":\"m\",\"base_url\":\"http://h:1/\"}");
    CHECK(tg_llm_config_from_json(j, NULL, &c, &err) == 0, "anthropic: %s", err.msg);
    CHECK(strcmp(c.base_url, "http://h:1") == 0, "trailing slash dropped: %s", c.base_url);
    CHECK(strcmp(c.api_key_env, "ANTHROPIC_API_KEY") == 0 && !c.api_key_required,
          "default key variable, not required");
    tg_llm_config_release(&c);
    cJSON_Delete(j);
}

static void test_canonical(void)
{
    cJSON *j = J("{\"provider\":\"openai\",\"model\":\"m\",\"base_url\":\"http://a:1/v1\"}");
    tg_llm_config a, b;
    tg_err err = {0};
    tg_llm_config_from_json(j, NULL, &a, &err);
    cJSON_Delete(j);
    j = J("{\"provider\":\"openai\",\"model\":\"m\",\"base_url\":\"http://b:2/v1\","
          "\"timeout_s\":5,\"api_key_env\":\"K\"}");
    tg_llm_config_from_json(j, NULL, &b, &err);
    cJSON_Delete(j);
    tg_llm_request rq = {.system = "s", .user = "u"};
    char *ca = tg_llm_canonical_request(&a, &rq);
    char *cb = tg_llm_canonical_request(&b, &rq);
    CHECK(strcmp(ca, cb) == 0, "URL, timeout and key variable are not part of the key");
    CHECK(!strstr(ca, "http") && !strstr(ca, "KEY"), "no URL or key in %s", ca);
    rq.sample = 1;
    char *cc = tg_llm_canonical_request(&a, &rq);
    CHECK(strcmp(ca, cc) != 0, "samples are distinct requests");
    a.temperature = 0.7;
    rq.sample = 0;
    char *cd = tg_llm_canonical_request(&a, &rq);
    CHECK(strcmp(ca, cd) != 0, "parameters are part of the key");
    free(ca);
    free(cb);
    free(cc);
    free(cd);
    tg_llm_config_release(&a);
    tg_llm_config_release(&b);
}

static void test_gap_words(void)
{
    CHECK(fabs(tg_gap_similarity("average tip by day", "tips per day on average") - 1.0) < 1e-9,
          "plurals and stop words fold: %f",
          tg_gap_similarity("average tip by day", "tips per day on average"));
    CHECK(tg_gap_similarity("count rows", "plot prices") == 0, "disjoint words");
    CHECK(tg_gap_mentions("count the bills per day", "day"), "a column named as a word");
    CHECK(!tg_gap_mentions("count the bills per day", "total_bill"), "all its words, not one");
    CHECK(tg_gap_mentions("sum of total bills", "total_bill"), "plurals fold");
    CHECK(strcmp(tg_gap_operation("bar_chart_by_group Bar chart of a mean"), "chart") == 0,
          "a chart of means is a chart");
    CHECK(strcmp(tg_gap_operation("group_and_count_by_columns"), "count") == 0, "count");
    CHECK(strcmp(tg_gap_operation("average tip by day"), "group_by_and_aggregate") == 0,
          "aggregate");
    CHECK(strcmp(tg_gap_operation("load and analyze a CSV file"), "other") == 0, "unclassified");
    CHECK(strcmp(tg_gap_operation("histogram of tip"), "histogram") == 0, "a histogram is not a "
          "bar chart");
    CHECK(strcmp(tg_gap_operation("number of distinct days"), "nunique") == 0, "distinct");
}

static void test_manifest_assembly(void)
{
    const char *spec = "manifest_version: 1\nname: wrong\nstatus: approved\ntitle: T\n"
                       "provenance:\n  generator: human\nimplementation:\n  runtime: node\n"
                       "description: D\n";
    tg_gen_provenance pv = {.generator = "llm", .model = "openai/m",
                            .code_hash = tg_hash_bytes("x", 1)};
    char *m = tg_gen_manifest(spec, "right_name", "say \"hi\"", "draft", &pv);
    CHECK_CONTAINS(m, "name: right_name\nstatus: draft\nintent: \"say \\\"hi\\\"\"\n");
    CHECK(!strstr(m, "wrong") && !strstr(m, "approved") && !strstr(m, "human") &&
              !strstr(m, "node"), "the model's owned keys are dropped: %s", m);
    CHECK_CONTAINS(m, "title: T\n");
    CHECK_CONTAINS(m, "description: D\n");
    CHECK_CONTAINS(m, "  model: \"openai/m\"\n");
    tg_hash h1, h2;
    tg_err err = {0};
    char *staged = tg_gen_set_status(m, "staged");
    CHECK(tg_gen_spec_hash(m, &h1, &err) == 0 && tg_gen_spec_hash(staged, &h2, &err) == 0,
          "spec hash: %s", err.msg);
    CHECK(tg_hash_eq(h1, h2), "status is not part of the spec");
    char *other = tg_gen_manifest(spec, "right_name", "another intent", "draft", &pv);
    CHECK(tg_gen_spec_hash(other, &h2, &err) == 0 && !tg_hash_eq(h1, h2),
          "the intent is part of the spec");
    free(m);
    free(staged);
    free(other);
}

/* ---- a shared cache of answers -------------------------------------------------------------- */

static int remote_gets, remote_puts;
static tg_hash remote_for; /* the key whose entry the fake holds */

static char *fake_get(void *ud, tg_hash key, size_t *len)
{
    (void)ud;
    remote_gets++;
    char hex[TG_HASH_HEX];
    tg_hash_hex(remote_for, hex);
    (void)key; /* it answers whatever is asked: the client must check the entry's key */
    char *e = xasprintf("{\"key\":\"%s\",\"model\":\"openai/m\",\"request\":{},"
                        "\"text\":\"from the team\"}\n", hex);
    *len = strlen(e);
    return e;
}

static void fake_put(void *ud, tg_hash key, const char *entry, size_t len)
{
    (void)ud;
    (void)key;
    (void)entry;
    (void)len;
    remote_puts++;
}

static void test_remote_answers(void)
{
    char dir[] = "/tmp/toolgen-test-llm-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    int root = open(dir, O_RDONLY | O_DIRECTORY);
    cJSON *j = J("{\"provider\":\"replay\",\"replay_of\":\"openai\",\"model\":\"m\"}");
    tg_llm_config cfg;
    tg_err err = {0};
    CHECK(tg_llm_config_from_json(j, NULL, &cfg, &err) == 0, "config: %s", err.msg);
    tg_llm_request rq = {.system = "s", .user = "u"};
    char *canon = tg_llm_canonical_request(&cfg, &rq);
    tg_hash key = tg_hash_bytes(canon, strlen(canon));
    free(canon);
    tg_llm_remote remote = {.get = fake_get, .put = fake_put};

    remote_for = (tg_hash){1, 2}; /* another request's entry: a miss */
    tg_llm_client c;
    tg_llm_client_init(&c, &cfg, root, true);
    c.remote = &remote;
    tg_llm_reply r;
    CHECK(tg_llm_complete(&c, &rq, &r, &err) == TG_LLM_FROZEN, "another key's entry is no answer");

    remote_for = key;
    err = (tg_err){0};
    CHECK(tg_llm_complete(&c, &rq, &r, &err) == TG_LLM_OK, "from the remote: %s", err.msg);
    CHECK(r.cached && r.text && !strcmp(r.text, "from the team"), "its text");
    CHECK(c.requests == 0 && remote_gets == 2, "no request, asked twice");
    tg_llm_reply_release(&r);

    tg_llm_client_init(&c, &cfg, root, true); /* no remote: the local copy answers */
    CHECK(tg_llm_complete(&c, &rq, &r, &err) == TG_LLM_OK, "kept locally: %s", err.msg);
    CHECK(remote_puts == 0, "a cached answer is not offered again");
    tg_llm_reply_release(&r);
    tg_llm_config_release(&cfg);
    cJSON_Delete(j);
    close(root);
    char *cmd = xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
}

int main(void)
{
    test_remote_answers();
    test_code_blocks();
    test_config();
    test_canonical();
    test_gap_words();
    test_manifest_assembly();
    return tl_finish("test_llm");
}
