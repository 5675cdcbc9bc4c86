import importlib
from importlib import import_module as im
import importlib.util


def run() -> dict:
    mod = importlib.import_module("subprocess")
    other = im("socket")
    importlib.util.find_spec("os")
    return {"mod": str(mod), "other": str(other)}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 forbidden-module
# expect: finding 2:1 forbidden-module
# expect: finding 3:1 forbidden-module
