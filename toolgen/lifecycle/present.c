/* present.c — Markdown and HTML presentations of a staged run (see present.h). */
#include "lifecycle/present.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"

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

void tg_present_quality(tg_buf *b, const cJSON *entry)
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
    tg_present_quality(&b, entry);
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
