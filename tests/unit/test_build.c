/*
 * test_build.c — the pieces under the build engine: XXH3 hashes and key encoding, the string
 * map, the state log (round trip, torn lines, later lines win, the stat cache, compaction),
 * typed config, opening a repository (tg_repo), tool names and the stage table, and that the
 * manifest is in the load stage's key (a real build with toolgen's stages). The engine itself
 * is exercised with stages of its own by test_engine.c, and end to end by tests/cli/build.sh
 * and tests/cli/golden.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/toolsource.h"
#include "model/config.h"
#include "base/hash.h"
#include "base/json.h"
#include "model/paths.h"
#include "model/repo.h"
#include "stages/stages.h"
#include "engine/build.h"
#include "engine/statelog.h"
#include "base/strmap.h"
#include "base/strvec.h"
#include "testlib.h"

static char tmpdir[256];

static char *tmp_path(const char *name)
{
    return xasprintf("%s/%s", tmpdir, name);
}

static void write_text(const char *path, const char *text)
{
    tg_err err = {0};
    SETUP(tg_write_file_atomic(path, text, strlen(text), &err) == 0, "write %s: %s", path, err.msg);
}

static cJSON *json(const char *text)
{
    tg_err err = {0};
    cJSON *v = tg_json_parse(text, strlen(text), NULL, NULL, NULL, &err);
    CHECK(v != NULL, "bad JSON %s", text);
    return v;
}

/* ---- hashes --------------------------------------------------------------------------------- */

static void test_hash(void)
{
    char hex[TG_HASH_HEX];
    /* XXH3-128 of the empty input, from the reference implementation (xxhsum -H2) */
    tg_hash_hex(tg_hash_bytes("", 0), hex);
    CHECK(strcmp(hex, "99aa06d3014798d86001c324468d497f") == 0, "XXH3-128(\"\") = %s", hex);
    tg_hash h = tg_hash_bytes("toolgen", 7), back;
    tg_hash_hex(h, hex);
    CHECK(tg_hash_parse(hex, &back) && tg_hash_eq(h, back), "hex round trip");
    CHECK(!tg_hash_parse("99aa06d3014798d86001c324468d497", &back), "31 digits accepted");
    CHECK(!tg_hash_parse("99aa06d3014798d86001c324468d497g", &back), "non-hex accepted");

    char *path = tmp_path("hashme");
    write_text(path, "toolgen");
    tg_hash fh;
    tg_err err = {0};
    CHECK(tg_hash_file(path, &fh, &err) == 0 && tg_hash_eq(fh, h), "file hash = bytes hash");
    free(path);

    /* canonical JSON: key order does not matter, values and absence do */
    cJSON *a = json("{\"b\": [1, {\"y\": 2, \"x\": 1}], \"a\": \"s\"}");
    cJSON *b = json("{\"a\": \"s\", \"b\": [1, {\"x\": 1, \"y\": 2}]}");
    cJSON *c = json("{\"a\": \"s\", \"b\": [{\"x\": 1, \"y\": 2}, 1]}");
    cJSON *n = json("null");
    CHECK(tg_hash_eq(tg_hash_json(a), tg_hash_json(b)), "key order changed the hash");
    CHECK(!tg_hash_eq(tg_hash_json(a), tg_hash_json(c)), "array order ignored");
    CHECK(!tg_hash_eq(tg_hash_json(NULL), tg_hash_json(n)), "absent == null");
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    cJSON_Delete(n);

    /* key fields are length-prefixed: moving a boundary changes the key */
    tg_hasher *h1 = tg_hasher_new(), *h2 = tg_hasher_new(), *h3 = tg_hasher_new();
    tg_hasher_str(h1, 'n', "ab");
    tg_hasher_str(h1, 'n', "c");
    tg_hasher_str(h2, 'n', "a");
    tg_hasher_str(h2, 'n', "bc");
    tg_hasher_str(h3, 'n', "ab");
    tg_hasher_str(h3, 'n', "c");
    tg_hash k1 = tg_hasher_final(h1), k2 = tg_hasher_final(h2), k3 = tg_hasher_final(h3);
    CHECK(!tg_hash_eq(k1, k2), "field boundary not encoded");
    CHECK(tg_hash_eq(k1, k3), "key not deterministic");
    tg_hasher_free(h1);
    tg_hasher_free(h2);
    tg_hasher_free(h3);
}

/* ---- string map ----------------------------------------------------------------------------- */

static void test_strmap(void)
{
    enum { N = 5000 };
    tg_strv keys = TG_STRV_INIT;
    tg_strmap m = TG_STRMAP_INIT;
    for (int i = 0; i < N; i++)
        tg_strv_push_owned(&keys, xasprintf("generated/tool_%05d/openai.json", i));
    for (int i = 0; i < N; i++)
        tg_strmap_put(&m, keys.v[i], (void *)(size_t)(i + 1));
    CHECK(m.n == N, "n = %zu", m.n);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += tg_strmap_get(&m, keys.v[i]) != (void *)(size_t)(i + 1);
    CHECK(bad == 0, "%d lookups wrong", bad);
    for (int i = 0; i < N; i += 2)
        tg_strmap_del(&m, keys.v[i]);
    bad = 0;
    for (int i = 0; i < N; i++) {
        void *v = tg_strmap_get(&m, keys.v[i]);
        bad += (i % 2 == 0) ? v != NULL : v != (void *)(size_t)(i + 1);
    }
    CHECK(bad == 0 && m.n == N / 2, "after deleting half: %d wrong, n = %zu", bad, m.n);
    size_t it = 0, count = 0;
    const char *k;
    void *v;
    while (tg_strmap_next(&m, &it, &k, &v))
        count++;
    CHECK(count == N / 2, "iterated %zu", count);
    CHECK(tg_strmap_get(&m, "nope") == NULL, "phantom key");
    tg_strmap_free(&m);
    tg_strv_free(&keys);
}

/* ---- state log ------------------------------------------------------------------------------ */

static tg_stage_rec sample(const char *id, const char *out, tg_hash key, tg_named_hash *in,
                           tg_named_hash *o)
{
    in[0] = (tg_named_hash){"version", tg_hash_bytes("1", 1)};
    in[1] = (tg_named_hash){"file:manifests/x/tool.manifest.yaml", tg_hash_bytes("m", 1)};
    o[0] = (tg_named_hash){out, tg_hash_bytes(out, strlen(out))};
    return (tg_stage_rec){id, key, in, o, NULL, 2, 1, 0};
}

static void test_statelog(void)
{
    char *dir = tmp_path("state");
    tg_err err = {0};
    tg_statelog *l;
    CHECK(tg_statelog_open(AT_FDCWD, dir, true, &l, &err) == 0, "open: %s", err.msg);
    CHECK(tg_statelog_stage(l, "load:x") == NULL, "empty log has records");
    tg_named_hash in[2], out[1];
    tg_hash key1 = tg_hash_bytes("k1", 2), key2 = tg_hash_bytes("k2", 2);
    tg_stage_rec r = sample("load:x", ".toolgen/ir/x.json", key1, in, out);
    CHECK(tg_statelog_put_stage(l, &r, &err) == 0, "put: %s", err.msg);
    r = sample("emit:x", "generated/x/openai.json", key1, in, out);
    CHECK(tg_statelog_put_stage(l, &r, &err) == 0, "put: %s", err.msg);
    r = sample("load:x", ".toolgen/ir/x.json", key2, in, out); /* a rerun: later line wins */
    CHECK(tg_statelog_put_stage(l, &r, &err) == 0, "put: %s", err.msg);
    CHECK(tg_statelog_drop_stage(l, "emit:x", &err) == 0, "drop: %s", err.msg);
    tg_hash cfg = tg_hash_bytes("cfg", 3);
    CHECK(tg_statelog_set_config_checked(l, cfg, &err) == 0, "config: %s", err.msg);
    r = sample("bad id", "x", key1, in, out);
    CHECK(tg_statelog_put_stage(l, &r, &err) != 0, "an id with a space was recorded");
    CHECK(tg_statelog_finish(l, true, &err) == 0, "finish: %s", err.msg);
    tg_statelog_close(l);

    /* a torn last line (a build killed mid-write) is ignored, and so is garbage */
    char *logp = xasprintf("%s/log", dir);
    FILE *f = fopen(logp, "a");
    CHECK(f != NULL, "append");
    if (f) {
        fputs("garbage line\ns load:y 0000", f);
        fclose(f);
    }
    CHECK(tg_statelog_open(AT_FDCWD, dir, true, &l, &err) == 0, "reopen: %s", err.msg);
    const tg_stage_rec *got = tg_statelog_stage(l, "load:x");
    CHECK(got && tg_hash_eq(got->key, key2), "later record did not win");
    CHECK(got && got->nin == 2 && got->nout == 1 &&
              strcmp(got->in[1].name, "file:manifests/x/tool.manifest.yaml") == 0 &&
              strcmp(got->out[0].name, ".toolgen/ir/x.json") == 0,
          "record fields lost");
    CHECK(tg_statelog_stage(l, "emit:x") == NULL, "dropped record came back");
    CHECK(tg_statelog_stage(l, "load:y") == NULL, "torn record accepted");
    CHECK(tg_statelog_config_checked(l, cfg), "config mark lost");
    tg_strv ids = TG_STRV_INIT;
    tg_statelog_stage_ids(l, &ids);
    CHECK(ids.n == 1, "%zu ids", ids.n);
    tg_strv_free(&ids);

    /* the stat cache: a file is read when new or changed, and its hash follows its content */
    char *p = tmp_path("cached.txt");
    write_text(p, "one");
    tg_hash h1, h2, h3;
    CHECK(tg_statelog_hash_file(l, p, &h1, &err) == 1, "hash: %s", err.msg);
    CHECK(tg_hash_eq(h1, tg_hash_bytes("one", 3)), "wrong hash");
    write_text(p, "three");
    CHECK(tg_statelog_hash_file(l, p, &h2, &err) == 1 && tg_hash_eq(h2, tg_hash_bytes("three", 5)),
          "stale hash after a change");
    /* same size, same inode, most likely the same clock tick: only content tells */
    FILE *ip = fopen(p, "r+");
    CHECK(ip != NULL, "open in place");
    if (ip) {
        fputs("THREE", ip);
        fclose(ip);
    }
    CHECK(tg_statelog_hash_file(l, p, &h3, &err) == 1 && tg_hash_eq(h3, tg_hash_bytes("THREE", 5)),
          "racy same-size edit missed");
    char *missing = tmp_path("no-such-file");
    CHECK(tg_statelog_hash_file(l, missing, &h3, &err) == 0, "missing file hashed");
    CHECK(tg_statelog_finish(l, true, &err) == 0, "finish: %s", err.msg);
    tg_statelog_close(l);

    /* after finish() settled it, the entry is trusted: the next open answers from the cache */
    CHECK(tg_statelog_open(AT_FDCWD, dir, false, &l, &err) == 0, "reopen: %s", err.msg);
    CHECK(tg_statelog_hash_file(l, p, &h1, &err) == 1 && tg_hash_eq(h1, h3), "cached hash wrong");
    tg_statelog_close(l);
    FILE *lf = fopen(logp, "r");
    char line[8192];
    bool trusted = false;
    while (lf && fgets(line, sizeof line, lf))
        if (line[0] == 'f' && strstr(line, "cached.txt"))
            trusted = strstr(line, " t ") != NULL;
    if (lf)
        fclose(lf);
    CHECK(trusted, "settled entry not marked trusted");

    /* a log of another format is ignored (everything rebuilds), not misread */
    write_text(logp, "# some other log v9\ns load:x 00\n");
    CHECK(tg_statelog_open(AT_FDCWD, dir, false, &l, &err) == 0, "reopen: %s", err.msg);
    CHECK(tg_statelog_stage(l, "load:x") == NULL, "foreign log was read");
    tg_statelog_close(l);
    free(missing);
    free(p);
    free(logp);
    free(dir);
}

/*
 * Compaction: a log grown far beyond its live entries (here: one stage rerun 2000 times) is
 * rewritten at finish with the live entries only, and reads back the same; a record torn
 * after that (a build killed mid-append) is dropped without losing the others.
 */
static void test_statelog_compaction(void)
{
    char *dir = tmp_path("state-compact");
    char *logp = xasprintf("%s/log", dir);
    tg_err err = {0};
    tg_statelog *l;
    CHECK(tg_statelog_open(AT_FDCWD, dir, true, &l, &err) == 0, "open: %s", err.msg);
    tg_named_hash in[2], out[1];
    tg_stage_rec r = sample("emit:y", "generated/y/openai.json", tg_hash_bytes("k", 1), in, out);
    CHECK(tg_statelog_put_stage(l, &r, &err) == 0, "put: %s", err.msg);
    tg_hash last = {0, 0};
    for (int i = 0; i < 2000; i++) {
        char k[32];
        snprintf(k, sizeof k, "key %d", i);
        last = tg_hash_bytes(k, strlen(k));
        r = sample("load:x", ".toolgen/ir/x.json", last, in, out);
        if (tg_statelog_put_stage(l, &r, &err) != 0)
            break;
    }
    struct stat before, after;
    CHECK(stat(logp, &before) == 0 && before.st_size > 3 * 64 * 1024, "log only %lld bytes",
          (long long)before.st_size);
    CHECK(tg_statelog_finish(l, false, &err) == 0, "finish: %s", err.msg);
    tg_statelog_close(l);
    CHECK(stat(logp, &after) == 0 && after.st_size < 4096, "not compacted: %lld bytes",
          (long long)after.st_size);

    FILE *f = fopen(logp, "a");
    CHECK(f != NULL, "append");
    if (f) {
        fputs("s load:z 99aa06d3014798d86001c324468d497f 1 version 99aa", f); /* torn */
        fclose(f);
    }
    CHECK(tg_statelog_open(AT_FDCWD, dir, false, &l, &err) == 0, "reopen: %s", err.msg);
    const tg_stage_rec *got = tg_statelog_stage(l, "load:x");
    CHECK(got && tg_hash_eq(got->key, last) && got->nin == 2 && got->nout == 1,
          "the live record changed in compaction");
    CHECK(tg_statelog_stage(l, "emit:y") != NULL, "a record lost in compaction");
    CHECK(tg_statelog_stage(l, "load:z") == NULL, "torn record accepted");
    tg_strv ids = TG_STRV_INIT;
    tg_statelog_stage_ids(l, &ids);
    CHECK(ids.n == 2, "%zu ids", ids.n);
    tg_strv_free(&ids);
    tg_statelog_close(l);
    free(logp);
    free(dir);
}

/* ---- config --------------------------------------------------------------------------------- */

static void test_config(void)
{
    char cwd[1024];
    SETUP(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    char *dir = tmp_path("repo");
    mkdir(dir, 0755);
    SETUP(chdir(dir) == 0, "chdir");
    tg_config c;
    tg_err err = {0};
    CHECK(tg_config_load(&c, AT_FDCWD, ".", &err) == 0, "no toolgen.yaml: %s", err.msg);
    CHECK(strcmp(c.manifests_dir, "manifests") == 0 && strcmp(c.generated_dir, "generated") == 0,
          "defaults %s %s", c.manifests_dir, c.generated_dir);
    CHECK(strcmp(c.project.name, TG_CONFIG_DEFAULT_PROJECT_NAME) == 0, "default name");
    const cJSON *v = tg_config_get(&c, "/project/version");
    CHECK(cJSON_IsString(v) && strcmp(v->valuestring, TG_CONFIG_DEFAULT_PROJECT_VERSION) == 0,
          "effective default not visible");
    tg_config_free(&c);

    write_text("toolgen.yaml", "paths:\n  manifests: ./tools/\n  generated: out//\nbuild: {jobs: 3}\n"
                               "project: {name: my-tools, version: 2.0.0, author: me}\n");
    CHECK(tg_config_load(&c, AT_FDCWD, ".", &err) == 0, "load: %s", err.msg);
    CHECK(strcmp(c.manifests_dir, "tools") == 0 && strcmp(c.generated_dir, "out") == 0,
          "normalised %s %s", c.manifests_dir, c.generated_dir);
    CHECK(c.jobs == 3 && strcmp(c.project.name, "my-tools") == 0 &&
              strcmp(c.project.author, "me") == 0 && c.project.description == NULL,
          "typed values");
    tg_config_free(&c);

    write_text("toolgen.yaml", "paths:\n  generated: ../elsewhere\n");
    CHECK(tg_config_load(&c, AT_FDCWD, ".", &err) != 0, "'..' accepted");
    CHECK(err.line == 2 && strstr(err.msg, "/paths/generated"), "error place %d %s", err.line,
          err.msg);
    write_text("toolgen.yaml", "project:\n  name: Not_Kebab\n");
    CHECK(tg_config_load(&c, AT_FDCWD, ".", &err) != 0 && strstr(err.msg, "kebab"), "bad name accepted");
    write_text("toolgen.yaml", "build:\n  jobs: many\n");
    CHECK(tg_config_load(&c, AT_FDCWD, ".", &err) != 0 && strstr(err.msg, "/build/jobs"), "bad jobs accepted");
    unlink("toolgen.yaml");
    SETUP(chdir(cwd) == 0, "chdir back");
    rmdir(dir);
    free(dir);
}

/* tg_repo_open reads the repository it names, never the current directory (which here is the
 * source tree, with a toolgen.yaml of its own). */
static void test_repo_open(void)
{
    char *dir = tmp_path("named"), *link = tmp_path("named-link");
    char *yaml = tg_path_join(dir, "toolgen.yaml");
    mkdir(dir, 0755);
    SETUP(symlink(dir, link) == 0, "symlink");
    write_text(yaml, "project: {name: named-repo}\n");
    tg_repo r;
    tg_err err = {0};
    CHECK(tg_repo_open(&r, link, &err) == 0, "open: %s", err.msg);
    CHECK(r.root_fd >= 0 && r.have_config && strcmp(r.cfg.project.name, "named-repo") == 0,
          "the named repository's config, not the current directory's");
    char real[4096];
    CHECK(realpath(dir, real) && strcmp(r.path, real) == 0, "path %s is not the real path",
          r.path);
    tg_repo_release(&r);
    CHECK(r.root_fd == -1 && r.path == NULL, "released");

    write_text(yaml, "build:\n  jobs: many\n");
    CHECK(tg_repo_open(&r, dir, &err) == -1 && strstr(err.msg, "/build/jobs") &&
              r.root_fd == -1,
          "a bad config fails the open and leaves nothing open: %s", err.msg);
    CHECK(tg_repo_open_dir(&r, dir, &err) == 0 && !r.have_config, "open without config");
    CHECK(tg_repo_load_config(&r, &err) == -1 && r.root_fd >= 0,
          "the config fails later; the repository stays open");
    tg_repo_release(&r);
    CHECK(tg_repo_open_dir(&r, yaml, &err) == -1 && strstr(err.msg, "toolgen.yaml") &&
              r.root_fd == -1,
          "a file is no repository: %s", err.msg);
    unlink(yaml);
    unlink(link);
    rmdir(dir);
    free(yaml);
    free(link);
    free(dir);
}

static void test_names(void)
{
    CHECK(tg_tool_name_ok("csv_column_stats"), "valid name refused");
    CHECK(!tg_tool_name_ok("Csv") && !tg_tool_name_ok("1tool") && !tg_tool_name_ok("a-b") &&
              !tg_tool_name_ok("") && !tg_tool_name_ok("a b"),
          "invalid name accepted");
    CHECK(tg_stage_def_find(tg_stages, "load") && tg_stage_def_find(tg_stages, "emit") &&
              tg_stage_def_find(tg_stages, "aggregate") && !tg_stage_def_find(tg_stages, "nope"),
          "stage table");
    /* every stage's upstream comes earlier in the table */
    for (size_t i = 0; tg_stages[i]; i++)
        for (const char *const *u = tg_stages[i]->upstream; u && *u; u++) {
            bool earlier = false;
            for (size_t j = 0; j < i; j++)
                earlier |= strcmp(tg_stages[j]->id, *u) == 0;
            CHECK(earlier, "stage %s: upstream %s is not earlier", tg_stages[i]->id, *u);
        }
}

/* One build of dir with toolgen's stages; how many stages ran, and how many of them were load. */
static int build_once(const char *dir, int *loads)
{
    tg_repo r;
    tg_err err = {0};
    SETUP(tg_repo_open(&r, dir, &err) == 0, "open %s: %s", dir, err.msg);
    tg_build_opts o = {.repo = &r, .jobs = 1};
    tg_build_opts_toolgen(&o);
    tg_build_stats st = {0};
    SETUP(tg_build(&o, &st, &err) == TG_BUILD_OK, "build %s: %s", dir, err.msg);
    int ran = st.ran;
    *loads = 0;
    for (int k = 0; k < st.nkinds; k++)
        if (strcmp(st.kind_id[k], "load") == 0)
            *loads = st.kind_ran[k];
    tg_build_stats_free(&st);
    tg_repo_release(&r);
    return ran;
}

/* The manifest is in the load stage's key: an edit that leaves the IR as it was (a comment)
 * still reruns load — only the manifest's own bytes can tell — and nothing after it. */
static void test_load_key(void)
{
    char *dir = tmp_path("loadkey"), *tool = tmp_path("loadkey/manifests/tool_a");
    char *cmd = xasprintf("mkdir -p %s && sed s/@NAME@/tool_a/g tests/synthetic_tool.yaml "
                          ">%s/tool.manifest.yaml", tool, tool);
    SETUP(system(cmd) == 0, "%s", cmd);
    char *yaml = tg_path_join(dir, "toolgen.yaml");
    write_text(yaml, "project: {name: key-tools, version: 1.0.0}\nbuild: {gates: false}\n");

    const tg_stage_def *load = tg_stage_def_find(tg_stages, "load");
    tg_strv in = TG_STRV_INIT;
    tg_repo r;
    tg_err err = {0};
    SETUP(load && tg_repo_open(&r, dir, &err) == 0, "open %s: %s", dir, err.msg);
    load->inputs(&r.cfg, "tool_a", &in);
    CHECK(in.n == 1 && strcmp(in.v[0], "manifests/tool_a/tool.manifest.yaml") == 0,
          "load declares the manifest as its input (%zu inputs)", in.n);
    tg_strv_free(&in);
    tg_repo_release(&r);

    int loads;
    SETUP(build_once(dir, &loads) > 0 && loads == 1, "the first build loads tool_a");
    CHECK(build_once(dir, &loads) == 0, "an unchanged manifest: nothing runs");
    char *manifest = xasprintf("%s/tool.manifest.yaml", tool);
    FILE *fp = fopen(manifest, "a");
    SETUP(fp && fputs("# a comment only\n", fp) >= 0 && fclose(fp) == 0, "append to %s", manifest);
    int ran = build_once(dir, &loads);
    CHECK(ran == 1 && loads == 1, "a comment reruns load, and only load (%d ran, %d load)", ran,
          loads);
    free(manifest);
    free(yaml);
    free(cmd);
    free(tool);
    free(dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/toolgen-test-build-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_hash();
    test_strmap();
    test_statelog();
    test_statelog_compaction();
    test_config();
    test_repo_open();
    test_names();
    test_load_key();
    char *cmd = xasprintf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    free(cmd);
    return tl_finish("unit-build");
}
