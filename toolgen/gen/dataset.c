/*
 * dataset.c — the schema of a data file, read by run/runtime/dataset_schema.py in the sandbox
 * (docs/generate.md#datasets).
 *
 * The file is checked like a tool's path argument (inside sandbox.data_dirs after symlinks,
 * readable, a regular file), bound read-only into a fresh sandbox, and the helper prints the
 * schema as JSON on stdout. pandas parses the file, never toolgen: a hostile CSV can at most
 * exhaust the call's limits.
 */
#include "gen/dataset.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/confine.h"
#include "base/json.h"
#include "run/sandbox.h"

/* Limits of the helper's call: pandas on a large CSV needs memory, not much time. */
static const tg_limits dataset_limits = {60, 2048, 120000, 8192, 256, 64};

const char *tg_col_type_name(tg_col_type t)
{
    static const char *const names[] = {"int", "float", "bool", "date", "string"};
    return t <= TG_COL_STRING ? names[t] : "string";
}

static int col_type_of(const char *s, tg_col_type *out)
{
    for (int t = TG_COL_INT; t <= TG_COL_STRING; t++)
        if (s && strcmp(s, tg_col_type_name((tg_col_type)t)) == 0) {
            *out = (tg_col_type)t;
            return 0;
        }
    return -1;
}

static char **strings_of(const cJSON *arr, size_t max, size_t *n)
{
    *n = 0;
    if (!cJSON_IsArray(arr))
        return NULL;
    size_t cap = (size_t)cJSON_GetArraySize(arr);
    if (cap > max)
        cap = max;
    char **v = xcalloc(cap ? cap : 1, sizeof *v);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (*n == cap)
            break;
        if (cJSON_IsString(e))
            v[(*n)++] = xstrdup(e->valuestring);
    }
    return v;
}

static int column_of(const cJSON *c, tg_dataset_column *out)
{
    const char *name = tg_json_get_string(c, "name");
    if (!name || col_type_of(tg_json_get_string(c, "type"), &out->type) != 0)
        return -1;
    out->name = xstrdup(name);
    out->missing = (size_t)tg_json_get_number(c, "missing", 0);
    out->distinct = (size_t)tg_json_get_number(c, "distinct", 0);
    out->samples = strings_of(tg_json_get(c, "samples"), TG_DATASET_MAX_SAMPLES, &out->nsamples);
    const cJSON *levels = tg_json_get(c, "levels");
    if (cJSON_IsArray(levels))
        out->levels = strings_of(levels, TG_DATASET_MAX_LEVELS, &out->nlevels);
    if (out->type == TG_COL_INT || out->type == TG_COL_FLOAT) {
        out->min = tg_json_get_number(c, "min", 0);
        out->max = tg_json_get_number(c, "max", 0);
    }
    return 0;
}

/* The helper's stdout → out. */
static int parse_schema(const char *path, const char *text, size_t len, tg_dataset *out,
                        tg_err *err)
{
    tg_err perr = {0};
    cJSON *root = tg_json_parse(text, len, NULL, NULL, NULL, &perr);
    const cJSON *cols = tg_json_get(root, "columns");
    if (!root || !cJSON_IsArray(cols) || !cJSON_IsNumber(tg_json_get(root, "rows"))) {
        cJSON_Delete(root);
        return tg_err_set(err, "%s: the dataset reader answered something that is not a schema "
                               "(%s); reinstall toolgen's runtime files",
                          path, perr.msg[0] ? perr.msg : "no rows or columns");
    }
    out->path = xstrdup(path);
    out->rows = (size_t)tg_json_get_number(root, "rows", 0);
    size_t n = (size_t)cJSON_GetArraySize(cols);
    out->cols = xcalloc(n ? n : 1, sizeof *out->cols);
    const cJSON *c;
    cJSON_ArrayForEach(c, cols)
    {
        if (column_of(c, &out->cols[out->ncols]) != 0) {
            cJSON_Delete(root);
            tg_dataset_release(out);
            return tg_err_set(err, "%s: the dataset reader answered a column without a name or "
                                   "type; reinstall toolgen's runtime files", path);
        }
        out->ncols++;
    }
    cJSON_Delete(root);
    return 0;
}

/* The last line of the helper's stderr: its one-line reason. */
static void last_line(const tg_stream *s, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!s->data || !s->len)
        return;
    size_t end = s->len;
    while (end && (s->data[end - 1] == '\n' || s->data[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start && s->data[start - 1] != '\n')
        start--;
    size_t n = end - start < cap - 1 ? end - start : cap - 1;
    memcpy(buf, s->data + start, n);
    buf[n] = 0;
}

/* Checks path like a tool's `x-toolgen-path: read` argument; fills paths with its mount. */
static int check_path(const tg_repo *repo, const tg_sandbox_config *sc, const char *path,
                      tg_path_args *paths, tg_err *err)
{
    if (tg_confine_in(repo->path, path, (const char *const *)sc->data_dirs, sc->n_data_dirs,
                      "data file", "the data directories (sandbox.data_dirs in toolgen.yaml)",
                      err) != 0)
        return -1;
    cJSON *schema = cJSON_Parse("{\"properties\":{\"data\":{\"x-toolgen-path\":\"read\"}}}");
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "data", path);
    tg_path_verdict v = tg_sandbox_check_paths(sc, schema, args, NULL, paths, err);
    cJSON_Delete(schema);
    cJSON_Delete(args);
    if (v != TG_PATH_OK)
        return -1;
    if (paths->n != 1 || paths->v[0].is_dir)
        return tg_err_set(err, "data: '%s' is a directory; name a CSV file in it", path);
    return 0;
}

static int run_reader(const tg_sandbox_config *sc, const tg_path_args *paths, const char *path,
                      tg_dataset *out, tg_err *err)
{
    const char *py = tg_sandbox_python();
    if (!py)
        return tg_err_set(err, "python3 is not installed at /usr/bin/python3: install it with "
                               "`sudo apt-get install python3 python3-pandas` (or `make deps`)");
    const char *argv[] = {py, "-B", TG_SANDBOX_RUNTIME "/dataset_schema.py", paths->v[0].inside,
                          NULL};
    const char *env[] = {"PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1",
                         "PYTHONIOENCODING=utf-8", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
                         NULL};
    tg_sandbox_cmd cmd = {.argv = argv, .env = env, .mount_runtime = true, .paths = paths,
                          .limits = dataset_limits};
    tg_sandbox_result res = {0};
    if (tg_sandbox_run(sc, &cmd, &res, err) != TG_SANDBOX_OK)
        return -1;
    int rc = 0;
    if (res.killed_by != TG_LIMIT_NONE || res.exit_code != 0) {
        char why[600];
        last_line(&res.err, why, sizeof why);
        if (res.exit_code == 2 && why[0])
            rc = tg_err_set(err, "data: %s", why);
        else
            rc = tg_err_set(err, "data: reading the schema of %s failed (exit status %d%s)%s%s",
                            path, res.exit_code,
                            res.killed_by != TG_LIMIT_NONE ? ", stopped by a sandbox limit" : "",
                            why[0] ? ": " : "", why);
    } else {
        rc = parse_schema(path, res.out.data ? res.out.data : "", res.out.len, out, err);
    }
    tg_sandbox_result_free(&res);
    return rc;
}

int tg_dataset_read(const tg_repo *repo, const char *path, tg_dataset *out, tg_err *err)
{
    *out = (tg_dataset){0};
    if (!path || !*path)
        return tg_err_set(err, "data: no file given; name a CSV file, e.g. data/tips.csv");
    tg_sandbox_config sc;
    if (tg_sandbox_config_init(&sc, repo->path, repo->have_config ? repo->cfg.doc.root : NULL,
                               err) != 0)
        return -1;
    tg_path_args paths = {0};
    int rc = check_path(repo, &sc, path, &paths, err);
    if (rc == 0)
        rc = run_reader(&sc, &paths, path, out, err);
    tg_path_args_free(&paths);
    tg_sandbox_config_free(&sc);
    return rc;
}

static cJSON *string_array(char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

char *tg_dataset_to_json(const tg_dataset *ds)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", ds->path ? ds->path : "");
    cJSON_AddNumberToObject(o, "rows", (double)ds->rows);
    cJSON *cols = cJSON_AddArrayToObject(o, "columns");
    for (size_t i = 0; i < ds->ncols; i++) {
        const tg_dataset_column *c = &ds->cols[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", c->name);
        cJSON_AddStringToObject(j, "type", tg_col_type_name(c->type));
        cJSON_AddNumberToObject(j, "missing", (double)c->missing);
        cJSON_AddNumberToObject(j, "distinct", (double)c->distinct);
        cJSON_AddItemToObject(j, "samples", string_array(c->samples, c->nsamples));
        if (c->levels)
            cJSON_AddItemToObject(j, "levels", string_array(c->levels, c->nlevels));
        if (c->type == TG_COL_INT || c->type == TG_COL_FLOAT) {
            cJSON_AddNumberToObject(j, "min", c->min);
            cJSON_AddNumberToObject(j, "max", c->max);
        }
        cJSON_AddItemToArray(cols, j);
    }
    char *text = tg_json_print_compact(o);
    cJSON_Delete(o);
    return text;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void tg_dataset_release(tg_dataset *ds)
{
    for (size_t i = 0; i < ds->ncols; i++) {
        free(ds->cols[i].name);
        free_strings(ds->cols[i].samples, ds->cols[i].nsamples);
        free_strings(ds->cols[i].levels, ds->cols[i].nlevels);
    }
    free(ds->cols);
    free(ds->path);
    *ds = (tg_dataset){0};
}
