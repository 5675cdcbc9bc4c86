/* test_confine.c — files resolving outside the repository are refused (base/confine.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/confine.h"
#include "testlib.h"

static char top[PATH_MAX]; /* real path of the scratch folder: repo/ and secret/ inside */

static void put(const char *rel, const char *text)
{
    char *p = tg_path_join(top, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(p);
}

static void link_to(const char *target, const char *rel)
{
    char *p = tg_path_join(top, rel);
    SETUP(symlink(target, p) == 0, "symlink %s", p);
    free(p);
}

static void setup(void)
{
    char tmpl[] = "/tmp/tg-confine-XXXXXX";
    SETUP(mkdtemp(tmpl) != NULL, "mkdtemp");
    CHECK(realpath(tmpl, top) != NULL, "realpath");
    char *p;
    static const char *const dirs[] = {"repo", "repo/manifests", "repo/manifests/t", "repo/fifo_dir",
                                       "secret", "datasets"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        p = tg_path_join(top, dirs[i]);
        mkdir(p, 0755);
        free(p);
    }
    put("secret/shadow", "root:TOPSECRET:19000::::::\n");
    put("repo/manifests/t/tool.py", "x = 1\n");
    put("repo/common.yaml", "name: t\n");
    put("datasets/in.json", "{}\n");
    link_to("../../common.yaml", "repo/manifests/t/inside.yaml");
    char *shadow = tg_path_join(top, "secret/shadow");
    link_to(shadow, "repo/manifests/t/tool.manifest.yaml");
    free(shadow);
    link_to("../secret", "repo/linked_dir");
    char *ds = tg_path_join(top, "datasets");
    link_to(ds, "repo/data");
    free(ds);
    p = tg_path_join(top, "repo/fifo");
    CHECK(mkfifo(p, 0644) == 0, "mkfifo");
    free(p);
}

static void test_confine(void)
{
    const char *repo[1] = {"."};
    tg_err e = {0};
    CHECK(tg_confine("manifests/t/tool.py", repo, 1, "tool code", "the repository", &e) == 0,
          "a plain file inside: %s", e.msg);
    CHECK(tg_confine("manifests/t/inside.yaml", repo, 1, "manifest", "the repository", &e) == 0,
          "a link that stays inside: %s", e.msg);
    CHECK(tg_confine("manifests/t/missing.yaml", repo, 1, "manifest", "the repository", &e) == 0,
          "missing: the read reports it");

    tg_err_clear(&e);
    CHECK(tg_confine("manifests/t/tool.manifest.yaml", repo, 1, "manifest", "the repository",
                     &e) == -1,
          "a link to a file outside");
    CHECK(!strcmp(e.file, "manifests/t/tool.manifest.yaml"), "names the file: %s", e.file);
    CHECK_CONTAINS(e.msg, "is a symlink to ");
    CHECK_CONTAINS(e.msg, "/secret/shadow, outside the repository (");
    CHECK_CONTAINS(e.msg, "toolgen reads no manifest from outside it: replace the link");
    CHECK(!strstr(e.msg, "TOPSECRET"), "never the content");

    tg_err_clear(&e);
    CHECK(tg_confine("linked_dir/shadow", repo, 1, "input file", "the repository", &e) == -1,
          "through a linked folder");
    CHECK_CONTAINS(e.msg, "resolves through a symlink to ");

    tg_err_clear(&e);
    CHECK(tg_confine("fifo", repo, 1, "manifest", "the repository", &e) == -1, "a FIFO");
    CHECK_CONTAINS(e.msg, "is a FIFO, socket or device, not a file");
    tg_err_clear(&e);
    CHECK(tg_confine("fifo_dir", repo, 1, "manifest", "the repository", &e) == -1, "a directory");
    CHECK_CONTAINS(e.msg, "is a directory, not a file: the manifest must be a regular file");

    /* A second root (a data directory that lives elsewhere) widens what is allowed. */
    const char *with_data[2] = {".", "data"};
    tg_err_clear(&e);
    CHECK(tg_confine("data/in.json", repo, 1, "input file", "the repository", &e) == -1,
          "data/ links out of the repository");
    CHECK(tg_confine("data/in.json", with_data, 2, "input file", "the data", &e) == 0,
          "allowed as a data directory: %s", e.msg);
}

static void test_root_of(void)
{
    char *r;
    static const char *const inside[] = {"manifests/t/tool.py", "./x", "a/../b", "x"};
    for (size_t i = 0; i < sizeof inside / sizeof *inside; i++) {
        r = tg_confine_root_of(inside[i]);
        CHECK(!strcmp(r, "."), "%s: root %s", inside[i], r);
        free(r);
    }
    r = tg_confine_root_of("../secret/shadow");
    CHECK(!strcmp(r, "../secret"), "outside: its folder, got %s", r);
    free(r);
    r = tg_confine_root_of("../secret");
    CHECK(!strcmp(r, "../secret"), "outside, a directory: itself, got %s", r);
    free(r);
    char *abs = tg_path_join(top, "repo/manifests");
    r = tg_confine_root_of(abs);
    CHECK(!strcmp(r, "."), "absolute inside the working directory: %s", r);
    free(r);
    free(abs);

    /* A composed path cannot choose its own root: the anchor decides. */
    tg_err e = {0};
    CHECK(tg_confine_repo("manifests/t/../../../secret/shadow", "manifests/t", "tool code", &e) == -1,
          "anchored at the manifest's folder");
    /* no link on the way: said as it is (a symlink is named only when there is one) */
    CHECK_CONTAINS(e.msg, "resolves to ");
    CHECK(!strstr(e.msg, "symlink") && !strstr(e.msg, "link with a copy"),
          "a plain path is no symlink: %s", e.msg);
    tg_err_clear(&e);
    CHECK(tg_confine_repo("linked_dir/../secret/shadow", ".", "tool code", &e) == -1,
          "a '..' after a linked folder");
    CHECK_CONTAINS(e.msg, "resolves through a symlink to ");
    CHECK(tg_confine_repo("../secret/shadow", NULL, "manifest", &e) == 0,
          "named outside on purpose: confined to its own folder: %s", e.msg);
}

/* The spelling of a repository file's name: relative, no empty, dot or hidden component. */
static void test_plain(void)
{
    CHECK(tg_path_is_plain("docs/guide.md", 64) && tg_path_is_plain("a", 1), "plain names");
    static const char *const bad[] = {"", "/etc/passwd", "../x", "a/../b", "a//b", "a/", "./a",
                                      ".git/config", "a/.hidden"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!tg_path_is_plain(bad[i], 64), "refused: '%s'", bad[i]);
    CHECK(!tg_path_is_plain("abcdef", 5), "longer than max");
}

int main(void)
{
    setup();
    char *repo = tg_path_join(top, "repo");
    SETUP(chdir(repo) == 0, "chdir");
    free(repo);
    test_confine();
    test_plain();
    test_root_of();
    char *cmd = xasprintf("rm -rf '%s'", top);
    SETUP(system(cmd) == 0, "cleanup");
    free(cmd);
    return tl_finish("test_confine");
}
