"""count_column: counts one column's values; asks which column when the call does not say."""
import csv

from toolgen_helpers import ToolError, ask


def run(file_path, column=None):
    with open(file_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0] if rows else []
    if column is None:
        column = ask("column", f"Which column of {file_path} should be counted?",
                     {"type": "string", "title": "Column", "enum": header})
        if ask("sure", f"Count the column {column}?", {"type": "boolean"}) is not True:
            raise ToolError("INVALID_INPUT", "the user did not confirm the column")
    if column not in header:
        raise ToolError("INVALID_INPUT", f"no column {column!r}; the columns are {header}")
    i = header.index(column)
    return {"column": column, "count": sum(1 for r in rows[1:] if i < len(r) and r[i] != "")}
