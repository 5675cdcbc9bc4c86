/* test_yaml.c — the YAML loader (core schema, positions, hostile input) and tg_doc_*. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/doc.h"
#include "testlib.h"

/* ---- node counting through cJSON's hooks: proves alias expansion never over-allocates ---- */

static size_t node_allocs;
static void *count_malloc(size_t n)
{
    if (n == sizeof(cJSON))
        node_allocs++;
    return malloc(n);
}
static void count_free(void *p)
{
    free(p);
}
static void hooks_on(void)
{
    cJSON_Hooks h = {count_malloc, count_free};
    cJSON_InitHooks(&h);
    node_allocs = 0;
}
static void hooks_off(void)
{
    cJSON_InitHooks(NULL);
}

/* ---- helpers ---- */

static int load(const char *s, const tg_doc_limits *lim, tg_doc *d, tg_err *e)
{
    tg_err_clear(e);
    return tg_doc_parse_yaml(s, strlen(s), "t.yaml", lim, d, e);
}

static cJSON *ok_doc(const char *s, tg_doc *d)
{
    tg_err e;
    if (load(s, NULL, d, &e) < 0) {
        CHECK(0, "unexpected error for [%s]: %d:%d %s", s, e.line, e.col, e.msg);
        return NULL;
    }
    return d->root;
}

/* Expects an error at line:col (col 0 = any) whose "file:line:col: msg" contains part. */
static void expect_err_lim(const char *s, const tg_doc_limits *lim, int line, int col, const char *part)
{
    tg_doc d;
    tg_err e;
    int rc = load(s, lim, &d, &e);
    CHECK(rc == -1, "expected an error for [%.60s]", s);
    if (rc == 0) {
        tg_doc_free(&d);
        return;
    }
    CHECK(d.root == NULL && d.pos == NULL && d.file == NULL, "out left empty");
    CHECK(e.line == line && (col == 0 || e.col == col), "[%.60s]: expected %d:%d, got %d:%d (%s)", s,
          line, col, e.line, e.col, e.msg);
    char full[2200];
    tg_err_format(&e, full, sizeof full);
    const char *fp = full; /* a pointer, so the macro's NULL test is meaningful */
    CHECK_CONTAINS(fp, part);
    CHECK(strncmp(full, "t.yaml:", 7) == 0, "file named: %s", full);
}

static void expect_err(const char *s, int line, int col, const char *part)
{
    expect_err_lim(s, NULL, line, col, part);
}

static void check_pos(const tg_doc *d, const char *ptr, int line, int col)
{
    const cJSON *n = tg_json_pointer_get(d->root, ptr);
    tg_pos p = tg_doc_pos(d, n);
    CHECK(n && p.line == line && p.col == col, "%s at %d:%d, expected %d:%d", ptr, p.line, p.col, line,
          col);
}

/* ---- core schema ---- */

static void want_str(const cJSON *root, const char *key, const char *val)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, val) == 0, "%s should be the string \"%s\"", key,
          val);
}

static void want_num(const cJSON *root, const char *key, const char *text, double val)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    CHECK(cJSON_IsNumber(v), "%s should be a number", key);
    if (!cJSON_IsNumber(v))
        return;
    CHECK(v->valuestring && strcmp(v->valuestring, text) == 0, "%s text %s, expected %s", key,
          v->valuestring ? v->valuestring : "(null)", text);
    CHECK(v->valuedouble == val || (isinf(val) && isinf(v->valuedouble)), "%s value %.17g", key,
          v->valuedouble);
}

static void want_kind(const cJSON *root, const char *key, int type)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    CHECK(v && (v->type & 0xFF) == type, "%s has type %d, expected %d", key, v ? v->type & 0xFF : -1,
          type);
}

static void test_core_schema(void)
{
    tg_doc d;
    cJSON *r = ok_doc("yes: yes\nno: no\non: on\noff: off\ny: y\n"
                      "hex: 0x1F\noct: 0o17\nhexbig: 0xFFFFFFFFFFFFFFFF\nzeros: 0777\n"
                      "tilde: ~\nnull1: null\nnull2: Null\nnull3: NULL\nempty:\nnotnull: nULL\n"
                      "qtrue: \"true\"\nqnull: 'null'\nqnum: \"12\"\n"
                      "t1: true\nt2: True\nt3: TRUE\nf1: false\nf2: False\nf3: FALSE\nnotbool: tRUE\n"
                      "dec: 1.50\nnegzero: -0\nplus: +12\nunderscore: 1_000\nhalf: .5\none: 1.\n"
                      "exp: 1e3\nnexp: -.5E-3\nlead: 007\nbig: 12345678901234567890\n"
                      "huge: 1e400\nneg: -42\nbin: 0b101\nsexa: 1:30\ndate: 2001-12-14\n"
                      "lit: |\n  a\n  b\nfold: >\n  a\n  b\n"
                      "str: !!str 123\nint: !!int \"42\"\nflt: !!float 1\nbool: !!bool true\n"
                      "nul: !!null \"\"\nnonspecific: ! 12\nmap: !!map {a: 1}\nseq: !!seq [1]\n"
                      "1: numeric key\ntrue: bool key\n~: null key\n",
                      &d);
    if (!r)
        return;
    want_str(r, "yes", "yes");
    want_str(r, "no", "no");
    want_str(r, "on", "on");
    want_str(r, "off", "off");
    want_str(r, "y", "y");
    want_num(r, "hex", "31", 31);
    want_num(r, "oct", "15", 15);
    want_num(r, "hexbig", "18446744073709551615", 18446744073709551615.0);
    want_num(r, "zeros", "777", 777);
    want_kind(r, "tilde", cJSON_NULL);
    want_kind(r, "null1", cJSON_NULL);
    want_kind(r, "null2", cJSON_NULL);
    want_kind(r, "null3", cJSON_NULL);
    want_kind(r, "empty", cJSON_NULL);
    want_str(r, "notnull", "nULL");
    want_str(r, "qtrue", "true");
    want_str(r, "qnull", "null");
    want_str(r, "qnum", "12");
    want_kind(r, "t1", cJSON_True);
    want_kind(r, "t2", cJSON_True);
    want_kind(r, "t3", cJSON_True);
    want_kind(r, "f1", cJSON_False);
    want_kind(r, "f2", cJSON_False);
    want_kind(r, "f3", cJSON_False);
    want_str(r, "notbool", "tRUE");
    want_num(r, "dec", "1.50", 1.5);
    want_num(r, "negzero", "-0", 0.0);
    CHECK(signbit(cJSON_GetObjectItem(r, "negzero")->valuedouble), "-0 keeps its sign");
    want_num(r, "plus", "12", 12);
    want_str(r, "underscore", "1_000");
    want_num(r, "half", "0.5", 0.5);
    want_num(r, "one", "1.0", 1.0);
    want_num(r, "exp", "1e3", 1000);
    want_num(r, "nexp", "-0.5E-3", -0.0005);
    want_num(r, "lead", "7", 7);
    want_num(r, "big", "12345678901234567890", 12345678901234567890.0);
    want_num(r, "huge", "1e400", HUGE_VAL);
    want_num(r, "neg", "-42", -42);
    want_str(r, "bin", "0b101");
    want_str(r, "sexa", "1:30");
    want_str(r, "date", "2001-12-14");
    want_str(r, "lit", "a\nb\n");
    want_str(r, "fold", "a b\n");
    want_str(r, "str", "123");
    want_num(r, "int", "42", 42);
    want_num(r, "flt", "1", 1);
    want_kind(r, "bool", cJSON_True);
    want_kind(r, "nul", cJSON_NULL);
    want_str(r, "nonspecific", "12");
    want_kind(r, "map", cJSON_Object);
    want_kind(r, "seq", cJSON_Array);
    want_str(r, "1", "numeric key");
    want_str(r, "true", "bool key");
    want_str(r, "~", "null key");
    /* Every number's text is valid JSON: printing and re-parsing as JSON works. */
    char *js = tg_json_print(r);
    tg_err e;
    cJSON *back = tg_json_parse(js, strlen(js), NULL, NULL, NULL, &e);
    CHECK(back != NULL, "printed YAML is valid JSON: %s", e.msg);
    cJSON_Delete(back);
    free(js);
    tg_doc_free(&d);

    expect_err("a: .inf", 1, 4, "'.inf' is not a finite number and JSON cannot hold it");
    expect_err("a: -.Inf", 1, 4, "not a finite number");
    expect_err("a: [.NaN]", 1, 5, "not a finite number");
    expect_err("a: !!float .inf", 1, 4, "not a finite number");
    expect_err("a: !!int abc", 1, 4, "\"abc\" is not an integer");
    expect_err("a: !!int 1.5", 1, 4, "is not an integer");
    expect_err("a: !!bool yes", 1, 4, "is not a boolean");
    expect_err("a: !!null x", 1, 4, "is not null");
    expect_err("a: 0x1FFFFFFFFFFFFFFFF", 1, 4, "does not fit in 64 bits");
    expect_err("a: !!binary aGVsbG8=", 1, 4, "unsupported tag !!binary");
    expect_err("a: !custom x", 1, 4, "unsupported tag !custom");
    expect_err("a: !!set {x: ~}", 1, 4, "unsupported tag !!set");
    expect_err("a: !!seq {x: 1}", 1, 4, "tag !!seq does not fit a mapping");
    expect_err("a: !!map x", 1, 4, "tag !!map on a scalar");
    expect_err("a: \"x\\0y\"", 1, 4, "NUL character");
}

/* ---- positions ---- */

static void test_positions(void)
{
    tg_doc d;
    const char *s = "name: demo\n"          /* 1 */
                    "list:\n"               /* 2 */
                    "  - 1\n"               /* 3 */
                    "  - key: v\n"          /* 4 */
                    "    other: [a, {b: c}]\n" /* 5 */
                    "  -   \"q\"\n"         /* 6 */
                    "ééé: {x: 1}\n"         /* 7 */
                    "anc: &A\n"             /* 8 */
                    "  inner: 1\n"          /* 9 */
                    "use: *A\n"             /* 10 */
                    "seq: [*A]\n";          /* 11 */
    if (!ok_doc(s, &d))
        return;
    check_pos(&d, "", 1, 1);
    check_pos(&d, "/name", 1, 1);
    check_pos(&d, "/list", 2, 1);
    check_pos(&d, "/list/0", 3, 5);
    check_pos(&d, "/list/1", 4, 5);
    check_pos(&d, "/list/1/key", 4, 5);
    check_pos(&d, "/list/1/other", 5, 5);
    check_pos(&d, "/list/1/other/0", 5, 13);
    check_pos(&d, "/list/1/other/1", 5, 16);
    check_pos(&d, "/list/1/other/1/b", 5, 17);
    check_pos(&d, "/list/2", 6, 7);
    check_pos(&d, "/ééé", 7, 1);
    check_pos(&d, "/ééé/x", 7, 7); /* columns count characters */
    check_pos(&d, "/anc", 8, 1);
    check_pos(&d, "/anc/inner", 9, 3);
    check_pos(&d, "/use", 10, 1);       /* an alias copy sits where it is used... */
    check_pos(&d, "/use/inner", 9, 3);  /* ...its insides where the anchor wrote them */
    check_pos(&d, "/seq/0", 11, 7);
    check_pos(&d, "/seq/0/inner", 9, 3);
    const cJSON *use = tg_json_pointer_get(d.root, "/use");
    CHECK(use && use != tg_json_pointer_get(d.root, "/anc") && cJSON_GetObjectItem(use, "inner"),
          "alias is a deep copy");

    /* tg_doc_pointer_pos: as deep as the pointer resolves. */
    tg_pos p = tg_doc_pointer_pos(&d, "/list/1/missing");
    CHECK(p.line == 4 && p.col == 5, "missing member → its parent: %d:%d", p.line, p.col);
    p = tg_doc_pointer_pos(&d, "/list/1/other/1/b/deeper/still");
    CHECK(p.line == 5 && p.col == 17, "past a scalar: %d:%d", p.line, p.col);
    p = tg_doc_pointer_pos(&d, "/list/9");
    CHECK(p.line == 2 && p.col == 1, "index out of range: %d:%d", p.line, p.col);
    p = tg_doc_pointer_pos(&d, "");
    CHECK(p.line == 1 && p.col == 1, "root");
    p = tg_doc_pointer_pos(&d, "/ééé/x");
    CHECK(p.line == 7 && p.col == 7, "non-ASCII pointer %d:%d", p.line, p.col);
    tg_doc_free(&d);

    /* A BOM is skipped and does not shift columns. */
    if (ok_doc("\xEF\xBB\xBF" "a: [1, 2]\n", &d)) {
        check_pos(&d, "/a/1", 1, 8);
        tg_doc_free(&d);
    }
}

/* ---- structure rules ---- */

static void test_structure(void)
{
    tg_doc d;
    tg_err e;
    CHECK(load("", NULL, &d, &e) == 0 && cJSON_IsNull(d.root), "empty file → null");
    tg_doc_free(&d);
    CHECK(load("# just a comment\n\n", NULL, &d, &e) == 0 && cJSON_IsNull(d.root), "comments → null");
    tg_doc_free(&d);
    CHECK(load("---\n", NULL, &d, &e) == 0 && cJSON_IsNull(d.root), "--- → null");
    tg_doc_free(&d);
    CHECK(load("--- hello\n...\n", NULL, &d, &e) == 0 && cJSON_IsString(d.root), "one explicit document");
    tg_doc_free(&d);

    expect_err("a: 1\n---\nb: 2\n", 2, 1, "a second YAML document starts here");
    expect_err("a: 1\n...\nb: 2\n", 3, 1, "a file holds one YAML document");
    expect_err("name: x\nother: 1\nname: y\n", 3, 1,
               "t.yaml:3:1: duplicate key \"name\": first defined at line 1, column 1");
    expect_err("top:\n  a: 1\n  b: {c: 1, c: 2}\n", 3, 13, "duplicate key \"c\": first defined at line 3, column 7");
    expect_err("'q': 1\n\"q\": 2\n", 2, 1, "duplicate key \"q\"");
    /* Duplicate keys in a big mapping (the hashed path). */
    tg_buf b = TG_BUF_INIT;
    for (int i = 0; i < 3000; i++)
        tg_buf_printf(&b, "k%d: %d\n", i, i);
    tg_buf_puts(&b, "k1500: again\n");
    expect_err(b.data, 3001, 1, "duplicate key \"k1500\": first defined at line 1501, column 1");
    tg_buf_free(&b);

    expect_err("base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n", 3, 3,
               "merge keys (<<) are not supported in YAML 1.2; repeat the keys or use an anchor on the "
               "whole mapping");
    CHECK(load("\"<<\": literal\n", NULL, &d, &e) == 0, "a quoted << is an ordinary key");
    tg_doc_free(&d);
    expect_err("? [a, b]\n: 1\n", 1, 3, "a sequence cannot be a mapping key");
    expect_err("{a: 1, {b: 1}: 2}", 1, 8, "a mapping cannot be a mapping key");
    expect_err("x: &k key\n*k : 1\n", 2, 1, "cannot be a mapping key");
    expect_err("a: *nope\n", 1, 4, "unknown alias *nope: no anchor &nope is defined before it");
    /* libyaml's own errors come with line:col and context. */
    expect_err("a: [1, 2\nb: 3\n", 2, 2, "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence that started at line 1, column 4)");
    expect_err("a:\n\tb: 1\n", 2, 1, "tabs");
    expect_err("a: b: c\n", 1, 5, "mapping values are not allowed");
    expect_err("a: \"unterminated\n", 2, 1, "found unexpected end of stream");
    expect_err("a: @x\n", 1, 4, "quote the value");
    expect_err("a: x\x01y\n", 1, 5, "invalid character U+0001");
}

/* ---- hostile input ---- */

static void billion_laughs(tg_buf *b, int levels, int fan)
{
    tg_buf_puts(b, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i < levels; i++) {
        tg_buf_printf(b, "l%d: &l%d [", i, i);
        for (int k = 0; k < fan; k++)
            tg_buf_printf(b, "%s*l%d", k ? ", " : "", i - 1);
        tg_buf_puts(b, "]\n");
    }
}

static void test_billion_laughs(void)
{
    tg_buf b = TG_BUF_INIT;
    billion_laughs(&b, 9, 10); /* 10^9 strings if expanded */
    tg_doc d;
    tg_err e;
    hooks_on();
    int rc = load(b.data, NULL, &d, &e);
    size_t made = node_allocs;
    hooks_off();
    CHECK(rc == -1, "billion laughs must fail");
    if (rc == 0)
        tg_doc_free(&d);
    /* stopped by the count of nodes made, not after expanding: no more than the limit exist */
    CHECK(made <= 100000 + 200, "made %zu nodes, over the limit", made);
    CHECK_CONTAINS(e.msg, "over the limit of 100000 nodes that alias expansion may create");
    CHECK_CONTAINS(e.msg, "docs/manifest.md#limits");
    CHECK(e.line > 0 && e.col > 0 && strcmp(e.file, "t.yaml") == 0, "placed: %s:%d:%d", e.file, e.line,
          e.col);

    /* A small limit is honoured exactly: 4 copies of an 11-node list fit in 44, a fifth does not. */
    tg_doc_limits lim = {0, 0, 44, 0};
    tg_buf_reset(&b);
    billion_laughs(&b, 2, 4);
    hooks_on();
    rc = load(b.data, &lim, &d, &e);
    made = node_allocs;
    hooks_off();
    CHECK(rc == 0, "44 alias nodes allowed: %s", e.msg);
    CHECK(made == 11 + 1 + 1 + 44, "nodes made: %zu", made);
    if (rc == 0) {
        const cJSON *l1 = cJSON_GetObjectItem(d.root, "l1");
        CHECK(cJSON_GetArraySize(l1) == 4 && cJSON_GetArraySize(l1->child) == 10, "expanded");
        tg_doc_free(&d);
    }
    tg_buf_reset(&b);
    billion_laughs(&b, 2, 5);
    expect_err_lim(b.data, &lim, 2, 30, "alias *l0 would expand to 11 more nodes, over the limit of 44");

    /* Wide rather than deep: many aliases of a scalar also count. */
    tg_buf_reset(&b);
    tg_buf_puts(&b, "s: &s x\nl: [");
    for (int i = 0; i < 200; i++)
        tg_buf_printf(&b, "%s*s", i ? "," : "");
    tg_buf_puts(&b, "]\n");
    lim.max_alias_nodes = 150;
    expect_err_lim(b.data, &lim, 2, 0, "over the limit of 150 nodes");
    tg_buf_free(&b);
}

/* One huge anchored string aliased many times: few nodes, many bytes; the byte bound stops it. */
static void test_alias_bytes(void)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "big: &big ");
    for (size_t i = 0; i < ((size_t)1 << 20); i++)
        tg_buf_putc(&b, 'x');
    tg_buf_puts(&b, "\ncopies:\n");
    for (int i = 0; i < 20000; i++)
        tg_buf_puts(&b, "  - *big\n");
    tg_doc d;
    tg_err e = {0};
    int rc = load(b.data, NULL, &d, &e);
    CHECK(rc == -1, "20000 aliases of a 1 MiB string must fail");
    if (rc == 0)
        tg_doc_free(&d);
    /* 16 copies fill the default 16 MiB; the 17th alias (line 19) is refused, before copying */
    CHECK(e.line == 19 && e.col == 5, "placed at %d:%d", e.line, e.col);
    CHECK_CONTAINS(e.msg, "alias *big would copy 1048576 more bytes of text (the anchor at line 1, "
                          "column 6), over the limit of 16777216 bytes");
    CHECK_CONTAINS(e.msg, "docs/manifest.md#limits");

    /* A small limit is honoured exactly; keys of an aliased mapping count, its own key does not. */
    tg_doc_limits lim = {.max_alias_bytes = 8};
    rc = load("m: &m {ab: cd}\nl: [*m, *m]\n", &lim, &d, &e);
    CHECK(rc == 0, "8 bytes fit: %s", e.msg);
    if (rc == 0)
        tg_doc_free(&d);
    expect_err_lim("m: &m {ab: cd}\nl: [*m, *m, *m]\n", &lim, 2, 13,
                   "alias *m would copy 4 more bytes of text");
    lim.max_alias_bytes = 10;
    expect_err_lim("s: &s hello\nl: [*s, *s, *s]\n", &lim, 2, 13, "over the limit of 10 bytes");
    tg_buf_free(&b);
}

static void test_alias_cycles(void)
{
    expect_err("a: &a [*a]\n", 1, 8, "alias cycle: *a refers to the node anchored at line 1, column 4");
    expect_err("&r\nx:\n  y: *r\n", 3, 6, "alias cycle");
    expect_err("a: &a\n  b: [1, {c: *a}]\n", 2, 14, "alias cycle");
    /* An anchor redefined later: aliases use the latest definition before them. */
    tg_doc d;
    if (ok_doc("a: &x 1\nb: *x\nc: &x 2\nd: *x\n", &d)) {
        CHECK(cJSON_GetObjectItem(d.root, "b")->valueint == 1 && cJSON_GetObjectItem(d.root, "d")->valueint == 2,
              "latest anchor wins");
        tg_doc_free(&d);
    }
}

static void test_depth(void)
{
    tg_buf b = TG_BUF_INIT;
    for (int i = 0; i < 100000; i++)
        tg_buf_putc(&b, '[');
    /* stopped at the 513th level (column 513), not after reading the 100,000 */
    expect_err(b.data, 1, 513, "nesting deeper than 512 levels; flatten the document (see docs/manifest.md#limits)");

    tg_buf_reset(&b);
    for (int i = 0; i < 1000; i++) { /* block mappings, one space deeper per level */
        for (int k = 0; k < i; k++)
            tg_buf_putc(&b, ' ');
        tg_buf_puts(&b, "a:\n");
    }
    tg_buf_puts(&b, "x\n");
    expect_err(b.data, 513, 513, "nesting deeper than 512 levels");

    tg_buf_reset(&b);
    for (int i = 0; i < 20000; i++)
        tg_buf_puts(&b, "- ");
    tg_buf_puts(&b, "x\n");
    expect_err(b.data, 1, 1025, "nesting deeper than 512 levels");

    tg_doc_limits lim = {0, 3, 0, 0};
    tg_doc d;
    tg_err e;
    CHECK(tg_doc_parse_yaml("[[[1]]]", 7, "t.yaml", &lim, &d, &e) == 0, "depth 3 fits");
    tg_doc_free(&d);
    expect_err_lim("[[[[1]]]]", &lim, 1, 4, "deeper than 3 levels");
    /* Aliases cannot smuggle depth past the limit. */
    expect_err_lim("a: &a [[1]]\nb: [*a]\n", &lim, 2, 5, "alias *a would nest deeper than 3 levels");
    tg_buf_free(&b);
}

static void test_utf8(void)
{
    expect_err("a: b\nc: d\xFF\n", 2, 5, "invalid UTF-8: byte 0xFF never appears in UTF-8 text");
    expect_err("k: \"é\xC3\"\n", 1, 6, "invalid UTF-8: truncated sequence");
    expect_err("k: \xE2\x82\n", 1, 4, "truncated sequence");
    expect_err("k: [x, \xC0\xAF]\n", 1, 8, "overlong encoding");
    expect_err("k: \xED\xA0\x80\n", 1, 4, "encoded surrogate");
    expect_err("\xFF\xFE" "a\0:\0", 1, 1, "byte 0xFF"); /* UTF-16 is refused, clearly */
    tg_doc d;
    if (ok_doc("k: \"é€😀\"\n", &d)) {
        CHECK(strcmp(cJSON_GetObjectItem(d.root, "k")->valuestring, "é€😀") == 0, "UTF-8 kept");
        tg_doc_free(&d);
    }
}

/* ---- tg_doc_load ---- */

static char *write_tmp(const char *suffix, const char *data, size_t len)
{
    char *path = xasprintf("/tmp/tg_test_yaml_%d_%s", (int)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, len, f);
        fclose(f);
    }
    return path;
}

static void test_load(void)
{
    tg_doc d;
    tg_err e;
    char *p = write_tmp("a.json", "{\n  \"a\": [1, 2.0]\n}\n", 19);
    tg_err_clear(&e);
    CHECK(tg_doc_load(p, NULL, &d, &e) == 0, "load json: %s", e.msg);
    CHECK(d.file && strcmp(d.file, p) == 0, "file kept as given");
    CHECK(strcmp(tg_json_pointer_get(d.root, "/a/1")->valuestring, "2.0") == 0, "json number text");
    tg_pos pos = tg_doc_pointer_pos(&d, "/a/1");
    CHECK(pos.line == 2 && pos.col == 12, "json position %d:%d", pos.line, pos.col);
    tg_doc_free(&d);
    unlink(p);
    free(p);

    /* .json is parsed as JSON even when it would be valid YAML. */
    p = write_tmp("b.json", "a: 1\n", 5);
    CHECK(tg_doc_load(p, NULL, &d, &e) == -1, "YAML in .json fails");
    CHECK(strcmp(e.file, p) == 0 && e.line == 1 && e.col == 1, "json error placed: %s:%d:%d", e.file,
          e.line, e.col);
    unlink(p);
    free(p);

    p = write_tmp("c.json", "{\"a\": 1,\n \"a\": 2}", 18);
    CHECK(tg_doc_load(p, NULL, &d, &e) == -1, "dup in json");
    char full[2200];
    tg_err_format(&e, full, sizeof full);
    CHECK(strstr(full, ":2:2: duplicate key \"a\": first defined at line 1, column 2") != NULL, "%s", full);
    unlink(p);
    free(p);

    p = write_tmp("d.yml", "x: [1, 2]\n", 10);
    CHECK(tg_doc_load(p, NULL, &d, &e) == 0 && cJSON_GetArraySize(cJSON_GetObjectItem(d.root, "x")) == 2,
          ".yml");
    tg_doc_free(&d);
    unlink(p);
    free(p);

    /* No known extension: sniffed. */
    p = write_tmp("e.txt", "  [1, 2]", 8);
    CHECK(tg_doc_load(p, NULL, &d, &e) == 0 && cJSON_IsArray(d.root), "sniffed JSON");
    CHECK(tg_doc_pos(&d, d.root).col == 3, "sniffed JSON position");
    tg_doc_free(&d);
    unlink(p);
    free(p);
    p = write_tmp("f.txt", "k: v\n", 5);
    CHECK(tg_doc_load(p, NULL, &d, &e) == 0 && cJSON_IsObject(d.root), "sniffed YAML");
    tg_doc_free(&d);
    unlink(p);
    free(p);

    /* Errors from the YAML loader carry the file name too. */
    p = write_tmp("g.yaml", "a: 1\na: 2\n", 10);
    CHECK(tg_doc_load(p, NULL, &d, &e) == -1 && strcmp(e.file, p) == 0 && e.line == 2, "yaml error file");
    unlink(p);
    free(p);

    /* Over the size cap: refused before anything is parsed. */
    tg_buf big = TG_BUF_INIT;
    for (int i = 0; i < 500; i++)
        tg_buf_puts(&big, "key: [1, 2, 3]\n");
    p = write_tmp("h.yaml", big.data, big.len);
    tg_doc_limits lim = {1000, 0, 0, 0};
    hooks_on();
    CHECK(tg_doc_load(p, &lim, &d, &e) == -1, "over the cap");
    CHECK(node_allocs == 0, "nothing parsed (%zu nodes)", node_allocs);
    hooks_off();
    CHECK_CONTAINS(e.msg, "over the limit of 1000 bytes");
    CHECK(strcmp(e.file, p) == 0, "cap error names the file");
    CHECK(tg_doc_parse_yaml(big.data, big.len, "mem.yaml", &lim, &d, &e) == -1, "in-memory cap");
    CHECK_CONTAINS(e.msg, "over the limit of 1000 bytes");
    CHECK(tg_doc_parse_json(big.data, big.len, "mem.json", &lim, &d, &e) == -1, "in-memory cap json");
    CHECK_CONTAINS(e.msg, "over the limit of 1000 bytes");
    unlink(p);
    free(p);
    tg_buf_free(&big);

    /* The default cap (16 MiB) on a sparse 17 MiB file of NUL bytes: refused for its size, not
     * for its content, which is never read. */
    p = write_tmp("i.yaml", "", 0);
    SETUP(truncate(p, 17 << 20) == 0, "truncate %s", p);
    CHECK(tg_doc_load(p, NULL, &d, &e) == -1, "default cap");
    CHECK_CONTAINS(e.msg, "over the limit of 16777216 bytes");
    unlink(p);
    free(p);

    CHECK(tg_doc_load("/nonexistent/x.yaml", NULL, &d, &e) == -1, "missing file");
    CHECK(strcmp(e.file, "/nonexistent/x.yaml") == 0, "missing file named");
    CHECK(d.root == NULL && d.file == NULL && d.pos == NULL, "out empty");
    tg_doc_free(&d); /* harmless on an empty doc */

    /* JSON through tg_doc_parse_json: BOM skipped, depth default 512 (as for YAML), name set on
     * errors. */
    CHECK(tg_doc_parse_json("\xEF\xBB\xBF[1]", 6, "b.json", NULL, &d, &e) == 0, "json BOM");
    CHECK(tg_doc_pos(&d, d.root->child).col == 2, "BOM does not count");
    tg_doc_free(&d);
    tg_buf deep = TG_BUF_INIT;
    for (int i = 0; i < 600; i++)
        tg_buf_putc(&deep, '[');
    CHECK(tg_doc_parse_json(deep.data, deep.len, "deep.json", NULL, &d, &e) == -1, "json depth");
    CHECK(strcmp(e.file, "deep.json") == 0 && e.col == 513, "json depth at %s:%d", e.file, e.col);
    tg_buf_free(&deep);
}

int main(void)
{
    test_core_schema();
    test_positions();
    test_structure();
    test_billion_laughs();
    test_alias_bytes();
    test_alias_cycles();
    test_depth();
    test_utf8();
    test_load();
    return tl_finish("test_yaml");
}
