/*
 * cover.h — does an existing tool answer a reading, every part of it? (docs/generate.md#reuse)
 *
 * A tool says what a call of it computes in its input schema, under `x-toolgen-reading` (a
 * toolgen keyword, stripped from the schemas clients see): one entry per part of a reading
 * (gen/reading.h), each either fixed — what the tool always does — or taken from an argument:
 *
 *   x-toolgen-reading:
 *     operation: aggregate                      # fixed
 *     aggregates: {param: aggregate, values: {count: size, mean: mean, sum: sum}}
 *     measures: {param: value_column}           # a string argument: one column
 *     groups: {param: category_column}          # an array argument: 1..maxItems columns
 *     order: desc                               # fixed; or {param: sort_by, values: {value: desc}}
 *     top_k: {param: top_n}
 *     chart: bar
 *
 * ({params: [x_column, y_column]} gives one column to each argument, in order.) A part the
 * declaration leaves out is one the tool does not do: the reading must not have it either.
 * Parts are operation, aggregates, measures, groups, filters, date_column, period, order,
 * top_k, chart, derived, method, threshold, window, bins and key; any other key, a param that
 * is not a property, or a value the argument cannot take makes the tool not cover the reading.
 * A tool without the keyword covers nothing: it is never reused blindly.
 *
 * The order of rows is a part only when the request asks for one (a ranking, "sorted
 * descending"); a tool that cuts its result (top_k from an argument) is called with the
 * argument's maximum, and covers an unranked request only when the groups cannot be more.
 */
#ifndef TG_COVER_H
#define TG_COVER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/json.h"
#include "gen/dataset.h"
#include "gen/reading.h"

/*
 * Whether the tool with input_schema covers r on the data files ds[0..nds) (their paths go to
 * the tool's path arguments, their distinct counts bound the groups). true: args (an object the
 * caller owns) holds the exact call. false: *why (caller frees) says the first part not covered.
 */
bool tg_cover(const cJSON *input_schema, const tg_reading *r, const tg_dataset *ds, size_t nds,
              cJSON *args, char **why);

#endif
