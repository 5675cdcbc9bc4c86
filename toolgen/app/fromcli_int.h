/*
 * fromcli_int.h — private to app/: what the modules of `toolgen init --from-cli` share
 * (fromcli_help.c reads a --help text, fromcli.c runs the program and drafts the manifests;
 * docs/cli.md#init-from-cli).
 */
#ifndef TG_APP_FROMCLI_INT_H
#define TG_APP_FROMCLI_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/strvec.h"

/* More subcommands than this are not drafted (the rest are reported left out). */
#define FC_MAX_SUBS 64

/* One option of a --help text. */
typedef struct fc_opt {
    char *flag;    /* as passed: "--verbose" (long when there is one) or "-v" */
    bool is_long;
    char *metavar; /* the value's name ("<n>", "FILE"); NULL: an on/off switch */
    char *desc;    /* its description, trimmed ("" when none) */
} fc_opt;

/* One positional argument of the usage line, in order. */
typedef struct fc_pos {
    char *name;    /* snake_case, from "<repo>", "FILE", "[<dir>]" */
    bool optional; /* written in [] */
    bool many;     /* followed by "..." */
} fc_pos;

typedef struct fc_help {
    fc_opt *opts;
    size_t nopts;
    fc_pos *pos;
    size_t npos;
    bool dashdash;    /* the program takes "--": "[--]" in its usage line (a listed "--" option
                         is not trusted: jq 1.6 lists it and refuses it) */
    bool has_usage;   /* a line starting "usage:" was found */
    char *usage;      /* that line, after "usage:" (heap; NULL: none) */
    char *summary;    /* the first line of prose after the usage (heap; NULL: none) */
    tg_strv subs;     /* subcommand names from a "... commands" listing, in order */
    tg_strv sub_desc; /* their one-line descriptions */
    tg_strv examples; /* example command lines ("$ echo x | jq ."), without the "$ " */
} fc_help;

/* Reads text, the --help output of prog (its base name) or of prog sub (sub NULL: the
 * program itself). Never fails: what it does not understand it leaves out. */
void fc_help_parse(fc_help *h, const char *text, const char *prog, const char *sub);
void fc_help_free(fc_help *h);

/* What one draft is made from. */
typedef struct fc_source {
    const char *prog;   /* the program's absolute path (implementation.argv[0]) */
    const char *base;   /* its base name, "git" */
    const char *sub;    /* the subcommand, or NULL */
    const char *listed; /* the subcommand's line in the program's listing, or NULL */
    int budget;         /* longest tool name */
    const char *name;   /* the hints file's name for it (checked), or NULL */
    const char *description; /* the hints file's description, or NULL */
} fc_source;

/* fromcli_draft.c: the draft manifest of s read as h (a new object; never fails). Its name is
 * made unique against taken, which it is added to. */
cJSON *fc_draft(const fc_source *s, const fc_help *h, tg_strv *taken);

#endif
