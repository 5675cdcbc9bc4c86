/* test_devwatch.c — serve's change check (serve/devwatch.h): it reads the folders only after
 * something happened in them, so its cost does not grow with the number of tools, and it still
 * sees every change — through inotify, or by reading at every check when it cannot watch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/devwatch.h"
#include "serve/notify.h"
#include "testlib.h"

static char dir[64];

static void sh(const char *fmt, const char *arg)
{
    char *cmd = xasprintf(fmt, arg, dir);
    SETUP(system(cmd) == 0, "%s", cmd);
    free(cmd);
}

/* tools/NAME from the synthetic manifest */
static void add_tool(const char *name)
{
    char *cmd = xasprintf("mkdir -p '%s/manifests/%s' && sed 's/@NAME@/%s/g' "
                          "tests/synthetic_tool.yaml > '%s/manifests/%s/tool.manifest.yaml'",
                          dir, name, name, dir, name);
    SETUP(system(cmd) == 0, "%s", cmd);
    free(cmd);
}

static size_t served(tg_serve_devwatch *w)
{
    tg_serve_toolset *set = tg_serve_live_get(&w->live);
    size_t n = set->tools.n;
    tg_serve_toolset_unref(set);
    return n;
}

/* A change is loaded at the second check that sees the folders unchanged since (they settle). */
static void test_watch(bool inotify)
{
    tg_repo r;
    tg_serve_devwatch w;
    tg_err err = {0};
    SETUP(tg_repo_open(&r, dir, &err) == 0, "repo: %s", err.msg);
    SETUP(tg_serve_devwatch_open(&w, &r, TG_SERVE_SOURCE_DEV, &err) == 0, "open: %s", err.msg);
    if (inotify)
        SETUP(w.fs.fd >= 0, "inotify on this machine");
    else
        w.fs.off = true; /* as without inotify */
    const char *mode = inotify ? "inotify" : "reading";
    size_t before = served(&w);
    unsigned scans = w.scans;
    unsigned changed = 0;
    for (int i = 0; i < 1000; i++)
        changed |= tg_serve_devwatch_check(&w);
    CHECK(changed == 0, "%s: nothing changed in 1000 checks", mode);
    if (inotify)
        CHECK(w.scans == scans, "1000 checks without a change read nothing: %u reads",
              w.scans - scans);
    else
        CHECK(w.scans == scans + 1000, "without a watch every check reads: %u", w.scans - scans);

    char name[32];
    snprintf(name, sizeof name, "new_%s", mode);
    add_tool(name);
    CHECK(tg_serve_devwatch_check(&w) == 0, "%s: a new tool is seen, not read yet", mode);
    CHECK(tg_serve_devwatch_check(&w) == (TG_CHANGED_TOOLS | TG_CHANGED_RESOURCES),
          "%s: then read, once settled", mode);
    CHECK(served(&w) == before + 1, "%s: served %zu", mode, served(&w));

    /* a change inside a tool's folder (its manifest rewritten) */
    char *edit = xasprintf("sed -i 's/^title: .*/title: Renamed/' '%s/manifests/%s/tool.manifest.yaml'",
                           dir, name);
    SETUP(system(edit) == 0, "edit");
    free(edit);
    CHECK(tg_serve_devwatch_check(&w) == 0 && tg_serve_devwatch_check(&w) != 0,
          "%s: an edited manifest is read again", mode);
    unsigned reloads = w.reloads;
    scans = w.scans;
    for (int i = 0; i < 100; i++)
        tg_serve_devwatch_check(&w);
    CHECK(w.reloads == reloads, "%s: settled, nothing read again", mode);
    if (inotify)
        CHECK(w.scans == scans, "%s: and the folders not read", mode);

    /* the manifests folder replaced as a whole (a checkout, a rename) */
    sh("mv '%2$s/manifests' '%2$s/old' && cp -r '%2$s/old' '%2$s/manifests' && "
       "rm -r '%2$s/manifests/%1$s' '%2$s/old'", name);
    CHECK(tg_serve_devwatch_check(&w) == 0 && tg_serve_devwatch_check(&w) != 0,
          "%s: a replaced folder is read again", mode);
    CHECK(served(&w) == before, "%s: served %zu", mode, served(&w));
    tg_serve_devwatch_close(&w);
    tg_repo_release(&r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tg-devwatch-%ld", (long)getpid());
    sh("rm -rf '%2$s' && mkdir -p '%2$s/data' && cp toolgen.yaml '%2$s/'%1$s", "");
    add_tool("a_tool");
    test_watch(true);
    test_watch(false);
    sh("rm -rf '%2$s'%1$s", "");
    return tl_finish("test_devwatch");
}
