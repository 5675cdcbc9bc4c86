/*
 * present.h — the presentation of a staged run (seed step 6, docs/lifecycle.md
 * "Presentation"): the primary output first, then the tool summary (what it did, rows
 * processed, time, assumptions, limitations, quality tier and review priority), then the two
 * explicit questions of the approval. As Markdown for the terminal, and as one self-contained
 * HTML page that also draws the visualization manifest's tables and charts inline (SVG; no
 * script, style sheet, font or image is fetched).
 */
#ifndef TG_PRESENT_H
#define TG_PRESENT_H

#include <cjson/cJSON.h>

#include "lifecycle/registry.h"

/* Markdown. art is run_artifacts.json, entry the tool's staging entry. Heap string. */
char *tg_present_markdown(const cJSON *art, const cJSON *entry);

/*
 * The HTML page; the charts' data files are read from <dir>/files/ (dir: the candidate folder,
 * relative to the root). A data file that is missing or unreadable is shown as a note, not an
 * error. Heap string.
 */
char *tg_present_html(const tg_registry *g, const char *dir, const cJSON *art,
                      const cJSON *entry);

#endif
