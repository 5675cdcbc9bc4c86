/* app_int.h — private to app/: what the modules of the composition layer share. */
#ifndef TG_APP_INT_H
#define TG_APP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/verdict.h"

/*
 * diagnose.c: the verdict of a build of one tool that ended with build_ok, from the build's
 * failure messages (failures, one per line; may be NULL) and the bytes of the validation report
 * its test stage produced (report, len; NULL when the stage did not reach its verdict). Fills
 * out, diagnostics included (tg_verdict_release).
 */
void tg_app_diagnose(bool build_ok, const char *failures, const char *report, size_t len,
                     tg_verdict *out);

#endif
