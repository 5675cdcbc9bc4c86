/*
 * fromcli.h — `toolgen init --from-cli CMD [DIR]`: one draft manifest of the command runtime per
 * subcommand of an installed program (or one for the program when it has none), read from its
 * --help output (docs/cli.md#init-from-cli).
 *
 * CMD is one executable: a name found on PATH or an absolute path, never a shell line. Its
 * `--help` (and each subcommand's `CMD SUB --help`, else `CMD SUB -h`) runs in the sandbox
 * (run/sandbox.h) with the sandbox settings of DIR's toolgen.yaml when it has one. Options become
 * typed input_schema properties and argv elements that keep every value one argument
 * (`--flag={x}`, `-f{x}`, switches as {when, arg}); positionals keep their order, after `--`
 * when the program takes it, else with a pattern refusing a leading '-'; there is never a
 * free-form argv property. Options that name configuration or output files, or run programs
 * (--config, --output, --exec, --upload-pack, ...) are left out and listed in
 * docs.limitations. Each draft's example runs once in the sandbox and its output is recorded
 * (one that fails is named in a warning). The hints file selects, renames and describes
 * subcommands as operations (a subcommand's name is its operation and path). Drafts are written,
 * and re-runs treated, by the rules every init --from-* shares (app/drafts.h). Nothing here
 * prints.
 */
#ifndef TG_APP_FROMCLI_H
#define TG_APP_FROMCLI_H

#include <stdbool.h>

#include "app/openapi.h"
#include "base/util.h"

typedef struct tg_fromcli_opts {
    const char *cmd;  /* the program: a name on PATH or an absolute path */
    const char *dir;  /* the repository (created / initialised when needed) */
    int name_budget;  /* longest tool name; 0: TG_OPENAPI_NAME_BUDGET (16..64) */
    bool dry_run;     /* draft and compare, write nothing */
    const char *hints_file; /* NULL: DIR/toolgen.hints.yaml when it exists (docs/cli.md#hints:
                               subcommand rules, rename, descriptions) */
} tg_fromcli_opts;

/* 0 with out filled (tg_openapi_report: skipped lists subcommands not drafted; free it with
 * tg_openapi_report_free, also after an error); -2 with err: the program is not found, not
 * executable, not visible in the sandbox, or its --help failed, and nothing was written; -3
 * with err: no usable sandbox; -1 with err: a write failed. */
int tg_app_init_fromcli(const tg_fromcli_opts *o, tg_openapi_report *out, tg_err *err);

#endif
