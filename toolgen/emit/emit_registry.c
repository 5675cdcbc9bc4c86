/*
 * emit_registry.c — generated/mcp/server.json for the official MCP registry. Built on common.h
 * only.
 */
#include "emit/emit_registry.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"

/* The code forges whose releases the registry takes bundles from (its "MCPB" rule), with their
 * namespace prefix and the path of a release's asset. */
typedef struct forge {
    const char *host, *source, *ns, *asset; /* asset: printf of owner, repo, version, file */
} forge;

static const forge forges[] = {
    {"github.com", "github", "io.github", "https://github.com/%s/%s/releases/download/v%s/%s"},
    {"gitlab.com", "gitlab", "io.gitlab", "https://gitlab.com/%s/%s/-/releases/v%s/downloads/%s"},
};

/* ---- URLs ----------------------------------------------------------------------------------- */

/* A URL's host (lowercase, without port or "www.") and its first two path segments (a ".git"
 * suffix dropped); each NULL when absent. Heap strings. */
typedef struct url_bits {
    char *host, *owner, *repo;
} url_bits;

static char *segment(const char **p)
{
    while (**p == '/')
        (*p)++;
    size_t n = strcspn(*p, "/?#");
    char *s = n ? xstrndup(*p, n) : NULL;
    *p += n;
    return s;
}

static url_bits url_split(const char *url)
{
    url_bits u = {0};
    const char *p = url ? strstr(url, "://") : NULL;
    if (!p)
        return u;
    p += 3;
    size_t n = strcspn(p, "/?#:");
    if (strncmp(p, "www.", 4) == 0 && n > 4) {
        p += 4;
        n -= 4;
    }
    u.host = xstrndup(p, n);
    for (char *c = u.host; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    p += strcspn(p, "/?#");
    u.owner = segment(&p);
    u.repo = segment(&p);
    size_t len = u.repo ? strlen(u.repo) : 0;
    if (len > 4 && strcmp(u.repo + len - 4, ".git") == 0)
        u.repo[len - 4] = '\0';
    return u;
}

static void url_free(url_bits *u)
{
    free(u->host);
    free(u->owner);
    free(u->repo);
}

/* Only letters, digits and the characters of extra: what may go into a name's namespace. */
static bool name_chars(const char *s, const char *extra)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
            return false;
    return true;
}

/* The forge of a repository URL with an owner and a name, or NULL. */
static const forge *forge_of(const url_bits *u)
{
    for (size_t i = 0; u->host && i < sizeof forges / sizeof *forges; i++)
        if (strcmp(u->host, forges[i].host) == 0 && name_chars(u->owner, "-.") &&
            name_chars(u->repo, "-._"))
            return &forges[i];
    return NULL;
}

/* ---- the name and the description ------------------------------------------------------------ */

/* The registry's pattern for a name: ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters. */
static bool registry_name_ok(const char *s)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    if (!slash || slash == s || strlen(s) < 3 || strlen(s) > 200)
        return false;
    char *ns = xstrndup(s, (size_t)(slash - s));
    bool ok = name_chars(ns, ".-") && name_chars(slash + 1, "._-");
    free(ns);
    return ok;
}

/* com.example.tools for tools.example.com (heap), or NULL for a host that cannot be one. */
static char *reversed_host(const char *host)
{
    if (!name_chars(host, ".-") || host[0] == '.' || !strchr(host, '.'))
        return NULL;
    tg_buf b = TG_BUF_INIT;
    for (const char *end = host + strlen(host); end > host;) {
        const char *dot = end;
        while (dot > host && dot[-1] != '.')
            dot--;
        if (b.len)
            tg_buf_putc(&b, '.');
        tg_buf_append(&b, dot, (size_t)(end - dot));
        end = dot > host ? dot - 1 : host;
    }
    return tg_buf_steal(&b);
}

char *tg_emit_registry_name(const tg_project_info *repo)
{
    if (registry_name_ok(repo->registry_name))
        return xstrdup(repo->registry_name);
    url_bits u = url_split(repo->repository);
    const forge *f = forge_of(&u);
    char *name = f ? xasprintf("%s.%s/%s", f->ns, u.owner, repo->name) : NULL;
    url_free(&u);
    if (name)
        return name;
    u = url_split(repo->homepage);
    char *ns = reversed_host(u.host);
    url_free(&u);
    name = xasprintf("%s/%s", ns ? ns : "local.toolgen", repo->name);
    free(ns);
    return name;
}

/* Where the n-th character after s starts (the end when s has fewer). */
static const char *after_chars(const char *s, size_t n)
{
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80 && n-- == 0)
            break;
    return s;
}

char *tg_emit_registry_shorten(const char *text, size_t max)
{
    tg_buf b = TG_BUF_INIT; /* text with each run of white space as one space */
    for (const char *p = text; *p; p++) {
        if (isspace((unsigned char)*p)) {
            if (b.len && b.data[b.len - 1] != ' ')
                tg_buf_putc(&b, ' ');
        } else {
            tg_buf_putc(&b, *p);
        }
    }
    while (b.len && b.data[b.len - 1] == ' ')
        b.data[--b.len] = '\0';
    char *t = tg_buf_steal(&b);
    if (!*after_chars(t, max))
        return t;
    const char *stop = strstr(t, ". "); /* the first sentence ends there: does it fit? */
    if (stop && stop < after_chars(t, max)) {
        t[stop - t + 1] = '\0';
        return t;
    }
    char *cut = (char *)after_chars(t, max - 1); /* room for the ellipsis */
    char *space = cut;
    while (space > t && *space != ' ')
        space--;
    if (space > t)
        cut = space;
    while (cut > t && strchr(" ,;:-", cut[-1]))
        cut--;
    *cut = '\0';
    char *r = xasprintf("%s\xE2\x80\xA6", t);
    free(t);
    return r;
}

/* ---- the file ------------------------------------------------------------------------------- */

/* The MCP Bundle as the registry's package: the file pack writes, at its release's URL when the
 * repository is on a forge the registry takes bundles from. */
static cJSON *bundle_package(const tg_project_info *repo, const url_bits *u, const forge *f)
{
    char *file = xasprintf("%s-%s.mcpb", repo->name, repo->version);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "registryType", "mcpb");
    if (f) {
        char *base = xasprintf("https://%s", f->host);
        cJSON_AddStringToObject(p, "registryBaseUrl", base);
        free(base);
        char *url = xasprintf(f->asset, u->owner, u->repo, repo->version, file);
        cJSON_AddStringToObject(p, "identifier", url);
        free(url);
    } else {
        cJSON_AddStringToObject(p, "identifier", file);
    }
    cJSON_AddStringToObject(p, "version", repo->version);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "transport"), "type", "stdio");
    free(file);
    return p;
}

char *tg_emit_registry_server(const tg_project_info *repo)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "$schema", TG_REGISTRY_SCHEMA);
    char *name = tg_emit_registry_name(repo);
    cJSON_AddStringToObject(s, "name", name);
    free(name);
    char *desc = tg_emit_registry_shorten(tg_emit_repo_description(repo),
                                          TG_REGISTRY_DESCRIPTION_MAX);
    cJSON_AddStringToObject(s, "description", desc);
    free(desc);
    cJSON_AddStringToObject(s, "version", repo->version);
    url_bits u = url_split(repo->repository);
    const forge *f = forge_of(&u);
    if (f) {
        cJSON *r = cJSON_AddObjectToObject(s, "repository");
        cJSON_AddStringToObject(r, "url", repo->repository);
        cJSON_AddStringToObject(r, "source", f->source);
    }
    if (repo->homepage)
        cJSON_AddStringToObject(s, "websiteUrl", repo->homepage);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "packages"), bundle_package(repo, &u, f));
    url_free(&u);
    char *text = tg_json_print(s);
    cJSON_Delete(s);
    return text;
}
