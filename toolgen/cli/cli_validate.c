/* cli_validate.c — `toolgen validate`: the validator's command line. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "cli/cli.h"
#include "base/doc.h"
#include "base/strvec.h"
#include "schema/jsonschema.h"
#include "base/util.h"

const char tg_usage_validate[] =
    "usage: toolgen validate --schema FILE [--resource-dir URL=DIR]... [--format-assert]\n"
    "                        [--jsonl [--errors]] [INSTANCE...]\n"
    "\n"
    "Validates instances against a JSON Schema (draft 2020-12). Schema and instances may be\n"
    "JSON or YAML files; with no INSTANCE (and no --jsonl) one document is read from stdin.\n"
    "\n"
    "  --schema FILE            the schema (JSON or YAML); it is checked against the 2020-12\n"
    "                           meta-schema first\n"
    "  --resource-dir URL=DIR   resolve $ref URIs starting with URL from files under DIR\n"
    "                           (repeatable); nothing is ever fetched from the network, the\n"
    "                           2020-12 meta-schemas are bundled, and files next to the schema\n"
    "                           resolve by relative reference\n"
    "  --format-assert          make \"format\" an assertion (default: annotation only)\n"
    "  --jsonl                  read one JSON value per line from stdin and print one line per\n"
    "                           value, in order: \"valid\" or \"invalid\" (blank lines are skipped)\n"
    "  --errors                 with --jsonl, follow \"invalid\" with the errors as a JSON array\n"
    "                           of {instanceLocation, keywordLocation, error}\n"
    "\n"
    "Otherwise each instance gets a line \"FILE: valid\" or \"FILE: invalid\" followed by one\n"
    "line per error: FILE:LINE:COL: INSTANCE-POINTER: message [schema: KEYWORD-POINTER].\n"
    "\n"
    "Exit status: 0 every instance is valid, 1 any is invalid (or not parseable), 2 usage\n"
    "error or invalid schema.\n";

typedef struct validate_opts {
    const char *schema_path;
    bool format_assert, jsonl, errors;
} validate_opts;

static void print_schema_errors(const tg_doc *doc, const js_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++) {
        tg_pos p = tg_doc_pointer_pos(doc, errs->v[i].instance_location);
        fprintf(stderr, "%s:%d:%d: %s: %s [meta-schema: %s]\n", doc->file, p.line, p.col,
                errs->v[i].instance_location[0] ? errs->v[i].instance_location : "(root)",
                errs->v[i].message, errs->v[i].keyword_location);
    }
}

/* file://<absolute directory of path>/ so that relative $refs find sibling files. */
static char *file_dir_uri(const char *path, char **dir_out)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return NULL;
    char *slash = strrchr(real, '/');
    *dir_out = xstrndup(real, (size_t)(slash - real) + 1);
    char *uri = xasprintf("file://%s", real);
    return uri;
}

static js_schema *load_schema(const validate_opts *o, js_registry *reg, tg_doc *doc, int *code)
{
    tg_err err = {0};
    char msg[2048];
    *code = TG_EXIT_USAGE;
    if (tg_doc_load(o->schema_path, NULL, doc, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        cli_fail(TG_EXIT_USAGE, "cannot load schema: %s", msg);
        return NULL;
    }
    js_errors errs = {0};
    int meta = js_schema_check_meta(reg, doc->root, &errs, &err);
    if (meta < 0) {
        tg_err_format(&err, msg, sizeof msg);
        cli_fail(TG_EXIT_USAGE, "%s: cannot check the schema: %s", o->schema_path, msg);
        js_errors_free(&errs);
        return NULL;
    }
    if (meta == 0) {
        print_schema_errors(doc, &errs);
        cli_fail(TG_EXIT_USAGE, "%s is not a valid JSON Schema (draft 2020-12); fix the places above",
                 o->schema_path);
        js_errors_free(&errs);
        return NULL;
    }
    js_errors_free(&errs);

    char *dir = NULL;
    char *base = file_dir_uri(o->schema_path, &dir);
    if (dir) {
        char *dir_uri = xasprintf("file://%s", dir);
        if (js_registry_add_dir(reg, dir_uri, dir, &err) != 0)
            base = (free(base), NULL);
        free(dir_uri);
        free(dir);
    }
    js_options jo = {.format_assert = o->format_assert, .base_uri = base};
    js_schema *s = js_compile(reg, doc->root, &jo, &err);
    free(base);
    if (!s) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", o->schema_path);
        tg_err_format(&err, msg, sizeof msg);
        cli_fail(TG_EXIT_USAGE, "invalid schema: %s", msg);
        return NULL;
    }
    *code = TG_EXIT_OK;
    return s;
}

static void errors_json(tg_buf *out, const js_errors *errs)
{
    tg_buf_putc(out, '[');
    for (size_t i = 0; i < errs->n; i++) {
        if (i)
            tg_buf_putc(out, ',');
        tg_buf_puts(out, "{\"instanceLocation\":");
        tg_buf_json_string(out, errs->v[i].instance_location);
        tg_buf_puts(out, ",\"keywordLocation\":");
        tg_buf_json_string(out, errs->v[i].keyword_location);
        tg_buf_puts(out, ",\"error\":");
        tg_buf_json_string(out, errs->v[i].message);
        tg_buf_putc(out, '}');
    }
    tg_buf_putc(out, ']');
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

/* The hot loop benchmarks and harnesses drive: one arena reused for every instance. */
static int validate_jsonl(const js_schema *s, bool with_errors)
{
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    tg_arena arena = TG_ARENA_INIT;
    js_errors errs = {0};
    tg_buf line_out = TG_BUF_INIT;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int rc = TG_EXIT_OK;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        if (blank(line, (size_t)n))
            continue;
        tg_arena_reset(&arena);
        tg_err err = {0};
        cJSON *inst = tg_json_parse(line, (size_t)n, &arena, NULL, NULL, &err);
        if (!inst) {
            rc = TG_EXIT_FAIL;
            fprintf(stderr, "toolgen: stdin:%ld:%d: not valid JSON: %s\n", lineno, err.col, err.msg);
            if (with_errors) {
                tg_buf_reset(&line_out);
                tg_buf_puts(&line_out, "invalid [{\"instanceLocation\":\"\",\"keywordLocation\":\"\",\"error\":");
                char *m = xasprintf("not valid JSON: %s", err.msg);
                tg_buf_json_string(&line_out, m);
                free(m);
                tg_buf_puts(&line_out, "}]\n");
                fwrite(line_out.data, 1, line_out.len, stdout);
            } else {
                fputs("invalid\n", stdout);
            }
            continue;
        }
        if (!with_errors) {
            bool ok = js_validate(s, inst, NULL);
            if (!ok)
                rc = TG_EXIT_FAIL;
            fputs(ok ? "valid\n" : "invalid\n", stdout);
            continue;
        }
        js_errors_clear(&errs);
        if (js_validate(s, inst, &errs)) {
            fputs("valid\n", stdout);
            continue;
        }
        rc = TG_EXIT_FAIL;
        tg_buf_reset(&line_out);
        tg_buf_puts(&line_out, "invalid ");
        errors_json(&line_out, &errs);
        tg_buf_putc(&line_out, '\n');
        fwrite(line_out.data, 1, line_out.len, stdout);
    }
    free(line);
    tg_buf_free(&line_out);
    js_errors_free(&errs);
    tg_arena_free(&arena);
    fflush(stdout);
    return rc;
}

static int validate_file(const js_schema *s, const char *path)
{
    tg_doc doc = {0};
    tg_err err = {0};
    char msg[2048];
    if (tg_doc_load(path, NULL, &doc, &err) != 0) {
        tg_err_format(&err, msg, sizeof msg);
        printf("%s: invalid\n", path);
        fprintf(stderr, "toolgen: %s\n", msg);
        return TG_EXIT_FAIL;
    }
    js_errors errs = {0};
    bool ok = js_validate(s, doc.root, &errs);
    printf("%s: %s\n", path, ok ? "valid" : "invalid");
    for (size_t i = 0; i < errs.n; i++) {
        const js_error *e = &errs.v[i];
        tg_pos p = tg_doc_pointer_pos(&doc, e->instance_location);
        printf("%s:%d:%d: %s: %s [schema: %s]\n", path, p.line, p.col,
               e->instance_location[0] ? e->instance_location : "(root)", e->message,
               e->keyword_location[0] ? e->keyword_location : "(root)");
    }
    js_errors_free(&errs);
    tg_doc_free(&doc);
    return ok ? TG_EXIT_OK : TG_EXIT_FAIL;
}

/* Keeps a heap string until the command ends; returns it. */
static const char *keep_path(tg_strv *keep, char *s)
{
    tg_strv_push_owned(keep, s);
    return s;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"schema", required_argument, NULL, 's'},
        {"resource-dir", required_argument, NULL, 'r'},
        {"format-assert", no_argument, NULL, 'f'},
        {"jsonl", no_argument, NULL, 'j'},
        {"errors", no_argument, NULL, 'e'},
        {NULL, 0, NULL, 0},
    };
    validate_opts o = {0};
    tg_strv keep = TG_STRV_INIT; /* the paths below the -C folder */
    js_registry *reg = js_registry_new();
    tg_err err = {0};
    int c, rc = TG_EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+s:", longopts, NULL)) != -1) {
        switch (c) {
        case 's': o.schema_path = keep_path(&keep, cli_user_path(optarg)); break;
        case 'f': o.format_assert = true; break;
        case 'j': o.jsonl = true; break;
        case 'e': o.errors = true; break;
        case 'r': {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1]) {
                cli_fail(TG_EXIT_USAGE, "--resource-dir wants URL=DIR, got '%s'", optarg);
                goto out;
            }
            char *url = xstrndup(optarg, (size_t)(eq - optarg));
            char *dir = cli_user_path(eq + 1);
            int r = tg_is_dir(dir) ? js_registry_add_dir(reg, url, dir, &err)
                                   : tg_err_set(&err, "'%s' is not a directory", eq + 1);
            free(dir);
            free(url);
            if (r != 0) {
                cli_fail(TG_EXIT_USAGE, "--resource-dir %s: %s", optarg, err.msg);
                goto out;
            }
            break;
        }
        default:
            cli_fail(TG_EXIT_USAGE, "validate: unknown or incomplete option '%s'; see 'toolgen help validate'",
                     argv[optind - 1]);
            goto out;
        }
    }
    if (!o.schema_path) {
        cli_fail(TG_EXIT_USAGE, "validate: --schema FILE is required; see 'toolgen help validate'");
        goto out;
    }
    if (o.jsonl && optind < argc) {
        cli_fail(TG_EXIT_USAGE, "validate: --jsonl reads stdin; do not also name instance files");
        goto out;
    }
    if (js_registry_add_metaschemas(reg, &err) != 0) {
        cli_fail(TG_EXIT_ENV, "%s (set TOOLGEN_DATADIR or reinstall toolgen)", err.msg);
        rc = TG_EXIT_ENV;
        goto out;
    }
    tg_doc sdoc = {0};
    js_schema *s = load_schema(&o, reg, &sdoc, &rc);
    if (s) {
        if (o.jsonl) {
            rc = validate_jsonl(s, o.errors);
        } else if (optind >= argc) {
            rc = validate_file(s, "/dev/stdin");
        } else {
            rc = TG_EXIT_OK;
            for (int i = optind; i < argc; i++)
                if (validate_file(s, keep_path(&keep, cli_user_path(argv[i]))) != TG_EXIT_OK)
                    rc = TG_EXIT_FAIL;
        }
        js_schema_free(s);
    }
    tg_doc_free(&sdoc);
out:
    js_registry_free(reg);
    tg_strv_free(&keep);
    return rc;
}
