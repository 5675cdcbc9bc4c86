"""A clean tool: allowed imports, pandas methods whose names look dangerous but are not.

Every fixture here ends with "# expect:" lines: the findings and warnings the static check must
report (kind line:col rule), checked by tests/cli/static_check.sh; without "finding" lines the
file must pass.
"""

import json
import re
from collections import Counter

import pandas as pd

PATTERN = re.compile(r"^\d+$")  # re.compile is not the builtin compile


def run(file_path: str, expression: str = "a + b") -> dict:
    df = pd.read_csv(file_path)
    df["total"] = df.eval(expression)  # DataFrame.eval, not the builtin eval
    counts = Counter(df.columns)
    return {"columns": json.loads(json.dumps(list(counts))), "rows": int(len(df))}

# The static check must report exactly these (kind line:col rule):
# expect: warning 18:10 restricted-call
