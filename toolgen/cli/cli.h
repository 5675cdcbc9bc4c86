/* cli.h — the command layer: the only code that prints for humans and decides exit codes. */
#ifndef TG_CLI_H
#define TG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "model/repo.h"

/* Exit codes shared by every command (docs/cli.md, the table at the top). */
enum {
    TG_EXIT_OK = 0,      /* success */
    TG_EXIT_FAIL = 1,    /* the thing checked is not OK */
    TG_EXIT_USAGE = 2,   /* usage or configuration error */
    TG_EXIT_ENV = 3,     /* environment problem (missing sandbox, provider down, ...) */
};

typedef struct tg_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;               /* one line for `toolgen --help` */
    const char *usage;                 /* full text for `toolgen help NAME` / `NAME --help` */
} tg_command;

int cmd_validate(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* cli_lifecycle.c */
int cmd_stage(int argc, char **argv);
int cmd_feedback(int argc, char **argv);
int cmd_promote(int argc, char **argv);
int cmd_reject(int argc, char **argv);
/* cli_status.c */
int cmd_status(int argc, char **argv);
int cmd_log(int argc, char **argv);
/* For `toolgen check`: verifies every registry snapshot against its recorded hashes and prints
 * what differs; TG_EXIT_OK, TG_EXIT_FAIL (a mismatch) or TG_EXIT_USAGE (unreadable metadata). */
int cli_check_registry(const tg_repo *repo);
int cmd_init(int argc, char **argv);
int cmd_new(int argc, char **argv);

extern const char tg_usage_validate[];
extern const char tg_usage_lint[];
extern const char tg_usage_build[];
extern const char tg_usage_explain[];
extern const char tg_usage_graph[];
extern const char tg_usage_clean[];
extern const char tg_usage_check[];
extern const char tg_usage_run[];
extern const char tg_usage_serve[];
extern const char tg_usage_pack[];
extern const char tg_usage_diff[];
extern const char tg_usage_stage[];
extern const char tg_usage_feedback[];
extern const char tg_usage_promote[];
extern const char tg_usage_reject[];
extern const char tg_usage_lcstatus[];
extern const char tg_usage_log[];
extern const char tg_usage_init[];
extern const char tg_usage_new[];

/* cli_new.c: prints one pipeline step per line on stdout (a progress callback of app/). */
void cli_print_step(void *ud, const char *line);
/* cli_refine.c: `toolgen reject TOOL --notes NOTES --refine` after the rejection: generation
 * again at the spec step with the corrections, as a new draft version (app/refine.h). An exit
 * code. */
int cli_refine(const tg_repo *repo, const char *tool, const char *notes);

/* The user who answers feedback, for Approved-By: $TOOLGEN_USER, else $USER, else $LOGNAME,
 * else the account's login name. */
const char *cli_answering_user(void);

/* Prints "toolgen: <msg>" to stderr; returns code so commands can `return cli_fail(...)`. */
int cli_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints the usage text of a command (for --help). */
int cli_print_usage(const char *usage, int code);

/*
 * The repository folder: the one -C DIR names, else the nearest folder at or above the current
 * one that holds toolgen.yaml or manifests/ (not above a folder holding .git), else ".".
 * Nothing changes the process's working directory; the commands open the repository with
 * cli_repo_open and the library reaches its files through the root fd (model/repo.h). Paths
 * typed on the command line for the user's own files (--html, --out, validate's files) are
 * relative to the -C folder, as they were when -C changed directory (like git -C and make -C),
 * else to the current one; paths that name the repository's files (tool arguments, --data,
 * lint's) are relative to its root.
 */
const char *cli_dir(void);
/*
 * Makes dir (relative to the current -C folder, or absolute) the repository folder. 0, or -1
 * with errno when it is not a directory that can be opened.
 */
int cli_set_dir(const char *dir);
/* tg_repo_open_dir(cli_dir()): the repository without its config (tg_repo_load_config). */
int cli_repo_open(tg_repo *r, tg_err *err);
/* A path typed by the user, for the path-based helpers: unchanged when absolute or without
 * -C, else below the -C folder. Heap string. */
char *cli_user_path(const char *path);

#endif
