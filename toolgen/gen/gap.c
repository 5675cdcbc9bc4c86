/*
 * gap.c — the overlap score of a request against the repository's tools (gap.h;
 * docs/generate.md#gap-detection). The parts:
 *   operation_match      1 when the tool's operation (keywords of its name and title)
 *                        is the request's and known ("other" matches nothing), else 0;
 *   input_compatibility  the share of the tool's required inputs the request can fill (a path
 *                        from --data, columns from the named columns, anything with a default);
 *   output_format_match  1 when both are charts or both are not;
 *   constraint_match     1 for a read-only tool when the request has no filter or the tool takes
 *                        one (an input named filter/where/query/condition), else 0;
 *   semantic_similarity  the lexical cosine (gap.h).
 * A tool that covers the request's reading (gen/cover.h) scores 1 on the first three: its
 * operation, inputs and output are the request's by construction; only such a tool is reused.
 */
#include "gen/gap.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strvec.h"
#include "gen/cover.h"
#include "model/manifest.h"
#include "model/paths.h"

void tg_gap_weights_from_json(const cJSON *generation, tg_gap_weights *w)
{
    const cJSON *ow = generation ? tg_json_get(generation, "overlap_weights") : NULL;
    w->operation = ow ? tg_json_get_number(ow, "operation", 0.30) : 0.30;
    w->inputs = ow ? tg_json_get_number(ow, "inputs", 0.25) : 0.25;
    w->output_format = ow ? tg_json_get_number(ow, "output_format", 0.20) : 0.20;
    w->constraints = ow ? tg_json_get_number(ow, "constraints", 0.15) : 0.15;
    w->semantic = ow ? tg_json_get_number(ow, "semantic", 0.10) : 0.10;
    w->threshold = generation ? tg_json_get_number(generation, "reuse_threshold", 0.85) : 0.85;
}

/* ---- words -------------------------------------------------------------------------------- */

static const char *const stop_words[] = {
    "a", "an", "the", "of", "in", "on", "for", "to", "and", "or", "by", "per", "each", "with",
    "what", "is", "are", "me", "show", "give", "from", "csv", "file", "data", "at", "as", "it",
    "its", "this", "that", "be", "how", "which", "do", "does", "one", "more", NULL};

static bool is_stop(const char *w)
{
    for (int i = 0; stop_words[i]; i++)
        if (strcmp(stop_words[i], w) == 0)
            return true;
    return false;
}

/* Lowercase words of text, plurals folded, stop words dropped, sorted. */
static void words(const char *text, tg_strv *out)
{
    tg_strv all = TG_STRV_INIT;
    tg_strv_push_words(&all, text);
    for (size_t i = 0; i < all.n; i++) {
        char *w = all.v[i];
        size_t n = strlen(w);
        if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's')
            w[n - 1] = 0;
        if (!is_stop(w))
            tg_strv_push(out, w);
    }
    tg_strv_free(&all);
    tg_strv_sort_from(out, 0);
}

double tg_gap_similarity(const char *a, const char *b)
{
    tg_strv wa = {0}, wb = {0};
    words(a, &wa);
    words(b, &wb);
    double dot = 0, na = 0, nb = 0;
    size_t i = 0, j = 0;
    while (i < wa.n || j < wb.n) {
        int c = i >= wa.n ? 1 : j >= wb.n ? -1 : strcmp(wa.v[i], wb.v[j]);
        const char *w = c <= 0 ? wa.v[i] : wb.v[j];
        double ca = 0, cb = 0;
        while (i < wa.n && strcmp(wa.v[i], w) == 0)
            ca++, i++;
        while (j < wb.n && strcmp(wb.v[j], w) == 0)
            cb++, j++;
        dot += ca * cb;
        na += ca * ca;
        nb += cb * cb;
    }
    tg_strv_free(&wa);
    tg_strv_free(&wb);
    return na > 0 && nb > 0 ? dot / (sqrt(na) * sqrt(nb)) : 0;
}

bool tg_gap_mentions(const char *text, const char *name)
{
    tg_strv wt = {0}, wn = {0};
    words(text, &wt);
    words(name, &wn);
    bool all = wn.n > 0;
    for (size_t i = 0; i < wn.n && all; i++) {
        bool found = false;
        for (size_t j = 0; j < wt.n && !found; j++)
            found = strcmp(wn.v[i], wt.v[j]) == 0;
        all = found;
    }
    tg_strv_free(&wt);
    tg_strv_free(&wn);
    return all;
}

/* ---- operations ----------------------------------------------------------------------------- */

static const struct {
    const char *op;
    const char *keys[9];
} op_table[] = {
    /* first match wins: a bar chart of means is a chart; a histogram is not a bar chart */
    {"histogram", {"histogram"}},
    {"scatter_chart", {"scatter"}},
    {"heatmap", {"heatmap", "heat map"}},
    {"pie_chart", {"pie"}},
    {"line_chart", {"line chart", "line plot"}},
    {"chart", {"chart", "plot", "graph", "visuali"}},
    {"correlation", {"correl"}},
    {"outliers", {"outlier", "anomal"}},
    {"moving_average", {"moving", "rolling"}},
    {"merge", {"merge", "join"}},
    {"pivot", {"pivot"}},
    {"missing_values", {"missing value", "missing-value", "null"}},
    {"top_k", {"top ", "largest", "highest", "rank"}},
    {"summary_statistics", {"summary stat", "statistic", "describe", "overview", " stats"}},
    {"group_by_and_aggregate", {"average", "mean", "sum ", "total", "median", "aggregate"}},
    {"nunique", {"distinct", "unique"}},
    {"count", {"count", "how many", "frequenc", "number of", " by ", " per "}},
    {"filter", {"filter", "where", "rows with"}},
};

const char *tg_gap_operation(const char *text)
{
    char *t = xasprintf(" %s ", text ? text : "");
    for (char *q = t; *q; q++)
        *q = *q == '_' ? ' ' : (char)tolower((unsigned char)*q);
    const char *found = "other";
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0] && !strcmp(found, "other"); i++)
        for (int k = 0; op_table[i].keys[k]; k++)
            if (strstr(t, op_table[i].keys[k])) {
                found = op_table[i].op;
                break;
            }
    free(t);
    return found;
}

/* ---- one tool ------------------------------------------------------------------------------- */

static bool name_has(const char *name, const char *const *keys)
{
    for (int i = 0; keys[i]; i++)
        if (strstr(name, keys[i]))
            return true;
    return false;
}

/* input_compatibility, and the arguments of the exact call (into args). */
static double inputs_score(const tg_manifest *m, const tg_gap_intent *in, const tg_dataset *ds,
                           size_t nds, cJSON *args)
{
    static const char *const path_keys[] = {"file", "path", NULL};
    static const char *const col_keys[] = {"column", NULL};
    const cJSON *props = m->input_schema ? tg_json_get(m->input_schema, "properties") : NULL;
    const cJSON *req = m->input_schema ? tg_json_get(m->input_schema, "required") : NULL;
    int total = 0, filled = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, req) {
        if (!cJSON_IsString(r))
            continue;
        total++;
        const char *name = r->valuestring;
        const cJSON *p = props ? tg_json_get(props, name) : NULL;
        const char *type = p ? tg_json_get_string(p, "type") : NULL;
        if ((name_has(name, path_keys) || (p && tg_json_get(p, "x-toolgen-path"))) && nds) {
            cJSON_AddStringToObject(args, name, ds[0].path);
            filled++;
        } else if (name_has(name, col_keys) && in->ncolumns) {
            if (type && strcmp(type, "array") == 0) {
                cJSON *a = cJSON_AddArrayToObject(args, name);
                for (size_t i = 0; i < in->ncolumns; i++)
                    cJSON_AddItemToArray(a, cJSON_CreateString(in->columns[i]));
            } else {
                cJSON_AddStringToObject(args, name, in->columns[0]);
            }
            filled++;
        } else if (p && tg_json_get(p, "default")) {
            filled++;
        }
    }
    return total ? (double)filled / total : 1.0;
}

static bool tool_is_chart(const tg_manifest *m)
{
    char *out = m->output_schema ? tg_json_print_compact(m->output_schema) : xstrdup("");
    for (char *q = out; *q; q++)
        *q = (char)tolower((unsigned char)*q);
    bool chart = strstr(out, "png") || strstr(out, "chart") || strstr(out, "image");
    free(out);
    return chart;
}

static double constraints_score(const tg_manifest *m, const tg_gap_intent *in)
{
    static const char *const filter_keys[] = {"filter", "where", "query", "condition", NULL};
    const cJSON *ro = m->constraints ? tg_json_get(m->constraints, "read_only") : NULL;
    if (ro && cJSON_IsFalse(ro))
        return 0;
    if (!in->has_filters)
        return 1;
    const cJSON *props = m->input_schema ? tg_json_get(m->input_schema, "properties") : NULL;
    const cJSON *p;
    cJSON_ArrayForEach(p, props) {
        if (p->string && name_has(p->string, filter_keys))
            return 1;
    }
    return 0;
}

static char *tool_text(const tg_manifest *m)
{
    const char *when = m->docs ? tg_json_get_string(m->docs, "when_to_use") : NULL;
    const char *intent = tg_json_get_string(m->doc.root, "intent");
    char *name = xstrdup(m->name ? m->name : "");
    for (char *q = name; *q; q++)
        if (*q == '_')
            *q = ' ';
    char *t = xasprintf("%s %s %s %s %s", name, m->title ? m->title : "",
                        m->description ? m->description : "", when ? when : "",
                        intent ? intent : "");
    free(name);
    return t;
}

static double score_tool(const tg_manifest *m, const tg_gap_intent *in, const tg_dataset *ds,
                         size_t nds, const tg_gap_weights *w, bool covered, double parts[5])
{
    char *text = tool_text(m);
    const char *want = in->operation ? in->operation : tg_gap_operation(in->text);
    /* the name and title say what a tool does; its description also says how (and would
     * match "largest groups first" as a top-k) */
    char *head = xasprintf("%s %s", m->name ? m->name : "", m->title ? m->title : "");
    const char *have = tg_gap_operation(head);
    /* two unclassified operations are not the same operation */
    parts[0] = strcmp(have, want) == 0 && strcmp(want, "other") != 0 ? 1 : 0;
    free(head);
    cJSON *args = cJSON_CreateObject();
    parts[1] = inputs_score(m, in, ds, nds, args);
    cJSON_Delete(args);
    bool want_chart = (in->output_format && strcmp(in->output_format, "chart") == 0) ||
                      strstr(want, "chart") || strcmp(want, "histogram") == 0 ||
                      strcmp(want, "heatmap") == 0;
    parts[2] = want_chart == tool_is_chart(m) ? 1 : 0;
    if (covered) /* the readings' operations, chart and every input agree, by construction */
        parts[0] = parts[1] = parts[2] = 1;
    parts[3] = constraints_score(m, in);
    parts[4] = tg_gap_similarity(in->text, text);
    free(text);
    return w->operation * parts[0] + w->inputs * parts[1] + w->output_format * parts[2] +
           w->constraints * parts[3] + w->semantic * parts[4];
}

/* One tool against the request: kept in out when it beats what is there (a covering tool
 * beats any other; then the score). */
static void consider(const tg_manifest *m, const tg_gap_intent *in, const tg_dataset *ds,
                     size_t nds, const tg_gap_weights *w, tg_gap_result *out)
{
    cJSON *args = cJSON_CreateObject();
    char *why = NULL;
    bool covered = in->reading && tg_cover(m->input_schema, in->reading, ds, nds, args, &why);
    if (covered && in->reusable && !in->reusable(in->reusable_ud, m->name)) {
        covered = false;
        why = xstrdup("it is not one of the tools this caller can call");
    }
    double parts[5];
    double s = score_tool(m, in, ds, nds, w, covered, parts);
    bool better = out->tool == NULL || (covered && !out->covered) ||
                  (covered == out->covered && s > out->score);
    if (!better) {
        cJSON_Delete(args);
        free(why);
        return;
    }
    free(out->tool);
    free(out->call);
    free(out->why);
    out->tool = xstrdup(m->name);
    out->score = s;
    out->covered = covered;
    out->why = covered ? NULL : why ? why : xstrdup("the request has no reading");
    if (covered)
        free(why);
    memcpy(out->parts, parts, sizeof parts);
    out->call = NULL;
    if (covered) {
        cJSON *call = cJSON_CreateObject();
        cJSON_AddStringToObject(call, "tool", m->name);
        cJSON_AddItemToObject(call, "arguments", args);
        out->call = tg_json_print_compact(call);
        cJSON_Delete(call);
    } else {
        cJSON_Delete(args);
    }
}

int tg_gap_find(const tg_repo *repo, const tg_gap_intent *in, const tg_dataset *datasets,
                size_t ndatasets, const tg_gap_weights *w, tg_gap_result *out, tg_err *err)
{
    memset(out, 0, sizeof *out);
    tg_strv names = {0};
    if (tg_tools_list(repo, &names, err) != 0)
        return -1;
    tg_strv_sort_from(&names, 0); /* ties go to the first name: deterministic */
    for (size_t i = 0; i < names.n; i++) {
        char *path = tg_manifest_path(&repo->cfg, names.v[i]);
        tg_manifest m;
        tg_err merr = {0};
        int rc = tg_manifest_load(repo, path, &m, &merr);
        free(path);
        if (rc != 0)
            continue;
        tg_manifest_bind(&m);
        if (m.status != TG_STATUS_REJECTED && m.name)
            consider(&m, in, datasets, ndatasets, w, out);
        tg_manifest_free(&m);
    }
    tg_strv_free(&names);
    out->reuse = out->tool && out->covered && out->score + 1e-9 >= w->threshold;
    return 0;
}

void tg_gap_result_release(tg_gap_result *r)
{
    free(r->tool);
    free(r->call);
    free(r->why);
    memset(r, 0, sizeof *r);
}
