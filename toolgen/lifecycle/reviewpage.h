/*
 * reviewpage.h — the HTML page of a staged run (`toolgen run TOOL --html`), the page a person
 * approves a tool from (docs/lifecycle.md "Presentation"). One self-contained file: no script,
 * and nothing fetched (a Content-Security-Policy of default-src 'none' says so), readable on a
 * phone and on a desktop.
 *
 * In order: the tool's reading of the request (its title, intent and description, and the
 * arguments of the run); the result, once — the visualization manifest's tables and charts
 * when the run wrote one, else the result's rows as a table with its numbers rounded and
 * right-aligned and, when the rows have a category and a value, a bar chart —, then the text of
 * the tool's Markdown summary; the tool summary (what it did, rows, time, quality, files, the
 * assumptions and limitations it states); the two questions of the approval, each with the
 * exact commands that answer it.
 */
#ifndef TG_REVIEWPAGE_H
#define TG_REVIEWPAGE_H

#include <cjson/cJSON.h>

#include "lifecycle/registry.h"

/*
 * The page. dir is the candidate folder (relative to the root): its spec.json gives the title
 * and the request, and the charts' data files are read from <dir>/files/ (a missing or
 * unreadable one is shown as a note). art is run_artifacts.json, entry the tool's staging
 * entry. Heap string.
 */
char *tg_review_page(const tg_registry *g, const char *dir, const cJSON *art,
                     const cJSON *entry);

#endif
