/* reviewpage.c — the HTML page a person approves a staged tool from (see reviewpage.h). */
#include "lifecycle/reviewpage.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/json.h"
#include "lifecycle/mdhtml.h"
#include "lifecycle/present.h"
#include "lifecycle/runart.h"
#include "lifecycle/svgchart.h"

#define DATA_MAX (16u << 20) /* a chart's data file, read whole */
#define CHART_ROWS_MAX 30    /* more bars than this do not read as a chart */

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; img-src data:\">\n<title>";

/* One column that reads on a phone (390 px) as on a desktop: tables scroll inside their box,
 * charts scale to the width, commands wrap. */
static const char page_style[] =
    "</title>\n<style>\n"
    "*{box-sizing:border-box}\n"
    "body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;"
    "background:#fff;max-width:52rem;margin:0 auto;padding:1rem 1.25rem 3rem}\n"
    "h1{font-size:1.6rem;line-height:1.25;margin:.25rem 0}\n"
    "h2{font-size:1.15rem;margin:2rem 0 .75rem;padding-bottom:.3rem;"
    "border-bottom:1px solid #d0d7de}\n"
    "h3{font-size:1rem;margin:1.25rem 0 .5rem}\n"
    ".tg-kicker{margin:0;color:#57606a;font-size:.8rem;letter-spacing:.05em;"
    "text-transform:uppercase}\n"
    ".tg-meta{margin:.25rem 0 0;color:#57606a}\n"
    ".tg-state{display:inline-block;padding:0 .5rem;border:1px solid #d4a72c;"
    "border-radius:1rem;background:#fff8c5;color:#7d4e00;font-size:.85rem}\n"
    ".tg-request p{margin:.4rem 0}\n"
    ".tg-scroll{overflow-x:auto;margin:.75rem 0}\n"
    "table.tg-table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
    "table.tg-table th,table.tg-table td{padding:.35rem .8rem;text-align:left;"
    "border-bottom:1px solid #d0d7de;white-space:nowrap}\n"
    "table.tg-table th{background:#f6f8fa;font-weight:600}\n"
    "table.tg-table .num{text-align:right}\n"
    "figure{margin:1rem 0}figcaption{font-weight:600;margin-bottom:.4rem}\n"
    "svg.tg-chart{display:block;width:100%;max-width:40rem;height:auto}\n"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}\n"
    "dt{color:#57606a}dd{margin:0;min-width:0;overflow-wrap:anywhere}"
    "dd ul{margin:0;padding-left:1.2rem}\n"
    "@media (max-width:36rem){dl{grid-template-columns:1fr;gap:0}dt{margin-top:.6rem}}\n"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}\n"
    "pre{margin:.4rem 0 .9rem;padding:.6rem .8rem;background:#f6f8fa;border:1px solid #d0d7de;"
    "border-radius:6px;white-space:pre-wrap;overflow-wrap:break-word}\n"
    "pre.tg-cmd{user-select:all}\n"
    ".tg-approval{margin-top:2.5rem;padding:.25rem 1.25rem 1rem;border:2px solid #d4a72c;"
    "border-radius:8px;background:#fffbea}\n"
    ".tg-approval h2{border-bottom-color:#e6c35c}.tg-approval p code{white-space:nowrap}\n"
    ".tg-note{color:#57606a;font-size:.9rem}.tg-missing{color:#a40e26}\n"
    "</style></head><body>\n";

/* The candidate's spec.json (the manifest as staged), or NULL. */
static cJSON *load_spec(const tg_registry *g, const char *dir)
{
    char *path = xasprintf("%s/spec.json", dir);
    tg_err err = {0};
    char *text = tg_read_file_at(g->repo->root_fd, path, TG_DOC_MAX_BYTES, NULL, &err);
    cJSON *spec = text ? cJSON_Parse(text) : NULL;
    free(text);
    free(path);
    return spec;
}

static void put_text(tg_buf *b, const char *tag, const char *cls, const char *text)
{
    if (!text || !*text)
        return;
    tg_buf_printf(b, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    tg_html_escape(b, text);
    tg_buf_printf(b, "</%s>\n", tag);
}

static void header(tg_buf *b, const cJSON *spec, const cJSON *art, const cJSON *entry)
{
    const char *tool = tg_json_get_string(art, "tool");
    const char *title = tg_json_get_string(spec, "title");
    tg_buf_puts(b, "<header>\n<p class=\"tg-kicker\">toolgen · review of a staged tool");
    if (tg_json_get_string(art, "ran_at")) {
        tg_buf_puts(b, " · run of ");
        tg_html_escape(b, tg_json_get_string(art, "ran_at"));
    }
    tg_buf_puts(b, "</p>\n");
    put_text(b, "h1", NULL, title ? title : tool);
    tg_buf_puts(b, "<p class=\"tg-meta\"><code>");
    tg_html_escape(b, tool);
    tg_buf_puts(b, "</code> v");
    tg_html_escape(b, tg_json_get_string(art, "version"));
    tg_buf_puts(b, " · <span class=\"tg-state\">");
    tg_html_escape(b, tg_json_get_string(entry, "state"));
    tg_buf_puts(b, "</span> · quality ");
    tg_buf q = TG_BUF_INIT;
    tg_present_quality(&q, entry);
    tg_html_escape(b, q.data);
    tg_buf_free(&q);
    tg_buf_puts(b, "</p>\n</header>\n");
}

/* How the tool read the request, and what this run was given. */
static void request(tg_buf *b, const cJSON *spec, const cJSON *art)
{
    tg_buf_puts(b, "<section class=\"tg-request\"><h2>The request, as the tool reads it</h2>\n");
    const char *intent = tg_json_get_string(spec, "intent");
    const char *title = tg_json_get_string(spec, "title");
    if (intent && (!title || strcmp(intent, title) != 0)) /* the title is the heading already */
        put_text(b, "p", NULL, intent);
    put_text(b, "p", NULL, tg_json_get_string(spec, "description"));
    const cJSON *args = tg_json_get(art, "arguments"), *a;
    if (cJSON_GetArraySize(args) > 0) {
        tg_buf_puts(b, "<p>This run: ");
        cJSON_ArrayForEach(a, args) {
            tg_buf_puts(b, a == args->child ? "<code>" : ", <code>");
            tg_html_escape(b, a->string);
            tg_buf_puts(b, " = ");
            char *v = cJSON_IsString(a) ? xstrdup(a->valuestring) : tg_json_print_compact(a);
            tg_html_escape(b, v);
            free(v);
            tg_buf_puts(b, "</code>");
        }
        tg_buf_puts(b, "</p>\n");
    }
    tg_buf_puts(b, "</section>\n");
}

/* One output of the visualization manifest, its data file read from <dir>/files/. */
static void viz_output(tg_buf *b, const tg_registry *g, const char *dir, const cJSON *out)
{
    const char *title = tg_json_get_string(out, "title"), *df = tg_json_get_string(out, "dataFile");
    tg_buf_puts(b, "<figure><figcaption>");
    tg_html_escape(b, title ? title : tg_json_get_string(out, "id"));
    tg_buf_puts(b, "</figcaption>\n");
    char *p = df && !strstr(df, "..") && df[0] != '/' ? xasprintf("%s/files/%s", dir, df) : NULL;
    tg_err err = {0};
    char *text = p ? tg_read_file_at(g->repo->root_fd, p, DATA_MAX, NULL, &err) : NULL;
    tg_table t = {0};
    int rc = -1;
    if (text && tg_str_endswith(df, ".json")) {
        cJSON *arr = cJSON_Parse(text);
        rc = tg_table_from_json(arr, &t, &err);
        cJSON_Delete(arr);
    } else if (text) {
        rc = tg_table_from_csv(text, &t, &err);
    }
    if (rc == 0) {
        tg_chart_render(b, out, &t);
    } else {
        tg_buf_puts(b, "<p class=\"tg-missing\">Cannot draw: data file ");
        tg_html_escape(b, df ? df : "(none)");
        tg_buf_puts(b, ": ");
        tg_html_escape(b, err.msg[0] ? err.msg : "unreadable");
        tg_buf_puts(b, "</p>\n");
    }
    tg_buf_puts(b, "</figure>\n");
    tg_table_free(&t);
    free(text);
    free(p);
}

/* The result's one category column and its first value column, when the rows read as a bar
 * chart; false otherwise. */
static bool category_value(const tg_table *t, size_t *cat, size_t *val)
{
    size_t ncat = 0, nval = 0;
    for (size_t j = 0; j < t->cols.n; j++) {
        if (!tg_table_col_numeric(t, j)) {
            *cat = j;
            ncat++;
        } else if (nval++ == 0) {
            *val = j;
        }
    }
    return ncat == 1 && nval > 0 && t->nrows >= 2 && t->nrows <= CHART_ROWS_MAX;
}

/* The result's rows: a table, and a bar chart when they have a category and a value. */
static void result_rows(tg_buf *b, const cJSON *rows, bool chart)
{
    tg_table t = {0};
    if (tg_table_from_json(rows, &t, NULL) != 0)
        return;
    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddStringToObject(cfg, "type", "table");
    tg_chart_render(b, cfg, &t);
    size_t cat = 0, val = 0;
    if (chart && category_value(&t, &cat, &val)) {
        char *title = xasprintf("%s by %s", t.cols.v[val], t.cols.v[cat]);
        cJSON_ReplaceItemInObject(cfg, "type", cJSON_CreateString("bar_chart"));
        cJSON_AddStringToObject(cfg, "title", title);
        cJSON *c = cJSON_AddObjectToObject(cfg, "config");
        cJSON_AddStringToObject(c, "xColumn", t.cols.v[cat]);
        cJSON_AddStringToObject(c, "yColumn", t.cols.v[val]);
        cJSON_AddStringToObject(c, "yLabel", t.cols.v[val]);
        tg_buf_puts(b, "<figure><figcaption>");
        tg_html_escape(b, title);
        tg_buf_puts(b, "</figcaption>\n");
        tg_chart_render(b, cfg, &t);
        tg_buf_puts(b, "</figure>\n");
        free(title);
    }
    cJSON_Delete(cfg);
    tg_table_free(&t);
}

/* The result, once: what the run drew (its visualization manifest), else its rows; then the
 * text of its summary without what the page already shows. */
static void result(tg_buf *b, const tg_registry *g, const char *dir, const cJSON *spec,
                   const cJSON *art)
{
    tg_buf_puts(b, "<section class=\"tg-result\"><h2>Result</h2>\n");
    const cJSON *outs = tg_json_get(tg_json_get(art, "visualizations"), "outputs"), *o;
    bool drew_table = false, drew_chart = false;
    cJSON_ArrayForEach(o, outs) {
        const char *type = tg_json_get_string(o, "type");
        *(type && strcmp(type, "table") == 0 ? &drew_table : &drew_chart) = true;
    }
    const cJSON *rows = tg_runart_rows(tg_json_get(art, "result"));
    if (!drew_table && rows)
        result_rows(b, rows, !drew_chart);
    cJSON_ArrayForEach(o, outs) viz_output(b, g, dir, o);
    const char *md = tg_json_get_string(art, "summary_markdown");
    tg_strv images = TG_STRV_INIT;
    tg_mdhtml_opts mo = {.skip_tables = drew_table || rows, .images = &images,
                         .skip_heading = tg_json_get_string(spec, "title")};
    tg_mdhtml(b, md, &mo);
    for (size_t i = 0; i < images.n && !drew_chart; i++) {
        tg_buf_puts(b, "<p class=\"tg-note\">The run also drew <code>");
        tg_html_escape(b, images.v[i]);
        tg_buf_printf(b, "</code>: open it in %s/files/.</p>\n", dir);
    }
    tg_strv_free(&images);
    if (!md && !rows && !outs) {
        char *json = tg_json_print(tg_json_get(art, "result"));
        put_text(b, "pre", NULL, json);
        free(json);
    }
    tg_buf_puts(b, "</section>\n");
}

static void list_item(tg_buf *b, const char *title, const cJSON *arr)
{
    const cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, arr) n += cJSON_IsString(it) && *it->valuestring;
    if (!n)
        return; /* nothing stated: no heading over nothing */
    tg_buf_printf(b, "<dt>%s</dt><dd><ul>", title);
    cJSON_ArrayForEach(it, arr)
        if (cJSON_IsString(it) && *it->valuestring)
            put_text(b, "li", NULL, it->valuestring);
    tg_buf_puts(b, "</ul></dd>\n");
}

static void summary(tg_buf *b, const char *dir, const cJSON *art, const cJSON *entry)
{
    const cJSON *meta = tg_json_get(art, "metadata");
    tg_buf_puts(b, "<section class=\"tg-summary\"><h2>About the tool</h2><dl>\n<dt>What it did</dt>");
    put_text(b, "dd", NULL, tg_json_get_string(meta, "what_it_does"));
    const cJSON *rows = tg_json_get(art, "rows_processed");
    if (cJSON_IsNumber(rows))
        tg_buf_printf(b, "<dt>Rows processed</dt><dd>%.0f</dd>\n", rows->valuedouble);
    tg_buf_printf(b, "<dt>Execution time</dt><dd>%.0f ms</dd>\n<dt>Quality</dt><dd>",
                  tg_json_get_number(art, "execution_time_ms", 0));
    tg_buf q = TG_BUF_INIT;
    tg_present_quality(&q, entry);
    tg_html_escape(b, q.data);
    tg_buf_free(&q);
    tg_buf_puts(b, "</dd>\n");
    const cJSON *files = tg_json_get(art, "files"), *f;
    if (cJSON_GetArraySize(files) > 0) {
        tg_buf_puts(b, "<dt>Files it wrote</dt><dd><ul>");
        cJSON_ArrayForEach(f, files) {
            char *p = xasprintf("%s/%s", dir, cJSON_IsString(f) ? f->valuestring : "?");
            tg_buf_puts(b, "<li><code>");
            tg_html_escape(b, p);
            tg_buf_puts(b, "</code></li>");
            free(p);
        }
        tg_buf_puts(b, "</ul></dd>\n");
    }
    list_item(b, "Assumptions", tg_json_get(meta, "assumptions"));
    list_item(b, "Limitations", tg_json_get(meta, "limitations"));
    tg_buf_puts(b, "</dl></section>\n");
}

/* A command to copy: one click selects it whole. */
static void command(tg_buf *b, const char *fmt, const char *tool, const char *fmt2)
{
    tg_buf_puts(b, "<pre class=\"tg-cmd\"><code>");
    char *c = xasprintf(fmt, tool);
    tg_html_escape(b, c);
    free(c);
    if (fmt2) {
        c = xasprintf(fmt2, tool);
        tg_buf_putc(b, '\n');
        tg_html_escape(b, c);
        free(c);
    }
    tg_buf_puts(b, "</code></pre>\n");
}

static void approval(tg_buf *b, const char *tool)
{
    tg_buf_puts(b, "<section class=\"tg-approval\"><h2>⚠️ Approval required</h2>\n"
                   "<p>This tool is <b>staged</b>: it is not in your tool registry until you "
                   "approve it and promote it.</p>\n"
                   "<h3>1. Is this output correct for your current analysis?</h3>\n<p>Yes:</p>\n");
    command(b, "toolgen feedback %s --output \"Yes\"", tool, NULL);
    tg_buf_puts(b, "<p>No, and what is wrong:</p>\n");
    command(b, "toolgen feedback %s --output \"No: ...\"", tool, NULL);
    tg_buf_puts(b, "<h3>2. Should I save this as a reusable tool for future analyses?</h3>\n"
                   "<p>Approve it, then promote it into the registry (one git commit):</p>\n");
    command(b, "toolgen feedback %s --decision \"Approve\"", tool, "toolgen promote %s");
    tg_buf_puts(b, "<p>Or reject it, saying what needs improvement (incorrect columns, wrong "
                   "metric, missing filter, ...); add <code>--refine</code> to generate it again "
                   "from your notes:</p>\n");
    command(b, "toolgen reject %s --notes \"...\"", tool, NULL);
    tg_buf_puts(b, "<p class=\"tg-note\">You can accept the output without saving the tool.</p>"
                   "\n</section>\n");
}

char *tg_review_page(const tg_registry *g, const char *dir, const cJSON *art,
                     const cJSON *entry)
{
    tg_buf b;
    tg_buf_init(&b, 16384);
    const char *tool = tg_json_get_string(art, "tool");
    cJSON *spec = load_spec(g, dir);
    tg_buf_puts(&b, page_head);
    tg_buf_puts(&b, "Review: ");
    tg_html_escape(&b, tool);
    tg_buf_puts(&b, " v");
    tg_html_escape(&b, tg_json_get_string(art, "version"));
    tg_buf_puts(&b, page_style);
    header(&b, spec, art, entry);
    request(&b, spec, art);
    result(&b, g, dir, spec, art);
    summary(&b, dir, art, entry);
    approval(&b, tool);
    tg_buf_puts(&b, "</body></html>\n");
    cJSON_Delete(spec);
    return tg_buf_steal(&b);
}
