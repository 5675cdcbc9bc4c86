/* test_lifecycle.c — the pure parts of the lifecycle: the seed's feedback rules as a table,
 * the state table, version order, issue categories and SHA-256 (docs/lifecycle.md). */
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "lifecycle/feedback.h"
#include "lifecycle/lifecycle_state.h"
#include "lifecycle/registry.h"
#include "lifecycle/reject.h"
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

int main(void)
{
    test_decision_table();
    test_output_table();
    test_states();
    test_versions_and_hashes();
    test_categories();
    return tl_finish("test_lifecycle");
}
