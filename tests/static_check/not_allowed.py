from __future__ import annotations

import sys
from pathlib import Path
from . import helpers
import yaml


def run(file_path: str) -> dict:
    argv = sys.argv
    path = Path(file_path)
    with open(path) as f:
        return {"argv": argv, "text": f.read(), "h": str(helpers), "y": str(yaml)}

# The static check must report exactly these (kind line:col rule):
# expect: finding 3:1 import-not-allowed
# expect: finding 4:1 import-not-allowed
# expect: finding 5:1 import-not-allowed
# expect: finding 6:1 import-not-allowed
# expect: warning 11:12 restricted-call
# expect: warning 12:10 restricted-call
