/* test_lifecycle.c — the pure parts of the lifecycle: the seed's feedback rules as a table,
 * the state table, version order, issue categories, SHA-256 and the promotion commit's message
 * with its trailers (docs/lifecycle.md); tests/cli/lifecycle.sh makes the commits. */
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "lifecycle/feedback.h"
#include "lifecycle/lifecycle_state.h"
#include "lifecycle/promote.h"
#include "lifecycle/registry.h"
#include "lifecycle/reject.h"
#include "lifecycle/svgchart.h"
#include "testlib.h"

static void test_decision_table(void)
{
    static const struct {
        const char *reply;
        tg_fb_decision want;
    } rows[] = {
        {"Approve", TG_FB_APPROVED},
        {"approve it", TG_FB_APPROVED},
        {"Approved!", TG_FB_APPROVED},
        {"  APPROVE  ", TG_FB_APPROVED},
        {"approved, ship it", TG_FB_APPROVED},
        {"approve but change the column", TG_FB_REJECTED},
        {"Approve, however the sort is odd", TG_FB_REJECTED},
        {"approve except for nulls", TG_FB_REJECTED},
        {"approved although slow", TG_FB_REJECTED},
        {"approve though", TG_FB_REJECTED},
        {"ok", TG_FB_REJECTED},
        {"sure", TG_FB_REJECTED},
        {"looks good", TG_FB_REJECTED},
        {"yes", TG_FB_REJECTED},
        {"fine", TG_FB_REJECTED},
        {"maybe", TG_FB_REJECTED},
        {"", TG_FB_REJECTED},
        {"reject", TG_FB_REJECTED},
        {"no", TG_FB_REJECTED},
        {"I approve", TG_FB_REJECTED},   /* not the first word */
        {"approves", TG_FB_REJECTED},    /* not the token */
        {"disapprove", TG_FB_REJECTED},
    };
    tg_fb_rules r;
    tg_fb_rules_from_config(&r, NULL);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tg_fb_decision d = tg_fb_read_decision(&r, rows[i].reply);
        CHECK(d == rows[i].want, "decision \"%s\": got %s, want %s", rows[i].reply,
              tg_fb_name(d), tg_fb_name(rows[i].want));
    }
    /* default_decision PENDING keeps the ambiguous ones pending, never an explicit no */
    r.default_pending = true;
    CHECK(tg_fb_read_decision(&r, "ok") == TG_FB_PENDING, "ok pending");
    CHECK(tg_fb_read_decision(&r, "") == TG_FB_PENDING, "silence pending");
    CHECK(tg_fb_read_decision(&r, "Reject it") == TG_FB_REJECTED, "reject stays rejected");
    CHECK(tg_fb_read_decision(&r, "no thanks") == TG_FB_REJECTED, "no stays rejected");
    CHECK(tg_fb_read_decision(&r, "approve but") == TG_FB_REJECTED, "mixed stays rejected");
    tg_fb_rules_release(&r);
}

static void test_output_table(void)
{
    static const struct {
        const char *reply;
        tg_fb_decision want;
    } rows[] = {
        {"Yes", TG_FB_OUTPUT_ACCEPTED},
        {"yes, that's right", TG_FB_OUTPUT_ACCEPTED},
        {"Looks good!", TG_FB_OUTPUT_ACCEPTED},
        {"it works", TG_FB_OUTPUT_ACCEPTED},
        {"No", TG_FB_OUTPUT_REJECTED},
        {"wrong column", TG_FB_OUTPUT_REJECTED},
        {"yes but the sort is wrong", TG_FB_OUTPUT_REJECTED},
        {"yes however", TG_FB_OUTPUT_REJECTED},
        {"hmm", TG_FB_OUTPUT_REJECTED},
        {"", TG_FB_OUTPUT_REJECTED},
        {"yesterday", TG_FB_OUTPUT_REJECTED}, /* whole words only */
    };
    tg_fb_rules r;
    tg_fb_rules_from_config(&r, NULL);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tg_fb_decision d = tg_fb_read_output(&r, rows[i].reply);
        CHECK(d == rows[i].want, "output \"%s\": got %s, want %s", rows[i].reply,
              tg_fb_name(d), tg_fb_name(rows[i].want));
    }
    tg_fb_rules_release(&r);
}

static void test_states(void)
{
    CHECK(tg_lc_allowed(TG_LC_NONE, TG_LC_DRAFT), "none->draft");
    CHECK(!tg_lc_allowed(TG_LC_NONE, TG_LC_STAGED), "none->staged skips");
    CHECK(tg_lc_allowed(TG_LC_DRAFT, TG_LC_STAGED), "draft->staged");
    CHECK(!tg_lc_allowed(TG_LC_DRAFT, TG_LC_APPROVED), "draft->approved skips");
    CHECK(!tg_lc_allowed(TG_LC_STAGED, TG_LC_PROMOTED), "staged->promoted skips");
    CHECK(tg_lc_allowed(TG_LC_APPROVED, TG_LC_PROMOTED), "approved->promoted");
    CHECK(tg_lc_allowed(TG_LC_APPROVED, TG_LC_REJECTED), "approved->rejected");
    CHECK(!tg_lc_allowed(TG_LC_PROMOTED, TG_LC_STAGED), "promoted is final");
    CHECK(!tg_lc_allowed(TG_LC_REJECTED, TG_LC_APPROVED), "rejected is final");
    cJSON *e = cJSON_CreateObject();
    tg_err err = {0};
    CHECK(tg_lc_transition(e, TG_LC_STAGED, NULL, NULL, &err) == -1, "skip refused");
    CHECK_CONTAINS(err.msg, "cannot go from NONE to STAGED");
    CHECK(tg_lc_transition(e, TG_LC_DRAFT, "2026-01-01T00:00:00Z", "n", &err) == 0, "draft");
    CHECK(tg_lc_transition(e, TG_LC_STAGED, NULL, NULL, &err) == 0, "staged");
    CHECK(tg_lc_state_of(e) == TG_LC_STAGED, "state");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(e, "history")) == 2, "two records");
    cJSON_Delete(e);
    CHECK(tg_lc_parse("APPROVED") == TG_LC_APPROVED, "parse");
    CHECK(tg_lc_parse("approved") == TG_LC_NONE, "names are upper case");
}

static void test_versions_and_hashes(void)
{
    CHECK(tg_version_cmp("1.0.0", "1.0.0") == 0, "eq");
    CHECK(tg_version_cmp("1.10.0", "1.9.3") > 0, "numeric");
    CHECK(tg_version_cmp("0.9.9", "1.0.0") < 0, "major");
    CHECK(tg_version_cmp("1.0.0-rc1", "1.0.0") < 0, "pre-release first");
    char hex[TG_SHA256_HEX];
    tg_sha256_hex("", 0, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0,
          "empty: %s", hex);
    tg_sha256_hex("abc", 3, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
          "abc: %s", hex);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    tg_sha256_hex(m, strlen(m), hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0,
          "two blocks: %s", hex);
    char *big = malloc(1000000);
    memset(big, 'a', 1000000);
    tg_sha256_ctx c;
    tg_sha256_init(&c);
    for (size_t off = 0; off < 1000000; off += 999) /* odd chunks cross block edges */
        tg_sha256_update(&c, big + off, off + 999 > 1000000 ? 1000000 - off : 999);
    tg_sha256_final_hex(&c, hex);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
          "million a: %s", hex);
    free(big);
}

static void test_categories(void)
{
    tg_strv v = {0};
    tg_reject_categories("wrong column: should be 'region' not 'location'", &v);
    CHECK(v.n >= 1 && strcmp(v.v[0], "COLUMN_MISMATCH") == 0, "column");
    tg_strv_free(&v);
    tg_reject_categories("missing filter for year > 2020; output format should be JSON", &v);
    CHECK(v.n == 2 && strcmp(v.v[0], "MISSING_FILTER") == 0 &&
              strcmp(v.v[1], "OUTPUT_FORMAT") == 0, "filter + format (%zu)", v.n);
    tg_strv_free(&v);
    tg_reject_categories("not what I wanted", &v);
    CHECK(v.n == 1 && strcmp(v.v[0], "OTHER") == 0, "other");
    tg_strv_free(&v);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static char *render(const char *output_json, const tg_table *t)
{
    cJSON *o = cJSON_Parse(output_json);
    tg_buf b;
    tg_buf_init(&b, 256);
    tg_chart_render(&b, o, t);
    cJSON_Delete(o);
    return tg_buf_steal(&b);
}

static void test_charts(void)
{
    tg_table t;
    tg_err err = {0};
    /* quoted fields with commas, "" escapes and a line break; CRLF; a short and a long row */
    const char *csv = "name,value\r\n\"a, \"\"b\"\"\",3\r\n\"multi\nline\",2\r\nshort\r\nx,1,extra\r\n";
    CHECK(tg_table_from_csv(csv, &t, &err) == 0, "csv: %s", err.msg);
    CHECK(t.cols.n == 2 && t.nrows == 4, "shape %zu x %zu", t.nrows, t.cols.n);
    CHECK(t.nrows == 4 && strcmp(t.rows[0][0], "a, \"b\"") == 0, "quoted: %s", t.rows[0][0]);
    CHECK(t.nrows == 4 && strcmp(t.rows[1][0], "multi\nline") == 0, "line break kept");
    CHECK(t.nrows == 4 && strcmp(t.rows[2][1], "") == 0, "short row padded");
    char *h = render("{\"type\":\"bar_chart\",\"config\":{\"xColumn\":\"name\","
                     "\"yColumn\":\"value\"}}", &t);
    CHECK(count_of(h, "class=\"tg-bar\"") == 3, "three numeric bars: %s", h);
    CHECK(strstr(h, "a, &quot;b&quot;") != NULL, "labels escaped");
    CHECK(strstr(h, "<script") == NULL, "no script");
    free(h);
    h = render("{\"type\":\"line_chart\",\"config\":{\"xColumn\":\"name\","
               "\"yColumn\":\"nope\"}}", &t);
    CHECK_CONTAINS(h, "Cannot draw: the y column \"nope\" is not in the data file");
    free(h);
    h = render("{\"type\":\"pie_chart\",\"config\":{\"labelColumn\":\"name\","
               "\"valueColumn\":\"value\"}}", &t);
    CHECK(count_of(h, "class=\"tg-slice\"") == 3, "three slices");
    free(h);
    h = render("{\"type\":\"table\",\"config\":{\"columns\":[\"value\"],\"maxRows\":2}}", &t);
    CHECK(count_of(h, "<tr>") == 3, "header + 2 rows: %s", h);
    free(h);
    tg_table_free(&t);
    cJSON *arr = cJSON_Parse("[{\"x\":1,\"y\":2},{\"x\":3,\"y\":null}]");
    CHECK(tg_table_from_json(arr, &t, &err) == 0, "json table");
    h = render("{\"type\":\"scatter\",\"config\":{\"xColumn\":\"x\",\"yColumn\":\"y\"}}", &t);
    CHECK(count_of(h, "class=\"tg-point\"") == 1, "null is not a point");
    free(h);
    tg_table_free(&t);
    cJSON_Delete(arr);
    arr = cJSON_Parse("[1,2]");
    CHECK(tg_table_from_json(arr, &t, &err) == -1, "not objects refused");
    CHECK_CONTAINS(err.msg, "array of objects");
    tg_table_free(&t);
    cJSON_Delete(arr);
    CHECK(tg_table_from_csv("", &t, &err) == -1, "empty csv refused");
    tg_table_free(&t);
}

/* The promotion commit's message: the subject, then the trailers as its last paragraph, one
 * "Key: value" line each, as git interpret-trailers reads them. */
static void test_promote_message(void)
{
    cJSON *e = cJSON_Parse("{\"version\":\"1.2.0\",\"spec_hash\":\"ab12\",\"code_hash\":\"cd34\","
                           "\"quality_score\":0.875,\"quality_tier\":\"good\",\"feedback\":"
                           "{\"decision\":{\"reply\":\"Approve it\\nbut\\r\\nwatch nulls\",\"by\":\"alice\"}}}");
    SETUP(e, "the staging entry");
    char *m = tg_promote_message("count_rows", e, "registry/active/tools/count_rows",
                                 "registry/archive/promoted/count_rows_1.2.0");
    CHECK(tg_str_startswith(m, "promote count_rows v1.2.0\n\n"), "the subject: %s", m);
    CHECK_CONTAINS(m, "snapshot registry/active/tools/count_rows/, candidate archived in "
                      "registry/archive/promoted/count_rows_1.2.0/.");
    const char *last = strstr(m, "\n\nSpec-Hash: ");
    CHECK(last && strcmp(last, "\n\nSpec-Hash: sha256:ab12\nCode-Hash: sha256:cd34\n"
                               "Quality-Score: 0.875 (good)\nApproved-By: alice\n"
                               "Approval: Approve it but  watch nulls\n") == 0,
          "the trailers, the reply on one line, as the last paragraph: %s", m);
    free(m);

    /* no score, no approver named: still one line each */
    cJSON_DeleteItemFromObject(e, "quality_score");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "feedback"), "decision"),
                               "by");
    m = tg_promote_message("count_rows", e, "a", "b");
    CHECK_CONTAINS(m, "\nQuality-Score: n/a\nApproved-By: user\n");
    CHECK(!strstr(m, "Approved-Via"), "no Approved-Via without a via: %s", m);
    free(m);

    /* the user's words came through the MCP client's form: said in the last trailer */
    cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "feedback"), "decision"),
                            "via", "mcp-elicitation");
    m = tg_promote_message("count_rows", e, "a", "b");
    CHECK(tg_str_endswith(m, "\nApproval: Approve it but  watch nulls\n"
                             "Approved-Via: mcp-elicitation\n"), "Approved-Via last: %s", m);
    free(m);
    cJSON_Delete(e);
}

int main(void)
{
    test_charts();
    test_promote_message();
    test_decision_table();
    test_output_table();
    test_states();
    test_versions_and_hashes();
    test_categories();
    return tl_finish("test_lifecycle");
}
