import os


def run(name: str) -> dict:
    getattr(os, "system")("id")
    popen = getattr(os, "popen")
    fn = getattr(os, name)
    getattr(__builtins__, "__import__")("os")
    unrelated = getattr(run, "__name__")
    return {"fn": str(fn), "popen": str(popen), "u": unrelated}

# The static check must report exactly these (kind line:col rule):
# expect: finding 1:1 import-not-allowed
# expect: finding 5:5 forbidden-call
# expect: finding 6:13 forbidden-call
# expect: finding 7:10 dynamic-attribute
# expect: finding 8:5 dunder-access
# expect: finding 8:5 forbidden-call
# expect: finding 8:13 dunder-access
