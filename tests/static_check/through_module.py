import numpy as np
import pandas as pd


def run() -> dict:
    # os and subprocess reached as attributes of allowed modules
    pd.io.common.os.system("id")
    np.compat.subprocess.run(["id"])
    s = "ééé"; pd.io.common.os.popen(s)
    return {}

# The static check must report exactly these (kind line:col rule):
# expect: finding 7:5 forbidden-call
# expect: finding 8:5 forbidden-module
# expect: finding 9:16 forbidden-call
