"""Count the data rows of a CSV file (fixture of tests/cli/gates.sh)."""
import csv

# A forbidden word inside a string is not a violation: eval(x), exec, __import__("os").
NOTE = "eval(x) and import subprocess are only text here"


def run(file_path):
    with open(file_path, newline="") as f:
        rows = max(len(list(csv.reader(f))) - 1, 0)
    return {"rows": rows, "summary_markdown": f"{file_path}: {rows} rows"}
