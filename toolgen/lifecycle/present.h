/*
 * present.h — the presentation of a staged run (seed step 6, docs/lifecycle.md
 * "Presentation"): the primary output first, then the tool summary (what it did, rows
 * processed, time, assumptions, limitations, quality tier and review priority), then the two
 * explicit questions of the approval. As Markdown for the terminal and the workflow over MCP;
 * the HTML page is lifecycle/reviewpage.h.
 */
#ifndef TG_PRESENT_H
#define TG_PRESENT_H

#include <cjson/cJSON.h>

#include "base/buf.h"

/* Markdown. art is run_artifacts.json, entry the tool's staging entry. Heap string. */
char *tg_present_markdown(const cJSON *art, const cJSON *entry);

/* Appends the quality of a staging entry: "1.00 (excellent), review priority high (ready to
 * review)", or "not measured". */
void tg_present_quality(tg_buf *b, const cJSON *entry);

#endif
