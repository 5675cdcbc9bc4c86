/* review_format.c — render a review as text, markdown or JSON (docs/review.md "Output"). */
#include "lifecycle/review_format.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"

int tg_review_format_parse(const char *s, tg_review_format *out)
{
    if (strcmp(s, "text") == 0)
        *out = TG_REVIEW_TEXT;
    else if (strcmp(s, "markdown") == 0 || strcmp(s, "md") == 0)
        *out = TG_REVIEW_MARKDOWN;
    else if (strcmp(s, "json") == 0)
        *out = TG_REVIEW_JSON;
    else
        return -1;
    return 0;
}

typedef struct counts {
    size_t added, removed, changed, bad;
} counts;

static counts count(const tg_review *r)
{
    counts c = {0};
    for (size_t i = 0; i < r->n; i++) {
        c.added += r->v[i].kind == TG_TOOL_ADDED;
        c.removed += r->v[i].kind == TG_TOOL_REMOVED;
        c.changed += r->v[i].kind == TG_TOOL_CHANGED;
        c.bad += !r->v[i].ok;
    }
    return c;
}

static void summary_line(const tg_review *r, bool checked, tg_buf *b)
{
    counts c = count(r);
    tg_buf_printf(b, "%zu changed, %zu added, %zu removed, %zu unchanged", c.changed, c.added,
                  c.removed, r->unchanged);
    if (checked)
        tg_buf_printf(b, c.bad ? "; %zu tool%s need%s a version bump" : "; versions ok", c.bad,
                      c.bad == 1 ? "" : "s", c.bad == 1 ? "s" : "");
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

/* The scores of the validation reports; a commit holds one only when .toolgen/reports/ is
 * tracked, which it usually is not: said, rather than shown as if no build had scored it. */
static void quality_text(const tg_tool_review *t, const char *arrow, tg_buf *b)
{
    const double s[2] = {t->score_before, t->score_after};
    const char *tier[2] = {t->tier_before, t->tier_after};
    if (s[0] < 0 && s[1] < 0) {
        tg_buf_puts(b, "not recorded at either revision (the validation reports in "
                       ".toolgen/reports/ are not committed; `toolgen diff BASE` shows the "
                       "working tree's)");
        return;
    }
    for (int i = 0; i < 2; i++) {
        if (i)
            tg_buf_puts(b, arrow);
        if (s[i] < 0)
            tg_buf_puts(b, "not recorded");
        else
            tg_buf_printf(b, "%.2f (%s)", s[i], or_dash(tier[i]));
    }
}

/* ---- text ---- */

static void render_text(const tg_review *r, bool checked, tg_buf *b)
{
    tg_buf_printf(b, "base: %s%s%.10s%s\nhead: %s%s%.10s%s\n", r->base_label,
                  r->base_oid[0] ? " (" : "", r->base_oid, r->base_oid[0] ? ")" : "",
                  r->head_label, r->head_oid[0] ? " (" : "", r->head_oid,
                  r->head_oid[0] ? ")" : "");
    for (size_t i = 0; i < r->n; i++) {
        const tg_tool_review *t = &r->v[i];
        tg_buf_printf(b, "\n%s: %s, %s -> %s, %s", t->name, tg_tool_change_name(t->kind),
                      or_dash(t->version_before), or_dash(t->version_after),
                      tg_change_class_name(tg_tool_review_class(t)));
        if (checked)
            tg_buf_printf(b, ", bump needed: %s", tg_bump_name(t->need));
        tg_buf_putc(b, '\n');
        if (checked && !t->ok)
            tg_buf_printf(b, "  VERSION: %s\n", t->verdict);
        for (size_t j = 0; j < t->changes.n; j++) {
            const tg_change *c = &t->changes.v[j];
            tg_buf_printf(b, "  %-17s /%s%s  %s\n", tg_change_class_name(c->cls), c->area,
                          c->pointer, c->message);
        }
        tg_buf_puts(b, "  quality: ");
        quality_text(t, " -> ", b);
        tg_buf_putc(b, '\n');
        for (size_t j = 0; j < t->generated.n; j++)
            tg_buf_printf(b, "  emitted: %s\n", t->generated.v[j]);
    }
    tg_buf_putc(b, '\n');
    summary_line(r, checked, b);
    tg_buf_putc(b, '\n');
}

/* ---- markdown ---- */

/* Text for a table cell or inline code: | and newlines would break the table. */
static void md_text(tg_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            tg_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r')
            tg_buf_putc(b, ' ');
        else if (*s == '`')
            tg_buf_putc(b, '\'');
        else
            tg_buf_putc(b, *s);
    }
}

static void md_table(const tg_review *r, bool checked, tg_buf *b)
{
    tg_buf_puts(b, checked ? "| tool | change | version | class | bump needed | verdict |\n"
                             "| --- | --- | --- | --- | --- | --- |\n"
                           : "| tool | change | version | class |\n| --- | --- | --- | --- |\n");
    for (size_t i = 0; i < r->n; i++) {
        const tg_tool_review *t = &r->v[i];
        tg_buf_printf(b, "| `%s` | %s | %s → %s | %s |", t->name, tg_tool_change_name(t->kind),
                      or_dash(t->version_before), or_dash(t->version_after),
                      tg_change_class_name(tg_tool_review_class(t)));
        if (checked)
            tg_buf_printf(b, " %s | %s |", tg_bump_name(t->need),
                          t->ok ? "ok" : "**version bump missing**");
        tg_buf_putc(b, '\n');
    }
}

static void md_tool(const tg_tool_review *t, bool checked, tg_buf *b)
{
    tg_buf_printf(b, "\n### `%s` (%s, %s)\n\n", t->name, tg_tool_change_name(t->kind),
                  tg_change_class_name(tg_tool_review_class(t)));
    if (checked && !t->ok) {
        tg_buf_puts(b, "**Version:** ");
        md_text(b, t->verdict);
        tg_buf_puts(b, "\n\n");
    }
    if (t->changes.n) {
        tg_buf_puts(b, "| class | where | change |\n| --- | --- | --- |\n");
        for (size_t j = 0; j < t->changes.n; j++) {
            const tg_change *c = &t->changes.v[j];
            tg_buf_printf(b, "| %s%s%s | `/", c->cls == TG_CHANGE_BREAKING ? "**" : "",
                          tg_change_class_name(c->cls), c->cls == TG_CHANGE_BREAKING ? "**" : "");
            md_text(b, c->area);
            md_text(b, c->pointer);
            tg_buf_puts(b, "` | ");
            md_text(b, c->message);
            tg_buf_puts(b, " |\n");
        }
        tg_buf_putc(b, '\n');
    }
    tg_buf_puts(b, "Quality: ");
    quality_text(t, " → ", b);
    tg_buf_puts(b, ".\n");
    if (t->generated.n) {
        tg_buf_puts(b, "\nEmitted files changed:");
        for (size_t j = 0; j < t->generated.n; j++)
            tg_buf_printf(b, "%s `%s`", j ? "," : "", t->generated.v[j]);
        tg_buf_puts(b, ".\n");
    }
}

static void render_markdown(const tg_review *r, bool checked, tg_buf *b)
{
    tg_buf_puts(b, "## toolgen diff\n\n`");
    md_text(b, r->base_label);
    tg_buf_puts(b, "` → `");
    md_text(b, r->head_label);
    tg_buf_puts(b, "`: ");
    summary_line(r, checked, b);
    tg_buf_puts(b, ".\n");
    if (!r->n)
        return;
    tg_buf_putc(b, '\n');
    md_table(r, checked, b);
    for (size_t i = 0; i < r->n; i++)
        md_tool(&r->v[i], checked, b);
}

/* ---- JSON ---- */

static cJSON *str_or_null(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *score_or_null(double s)
{
    return s < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(s);
}

static cJSON *rev_json(const char *label, const char *oid)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "rev", cJSON_CreateString(label));
    cJSON_AddItemToObject(o, "commit", str_or_null(oid[0] ? oid : NULL));
    return o;
}

static cJSON *tool_json(const tg_tool_review *t, bool checked)
{
    cJSON *o = cJSON_CreateObject(), *ch = cJSON_CreateArray(), *gen = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "name", t->name);
    cJSON_AddStringToObject(o, "change", tg_tool_change_name(t->kind));
    cJSON_AddStringToObject(o, "class", tg_change_class_name(tg_tool_review_class(t)));
    cJSON *v = cJSON_AddObjectToObject(o, "version");
    cJSON_AddItemToObject(v, "before", str_or_null(t->version_before));
    cJSON_AddItemToObject(v, "after", str_or_null(t->version_after));
    cJSON *s = cJSON_AddObjectToObject(o, "status");
    cJSON_AddItemToObject(s, "before", str_or_null(t->status_before));
    cJSON_AddItemToObject(s, "after", str_or_null(t->status_after));
    for (size_t j = 0; j < t->changes.n; j++) {
        const tg_change *c = &t->changes.v[j];
        cJSON *e = cJSON_CreateObject();
        char *ptr = xasprintf("/%s%s", c->area, c->pointer);
        cJSON_AddStringToObject(e, "class", tg_change_class_name(c->cls));
        cJSON_AddStringToObject(e, "area", c->area);
        cJSON_AddStringToObject(e, "pointer", ptr);
        cJSON_AddStringToObject(e, "message", c->message);
        cJSON_AddItemToArray(ch, e);
        free(ptr);
    }
    cJSON_AddItemToObject(o, "changes", ch);
    for (size_t j = 0; j < t->generated.n; j++)
        cJSON_AddItemToArray(gen, cJSON_CreateString(t->generated.v[j]));
    cJSON_AddItemToObject(o, "emitted_files_changed", gen);
    cJSON *q = cJSON_AddObjectToObject(o, "quality");
    cJSON_AddItemToObject(q, "before", score_or_null(t->score_before));
    cJSON_AddItemToObject(q, "after", score_or_null(t->score_after));
    cJSON_AddItemToObject(q, "tier_before", str_or_null(t->tier_before));
    cJSON_AddItemToObject(q, "tier_after", str_or_null(t->tier_after));
    if (checked) {
        cJSON *p = cJSON_AddObjectToObject(o, "policy");
        cJSON_AddStringToObject(p, "bump_needed", tg_bump_name(t->need));
        cJSON_AddStringToObject(p, "bump", tg_bump_name(t->got));
        cJSON_AddBoolToObject(p, "ok", t->ok);
        cJSON_AddItemToObject(p, "reason", str_or_null(t->verdict));
    }
    return o;
}

static void render_json(const tg_review *r, bool checked, tg_buf *b)
{
    cJSON *o = cJSON_CreateObject(), *tools = cJSON_CreateArray();
    counts c = count(r);
    cJSON_AddItemToObject(o, "base", rev_json(r->base_label, r->base_oid));
    cJSON_AddItemToObject(o, "head", rev_json(r->head_label, r->head_oid));
    cJSON *s = cJSON_AddObjectToObject(o, "summary");
    cJSON_AddNumberToObject(s, "changed", (double)c.changed);
    cJSON_AddNumberToObject(s, "added", (double)c.added);
    cJSON_AddNumberToObject(s, "removed", (double)c.removed);
    cJSON_AddNumberToObject(s, "unchanged", (double)r->unchanged);
    if (checked)
        cJSON_AddNumberToObject(s, "version_bumps_missing", (double)c.bad);
    for (size_t i = 0; i < r->n; i++)
        cJSON_AddItemToArray(tools, tool_json(&r->v[i], checked));
    cJSON_AddItemToObject(o, "tools", tools);
    if (checked)
        cJSON_AddBoolToObject(o, "ok", c.bad == 0);
    char *text = tg_json_print(o);
    tg_buf_puts(b, text);
    tg_buf_putc(b, '\n');
    free(text);
    cJSON_Delete(o);
}

void tg_review_render(const tg_review *r, tg_review_format f, bool checked, tg_buf *out)
{
    if (f == TG_REVIEW_MARKDOWN)
        render_markdown(r, checked, out);
    else if (f == TG_REVIEW_JSON)
        render_json(r, checked, out);
    else
        render_text(r, checked, out);
}
