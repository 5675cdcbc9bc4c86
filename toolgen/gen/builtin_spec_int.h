/*
 * builtin_spec_int.h — the parts of the manifest: builtin_spec.c writes the head and the
 * schemas, builtin_tests.c the docs, the example, the tests, the constraints and provenance.
 * Private to gen/.
 */
#ifndef TG_BUILTIN_SPEC_INT_H
#define TG_BUILTIN_SPEC_INT_H

#include "gen/builtin_int.h"

/* The line of the example's output before it was run (tg_builtin_set_example_output). */
#define BT_EXAMPLE_PLACEHOLDER "    output: {}  # to be filled from a real run\n"

void bs_docs(tg_buf *b, const bt_plan *p, const tg_dataset *ds, size_t nds, const char *sentence,
             const char *plan);
void bs_examples_tests(tg_buf *b, const bt_plan *p, const tg_dataset *ds, const bt_param *ps,
                       size_t n);
void bs_tail(tg_buf *b, const bt_plan *p, const tg_dataset *ds);
/* The example's input as compact JSON (caller frees). */
char *bs_example_input(const bt_plan *p, const tg_dataset *ds);

#endif
