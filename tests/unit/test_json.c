/* test_json.c — the JSON parser, positions, number text, pointers, printers, posmap, getters. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/json.h"
#include "testlib.h"

/* Heap-mode parse with positions; the caller frees both. */
static cJSON *parse(const char *s, tg_posmap **pm)
{
    tg_err e;
    tg_err_clear(&e);
    *pm = tg_posmap_new();
    cJSON *v = tg_json_parse(s, strlen(s), NULL, *pm, NULL, &e);
    CHECK(v != NULL, "parse failed for %s: %d:%d %s", s, e.line, e.col, e.msg);
    return v;
}

static cJSON *parse_n(const char *s)
{
    tg_err e;
    tg_err_clear(&e);
    cJSON *v = tg_json_parse(s, strlen(s), NULL, NULL, NULL, &e);
    CHECK(v != NULL, "parse failed for %s: %d:%d %s", s, e.line, e.col, e.msg);
    return v;
}

/* Expects failure at line:col with a message containing `part`; with and without posmap/arena. */
static void expect_err_len(const char *s, size_t len, int line, int col, const char *part)
{
    for (int mode = 0; mode < 3; mode++) {
        tg_err e;
        tg_err_clear(&e);
        tg_arena a = TG_ARENA_INIT;
        tg_posmap *pm = mode == 1 ? tg_posmap_new() : NULL;
        cJSON *v = tg_json_parse(s, len, mode == 2 ? &a : NULL, pm, NULL, &e);
        CHECK(v == NULL, "expected an error for [%.*s] (mode %d)", (int)len, s, mode);
        if (v && mode != 2)
            cJSON_Delete(v);
        CHECK(e.line == line && e.col == col, "[%.*s]: expected %d:%d, got %d:%d (%s)", (int)len, s,
              line, col, e.line, e.col, e.msg);
        CHECK_CONTAINS(e.msg, part);
        CHECK(e.file[0] == '\0', "file must be left alone");
        tg_posmap_free(pm);
        tg_arena_free(&a);
    }
}

static void expect_err(const char *s, int line, int col, const char *part)
{
    expect_err_len(s, strlen(s), line, col, part);
}

static void test_valid_kinds(void)
{
    tg_posmap *pm;
    cJSON *v = parse(" {\"s\": \"x\", \"n\": -12.5e1, \"t\": true, \"f\": false, \"z\": null,"
                     " \"a\": [], \"o\": {}, \"nested\": [[1], {\"k\": [\"v\"]}]} \n",
                     &pm);
    if (v) {
        CHECK(cJSON_IsObject(v), "root object");
        CHECK(strcmp(cJSON_GetObjectItem(v, "s")->valuestring, "x") == 0, "string");
        CHECK(cJSON_GetObjectItem(v, "n")->valuedouble == -125.0, "number");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(v, "t")), "true");
        CHECK(cJSON_IsFalse(cJSON_GetObjectItem(v, "f")), "false");
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(v, "z")), "null");
        CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(v, "a")) == 0, "empty array");
        CHECK(cJSON_GetObjectItem(v, "o")->child == NULL, "empty object");
        CHECK(cJSON_GetArraySize(v) == 8, "8 members, got %d", cJSON_GetArraySize(v));
        /* cJSON interop: the tail pointer is kept, so appends and deletes work. */
        cJSON *arr = cJSON_GetObjectItem(v, "a");
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(1));
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(2));
        CHECK(cJSON_GetArraySize(arr) == 2, "append");
        cJSON *nested = cJSON_GetObjectItem(v, "nested");
        cJSON_AddItemToArray(nested, cJSON_CreateString("tail"));
        CHECK(strcmp(cJSON_GetArrayItem(nested, 2)->valuestring, "tail") == 0, "append after parse");
        cJSON *dup = cJSON_Duplicate(v, 1);
        CHECK(strcmp(cJSON_GetObjectItem(dup, "n")->valuestring, "-12.5e1") == 0,
              "duplicate keeps the number text");
        cJSON_Delete(dup);
        cJSON_Delete(v);
    }
    tg_posmap_free(pm);

    const char *scalars[] = {"0", "-0", "\"\"", "true", "false", "null", "[]", "{}", " 1 ", "\t\r\n[\n]\n"};
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
        cJSON *s = parse_n(scalars[i]);
        cJSON_Delete(s);
    }
    /* A text that is not NUL-terminated: only len bytes are read. */
    char nt[4] = {'1', '2', '3', '4'};
    tg_err e;
    cJSON *n = tg_json_parse(nt, 2, NULL, NULL, NULL, &e);
    CHECK(n && n->valueint == 12 && strcmp(n->valuestring, "12") == 0, "len respected");
    cJSON_Delete(n);
}

static void test_positions(void)
{
    tg_posmap *pm;
    const char *s = "{\n"
                    "  \"name\": \"x\",\n"
                    "  \"list\": [1,\n"
                    "           {\"k\": true}],\n"
                    "  \"é\":   [\"éé\", 7]\n"
                    "}";
    cJSON *v = parse(s, &pm);
    if (!v) {
        tg_posmap_free(pm);
        return;
    }
    tg_pos p = tg_posmap_get(pm, v);
    CHECK(p.line == 1 && p.col == 1, "root %d:%d", p.line, p.col);
    p = tg_posmap_get(pm, cJSON_GetObjectItem(v, "name"));
    CHECK(p.line == 2 && p.col == 3, "member at its key: %d:%d", p.line, p.col);
    cJSON *list = cJSON_GetObjectItem(v, "list");
    p = tg_posmap_get(pm, list);
    CHECK(p.line == 3 && p.col == 3, "list member %d:%d", p.line, p.col);
    p = tg_posmap_get(pm, list->child);
    CHECK(p.line == 3 && p.col == 12, "item 0 %d:%d", p.line, p.col);
    p = tg_posmap_get(pm, list->child->next);
    CHECK(p.line == 4 && p.col == 12, "item 1 %d:%d", p.line, p.col);
    p = tg_posmap_get(pm, list->child->next->child);
    CHECK(p.line == 4 && p.col == 13, "nested member %d:%d", p.line, p.col);
    cJSON *e = cJSON_GetObjectItem(v, "é");
    p = tg_posmap_get(pm, e);
    CHECK(p.line == 5 && p.col == 3, "non-ASCII key %d:%d", p.line, p.col);
    /* columns count characters: the 7 is character 17 on its line (byte 20) */
    p = tg_posmap_get(pm, e->child->next);
    CHECK(p.line == 5 && p.col == 17, "column in characters: %d:%d", p.line, p.col);
    cJSON unknown;
    p = tg_posmap_get(pm, &unknown);
    CHECK(p.line == 0 && p.col == 0, "unknown node");
    cJSON_Delete(v);
    tg_posmap_free(pm);

    /* Positions on one long line stay right (incremental counting). */
    tg_buf b = TG_BUF_INIT;
    tg_buf_putc(&b, '[');
    for (int i = 0; i < 2000; i++)
        tg_buf_printf(&b, "%s\"é%d\"", i ? "," : "", i % 10);
    tg_buf_putc(&b, ']');
    v = parse(b.data, &pm);
    if (v) {
        cJSON *last = cJSON_GetArrayItem(v, 1999);
        p = tg_posmap_get(pm, last);
        CHECK(p.line == 1 && p.col == 2 + 1999 * 5, "long line col %d", p.col);
        cJSON_Delete(v);
    }
    tg_posmap_free(pm);
    tg_buf_free(&b);
}

static void check_num(const char *lit, const char *text, double d)
{
    cJSON *v = parse_n(lit);
    if (!v)
        return;
    CHECK(cJSON_IsNumber(v), "%s is a number", lit);
    CHECK(v->valuestring && strcmp(v->valuestring, text) == 0, "%s text: %s", lit,
          v->valuestring ? v->valuestring : "(null)");
    CHECK(v->valuedouble == d || (isinf(d) && isinf(v->valuedouble)), "%s value %.17g", lit,
          v->valuedouble);
    char buf[40];
    CHECK(strcmp(tg_json_number_text(v, buf), text) == 0, "%s number_text", lit);
    cJSON_Delete(v);
}

static void test_numbers(void)
{
    check_num("1.0", "1.0", 1.0);
    check_num("1e400", "1e400", HUGE_VAL);
    check_num("-1e400", "-1e400", -HUGE_VAL);
    check_num("12345678901234567890", "12345678901234567890", 12345678901234567890.0);
    check_num("-0", "-0", 0.0);
    check_num("0.1", "0.1", 0.1);
    check_num("1E+2", "1E+2", 100.0);
    check_num("2.50", "2.50", 2.5);
    check_num("1e-400", "1e-400", 0.0);
    check_num("123456789012345678901234567890e-10", "123456789012345678901234567890e-10",
              12345678901234567890.1234567890);
    check_num("9007199254740993", "9007199254740993", 9007199254740992.0);

    cJSON *v = parse_n("-0");
    CHECK(v && signbit(v->valuedouble), "-0 keeps its sign");
    cJSON_Delete(v);
    v = parse_n("[3000000000, -3000000000, 42]");
    CHECK(v && v->child->valueint == INT32_MAX && v->child->next->valueint == INT32_MIN &&
              v->child->next->next->valueint == 42,
          "valueint saturates like cJSON");
    cJSON_Delete(v);

    /* The fast path must agree with strtod on every literal. */
    srand(12345);
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        char lit[64];
        int kind = rand() % 4;
        long long m = ((long long)rand() << 20) ^ rand();
        if (kind == 0)
            snprintf(lit, sizeof lit, "%lld", m % 1000000000000000LL);
        else if (kind == 1)
            snprintf(lit, sizeof lit, "%lld.%d", m % 100000000LL, rand() % 100000);
        else if (kind == 2)
            snprintf(lit, sizeof lit, "%lld.%de%d", m % 1000LL, rand() % 1000, rand() % 60 - 30);
        else
            snprintf(lit, sizeof lit, "-%d.%05de-%d", rand() % 10, rand() % 100000, rand() % 25);
        tg_err e;
        cJSON *n = tg_json_parse(lit, strlen(lit), NULL, NULL, NULL, &e);
        if (!n || n->valuedouble != strtod(lit, NULL)) {
            if (bad++ < 5)
                CHECK(0, "%s parsed as %.17g", lit, n ? n->valuedouble : 0.0);
        }
        cJSON_Delete(n);
    }
    CHECK(bad == 0, "%d literals disagreed with strtod", bad);

    /* Full-precision doubles across the whole range (the Eisel-Lemire path) and hard cases. */
    bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
        bits ^= (uint64_t)rand() << 62;
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x))
            continue;
        char lit[64];
        snprintf(lit, sizeof lit, "%.*g", 15 + i % 3, x);
        tg_err e;
        cJSON *n = tg_json_parse(lit, strlen(lit), NULL, NULL, NULL, &e);
        double want = strtod(lit, NULL);
        if (!n || memcmp(&n->valuedouble, &want, sizeof want) != 0) {
            if (bad++ < 5)
                CHECK(0, "%s parsed as %.17g, strtod says %.17g", lit, n ? n->valuedouble : 0.0, want);
        }
        cJSON_Delete(n);
    }
    CHECK(bad == 0, "%d full-precision literals disagreed with strtod", bad);
    const char *hard[] = {"2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
                          "1.7976931348623158e308", "1.7976931348623159e308", "4.9e-324",
                          "2.4703282292062327e-324", "2.4703282292062328e-324", "9007199254740993",
                          "9007199254740995", "9007199254740993.0000000001", "18446744073709551615",
                          "18446744073709551616", "9999999999999999999", "10000000000000000000000",
                          "0.000000000000000000000000000000000000000000001", "123456789012345678e-5",
                          "1e23", "8.98846567431158e307", "-0.0e10", "0e-999999", "1e-999999",
                          "7.2057594037927933e16", "3.0000000000000004", "0.30000000000000004",
                          "2.2204460492503131e-16", "1.0000000000000002", "5e-324", "1e-323"};
    for (size_t i = 0; i < sizeof hard / sizeof *hard; i++) {
        tg_err e;
        cJSON *n = tg_json_parse(hard[i], strlen(hard[i]), NULL, NULL, NULL, &e);
        double want = strtod(hard[i], NULL);
        CHECK(n && memcmp(&n->valuedouble, &want, sizeof want) == 0, "%s parsed as %.17g, want %.17g",
              hard[i], n ? n->valuedouble : 0.0, want);
        cJSON_Delete(n);
    }

    /* A number changed by code is printed from its value, not its stale literal. */
    v = parse_n("1.0");
    if (v) {
        cJSON_SetNumberValue(v, 5);
        char buf[40];
        CHECK(strcmp(tg_json_number_text(v, buf), "5") == 0, "stale text ignored: %s", buf);
        cJSON_Delete(v);
    }
}

static void check_str(const char *lit, const char *want)
{
    cJSON *v = parse_n(lit);
    CHECK(v && cJSON_IsString(v) && strcmp(v->valuestring, want) == 0, "%s decoded to [%s]", lit,
          v && v->valuestring ? v->valuestring : "(null)");
    cJSON_Delete(v);
}

/* pairs_only: a surrogate escape without its pair is refused, naming it; pairs still decode. */
static void test_pairs_only(void)
{
    const tg_json_limits strict = {.pairs_only = true};
    static const char *const bad[] = {"\"a\\ud800b\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
                                      "\"\\ud800\\ud800\\udc00\"", "\"\\uD800\"",
                                      "{\"id\": \"\\udfff\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tg_err e = {0};
        cJSON *v = tg_json_parse(bad[i], strlen(bad[i]), NULL, NULL, &strict, &e);
        CHECK(!v && strstr(e.msg, "surrogate pair"), "refused: %s (%s)", bad[i], e.msg);
        cJSON_Delete(v);
    }
    const char *good = "[\"\\ud83d\\ude00\", \"\\uD83D\\uDE00x\", \"\\u00e9\"]";
    tg_err e = {0};
    cJSON *v = tg_json_parse(good, strlen(good), NULL, NULL, &strict, &e);
    CHECK(v && strcmp(cJSON_GetArrayItem(v, 0)->valuestring, "\xF0\x9F\x98\x80") == 0 &&
              strcmp(cJSON_GetArrayItem(v, 1)->valuestring, "\xF0\x9F\x98\x80x") == 0,
          "pairs decode: %s", e.msg);
    cJSON_Delete(v);
}

static void test_strings(void)
{
    check_str("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t");
    check_str("\"\\u00e9\\u20AC\"", "\xC3\xA9\xE2\x82\xAC");
    check_str("\"\\ud83d\\ude00\"", "\xF0\x9F\x98\x80");
    check_str("\"\\uD83D\\uDE00x\"", "\xF0\x9F\x98\x80x");
    check_str("\"a\\ud800b\"", "a\xEF\xBF\xBD" "b");      /* lone high surrogate → U+FFFD */
    check_str("\"\\udc00\"", "\xEF\xBF\xBD");             /* lone low surrogate */
    check_str("\"\\ud800\\u0041\"", "\xEF\xBF\xBD" "A"); /* high + non-low */
    check_str("\"\\ud800\\ud800\\udc00\"", "\xEF\xBF\xBD\xF0\x90\x80\x80");
    check_str("\"é€😀\x7f\"", "é€😀\x7f");
    check_str("\"0123456789abcdefghijklmnopqrstuvwxyz0123456789\\n0123456789abcdef\"",
              "0123456789abcdefghijklmnopqrstuvwxyz0123456789\n0123456789abcdef");
    cJSON *v = parse_n("{\"k\\u00e9y\\n\": 1}");
    CHECK(v && v->child && strcmp(v->child->string, "k\xC3\xA9y\n") == 0, "escaped key");
    cJSON_Delete(v);
}

static void test_errors(void)
{
    expect_err("", 1, 1, "empty input: expected a JSON value");
    expect_err("  \n\t ", 2, 3, "empty input");
    expect_err("[1,2,]", 1, 5, "trailing comma before ']'");
    expect_err("{\"a\": 1,\n }", 1, 8, "trailing comma before '}'");
    expect_err("\"a\\x\"", 1, 3, "invalid escape '\\x'");
    expect_err("\"\\u12G4\"", 1, 2, "expected 4 hex digits");
    expect_err("\"\\u12\"", 1, 2, "expected 4 hex digits");
    expect_err("[\"ok\", \"\\u0000\"]", 1, 9, "\\u0000 (NUL) is not supported");
    expect_err("\"ab\xFF\"", 1, 4, "byte 0xFF never appears in UTF-8");
    expect_err("\"a\x80\"", 1, 3, "unexpected continuation byte 0x80");
    expect_err("\"\xC3\"", 1, 2, "truncated sequence");
    expect_err("\"\xE2\x82\"", 1, 2, "truncated sequence");
    expect_err("\"\xC0\xAF\"", 1, 2, "overlong encoding");
    expect_err("\"\xE0\x80\xAF\"", 1, 2, "overlong encoding");
    expect_err("\"\xF0\x80\x80\xAF\"", 1, 2, "overlong encoding");
    expect_err("\"é\xED\xA0\x80\"", 1, 3, "encoded surrogate");
    expect_err("\"\xF4\x90\x80\x80\"", 1, 2, "above U+10FFFF");
    expect_err("[1, \xFF]", 1, 5, "byte 0xFF never appears");
    expect_err("[1, é]", 1, 5, "unexpected 'é'");
    expect_err("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", 3, 2, "duplicate key \"a\": first defined at line 1, column 2");
    expect_err("[1] x", 1, 5, "expected end of input");
    expect_err("{} {}", 1, 4, "only one value is allowed");
    expect_err("\"abc", 1, 1, "unterminated string");
    expect_err("\"abc\\", 1, 1, "unterminated string");
    expect_err("[\"a\nb\"]", 1, 4, "unescaped line break");
    expect_err("\"a\tb\"", 1, 3, "unescaped control character U+0009");
    expect_err("{\"a\" 1}", 1, 6, "expected ':' after the key \"a\"");
    expect_err("{\"a\": 1 \"b\": 2}", 1, 9, "missing ','");
    expect_err("[1 2]", 1, 4, "expected ',' or ']'");
    expect_err("{'a': 1}", 1, 2, "double quotes");
    expect_err("{a: 1}", 1, 2, "expected a string key");
    expect_err("{\"a\":}", 1, 6, "expected a JSON value");
    expect_err("[NaN]", 1, 2, "NaN and Infinity are not valid JSON");
    expect_err("Infinity", 1, 1, "not valid JSON");
    expect_err("-Infinity", 1, 1, "-Infinity is not valid JSON");
    expect_err("[1, // c\n 2]", 1, 5, "comments are not allowed");
    expect_err("01", 1, 1, "leading zeros");
    expect_err("-012", 1, 1, "leading zeros");
    expect_err("+1", 1, 1, "cannot start with '+'");
    expect_err(".5", 1, 1, "must start with a digit");
    expect_err("1.", 1, 3, "a digit after the decimal point");
    expect_err("1.e5", 1, 3, "a digit after the decimal point");
    expect_err("1e", 1, 3, "a digit in the exponent");
    expect_err("1e+", 1, 4, "a digit in the exponent");
    expect_err("-", 1, 2, "a digit after '-'");
    expect_err("[tru]", 1, 2, "expected 'true'");
    expect_err("nul", 1, 1, "expected 'null'");
    expect_err("[1,", 1, 4, "unexpected end of input: expected a JSON value");
    expect_err("{\"a\":1", 1, 7, "unexpected end of input: expected ',' or '}'");
    expect_err("[\x01]", 1, 2, "control character U+0001");
    expect_err_len("[1,\0]", 5, 1, 4, "control character U+0000");
    /* Errors on later lines count lines and characters. */
    expect_err("{\n  \"é\": [1,\n        2,,]}", 3, 11, "expected a JSON value");
}

static void test_depth(void)
{
    tg_buf b = TG_BUF_INIT;
    for (int i = 0; i < 512; i++)
        tg_buf_putc(&b, '[');
    for (int i = 0; i < 512; i++)
        tg_buf_putc(&b, ']');
    cJSON *v = parse_n(b.data);
    cJSON_Delete(v);
    tg_buf_reset(&b);
    for (int i = 0; i < 100000; i++)
        tg_buf_putc(&b, i % 2 ? '[' : '{');
    tg_err e;
    v = tg_json_parse(b.data, b.len, NULL, NULL, NULL, &e);
    CHECK(v == NULL && e.line == 1 && e.col == 1 + 1, "odd nesting %d:%d %s", e.line, e.col, e.msg);
    tg_buf_reset(&b);
    for (int i = 0; i < 100000; i++)
        tg_buf_putc(&b, '[');
    expect_err_len(b.data, b.len, 1, 513, "nesting deeper than 512 levels");
    tg_json_limits lim = {.max_depth = 8};
    v = tg_json_parse("[[[[[[[[[1]]]]]]]]]", 19, NULL, NULL, &lim, &e);
    CHECK(v == NULL && e.col == 9, "custom limit at col %d", e.col);
    CHECK_CONTAINS(e.msg, "deeper than 8 levels");
    v = tg_json_parse("[[[[[[[[1]]]]]]]]", 17, NULL, NULL, &lim, &e);
    CHECK(v != NULL, "exactly at the limit is fine");
    cJSON_Delete(v);
    tg_buf_free(&b);
}

static void test_big_objects(void)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_putc(&b, '{');
    for (int i = 0; i < 5000; i++)
        tg_buf_printf(&b, "%s\"k%d\": {\"a\": %d, \"b\": [%d]}", i ? ",\n" : "", i, i, i);
    tg_buf_putc(&b, '}');
    cJSON *v = parse_n(b.data);
    CHECK(v && cJSON_GetArraySize(v) == 5000, "5000 keys");
    CHECK(v && cJSON_GetObjectItem(v, "k4999")->child->valueint == 4999, "last key");
    cJSON_Delete(v);
    /* A duplicate far apart in a big object is found (hash path) with both places named. */
    tg_buf_truncate(&b, b.len - 1);
    tg_buf_puts(&b, ",\n\"k1234\": 0}");
    expect_err(b.data, 5001, 1, "duplicate key \"k1234\": first defined at line 1235, column 1");
    tg_buf_free(&b);
}

static void test_arena(void)
{
    tg_arena a = TG_ARENA_INIT;
    tg_posmap *pm = tg_posmap_new();
    long sum = 0;
    int ok = 1;
    for (int i = 0; i < 10000; i++) {
        char line[256];
        snprintf(line, sizeof line,
                 "{\"id\": %d, \"name\": \"row \\u00e9 %d\", \"tags\": [\"a\", \"b\"], \"x\": 1.5e%d}",
                 i, i, i % 10);
        tg_err e;
        cJSON *v = tg_json_parse(line, strlen(line), &a, i % 2 ? pm : NULL, NULL, &e);
        if (!v) {
            ok = 0;
            break;
        }
        sum += cJSON_GetObjectItem(v, "id")->valueint;
        if (strcmp(cJSON_GetObjectItem(v, "name")->valuestring + 4, "\xC3\xA9") < 0)
            ok = 0;
        tg_arena_reset(&a);
    }
    CHECK(ok && sum == 9999L * 10000 / 2, "10000 arena parses, sum %ld", sum);
    /* Errors in arena mode leave nothing to free but the arena. */
    tg_err e;
    CHECK(tg_json_parse("[{\"a\": [1, 2, {\"b\": x}]}]", 25, &a, NULL, NULL, &e) == NULL, "error");
    tg_arena_free(&a);
    tg_posmap_free(pm);
}

static void test_pointer(void)
{
    cJSON *v = parse_n("{\"a\": [10, {\"b\": true}], \"m~n\": 1, \"x/y\": 2, \"\": 3, \"arr\": [0,1,2,3,4,5,6,7,8,9,10,11]}");
    if (!v)
        return;
    CHECK(tg_json_pointer_get(v, "") == v, "root");
    CHECK(tg_json_pointer_get(v, "/a") == cJSON_GetObjectItem(v, "a"), "/a");
    CHECK(tg_json_pointer_get(v, "/a/0")->valueint == 10, "/a/0");
    CHECK(cJSON_IsTrue(tg_json_pointer_get(v, "/a/1/b")), "/a/1/b");
    CHECK(tg_json_pointer_get(v, "/m~0n")->valueint == 1, "~0");
    CHECK(tg_json_pointer_get(v, "/x~1y")->valueint == 2, "~1");
    CHECK(tg_json_pointer_get(v, "/")->valueint == 3, "empty key");
    CHECK(tg_json_pointer_get(v, "/arr/11")->valueint == 11, "/arr/11");
    CHECK(tg_json_pointer_get(v, "/arr/01") == NULL, "leading zero");
    CHECK(tg_json_pointer_get(v, "/arr/12") == NULL, "out of range");
    CHECK(tg_json_pointer_get(v, "/arr/-") == NULL, "-");
    CHECK(tg_json_pointer_get(v, "/arr/-1") == NULL, "negative");
    CHECK(tg_json_pointer_get(v, "/arr/99999999999999999999999") == NULL, "overflow");
    CHECK(tg_json_pointer_get(v, "/arr/") == NULL, "empty index");
    CHECK(tg_json_pointer_get(v, "a") == NULL, "no leading slash");
    CHECK(tg_json_pointer_get(v, "/nope/x") == NULL, "missing");
    CHECK(tg_json_pointer_get(v, "/m~2n") == NULL, "bad escape");
    CHECK(tg_json_pointer_get(v, "/m~") == NULL, "dangling ~");
    CHECK(tg_json_pointer_get(v, "/a/0/x") == NULL, "into a scalar");
    CHECK(tg_json_pointer_get(NULL, "") == NULL, "NULL root");
    cJSON_Delete(v);
}

static void roundtrip(const char *in, const char *pretty, const char *compact)
{
    cJSON *v = parse_n(in);
    if (!v)
        return;
    char *p = tg_json_print(v), *c = tg_json_print_compact(v);
    CHECK(strcmp(p, pretty) == 0, "pretty of %s:\n%s", in, p);
    CHECK(strcmp(c, compact) == 0, "compact of %s: %s", in, c);
    cJSON *v2 = parse_n(p);
    char *p2 = v2 ? tg_json_print(v2) : NULL;
    CHECK(p2 && strcmp(p, p2) == 0, "print is a fixed point");
    free(p);
    free(c);
    free(p2);
    cJSON_Delete(v);
    cJSON_Delete(v2);
}

static void test_print(void)
{
    roundtrip("{\"b\":1,\"a\":[1.50,1e400,{},[],\"é\\u0001\\\"\\\\\\n\",true,false,null],\"c\":{\"d\":{}}}",
              "{\n"
              "  \"b\": 1,\n"
              "  \"a\": [\n"
              "    1.50,\n"
              "    1e400,\n"
              "    {},\n"
              "    [],\n"
              "    \"é\\u0001\\\"\\\\\\n\",\n"
              "    true,\n"
              "    false,\n"
              "    null\n"
              "  ],\n"
              "  \"c\": {\n"
              "    \"d\": {}\n"
              "  }\n"
              "}\n",
              "{\"b\":1,\"a\":[1.50,1e400,{},[],\"é\\u0001\\\"\\\\\\n\",true,false,null],\"c\":{\"d\":{}}}");
    roundtrip("3", "3\n", "3");
    roundtrip("\"\\u007f\\t\\b\\f\\r/\"", "\"\x7f\\t\\b\\f\\r/\"\n", "\"\x7f\\t\\b\\f\\r/\"");

    /* Numbers without literal text: shortest round-trip form, integers without ".0". */
    cJSON *a = cJSON_CreateArray();
    double vals[] = {3.0, 0.1, 1.0 / 3, 1e300, -2.5, 0.0, 123456789012.0, 1e21, 5e-324};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(vals[i]));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
    cJSON_AddItemToArray(a, cJSON_CreateString("tab\there"));
    char *c = tg_json_print_compact(a);
    CHECK(strcmp(c, "[3,0.1,0.3333333333333333,1e+300,-2.5,0,123456789012,1e+21,4.94065645841247e-324,"
                    "null,null,\"tab\\there\"]") == 0,
          "numbers: %s", c);
    free(c);
    for (const cJSON *n = a->child; n && cJSON_IsNumber(n); n = n->next) {
        char buf[40];
        const char *t = tg_json_number_text(n, buf);
        if (isfinite(n->valuedouble))
            CHECK(strtod(t, NULL) == n->valuedouble, "%s round-trips", t);
    }
    cJSON_Delete(a);
    char *np = tg_json_print(NULL);
    CHECK(strcmp(np, "null\n") == 0, "NULL prints null");
    free(np);
}

static void test_posmap(void)
{
    tg_posmap *m = tg_posmap_new();
    enum { N = 50000 };
    cJSON *nodes = calloc(N, sizeof(cJSON));
    for (int i = 0; i < N; i++)
        tg_posmap_put(m, &nodes[i], i + 1, i % 80 + 1);
    tg_posmap_put(m, &nodes[7], 99, 98); /* overwrite */
    int ok = 1;
    for (int i = 0; i < N; i++) {
        tg_pos p = tg_posmap_get(m, &nodes[i]);
        if (i != 7 && (p.line != i + 1 || p.col != i % 80 + 1))
            ok = 0;
    }
    CHECK(ok, "50000 positions");
    tg_pos p = tg_posmap_get(m, &nodes[7]);
    CHECK(p.line == 99 && p.col == 98, "overwrite");
    cJSON other;
    p = tg_posmap_get(m, &other);
    CHECK(p.line == 0 && p.col == 0, "absent");
    p = tg_posmap_get(NULL, &other);
    CHECK(p.line == 0, "NULL map");
    tg_posmap_free(m);
    free(nodes);
}

static void test_utf8_helpers(void)
{
    tg_err e;
    tg_err_clear(&e);
    const char ok[] = "plain ascii text that is long enough for the word loop é € 😀";
    CHECK(tg_utf8_validate(ok, sizeof ok - 1, &e) == 0, "valid");
    const char bad[] = "line one\nline two é\xC3(";
    CHECK(tg_utf8_validate(bad, sizeof bad - 1, &e) == -1, "invalid");
    CHECK(e.line == 2 && e.col == 11, "at %d:%d", e.line, e.col);
    CHECK_CONTAINS(e.msg, "truncated sequence");
    tg_pos p = tg_text_pos("ab\ncé\nx", 7, 6);
    CHECK(p.line == 2 && p.col == 3, "text_pos %d:%d", p.line, p.col);
}

static void test_getters(void)
{
    cJSON *o = parse_n("{\"s\": \"x\", \"n\": 2.5, \"a\": [\"p\", 1, \"q\"], \"S\": 1}");
    CHECK(tg_json_get(o, "s") && tg_json_get(o, "S") != tg_json_get(o, "s"), "case-sensitive get");
    CHECK(tg_json_get(o, "nope") == NULL && tg_json_get(NULL, "s") == NULL, "absent");
    const cJSON *arr = tg_json_get(o, "a");
    CHECK(tg_json_get(arr, "0") == NULL, "get on an array is NULL");
    CHECK(strcmp(tg_json_get_string(o, "s"), "x") == 0, "get_string");
    CHECK(tg_json_get_string(o, "n") == NULL, "get_string of a number is NULL");
    CHECK(tg_json_get_number(o, "n", -1) == 2.5, "get_number");
    CHECK(tg_json_get_number(o, "s", -1) == -1 && tg_json_get_number(o, "zz", 7) == 7,
          "get_number falls back");
    CHECK(tg_json_array_has_string(arr, "q") && !tg_json_array_has_string(arr, "1"),
          "array_has_string compares strings only");
    CHECK(!tg_json_array_has_string(tg_json_get(o, "s"), "x") &&
              !tg_json_array_has_string(NULL, "x"),
          "array_has_string of a non-array");
    cJSON_Delete(o);

    char q[128];
    tg_json_quote_for_message("a\"b", q, sizeof q);
    CHECK(strcmp(q, "\"a\\\"b\"") == 0, "quoted: %s", q);
    char longkey[200];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    tg_json_quote_for_message(longkey, q, sizeof q);
    CHECK(strlen(q) == 80 && strcmp(q + 76, "...\"") == 0, "shortened: %s", q);
    /* The cut never splits a UTF-8 sequence: 40 two-byte characters. */
    char utf[81] = "";
    for (int i = 0; i < 40; i++)
        strcat(utf, "\xC3\xA9");
    tg_json_quote_for_message(utf, q, sizeof q);
    tg_err e;
    CHECK(tg_utf8_validate(q, strlen(q), &e) == 0 && strcmp(q + strlen(q) - 4, "...\"") == 0,
          "cut at a character boundary: %s", q);
}

/* Names from the file system, made printable: valid UTF-8 stays, the rest is \xNN. */
static void test_printable(void)
{
    static const char *const cases[][2] = {
        {"plain", "plain"},
        {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"}, /* é, € */
        {"b\xff" "ad", "b\\xff" "ad"},                          /* not UTF-8 */
        {"a\nb\tc", "a\\x0ab\\x09c"},                         /* control characters */
        {"\xc0\xaf", "\\xc0\\xaf"},                            /* overlong '/' */
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},                 /* a surrogate */
        {"\xe2\x82", "\\xe2\\x82"},                            /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *p = tg_utf8_printable(cases[i][0]);
        tg_err e = {0};
        CHECK(strcmp(p, cases[i][1]) == 0, "printable %zu: %s", i, p);
        CHECK(tg_utf8_validate(p, strlen(p), &e) == 0, "printable %zu is UTF-8", i);
        free(p);
    }
}

/* Whatever bytes a string holds, what toolgen prints is valid UTF-8 JSON: a byte that does not
 * start a well-formed sequence becomes \ufffd; well-formed text is written as it is. */
static void test_print_invalid_utf8(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"bad\xff\nname.txt", "\"bad\\ufffd\\nname.txt\""},
        {"\x80", "\"\\ufffd\""},
        {"a\xe2\x82", "\"a\\ufffd\\ufffd\""},         /* truncated at the end */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""}, /* an encoded surrogate */
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},              /* overlong '/' */
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *v = cJSON_CreateString(cases[i].in);
        char *out = tg_json_print_compact(v);
        tg_err err = {0};
        CHECK(strcmp(out, cases[i].out) == 0, "case %zu printed as %s", i, out);
        CHECK(tg_utf8_validate(out, strlen(out), &err) == 0, "case %zu is valid UTF-8", i);
        cJSON *back = tg_json_parse(out, strlen(out), NULL, NULL, NULL, &err);
        CHECK(back != NULL, "case %zu parses back: %s", i, err.msg);
        cJSON_Delete(back);
        free(out);
        cJSON_Delete(v);
    }
}

/* RFC 7386's examples (Appendix A), and key order kept for a member replaced in place. */
static void test_merge_patch(void)
{
    static const char *const cases[][3] = {
        {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
        {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
        {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
        {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
        {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
        {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
        {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
        {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
        {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
        {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
        {"{\"x\":1,\"y\":2,\"z\":3}", "{\"y\":{\"k\":true}}", "{\"x\":1,\"y\":{\"k\":true},\"z\":3}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *t = cJSON_Parse(cases[i][0]), *p = cJSON_Parse(cases[i][1]);
        tg_json_merge_patch(&t, p);
        char *got = cJSON_PrintUnformatted(t);
        CHECK(got && strcmp(got, cases[i][2]) == 0, "merge patch %s + %s: got %s, want %s",
              cases[i][0], cases[i][1], got ? got : "(null)", cases[i][2]);
        free(got);
        cJSON_Delete(t);
        cJSON_Delete(p);
    }
    cJSON *t = cJSON_Parse("{\"a\":1}"), *null = cJSON_CreateNull();
    tg_json_merge_patch(&t, null);
    CHECK(t == NULL, "a null patch removes the whole target");
    cJSON_Delete(null);
}

int main(void)
{
    test_merge_patch();
    test_printable();
    test_valid_kinds();
    test_positions();
    test_numbers();
    test_strings();
    test_pairs_only();
    test_errors();
    test_depth();
    test_big_objects();
    test_arena();
    test_pointer();
    test_print();
    test_posmap();
    test_utf8_helpers();
    test_getters();
    test_print_invalid_utf8();
    return tl_finish("test_json");
}
