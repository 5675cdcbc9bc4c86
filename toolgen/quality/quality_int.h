/* quality_int.h — what the quality modules share; private to quality/. */
#ifndef TG_QUALITY_INT_H
#define TG_QUALITY_INT_H

#include <stdbool.h>

#include "base/util.h"

/* A score or weight on the unit interval; false for NaN too. */
static inline bool tgq_is_unit(double v)
{
    return v >= 0.0 && v <= 1.0;
}

/* -1 with "NAME must be from 0 to 1, got V" unless v is on the unit interval. */
static inline int tgq_check_unit(const char *name, double v, tg_err *err)
{
    if (!tgq_is_unit(v))
        return tg_err_set(err, "%s must be from 0 to 1, got %g", name, v);
    return 0;
}

#endif
