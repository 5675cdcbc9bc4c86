/* fuzz_openapi.c — libFuzzer harness: `toolgen init --from-openapi` (app/openapi.h) on any
 * document, as JSON (input starting with '{') or YAML, in dry-run mode against a repository
 * made once: it ends in drafts or in an error that says where and why, never a crash, a leak
 * or a file written; the report's counts agree with its lists. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/openapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char repo[64], doc_json[96], doc_yaml[96];

/* The repository goes with the process (libFuzzer exits through exit()). */
static void remove_repo(void)
{
    char path[160];
    snprintf(path, sizeof path, "%s/toolgen.yaml", repo);
    unlink(path);
    snprintf(path, sizeof path, "%s/manifests", repo);
    rmdir(path);
    rmdir(repo);
    unlink(doc_json); /* the last input's, when the run was interrupted during it */
    unlink(doc_yaml);
}

/* A toolgen repository with an empty manifests folder, and the two document paths. */
static void setup_once(void)
{
    snprintf(repo, sizeof repo, "/tmp/fuzz_openapi.XXXXXX");
    if (!mkdtemp(repo))
        abort();
    char path[160];
    snprintf(path, sizeof path, "%s/toolgen.yaml", repo);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs("project:\n  name: fuzz\n  version: 1.0.0\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/manifests", repo);
    if (mkdir(path, 0755) != 0)
        abort();
    atexit(remove_repo);
    snprintf(doc_json, sizeof doc_json, "%s.doc.json", repo);
    snprintf(doc_yaml, sizeof doc_yaml, "%s.doc.yaml", repo);
}

/* Entries of the repository's manifests folder (a dry run writes none). */
static size_t manifests_written(void)
{
    char path[160];
    snprintf(path, sizeof path, "%s/manifests", repo);
    DIR *d = opendir(path);
    if (!d)
        abort();
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!repo[0])
        setup_once();
    size_t lead = 0;
    while (lead < size && (data[lead] == ' ' || data[lead] == '\n' || data[lead] == '\t'))
        lead++;
    const char *doc = lead < size && data[lead] == '{' ? doc_json : doc_yaml;
    FILE *f = fopen(doc, "wb");
    if (!f || fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    tg_openapi_opts o = {.file = doc, .dir = repo, .dry_run = true};
    tg_openapi_report r;
    tg_err err = {0};
    int rc = tg_app_init_openapi(&o, &r, &err);
    if (rc != 0 && rc != -1 && rc != -2)
        abort();
    if (rc != 0 && !err.msg[0])
        abort(); /* every refusal says why */
    if (rc == 0 && r.tools != r.created.n + r.updated.n + r.unchanged.n + r.kept.n)
        abort();
    if (manifests_written() != 0)
        abort(); /* a dry run writes nothing */
    tg_openapi_report_free(&r);
    unlink(doc);
    return 0;
}
