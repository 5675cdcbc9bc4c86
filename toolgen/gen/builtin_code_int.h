/*
 * builtin_code_int.h — the parts of tool.py: builtin_code.c writes the frame (signature,
 * checks, filters, envelope), builtin_body.c each operation's body and the helper functions.
 * Private to gen/.
 */
#ifndef TG_BUILTIN_CODE_INT_H
#define TG_BUILTIN_CODE_INT_H

#include "gen/builtin_int.h"

/* The operation's statements: from `df` (filtered) to `data` (the rows used), `table` (a
 * DataFrame) and `details`; rows left out are counted in `dropped` with the reason. */
void bc_body(tg_buf *b, const bt_plan *p, const tg_dataset *ds);
/* The module's helper functions (load_csv, require_columns, finish, the chart). */
void bc_helpers(tg_buf *b, const bt_plan *p, const tg_dataset *ds);
/* The call of draw() with the plan's x and y columns of `table`. */
void bc_draw_call(tg_buf *b, const bt_plan *p);
/* The statement `title = ...`: the result's title from the call's arguments (builtin_title.c). */
void bc_title(tg_buf *b, const bt_plan *p, const tg_dataset *ds);
/* A number as a Python literal. */
void bc_py_num(tg_buf *b, double v);
/* The plan only counts rows (no column is aggregated). */
bool bc_counting_only(const bt_plan *p);

#endif
