/* config.c — typed toolgen.yaml. */
#include "model/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/manifest.h"
#include "base/confine.h"
#include "base/util.h"

static int type_error(const tg_config *c, const char *pointer, const char *what, tg_err *err)
{
    tg_pos p = tg_doc_pointer_pos(&c->doc, pointer);
    return tg_err_setpos(err, c->path, p.line, p.col, "%s: must be %s (see docs/config.md)",
                         pointer, what);
}

/* Whether v is a list of non-empty strings. */
static bool string_list(const cJSON *v)
{
    if (!cJSON_IsArray(v))
        return false;
    for (const cJSON *i = v->child; i; i = i->next)
        if (!cJSON_IsString(i) || !i->valuestring[0])
            return false;
    return true;
}

/* An entry of web.allow_hosts: a host name or address ("*." before a name: its subdomains;
 * "[v6]"), with an optional ":PORT" or ":*" — never a URL (docs/web.md#allowed-hosts). */
static bool host_entry(const char *s)
{
    const char *p = s;
    if (strncmp(p, "*.", 2) == 0)
        p += 2;
    size_t n;
    if (*p == '[') {
        n = strspn(p + 1, "0123456789abcdefABCDEF:.");
        if (n == 0 || p[1 + n] != ']')
            return false;
        p += n + 2;
    } else {
        n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
        if (n == 0 || p[0] == '.' || p[0] == '-' || strstr(p, "..") != NULL)
            return false;
        p += n;
    }
    if (*p == ':' && strcmp(p + 1, "*") == 0)
        return true;
    if (*p == ':') {
        n = strspn(p + 1, "0123456789");
        return n >= 1 && n <= 5 && p[1 + n] == '\0' && atol(p + 1) <= 65535;
    }
    return *p == '\0' && strlen(s) <= 260;
}

/* toolgen.yaml's web section (web_fetch's allowlist and limits, docs/web.md): checked when the
 * repository is opened, so that a server never starts with an allowlist it misreads. */
static int check_web(const tg_config *c, tg_err *err)
{
    const cJSON *web = c->doc.root ? tg_json_get(c->doc.root, "web") : NULL;
    if (!web)
        return 0;
    if (!cJSON_IsObject(web))
        return type_error(c, "/web", "a mapping (allow_hosts, max_mb, requests_per_minute, "
                                     "timeout_s, max_redirects)", err);
    static const struct {
        const char *key;
        double min, max;
        bool integer, min_open;
    } nums[] = {{"max_mb", 0, 1024, false, true},
                {"requests_per_minute", 1, 100000, true, false},
                {"timeout_s", 0, 600, false, true},
                {"max_redirects", 0, 20, true, false}};
    const cJSON *v;
    cJSON_ArrayForEach(v, web)
    {
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/web/%s", v->string);
        if (strcmp(v->string, "allow_hosts") == 0) {
            if (!cJSON_IsArray(v))
                return type_error(c, ptr, "a list of host names, e.g. [api.example.com, "
                                          "'127.0.0.1:8080']", err);
            int i = 0;
            for (const cJSON *h = v->child; h; h = h->next, i++) {
                snprintf(ptr, sizeof ptr, "/web/allow_hosts/%d", i);
                if (!cJSON_IsString(h) || !host_entry(h->valuestring))
                    return type_error(c, ptr, "a host name or address, *.example.com for "
                                              "subdomains, with :PORT or :* when not the "
                                              "default port; not a URL", err);
            }
            continue;
        }
        size_t k = 0;
        while (k < sizeof nums / sizeof *nums && strcmp(nums[k].key, v->string) != 0)
            k++;
        if (k == sizeof nums / sizeof *nums)
            return type_error(c, ptr, "not a key of web (allow_hosts, max_mb, "
                                      "requests_per_minute, timeout_s, max_redirects)", err);
        double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!cJSON_IsNumber(v) || d > nums[k].max || d < nums[k].min ||
            (nums[k].min_open && d <= nums[k].min) || (nums[k].integer && d != (double)(long)d)) {
            char what[96];
            snprintf(what, sizeof what, "a%s number %s %g and at most %g",
                     nums[k].integer ? "n integer" : "", nums[k].min_open ? "above" : "from",
                     nums[k].min, nums[k].max);
            return type_error(c, ptr, what, err);
        }
    }
    return 0;
}

/* A string at pointer, the fallback when absent; -1 when present with another type. */
static int get_string(const tg_config *c, const char *pointer, const char *fallback,
                      const char **out, tg_err *err)
{
    const cJSON *v = c->doc.root ? tg_json_pointer_get(c->doc.root, pointer) : NULL;
    if (!v) {
        *out = fallback;
        return 0;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return type_error(c, pointer, "a non-empty string", err);
    *out = v->valuestring;
    return 0;
}

/*
 * Directory paths end up in file names, in the state log (space-separated) and in messages, so
 * they are held to the schema's relative_path rule even before the schema check runs.
 */
static int get_dir(const tg_config *c, const char *pointer, const char *fallback, char **out,
                   tg_err *err)
{
    const char *s;
    if (get_string(c, pointer, fallback, &s, err) != 0)
        return -1;
    bool ok = s[0] != '/';
    for (const char *p = s; *p && ok; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             *p == '_' || *p == '-' || *p == '.' || *p == '/';
    for (const char *p = s; *p && ok;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            ok = false;
        p += n;
        while (*p == '/')
            p++;
    }
    if (!ok)
        return type_error(c, pointer,
                          "a relative path of letters, digits, '_', '-', '.' and '/', without '..'",
                          err);
    while (s[0] == '.' && s[1] == '/')
        s += 2;
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        n--;
    if (n == 0 || (n == 1 && s[0] == '.'))
        return type_error(c, pointer, "a directory below the repository root", err);
    *out = xstrndup(s, n);
    return 0;
}

static bool kebab(const char *s)
{
    if (!s[0] || strlen(s) > 64 || s[0] == '-')
        return false;
    for (const char *p = s; *p; p++) {
        if (*p == '-') {
            if (p[1] == '-' || p[1] == '\0')
                return false;
        } else if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) {
            return false;
        }
    }
    return true;
}

int tg_config_load(tg_config *c, int root_fd, const char *root, tg_err *err)
{
    *c = (tg_config){0};
    const char *name = tg_is_file_at(root_fd, "toolgen.yaml")  ? "toolgen.yaml"
                       : tg_is_file_at(root_fd, "toolgen.yml") ? "toolgen.yml"
                                                               : NULL;
    if (name) {
        c->path = xstrdup(name);
        size_t len = 0;
        char *text = tg_confine_repo_in(root, name, NULL, "config", err) == 0
                         ? tg_read_file_at(root_fd, name, TG_DOC_MAX_BYTES, &len, err)
                         : NULL;
        if (!text)
            goto fail;
        c->hash = tg_hash_bytes(text, len);
        int rc = tg_doc_parse_yaml(text, len, name, NULL, &c->doc, err);
        free(text);
        if (rc != 0)
            goto fail;
        if (c->doc.root && cJSON_IsNull(c->doc.root)) {
            /* an empty file: every default */
        } else if (!cJSON_IsObject(c->doc.root)) {
            tg_err_setpos(err, name, 1, 1, "toolgen.yaml must be a mapping of settings");
            goto fail;
        }
    }
    if (get_dir(c, "/paths/manifests", "manifests", &c->manifests_dir, err) != 0 ||
        get_dir(c, "/paths/generated", "generated", &c->generated_dir, err) != 0)
        goto fail;
    if (strcmp(c->manifests_dir, c->generated_dir) == 0) {
        type_error(c, "/paths/generated", "a directory other than paths.manifests", err);
        goto fail;
    }
    const cJSON *jobs = c->doc.root ? tg_json_pointer_get(c->doc.root, "/build/jobs") : NULL;
    if (jobs) {
        if (!cJSON_IsNumber(jobs) || jobs->valuedouble < 0 || jobs->valuedouble > 1024 ||
            jobs->valuedouble != (double)(int)jobs->valuedouble) {
            type_error(c, "/build/jobs", "an integer from 0 to 1024", err);
            goto fail;
        }
        c->jobs = (int)jobs->valuedouble;
    }
    tg_project_info *p = &c->project;
    if (get_string(c, "/project/name", TG_CONFIG_DEFAULT_PROJECT_NAME, &p->name, err) != 0 ||
        get_string(c, "/project/version", TG_CONFIG_DEFAULT_PROJECT_VERSION, &p->version, err) !=
            0 ||
        get_string(c, "/project/description", NULL, &p->description, err) != 0 ||
        get_string(c, "/project/author", NULL, &p->author, err) != 0 ||
        get_string(c, "/project/long_description", NULL, &p->long_description, err) != 0 ||
        get_string(c, "/project/license", NULL, &p->license, err) != 0 ||
        get_string(c, "/project/repository", NULL, &p->repository, err) != 0 ||
        get_string(c, "/project/homepage", NULL, &p->homepage, err) != 0 ||
        get_string(c, "/project/registry_name", NULL, &p->registry_name, err) != 0)
        goto fail;
    p->privacy_policies = c->doc.root ? tg_json_pointer_get(c->doc.root, "/project/privacy_policies")
                                      : NULL;
    if (p->privacy_policies && !string_list(p->privacy_policies)) {
        type_error(c, "/project/privacy_policies", "a list of URLs", err);
        goto fail;
    }
    const cJSON *wf = c->doc.root ? tg_json_pointer_get(c->doc.root, "/serve/workflow") : NULL;
    if (wf && !cJSON_IsBool(wf)) {
        type_error(c, "/serve/workflow", "true or false", err);
        goto fail;
    }
    c->serve_workflow = cJSON_IsTrue(wf);
    c->serve_toolsets = c->doc.root ? tg_json_pointer_get(c->doc.root, "/serve/toolsets") : NULL;
    if (c->serve_toolsets && !string_list(c->serve_toolsets)) {
        type_error(c, "/serve/toolsets", "a list of toolset names, e.g. [code, calculator]", err);
        goto fail;
    }
    if (check_web(c, err) != 0)
        goto fail;
    if (!kebab(p->name)) {
        type_error(c, "/project/name",
                   "kebab-case (lowercase letters and digits, single '-' between), at most 64 "
                   "characters: it names the skill folder and the bundle",
                   err);
        goto fail;
    }

    cJSON *e = cJSON_CreateObject();
    cJSON *paths = cJSON_AddObjectToObject(e, "paths");
    cJSON_AddStringToObject(paths, "manifests", c->manifests_dir);
    cJSON_AddStringToObject(paths, "generated", c->generated_dir);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(e, "build"), "jobs", c->jobs);
    cJSON *proj = cJSON_AddObjectToObject(e, "project");
    cJSON_AddStringToObject(proj, "name", p->name);
    cJSON_AddStringToObject(proj, "version", p->version);
    if (p->description)
        cJSON_AddStringToObject(proj, "description", p->description);
    if (p->author)
        cJSON_AddStringToObject(proj, "author", p->author);
    const char *extra[][2] = {{"long_description", p->long_description}, {"license", p->license},
                              {"repository", p->repository}, {"homepage", p->homepage},
                              {"registry_name", p->registry_name}};
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        if (extra[i][1])
            cJSON_AddStringToObject(proj, extra[i][0], extra[i][1]);
    if (p->privacy_policies)
        cJSON_AddItemToObject(proj, "privacy_policies", cJSON_Duplicate(p->privacy_policies, true));
    c->effective = e;
    return 0;
fail:
    tg_config_free(c);
    return -1;
}

void tg_config_free(tg_config *c)
{
    free(c->path);
    tg_doc_free(&c->doc);
    free(c->manifests_dir);
    free(c->generated_dir);
    cJSON_Delete(c->effective);
    *c = (tg_config){0};
}

const cJSON *tg_config_get(const tg_config *c, const char *pointer)
{
    /* A typed section answers whole (defaults included); only other keys come from the file. */
    static const char *const typed[] = {"/paths", "/build", "/project"};
    for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
        size_t n = strlen(typed[i]);
        if (strncmp(pointer, typed[i], n) == 0 && (pointer[n] == '\0' || pointer[n] == '/'))
            return tg_json_pointer_get(c->effective, pointer);
    }
    if (pointer[0] == '\0')
        return c->doc.root;
    return c->doc.root ? tg_json_pointer_get(c->doc.root, pointer) : NULL;
}
