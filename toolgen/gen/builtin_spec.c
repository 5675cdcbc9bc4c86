/*
 * builtin_spec.c — tool.manifest.yaml from a plan: the contract of the generated tool
 * (docs/manifest.md), its docs, one example to be run for its output, and tests in the three
 * categories derived from the dataset's schema (docs/generate.md#what-a-generated-tool-looks-like).
 *
 * Every string is written as a YAML double-quoted scalar (JSON string syntax), so no column
 * name or value can break the document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/builtin_spec_int.h"

#define Q(s) tg_buf_json_string(b, (s))

static void input_property(tg_buf *b, const bt_param *p, const tg_dataset *ds)
{
    tg_buf_printf(b, "    %s:\n", p->name);
    if (p->type == BT_P_FILE) {
        tg_buf_puts(b, "      type: string\n      description: ");
        Q(p->doc);
        tg_buf_puts(b, "\n      minLength: 5\n      maxLength: 1024\n      pattern: '\\.csv$'\n"
                       "      x-toolgen-path: read\n      default: ");
        Q(p->file);
    } else if (p->type == BT_P_COLUMN) {
        tg_buf_puts(b, "      type: string\n      description: ");
        Q(p->doc);
        tg_buf_puts(b, "\n      minLength: 1\n      maxLength: 256\n      default: ");
        Q(ds[p->ds].cols[p->cols[0]].name);
    } else if (p->type == BT_P_COLUMNS) {
        tg_buf_puts(b, "      type: array\n      description: ");
        Q(p->doc);
        tg_buf_printf(b, "\n      items: {type: string, minLength: 1, maxLength: 256}\n"
                         "      minItems: 1\n      maxItems: 64\n");
        if (!p->all) {
            tg_buf_puts(b, "      default: [");
            for (size_t i = 0; i < p->ncols; i++) {
                tg_buf_puts(b, i ? ", " : "");
                Q(ds[p->ds].cols[p->cols[i]].name);
            }
            tg_buf_puts(b, "]");
        }
    } else {
        tg_buf_puts(b, "      type: integer\n      description: ");
        Q(p->doc);
        tg_buf_printf(b, "\n      minimum: %ld\n      maximum: %ld", p->min, p->max);
        if (p->has_default)
            tg_buf_printf(b, "\n      default: %ld", p->num);
    }
    tg_buf_putc(b, '\n');
}

static void input_schema(tg_buf *b, const bt_plan *p, const bt_param *ps, size_t n,
                         const tg_dataset *ds)
{
    char *decl = bt_plan_declaration(p, ds, ps, n);
    tg_buf_printf(b, "input_schema:\n  type: object\n  additionalProperties: false\n"
                     "  x-toolgen-reading: %s\n  properties:\n", decl); /* JSON is YAML */
    free(decl);
    for (size_t i = 0; i < n; i++)
        input_property(b, &ps[i], ds);
    tg_buf_putc(b, '\n');
}

static void output_schema(tg_buf *b, const bt_plan *p)
{
    tg_buf_puts(b,
        "output_schema:\n  type: object\n  additionalProperties: false\n"
        "  required: [file_path, title, rows_in, rows_processed, rows_used, rows_dropped, columns, "
        "rows, row_count, truncated, value, details, summary_markdown");
    tg_buf_puts(b, p->chart ? ", chart_file, data_file, manifest_file]\n" : "]\n");
    tg_buf_puts(b,
        "  properties:\n"
        "    file_path: {type: string, description: \"The file read, as given.\"}\n"
        "    title: {type: string, description: \"What was computed, from the arguments of this call.\"}\n"
        "    rows_in: {type: integer, minimum: 0, description: \"Rows read from the file.\"}\n"
        "    rows_processed: {type: integer, minimum: 0, description: \"Rows read from the file (as rows_in).\"}\n"
        "    rows_used: {type: integer, minimum: 0, description: \"Rows the computation used: after the plan's filters and without the rows it cannot use (a missing group key, a missing value to rank or plot).\"}\n"
        "    rows_dropped:\n      type: array\n"
        "      description: Why rows read were not used, or left out of a computation (a missing value an aggregate skips), with how many.\n"
        "      items:\n        type: object\n        required: [rows, why]\n        additionalProperties: false\n"
        "        properties: {rows: {type: integer, minimum: 1}, why: {type: string}}\n"
        "    columns:\n      type: array\n      description: The columns of the result table, in order.\n"
        "      items: {type: string}\n"
        "    rows:\n      type: array\n      description: The result table, one object per row (column name to value; null when missing), at most 1000.\n"
        "      maxItems: 1000\n      items: {type: object}\n"
        "    row_count: {type: integer, minimum: 0, description: \"Rows of the result table, also those not returned.\"}\n"
        "    truncated: {type: boolean, description: \"true when row_count is above the 1000 rows returned.\"}\n"
        "    value:\n      type: [number, string, boolean, 'null']\n"
        "      description: The single number the request asks for (one aggregate, one correlation), else null.\n"
        "    details: {type: object, description: \"Facts of the computation (bounds, method, window, period), by name.\"}\n"
        "    summary_markdown: {type: string, description: \"The title, the chart if any, the first 20 rows as a Markdown table, how many rows were read and used, and why the others were not.\"}\n");
    if (p->chart)
        tg_buf_puts(b,
            "    chart_file: {const: chart.png, description: \"The chart, PNG, in the working directory.\"}\n"
            "    data_file: {const: chart_data.csv, description: \"The plotted table, CSV.\"}\n"
            "    manifest_file: {const: visualization_manifest.json, description: \"Visualization manifest (seed 002) describing the table and the chart.\"}\n");
    tg_buf_putc(b, '\n');
}

char *bt_write_manifest(const bt_plan *p, const tg_dataset *ds, size_t nds, const char *name)
{
    bt_param ps[BT_MAX_PARAMS];
    size_t n = bt_params(p, ds, nds, ps);
    char *sentence = bt_plan_sentence(p, ds), *raw = bt_plan_text(p, ds);
    char *plan = bt_safe_text(raw); /* it goes in a comment */
    free(raw);
    tg_buf out = TG_BUF_INIT, *b = &out;
    tg_buf_printf(b, "# Written by toolgen's built-in generator (toolgen-builtin-%s) from the plan\n"
                     "#   %s\nmanifest_version: 1\nname: %s\nversion: 0.1.0\ntitle: ",
                  BT_VERSION, plan, name);
    size_t cut = strlen(sentence) > 100 ? 100 : strlen(sentence);
    while (cut > 0 && (sentence[cut] & 0xC0) == 0x80)
        cut--; /* never cut a UTF-8 character in two */
    char *title = xstrndup(sentence, cut);
    Q(title);
    free(title);
    tg_buf_puts(b, "\ndescription: ");
    char *desc = xasprintf("%s, computed with pandas from a CSV file (by default %s). Returns the "
                           "result table as rows with a Markdown summary%s.",
                           sentence, ds[0].path, p->chart ? ", and draws it as a PNG chart" : "");
    Q(desc);
    free(desc);
    tg_buf_puts(b, "\nintent: ");
    Q(sentence);
    tg_buf_puts(b, "\nstatus: draft\nrisk: low\ncategory: analytics\nidempotency: idempotent\n"
                   "timeout_ms: 60000\n\n");
    bs_docs(b, p, ds, nds, sentence, plan);
    input_schema(b, p, ps, n, ds);
    output_schema(b, p);
    tg_buf_puts(b, "error_codes: [INVALID_INPUT, NOT_FOUND, FORBIDDEN, TIMEOUT]\n\n");
    bs_examples_tests(b, p, ds, ps, n);
    bs_tail(b, p, ds);
    free(sentence);
    free(plan);
    return tg_buf_steal(&out);
}
