"""toolgen's dataset reader: the schema of one CSV file as JSON on stdout.

Run inside the sandbox as `python3 dataset_schema.py PATH` by gen/dataset.c, with the file
bound read-only (docs/generate.md#datasets). It prints one JSON object:

  {"rows": N, "columns": [{"name", "type", "missing", "distinct", "samples", "levels"?,
                           "min"?, "max"?}]}

type is int, float, bool, date or string, detected the way a generated pandas tool will see the
column (pandas.read_csv's dtypes; text columns whose every value parses as a date are dates).
Everything printed is bounded: names and values are clipped, at most MAX_COLUMNS columns,
MAX_SAMPLES samples and MAX_LEVELS levels. A file that cannot be read exits 2 with one line on
stderr saying why.
"""

import json
import math
import sys
import warnings

MAX_COLUMNS = 1000
MAX_SAMPLES = 5   # TG_DATASET_MAX_SAMPLES in gen/dataset.h
MAX_LEVELS = 50   # TG_DATASET_MAX_LEVELS in gen/dataset.h
MAX_TEXT = 200


def fail(message):
    sys.stderr.write(message + "\n")
    sys.exit(2)


def clip(value):
    text = str(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT]


def text_of(value):
    """A value as text the way the file shows it (whole floats without '.0' stay floats)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return clip(repr(value))
    return clip(value)


def is_date_column(values):
    import pandas as pd
    if len(values) == 0:
        return False
    # dateutil would read "January" or "Sun" as dates: a date has digits.
    if not all(any(ch.isdigit() for ch in str(v)) for v in values):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            pd.to_datetime(values, errors="raise")
        except (ValueError, TypeError, OverflowError):
            return False
    return True


def column_type(series, values):
    import pandas as pd
    if pd.api.types.is_bool_dtype(series):
        return "bool"
    if pd.api.types.is_integer_dtype(series):
        return "int"
    if pd.api.types.is_float_dtype(series):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "date"
    lowered = set(str(v).lower() for v in values)
    if values.size and lowered <= {"true", "false"}:
        return "bool"
    return "date" if is_date_column(values) else "string"


def describe(name, series):
    values = series.dropna()
    uniques = values.drop_duplicates()
    col = {
        "name": clip(name),
        "type": column_type(series, values),
        "missing": int(series.isna().sum()),
        "distinct": int(uniques.size),
        "samples": [text_of(v) for v in uniques.head(MAX_SAMPLES).tolist()],
    }
    if uniques.size <= MAX_LEVELS:
        col["levels"] = [text_of(v) for v in uniques.tolist()]
    if col["type"] in ("int", "float") and values.size:
        lo, hi = float(values.min()), float(values.max())
        if math.isfinite(lo) and math.isfinite(hi):
            col["min"], col["max"] = lo, hi
    return col


def main(argv):
    if len(argv) != 2:
        fail("usage: dataset_schema.py FILE")
    path = argv[1]
    import pandas as pd
    try:
        df = pd.read_csv(path)
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except IsADirectoryError:
        fail(f"{path}: a directory, not a CSV file")
    except pd.errors.EmptyDataError:
        fail(f"{path}: empty; a CSV file needs at least a header row")
    except pd.errors.ParserError as e:
        fail(f"{path}: not a valid CSV file: {str(e).strip()}")
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text")
    if df.shape[1] > MAX_COLUMNS:
        fail(f"{path}: {df.shape[1]} columns, more than the {MAX_COLUMNS} generation reads")
    names = [str(c) for c in df.columns]
    if any(n.startswith("Unnamed: ") for n in names):
        fail(f"{path}: the header row has an empty column name; name every column")
    out = {"rows": int(df.shape[0]),
           "columns": [describe(n, df[c]) for n, c in zip(names, df.columns)]}
    json.dump(out, sys.stdout, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
