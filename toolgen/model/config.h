/*
 * config.h — toolgen.yaml as typed values, with the schema's defaults filled in.
 *
 * Loading only parses and type-checks what the build needs (fast: no schema compilation); the
 * full schema check is tg_lint_paths' job, which the build runs whenever the file's bytes change.
 */
#ifndef TG_CONFIG_H
#define TG_CONFIG_H

#include <stdbool.h>

#include "base/doc.h"
#include "base/hash.h"

/* The project section of toolgen.yaml: who publishes the bundle and the skill. */
typedef struct tg_project_info {
    const char *name;        /* repository / skill name, kebab-case, e.g. "toolgen-examples" */
    const char *version;     /* version of the bundle, e.g. "1.0.0" */
    const char *description; /* one or two sentences; NULL: a generic sentence */
    const char *author;      /* bundle author; NULL: "toolgen" */
    /* What the MCP Bundle's manifest carries besides (docs/config.md); NULL: left out. */
    const char *long_description; /* markdown */
    const char *license;          /* an SPDX identifier, e.g. "MIT" */
    const char *repository;       /* the source repository's URL */
    const char *homepage;         /* a URL */
    const char *registry_name;    /* the official MCP registry's "namespace/name" (server.json) */
    const cJSON *privacy_policies; /* an array of URLs (in the config's document); NULL: none */
} tg_project_info;

typedef struct tg_config {
    char *path;          /* "toolgen.yaml", or NULL when the repository has none */
    tg_doc doc;          /* the parsed file (root NULL without one) */
    tg_hash hash;        /* of the file's bytes; zero without a file */
    char *manifests_dir; /* paths.manifests, normalised: no "./", no trailing '/' */
    char *generated_dir; /* paths.generated, the same way */
    int jobs;            /* build.jobs; 0 = one per CPU */
    tg_project_info project; /* project.*: identity of the bundle and the skill */
    bool serve_workflow; /* serve.workflow: the lifecycle as MCP tools (docs/mcp.md) */
    const cJSON *serve_toolsets; /* serve.toolsets: names of built-in toolsets to serve, an
                                  * array of strings in doc (docs/toolsets.md); NULL: none */
    cJSON *effective;    /* the typed keys above as JSON, defaults included */
} tg_config;

/* Project defaults, used when toolgen.yaml has no project section. */
#define TG_CONFIG_DEFAULT_PROJECT_NAME "toolgen-tools"
#define TG_CONFIG_DEFAULT_PROJECT_VERSION "0.1.0"

/*
 * Loads toolgen.yaml (or toolgen.yml) of the repository open as root_fd, whose absolute path is
 * root (model/repo.h opens both); a repository without one gets every default. Fails with
 * file:line:col when a key the build needs has the wrong type or an unsafe path.
 */
int tg_config_load(tg_config *c, int root_fd, const char *root, tg_err *err);
void tg_config_free(tg_config *c);

/*
 * The value at a JSON Pointer as a stage sees it: the typed keys with their defaults, else the
 * raw document; NULL when absent. This is what build keys hash for a stage's config reads.
 */
const cJSON *tg_config_get(const tg_config *c, const char *pointer);

#endif
