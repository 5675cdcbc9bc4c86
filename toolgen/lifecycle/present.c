/* present.c — Markdown and HTML presentations of a staged run (see present.h). */
#include "lifecycle/present.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "lifecycle/svgchart.h"

/* The seed's review priority from the quality tier: it orders the review, never decides it. */
static const char *priority_of(const char *tier)
{
    if (!tier)
        return "unknown";
    if (strcmp(tier, "excellent") == 0)
        return "high (ready to review)";
    if (strcmp(tier, "good") == 0)
        return "normal";
    return "low (review carefully)";
}

static void md_list(tg_buf *b, const char *title, const cJSON *arr)
{
    tg_buf_printf(b, "\n**%s**:\n", title);
    const cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, arr)
        if (cJSON_IsString(it)) {
            tg_buf_printf(b, "- %s\n", it->valuestring);
            n++;
        }
    if (!n)
        tg_buf_puts(b, "- (none stated)\n");
}

static void quality_line(tg_buf *b, const cJSON *entry)
{
    const cJSON *q = tg_json_get(entry, "quality_score");
    const char *tier = tg_json_get_string(entry, "quality_tier");
    if (cJSON_IsNumber(q))
        tg_buf_printf(b, "%.2f (%s), review priority %s", q->valuedouble, tier ? tier : "?",
                      priority_of(tier));
    else
        tg_buf_puts(b, "not measured");
}

static const char questions_md[] =
    "\n---\n\n### ⚠️ Approval Required\n"
    "This tool is **staged** and not yet registered in your MCP tool registry.\n\n"
    "**Two-Step Approval Process**:\n\n"
    "1. **Is this output correct for your current analysis?**\n"
    "   Reply: `Yes` or `No` — `toolgen feedback %s --output \"...\"`\n\n"
    "2. **Should I save this as a reusable tool for future analyses?**\n"
    "   Reply: `Approve` (register tool) or `Reject` (don't register) — "
    "`toolgen feedback %s --decision \"...\"`\n\n"
    "**Note**: You can accept the output without registering the tool.\n"
    "If you reject the tool, please specify what needs improvement (incorrect columns, wrong "
    "metric, missing filter, etc.): `toolgen reject %s --notes \"...\"`\n";

char *tg_present_markdown(const cJSON *art, const cJSON *entry)
{
    tg_buf b;
    tg_buf_init(&b, 4096);
    const char *tool = tg_json_get_string(art, "tool");
    const char *md = tg_json_get_string(art, "summary_markdown");
    tg_buf_puts(&b, "## Analysis Results\n\n");
    if (md) {
        tg_buf_puts(&b, md);
        if (!*md || md[strlen(md) - 1] != '\n')
            tg_buf_putc(&b, '\n');
    } else {
        char *s = tg_json_print(tg_json_get(art, "result"));
        tg_buf_printf(&b, "```json\n%s```\n", s);
        free(s);
    }
    const cJSON *meta = tg_json_get(art, "metadata");
    tg_buf_printf(&b, "\n---\n\n### Tool Summary\n**Tool Name**: %s (v%s, %s)\n", tool,
                  tg_json_get_string(art, "version"), tg_json_get_string(entry, "state"));
    tg_buf_printf(&b, "**What It Did**: %s\n", tg_json_get_string(meta, "what_it_does"));
    const cJSON *rows = tg_json_get(art, "rows_processed");
    if (cJSON_IsNumber(rows))
        tg_buf_printf(&b, "**Rows Processed**: %.0f\n", rows->valuedouble);
    else
        tg_buf_puts(&b, "**Rows Processed**: not reported\n");
    tg_buf_printf(&b, "**Execution Time**: %.0fms\n**Quality**: ",
                  tg_json_get_number(art, "execution_time_ms", 0));
    quality_line(&b, entry);
    tg_buf_putc(&b, '\n');
    const cJSON *files = tg_json_get(art, "files"), *f;
    if (cJSON_GetArraySize(files) > 0) {
        tg_buf_puts(&b, "**Files**:");
        cJSON_ArrayForEach(f, files) tg_buf_printf(&b, " %s", f->valuestring);
        tg_buf_putc(&b, '\n');
    }
    md_list(&b, "Assumptions", tg_json_get(meta, "assumptions"));
    md_list(&b, "Limitations", tg_json_get(meta, "limitations"));
    tg_buf_printf(&b, questions_md, tool, tool, tool);
    return tg_buf_steal(&b);
}

static const char html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; img-src data:\">\n<title>";
static const char html_style[] =
    "</title>\n<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto;color:#222}"
    "table.tg-table{border-collapse:collapse;margin:1rem 0}"
    "table.tg-table td,table.tg-table th{border:1px solid #bbb;padding:.2rem .5rem}"
    "pre{background:#f4f4f4;padding:1rem;overflow:auto}.tg-approval{border:2px solid #d90;"
    "padding:1rem}.tg-missing{color:#a00}</style></head><body>\n";

/* One output of the visualization manifest, with its data file read from <dir>/files/. */
static void html_output(tg_buf *b, const tg_registry *g, const char *dir, const cJSON *out)
{
    const char *title = tg_json_get_string(out, "title"), *df = tg_json_get_string(out, "dataFile");
    tg_buf_puts(b, "<figure><figcaption>");
    tg_html_escape(b, title ? title : tg_json_get_string(out, "id"));
    tg_buf_puts(b, "</figcaption>\n");
    char *p = df && !strstr(df, "..") && df[0] != '/' ? xasprintf("%s/files/%s", dir, df) : NULL;
    tg_err err = {0};
    char *text = p ? tg_read_file_at(g->repo->root_fd, p, 16u << 20, NULL, &err) : NULL;
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

static void html_rows(tg_buf *b, const cJSON *art)
{
    const cJSON *rows = tg_json_get(art, "sample_rows");
    if (cJSON_GetArraySize(rows) == 0)
        return;
    tg_table t = {0};
    if (tg_table_from_json(rows, &t, NULL) == 0) {
        tg_buf_puts(b, "<h3>Sample rows</h3>\n");
        cJSON *cfg = cJSON_CreateObject();
        cJSON_AddStringToObject(cfg, "type", "table");
        tg_chart_render(b, cfg, &t);
        cJSON_Delete(cfg);
    }
    tg_table_free(&t);
}

static void html_list(tg_buf *b, const char *title, const cJSON *arr)
{
    tg_buf_printf(b, "<h4>%s</h4><ul>", title);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
        if (cJSON_IsString(it)) {
            tg_buf_puts(b, "<li>");
            tg_html_escape(b, it->valuestring);
            tg_buf_puts(b, "</li>");
        }
    tg_buf_puts(b, "</ul>\n");
}

char *tg_present_html(const tg_registry *g, const char *dir, const cJSON *art,
                      const cJSON *entry)
{
    tg_buf b;
    tg_buf_init(&b, 16384);
    const char *tool = tg_json_get_string(art, "tool");
    tg_buf_puts(&b, html_head);
    tg_html_escape(&b, tool);
    tg_buf_puts(&b, " — staged run");
    tg_buf_puts(&b, html_style);
    tg_buf_puts(&b, "<h2>Analysis Results</h2>\n");
    const cJSON *outs = tg_json_get(tg_json_get(art, "visualizations"), "outputs"), *o;
    cJSON_ArrayForEach(o, outs) html_output(&b, g, dir, o);
    const char *md = tg_json_get_string(art, "summary_markdown");
    char *json = md ? NULL : tg_json_print(tg_json_get(art, "result"));
    tg_buf_puts(&b, "<pre class=\"tg-summary\">");
    tg_html_escape(&b, md ? md : json);
    tg_buf_puts(&b, "</pre>\n");
    free(json);
    html_rows(&b, art);
    const cJSON *meta = tg_json_get(art, "metadata");
    tg_buf_puts(&b, "<hr><h3>Tool Summary</h3><dl><dt>Tool Name</dt><dd>");
    tg_html_escape(&b, tool);
    tg_buf_printf(&b, " (v%s, %s)</dd><dt>What It Did</dt><dd>",
                  tg_json_get_string(art, "version"), tg_json_get_string(entry, "state"));
    tg_html_escape(&b, tg_json_get_string(meta, "what_it_does"));
    const cJSON *rows = tg_json_get(art, "rows_processed");
    tg_buf_printf(&b, "</dd><dt>Rows Processed</dt><dd>%.0f</dd><dt>Execution Time</dt>"
                  "<dd>%.0f ms</dd><dt>Quality</dt><dd>",
                  cJSON_IsNumber(rows) ? rows->valuedouble : 0.0,
                  tg_json_get_number(art, "execution_time_ms", 0));
    tg_buf q;
    tg_buf_init(&q, 64);
    quality_line(&q, entry);
    tg_html_escape(&b, q.data);
    tg_buf_free(&q);
    tg_buf_puts(&b, "</dd></dl>\n");
    html_list(&b, "Assumptions", tg_json_get(meta, "assumptions"));
    html_list(&b, "Limitations", tg_json_get(meta, "limitations"));
    tg_buf_puts(&b, "<div class=\"tg-approval\"><h3>⚠️ Approval Required</h3><p>This tool is "
                    "<b>staged</b> and not yet registered.</p><ol><li><b>Is this output correct "
                    "for your current analysis?</b> Reply <code>Yes</code> or <code>No</code>."
                    "</li><li><b>Should I save this as a reusable tool for future analyses?</b> "
                    "Reply <code>Approve</code> or <code>Reject</code>.</li></ol><p>You can "
                    "accept the output without registering the tool. If you reject it, say what "
                    "needs improvement (incorrect columns, wrong metric, missing filter, ...)."
                    "</p></div>\n</body></html>\n");
    return tg_buf_steal(&b);
}
