/* cli_present.h — the staged-run part of `toolgen run` (cli_present.c, docs/lifecycle.md). */
#ifndef TG_CLI_PRESENT_H
#define TG_CLI_PRESENT_H

#include <stdbool.h>

#include "lifecycle/registry.h"
#include "model/manifest.h"
#include "run/toolrun.h"

typedef struct cli_staged {
    tg_registry g;
    bool open;
    char *dir; /* the candidate folder when the tool is STAGED, else NULL */
} cli_staged;

/* Before the call: loads the config and finds m's STAGED snapshot. TG_EXIT_OK, or the exit
 * code after printing why (a stale snapshot; --html on a tool that is not staged). */
int cli_staged_begin(tg_repo *repo, const tg_manifest *m, const char *html, cli_staged *s);
/* After the call of a staged tool: stores the files and run_artifacts.json, prints the
 * presentation (sets *printed) unless json, writes html when given. An exit code. */
int cli_staged_present(cli_staged *s, const tg_manifest *m, const tg_call_result *r,
                       bool json, const char *html, bool *printed);
void cli_staged_end(cli_staged *s);

#endif
