"""Group the rows of a CSV file by one or more columns and count the rows of each group."""

import pandas as pd


def run(file_path: str, group_by_columns: list, include_missing: bool = False,
        limit: int = 100) -> dict:
    """Count rows per distinct combination of group_by_columns, largest groups first."""
    df = load_csv(file_path)
    validate_columns(df, group_by_columns, file_path)

    counts = (
        df.groupby(group_by_columns, dropna=not include_missing)
        .size()
        .reset_index(name="count")
        .sort_values(["count", *group_by_columns],
                     ascending=[False] + [True] * len(group_by_columns),
                     na_position="last", kind="mergesort")
    )
    rows_counted = int(counts["count"].sum())
    shown = counts.head(limit)

    groups = [
        {
            "keys": {col: native(value) for col, value in zip(group_by_columns, keys)},
            "count": int(count),
            "percent": round(100.0 * int(count) / rows_counted, 2),
        }
        for *keys, count in shown.itertuples(index=False, name=None)
    ]
    result = {
        "file_path": file_path,
        "group_by_columns": list(group_by_columns),
        "total_rows": int(len(df)),
        "rows_counted": rows_counted,
        "rows_excluded": int(len(df)) - rows_counted,
        "group_count": int(len(counts)),
        "truncated": len(counts) > len(shown),
        "groups": groups,
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


def validate_columns(df: pd.DataFrame, columns: list, file_path: str) -> None:
    """Raise a ValueError naming the missing columns and listing the available ones."""
    if not columns:
        raise ValueError("group_by_columns must name at least one column")
    if len(set(columns)) != len(columns):
        raise ValueError(f"group_by_columns names a column twice: {columns}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"Column(s) not found in {file_path}: {', '.join(missing)}. "
            f"Available columns: {', '.join(map(str, df.columns))}"
        )


def native(value):
    """A pandas / numpy scalar as a plain JSON value (None for missing)."""
    if pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value


def cell(value) -> str:
    """A value as the text of a Markdown table cell."""
    if value is None:
        return "(missing)"
    return str(value).replace("|", "\\|")


def render_markdown(r: dict) -> str:
    cols = r["group_by_columns"]
    lines = [
        f"## Row counts by {', '.join(cols)}",
        "",
        f"{r['file_path']}: {r['total_rows']} rows in {r['group_count']} groups.",
    ]
    if r["rows_excluded"]:
        lines.append(f"{r['rows_excluded']} rows with a missing value in a grouping column were "
                     "not counted.")
    if r["truncated"]:
        lines.append(f"Showing the {len(r['groups'])} largest of {r['group_count']} groups.")
    if not r["groups"]:
        lines += ["", "No rows to group."]
        return "\n".join(lines) + "\n"
    lines += [
        "",
        "| " + " | ".join(cell(c) for c in cols) + " | count | percent |",
        "| " + " | ".join("---" for _ in cols) + " | ---: | ---: |",
    ]
    for g in r["groups"]:
        keys = " | ".join(cell(g["keys"][c]) for c in cols)
        lines.append(f"| {keys} | {g['count']} | {g['percent']:.2f}% |")
    return "\n".join(lines) + "\n"
