"""Aggregate a CSV column per category and draw the result as a bar chart (PNG).

Writes three files into the working directory: the chart, the plotted data as CSV, and a
visualization_manifest.json (seed 002 format) that describes a table and a bar chart of that data.
"""

import json

import matplotlib

matplotlib.use("Agg")  # no display: render straight to files

import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)
import pandas as pd  # noqa: E402

CHART_FILE = "bar_chart.png"
DATA_FILE = "bar_chart_data.csv"
MANIFEST_FILE = "visualization_manifest.json"


def run(file_path: str, category_column: str, value_column: str = None, aggregate: str = "count",
        top_n: int = 20, sort_by: str = "value", title: str = None) -> dict:
    """Plot `aggregate` of value_column (or the row count) for each value of category_column."""
    df = load_csv(file_path)
    needed = [category_column] + ([value_column] if value_column else [])
    validate_columns(df, needed, file_path)
    if aggregate != "count":
        if not value_column:
            raise ValueError(f"aggregate '{aggregate}' needs a value_column")
        if not is_numeric(df[value_column]):
            numeric = [str(c) for c in df.columns if is_numeric(df[c])]
            raise ValueError(f"Column '{value_column}' is not numeric, so it cannot be aggregated "
                             f"with '{aggregate}'. Numeric columns: {', '.join(numeric) or 'none'}")

    data = df.dropna(subset=[category_column])
    if data.empty:
        raise ValueError(f"{file_path} has no rows with a value in '{category_column}' to plot")
    grouped = data.groupby(category_column)
    if value_column:
        series = grouped[value_column].agg(aggregate).dropna()
    else:
        series = grouped.size()

    label = f"{aggregate}_{value_column}" if value_column else "count"
    table = series.rename(label).reset_index()
    if sort_by == "value":
        table = table.sort_values([label, category_column], ascending=[False, True], kind="mergesort")
    else:
        table = table.sort_values(category_column, kind="mergesort")
    other_categories = max(0, len(table) - top_n)
    table = table.head(top_n).copy()
    table[category_column] = table[category_column].astype(str)
    table[label] = [number(v) for v in table[label]]

    chart_title = title or default_title(aggregate, value_column, category_column)
    table.to_csv(DATA_FILE, index=False)
    draw_chart(table, category_column, label, chart_title)
    write_visualization_manifest(category_column, label, chart_title)

    bars = [{"category": c, "value": v} for c, v in zip(table[category_column], table[label])]
    result = {
        "file_path": file_path,
        "category_column": category_column,
        "value_column": value_column,
        "aggregate": aggregate,
        "title": chart_title,
        "bars": bars,
        "other_categories": other_categories,
        "chart_file": CHART_FILE,
        "data_file": DATA_FILE,
        "manifest_file": MANIFEST_FILE,
    }
    result["summary_markdown"] = render_markdown(result, label)
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
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"Column(s) not found in {file_path}: {', '.join(missing)}. "
            f"Available columns: {', '.join(map(str, df.columns))}"
        )


def is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def number(value):
    """A JSON number rounded to 4 decimals (an int when whole)."""
    value = round(float(value), 4)
    return int(value) if value.is_integer() else value


def default_title(aggregate: str, value_column: str, category_column: str) -> str:
    if not value_column:
        return f"Rows per {category_column}"
    return f"{aggregate.capitalize()} of {value_column} per {category_column}"


def cell(value) -> str:
    """A value as the text of a Markdown table cell."""
    return str(value).replace("|", "\\|")


def draw_chart(table: pd.DataFrame, x: str, y: str, title: str) -> None:
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(table[x], table[y], color="#4C72B0")
    ax.set_title(title)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if len(table) > 6 or table[x].str.len().max() > 10:
        plt.setp(ax.get_xticklabels(), rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(CHART_FILE, dpi=100, metadata={"Software": None})  # no version: stable bytes
    plt.close(fig)


def write_visualization_manifest(x: str, y: str, title: str) -> None:
    manifest = {
        "version": "1.0",
        "outputs": [
            {
                "id": "bar_chart_table",
                "type": "table",
                "title": title,
                "dataFile": DATA_FILE,
                "config": {"columns": [x, y]},
            },
            {
                "id": "bar_chart",
                "type": "bar_chart",
                "title": title,
                "dataFile": DATA_FILE,
                "config": {"xColumn": x, "yColumn": y, "xLabel": x, "yLabel": y},
            },
        ],
    }
    with open(MANIFEST_FILE, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")


def render_markdown(r: dict, label: str) -> str:
    lines = [
        f"## {r['title']}",
        "",
        f"![{r['title']}]({r['chart_file']})",
        "",
        f"| {cell(r['category_column'])} | {label} |",
        "| --- | ---: |",
    ]
    lines += [f"| {cell(b['category'])} | {b['value']} |" for b in r["bars"]]
    if r["other_categories"]:
        lines += ["", f"{r['other_categories']} more categories are not shown."]
    lines += ["", f"Files: {r['chart_file']}, {r['data_file']}, {r['manifest_file']}."]
    return "\n".join(lines) + "\n"
