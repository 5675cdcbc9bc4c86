/* verdict.c — what the validation of a candidate said (verdict.h). */
#include "gen/verdict.h"

#include <stdlib.h>
#include <string.h>

void tg_verdict_release(tg_verdict *v)
{
    free(v->failed_gate);
    free(v->diagnostics);
    memset(v, 0, sizeof *v);
}
