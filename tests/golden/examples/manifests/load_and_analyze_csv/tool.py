"""Load a CSV file and describe it: size, column types, missing values and basic statistics."""

import re

import pandas as pd

# Text columns whose every value looks like an ISO 8601 date or timestamp are datetime columns.
# Free-form date parsing is deliberately avoided: it would read "Sun" or "May" as dates.
ISO_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$"
)


def run(file_path: str, top_n: int = 5) -> dict:
    """Describe the CSV file at file_path; list the top_n most frequent values of text columns."""
    df = load_csv(file_path)
    columns = [describe_column(df[name], top_n) for name in df.columns]

    def names_of(kind):
        return [c["name"] for c in columns if c["type"] == kind]

    result = {
        "file_path": file_path,
        "row_count": int(len(df)),
        "column_count": int(len(df.columns)),
        "numeric_columns": names_of("numeric"),
        "categorical_columns": names_of("categorical"),
        "datetime_columns": names_of("datetime"),
        "boolean_columns": names_of("boolean"),
        "missing_values_total": int(df.isna().sum().sum()),
        "duplicate_rows": int(df.duplicated().sum()),
        "columns": columns,
    }
    result["summary_markdown"] = render_markdown(result)
    return result


def load_csv(file_path: str) -> pd.DataFrame:
    """Read a CSV file, turning pandas' errors into clear ones."""
    try:
        return pd.read_csv(file_path)
    except FileNotFoundError:
        raise FileNotFoundError(f"File not found: {file_path}") from None
    except IsADirectoryError:
        raise ValueError(f"{file_path} is a directory, not a CSV file") from None
    except pd.errors.EmptyDataError:
        raise ValueError(f"{file_path} is empty: a CSV file needs at least a header row") from None
    except pd.errors.ParserError as e:
        raise ValueError(f"{file_path} is not a valid CSV file: {e}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{file_path} is not UTF-8 text") from None


def column_type(series: pd.Series) -> str:
    """numeric, boolean, datetime or categorical."""
    if pd.api.types.is_bool_dtype(series):
        return "boolean"
    if pd.api.types.is_numeric_dtype(series):
        return "numeric"
    values = series.dropna().astype(str)
    if len(values) and values.str.match(ISO_DATETIME).all():
        return "datetime"
    return "categorical"


def describe_column(series: pd.Series, top_n: int) -> dict:
    kind = column_type(series)
    info = {
        "name": str(series.name),
        "type": kind,
        "missing": int(series.isna().sum()),
        "unique": int(series.nunique(dropna=True)),
    }
    if kind == "numeric":
        values = series.dropna()
        info["stats"] = {
            "mean": number(values.mean()),
            "std": number(values.std()) if len(values) > 1 else None,
            "min": number(values.min()),
            "p25": number(values.quantile(0.25)),
            "median": number(values.median()),
            "p75": number(values.quantile(0.75)),
            "max": number(values.max()),
        }
    elif kind == "datetime":
        stamps = pd.to_datetime(series.dropna())
        info["range"] = {"min": stamps.min().isoformat(), "max": stamps.max().isoformat()}
    else:
        counts = series.value_counts(dropna=True)
        convert = bool if kind == "boolean" else str
        ranked = sorted(((convert(v), int(n)) for v, n in counts.items()),
                        key=lambda pair: (-pair[1], str(pair[0])))
        info["top_values"] = [{"value": v, "count": n} for v, n in ranked[:top_n]]
    return info


def number(value):
    """A JSON number rounded to 4 decimals (an int when whole), or None for NaN."""
    if pd.isna(value):
        return None
    value = round(float(value), 4)
    return int(value) if value.is_integer() else value


def cell(value) -> str:
    """A value as the text of a Markdown table cell."""
    if value is None:
        return "n/a"
    return str(value).replace("|", "\\|")


def render_markdown(r: dict) -> str:
    lines = [
        f"## Dataset overview: {r['file_path']}",
        "",
        f"- **Rows:** {r['row_count']}",
        f"- **Columns:** {r['column_count']} ({len(r['numeric_columns'])} numeric, "
        f"{len(r['categorical_columns'])} categorical, {len(r['datetime_columns'])} datetime, "
        f"{len(r['boolean_columns'])} boolean)",
        f"- **Missing values:** {r['missing_values_total']}",
        f"- **Duplicate rows:** {r['duplicate_rows']}",
    ]
    if r["row_count"] == 0:
        lines += ["", "The file has a header but no data rows."]

    by_type = {}
    for c in r["columns"]:
        by_type.setdefault(c["type"], []).append(c)

    if "numeric" in by_type:
        lines += ["", "### Numeric columns", "",
                  "| column | mean | std | min | median | max | missing |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for c in by_type["numeric"]:
            s = c["stats"]
            lines.append(f"| {cell(c['name'])} | {cell(s['mean'])} | {cell(s['std'])} | {cell(s['min'])} "
                         f"| {cell(s['median'])} | {cell(s['max'])} | {c['missing']} |")
    for kind, heading in (("categorical", "Categorical columns"), ("boolean", "Boolean columns")):
        if kind in by_type:
            lines += ["", f"### {heading}", "",
                      "| column | unique | most frequent | missing |",
                      "| --- | ---: | --- | ---: |"]
            for c in by_type[kind]:
                top = ", ".join(f"{v['value']} ({v['count']})" for v in c["top_values"][:3])
                lines.append(f"| {cell(c['name'])} | {c['unique']} | {cell(top or None)} | {c['missing']} |")
    if "datetime" in by_type:
        lines += ["", "### Datetime columns", "",
                  "| column | from | to | missing |",
                  "| --- | --- | --- | ---: |"]
        for c in by_type["datetime"]:
            lines.append(f"| {cell(c['name'])} | {c['range']['min']} | {c['range']['max']} | {c['missing']} |")
    return "\n".join(lines) + "\n"
