/* init.c — a new toolgen repository (init.h). */
#include "app/init.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "lifecycle/gitcommit.h"

static const char config_text[] =
    "# toolgen.yaml — this repository's configuration (docs/config.md). Every key is optional;\n"
    "# absent keys take their defaults.\n"
    "config_version: 1\n"
    "\n"
    "llm:\n"
    "  # builtin: toolgen's own generator, offline and deterministic. For a model, e.g.:\n"
    "  #   provider: openai        # or anthropic; any OpenAI-compatible server with base_url\n"
    "  #   model: gpt-4.1\n"
    "  #   api_key_env: OPENAI_API_KEY\n"
    "  provider: builtin\n"
    "\n"
    "sandbox:\n"
    "  isolation: bwrap\n"
    "  data_dirs: [data/]\n"
    "\n"
    "paths:\n"
    "  manifests: manifests/\n"
    "  generated: generated/\n"
    "\n"
    "# What this repository publishes: the MCP Bundle and the Agent Skill are named from here.\n"
    "project:\n"
    "  name: %s\n"
    "  version: 0.1.0\n"
    "  description: Tools for LLM agents, built and checked with toolgen.\n";

static const char ci_text[] =
    "# The tools' CI (docs/review.md#ci): generated/ must be what the manifests make, and a\n"
    "# manifest change must follow the version policy. It needs toolgen on the runner: set the\n"
    "# repository variable TOOLGEN_GIT to the toolgen source you use.\n"
    "name: toolgen\n"
    "on: [push, pull_request]\n"
    "jobs:\n"
    "  check:\n"
    "    runs-on: ubuntu-latest\n"
    "    steps:\n"
    "      - uses: actions/checkout@v4\n"
    "        with: {fetch-depth: 2}\n"
    "      - name: install toolgen\n"
    "        run: |\n"
    "          git clone --depth 1 \"${{ vars.TOOLGEN_GIT }}\" \"$RUNNER_TEMP/toolgen\"\n"
    "          make -C \"$RUNNER_TEMP/toolgen\" deps all\n"
    "          sudo make -C \"$RUNNER_TEMP/toolgen\" install\n"
    "      - run: toolgen check\n"
    "      - name: toolgen diff --check (the last commit's manifest changes)\n"
    "        run: |\n"
    "          if git rev-parse -q --verify HEAD~1 >/dev/null; then\n"
    "            toolgen diff --check HEAD~1 HEAD\n"
    "          fi\n";

static const char *const keep_dirs[] = {"manifests", "data", "prompts"};
#define CI_FILE ".github/workflows/toolgen.yml"

char *tg_init_default_name(const char *dir)
{
    char real[PATH_MAX];
    char *copy = xstrdup(realpath(dir, real) ? real : dir);
    const char *base = basename(copy);
    tg_buf b = TG_BUF_INIT;
    for (const char *c = base; *c && b.len < 64; c++) {
        if (isalnum((unsigned char)*c) && !(*c & 0x80))
            tg_buf_putc(&b, (char)tolower((unsigned char)*c));
        else if (b.len && b.data[b.len - 1] != '-')
            tg_buf_putc(&b, '-');
    }
    while (b.len && b.data[b.len - 1] == '-')
        b.data[--b.len] = '\0';
    free(copy);
    if (!b.len) {
        tg_buf_free(&b);
        return xstrdup("toolgen-tools");
    }
    return tg_buf_steal(&b);
}

bool tg_init_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64 || name[0] == '-' || name[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && name[i + 1] != '-');
        if (!ok)
            return false;
    }
    return true;
}

static bool exists(const char *dir, const char *rel)
{
    char *p = tg_path_join(dir, rel);
    struct stat st;
    bool yes = lstat(p, &st) == 0;
    free(p);
    return yes;
}

static int write_new(const char *dir, const char *rel, const char *text, tg_init_report *out,
                     tg_err *err)
{
    char *p = tg_path_join(dir, rel);
    char *parent = xstrdup(p);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    int rc = tg_mkdirs(parent, err) == 0 ? tg_write_file_atomic(p, text, strlen(text), err) : -1;
    if (rc == 0)
        tg_strv_push(&out->written, rel);
    free(parent);
    free(p);
    return rc;
}

/* Whether a .gitignore has a line of its own for .toolgen (with or without the slashes,
 * surrounding spaces ignored). */
static bool ignores_state(const char *text)
{
    static const char *const forms[] = {".toolgen", ".toolgen/", "/.toolgen", "/.toolgen/"};
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *a = line, *b = line + n;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
            b--;
        for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
            if ((size_t)(b - a) == strlen(forms[i]) && strncmp(a, forms[i], (size_t)(b - a)) == 0)
                return true;
        line = end ? end + 1 : line + n;
    }
    return false;
}

/* .toolgen/ (the build state and caches) in .gitignore: a new file, or a line appended. */
static int ignore_state(const char *dir, tg_init_report *out, tg_err *err)
{
    char *p = tg_path_join(dir, ".gitignore");
    size_t len = 0;
    char *text = tg_read_file(p, 0, &len, NULL);
    int rc = 0;
    if (!text) {
        rc = write_new(dir, ".gitignore", "/.toolgen/\n", out, err);
    } else if (!ignores_state(text)) {
        FILE *f = fopen(p, "a");
        rc = f && fprintf(f, "%s/.toolgen/\n", len && text[len - 1] != '\n' ? "\n" : "") > 0 &&
                     fclose(f) == 0
                 ? 0
                 : tg_err_set(err, "cannot add .toolgen/ to %s: %s", p, strerror(errno));
        out->gitignore_added = rc == 0;
    }
    free(text);
    free(p);
    return rc;
}

/* A refusal before anything is written: -2 with err, so the caller can tell it from a failed
 * write. */
static int refuse(tg_err *err, const char *fmt, ...) TG_PRINTF(2, 3);
static int refuse(tg_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -2;
}

int tg_app_init(const char *dir, const char *name, tg_init_report *out, tg_err *err)
{
    *out = (tg_init_report){.written = TG_STRV_INIT};
    if (name && !tg_init_name_ok(name))
        return refuse(err, "'%s' is not a project name: use kebab-case, lowercase letters and "
                               "digits with single hyphens between words, at most 64 characters "
                               "(e.g. sales-tools)", name);
    if (exists(dir, "toolgen.yaml"))
        return refuse(err, "%s/toolgen.yaml exists: %s is a toolgen repository already "
                               "(toolgen init never overwrites)", dir, dir);
    if (exists(dir, CI_FILE))
        return refuse(err, "%s/" CI_FILE " exists: toolgen init never overwrites; move it "
                               "aside, or add `toolgen check` to it yourself", dir);
    if (tg_mkdirs(dir, err) != 0)
        return -1;
    out->name = name ? xstrdup(name) : tg_init_default_name(dir);
    char *config = xasprintf(config_text, out->name);
    int rc = write_new(dir, "toolgen.yaml", config, out, err);
    free(config);
    for (size_t i = 0; rc == 0 && i < sizeof keep_dirs / sizeof *keep_dirs; i++) {
        if (exists(dir, keep_dirs[i]))
            continue; /* a folder of the project already: left as it is */
        char *keep = xasprintf("%s/.gitkeep", keep_dirs[i]);
        rc = write_new(dir, keep, "", out, err);
        free(keep);
    }
    if (rc == 0)
        rc = write_new(dir, CI_FILE, ci_text, out, err);
    if (rc == 0)
        rc = ignore_state(dir, out, err);
    if (rc == 0 && tg_git_init(dir, &out->git_created, err) != 0)
        rc = -1;
    if (rc != 0)
        tg_init_report_free(out);
    return rc;
}

void tg_init_report_free(tg_init_report *r)
{
    tg_strv_free(&r->written);
    free(r->name);
    *r = (tg_init_report){0};
}
