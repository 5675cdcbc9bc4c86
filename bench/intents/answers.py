"""Whether a tool's result holds the answer pandas computed (bench/intents, tests/gen/).

A tool's result is read as tables: every list of objects in it (the built-in generator's
`rows`, group_and_count_by_columns' `groups`, bar_chart_by_group's `bars`; nested objects such as
`keys` are flattened into their record) and every object of plain values (csv_column_stats'
`stats`, with the result's own text fields as its labels). The expected answer (see cases.py):

  number     the result's `value`, or a one-record table with a field of that value
  Series     a table with one record per key: the record holds each part of the key (as text)
             and, in another field, the value; in the Series' order when ordered
  DataFrame  the same, every column's value in the record
  list       a field whose values, record after record, are the list
  Rows(n)    a table of n records (row_count when the tool reports one)

Numbers are equal within 1e-6 relative, or when the tool rounded to 4 decimals. A missing value
(NaN) equals null.
"""

import math

import numpy as np
import pandas as pd

from cases import Rows


def is_num(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def missing(v):
    return v is None or (isinstance(v, (float, np.floating)) and math.isnan(v))


def num_eq(got, want):
    if missing(want) or missing(got):
        return missing(want) and missing(got)
    if not is_num(got):
        return False
    got, want = float(got), float(want)
    if abs(got - want) <= 1e-6 * max(1.0, abs(want)):
        return True
    return abs(got - round(want, 4)) <= 1e-9 * max(1.0, abs(want))


def key_text(v):
    """A key part as the text a tool would show: 4 for 4.0, True for a boolean."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if is_num(v) and float(v) == int(float(v)):
        return str(int(float(v)))
    if is_num(v):
        return repr(float(v))
    return str(v)


def flatten(rec, prefix=""):
    out = {}
    for k, v in rec.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix))
        else:
            out[prefix + str(k)] = v
    return out


def tables(result):
    found = []
    labels = {k: v for k, v in result.items() if isinstance(v, str)}
    for k, v in result.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            found.append([flatten(x) for x in v])
        elif isinstance(v, dict) and v and all(not isinstance(x, (dict, list)) for x in v.values()) \
                and any(is_num(x) for x in v.values()) and k != "details":
            found.append([dict(labels, **v)])
    return found


def record_has(rec, key, values, used_fields=()):
    """rec holds every part of key (as text) and each value in another field."""
    texts = {f: key_text(v) for f, v in rec.items() if not missing(v)}
    taken = set(used_fields)
    for part in key:
        hit = next((f for f, t in texts.items() if f not in taken and t == key_text(part)), None)
        if hit is None:
            return False
        taken.add(hit)
    for want in values:
        hit = next((f for f, v in rec.items() if f not in taken and (is_num(v) or v is None)
                    and num_eq(v, want)), None)
        if hit is None:
            return False
        taken.add(hit)
    return True


def keyed_rows(expected):
    """(key tuple, [values]) per row of a Series or DataFrame."""
    rows = []
    if isinstance(expected, pd.Series):
        for k, v in expected.items():
            rows.append((k if isinstance(k, tuple) else (k,), [v]))
    else:
        plain = isinstance(expected.index, pd.RangeIndex)
        for k, row in expected.iterrows():
            key = () if plain else (k if isinstance(k, tuple) else (k,))
            rows.append((key, list(row.values)))
    return rows


def table_matches(table, rows, ordered):
    if len(table) != len(rows):
        return False
    if ordered:
        return all(record_has(rec, k, vs) for rec, (k, vs) in zip(table, rows))
    left = list(range(len(table)))
    for k, vs in rows:
        hit = next((i for i in left if record_has(table[i], k, vs)), None)
        if hit is None:
            return False
        left.remove(hit)
    return True


def sequence_matches(table, values):
    if len(table) != len(values):
        return False
    fields = set(table[0]) if table else set()
    for f in fields:
        if all(f in rec and num_eq(rec[f], v) for rec, v in zip(table, values)):
            return True
    return False


def scalar_matches(result, want):
    if "value" in result and num_eq(result["value"], want):
        return True
    for t in tables(result):
        if len(t) == 1 and any(num_eq(v, want) for v in t[0].values() if is_num(v)):
            return True
    return False


def has_chart(result):
    return any(isinstance(v, str) and v.endswith(".png") for v in result.values())


def matches(result, expected, ordered=False, chart=False):
    """Whether result (a tool's result object) holds expected; (bool, why)."""
    if chart and not has_chart(result):
        return False, "no chart in the result"
    if isinstance(expected, Rows):
        n = result.get("row_count")
        ok = n == expected.n if isinstance(n, int) else any(len(t) == expected.n for t in tables(result))
        return ok, f"expected {expected.n} rows"
    if isinstance(expected, (pd.Series, pd.DataFrame)):
        rows = keyed_rows(expected)
        ok = any(table_matches(t, rows, ordered) for t in tables(result))
        return ok, f"expected {len(rows)} rows like {rows[:3]}"
    if isinstance(expected, list):
        ok = any(sequence_matches(t, expected) for t in tables(result))
        return ok, f"expected the values {expected[:5]}..."
    return scalar_matches(result, expected), f"expected {expected}"
