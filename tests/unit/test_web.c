/*
 * test_web.c — the parts of web_fetch (docs/web.md) below the MCP test (tests/cli/web_fetch.sh):
 * the HTML text extraction (base/html.h) on real-world markup, URLs taken apart and resolved
 * (net/httpreq.h tg_url_parse), the sliding-window rate limit with a stepped clock
 * (net/ratelimit.h), the allowlist's entry forms against a scripted loopback server
 * (httpfake.h), and the tool's description within its budget.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "testlib.h"

#include "base/html.h"
#include "base/json.h"
#include "code_fixture.h"
#include "emit/emit.h"
#include "httpfake.h"
#include "net/httpreq.h"
#include "net/ratelimit.h"
#include "run/toolrun.h"

static void test_html(void)
{
    static const char page[] =
        "<html><head><title> Fruit &amp;\n prices </title><style>p{}</style>"
        "<script>var x = '<p>not text</p>';</script></head><body>"
        "<!-- a comment --><h1>Prices</h1><p>Apples   cost <b>3</b>\n euros.<br>Pears 2.</p>"
        "<ul><li>one<li>two</ul><table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"
        "<pre>x  y\n  z</pre><p>See <a href='/d.json'>the <i>data</i></a>, <a href='#top'>top</a>"
        " and <a name=x>no link</a>.<noscript>enable JS</noscript><p>caf\xc3\xa9 &eacute;";
    tg_html_doc d;
    tg_err err = {0};
    CHECK(tg_html_extract(page, strlen(page), NULL, 10, &d, &err) == 0, "%s", err.msg);
    CHECK(d.title && strcmp(d.title, "Fruit & prices") == 0, "the title, blanks collapsed: %s",
          d.title ? d.title : "(none)");
    const char *want = "Prices\nApples cost 3 euros.\nPears 2.\n- one\n- two\na b\nc\nx  y\n  z\n"
                       "See the data, top and no link.\ncaf\xc3\xa9 \xc3\xa9";
    CHECK(strcmp(d.text, want) == 0, "the text:\n%s\n---want:\n%s", d.text, want);
    CHECK(!strstr(d.text, "not text") && !strstr(d.text, "enable JS") && !strstr(d.text, "p{}"),
          "no script, noscript or style");
    CHECK(d.nlinks == 1 && d.links_total == 2 && strcmp(d.links[0].text, "the data") == 0 &&
          strcmp(d.links[0].href, "/d.json") == 0, "links: %zu of %zu", d.nlinks, d.links_total);
    tg_html_doc_free(&d);

    /* a declared charset, and a page that is only broken markup */
    static const char latin[] = "<p>caf\xe9</p>";
    CHECK(tg_html_extract(latin, strlen(latin), "iso-8859-1", 0, &d, &err) == 0 &&
          strcmp(d.text, "caf\xc3\xa9") == 0, "latin-1 to UTF-8: %s", d.text);
    tg_html_doc_free(&d);
    static const char broken[] = "<div><p>unclosed <b>bold <i>both</div> after";
    CHECK(tg_html_extract(broken, strlen(broken), NULL, 0, &d, &err) == 0 &&
          strstr(d.text, "unclosed bold both") && strstr(d.text, "after") && !d.title,
          "broken markup still reads: %s", d.text);
    tg_html_doc_free(&d);
    CHECK(tg_html_extract("", 0, NULL, 0, &d, &err) == 0 && strcmp(d.text, "") == 0,
          "an empty page is empty text");
    tg_html_doc_free(&d);
}

static void test_url(void)
{
    tg_url u;
    tg_err err = {0};
    CHECK(tg_url_parse(NULL, "HTTPS://API.Example.COM./v1?q=1", &u, &err) == 0 &&
              strcmp(u.scheme, "https") == 0 && strcmp(u.host, "api.example.com") == 0 &&
              u.port == 443 && !u.explicit_port && !u.userinfo,
          "host lower case, trailing dot dropped, default port: %s %s %ld", u.scheme, u.host,
          u.port);
    tg_url_free(&u);
    CHECK(tg_url_parse("http://127.0.0.1:8080/a/b?x", "../c#f", &u, &err) == 0 &&
              strcmp(u.url, "http://127.0.0.1:8080/c") == 0 && u.port == 8080 && u.explicit_port,
          "a relative reference resolved: %s", u.url);
    tg_url_free(&u);
    CHECK(tg_url_parse("http://a.example/x", "//b.example/y", &u, &err) == 0 &&
              strcmp(u.host, "b.example") == 0, "a network-path reference changes the host");
    tg_url_free(&u);
    CHECK(tg_url_parse(NULL, "http://[::1]:9/x", &u, &err) == 0 && strcmp(u.host, "[::1]") == 0,
          "IPv6 in brackets: %s", u.host);
    tg_url_free(&u);
    CHECK(tg_url_parse(NULL, "http://me:secret@h.example/", &u, &err) == 0 && u.userinfo,
          "credentials noticed");
    tg_url_free(&u);
    static const char *const bad[] = {"file:///etc/passwd", "ftp://h.example/", "not a url",
                                      "http://", "", "javascript:alert(1)"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tg_err e = {0};
        CHECK(tg_url_parse(NULL, bad[i], &u, &e) != 0 && e.msg[0] && !u.url, "refused: '%s'",
              bad[i]);
    }
    tg_err e = {0};
    CHECK(tg_url_parse(NULL, "ftp://user:pw@h.example/", &u, &e) != 0 && !strstr(e.msg, "pw"),
          "a refusal does not show the password: %s", e.msg);
}

static void test_ratelimit(void)
{
    tg_ratelimit *r = tg_ratelimit_new(2, 60000);
    double wait = -1;
    CHECK(tg_ratelimit_take(r, 1000, &wait) && tg_ratelimit_take(r, 2000, &wait),
          "two within the window");
    CHECK(!tg_ratelimit_take(r, 3000, &wait) && wait == 58000, "the third waits for the first "
          "to leave: %g", wait);
    CHECK(!tg_ratelimit_take(r, 60999, &wait) && wait == 1, "still 1 ms early: %g", wait);
    CHECK(tg_ratelimit_take(r, 61000, &wait), "admitted once the first left the window");
    CHECK(!tg_ratelimit_take(r, 61000, &wait), "a refusal is not counted, the admission is");
    CHECK(tg_ratelimit_new(0, 1000) == NULL && tg_ratelimit_new(1, 0) == NULL, "bad limits");
    tg_ratelimit_free(r);
}

/* web_fetch's calls with toolgen.yaml's web section `web` (JSON), against the loopback server. */
static hf_server srv;

static void fetch(const tg_toolrun_ctx *base, code_tool *t, const char *web, const char *url,
                  tg_call_result *r)
{
    tg_err err = {0};
    cJSON *cfg = tg_json_parse(web, strlen(web), NULL, NULL, NULL, &err);
    SETUP(cfg, "web %s: %s", web, err.msg);
    tg_toolrun_ctx ctx = *base;
    ctx.web = cfg;
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "url", url);
    tg_tool_call c = {.m = &t->m, .input = t->in, .output = t->out, .args = args};
    CHECK(tg_tool_call_run(&ctx, &c, r, &err) == TG_CALL_DONE, "%s: %s", url, err.msg);
    cJSON_Delete(args);
    cJSON_Delete(cfg);
}

static void test_allowlist(const tg_toolrun_ctx *ctx, code_tool *t)
{
    char url[128], web[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", srv.port);
    static const char *const admit[] = {"127.0.0.1:*", "127.0.0.1:%d", "127.0.0.1.:%d"};
    static const char *const refuse[] = {"127.0.0.1", "*.0.0.1:*", "localhost:*", "127.0.0.10:*",
                                         "127.0.0.1:1"};
    hf_answer a[] = {{.body = "ok"}};
    for (size_t i = 0; i < sizeof admit / sizeof *admit + sizeof refuse / sizeof *refuse; i++) {
        bool ok = i < sizeof admit / sizeof *admit;
        char entry[64];
        snprintf(entry, sizeof entry, ok ? admit[i] : refuse[i - 3], srv.port);
        snprintf(web, sizeof web, "{\"allow_hosts\": [\"%s\"]}", entry);
        hf_script(&srv, a, 1);
        tg_call_result r = {0};
        fetch(ctx, t, web, url, &r);
        CHECK(r.ok == ok && (ok || strcmp(r.guidance.code, "FORBIDDEN") == 0) &&
                  (size_t)hf_count(&srv) == (ok ? 1u : 0u),
              "entry %s %s %s: %s", entry, ok ? "admits" : "refuses", url, r.guidance.message);
        CHECK(!ok || strcmp(tg_json_get_string(r.result, "text"), "ok") == 0, "the body");
        tg_call_result_free(&r);
    }
    /* a name that resolves to a loopback address: only when the address is listed too */
    char lurl[128];
    snprintf(lurl, sizeof lurl, "http://localhost:%d/x", srv.port);
    hf_script(&srv, a, 1);
    tg_call_result lr = {0};
    fetch(ctx, t, "{\"allow_hosts\": [\"localhost:*\"]}", lurl, &lr);
    CHECK(!lr.ok && strcmp(lr.guidance.code, "FORBIDDEN") == 0 &&
              strstr(lr.guidance.message, "resolved to") && hf_count(&srv) == 0,
          "localhost listed, 127.0.0.1 not: refused before a byte is sent: %s",
          lr.guidance.message);
    tg_call_result_free(&lr);
    hf_script(&srv, a, 1);
    fetch(ctx, t, "{\"allow_hosts\": [\"localhost:*\", \"127.0.0.1:*\"]}", lurl, &lr);
    CHECK(lr.ok, "localhost and its address listed: fetched: %s", lr.guidance.message);
    tg_call_result_free(&lr);
    /* a wildcard admits the subdomains, not the name itself (no network: refused before) */
    tg_call_result r = {0};
    fetch(ctx, t, "{\"allow_hosts\": [\"*.example.com\"]}", "https://example.com/", &r);
    CHECK(!r.ok && strstr(r.guidance.message, "HostNotAllowed"), "*.example.com: not example.com");
    tg_call_result_free(&r);
}

/* Every docs/web.md#anchor web_fetch's guidance names (run/codeguide.c) is a heading there
 * (GitHub's slugs: lower case, blanks to '-', other punctuation dropped). */
static void test_docs_exist(void)
{
    tg_err err = {0};
    size_t len = 0, n = 0;
    char *doc = tg_read_file("docs/web.md", 1 << 20, &len, &err);
    char *src = tg_read_file("toolgen/run/codeguide.c", 1 << 20, &len, &err);
    SETUP(doc && src, "read: %s", err.msg);
    for (const char *p = src; (p = strstr(p, "\"docs/web.md#")) != NULL; p++, n++) {
        char want[64], slug[64];
        snprintf(want, sizeof want, "%.*s", (int)strcspn(p + 13, "\""), p + 13);
        bool found = false;
        for (char *line = doc; line && *line && !found; line = strchr(line, '\n')) {
            line += *line == '\n';
            if (line[0] != '#')
                continue;
            size_t k = 0;
            for (const char *c = line + strspn(line, "# "); *c && *c != '\n' && k < 63; c++)
                if (isalnum((unsigned char)*c) || *c == '-' || *c == '_')
                    slug[k++] = (char)tolower((unsigned char)*c);
                else if (*c == ' ')
                    slug[k++] = '-';
            slug[k] = '\0';
            found = strcmp(slug, want) == 0;
        }
        CHECK(found, "docs/web.md has a heading for #%s", want);
    }
    CHECK(n >= 5, "the guidance names its documents (%zu)", n);
    free(doc);
    free(src);
}

int main(void)
{
    test_docs_exist();
    test_html();
    test_url();
    test_ratelimit();
    tg_repo repo;
    tg_toolrun_env env = {0};
    code_tool wf;
    tg_err err = {0};
    SETUP(tg_repo_open(&repo, "toolsets/web", &err) == 0, "repo: %s", err.msg);
    SETUP(tg_toolrun_env_open(&env, &repo, repo.cfg.doc.root, &err) == 0, "env: %s", err.msg);
    if (code_tool_open(&wf, &repo, "web_fetch") == 0) {
        char *full = tg_emit_description(&wf.m);
        char *cut = tg_emit_description_max(&wf.m, 1024);
        CHECK(full && cut && strcmp(full, cut) == 0 && strlen(full) <= 1024 &&
                  strstr(full, "Example") && strstr(full, "Pitfalls"),
              "web_fetch: description within its budget, with pitfalls and an example (%zu "
              "characters)", full ? strlen(full) : 0);
        free(full);
        free(cut);
        if (hf_start(&srv) == 0) {
            test_allowlist(&env.ctx, &wf);
            hf_stop(&srv);
        } else {
            CHECK(0, "cannot listen on loopback");
        }
    }
    code_tool_close(&wf);
    tg_toolrun_env_close(&env);
    tg_repo_release(&repo);
    return tl_finish("test_web");
}
